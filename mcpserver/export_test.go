package mcpserver

import (
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
