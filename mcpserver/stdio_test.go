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
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// dialStdio connects the SDK's client to srv, served over a
// StdioTransport with lines of at most limit bytes, through pipes.
func dialStdio(t *testing.T, srv *mcpserver.Server, limit int, opts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(t.Context(), &mcpserver.StdioTransport{Reader: toServer, Writer: fromServer, MaxLineLength: limit})
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "pipe", Version: "1"}, opts)
	session, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		session.Close() // closes both pipes' client ends: the server reads the end
		<-done
	})
	return session
}

// TestStdioLineTooLong sends, from the SDK's client, a call whose line is
// over the server's limit, then a small one: the first fails with an
// invalid-request error that bears its ID, so the client's session goes on
// and the second is answered.
func TestStdioLineTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type pair struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}
		put := tool.New("kv_put", "Store a value.", func(ctx context.Context, in pair) (string, error) {
			return "stored " + in.Key, nil
		})
		srv, err := mcpserver.NewTools(nil, put)
		if err != nil {
			t.Fatal(err)
		}
		session := dialStdio(t, srv, 64<<10, nil, nil)
		_, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "kv_put", Arguments: pair{"big", strings.Repeat("a", 1<<20)}})
		if werr, ok := errors.AsType[*jsonrpc.Error](err); !ok || werr.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("CallTool over the limit: %v, want an invalid-request error", err)
		}
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "kv_put", Arguments: pair{"small", "a"}})
		if err != nil || res.IsError || text(res) != "stored small" {
			t.Fatalf("CallTool after the line over the limit = %+v, %v; want the session to go on", res, err)
		}
	})
}

// TestStdioAnswerTooLong has the SDK's client answer an elicitation with a
// line over the server's limit: the question fails at once (the tool sees
// an error, not a wait for its context to end), and the session goes on.
func TestStdioAnswerTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		asked := make(chan error, 1)
		type form struct {
			Answer string `json:"answer"`
		}
		ask := tool.New("ask", "Ask the user.", func(ctx context.Context, _ struct{}) (string, error) {
			answer, err := mcpserver.Elicit[form](ctx, "Anything to add?")
			asked <- err
			return answer.Answer, err
		})
		srv, err := mcpserver.NewTools(nil, ask)
		if err != nil {
			t.Fatal(err)
		}
		session := dialStdio(t, srv, 64<<10, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": strings.Repeat("a", 1<<20)}}, nil
			},
		}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // the question is sent while the call waits
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil || !res.IsError {
			t.Fatalf("CallTool(ask) = %+v, %v; want a tool error", res, err)
		}
		if err := <-asked; err == nil || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("Elicit: %v, want the answer refused as over the limit", err)
		}
		if err := session.Ping(t.Context(), nil); err != nil {
			t.Errorf("Ping after the answer over the limit: %v", err)
		}
	})
}

// TestStdioNullID checks that a line whose ID cannot be read is answered
// with "id": null, as JSON-RPC requires, rather than with no ID.
func TestStdioNullID(t *testing.T) {
	srv, err := mcpserver.NewTools(nil)
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	input := "{not json\n" + `{"method":"tools/call","params":{"arguments":{"v":"` + strings.Repeat("a", 8<<10) + `"}},"jsonrpc":"2.0","id":4}` + "\n"
	if err := srv.Run(t.Context(), &mcpserver.StdioTransport{Reader: strings.NewReader(input), Writer: &out, MaxLineLength: 100}); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("output = %q, want two answers", lines)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":null,"error":`) {
			t.Errorf("answer %s, want one with \"id\": null", line)
		}
	}
}
