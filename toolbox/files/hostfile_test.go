package files_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"github.com/hands-go/hands/toolbox/files"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

func newBucket(t *testing.T) *blob.Bucket {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	return b
}

// args encodes v as the JSON arguments of a call.
func args(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestHostFile(t *testing.T) {
	for _, tt := range []struct {
		name      string
		publicURL string
		in        map[string]string
		wantURL   string
		wantType  string
	}{
		{"plain", "https://files.example.com", map[string]string{"key": "notes.txt", "content": "hello"},
			"https://files.example.com/notes.txt", "text/plain; charset=utf-8"},
		{"trailing slash and spaces", "https://files.example.com/", map[string]string{"key": "reports/q1 summary.txt", "content": "hello"},
			"https://files.example.com/reports/q1%20summary.txt", "text/plain; charset=utf-8"},
		{"base path and escapes", "https://cdn.example.com/pub/", map[string]string{"key": "a?b/c#d/50%.html", "content": "<p>hi</p>", "contentType": "text/html; charset=utf-8"},
			"https://cdn.example.com/pub/a%3Fb/c%23d/50%25.html", "text/html; charset=utf-8"},
		{"unicode", "https://files.example.com", map[string]string{"key": "café/menü.json", "content": "{}", "contentType": "application/json"},
			"https://files.example.com/caf%C3%A9/men%C3%BC.json", "application/json; charset=utf-8"},
		{"dots inside names", "https://files.example.com", map[string]string{"key": "v1..2/.env.example", "content": "x"},
			"https://files.example.com/v1..2/.env.example", "text/plain; charset=utf-8"},
		{"another charset", "https://files.example.com", map[string]string{"key": "a.txt", "content": "é", "contentType": "text/plain; charset=ISO-8859-1"},
			"https://files.example.com/a.txt", "text/plain; charset=utf-8"},
		{"not text", "https://files.example.com", map[string]string{"key": "a.bin", "content": "x", "contentType": "application/octet-stream"},
			"https://files.example.com/a.bin", "application/octet-stream"},
		{"local directory", "file:///srv/hands-data/", map[string]string{"key": "a b/c.txt", "content": "x"},
			"file:///srv/hands-data/a%20b/c.txt", "text/plain; charset=utf-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bucket := newBucket(t)
			host := files.HostFile(bucket, tt.publicURL, nil)
			got, err := host.CallJSON(t.Context(), args(t, tt.in))
			if err != nil {
				t.Fatalf("host_file(%v) = %v", tt.in, err)
			}
			if got != tt.wantURL {
				t.Errorf("host_file(%v) = %q, want %q", tt.in, got, tt.wantURL)
			}
			body, err := bucket.ReadAll(t.Context(), tt.in["key"])
			if err != nil || string(body) != tt.in["content"] {
				t.Errorf("bucket holds %q, %v under %q; want %q", body, err, tt.in["key"], tt.in["content"])
			}
			attrs, err := bucket.Attributes(t.Context(), tt.in["key"])
			if err != nil || attrs.ContentType != tt.wantType {
				t.Errorf("content type = %q, %v; want %q", attrs.ContentType, err, tt.wantType)
			}
		})
	}
}

