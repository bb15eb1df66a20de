package schema

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseToolTag(t *testing.T) {
	for _, tt := range []struct {
		tag  string
		want []tagEntry
		err  string // a substring of the error; "" for success
	}{
		{tag: "", want: nil},
		{tag: "minLength=1,maxLength=1024", want: []tagEntry{{key: "minLength", value: "1"}, {key: "maxLength", value: "1024"}}},
		{tag: "enum=admin|user|guest", want: []tagEntry{{key: "enum", value: "admin|user|guest", list: []string{"admin", "user", "guest"}}}},
		{tag: `default=["user","admin"],uniqueItems`, want: []tagEntry{{key: "default", value: `["user","admin"]`}, {key: "uniqueItems", value: "true"}}},
		{tag: "pattern='^[0-9]{1,3}$'", want: []tagEntry{{key: "pattern", value: "^[0-9]{1,3}$"}}},
		{tag: "default='it''s, ok'", want: []tagEntry{{key: "default", value: "it's, ok"}}},
		{tag: `default={"a":[1,2]}`, want: []tagEntry{{key: "default", value: `{"a":[1,2]}`}}},
		{tag: `default="a,b"`, want: []tagEntry{{key: "default", value: `"a,b"`}}},
		{tag: `examples=["x,y"]`, want: []tagEntry{{key: "examples", value: `["x,y"]`, list: []string{`["x,y"]`}}}},
		{tag: "examples='a,b|c'", want: []tagEntry{{key: "examples", value: "a,b|c", list: []string{"a,b", "c"}}}},
		{tag: " required , nullable=false ", want: []tagEntry{{key: "required", value: "true"}, {key: "nullable", value: "false"}}},
		{tag: "default=text/plain", want: []tagEntry{{key: "default", value: "text/plain"}}},
		{tag: "minimum=", want: []tagEntry{{key: "minimum", value: ""}}},
		// Only default, const, enum and examples read JSON; for them a value
		// that is not one whole JSON value is plain text.
		{tag: "pattern=[a-z]+", want: []tagEntry{{key: "pattern", value: "[a-z]+"}}},
		{tag: "pattern=[0-9]{2}$,minLength=2", want: []tagEntry{{key: "pattern", value: "[0-9]{2}$"}, {key: "minLength", value: "2"}}},
		{tag: "title=[Beta] name", want: []tagEntry{{key: "title", value: "[Beta] name"}}},
		{tag: `title="quoted"`, want: []tagEntry{{key: "title", value: `"quoted"`}}},
		{tag: "default={x", want: []tagEntry{{key: "default", value: "{x"}}},
		{tag: `default="a"b`, want: []tagEntry{{key: "default", value: `"a"b`}}},
		{tag: "pattern=[,;]", want: []tagEntry{{key: "pattern", value: "[,;]"}}},
		{tag: "pattern=[^,]+,maxLength=3", want: []tagEntry{{key: "pattern", value: "[^,]+"}, {key: "maxLength", value: "3"}}},
		{tag: "pattern=^[0-9]{1,3}$", want: []tagEntry{{key: "pattern", value: "^[0-9]{1,3}$"}}},
		{tag: `pattern=^[^"]*$,minLength=1`, want: []tagEntry{{key: "pattern", value: `^[^"]*$`}, {key: "minLength", value: "1"}}},
		{tag: "title=[Beta, internal]", want: []tagEntry{{key: "title", value: "[Beta, internal]"}}},
		{tag: "title={a, b}", want: []tagEntry{{key: "title", value: "{a, b}"}}},
		{tag: `title="Hello, world"`, want: []tagEntry{{key: "title", value: `"Hello, world"`}}},
		{tag: "pattern=[a-z,title=x", want: []tagEntry{{key: "pattern", value: "[a-z"}, {key: "title", value: "x"}}},
		{tag: `enum="draft"|"final"`, want: []tagEntry{{key: "enum", value: `"draft"|"final"`, list: []string{`"draft"`, `"final"`}}}},
		{tag: `enum="a,b"|c`, want: []tagEntry{{key: "enum", value: `"a,b"|c`, list: []string{`"a,b"`, "c"}}}},
		{tag: "examples=[WIP] fix|[DONE] ship", want: []tagEntry{{key: "examples", value: "[WIP] fix|[DONE] ship", list: []string{"[WIP] fix", "[DONE] ship"}}}},
		{tag: "title=Hello, world", err: "looks like the rest of a value"},

		{tag: "minLength", err: "needs a value"},
		{tag: "min=3", err: `unknown key "min"`},
		{tag: "maxlength=3", err: `did you mean "maxLength"`},
		{tag: "frobnicate=3", err: "the keys are"},
		{tag: "minLength=1,minLength=2", err: "appears twice"},
		{tag: "pattern='abc", err: "unterminated single quote"},
		{tag: "pattern='a'b", err: "expected a comma"},
		{tag: "minLength=1,", err: "empty entry"},
		{tag: ",minLength=1", err: "empty key"},
		{tag: `default=[1,2`, err: "unterminated JSON"},
		{tag: `default=]`, want: []tagEntry{{key: "default", value: "]"}}},
	} {
		got, err := parseToolTag(tt.tag, nil)
		if tt.err != "" {
			// The text is what this test is about: the parser's hint
			// (a suggestion, where the value was cut) for the person who
			// wrote the tag. What a program matches is the kind.
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseToolTag(%q) error = %v, want one containing %q", tt.tag, err, tt.err)
			}
			typ := reflect.StructOf([]reflect.StructField{{Name: "S", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`json:"s" tool:` + strconv.Quote(tt.tag))}})
			if _, err := ForType(typ, nil); !errors.Is(err, ErrInvalidTag) {
				t.Errorf("ForType(a field tagged %q) = %v, want ErrInvalidTag", tt.tag, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseToolTag(%q) error = %v", tt.tag, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseToolTag(%q) = %+v, want %+v", tt.tag, got, tt.want)
		}
	}
}

