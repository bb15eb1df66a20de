package bind_test

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/bind"
	"gocloud.dev/blob"
)

// TestLoadS3 opens an s3:// binding against an S3-compatible server on
// 127.0.0.1, the way an R2 or MinIO binding is written, and writes and reads
// an object through it with the real S3 client.
func TestLoadS3(t *testing.T) {
	fake := &s3Fake{bucket: "files", objects: map[string]s3Object{}}
	var served atomic.Int64
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
	// The object is in the fake's map, so the write went over S3.
	if obj, ok := fake.object(key); !ok || string(obj.body) != body || obj.contentType != "text/plain" {
		t.Fatalf("the fake server holds %q as %+v, %v; want its body and type", key, obj, ok)
	}
	if served.Load() == 0 || strays.Load() != 0 {
		t.Errorf("the fake served %d requests and %d went elsewhere; want some and none", served.Load(), strays.Load())
	}
}

// An s3Fake is the part of S3 that a bucket's write, read and attributes
// use, for one bucket addressed by path (use_path_style): PUT, GET and
// HEAD of an object. It checks that each request is signed with the test
// key and that a written body matches the CRC-32 the SDK sends with it,
// and answers a read with that checksum, which the SDK checks in turn.
type s3Fake struct {
	bucket  string
	mu      sync.Mutex
	objects map[string]s3Object
}

type s3Object struct {
	body        []byte
	contentType string
}

func (f *s3Fake) object(key string) (s3Object, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.objects[key]
	return o, ok
}

func (f *s3Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=test-key/") {
		s3Error(w, http.StatusForbidden, "AccessDenied")
		return
	}
	key, ok := strings.CutPrefix(r.URL.Path, "/"+f.bucket+"/")
	if !ok || key == "" {
		s3Error(w, http.StatusNotFound, "NoSuchBucket")
		return
	}
	switch r.Method {
	case http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Header.Get("X-Amz-Checksum-Crc32") != crc32Of(body) {
			s3Error(w, http.StatusBadRequest, "BadDigest")
			return
		}
		f.mu.Lock()
		f.objects[key] = s3Object{body: body, contentType: r.Header.Get("Content-Type")}
		f.mu.Unlock()
		w.Header().Set("ETag", `"1"`)
	case http.MethodGet, http.MethodHead:
		o, ok := f.object(key)
		if !ok {
			s3Error(w, http.StatusNotFound, "NoSuchKey")
			return
		}
		w.Header().Set("Content-Type", o.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(o.body)))
		w.Header().Set("ETag", `"1"`)
		w.Header().Set("X-Amz-Checksum-Crc32", crc32Of(o.body))
		w.Header().Set("Last-Modified", time.Unix(0, 0).UTC().Format(http.TimeFormat))
		if r.Method == http.MethodGet {
			w.Write(o.body)
		}
	default:
		s3Error(w, http.StatusNotImplemented, "NotImplemented")
	}
}

func s3Error(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<Error><Code>%s</Code><Message>%[1]s</Message></Error>", code)
}

// crc32Of returns S3's x-amz-checksum-crc32 of body: its IEEE CRC-32,
// big-endian, in base64.
func crc32Of(body []byte) string {
	return base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(body)))
}
