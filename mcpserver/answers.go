package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answersKey is the context key of a call's *inputAnswers.
type answersKey struct{}

// inputAnswers are the answers a client gave to the requests of earlier
// rounds of one tools/call: List to the unnamed requests of Elicit and
// Sample, in the order the handler made them (the handler has taken the
// first taken of them in this round), Named to those it named
// (WithInputKey), by key, and Asks to tool.Ask. All travel in the request
// state, sealed.
type inputAnswers struct {
	mu       sync.Mutex
	List     []json.RawMessage
	Named    map[string]json.RawMessage
	Asks     []string
	declined bool // the user did not answer the last tool.Ask
	taken    int
	named    map[string]bool // the keys the handler named in this round
	sealer   *stateSealer    // seals the request state
	bind     func() []byte   // what the request state is bound to, worked out when first needed
	asked    string          // in an opened state: the key of the request it was sent with
}

// next returns the key of the handler's next request in this round, and
// the answer an earlier round got for it, or nil: named is the key the
// handler gave it (WithInputKey), or "" for the next of its unnamed
// requests, whose key is inputKey of its place among them. A key the
// handler named before in this round is an error that wraps
// ErrInputKeyReused.
func (a *inputAnswers) next(named string) (string, json.RawMessage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if named != "" {
		if a.named[named] {
			return "", nil, fmt.Errorf("%w: %q", ErrInputKeyReused, named)
		}
		if a.named == nil {
			a.named = map[string]bool{}
		}
		a.named[named] = true
		return named, a.Named[named], nil
	}
	i := a.taken
	a.taken++
	if i < len(a.List) {
		return inputKey(i), a.List[i], nil
	}
	return inputKey(i), nil, nil
}

// add records the answer to the handler's request with the given key,
// for the rounds after this one.
func (a *inputAnswers) add(key string, data json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case key == inputKey(len(a.List)):
		a.List = append(a.List, data)
	case !strings.HasPrefix(key, reservedKeyPrefix):
		if a.Named == nil {
			a.Named = map[string]json.RawMessage{}
		}
		a.Named[key] = data
	}
}

// restart begins a round: the handler asks again from its first request.
func (a *inputAnswers) restart() {
	a.mu.Lock()
	a.taken = 0
	clear(a.named)
	a.mu.Unlock()
}

// reservedKeyPrefix begins the keys hands gives the input requests it
// names itself, and no key a handler names.
const reservedKeyPrefix = "hands-"

// inputKey returns the key of the i-th unnamed input request of Elicit or
// Sample in a call, and askKey that of its i-th tool.Ask.
func inputKey(i int) string { return reservedKeyPrefix + strconv.Itoa(i) }
func askKey(i int) string   { return reservedKeyPrefix + "ask-" + strconv.Itoa(i) }

// MaxInputKeyBytes is the longest key WithInputKey takes.
const MaxInputKeyBytes = 64

// Errors of Elicit, ElicitRequest and Sample for the key of WithInputKey.
var (
	// ErrInputKeyInvalid is matched by the error of a request whose key
	// is empty, longer than MaxInputKeyBytes, has a byte other than an
	// ASCII letter, a digit, '_', '-' or '.', or begins with "hands-",
	// the keys hands gives the requests it names itself.
	ErrInputKeyInvalid = errors.New("mcpserver: the input request's key is not valid: it takes 1 to 64 ASCII letters, digits, '_', '-' or '.', and does not begin with \"hands-\"")
	// ErrInputKeyReused is matched by the error of a request whose key
	// another request of the same run of the handler was given: each
	// request of a round has a key of its own, to which its answer comes.
	ErrInputKeyReused = errors.New("mcpserver: the handler gave this key to another of its input requests already; give each request a key of its own")
)

// inputKeyKey is the context key of the key WithInputKey names.
type inputKeyKey struct{}

// WithInputKey returns a copy of ctx with which Elicit, ElicitRequest and
// Sample name their request key, in place of the key hands gives it: from
// protocol version 2026-07-28, where the request goes back in the call's
// result, key is its key in inputRequests, and the client answers it under
// that key in inputResponses. When the handler runs again, a named
// request gets the answer given to its key, wherever it asks it; the
// unnamed ones get theirs by the order in which the handler asks them, as
// before, and a handler may mix both.
//
//	name, err := mcpserver.Elicit[Name](mcpserver.WithInputKey(ctx, "user_name"), "What is your name?")
//
// A key is 1 to MaxInputKeyBytes ASCII letters, digits, '_', '-' or '.',
// not beginning with "hands-", else the request's error matches
// ErrInputKeyInvalid; and each request of a run of the handler has a key
// of its own, else the later's error matches ErrInputKeyReused. So a
// context of WithInputKey names one request: make another for the next.
// In a task of the tasks extension the task gives its requests keys of
// its own, unique over the task's life, and on earlier protocol versions,
// which send the request, a key names only the answer kept for the
// handler's next run.
func WithInputKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, inputKeyKey{}, key)
}

// inputKeyFrom returns the key a request made with ctx is named by
// (WithInputKey), or "" for none, or an error that wraps
// ErrInputKeyInvalid.
func inputKeyFrom(ctx context.Context) (string, error) {
	key, ok := ctx.Value(inputKeyKey{}).(string)
	if !ok {
		return "", nil
	}
	if !validInputKey(key) {
		if len(key) > MaxInputKeyBytes {
			return "", fmt.Errorf("%w (a key of %d bytes)", ErrInputKeyInvalid, len(key))
		}
		return "", fmt.Errorf("%w (got %q)", ErrInputKeyInvalid, key)
	}
	return key, nil
}

