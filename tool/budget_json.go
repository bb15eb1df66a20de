package tool

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// A jnode is a JSON value of a structured output, read for shrinking: a
// scalar as its span of the document, a container as its members. An array
// holds nodes only for the items in the first room bytes: a shortened
// array keeps a prefix, which never holds more, so what a huge output
// costs to read is bounded by the budget and not by its size.
type jnode struct {
	kind    jsontext.Kind // '{', '[', or the scalar's kind
	span    []byte        // a scalar's bytes
	keys    [][]byte      // an object's keys, quoted, as they came
	kids    []*jnode      // an object's values, an array's items read
	unread  int           // an array's items past those read
	size    int           // the value's bytes, written compactly; for an array, of the items read
	shrunk  bool          // a shortened array, or a container holding one
	dropped int           // items left out of this array
	at      int64         // where the value starts in the document
}

// maxJSONNodes bounds the values read of one structured output, for the
// values an array holds in its first room bytes are bounded but those of
// an object, kept whole, are not: past it, the output is not shortened.
const maxJSONNodes = 1 << 16

// shrinkJSON returns data, a JSON value valid against s (nil when there is
// no schema), shortened to at most room bytes along s: arrays lose items
// from their end, no fewer than minItems leaves; strings free of enum,
// const, pattern and format are cut at a character boundary, no shorter
// than minLength; object properties are all kept. It returns the arrays it
// shortened, in document order. When data cannot be shortened that far, it
// returns nil: the output is left out, and the text says so.
func shrinkJSON(data []byte, s *jsonschema.Schema, room int) ([]byte, []Shortened) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	budget := maxJSONNodes
	root, err := readNode(dec, room, &budget)
	if err != nil {
		return nil, nil
	}
	sh := &shrinker{root: s}
	n, ok := sh.shrink(root, s, room, "")
	if !ok {
		return nil, nil
	}
	out := make([]byte, 0, n.size)
	out = appendNode(out, n)
	slices.SortFunc(sh.arrays, func(a, b shortenedAt) int { return cmp.Compare(a.at, b.at) })
	arrays := make([]Shortened, len(sh.arrays))
	for i, a := range sh.arrays {
		arrays[i] = a.Shortened
	}
	return out, arrays
}

// errTooMany stops the reading of an output with too many values.
type errTooMany struct{}

func (errTooMany) Error() string { return "too many values" }

// readNode reads the next value of dec.
func readNode(dec *jsontext.Decoder, room int, budget *int) (*jnode, error) {
	if *budget--; *budget < 0 {
		return nil, errTooMany{}
	}
	at := dec.InputOffset()
	switch kind := dec.PeekKind(); kind {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		n := &jnode{kind: kind, size: 2, at: at}
		for dec.PeekKind() != '}' {
			key, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			key = bytes.Clone(key)
			v, err := readNode(dec, room, budget)
			if err != nil {
				return nil, err
			}
			if len(n.kids) > 0 {
				n.size++
			}
			n.keys, n.kids = append(n.keys, key), append(n.kids, v)
			n.size += len(key) + 1 + v.size
		}
		_, err := dec.ReadToken()
		return n, err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		n := &jnode{kind: kind, size: 2, at: at}
		for dec.PeekKind() != ']' {
			if n.size > room { // past any prefix that could be kept: count it only
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				n.unread++
				continue
			}
			v, err := readNode(dec, room, budget)
			if err != nil {
				return nil, err
			}
			if len(n.kids) > 0 {
				n.size++
			}
			n.kids = append(n.kids, v)
			n.size += v.size
		}
		if n.unread > 0 {
			n.size = room + 1 // over, whatever the rest holds
		}
		_, err := dec.ReadToken()
		return n, err
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: kind, span: bytes.Clone(v), size: len(v), at: at}, nil
	}
}

// appendNode writes n compactly.
func appendNode(b []byte, n *jnode) []byte {
	switch n.kind {
	case '{':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, k...), ':')
			b = appendNode(b, n.kids[i])
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendNode(b, k)
		}
		return append(b, ']')
	}
	return append(b, n.span...)
}

// A shrinker shortens the values of one output along its schema.
type shrinker struct {
	root   *jsonschema.Schema
	arrays []shortenedAt
}

type shortenedAt struct {
	Shortened
	at int64
}

// resolve returns s with a local $ref followed, or nil for a schema whose
// constraints the shrinker does not follow (combinations, remote
// references): its arrays are shortened all the same, and its strings are
// not cut.
func (sh *shrinker) resolve(s *jsonschema.Schema) *jsonschema.Schema {
	for range 32 { // a chain of references, bounded
		if s == nil || s.Ref == "" {
			break
		}
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		if s.Ref == "#" {
			s = sh.root
			continue
		}
		if !ok || sh.root == nil {
			return nil
		}
		s = sh.root.Defs[name]
	}
	if s == nil || s.Ref != "" || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || len(s.AllOf) > 0 {
		return nil
	}
	return s
}

