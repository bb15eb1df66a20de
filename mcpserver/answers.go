package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answersKey is the context key of a call's *inputAnswers.
type answersKey struct{}

// inputAnswers are the answers a client gave to the requests of earlier
// rounds of one tools/call, in the order the handler made them: List to
// Elicit and Sample (the handler has taken the first taken of them in this
// round), Asks to tool.Ask. Both travel in the request state, sealed.
type inputAnswers struct {
	mu       sync.Mutex
	List     []json.RawMessage
	Asks     []string
	declined bool // the user did not answer the last tool.Ask
	taken    int
	sealer   *stateSealer  // seals the request state
	bind     func() []byte // what the request state is bound to, worked out when first needed
	asked    string        // in an opened state: the key of the request it was sent with
}

// next returns the index of the handler's next request in this round, and
// the answer an earlier round got for it, or nil.
func (a *inputAnswers) next() (int, json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := a.taken
	a.taken++
	if i < len(a.List) {
		return i, a.List[i]
	}
	return i, nil
}

// add records the answer to the handler's request i, for the rounds
// after this one.
func (a *inputAnswers) add(i int, data json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i == len(a.List) {
		a.List = append(a.List, data)
	}
}

// restart begins a round: the handler asks again from its first request.
func (a *inputAnswers) restart() {
	a.mu.Lock()
	a.taken = 0
	a.mu.Unlock()
}

// inputKey returns the key of the i-th input request of Elicit or Sample
// in a call, and askKey that of its i-th tool.Ask.
func inputKey(i int) string { return "hands-" + strconv.Itoa(i) }
func askKey(i int) string   { return "hands-ask-" + strconv.Itoa(i) }

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
	a.List, a.Asks = got.List, got.Asks
	// Only the answer to the one request the last round made counts.
	r, ok := p.InputResponses[got.asked]
	switch {
	case !ok:
	case got.asked == inputKey(len(a.List)):
		if data, err := json.Marshal(r); err == nil {
			a.List = append(a.List, data)
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
