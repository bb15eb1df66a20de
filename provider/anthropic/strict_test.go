package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

type bookArgs struct {
	Title string `json:"title" jsonschema:"the book's title" tool:"minLength=3"`
	Pages int    `json:"pages,omitempty" jsonschema:"how many pages" tool:"minimum=1"`
}

type tagArgs struct {
	Tags map[string]string `json:"tags" jsonschema:"the tags, by name"`
}

// strictTurn returns a turn with the tools order_book and find_book, of
// the same schema, and tag_book, whose map strict mode cannot express.
func strictTurn() *agent.Request {
	handler := func(context.Context, bookArgs) (string, error) { return "", nil }
	tags := func(context.Context, tagArgs) (string, error) { return "", nil }
	return &agent.Request{
		Messages: []agent.Message{agent.UserText("Order Dune.")},
		Tools: []tool.Spec{
			tool.New("order_book", "Order a book.", handler).Spec(),
			tool.New("find_book", "Find a book.", handler).Spec(),
			tool.New("tag_book", "Tag a book.", tags).Spec(),
		},
	}
}

// TestStrictTools checks the request of a turn where Options.StrictTools
// names one tool against its golden file: that tool alone goes with
// strict: true and its schema rewritten for strict mode (every object
// closed, minLength and minimum folded into descriptions), the others as
// they are, the map included. A strict tool whose schema strict mode
// cannot express is refused, and the others with it are not sent.
func TestStrictTools(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/tool_calls.response.json")))
	m := newModel(t, srv, anthropic.Options{StrictTools: []string{"order_book", "not_in_the_request"}})
	providertest.Generate(t, m, strictTurn(), twoCalls)
	sent := srv.Requests()[0]
	golden.Check(t, "testdata/strict_tools.request.json", sent.Golden())
	var tools []map[string]any
	if err := json.Unmarshal([]byte(providertest.At(t, sent.Body, "/tools")), &tools); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if strict, want := tl["strict"], tl["name"] == "order_book"; (strict == true) != want || (!want && strict != nil) {
			t.Errorf("tool %v went with strict %v, want it only on order_book", tl["name"], strict)
		}
	}

	tagged := newModel(t, srv, anthropic.Options{StrictTools: []string{"tag_book"}})
	_, err := tagged.Generate(t.Context(), strictTurn())
	rej, ok := errors.AsType[*dialect.RejectError](err)
	if !errors.Is(err, dialect.ErrRejected) || !ok {
		t.Fatalf("Generate with tag_book strict = %v, want a rejection", err)
	}
	for _, p := range rej.Problems {
		if p.Tool != "tag_book" || p.Dialect != "anthropic-strict" {
			t.Errorf("problem %v, want problems of tag_book in the strict dialect alone", p)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the server got %d requests, want the 1 of the first model", n)
	}
}

// TestAllowedRefused checks that a request that leaves a tool out of
// Allowed is refused, since the Messages API cannot be told which tools
// are allowed: the tool left out would be callable.
func TestAllowedRefused(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/tool_calls.response.json")))
	m := newModel(t, srv, anthropic.Options{StrictTools: []string{"order_book"}})
	for _, model := range []*anthropic.Model{m, newModel(t, srv, anthropic.Options{})} {
		req := strictTurn()
		req.Tools = req.Tools[:2]
		req.Allowed = []string{"find_book"}
		_, err := model.Generate(t.Context(), req)
		p, ok := errors.AsType[dialect.Problem](err)
		if !errors.Is(err, dialect.ErrRejected) || !ok || p.Tool != "order_book" || p.Keyword != "features" {
			t.Errorf("Generate with order_book not allowed = %v, want a rejection of order_book's features", err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests, want none", n)
	}
}
