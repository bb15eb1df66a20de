package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type benchAddress struct {
	Street string `json:"street" jsonschema:"street and number" tool:"minLength=1,maxLength=200"`
	City   string `json:"city" jsonschema:"city" tool:"minLength=1"`
	Zip    string `json:"zip,omitempty" tool:"pattern=^[0-9]{5}$"`
}

type benchUser struct {
	Username string            `json:"username" jsonschema:"login name" tool:"minLength=3,maxLength=20,pattern=^[a-z0-9_]+$"`
	Email    string            `json:"email" jsonschema:"contact address" tool:"format=email"`
	Age      *int              `json:"age,omitempty" jsonschema:"age in years" tool:"minimum=1"`
	Roles    []string          `json:"roles,omitempty" tool:"enum=admin|user|guest,default=[\"user\"]"`
	Address  benchAddress      `json:"address"`
	Labels   map[string]string `json:"labels,omitempty" tool:"maxProperties=20"`
}

var benchValid = []byte(`{"username":"ada_lovelace","email":"ada@example.com","age":36,"address":{"street":"12 St James's Square","city":"London","zip":"12345"},"labels":{"team":"analytics","tier":"gold"}}`)

// BenchmarkCompile measures what a new input type costs, uncached: "plan"
// reads the type into the validating decoder's plan, which is cached per
// type; "schema" writes the JSON Schema from a plan, which Validator.Schema
// (and so every tool.Spec) does on each call; "both" is the first use of a
// type, plan and schema. "schema_alloc" only allocates as many zero Schema
// values as the tree has: the part of "schema" no code of hands can remove.
func BenchmarkCompile(b *testing.B) {
	t := reflect.TypeFor[benchUser]()
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := compileUncached(t, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("schema", func(b *testing.B) {
		p, err := compileUncached(t, false)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			emit(p.root, p.schemas)
		}
	})
	b.Run("schema_alloc", func(b *testing.B) {
		p, err := compileUncached(t, false)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			schemaSink = make([]jsonschema.Schema, p.schemas)
		}
	})
	b.Run("both", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := compileUncached(t, false)
			if err != nil {
				b.Fatal(err)
			}
			emit(p.root, p.schemas)
		}
	})
}

var schemaSink []jsonschema.Schema

// BenchmarkDecode measures validation and decoding in one pass, next to a
// plain encoding/json decode of the same bytes (no validation) for scale.
func BenchmarkDecode(b *testing.B) {
	b.Run("hands", func(b *testing.B) {
		v := mustFor[benchUser](b)
		b.ReportAllocs()
		b.SetBytes(int64(len(benchValid)))
		for b.Loop() {
			var u benchUser
			if err := v.Decode(benchValid, &u); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchValid)))
		for b.Loop() {
			var u benchUser
			if err := json.Unmarshal(benchValid, &u); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUnknownKeys measures objects with many members, at several
// sizes, so that a cost per member that grows with their number shows in
// the ns/key metric. "struct" sends that many unknown properties (the
// document is rejected, and the first 100 issues listed); "map" fills a
// map[string]int; "any" and "raw" read the object as a value kept whole
// (an any, a json.RawMessage). The size limit is off, since 500k members
// take more than 4 MiB.
func BenchmarkUnknownKeys(b *testing.B) {
	v, err := For[hostileKeys](&Options{Limits: Limits{MaxBytes: -1}})
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range []struct {
		name          string
		before, after string
		valid         bool
	}{
		{"struct", `{`, `}`, false},
		{"map", `{"map":{`, `}}`, true},
		{"any", `{"any":{`, `}}`, true},
		{"raw", `{"raw":{`, `}}`, true},
	} {
		for _, n := range []int{1_000, 10_000, 100_000, 500_000} {
			doc := []byte(shape.before + members(n, "") + shape.after)
			b.Run(fmt.Sprintf("%s/%dk", shape.name, n/1000), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					var got hostileKeys
					if err := v.Decode(doc, &got); (err == nil) != shape.valid {
						b.Fatalf("Decode = %.200v", err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
			})
		}
	}
}
