package service_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/service"
)

// A fakeAPI serves a document at /openapi.json and records every other
// request it gets.
type fakeAPI struct {
	*httptest.Server
	mu   sync.Mutex
	doc  string
	seen []*http.Request
	// answer, if set, answers the requests other than the document's.
	answer http.HandlerFunc
}

func newFakeAPI(t testing.TB, doc string) *fakeAPI {
	f := &fakeAPI{doc: doc}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi.json" {
			io.WriteString(w, f.doc)
			return
		}
		f.mu.Lock()
		f.seen = append(f.seen, r)
		f.mu.Unlock()
		if f.answer != nil {
			f.answer(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"uri":%q}`, r.RequestURI)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.seen...)
}

func (f *fakeAPI) config() service.Config {
	return service.Config{Name: "api", BaseURL: f.URL + "/v1", Document: f.URL + "/openapi.json"}
}

// itemsDoc is an API with path, query, header parameters and a JSON body.
const itemsDoc = `{
 "openapi": "3.0.3",
 "info": {"title": "Items", "version": "1"},
 "paths": {
  "/items/{id}": {
   "get": {"operationId": "getItem",
    "parameters": [
     {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
     {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
     {"name": "Host", "in": "header", "schema": {"type": "string"}},
     {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}}
    ],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}}}}}
   },
   "put": {"operationId": "putItem",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}},
    "responses": {"200": {"description": "ok"}}
   }
  }
 },
 "components": {"schemas": {"Item": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10000000}}}}}
}`

func (ts tools) callAPI(t testing.TB, operation string, arguments any) tool.Result {
	t.Helper()
	args := map[string]any{"service": "api", "operation": operation}
	if arguments != nil {
		args["arguments"] = mustJSON(t, arguments)
	}
	return ts.run(t, "call_service", args)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	var b strings.Builder
	enc := jsonEncoder(&b)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

// TestPathParametersStayUnderBase checks that no path parameter leaves
// the base URL: every value is percent-encoded, and empty, . and .. are
// refused before anything is sent.
func TestPathParametersStayUnderBase(t *testing.T) {
	f := newFakeAPI(t, itemsDoc)
	ts := toolsOf(t, []service.Config{f.config()}, nil)
	for _, tt := range []struct{ id, want string }{
		{"../../admin", "/v1/items/..%2F..%2Fadmin"},
		{"a/b?c=d#e", "/v1/items/a%2Fb%3Fc=d%23e"},
		{"//evil.example.com/x", "/v1/items/%2F%2Fevil.example.com%2Fx"},
		{"%2e%2e", "/v1/items/%252e%252e"},
		{"http://evil.example.com/", "/v1/items/http:%2F%2Fevil.example.com%2F"},
	} {
		res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": tt.id}})
		if res.IsError {
			t.Errorf("id %q: %s", tt.id, res.Content)
			continue
		}
		if !strings.Contains(res.Content, fmt.Sprintf(`{"uri":%q}`, tt.want)) {
			t.Errorf("id %q reached\n%s\nwant %s", tt.id, res.Content, tt.want)
		}
	}
	before := len(f.requests())
	for _, id := range []string{"..", ".", ""} {
		res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": id}})
		if !res.IsError || !strings.Contains(res.Content, "/arguments/path/id") {
			t.Errorf("id %q: %+v, want an issue at /arguments/path/id", id, res)
		}
	}
	if n := len(f.requests()) - before; n != 0 {
		t.Errorf("the refused ids sent %d requests", n)
	}
}

// TestHeaderInjection checks that a header parameter cannot add a header
// or a request, and that the client's own headers are not parameters.
func TestHeaderInjection(t *testing.T) {
	f := newFakeAPI(t, itemsDoc)
	ts := toolsOf(t, []service.Config{f.config()}, nil)
	for _, v := range []string{"a\r\nX-Evil: 1", "a\nb", "a\x00b"} {
		res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "1"}, "header": map[string]any{"X-Trace": v}})
		if !res.IsError || !strings.Contains(res.Content, "/arguments/header/X-Trace") {
			t.Errorf("X-Trace %q: %+v, want an issue at /arguments/header/X-Trace", v, res)
		}
	}
	// Host is the client's: the document's parameter is left out, so a
	// model's Host is an unknown property.
	res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "1"}, "header": map[string]any{"Host": "evil.example.com"}})
	if !res.IsError || !strings.Contains(res.Content, "Host") {
		t.Errorf("a Host header parameter: %+v", res)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("the refused calls sent %d requests", n)
	}
	ok := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "1"}, "header": map[string]any{"X-Trace": "abc"}, "query": map[string]any{"tags": []any{"a b", "c&d=e"}}})
	if ok.IsError {
		t.Fatal(ok.Content)
	}
	r := f.requests()[0]
	if r.Header.Get("X-Trace") != "abc" || r.URL.Query()["tags"][1] != "c&d=e" || r.URL.Query().Get("d") != "" {
		t.Errorf("the request got X-Trace %q and query %q", r.Header.Get("X-Trace"), r.URL.RawQuery)
	}
}

// TestOversizedBody checks that a body over MaxRequestBytes is refused
// before it is sent, and a response over MaxResponseBytes is not read.
func TestOversizedBody(t *testing.T) {
	f := newFakeAPI(t, itemsDoc)
	ts := toolsOf(t, []service.Config{f.config()}, &service.Options{MaxRequestBytes: 1000, MaxResponseBytes: 1000})
	res := ts.callAPI(t, "putItem", map[string]any{"path": map[string]any{"id": "1"}, "body": map[string]any{"name": strings.Repeat("x", 2000)}})
	if !res.IsError || !errors.Is(res.Err, service.ErrServiceTooLarge) {
		t.Errorf("a body of 2000 bytes over a limit of 1000: %+v", res)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("the oversized body was sent (%d requests)", n)
	}
	f.answer = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"uri":%q}`, strings.Repeat("y", 5000))
	}
	res = ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "1"}})
	if !res.IsError || !errors.Is(res.Err, service.ErrServiceTooLarge) {
		t.Errorf("a response of 5000 bytes over a limit of 1000: %+v", res)
	}
}

