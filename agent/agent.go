package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/hands-go/hands/claims"
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
	// Role says who wrote the message.
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
	// Structured is, on a tool message, the call's structured output
	// (tool.Result.Structured), next to Text; nil when the tool has none,
	// and when Text is not the structured output's own text — middleware
	// rewrote it (to redact, say), or a remote tool's text says something
	// else — so that an adapter that sends the structured output (Gemini)
	// never bypasses what the model was meant to read.
	// Adapters send it where the provider accepts structured results.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Parts is, on a tool message, the call's rich content
	// (tool.Result.Parts): text, images, audio, resources and links, of
	// which Text is the text rendering (tool.PartsText). It is nil when
	// the tool returned none, and when Text is not the parts' rendering
	// (middleware rewrote it), for the reason given for Structured.
	// Adapters send the images where the provider accepts them in a tool
	// result, and Text where it does not. In JSON, a part's data is base64.
	Parts []tool.Part `json:"parts,omitempty"`
	// Migrated reports, on a tool message, a call made against an earlier
	// version of the tool's input and upgraded by its migrations
	// (tool.Migrate, tool.RepairMigrated): the history says which version
	// each call was written for.
	Migrated bool `json:"migrated,omitempty"`
	// Version is, on a tool message, the version of the tool the call was
	// made against (tool.WithVersion): for a migrated call, the version
	// its chain of migrations started from (tool.Repair.Version); for any other,
	// the version that ran it. "" when the tool declares no version.
	Version string `json:"version,omitempty"`
	// RanAs is, on a tool message, the version of the tool that ran the
	// call (tool.Result.Version); it differs from Version only on a
	// migrated call.
	RanAs string `json:"ranAs,omitempty"`
	// Loaded is, on a tool message that answers the portable tool search
	// (SearchToolName), the deferred tools its answer loaded, best first.
	// The requests of the later turns send them after the tools sent
	// before (see Loaded), so that a resumed run, a durable run and a
	// replay of the history load the same tools.
	Loaded []string `json:"loaded,omitempty"`
	// Handle is, on a tool message, the handle read_result reads the
	// call's whole result by (tool.ReadResultName): set when a budget cut
	// the result (tool.Cut.Handle), or when the loop cleared it from the
	// context (Options.KeepResults); "" otherwise.
	Handle string `json:"handle,omitempty"`
	// Cleared reports, on a tool message, a result the loop replaced with
	// a short note to save the model's context (Options.KeepResults): Text
	// is that note, which says how to read the result again, and
	// Structured and Parts are nil.
	Cleared bool `json:"cleared,omitempty"`
	// State is, on an assistant message, what the provider needs to
	// continue the conversation from this turn that Text and Calls do not
	// hold, such as reasoning items or thinking blocks and their
	// signatures. It is opaque: a JSON object keyed by the provider's name
	// ("openai", "anthropic", "gemini"), written by the adapter that
	// produced the message and read only by an adapter of that provider;
	// others ignore it. Keep it when storing a history.
	State json.RawMessage `json:"state,omitempty"`
}

// A ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID   string // unique in the conversation; the loop makes one when the model sends none
	Name string // the tool the model asked for
	// Args are the arguments as the model sent them, byte for byte, even
	// when they are not valid JSON: such a call's validation error then
	// reaches the model as its result. In JSON they are the string "args",
	// as OpenAI's API sends them, so that they come back byte for byte
	// whatever encodes them: raw JSON would come back compacted, indented
	// or with <, > and & escaped.
	Args json.RawMessage
	// State is the provider's opaque state of this call, such as Gemini's
	// thought signature, in the form of Message.State.
	State json.RawMessage
}

// toolCallJSON is the JSON form of a ToolCall.
type toolCallJSON struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Args  json.RawMessage `json:"args,omitempty"` // a string holding the arguments
	State json.RawMessage `json:"state,omitempty"`
}

