package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

// exampleArgs has what a typed example's JSON must get right: a field
// order, a nil slice and a nil map in required fields, a duration, an
// optional field left out, and text that encoding/json would escape for
// HTML.
type exampleArgs struct {
	Query  string            `json:"query" tool:"minLength=1"`
	Tags   []string          `json:"tags"`
	Labels map[string]string `json:"labels"`
	Every  time.Duration     `json:"every"`
	Limit  int               `json:"limit,omitempty" tool:"minimum=1,maximum=50,default=10"`
}

func TestWithExamples(t *testing.T) {
	search := tool.New("search", "Search the notes.", noop[exampleArgs, string],
		tool.WithExamples(exampleArgs{Query: "<b> & more", Every: 90 * time.Second}),
		tool.WithExamplesJSON(json.RawMessage(`{ "query": "x", "tags": ["a"], "labels": {}, "every": "1s", "limit": 3 }`)),
		tool.WithExamples(exampleArgs{Query: "last", Tags: []string{"t"}, Labels: map[string]string{"b": "2", "a": "1"}, Every: time.Hour, Limit: 50}),
	)
	want := []string{
		`{"query":"<b> & more","tags":[],"labels":{},"every":"1m30s"}`,
		`{"query":"x","tags":["a"],"labels":{},"every":"1s","limit":3}`,
		`{"query":"last","tags":["t"],"labels":{"a":"1","b":"2"},"every":"1h0m0s","limit":50}`,
	}
	spec := search.Spec()
	var got []string
	for _, ex := range spec.Examples {
		got = append(got, string(ex))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Spec().Examples = %q, want %q", got, want)
	}
	// Every example is a call the tool takes.
	for _, ex := range spec.Examples {
		if _, err := search.CallJSON(t.Context(), ex); err != nil {
			t.Errorf("CallJSON(%s) = %v; an example must be a valid call", ex, err)
		}
	}
	// The spec's examples are copies.
	spec.Examples[0][2] = 'X'
	spec.Examples[1] = nil
	if again := search.Spec(); string(again.Examples[0]) != want[0] || string(again.Examples[1]) != want[1] {
		t.Errorf("changing a Spec's examples changed the tool's: %q", again.Examples)
	}
	// The spec's JSON carries them.
	data, err := json.Marshal(search.Spec())
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct{ Examples []json.RawMessage }
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	for i, ex := range decoded.Examples {
		if !jsonEqual(t, ex, json.RawMessage(want[i])) {
			t.Errorf("the spec's JSON carries example %d as %s, want %s", i, ex, want[i])
		}
	}
	if len(decoded.Examples) != len(want) {
		t.Errorf("the spec's JSON %s carries %d examples, want %d", data, len(decoded.Examples), len(want))
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestWithoutExamples is the identity case: a tool without examples has
// no examples in its spec or in its spec's JSON.
func TestWithoutExamples(t *testing.T) {
	for _, tl := range []tool.Interface{
		tool.New("search", "Search the notes.", noop[exampleArgs, string]),
		tool.New("search", "Search the notes.", noop[exampleArgs, string], tool.WithExamples[exampleArgs]()),
		tool.NewRaw(rawSpec(), nil, rawHandler, tool.WithExamplesJSON()),
	} {
		spec := tl.Spec()
		if spec.Examples != nil {
			t.Errorf("%s: Spec().Examples = %q, want nil", spec.Name, spec.Examples)
		}
		data, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `"examples"`) {
			t.Errorf("%s: the spec's JSON %s has examples", spec.Name, data)
		}
	}
}

func rawSpec() tool.Spec {
	return tool.Spec{Name: "lookup", Description: "Look up an order.", InputSchema: &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"order": {Type: "string"}},
		Required:   []string{"order"},
	}}
}

func rawHandler(ctx context.Context, args json.RawMessage) (any, error) { return string(args), nil }

