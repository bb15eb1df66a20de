package compat_test

import (
	"encoding/json"
	"math/rand/v2"
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
