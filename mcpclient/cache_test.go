package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A sharedCache is a caching intermediary in front of an MCP endpoint, as
// SEP-2549 allows one: it keeps the results of tools/list with a ttlMs
// above zero and answers the same request from any caller with a result
// whose cacheScope is "public", but a "private" one only to the caller
// (the Authorization header) it was made for. Freshness is not its
// concern here: it keeps what it keeps for the whole test.
type sharedCache struct {
	next http.RoundTripper

	mu   sync.Mutex
	kept map[string][]byte // by cursor, and for a private result by caller too: the result's JSON
}

func (c *sharedCache) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Method != http.MethodPost {
		return c.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.Method != "tools/list" {
		return c.next.RoundTrip(r)
	}
	public, private := "public "+req.Params.Cursor, "private "+r.Header.Get("Authorization")+" "+req.Params.Cursor
	c.mu.Lock()
	result, ok := c.kept[public]
	if !ok {
		result, ok = c.kept[private]
	}
	c.mu.Unlock()
	if ok {
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": json.RawMessage(result)})
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(data)), Request: r}, nil
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var answer struct {
		Result json.RawMessage `json:"result"`
	}
	var hints struct {
		TTLMs      int    `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
	}
	if json.Unmarshal(data, &answer) == nil && json.Unmarshal(answer.Result, &hints) == nil && hints.TTLMs > 0 {
		key := public
		if hints.CacheScope == "private" {
			key = private
		}
		c.mu.Lock()
		c.kept[key] = answer.Result
		c.mu.Unlock()
	}
	return resp, nil
}

// bearerTransport sends a bearer token with every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestListCachedPerCaller reads a tools/list that an enabled predicate
// filters per caller as two callers, one after the other, through one
// caching intermediary: each sees its own list, since the server marks
// the list private; and a list that depends on no caller is marked public,
// and shared.
func TestListCachedPerCaller(t *testing.T) {
	open := tool.New("open_report", "Read the open report.", func(context.Context, struct{}) (string, error) { return "open", nil })
	admin := tool.New("admin_report", "Read the admin report.", func(context.Context, struct{}) (string, error) { return "admin", nil },
		tool.WithEnabled(func(ctx context.Context) bool {
			c, _ := mcpserver.CallerFrom(ctx)
			return c.Token != nil && c.Token.UserID == "admin"
		}))
	verify, err := mcpserver.StaticTokens(map[string]string{"admin": "admin-secret", "bob": "bob-secret"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name               string
		tools              []tool.Interface
		adminSees, bobSees []string
		scope              string
	}{
		{"filtered", []tool.Interface{open, admin}, []string{"admin_report", "open_report"}, []string{"open_report"}, "private"},
		{"the same for all", []tool.Interface{open}, []string{"open_report"}, []string{"open_report"}, "public"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := tool.NewRegistry(&tool.Scope{Name: "reports", Tools: tt.tools})
			if err != nil {
				t.Fatal(err)
			}
			srv := mcpserver.New(reg, &mcpserver.Options{ListTTL: time.Minute})
			ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: verify}))
			defer ts.Close()
			cache := &sharedCache{next: http.DefaultTransport, kept: map[string][]byte{}}
			listAs := func(token string) []string {
				t.Helper()
				transport, err := mcpclient.HTTPWith(ts.URL, &mcpclient.HTTPOptions{HTTPClient: &http.Client{Transport: bearerTransport{token, cache}}})
				if err != nil {
					t.Fatal(err)
				}
				c, err := mcpclient.Connect(t.Context(), transport, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				var names []string
				for _, tl := range c.Tools() {
					names = append(names, tl.Name())
				}
				slices.Sort(names)
				return names
			}
			if got := listAs("admin-secret"); !slices.Equal(got, tt.adminSees) {
				t.Errorf("admin lists %v, want %v", got, tt.adminSees)
			}
			if got := listAs("bob-secret"); !slices.Equal(got, tt.bobSees) {
				t.Errorf("bob lists %v through the cache, want %v", got, tt.bobSees)
			}
			cache.mu.Lock()
			defer cache.mu.Unlock()
			for key := range cache.kept {
				if scope, _, _ := bytes.Cut([]byte(key), []byte(" ")); string(scope) != tt.scope {
					t.Errorf("the cache kept a %s list, want %s only", scope, tt.scope)
				}
			}
			if len(cache.kept) == 0 {
				t.Error("the cache kept nothing: the list had no ttlMs")
			}
		})
	}
}

// TestListTTL checks that the client does not list the tools again while
// the server's last list is fresh by its ttlMs, lists again once it is
// stale, and lists at once on notifications/tools/list_changed, however
// fresh.
func TestListTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var listings sync.Map // always one key: how many tools/list the server answered
		count := func() int {
			n, _ := listings.Load("n")
			i, _ := n.(int)
			return i
		}
		hello := tool.New("hello", "Say hello.", func(context.Context, struct{}) (string, error) { return "hi", nil })
		reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{hello}})
		if err != nil {
			t.Fatal(err)
		}
		srv := mcpserver.New(reg, &mcpserver.Options{ListTTL: time.Minute})
		srv.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					listings.Store("n", count()+1)
				}
				return next(ctx, method, req)
			}
		})
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		changes := make(chan mcpclient.Change, 1)
		c, err := mcpclient.Connect(t.Context(), ct, &mcpclient.Options{OnChange: func(_ context.Context, ch mcpclient.Change) { changes <- ch }})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if n := count(); n != 1 {
			t.Fatalf("the server answered %d listings at Connect, want 1", n)
		}
		time.Sleep(59 * time.Second)
		if _, err := c.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 1 {
			t.Errorf("a Refresh within the list's ttlMs listed again: %d listings", n)
		}
		time.Sleep(time.Second)
		if _, err := c.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 2 {
			t.Errorf("a Refresh once the list was stale: %d listings, want 2", n)
		}
		// A tool added: the server says so, and the client lists at once,
		// though its list is fresh.
		if err := reg.Add(&tool.Scope{Name: "s", Tools: []tool.Interface{tool.New("bye", "Say bye.", func(context.Context, struct{}) (string, error) { return "bye", nil })}}); err != nil {
			t.Fatal(err)
		}
		srv.Sync(t.Context())
		ch := <-changes
		if !slices.Equal(ch.Added, []string{"bye"}) || count() != 3 {
			t.Errorf("after list_changed: %+v, %d listings; want bye added by a third listing", ch, count())
		}
	})
}
