package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/hands-go/hands/tool"
)

// Two scopes: notes for everyone, and an admin scope that only a signed-in
// administrator sees.
func ExampleRegistry() {
	type Title struct {
		Title string `json:"title" jsonschema:"the note's title" tool:"minLength=1"`
	}
	type User struct {
		User string `json:"user" jsonschema:"the account to ban"`
	}
	createNote := tool.New("create_note", "Create a note.",
		func(ctx context.Context, t Title) (string, error) { return "created " + t.Title, nil })
	banUser := tool.New("ban_user", "Ban an account.",
		func(ctx context.Context, u User) (string, error) { return "banned " + u.User, nil })

	isAdmin := false
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "notes", Tools: []tool.Interface{createNote}},
		&tool.Scope{
			Name:         "admin",
			Tools:        []tool.Interface{banUser},
			Enabled:      func(context.Context) bool { return isAdmin },
			Instructions: "You may ban accounts that post spam.",
		},
	)
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	for _, spec := range reg.Specs(ctx) {
		fmt.Println("shown:", spec.Name)
	}
	res := tool.Run(ctx, reg, tool.Call{ID: "1", Name: "ban_user", Args: json.RawMessage(`{"user":"mallory"}`)})
	fmt.Println(res.Content)

	isAdmin = true
	for _, spec := range reg.Specs(ctx) {
		fmt.Println("shown:", spec.Name)
	}
	fmt.Println(reg.Instructions(ctx)[0].Text)
	results := tool.RunAll(ctx, reg, []tool.Call{
		{ID: "2", Name: "ban_user", Args: json.RawMessage(`{"user":"mallory"}`)},
		{ID: "3", Name: "create_notes", Args: json.RawMessage(`{"title":"x"}`)},
	}, nil)
	for _, res := range results {
		fmt.Println(res.CallID, res.Content)
	}
	// Output:
	// shown: create_note
	// The tool "ban_user" is not available now; do not call it again on this turn.
	// shown: create_note
	// shown: ban_user
	// You may ban accounts that post spam.
	// 2 banned mallory
	// 3 There is no tool named "create_notes". Did you mean "create_note"? The tools available now are: "create_note", "ban_user".
}

// A logging hook: one line per call with its outcome, through log/slog.
func ExampleOnResult_logging() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the example's output stable
			}
			return a
		},
	}))
	type Args struct {
		N int `json:"n" tool:"minimum=0"`
	}
	square := tool.New("square", "Square a number.", func(ctx context.Context, a Args) (int, error) { return a.N * a.N, nil })
	reg, _ := tool.NewRegistry(&tool.Scope{Name: "math", Tools: []tool.Interface{square}})
	reg.Use(tool.OnResult(func(ctx context.Context, call tool.Call, res *tool.Result) {
		logger.InfoContext(ctx, "tool call", "id", call.ID, "tool", call.Name, "error", res.IsError)
	}))

	tool.Run(context.Background(), reg, tool.Call{ID: "a", Name: "square", Args: json.RawMessage(`{"n":7}`)})
	tool.Run(context.Background(), reg, tool.Call{ID: "b", Name: "square", Args: json.RawMessage(`{"n":-1}`)})
	// Output:
	// level=INFO msg="tool call" id=a tool=square error=false
	// level=INFO msg="tool call" id=b tool=square error=true
}

// An approval hook: a policy (or a person) approves or denies each call
// before it runs; a denial reaches the model as an error result with the
// reason.
func ExampleBeforeCall_approval() {
	type Transfer struct {
		To     string  `json:"to" jsonschema:"the recipient's account"`
		Amount float64 `json:"amount" jsonschema:"how much, in euros" tool:"exclusiveMinimum=0"`
	}
	transfer := tool.New("transfer", "Send money.",
		func(ctx context.Context, t Transfer) (string, error) {
			return fmt.Sprintf("sent €%.2f to %s", t.Amount, t.To), nil
		})
	reg, _ := tool.NewRegistry(&tool.Scope{Name: "bank", Tools: []tool.Interface{transfer}})

	approve := func(call tool.Call) error {
		var t Transfer
		if err := json.Unmarshal(call.Args, &t); err == nil && t.Amount > 100 {
			return errors.New("transfers over €100 need a human's approval, which was declined")
		}
		return nil
	}
	reg.Use(tool.BeforeCall(func(ctx context.Context, call *tool.Call) error {
		if call.Name == "transfer" {
			return approve(*call)
		}
		return nil
	}))

	for _, args := range []string{`{"to":"alice","amount":20}`, `{"to":"mallory","amount":5000}`} {
		res := tool.Run(context.Background(), reg, tool.Call{Name: "transfer", Args: json.RawMessage(args)})
		var denied *tool.DeniedError
		fmt.Println(errors.As(res.Err, &denied), strings.TrimSpace(res.Content))
	}
	// Output:
	// false sent €20.00 to alice
	// true The call to transfer was not run: transfers over €100 need a human's approval, which was declined
}