func TestCheckDescriptionTag(t *testing.T) {
	for _, tt := range []struct {
		tag string
		bad bool
	}{
		{"the user's name", false},
		{"a=b is how math reads", false},
		{"ratio, as x=y", false},
		{"description=the name", true},
		{"title=Name,description=the name", true},
		{"enum=a,enum=b", true},
		{"minimum=3", true},
	} {
		if err := checkDescriptionTag(tt.tag); (err != nil) != tt.bad {
			t.Errorf("checkDescriptionTag(%q) = %v, want rejected=%v", tt.tag, err, tt.bad)
		}
	}
}

// FuzzToolTag checks that the tag parser never panics and that what it
// accepts only uses known keys, each once.
func FuzzToolTag(f *testing.F) {
	for _, seed := range []string{
		"minLength=1,maxLength=1024", "enum=a|b", `default=["user"]`, "pattern='^[0-9]{1,3}$'",
		"default='it''s'", `default={"a":[1,"]"]}`, "required", "x=", ",", "'", `"`, "[", "minLength=1,",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		entries, err := parseToolTag(tag, nil)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range entries {
			if seen[e.key] {
				t.Fatalf("parseToolTag(%q) accepted %q twice", tag, e.key)
			}
			seen[e.key] = true
			known := false
			for _, k := range tagKeys {
				known = known || k == e.key
			}
			if !known {
				t.Fatalf("parseToolTag(%q) accepted unknown key %q", tag, e.key)
			}
		}
	})
}

// FuzzReadTags checks that readTags finds what reflect.StructTag.Lookup
// finds, for each of the three keys it reads.
func FuzzReadTags(f *testing.F) {
	for _, seed := range []string{
		`json:"name,omitempty" jsonschema:"the name" tool:"minLength=1"`,
		`tool:"default=[\"user\"]" json:"roles"`,
		`json:"a" json:"b"`,
		`tool:"\x" json:"a"`,
		`tool:"\q" tool:"enum=a|b"`,
		`json: "a"`,
		`  jsonschema:"x"   tool:""`,
		`json:"a`,
		`xml:"a" json:"\u00e9"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag := reflect.StructTag(s)
		got := readTags(tag)
		if v, _ := tag.Lookup("json"); got.json != v {
			t.Errorf("json = %q, Lookup finds %q", got.json, v)
		}
		if v, ok := tag.Lookup("jsonschema"); got.jsonschema != v || got.hasJSONSchema != ok {
			t.Errorf("jsonschema = %q, %v, Lookup finds %q, %v", got.jsonschema, got.hasJSONSchema, v, ok)
		}
		if v, ok := tag.Lookup("tool"); got.tool != v || got.hasTool != ok {
			t.Errorf("tool = %q, %v, Lookup finds %q, %v", got.tool, got.hasTool, v, ok)
		}
	})
}

func TestDeprecatedMessage(t *testing.T) {
	type args struct {
		Town string `json:"town,omitempty" jsonschema:"the town" tool:"deprecated='use city, which takes a postcode too'"`
		City string `json:"city,omitempty"`
		Old  string `json:"old,omitempty" tool:"deprecated"`
		Kept string `json:"kept,omitempty" tool:"deprecated=false"`
	}
	v, err := For[args](nil)
	if err != nil {
		t.Fatal(err)
	}
	props := v.Schema().Properties
	for _, tt := range []struct {
		name        string
		deprecated  bool
		description string
	}{
		{"town", true, "the town\nDeprecated: use city, which takes a postcode too"},
		{"city", false, ""},
		{"old", true, ""},
		{"kept", false, ""},
	} {
		p := props[tt.name]
		if p.Deprecated != tt.deprecated || p.Description != tt.description {
			t.Errorf("property %s: deprecated %v, description %q; want %v, %q", tt.name, p.Deprecated, p.Description, tt.deprecated, tt.description)
		}
	}
}
