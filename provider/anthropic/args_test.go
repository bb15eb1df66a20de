package anthropic

import (
	"encoding/json"
	"testing"
)

func TestCompactArgs(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"{\n  \"city\": \"Paris\"\n}", `{"city":"Paris"}`},
		{``, `{}`},
		{`null`, `{}`},
	} {
		if got := compactArgs(json.RawMessage(tt.in)); string(got) != tt.want {
			t.Errorf("compactArgs(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestObjectArgs(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{`{"city":"Paris"}`, `{"city":"Paris"}`},
		{``, `{}`},
		{`"{\"city\":"`, `{}`}, // a tool_use input must be an object
		{`[1]`, `{}`},
	} {
		if got := objectArgs(json.RawMessage(tt.in)); string(got) != tt.want {
			t.Errorf("objectArgs(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
