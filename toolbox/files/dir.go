package files

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"

	"github.com/hands-go/hands/toolbox"
)

// A dir is the directory of a bucket that fileblob opened (a file://
// URL), which this package reads and writes itself, in fileblob's layout:
// see "Directory buckets" in the package documentation for what it does
// differently and why. Every file operation goes through an os.Root of the
// directory.
type dir struct {
	path string // absolute
}

// attrsExt is the suffix of fileblob's metadata sidecars.
const attrsExt = ".attrs"

// sidecar is the part of fileblob's sidecar format (gocloud.dev/blob/fileblob,
// attrs.go) that this package writes and reads.
type sidecar struct {
	ContentType string `json:"user.content_type"`
	MD5         []byte `json:"md5"`
}

// defaultContentType is what fileblob reports for a file without a
// sidecar.
const defaultContentType = "application/octet-stream"

// keyLocks holds a lock for each key being written or read, by the
// directory and the key.
var keyLocks struct {
	sync.Mutex
	m map[string]*keyLock
}

type keyLock struct {
	sync.RWMutex
	users int
}

// lock locks key for writing, or for reading if shared, and returns the
// function that unlocks it.
func (d *dir) lock(key string, shared bool) (unlock func()) {
	name := d.path + "\x00" + key
	keyLocks.Lock()
	if keyLocks.m == nil {
		keyLocks.m = make(map[string]*keyLock)
	}
	l := keyLocks.m[name]
	if l == nil {
		l = &keyLock{}
		keyLocks.m[name] = l
	}
	l.users++
	keyLocks.Unlock()
	if shared {
		l.RLock()
	} else {
		l.Lock()
	}
	return func() {
		if shared {
			l.RUnlock()
		} else {
			l.Unlock()
		}
		keyLocks.Lock()
		if l.users--; l.users == 0 {
			delete(keyLocks.m, name)
		}
		keyLocks.Unlock()
	}
}

// open opens the root of the directory, creating the directory if it is
// missing, as fileblob does on each write.
func (d *dir) open() (*os.Root, error) {
	root, err := os.OpenRoot(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(d.path, 0o777); err != nil {
			return nil, pathless(err, "create the bucket's directory")
		}
		root, err = os.OpenRoot(d.path)
	}
	if err != nil {
		return nil, pathless(err, "open the bucket's directory")
	}
	return root, nil
}

// write stores body under key, with its content type.
func (d *dir) write(key string, body []byte, contentType string) error {
	root, err := d.open()
	if err != nil {
		return err
	}
	defer root.Close()
	folder := path.Dir(key)
	if folder != "." {
		if err := makeFolders(root, folder); err != nil {
			return err
		}
	}
	switch fi, err := root.Lstat(key); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return symlinkError(key)
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a folder that holds other files; choose another key", key)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return pathless(err, "look at "+key)
	}
	sum := md5.Sum(body)
	meta, err := json.Marshal(sidecar{ContentType: contentType, MD5: sum[:]})
	if err != nil {
		return err
	}
	bodyTemp, err := writeTemp(root, folder, body, "store "+key)
	if err != nil {
		return err
	}
	defer root.Remove(bodyTemp) // gone once renamed
	metaTemp, err := writeTemp(root, folder, meta, "store the content type of "+key)
	if err != nil {
		return err
	}
	defer root.Remove(metaTemp)

	unlock := d.lock(key, false)
	defer unlock()
	if err := root.Rename(metaTemp, key+attrsExt); err != nil {
		return pathless(err, "store the content type of "+key)
	}
	if err := root.Rename(bodyTemp, key); err != nil {
		return pathless(err, "store "+key)
	}
	return nil
}

