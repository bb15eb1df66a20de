package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/internal/redistest"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/sqldb"
	_ "github.com/hands-go/hands/sqldb/pgdb"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/taskstore/redistasks"
	"github.com/hands-go/hands/taskstore/sqltasks"
	"github.com/hands-go/hands/tool"
	"github.com/redis/go-redis/v9"
)

// heldTasks are the numbers of tasks BenchmarkTasksHeld has a store hold.
var heldTasks = []int{10, 1_000, 10_000}

// BenchmarkTasksHeld measures one tasks/get and one tools/call that
// creates a task, on a stateless server speaking the tasks extension
// (2026-07-28) through its HTTP handler in this process, while its store
// holds 10, 1,000 or 10,000 other tasks, in memory, on Redis and on
// PostgreSQL: what a call costs must not grow with the tasks that exist.
// The caller is anonymous, so its tasks and those held share the owner
// "", which no MaxSessionTasks bounds. The tasks the calls create expire a
// millisecond after (TaskOptions.TTL), so that each Create sweeps those
// before it and the store holds the same tasks throughout.
func BenchmarkTasksHeld(b *testing.B) {
	// Each store's open starts its server, for the benchmarks under b,
	// and returns a function that opens a store of its own on it.
	stores := []struct {
		name string
		open func(b *testing.B) func(b *testing.B, n int) taskstore.Store
	}{
		{"memory", func(*testing.B) func(*testing.B, int) taskstore.Store {
			return func(*testing.B, int) taskstore.Store { return taskstore.NewMemory(nil) }
		}},
		{"redis", func(b *testing.B) func(*testing.B, int) taskstore.Store {
			opts, err := redis.ParseURL(redistest.Start(b).URL)
			if err != nil {
				b.Fatal(err)
			}
			rdb := redis.NewClient(opts)
			b.Cleanup(func() { rdb.Close() })
			return func(b *testing.B, n int) taskstore.Store {
				return redistasks.New(rdb, &redistasks.Options{Prefix: fmt.Sprintf("{held%d-%d}:", n, time.Now().UnixNano())})
			}
		}},
		{"postgres", func(b *testing.B) func(*testing.B, int) taskstore.Store {
			db, err := sqldb.Open(b.Context(), pgtest.Start(b).URL+"&allow_superuser=true")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return func(b *testing.B, n int) taskstore.Store {
				s, err := sqltasks.New(b.Context(), db, &sqltasks.Options{Table: fmt.Sprintf("held%d_%d", n, time.Now().UnixNano())})
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
		}},
	}
	for _, st := range stores {
		b.Run("store="+st.name, func(b *testing.B) {
			open := st.open(b)
			for _, n := range heldTasks {
				b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
					benchmarkTasksHeld(b, open(b, n), n)
				})
			}
		})
	}
}

// benchmarkTasksHeld fills store with n tasks and measures tasks/get and a
// task-creating tools/call against it.
func benchmarkTasksHeld(b *testing.B, store taskstore.Store, n int) {
	lim := taskstore.Limits{MaxTasks: 1 << 20}
	for i := range n {
		if _, err := store.Create(b.Context(), taskstore.New{ID: fmt.Sprintf("held-%d", i), Tool: "job", TTL: time.Hour, Lease: time.Hour}, lim); err != nil {
			b.Fatal(err)
		}
	}
	job := tool.New("job", "Do a job.", func(context.Context, struct{}) (string, error) { return "done", nil },
		tool.WithTaskSupport(tool.TaskRequired))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "jobs", Tools: []tool.Interface{job}})
	if err != nil {
		b.Fatal(err)
	}
	key := make([]byte, mcpserver.StateKeyBytes)
	opts := mcpserver.TaskOptions{Store: store, MaxTasks: 1 << 20}
	// One server keeps its tasks, for tasks/get; the other's expire at
	// once, for the calls.
	keeps := mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: opts}).HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true})
	opts.TTL = time.Millisecond
	expires := mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: opts}).HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true})

	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(extRequest(b, keeps, "tools/call", map[string]any{"name": "job", "arguments": map[string]any{}}), &created); err != nil || created.Result.TaskID == "" {
		b.Fatalf("tools/call: no task: %v", err)
	}
	get := map[string]any{"taskId": created.Result.TaskID}
	for !bytes.Contains(extRequest(b, keeps, "tasks/get", get), []byte(`"status":"completed"`)) {
		time.Sleep(time.Millisecond) // the call runs in the background
	}

	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out := extRequest(b, keeps, "tasks/get", get); !bytes.Contains(out, []byte(`"status":"completed"`)) {
				b.Fatalf("tasks/get: %s", out)
			}
		}
	})
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		call := map[string]any{"name": "job", "arguments": map[string]any{}}
		for b.Loop() {
			if out := extRequest(b, expires, "tools/call", call); !bytes.Contains(out, []byte(`"resultType":"task"`)) {
				b.Fatalf("tools/call: %s", out)
			}
		}
	})
}

// extRequests numbers the requests of extRequest.
var extRequests atomic.Int64

// extRequest sends one request of the tasks extension (2026-07-28,
// declared) to h, an anonymous caller's, and returns the body of the
// answer.
func extRequest(b *testing.B, h http.Handler, method string, params map[string]any) []byte {
	b.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}},
		},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": extRequests.Add(1), "method": method, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequestWithContext(b.Context(), http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", method, w.Code, w.Body)
	}
	return w.Body.Bytes()
}
