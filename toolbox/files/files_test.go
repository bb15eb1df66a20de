package files_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"github.com/hands-go/hands/toolbox/files"
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

// serveFiles serves bucket with Server on 127.0.0.1 and returns the
// base URL of its files.
func serveFiles(t *testing.T, bucket *blob.Bucket) string {
	t.Helper()
	srv := httptest.NewServer(http.StripPrefix("/files/", files.Server(bucket)))
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

// host calls host_file on a directory bucket and returns its error.
func host(t *testing.T, bucket *blob.Bucket, key, content string) error {
	t.Helper()
	_, err := files.HostFile(bucket, "https://files.example.com", nil).Call(t.Context(),
		files.HostFileArgs{Key: key, Content: content, ContentType: "text/plain"})
	return err
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

// TestHostFileSymlinks checks that host_file writes through no symbolic
// link inside the bucket's directory, whether it stands for a folder of
// the key or for the key itself, and says so without naming a path.
func TestHostFileSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skipf("cannot make symbolic links: %v", err)
	}
	target := filepath.Join(outside, "target.txt")
	if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "file.txt")); err != nil {
		t.Fatal(err)
	}
	bucket := dirBucket(t, dir)
	for _, key := range []string{"link/x.txt", "link/new/x.txt", "file.txt"} {
		err := host(t, bucket, key, "inside")
		if !errors.Is(err, toolbox.ErrSymlink) {
			t.Errorf("host_file(%s) = %v, want ErrSymlink", key, err)
		} else {
			checkNoPaths(t, "host_file("+key+")", err.Error(), dir, outside)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the directory outside the bucket holds %d entries, want only target.txt", len(entries))
	}
	if data, _ := os.ReadFile(target); string(data) != "outside" {
		t.Errorf("the file outside the bucket holds %q, want it untouched", data)
	}
}

// TestServerSymlinks checks that Server serves no file through a
// symbolic link inside the bucket's directory.
func TestServerSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "secret.txt")); err != nil {
		t.Skipf("cannot make symbolic links: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real.txt"), []byte("real"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(dir, "alias.txt")); err != nil { // a link that stays inside
		t.Fatal(err)
	}
	base := serveFiles(t, dirBucket(t, dir))
	for _, key := range []string{"secret.txt", "out/secret.txt", "alias.txt"} {
		status, _, body := get(t, base+key)
		if status != http.StatusForbidden || strings.Contains(body, "secret") || strings.Contains(body, "real") {
			t.Errorf("GET %s = %d %q, want 403 and no content", key, status, body)
		}
		checkNoPaths(t, "GET "+key, body, dir, outside)
	}
	if status, _, body := get(t, base+"real.txt"); status != 200 || body != "real" {
		t.Errorf("GET real.txt = %d %q, want 200 real", status, body)
	}
}

