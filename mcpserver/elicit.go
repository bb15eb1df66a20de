package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/jsonname"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicit asks the user of the client of the call ctx serves to fill in a
// form (elicitation/create): message says what for, and T, a struct whose
// fields are strings, numbers, booleans or lists of enumerated strings,
// gives the form — its schema is schema.For[T]'s, with the descriptions,
// enums, bounds and defaults of the jsonschema and tool tags — and receives
// the answer, validated and decoded as tool arguments are:
//
//	type Payer struct {
//		Account string `json:"account" jsonschema:"the account that pays" tool:"enum=main|savings"`
//	}
//	payer, err := mcpserver.Elicit[Payer](ctx, "Which account should pay?")
//	if err != nil {
//		return "", err
//	}
//
// The options of an enumerated field get titles, which the client shows
// in place of the values, from an elicit tag (see ElicitTag):
//
//	Account string `json:"account" tool:"enum=main|savings" elicit:"titles=Main account|Savings account"`
//
// An error matches ErrDeclined when the user declined or dismissed the
// form, and ErrUnsupported when the client did not declare elicitation.
// As with Sample, on protocol versions from 2026-07-28 the handler returns
// Elicit's error as it is and runs again with the answer; WithInputKey
// names the request's key.
//
// A call that did not come over MCP, such as one inside agent.Run, asks
// with tool.Ask instead, with message as the question: the handler returns
// the *tool.InterruptError, the run pauses, and when it resumes with the
// person's answer, the handler runs again and Elicit decodes the answer —
// T's JSON, or, when T has one string field, that field's text. So one
// handler asks its user both when served over MCP and inside an agent.
func Elicit[T any](ctx context.Context, message string) (T, error) {
	var zero T
	f, err := formFor(reflect.TypeFor[T]())
	if err != nil {
		return zero, err
	}
	key, err := inputKeyFrom(ctx)
	if err != nil {
		return zero, err
	}
	if _, ok := RequestFrom(ctx); !ok {
		answer, err := tool.Ask(ctx, message)
		if err != nil {
			return zero, err
		}
		return decodeForm[T](f, f.fromText(answer))
	}
	p, err := peerFrom(ctx, "elicitation")
	if err != nil {
		return zero, err
	}
	params := &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: f.schema}
	data, err := p.ask(key, params, func() (any, error) { return p.session.Elicit(ctx, params) })
	if err != nil {
		return zero, err
	}
	var res *mcp.ElicitResult
	if err := json.Unmarshal(data, &res); err != nil {
		return zero, fmt.Errorf("mcpserver: the client's elicitation answer: %w", err)
	}
	if res.Action != "accept" {
		return zero, fmt.Errorf("%w (%s)", ErrDeclined, res.Action)
	}
	content, err := json.Marshal(res.Content)
	if err != nil {
		return zero, err
	}
	return decodeForm[T](f, content)
}

// ElicitRequest sends params to the client of the call ctx serves as they
// are (elicitation/create), form or URL mode, and returns the client's
// answer as it is, whatever its action: the raw form of Elicit, for a
// gateway that passes on an upstream server's request (hands serve
// --upstream does). An error matches ErrUnsupported when the client did not
// declare elicitation, or, for URL mode, its url mode; the round trips of
// later protocol versions work as for Sample, and WithInputKey names the
// request's key.
func ElicitRequest(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	key, err := inputKeyFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, err := peerFrom(ctx, "elicitation")
	if err != nil {
		return nil, err
	}
	if params.Mode == "url" && !declaresURLElicitation(ctx) {
		return nil, &missingCapability{capability: "elicitation in url mode", required: map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}}
	}
	data, err := p.ask(key, params, func() (any, error) { return p.session.Elicit(ctx, params) })
	if err != nil {
		return nil, err
	}
	var res *mcp.ElicitResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("mcpserver: the client's elicitation answer: %w", err)
	}
	return res, nil
}

// declaresURLElicitation reports whether the client of the call ctx serves
// declared elicitation's url mode, in this request's capabilities or at
// initialization.
func declaresURLElicitation(ctx context.Context) bool {
	req, ok := RequestFrom(ctx)
	if !ok || req.Session == nil {
		return false
	}
	if caps, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
		if e, ok := caps["elicitation"].(map[string]any); ok {
			_, url := e["url"]
			return url
		}
	}
	init := req.Session.InitializeParams()
	return init != nil && init.Capabilities != nil && init.Capabilities.Elicitation != nil && init.Capabilities.Elicitation.URL != nil
}

// A form is what Elicit needs of a type: its validator and its schema.
type form struct {
	validator *schema.Validator
	schema    *jsonschema.Schema
	text      string // the one string property, if the type has exactly one property
}

var forms sync.Map // reflect.Type → *form or error

