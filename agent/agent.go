package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hands-go/hands/tool"
)

// A Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one entry of a conversation.
type Message struct {
	Role Role `json:"role"`
	// Text is the message's text: what the user or the model said, or the
	// content of a tool's result.
	Text string `json:"text,omitempty"`
	// Calls are the tools an assistant message asks to run, in order.
	Calls []ToolCall `json:"calls,omitempty"`
	// CallID is, on a tool message, the ID of the call it answers.
	CallID string `json:"callId,omitempty"`
	// Name is, on a tool message, the tool that ran.
	Name string `json:"name,omitempty"`
	// IsError reports, on a tool message, a failed call.
	IsError bool `json:"isError,omitempty"`
}

// A ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// UserText returns a user message.
func UserText(text string) Message { return Message{Role: RoleUser, Text: text} }

// A History is a conversation, oldest message first. It is a plain value
// that round-trips through JSON.
type History []Message

// A Request is one turn's input to a model.
type Request struct {
	// System is the system prompt, with the instructions of the enabled
	// scopes that go there.
	System string
	// Messages are the conversation so far, after any scope instructions
	// given as user messages.
	Messages []Message
	// Tools are the tools enabled on this turn.
	Tools []tool.Spec
}

// A Response is a model's answer on one turn: text, tool calls, or both.
type Response struct {
	Text  string
	Calls []ToolCall
}

// A Model is what a model provider implements: one turn in, one response
// out. Generate must not keep req after it returns.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// DefaultMaxTurns is the turn limit when Options.MaxTurns is zero.
const DefaultMaxTurns = 10

// Options configure Run. A nil *Options selects every default.
type Options struct {
	// System is the system prompt.
	System string
	// MaxTurns is how many times the model is asked, at most. Zero selects
	// DefaultMaxTurns.
	MaxTurns int
	// Parallel, when greater than 1, runs the calls of a turn with up to
	// that many at once; results still go into the history in call order.
	// Zero or 1 runs them one after another, in the order the model asked.
	Parallel int
	// State is the caller's invocation state, passed to every call (see
	// tool.CallFrom). It never reaches the model.
	State map[string]any
}

// ErrTurnLimit is matched by a *TurnLimitError.
var ErrTurnLimit = errors.New("agent: turn limit reached")

// A TurnLimitError reports that the model was still calling tools when the
// turn limit was reached.
type TurnLimitError struct {
	Turns int // the limit that was reached
}

// Error says how many turns ran.
func (e *TurnLimitError) Error() string {
	return fmt.Sprintf("agent: the model was still calling tools after %d turns", e.Turns)
}

// Is reports whether target is ErrTurnLimit.
func (e *TurnLimitError) Is(target error) bool { return target == ErrTurnLimit }

// Run runs the loop until the model answers without calling a tool, and
// returns the history with every turn appended. On a model error, a
// cancelled context or the turn limit (*TurnLimitError) it returns the
// history so far, in which every call has its result, with the error. A nil
// registry offers no tools.
func Run(ctx context.Context, model Model, reg *tool.Registry, history History, opts *Options) (History, error) {
	if opts == nil {
		opts = &Options{}
	}
	if reg == nil {
		reg = &tool.Registry{}
	}
	maxTurns := opts.MaxTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	for turn := 1; ; turn++ {
		if err := ctx.Err(); err != nil {
			return history, fmt.Errorf("agent: turn %d: %w", turn, err)
		}
		req := buildRequest(ctx, reg, opts.System, history)
		resp, err := model.Generate(ctx, req)
		if err != nil {
			return history, fmt.Errorf("agent: turn %d: %w", turn, err)
		}
		if resp == nil {
			return history, fmt.Errorf("agent: turn %d: the model returned no response", turn)
		}
		calls := withIDs(resp.Calls, turn, history)
		history = append(history, Message{Role: RoleAssistant, Text: resp.Text, Calls: calls})
		if len(calls) == 0 {
			return history, nil
		}
		toolCalls := make([]tool.Call, len(calls))
		for i, c := range calls {
			toolCalls[i] = tool.Call{ID: c.ID, Name: c.Name, Args: c.Args, State: opts.State}
		}
		results := tool.RunAll(ctx, reg, toolCalls, opts.Parallel)
		for i, res := range results {
			history = append(history, Message{Role: RoleTool, CallID: calls[i].ID, Name: calls[i].Name, Text: res.Content, IsError: res.IsError})
		}
		if turn >= maxTurns {
			return history, &TurnLimitError{Turns: maxTurns}
		}
	}
}

// buildRequest assembles one turn's request from what is enabled now.
func buildRequest(ctx context.Context, reg *tool.Registry, system string, history History) *Request {
	req := &Request{Tools: reg.Specs(ctx)}
	var prompt []string
	if system != "" {
		prompt = append(prompt, system)
	}
	var leading []Message
	for _, in := range reg.Instructions(ctx) {
		switch in.Placement {
		case tool.AsUserMessage:
			leading = append(leading, UserText(in.Text))
		default:
			prompt = append(prompt, in.Text)
		}
	}
	req.System = strings.Join(prompt, "\n\n")
	req.Messages = make([]Message, 0, len(leading)+len(history))
	req.Messages = append(append(req.Messages, leading...), history...)
	return req
}

// withIDs returns the calls with an ID each: a model that sends none, or
// the same one twice, gets IDs made unique within the conversation, so that
// each result can be matched to its call.
func withIDs(calls []ToolCall, turn int, history History) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	used := map[string]bool{}
	for _, m := range history {
		for _, c := range m.Calls {
			used[c.ID] = true
		}
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		if c.ID == "" || used[c.ID] {
			base := fmt.Sprintf("call_%d_%d", turn, i+1)
			c.ID = base
			for n := 2; used[c.ID]; n++ {
				c.ID = fmt.Sprintf("%s_%d", base, n)
			}
		}
		used[c.ID] = true
		out[i] = c
	}
	return out
}
