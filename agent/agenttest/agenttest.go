package agenttest

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/hands-go/hands/agent"
)

// ErrScriptEnded is returned by a Script asked for more turns than it has.
var ErrScriptEnded = errors.New("agenttest: the script has no more responses")

// A Script is an agent.Model that answers with its responses, in order, one
// per turn, and records every request. It is also an agent.StreamingModel:
// Stream yields the turn's scripted deltas before its response, so a user
// interface can be tested without a provider. A Script is safe for
// concurrent use.
type Script struct {
	mu       sync.Mutex
	turns    []Turn
	requests []agent.Request
}

// A Turn is one scripted turn: the deltas Stream yields, then the response.
type Turn struct {
	Deltas   []agent.Delta
	Response agent.Response
}

// Streamed returns a turn whose answer streams as text: one delta per
// piece, in order, and a response whose Text is the pieces joined.
func Streamed(pieces ...string) Turn {
	t := Turn{Deltas: make([]agent.Delta, len(pieces))}
	for i, p := range pieces {
		t.Deltas[i] = agent.Delta{Text: p}
	}
	t.Response.Text = strings.Join(pieces, "")
	return t
}

// NewScript returns a model that answers with responses, in order. Its
// Stream yields no deltas, only the response.
func NewScript(responses ...agent.Response) *Script {
	turns := make([]Turn, len(responses))
	for i, r := range responses {
		turns[i].Response = r
	}
	return &Script{turns: turns}
}

// NewStreamScript returns a model that plays turns, in order: Generate
// returns each turn's response, and Stream yields its deltas and then the
// response.
func NewStreamScript(turns ...Turn) *Script {
	return &Script{turns: slices.Clone(turns)}
}

// Generate records req and returns the next response, or ErrScriptEnded.
func (s *Script) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	turn, err := s.next(ctx, req)
	if err != nil {
		return nil, err
	}
	return &turn.Response, nil
}

// Stream records req and yields the next turn's deltas and then its
// response, or ErrScriptEnded. It stops with the context's error if ctx
// ends between two deltas.
func (s *Script) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		turn, err := s.next(ctx, req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		for _, d := range turn.Deltas {
			if err := ctx.Err(); err != nil {
				yield(agent.Chunk{}, err)
				return
			}
			if !yield(agent.Chunk{Delta: d}, nil) {
				return
			}
		}
		yield(agent.Chunk{Response: &turn.Response}, nil)
	}
}

// next records req and returns a copy of the next turn.
func (s *Script) next(ctx context.Context, req *agent.Request) (Turn, error) {
	if err := ctx.Err(); err != nil {
		return Turn{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, agent.Request{
		System:   req.System,
		Messages: slices.Clone(req.Messages),
		Tools:    slices.Clone(req.Tools),
		Allowed:  slices.Clone(req.Allowed),
	})
	if len(s.requests) > len(s.turns) {
		return Turn{}, ErrScriptEnded
	}
	return s.turns[len(s.requests)-1], nil
}

// Requests returns copies of the requests received so far.
func (s *Script) Requests() []agent.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Call returns a tool call for a script; args is JSON.
func Call(id, name, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: name, Args: []byte(args)}
}
