package files_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/toolbox"
	"github.com/hands-go/hands/toolbox/files"
)

// TestHoster checks that a Hoster stores bytes as they are, with their
// content type, and returns the URL host_file would, and that the file is
// served from there.
func TestHoster(t *testing.T) {
	bucket := dirBucket(t, t.TempDir())
	base := serveFiles(t, bucket)
	host := files.Hoster(bucket, strings.TrimSuffix(base, "/"), nil)
	png := []byte("\x89PNG\r\n\x1a\n\x00\xff")
	u, err := host(t.Context(), "shots/home page.png", png, " image/png ")
	if err != nil {
		t.Fatal(err)
	}
	if want := base + "shots/home%20page.png"; u != want {
		t.Errorf("URL = %q, want %q", u, want)
	}
	status, ct, body := get(t, u)
	if status != 200 || ct != "image/png" || body != string(png) {
		t.Errorf("GET %s = %d, %q, %q; want 200, image/png and the bytes as stored", u, status, ct, body)
	}
	// A text type keeps the charset it was given: the bytes are not
	// known to be UTF-8.
	if _, err := host(t.Context(), "page.txt", []byte("caf\xe9"), "text/plain; charset=iso-8859-1"); err != nil {
		t.Fatal(err)
	}
	if _, ct, _ := get(t, base+"page.txt"); ct != "text/plain; charset=iso-8859-1" {
		t.Errorf("Content-Type = %q, want the stored charset", ct)
	}
}

// TestHosterRefusals checks that a Hoster refuses what host_file refuses,
// each with its sentinel, and writes nothing.
func TestHosterRefusals(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	linked := os.Symlink(outside, filepath.Join(dir, "link")) == nil
	host := files.Hoster(dirBucket(t, dir), "https://files.example.com", &files.HostOptions{MaxBytes: 8, MaxBytesSetting: "FILES_MAX"})
	for _, tt := range []struct {
		key, contentType string
		body             string
		want             error
		says             string
	}{
		{"../x.png", "image/png", "x", toolbox.ErrInvalidKey, "'..'"},
		{"/x.png", "image/png", "x", toolbox.ErrInvalidKey, "relative"},
		{"x.attrs", "image/png", "x", toolbox.ErrInvalidKey, ".attrs"},
		{"", "image/png", "x", toolbox.ErrInvalidKey, "empty"},
		{"x.png", "not a type", "x", toolbox.ErrContentType, "MIME"},
		{"x.png", "image/png", "123456789", toolbox.ErrTooLarge, "FILES_MAX"},
		{"link/x.png", "image/png", "x", toolbox.ErrSymlink, "symbolic link"},
	} {
		if tt.want == toolbox.ErrSymlink && !linked {
			continue
		}
		u, err := host(t.Context(), tt.key, []byte(tt.body), tt.contentType)
		if !errors.Is(err, tt.want) || u != "" {
			t.Errorf("host(%q, %q) = %q, %v; want %v", tt.key, tt.contentType, u, err, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.says) {
			t.Errorf("host(%q, %q) = %v, want it to say %q", tt.key, tt.contentType, err, tt.says)
		}
		checkNoPaths(t, "host("+tt.key+")", err.Error(), dir, outside)
	}
	for _, d := range []string{dir, outside} {
		entries, _ := os.ReadDir(d)
		if n := len(entries); n > 1 || n == 1 && entries[0].Name() != "link" {
			t.Errorf("%s holds %d entries after refusals, want nothing written", d, n)
		}
	}
}

// TestHosterPanics checks that Hoster refuses the arguments HostFile
// refuses, naming itself.
func TestHosterPanics(t *testing.T) {
	for _, tt := range []struct {
		name      string
		publicURL string
		nilBucket bool
	}{
		{"nil bucket", "https://files.example.com", true},
		{"relative URL", "files", false},
		{"query", "https://files.example.com/?a=b", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "files.Hoster: ") {
					t.Errorf("panic = %v, want one that starts with files.Hoster: ", r)
				}
			}()
			bucket := newBucket(t)
			if tt.nilBucket {
				bucket = nil
			}
			files.Hoster(bucket, tt.publicURL, nil)
		})
	}
}
