package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// binaryBudget is the size in bytes of the binary a plain `go build
// ./cmd/hands` writes with go1.26.8 on linux/amd64, with its symbol table
// and DWARF. docs/PERFORMANCE.md ("The binary and its cold build") gives
// the figure and what each part of it costs; a change that moves the size
// by more than binaryMargin either way changes both, with its reason
// written there.
const binaryBudget = 113_008_998

// binaryMargin is how far, as a fraction of binaryBudget, the binary may
// move before TestBinarySize fails: a toolchain's patch release or a
// dependency's moves a few per cent, what is worth a reason moves more.
const binaryMargin = 0.10

// testOnlyModules are modules the repository needs only for its tests or
// for its other modules; the command may link none of them.
var testOnlyModules = []string{
	"go.temporal.io/", // durable, a module of its own
}

// TestBinarySize builds the command and fails when its size leaves the
// budget that docs/PERFORMANCE.md records.
func TestBinarySize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the budget is measured on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	bin := filepath.Join(t.TempDir(), "hands")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	size := info.Size()
	if off := float64(size-binaryBudget) / binaryBudget; off > binaryMargin || off < -binaryMargin {
		t.Errorf("hands is %d bytes, %+.1f%% from the budget of %d bytes (go1.26.8, linux/amd64) that docs/PERFORMANCE.md records in \"The binary and its cold build\"; this toolchain is %s. "+
			"Find what moved (go tool nm -size -sort size, go version -m, go build -ldflags=-dumpdep), then cut it, or write the new figure and its reason there and in binaryBudget",
			size, 100*off, binaryBudget, runtime.Version())
	}
}

// goListDeps returns the packages the command links, with go list's -f
// template applied to each, as separate lines.
func goListDeps(t *testing.T, format string, flags ...string) []string {
	t.Helper()
	args := append(append([]string{"list"}, flags...), "-deps", "-f", format, ".")
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// templateImporters are the packages that may import a template package,
// because hands never reaches their execution of it: html/template itself,
// and net/rpc (which Google's auth library imports for the Gemini SDK),
// whose template only the debug page of rpc.HandleHTTP executes.
// TestBinaryMethods checks the linker's view of it.
var templateImporters = map[string]bool{"html/template": true, "net/rpc": true}

// TestBinaryDeps keeps out of the command what only tests need, and
// template execution, which makes the linker keep every exported method
// of every type that reaches an interface: with it the binary is 23 MB
// larger (docs/PERFORMANCE.md, "The binary and its cold build").
func TestBinaryDeps(t *testing.T) {
	for _, line := range goListDeps(t, "{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}") {
		pkg, mod, _ := strings.Cut(line, " ")
		for _, p := range testOnlyModules {
			if strings.HasPrefix(mod, p) {
				t.Errorf("hands links %s, of %s, which only tests need", pkg, mod)
			}
		}
		if rest, ok := strings.CutPrefix(pkg, "github.com/hands-go/hands/"); ok && (strings.HasSuffix(rest, "test") || rest == "internal/golden") {
			t.Errorf("hands links %s, a package for tests", pkg)
		}
	}

	// gRPC, which gocloud.dev and the OTLP exporter import, imports
	// golang.org/x/net/trace, whose pages execute templates; its
	// grpcnotrace tag leaves it out. Nothing else may import a template
	// package, but for the importers whose template hands never executes.
	for _, tags := range []string{"", "grpcnotrace"} {
		for _, line := range goListDeps(t, "{{.ImportPath}}:{{range .Imports}} {{.}}{{end}}", "-tags="+tags) {
			pkg, imports, _ := strings.Cut(line, ":")
			if templateImporters[pkg] || tags == "" && pkg == "golang.org/x/net/trace" {
				continue
			}
			for imp := range strings.FieldsSeq(imports) {
				if imp == "text/template" || imp == "html/template" {
					t.Errorf("with -tags=%q, %s imports %s: executing a template costs hands about 23 MB; see docs/PERFORMANCE.md, \"The binary and its cold build\"", tags, pkg, imp)
				}
			}
		}
	}
}

// TestBinaryMethods builds the command with -tags grpcnotrace, as the
// README offers it, and fails if it can execute a template: the field
// lookup of text/template calls reflect.Value.MethodByName with a name the
// linker cannot see, after which it keeps every exported method of every
// type that reaches an interface (docs/PERFORMANCE.md, "The binary and its
// cold build"). A package that imports a template package without
// executing it (templateImporters) passes; one that executes it does not.
func TestBinaryMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "hands")
	if out, err := exec.Command("go", "build", "-tags", "grpcnotrace", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	const lookup = "text/template.(*state).evalField"
	if strings.Contains(string(out), lookup) {
		t.Errorf("with -tags grpcnotrace, hands links %s: something executes a template, and the linker keeps every exported method; find it with go build -tags grpcnotrace -ldflags=-dumpdep (the chain of callers that reaches %s)", lookup, lookup)
	}
}
