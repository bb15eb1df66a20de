package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/catalogue"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolsearch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatewayTools returns the first n tools of the catalogue of real MCP
// servers, in server order, named server_name as a gateway prefixes them.
func gatewayTools(t *testing.T, n int) []tool.Spec {
	t.Helper()
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	var specs []tool.Spec
	for _, s := range servers {
		for _, raw := range s.Tools {
			if len(specs) == n {
				return specs
			}
			var mt struct {
				Name        string             `json:"name"`
				Title       string             `json:"title"`
				Description string             `json:"description"`
				InputSchema *jsonschema.Schema `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &mt); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			specs = append(specs, tool.Spec{Name: s.Name + "_" + mt.Name, Title: mt.Title, Description: mt.Description, InputSchema: mt.InputSchema})
		}
	}
	t.Fatalf("the catalogue has %d tools, not %d", len(specs), n)
	return nil
}

// searchToolSpec returns search_tools as a server with tool search lists it.
func searchToolSpec(t *testing.T) tool.Spec {
	t.Helper()
	srv := mcpserver.New(nil, &mcpserver.Options{ToolSearch: &mcpserver.ToolSearchOptions{}})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go srv.Run(ctx, serverSide)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "cost", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 1 {
		t.Fatalf("ListTools = %v, %v; want search_tools alone", res, err)
	}
	st := res.Tools[0]
	data, _ := json.Marshal(st.InputSchema)
	var schema jsonschema.Schema
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	return tool.Spec{Name: st.Name, Title: st.Title, Description: st.Description, InputSchema: &schema}
}

// definitionBytes returns the bytes of the tool definitions of specs as d's
// provider takes them in a request (compact JSON, as hands schema prints
// them), and how many of the tools the provider would reject.
func definitionBytes(t *testing.T, specs []tool.Spec, d *dialect.Dialect) (int, int) {
	t.Helper()
	list, problems := declarations(specs, d)
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	rejected := map[string]bool{}
	for _, p := range problems {
		if p.Severity == dialect.SeverityError {
			rejected[p.Tool] = true
		}
	}
	return len(data), len(rejected)
}

// TestToolSearchCost measures, for a gateway of 500 tools from the
// catalogue of real MCP servers, the bytes of the tool definitions sent to
// the model on each turn in every dialect: all 500 before; with
// --tool-search, the bundled tools and search_tools, and those with the 5
// tools a search loaded. It holds the second to 10% of the first. With -v
// it prints the table that docs/PERFORMANCE.md shows.
func TestToolSearchCost(t *testing.T) {
	gateway := gatewayTools(t, 500)
	bundled, err := specTools(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var always []tool.Spec
	for _, b := range bundled {
		always = append(always, b.Spec())
	}
	always = append(always, searchToolSpec(t))
	var idx toolsearch.Index
	for _, s := range gateway {
		idx.Put(toolsearch.DocOf(s))
	}
	var found []tool.Spec
	for _, m := range idx.Search("open a pull request on github", 5, nil) {
		i := slices.IndexFunc(gateway, func(s tool.Spec) bool { return s.Name == m.Name })
		found = append(found, gateway[i])
	}
	if len(found) != 5 {
		t.Fatalf("the search found %d tools, want 5", len(found))
	}
	t.Logf("%d gateway tools; always loaded: %d bundled tools and search_tools; loaded by a search: %d", len(gateway), len(bundled), len(found))
	t.Logf("| dialect | before: all 500 | rejected | after: always loaded | + 5 found | after / before |")
	t.Logf("|---|---|---|---|---|---|")
	for _, d := range dialect.Dialects() {
		before, rejected := definitionBytes(t, append(slices.Clone(always[:len(bundled)]), gateway...), d)
		after, _ := definitionBytes(t, always, d)
		loaded, _ := definitionBytes(t, append(slices.Clone(always), found...), d)
		ratio := float64(loaded) / float64(before)
		t.Logf("| %s | %d | %d | %d | %d | %.1f%% |", d.Name, before, rejected, after, loaded, 100*ratio)
		if ratio > 0.10 {
			t.Errorf("%s: %d bytes with 5 tools loaded, %s of the %d before; want at most 10%%", d.Name, loaded, fmt.Sprintf("%.1f%%", 100*ratio), before)
		}
	}
}
