package search_test

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
	"testing"
	"time"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
	"github.com/hands-go/hands/toolbox/search"
)

// secret is the API key of every test: no output may hold it.
const secret = "sk-test-5e3f9a1c77d04b2e"

// env is a getenv that knows the tests' keys.
func env(name string) string {
	switch name {
	case "BRAVE_API_KEY", "TAVILY_API_KEY", "MY_KEY":
		return secret
	}
	return ""
}

// open opens the backend of scheme at the test server's URL.
func open(t *testing.T, scheme, endpoint string) *search.Backend {
	t.Helper()
	b, err := search.Open(scheme+"://?endpoint="+endpoint, env)
	if err != nil {
		t.Fatalf("Open(%s): %v", scheme, err)
	}
	return b
}

// call runs web_search once and returns its result.
func call(t *testing.T, tl tool.Interface, args string) tool.Result {
	t.Helper()
	return tool.Run(t.Context(), tl, tool.Call{Name: tl.Spec().Name, Args: json.RawMessage(args)})
}

// noSecret fails the test if the key appears in what a call returned.
func noSecret(t *testing.T, res tool.Result) {
	t.Helper()
	for what, s := range map[string]string{"content": res.Content, "structured": string(res.Structured)} {
		if strings.Contains(s, secret) {
			t.Errorf("the result's %s holds the key: %s", what, s)
		}
	}
	if res.Err != nil && strings.Contains(res.Err.Error(), secret) {
		t.Errorf("the error holds the key: %v", res.Err)
	}
}

// recorded returns a recorded response body: the Tavily cassette's, or an
// extract of Brave's and SearXNG's wrapped in its envelope.
func recorded(t *testing.T, name string) []byte {
	t.Helper()
	dir := filepath.Join("testdata", "recorded")
	switch name {
	case search.Tavily:
		x := replay.LoadCassette(t, filepath.Join(dir, "test_basic_search.yaml"))
		return x[0].Response.Raw
	case search.Brave:
		part, err := os.ReadFile(filepath.Join(dir, "brave.web-results-2-3.json"))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(`{"type":"search","web":{"type":"search","results":[` + string(part) + `]}}`)
	default:
		part, err := os.ReadFile(filepath.Join(dir, "searxng.results-0-2.json"))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(`{"query":"python","number_of_results":116000000,"results":[` + string(part) + `]}`)
	}
}

func TestManifest(t *testing.T) {
	replay.CheckManifest(t, filepath.Join("testdata", "recorded"))
}

