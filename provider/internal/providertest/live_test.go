package providertest

import (
	"context"
	"fmt"
	"github.com/hands-go/hands/internal/replay"
	"sync"
	"testing"

	"github.com/hands-go/hands/agent"
)

// script is a Model that answers with its responses in turn.
type script struct {
	mu        sync.Mutex
	responses []*agent.Response
}

func (s *script) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.responses) == 0 {
		return nil, fmt.Errorf("the script has no more responses")
	}
	r := s.responses[0]
	s.responses = s.responses[1:]
	return r, nil
}

// TestLive checks the live smoke test itself on scripted models: it passes
// a model that calls the tool and answers with the sum, and fails one that
// answers without calling it, or with another number.
func TestLive(t *testing.T) {
	call := &agent.Response{Calls: []agent.ToolCall{{ID: "c1", Name: "add", Args: []byte(`{"a":1234,"b":5678}`)}}}
	for _, tt := range []struct {
		name      string
		responses []*agent.Response
		pass      bool
	}{
		{"call and answer", []*agent.Response{call, {Text: "6,912"}}, true},
		{"no call", []*agent.Response{{Text: "6912"}}, false},
		{"wrong sum", []*agent.Response{call, {Text: "6913"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msgs := replay.Capture(t, func(tb testing.TB) { Live(tb, &script{responses: tt.responses}) })
			if tt.pass && len(msgs) > 0 {
				t.Errorf("Live failed a model that did it right: %q", msgs)
			}
			if !tt.pass && len(msgs) == 0 {
				t.Errorf("Live passed a model that did it wrong")
			}
		})
	}
}
