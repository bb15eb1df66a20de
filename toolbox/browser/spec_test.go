package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/browser"
)

// tools returns the three tools of a Browser that is never started: New
// starts nothing, and the specs need no browser.
func tools(t *testing.T, script bool) []tool.Interface {
	t.Helper()
	b, err := browser.New(&browser.Options{ExecPath: "/bin/sh", Script: script})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return []tool.Interface{b.Browse(), b.Screenshot(), b.Execute()}
}

// TestToolsFitEveryDialect checks the tools against every provider's
// dialect, with and without script steps.
func TestToolsFitEveryDialect(t *testing.T) {
	for _, script := range []bool{false, true} {
		var specs []tool.Spec
		for _, tl := range tools(t, script) {
			specs = append(specs, tl.Spec())
		}
		for _, d := range dialect.Dialects() {
			if err := provider.CheckTools(d, specs); err != nil {
				t.Errorf("script=%v, dialect %s: %v", script, d.Name, err)
			}
		}
	}
}

// TestScriptStepsOnlyWhenAllowed offers script steps, and annotates
// browser_execute as destructive, only when the operator allows them.
func TestScriptStepsOnlyWhenAllowed(t *testing.T) {
	for _, script := range []bool{false, true} {
		exec := tools(t, script)[2]
		spec := exec.Spec()
		in, _ := json.Marshal(spec.InputSchema)
		if has := strings.Contains(string(in), `"script"`); has != script {
			t.Errorf("script=%v: the input schema mentions script: %v", script, has)
		}
		if spec.Annotations == nil || spec.Annotations.Destructive != script {
			t.Errorf("script=%v: annotations %+v", script, spec.Annotations)
		}
		res := tool.Run(context.Background(), exec, tool.Call{Name: "browser_execute", Args: json.RawMessage(`{"steps":[{"action":"script","script":"1"}]}`)})
		if !script && !res.IsError {
			t.Errorf("a script step was accepted without the operator's leave")
		}
	}
}

// TestValidate refuses, before any browser starts, what a step or a URL
// lacks, each at its path.
func TestValidate(t *testing.T) {
	ts := tools(t, false)
	for _, tt := range []struct {
		tool tool.Interface
		args string
		path string
	}{
		{ts[0], `{"url":"file:///etc/passwd"}`, "/url"},
		{ts[0], `{"url":"http:///x"}`, "/url"},
		{ts[1], `{"url":"chrome://settings"}`, "/url"},
		{ts[2], `{"steps":[{"action":"navigate"}]}`, "/steps/0/url"},
		{ts[2], `{"steps":[{"action":"navigate","url":"javascript:alert(1)"}]}`, "/steps/0/url"},
		{ts[2], `{"steps":[{"action":"navigate","url":"https://example.com"},{"action":"click"}]}`, "/steps/1/selector"},
		{ts[2], `{"steps":[{"action":"select","selector":"#s"}]}`, "/steps/0/text"},
	} {
		res := tool.Run(context.Background(), tt.tool, tool.Call{Name: tt.tool.Spec().Name, Args: json.RawMessage(tt.args)})
		verr, ok := errors.AsType[*tool.ValidationError](res.Err)
		if !ok || len(verr.Issues) == 0 || verr.Issues[0].Path != tt.path {
			t.Errorf("%s %s = %v, want an issue at %s", tt.tool.Spec().Name, tt.args, res.Err, tt.path)
		}
	}
}

// TestNewWithoutBrowser says what to install or set when there is no
// browser.
func TestNewWithoutBrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := browser.New(nil); !errors.Is(err, browser.ErrNoBrowser) {
		t.Errorf("New without Chromium = %v, want ErrNoBrowser", err)
	}
	if _, err := browser.New(&browser.Options{RemoteURL: "http://localhost:9222"}); !errors.Is(err, browser.ErrNoBrowser) {
		t.Errorf("New with an http remote URL = %v, want ErrNoBrowser", err)
	}
}
