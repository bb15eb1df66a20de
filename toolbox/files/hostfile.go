package files

import (
	"cmp"
	"context"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/bytesize"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"gocloud.dev/blob"
)

// DefaultHostMaxBytes is the default size limit of a hosted file: 10 MiB.
const DefaultHostMaxBytes = 10 << 20

// maxKeyBytes is the longest key, in bytes, that S3 and R2 accept.
const maxKeyBytes = 1024

// HostOptions configure the tool made by HostFile. The zero value selects
// every default.
type HostOptions struct {
	// Name is the tool's name. If empty, it is "host_file".
	Name string
	// Description tells the model what the tool does. If empty, a
	// description of uploading a file and getting its public URL is used.
	Description string
	// MaxBytes is the largest content, in bytes, the tool uploads. If zero
	// or less, DefaultHostMaxBytes. The tool accepts JSON arguments of up to
	// twice MaxBytes plus 64 KiB, room for the escapes of any content within
	// the limit.
	MaxBytes int
	// MaxBytesSetting names, in a refusal the model reads, what an operator
	// sets to raise MaxBytes, such as an environment variable of the
	// program. If empty, the refusal names none.
	MaxBytesSetting string
}

// HostFileArgs is the input of host_file: what to write, and where.
type HostFileArgs struct {
	// Key is the object's path in the bucket, such as "reports/q1.html".
	Key string `json:"key" jsonschema:"where to store the file: a relative path of segments separated by '/', such as reports/q1.html; no leading '/', no '.' or '..' or empty segments, no backslashes or control characters" tool:"minLength=1,maxLength=1024,pattern=^[^/\\\\\\x00-\\x1f\\x7f-\\x9f][^\\\\\\x00-\\x1f\\x7f-\\x9f]*$"`
	// Content is the file's body, stored as UTF-8.
	Content string `json:"content" jsonschema:"the file's body, as UTF-8 text"`
	// ContentType is the MIME type the file is served with.
	ContentType string `json:"contentType" jsonschema:"the MIME type the file is served with, such as text/html or application/json" tool:"minLength=1,default=text/plain"`
}

// Validate checks what the schema cannot say: the key's segments and byte
// length, and that the content type is a MIME type. It reports each
// failing field at its own path.
func (a *HostFileArgs) Validate() error {
	var issues []schema.Issue
	if msg := checkKey(a.Key); msg != "" {
		issues = append(issues, schema.Issue{Path: "/key", Keyword: "validate", Message: msg})
	}
	if msg := checkContentType(a.ContentType); msg != "" {
		issues = append(issues, schema.Issue{Path: "/contentType", Keyword: "validate", Message: msg})
	}
	if len(issues) > 0 {
		return &schema.Error{Issues: issues}
	}
	return nil
}

