package taskstore

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemoryOptions configure a Memory. A nil *MemoryOptions selects every
// default.
type MemoryOptions struct {
	// Now is the store's clock. Nil selects time.Now.
	Now func() time.Time
}

// A Memory is a Store in the process's memory: for one replica, or for
// servers in one process that share it. Its zero value is not usable;
// call NewMemory. Expired tasks are removed as the store is used, each at
// a cost logarithmic in the tasks held.
type Memory struct {
	now func() time.Time

	mu     sync.Mutex
	tasks  map[string]*Task
	owners map[string]int // tasks held by owner
	byExp  expiryHeap     // the tasks held, soonest expiry first
	held   int64          // bytes of results and errors held
}

// NewMemory returns an empty Memory.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{now: time.Now, tasks: map[string]*Task{}, owners: map[string]int{}}
	if opts != nil && opts.Now != nil {
		m.now = opts.Now
	}
	return m
}

// sweep removes the tasks expired at now. It is called with m.mu held.
func (m *Memory) sweep(now time.Time) {
	for len(m.byExp) > 0 && !now.Before(m.byExp[0].Expires) {
		t := heap.Pop(&m.byExp).(*Task)
		delete(m.tasks, t.ID)
		if m.owners[t.Owner]--; m.owners[t.Owner] == 0 {
			delete(m.owners, t.Owner)
		}
		m.held -= int64(len(t.Result) + len(t.Error))
	}
}

// lookup returns the task with the ID, held and not expired at now, with
// a lapsed lease applied. It is called with m.mu held.
func (m *Memory) lookup(id string, now time.Time) (*Task, error) {
	m.sweep(now)
	t := m.tasks[id]
	if t == nil {
		return nil, ErrNotFound
	}
	if !Terminal(t.Status) && !now.Before(t.Lease) {
		t.Status, t.Message, t.Error = Failed, LapsedMessage, LapsedError
		t.Requests, t.Responses = nil, nil
		t.Updated = t.Lease
		m.held += int64(len(t.Error))
	}
	return t, nil
}

// Create implements Store.
func (m *Memory) Create(ctx context.Context, n New, lim Limits) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if _, ok := m.tasks[n.ID]; ok {
		return nil, ErrExists
	}
	if lim.MaxTasks > 0 && len(m.tasks) >= lim.MaxTasks {
		return nil, &LimitError{Limit: LimitTasks, Max: int64(lim.MaxTasks)}
	}
	if n.Owner != "" && lim.MaxOwnerTasks > 0 && m.owners[n.Owner] >= lim.MaxOwnerTasks {
		return nil, &LimitError{Limit: LimitOwnerTasks, Max: int64(lim.MaxOwnerTasks)}
	}
	t := &Task{
		ID: n.ID, Owner: n.Owner, Tool: n.Tool, Status: Working, Message: n.Message,
		Created: now, Updated: now, Expires: now.Add(n.TTL), Lease: now.Add(n.Lease),
	}
	m.tasks[t.ID] = t
	m.owners[t.Owner]++
	heap.Push(&m.byExp, t)
	return t.clone(), nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(id, m.now())
	if err != nil {
		return nil, err
	}
	return t.clone(), nil
}

// Update implements Store.
func (m *Memory) Update(ctx context.Context, id string, c Change) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	t := m.tasks[id]
	switch {
	case t == nil:
		return nil, ErrNotFound
	case Terminal(t.Status):
		return nil, ErrEnded
	case !now.Before(t.Lease):
		m.lookup(id, now) // the task fails, as any reader sees it
		return nil, ErrLeaseLost
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
	return t.clone(), nil
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

// Answer implements Store.
func (m *Memory) Answer(ctx context.Context, id string, answers map[string]json.RawMessage) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	t, err := m.lookup(id, now)
	if err != nil {
		return nil, err
	}
	if Terminal(t.Status) {
		return nil, ErrEnded
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
	return t.clone(), nil
}

// Cancel implements Store.
func (m *Memory) Cancel(ctx context.Context, id, message string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	t, err := m.lookup(id, now)
	if err != nil {
		return nil, err
	}
	if Terminal(t.Status) {
		return nil, ErrEnded
	}
	t.Status, t.Message, t.Updated = Cancelled, message, now
	t.Requests, t.Responses = nil, nil
	return t.clone(), nil
}

// Finish implements Store.
func (m *Memory) Finish(ctx context.Context, id string, o Outcome, lim Limits) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	t := m.tasks[id]
	switch {
	case t == nil:
		return nil, ErrNotFound
	case Terminal(t.Status):
		return nil, ErrEnded
	case !now.Before(t.Lease):
		m.lookup(id, now)
		return nil, ErrLeaseLost
	}
	size := int64(len(o.Result) + len(o.Error))
	if lim.MaxResultBytes > 0 && size > lim.MaxResultBytes {
		return nil, &LimitError{Limit: LimitResultBytes, Max: lim.MaxResultBytes, Size: size}
	}
	if lim.MaxHeldResultBytes > 0 && m.held+size > lim.MaxHeldResultBytes {
		return nil, &LimitError{Limit: LimitHeldBytes, Max: lim.MaxHeldResultBytes, Size: size}
	}
	m.held += size
	t.Status, t.Message, t.Updated = o.Status, o.Message, now
	t.Result, t.Error = slices.Clone(o.Result), slices.Clone(o.Error)
	t.Requests, t.Responses = nil, nil
	return t.clone(), nil
}

// List implements Store.
func (m *Memory) List(ctx context.Context, owner string) ([]*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	var list []*Task
	for id, t := range m.tasks {
		if t.Owner == owner {
			t, _ = m.lookup(id, now)
			list = append(list, t.clone())
		}
	}
	slices.SortFunc(list, func(a, b *Task) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
	})
	return list, nil
}

// Held returns the bytes of results and errors the store holds: for
// tests, and for a server's metrics.
func (m *Memory) Held() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(m.now())
	return m.held
}

// clone returns a copy of t that shares nothing with it.
func (t *Task) clone() *Task {
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

// An expiryHeap is a min-heap of tasks by expiry (container/heap).
type expiryHeap []*Task

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].Expires.Before(h[j].Expires) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(*Task)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

var _ Store = (*Memory)(nil)
