package mcpwire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzRequest checks that Message.Request, which decodes a message as
// written only when its bytes may be a request of the methods asked for,
// finds every such request that decoding it finds; and that once decoded
// for one stage the message is read as the same request by the next,
// which asks of other methods.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools\/list"}`,
		`{"jsonrpc":"2.0","id":1,"m\u0065thod":"tools/call"}`,
		`{"jsonrpc":"2.0","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"method":"tools/list"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/listx"}`,
		`not json "tools/list"`,
	} {
		f.Add([]byte(s))
	}
	methods := [][]string{{"tools/list"}, {"tools/call", "tasks/result"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want *jsonrpc.Request
		if msg, err := jsonrpcwire.Decode(data); err == nil {
			want, _ = msg.(*jsonrpc.Request)
		}
		m := &Message{data: data}
		for _, ms := range methods {
			got := m.Request(ms...)
			if want != nil && slices.Contains(ms, want.Method) {
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Request(%q) of %q = %#v, want %#v", ms, data, got, want)
				}
			} else if got != nil {
				t.Fatalf("Request(%q) of %q = %#v, want nil", ms, data, got)
			}
		}
	})
}

// pipeConn is a connection whose Write hands what it writes to Read.
type pipeConn struct {
	mcp.Connection
	msgs chan jsonrpc.Message
}

func (p pipeConn) Write(_ context.Context, msg jsonrpc.Message) error { p.msgs <- msg; return nil }

func (p pipeConn) Read(context.Context) (jsonrpc.Message, error) { return <-p.msgs, nil }

// TestConnStages checks that a connection applies its stages once, in
// order: each message read goes through the answer readers of the
// request it answers (the response that bears its ID), and then through
// every stage's Receive.
func TestConnStages(t *testing.T) {
	var seen []string
	stage := func(name string) Stage {
		return Stage{
			Name: name,
			Send: func(sent *Message) func(*Message) {
				if sent.Request("tools/list") == nil {
					return nil
				}
				return func(m *Message) { seen = append(seen, name+" answer") }
			},
			Receive: func(m *Message) {
				seen = append(seen, name+" receive")
				if resp, ok := m.Decoded().(*jsonrpc.Response); ok {
					resp.Result = append(resp.Result[:len(resp.Result):len(resp.Result)], name...)
				}
			},
		}
	}
	w := &Wire{Stages: []Stage{stage("a"), stage("b")}}
	c := w.Conn(pipeConn{msgs: make(chan jsonrpc.Message, 2)})
	id, _ := jsonrpc.MakeID(float64(1))
	other, _ := jsonrpc.MakeID(float64(2))
	for _, msg := range []jsonrpc.Message{&jsonrpc.Request{ID: id, Method: "tools/list"}, &jsonrpc.Request{ID: other, Method: "ping"}} {
		if err := c.Write(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
		c.Read(t.Context()) // the request, back
	}
	seen = nil
	for _, tt := range []struct {
		id   jsonrpc.ID
		want []string
	}{
		{id, []string{"a answer", "b answer", "a receive", "b receive"}},
		{id, []string{"a receive", "b receive"}}, // answered already
		{other, []string{"a receive", "b receive"}},
	} {
		c.(*conn).Connection.Write(t.Context(), &jsonrpc.Response{ID: tt.id, Result: []byte("r")})
		msg, err := c.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got := string(msg.(*jsonrpc.Response).Result); got != "rab" {
			t.Errorf("the result read is %q, want it through a, then b: %q", got, "rab")
		}
		if !reflect.DeepEqual(seen, tt.want) {
			t.Errorf("the stages saw %q, want %q", seen, tt.want)
		}
		seen = nil
	}
}

// answering is a RoundTripper that answers with a body of a content type,
// and keeps the request it was sent.
type answering struct {
	contentType, body string
	got               *http.Request
}

func (a *answering) RoundTrip(r *http.Request) (*http.Response, error) {
	a.got = r
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {a.contentType}}, ContentLength: -1, Body: io.NopCloser(strings.NewReader(a.body))}, nil
}

