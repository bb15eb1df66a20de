package hands_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/memkv"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
	"github.com/hands-go/hands/toolbox/web"
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
			checkDetailTypes(t, fset, filepath.Dir(path), decl)
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
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if strings.HasPrefix(name.Name, "Err") && name.IsExported() {
							dir := filepath.Dir(path)
							if !slices.Contains(sentinels[name.Name], dir) {
								sentinels[name.Name] = append(sentinels[name.Name], dir)
							}
							if i < len(vs.Values) {
								checkSentinelText(t, fset, dir, name.Name, vs.Values[i])
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

// checkDetailTypes requires every exported struct type whose name ends in
// Error to hold its sentinel in a field called Err, as json v2's
// SemanticError does, so that errors.Is matches it through Unwrap; a type
// that holds a list of errors as well (bind.Error's Problems) returns them
// with Err from Unwrap() []error.
func checkDetailTypes(t *testing.T, fset *token.FileSet, dir string, decl ast.Decl) {
	t.Helper()
	gen, ok := decl.(*ast.GenDecl)
	if !ok || gen.Tok != token.TYPE {
		return
	}
	for _, spec := range gen.Specs {
		ts := spec.(*ast.TypeSpec)
		st, ok := ts.Type.(*ast.StructType)
		if !ok || !ts.Name.IsExported() || !strings.HasSuffix(ts.Name.Name, "Error") {
			continue
		}
		hasErr := slices.ContainsFunc(st.Fields.List, func(f *ast.Field) bool {
			return slices.ContainsFunc(f.Names, func(n *ast.Ident) bool { return n.Name == "Err" })
		})
		if !hasErr {
			t.Errorf("%s: %s has no field Err: hold the sentinel it matches there, returned by Unwrap", fset.Position(ts.Pos()), ts.Name.Name)
		}
	}
}

// checkSentinelText requires a sentinel made by errors.New or fmt.Errorf
// to say its package first, as net/http's ErrHijacked says "http: " and
// jsontext's errors "jsontext: ": the name of its package, or of the
// package that holds it (kv/driver's sentinel is kv's ErrKeyNotFound too).
// A sentinel that is another package's value (kv.ErrKeyNotFound =
// driver.ErrNotFound) is checked where it is made.
func checkSentinelText(t *testing.T, fset *token.FileSet, dir, name string, value ast.Expr) {
	t.Helper()
	call, ok := value.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	fun, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	if pkg, ok := fun.X.(*ast.Ident); !ok || !(pkg.Name == "errors" && fun.Sel.Name == "New" || pkg.Name == "fmt" && fun.Sel.Name == "Errorf") {
		return
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		t.Errorf("%s: %s's text is not a literal, so it cannot be checked to start with its package", fset.Position(value.Pos()), name)
		return
	}
	text, err := strconv.Unquote(lit.Value)
	if err != nil {
		t.Fatal(err)
	}
	elems := strings.Split(filepath.ToSlash(dir), "/")
	for _, pkg := range elems {
		if strings.HasPrefix(text, pkg+": ") {
			return
		}
	}
	t.Errorf("%s: %s = %q, want it to start with %q", fset.Position(value.Pos()), name, text, elems[len(elems)-1]+": ")
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

// TestErrorsSayTheirPackageOnce builds the errors that hold a sentinel of
// their own package, each through the API that returns it, and requires the
// text to start with the package and to say it once: the detail drops the
// prefix of the sentinel it holds, as json v2's SemanticError drops the
// "jsontext: " of a SyntacticError.
func TestErrorsSayTheirPackageOnce(t *testing.T) {
	ctx := t.Context()
	var missing struct {
		Token string `bind:"TOKEN"`
	}
	bindErr := bind.Load(ctx, &missing, &bind.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	var problem bind.Problem
	if p, ok := errors.AsType[bind.Problem](bindErr); ok {
		problem = p
	}
	store := kv.New(memkv.New(), nil)
	_, kvBad := store.Get(ctx, "")
	_, kvMissing := store.Get(ctx, "absent")
	_, fetchErr := web.FetchMarkdown(nil).Call(ctx, web.FetchArgs{URL: "http://127.0.0.1:1/"})
	for _, tt := range []struct {
		pkg  string
		err  error
		kind error // the sentinel the error must match
	}{
		{"bind", bindErr, bind.ErrMissing},
		{"bind", problem, bind.ErrMissing},
		{"kv", kvBad, kv.ErrBadKey},
		{"kv", kvMissing, kv.ErrKeyNotFound},
		{"toolbox", fetchErr, netguard.ErrBlocked},
		{"sqldb", &sqldb.QueryError{TimedOut: true, Err: fmt.Errorf("%w: canceling statement", sqldb.ErrStatementTimeout)}, sqldb.ErrStatementTimeout},
		{"dialect", &dialect.RejectError{Dialect: "openai", Err: dialect.ErrRejected}, dialect.ErrRejected},
		{"mcpclient", &mcpclient.AuthorizationError{Code: "access_denied", Err: mcpclient.ErrAuthorization}, mcpclient.ErrAuthorization},
	} {
		if !errors.Is(tt.err, tt.kind) {
			t.Errorf("%v does not match %v", tt.err, tt.kind)
			continue
		}
		got := tt.err.Error()
		if !strings.HasPrefix(got, tt.pkg+": ") {
			t.Errorf("%q does not start with %q", got, tt.pkg+": ")
		}
		if n := strings.Count(got, tt.pkg+": "); n != 1 {
			t.Errorf("%q says %q %d times, want once", got, tt.pkg+": ", n)
		}
	}
}
