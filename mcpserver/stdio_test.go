package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// response is a JSON-RPC response as it appears on the wire.
type response struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// runStdio serves input over a StdioTransport until the input ends, and
// returns the responses by ID ("null" for those without one).
func runStdio(t *testing.T, srv *mcpserver.Server, input string) map[string][]response {
	t.Helper()
	var out lockedBuffer
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	err := srv.Run(ctx, &mcpserver.StdioTransport{Reader: strings.NewReader(input), Writer: &out})
	if ctx.Err() != nil {
		t.Fatalf("Run did not return at the end of the input: %v", err)
	}
	got := map[string][]response{}
	for line := range strings.Lines(out.String()) {
		var r response
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if r.Result == nil && r.Error == nil {
			continue // a notification
		}
		id, _ := json.Marshal(r.ID)
		got[string(id)] = append(got[string(id)], r)
	}
	return got
}

const stdioHandshake = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// TestStdio drives the server with a malformed line among valid requests,
// then ends the input while a call is still running: the malformed line
// gets a parse error, and every request read gets its answer.
func TestStdio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nap := tool.New("nap", "Sleep a little, then answer.", func(ctx context.Context, _ struct{}) (string, error) {
			time.Sleep(300 * time.Millisecond)
			return "rested", nil
		})
		srv, err := mcpserver.NewTools(nil, nap)
		if err != nil {
			t.Fatal(err)
		}
		got := runStdio(t, srv, stdioHandshake+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{}}}
	{not json
	{"jsonrpc":"2.0","id":3,"method":"tools/list"}
	[{"jsonrpc":"2.0","id":4,"method":"ping"}]
	{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nap","arguments":{}}}`)

		if r := got["null"]; len(r) != 2 || r[0].Error == nil || r[0].Error.Code != -32700 || r[1].Error == nil || r[1].Error.Code != -32600 {
			t.Errorf("responses without an ID = %+v, want a parse error and an invalid-request error", r)
		}
		for _, id := range []string{"1", "2", "3", "5"} {
			if r := got[id]; len(r) != 1 || r[0].Error != nil {
				t.Errorf("responses to request %s = %+v, want one result", id, r)
			}
		}
		for _, id := range []string{"2", "5"} {
			if r := got[id]; len(r) == 1 && !strings.Contains(string(r[0].Result), "rested") {
				t.Errorf("result of request %s = %s, want the tool's answer", id, r[0].Result)
			}
		}
	})
}

// TestStdioCancel cancels a running call: the handler's context ends, and
// the call gets no response, as the protocol asks.
func TestStdioCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		srv := mcpserver.New(f.reg, nil)
		pr, pw := io.Pipe()
		var out lockedBuffer
		done := make(chan error, 1)
		go func() { done <- srv.Run(t.Context(), &mcpserver.StdioTransport{Reader: pr, Writer: &out}) }()
		io.WriteString(pw, stdioHandshake+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"steps":1,"wait":true}}}`+"\n")
		f.waitStarted(t)
		io.WriteString(pw, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
		select {
		case err := <-f.cancelled:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the handler saw %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the handler's context was not cancelled")
		}
		pw.Close()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("Run did not return at the end of the input")
		}
		if strings.Contains(out.String(), `"id":2,"result"`) || strings.Contains(out.String(), `"id":2,"error"`) {
			t.Errorf("the cancelled call was answered:\n%s", out.String())
		}
		if !strings.Contains(out.String(), `"id":3,"result"`) {
			t.Errorf("the ping after the cancellation was not answered:\n%s", out.String())
		}
	})
}
