// Package redistasks keeps MCP tasks in Redis, so that every replica of a
// server that shares the Redis answers for every task: a
// taskstore.Store.
//
// Each task is a hash holding its record (taskstore.MarshalRecord), a
// version and the bytes of results it holds; two sorted sets index the
// tasks by expiry, over all and by owner, and a counter holds the bytes of
// results over all. Every change is a read, a step of package taskstore
// applied in Go, and a Lua script that writes the task only if its version
// is still the one read (and retries otherwise), so that the rules are the
// same as every other store's and each change is atomic. The scripts that
// count (Create, and Finish's bytes) check and write in one step. Expired
// tasks are removed by the scripts as they run, a bounded number a call.
//
// Every key begins with Options.Prefix, whose {hash tag} keeps a store's
// keys in one slot of a Redis Cluster.
//
// The store reads time from the Redis server (TIME), so replicas whose
// clocks differ agree on leases and expiry.
package redistasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hands-go/hands/taskstore"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix begins every key of a store unless Options.Prefix says
// otherwise.
const DefaultPrefix = "{hands:tasks}:"

// maxRetries bounds the attempts of one change whose task other changes
// keep changing between its read and its write.
const maxRetries = 100

// Options configure a Store. A nil *Options selects every default.
type Options struct {
	// Prefix begins every key of the store. It should hold a {hash tag}
	// for a Redis Cluster. If empty, DefaultPrefix.
	Prefix string
	// Now is the store's clock. Nil selects the Redis server's (TIME).
	Now func() time.Time
}

// A Store is a taskstore.Store in Redis.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	now    func() time.Time
}

// New returns a store on rdb, which the caller keeps and closes.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix}
	if opts != nil {
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		s.now = opts.Now
	}
	return s
}

// The scripts. ARGV[1] is the prefix and ARGV[2] the task's ID in each;
// times are Unix microseconds.
const sweepLua = `
local function remove(p, id)
  local tk = p .. 't:' .. id
  local owner = redis.call('HGET', tk, 'o')
  local held = tonumber(redis.call('HGET', tk, 'h') or '0')
  redis.call('DEL', tk)
  redis.call('ZREM', p .. 'exp', id)
  if owner then redis.call('ZREM', p .. 'own:' .. owner, id) end
  if held ~= 0 then redis.call('DECRBY', p .. 'held', held) end
end
local function sweep(p, now)
  local ids = redis.call('ZRANGEBYSCORE', p .. 'exp', '-inf', now, 'LIMIT', 0, 128)
  for _, id in ipairs(ids) do remove(p, id) end
end
`

// createScript: ARGV 3 owner, 4 now, 5 expiry, 6 record, 7 MaxTasks,
// 8 MaxOwnerTasks.
var createScript = redis.NewScript(sweepLua + `
local p, id, owner, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
sweep(p, now)
local tk = p .. 't:' .. id
if redis.call('EXISTS', tk) == 1 then
  local e = tonumber(redis.call('ZSCORE', p .. 'exp', id))
  if e and e > now then return 'exists' end
  remove(p, id)
end
local maxTasks, maxOwner = tonumber(ARGV[7]), tonumber(ARGV[8])
if maxTasks > 0 and redis.call('ZCOUNT', p .. 'exp', '(' .. now, '+inf') >= maxTasks then return 'tasks' end
if owner ~= '' and maxOwner > 0 and redis.call('ZCOUNT', p .. 'own:' .. owner, '(' .. now, '+inf') >= maxOwner then return 'owner' end
redis.call('HSET', tk, 'v', 1, 'r', ARGV[6], 'o', owner, 'h', 0)
redis.call('ZADD', p .. 'exp', ARGV[5], id)
redis.call('ZADD', p .. 'own:' .. owner, ARGV[5], id)
return 'ok'
`)

// writeScript: ARGV 3 now, 4 the version read, 5 record, 6 the bytes of
// results the task holds after the change, 7 MaxHeldResultBytes (0: not
// checked).
var writeScript = redis.NewScript(sweepLua + `
local p, id, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
sweep(p, now)
local tk = p .. 't:' .. id
local v = redis.call('HGET', tk, 'v')
if not v then return 'notfound' end
if v ~= ARGV[4] then return 'conflict' end
local old, new, maxHeld = tonumber(redis.call('HGET', tk, 'h') or '0'), tonumber(ARGV[6]), tonumber(ARGV[7])
if maxHeld > 0 and new > old and tonumber(redis.call('GET', p .. 'held') or '0') + new - old > maxHeld then return 'held' end
redis.call('HSET', tk, 'v', tonumber(v) + 1, 'r', ARGV[5], 'h', new)
if new ~= old then redis.call('INCRBY', p .. 'held', new - old) end
return 'ok'
`)

