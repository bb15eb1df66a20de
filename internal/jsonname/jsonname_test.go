package jsonname

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"", false},
		{"name", true},
		{"user_id", true},
		{"a-b.c/d", true},
		{"with space", true},
		{"$ref", true},
		{"x{1}", true},
		{"名前", true},
		{"ünïcödé", true},
		{"٣", true}, // a digit, not an ASCII one
		{`a"b`, false},
		{`a\b`, false},
		{"a'b", false},
		{"a`b", false},
		{"a,b", false},
		{"tab\there", false},
		{"€", false},
		{"\xff", false},
	} {
		if got := Valid(tt.name); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// encodedName returns the name encoding/json writes for a field F tagged
// json:"name".
func encodedName(t *testing.T, name string) string {
	t.Helper()
	typ := reflect.StructOf([]reflect.StructField{{
		Name: "F",
		Type: reflect.TypeFor[int](),
		Tag:  reflect.StructTag(`json:` + strconv.Quote(name)),
	}})
	data, err := json.Marshal(reflect.New(typ).Elem().Interface())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		return k
	}
	t.Fatalf("encoding/json wrote no field: %s", data)
	return ""
}

// FuzzValid checks Valid against the name encoding/json writes.
func FuzzValid(f *testing.F) {
	for _, seed := range []string{"", "name", "a-b", "with space", "名前", `a"b`, `a\b`, "a'b", "\xff", "€", "-"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsRune(name, ',') || name == "-" {
			return // options, or the field left out
		}
		got, want := Valid(name), encodedName(t, name) == name
		if name == "F" {
			want = true
		}
		if got != want {
			t.Errorf("Valid(%q) = %v, but encoding/json names the field %q", name, got, encodedName(t, name))
		}
	})
}
