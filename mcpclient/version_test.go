package mcpclient_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUpstreamVersion lists the tools of a hands server whose tool
// declares a version: the client's tool carries it, in its spec and on
// each result, as hands' own tool does; and served again, it lists the
// same version, so a gateway passes it on.
func TestUpstreamVersion(t *testing.T) {
	type greetArgs struct {
		Name string `json:"name"`
	}
	greet := tool.New("greet", "Greet someone.", func(ctx context.Context, a greetArgs) (string, error) {
		return "hello " + a.Name, nil
	}, tool.WithVersion("2026-11-01"))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "people", Tools: []tool.Interface{greet}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := connectTo(t, mcpserver.New(reg, nil).MCP(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := c.Tools()
	if len(tools) != 1 {
		t.Fatalf("%d tools, want 1", len(tools))
	}
	if v := tools[0].Spec().Version; v != "2026-11-01" {
		t.Errorf("the remote tool's Spec().Version = %q, want the upstream's 2026-11-01", v)
	}
	res := tool.Run(t.Context(), tools[0], tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	if res.IsError || res.Version != "2026-11-01" {
		t.Errorf("a call of the remote tool: %q (error %v), version %q; want it to run as the upstream's version", res.Content, res.Err, res.Version)
	}

	// Served again, by a gateway.
	gw, err := tool.NewRegistry(&tool.Scope{Name: "upstream", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	again, err := connectTo(t, mcpserver.New(gw, nil).MCP(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := again.Tools()[0].Spec().Version; v != "2026-11-01" {
		t.Errorf("through a gateway, Spec().Version = %q, want 2026-11-01", v)
	}
}

// TestUpstreamVersionNotAString lists tools whose _meta version is not
// one hands takes: each tool is offered, without a version.
func TestUpstreamVersionNotAString(t *testing.T) {
	var tools []*mcp.Tool
	for i, v := range []any{2, "", "  ", strings.Repeat("9", 129), map[string]any{"v": "1"}, nil} {
		tools = append(tools, &mcp.Tool{Name: "t" + string(rune('a'+i)), Description: "T.", InputSchema: json.RawMessage(`{"type":"object"}`),
			Meta: mcp.Meta{mcpserver.VersionMeta: v}})
	}
	c, err := connectTo(t, hostileServer(tools...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.Tools()); got != len(tools) {
		t.Errorf("%d tools offered, want all %d; refused: %v", got, len(tools), c.Refused())
	}
	for _, tl := range c.Tools() {
		if v := tl.Spec().Version; v != "" {
			t.Errorf("tool %s: version %q, want none", tl.Name(), v)
		}
	}
}

// TestUpstreamMigrations calls, through the client, a hands server's tool
// that migrates from an earlier version: a call made against that
// version, which the client has no schema for, reaches the server, which
// upgrades it, and the result records the version it was made against, as
// hands' own tool does; through a gateway in front of the client too.
func TestUpstreamMigrations(t *testing.T) {
	type forecastV1 struct {
		Town string `json:"town" tool:"minLength=1"`
	}
	type forecastV2 struct {
		City string `json:"city" tool:"minLength=1"`
	}
	forecast := tool.New("forecast", "Forecast the weather.", func(ctx context.Context, a forecastV2) (string, error) {
		return "sunny in " + a.City, nil
	}, tool.WithVersion("2"), tool.Migrate("1", func(old forecastV1) (forecastV2, error) { return forecastV2{City: old.Town}, nil }))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{forecast}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := connectTo(t, mcpserver.New(reg, nil).MCP(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := tool.NewRegistry(&tool.Scope{Name: "upstream", Tools: c.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	again, err := connectTo(t, mcpserver.New(gw, nil).MCP(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, hop := range []struct {
		name string
		tool tool.Interface
	}{{"the client", c.Tools()[0]}, {"a gateway", again.Tools()[0]}} {
		if spec := hop.tool.Spec(); spec.Version != "2" || !slices.Equal(spec.MigratesFrom, []string{"1"}) {
			t.Errorf("%s: version %q, migrates from %q; want the server's 2 and [1]", hop.name, spec.Version, spec.MigratesFrom)
		}
		for _, tt := range []struct {
			args    string
			content string // "" for an error result
			from    string
		}{
			{args: `{"city":"Oslo"}`, content: "sunny in Oslo"},
			{args: `{"town":"Bergen"}`, content: "sunny in Bergen", from: "1"},
			{args: `{"town":""}`},
		} {
			res := tool.Run(t.Context(), hop.tool, tool.Call{ID: "1", Name: "forecast", Args: json.RawMessage(tt.args)})
			if tt.content == "" {
				if !res.IsError || !strings.Contains(res.Content, "invalid") {
					t.Errorf("%s, %s: %q, want the server's refusal", hop.name, tt.args, res.Content)
				}
				continue
			}
			if res.IsError || res.Content != tt.content || res.Version != "2" {
				t.Errorf("%s, %s: %q (error %v), version %q; want %q from version 2", hop.name, tt.args, res.Content, res.Err, res.Version, tt.content)
			}
			var want []tool.Repair
			if tt.from != "" {
				want = []tool.Repair{{Kind: tool.RepairMigrated, Version: tt.from}}
			}
			if !slices.Equal(res.Repairs, want) {
				t.Errorf("%s, %s: repairs %v, want %v", hop.name, tt.args, res.Repairs, want)
			}
		}
	}
}