// validInputKey reports whether a handler may name a request key.
func validInputKey(key string) bool {
	if key == "" || len(key) > MaxInputKeyBytes || strings.HasPrefix(key, reservedKeyPrefix) {
		return false
	}
	for i := range len(key) {
		switch c := key[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}

// answersOf returns the answers a retried tools/call carries: those of
// earlier rounds, sealed in its request state, then those of the last
// round. A request state the server did not seal for this call, or that
// expired or was used before, is a *RequestStateError.
func (s *Server) answersOf(ctx context.Context, req *mcp.CallToolRequest) (*inputAnswers, error) {
	p := req.Params
	a := &inputAnswers{sealer: s.states, bind: sync.OnceValue(func() []byte { return binding(ctx, req) })}
	if p.RequestState == "" {
		if len(p.InputResponses) > 0 {
			// Answers to requests the server never made.
			return nil, &RequestStateError{Tool: p.Name, Err: ErrStateAltered}
		}
		return a, nil // the first round
	}
	caller, ss := stateCaller(ctx, req)
	got, err := s.states.open(ctx, p.Name, p.RequestState, a.bind(), caller, ss, time.Now())
	if err != nil {
		return nil, err
	}
	a.List, a.Named, a.Asks = got.List, got.Named, got.Asks
	// Only the answer to the one request the last round made counts.
	r, ok := p.InputResponses[got.asked]
	switch {
	case !ok:
	case got.asked == inputKey(len(a.List)):
		if data, err := json.Marshal(r); err == nil {
			a.List = append(a.List, data)
		}
	case validInputKey(got.asked):
		if _, answered := a.Named[got.asked]; answered {
			break
		}
		if data, err := json.Marshal(r); err == nil {
			if a.Named == nil {
				a.Named = map[string]json.RawMessage{}
			}
			a.Named[got.asked] = data
		}
	case got.asked == askKey(len(a.Asks)):
		a.declined = true
		if res, ok := r.(*mcp.ElicitResult); ok && res != nil && res.Action == "accept" {
			if answer, ok := res.Content["answer"].(string); ok {
				a.Asks, a.declined = append(a.Asks, answer), false
			}
		}
	}
	return a, nil
}

// state returns the answers as the request state of a result that makes
// the input request with the given key, sealed and bound to the call.
func (a *inputAnswers) state(asked string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sealer.seal(a, asked, a.bind(), time.Now())
}

// maxAsks bounds how many questions of tool.Ask one call may put to the
// user, against a handler that asks again whatever the answer.
const maxAsks = 16

// askForm is the form in which the user answers a question of tool.Ask.
type askForm struct {
	Answer string `json:"answer" jsonschema:"your answer"`
}

// askClient puts a handler's tool.Ask question to the user of the client,
// as a form of one text field, when the client declared elicitation. On
// protocol versions from 2026-07-28 it returns the result that carries the
// request, but in a task of the tasks extension, which has answered its
// request already; there, and before 2026-07-28, it asks (through the
// task, or on the session) and waits, and reports whether it got an
// answer, with which the call runs again. Otherwise — no elicitation, a
// declined form, too many questions — the call's error result stands.
func askClient(ctx context.Context, question string, answers *inputAnswers) (again bool, asked *mcp.CallToolResult) {
	if answers.declined || len(answers.Asks) >= maxAsks {
		return false, nil
	}
	p, err := peerFrom(ctx, "elicitation")
	if err != nil {
		return false, nil
	}
	f, err := formFor(reflect.TypeFor[askForm]())
	if err != nil {
		return false, nil
	}
	params := &mcp.ElicitParams{Mode: "form", Message: question, RequestedSchema: f.schema}
	t := p.task
	if p.pending != nil {
		t = p.pending.pin()
	}
	if p.roundTrips && t == nil {
		// The handler has returned, and runs again with the answer: the
		// question goes back in the result, as a plain call's does.
		key := askKey(len(answers.Asks))
		return false, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: params}, RequestState: answers.state(key)}
	}
	var res *mcp.ElicitResult
	if t != nil {
		// The extension's task asks through the task, as Elicit does in
		// one; the call runs again with the answer.
		data, err := t.r.ask(ctx, t, "elicitation/create", params)
		if err != nil || json.Unmarshal(data, &res) != nil || res == nil {
			return false, nil
		}
	} else if res, err = p.session.Elicit(ctx, params); err != nil {
		return false, nil
	}
	if res.Action != "accept" {
		return false, nil
	}
	answer, ok := res.Content["answer"].(string)
	if !ok {
		return false, nil
	}
	answers.mu.Lock()
	answers.Asks = append(answers.Asks, answer)
	answers.mu.Unlock()
	return true, nil
}

// An inputRequired is the error of a handler that waits for the client's
// answer to a request, on a protocol version where the request goes back
// in the call's result: the server returns the request, and the client
// calls again with the answer, which the handler, run again from the
// start, then gets.
type inputRequired struct {
	key    string
	params mcp.InputRequest
	state  string // the answers so far, for the client to send back
	err    error  // tool.ErrInterrupted
}

func (e *inputRequired) Error() string {
	return "mcpserver: the call waits for the client's answer"
}

// Unwrap returns tool.ErrInterrupted, which the error holds.
func (e *inputRequired) Unwrap() error { return e.err }
