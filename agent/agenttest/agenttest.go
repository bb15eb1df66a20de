package agenttest

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/hands-go/hands/agent"
)

// ErrScriptEnded is returned by a Script asked for more turns than it has.
var ErrScriptEnded = errors.New("agenttest: the script has no more responses")

// A Script is an agent.Model that answers with its responses, in order, one
// per turn, and records every request. A Script is safe for concurrent use.
type Script struct {
	mu        sync.Mutex
	responses []agent.Response
	requests  []agent.Request
}

// NewScript returns a model that answers with responses, in order.
func NewScript(responses ...agent.Response) *Script {
	return &Script{responses: responses}
}

// Generate records req and returns the next response, or ErrScriptEnded.
func (s *Script) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, agent.Request{
		System:   req.System,
		Messages: slices.Clone(req.Messages),
		Tools:    slices.Clone(req.Tools),
	})
	if len(s.requests) > len(s.responses) {
		return nil, ErrScriptEnded
	}
	resp := s.responses[len(s.requests)-1]
	return &resp, nil
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
