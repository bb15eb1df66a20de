package durable

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/hands-go/hands/agent"
)

// A turn's activity gets only the messages added to the run's history
// since the run's previous turn (TurnInput), so that the workflow's
// history, where Temporal records every activity's input, grows with the
// run's turns and not with their square. The activity finds the messages
// before them in its worker's memory, where the run's previous turn left
// them, or, when another worker ran that turn or this one has restarted
// since, asks the run for them (QueryHistory): a Query is answered from
// the workflow's state, which Temporal rebuilds from the record, and adds
// nothing to it.

// historyCacheRuns is how many runs a worker keeps the last turn's
// history of, the runs whose turns it ran last.
const historyCacheRuns = 1024

// A historyCache keeps, for the runs whose turns a worker ran last, the
// history of each run's last turn. It is safe for concurrent use.
type historyCache struct {
	mu    sync.Mutex
	runs  map[string]*list.Element // of *turnHistory, by run ID
	order list.List                // most recently used first
}

// A turnHistory is the history of a run's turn, as its activity rebuilt
// it from its input.
type turnHistory struct {
	run        string
	history    agent.History
	from       int    // where the input's messages start in history
	fromDigest string // the digest of history[:from]
	digest     string // the digest of history
}

// prefix returns the first from messages of run's history whose digest is
// digest, if the cache holds them.
func (c *historyCache) prefix(run string, from int, digest string) (agent.History, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.runs[run]
	if e == nil {
		return nil, false
	}
	c.order.MoveToFront(e)
	h := e.Value.(*turnHistory)
	switch {
	case from == len(h.history) && digest == h.digest: // the next turn
		return h.history, true
	case from == h.from && digest == h.fromDigest: // the same turn, tried again
		return h.history[:from], true
	}
	return nil, false
}

// put keeps h as the history of its run's last turn.
func (c *historyCache) put(h *turnHistory) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]*list.Element{}
	}
	if e := c.runs[h.run]; e != nil {
		e.Value = h
		c.order.MoveToFront(e)
		return
	}
	c.runs[h.run] = c.order.PushFront(h)
	if c.order.Len() > historyCacheRuns {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.runs, last.Value.(*turnHistory).run)
	}
}

// digest returns the digest of the history whose first messages have the
// digest prev ("" for none) and whose next ones are msgs: a chain of
// SHA-256 over each message's JSON, so that the digest of a history does
// not depend on the turns that added its messages.
func digest(prev string, msgs agent.History) (string, error) {
	for _, m := range msgs {
		data, err := json.Marshal(m)
		if err != nil {
			return "", err
		}
		h := sha256.New()
		h.Write([]byte(prev))
		h.Write(data)
		prev = hex.EncodeToString(h.Sum(nil))
	}
	return prev, nil
}

// turnHistory returns the whole history of the turn of in: the messages
// before in.From, from the cache or from the run, followed by in.History,
// and keeps it for the run's next turn.
func (a *Agent) turnHistory(ctx context.Context, in TurnInput) (agent.History, error) {
	if !activity.IsActivity(ctx) { // Turn called as a function: there is no run to ask
		if in.From == 0 {
			return in.History, nil
		}
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("durable: turn %d: the run's history before message %d is unknown outside an activity", in.Turn, in.From),
			ErrTypeHistory, nil)
	}
	run := activity.GetInfo(ctx).WorkflowExecution
	before, ok := agent.History(nil), in.From == 0
	if !ok {
		before, ok = a.histories.prefix(run.RunID, in.From, in.Digest)
	}
	if !ok {
		c := activity.GetClient(ctx)
		if c == nil {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("durable: turn %d: the run's history before message %d is not on this worker, which has no client to ask the run for it", in.Turn, in.From),
				ErrTypeHistory, nil)
		}
		v, err := c.QueryWorkflow(ctx, run.ID, run.RunID, QueryHistory)
		if err != nil {
			return nil, fmt.Errorf("durable: turn %d: asking the run for its history: %w", in.Turn, err)
		}
		var h agent.History
		if err := v.Get(&h); err != nil {
			return nil, fmt.Errorf("durable: turn %d: the run's history: %w", in.Turn, err)
		}
		if len(h) < in.From {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("durable: turn %d: the run's history has %d messages, and the turn's start after %d", in.Turn, len(h), in.From),
				ErrTypeHistory, nil)
		}
		before = h[:in.From]
	}
	history := append(before[:in.From:in.From], in.History...)
	d, err := digest(in.Digest, in.History)
	if err != nil {
		return nil, err
	}
	a.histories.put(&turnHistory{run: run.RunID, history: history, from: in.From, fromDigest: in.Digest, digest: d})
	return history, nil
}
