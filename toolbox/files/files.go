package files

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hands-go/hands/internal/mediatype"
	"github.com/hands-go/hands/toolbox"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// A store is a bucket as host_file, Hoster and Server use it: through this
// package's own file operations when fileblob opened it on a directory
// (see dir), and through the bucket otherwise.
type store struct {
	bucket *blob.Bucket
	mu     sync.Mutex
	dir    *dir // the bucket's directory, once found
}

// directory returns the bucket's directory, or nil if fileblob did not
// open it.
func (s *store) directory(ctx context.Context) (*dir, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != nil {
		return s.dir, nil
	}
	path, ok, err := bucketDir(ctx, s.bucket)
	if ok {
		s.dir = &dir{path: path}
	}
	return s.dir, err
}

// BucketDir returns the directory of a bucket that fileblob opened (a
// file:// URL), and whether fileblob opened it: a program that keeps files
// of its own on the same machine checks with it that none of them lies in
// the directory, whose files host_file overwrites and Server serves.
// It reports an error only when the bucket is a directory whose path
// cannot be found, or ctx is done.
func BucketDir(ctx context.Context, b *blob.Bucket) (string, bool, error) {
	return bucketDir(ctx, b)
}

// bucketDir returns the directory of a bucket that fileblob opened, and
// whether it did. fileblob tells a directory's os.FileInfo (Bucket.As) but
// not its path, so the path is read from the error of a key that does not
// exist — an *os.PathError, as fileblob's documentation says — and checked
// against that FileInfo.
func bucketDir(ctx context.Context, b *blob.Bucket) (string, bool, error) {
	var info os.FileInfo
	if !b.As(&info) {
		return "", false, nil
	}
	probe := ".hands-probe-" + rand.Text()
	_, err := b.Attributes(ctx, probe)
	var perr *os.PathError
	if err != nil && b.ErrorAs(err, &perr) {
		if d, ok := strings.CutSuffix(perr.Path, string(filepath.Separator)+probe); ok && filepath.IsAbs(d) {
			if fi, err := os.Stat(d); err == nil && os.SameFile(fi, info) {
				return d, true, nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	return "", false, errors.New("cannot find the bucket's directory")
}

// write stores content under key, with its content type.
func (s *store) write(ctx context.Context, key string, content []byte, contentType string) error {
	d, err := s.directory(ctx)
	if err != nil {
		return err
	}
	if d != nil {
		return d.write(key, content, contentType)
	}
	return s.bucket.WriteAll(ctx, key, content, &blob.WriterOptions{ContentType: contentType})
}

// Server returns a handler that serves the objects of bucket,
// read-only: the request's URL path, after any prefix the handler is
// mounted under is stripped (see http.StripPrefix), is the key.
//
//	mux.Handle("/files/", http.StripPrefix("/files/", files.Server(bucket)))
//
// It answers GET and HEAD with the object's content type, adding
// "charset=utf-8" to a text type that names no charset (host_file stores
// text as UTF-8), with X-Content-Type-Options: nosniff, and with
// Content-Security-Policy: sandbox, so that a hosted page runs no script
// with the server's origin. It serves only keys host_file accepts: a
// metadata sidecar (a name ending in ".attrs"), a folder, a path with '..'
// or empty segments are not found (404). For a bucket that fileblob opened
// on a directory, it reads the directory as host_file writes it (see the
// package documentation) and serves no symbolic link (403). Its answers
// name no path of the machine.
//
// Server panics if bucket is nil.
func Server(bucket *blob.Bucket) http.Handler {
	if bucket == nil {
		panic("files.Server: bucket is nil")
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
	case errors.Is(err, toolbox.ErrSymlink):
		http.Error(w, "not served: the file is a symbolic link", http.StatusForbidden)
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
	d, err := s.directory(ctx)
	if err != nil {
		return nil, "", 0, err
	}
	if d != nil {
		f, contentType, err := d.read(key)
		if err != nil {
			return nil, "", 0, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, "", 0, err
		}
		return f, contentType, fi.Size(), nil
	}
	rd, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, "", 0, fs.ErrNotExist
	}
	if err != nil {
		return nil, "", 0, err
	}
	return rd, rd.ContentType(), rd.Size(), nil
}

// utf8Type returns a content type for UTF-8 content: a text type with its
// charset set to utf-8, whatever it said, and any other type as it is.
func utf8Type(contentType string) string {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil || !mediatype.IsText(media) {
		return contentType
	}
	params["charset"] = "utf-8"
	return cmp.Or(mime.FormatMediaType(media, params), contentType)
}

// withCharset returns a content type to serve: a text type that names no
// charset gets charset=utf-8, and any other type is as it is.
func withCharset(contentType string) string {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil || !mediatype.IsText(media) || params["charset"] != "" {
		return contentType
	}
	params["charset"] = "utf-8"
	return cmp.Or(mime.FormatMediaType(media, params), contentType)
}
