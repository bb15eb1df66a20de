// Package taskstoretest is the conformance kit of taskstore.Store: a
// backend's tests call Run with a function that makes an empty store on
// the clock the kit gives, and the kit checks the contract written on
// taskstore.Store, atomicity under concurrent calls included.
//
//	func TestConformance(t *testing.T) {
//		taskstoretest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
//			return taskstore.NewMemory(&taskstore.MemoryOptions{Now: now})
//		})
//	}
//
// The kit moves its clock forward by hand; it never sleeps.
package taskstoretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/taskstore"
)

// A Clock is the kit's clock: it moves only when the kit advances it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Run checks the store that newStore makes against the contract of
// taskstore.Store, each case in a subtest with a store of its own, empty,
// whose clock is now. Stores that share state beyond one call of
// newStore (one database for all) must keep each store's tasks apart, by
// a prefix or a table of their own.
func Run(t *testing.T, newStore func(t *testing.T, now func() time.Time) taskstore.Store) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s taskstore.Store, c *clock)
	}{
		{"CreateGet", testCreateGet},
		{"Copies", testCopies},
		{"Expiry", testExpiry},
		{"TaskLimits", testTaskLimits},
		{"Lease", testLease},
		{"Requests", testRequests},
		{"Cancel", testCancel},
		{"Finish", testFinish},
		{"ResultLimits", testResultLimits},
		{"List", testList},
		{"ConcurrentCreate", testConcurrentCreate},
		{"ConcurrentEnd", testConcurrentEnd},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := &clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
			c.run(t, newStore(t, clk.Now), clk)
		})
	}
}

var noLimits taskstore.Limits

func newTask(id, owner string) taskstore.New {
	return taskstore.New{ID: id, Owner: owner, Tool: "tool", TTL: time.Minute, Lease: 10 * time.Second}
}

func mustCreate(t *testing.T, s taskstore.Store, n taskstore.New) *taskstore.Task {
	t.Helper()
	task, err := s.Create(t.Context(), n, noLimits)
	if err != nil {
		t.Fatalf("Create(%q): %v", n.ID, err)
	}
	return task
}

func mustGet(t *testing.T, s taskstore.Store, id string) *taskstore.Task {
	t.Helper()
	task, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return task
}

func ptr[T any](v T) *T { return &v }

func testCreateGet(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	created := mustCreate(t, s, taskstore.New{ID: "a", Owner: "user u", Tool: "slow", Message: "starting", TTL: time.Minute, Lease: 10 * time.Second})
	now := c.Now()
	for _, task := range []*taskstore.Task{created, mustGet(t, s, "a")} {
		if task.ID != "a" || task.Owner != "user u" || task.Tool != "slow" || task.Status != taskstore.Working || task.Message != "starting" {
			t.Errorf("task = %+v, want a, user u, slow, working, starting", task)
		}
		if !task.Created.Equal(now) || !task.Updated.Equal(now) || !task.Expires.Equal(now.Add(time.Minute)) || !task.Lease.Equal(now.Add(10*time.Second)) {
			t.Errorf("task times = created %v updated %v expires %v lease %v; want %v, %v, +1m, +10s", task.Created, task.Updated, task.Expires, task.Lease, now, now)
		}
		if task.TTL() != time.Minute {
			t.Errorf("TTL() = %v, want 1m", task.TTL())
		}
		if len(task.Requests) != 0 || len(task.Responses) != 0 || task.Result != nil || task.Error != nil {
			t.Errorf("new task has requests, responses or an outcome: %+v", task)
		}
	}
	if _, err := s.Create(ctx, newTask("a", "other"), noLimits); !errors.Is(err, taskstore.ErrExists) {
		t.Errorf("Create of a held ID = %v, want ErrExists", err)
	}
	if got := mustGet(t, s, "a"); got.Owner != "user u" {
		t.Errorf("a refused Create changed the task's owner to %q", got.Owner)
	}
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("Get of a task never created = %v, want ErrNotFound", err)
	}
}