// micros returns t in Unix microseconds, rounded up when up is set.
func micros(t time.Time, up bool) int64 {
	n := t.UnixNano()
	us := n / 1000
	if up && n%1000 != 0 {
		us++
	}
	return us
}

// clock returns the store's now: its clock's, or the server's.
func (s *Store) clock(ctx context.Context) (time.Time, error) {
	if s.now != nil {
		return s.now(), nil
	}
	return s.rdb.Time(ctx).Result()
}

func (s *Store) taskKey(id string) string { return s.prefix + "t:" + id }

// Create implements taskstore.Store.
func (s *Store) Create(ctx context.Context, n taskstore.New, lim taskstore.Limits) (*taskstore.Task, error) {
	now, err := s.clock(ctx)
	if err != nil {
		return nil, err
	}
	t := taskstore.NewTask(n, now)
	rec, err := taskstore.MarshalRecord(t)
	if err != nil {
		return nil, err
	}
	res, err := createScript.Run(ctx, s.rdb, []string{s.taskKey(n.ID)}, s.prefix, n.ID, n.Owner,
		micros(now, false), micros(t.Expires, true), rec, lim.MaxTasks, lim.MaxOwnerTasks).Text()
	if err != nil {
		return nil, fmt.Errorf("redistasks: create: %w", err)
	}
	switch res {
	case "ok":
		return t, nil
	case "exists":
		return nil, taskstore.ErrExists
	case "tasks":
		return nil, &taskstore.LimitError{Err: taskstore.ErrLimit, Limit: taskstore.LimitTasks, Max: int64(lim.MaxTasks)}
	case "owner":
		return nil, &taskstore.LimitError{Err: taskstore.ErrLimit, Limit: taskstore.LimitOwnerTasks, Max: int64(lim.MaxOwnerTasks)}
	}
	return nil, fmt.Errorf("redistasks: create: the script answered %q", res)
}

// read returns the task with the ID and its version, at the store's now;
// ErrNotFound if it is not held or has expired.
func (s *Store) read(ctx context.Context, id string) (*taskstore.Task, string, time.Time, error) {
	var timeCmd *redis.TimeCmd
	var fields *redis.SliceCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if s.now == nil {
			timeCmd = p.Time(ctx)
		}
		fields = p.HMGet(ctx, s.taskKey(id), "v", "r")
		return nil
	})
	if err != nil {
		return nil, "", time.Time{}, fmt.Errorf("redistasks: read %s: %w", id, err)
	}
	now := time.Time{}
	if timeCmd != nil {
		now = timeCmd.Val()
	} else {
		now = s.now()
	}
	vals := fields.Val()
	version, _ := vals[0].(string)
	rec, _ := vals[1].(string)
	if version == "" || rec == "" {
		return nil, "", now, taskstore.ErrTaskNotFound
	}
	t, err := taskstore.UnmarshalRecord([]byte(rec))
	if err != nil {
		return nil, "", now, err
	}
	if !now.Before(t.Expires) {
		return nil, "", now, taskstore.ErrTaskNotFound
	}
	return t, version, now, nil
}

