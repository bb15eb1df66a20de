package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// The -update flag is defined here unless the test binary already has one
// (its own, defined by a package initialised earlier); Updating reads
// whichever there is.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files and snapshots with the current output")
	}
}

// Updating reports whether the test binary runs with -update.
func Updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return f.Value.String() == "true"
	}
	on, _ := g.Get().(bool)
	return on
}

// Check compares got with the file at path. With -update it writes got to
// the file instead, creating its directory.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update accepts the new output)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// Write writes data to the file at path, creating its directory.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
