package toolbox_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
)

// dirBucket opens a fileblob bucket on dir, as a file:// URL does.
func dirBucket(t *testing.T, dir string) *blob.Bucket {
	t.Helper()
	b, err := blob.OpenBucket(t.Context(), (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// serveFiles serves bucket with FileServer on 127.0.0.1 and returns the
// base URL of its files.
func serveFiles(t *testing.T, bucket *blob.Bucket) string {
	t.Helper()
	srv := httptest.NewServer(http.StripPrefix("/files/", toolbox.FileServer(bucket)))
	t.Cleanup(srv.Close)
	return srv.URL + "/files/"
}

// get fetches u and returns its status, content type and body.
func get(t *testing.T, u string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// checkNoPaths fails if msg names any directory of the machine: the
// bucket's, the outside one's, or the temporary directory they are in.
func checkNoPaths(t *testing.T, what, msg string, dirs ...string) {
	t.Helper()
	for _, d := range append(dirs, os.TempDir()) {
		if strings.Contains(msg, d) {
			t.Errorf("%s says %q, which names %s", what, msg, d)
		}
	}
}

// TestHostFileSidecarKeys checks that no key can be or hold a metadata
// sidecar's name, in any bucket.
func TestHostFileSidecarKeys(t *testing.T) {
	for name, bucket := range map[string]*blob.Bucket{"mem": newBucket(t), "dir": dirBucket(t, t.TempDir())} {
		for _, key := range []string{"notes.attrs", "a/b.ATTRS", "x.attrs/y.txt"} {
			_, err := toolbox.HostFile(bucket, "https://files.example.com", nil).CallJSON(t.Context(), args(t, map[string]string{"key": key, "content": "x"}))
			verr, ok := errors.AsType[*tool.ValidationError](err)
			if !ok || verr.Issues[0].Path != "/key" {
				t.Errorf("%s: host_file(%s) = %v, want a validation issue at /key", name, key, err)
			}
		}
	}
}

// TestFileServer checks what FileServer answers, for a directory bucket
// and a memory one.
func TestFileServer(t *testing.T) {
	dir := t.TempDir()
	for name, bucket := range map[string]*blob.Bucket{"mem": newBucket(t), "dir": dirBucket(t, dir)} {
		t.Run(name, func(t *testing.T) {
			hostFile := toolbox.HostFile(bucket, "https://files.example.com", nil)
			for _, a := range []toolbox.HostFileArgs{
				{Key: "a.txt", Content: "text", ContentType: "text/plain"},
				{Key: "p/page.html", Content: "<p>é</p>", ContentType: "text/html; charset=iso-8859-1"},
				{Key: "data.json", Content: "{}", ContentType: "application/json"},
				{Key: "image.svg", Content: "<svg/>", ContentType: "image/svg+xml"},
				{Key: "blob.bin", Content: "x", ContentType: "application/octet-stream"},
			} {
				if _, err := hostFile.Call(t.Context(), a); err != nil {
					t.Fatal(err)
				}
			}
			// Written by other means, with no charset.
			if err := bucket.WriteAll(t.Context(), "other.txt", []byte("other"), &blob.WriterOptions{ContentType: "text/plain"}); err != nil {
				t.Fatal(err)
			}
			base := serveFiles(t, bucket)
			for _, tt := range []struct {
				key    string
				status int
				ctype  string
				body   string
			}{
				{"a.txt", 200, "text/plain; charset=utf-8", "text"},
				{"p/page.html", 200, "text/html; charset=utf-8", "<p>é</p>"},
				{"data.json", 200, "application/json; charset=utf-8", "{}"},
				{"image.svg", 200, "image/svg+xml; charset=utf-8", "<svg/>"},
				{"blob.bin", 200, "application/octet-stream", "x"},
				{"other.txt", 200, "text/plain; charset=utf-8", "other"},
				{"a.txt.attrs", 404, "", ""},
				{"p/page.html.attrs", 404, "", ""},
				{"missing.txt", 404, "", ""},
				{"p", 404, "", ""},
				{"p/", 404, "", ""},
				{"", 404, "", ""},
			} {
				status, ctype, body := get(t, base+tt.key)
				if status != tt.status || (tt.status == 200 && (ctype != tt.ctype || body != tt.body)) {
					t.Errorf("GET %s = %d %q %q, want %d %q %q", tt.key, status, ctype, body, tt.status, tt.ctype, tt.body)
				}
				checkNoPaths(t, "GET "+tt.key, body, dir)
			}
			resp, err := http.Post(base+"a.txt", "text/plain", strings.NewReader("x"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("POST a.txt = %d, Allow %q; want 405 with Allow: GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
			}
			resp, err = http.Head(base + "a.txt")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Security-Policy") != "sandbox" {
				t.Errorf("HEAD a.txt = %d %v, want 200 with nosniff and a sandboxing CSP", resp.StatusCode, resp.Header)
			}
		})
	}
}
