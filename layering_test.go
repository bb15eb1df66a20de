package hands_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowedInCore are the only modules the core packages may depend on,
// besides the standard library and this module.
var allowedInCore = map[string]bool{
	"github.com/google/jsonschema-go":    true,
	"github.com/go-json-experiment/json": true,
}

const module = "github.com/hands-go/hands"

// deps returns the packages outside the standard library that pkgs depend
// on, themselves included.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	list := strings.Fields(string(out))
	if len(list) == 0 {
		t.Fatal("go list returned no packages")
	}
	return list
}

// TestLayering keeps heavy dependencies out of the core packages: importing
// tool, schema, dialect, agent, toolsearch or claims must never pull in an
// SDK, a cloud client, x/text or OpenTelemetry (which lives in otelhands).
func TestLayering(t *testing.T) {
	core := map[string]bool{"tool": true, "schema": true, "dialect": true, "agent": true, "toolsearch": true, "claims": true}
	for _, pkg := range deps(t, "./tool", "./schema", "./dialect", "./agent", "./toolsearch", "./claims") {
		if pkg == module || strings.HasPrefix(pkg, module+"/") {
			if rest := strings.TrimPrefix(pkg, module+"/"); !core[rest] && !strings.HasPrefix(rest, "internal/") {
				t.Errorf("core package depends on %s, which sits above it", pkg)
			}
			continue
		}
		if strings.HasPrefix(pkg, "go.opentelemetry.io/") {
			t.Errorf("core package depends on %s: OpenTelemetry belongs in otelhands", pkg)
			continue
		}
		if !allowedInCore[modulePath(pkg)] {
			t.Errorf("core package depends on %s", pkg)
		}
	}
}

// TestDialectLayering keeps package dialect to the standard library and
// jsonschema-go, so that it can be read, copied and extended alone.
func TestDialectLayering(t *testing.T) {
	for _, pkg := range deps(t, "./dialect") {
		if pkg != module+"/dialect" && modulePath(pkg) != "github.com/google/jsonschema-go" {
			t.Errorf("dialect depends on %s", pkg)
		}
	}
}

// TestCompatLayering keeps package compat to the standard library,
// jsonschema-go and internal/jsondepth (itself the standard library
// alone), so that a CI job or another program can use it alone.
func TestCompatLayering(t *testing.T) {
	for _, pkg := range deps(t, "./compat") {
		if pkg != module+"/compat" && pkg != module+"/internal/jsondepth" && modulePath(pkg) != "github.com/google/jsonschema-go" {
			t.Errorf("compat depends on %s", pkg)
		}
	}
}

// modulePath returns the module of a package path among the allowed ones, or
// the package path itself.
func modulePath(pkg string) string {
	for m := range allowedInCore {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return m
		}
	}
	return pkg
}

// databaseDrivers are the clients of databases and stores, which only the
// driver packages (sqldb/sqlitedb, sqldb/pgdb, kv/sqlitekv, kv/rediskv)
// import.
var databaseDrivers = []string{"github.com/jackc/pgx", "github.com/ncruces/go-sqlite3", "github.com/redis/go-redis", "modernc.org/sqlite"}

// TestEdgeLayering keeps the edge packages on the APIs they build on, not
// on the implementations beside them: a client of MCP servers needs no
// server, instrumentation (and the trace context that mcpclient and
// mcpserver carry across a hop) needs the OpenTelemetry API, never its SDK
// or an exporter, which the program that sets up telemetry chooses, and the
// portable resource packages link no database driver, so that a program
// links only the drivers it imports.
func TestEdgeLayering(t *testing.T) {
	for _, tt := range []struct {
		pkg       string
		forbidden []string // package path prefixes
	}{
		{"./mcpclient", []string{module + "/mcpserver", "go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters"}},
		{"./mcpserver", []string{module + "/mcpclient", "go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters"}},
		{"./dynamic", []string{module + "/mcpserver", module + "/mcpclient"}},
		{"./otelhands", []string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters", "google.golang.org/grpc", module + "/mcpserver", module + "/mcpclient"}},
		{"./provider/...", []string{module + "/mcpserver", module + "/mcpclient", module + "/otelhands", "go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters"}},
		{"./toolbox/...", append([]string{module + "/mcpserver", module + "/mcpclient", module + "/agent", module + "/provider"}, databaseDrivers...)},
		{"./tooltest", []string{module + "/mcpserver", module + "/mcpclient", module + "/agent", "go.opentelemetry.io/"}},
		{"./sqldb", databaseDrivers},
		{"./kv", databaseDrivers},
		{"./resultstore", databaseDrivers},
		{"./bind", databaseDrivers},
		{"./tool", databaseDrivers},
		{"./agent", databaseDrivers},
	} {
		for _, dep := range deps(t, tt.pkg) {
			for _, f := range tt.forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", tt.pkg, dep)
				}
			}
		}
	}
}

// TestTaskstoreLayering keeps package taskstore and its conformance kit to
// the standard library, so that a backend for any database builds on them
// without the MCP SDK.
func TestTaskstoreLayering(t *testing.T) {
	for _, pkg := range deps(t, "./taskstore", "./taskstore/taskstoretest") {
		if pkg != module+"/taskstore" && pkg != module+"/taskstore/taskstoretest" {
			t.Errorf("taskstore depends on %s", pkg)
		}
	}
}