// checkKey returns what is wrong with an object key, or "".
func checkKey(key string) string {
	switch {
	case key == "":
		return "must not be empty; name the file, such as notes.txt"
	case len(key) > maxKeyBytes:
		return fmt.Sprintf("must be at most %d bytes, got %d; use a shorter name", maxKeyBytes, len(key))
	case !utf8.ValidString(key):
		return "must be valid UTF-8"
	case strings.HasPrefix(key, "/"):
		return "must be relative: drop the leading '/', as in reports/q1.html"
	case strings.Contains(key, `\`):
		return `must separate segments with '/', not '\'`
	case strings.ContainsFunc(key, unicode.IsControl):
		return "must not contain control characters such as newlines or tabs"
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch {
		case seg == "..":
			return "must not contain a '..' segment; name the file by its path from the top of the bucket"
		case seg == ".":
			return "must not contain a '.' segment"
		case seg == "":
			return "must not contain an empty segment ('//', or a '/' at the end)"
		case len(seg) >= len(attrsExt) && strings.EqualFold(seg[len(seg)-len(attrsExt):], attrsExt):
			return "must not end a name with .attrs, which is kept for the storage's metadata; choose another name"
		}
	}
	return ""
}

// checkContentType returns what is wrong with a content type, or "".
func checkContentType(ct string) string {
	if strings.TrimSpace(ct) == "" {
		return "must not be empty; use text/plain for plain text"
	}
	if _, _, err := mime.ParseMediaType(ct); err != nil {
		return "must be a MIME type such as text/plain, text/html or application/json"
	}
	return ""
}

// HostFile returns the host_file tool: it writes a file to bucket and
// returns the file's public URL, which is publicURL (the URL at which the
// bucket's objects are served, such as an R2 bucket's public domain) with
// the key appended, each segment escaped:
//
//	HostFile(bucket, "https://files.example.com", nil)
//	{"key":"reports/q1 summary.txt","content":"…"} → https://files.example.com/reports/q1%20summary.txt
//
// A file of the same key is replaced. The content is stored as UTF-8, and a
// text content type says so: text/plain is stored as text/plain;
// charset=utf-8, and any other charset it names is replaced. The tool
// refuses, with a message that says what to change, an empty key or
// content type, a key over 1024 bytes, a key with a leading '/', a '.',
// '..' or empty segment, a backslash or a control character, a name that
// ends in ".attrs" (the suffix of fileblob's metadata files), a content
// type that is not a MIME type, and content over HostOptions.MaxBytes
// (toolbox.ErrTooLarge). A bucket that fileblob opened on a directory is written as
// the package documentation describes under "Directory buckets"; there a
// key through a symbolic link is refused (toolbox.ErrSymlink). opts may be nil.
//
// HostFile panics if bucket is nil or publicURL is not an absolute http,
// https or file URL without a query or fragment. A file:///dir URL suits a
// local directory bucket that nothing serves over HTTP: the URL it returns
// opens the file on the same machine.
func HostFile(bucket *blob.Bucket, publicURL string, opts *HostOptions) *tool.Tool[HostFileArgs, string] {
	if opts == nil {
		opts = &HostOptions{}
	}
	h := newHoster("files.HostFile", bucket, publicURL, opts)
	name := cmp.Or(opts.Name, "host_file")
	description := cmp.Or(opts.Description,
		"Upload a file from the sandbox to public storage and get its public URL. "+
			"The key is the file's path in storage, such as reports/q1.html; a file with the same key is replaced.")
	return tool.New(name, description,
		func(ctx context.Context, a HostFileArgs) (string, error) {
			ct := utf8Type(strings.TrimSpace(a.ContentType))
			return h.host(ctx, a.Key, []byte(a.Content), ct, "; split it into smaller files")
		},
		tool.WithTitle("Host a file"),
		// It replaces a file with the same key, and the same call again
		// changes nothing more; it writes only to the bucket.
		tool.WithAnnotations(tool.Annotations{Destructive: true, Idempotent: true}),
		tool.WithLimits(tool.Limits{MaxBytes: 2*h.maxBytes + 64<<10}))
}

// Hoster returns a toolbox.HostFunc that stores files in bucket and
// returns their URLs under publicURL, as host_file does: with the same
// checks of the key and content type, the same size limit
// (opts.MaxBytes, named by opts.MaxBytesSetting in a refusal), and the
// same writes, which for a bucket that fileblob opened on a directory
// refuse a key through a symbolic link (toolbox.ErrSymlink). A tool that
// makes a file, such as a screenshot, takes it in its options:
//
//	host := files.Hoster(bucket, "https://files.example.com", nil)
//	u, err := host(ctx, "screenshots/home.png", png, "image/png")
//	// u is https://files.example.com/screenshots/home.png
//
// Unlike host_file, which stores text as UTF-8 and says so in its content
// type, it stores body and contentType as they are. opts.Name and
// opts.Description are not used; opts may be nil.
//
// Hoster panics if bucket is nil or publicURL is not a URL that HostFile
// takes.
func Hoster(bucket *blob.Bucket, publicURL string, opts *HostOptions) toolbox.HostFunc {
	if opts == nil {
		opts = &HostOptions{}
	}
	h := newHoster("files.Hoster", bucket, publicURL, opts)
	return func(ctx context.Context, key string, body []byte, contentType string) (string, error) {
		return h.host(ctx, key, body, strings.TrimSpace(contentType), "")
	}
}

// A hoster is the write path of host_file and Hoster.
type hoster struct {
	files           *store
	base            string // the public URL, without a final '/'
	maxBytes        int
	maxBytesSetting string
}

// newHoster checks the arguments of caller, HostFile or Hoster, and
// panics with caller's name if they are wrong.
func newHoster(caller string, bucket *blob.Bucket, publicURL string, opts *HostOptions) *hoster {
	if bucket == nil {
		panic(caller + ": bucket is nil")
	}
	u, err := url.Parse(publicURL)
	web := (u != nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "")
	local := (u != nil && u.Scheme == "file" && u.Host == "" && strings.HasPrefix(u.Path, "/"))
	if err != nil || !(web || local) || u.RawQuery != "" || u.Fragment != "" {
		panic(fmt.Sprintf("%s: publicURL %q must be an absolute http, https or file URL without a query or fragment", caller, publicURL))
	}
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultHostMaxBytes
	}
	return &hoster{
		files:           &store{bucket: bucket},
		base:            strings.TrimSuffix(publicURL, "/"),
		maxBytes:        maxBytes,
		maxBytesSetting: opts.MaxBytesSetting,
	}
}

// host stores body under key and returns its public URL. advice ends the
// refusal of a body over the limit.
func (h *hoster) host(ctx context.Context, key string, body []byte, contentType, advice string) (string, error) {
	if msg := checkKey(key); msg != "" {
		return "", fmt.Errorf("%w: the key %q %s", toolbox.ErrInvalidKey, key, msg)
	}
	if msg := checkContentType(contentType); msg != "" {
		return "", fmt.Errorf("%w: the content type %q %s", toolbox.ErrContentType, contentType, msg)
	}
	if len(body) > h.maxBytes {
		setting := ""
		if h.maxBytesSetting != "" {
			setting = ", which the operator sets with " + h.maxBytesSetting
		}
		return "", fmt.Errorf("%w: the content is %d bytes and the limit is %d (%s%s)%s",
			toolbox.ErrTooLarge, len(body), h.maxBytes, bytesize.Text(h.maxBytes), setting, advice)
	}
	tool.Progress(ctx, fmt.Sprintf("uploading %d bytes to %s", len(body), key))
	if err := h.files.write(ctx, key, body, contentType); err != nil {
		return "", &toolbox.OpError{Op: "upload " + key, Err: err}
	}
	return h.base + "/" + escapeKey(key), nil
}

// escapeKey escapes each segment of a key for a URL path and keeps the
// slashes between them.
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
