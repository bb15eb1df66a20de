package bind_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/bind"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
)

// TestLoadS3 opens an s3:// binding against an S3-compatible server on
// 127.0.0.1, the way an R2 or MinIO binding is written, and writes and reads
// an object through it with the real S3 client.
func TestLoadS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("files"); err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	fake := gofakes3.New(backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()

	// Anything that is not for 127.0.0.1 — an AWS endpoint, the instance
	// metadata service — would go through this proxy and fail the test.
	// (net/http never proxies loopback addresses.)
	var strays atomic.Int64
	trap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		strays.Add(1)
		t.Errorf("a request left the fake server: %s %s", r.Method, r.URL)
		http.Error(w, "no network in tests", http.StatusForbidden)
	}))
	defer trap.Close()

	noFile := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "test-key",
		"AWS_SECRET_ACCESS_KEY":       "test-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "us-east-1",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             noFile,
		"AWS_SHARED_CREDENTIALS_FILE": noFile,
		"HTTP_PROXY":                  trap.URL,
		"HTTPS_PROXY":                 trap.URL,
		"NO_PROXY":                    "",
	} {
		t.Setenv(k, v)
	}

	q := url.Values{"endpoint": {srv.URL}, "region": {"us-east-1"}, "use_path_style": {"true"}}
	files := "s3://files?" + q.Encode()
	var env struct {
		Files *blob.Bucket `bind:"FILES"`
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"FILES": files})}); err != nil {
		t.Fatalf("Load(FILES=%s) = %v, want nil", files, err)
	}
	defer bind.Close(&env)

	ctx := t.Context()
	const key, body = "reports/q1 summary.txt", "hello, s3"
	if err := env.Files.WriteAll(ctx, key, []byte(body), &blob.WriterOptions{ContentType: "text/plain"}); err != nil {
		t.Fatalf("WriteAll = %v", err)
	}
	got, err := env.Files.ReadAll(ctx, key)
	if err != nil || string(got) != body {
		t.Fatalf("ReadAll = %q, %v; want %q, nil", got, err, body)
	}
	attrs, err := env.Files.Attributes(ctx, key)
	if err != nil || attrs.ContentType != "text/plain" {
		t.Errorf("Attributes = %+v, %v; want content type text/plain", attrs, err)
	}
	// The object is in the fake's backend, so the write went over S3.
	obj, err := backend.GetObject("files", key, nil)
	if err != nil {
		t.Fatalf("the fake server has no object %q: %v", key, err)
	}
	obj.Contents.Close()
	if served.Load() == 0 || strays.Load() != 0 {
		t.Errorf("the fake served %d requests and %d went elsewhere; want some and none", served.Load(), strays.Load())
	}
}
