package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// An Exchange is one request and the response it got, as recorded against
// a live service.
type Exchange struct {
	Request  Request
	Response Response
}

// Responses returns the responses of exchanges, in order, for [Sequence].
func Responses(exchanges []Exchange) []Response {
	out := make([]Response, len(exchanges))
	for i, x := range exchanges {
		out[i] = x.Response
	}
	return out
}

// dropped are the recorded response headers the server does not send
// again: it frames the body itself, and sends it unencoded.
var dropped = []string{"Content-Length", "Transfer-Encoding", "Content-Encoding", "Connection"}

// recordedResponse returns a Response that sends body byte for byte, with
// the recorded status and headers.
func recordedResponse(status int, header http.Header, body []byte) Response {
	if body == nil {
		body = []byte{}
	}
	r := Response{Status: status, Header: map[string]string{}, Raw: body}
	for k, vs := range header {
		if len(vs) > 0 && !slices.Contains(dropped, http.CanonicalHeaderKey(k)) {
			r.Header[http.CanonicalHeaderKey(k)] = vs[0]
		}
	}
	return r
}

// LoadHTTPRR reads the exchanges of an httprr trace, the format of
// rsc.io/httprr that langchaingo records with: a line "httprr trace v1",
// then for each exchange a line "N M" followed by N bytes of the request
// and M bytes of the response, both in HTTP/1.1 wire form. It fails the
// test if the file does not follow the format exactly, so that a copy that
// lost or gained a byte is caught.
func LoadHTTPRR(t testing.TB, path string) []Exchange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseHTTPRR(data)
	if err != nil {
		t.Fatalf("replay: %s: %v", path, err)
	}
	return out
}

// ParseHTTPRR parses an httprr trace (see [LoadHTTPRR]). Every record must
// hold exactly one request and one response, each body ending where its
// record ends.
func ParseHTTPRR(data []byte) ([]Exchange, error) {
	rest, ok := bytes.CutPrefix(data, []byte("httprr trace v1\n"))
	if !ok {
		return nil, errors.New("not an httprr trace")
	}
	var out []Exchange
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		n1, n2, ok2 := strings.Cut(string(line), " ")
		n, err1 := strconv.Atoi(n1)
		m, err2 := strconv.Atoi(n2)
		if !ok || !ok2 || err1 != nil || err2 != nil || n < 0 || m < 0 || n > len(after) || m > len(after)-n {
			return nil, fmt.Errorf("record %d: corrupt header %q", len(out)+1, line)
		}
		reqWire, respWire := after[:n], after[n:n+m]
		rest = after[n+m:]

		rb := bufio.NewReader(bytes.NewReader(reqWire))
		req, err := http.ReadRequest(rb)
		if err != nil {
			return nil, fmt.Errorf("record %d: request: %w", len(out)+1, err)
		}
		reqBody, err := readAll(req.Body, rb)
		if err != nil {
			return nil, fmt.Errorf("record %d: request: %w", len(out)+1, err)
		}
		pb := bufio.NewReader(bytes.NewReader(respWire))
		resp, err := http.ReadResponse(pb, req)
		if err != nil {
			return nil, fmt.Errorf("record %d: response: %w", len(out)+1, err)
		}
		if resp.StatusCode < 100 || resp.StatusCode > 999 {
			return nil, fmt.Errorf("record %d: response: status %d", len(out)+1, resp.StatusCode)
		}
		respBody, err := readAll(resp.Body, pb)
		if err != nil {
			return nil, fmt.Errorf("record %d: response: %w", len(out)+1, err)
		}
		out = append(out, Exchange{
			Request: Request{
				Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
				Header: req.Header, Body: reqBody,
			},
			Response: recordedResponse(resp.StatusCode, resp.Header, respBody),
		})
	}
	if len(out) == 0 {
		return nil, errors.New("no exchange recorded")
	}
	return out, nil
}

// readAll reads a recorded body, and reports an error unless the body ends
// where its record ends.
func readAll(body io.ReadCloser, rest *bufio.Reader) ([]byte, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	if extra, _ := io.ReadAll(rest); len(extra) > 0 {
		return nil, fmt.Errorf("%d bytes after the body", len(extra))
	}
	return data, nil
}

