package compat_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/compat"
)

// A corpusSchema is one schema of the JSON Schema Test Suite
// (testdata/suite).
type corpusSchema struct {
	File        string          `json:"file"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

func (s corpusSchema) String() string { return s.File + ": " + s.Description }

// corpus returns the schemas of testdata/suite.
func corpus(t testing.TB) []corpusSchema {
	t.Helper()
	files, err := filepath.Glob("testdata/suite/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus under testdata/suite: %v", err)
	}
	var all []corpusSchema
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list []corpusSchema
		if err := json.Unmarshal(data, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range list {
			list[i].File = filepath.Base(f) + ":" + list[i].File
		}
		all = append(all, list...)
	}
	return all
}

// reversedJSON writes v with the names of every object in reverse order.
func reversedJSON(v any) []byte {
	var b bytes.Buffer
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			b.WriteByte('{')
			for i, k := range slices.Backward(slices.Sorted(maps.Keys(v))) {
				if i < len(v)-1 {
					b.WriteByte(',')
				}
				name, _ := json.Marshal(k)
				b.Write(name)
				b.WriteByte(':')
				write(v[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range v {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		default:
			data, _ := json.Marshal(v)
			b.Write(data)
		}
	}
	write(v)
	return b.Bytes()
}

// variants returns the schema of doc as read from it, after a JSON round
// trip, and with every object's names in reverse order and each schema's
// PropertyOrder reversed.
func variants(t *testing.T, doc []byte) map[string]*jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil // not a schema jsonschema-go reads
	}
	data, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	var round jsonschema.Schema
	if err := json.Unmarshal(data, &round); err != nil {
		t.Fatalf("round trip of %s: %v", doc, err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var rev jsonschema.Schema
	if err := json.Unmarshal(reversedJSON(v), &rev); err != nil {
		t.Fatalf("reordered %s: %v", doc, err)
	}
	reverseOrder(&rev)
	return map[string]*jsonschema.Schema{"read": &s, "round trip": &round, "reordered": &rev}
}

// reverseOrder sets the PropertyOrder of s and every schema in it to its
// properties' names in reverse order.
func reverseOrder(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.PropertyOrder = slices.Sorted(maps.Keys(s.Properties))
	slices.Reverse(s.PropertyOrder)
	for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.PatternProperties, s.Defs, s.Definitions, s.DependentSchemas} {
		for _, sub := range m {
			reverseOrder(sub)
		}
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems, s.ItemsArray} {
		for _, sub := range list {
			reverseOrder(sub)
		}
	}
	for _, sub := range []*jsonschema.Schema{s.Items, s.AdditionalItems, s.AdditionalProperties, s.Not, s.If, s.Then, s.Else, s.Contains, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties} {
		reverseOrder(sub)
	}
}

// checkSelf holds a schema compatible with itself: no breaking or
// unknown change, in either direction, between any two of its variants.
func checkSelf(t *testing.T, what string, doc []byte) bool {
	t.Helper()
	vs := variants(t, doc)
	if vs == nil {
		return false
	}
	for _, a := range slices.Sorted(maps.Keys(vs)) {
		for _, b := range slices.Sorted(maps.Keys(vs)) {
			for _, dir := range []struct {
				name    string
				compare func(old, new *jsonschema.Schema, opts *compat.Options) []compat.Change
			}{{"Input", compat.Input}, {"Output", compat.Output}} {
				if changes := dir.compare(vs[a], vs[b], nil); compat.Breaks(changes) {
					t.Errorf("%s: %s(%s, %s) of %s:\n%s", what, dir.name, a, b, doc, lines(changes))
				}
			}
		}
	}
	return true
}

// TestSelfCompatibleCorpus: every schema of the JSON Schema Test Suite is
// compatible with itself, read as it is written, after a JSON round trip,
// and with its names in another order; and so is a tool list holding them,
// after a snapshot's Marshal and ParseSnapshot.
func TestSelfCompatibleCorpus(t *testing.T) {
	checked := 0
	var tools []compat.Tool
	for _, cs := range corpus(t) {
		if checkSelf(t, cs.String(), cs.Schema) {
			checked++
			var s jsonschema.Schema
			json.Unmarshal(cs.Schema, &s)
			tools = append(tools, compat.Tool{Name: "t" + strings.Repeat("x", len(tools)%7) + string(rune('a'+len(tools)%26)) + string(rune('a'+len(tools)/26)),
				InputSchema: &s, OutputSchema: &s})
		}
	}
	if checked < 500 {
		t.Errorf("only %d schemas of the corpus read", checked)
	}
	data, err := (&compat.Snapshot{Tools: tools}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := compat.ParseSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	if changes := compat.Tools(tools, snap.Tools, nil); compat.Breaks(changes) {
		t.Errorf("the corpus as tools, against its own snapshot:\n%s", lines(compat.BreakingChanges(changes)))
	}
}

// TestSelfCompatibleGenerated is TestSelfCompatibleCorpus on random
// schemas.
func TestSelfCompatibleGenerated(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	g := &schemaGen{r: rand.New(rand.NewPCG(3, 4))}
	for range n {
		_, doc, err := parseValue(g.root())
		if err != nil {
			t.Fatal(err)
		}
		checkSelf(t, "generated", doc)
	}
}

// TestSelfCompatibleParts: each part of a schema compared with itself is
// compatible, not only the document as a whole (which is found identical
// at once): not, if/then/else, contains, unevaluated* and references to
// other documents included. A $dynamicRef, which depends on the path that
// reached it, is unknown unless the documents are identical.
func TestSelfCompatibleParts(t *testing.T) {
	docs := map[string][]byte{}
	for _, cs := range corpus(t) {
		docs[cs.String()] = cs.Schema
	}
	g := &schemaGen{r: rand.New(rand.NewPCG(5, 6))}
	for i := range 200 {
		_, doc, err := parseValue(g.root())
		if err != nil {
			t.Fatal(err)
		}
		docs["generated "+string(rune('a'+i%26))+string(rune('a'+i/26))] = doc
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		doc := docs[name]
		vs := variants(t, doc)
		if vs == nil {
			continue
		}
		dynamic := bytes.Contains(doc, []byte(`"$dynamicRef"`))
		for _, forward := range []bool{false, true} {
			for _, c := range compat.CompareParts(vs["read"], vs["reordered"], forward) {
				if c.Effect == compat.Breaking || c.Effect == compat.Unknown && !dynamic {
					t.Errorf("%s (forward %t): %s\n%s", name, forward, c, doc)
				}
			}
		}
	}
}
