package durable

import (
	"fmt"
	"testing"

	"github.com/hands-go/hands/agent"
)

// TestHistoryCache: a turn finds the messages before its input where the
// run's previous turn left them, or where its own earlier attempt did,
// but never messages whose digest is not the one its input gives (those
// of another run under the same ID, as the SDK's test environment gives
// every run), and a worker keeps the histories of the runs it ran last.
func TestHistoryCache(t *testing.T) {
	hist := func(texts ...string) agent.History {
		var h agent.History
		for _, s := range texts {
			h = append(h, agent.UserText(s))
		}
		return h
	}
	mustDigest := func(prev string, h agent.History) string {
		d, err := digest(prev, h)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var c historyCache
	a := hist("a", "b", "c")
	dA1, dA3 := mustDigest("", a[:1]), mustDigest("", a)
	if d := mustDigest(dA1, a[1:]); d != dA3 {
		t.Fatalf("the digest of a history depends on the turns that added its messages: %s, %s", d, dA3)
	}
	c.put(&turnHistory{run: "r", history: a, from: 1, fromDigest: dA1, digest: dA3})
	for _, tt := range []struct {
		name   string
		from   int
		digest string
		want   int // messages found; -1 for none
	}{
		{"the next turn", 3, dA3, 3},
		{"the same turn again", 1, dA1, 1},
		{"another run's messages", 3, mustDigest("", hist("a", "b", "x")), -1},
		{"another run's messages, the same turn", 1, mustDigest("", hist("x")), -1},
		{"a turn not after the last", 2, mustDigest("", a[:2]), -1},
	} {
		got, ok := c.prefix("r", tt.from, tt.digest)
		if !ok && tt.want >= 0 || ok && len(got) != tt.want {
			t.Errorf("%s: prefix(%d) = %d messages, %v; want %d", tt.name, tt.from, len(got), ok, tt.want)
		}
	}
	if _, ok := c.prefix("other", 3, dA3); ok {
		t.Error("found the messages of run r for another run")
	}

	// The runs used last are kept.
	for i := range historyCacheRuns {
		c.put(&turnHistory{run: fmt.Sprint(i), history: a, digest: dA3})
		if i == historyCacheRuns/2 {
			c.prefix("r", 3, dA3) // r is used again
		}
	}
	if _, ok := c.prefix("r", 3, dA3); !ok {
		t.Error("run r, used recently, was dropped")
	}
	if _, ok := c.prefix("0", 3, dA3); ok {
		t.Error("run 0, used least recently, was kept past the cache's size")
	}
	if n := c.order.Len(); n != historyCacheRuns || len(c.runs) != n {
		t.Errorf("the cache holds %d runs (%d in its map), want %d", n, len(c.runs), historyCacheRuns)
	}
}
