package mcpclient

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/dynamic"
)

// TestSentSchema checks which bytes a tool's schema is read from: those
// the server sent when they decode to what the SDK decoded, else the
// SDK's decoding encoded again (a late answer to an abandoned listing);
// bytes beyond dynamic's bounds are refused as they are.
func TestSentSchema(t *testing.T) {
	decoded := func(doc string) any {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	deep := strings.Repeat(`{"not":`, dynamic.MaxSchemaDepth+1) + `{}` + strings.Repeat(`}`, dynamic.MaxSchemaDepth+1)
	for _, tt := range []struct {
		name, sent, decoded, want string
		err                       error
	}{
		{"as sent", `{"type":"object","properties":{"z":{},"a":{"minimum":1.0}}}`, `{"type":"object","properties":{"z":{},"a":{"minimum":1}}}`, `{"type":"object","properties":{"z":{},"a":{"minimum":1.0}}}`, nil},
		{"none kept", ``, `{"type":"object","properties":{"z":{},"a":{}}}`, `{"properties":{"a":{},"z":{}},"type":"object"}`, nil},
		{"of another listing", `{"type":"object","properties":{"z":{}}}`, `{"type":"object","properties":{"y":{}}}`, `{"properties":{"y":{}},"type":"object"}`, nil},
		{"not JSON", `{"type":`, `{"type":"object"}`, `{"type":"object"}`, nil},
		{"too deep", deep, deep, ``, dynamic.ErrSchemaTooDeep},
	} {
		d, err := sentSchema(json.RawMessage(tt.sent), decoded(tt.decoded))
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("sentSchema(%s) = %v, want %v", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("sentSchema(%s): %v", tt.name, err)
		}
		if got := string(d.Bytes()); got != tt.want {
			t.Errorf("sentSchema(%s) = %s, want %s", tt.name, got, tt.want)
		}
	}
}
