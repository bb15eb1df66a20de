package schema

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/jsonname"
)

// A jsonField is one struct field as encoding/json sees it: embedded structs
// flattened, names from the json tag, and fields hidden by Go's embedding
// rules removed.
type jsonField struct {
	name      string
	tagged    bool  // the name came from the json tag
	index     []int // the reflect index path from the outer struct
	sf        reflect.StructField
	omitEmpty bool
	omitZero  bool
	stringOpt bool // the json tag has the ",string" option
	tags      fieldTags
}

// fieldTags are the values of the struct tags hands reads.
type fieldTags struct {
	json, jsonschema, tool string
	hasJSONSchema, hasTool bool
}

// readTags reads the json, jsonschema and tool keys of a struct tag in one
// pass, with the results reflect.StructTag.Lookup gives for each.
func readTags(tag reflect.StructTag) fieldTags {
	var t fieldTags
	var decided [3]bool // json, jsonschema, tool: found, or its value failed to unquote
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		name := string(tag[:i])
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		quoted := string(tag[:i+1])
		tag = tag[i+1:]
		k := slices.Index([]string{"json", "jsonschema", "tool"}, name)
		if k < 0 || decided[k] {
			continue
		}
		decided[k] = true
		value := quoted[1 : len(quoted)-1]
		if strings.IndexByte(value, '\\') >= 0 || strings.IndexByte(value, '\n') >= 0 || !utf8.ValidString(value) {
			var err error
			if value, err = strconv.Unquote(quoted); err != nil {
				continue // Lookup reports the key absent
			}
		}
		switch k {
		case 0:
			t.json = value
		case 1:
			t.jsonschema, t.hasJSONSchema = value, true
		case 2:
			t.tool, t.hasTool = value, true
		}
	}
	return t
}

// jsonFields appends to dst the JSON fields of struct type t in the order
// encoding/json encodes them. It follows encoding/json's typeFields.
func jsonFields(dst []jsonField, t reflect.Type) []jsonField {
	if fields, ok := flatFields(dst, t); ok {
		return fields
	}
	type pending struct {
		typ   reflect.Type
		index []int
	}
	var fields []jsonField
	current := []pending{}
	next := []pending{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tags := readTags(sf.Tag)
				tag := tags.json
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !jsonname.Valid(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					jf := jsonField{
						name:      name,
						tagged:    name != "",
						index:     index,
						sf:        sf,
						omitEmpty: hasOption(opts, "omitempty"),
						omitZero:  hasOption(opts, "omitzero"),
						stringOpt: hasOption(opts, "string"),
						tags:      tags,
					}
					if jf.name == "" {
						jf.name = sf.Name
					}
					fields = append(fields, jf)
					if count[f.typ] > 1 {
						// Two embeddings of the same type at this depth: add
						// a twin so that the dominance pass drops both.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, pending{typ: ft, index: index})
				}
			}
		}
	}

	slices.SortFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})

	// Keep, for each name, the dominant field; drop names whose dominant
	// field is ambiguous.
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		name := fields[i].name
		for advance = 1; i+advance < len(fields); advance++ {
			if fields[i+advance].name != name {
				break
			}
		}
		group := fields[i : i+advance]
		if len(group) == 1 {
			out = append(out, group[0])
			continue
		}
		if len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue
		}
		out = append(out, group[0])
	}
	fields = out
	slices.SortFunc(fields, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return append(dst, fields...)
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// flatFields is jsonFields for the common struct that embeds nothing: the
// fields in order, less those whose names clash (encoding/json drops every
// field of a name that two fields at the same depth, tagged alike, share).
// It reports false, with dst unchanged, when t has an embedded field.
func flatFields(dst []jsonField, t reflect.Type) ([]jsonField, bool) {
	base := len(dst)
	fields := slices.Grow(dst, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return dst, false
		}
		if !sf.IsExported() {
			continue
		}
		tags := readTags(sf.Tag)
		tag := tags.json
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		tagged := jsonname.Valid(name)
		if !tagged {
			name = sf.Name
		}
		fields = append(fields, jsonField{
			name:      name,
			tagged:    tagged,
			index:     fieldIndex(i),
			sf:        sf,
			omitEmpty: hasOption(opts, "omitempty"),
			omitZero:  hasOption(opts, "omitzero"),
			stringOpt: hasOption(opts, "string"),
			tags:      tags,
		})
	}
	// A clash is rare; look for one in place, and resolve it as the general
	// path does: a tagged field dominates untagged ones, and equals cancel.
	own := fields[base:]
	for i := 0; i < len(own); i++ {
		for j := i + 1; j < len(own); j++ {
			if own[i].name == own[j].name {
				return append(fields[:base], dominant(own)...), true
			}
		}
	}
	return fields, true
}

// indexes backs the one-step index paths of fieldIndex, which are never
// changed, so that every field of a flat struct shares them.
var indexes = func() (a [256]int) {
	for i := range a {
		a[i] = i
	}
	return a
}()

// fieldIndex returns the index path []int{i}.
func fieldIndex(i int) []int {
	if i < len(indexes) {
		return indexes[i : i+1 : i+1]
	}
	return []int{i}
}

// dominant keeps, for each name, the one tagged field among fields of that
// name, or the field itself when it is alone; names with no single winner
// are dropped. The order of fields is kept.
func dominant(fields []jsonField) []jsonField {
	out := fields[:0:0]
	for _, f := range fields {
		tagged, total := 0, 0
		for _, g := range fields {
			if g.name == f.name {
				total++
				if g.tagged {
					tagged++
				}
			}
		}
		switch {
		case total == 1:
		case tagged == 1 && f.tagged:
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}
