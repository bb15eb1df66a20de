package hands_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/claims"
	"github.com/hands-go/hands/mcpserver"
)

// TestVocabularyOnce keeps each piece of the module's shared vocabulary in
// the one package that holds it, so that two spellings cannot drift
// apart: the _meta keys hands sends and reads are internal/mcpmeta's
// constants, never a copy of their text; and a store of one-time claims
// is a claims.Store, the interface that agent's interrupts and mcpserver's
// request states both take, never an interface of a package's own.
func TestVocabularyOnce(t *testing.T) {
	storeType := reflect.TypeFor[claims.Store]()
	if f, _ := reflect.TypeFor[agent.Options]().FieldByName("Claims"); f.Type != storeType {
		t.Errorf("agent.Options.Claims is a %v, want claims.Store", f.Type)
	}
	if f, _ := reflect.TypeFor[mcpserver.Options]().FieldByName("StateClaims"); f.Type != storeType {
		t.Errorf("mcpserver.Options.StateClaims is a %v, want claims.Store", f.Type)
	}

	fset := token.NewFileSet()
	keys := map[string]string{} // the value of each of mcpmeta's string constants → its name
	files := map[string]*ast.File{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mcpmetaDir := filepath.FromSlash("internal/mcpmeta")
	for path, f := range files {
		if filepath.Dir(path) != mcpmetaDir {
			continue
		}
		for _, decl := range f.Decls {
			if gen, ok := decl.(*ast.GenDecl); ok && gen.Tok == token.CONST {
				for _, spec := range gen.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							keys[s] = vs.Names[i].Name
						}
					}
				}
			}
		}
	}
	if len(keys) == 0 {
		t.Fatal("found no string constant in internal/mcpmeta")
	}
	for path, f := range files {
		dir := filepath.Dir(path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				// A struct tag is not a copy of a key: compat spells the
				// keys in its tags, and tests that they agree.
				if n.Tag != nil {
					ast.Inspect(n.Type, func(m ast.Node) bool { return checkVocabulary(t, fset, m, dir) })
					return false
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && keys[s] != "" && dir != mcpmetaDir {
					t.Errorf("%s: %s is mcpmeta.%s: use the constant", fset.Position(n.Pos()), n.Value, keys[s])
				}
			}
			return checkVocabulary(t, fset, n, dir)
		})
	}
}

// checkVocabulary reports n if it is an interface with a Claim method
// outside package claims.
func checkVocabulary(t *testing.T, fset *token.FileSet, n ast.Node, dir string) bool {
	t.Helper()
	it, ok := n.(*ast.InterfaceType)
	if !ok || dir == "claims" {
		return true
	}
	for _, m := range it.Methods.List {
		for _, name := range m.Names {
			if name.Name == "Claim" {
				t.Errorf("%s: an interface with a method Claim: use claims.Store", fset.Position(name.Pos()))
			}
		}
	}
	return true
}
