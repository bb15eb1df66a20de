package rediskv_test

import (
	"context"
	"fmt"
	"net"
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

	// A listing reads the keys' names, expiry and metadata, never their
	// values: the bytes that come from the server for a page of 64 keys of
	// 256 KiB are counted on the client's connection.
	t.Run("listing reads no values", func(t *testing.T) {
		opts, err := redis.ParseURL(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		var read atomic.Int64
		opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: c, read: &read}, nil
		}
		s := kv.New(rediskv.New(redis.NewClient(opts), "values:"), nil)
		defer s.Close()
		value := []byte(strings.Repeat("v", 256<<10))
		for i := range 64 {
			if err := s.Put(t.Context(), fmt.Sprintf("big/%02d", i), value, &kv.PutOptions{Metadata: []byte(`{"n":1}`)}); err != nil {
				t.Fatal(err)
			}
		}
		before := read.Load()
		p, err := s.List(t.Context(), &kv.ListOptions{Prefix: "big/"})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Keys) != 64 || string(p.Keys[0].Metadata) != `{"n":1}` {
			t.Fatalf("List = %d keys, the first with metadata %s", len(p.Keys), p.Keys[0].Metadata)
		}
		n := read.Load() - before
		t.Logf("listing 64 keys of %d bytes read %d bytes from Redis", len(value), n)
		if n > 16<<10 {
			t.Errorf("listing 64 keys read %d bytes from Redis; their values are %d bytes, and a listing reads none", n, 64*len(value))
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

// A countingConn counts the bytes read from its connection.
type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}
