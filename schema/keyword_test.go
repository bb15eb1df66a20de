package schema

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// keywordArgs fails, in one field or another, in every way a document can.
type keywordArgs struct {
	Name   string            `json:"name" tool:"minLength=2,maxLength=4,pattern=^[a-z]+$"`
	Email  string            `json:"email,omitempty" tool:"format=email"`
	Kind   string            `json:"kind,omitempty" tool:"enum=a|b"`
	Fixed  string            `json:"fixed,omitempty" tool:"const=x"`
	Data   []byte            `json:"data,omitempty"`
	N      float64           `json:"n,omitempty" tool:"minimum=0,maximum=10,multipleOf=0.5"`
	X      float64           `json:"x,omitempty" tool:"exclusiveMinimum=0,exclusiveMaximum=10"`
	Count  int64             `json:"count,omitempty"`
	Tags   []string          `json:"tags,omitempty" tool:"minItems=1,maxItems=2,uniqueItems"`
	Labels map[string]string `json:"labels,omitempty" tool:"minProperties=1,maxProperties=1"`
	Any    any               `json:"any,omitempty"`
	Lower  lowerText         `json:"lower,omitempty"`
	Point  *point            `json:"point,omitempty"`
	When   *time.Time        `json:"when,omitempty"`
	Outer  *refinedOuter     `json:"outer,omitempty"`
}

// TestKeywordsAreExported checks that every issue the package reports has
// one of the Keyword constants as its keyword, and that each constant is
// reported by some document: all but KeywordDefault, whose failure (a
// default that breaks its field's constraints) is found when the type is
// compiled, not when a document is read.
func TestKeywordsAreExported(t *testing.T) {
	exported := keywordConstants(t)
	seen := map[string]bool{}
	check := func(what string, err error) {
		t.Helper()
		serr, ok := errors.AsType[*Error](err)
		if !ok {
			t.Errorf("%s: %v, want a *Error", what, err)
			return
		}
		for _, is := range serr.Issues {
			if !slices.Contains(exported, is.Keyword) {
				t.Errorf("%s: issue %v has keyword %q, which is not a Keyword constant", what, is, is.Keyword)
			}
			seen[is.Keyword] = true
		}
	}
	v := mustFor[keywordArgs](t)
	for _, doc := range []string{
		`{`, `{}`, `{"name":1}`, `{"name":"a"}`, `{"name":"abcde"}`, `{"name":"AB"}`, `{"name":"ab","nme":1}`,
		`{"name":"ab","email":"x"}`, `{"name":"ab","kind":"c"}`, `{"name":"ab","fixed":"y"}`, `{"name":"ab","data":"!!"}`,
		`{"name":"ab","n":-1}`, `{"name":"ab","n":11}`, `{"name":"ab","n":0.3}`, `{"name":"ab","n":1e400}`,
		`{"name":"ab","x":0}`, `{"name":"ab","x":10}`, `{"name":"ab","count":1.5}`, `{"name":"ab","count":1e19}`,
		`{"name":"ab","tags":[]}`, `{"name":"ab","tags":["a","b","c"]}`, `{"name":"ab","tags":["a","a"]}`,
		`{"name":"ab","labels":{}}`, `{"name":"ab","labels":{"a":"1","b":"2"}}`, `{"name":"ab","any":[1e400]}`,
		`{"name":"ab","lower":"!x"}`, `{"name":"ab","point":[1]}`, `{"name":"ab","point":[1.5,2]}`,
		`{"name":"ab","when":"2016-12-31T23:59:60Z"}`, `{"name":"ab","outer":{"ranges":[{"from":2,"to":1}],"name":"bad"}}`,
	} {
		check(doc, v.Validate([]byte(doc)))
	}
	limited, err := For[keywordArgs](&Options{Limits: Limits{MaxBytes: 64, MaxDepth: 2, MaxIssues: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{`{"any":[[1]]}`, `{"name":"` + strings.Repeat("a", 64) + `"}`, `{"name":"a","n":-1}`} {
		check(doc, limited.Validate([]byte(doc)))
	}
	check("Check of a func", v.Check(keywordArgs{Name: "ab", Any: func() {}}))
	for _, k := range exported {
		if !seen[k] && k != KeywordDefault {
			t.Errorf("no document was reported with keyword %q", k)
		}
	}
}

// keywordConstants returns the values of the Keyword constants, read from
// issue.go.
func keywordConstants(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "issue.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Keyword") && lit.Kind == token.STRING {
					value, _ := strconv.Unquote(lit.Value)
					values = append(values, value)
				}
			}
		}
	}
	if len(values) == 0 {
		t.Fatal("found no Keyword constants in issue.go")
	}
	return values
}

// TestKeywordsAreNotLiterals checks that the package's code names issue
// keywords by their constants: no string literal is the keyword of an issue
// (an argument of the decoder's fail, add and stop or of issuesOf, or the
// Keyword of an Issue literal).
func TestKeywordsAreNotLiterals(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]int{"fail": 0, "add": 1, "stop": 1} // the keyword's argument
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var keywords []ast.Expr
		issue := func(lit ast.Expr) {
			if lit, ok := lit.(*ast.CompositeLit); ok {
				for _, elt := range lit.Elts {
					if kv, ok := elt.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Keyword") {
						keywords = append(keywords, kv.Value)
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				switch fun := n.Fun.(type) {
				case *ast.Ident:
					if fun.Name == "issuesOf" && len(n.Args) == 3 {
						keywords = append(keywords, n.Args[2])
					}
				case *ast.SelectorExpr:
					if i, ok := methods[fun.Sel.Name]; ok && isIdent(fun.X, "d") && i < len(n.Args) {
						keywords = append(keywords, n.Args[i])
					}
				}
			case *ast.CompositeLit:
				switch typ := n.Type.(type) {
				case *ast.Ident:
					if typ.Name == "Issue" {
						issue(n)
					}
				case *ast.ArrayType:
					if isIdent(typ.Elt, "Issue") {
						for _, elt := range n.Elts {
							issue(elt)
						}
					}
				}
			}
			return true
		})
		for _, k := range keywords {
			if lit, ok := k.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				t.Errorf("%s: the keyword %s is a literal; use its Keyword constant", fset.Position(lit.Pos()), lit.Value)
			}
		}
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
