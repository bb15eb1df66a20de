package replay_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/replay"
)

// trace returns an httprr trace of one exchange, as rsc.io/httprr writes
// it, with the given response body.
func trace(body string) string {
	req := "POST http://api.example.com/v1/messages?beta=true HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 2\r\n\r\n{}"
	resp := fmt.Sprintf("HTTP/2.0 200 OK\r\nContent-Length: %d\r\nContent-Type: text/event-stream\r\nRequest-Id: req_1\r\n\r\n%s", len(body), body)
	return fmt.Sprintf("httprr trace v1\n%d %d\n%s%s", len(req), len(resp), req, resp)
}

func TestParseHTTPRR(t *testing.T) {
	const events = "event: ping\ndata: {\"type\": \"ping\"}      \n\n"
	x, err := replay.ParseHTTPRR([]byte(trace(events)))
	if err != nil {
		t.Fatalf("ParseHTTPRR: %v", err)
	}
	if len(x) != 1 {
		t.Fatalf("ParseHTTPRR: %d exchanges, want 1", len(x))
	}
	req, resp := x[0].Request, x[0].Response
	if req.Method != "POST" || req.Path != "/v1/messages" || req.Query != "beta=true" || string(req.Body) != "{}" {
		t.Errorf("request = %s %s?%s %s", req.Method, req.Path, req.Query, req.Body)
	}
	if string(resp.Raw) != events || resp.Status != 200 || resp.Header["Content-Type"] != "text/event-stream" || resp.Header["Request-Id"] != "req_1" {
		t.Errorf("response = %d %v %q", resp.Status, resp.Header, resp.Raw)
	}
	if _, ok := resp.Header["Content-Length"]; ok {
		t.Errorf("the response keeps Content-Length, which the server sets itself")
	}

	good := trace(events)
	for _, tt := range []struct {
		name, data string
	}{
		{"empty", ""},
		{"no header", strings.TrimPrefix(good, "httprr trace v1\n")},
		{"no exchange", "httprr trace v1\n"},
		{"lengths past the end", strings.Replace(good, "\n", "\n9", 1)[:len(good)]},
		{"negative length", strings.Replace(good, "v1\n", "v1\n-", 1)},
		{"a byte lost", good[:len(good)-1]},
		{"a byte more", good + "x"},
		{"a body longer than its record", strings.Replace(good, "Content-Length: 2\r\n", "Content-Length: 3\r\n", 1)},
		{"a body shorter than its record", strings.Replace(good, "Content-Length: 2\r\n", "Content-Length: 1\r\n", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if x, err := replay.ParseHTTPRR([]byte(tt.data)); err == nil {
				t.Errorf("replay.ParseHTTPRR(%q) = %d exchanges, nil; want an error", tt.data, len(x))
			}
		})
	}
}

func FuzzParseHTTPRR(f *testing.F) {
	f.Add(trace("data: {}\n\n"))
	f.Add(trace(""))
	f.Add("httprr trace v1\n0 0\n")
	f.Fuzz(func(t *testing.T, data string) {
		x, err := replay.ParseHTTPRR([]byte(data))
		if err == nil && len(x) == 0 {
			t.Errorf("replay.ParseHTTPRR(%q) = no exchanges and no error", data)
		}
		for _, e := range x {
			if e.Response.Raw == nil || e.Response.Status < 100 {
				t.Errorf("replay.ParseHTTPRR(%q): a response without a body or a status: %+v", data, e.Response)
			}
		}
	})
}

const cassetteText = `interactions:
- request:
    method: POST
    parsed_body:
      model: gpt-4o
      input:
      - content: Hi
        role: user
    uri: https://api.openai.com/v1/responses?x=1
  response:
    headers:
      content-type:
      - text/event-stream
      content-length:
      - '12'
    body:
      string: "data: {}\r\n\r\n"
    status:
      code: 200
      message: OK
- request:
    method: POST
    body: '{"a":1}'
    uri: https://api.openai.com/v1/responses
  response:
    parsed_body:
      output_text: ok
      temperature: 1.0
    status:
      code: 201
version: 1
`