// TestHostFileConcurrentWrites races writers of different bodies and
// content types on one key, with readers through Server: every read,
// and the state after each round, pairs a body with its own type.
func TestHostFileConcurrentWrites(t *testing.T) {
	bucket := dirBucket(t, t.TempDir())
	hostFile := files.HostFile(bucket, "https://files.example.com", nil)
	base := serveFiles(t, bucket)
	const writers, readers, rounds = 8, 2, 30
	var reads atomic.Int64
	for round := range rounds {
		var done atomic.Bool
		var wg, rg sync.WaitGroup
		for range readers {
			rg.Go(func() {
				for !done.Load() {
					resp, err := http.Get(base + "race.txt")
					if err != nil {
						t.Error(err)
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode == http.StatusNotFound {
						continue // before the first write of the first round
					}
					reads.Add(1)
					if want := "application/x-" + string(body); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want {
						t.Errorf("round %d: GET race.txt = %d %q with type %q, want type %q", round, resp.StatusCode, body, resp.Header.Get("Content-Type"), want)
						return
					}
				}
			})
		}
		for w := range writers {
			wg.Go(func() {
				name := fmt.Sprintf("writer-%d-%d", round, w)
				if _, err := hostFile.Call(context.Background(), files.HostFileArgs{Key: "race.txt", Content: name, ContentType: "application/x-" + name}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		done.Store(true)
		rg.Wait()
		body, err := bucket.ReadAll(t.Context(), "race.txt")
		if err != nil {
			t.Fatal(err)
		}
		attrs, err := bucket.Attributes(t.Context(), "race.txt")
		if err != nil {
			t.Fatal(err)
		}
		if want := "application/x-" + string(body); attrs.ContentType != want {
			t.Errorf("round %d: race.txt holds %q with type %q, want type %q", round, body, attrs.ContentType, want)
		}
	}
	if reads.Load() == 0 {
		t.Error("no read raced the writers")
	}
}

// TestHostFileLayout checks that what host_file writes to a directory,
// fileblob reads: the body at the key's path, the content type and MD5 in
// the sidecar.
func TestHostFileLayout(t *testing.T) {
	bucket := dirBucket(t, t.TempDir())
	if err := host(t, bucket, "a/b/c.txt", "hello"); err != nil {
		t.Fatal(err)
	}
	body, err := bucket.ReadAll(t.Context(), "a/b/c.txt")
	if err != nil || string(body) != "hello" {
		t.Errorf("ReadAll = %q, %v; want hello", body, err)
	}
	attrs, err := bucket.Attributes(t.Context(), "a/b/c.txt")
	if err != nil || attrs.ContentType != "text/plain; charset=utf-8" || fmt.Sprintf("%x", attrs.MD5) != "5d41402abc4b2a76b9719d911017c592" {
		t.Errorf("Attributes = %+v, %v; want text/plain; charset=utf-8 and the MD5 of hello", attrs, err)
	}
	iter := bucket.List(nil)
	var keys []string
	for {
		obj, err := iter.Next(t.Context())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, obj.Key)
	}
	if fmt.Sprint(keys) != "[a/b/c.txt]" {
		t.Errorf("the bucket lists %q, want [a/b/c.txt] and no temporary files", keys)
	}
}

// TestHostFileErrorsNameNoPaths checks the errors host_file meets in a
// directory: they say what is in the way, by its key, and name no
// directory of the machine.
func TestHostFileErrorsNameNoPaths(t *testing.T) {
	dir := t.TempDir()
	bucket := dirBucket(t, dir)
	if err := host(t, bucket, "a.txt", "x"); err != nil {
		t.Fatal(err)
	}
	if err := host(t, bucket, "d/x.txt", "x"); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a.txt/b.txt", "d"} {
		err := host(t, bucket, key, "x")
		if err == nil {
			t.Errorf("host_file(%s) succeeded, want an error", key)
			continue
		}
		checkNoPaths(t, "host_file("+key+")", err.Error(), dir)
		res := tool.Run(t.Context(), files.HostFile(bucket, "https://files.example.com", nil),
			tool.Call{Name: "host_file", Args: args(t, map[string]string{"key": key, "content": "x"})})
		checkNoPaths(t, "host_file("+key+") result", res.Content, dir)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		err := host(t, bucket, "ro/x.txt", "x")
		if !errors.Is(err, os.ErrPermission) {
			t.Errorf("host_file(ro/x.txt) = %v, want a permission error", err)
		} else {
			checkNoPaths(t, "host_file(ro/x.txt)", err.Error(), dir)
		}
	}
}

// TestHostFileSidecarKeys checks that no key can be or hold a metadata
// sidecar's name, in any bucket.
func TestHostFileSidecarKeys(t *testing.T) {
	for name, bucket := range map[string]*blob.Bucket{"mem": newBucket(t), "dir": dirBucket(t, t.TempDir())} {
		for _, key := range []string{"notes.attrs", "a/b.ATTRS", "x.attrs/y.txt"} {
			_, err := files.HostFile(bucket, "https://files.example.com", nil).CallJSON(t.Context(), args(t, map[string]string{"key": key, "content": "x"}))
			verr, ok := errors.AsType[*tool.ValidationError](err)
			if !ok || verr.Issues[0].Path != "/key" {
				t.Errorf("%s: host_file(%s) = %v, want a validation issue at /key", name, key, err)
			}
		}
	}
}

// TestServer checks what Server answers, for a directory bucket
// and a memory one.
func TestServer(t *testing.T) {
	dir := t.TempDir()
	for name, bucket := range map[string]*blob.Bucket{"mem": newBucket(t), "dir": dirBucket(t, dir)} {
		t.Run(name, func(t *testing.T) {
			hostFile := files.HostFile(bucket, "https://files.example.com", nil)
			for _, a := range []files.HostFileArgs{
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
