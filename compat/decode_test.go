package compat_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/compat"
	"github.com/hands-go/hands/internal/cost"
)

// parseAsSnapshot reads doc as the input schema of a tool in a snapshot.
func parseAsSnapshot(doc []byte) (*jsonschema.Schema, error) {
	snap, err := compat.ParseSnapshot([]byte(`{"tools":[{"name":"t","inputSchema":` + string(doc) + `}]}`))
	if err != nil {
		return nil, err
	}
	return snap.Tools[0].InputSchema, nil
}

// checkDecodedAlike holds ParseSnapshot to reading doc as jsonschema-go
// does: the same schema, or an error from both.
func checkDecodedAlike(t *testing.T, what string, doc []byte) {
	t.Helper()
	var want *jsonschema.Schema // as a Tool's field reads it: null is nil
	wantErr := json.Unmarshal(doc, &want)
	got, err := parseAsSnapshot(doc)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Errorf("%s: ParseSnapshot error %v, jsonschema-go's %v\n%s", what, err, wantErr, doc)
	case err == nil && !reflect.DeepEqual(got, want):
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: ParseSnapshot read\n%s\njsonschema-go\n%s\nfrom\n%s", what, g, w, doc)
	}
}

// TestParseSnapshotReadsLikeJSONSchemaGo: ParseSnapshot, which reads
// schemas in one pass, reads the same model as jsonschema-go's decoder,
// on the corpus, on generated schemas and on the odd forms of keywords.
func TestParseSnapshotReadsLikeJSONSchemaGo(t *testing.T) {
	for _, cs := range corpus(t) {
		checkDecodedAlike(t, cs.String(), cs.Schema)
	}
	g := &schemaGen{r: rand.New(rand.NewPCG(7, 8))}
	for range 300 {
		_, doc, err := parseValue(g.root())
		if err != nil {
			t.Fatal(err)
		}
		checkDecodedAlike(t, "generated", doc)
	}
	for _, doc := range []string{
		`true`, `false`, `{}`, `null`,
		`{"items":null}`, `{"items":true}`, `{"items":false}`, `{"items":[]}`, `{"items":[true,null,{"type":"string"}]}`,
		`{"dependencies":{"a":["b"],"c":{"required":["d"]},"e":null,"f":true}}`, `{"dependencies":null}`, `{"dependencies":{}}`,
		`{"properties":{"a":null,"b":false}}`, `{"properties":null}`, `{"properties":{}}`, `{"allOf":[]}`, `{"anyOf":null}`,
		`{"not":null}`, `{"not":true}`, `{"const":null}`, `{"enum":[null,{"a":[1]}]}`, `{"default":{"properties":{"a":1}}}`,
		`{"x-vendor":{"properties":{"a":{"type":"string"}}},"$comment":"c"}`, `{"propert\u0069es":{"a":{"type":"integer"}}}`,
		`{"minLength":1.0}`, `{"type":["string","null"],"maxItems":3}`, `{"tYpe":"string"}`,
		// Refused by both.
		`{"properties":5}`, `{"properties":{"a":5}}`, `{"allOf":{}}`, `{"allOf":[5]}`, `{"items":5}`, `{"not":"x"}`,
		`{"dependencies":{"a":5}}`, `{"dependencies":{"a":[1]}}`, `{"minLength":1.5}`, `{"type":5}`, `5`, `"s"`,
	} {
		checkDecodedAlike(t, doc, []byte(doc))
	}
}

// TestParseSnapshotRefuses: a name given twice in one object is an error,
// not a merge.
func TestParseSnapshotRefuses(t *testing.T) {
	for _, doc := range []string{
		`{"properties":{"a":{"type":"string"}},"properties":{"b":{}}}`,
		`{"properties":{"a":{"type":"string"},"a":{"type":"integer"}}}`,
		`{"type":"string","type":"integer"}`,
	} {
		if _, err := parseAsSnapshot([]byte(doc)); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("ParseSnapshot(%s) = %v, want a name given twice", doc, err)
		}
	}
}