// TestHostFileRefusals has one row for each refusal of host_file. Argument
// refusals are validation issues at the field's path; a size refusal is
// ErrTooLarge. Nothing is written either way.
func TestHostFileRefusals(t *testing.T) {
	const maxBytes = 16
	for _, tt := range []struct {
		name    string
		in      map[string]any
		path    string // where the issues are, for a validation error
		wantErr error  // the sentinel, otherwise
	}{
		{name: "empty key", in: map[string]any{"key": "", "content": "x"}, path: "/key"},
		{name: "no key", in: map[string]any{"content": "x"}, path: ""}, // required, at the root
		{name: "leading slash", in: map[string]any{"key": "/etc/passwd", "content": "x"}, path: "/key"},
		{name: "dot-dot segment", in: map[string]any{"key": "a/../../b.txt", "content": "x"}, path: "/key"},
		{name: "leading dot-dot", in: map[string]any{"key": "../b.txt", "content": "x"}, path: "/key"},
		{name: "only dot-dot", in: map[string]any{"key": "..", "content": "x"}, path: "/key"},
		{name: "trailing dot-dot", in: map[string]any{"key": "a/..", "content": "x"}, path: "/key"},
		{name: "dot segment", in: map[string]any{"key": "a/./b", "content": "x"}, path: "/key"},
		{name: "empty segment", in: map[string]any{"key": "a//b", "content": "x"}, path: "/key"},
		{name: "trailing slash", in: map[string]any{"key": "dir/", "content": "x"}, path: "/key"},
		{name: "backslash", in: map[string]any{"key": `dir\file.txt`, "content": "x"}, path: "/key"},
		{name: "newline", in: map[string]any{"key": "a\nb.txt", "content": "x"}, path: "/key"},
		{name: "NUL", in: map[string]any{"key": "a\x00b", "content": "x"}, path: "/key"},
		{name: "tab", in: map[string]any{"key": "a\tb", "content": "x"}, path: "/key"},
		{name: "DEL", in: map[string]any{"key": "a\x7fb", "content": "x"}, path: "/key"},
		{name: "C1 control", in: map[string]any{"key": "a\u0085b", "content": "x"}, path: "/key"},
		{name: "key over 1024 characters", in: map[string]any{"key": strings.Repeat("k", 1025), "content": "x"}, path: "/key"},
		{name: "key over 1024 bytes", in: map[string]any{"key": strings.Repeat("é", 600), "content": "x"}, path: "/key"},
		{name: "empty content type", in: map[string]any{"key": "a.txt", "content": "x", "contentType": ""}, path: "/contentType"},
		{name: "blank content type", in: map[string]any{"key": "a.txt", "content": "x", "contentType": "  \t "}, path: "/contentType"},
		{name: "not a MIME type", in: map[string]any{"key": "a.txt", "content": "x", "contentType": "plain text"}, path: "/contentType"},
		{name: "content over the limit", in: map[string]any{"key": "a.txt", "content": strings.Repeat("x", maxBytes+1)}, wantErr: toolbox.ErrTooLarge},
		{name: "content over the limit in bytes, not characters", in: map[string]any{"key": "a.txt", "content": strings.Repeat("é", maxBytes/2+1)}, wantErr: toolbox.ErrTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bucket := newBucket(t)
			host := files.HostFile(bucket, "https://files.example.com", &files.HostOptions{MaxBytes: maxBytes})
			_, err := host.CallJSON(t.Context(), args(t, tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("host_file(%.60v) = %v, want %v", tt.in, err, tt.wantErr)
				}
			} else {
				verr, ok := errors.AsType[*tool.ValidationError](err)
				if !ok {
					t.Fatalf("host_file(%.60v) = %v, want a *tool.ValidationError", tt.in, err)
				}
				for _, is := range verr.Issues {
					if is.Path != tt.path {
						t.Errorf("host_file(%.60v) has an issue at %q (%v), want issues at %q only", tt.in, is.Path, is.Message, tt.path)
					}
				}
			}
			if objs, _ := bucket.List(nil).Next(t.Context()); objs != nil {
				t.Errorf("host_file(%.60v) wrote %q despite refusing", tt.in, objs.Key)
			}
		})
	}
}

// TestHostFileModelText checks what a model reads when host_file refuses.
func TestHostFileModelText(t *testing.T) {
	host := files.HostFile(newBucket(t), "https://files.example.com", &files.HostOptions{MaxBytes: 4})
	for _, tt := range []struct {
		args string
		want string
	}{
		{`{"key":"a/../b","content":"x"}`, "/key: must not contain a '..' segment"},
		{`{"key":"a.txt","content":"hello"}`, "the content is 5 bytes and the limit is 4"},
	} {
		res := tool.Run(t.Context(), host, tool.Call{Name: "host_file", Args: json.RawMessage(tt.args)})
		if !res.IsError || !strings.Contains(res.Content, tt.want) {
			t.Errorf("Run(%s) = %+v, want an error result saying %q", tt.args, res, tt.want)
		}
	}
}