// MarshalJSON encodes the call, with its arguments as a string.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	j := toolCallJSON{ID: c.ID, Name: c.Name, State: c.State}
	if len(c.Args) > 0 {
		args, err := json.Marshal(string(c.Args))
		if err != nil {
			return nil, err
		}
		j.Args = args
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON encodes. Arguments written as
// JSON rather than as a string are taken as they are.
func (c *ToolCall) UnmarshalJSON(data []byte) error {
	var j toolCallJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*c = ToolCall{ID: j.ID, Name: j.Name, Args: j.Args, State: j.State}
	if len(j.Args) > 0 && j.Args[0] == '"' {
		var args string
		if err := json.Unmarshal(j.Args, &args); err != nil {
			return err
		}
		c.Args = json.RawMessage(args)
	}
	return nil
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
	// Tools are the tools enabled on this turn. For a model that searches
	// deferred tools itself (ToolSearcher), they are all of them, the
	// deferred ones with DeferLoading set; for any other, the deferred
	// ones are left out until the portable search loads them (see
	// ToolSearcher), and none has DeferLoading set. For a model that is
	// shown every tool and told which it may call (a ToolAllower), they
	// are every tool of the registry, enabled or not, in the registry's
	// order, so that they change only when the registry does.
	Tools []tool.Spec
	// Allowed is nil, except for a model that is shown every tool (a
	// ToolAllower): then it names the tools of Tools the model may call
	// on this turn, the enabled ones, in the order of Tools; it is empty,
	// not nil, when none is. An adapter whose provider cannot say which
	// tools are allowed refuses a request where Allowed leaves a tool out
	// (dialect.AllowedTools), rather than show the model a tool it may
	// not call.
	Allowed []string
}

// A Response is a model's answer on one turn: text, tool calls, or both.
type Response struct {
	Text  string     // what the model said
	Calls []ToolCall // the tools it asks to run, in order
	// FinishReason says why the model stopped; empty when the model does
	// not say. The loop treats FinishLength, FinishContentFilter and
	// FinishRefusal as an *IncompleteError and FinishMalformedCall as a
	// call to try again (see Run).
	FinishReason FinishReason
	// RawFinishReason is the provider's own reason, such as "max_tokens",
	// "incomplete: max_output_tokens" or "MALFORMED_FUNCTION_CALL".
	RawFinishReason string
	// FinishMessage is the provider's explanation of the finish, when it
	// gives one, such as Gemini's finishMessage quoting a malformed call.
	FinishMessage string
	// State is the provider's opaque state of the turn, which the loop puts
	// on the assistant message (see Message.State).
	State json.RawMessage
	// Usage is what the turn cost, as the provider reports it; zero when it
	// reports nothing.
	Usage Usage
	// ID is the provider's identifier of the response, such as "chatcmpl-…"
	// or "msg_…"; empty when the provider gives none.
	ID string
	// Model is the model that answered, as the provider names it, which
	// may be more precise than the one asked for ("gpt-4.1-2025-04-14");
	// empty when the provider does not say.
	Model string
}

// A FinishReason is the portable reason a model stopped generating.
type FinishReason string

// The finish reasons.
const (
	// FinishStop: the model finished its answer.
	FinishStop FinishReason = "stop"
	// FinishToolCalls: the model finished its turn to have tools run.
	FinishToolCalls FinishReason = "tool_calls"
	// FinishLength: the output was cut off at the token limit.
	FinishLength FinishReason = "length"
	// FinishContentFilter: the output was withheld or cut off by a
	// safety or content filter.
	FinishContentFilter FinishReason = "content_filter"
	// FinishRefusal: the model declined to answer.
	FinishRefusal FinishReason = "refusal"
	// FinishMalformedCall: the model tried to call a tool and produced
	// something that is not a call.
	FinishMalformedCall FinishReason = "malformed_call"
	// FinishOther: any other reason the provider gives.
	FinishOther FinishReason = "other"
)

// Usage counts the tokens of one model call, or of a run.
type Usage struct {
	// InputTokens are all the tokens read, cached ones included.
	InputTokens int64 `json:"inputTokens,omitempty"`
	// OutputTokens are all the tokens generated, reasoning included.
	OutputTokens int64 `json:"outputTokens,omitempty"`
	// CachedInputTokens are the part of InputTokens read from the
	// provider's prompt cache.
	CachedInputTokens int64 `json:"cachedInputTokens,omitempty"`
	// CacheWriteTokens are the part of InputTokens written to the prompt
	// cache, where the provider counts them apart (Anthropic).
	CacheWriteTokens int64 `json:"cacheWriteTokens,omitempty"`
	// ReasoningTokens are the part of OutputTokens spent reasoning.
	ReasoningTokens int64 `json:"reasoningTokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		CacheWriteTokens:  u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:   u.ReasoningTokens + v.ReasoningTokens,
	}
}

// A Model is what a model provider implements: one turn in, one response
// out. Generate must not keep req after it returns.
type Model interface {
	// Generate answers one turn. It must not keep req after it returns.
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// A StreamingModel is a Model that can also hand its output over as it
// arrives. The loop uses Stream when a model has it, and passes each delta
// on as an EventDelta.
type StreamingModel interface {
	Model
	// Stream runs one turn as Generate does and returns a single-use
	// iterator over its output: deltas, then one chunk with the whole
	// Response, which is the same Generate would have returned. Iteration
	// stops after the first error, which is yielded. If the caller stops
	// early, the call is cancelled. Stream must not keep req after the
	// iteration ends.
	Stream(ctx context.Context, req *Request) iter.Seq2[Chunk, error]
}

// A Chunk is one step of a streamed response: a delta, or, last of all, the
// response.
type Chunk struct {
	// Delta is a piece of the output; zero on the last chunk.
	Delta Delta
	// Response is set on the last chunk, and only there.
	Response *Response
}

// A Delta is a piece of a model's output as it streams: text, a piece of
// a tool call, or both.
type Delta struct {
	// Text continues the answer's text.
	Text string `json:"text,omitempty"`
	// Call is a piece of a tool call; nil when the delta has none.
	Call *CallDelta `json:"call,omitempty"`
}

// A CallDelta is a piece of a tool call as it streams. The final Response
// holds the whole call.
type CallDelta struct {
	// Index is the call's place among the turn's calls, from 0.
	Index int `json:"index"`
	// ID and Name come with the call's first piece, when the provider
	// sends them.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Args continues the arguments' JSON text.
	Args string `json:"args,omitempty"`
}

// Chunks returns a single-use iterator over one turn of m: m's own Stream
// when m is a StreamingModel, otherwise one chunk with Generate's response.
// Iteration stops after the first error, which is yielded. It is what the
// loop calls, and what middleware around a Model can use to pass a stream
// on.
func Chunks(ctx context.Context, m Model, req *Request) iter.Seq2[Chunk, error] {
	if sm, ok := m.(StreamingModel); ok {
		return sm.Stream(ctx, req)
	}
	return func(yield func(Chunk, error) bool) {
		resp, err := m.Generate(ctx, req)
		if err != nil {
			yield(Chunk{}, err)
			return
		}
		yield(Chunk{Response: resp}, nil)
	}
}

// DefaultMaxTurns is the turn limit when Options.MaxTurns is zero.
const DefaultMaxTurns = 10

// Options configure a run (Run, Stream, Resume, ResumeStream). A nil
// *Options selects every default.
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
	// NeedsApproval says which calls wait for a person's approval before
	// they run; the run pauses with an *Interrupt when a turn has one (see
	// Resume). Destructive and InScopes are common policies. Nil means no
	// call needs approval.
	NeedsApproval func(ctx context.Context, call tool.Call) bool
	// PauseKey is the secret key, at least MinPauseKeyBytes long, under
	// which a run seals the *Interrupt it pauses with, and Resume checks
	// it. Nil selects a random key made once per process: an interrupt
	// then resumes only in the process that made it. Processes that resume
	// each other's interrupts share a key, as they would a database
	// password.
	PauseKey []byte
	// PauseTTL is how long after a pause its *Interrupt can be resumed;
	// past it, Resume refuses it with ErrInterruptExpired. Zero means no
	// end. With one, a claim store may forget the claims older than it.
	PauseTTL time.Duration
	// Claims records the interrupts resumed, so that each is resumed once:
	// Resume claims an interrupt's ID after it has checked the interrupt
	// and the decisions, and before anything runs, and a second Resume of
	// the same interrupt gets ErrInterruptClaimed; when the store reports
	// an error, Resume runs nothing. Nil selects this process's memory;
	// processes that resume each other's interrupts share a store, such as
	// a claims.SQL.
	Claims claims.Store
	// Middleware wraps the run, its model calls and its tool calls; the
	// first one listed is outermost.
	Middleware []Middleware
	// ResultBudget bounds, in bytes, each tool result the model reads of
	// a tool that declares no budget of its own (tool.WithResultBudget):
	// it is the budget of the run's tool.Recipient. Zero leaves the
	// registry's tool.Budget.Default; a negative value leaves such results
	// whole. Budgets must be on (tool.Registry.SetBudget) when it is not
	// zero: the run fails with tool.ErrBudgetsOff otherwise.
	ResultBudget int
	// Recipient names who reads the run's results, for the registry's
	// result store: the rest of a result cut in this run, or cleared from
	// its history, is read by a run of the same Recipient only (a user, a
	// conversation). Empty makes the handle itself what grants reading.
	Recipient string
	// KeepResults, when positive, keeps the last KeepResults tool results
	// of the history in full before each turn and replaces each older one
	// with a short note that says how to read it again: with read_result,
	// when the registry's budgets are on (the result is kept in its store
	// for the budget's TTL), else by calling the tool again. The history
	// the run returns records the notes (Message.Cleared), so that a run
	// resumed from it sends the model the same context. Zero keeps every
	// result.
	KeepResults int
}

// ErrTurnLimit is matched by a *TurnLimitError.
var ErrTurnLimit = errors.New("agent: turn limit reached")

// A TurnLimitError reports that the model was still calling tools when the
// turn limit was reached.
type TurnLimitError struct {
	Turns int   // the limit that was reached
	Err   error // ErrTurnLimit
}

// Error says how many turns ran.
func (e *TurnLimitError) Error() string {
	return fmt.Sprintf("agent: the model was still calling tools after %d turns", e.Turns)
}

// Unwrap returns Err.
func (e *TurnLimitError) Unwrap() error { return e.Err }

// The kinds of incomplete response. An *IncompleteError matches one of
// them with errors.Is: its Err.
var (
	// ErrTruncated matches a response cut off at the token limit.
	ErrTruncated = errors.New("agent: the response was truncated")
	// ErrFiltered matches a response withheld or cut off by a content
	// filter.
	ErrFiltered = errors.New("agent: the response was filtered")
	// ErrRefused matches a model's refusal to answer.
	ErrRefused = errors.New("agent: the model refused")
)

// An IncompleteError reports a turn whose response was truncated, filtered
// or refused. None of its calls ran, and the response is not in the
// history, which ends where it was before the turn: raise the token limit
// or change the request, and run again from there.
type IncompleteError struct {
	Turn     int       // the turn, from 1
	Response *Response // what the model sent, its calls included
	Err      error     // ErrTruncated, ErrFiltered or ErrRefused, after the finish reason
}

// Error says why the response is incomplete.
func (e *IncompleteError) Error() string {
	s := fmt.Sprintf("agent: turn %d: the response is incomplete (%s", e.Turn, e.Response.FinishReason)
	if raw := e.Response.RawFinishReason; raw != "" && raw != string(e.Response.FinishReason) {
		s += ": " + raw
	}
	s += ")"
	if n := len(e.Response.Calls); n > 0 {
		s += fmt.Sprintf("; its %d call(s) did not run", n)
	}
	return s
}

// Unwrap returns Err.
func (e *IncompleteError) Unwrap() error { return e.Err }

// incompleteKind returns the sentinel of an incomplete response's finish
// reason, or nil for a complete one.
func incompleteKind(reason FinishReason) error {
	switch reason {
	case FinishLength:
		return ErrTruncated
	case FinishContentFilter:
		return ErrFiltered
	case FinishRefusal:
		return ErrRefused
	}
	return nil
}

// MalformedCallText is the start of the user message the loop adds after a
// turn that ended with FinishMalformedCall and no call, followed by the
// provider's explanation.
const MalformedCallText = "Your last tool call was malformed and did not run; call the tool again with valid arguments."

// buildRequest assembles one turn's request from what is enabled now, for
// a model that searches deferred tools itself (native) or not.
func buildRequest(ctx context.Context, reg *tool.Registry, system string, history History, native, allows bool) *Request {
	req := &Request{Tools: toolsFor(reg.Specs(ctx), native, history)}
	if allows {
		enabled := make(map[string]bool, len(req.Tools))
		for _, s := range req.Tools {
			enabled[s.Name] = true
		}
		req.Tools = toolsFor(reg.AllSpecs(), native, history)
		req.Allowed = make([]string, 0, len(enabled))
		for _, s := range req.Tools { // in the order of Tools; a tool removed meanwhile is in neither
			if enabled[s.Name] {
				req.Allowed = append(req.Allowed, s.Name)
			}
		}
	}
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