// TestParseSnapshotCaseVariant: a keyword holding subschemas written in
// another case is an unknown keyword, as validators read it, and the
// comparison reports the schema as Unknown.
func TestParseSnapshotCaseVariant(t *testing.T) {
	s, err := parseAsSnapshot([]byte(`{"type":"object","Properties":{"a":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Properties != nil || s.Extra["Properties"] == nil {
		t.Errorf("Properties read as %v, Extra %v; want only an unknown keyword", s.Properties, s.Extra)
	}
	other, _ := parseAsSnapshot([]byte(`{"type":"object"}`))
	if changes := compat.Input(other, s, nil); !compat.Breaks(changes) {
		t.Errorf("a schema with a keyword in another case compares as\n%s", lines(changes))
	}
}

// deepSnapshot returns a snapshot whose input schema nests depth schemas,
// each with pad bytes of description.
func deepSnapshot(depth, pad int) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[{"name":"deep","inputSchema":`)
	desc := strings.Repeat("x", pad)
	for range depth {
		fmt.Fprintf(&b, `{"type":"array","description":%q,"items":`, desc)
	}
	b.WriteString(`{"type":"string"}`)
	b.WriteString(strings.Repeat("}", depth))
	b.WriteString(`}]}`)
	return []byte(b.String())
}

// wideSnapshot returns a snapshot whose input schema has n properties.
func wideSnapshot(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[{"name":"wide","inputSchema":{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"integer","minimum":0}`, i)
	}
	b.WriteString(`}}}]}`)
	return []byte(b.String())
}

// TestParseSnapshotIsLinear: reading a snapshot costs in proportion to its
// size, whether it is deep or wide (jsonschema-go's decoder costs its size
// times its depth).
func TestParseSnapshotIsLinear(t *testing.T) {
	docs := map[int][]byte{}
	parse := func(size int) {
		if _, err := compat.ParseSnapshot(docs[size]); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []int{45, 180} {
		docs[d] = deepSnapshot(d, 2000)
	}
	cost.Linear(t, "deep", 45, 180, parse)
	docs = map[int][]byte{}
	for _, n := range []int{2000, 8000} {
		docs[n] = wideSnapshot(n)
	}
	cost.Linear(t, "wide", 2000, 8000, parse)
}

// BenchmarkParseSnapshot reads a snapshot of 2 MB nested 97 deep, and one
// of 100,000 properties.
func BenchmarkParseSnapshot(b *testing.B) {
	for _, bb := range []struct {
		name string
		data []byte
	}{{"deep", deepSnapshot(97, 21<<10)}, {"wide", wideSnapshot(100_000)}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.data)))
			for b.Loop() {
				if _, err := compat.ParseSnapshot(bb.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// renameLists returns n tools removed and n added, each input schema of
// width properties, every pair differing only in its last property, so
// that no rename is found and each pair is compared to its end.
func renameLists(n, width int) (old, new []compat.Tool) {
	schemaOf := func(last string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
		for i := range width {
			s.Properties[fmt.Sprintf("p%d", i)] = &jsonschema.Schema{Type: "integer"}
		}
		s.Properties["last"] = &jsonschema.Schema{Type: last}
		return s
	}
	for i := range n {
		old = append(old, compat.Tool{Name: fmt.Sprintf("old%d", i), InputSchema: schemaOf("string")})
		new = append(new, compat.Tool{Name: fmt.Sprintf("new%d", i), InputSchema: schemaOf("boolean")})
	}
	return old, new
}

// TestRenamesAreBounded: naming likely renames among n removed and n
// added tools costs in proportion to n, not to n², as its steps are one
// budget.
func TestRenamesAreBounded(t *testing.T) {
	lists := map[int][2][]compat.Tool{}
	for _, n := range []int{25, 100} {
		o, nw := renameLists(n, 60)
		lists[n] = [2][]compat.Tool{o, nw}
	}
	cost.Linear(t, "renames", 25, 100, func(n int) { compat.Tools(lists[n][0], lists[n][1], nil) })
}
