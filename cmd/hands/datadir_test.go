package main

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/sqlitekv"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/files"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/fileblob"
)

// secretValue is what the tests below keep in the key-value store, and
// look for in every answer that must not hold it.
const secretValue = "the-stored-secret-5f2c"

// serveSession starts serve --http with the token s3cret and the flags
// args, and returns the base URL, a session of it, and stop.
func serveSession(t *testing.T, args ...string) (base string, session *mcp.ClientSession, stop func() error) {
	t.Helper()
	t.Setenv("HANDS_TOKEN", "s3cret")
	line, stopServe := startServe(t, append([]string{"--http", "127.0.0.1:0"}, args...)...)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil {
		stopServe()
		t.Fatalf("startup line %q names no address", line)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	httpClient := &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}}
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: m[1] + "/mcp", HTTPClient: httpClient}, nil)
	if err != nil {
		stopServe()
		t.Fatal(err)
	}
	return m[1], session, func() error { session.Close(); return stopServe() }
}

// callText calls a tool and returns its text and whether it is an error.
func callText(t *testing.T, session *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// get returns the status and body of a GET of url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestDefaultDataDirPrivate walks every file a fresh hands serve --http
// --result-budget creates by default, after a value is stored, a result
// cut and kept for read_result, and a file hosted: only the hosted files
// are served at /files/, none of the others (the stores of values and of
// cut results among them) is reachable there, host_file cannot overwrite
// any of them whatever key it is given, the directory is the user's
// alone, and the store holds its value across a restart.
func TestDefaultDataDirPrivate(t *testing.T) {
	data := inTempDir(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	base, session, stop := serveSession(t, "--result-budget", "1024")
	if text, isErr := callText(t, session, "kv_put", map[string]any{"key": "k", "value": secretValue}); isErr {
		t.Fatalf("kv_put: %s", text)
	}
	long := strings.Repeat(secretValue+" ", 200)
	if text, isErr := callText(t, session, "kv_put", map[string]any{"key": "long", "value": long}); isErr {
		t.Fatalf("kv_put: %s", text)
	}
	if text, isErr := callText(t, session, "kv_get", map[string]any{"key": "long"}); isErr || !strings.Contains(text, `read the rest with read_result {"handle":"res_`) {
		t.Fatalf("kv_get of %d bytes under a budget of 1024 = %q, isError %v; want it cut, the rest kept", len(long), text, isErr)
	}
	if text, isErr := callText(t, session, "host_file", map[string]any{"key": "pages/a.html", "content": "<p>a</p>", "contentType": "text/html"}); isErr {
		t.Fatalf("host_file: %s", text)
	}

	// Every key a model may try, to overwrite what hands keeps: each is
	// refused or lands in the bucket's folder, never on the store.
	for _, key := range []string{"kv.db", "kv.db-wal", "kv.db-shm", ".layout", "../kv.db", "files/../kv.db", "../.layout"} {
		callText(t, session, "host_file", map[string]any{"key": key, "content": "overwritten"})
	}

	var internal, hosted []string
	err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o002 != 0 {
			t.Errorf("%s is writable by anyone: %v", path, info.Mode())
		}
		if d.IsDir() {
			if perm := info.Mode().Perm(); (path == data || path == filepath.Join(data, bucketFolder)) && perm != 0o700 {
				t.Errorf("%s has mode %v, want 0700: the user's alone", path, perm)
			}
			return nil
		}
		rel, _ := filepath.Rel(data, path)
		if inBucket, ok := strings.CutPrefix(filepath.ToSlash(rel), bucketFolder+"/"); ok {
			hosted = append(hosted, inBucket)
		} else {
			internal = append(internal, filepath.ToSlash(rel))
			if perm := info.Mode().Perm(); perm&0o077 != 0 {
				t.Errorf("hands' own file %s has mode %v, want the user's alone", rel, perm)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(internal) == 0 {
		t.Fatal("hands created no file of its own in the data directory; the walk checks nothing")
	}
	for _, want := range []string{kvFile, resultsFile} {
		if !slices.Contains(internal, want) {
			t.Errorf("hands' own files are %v, want %s among them", internal, want)
		}
	}
	for _, rel := range internal {
		content, err := os.ReadFile(filepath.Join(data, rel))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(content), "overwritten") {
			t.Errorf("host_file wrote into hands' own file %s", rel)
		}
		for _, path := range []string{rel, "../" + rel, "%2e%2e/" + rel, bucketFolder + "/../" + rel} {
			// A key of the same name is the model's own file, in the
			// bucket's folder: what must never come back is hands' file.
			code, body := get(t, base+"/files/"+path)
			if code == http.StatusOK && body == string(content) || strings.Contains(body, secretValue) {
				t.Errorf("GET /files/%s = %d %q: hands' own file %s is served", path, code, body, rel)
			}
		}
	}
	for _, key := range hosted {
		if strings.HasSuffix(key, ".attrs") || strings.Contains(key, "/.hands-") || strings.HasPrefix(key, ".hands-") {
			continue // fileblob's sidecars and host_file's temporary files are not keys
		}
		if code, body := get(t, base+"/files/"+key); code != http.StatusOK || strings.Contains(body, secretValue) {
			t.Errorf("GET /files/%s = %d %q; want the hosted file", key, code, body)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// After a restart the store is whole.
	_, session, stop = serveSession(t)
	defer stop()
	if text, isErr := callText(t, session, "kv_get", map[string]any{"key": "k"}); isErr || !strings.Contains(text, secretValue) {
		t.Errorf("kv_get after the restart = %q, isError %v; want the stored value", text, isErr)
	}
}

// oldLayout makes a data directory as releases before the layout file made
// it: a bucket in the directory itself, with the store among its files. It
// returns the directory.
func oldLayout(t *testing.T, data string) {
	t.Helper()
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	store, err := sqlitekv.Open(t.Context(), filepath.Join(data, kvFile))
	if err != nil {
		t.Fatal(err)
	}
	s := kv.New(store, nil)
	if err := s.Put(t.Context(), "k", []byte(secretValue), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	bucket, err := fileblob.OpenBucket(data, &fileblob.Options{NoTempDir: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	host := files.HostFile(bucket, "https://files.example.com", nil)
	for key, content := range map[string]string{"report.html": "<p>report</p>", "pages/x.txt": "x", "files/old.txt": "old"} {
		res := tool.Run(t.Context(), host, tool.Call{Name: host.Spec().Name, Args: []byte(`{"key":"` + key + `","content":"` + content + `"}`)})
		if res.IsError {
			t.Fatalf("host %s: %+v", key, res)
		}
	}
}

// TestDataDirMigration serves a data directory of the old layout: its
// hosted files stay at their URLs (an old key under files/ moves up one
// level, as its folder becomes the bucket), its store keeps its value and
// is no longer served, and nothing is removed. A second start finds the
// layout done.
func TestDataDirMigration(t *testing.T) {
	data := inTempDir(t)
	oldLayout(t, data)
	for range 2 {
		base, session, stop := serveSession(t)
		for key, want := range map[string]string{"report.html": "<p>report</p>", "pages/x.txt": "x", "old.txt": "old"} {
			if code, body := get(t, base+"/files/"+key); code != http.StatusOK || body != want {
				t.Errorf("GET /files/%s = %d %q, want %q", key, code, body, want)
			}
		}
		for _, key := range []string{kvFile, kvFile + "-wal", "../" + kvFile} {
			if code, body := get(t, base+"/files/"+key); code == http.StatusOK || strings.Contains(body, secretValue) {
				t.Errorf("GET /files/%s = %d %q after the migration", key, code, body)
			}
		}
		if text, isErr := callText(t, session, "kv_get", map[string]any{"key": "k"}); isErr || !strings.Contains(text, secretValue) {
			t.Errorf("kv_get after the migration = %q, isError %v", text, isErr)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(data, layoutFile)); err != nil || string(b) != layoutText {
		t.Errorf("the layout file holds %q, %v", b, err)
	}
	for _, rel := range []string{"files/report.html", "files/report.html.attrs", "files/pages/x.txt", "files/old.txt", kvFile} {
		if _, err := os.Stat(filepath.Join(data, rel)); err != nil {
			t.Errorf("after the migration: %v", err)
		}
	}
}

// TestDataDirMigrationResumes migrates a directory that an earlier run
// left half-migrated (some files moved, no layout file), and one where a
// name is both at the top and in the bucket's folder, which is reported
// and left as it is rather than overwritten.
func TestDataDirMigrationResumes(t *testing.T) {
	data := inTempDir(t)
	oldLayout(t, data)
	if err := os.Rename(filepath.Join(data, "files"), filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(data, bucketFolder), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(data, "pages"), filepath.Join(data, bucketFolder, "pages")); err != nil {
		t.Fatal(err)
	}
	if _, err := openDataDir(); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"files/report.html", "files/report.html.attrs", "files/pages/x.txt", kvFile, layoutFile} {
		if _, err := os.Stat(filepath.Join(data, rel)); err != nil {
			t.Errorf("after the resumed migration: %v", err)
		}
	}

	data = inTempDir(t)
	oldLayout(t, data)
	if err := os.WriteFile(filepath.Join(data, "old.txt"), []byte("top"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := openDataDir()
	if err == nil || !strings.Contains(err.Error(), "old.txt") {
		t.Fatalf("openDataDir with old.txt twice = %v; want an error naming it", err)
	}
	for rel, want := range map[string]string{"old.txt": "top", "files/old.txt": "old", "files/report.html": "<p>report</p>"} {
		if b, err := os.ReadFile(filepath.Join(data, rel)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(data, layoutFile)); err == nil {
		t.Error("the layout file was written with a name left at the top")
	}
}

// TestBucketApart refuses a bucket whose directory holds a file of hands'
// own — the key-value store's database, the SQL tools' database, the
// config file, the OAuth token store, directly or through a symbolic link
// — and serves one that holds none.
func TestBucketApart(t *testing.T) {
	inTempDir(t)
	shared := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(shared, link); err != nil {
		t.Fatal(err)
	}
	configHome := t.TempDir()
	config := filepath.Join(shared, "config.json")
	if err := os.WriteFile(config, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, configFile string
		env              map[string]string
		want             string // in the error; "" for none
	}{
		{"store in the bucket", "", map[string]string{"HANDS_BUCKET": "file://" + shared, "HANDS_KV": "sqlite://" + shared + "/kv.db"}, "HANDS_KV"},
		{"store in a folder of the bucket", "", map[string]string{"HANDS_BUCKET": "file://" + shared, "HANDS_KV": "sqlite://" + shared + "/state/kv.db"}, "HANDS_KV"},
		{"bucket through a link", "", map[string]string{"HANDS_BUCKET": "file://" + link, "HANDS_KV": "sqlite://" + shared + "/kv.db"}, "HANDS_KV"},
		{"database in the bucket", "", map[string]string{"HANDS_BUCKET": "file://" + shared, "HANDS_KV": "mem://", "HANDS_SQL": "sqlite://" + shared + "/app.db", "HANDS_SQL_WRITE": "true"}, "HANDS_SQL"},
		{"config in the bucket", config, map[string]string{"HANDS_BUCKET": "file://" + shared, "HANDS_KV": "mem://"}, "config file"},
		{"token store in the bucket", "", map[string]string{"HANDS_BUCKET": "file://" + configHome, "HANDS_KV": "mem://", "XDG_CONFIG_HOME": configHome}, "OAuth token store"}, // hands/oauth in it
		{"apart", "", map[string]string{"HANDS_BUCKET": "file://" + t.TempDir(), "HANDS_KV": "sqlite://" + t.TempDir() + "/kv.db", "HANDS_SQL": "sqlite://" + t.TempDir() + "/app.db", "HANDS_SQL_WRITE": "true"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			tools, closeEnv, err := bundledTools(t.Context(), tt.configFile, "http://127.0.0.1/files", usesAll)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("bundledTools = %v; want the tools", err)
				}
				closeEnv()
				if tools.hostFile == nil {
					t.Error("no host_file")
				}
				return
			}
			if err == nil {
				closeEnv()
				t.Fatalf("bundledTools served a bucket holding %s", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("bundledTools = %v; want an error naming %s", err, tt.want)
			}
		})
	}
}
