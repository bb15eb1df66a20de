package mcpserver_test

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// changing is a tool whose description and input schema change when told,
// as a remote tool's do when its server changes it.
type changing struct {
	tool.Interface
	desc   atomic.Pointer[string]
	schema atomic.Pointer[jsonschema.Schema]
}

func (c *changing) Spec() tool.Spec {
	spec := c.Interface.Spec()
	if d := c.desc.Load(); d != nil {
		spec.Description = *d
	}
	if s := c.schema.Load(); s != nil {
		spec.InputSchema = s
	}
	return spec
}

// TestSyncFollowsRegistry adds a tool to a served registry and changes
// another's spec: after Sync, a session that listed tools is told, lists
// the new tool and the new spec, and calls the new tool; a session whose
// list is unchanged is not told.
func TestSyncFollowsRegistry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		echo := &changing{Interface: tool.New("echo", "Echo a text.", func(ctx context.Context, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		})}
		reg, err := tool.NewRegistry(&tool.Scope{Name: "first", Tools: []tool.Interface{echo}})
		if err != nil {
			t.Fatal(err)
		}
		srv := mcpserver.New(reg, nil)
		changed := make(chan struct{}, 4)
		session := connect(t, srv, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		listed := func() map[string]*mcp.Tool {
			t.Helper()
			res, err := session.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]*mcp.Tool{}
			for _, tl := range res.Tools {
				tools[tl.Name] = tl
			}
			return tools
		}
		told := func(what string) {
			t.Helper()
			select {
			case <-changed:
			case <-time.After(time.Minute):
				t.Fatalf("no list_changed after %s", what)
			}
		}
		listed()

		srv.Sync(t.Context())
		synctest.Wait() // a notification sent has arrived
		select {
		case <-changed:
			t.Error("list_changed after a Sync that changed nothing")
		default:
		}

		ping := tool.New("ping", "Answer pong.", func(context.Context, struct{}) (string, error) { return "pong", nil })
		if err := reg.Add(&tool.Scope{Name: "second", Tools: []tool.Interface{ping}}); err != nil {
			t.Fatal(err)
		}
		srv.Sync(t.Context())
		told("a tool was added")
		if got := slices.Sorted(maps.Keys(listed())); !slices.Equal(got, []string{"echo", "ping"}) {
			t.Fatalf("tools/list after Add and Sync = %v, want echo and ping", got)
		}
		if res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{}}); err != nil || text(res) != "pong" {
			t.Errorf("CallTool(ping) = %+v, %v", res, err)
		}

		desc := "Echo a text back, unchanged."
		echo.desc.Store(&desc)
		srv.Sync(t.Context())
		told("a spec changed")
		if got := listed()["echo"].Description; got != desc {
			t.Errorf("tools/list after the spec changed describes echo as %q, want %q", got, desc)
		}

		// A spec the SDK refuses leaves the tool as it was listed.
		echo.schema.Store(&jsonschema.Schema{Type: "string"})
		srv.Sync(t.Context())
		if got := listed()["echo"].Description; got != desc {
			t.Errorf("tools/list after a spec the SDK refuses describes echo as %q, want %q", got, desc)
		}
	})
}

// TestCallEvaluatesCallerOnly connects five sessions that list tools
// behind a predicate, and has one of them call three times in a row: the
// predicates are evaluated again for the caller, once for the three calls,
// and not at all for the other sessions.
func TestCallEvaluatesCallerOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		evaluated := map[*mcp.ServerSession]int{} // outside a request: after a call, or in Sync
		var caller *mcp.ServerSession
		ping := tool.New("ping", "Answer pong.", func(ctx context.Context, _ struct{}) (string, error) {
			req, _ := mcpserver.RequestFrom(ctx)
			mu.Lock()
			caller = req.Session
			mu.Unlock()
			return "pong", nil
		})
		reg, err := tool.NewRegistry(&tool.Scope{Name: "gated", Tools: []tool.Interface{ping}, Enabled: func(ctx context.Context) bool {
			c, _ := mcpserver.CallerFrom(ctx)
			if _, inRequest := mcpserver.RequestFrom(ctx); !inRequest && c.Session != nil {
				mu.Lock()
				evaluated[c.Session]++
				mu.Unlock()
			}
			return true
		}})
		if err != nil {
			t.Fatal(err)
		}
		srv := mcpserver.New(reg, nil)
		var sessions []*mcp.ClientSession
		for range 5 {
			cs := connect(t, srv, nil)
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			sessions = append(sessions, cs)
		}
		mu.Lock()
		clear(evaluated) // what tools/list evaluated
		mu.Unlock()
		for range 3 {
			if res, err := sessions[0].CallTool(t.Context(), &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("CallTool(ping) = %+v, %v", res, err)
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		for ss, n := range evaluated {
			if ss != caller {
				t.Errorf("the predicate was evaluated %d times for a session that did not call, want 0", n)
			}
		}
		if n := evaluated[caller]; n != 1 {
			t.Errorf("the predicate was evaluated %d times for the caller after its three calls, want 1", n)
		}
	})
}