// TestRedirects checks that a redirect is followed under the base URL and
// refused elsewhere: another host, another port, outside the base path.
func TestRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other server got %s", r.URL)
	}))
	defer other.Close()
	f := newFakeAPI(t, itemsDoc)
	f.answer = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/items/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/v1/items/outside":
			http.Redirect(w, r, "/admin", http.StatusFound)
		case "/v1/items/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/v1/items/within":
			http.Redirect(w, r, "/v1/items/final", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"uri":%q}`, r.RequestURI)
		}
	}
	ts := toolsOf(t, []service.Config{f.config()}, nil)
	for _, id := range []string{"away", "outside", "metadata"} {
		res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": id}})
		if !res.IsError || !errors.Is(res.Err, service.ErrServiceRedirect) {
			t.Errorf("a redirect %s: %+v, want ErrServiceRedirect", id, res)
		}
	}
	res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "within"}})
	if res.IsError || !strings.Contains(res.Content, `"/v1/items/final"`) {
		t.Errorf("a redirect under the base URL: %+v", res)
	}
}

// TestCredentials checks that a configured header is sent from the
// environment and never returned, even when the service echoes it.
func TestCredentials(t *testing.T) {
	f := newFakeAPI(t, itemsDoc)
	f.answer = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"uri":%q,"auth":%q}`, r.RequestURI, r.Header.Get("Authorization"))
	}
	cfg := f.config()
	cfg.Headers = map[string]string{"Authorization": "API_AUTH"}
	env := map[string]string{"API_AUTH": "Bearer s3cret-token"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	ts := toolsOf(t, []service.Config{cfg}, &service.Options{LookupEnv: lookup})
	res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "1"}})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := f.requests()[0].Header.Get("Authorization"); got != "Bearer s3cret-token" {
		t.Errorf("the service got Authorization %q", got)
	}
	if strings.Contains(res.Content, "s3cret") || !strings.Contains(res.Content, "[redacted]") {
		t.Errorf("the result shows the credential:\n%s", res.Content)
	}
	_, err := service.New([]service.Config{cfg}, &service.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if err == nil || !strings.Contains(err.Error(), "API_AUTH") {
		t.Errorf("New without the credential's variable: %v, want an error naming API_AUTH", err)
	}
}

