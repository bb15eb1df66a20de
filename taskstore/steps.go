package taskstore

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// The steps below are the rules of the Store methods that change a task,
// applied to a task read at the store's now. A backend that keeps each
// task as a record (a row, a Redis value) reads it, applies one step, and
// writes it back in one atomic step (a transaction, a compare-and-set),
// so that every backend answers as Memory does. A step that returns an
// error other than ErrLeaseLost leaves the task as it was; with
// ErrLeaseLost it has failed the task (LapseAt), which the backend writes.

// LapseAt fails t, as every reader sees it, if it has not ended and its
// lease has lapsed at now; it reports whether it changed t.
func LapseAt(t *Task, now time.Time) bool {
	if Terminal(t.Status) || now.Before(t.Lease) {
		return false
	}
	t.Status, t.Message, t.Error = Failed, LapsedMessage, LapsedError
	t.Requests, t.Responses = nil, nil
	t.Updated = t.Lease
	return true
}

// HeldBytes returns the bytes of t's result and error, which count against
// Limits.MaxHeldResultBytes until t expires.
func (t *Task) HeldBytes() int64 { return int64(len(t.Result) + len(t.Error)) }

// Clone returns a copy of t that shares nothing with it.
func (t *Task) Clone() *Task {
	c := *t
	c.Requests = cloneMap(t.Requests)
	c.Responses = cloneMap(t.Responses)
	c.Result = slices.Clone(t.Result)
	c.Error = slices.Clone(t.Error)
	return &c
}

func cloneMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := maps.Clone(m)
	for k, v := range c {
		c[k] = slices.Clone(v)
	}
	return c
}

// StepUpdate applies the runner's change c to t at now, by Update's rules.
func StepUpdate(t *Task, c Change, now time.Time) error {
	switch {
	case Terminal(t.Status):
		return ErrEnded
	case LapseAt(t, now):
		return ErrLeaseLost
	}
	changed := false
	if c.Message != nil && *c.Message != t.Message {
		t.Message, changed = *c.Message, true
	}
	if len(c.Ask) > 0 {
		if t.Requests == nil {
			t.Requests = map[string]json.RawMessage{}
		}
		for k, v := range c.Ask {
			t.Requests[k] = slices.Clone(v)
		}
		changed = true
	}
	for _, k := range c.Take {
		delete(t.Responses, k)
	}
	for _, k := range c.Drop {
		if _, ok := t.Requests[k]; ok {
			delete(t.Requests, k)
			changed = true
		}
	}
	if c.Lease > 0 {
		t.Lease = now.Add(c.Lease)
	}
	if t.follow() || changed {
		t.Updated = now
	}
	return nil
}

// StepAnswer gives the client's answers to t at now, by Answer's rules.
func StepAnswer(t *Task, answers map[string]json.RawMessage, now time.Time) error {
	LapseAt(t, now)
	if Terminal(t.Status) {
		return ErrEnded
	}
	changed := false
	for k, v := range answers {
		if _, ok := t.Requests[k]; !ok {
			continue
		}
		delete(t.Requests, k)
		if t.Responses == nil {
			t.Responses = map[string]json.RawMessage{}
		}
		t.Responses[k] = slices.Clone(v)
		changed = true
	}
	if t.follow() || changed {
		t.Updated = now
	}
	return nil
}

// StepCancel cancels t at now, by Cancel's rules.
func StepCancel(t *Task, message string, now time.Time) error {
	LapseAt(t, now)
	if Terminal(t.Status) {
		return ErrEnded
	}
	t.Status, t.Message, t.Updated = Cancelled, message, now
	t.Requests, t.Responses = nil, nil
	return nil
}