// TestToolboxWeight keeps each package of toolbox to what its own tools
// need, so that a program links only the tools it uses: the KV tools
// bring no HTML converter, bucket or SQL, the SQL tools no HTML converter,
// bucket or KV store, fetch_markdown no bucket, database or KV store, and
// host_file no HTML converter or parser, database or KV store. Package toolbox
// itself, which they all import, is the standard library alone.
func TestToolboxWeight(t *testing.T) {
	const (
		markdown = "github.com/JohannesKaufmann/html-to-markdown"
		xnet     = "golang.org/x/net"
		gocloud  = "gocloud.dev"
		sqldb    = module + "/sqldb"
		kv       = module + "/kv"
		netguard = module + "/toolbox/netguard"
		files    = module + "/toolbox/files"
		web      = module + "/toolbox/web"
		sqltool  = module + "/toolbox/sqltool"
		kvtool   = module + "/toolbox/kvtool"
	)
	for _, dep := range deps(t, "./toolbox") {
		if dep != module+"/toolbox" {
			t.Errorf("toolbox depends on %s: it holds what the tools share, in the standard library alone", dep)
		}
	}
	for _, tt := range []struct {
		pkg       string
		forbidden []string // package path prefixes
	}{
		{"./toolbox/kvtool", append([]string{markdown, xnet, gocloud, sqldb, netguard, files, web, sqltool}, databaseDrivers...)},
		{"./toolbox/sqltool", append([]string{markdown, xnet, gocloud, kv, netguard, files, web, kvtool}, databaseDrivers...)},
		{"./toolbox/web", append([]string{gocloud, sqldb, kv, files, sqltool, kvtool}, databaseDrivers...)},
		{"./toolbox/files", append([]string{markdown, xnet + "/html", sqldb, kv, netguard, web, sqltool, kvtool}, databaseDrivers...)},
	} {
		for _, dep := range deps(t, tt.pkg) {
			for _, f := range tt.forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", tt.pkg, dep)
				}
			}
		}
	}
}

// internalUpward are the only imports a package under the top-level
// internal/ may make of a hands package outside internal/, each with the
// reason it still imports downward.
var internalUpward = map[string]string{
	// taskstore is the standard library alone (TestTaskstoreLayering);
	// mcptask, the tasks extension's wire, carries its Status and is
	// imported by mcpserver and mcpclient, which both sit above it.
	module + "/internal/mcptask " + module + "/taskstore": "taskstore's Status on the wire",
}

// TestInternalLayering keeps the helpers under internal/ at the bottom: they
// import the standard library, modules outside hands and one another, never
// a hands package above them, so that any package may use them without a
// cycle waiting to happen. A program or helper that needs a package above
// (a conformance client, say) lives under that package's own internal/.
// An external test package (package x_test) is not counted: it is built
// alone, above what it tests.
func TestInternalLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}}`, "./internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list listed %d packages under internal/, want the dozens there are", len(lines))
	}
	for _, line := range lines {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module+"/") || strings.HasPrefix(imp, module+"/internal/") {
				continue
			}
			if _, ok := internalUpward[f[0]+" "+imp]; !ok {
				t.Errorf("%s imports %s, which sits above internal/", f[0], imp)
			}
		}
	}
}

// TestDesignArchitecture keeps the architecture drawn in docs/DESIGN.md
// true: each row of the table names packages, and a package imports only
// packages of its own row or of rows below it. A row names a package
// ("agent/"), several ("sqldb/sqlitedb, /pgdb"; "internal/pgtest,
// redistest"), or the packages under a directory that is no package
// ("provider/internal/") or that no other row names ("provider/…").
func TestDesignArchitecture(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Architecture\n\n```\n")
	if !ok {
		t.Fatal("DESIGN.md has no architecture table")
	}
	table, _, _ = strings.Cut(table, "```")
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		p, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue
		}
		imports[p] = nil
		for _, imp := range f[1:] {
			if d, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports[p] = append(imports[p], d)
			}
		}
	}
	// rows holds, by row, the packages it names exactly and the
	// directories whose packages it holds.
	type row struct{ names, dirs []string }
	var rows []row
	for line := range strings.Lines(table) {
		if line == "" || line[0] == ' ' || line[0] == '\n' {
			continue
		}
		f := strings.Fields(line)
		var r row
		first := ""
		for i, name := range f {
			if i > 0 && !strings.HasSuffix(f[i-1], ",") {
				break
			}
			name = strings.TrimSuffix(name, ",")
			if i == 0 {
				first = name
			} else if dir := path.Dir(strings.TrimSuffix(first, "/")); strings.HasPrefix(name, "/") {
				name = dir + name
			} else if dir != "." {
				name = dir + "/" + name
			}
			if d, ok := strings.CutSuffix(name, "…"); ok {
				r.dirs = append(r.dirs, d)
				continue
			}
			name = strings.TrimSuffix(name, "/")
			if _, ok := imports[name]; ok {
				r.names = append(r.names, name)
			} else {
				r.dirs = append(r.dirs, name+"/")
			}
		}
		rows = append(rows, r)
	}
	if len(rows) < 30 {
		t.Fatalf("read %d rows from DESIGN.md's architecture table, want the 30 and more it has", len(rows))
	}
	// rowOf returns the row that names p, else the row of the longest
	// directory that holds it, else -1.
	rowOf := func(p string) int {
		best, bestLen := -1, 0
		for i, r := range rows {
			if slices.Contains(r.names, p) {
				return i
			}
			for _, d := range r.dirs {
				if strings.HasPrefix(p, d) && len(d) > bestLen {
					best, bestLen = i, len(d)
				}
			}
		}
		return best
	}
	named := 0
	for p, deps := range imports {
		i := rowOf(p)
		if i < 0 {
			continue
		}
		named++
		for _, d := range deps {
			if j := rowOf(d); j >= 0 && j < i {
				t.Errorf("DESIGN.md's architecture lists %s above %s, which imports it", d, p)
			}
		}
	}
	if named < 40 {
		t.Errorf("the architecture table places %d packages, want the 40 and more it names", named)
	}
}
