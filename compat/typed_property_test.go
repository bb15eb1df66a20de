package compat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/compat"
	"github.com/hands-go/hands/schema"
)

// A fieldSpec is one field of a random Go struct: what package schema
// derives a tool's input schema from.
type fieldSpec struct {
	name string // its JSON name
	kind int    // an index into fieldKinds
	opts []string
	omit bool
	sub  []fieldSpec // the fields of a nested struct
}

var fieldKinds = []struct {
	name string
	typ  reflect.Type // nil: a nested struct
	opts []string     // tool tag entries that fit the kind
}{
	{"string", reflect.TypeFor[string](), []string{"minLength=1", "minLength=2", "maxLength=3", "maxLength=5", "pattern='^[a-z]+$'", "enum=a|ab|abc", "format=date"}},
	{"int", reflect.TypeFor[int](), []string{"minimum=0", "minimum=1", "maximum=3", "maximum=7", "exclusiveMinimum=-1", "multipleOf=2", "enum=1|2|3"}},
	{"float", reflect.TypeFor[float64](), []string{"minimum=0", "maximum=2.5", "multipleOf=0.5", "exclusiveMaximum=7"}},
	{"bool", reflect.TypeFor[bool](), nil},
	{"strings", reflect.TypeFor[[]string](), []string{"minItems=1", "maxItems=2", "uniqueItems", "maxLength=3"}},
	{"ints", reflect.TypeFor[[]int](), []string{"minItems=1", "maxItems=3", "minimum=0"}},
	{"*int", reflect.TypeFor[*int](), []string{"minimum=0", "maximum=5"}},
	{"struct", nil, nil},
}

type structGen struct{ r *rand.Rand }

func (g *structGen) fields(depth int) []fieldSpec {
	var out []fieldSpec
	for _, n := range names {
		if g.r.IntN(2) == 0 {
			out = append(out, g.field(n, depth))
		}
	}
	return out
}

func (g *structGen) field(name string, depth int) fieldSpec {
	k := g.r.IntN(len(fieldKinds))
	if fieldKinds[k].typ == nil && depth <= 0 {
		k = 0
	}
	f := fieldSpec{name: name, kind: k, omit: g.r.IntN(3) == 0}
	if fieldKinds[k].typ == nil {
		f.sub = g.fields(depth - 1)
	}
	for _, o := range fieldKinds[k].opts {
		if g.r.IntN(4) == 0 {
			f.opts = append(f.opts, o)
		}
	}
	return f
}

// mutate changes a copy of fields the way an author edits a struct.
func (g *structGen) mutate(fields []fieldSpec, depth int) []fieldSpec {
	out := slices.Clone(fields)
	for i := range out {
		out[i].opts = slices.Clone(out[i].opts)
	}
	switch g.r.IntN(7) {
	case 0: // add a field
		var free []string
		for _, n := range names {
			if !slices.ContainsFunc(out, func(f fieldSpec) bool { return f.name == n }) {
				free = append(free, n)
			}
		}
		if len(free) > 0 {
			out = append(out, g.field(free[g.r.IntN(len(free))], depth))
		}
	case 1: // remove one
		if len(out) > 0 {
			i := g.r.IntN(len(out))
			out = slices.Delete(out, i, i+1)
		}
	case 2: // required or not
		if len(out) > 0 {
			i := g.r.IntN(len(out))
			out[i].omit = !out[i].omit
		}
	case 3: // a constraint added or dropped
		if len(out) > 0 {
			i := g.r.IntN(len(out))
			opts := fieldKinds[out[i].kind].opts
			if len(out[i].opts) > 0 && g.r.IntN(2) == 0 {
				out[i].opts = slices.Delete(out[i].opts, 0, 1)
			} else if len(opts) > 0 {
				out[i].opts = append(out[i].opts, opts[g.r.IntN(len(opts))])
			}
		}
	case 4: // int and float swap
		for i := range out {
			switch fieldKinds[out[i].kind].name {
			case "int":
				out[i].kind, out[i].opts = 2, nil
			case "float":
				out[i].kind, out[i].opts = 1, nil
			default:
				continue
			}
			break
		}
	case 5: // inside a nested struct
		for i := range out {
			if out[i].sub != nil {
				out[i].sub = g.mutate(out[i].sub, depth-1)
				break
			}
		}
	case 6: // a field's type replaced
		if len(out) > 0 {
			i := g.r.IntN(len(out))
			out[i] = g.field(out[i].name, depth)
		}
	}
	return out
}

// structType builds the Go type of fields; it panics on none of them.
func structType(fields []fieldSpec) reflect.Type {
	sf := make([]reflect.StructField, 0, len(fields))
	for i, f := range fields {
		t := fieldKinds[f.kind].typ
		if t == nil {
			t = structType(f.sub)
		}
		omit := ""
		if f.omit {
			omit = ",omitempty"
		}
		tag := fmt.Sprintf(`json:"%s%s"`, f.name, omit)
		if len(f.opts) > 0 {
			tag += fmt.Sprintf(` tool:"%s"`, strings.Join(f.opts, ","))
		}
		sf = append(sf, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: t, Tag: reflect.StructTag(tag)})
	}
	return reflect.StructOf(sf)
}

func validates(v *schema.Validator, data []byte) (valid, ok bool) {
	err := v.Validate(data)
	if err == nil {
		return true, true
	}
	if _, isS := errors.AsType[*schema.Error](err); isS {
		return false, true
	}
	return false, false
}

// TestPropertyTyped is TestPropertyDocuments for the schemas hands derives
// from Go structs, with package schema's validator as the oracle: for
// random struct types and edits of them, whenever Input says the edit is
// compatible, every sampled argument object the old type accepts, the new
// type accepts.
func TestPropertyTyped(t *testing.T) {
	pairs := 1500
	if testing.Short() {
		pairs = 200
	}
	r := rand.New(rand.NewPCG(7, 8))
	g := &structGen{r: r}
	var st stats
	for i := 0; i < pairs && !t.Failed(); i++ {
		oldFields := g.fields(2)
		newFields := g.mutate(oldFields, 2)
		oldV, err1 := schema.ForType(structType(oldFields), nil)
		newV, err2 := schema.ForType(structType(newFields), nil)
		if err1 != nil || err2 != nil {
			continue // a tag that does not fit (bounds no value meets)
		}
		st.pairs++
		oldS, newS := oldV.Schema(), newV.Schema()
		changes := compat.Input(oldS, newS, nil)
		if compat.Breaks(changes) {
			continue
		}
		st.compatible++
		smp := &sampler{r: r, root: oldS}
		for range 60 {
			data, err := json.Marshal(smp.value(oldS, 0))
			if err != nil {
				continue
			}
			if v, ok := validates(oldV, data); !ok || !v {
				continue
			}
			st.instances++
			if v, ok := validates(newV, data); ok && !v {
				o, _ := json.Marshal(oldS)
				n, _ := json.Marshal(newS)
				t.Errorf("Input says compatible, but %s is valid for %v and not for %v\nold: %s\nnew: %s\nnew error: %v\nchanges:\n%s",
					data, structType(oldFields), structType(newFields), o, n, newV.Validate(data), lines(changes))
				break
			}
		}
	}
	t.Logf("%d pairs, %d compatible, %d old values checked under the new type", st.pairs, st.compatible, st.instances)
	if st.compatible < st.pairs/10 || st.instances < st.compatible {
		t.Errorf("the run exercised too little: %+v", st)
	}
}