// StepFinish ends t with o at now, by Finish's rules, when the store holds
// held bytes of results and errors: the bytes t holds after it, less
// those it held before, are what the store adds to held.
func StepFinish(t *Task, o Outcome, lim Limits, held int64, now time.Time) error {
	switch {
	case Terminal(t.Status):
		return ErrEnded
	case LapseAt(t, now):
		return ErrLeaseLost
	}
	size := int64(len(o.Result) + len(o.Error))
	if lim.MaxResultBytes > 0 && size > lim.MaxResultBytes {
		return &LimitError{Err: ErrLimit, Limit: LimitResultBytes, Max: lim.MaxResultBytes, Size: size}
	}
	if lim.MaxHeldResultBytes > 0 && held+size > lim.MaxHeldResultBytes {
		return &LimitError{Err: ErrLimit, Limit: LimitHeldBytes, Max: lim.MaxHeldResultBytes, Size: size}
	}
	t.Status, t.Message, t.Updated = o.Status, o.Message, now
	t.Result, t.Error = slices.Clone(o.Result), slices.Clone(o.Error)
	t.Requests, t.Responses = nil, nil
	return nil
}

// NewTask returns the task Create makes of n at now.
func NewTask(n New, now time.Time) *Task {
	return &Task{
		ID: n.ID, Owner: n.Owner, Tool: n.Tool, Status: Working, Message: n.Message,
		Created: now, Updated: now, Expires: now.Add(n.TTL), Lease: now.Add(n.Lease),
	}
}

// follow sets the status of a task that has not ended from its requests,
// and reports whether that changed it.
func (t *Task) follow() bool {
	s := Working
	if len(t.Requests) > 0 {
		s = InputRequired
	}
	if s == t.Status {
		return false
	}
	t.Status = s
	return true
}

// A record is a Task as a backend stores it: MarshalRecord and
// UnmarshalRecord keep every byte of the requests, the answers and the
// outcome as they were given, and every instant to the nanosecond.
type record struct {
	ID        string            `json:"id"`
	Owner     string            `json:"owner"`
	Tool      string            `json:"tool,omitempty"`
	Status    string            `json:"status"`
	Message   string            `json:"message,omitempty"`
	Created   int64             `json:"created"` // Unix nanoseconds
	Updated   int64             `json:"updated"`
	Expires   int64             `json:"expires"`
	Lease     int64             `json:"lease"`
	Requests  map[string][]byte `json:"requests,omitempty"`
	Responses map[string][]byte `json:"responses,omitempty"`
	Result    []byte            `json:"result,omitempty"`
	Error     []byte            `json:"error,omitempty"`
}

// MarshalRecord encodes t for a backend to store.
func MarshalRecord(t *Task) ([]byte, error) {
	r := record{
		ID: t.ID, Owner: t.Owner, Tool: t.Tool, Status: t.Status, Message: t.Message,
		Created: t.Created.UnixNano(), Updated: t.Updated.UnixNano(), Expires: t.Expires.UnixNano(), Lease: t.Lease.UnixNano(),
		Requests: rawToBytes(t.Requests), Responses: rawToBytes(t.Responses), Result: t.Result, Error: t.Error,
	}
	return json.Marshal(r)
}

// UnmarshalRecord decodes what MarshalRecord encoded.
func UnmarshalRecord(data []byte) (*Task, error) {
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("taskstore: a stored task is not a record: %w", err)
	}
	return &Task{
		ID: r.ID, Owner: r.Owner, Tool: r.Tool, Status: r.Status, Message: r.Message,
		Created: time.Unix(0, r.Created), Updated: time.Unix(0, r.Updated), Expires: time.Unix(0, r.Expires), Lease: time.Unix(0, r.Lease),
		Requests: bytesToRaw(r.Requests), Responses: bytesToRaw(r.Responses), Result: r.Result, Error: r.Error,
	}, nil
}

func rawToBytes(m map[string]json.RawMessage) map[string][]byte {
	if len(m) == 0 {
		return nil
	}
	c := make(map[string][]byte, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func bytesToRaw(m map[string][]byte) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	c := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
