package hands_test

import (
	"os/exec"
	"strings"
	"testing"
)

// allowedInCore are the only modules the core packages may depend on,
// besides the standard library and this module.
var allowedInCore = map[string]bool{
	"github.com/google/jsonschema-go":    true,
	"github.com/go-json-experiment/json": true,
}

// TestLayering keeps heavy dependencies out of the core packages: importing
// tool, schema or agent must never pull in an SDK, a cloud client, x/text
// or OpenTelemetry (which lives in otelhands).
func TestLayering(t *testing.T) {
	const module = "github.com/hands-go/hands"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./tool", "./schema", "./agent").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list returned no packages")
	}
	for _, pkg := range deps {
		if pkg == module || strings.HasPrefix(pkg, module+"/") {
			if rest := strings.TrimPrefix(pkg, module+"/"); rest != "tool" && rest != "schema" && rest != "agent" && !strings.HasPrefix(rest, "internal/") {
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