// A cassette is a VCR cassette as vcrpy writes it, with pydantic-ai's
// serializer: a body is either the text it was sent as ("body: {string:
// ...}") or, for JSON, the parsed value ("parsed_body"). A response that an
// older version of vcrpy's httpx stubs recorded, as dd-trace-py's
// cassettes hold them, has its status as status_code and its body's text,
// decoded, as content.
type cassette struct {
	Interactions []struct {
		Request struct {
			Method     string              `yaml:"method"`
			URI        string              `yaml:"uri"`
			Headers    map[string][]string `yaml:"headers"`
			Body       any                 `yaml:"body"`
			ParsedBody any                 `yaml:"parsed_body"`
		} `yaml:"request"`
		Response struct {
			Status     cassetteStatus      `yaml:"status"`
			Headers    map[string][]string `yaml:"headers"`
			Body       any                 `yaml:"body"`
			ParsedBody any                 `yaml:"parsed_body"`
			StatusCode int                 `yaml:"status_code"`
			Content    *string             `yaml:"content"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// A cassetteStatus is a response's status as a cassette writes it: a map
// with its code ("status: {code: 200, message: OK}"), or, in newer
// cassettes of pydantic-ai, the bare number ("status: 200").
type cassetteStatus struct {
	Code int `yaml:"code"`
}

// UnmarshalYAML reads either form.
func (s *cassetteStatus) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&s.Code)
	}
	var m struct {
		Code int `yaml:"code"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	s.Code = m.Code
	return nil
}

// LoadCassette reads the exchanges of a VCR cassette in YAML, as vcrpy
// records them for pydantic-ai or dd-trace-py, failing the test if it
// cannot.
func LoadCassette(t testing.TB, path string) []Exchange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseCassette(data)
	if err != nil {
		t.Fatalf("replay: %s: %v", path, err)
	}
	return out
}

// ParseCassette parses a VCR cassette (see [LoadCassette]). A body the
// cassette keeps as text ("body: {string: ...}", or an httpx response's
// "content") is replayed byte for byte; one it keeps parsed
// ("parsed_body") is encoded back to JSON, with the same values and its
// keys in sorted order. Every response needs a status and a body.
func ParseCassette(data []byte) ([]Exchange, error) {
	var c cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	if len(c.Interactions) == 0 {
		return nil, errors.New("no exchange recorded")
	}
	var out []Exchange
	for i, in := range c.Interactions {
		u, err := url.Parse(in.Request.URI)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		reqBody, err := cassetteBody(in.Request.Body, in.Request.ParsedBody)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		respBody, err := cassetteBody(in.Response.Body, in.Response.ParsedBody)
		if err != nil {
			return nil, fmt.Errorf("response %d: %w", i+1, err)
		}
		status := cmp.Or(in.Response.Status.Code, in.Response.StatusCode)
		if respBody == nil && in.Response.Content != nil {
			respBody = []byte(*in.Response.Content)
		}
		if status < 100 || status > 999 || respBody == nil {
			return nil, fmt.Errorf("response %d has no status or no body", i+1)
		}
		out = append(out, Exchange{
			Request: Request{
				Method: in.Request.Method, Path: u.Path, Query: u.RawQuery,
				Header: http.Header(in.Request.Headers), Body: reqBody,
			},
			Response: recordedResponse(status, http.Header(in.Response.Headers), respBody),
		})
	}
	return out, nil
}

// cassetteBody returns a body from a cassette: body's text, or parsed
// encoded as JSON.
func cassetteBody(body, parsed any) ([]byte, error) {
	switch b := body.(type) {
	case string:
		return []byte(b), nil
	case map[string]any:
		if s, ok := b["string"].(string); ok {
			return []byte(s), nil
		}
	}
	if parsed == nil {
		return nil, nil
	}
	return json.Marshal(parsed)
}

// A Source names where a recorded file came from: a file in a public
// repository, at a commit, and the file's Git blob ID there, which
// [CheckManifest] compares with the copy's.
type Source struct {
	// File is the copy's name, in the manifest's directory.
	File string `json:"file"`
	// Repository, Path and Commit locate the original.
	Repository string `json:"repository"`
	Path       string `json:"path"`
	Commit     string `json:"commit"`
	// Blob is the original's Git blob ID (git rev-parse COMMIT:PATH),
	// which the copy's must equal.
	Blob string `json:"blob,omitempty"`
	// Extract, when the copy is one part of the original rather than all
	// of it, says which part and how it was taken; Length is then the
	// part's length in bytes as the original records it (a body's
	// Content-Length), which the copy's must equal, and Blob is empty.
	Extract string `json:"extract,omitempty"`
	Length  int    `json:"length,omitempty"`
	// License is the original's license, and LicenseFile the copy of its
	// text next to the recordings.
	License     string `json:"license"`
	LicenseFile string `json:"license_file"`
	// Recorded says what was recorded: the service, the model and when.
	Recorded string `json:"recorded"`
}

// CheckManifest fails the test unless dir/manifest.json lists every file
// of dir other than itself and the license texts, each with a source and
// its license's text, and each file is an unmodified copy of its original
// — its Git blob ID is the one the manifest gives — or, for an extract, of
// the recorded length. It returns the sources by file name.
func CheckManifest(t testing.TB, dir string) map[string]Source {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []Source
	if err := json.Unmarshal(data, &sources); err != nil {
		t.Fatalf("replay: %s/manifest.json: %v", dir, err)
	}
	bySource := map[string]Source{}
	for _, s := range sources {
		whole := len(s.Blob) == 40 && s.Extract == "" && s.Length == 0
		part := s.Blob == "" && s.Extract != "" && s.Length > 0
		if s.File == "" || s.Repository == "" || s.Path == "" || len(s.Commit) != 40 || !whole && !part || s.License == "" || s.Recorded == "" {
			t.Errorf("replay: %s/manifest.json: %+v lacks a field, or has both a blob and an extract", dir, s)
		}
		if _, err := os.Stat(filepath.Join(dir, s.LicenseFile)); s.LicenseFile == "" || err != nil {
			t.Errorf("replay: %s: the license text of %s, %q, is missing", dir, s.File, s.LicenseFile)
		}
		copied, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := BlobID(copied); s.Blob != "" && got != s.Blob {
			t.Errorf("replay: %s/%s has blob ID %s, want %s: the copy differs from %s/%s at %s", dir, s.File, got, s.Blob, s.Repository, s.Path, s.Commit)
		}
		if s.Extract != "" && len(copied) != s.Length {
			t.Errorf("replay: %s/%s has %d bytes, want the %d of %s in %s/%s at %s", dir, s.File, len(copied), s.Length, s.Extract, s.Repository, s.Path, s.Commit)
		}
		bySource[s.File] = s
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == "manifest.json" || strings.HasPrefix(name, "LICENSE") {
			continue
		}
		if _, ok := bySource[name]; !ok {
			t.Errorf("replay: %s/%s is not in the manifest", dir, name)
		}
	}
	return bySource
}

// BlobID returns the Git blob ID of a file with the given content, as git
// hash-object computes it.
func BlobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