// httpxCassetteText is a cassette in the form older versions of vcrpy's
// httpx stubs wrote: the response's status as status_code, its body's
// text as content.
const httpxCassetteText = `interactions:
- request:
    body: '{"n": 1}'
    headers:
      host:
      - api.openai.com
    method: POST
    uri: https://api.openai.com/v1/images/generations
  response:
    content: "{\n  \"created\": 1\n}\n"
    headers:
      Content-Encoding:
      - gzip
      x-request-id:
      - 4c00
    http_version: HTTP/1.1
    status_code: 200
version: 1
`

func TestParseCassette(t *testing.T) {
	x, err := replay.ParseCassette([]byte(cassetteText))
	if err != nil {
		t.Fatalf("ParseCassette: %v", err)
	}
	if len(x) != 2 {
		t.Fatalf("ParseCassette: %d exchanges, want 2", len(x))
	}
	for i, want := range []struct {
		path, query, reqBody, respBody, contentType string
		status                                      int
	}{
		{"/v1/responses", "x=1", `{"input":[{"content":"Hi","role":"user"}],"model":"gpt-4o"}`, "data: {}\r\n\r\n", "text/event-stream", 200},
		{"/v1/responses", "", `{"a":1}`, `{"output_text":"ok","temperature":1}`, "", 201},
	} {
		req, resp := x[i].Request, x[i].Response
		if req.Path != want.path || req.Query != want.query || string(req.Body) != want.reqBody {
			t.Errorf("exchange %d: request %s?%s %s, want %s?%s %s", i, req.Path, req.Query, req.Body, want.path, want.query, want.reqBody)
		}
		if string(resp.Raw) != want.respBody || resp.Status != want.status || resp.Header["Content-Type"] != want.contentType {
			t.Errorf("exchange %d: response %d %v %q, want %d %s %q", i, resp.Status, resp.Header, resp.Raw, want.status, want.contentType, want.respBody)
		}
		if _, ok := resp.Header["Content-Length"]; ok {
			t.Errorf("exchange %d: the response keeps Content-Length, which the server sets itself", i)
		}
	}

	// Newer cassettes of pydantic-ai write the status as a bare number.
	bare, err := replay.ParseCassette([]byte(strings.Replace(cassetteText, "    status:\n      code: 201\n", "    status: 201\n", 1)))
	if err != nil || len(bare) != 2 || bare[1].Response.Status != 201 {
		t.Errorf("ParseCassette of a bare status: %d exchanges, %v; want the second with status 201", len(bare), err)
	}

	// vcrpy's httpx stubs wrote the status as status_code and the body's
	// text as content.
	if httpx, err := replay.ParseCassette([]byte(httpxCassetteText)); err != nil || len(httpx) != 1 {
		t.Errorf("ParseCassette of httpx's form: %d exchanges, %v; want one", len(httpx), err)
	} else if req, resp := httpx[0].Request, httpx[0].Response; resp.Status != 200 || string(resp.Raw) != "{\n  \"created\": 1\n}\n" || resp.Header["X-Request-Id"] != "4c00" || string(req.Body) != `{"n": 1}` || req.Path != "/v1/images/generations" {
		t.Errorf("ParseCassette of httpx's form: request %s %s, response %d %v %q; want its status, content and headers", req.Path, req.Body, resp.Status, resp.Header, resp.Raw)
	} else if _, ok := resp.Header["Content-Encoding"]; ok {
		t.Errorf("the httpx response keeps Content-Encoding, though its content is decoded")
	}

	for _, tt := range []struct{ name, data string }{
		{"not YAML", "interactions: ["},
		{"httpx form without a status", strings.Replace(httpxCassetteText, "    status_code: 200\n", "", 1)},
		{"httpx form without content", strings.Replace(httpxCassetteText, "    content: \"{\\n  \\\"created\\\": 1\\n}\\n\"\n", "", 1)},
		{"status not a number", strings.Replace(cassetteText, "    status:\n      code: 201\n", "    status: created\n", 1)},
		{"no interactions", "version: 1\n"},
		{"no status", strings.Replace(cassetteText, "      code: 201\n", "", 1)},
		{"no body", strings.Replace(cassetteText, "    parsed_body:\n      output_text: ok\n      temperature: 1.0\n", "", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if x, err := replay.ParseCassette([]byte(tt.data)); err == nil {
				t.Errorf("ParseCassette = %d exchanges, nil; want an error", len(x))
			}
		})
	}
}

