// Package catalogue holds the tool lists of real MCP servers, as those
// servers send them, for tests that must hold at the scale and with the
// variety of the tools people serve.
//
// Each server's list was recorded by the command in ./capture, which starts
// the server over stdio and keeps every tool object exactly as the server
// wrote it in its answers to tools/list: the order of its keys and
// properties, empty schemas ({}), keywords MCP does not define and patterns
// in the server's own regular-expression dialect. The files live in
// testdata, one a server, with a MANIFEST listing each server's package,
// version, tool count and date of capture.
//
// # Use
//
//	servers, err := catalogue.Load()
//	for _, s := range servers {
//		for _, tool := range s.Tools { // json.RawMessage, as sent
//			...
//		}
//	}
//
// The data is embedded, so any package's tests can load it.
package catalogue

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

//go:embed testdata/*.json testdata/MANIFEST
var files embed.FS

// A Server is one MCP server's recorded tool list.
type Server struct {
	Name     string `json:"name"`     // a short name, unique in the catalogue, such as "filesystem"
	Package  string `json:"package"`  // the package the server comes from, such as "@modelcontextprotocol/server-filesystem"
	Version  string `json:"version"`  // the package's version
	Started  string `json:"started"`  // how the server was started for the capture
	Captured string `json:"captured"` // the date of the capture, as YYYY-MM-DD

	// Tools are the tool objects of the server's tools/list results, in
	// the order listed, each exactly as the server wrote it.
	Tools []json.RawMessage `json:"tools"`
}

// Load returns every server of the catalogue, sorted by name.
func Load() ([]Server, error) {
	return load(files, "testdata")
}

// LoadDir returns every server whose file is in dir, sorted by name: the
// catalogue as it is on disk, which the capture command rewrites.
func LoadDir(dir string) ([]Server, error) {
	return load(os.DirFS(dir), ".")
}

func load(fsys fs.FS, dir string) ([]Server, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var servers []Server
	for _, name := range names {
		s, err := read(fsys, name)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	slices.SortFunc(servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return servers, nil
}

func read(fsys fs.FS, name string) (Server, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Server{}, err
	}
	var f Server
	if err := json.Unmarshal(b, &f); err != nil {
		return Server{}, fmt.Errorf("catalogue: %s: %w", name, err)
	}
	if want := strings.TrimSuffix(filepath.Base(name), ".json"); f.Name != want {
		return Server{}, fmt.Errorf("catalogue: %s names server %q, not %q", name, f.Name, want)
	}
	return f, nil
}

// An Entry is one line of the MANIFEST.
type Entry struct {
	Name     string // the server's name, as in [Server.Name]
	Source   string // package@version
	Tools    int    // how many tools the server listed
	Captured string // the date of the capture, as YYYY-MM-DD
}

// Manifest returns the entries of the catalogue's MANIFEST, in its order
// (sorted by name).
func Manifest() ([]Entry, error) {
	b, err := files.ReadFile("testdata/MANIFEST")
	if err != nil {
		return nil, err
	}
	return parseManifest(b)
}

func parseManifest(b []byte) ([]Entry, error) {
	var entries []Entry
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("catalogue: MANIFEST line %d: %d fields, want 4 (name, source, tools, captured)", i+1, len(f))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("catalogue: MANIFEST line %d: tool count: %w", i+1, err)
		}
		entries = append(entries, Entry{Name: f[0], Source: f[1], Tools: n, Captured: f[3]})
	}
	return entries, nil
}
