package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hands-go/hands/tool"
)

type table struct {
	Rows [][]string `json:"rows"`
}

func (t table) ModelText() string { return "a | b" }

// TestModelText gives the model an output's ModelText, and clients its
// JSON as the structured output.
func TestModelText(t *testing.T) {
	type in struct{}
	tl := tool.New("rows", "Rows.", func(context.Context, in) (table, error) {
		return table{Rows: [][]string{{"a", "b"}}}, nil
	})
	res := tool.Run(t.Context(), tl, tool.Call{Name: "rows", Args: json.RawMessage(`{}`)})
	if res.IsError {
		t.Fatal(res.Err)
	}
	if res.Content != "a | b" {
		t.Errorf("Content = %q, want the ModelText", res.Content)
	}
	if string(res.Structured) != `{"rows":[["a","b"]]}` {
		t.Errorf("Structured = %s, want the output's JSON", res.Structured)
	}
}
