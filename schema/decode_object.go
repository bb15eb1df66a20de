package schema

import (
	"encoding/binary"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// A fieldSet is a set of a struct's fields, by their bits. Most structs have
// at most 64 fields, which fit in one word with no allocation.
type fieldSet struct {
	word uint64
	more []uint64 // the words for bits 64 and up, allocated when needed
}

func (s *fieldSet) has(bit int) bool {
	if bit < 64 {
		return s.word&(1<<bit) != 0
	}
	i := bit/64 - 1
	return i < len(s.more) && s.more[i]&(1<<(bit%64)) != 0
}

func (s *fieldSet) add(bit int) {
	if bit < 64 {
		s.word |= 1 << bit
		return
	}
	i := bit/64 - 1
	for len(s.more) <= i {
		s.more = append(s.more, 0)
	}
	s.more[i] |= 1 << (bit % 64)
}

// duplicateName records a member name that appeared before in its object;
// the name is on top of the path. (encoding/json keeps the last value;
// jsontext, and so hands, refuses the document.)
func (d *decoder) duplicateName(name jsonString) {
	d.syntaxError(name.start-1, "duplicate object member name "+quote(d.unquote(name)))
}

// object reads a JSON object, whose '{' is at d.pos, into the struct at p.
func (d *decoder) object(n *node, p unsafe.Pointer) {
	if !d.open() {
		return
	}
	// present holds the fields whose names appeared, which is how a
	// duplicate name is found; nulled those of them whose null counted as
	// absent (Options.NullAsAbsent), which still get their default.
	var present, nulled fieldSet
	// The names the struct does not have go on d.names, above base, and
	// into many once there are more than a few, as in skipObject: a
	// duplicate among them is found in constant time.
	base := len(d.names)
	var many *nameSet
	next := 0 // the field after the last one found, where the next is likely
	for first := true; ; first = false {
		c := d.peek()
		if first && c == '}' {
			d.pos++
			break
		}
		var name jsonString
		var f *field
		g := n.expected(next)
		if g != nil && c == '"' {
			// The member the struct lists next, which documents usually
			// send next: its name is matched in place, not scanned (see
			// atNameBytes), as two words when it is short.
			at := false
			if i := d.pos + 1; g.nameMask[0] != 0 && i+16 <= len(d.data) {
				w := d.data[i : i+16]
				at = binary.LittleEndian.Uint64(w)&g.nameMask[0] == g.nameWord[0] &&
					binary.LittleEndian.Uint64(w[8:])&g.nameMask[1] == g.nameWord[1]
			} else {
				at = d.atNameBytes(g)
			}
			if !at {
				g = nil
			}
		}
		if g != nil && c == '"' {
			f, name = g, jsonString{start: d.pos + 1, end: d.pos + 1 + len(g.name)}
			d.pos = name.end + 1
		} else {
			var ok bool
			if name, ok = d.memberName(c, first); !ok {
				return
			}
			if !name.escaped {
				f = n.field(name.raw(d.data), next)
			} else {
				f = n.field([]byte(d.unquote(name)), next)
			}
		}
		if f == nil {
			if d.seenName(base, &many, name) {
				d.pushName(name)
				d.duplicateName(name)
				return
			}
			d.unknown(n, name)
			d.pushName(name)
			if !d.colon() || !d.skipValue(d.peek()) {
				return
			}
			d.pop()
		} else {
			next = f.bit + 1
			d.pushName(name)
			if present.has(f.bit) {
				d.duplicateName(name)
				return
			}
			present.add(f.bit)
			if !d.consume(':') && !d.colon() {
				return
			}
			c := d.peek()
			switch {
			case c == 'n' && d.nullAbsent && !f.required && !f.nullTagged && (!f.node.nullable || f.dflt != nil):
				// A null for an optional field means "absent" (the OpenAI
				// strict-mode convention): skip it, leave the field unset
				// so its default applies, and say so.
				if !d.scanLiteral("null") {
					return
				}
				nulled.add(f.bit)
				d.nulls = append(d.nulls, d.pointer())
			case c == 'n' && f.nullable:
				if !d.scanLiteral("null") {
					return
				}
				reflect.NewAt(f.node.typ, fieldPointer(n, p, f)).Elem().SetZero()
			default:
				q := unsafe.Add(p, f.offset)
				if f.throughPtr {
					q = fieldPointer(n, p, f)
				}
				if c == '"' && f.node.kind == kindString && !f.node.selfRead {
					// What value does for a string, without its two calls.
					*(*string)(q) = d.stringValue(f.node, c)
				} else {
					d.value(f.node, q)
				}
				if d.fatal {
					return
				}
			}
			d.pop()
		}
		if d.consume(',') {
			continue
		}
		if end, ok := d.objectNext(); !ok {
			return
		} else if end {
			break
		}
	}
	d.names = d.names[:base]
	if len(n.fields) <= 64 {
		// Only the absent fields that are required or have a default, in
		// the order of the fields.
		for absent := n.settle &^ (present.word &^ nulled.word); absent != 0; absent &= absent - 1 {
			d.absent(n, p, n.fields[bits.TrailingZeros64(absent)])
		}
		return
	}
	for _, f := range n.fields {
		if !present.has(f.bit) || nulled.has(f.bit) {
			d.absent(n, p, f)
		}
	}
}

// absent reports field f of the struct of node n at p missing when it is
// required, and gives it its default when it has one.
func (d *decoder) absent(n *node, p unsafe.Pointer, f *field) {
	switch {
	case f.required:
		d.fail(KeywordRequired, "missing required property "+strconv.Quote(f.name)+" ("+describeNode(f.node)+")")
	case f.dflt != nil:
		d.setDefault(f, fieldPointer(n, p, f))
	}
}

// expected returns the field at index next, the one after the field found
// last, if its name is plain (field.plainName); else nil.
func (n *node) expected(next int) *field {
	if next < len(n.fields) && n.fields[next].plainName {
		return n.fields[next]
	}
	return nil
}

// atNameBytes reports whether the string at d.pos, whose first byte is '"',
// is the plain name of field f: the name's bytes and then a '"'. Plain bytes
// are what a JSON string holds without escapes, and valid UTF-8, so such a
// string is valid JSON and holds exactly the name. object compares a name
// of up to 15 bytes as two words instead (nameWords), when the document has
// 16 bytes after the '"'; FuzzDifferential's "names" case has names on both
// sides of that length, and names that end the document.
func (d *decoder) atNameBytes(f *field) bool {
	end := d.pos + 1 + len(f.name)
	return end < len(d.data) && d.data[end] == '"' && string(d.data[d.pos+1:end]) == f.name
}

// nameWords returns the two little-endian words of name and a '"', and the
// masks of their bytes, which object compares with the document's; zero
// masks when they take more than 16 bytes.
func nameWords(name string) (words, masks [2]uint64) {
	if len(name)+1 > 16 {
		return words, masks
	}
	for i, c := range []byte(name + `"`) {
		words[i/8] |= uint64(c) << (8 * (i % 8))
		masks[i/8] |= 0xff << (8 * (i % 8))
	}
	return words, masks
}

// maxFieldScan is the most fields a struct may have for field to look a
// name up by comparing it with each field's; a struct with more uses its
// byName map, which exists only then.
const maxFieldScan = 16

// field returns the field named name, or nil. Documents usually list the
// properties in the order of the struct's fields, so the search starts at
// next, the field after the one found last, where it usually ends at once.
func (n *node) field(name []byte, next int) *field {
	if n.byName != nil { // a large struct, and its fields are all compiled
		return n.byName[string(name)]
	}
	// Two loops rather than an index modulo the count, which would divide
	// on every step.
	fields := n.fields
	if next >= len(fields) {
		next = 0
	}
	for _, f := range fields[next:] {
		if len(f.name) == len(name) && f.name == string(name) {
			return f
		}
	}
	for _, f := range fields[:next] {
		if len(f.name) == len(name) && f.name == string(name) {
			return f
		}
	}
	return nil
}

// maxDefaults bounds defaults within defaults: a default that holds a value
// whose absent fields take defaults of their own, and so on. Definition
// rejects a chain this long, which is one that never ends (a recursive type
// whose default leaves its own recursive field absent).
const maxDefaults = 32

// setDefault gives field f, at p, its default value.
func (d *decoder) setDefault(f *field, p unsafe.Pointer) {
	if f.dfltItems && f.node.stringItems {
		// A new slice, so that a handler that changes it changes no other
		// call's value; slices.Clone keeps an empty default empty, not nil.
		*(*[]string)(p) = slices.Clone(f.dfltStrings)
		return
	}
	v := reflect.NewAt(f.node.typ, p).Elem()
	switch {
	case f.dfltShared:
		v.Set(f.dfltValue)
	case f.dfltItems:
		// A new slice, so that a handler that changes it changes no other
		// call's value (and not nil when the default is []); its items are
		// plain values, copied.
		n := f.dfltValue.Len()
		v.Set(reflect.MakeSlice(f.node.typ, n, n))
		reflect.Copy(v, f.dfltValue)
	case f.nullable && string(f.dflt) == "null":
		v.SetZero()
	case d.defaults >= maxDefaults:
		d.fail(KeywordDefault, "the default of "+strconv.Quote(f.name)+" takes defaults within itself without end")
	default:
		if issues := decodeDefaultsDeep(f.node, f.dflt, v, d.defaults+1); len(issues) > 0 {
			d.fail(KeywordDefault, "the default of "+strconv.Quote(f.name)+" fails: "+issues[0].String())
		}
	}
}

// checkDefaults decodes the defaults of the fields of structs that are not
// copied in but decoded on use, and reports the first that fails: checked
// when the plan is complete, a default that would take defaults within
// itself without end is found here, not when a call leaves it out.
func checkDefaults(structs map[reflect.Type]*node) (*node, *field, []Issue) {
	for _, n := range structs {
		for _, f := range n.fields {
			if f.dflt == nil || f.dfltShared || f.dfltItems || f.nullable && string(f.dflt) == "null" {
				continue // no default, or one setDefault copies in
			}
			if issues := decodeDefaultsDeep(f.node, f.dflt, reflect.New(f.node.typ).Elem(), 1); len(issues) > 0 {
				return n, f, issues
			}
		}
	}
	return nil, nil, nil
}

// describeNode names what a missing property should hold, for messages.
func describeNode(n *node) string {
	n = n.deref()
	t := n.jsonType()
	switch {
	case n.kind == kindAny || n.kind == kindRaw || n.kind == kindCustom:
		return "any JSON value"
	case n.kind == kindDuration:
		return durationNoun
	case n.enum != nil && !n.enum.isConst:
		return "one of " + strings.Join(n.enum.text, ", ")
	case t == "integer" || t == "array" || t == "object":
		return "an " + t
	}
	return "a " + t
}

// unknown records a property the struct does not have, naming the closest.
//
// A document may hold many unknown names, and some very long ones, so the
// work is bounded: nothing is done for an issue past the limit, which would
// be dropped, and a name is compared only with the fields whose names are
// close to it in length, since the edit distance between two names is at
// least the difference of their lengths. The cost of an unknown name is so
// at most that of reading it, plus a bound that depends on the type only.
func (d *decoder) unknown(n *node, js jsonString) {
	if d.full() {
		d.dropped++
		return
	}
	name := d.unquote(js)
	msg := "unknown property " + quote(name)
	lower := strings.ToLower(name)
	best, bestDist := "", 4
	for _, f := range n.fields {
		field := strings.ToLower(f.name)
		if len(field) <= len(lower)-bestDist || len(field) >= len(lower)+bestDist {
			continue
		}
		if dist := editDistance(lower, field); dist < bestDist {
			best, bestDist = f.name, dist
		}
	}
	if best != "" {
		msg += "; did you mean " + strconv.Quote(best) + "?"
	} else if len(n.fields) == 0 {
		msg += "; this object takes no properties"
	} else {
		names := make([]string, 0, min(len(n.fields), 12))
		for _, f := range n.fields[:min(len(n.fields), 12)] {
			names = append(names, strconv.Quote(f.name))
		}
		msg += "; the properties are " + strings.Join(names, ", ")
		if len(n.fields) > 12 {
			msg += ", …"
		}
	}
	d.fail(KeywordAdditionalProperties, msg)
}

// fieldPointer returns the address of field f of the struct of node n at p,
// allocating embedded pointers on the way.
func fieldPointer(n *node, p unsafe.Pointer, f *field) unsafe.Pointer {
	if !f.throughPtr {
		return unsafe.Add(p, f.offset)
	}
	return fieldValue(reflect.NewAt(n.typ, p).Elem(), f).Addr().UnsafePointer()
}

// fieldValue returns the struct field f of v, allocating embedded pointers on
// the way.
func fieldValue(v reflect.Value, f *field) reflect.Value {
	if !f.throughPtr {
		if len(f.index) == 1 {
			return v.Field(f.index[0])
		}
		return v.FieldByIndex(f.index)
	}
	for i, x := range f.index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