// change reads the task with the ID, applies step to it at the store's
// now, and writes it back if step changed it (changed, or an error of
// ErrLeaseLost), retrying when another change came between. maxHeld, if
// positive, bounds the bytes of results held over all tasks.
func (s *Store) change(ctx context.Context, id string, maxHeld int64, step func(t *taskstore.Task, now time.Time) (changed bool, err error)) (*taskstore.Task, error) {
	for range maxRetries {
		t, version, now, err := s.read(ctx, id)
		if err != nil {
			return nil, err
		}
		before := t.HeldBytes()
		changed, stepErr := step(t, now)
		if stepErr != nil && !errors.Is(stepErr, taskstore.ErrLeaseLost) {
			return nil, stepErr
		}
		if !changed && stepErr == nil {
			return t, nil
		}
		rec, err := taskstore.MarshalRecord(t)
		if err != nil {
			return nil, err
		}
		if stepErr != nil {
			maxHeld = 0 // the lapse is written whatever the bound
		}
		res, err := writeScript.Run(ctx, s.rdb, []string{s.taskKey(id)}, s.prefix, id, micros(now, false), version, rec, t.HeldBytes(), maxHeld).Text()
		if err != nil {
			return nil, fmt.Errorf("redistasks: write %s: %w", id, err)
		}
		switch res {
		case "ok":
			if stepErr != nil {
				return nil, stepErr
			}
			return t, nil
		case "notfound":
			return nil, taskstore.ErrTaskNotFound
		case "held":
			return nil, &taskstore.LimitError{Err: taskstore.ErrLimit, Limit: taskstore.LimitHeldBytes, Max: maxHeld, Size: t.HeldBytes() - before}
		case "conflict":
			continue
		default:
			return nil, fmt.Errorf("redistasks: write %s: the script answered %q", id, res)
		}
	}
	return nil, fmt.Errorf("redistasks: the task %s changed %d times while one change was being made; try again", id, maxRetries)
}

// Get implements taskstore.Store.
func (s *Store) Get(ctx context.Context, id string) (*taskstore.Task, error) {
	return s.change(ctx, id, 0, func(t *taskstore.Task, now time.Time) (bool, error) {
		return taskstore.LapseAt(t, now), nil
	})
}

// Update implements taskstore.Store.
func (s *Store) Update(ctx context.Context, id string, c taskstore.Change) (*taskstore.Task, error) {
	return s.change(ctx, id, 0, func(t *taskstore.Task, now time.Time) (bool, error) {
		return true, taskstore.StepUpdate(t, c, now)
	})
}

// Answer implements taskstore.Store.
func (s *Store) Answer(ctx context.Context, id string, answers map[string]json.RawMessage) (*taskstore.Task, error) {
	return s.change(ctx, id, 0, func(t *taskstore.Task, now time.Time) (bool, error) {
		return true, taskstore.StepAnswer(t, answers, now)
	})
}

// Cancel implements taskstore.Store.
func (s *Store) Cancel(ctx context.Context, id, message string) (*taskstore.Task, error) {
	return s.change(ctx, id, 0, func(t *taskstore.Task, now time.Time) (bool, error) {
		return true, taskstore.StepCancel(t, message, now)
	})
}

// Finish implements taskstore.Store.
func (s *Store) Finish(ctx context.Context, id string, o taskstore.Outcome, lim taskstore.Limits) (*taskstore.Task, error) {
	return s.change(ctx, id, lim.MaxHeldResultBytes, func(t *taskstore.Task, now time.Time) (bool, error) {
		// The bytes held over all tasks are checked by the write, with
		// the others' in the same step.
		return true, taskstore.StepFinish(t, o, taskstore.Limits{MaxResultBytes: lim.MaxResultBytes}, 0, now)
	})
}

// List implements taskstore.Store. A task whose lease has lapsed is listed
// failed, as Get returns it, without being written so.
func (s *Store) List(ctx context.Context, owner string) ([]*taskstore.Task, error) {
	now, err := s.clock(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := s.rdb.ZRangeByScore(ctx, s.prefix+"own:"+owner, &redis.ZRangeBy{Min: "(" + strconv.FormatInt(micros(now, false), 10), Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("redistasks: list: %w", err)
	}
	cmds := make([]*redis.StringCmd, len(ids))
	if len(ids) > 0 {
		_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				cmds[i] = p.HGet(ctx, s.taskKey(id), "r")
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("redistasks: list: %w", err)
		}
	}
	var list []*taskstore.Task
	for _, cmd := range cmds {
		rec, err := cmd.Result()
		if err != nil {
			continue // removed since
		}
		t, err := taskstore.UnmarshalRecord([]byte(rec))
		if err != nil {
			return nil, err
		}
		if !now.Before(t.Expires) || t.Owner != owner {
			continue
		}
		taskstore.LapseAt(t, now)
		list = append(list, t)
	}
	slices.SortFunc(list, func(a, b *taskstore.Task) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return list, nil
}

var _ taskstore.Store = (*Store)(nil)