func FuzzParseCassette(f *testing.F) {
	f.Add(cassetteText)
	f.Add(httpxCassetteText)
	f.Add("interactions:\n- response:\n    status: {code: 200}\n    body: {string: ''}\n")
	f.Fuzz(func(t *testing.T, data string) {
		x, err := replay.ParseCassette([]byte(data))
		if err == nil && len(x) == 0 {
			t.Errorf("replay.ParseCassette(%q) = no exchanges and no error", data)
		}
		for _, e := range x {
			if e.Response.Raw == nil || e.Response.Status < 100 || e.Response.Status > 999 {
				t.Errorf("replay.ParseCassette(%q): a response without a body or a status: %+v", data, e.Response)
			}
		}
	})
}

// TestServerRaw checks that a recorded response goes out as recorded: its
// status, its Content-Type and its body byte for byte.
func TestServerRaw(t *testing.T) {
	x, err := replay.ParseHTTPRR([]byte(trace("data: {\"a\": 1}   \r\n\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	srv := replay.NewServer(t, replay.Always(x[0].Response))
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(x[0].Response.Raw) || resp.Header.Get("Content-Type") != "text/event-stream" || resp.StatusCode != 200 {
		t.Errorf("the server sent %d %s %q, want 200 text/event-stream %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, x[0].Response.Raw)
	}
}

func TestBlobID(t *testing.T) {
	// git hash-object on a file holding "hello\n".
	if got, want := replay.BlobID([]byte("hello\n")), "ce013625030ba8dba906f756967f9e9ca394464a"; got != want {
		t.Errorf("replay.BlobID(hello) = %s, want %s", got, want)
	}
}

// checkManifest runs CheckManifest on dir and returns its failures.
func checkManifest(t *testing.T, dir string) []string {
	return replay.Capture(t, func(tb testing.TB) { replay.CheckManifest(tb, dir) })
}

func TestCheckManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.httprr", "hello\n")
	write("LICENSE.a", "MIT")
	write("manifest.json", `[{"file": "a.httprr", "repository": "github.com/a/a", "path": "testdata/a.httprr",
		"commit": "0123456789012345678901234567890123456789", "blob": "ce013625030ba8dba906f756967f9e9ca394464a",
		"license": "MIT", "license_file": "LICENSE.a", "recorded": "api.example.com"}]`)
	if msgs := checkManifest(t, dir); len(msgs) != 0 {
		t.Fatalf("CheckManifest of a true manifest: %q", msgs)
	}

	write("a.httprr", "hello!\n")
	if msgs := checkManifest(t, dir); len(msgs) != 1 || !strings.Contains(msgs[0], "differs") {
		t.Errorf("CheckManifest of a changed copy: %q; want one failure", msgs)
	}
	write("a.httprr", "hello\n")
	write("b.sse", "data: {}\n\n")
	if msgs := checkManifest(t, dir); len(msgs) != 1 || !strings.Contains(msgs[0], "b.sse") {
		t.Errorf("CheckManifest with an unlisted file: %q; want one failure naming it", msgs)
	}

	extract := func(length int) string {
		return fmt.Sprintf(`[{"file": "b.sse", "repository": "github.com/b/b", "path": "testdata/b.httprr",
			"commit": "0123456789012345678901234567890123456789", "extract": "the response's body", "length": %d,
			"license": "MIT", "license_file": "LICENSE.a", "recorded": "api.example.com"}]`, length)
	}
	os.Remove(filepath.Join(dir, "a.httprr"))
	write("manifest.json", extract(len("data: {}\n\n")))
	if msgs := checkManifest(t, dir); len(msgs) != 0 {
		t.Fatalf("CheckManifest of a true extract: %q", msgs)
	}
	write("manifest.json", extract(len("data: {}\n\n")+1))
	if msgs := checkManifest(t, dir); len(msgs) != 1 || !strings.Contains(msgs[0], "bytes") {
		t.Errorf("CheckManifest of an extract of another length: %q; want one failure", msgs)
	}
}
