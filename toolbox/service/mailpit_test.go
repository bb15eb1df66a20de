package service_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/mailpittest"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/service"
)

// tools is the two tools of a set of services, by name.
type tools map[string]tool.Interface

func toolsOf(t testing.TB, configs []service.Config, opts *service.Options) tools {
	t.Helper()
	svcs, err := service.New(configs, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := tools{}
	for _, tl := range svcs.Tools() {
		m[tl.Spec().Name] = tl
	}
	return m
}

// run calls a tool with args, given as a Go value.
func (ts tools) run(t testing.TB, name string, args any) tool.Result {
	t.Helper()
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Run(t.Context(), ts[name], tool.Call{ID: "c1", Name: name, Args: data})
}

// call calls an operation of the service "mail" and fails the test if
// the call fails.
func (ts tools) call(t testing.TB, operation string, arguments any) string {
	t.Helper()
	res := ts.callResult(t, operation, arguments)
	if res.IsError {
		t.Fatalf("call_service %s: %s", operation, res.Content)
	}
	return res.Content
}

func (ts tools) callResult(t testing.TB, operation string, arguments any) tool.Result {
	t.Helper()
	args := map[string]any{"service": "mail", "operation": operation}
	if arguments != nil {
		data, err := json.Marshal(arguments)
		if err != nil {
			t.Fatal(err)
		}
		args["arguments"] = string(data)
	}
	return ts.run(t, "call_service", args)
}

func mailConfig(mp *mailpittest.Server) service.Config {
	return service.Config{Name: "mail", BaseURL: mp.APIURL, Document: mp.APIURL + "/api/v1/swagger.json"}
}

// body returns the JSON body of a call_service result.
func body(t testing.TB, content string) map[string]any {
	t.Helper()
	_, b, ok := strings.Cut(content, "\n\n")
	b, _, _ = strings.Cut(b, "\n\n[note:")
	if !ok {
		t.Fatalf("no body in %q", content)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		t.Fatalf("the body is not a JSON object: %v\n%s", err, content)
	}
	return m
}

// api gets path of Mailpit's API directly, to check a call's effects.
func api(t testing.TB, mp *mailpittest.Server, path string) map[string]any {
	t.Helper()
	resp, err := http.Get(mp.APIURL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, data)
	}
	return m
}

// TestMailpit drives Mailpit through its own Swagger 2.0 document: send,
// list, get, search and delete, each effect checked through its API.
func TestMailpit(t *testing.T) {
	mp := mailpittest.Start(t, nil)
	ts := toolsOf(t, []service.Config{mailConfig(mp)}, nil)

	// The operations are listed, and one is described with its schema.
	list := ts.run(t, "describe_service", map[string]any{"service": "mail", "query": "send a message"})
	if list.IsError || !strings.Contains(list.Content, "SendMessageParams: POST /api/v1/send") {
		t.Fatalf("describe_service with a query:\n%s", list.Content)
	}
	desc := ts.run(t, "describe_service", map[string]any{"service": "mail", "operation": "SendMessageParams"})
	if desc.IsError || !strings.Contains(desc.Content, `"body":`) || !strings.Contains(desc.Content, `"From"`) || !strings.Contains(desc.Content, "may change data") {
		t.Fatalf("describe_service SendMessageParams:\n%s", desc.Content)
	}

	sent := ts.call(t, "SendMessageParams", map[string]any{"body": map[string]any{
		"From":    map[string]any{"Email": "robot@example.com", "Name": "Robot"},
		"To":      []any{map[string]any{"Email": "ada@example.com"}},
		"Subject": "Quarterly numbers",
		"Text":    "They are up.",
	}})
	id, _ := body(t, sent)["ID"].(string)
	if id == "" {
		t.Fatalf("send returned no ID:\n%s", sent)
	}
	if got := api(t, mp, "/api/v1/messages")["total"]; got != 1.0 {
		t.Fatalf("after the send, Mailpit holds %v messages, want 1", got)
	}

	listedText := ts.call(t, "GetMessagesParams", map[string]any{"query": map[string]any{"limit": 10}})
	listed := body(t, listedText)
	// Mailpit sends null where its document says an array: the data comes
	// back, with a note of the mismatch at its path.
	if !strings.Contains(listedText, "[note: the response does not match the document's schema for 200") || !strings.Contains(listedText, "/messages/0/Cc: must be an array, got null") {
		t.Errorf("the list's mismatch with the response schema is not noted:\n%s", listedText)
	}
	if msgs, _ := listed["messages"].([]any); len(msgs) != 1 {
		t.Fatalf("GetMessagesParams listed %v", listed)
	}
	got := body(t, ts.call(t, "GET /api/v1/message/{ID}", map[string]any{"path": map[string]any{"ID": id}}))
	if got["Subject"] != "Quarterly numbers" || !strings.Contains(got["Text"].(string), "They are up.") {
		t.Fatalf("the message got is %v", got)
	}
	found := body(t, ts.call(t, "SearchParams", map[string]any{"query": map[string]any{"query": "subject:Quarterly"}}))
	if found["messages_count"] != 1.0 {
		t.Fatalf("the search found %v", found)
	}
	none := body(t, ts.call(t, "SearchParams", map[string]any{"query": map[string]any{"query": "subject:nothing-like-it"}}))
	if none["messages_count"] != 0.0 {
		t.Fatalf("a search for nothing found %v", none)
	}

	ts.call(t, "DeleteMessagesParams", map[string]any{"body": map[string]any{"IDs": []any{id}}})
	if got := api(t, mp, "/api/v1/messages")["total"]; got != 0.0 {
		t.Fatalf("after the delete, Mailpit holds %v messages, want 0", got)
	}
	// Getting it now is the service's 404, with its reason, as an error.
	gone := ts.callResult(t, "GetMessageParams", map[string]any{"path": map[string]any{"ID": id}})
	if !gone.IsError || !strings.Contains(gone.Content, "404") {
		t.Fatalf("getting a deleted message: %+v", gone)
	}
}

