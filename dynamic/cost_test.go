package dynamic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/internal/cost"
)

// nested returns an object schema that nests depth object schemas, each
// the additionalProperties of the one above, each with two properties and
// examples examples of its own.
func nested(depth, examples int) json.RawMessage {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"examples":[`)
		for j := range examples {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"z":"%d"}`, j)
		}
		b.WriteString(`],"additionalProperties":`)
	}
	b.WriteString(`{"type":"string"}`)
	b.WriteString(strings.Repeat("}", depth))
	return json.RawMessage(b.String())
}

// TestSchemaCostLinear checks that defining a tool from a schema, and a
// validator, costs in proportion to the schema's depth: the document is
// read once, not once for each schema it is nested in. Allocations are
// counted, not time.
func TestSchemaCostLinear(t *testing.T) {
	docs := map[int]json.RawMessage{}
	for _, n := range []int{4, 60} {
		docs[n] = nested(n, 100)
	}
	run := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	cost.LinearAllocs(t, "New", 4, 60, func(n int) {
		if _, err := dynamic.New("t", "A tool.", docs[n], run); err != nil {
			t.Fatal(err)
		}
	})
	cost.LinearAllocs(t, "NewValidator", 4, 60, func(n int) {
		if _, err := dynamic.NewValidator(docs[n]); err != nil {
			t.Fatal(err)
		}
	})
}

// issueSchemas returns an object schema whose property "x" is an array of
// objects, each of which must have the property "zz" and may have 100n
// others, its schema the last of 100n $defs; and arguments with n such
// objects, none with "zz".
func issueSchemas(n int) (json.RawMessage, json.RawMessage) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"type":"array","items":{"$ref":"#/$defs/item"}}},"$defs":{`)
	for i := range 100 * n {
		fmt.Fprintf(&b, `"d%d":true,`, i)
	}
	b.WriteString(`"item":{"type":"object","required":["zz"],"properties":{`)
	for i := range 100 * n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":true`, i)
	}
	b.WriteString(`}}}}`)
	args := `{"x":[` + strings.Repeat(`{},`, n-1) + `{}]}`
	return json.RawMessage(b.String()), json.RawMessage(args)
}

// TestIssueCostLinear checks that reporting the issues of arguments costs
// in proportion to their number, whatever the size of the schema they
// fail: the order of a schema's properties, which an issue lists them
// in, is looked up once for the schema, not once for every issue. Each of
// n items misses a property the schema of 100n properties requires.
func TestIssueCostLinear(t *testing.T) {
	type validation struct {
		v    *dynamic.Validator
		args json.RawMessage
	}
	cases := map[int]validation{}
	for _, n := range []int{16, 128} {
		doc, args := issueSchemas(n)
		v, err := dynamic.NewValidator(doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(args); err == nil {
			t.Fatalf("%d items without zz: no issue", n)
		}
		cases[n] = validation{v, args}
	}
	cost.LinearAllocs(t, "Validate", 16, 128, func(n int) { cases[n].v.Validate(cases[n].args) })
}
