package compat_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/compat"
)

// FuzzInput compares two fuzzed schemas: the check never panics, and when
// it says the change is compatible, every sampled value the old schema
// accepts, the new one accepts (hands' validator for schema documents is
// the oracle). The seeds are the table tests' pairs.
func FuzzInput(f *testing.F) {
	for _, tt := range inputCases {
		f.Add(tt.old, tt.new, uint64(1))
	}
	f.Fuzz(func(t *testing.T, old, new string, seed uint64) {
		var oldS, newS jsonschema.Schema
		if json.Unmarshal([]byte(old), &oldS) != nil || json.Unmarshal([]byte(new), &newS) != nil {
			return
		}
		changes := compat.Input(&oldS, &newS, &compat.Options{MaxSteps: 1 << 14})
		for _, c := range changes {
			if c.Kind == "" || c.Message == "" {
				t.Errorf("a change without kind or message: %+v", c)
			}
		}
		// The same pair as jsonschema-go read it (which drops what it has
		// no field for, such as "$ref": ""), as the property "v" of an
		// argument object.
		wrap := func(s *jsonschema.Schema) []byte {
			data, err := json.Marshal(s)
			if err != nil {
				t.Skip(err)
			}
			return []byte(`{"type":"object","properties":{"v":` + string(data) + `},"required":["v"],"additionalProperties":false}`)
		}
		var st stats
		checkPair(t, rand.New(rand.NewPCG(seed, seed)), wrap(&oldS), wrap(&newS), 20, &st)
	})
}

// FuzzParseSnapshot reads fuzzed tool lists: it never panics, and a list
// it reads is written and read back as the same tools, versions included,
// with no change between them that the list does not have with itself.
func FuzzParseSnapshot(f *testing.F) {
	for _, doc := range []string{
		`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`,
		`[{"name":"a","inputSchema":{}` + meta("2", "1") + `}]`,
		`[{"name":"a","inputSchema":{},"_meta":{"com.github.hands-go/version":2,"com.github.hands-go/migratesFrom":["1",2]}}]`,
		`[{"name":"a","inputSchema":{},"_meta":{"com.github.hands-go/version":" 1","x":{}}}]`,
		`[{"name":"a","inputSchema":{"type":"object","properties":{"b":{"type":"string"}}},"annotations":{"readOnlyHint":true}}]`,
	} {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		s, err := compat.ParseSnapshot([]byte(doc))
		if err != nil {
			return
		}
		data, err := s.Marshal()
		if err != nil {
			return // a schema jsonschema-go reads but will not write
		}
		again, err := compat.ParseSnapshot(data)
		if err != nil {
			t.Fatalf("ParseSnapshot(Marshal()) = %v for\n%s", err, data)
		}
		// A schema the check flags against itself (a key like "tYpe", read
		// as "type" by some validators) is flagged against its copy too.
		if changes := compat.Tools(s.Tools, again.Tools, nil); len(changes) != 0 && len(compat.Tools(s.Tools, s.Tools, nil)) == 0 {
			t.Errorf("a snapshot read back differs from itself:\n%s", lines(changes))
		}
		for i := range s.Tools {
			if a, b := s.Tools[i].Meta, again.Tools[i].Meta; (a == nil) != (b == nil) || a != nil && (a.Version != b.Version || !slices.Equal(a.MigratesFrom, b.MigratesFrom)) {
				t.Errorf("tool %s: Meta %+v read back as %+v", s.Tools[i].Name, a, b)
			}
		}
	})
}
