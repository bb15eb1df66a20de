package hands_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

// TestOneErrorTechnique holds every package of the module to json v2's way
// of matching errors: a sentinel says what kind of failure happened, and a
// detail type carries it in a field called Err, reached through Unwrap. A
// type does not match by code of its own: no method Is. And a sentinel's
// name means one thing in the whole module, so that ErrX read in any file
// needs no package to be understood.
func TestOneErrorTechnique(t *testing.T) {
	fset := token.NewFileSet()
	sentinels := map[string][]string{} // name → the packages that define it
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv != nil && decl.Name.Name == "Is" && decl.Type.Params.NumFields() == 1 {
					t.Errorf("%s: %s has a method Is: carry the sentinel in a field Err, reached through Unwrap", fset.Position(decl.Pos()), recvName(decl))
				}
			case *ast.GenDecl:
				if decl.Tok != token.VAR {
					continue
				}
				for _, spec := range decl.Specs {
					for _, name := range spec.(*ast.ValueSpec).Names {
						if strings.HasPrefix(name.Name, "Err") && name.IsExported() {
							dir := filepath.Dir(path)
							if !slices.Contains(sentinels[name.Name], dir) {
								sentinels[name.Name] = append(sentinels[name.Name], dir)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, pkgs := range sentinels {
		if len(pkgs) > 1 {
			t.Errorf("the sentinel %s is defined in %d packages (%s): give each its own name", name, len(pkgs), strings.Join(pkgs, ", "))
		}
	}
}

func recvName(decl *ast.FuncDecl) string {
	typ := decl.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return "a type"
}

// TestDefinitionErrorsShareOneFormat checks that the three definition
// errors — a Go type that cannot describe JSON, an environment that cannot
// be bound, a tool that cannot be built — are written in one form: the
// package, then where the mistake is (the type, the field, the tag), then
// what is wrong.
func TestDefinitionErrorsShareOneFormat(t *testing.T) {
	type badTag struct {
		N int `json:"n" tool:"minimum=x"`
	}
	type badBind struct {
		M map[string]string `bind:"M"`
	}
	_, serr := schema.For[badTag](nil)
	berr := bind.Load(context.Background(), &badBind{}, nil)
	_, terr := tool.Define("weather", "", func(context.Context, struct{}) (string, error) { return "", nil })
	for _, tt := range []struct {
		err   error
		as    func(error) bool
		start string
	}{
		{serr, func(err error) bool { _, ok := errors.AsType[*schema.DefinitionError](err); return ok }, "schema: type hands_test.badTag, field N, tag `tool:\"minimum=x\"`: "},
		{berr, func(err error) bool { _, ok := errors.AsType[*bind.DefinitionError](err); return ok }, "bind: type hands_test.badBind, field M, tag `bind:\"M\"`: "},
		{terr, func(err error) bool { _, ok := errors.AsType[*tool.DefinitionError](err); return ok }, "tool: tool \"weather\": "},
	} {
		if !tt.as(tt.err) {
			t.Errorf("%v is not the package's *DefinitionError", tt.err)
			continue
		}
		if got := tt.err.Error(); !strings.HasPrefix(got, tt.start) || len(got) == len(tt.start) {
			t.Errorf("definition error %q, want it to start %q and then say what is wrong", got, tt.start)
		}
	}
}
