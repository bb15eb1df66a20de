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
