package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

// TestNewRefusesASpecWithoutPanicking checks that a tool whose spec the
// SDK refuses — here a raw tool whose input schema is a $ref, which
// package tool takes and the SDK does not, since its root has no type
// "object" — does not make New panic: New serves the other tools, leaves
// that one out, and logs why, as it does for a tool added later.
func TestNewRefusesASpecWithoutPanicking(t *testing.T) {
	ref := tool.NewRaw(tool.Spec{
		Name:        "by_ref",
		Description: "A tool whose input schema is a reference.",
		InputSchema: &jsonschema.Schema{Ref: "#/$defs/args", Defs: map[string]*jsonschema.Schema{"args": {Type: "object"}}},
	}, nil, func(context.Context, json.RawMessage) (any, error) { return "ok", nil })
	echo := tool.New("echo", "Echo.", func(_ context.Context, a struct {
		S string `json:"s"`
	}) (string, error) {
		return a.S, nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "tools", Tools: []tool.Interface{ref, echo}})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	var srv *mcpserver.Server
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Fatalf("New panicked: %v", v)
			}
		}()
		srv = mcpserver.New(reg, &mcpserver.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	}()
	session := dial(t, srv, "inmemory", nil)
	if got, want := listNames(t, session), []string{"echo"}; !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
	if !strings.Contains(log.String(), "by_ref") || !strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log says %q, want an error that names by_ref", log.String())
	}
}
