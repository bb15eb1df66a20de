//go:build unix

package files_test

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// TestHostFileTempDirElsewhere checks that host_file writes to a directory
// bucket opened with fileblob's defaults when $TMPDIR is on another file
// system, where fileblob's temporary files cannot be renamed into the
// bucket.
func TestHostFileTempDirElsewhere(t *testing.T) {
	dir := t.TempDir()
	other := otherFileSystem(t, dir)
	t.Setenv("TMPDIR", other)
	bucket := dirBucket(t, dir)
	if err := host(t, bucket, "notes/a.txt", "hello"); err != nil {
		t.Fatalf("host_file with TMPDIR on another file system = %v", err)
	}
	if data, err := os.ReadFile(dir + "/notes/a.txt"); err != nil || string(data) != "hello" {
		t.Errorf("the bucket holds %q, %v; want hello", data, err)
	}
}

// otherFileSystem returns a new directory on a file system other than
// dir's, or skips the test if there is none to be had.
func otherFileSystem(t *testing.T, dir string) string {
	t.Helper()
	device := func(path string) (uint64, bool) {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		return uint64(st.Dev), ok
	}
	here, ok := device(dir)
	if !ok {
		t.Skip("cannot tell file systems apart here")
	}
	for _, cand := range []string{"/dev/shm", "/run/user/" + strconv.Itoa(os.Getuid()), "/var/tmp", "/tmp"} {
		if dev, ok := device(cand); !ok || dev == here {
			continue
		}
		other, err := os.MkdirTemp(cand, "hands-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(other) })
		return other
	}
	t.Skip("no file system other than the test's temporary directory's to put TMPDIR on (tried /dev/shm, /run/user, /var/tmp, /tmp)")
	return ""
}