// TestCredentialsWithinCredentials checks that a credential that holds
// another is hidden whole, whichever the tool replaces first: the
// headers come from a map, in no order.
func TestCredentialsWithinCredentials(t *testing.T) {
	f := newFakeAPI(t, itemsDoc)
	f.answer = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"uri":%q,"auth":%q,"key":%q}`, r.RequestURI, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
	}
	cfg := f.config()
	cfg.Headers = map[string]string{"Authorization": "API_AUTH", "X-Api-Key": "API_KEY"}
	env := map[string]string{"API_AUTH": "s3cret-token", "API_KEY": "s3cret"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for range 8 { // the map's order differs from one New to the next
		ts := toolsOf(t, []service.Config{cfg}, &service.Options{LookupEnv: lookup})
		res := ts.callAPI(t, "getItem", map[string]any{"path": map[string]any{"id": "1"}})
		if res.IsError {
			t.Fatal(res.Content)
		}
		if strings.Contains(res.Content, "s3cret") || strings.Contains(res.Content, "-token") {
			t.Fatalf("the result shows a credential, or part of one:\n%s", res.Content)
		}
	}
}

// TestHostileDocuments checks the bounds on a document and its $refs.
func TestHostileDocuments(t *testing.T) {
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a $ref reached another server: %s", r.URL)
	}))
	defer private.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(t.TempDir(), "secret.json"), []byte(`{"type":"string"}`), 0o600)
	deep := `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{},"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`
	huge := `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{},"x":"` + strings.Repeat("a", service.MaxDocumentBytes) + `"}`
	refTo := func(ref string) string {
		return `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{"/a":{"get":{"operationId":"a","parameters":[{"name":"q","in":"query","schema":{"$ref":"` + ref + `"}}],"responses":{"200":{"description":"ok"}}}}}}`
	}
	for _, tt := range []struct {
		name, doc string
		want      error
	}{
		{"huge", huge, service.ErrDocumentBounds},
		{"deep", deep, service.ErrDocumentBounds},
		{"remote ref to another server", refTo(private.URL + "/x.json"), service.ErrRef},
		{"remote ref to the metadata address", refTo("http://169.254.169.254/latest/x.json"), service.ErrRef},
		{"file ref", refTo("file:///etc/passwd"), service.ErrRef},
		{"yaml", "openapi: 3.0.3\n", service.ErrDocument},
		{"not openapi", `{"hello":"world"}`, service.ErrDocument},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, tt.doc)
			svcs, err := service.New([]service.Config{f.config()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = svcs.Load(t.Context())
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load = %v, want %v", err, tt.want)
			}
		})
	}
	// A document in a file may refer to files beside it, not outside.
	os.WriteFile(filepath.Join(dir, "q.json"), []byte(`{"type":"string","maxLength":3}`), 0o600)
	for _, tt := range []struct {
		ref  string
		want error
	}{
		{"q.json", nil},
		{"../secret.json", service.ErrRef},
		{"/etc/passwd", service.ErrRef},
	} {
		path := filepath.Join(dir, "doc.json")
		os.WriteFile(path, []byte(refTo(tt.ref)), 0o600)
		svcs, err := service.New([]service.Config{{Name: "api", BaseURL: "http://127.0.0.1:9/v1", Document: path}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := svcs.Load(t.Context()); !errors.Is(err, tt.want) {
			t.Errorf("a file $ref to %s: Load = %v, want %v", tt.ref, err, tt.want)
		}
	}
}

// TestCyclicRefs checks that references that form cycles load, describe
// and validate, each schema written once.
func TestCyclicRefs(t *testing.T) {
	doc := `{"openapi":"3.0.3","info":{"title":"x","version":"1"},
	 "paths":{"/tree":{"post":{"operationId":"plant",
	  "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Node"}}}},
	  "responses":{"200":{"description":"ok"}}}}},
	 "components":{"schemas":{
	  "Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/components/schemas/Node"}},"other":{"$ref":"#/components/schemas/A"}},"required":["name"]},
	  "A":{"type":"object","properties":{"b":{"$ref":"#/components/schemas/B"}}},
	  "B":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/A"}}}}}}`
	f := newFakeAPI(t, doc)
	ts := toolsOf(t, []service.Config{f.config()}, nil)
	desc := ts.run(t, "describe_service", map[string]any{"service": "api", "operation": "plant"})
	if desc.IsError || strings.Count(desc.Content, `"Node":`) != 1 || !strings.Contains(desc.Content, `"$ref":"#/$defs/Node"`) {
		t.Fatalf("describe plant:\n%s", desc.Content)
	}
	bad := ts.callAPI(t, "plant", map[string]any{"body": map[string]any{"name": "root", "children": []any{map[string]any{"children": []any{}}}}})
	if !bad.IsError || !strings.Contains(bad.Content, "/arguments/body/children/0") {
		t.Errorf("a child without a name: %s", bad.Content)
	}
	good := ts.callAPI(t, "plant", map[string]any{"body": map[string]any{"name": "root", "children": []any{map[string]any{"name": "leaf"}}, "other": map[string]any{"b": map[string]any{"a": map[string]any{}}}}})
	if good.IsError {
		t.Errorf("a valid tree: %s", good.Content)
	}
}

// TestDeepRefChain checks that a long chain of references loads: each is
// one $defs entry, however long the chain.
func TestDeepRefChain(t *testing.T) {
	const n = 300
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{"/a":{"post":{"operationId":"a","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}},"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	f := newFakeAPI(t, b.String())
	ts := toolsOf(t, []service.Config{f.config()}, nil)
	res := ts.callAPI(t, "a", map[string]any{"body": map[string]any{"next": map[string]any{"next": 5}}})
	if !res.IsError || !strings.Contains(res.Content, "/arguments/body/next/next") {
		t.Errorf("a wrong value two links down the chain: %s", res.Content)
	}
}

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