// formFor returns the form of type t, built once, or an error if t cannot
// be asked for: elicitation takes a flat object of primitive values.
func formFor(t reflect.Type) (*form, error) {
	if v, ok := forms.Load(t); ok {
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.(*form), nil
	}
	f, err := newForm(t)
	if err != nil {
		forms.Store(t, err)
		return nil, err
	}
	forms.Store(t, f)
	return f, nil
}

func newForm(t reflect.Type) (*form, error) {
	v, err := schema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: Elicit[%v]: %w", t, err)
	}
	s := v.Schema()
	if s.Type != "object" {
		return nil, fmt.Errorf("mcpserver: Elicit[%v]: a form is an object, so T must be a struct", t)
	}
	s, err = titled(t, s)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: Elicit[%v]: %w", t, err)
	}
	for name, p := range s.Properties {
		switch {
		case p.Type == "string", p.Type == "number", p.Type == "integer", p.Type == "boolean":
		case p.Type == "array" && p.Items != nil && p.Items.Type == "string" && len(p.Items.Enum) > 0:
		case p.Type == "array" && p.Items != nil && p.Items.Type == "" && len(p.Items.AnyOf) > 0 && allTitled(p.Items.AnyOf):
		default:
			return nil, fmt.Errorf("mcpserver: Elicit[%v]: field %q is not a string, number, boolean or list of enumerated strings", t, name)
		}
	}
	f := &form{validator: v, schema: s}
	if len(s.Properties) == 1 {
		for name, p := range s.Properties {
			if p.Type == "string" {
				f.text = name
			}
		}
	}
	return f, nil
}

// ElicitTag is the struct tag that gives the options of an enumerated
// field of an Elicit form titles, which a client shows in place of the
// values: elicit:"titles=Main account|Savings account", one title for each
// value of the field's enum, in order, separated by '|'. A string field
// becomes SEP-1330's titled single-select (oneOf of const and title), a
// list of strings its titled multi-select (items with anyOf of const and
// title); the answer is still one of the values, validated as before.
// A type with a JSONSchema method may write either form, or the legacy
// enum with enumNames, itself.
const ElicitTag = "elicit"

// titled returns s with the enumerated fields of t that carry titles in
// their elicit tag rewritten as titled selects; s itself is not changed.
func titled(t reflect.Type, s *jsonschema.Schema) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out *jsonschema.Schema
	for i := range t.NumField() {
		field := t.Field(i)
		tag, ok := field.Tag.Lookup(ElicitTag)
		if !ok {
			continue
		}
		titles, ok := strings.CutPrefix(tag, "titles=")
		if !ok {
			return nil, fmt.Errorf("field %s: the %s tag is titles=A|B|…, got %q", field.Name, ElicitTag, tag)
		}
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		if !jsonname.Valid(name) {
			name = field.Name // as encoding/json, and the form's schema, name it
		}
		p := s.Properties[name]
		if p == nil {
			return nil, fmt.Errorf("field %s has titles but is not in the form", field.Name)
		}
		enum := p
		if p.Type == "array" && p.Items != nil {
			enum = p.Items
		}
		names := strings.Split(titles, "|")
		if enum.Type != "string" || len(enum.Enum) != len(names) {
			return nil, fmt.Errorf("field %s has %d titles, for an enum of %d strings", field.Name, len(names), len(enum.Enum))
		}
		options := make([]*jsonschema.Schema, len(names))
		for i, v := range enum.Enum {
			options[i] = &jsonschema.Schema{Const: &v, Title: names[i]}
		}
		q := &jsonschema.Schema{Type: p.Type, Title: p.Title, Description: p.Description, Default: p.Default}
		if p.Type == "array" {
			q.MinItems, q.MaxItems, q.UniqueItems = p.MinItems, p.MaxItems, p.UniqueItems
			q.Items = &jsonschema.Schema{AnyOf: options}
		} else {
			q.OneOf = options
		}
		if out == nil {
			out = s.CloneSchemas()
		}
		out.Properties[name] = q
	}
	if out == nil {
		return s, nil
	}
	return out, nil
}

// allTitled reports whether every option is a string const with a title.
func allTitled(options []*jsonschema.Schema) bool {
	for _, o := range options {
		if o.Const == nil || o.Title == "" {
			return false
		}
		if _, ok := (*o.Const).(string); !ok {
			return false
		}
	}
	return true
}

// fromText returns the JSON of a person's answer: the answer itself when
// it is a JSON object, else, for a form of one string field, an object
// with the answer as that field.
func (f *form) fromText(answer string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(answer), &obj) == nil || f.text == "" {
		return []byte(answer)
	}
	data, _ := json.Marshal(map[string]string{f.text: answer})
	return data
}

// decodeForm validates and decodes an answer into a T.
func decodeForm[T any](f *form, data []byte) (T, error) {
	var v T
	if err := f.validator.Decode(data, &v); err != nil {
		return v, fmt.Errorf("mcpserver: the answer does not fit the form: %w", err)
	}
	return v, nil
}