func testCopies(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, newTask("a", ""))
	got, err := s.Update(ctx, "a", taskstore.Change{Ask: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"elicitation/create"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	got.Status, got.Message = taskstore.Completed, "changed"
	got.Requests["k"][2] = 'X'
	got.Requests["other"] = json.RawMessage(`{}`)
	again := mustGet(t, s, "a")
	if again.Status != taskstore.InputRequired || again.Message != "" || len(again.Requests) != 1 || string(again.Requests["k"]) != `{"method":"elicitation/create"}` {
		t.Errorf("changing a returned task changed the store's: %+v", again)
	}
}

func testExpiry(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, taskstore.New{ID: "a", Owner: "o", TTL: time.Minute, Lease: time.Hour})
	c.advance(time.Minute - time.Millisecond)
	mustGet(t, s, "a")
	c.advance(time.Millisecond)
	if _, err := s.Get(ctx, "a"); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("Get at expiry = %v, want ErrNotFound", err)
	}
	if _, err := s.Update(ctx, "a", taskstore.Change{Lease: time.Hour}); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("Update at expiry = %v, want ErrNotFound", err)
	}
	if _, err := s.Answer(ctx, "a", nil); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("Answer at expiry = %v, want ErrNotFound", err)
	}
	if _, err := s.Cancel(ctx, "a", "x"); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("Cancel at expiry = %v, want ErrNotFound", err)
	}
	if _, err := s.Finish(ctx, "a", taskstore.Outcome{Status: taskstore.Completed, Result: json.RawMessage(`{}`)}, noLimits); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("Finish at expiry = %v, want ErrNotFound", err)
	}
	if list, err := s.List(ctx, "o"); err != nil || len(list) != 0 {
		t.Errorf("List after expiry = %d tasks, %v; want none", len(list), err)
	}
	// An expired ID may be used again.
	mustCreate(t, s, newTask("a", "o"))
}

func testTaskLimits(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	lim := taskstore.Limits{MaxTasks: 5, MaxOwnerTasks: 2}
	create := func(id, owner string) error {
		_, err := s.Create(ctx, taskstore.New{ID: id, Owner: owner, TTL: time.Minute, Lease: time.Minute}, lim)
		return err
	}
	for _, id := range []string{"u1", "u2"} {
		if err := create(id, "user u"); err != nil {
			t.Fatal(err)
		}
	}
	// A cancelled task still holds its slot until it expires.
	if _, err := s.Cancel(ctx, "u1", "cancelled"); err != nil {
		t.Fatal(err)
	}
	var le *taskstore.LimitError
	if err := create("u3", "user u"); !errors.As(err, &le) || le.Limit != taskstore.LimitOwnerTasks || le.Max != 2 || !errors.Is(err, taskstore.ErrLimit) {
		t.Errorf("third task of an owner = %v, want a LimitError of owner tasks, 2", err)
	}
	if _, err := s.Get(ctx, "u3"); !errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Errorf("a refused task is held: Get = %v", err)
	}
	// Owner "" has no share of its own; MaxTasks bounds it.
	for _, id := range []string{"n1", "n2", "n3"} {
		if err := create(id, ""); err != nil {
			t.Fatalf("task %s of owner \"\": %v", id, err)
		}
	}
	if err := create("v1", "user v"); !errors.As(err, &le) || le.Limit != taskstore.LimitTasks || le.Max != 5 {
		t.Errorf("sixth task = %v, want a LimitError of tasks, 5", err)
	}
	c.advance(time.Minute)
	if err := create("v1", "user v"); err != nil {
		t.Errorf("after the tasks expired, Create = %v", err)
	}
	if err := create("u4", "user u"); err != nil {
		t.Errorf("after its tasks expired, an owner's Create = %v", err)
	}
}