// TestRecorded replays responses recorded from the live APIs and checks
// the request each backend's documentation asks for and the hits.
func TestRecorded(t *testing.T) {
	for _, tt := range []struct {
		backend   string
		wantFirst search.Result
		wantN     int
		checkReq  func(t *testing.T, r *http.Request, body []byte)
	}{
		{
			backend: search.Brave,
			wantFirst: search.Result{Title: "Python Tutorial", URL: "https://www.w3schools.com/python/",
				Snippet: "W3Schools offers free online tutorials, references and exercises in all the major languages of the web. Covering popular subjects like HTML, CSS, JavaScript, Python, SQL, Java, and many, many more."},
			wantN: 2,
			checkReq: func(t *testing.T, r *http.Request, _ []byte) {
				if r.Method != http.MethodGet || r.URL.Query().Get("q") != "python" || r.URL.Query().Get("count") != "3" {
					t.Errorf("Brave request %s %s, want GET with q=python&count=3", r.Method, r.URL)
				}
				if got := r.Header.Get("X-Subscription-Token"); got != secret {
					t.Errorf("Brave request X-Subscription-Token = %q, want the key", got)
				}
			},
		},
		{
			backend: search.Tavily,
			wantFirst: search.Result{Title: "Pydantic AI: Agent Framework", URL: "https://medium.com/ai-agent-insider/pydantic-ai-agent-framework-02b138e8db71",
				Snippet: "## AI Agent Insider. # Pydantic AI: Agent Framework. Introducing **Pydantic AI**-- a groundbreaking Python framework specifically designed to simplify the creation of production-grade AI agents. **Pydantic AI** is a Python framework that acts as a bridge between developers and LLMs, providing tools to create **agents** -- entities that execute specific tasks based on system prompts, functions,…"},
			wantN: 3,
			checkReq: func(t *testing.T, r *http.Request, body []byte) {
				var got map[string]any
				if err := json.Unmarshal(body, &got); err != nil || r.Method != http.MethodPost {
					t.Fatalf("Tavily request %s %s, want a POST of JSON (%v)", r.Method, body, err)
				}
				if got["query"] != "python" || got["max_results"] != 3.0 {
					t.Errorf("Tavily request body %s, want query python and max_results 3", body)
				}
				if h := r.Header.Get("Authorization"); h != "Bearer "+secret {
					t.Errorf("Tavily request Authorization = %q, want the key as a bearer token", h)
				}
			},
		},
		{
			backend: search.SearXNG,
			wantFirst: search.Result{Title: "Welcome to Python.org", URL: "https://www.python.org/",
				Snippet: "Python is a versatile and powerful language that lets you work quickly and integrate systems more effectively. Learn how to get started, download the latest version, access documentation, find jobs, and join the Python community."},
			wantN: 3,
			checkReq: func(t *testing.T, r *http.Request, _ []byte) {
				if r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "python" || r.Header.Get("Authorization") != "" {
					t.Errorf("SearXNG request %s %v, want q=python&format=json and no key", r.URL, r.Header)
				}
			},
		},
	} {
		t.Run(tt.backend, func(t *testing.T) {
			body := recorded(t, tt.backend)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ := io.ReadAll(r.Body)
				tt.checkReq(t, r, got)
				w.Header().Set("Content-Type", "application/json")
				w.Write(body)
			}))
			defer srv.Close()
			ws := search.WebSearch(open(t, tt.backend, srv.URL), &search.Options{MaxResults: 3})
			res := call(t, ws, `{"query":"python","count":5}`)
			if res.IsError {
				t.Fatalf("web_search = error %s", res.Content)
			}
			noSecret(t, res)
			var out search.Results
			if err := json.Unmarshal(res.Structured, &out); err != nil {
				t.Fatalf("structured output %s: %v", res.Structured, err)
			}
			if len(out.Results) != tt.wantN || out.Results[0] != tt.wantFirst {
				t.Errorf("web_search = %d results, the first %+v; want %d, the first %+v", len(out.Results), out.Results[0], tt.wantN, tt.wantFirst)
			}
			if !strings.HasPrefix(res.Content, "1. "+tt.wantFirst.Title+"\n   "+tt.wantFirst.URL+"\n") || strings.Contains(res.Content, "<strong>") {
				t.Errorf("web_search's text = %q, want a numbered list without markup", res.Content)
			}
		})
	}
}

