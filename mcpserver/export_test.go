package mcpserver

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// FillStateShare has user use, in this process's memory of used request
// states, as many states as it may hold, until the test ends.
func FillStateShare(t *testing.T, user string) {
	now := time.Now()
	for i := 0; usedStates.claim("user "+user, nil, strconv.Itoa(i), now.Add(time.Hour), now) == nil; i++ {
	}
	t.Cleanup(func() { usedStates.forget("user " + user) })
}

// SearchPuts returns how many tools s put in its search index, with
// Options.ToolSearch.
func SearchPuts(s *Server) int64 { return s.search.puts.Load() }

// FloodAnonymousStates has n states of callers the server cannot tell
// apart used, in this process's memory of used request states, as a flood
// that ends as the test's own calls begin: each state expires a second
// before one issued now with DefaultStateTTL. The memory forgets them
// when the test ends.
func FloodAnonymousStates(t *testing.T, n int) {
	now := time.Now()
	exp := now.Add(DefaultStateTTL - time.Second)
	for i := range n {
		usedStates.claim("", nil, fmt.Sprintf("%032x", i), exp, now)
	}
	t.Cleanup(func() {
		a := &usedStates.anonymous
		a.mu.Lock()
		defer a.mu.Unlock()
		a.groups, a.seconds, a.n, a.floor = nil, nil, 0, 0
	})
}
