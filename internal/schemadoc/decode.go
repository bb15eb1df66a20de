package schemadoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrTooDeep is the error of Decode for a document whose arrays and
// objects nest deeper than its bound.
var ErrTooDeep = errors.New("schemadoc: the document nests too deep")

// A Document is a JSON document, decoded. It is safe for concurrent use:
// nothing changes it once Decode returns it.
type Document struct {
	data []byte // as written
	root node
}

// A node is one value of a document.
type node struct {
	kind jsontext.Kind // 'n', 't', 'f', '"', '0', '{' or '['
	raw  []byte        // the value as written: a slice of the document
	text string        // a string's value, or a number as written
	// members are an object's, in the order the document lists them; a
	// name listed more than once is here once, at its first place, with
	// its last value.
	members []member
	elems   []node // an array's
}

// A member is a name and value of an object.
type member struct {
	name  string
	value node
}

// Decode decodes the JSON document data, which it keeps (data must not be
// changed after), reading it once. It takes what encoding/json takes:
// text that is not UTF-8 within strings, which becomes U+FFFD, and a name
// given twice in an object; nothing may follow the document but white
// space. A document whose arrays and objects nest deeper than maxDepth is
// ErrTooDeep, found as soon as the decoding reaches the level past it; a
// document that is not JSON is a *jsontext.SyntacticError (or the error
// of reading past its end), found where it stops being JSON.
func Decode(data []byte, maxDepth int) (*Document, error) {
	r := reader{
		dec:      jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)),
		data:     data,
		maxDepth: maxDepth,
	}
	d := &Document{data: data}
	if err := r.value(&d.root); err != nil {
		return nil, err
	}
	if _, err := r.dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("schemadoc: invalid text after the document, at byte %d", r.dec.InputOffset())
		}
		return nil, err
	}
	return d, nil
}

// Bytes returns the document as written.
func (d *Document) Bytes() []byte { return d.data }

// A reader decodes one document.
type reader struct {
	dec      *jsontext.Decoder
	data     []byte
	maxDepth int
}

// value reads the next value into n.
func (r *reader) value(n *node) error {
	start := r.dec.InputOffset()
	tok, err := r.dec.ReadToken()
	if err != nil {
		return err
	}
	n.kind = tok.Kind()
	switch n.kind {
	case '"', '0':
		n.text = tok.String()
	case '{':
		if r.dec.StackDepth() > r.maxDepth {
			return ErrTooDeep
		}
		if err := r.object(n); err != nil {
			return err
		}
	case '[':
		if r.dec.StackDepth() > r.maxDepth {
			return ErrTooDeep
		}
		for r.dec.PeekKind() != ']' {
			n.elems = append(n.elems, node{})
			if err := r.value(&n.elems[len(n.elems)-1]); err != nil {
				return err
			}
		}
		if _, err := r.dec.ReadToken(); err != nil {
			return err
		}
	}
	// What lies between the previous token and the value is white space
	// and a separator (':' or ','), none of which begins a value.
	n.raw = bytes.TrimLeft(r.data[start:r.dec.InputOffset()], " \t\r\n:,")
	return nil
}

// smallObject is how many members an object may have before object looks
// for a name given twice in a map rather than in the members so far.
const smallObject = 16

// object reads the members of an object, whose '{' is read, into n.
func (r *reader) object(n *node) error {
	var index map[string]int // of n.members by name, once there are more than smallObject
	for r.dec.PeekKind() != '}' {
		tok, err := r.dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		var v node
		if err := r.value(&v); err != nil {
			return err
		}
		at := -1
		if index != nil {
			if i, ok := index[name]; ok {
				at = i
			}
		} else {
			for i := range n.members {
				if n.members[i].name == name {
					at = i
					break
				}
			}
		}
		if at >= 0 {
			n.members[at].value = v
			continue
		}
		n.members = append(n.members, member{name: name, value: v})
		switch {
		case index != nil:
			index[name] = len(n.members) - 1
		case len(n.members) > smallObject:
			index = make(map[string]int, 2*len(n.members))
			for i, m := range n.members {
				index[m.name] = i
			}
		}
	}
	_, err := r.dec.ReadToken()
	return err
}

// member returns the value of the member name of n, an object, or nil.
func (n *node) member(name string) *node {
	for i := range n.members {
		if n.members[i].name == name {
			return &n.members[i].value
		}
	}
	return nil
}

// TypedObject returns the document with "type":"object" added at the
// front of its root, the rest of its bytes as written, when the root is
// an object with no member "type" and none of the members kinds; else d.
// The document is not read again: the new one shares d's values.
func (d *Document) TypedObject(kinds []string) *Document {
	if d.root.kind != '{' || d.root.member("type") != nil {
		return d
	}
	for _, k := range kinds {
		if d.root.member(k) != nil {
			return d
		}
	}
	const typed = `"type":"object"`
	open := bytes.IndexByte(d.data, '{') + 1
	data := make([]byte, 0, len(d.data)+len(typed)+1)
	data = append(data, d.data[:open]...)
	data = append(data, typed...)
	if len(d.root.members) > 0 {
		data = append(data, ',')
	}
	data = append(data, d.data[open:]...)
	t := &Document{data: data, root: d.root}
	t.root.raw = bytes.TrimSpace(data)
	at := len(d.data[:open]) // the value "object" in data
	t.root.members = append([]member{{name: "type", value: node{kind: '"', text: "object", raw: data[at+len(`"type":`) : at+len(typed)]}}}, d.root.members...)
	return t
}