// switching is a tool whose version is swapped while it is served, as a
// deploy does.
type switching struct {
	current atomic.Pointer[tool.Interface]
}

func (s *switching) tool() tool.Interface { return *s.current.Load() }

func (s *switching) Name() string    { return s.tool().Name() }
func (s *switching) Spec() tool.Spec { return s.tool().Spec() }
func (s *switching) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	return s.tool().Stream(ctx, call)
}

type forecastV1 struct {
	Town string `json:"town"`
}

type forecastV2 struct {
	City string `json:"city"`
	Days int    `json:"days" tool:"minimum=1,maximum=7"`
}

// TestSessionAcrossAMigration serves a tool, changes its input in a way
// that breaks old calls, with a migration from the old input: a session
// that listed the old version is told the list changed, and the call it
// makes from its old list still works.
func TestSessionAcrossAMigration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v1 := tool.Interface(tool.New("forecast", "Forecast the weather.", func(ctx context.Context, a forecastV1) (string, error) {
			return "v1: " + a.Town, nil
		}, tool.WithVersion("1")))
		v2 := tool.Interface(tool.New("forecast", "Forecast the weather for some days.", func(ctx context.Context, a forecastV2) (string, error) {
			return fmt.Sprintf("v2: %s for %d days", a.City, a.Days), nil
		}, tool.WithVersion("2"), tool.Migrate("1", func(old forecastV1) (forecastV2, error) { return forecastV2{City: old.Town, Days: 1}, nil })))
		sw := &switching{}
		sw.current.Store(&v1)
		reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{sw}})
		if err != nil {
			t.Fatal(err)
		}
		srv := mcpserver.New(reg, nil)
		changed := make(chan struct{}, 4)
		session := connect(t, srv, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		listedMeta := func() mcp.Meta {
			t.Helper()
			list, err := session.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Tools) != 1 {
				t.Fatalf("listed %d tools, want 1", len(list.Tools))
			}
			return list.Tools[0].Meta
		}
		listedVersion := func() any { return listedMeta()[mcpserver.VersionMeta] }
		if v := listedVersion(); v != "1" {
			t.Errorf("the listed tool's _meta version is %v, want 1", v)
		}
		call := func() string {
			t.Helper()
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"town": "Oslo"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("the old call failed: %v", res.Content[0].(*mcp.TextContent).Text)
			}
			return res.Content[0].(*mcp.TextContent).Text
		}
		if got := call(); got != "v1: Oslo" {
			t.Fatalf("before the deploy: %q", got)
		}

		sw.current.Store(&v2)
		srv.Sync(t.Context())
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatal("no list_changed after the tool's input changed")
		}
		if got := call(); got != "v2: Oslo for 1 days" {
			t.Errorf("a call from the old list after the deploy: %q, want it migrated", got)
		}
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"town": "Oslo"}})
		if err != nil {
			t.Fatal(err)
		}
		if from := res.Meta[mcpserver.MigratedFromMeta]; from != "1" {
			t.Errorf("the migrated call's result _meta migratedFrom is %v, want 1", from)
		}
		res, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Oslo", "days": 2}})
		if err != nil {
			t.Fatal(err)
		}
		if from, ok := res.Meta[mcpserver.MigratedFromMeta]; ok {
			t.Errorf("a current call's result _meta migratedFrom is %v, want none", from)
		}
		meta := listedMeta()
		if v := meta[mcpserver.VersionMeta]; v != "2" {
			t.Errorf("after the deploy, the listed tool's _meta version is %v, want 2", v)
		}
		if from, ok := meta[mcpserver.MigratesFromMeta].([]any); !ok || len(from) != 1 || from[0] != "1" {
			t.Errorf("after the deploy, the listed tool's _meta migratesFrom is %v, want [1]", meta[mcpserver.MigratesFromMeta])
		}
	})
}
