package schema

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestCheckJSON(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 5) + `1` + strings.Repeat(`}`, 5)
	for _, tt := range []struct {
		name    string
		limits  Limits
		data    string
		keyword string // "" when valid
	}{
		{name: "object", data: `{"a":[1,{"b":null}]}`},
		{name: "spaces", data: " {} \n"},
		{name: "empty", data: "", keyword: "syntax"},
		{name: "array", data: `[1]`, keyword: "type"},
		{name: "string", data: `"{}"`, keyword: "type"},
		{name: "trailing", data: `{} {}`, keyword: "syntax"},
		{name: "truncated", data: `{"a":`, keyword: "syntax"},
		{name: "invalid UTF-8", data: "{\"a\":\"\xff\"}", keyword: "syntax"},
		{name: "lone surrogate", data: `{"a":"\ud800"}`, keyword: "syntax"},
		{name: "duplicate name", data: `{"a":1,"a":2}`, keyword: "syntax"},
		{name: "too large", limits: Limits{MaxBytes: 4}, data: `{"a":1}`, keyword: "limit"},
		{name: "no size limit", limits: Limits{MaxBytes: -1}, data: `{"a":1}`},
		{name: "too deep", limits: Limits{MaxDepth: 4}, data: deep, keyword: "limit"},
		{name: "deep enough", limits: Limits{MaxDepth: 5}, data: deep},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.limits.CheckJSON([]byte(tt.data))
			if tt.keyword == "" {
				if err != nil {
					t.Fatalf("CheckJSON(%q) = %v, want nil", tt.data, err)
				}
				return
			}
			serr, ok := errors.AsType[*Error](err)
			if !ok || len(serr.Issues) != 1 {
				t.Fatalf("CheckJSON(%q) = %v, want a *Error with one issue", tt.data, err)
			}
			if got := serr.Issues[0].Keyword; got != tt.keyword {
				t.Errorf("CheckJSON(%q) failed with %q, want %q", tt.data, got, tt.keyword)
			}
		})
	}
}

func TestLimitsTooLarge(t *testing.T) {
	if (Limits{}).TooLarge(DefaultMaxBytes) || !(Limits{}).TooLarge(DefaultMaxBytes+1) {
		t.Error("the zero Limits does not apply DefaultMaxBytes")
	}
	if (Limits{MaxBytes: -1}).TooLarge(1 << 30) {
		t.Error("a negative MaxBytes still limits the size")
	}
}

// FuzzCheckJSON checks that CheckJSON, with the limits out of the way,
// accepts exactly the documents that jsontext finds valid and that hold an
// object.
func FuzzCheckJSON(f *testing.F) {
	for _, seed := range []string{`{}`, ` {"a":[1,2,{"b":null}]} `, `{"a":1,"a":2}`, `[1]`, `"{}"`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{} {}`, `{"a":1e400}`, ``} {
		f.Add([]byte(seed))
	}
	unlimited := Limits{MaxBytes: -1, MaxDepth: maxNesting}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := unlimited.CheckJSON(data)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		want := jsontext.Value(data).IsValid() && len(trimmed) > 0 && trimmed[0] == '{'
		if (err == nil) != want {
			t.Fatalf("CheckJSON(%.200q) = %v, jsontext says valid object = %t", data, err, want)
		}
	})
}

// TestErrorMatchesErrInvalidDocument checks that every way a validator rejects a
// document — its schema, its limits, a Go value's check — is an *Error
// that matches ErrInvalidDocument.
func TestErrorMatchesErrInvalidDocument(t *testing.T) {
	type doc struct {
		Name string `json:"name" tool:"minLength=2"`
	}
	v, err := ForType(reflect.TypeFor[doc](), &Options{Limits: Limits{MaxBytes: 64}})
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"schema": v.Validate([]byte(`{"name":"x"}`)),
		"limits": v.Validate([]byte(`{"name":"` + strings.Repeat("x", 100) + `"}`)),
		"value":  v.Check(doc{Name: "x"}),
	} {
		serr, ok := errors.AsType[*Error](err)
		if !ok || !errors.Is(err, ErrInvalidDocument) || len(serr.Issues) == 0 {
			t.Errorf("%s: %v, want an *Error with issues that matches ErrInvalidDocument", name, err)
		}
	}
}