// TestFailures checks each way a backend fails: what the error matches,
// what the model is told, and that the key is never in either.
func TestFailures(t *testing.T) {
	echoKey := func(w http.ResponseWriter, r *http.Request) string {
		return r.Header.Get("X-Subscription-Token") // a backend that quotes the key it refused
	}
	for _, tt := range []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		want    error
		says    string // in what the model reads
	}{
		{"401", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"detail":"The provided subscription token %s is invalid."}}`, echoKey(w, r))
		}, search.ErrSearchKey, "BRAVE_API_KEY"},
		{"403", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(403)
			fmt.Fprintf(w, `{"detail":{"error":"Unauthorized: key %s"}}`, echoKey(w, r))
		}, search.ErrSearchKey, "BRAVE_API_KEY"},
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"error":{"detail":"Request rate limit exceeded for plan."}}`)
		}, search.ErrSearchRateLimited, "retry after 7s"},
		{"500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, search.ErrSearchBackend, "500"},
		{"503", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			fmt.Fprint(w, "<html>upstream unavailable</html>")
		}, search.ErrSearchBackend, "Service Unavailable"},
		{"malformed", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"web": {"results": [`) }, search.ErrSearchResponse, "not the API's JSON"},
		{"not search", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"hello": 1}`) }, search.ErrSearchResponse, "not the API's JSON"},
		{"huge", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"web":{"results":[`)
			for i := 0; i < 10000; i++ {
				fmt.Fprintf(w, `{"title":"t","url":"https://example.com/%d","description":"%s"},`, i, strings.Repeat("x", 100))
			}
			fmt.Fprint(w, `{}]}}`)
		}, search.ErrSearchTooLarge, "over the limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(tt.handler))
			defer srv.Close()
			ws := search.WebSearch(open(t, search.Brave, srv.URL), &search.Options{MaxBodyBytes: 64 << 10})
			res := call(t, ws, `{"query":"python"}`)
			noSecret(t, res)
			if !res.IsError || !errors.Is(res.Err, tt.want) {
				t.Fatalf("web_search = %v (%s), want an error that is %v", res.Err, res.Content, tt.want)
			}
			if _, ok := errors.AsType[*search.BackendError](res.Err); !ok {
				t.Errorf("web_search error %T, want a *search.BackendError", res.Err)
			}
			if !strings.Contains(res.Content, tt.says) {
				t.Errorf("the model reads %q, which does not say %q", res.Content, tt.says)
			}
		})
	}
	t.Run("retry-after", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(429)
		}))
		defer srv.Close()
		res := call(t, search.WebSearch(open(t, search.Tavily, srv.URL), nil), `{"query":"python"}`)
		berr, ok := errors.AsType[*search.BackendError](res.Err)
		if !ok || berr.RetryAfter != 30*time.Second || berr.Status != 429 {
			t.Errorf("web_search error = %#v, want a 429 with RetryAfter 30s", res.Err)
		}
	})
	t.Run("searxng json off", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) }))
		defer srv.Close()
		res := call(t, search.WebSearch(open(t, search.SearXNG, srv.URL), nil), `{"query":"python"}`)
		if !errors.Is(res.Err, search.ErrSearchBackend) || !strings.Contains(res.Content, "search.formats") {
			t.Errorf("web_search = %v, want ErrSearchBackend naming search.formats", res.Err)
		}
	})
}

// TestSlowServer checks that a backend that never answers cannot hold a
// call past its timeout.
func TestSlowServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		fmt.Fprint(w, `{"web":{"results":[`)
		w.(http.Flusher).Flush()
		<-release // the headers came, the body never ends
	}))
	defer srv.Close()
	defer close(release)
	ws := search.WebSearch(open(t, search.Brave, srv.URL), &search.Options{Timeout: 100 * time.Millisecond})
	res := call(t, ws, `{"query":"python"}`)
	if _, ok := errors.AsType[*tool.TimeoutError](res.Err); !ok {
		t.Errorf("web_search on a server that never finishes = %v, want a *tool.TimeoutError", res.Err)
	}
}

// TestGuard checks that the backend's endpoint is trusted and a redirect
// to another private address is not.
func TestGuard(t *testing.T) {
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect reached %s", r.URL)
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/search", http.StatusFound)
	}))
	defer srv.Close()
	res := call(t, search.WebSearch(open(t, search.Brave, srv.URL), nil), `{"query":"python"}`)
	if !errors.Is(res.Err, search.ErrSearchBackend) || !strings.Contains(res.Content, "loopback") {
		t.Errorf("a redirect to another loopback server = %v, want it refused by the guard", res.Err)
	}
	if _, ok := errors.AsType[*netguard.BlockedError](res.Err); ok {
		t.Log("(the guard's error is reported as text)")
	}
}

func TestOpen(t *testing.T) {
	for _, tt := range []struct {
		url, endpoint string // endpoint "" means Open must fail
	}{
		{"brave://", "https://api.search.brave.com/res/v1/web/search"},
		{"tavily://", "https://api.tavily.com/search"},
		{"searxng://search.example.com", "https://search.example.com/search"},
		{"searxng://10.0.0.5:8888/sx/?tls=false", "http://10.0.0.5:8888/sx/search"},
		{"brave://?key_env=MY_KEY", "https://api.search.brave.com/res/v1/web/search"},
		{"brave://?endpoint=http://127.0.0.1:9/x", "http://127.0.0.1:9/x"},
		{"searxng://", ""},
		{"brave://?key_env=NONE", ""},
		{"brave://?key=" + secret, ""},
		{"tavily://user:" + secret + "@api.tavily.com", ""},
		{"google://", ""},
		{"brave://?count=3", ""},
		{"brave://?tls=false", ""},
		{"searxng://h?tls=maybe", ""},
		{"brave://?endpoint=ftp://x/", ""},
	} {
		b, err := search.Open(tt.url, env)
		switch {
		case tt.endpoint == "" && err == nil:
			t.Errorf("Open(%q) = %v, want an error", tt.url, b)
		case tt.endpoint != "" && err != nil:
			t.Errorf("Open(%q) = %v", tt.url, err)
		case err == nil && b.Endpoint() != tt.endpoint:
			t.Errorf("Open(%q).Endpoint() = %s, want %s", tt.url, b.Endpoint(), tt.endpoint)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("Open(%q) error holds the key: %v", tt.url, err)
		}
		if b != nil && strings.Contains(fmt.Sprint(b), secret) {
			t.Errorf("Open(%q) prints as %v, which holds the key", tt.url, b)
		}
	}
}

// bigResponse is a Brave response of n results, each with a long title
// and snippet full of markup.
func bigResponse(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"search","web":{"results":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"title":"%s","url":"https://example.com/%d","description":"%s"}`,
			strings.Repeat("<b>title</b> ", 100), i, strings.Repeat("<strong>word</strong> &amp; ", 500))
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// TestBounds checks that what the model reads is bounded by the options,
// whatever the backend sends, and that a response costs time and memory
// in proportion to its size.
func TestBounds(t *testing.T) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	const maxResults, maxSnippet = 4, 120
	ws := search.WebSearch(open(t, search.Brave, srv.URL), &search.Options{MaxResults: maxResults, MaxSnippetBytes: maxSnippet, MaxBodyBytes: 32 << 20})
	body = bigResponse(50)
	res := call(t, ws, `{"query":"python","count":20}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	var out search.Results
	json.Unmarshal(res.Structured, &out)
	if len(out.Results) != maxResults {
		t.Errorf("web_search returned %d results, want the limit %d", len(out.Results), maxResults)
	}
	// Per result: "N. " + title + "\n   " + URL + "\n   " + snippet + "\n\n".
	bound := maxResults * (3 + search.MaxTitleBytes + 4 + len("https://example.com/00") + 4 + maxSnippet + 2)
	if len(res.Content) > bound {
		t.Errorf("the model reads %d bytes, over the bound %d", len(res.Content), bound)
	}
	for _, r := range out.Results {
		if len(r.Snippet) > maxSnippet || len(r.Title) > search.MaxTitleBytes || strings.ContainsAny(r.Snippet+r.Title, "<>") {
			t.Errorf("result %+v is over its limits or holds markup", r)
		}
	}

	cost.Linear(t, "web_search of a response", 25, 100, func(n int) {
		body = bigResponse(n)
		if res := call(t, ws, `{"query":"python"}`); res.IsError {
			t.Fatal(res.Content)
		}
	})
}

// TestDialects checks that every provider dialect takes web_search as it is.
func TestDialects(t *testing.T) {
	b, err := search.Open("brave://", env)
	if err != nil {
		t.Fatal(err)
	}
	spec := search.WebSearch(b, nil).Spec()
	for _, d := range dialect.Dialects() {
		if err := provider.CheckTools(d, []tool.Spec{spec}); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if a := spec.Annotations; a == nil || !a.ReadOnly || !a.OpenWorld {
		t.Errorf("web_search annotations = %+v, want read-only and open-world", a)
	}
}
