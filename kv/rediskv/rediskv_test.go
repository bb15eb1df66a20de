package rediskv_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/redistest"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
	"github.com/hands-go/hands/kv/kvtest"
	"github.com/hands-go/hands/kv/rediskv"
	"github.com/redis/go-redis/v9"
)

func TestRedis(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int32
	t.Run("Conformance", func(t *testing.T) {
		kvtest.RunConformance(t, func(t *testing.T) driver.Store {
			opts, err := redis.ParseURL(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			// A prefix per store, so that each test's store starts empty.
			return rediskv.New(redis.NewClient(opts), fmt.Sprintf("test%d:", n.Add(1)))
		})
	})

	// Redis removes an expired entry by itself too: the entry's hash has
	// an expiry time, which is checked here rather than waited for.
	t.Run("PEXPIREAT", func(t *testing.T) {
		s, err := kv.Open(t.Context(), srv.URL+"?prefix=exp:")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Put(t.Context(), "k", []byte("v"), &kv.PutOptions{TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
		var c *redis.Client
		if !s.As(&c) {
			t.Fatal("As(*redis.Client) = false")
		}
		ttl, err := c.PTTL(t.Context(), "exp:k:k").Result()
		if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
			t.Errorf("PTTL of the entry = %v, %v; want about an hour", ttl, err)
		}
	})

	t.Run("messages", func(t *testing.T) {
		u, _ := url.Parse(srv.URL)
		wrong := *u
		wrong.User = url.UserPassword("", "Sekr1t-wrong-pw")
		closed := *u
		closed.Host = "127.0.0.1:1"
		// A password in the query is not one go-redis reads: an unknown
		// parameter, named without its value, whether or not it parses.
		query := "redis://" + srv.Addr + "/0?password=Sekr1t-wrong-pw"
		for _, s := range []string{wrong.String(), closed.String(), srv.URL + "?db=3", srv.URL + "?dial_timeout=x",
			query, query + "&prefix=%zz", strings.Replace(query, "Sekr1t", "Sekr1t%zz", 1)} {
			st, err := kv.Open(t.Context(), s)
			if err == nil {
				st.Close()
				t.Errorf("Open(%s) = nil error", s)
				continue
			}
			if strings.Contains(err.Error(), srv.Password) || strings.Contains(err.Error(), "Sekr1t-wrong-pw") {
				t.Errorf("Open's error holds the password: %v", err)
			}
		}
	})
}
