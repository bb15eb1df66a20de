package mcpclient_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEverythingTask calls the reference server's tool that requires a
// task (simulate-research-query, written on the TypeScript SDK's task
// support): the client creates the task, polls it through its stages,
// whose status messages arrive as progress, and reads its report.
func TestEverythingTask(t *testing.T) {
	c, w, stderr, _ := connectEverything(t, &mcpclient.Options{Prefix: "ev_"})
	research := find(t, c, "ev_simulate-research-query")
	if got := research.Spec().TaskSupport; got != tool.TaskOptional {
		t.Errorf("simulate-research-query: TaskSupport = %q, want %q", got, tool.TaskOptional)
	}
	var progress []string
	var res *tool.Result
	for ev := range research.Stream(t.Context(), tool.Call{Name: "ev_simulate-research-query", Args: json.RawMessage(`{"topic":"otters"}`)}) {
		if ev.Result != nil {
			res = ev.Result
		} else if p, ok := ev.Progress.(tool.ProgressReport); ok {
			progress = append(progress, p.Message)
		}
	}
	if res == nil || res.IsError || !strings.Contains(res.Content, "Research Report: otters") {
		t.Fatalf("simulate-research-query = %+v\nstderr:\n%s", res, stderr.String())
	}
	// A stage a second, polled once a second: on a busy machine a poll
	// can miss any one stage, but not all of them, and nothing else may
	// arrive as progress.
	stages := []string{"Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."}
	if len(progress) == 0 {
		t.Errorf("no progress, want the task's stages")
	}
	for _, p := range progress {
		if !slices.Contains(stages, p) {
			t.Errorf("progress %q is not one of the task's stages %q", p, stages)
		}
	}
	for _, method := range []string{"tasks/get", "tasks/result"} {
		if w.count(method) == 0 {
			t.Errorf("the client sent no %s", method)
		}
	}
}

// TestEverythingTaskInput: the reference server's task asks for input
// (input_required) when its query is ambiguous; the client then calls
// tasks/result, on which the server's elicitation arrives, and
// Options.Elicit answers it.
func TestEverythingTaskInput(t *testing.T) {
	var asked []string
	elicit := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"interpretation": "snake"}}, nil
	}
	c, _, stderr, _ := connectEverything(t, &mcpclient.Options{Elicit: elicit})
	res := call(t.Context(), find(t, c, "simulate-research-query"), "simulate-research-query", `{"topic":"python","ambiguous":true}`)
	if res.IsError || !strings.Contains(res.Content, "Clarification**: snake") {
		t.Fatalf("simulate-research-query = %+v\nstderr:\n%s", res, stderr.String())
	}
	if len(asked) != 1 {
		t.Errorf("elicitations = %q, want one", asked)
	}
}
