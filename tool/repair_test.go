package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
)

type repairArgs struct {
	Name  string  `json:"name,omitempty" tool:"default=anon"`
	Count int     `json:"count,omitempty" tool:"minimum=1,default=1"`
	Note  *string `json:"note,omitempty"`
	Clear *string `json:"clear,omitempty" tool:"nullable"`
	Need  string  `json:"need,omitempty" tool:"required"`
}

func echoRepairs(opts ...tool.Option) *tool.Tool[repairArgs, string] {
	return tool.New("echo", "Echo the arguments.", func(ctx context.Context, a repairArgs) (string, error) {
		return fmt.Sprintf("%s/%d/%v/%v/%s", a.Name, a.Count, a.Note != nil, a.Clear != nil, a.Need), nil
	}, opts...)
}

func TestRepairs(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opts    []tool.Option
		args    string
		content string // when the call succeeds
		issue   string // the path and keyword of the first issue when it fails
		repairs []tool.Repair
	}{
		{name: "empty arguments", args: ``, issue: " required", repairs: []tool.Repair{{Kind: tool.RepairEmptyArguments}}},
		{name: "null arguments", args: `null`, issue: " required", repairs: []tool.Repair{{Kind: tool.RepairEmptyArguments}}},
		{name: "string holding an object", args: `"{\"need\":\"x\",\"count\":2}"`, content: "anon/2/false/false/x", repairs: []tool.Repair{{Kind: tool.RepairStringArguments}}},
		{name: "string holding no object", args: `"need x"`, issue: " type"},
		{name: "null for optional fields", args: `{"need":"x","name":null,"count":null,"note":null}`, content: "anon/1/false/false/x",
			repairs: []tool.Repair{{Kind: tool.RepairNullOptional, Path: "/name"}, {Kind: tool.RepairNullOptional, Path: "/count"}}},
		{name: "null for a nullable field is kept", args: `{"need":"x","clear":null}`, content: "anon/1/false/false/x"},
		{name: "null for a required field", args: `{"need":null}`, issue: "/need type"},
		{name: "no coercion", args: `{"need":"x","count":"2"}`, issue: "/count type"},
		{name: "all off", opts: []tool.Option{tool.WithoutRepairs()}, args: `{"need":"x","count":null}`, issue: "/count type"},
		{name: "all off, empty", opts: []tool.Option{tool.WithoutRepairs()}, args: ``, issue: " syntax"},
		{name: "one off", opts: []tool.Option{tool.WithoutRepairs(tool.RepairStringArguments)}, args: `"{\"need\":\"x\"}"`, issue: " type"},
		{name: "one off, others on", opts: []tool.Option{tool.WithoutRepairs(tool.RepairStringArguments)}, args: `null`, issue: " required",
			repairs: []tool.Repair{{Kind: tool.RepairEmptyArguments}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tool.Run(t.Context(), echoRepairs(tt.opts...), tool.Call{Name: "echo", Args: json.RawMessage(tt.args)})
			if tt.issue == "" {
				if res.IsError || res.Content != tt.content {
					t.Fatalf("Run(%s) = %+v, want %q", tt.args, res, tt.content)
				}
			} else {
				verr, ok := errors.AsType[*tool.ValidationError](res.Err)
				if !ok {
					t.Fatalf("Run(%s) = %+v, want a validation error", tt.args, res)
				}
				if got := verr.Issues[0].Path + " " + verr.Issues[0].Keyword; got != tt.issue {
					t.Errorf("first issue = %q, want %q (%v)", got, tt.issue, verr)
				}
			}
			if !reflect.DeepEqual(res.Repairs, tt.repairs) {
				t.Errorf("Repairs = %+v, want %+v", res.Repairs, tt.repairs)
			}
		})
	}
}

func TestRepairsAreLoggedAtDebug(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	defer slog.SetDefault(old)

	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	if _, err := echoRepairs().CallJSON(t.Context(), json.RawMessage(`{"need":"x","count":null}`)); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("a repair was logged at INFO: %q", buf.String())
	}

	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))

	out, err := echoRepairs().CallJSON(t.Context(), json.RawMessage(`{"need":"x","count":null}`))
	if err != nil || out != "anon/1/false/false/x" {
		t.Fatalf("CallJSON = %q, %v", out, err)
	}
	if log := buf.String(); !strings.Contains(log, "repair=null-optional") || !strings.Contains(log, "path=/count") || !strings.Contains(log, "tool=echo") {
		t.Errorf("log = %q, want a line naming the repair", log)
	}
}
