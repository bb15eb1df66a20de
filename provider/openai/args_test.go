package openai

import (
	"encoding/json"
	"testing"
)

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{`{"city":"Paris"}`, `{"city":"Paris"}`},
		{``, `{}`},
		{`{"city":`, `{"city":`}, // kept as sent, for the tool to reject
	} {
		if got := parseArgs(tt.in); string(got) != tt.want {
			t.Errorf("parseArgs(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestCallArgs(t *testing.T) {
	for _, tt := range []struct {
		in   json.RawMessage
		want string
	}{
		{json.RawMessage(`{"city":"Paris"}`), `{"city":"Paris"}`},
		{nil, `{}`},
	} {
		if got := callArgs(tt.in); got != tt.want {
			t.Errorf("callArgs(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
