package compat

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// kinds of JSON value, as bits; "number" is intKind|fracKind.
type kinds uint8

const (
	nullKind kinds = 1 << iota
	boolKind
	objectKind
	arrayKind
	stringKind
	intKind        // a number with no fractional part
	fracKind       // any other number
	allKinds kinds = 1<<iota - 1
)

// kindNames lists the kinds in the order messages name them.
var kindNames = []struct {
	k    kinds
	name string
}{{nullKind, "null"}, {boolKind, "boolean"}, {objectKind, "object"}, {arrayKind, "array"}, {stringKind, "string"}, {intKind, "integer"}, {fracKind, "fractional number"}}

func kindOf(name string) kinds {
	switch name {
	case "null":
		return nullKind
	case "boolean":
		return boolKind
	case "object":
		return objectKind
	case "array":
		return arrayKind
	case "string":
		return stringKind
	case "integer":
		return intKind
	case "number":
		return intKind | fracKind
	}
	return 0 // an unknown type name accepts nothing, as validators do
}

// declaredKinds returns the kinds the type keyword of s admits: all of
// them when s has none.
func declaredKinds(s *jsonschema.Schema) kinds {
	switch {
	case s.Type != "":
		return kindOf(s.Type)
	case s.Types != nil:
		var k kinds
		for _, t := range s.Types {
			k |= kindOf(t)
		}
		return k
	}
	return allKinds
}

func (k kinds) String() string {
	if k&(intKind|fracKind) == intKind|fracKind {
		k = k&^(intKind|fracKind) | fracKind // printed as "number" below
	}
	var names []string
	for _, n := range kindNames {
		if k&n.k != 0 {
			if n.k == fracKind {
				names = append(names, "number")
				continue
			}
			names = append(names, n.name)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return "[" + strings.Join(names, ",") + "]"
}

// valueKind returns the kind of a decoded JSON value.
func valueKind(v any) kinds {
	switch v := v.(type) {
	case nil:
		return nullKind
	case bool:
		return boolKind
	case map[string]any:
		return objectKind
	case []any:
		return arrayKind
	case string:
		return stringKind
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return intKind
		}
		return fracKind
	case json.Number:
		f, err := v.Float64()
		if err == nil {
			return valueKind(f)
		}
	}
	return 0
}

// key returns v as canonical JSON, for comparing values; numbers compare
// by value.
func key(v any) string {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			v = f
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "\x00" + err.Error() // never equal to a JSON text
	}
	return string(data)
}

func show(v any) string {
	s := key(v)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func asFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}