func testLease(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, taskstore.New{ID: "a", TTL: time.Hour, Lease: 10 * time.Second})
	c.advance(9 * time.Second)
	renewed, err := s.Update(ctx, "a", taskstore.Change{Lease: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Now().Add(10 * time.Second); !renewed.Lease.Equal(want) {
		t.Errorf("renewed lease ends %v, want %v", renewed.Lease, want)
	}
	if !renewed.Updated.Equal(renewed.Created) {
		t.Errorf("a renewal alone moved Updated to %v", renewed.Updated)
	}
	c.advance(9 * time.Second)
	if got := mustGet(t, s, "a"); got.Status != taskstore.Working {
		t.Errorf("within the renewed lease, status = %s, want working", got.Status)
	}
	c.advance(time.Second)
	lapsed := mustGet(t, s, "a")
	if lapsed.Status != taskstore.Failed || lapsed.Message != taskstore.LapsedMessage || !bytes.Equal(lapsed.Error, taskstore.LapsedError) {
		t.Errorf("after the lease, task = %s %q %s; want failed, LapsedMessage, LapsedError", lapsed.Status, lapsed.Message, lapsed.Error)
	}
	if !lapsed.Updated.Equal(renewed.Lease) {
		t.Errorf("lapsed task updated at %v, want the lease's end %v", lapsed.Updated, renewed.Lease)
	}
	if _, err := s.Update(ctx, "a", taskstore.Change{Lease: time.Minute}); !errors.Is(err, taskstore.ErrLeaseLost) && !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("Update after the lease = %v, want ErrLeaseLost (or ErrEnded once written failed)", err)
	}
	if _, err := s.Finish(ctx, "a", taskstore.Outcome{Status: taskstore.Completed, Result: json.RawMessage(`{}`)}, noLimits); !errors.Is(err, taskstore.ErrLeaseLost) && !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("Finish after the lease = %v, want ErrLeaseLost (or ErrEnded)", err)
	}
	if _, err := s.Cancel(ctx, "a", "x"); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("Cancel after the lease = %v, want ErrEnded", err)
	}
	if got := mustGet(t, s, "a"); got.Status != taskstore.Failed || got.Message != taskstore.LapsedMessage {
		t.Errorf("a lapsed task changed: %s %q", got.Status, got.Message)
	}

	// A first Update after the lease, before any reader, is ErrLeaseLost.
	mustCreate(t, s, taskstore.New{ID: "b", TTL: time.Hour, Lease: 10 * time.Second})
	c.advance(10 * time.Second)
	if _, err := s.Update(ctx, "b", taskstore.Change{Lease: time.Minute}); !errors.Is(err, taskstore.ErrLeaseLost) {
		t.Errorf("first Update after the lease = %v, want ErrLeaseLost", err)
	}
	mustCreate(t, s, taskstore.New{ID: "c", TTL: time.Hour, Lease: 10 * time.Second})
	c.advance(10 * time.Second)
	if _, err := s.Finish(ctx, "c", taskstore.Outcome{Status: taskstore.Completed, Result: json.RawMessage(`{}`)}, noLimits); !errors.Is(err, taskstore.ErrLeaseLost) {
		t.Errorf("first Finish after the lease = %v, want ErrLeaseLost", err)
	}
	if got := mustGet(t, s, "c"); got.Status != taskstore.Failed || got.Result != nil {
		t.Errorf("task finished after its lease = %s with result %s; want failed, none", got.Status, got.Result)
	}
}