// makeFolders makes the folders of folder, a key's folder, that are
// missing, and checks that those that exist are folders, not links.
func makeFolders(root *os.Root, folder string) error {
	for i := range len(folder) + 1 {
		if i == len(folder) || folder[i] == '/' {
			if err := makeFolder(root, folder[:i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeFolder makes the folder p if it is missing, and checks that it is a
// folder, not a link.
func makeFolder(root *os.Root, p string) error {
	fi, err := root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if err = root.Mkdir(p, 0o777); err == nil {
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return pathless(err, "make the folder "+p)
		}
		fi, err = root.Lstat(p) // made by another writer meanwhile
	}
	switch {
	case err != nil:
		return pathless(err, "look at "+p)
	case fi.Mode()&fs.ModeSymlink != 0:
		return symlinkError(p)
	case !fi.IsDir():
		return fmt.Errorf("%s is a file, so it cannot hold other files; choose another key", p)
	}
	return nil
}

// writeTemp writes data to a new file in folder and returns its name,
// ".hands-RANDOM.tmp". The caller removes it if it does not rename it; only
// a crash leaves one behind. doing says what the file is for, in an error.
func writeTemp(root *os.Root, folder string, data []byte, doing string) (string, error) {
	name := path.Join(folder, ".hands-"+rand.Text()+".tmp")
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", pathless(err, doing)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(name)
		return "", pathless(err, doing)
	}
	return name, nil
}

// read opens the file of key and reads its content type. The caller
// closes the file. It reports a missing key, a folder, or anything but a
// regular file as fs.ErrNotExist, and a key that is a link or lies below
// one as toolbox.ErrSymlink.
func (d *dir) read(key string) (*os.File, string, error) {
	root, err := d.open()
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	unlock := d.lock(key, true)
	defer unlock()
	f, err := root.Open(key)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, "", fs.ErrNotExist
		}
		if linkOnPath(root, key) != nil {
			return nil, "", symlinkError(key) // a link that leads out of the directory
		}
		return nil, "", pathless(err, "open "+key)
	}
	opened, err := f.Stat()
	if err == nil && !opened.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err == nil {
		err = linkOnPath(root, key)
	}
	if err == nil {
		// The file opened is the one at the key now, not one a link led to
		// before it was replaced.
		if fi, lerr := root.Lstat(key); lerr != nil || !os.SameFile(fi, opened) {
			err = symlinkError(key)
		}
	}
	if err != nil {
		f.Close()
		return nil, "", err
	}
	contentType := defaultContentType
	if fi, err := root.Lstat(key + attrsExt); err == nil && fi.Mode().IsRegular() {
		data, err := root.ReadFile(key + attrsExt)
		var meta sidecar
		if err == nil {
			err = json.Unmarshal(data, &meta)
		}
		if err != nil {
			f.Close()
			return nil, "", pathless(err, "read the content type of "+key)
		}
		contentType = meta.ContentType
	}
	return f, contentType, nil
}

// linkOnPath returns a toolbox.ErrSymlink error if key, or a folder above it, is
// a symbolic link.
func linkOnPath(root *os.Root, key string) error {
	for i := range len(key) + 1 {
		if i < len(key) && key[i] != '/' {
			continue
		}
		if fi, err := root.Lstat(key[:i]); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return symlinkError(key[:i])
		}
	}
	return nil
}

// symlinkError reports a symbolic link at p, a key or one of its folders.
func symlinkError(p string) error {
	return fmt.Errorf("%w: %s is a symbolic link in the bucket's directory; choose another key", toolbox.ErrSymlink, p)
}

// A pathlessError is a file system error told without the path it
// carries: the text is what was being done and why it failed, such as
// "store notes.txt: no space left on device". It unwraps to the original
// error, path and all, for the program.
type pathlessError struct {
	doing string
	err   error
}

// Error says what was being done and the reason, without a path.
func (e *pathlessError) Error() string {
	reason := e.err
	var perr *fs.PathError
	var lerr *os.LinkError
	var serr *os.SyscallError
	switch {
	case errors.As(e.err, &perr):
		reason = perr.Err
	case errors.As(e.err, &lerr):
		reason = lerr.Err
	case errors.As(e.err, &serr):
		reason = serr.Err
	}
	return e.doing + ": " + reason.Error()
}

// Unwrap returns the error with its path.
func (e *pathlessError) Unwrap() error { return e.err }

// pathless wraps a file system error as a pathlessError.
func pathless(err error, doing string) error {
	return &pathlessError{doing: doing, err: err}
}
