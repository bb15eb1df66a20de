package redistasks_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/redistest"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/taskstore/redistasks"
	"github.com/hands-go/hands/taskstore/taskstoretest"
	"github.com/redis/go-redis/v9"
)

// TestConformance runs the store kit on a real Redis, each case under a
// prefix of its own.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	opts, err := redis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	var n atomic.Int64
	taskstoretest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
		return redistasks.New(rdb, &redistasks.Options{Prefix: fmt.Sprintf("{t%d}:", n.Add(1)), Now: now})
	})
}

// TestServerClock reads time from the Redis server when the store has no
// clock of its own: a task created is stamped between two readings of it.
func TestServerClock(t *testing.T) {
	srv := redistest.Start(t)
	opts, err := redis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	s := redistasks.New(rdb, nil)
	before := rdb.Time(t.Context()).Val()
	task, err := s.Create(t.Context(), taskstore.New{ID: "a", TTL: time.Hour, Lease: time.Minute}, taskstore.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	after := rdb.Time(t.Context()).Val()
	if task.Created.Before(before) || task.Created.After(after) {
		t.Errorf("created at %v, not within the server's clock readings %v and %v", task.Created, before, after)
	}
	got, err := s.Get(t.Context(), "a")
	if err != nil || got.Status != taskstore.Working {
		t.Errorf("Get = %+v, %v", got, err)
	}
	keys, err := rdb.Keys(t.Context(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, redistasks.DefaultPrefix) {
			t.Errorf("the store wrote the key %q, outside its prefix", k)
		}
	}
}
