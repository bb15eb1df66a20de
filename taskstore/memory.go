package taskstore

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
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
		return nil, ErrTaskNotFound
	}
	m.apply(t, func() error { LapseAt(t, now); return nil })
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
		return nil, &LimitError{Err: ErrLimit, Limit: LimitTasks, Max: int64(lim.MaxTasks)}
	}
	if n.Owner != "" && lim.MaxOwnerTasks > 0 && m.owners[n.Owner] >= lim.MaxOwnerTasks {
		return nil, &LimitError{Err: ErrLimit, Limit: LimitOwnerTasks, Max: int64(lim.MaxOwnerTasks)}
	}
	t := NewTask(n, now)
	m.tasks[t.ID] = t
	m.owners[t.Owner]++
	heap.Push(&m.byExp, t)
	return t.Clone(), nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(id, m.now())
	if err != nil {
		return nil, err
	}
	return t.Clone(), nil
}

// Update implements Store.
func (m *Memory) Update(ctx context.Context, id string, c Change) (*Task, error) {
	return m.step(id, func(t *Task, now time.Time) error { return StepUpdate(t, c, now) })
}

// Answer implements Store.
func (m *Memory) Answer(ctx context.Context, id string, answers map[string]json.RawMessage) (*Task, error) {
	return m.step(id, func(t *Task, now time.Time) error { return StepAnswer(t, answers, now) })
}

// Cancel implements Store.
func (m *Memory) Cancel(ctx context.Context, id, message string) (*Task, error) {
	return m.step(id, func(t *Task, now time.Time) error { return StepCancel(t, message, now) })
}

// Finish implements Store.
func (m *Memory) Finish(ctx context.Context, id string, o Outcome, lim Limits) (*Task, error) {
	return m.step(id, func(t *Task, now time.Time) error { return StepFinish(t, o, lim, m.held, now) })
}

// step applies a step to the task with the ID, held and not expired, at
// the store's now, and returns a copy of it.
func (m *Memory) step(id string, step func(t *Task, now time.Time) error) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	t := m.tasks[id]
	if t == nil {
		return nil, ErrTaskNotFound
	}
	if err := m.apply(t, func() error { return step(t, now) }); err != nil {
		return nil, err
	}
	return t.Clone(), nil
}

// apply runs change on t and counts the bytes t holds after it (the lapse
// of a lease adds its error's; Finish, its outcome's).
func (m *Memory) apply(t *Task, change func() error) error {
	before := t.HeldBytes()
	err := change()
	m.held += t.HeldBytes() - before
	return err
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
			list = append(list, t.Clone())
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