// shrink returns n shortened to at most limit bytes, or false.
func (sh *shrinker) shrink(n *jnode, s *jsonschema.Schema, limit int, path string) (*jnode, bool) {
	if n.size <= limit {
		return n, true
	}
	s = sh.resolve(s)
	switch n.kind {
	case '[':
		return sh.shrinkArray(n, s, limit, path)
	case '{':
		return sh.shrinkObject(n, s, limit, path)
	case '"':
		return shrinkString(n, s, limit)
	}
	return nil, false
}

func (sh *shrinker) shrinkArray(n *jnode, s *jsonschema.Schema, limit int, path string) (*jnode, bool) {
	var items *jsonschema.Schema
	least := 0
	if s != nil {
		items = s.Items
		if s.MinItems != nil {
			least = *s.MinItems
		}
		if s.Contains != nil && (s.MinContains == nil || *s.MinContains > 0) {
			least = max(least, len(n.kids)) // which items satisfy contains is not known: keep them
		}
	}
	out := &jnode{kind: '[', size: 2, at: n.at, shrunk: true}
	for i, kid := range n.kids {
		sep := 0
		if i > 0 {
			sep = 1
		}
		if out.size+sep+kid.size <= limit {
			out.kids = append(out.kids, kid)
			out.size += sep + kid.size
			continue
		}
		if left := limit - out.size - sep; left > 0 && (i < least || kid.kind == '{' || kid.kind == '[') {
			var itemSchema *jsonschema.Schema
			if i < len(prefixItems(s)) {
				itemSchema = prefixItems(s)[i]
			} else {
				itemSchema = items
			}
			if k, ok := sh.shrink(kid, itemSchema, left, path+"/"+strconv.Itoa(i)); ok {
				out.kids = append(out.kids, k)
				out.size += sep + k.size
			}
		}
		break
	}
	if len(out.kids) < least {
		return nil, false
	}
	out.dropped = len(n.kids) + n.unread - len(out.kids)
	if out.dropped > 0 {
		sh.arrays = append(sh.arrays, shortenedAt{Shortened{Path: path, Dropped: out.dropped}, n.at})
	}
	return out, true
}

func prefixItems(s *jsonschema.Schema) []*jsonschema.Schema {
	if s == nil {
		return nil
	}
	return s.PrefixItems
}

func (sh *shrinker) shrinkObject(n *jnode, s *jsonschema.Schema, limit int, path string) (*jnode, bool) {
	out := &jnode{kind: '{', keys: n.keys, kids: slices.Clone(n.kids), size: n.size, at: n.at, shrunk: true}
	order := make([]int, len(n.kids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(n.kids[b].size, n.kids[a].size) })
	for _, i := range order {
		need := out.size - limit
		if need <= 0 {
			break
		}
		kid := n.kids[i]
		if kid.size <= 2 {
			break // the largest left cannot give anything
		}
		name, err := jsontext.AppendUnquote(nil, n.keys[i])
		if err != nil {
			return nil, false
		}
		var prop *jsonschema.Schema
		if s != nil {
			if p, ok := s.Properties[string(name)]; ok {
				prop = p
			} else {
				prop = s.AdditionalProperties
			}
		}
		k, ok := sh.shrink(kid, prop, max(kid.size-need, 2), path+"/"+escapePointer(string(name)))
		if !ok {
			continue
		}
		out.kids[i] = k
		out.size -= kid.size - k.size
	}
	if out.size > limit {
		return nil, false
	}
	return out, true
}

// shrinkString cuts a string that its schema lets be cut.
func shrinkString(n *jnode, s *jsonschema.Schema, limit int) (*jnode, bool) {
	if s == nil || len(s.Enum) > 0 || s.Const != nil || s.Pattern != "" || s.Format != "" || limit < 2 {
		return nil, false
	}
	text, err := jsontext.AppendUnquote(nil, n.span)
	if err != nil {
		return nil, false
	}
	keep := min(len(text), limit-2)
	for keep >= 0 {
		cut := text[:runeStart(string(text), keep)]
		quoted, err := jsontext.AppendQuote(nil, cut)
		if err != nil {
			return nil, false
		}
		if len(quoted) <= limit {
			if s.MinLength != nil && utf8.RuneCount(cut) < *s.MinLength {
				return nil, false
			}
			return &jnode{kind: '"', span: quoted, size: len(quoted), at: n.at}, true
		}
		keep -= max(len(quoted)-limit, 1)
	}
	return nil, false
}

// escapePointer escapes a name as a JSON Pointer's token.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