// TestRoundTripper checks the one round tripper of streamable HTTP: the
// headers added, a request hook, the body sent read for Send, a JSON body
// read once and through the stages within their bounds, and a body over
// MaxBody refused with the TooLarge error.
func TestRoundTripper(t *testing.T) {
	upper := Stage{
		Name: "upper",
		Send: func(sent *Message) func(*Message) {
			if sent.Request("tools/list") == nil {
				return nil
			}
			return func(m *Message) { m.SetData([]byte(strings.ToUpper(string(m.Data())))) }
		},
		Receive: func(m *Message) { m.SetData(append([]byte("<"), append(m.Data(), '>')...)) },
		Max:     40,
		Request: func(r *http.Request, sent *Message) *http.Request {
			r = r.Clone(r.Context())
			r.Header.Set("X-Sent", string(sent.Data()))
			return r
		},
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tt := range []struct {
		name, sent, body, want string
		maxBody                int
		err                    bool
	}{
		{"answer and receive", list, `{"result":1}`, `<{"RESULT":1}>`, 0, false},
		{"receive", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"result":1}`, `<{"result":1}>`, 0, false},
		{"over Max", list, `{"result":"` + strings.Repeat("a", 40) + `"}`, `{"RESULT":"` + strings.Repeat("A", 40) + `"}`, 0, false},
		{"over MaxHeld", list, `{"result":"` + strings.Repeat("a", 100) + `"}`, `{"result":"` + strings.Repeat("a", 100) + `"}`, 0, false},
		{"over MaxBody", list, `{"result":"` + strings.Repeat("a", 100) + `"}`, "", 90, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			next := &answering{contentType: "application/json", body: tt.body}
			rt := &RoundTripper{Next: next, Header: http.Header{"x-added": {"1"}}, MaxBody: tt.maxBody, MaxHeld: 64, Stages: []Stage{upper}, TooLarge: tooLarge}
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(tt.sent))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			var got []byte
			if err == nil {
				got, err = io.ReadAll(resp.Body)
			}
			if _, ok := errors.AsType[*sizeError](err); ok != tt.err || err != nil && !ok {
				t.Fatalf("RoundTrip: %v; want the TooLarge error %v", err, tt.err)
			}
			if tt.err {
				return
			}
			if string(got) != tt.want {
				t.Errorf("the body reads %q, want %q", got, tt.want)
			}
			if next.got.Header.Get("X-Added") != "1" || next.got.Header.Get("X-Sent") != tt.sent {
				t.Errorf("the request sent has the headers %v", next.got.Header)
			}
			if req.Header.Get("X-Added") != "" || req.Header.Get("X-Sent") != "" {
				t.Errorf("the caller's request was changed: %v", req.Header)
			}
		})
	}
}

// TestWireTransport checks that a streamable HTTP transport whose client
// has a RoundTripper already is given the stages in a copy of it, not
// another layer, and that the transport and client handed in are left as
// they were.
func TestWireTransport(t *testing.T) {
	rt := &RoundTripper{Next: http.DefaultTransport, MaxBody: 10}
	client := &http.Client{Transport: rt}
	st := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1/mcp", HTTPClient: client, MaxEventSize: 1000}
	w := &Wire{Stages: []Stage{{Name: "s"}}, MaxMessageBytes: 5000, TooLarge: tooLarge}
	wired := w.Transport(st).(*mcp.StreamableClientTransport)
	got, ok := wired.HTTPClient.Transport.(*RoundTripper)
	if !ok || got == rt || got.Next != http.DefaultTransport || got.MaxBody != 10 || got.MaxHeld != 1000 || len(got.Stages) != 1 {
		t.Errorf("the wired round tripper is %#v, want a copy of the client's with the stages", wired.HTTPClient.Transport)
	}
	if client.Transport != rt || len(rt.Stages) != 0 || st.HTTPClient != client {
		t.Error("the transport handed in was changed")
	}
	plain := w.Transport(&mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1/mcp"}).(*mcp.StreamableClientTransport)
	if got := plain.HTTPClient.Transport.(*RoundTripper); got.Next != nil || got.MaxHeld != 5000 {
		t.Errorf("over the default client, the round tripper is %#v, want one over http.DefaultTransport holding 5000 bytes", got)
	}
}
