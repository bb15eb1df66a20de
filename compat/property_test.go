package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/compat"
	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/tool"
)

// documentOracle validates arguments with hands' validator for schema
// documents (package dynamic), which the tools of other servers use.
type documentOracle struct{ t *tool.RawTool }

func newDocumentOracle(doc []byte) (*documentOracle, error) {
	t, err := dynamic.New("probe", "Probe.", doc, func(context.Context, json.RawMessage) (any, error) { return "", nil })
	if err != nil {
		return nil, err
	}
	return &documentOracle{t}, nil
}

// valid reports whether args pass; ok is false when the oracle refused
// them for another reason than the schema (a limit).
func (o *documentOracle) valid(args []byte) (valid, ok bool) {
	_, err := o.t.CallJSON(context.Background(), args)
	if err == nil {
		return true, true
	}
	if _, isV := errors.AsType[*tool.ValidationError](err); isV {
		return false, true
	}
	return false, false
}

// stats count what a property run exercised, so that it cannot pass by
// checking nothing.
type stats struct {
	pairs, compatible, instances int
}

// checkPair compares two schema documents and, when the check says the
// change is compatible, holds every sampled value the old one accepts to
// the new one.
func checkPair(t *testing.T, r *rand.Rand, oldDoc, newDoc []byte, samples int, st *stats) {
	t.Helper()
	var oldS, newS jsonschema.Schema
	if json.Unmarshal(oldDoc, &oldS) != nil || json.Unmarshal(newDoc, &newS) != nil {
		return
	}
	oldO, err1 := newDocumentOracle(oldDoc)
	newO, err2 := newDocumentOracle(newDoc)
	if err1 != nil || err2 != nil {
		return // not a schema the validator takes
	}
	st.pairs++
	// Input: the old schema's values must pass the new one.
	if changes := compat.Input(&oldS, &newS, nil); !compat.Breaks(changes) {
		st.compatible++
		if data := counterexample(r, &oldS, oldO, newO, samples, st); data != nil {
			t.Errorf("Input says compatible, but %s is valid under the old schema and not the new one\nold: %s\nnew: %s\nchanges:\n%s", data, oldDoc, newDoc, lines(changes))
		}
	}
	// Output, forward: the new schema's values must pass the old one.
	if changes := compat.Output(&oldS, &newS, nil); !compat.Breaks(changes) {
		st.compatible++
		if data := counterexample(r, &newS, newO, oldO, samples, st); data != nil {
			t.Errorf("Output says compatible, but %s is valid under the new schema and not the old one\nold: %s\nnew: %s\nchanges:\n%s", data, oldDoc, newDoc, lines(changes))
		}
	}
}

// counterexample samples values of from that fromO accepts and returns
// the first one toO refuses, or nil.
func counterexample(r *rand.Rand, from *jsonschema.Schema, fromO, toO *documentOracle, samples int, st *stats) []byte {
	smp := &sampler{r: r, root: from}
	for range samples {
		data, err := json.Marshal(smp.value(from, 0))
		if err != nil {
			continue
		}
		if v, ok := fromO.valid(data); !ok || !v {
			continue
		}
		st.instances++
		if v, ok := toO.valid(data); ok && !v {
			return data
		}
	}
	return nil
}

// TestPropertyDocuments: for random pairs of schemas, one a small edit of
// the other, whenever Input says compatible every sampled value valid
// under the old schema is valid under the new one, and whenever Output
// says compatible every sampled value valid under the new schema is valid
// under the old one.
func TestPropertyDocuments(t *testing.T) {
	pairs := 600
	if testing.Short() {
		pairs = 150
	}
	r := rand.New(rand.NewPCG(1, 2))
	g := &schemaGen{r: r}
	var st stats
	for i := 0; i < pairs && !t.Failed(); i++ {
		old := g.root()
		var new map[string]any
		if i%5 == 0 {
			new = g.root() // an unrelated schema
		} else {
			new = g.mutate(old)
		}
		_, oldDoc, err1 := parseValue(old)
		_, newDoc, err2 := parseValue(new)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		checkPair(t, r, oldDoc, newDoc, 60, &st)
	}
	t.Logf("%d pairs, %d compatible (input or output), %d values checked", st.pairs, st.compatible, st.instances)
	if st.compatible < st.pairs/10 || st.instances < st.compatible {
		t.Errorf("the run exercised too little: %+v", st)
	}
}