func testRequests(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, taskstore.New{ID: "a", TTL: time.Hour, Lease: time.Hour})
	c.advance(time.Second)
	ask := map[string]json.RawMessage{
		"r1": json.RawMessage(`{"method":"elicitation/create","params":{"message":"name?"}}`),
		"r2": json.RawMessage(`{"method":"sampling/createMessage","params":{}}`),
	}
	got, err := s.Update(ctx, "a", taskstore.Change{Ask: ask, Message: ptr("asking")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != taskstore.InputRequired || len(got.Requests) != 2 || string(got.Requests["r1"]) != string(ask["r1"]) || got.Message != "asking" || !got.Updated.Equal(c.Now()) {
		t.Errorf("after Ask, task = %+v; want input_required with r1 and r2, asking, updated now", got)
	}
	c.advance(time.Second)
	got, err = s.Answer(ctx, "a", map[string]json.RawMessage{"r1": json.RawMessage(`{"action":"accept"}`), "never": json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != taskstore.InputRequired || len(got.Requests) != 1 || got.Requests["r2"] == nil || len(got.Responses) != 1 || string(got.Responses["r1"]) != `{"action":"accept"}` {
		t.Errorf("after a partial answer, task = %+v; want input_required, r2 outstanding, r1 answered, the unknown key ignored", got)
	}
	// An answer to a request answered before is ignored.
	if got, err = s.Answer(ctx, "a", map[string]json.RawMessage{"r1": json.RawMessage(`{"action":"decline"}`)}); err != nil || string(got.Responses["r1"]) != `{"action":"accept"}` {
		t.Errorf("a second answer to r1 = %s, %v; want the first kept", got.Responses["r1"], err)
	}
	c.advance(time.Second)
	got, err = s.Answer(ctx, "a", map[string]json.RawMessage{"r2": json.RawMessage(`{"role":"assistant"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != taskstore.Working || len(got.Requests) != 0 || len(got.Responses) != 2 || !got.Updated.Equal(c.Now()) {
		t.Errorf("after every answer, task = %+v; want working, no requests, two responses, updated now", got)
	}
	got, err = s.Update(ctx, "a", taskstore.Change{Take: []string{"r1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Responses) != 1 || got.Responses["r2"] == nil {
		t.Errorf("after Take r1, responses = %v; want r2 alone", got.Responses)
	}
	if got := mustGet(t, s, "a"); len(got.Responses) != 1 {
		t.Errorf("Take was not kept: responses %v", got.Responses)
	}
	// A request dropped by the runner is no longer outstanding, and a
	// late answer to it is ignored.
	if _, err := s.Update(ctx, "a", taskstore.Change{Ask: map[string]json.RawMessage{"r3": json.RawMessage(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Update(ctx, "a", taskstore.Change{Drop: []string{"r3"}})
	if err != nil || got.Status != taskstore.Working || len(got.Requests) != 0 {
		t.Errorf("after Drop r3, task = %+v, %v; want working, no requests", got, err)
	}
	if got, err = s.Answer(ctx, "a", map[string]json.RawMessage{"r3": json.RawMessage(`{}`)}); err != nil || got.Responses["r3"] != nil {
		t.Errorf("an answer to a dropped request = %v, %v; want it ignored", got.Responses, err)
	}
}

func testCancel(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, taskstore.New{ID: "a", TTL: time.Hour, Lease: time.Hour})
	if _, err := s.Update(ctx, "a", taskstore.Change{Ask: map[string]json.RawMessage{"k": json.RawMessage(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Second)
	got, err := s.Cancel(ctx, "a", "cancelled by request")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != taskstore.Cancelled || got.Message != "cancelled by request" || len(got.Requests) != 0 || !got.Updated.Equal(c.Now()) {
		t.Errorf("cancelled task = %+v; want cancelled, its message, no requests, updated now", got)
	}
	if _, err := s.Cancel(ctx, "a", "again"); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("second Cancel = %v, want ErrEnded", err)
	}
	if _, err := s.Update(ctx, "a", taskstore.Change{Lease: time.Hour}); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("runner's Update after Cancel = %v, want ErrEnded", err)
	}
	if _, err := s.Answer(ctx, "a", map[string]json.RawMessage{"k": json.RawMessage(`{}`)}); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("Answer after Cancel = %v, want ErrEnded", err)
	}
	if _, err := s.Finish(ctx, "a", taskstore.Outcome{Status: taskstore.Completed, Result: json.RawMessage(`{}`)}, noLimits); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("Finish after Cancel = %v, want ErrEnded", err)
	}
	if got := mustGet(t, s, "a"); got.Status != taskstore.Cancelled || got.Message != "cancelled by request" || got.Result != nil {
		t.Errorf("a cancelled task changed: %+v", got)
	}
}

func testFinish(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, taskstore.New{ID: "ok", TTL: time.Hour, Lease: time.Hour})
	mustCreate(t, s, taskstore.New{ID: "bad", TTL: time.Hour, Lease: time.Hour})
	c.advance(time.Second)
	result := json.RawMessage(`{"content":[{"type":"text","text":"done"}],"isError":true}`)
	got, err := s.Finish(ctx, "ok", taskstore.Outcome{Status: taskstore.Completed, Message: "done", Result: result}, noLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != taskstore.Completed || got.Message != "done" || string(got.Result) != string(result) || got.Error != nil || !got.Updated.Equal(c.Now()) {
		t.Errorf("finished task = %+v; want completed with its result, updated now", got)
	}
	rpcErr := json.RawMessage(`{"code":-32603,"message":"boom"}`)
	if _, err := s.Finish(ctx, "bad", taskstore.Outcome{Status: taskstore.Failed, Message: "boom", Error: rpcErr}, noLimits); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "bad"); got.Status != taskstore.Failed || string(got.Error) != string(rpcErr) || got.Result != nil {
		t.Errorf("failed task = %+v; want failed with its error", got)
	}
	if _, err := s.Finish(ctx, "ok", taskstore.Outcome{Status: taskstore.Failed, Error: rpcErr}, noLimits); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("second Finish = %v, want ErrEnded", err)
	}
	if _, err := s.Cancel(ctx, "ok", "late"); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("Cancel of a completed task = %v, want ErrEnded", err)
	}
	// A finished task's lease no longer matters.
	c.advance(2 * time.Hour / 3)
	if got := mustGet(t, s, "ok"); got.Status != taskstore.Completed {
		t.Errorf("a completed task past its lease reads %s", got.Status)
	}
}

func testResultLimits(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	lim := taskstore.Limits{MaxResultBytes: 100, MaxHeldResultBytes: 150}
	result := func(n int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"t":"%s"}`, bytes.Repeat([]byte("x"), n-8)))
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		mustCreate(t, s, taskstore.New{ID: id, TTL: time.Minute, Lease: time.Hour})
	}
	var le *taskstore.LimitError
	if _, err := s.Finish(ctx, "a", taskstore.Outcome{Status: taskstore.Completed, Result: result(101)}, lim); !errors.As(err, &le) || le.Limit != taskstore.LimitResultBytes || le.Size != 101 || le.Max != 100 {
		t.Errorf("Finish of 101 bytes = %v, want a LimitError of result bytes, 101 of 100", err)
	}
	if got := mustGet(t, s, "a"); got.Status != taskstore.Working {
		t.Errorf("a refused Finish left the task %s, want working", got.Status)
	}
	if _, err := s.Finish(ctx, "a", taskstore.Outcome{Status: taskstore.Completed, Result: result(100)}, lim); err != nil {
		t.Fatalf("Finish of 100 bytes: %v", err)
	}
	if _, err := s.Finish(ctx, "b", taskstore.Outcome{Status: taskstore.Failed, Error: result(60)}, lim); !errors.As(err, &le) || le.Limit != taskstore.LimitHeldBytes || le.Size != 60 || le.Max != 150 {
		t.Errorf("Finish past the held bytes = %v, want a LimitError of held result bytes", err)
	}
	if _, err := s.Finish(ctx, "b", taskstore.Outcome{Status: taskstore.Failed, Error: result(50)}, lim); err != nil {
		t.Errorf("Finish up to the held bytes: %v", err)
	}
	// A cancelled task's result is never held; expired ones are given back.
	if _, err := s.Cancel(ctx, "c", "x"); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Minute)
	mustCreate(t, s, taskstore.New{ID: "e", TTL: time.Minute, Lease: time.Hour})
	if _, err := s.Finish(ctx, "e", taskstore.Outcome{Status: taskstore.Completed, Result: result(100)}, lim); err != nil {
		t.Errorf("after the results expired, Finish = %v", err)
	}
}

func testList(t *testing.T, s taskstore.Store, c *clock) {
	ctx := t.Context()
	mustCreate(t, s, taskstore.New{ID: "z", Owner: "o", TTL: time.Hour, Lease: 10 * time.Second})
	c.advance(time.Second)
	mustCreate(t, s, taskstore.New{ID: "y", Owner: "o", TTL: time.Hour, Lease: time.Hour})
	mustCreate(t, s, taskstore.New{ID: "x", Owner: "o", TTL: time.Hour, Lease: time.Hour})
	mustCreate(t, s, taskstore.New{ID: "w", Owner: "p", TTL: time.Hour, Lease: time.Hour})
	c.advance(10 * time.Second)
	list, err := s.List(ctx, "o")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range list {
		ids = append(ids, task.ID)
	}
	if fmt.Sprint(ids) != "[z x y]" {
		t.Errorf("List(o) = %v, want [z x y] (by creation, then ID)", ids)
	}
	if len(list) == 3 && list[0].Status != taskstore.Failed {
		t.Errorf("List gives a lapsed task as %s, want failed", list[0].Status)
	}
	if list, err := s.List(ctx, "nobody"); err != nil || len(list) != 0 {
		t.Errorf("List of an owner with no task = %v, %v", list, err)
	}
}

func testConcurrentCreate(t *testing.T, s taskstore.Store, c *clock) {
	const n, limit = 32, 5
	var ok atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := s.Create(t.Context(), taskstore.New{ID: fmt.Sprint("t", i), Owner: "o", TTL: time.Hour, Lease: time.Hour}, taskstore.Limits{MaxOwnerTasks: limit})
			switch {
			case err == nil:
				ok.Add(1)
			case !errors.Is(err, taskstore.ErrLimit):
				t.Errorf("Create: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != limit {
		t.Errorf("%d concurrent Creates within a limit of %d made %d tasks", n, limit, ok.Load())
	}
}

func testConcurrentEnd(t *testing.T, s taskstore.Store, c *clock) {
	for i := range 16 {
		id := fmt.Sprint("t", i)
		mustCreate(t, s, taskstore.New{ID: id, TTL: time.Hour, Lease: time.Hour})
		var wins atomic.Int32
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := s.Cancel(t.Context(), id, "cancelled"); err == nil {
				wins.Add(1)
			}
		})
		wg.Go(func() {
			if _, err := s.Finish(t.Context(), id, taskstore.Outcome{Status: taskstore.Completed, Result: json.RawMessage(`{}`)}, noLimits); err == nil {
				wins.Add(1)
			}
		})
		wg.Go(func() {
			if _, err := s.Finish(t.Context(), id, taskstore.Outcome{Status: taskstore.Failed, Error: json.RawMessage(`{}`)}, noLimits); err == nil {
				wins.Add(1)
			}
		})
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("of a Cancel and two Finishes at once, %d succeeded; want exactly one", wins.Load())
		}
	}
}