// TestHostFileCall checks the Go path: Call applies the same checks.
func TestHostFileCall(t *testing.T) {
	host := files.HostFile(newBucket(t), "https://files.example.com", nil)
	_, err := host.Call(t.Context(), files.HostFileArgs{Key: "../x", Content: "x", ContentType: "text/plain"})
	if _, ok := errors.AsType[*tool.ValidationError](err); !ok {
		t.Errorf("Call(key ../x) = %v, want a *tool.ValidationError", err)
	}
	got, err := host.Call(t.Context(), files.HostFileArgs{Key: "ok.txt", Content: "x", ContentType: "text/plain"})
	if err != nil || got != "https://files.example.com/ok.txt" {
		t.Errorf("Call(key ok.txt) = %q, %v", got, err)
	}
}

// TestHostFileDefaultLimit checks that content of exactly the default limit
// fits the arguments' size limit and is hosted, and one byte more is
// refused as too large rather than as over-long arguments.
func TestHostFileDefaultLimit(t *testing.T) {
	bucket := newBucket(t)
	host := files.HostFile(bucket, "https://files.example.com", nil)
	content := strings.Repeat("a", files.DefaultHostMaxBytes)
	if _, err := host.CallJSON(t.Context(), args(t, map[string]string{"key": "big.txt", "content": content})); err != nil {
		t.Fatalf("host_file(%d bytes) = %v, want success", len(content), err)
	}
	_, err := host.CallJSON(t.Context(), args(t, map[string]string{"key": "bigger.txt", "content": content + "a"}))
	if !errors.Is(err, toolbox.ErrTooLarge) {
		t.Errorf("host_file(%d bytes) = %.200v, want ErrTooLarge", len(content)+1, err)
	}
}

func TestHostFileSpec(t *testing.T) {
	spec := files.HostFile(newBucket(t), "https://files.example.com", &files.HostOptions{Name: "r2_host_file"}).Spec()
	if spec.Name != "r2_host_file" {
		t.Errorf("Name = %q, want r2_host_file", spec.Name)
	}
	key := spec.InputSchema.Properties["key"]
	if key == nil || key.MaxLength == nil || *key.MaxLength != 1024 || key.MinLength == nil || *key.MinLength != 1 || key.Pattern == "" {
		t.Errorf("key schema = %+v, want minLength 1, maxLength 1024 and a pattern", key)
	}
	if ct := spec.InputSchema.Properties["contentType"]; ct == nil || string(ct.Default) != `"text/plain"` {
		t.Errorf("contentType schema = %+v, want default text/plain", ct)
	}
}

func TestHostFilePanics(t *testing.T) {
	bucket := newBucket(t)
	for _, tt := range []struct {
		name      string
		bucket    *blob.Bucket
		publicURL string
	}{
		{"nil bucket", nil, "https://files.example.com"},
		{"relative URL", bucket, "files.example.com"},
		{"no host", bucket, "https:///files"},
		{"ftp", bucket, "ftp://files.example.com"},
		{"file URL with a host", bucket, "file://server/share"},
		{"relative file URL", bucket, "file:data"},
		{"query", bucket, "https://files.example.com/?a=b"},
		{"fragment", bucket, "https://files.example.com/#x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("HostFile(%v, %q) did not panic", tt.bucket, tt.publicURL)
				}
			}()
			files.HostFile(tt.bucket, tt.publicURL, nil)
		})
	}
}

func TestHostFileProgress(t *testing.T) {
	host := files.HostFile(newBucket(t), "https://files.example.com", nil)
	var progress []any
	for ev := range host.Stream(context.Background(), tool.Call{Name: "host_file", Args: json.RawMessage(`{"key":"a.txt","content":"abc"}`)}) {
		if ev.Result == nil {
			progress = append(progress, ev.Progress)
		} else if ev.Result.IsError {
			t.Fatalf("result = %+v", ev.Result)
		}
	}
	if len(progress) != 1 || progress[0] != "uploading 3 bytes to a.txt" {
		t.Errorf("progress = %q, want one upload event", progress)
	}
}
