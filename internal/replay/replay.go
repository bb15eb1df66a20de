package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
)

// A Response is one HTTP response for the server to send: a hand-written
// fixture ([Load]) or one recorded from a live service.
type Response struct {
	// Source says where a fixture comes from; [Load] requires
	// "hand-written", the only kind kept as these JSON files.
	Source string `json:"source,omitempty"`
	// Status is the HTTP status; zero means 200.
	Status int `json:"status,omitempty"`
	// Header holds the response's headers. Content-Type is
	// application/json unless Header or Events say otherwise.
	Header map[string]string `json:"header,omitempty"`
	// Body is the response body, a JSON value.
	Body json.RawMessage `json:"body,omitempty"`
	// Events, when set, are sent instead of Body as a stream of
	// server-sent events.
	Events []Event `json:"events,omitempty"`
	// Raw, when set, is sent instead of Body byte for byte: the body of a
	// response recorded from a live service ([LoadHTTPRR],
	// [LoadCassette]), JSON or an event stream as it arrived.
	Raw []byte `json:"-"`
}

// An Event is one server-sent event of a hand-written stream.
type Event struct {
	// Event is the event's name; empty for an event without one.
	Event string `json:"event,omitempty"`
	// Data is the event's data: a JSON string is sent as its text, any
	// other JSON value compacted onto one line.
	Data json.RawMessage `json:"data"`
}

// write sends the event in the text/event-stream format.
func (e Event) write(w io.Writer) {
	if e.Event != "" {
		fmt.Fprintf(w, "event: %s\n", e.Event)
	}
	var text string
	if json.Unmarshal(e.Data, &text) != nil {
		var buf bytes.Buffer
		json.Compact(&buf, e.Data)
		text = buf.String()
	}
	fmt.Fprintf(w, "data: %s\n\n", text)
}

// Load reads a hand-written response from the file at path, failing the
// test if it cannot.
func Load(t testing.TB, path string) Response {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r Response
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("replay: %s: %v", path, err)
	}
	if r.Source != "hand-written" {
		t.Fatalf(`replay: %s says "source": %q; a fixture file is "hand-written", and traffic recorded from a live service goes in testdata/recorded/ with its manifest`, path, r.Source)
	}
	return r
}

// A Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Query  string // the raw query, without '?'
	Header http.Header
	Body   []byte
}

// Golden returns the request in a stable form for a golden file: its method,
// path and query, then its JSON body indented, with its keys in the order
// the SDK wrote them. Headers are left out: they carry SDK versions and
// platform details that change from one release to the next.
func (r Request) Golden() []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"method\": %q,\n  \"path\": %q,\n", r.Method, r.Path)
	if r.Query != "" {
		fmt.Fprintf(&buf, "  \"query\": %q,\n", r.Query)
	}
	buf.WriteString("  \"body\": ")
	if err := json.Indent(&buf, bytes.TrimSpace(r.Body), "  ", "  "); err != nil {
		quoted, _ := json.Marshal(string(r.Body))
		buf.Write(quoted)
	}
	buf.WriteString("\n}\n")
	return buf.Bytes()
}

// A Server is an HTTP server on 127.0.0.1 that answers every request with
// the response its answer function picks, and keeps the requests. It is
// safe for concurrent use, and it is closed when the test ends.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:41234.
	URL string

	mu       sync.Mutex
	requests []Request
}

// NewServer starts a server that answers each request with answer(req).
func NewServer(t testing.TB, answer func(Request) Response) *Server {
	t.Helper()
	s := &Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		resp := answer(req)
		for k, v := range resp.Header {
			w.Header().Set(k, v)
		}
		status := resp.Status
		if status == 0 {
			status = http.StatusOK
		}
		if resp.Events != nil {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(status)
			for _, ev := range resp.Events {
				ev.write(w)
				w.(http.Flusher).Flush()
			}
			return
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		if resp.Raw != nil {
			w.Write(resp.Raw)
			return
		}
		w.Write(resp.Body)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Always answers every request with r.
func Always(r Response) func(Request) Response {
	return func(Request) Response { return r }
}

// Sequence answers the requests with responses, in order. A request past the
// last one fails the test and gets a 500.
func Sequence(t testing.TB, responses ...Response) func(Request) Response {
	var mu sync.Mutex
	next := 0
	return func(Request) Response {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(responses) {
			t.Errorf("replay: request %d, but only %d responses are scripted", next+1, len(responses))
			return Response{Status: http.StatusInternalServerError, Body: json.RawMessage(`{"error":"no more scripted responses"}`)}
		}
		next++
		return responses[next-1]
	}
}

// AfterResult scripts a two-turn exchange: it answers with before until a
// request's body contains marker — text that appears only in the result of
// the tool call that before asks for — and with after from then on.
func AfterResult(marker string, before, after Response) func(Request) Response {
	return func(r Request) Response {
		if bytes.Contains(r.Body, []byte(marker)) {
			return after
		}
		return before
	}
}