// TestMailpitArguments checks that arguments are held to the operation's
// schema before anything is sent.
func TestMailpitArguments(t *testing.T) {
	mp := mailpittest.Start(t, nil)
	ts := toolsOf(t, []service.Config{mailConfig(mp)}, nil)
	for _, tt := range []struct {
		name, op string
		args     any
		want     []string
	}{
		{"missing required field", "SendMessageParams", map[string]any{"body": map[string]any{"Subject": "x"}}, []string{"/arguments/body", `"From"`}},
		{"wrong type", "GetMessagesParams", map[string]any{"query": map[string]any{"limit": "ten"}}, []string{"/arguments/query/limit"}},
		{"unknown parameter", "GetMessagesParams", map[string]any{"query": map[string]any{"limt": 3}}, []string{"/arguments/query", "limt"}},
		{"missing path parameter", "GetMessageParams", map[string]any{}, []string{"/arguments", `"path"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := ts.callResult(t, tt.op, tt.args)
			if !res.IsError || !strings.Contains(res.Content, "are invalid") {
				t.Fatalf("got %+v, want a validation error", res)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("the error does not mention %q:\n%s", w, res.Content)
				}
			}
		})
	}
	if got := api(t, mp, "/api/v1/messages")["total"]; got != 0.0 {
		t.Errorf("Mailpit holds %v messages; the invalid calls sent something", got)
	}
	unknown := ts.run(t, "call_service", map[string]any{"service": "mial", "operation": "x"})
	if !unknown.IsError || !strings.Contains(unknown.Content, `did you mean "mail"`) {
		t.Errorf("an unknown service: %s", unknown.Content)
	}
	op := ts.callResult(t, "GetMessagesParam", nil)
	if !op.IsError || !strings.Contains(op.Content, `did you mean "GetMessagesParams"`) {
		t.Errorf("an unknown operation: %s", op.Content)
	}
}

// TestMailpitReadOnly checks that a read-only service offers only GET and
// HEAD operations, and that call_service is then annotated read-only.
func TestMailpitReadOnly(t *testing.T) {
	mp := mailpittest.Start(t, nil)
	cfg := mailConfig(mp)
	cfg.ReadOnly = true
	ts := toolsOf(t, []service.Config{cfg}, nil)
	if a := ts["call_service"].Spec().Annotations; a == nil || !a.ReadOnly {
		t.Errorf("call_service's annotations with read-only services = %+v, want read-only", a)
	}
	res := ts.callResult(t, "DeleteMessagesParams", map[string]any{"body": map[string]any{}})
	if !res.IsError || !strings.Contains(res.Content, "no operation") {
		t.Errorf("a DELETE on a read-only service: %+v", res)
	}
	writable := toolsOf(t, []service.Config{mailConfig(mp)}, nil)
	if a := writable["call_service"].Spec().Annotations; a == nil || a.ReadOnly || !a.Destructive {
		t.Errorf("call_service's annotations = %+v, want destructive", a)
	}
}

// TestToolsEveryDialect checks that the tools' schemas are sent whole in
// every provider dialect, whatever the services' documents hold.
func TestToolsEveryDialect(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		svcs, err := service.New([]service.Config{{Name: "mail", BaseURL: "http://127.0.0.1:9", Document: "/nonexistent.json", ReadOnly: readOnly}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var specs []tool.Spec
		for _, tl := range svcs.Tools() {
			specs = append(specs, tl.Spec())
		}
		for _, d := range dialect.Dialects() {
			if err := provider.CheckTools(d, specs); err != nil {
				t.Errorf("%s: %v", d.Name, err)
			}
		}
	}
}
