package mcpserver_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProgressIncreases mixes numbers, messages and Progress values with a
// total, some of them going backwards: the values sent still increase
// strictly, never pass the total, and carry it once it is known.
func TestProgressIncreases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reports := []any{"starting", 50, "halfway", tool.ProgressReport{Done: 75, Total: 100, Message: "three quarters"}, "almost", 10, tool.ProgressReport{Done: 100, Total: 100}}
		work := tool.New("work", "Report progress.", func(ctx context.Context, _ struct{}) (string, error) {
			for _, r := range reports {
				tool.Progress(ctx, r)
			}
			return "done", nil
		})
		srv, err := mcpserver.NewTools(nil, work)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var got []*mcp.ProgressNotificationParams
		session := connect(t, srv, &mcp.ClientOptions{
			ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, req.Params)
			},
		})
		params := &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}}
		params.SetProgressToken("p")
		if res, err := session.CallTool(t.Context(), params); err != nil || res.IsError {
			t.Fatalf("CallTool(work) = %+v, %v", res, err)
		}
		synctest.Wait() // every notification sent has arrived
		mu.Lock()
		defer mu.Unlock()
		if len(got) != len(reports) {
			t.Fatalf("%d notifications, want %d", len(got), len(reports))
		}
		for i, p := range got {
			t.Logf("%v → progress %v, total %v, message %q", reports[i], p.Progress, p.Total, p.Message)
			if i > 0 && p.Progress <= got[i-1].Progress {
				t.Errorf("notification %d: progress %v after %v, want it to increase", i, p.Progress, got[i-1].Progress)
			}
			if p.Total != 0 && p.Progress > p.Total {
				t.Errorf("notification %d: progress %v past the total %v", i, p.Progress, p.Total)
			}
			if wantTotal := i >= 3; (p.Total == 100) != wantTotal {
				t.Errorf("notification %d: total %v, want 100 from the first report that gave it", i, p.Total)
			}
		}
		if first, last := got[0], got[len(got)-1]; first.Progress != 1 || first.Message != "starting" || last.Progress != 100 {
			t.Errorf("first progress %v %q, last %v; want 1 \"starting\" and 100", first.Progress, first.Message, last.Progress)
		}
	})
}