// rawValidate checks that "order" is a string of 8 characters, with a
// *schema.Error as a validator of package dynamic reports it.
func rawValidate(args json.RawMessage) error {
	var a struct {
		Order *string `json:"order"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Order == nil || len(*a.Order) != 8 {
		return &schema.Error{Issues: []schema.Issue{{Path: "/order", Keyword: "pattern", Message: "must be 8 digits"}}, Err: schema.ErrInvalidDocument}
	}
	return nil
}

type validatedArgs struct {
	Name string `json:"name"`
	Age  *int   `json:"age,omitempty"`
}

func (a *validatedArgs) Validate() error {
	if a.Name == "panic" {
		panic("a Validate method's own bug")
	}
	if a.Age != nil && *a.Age < 18 && a.Name == "admin" {
		return errors.New("an admin must be at least 18")
	}
	return nil
}

func TestWithExamplesInvalid(t *testing.T) {
	seventeen := 17
	type issue struct{ path, keyword string }
	for _, tt := range []struct {
		name   string
		define func() error
		index  int     // of the *ExampleError, when issues are set
		issues []issue // nil: a definition error that is not an *ExampleError
	}{
		{
			name: "typed: a constraint",
			define: func() error {
				_, err := tool.Define("search", "Search.", noop[exampleArgs, string],
					tool.WithExamples(exampleArgs{Query: "ok"}, exampleArgs{Query: "", Limit: 51}))
				return err
			},
			index: 1, issues: []issue{{"/query", "minLength"}, {"/limit", "maximum"}},
		},
		{
			name: "typed: a Validate method",
			define: func() error {
				_, err := tool.Define("user", "Create a user.", noop[validatedArgs, string],
					tool.WithExamples(validatedArgs{Name: "admin", Age: &seventeen}))
				return err
			},
			issues: []issue{{"", schema.KeywordValidate}},
		},
		{
			name: "typed: the tool's limits",
			define: func() error {
				_, err := tool.Define("search", "Search.", noop[exampleArgs, string], tool.WithLimits(tool.Limits{MaxBytes: 40}),
					tool.WithExamples(exampleArgs{Query: strings.Repeat("q", 40)}))
				return err
			},
			issues: []issue{{"", schema.KeywordLimit}},
		},
		{
			name: "JSON for a typed tool: an unknown property",
			define: func() error {
				_, err := tool.Define("search", "Search.", noop[exampleArgs, string],
					tool.WithExamplesJSON(json.RawMessage(`{"query":"x","tags":[],"labels":{},"every":"1s","sort":"asc"}`)))
				return err
			},
			issues: []issue{{"", "additionalProperties"}},
		},
		{
			name: "JSON for a typed tool: a null the repair would drop",
			define: func() error {
				_, err := tool.Define("search", "Search.", noop[exampleArgs, string],
					tool.WithExamplesJSON(json.RawMessage(`{"query":"x","tags":[],"labels":{},"every":"1s","limit":null}`)))
				return err
			},
			issues: []issue{{"/limit", schema.KeywordType}},
		},
		{
			name: "JSON: not an object",
			define: func() error {
				_, err := tool.DefineRaw(rawSpec(), rawValidate, rawHandler, tool.WithExamplesJSON(json.RawMessage(`["12345678"]`)))
				return err
			},
			issues: []issue{{"", schema.KeywordType}},
		},
		{
			name: "JSON: not JSON",
			define: func() error {
				_, err := tool.DefineRaw(rawSpec(), rawValidate, rawHandler, tool.WithExamplesJSON(json.RawMessage(`{"order":`)))
				return err
			},
			issues: []issue{{"", schema.KeywordSyntax}},
		},
		{
			name: "raw: the validator",
			define: func() error {
				_, err := tool.DefineRaw(rawSpec(), rawValidate, rawHandler,
					tool.WithExamplesJSON(json.RawMessage(`{"order":"12345678"}`)),
					tool.WithExamplesJSON(json.RawMessage(`{"order":"1234"}`)))
				return err
			},
			index: 1, issues: []issue{{"/order", "pattern"}},
		},
		{
			name: "typed example of another type",
			define: func() error {
				_, err := tool.Define("search", "Search.", noop[exampleArgs, string], tool.WithExamples(validatedArgs{Name: "x"}))
				return err
			},
		},
		{
			name: "typed example for a raw tool",
			define: func() error {
				_, err := tool.DefineRaw(rawSpec(), rawValidate, rawHandler, tool.WithExamples(struct {
					Order string `json:"order"`
				}{"12345678"}))
				return err
			},
		},
		{
			name: "a Validate method that panics",
			define: func() error {
				_, err := tool.Define("user", "Create a user.", noop[validatedArgs, string], tool.WithExamples(validatedArgs{Name: "panic"}))
				return err
			},
		},
		{
			name: "a value with no JSON",
			define: func() error {
				type weird struct {
					N float64 `json:"n"`
				}
				_, err := tool.Define("weird", "Weird.", noop[weird, string], tool.WithExamples(weird{N: notANumber()}))
				return err
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.define()
			derr, ok := errors.AsType[*tool.DefinitionError](err)
			if !ok {
				t.Fatalf("Define = %v, want a *DefinitionError", err)
			}
			eerr, isExample := errors.AsType[*tool.ExampleError](err)
			if tt.issues == nil {
				if isExample {
					t.Errorf("Define = %v, want a definition error that is not an *ExampleError", err)
				}
				return
			}
			if !isExample {
				t.Fatalf("Define = %v, want an *ExampleError in it", derr)
			}
			if !errors.Is(err, tool.ErrInvalidExample) {
				t.Errorf("Define = %v, which does not match ErrInvalidExample", err)
			}
			if eerr.Index != tt.index {
				t.Errorf("the invalid example is %d, want %d", eerr.Index, tt.index)
			}
			var got []issue
			for _, is := range eerr.Issues {
				got = append(got, issue{is.Path, is.Keyword})
			}
			if !reflect.DeepEqual(got, tt.issues) {
				t.Errorf("the example's issues are %v, want %v", got, tt.issues)
			}
		})
	}
}

func notANumber() float64 { return math.NaN() }

// TestNewPanicsOnInvalidExample checks that New panics with the
// *DefinitionError, as for any mistake in a definition.
func TestNewPanicsOnInvalidExample(t *testing.T) {
	defer func() {
		r := recover()
		err, _ := r.(error)
		if _, ok := errors.AsType[*tool.ExampleError](err); !ok {
			t.Errorf("New panicked with %v, want a *DefinitionError holding an *ExampleError", r)
		}
	}()
	tool.New("search", "Search.", noop[exampleArgs, string], tool.WithExamples(exampleArgs{}))
}

// roundTrip is a typed input without defaults, whose examples decode back
// to the values given.
type roundTrip struct {
	Name   string            `json:"name"`
	Count  int64             `json:"count"`
	Ratio  float64           `json:"ratio"`
	On     bool              `json:"on"`
	Every  time.Duration     `json:"every"`
	Tags   []string          `json:"tags"`
	Labels map[string]string `json:"labels,omitempty"`
	Next   *roundTrip        `json:"next,omitempty"`
}

// FuzzExampleRoundTrip checks that a typed example is written as JSON that
// the tool accepts and decodes back to the value given (a nil slice or map
// decodes as an empty one, which is the value's meaning).
func FuzzExampleRoundTrip(f *testing.F) {
	f.Add("a", int64(1), 0.5, true, int64(time.Second), "t", "k", "v", true)
	f.Add("", int64(-7), -1e300, false, int64(-1), "", "", "", false)
	f.Add("<&>\u2028", int64(1)<<62, 3.0, true, int64(90*time.Minute+1), "x\ny", "\x00", "é", true)
	f.Fuzz(func(t *testing.T, name string, count int64, ratio float64, on bool, every int64, tag, key, value string, nest bool) {
		if !utf8.ValidString(name) || !utf8.ValidString(tag) || !utf8.ValidString(key) || !utf8.ValidString(value) {
			t.Skip("encoding/json writes invalid UTF-8 as U+FFFD, which is another value")
		}
		if ratio != ratio || ratio > 1.7e308 || ratio < -1.7e308 {
			t.Skip("not a JSON number")
		}
		in := roundTrip{Name: name, Count: count, Ratio: ratio, On: on, Every: time.Duration(every), Tags: []string{tag}}
		if key != "" {
			in.Labels = map[string]string{key: value}
		}
		if nest {
			in.Next = &roundTrip{Name: value, Tags: nil}
		}
		var got roundTrip
		rt, err := tool.Define("rt", "Round trip.", func(ctx context.Context, a roundTrip) (string, error) {
			got = a
			return "", nil
		}, tool.WithExamples(in))
		if err != nil {
			t.Fatalf("Define with the example %+v: %v", in, err)
		}
		if _, err := rt.CallJSON(t.Context(), rt.Spec().Examples[0]); err != nil {
			t.Fatalf("CallJSON(%s): %v", rt.Spec().Examples[0], err)
		}
		if in.Next != nil {
			in.Next.Tags = []string{} // written as [], the empty value
		}
		if !reflect.DeepEqual(got, in) {
			t.Errorf("the example %+v was written as %s, which decodes as %+v", in, rt.Spec().Examples[0], got)
		}
	})
}
