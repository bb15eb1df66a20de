package toolbox

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// attrsExt is the suffix of fileblob's metadata files.
const attrsExt = ".attrs"

// A store is a bucket as host_file and FileServer use it.
type store struct {
	bucket *blob.Bucket
}

// write stores content under key, with its content type.
func (s *store) write(ctx context.Context, key string, content []byte, contentType string) error {
	return s.bucket.WriteAll(ctx, key, content, &blob.WriterOptions{ContentType: contentType})
}

// FileServer returns a handler that serves the objects of bucket,
// read-only: the request's URL path, after any prefix the handler is
// mounted under is stripped (see http.StripPrefix), is the key.
//
//	mux.Handle("/files/", http.StripPrefix("/files/", toolbox.FileServer(bucket)))
//
// It answers GET and HEAD with the object's content type, adding
// "charset=utf-8" to a text type that names no charset (host_file stores
// text as UTF-8), with X-Content-Type-Options: nosniff, and with
// Content-Security-Policy: sandbox, so that a hosted page runs no script
// with the server's origin. It serves only keys host_file accepts: a
// metadata sidecar (a name ending in ".attrs"), a folder, a path with '..'
// or empty segments are not found (404). Its answers name no path of the
// machine.
//
// FileServer panics if bucket is nil.
func FileServer(bucket *blob.Bucket) http.Handler {
	if bucket == nil {
		panic("toolbox.FileServer: bucket is nil")
	}
	return &store{bucket: bucket}
}

// ServeHTTP serves the object at the request's path.
func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	key := r.URL.Path
	if checkKey(key) != "" {
		http.NotFound(w, r)
		return
	}
	body, contentType, size, err := s.open(r.Context(), key)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		http.NotFound(w, r)
		return
	case err != nil:
		http.Error(w, "cannot read the file", http.StatusInternalServerError)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", withCharset(contentType))
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	if r.Method == http.MethodHead {
		return
	}
	io.Copy(w, body)
}

// open opens the object at key, and returns its content type and size. A
// missing object is fs.ErrNotExist.
func (s *store) open(ctx context.Context, key string) (io.ReadCloser, string, int64, error) {
	rd, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, "", 0, fs.ErrNotExist
	}
	if err != nil {
		return nil, "", 0, err
	}
	return rd, rd.ContentType(), rd.Size(), nil
}

// isText reports whether a media type is text, whose charset its
// Content-Type should declare.
func isText(media string) bool {
	switch classify(media) {
	case textContent, htmlContent:
		return true
	}
	return strings.HasSuffix(media, "+xml") || strings.HasSuffix(media, "+json")
}

// utf8Type returns a content type for UTF-8 content: a text type with its
// charset set to utf-8, whatever it said, and any other type as it is.
func utf8Type(contentType string) string {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil || !isText(media) {
		return contentType
	}
	params["charset"] = "utf-8"
	return cmp.Or(mime.FormatMediaType(media, params), contentType)
}

// withCharset returns a content type to serve: a text type that names no
// charset gets charset=utf-8, and any other type is as it is.
func withCharset(contentType string) string {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil || !isText(media) || params["charset"] != "" {
		return contentType
	}
	params["charset"] = "utf-8"
	return cmp.Or(mime.FormatMediaType(media, params), contentType)
}
