package dynamic_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/schema"
)

// booking is a typed tool's input with a constraint of each kind that a
// Go type can declare.
type booking struct {
	Kind   string            `json:"kind" tool:"const=booking"`
	Name   string            `json:"name" tool:"minLength=2,maxLength=5"`
	Code   string            `json:"code" tool:"pattern=^[A-Z]+$"`
	Email  string            `json:"email" tool:"format=email"`
	Qty    int               `json:"qty" tool:"minimum=1,maximum=9"`
	Step   float64           `json:"step" tool:"exclusiveMinimum=0,exclusiveMaximum=10,multipleOf=0.5"`
	Mode   string            `json:"mode" tool:"enum=fast|slow"`
	Tags   []string          `json:"tags" tool:"minItems=1,maxItems=2,uniqueItems"`
	Labels map[string]string `json:"labels" tool:"minProperties=1,maxProperties=2"`
	Seats  []int             `json:"seats,omitempty" tool:"minimum=1"`
	Note   *string           `json:"note,omitempty"`
}

// TestMessagesMatchTypedTools validates the same arguments against a
// typed tool's validator and against a dynamic one made from the schema
// that type publishes (as a proxied MCP tool is): every issue must read
// the same — path, keyword and message — so that a model is told what to
// fix in one voice, whoever defined the tool.
func TestMessagesMatchTypedTools(t *testing.T) {
	typed, err := schema.For[booking](nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(typed.Schema())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewValidator(doc)
	if err != nil {
		t.Fatal(err)
	}
	valid := map[string]any{"kind": "booking", "name": "Ada", "code": "ABC", "email": "ada@example.com", "qty": 2,
		"step": 1.5, "mode": "fast", "tags": []any{"a"}, "labels": map[string]any{"k": "v"}}
	for _, tt := range []struct {
		name   string
		change map[string]any // set; a nil value deletes
	}{
		{"const", map[string]any{"kind": "order"}},
		{"minLength", map[string]any{"name": "A"}},
		{"maxLength", map[string]any{"name": "Adalovelace"}},
		{"pattern", map[string]any{"code": "abc"}},
		{"format", map[string]any{"email": "nope"}},
		{"minimum", map[string]any{"qty": 0}},
		{"maximum", map[string]any{"qty": 10}},
		{"exclusiveMinimum", map[string]any{"step": 0}},
		{"exclusiveMaximum", map[string]any{"step": 10}},
		{"multipleOf", map[string]any{"step": 0.7}},
		{"enum", map[string]any{"mode": "medium"}},
		{"minItems", map[string]any{"tags": []any{}}},
		{"maxItems", map[string]any{"tags": []any{"a", "b", "c"}}},
		{"uniqueItems", map[string]any{"tags": []any{"a", "a"}}},
		{"minProperties", map[string]any{"labels": map[string]any{}}},
		{"maxProperties", map[string]any{"labels": map[string]any{"a": "1", "b": "2", "c": "3"}}},
		{"item minimum", map[string]any{"seats": []any{1, 0}}},
		{"required", map[string]any{"name": nil, "qty": nil}},
		{"unknown close to a property", map[string]any{"nmae": "x"}},
		{"unknown far from any property", map[string]any{"zzzzzzzz": "x"}},
		{"type string", map[string]any{"name": 3}},
		{"type integer", map[string]any{"qty": "two"}},
		{"type integer for a fraction", map[string]any{"qty": 2.5}},
		{"type array", map[string]any{"tags": "a"}},
		{"type object", map[string]any{"labels": []any{}}},
		{"type null", map[string]any{"note": nil, "name": nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{}
			for k, v := range valid {
				args[k] = v
			}
			for k, v := range tt.change {
				if v == nil {
					delete(args, k)
				} else {
					args[k] = v
				}
			}
			if tt.name == "type null" {
				args["name"] = nil // a null where none is allowed
			}
			data, _ := json.Marshal(args)
			want, got := issues(t, typed.Validate(data)), issues(t, dyn.Validate(data))
			if len(want) == 0 {
				t.Fatalf("the typed validator accepts %s", data)
			}
			if !slices.Equal(got, want) {
				t.Errorf("dynamic issues of %s:\n%q\nwant the typed tool's:\n%q", data, got, want)
			}
		})
	}
}

// issues returns err's issues as "path keyword: message", sorted.
func issues(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	serr, ok := errors.AsType[*schema.Error](err)
	if !ok {
		t.Fatalf("error %v is not a *schema.Error", err)
	}
	var list []string
	for _, is := range serr.Issues {
		list = append(list, fmt.Sprintf("%s %s: %s", is.Path, is.Keyword, is.Message))
	}
	slices.SortFunc(list, cmp.Compare)
	return list
}
