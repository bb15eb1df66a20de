// Package rediskv is a key-value store in Redis for package kv, through
// github.com/redis/go-redis/v9: redis:// and rediss:// (TLS) URLs.
//
//	import _ "github.com/hands-go/hands/kv/rediskv"
//
//	store, err := kv.Open(ctx, "redis://:PASSWORD@127.0.0.1:6379/0?prefix=app:kv:")
//
// The query parameters are go-redis's dial_timeout, read_timeout,
// write_timeout, pool_size, protocol and client_name, and prefix, put before
// every Redis key the store uses (default "hands:kv:"); any other is an
// error, password among them: go-redis reads the password only from the
// user information. The opener pings the server, so a wrong address or
// password is found at once; no error names a password, the URL's being
// shown with its credentials redacted even when it does not parse.
//
// An entry is a hash at PREFIX+"k:"+key, expired by Redis with PEXPIREAT,
// and a member of the sorted set PREFIX+"index", which List reads in byte
// order with ZRANGE BYLEX and from which it removes the keys Redis expired.
// A listing reads each key's metadata and expiry, never its value.
package rediskv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hands-go/hands/internal/redact"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
	"github.com/redis/go-redis/v9"
)

// Schemes are the URL schemes this package registers.
const (
	Scheme    = "redis"
	SchemeTLS = "rediss"
)

func init() {
	kv.DefaultURLMux().Register(Scheme, opener{})
	kv.DefaultURLMux().Register(SchemeTLS, opener{})
}

type opener struct{}

func (opener) OpenStore(ctx context.Context, u *url.URL) (driver.Store, error) {
	if err := kv.CheckParams(u, "prefix", "dial_timeout", "read_timeout", "write_timeout", "pool_size", "protocol", "client_name"); err != nil {
		return nil, err
	}
	q := u.Query()
	prefix := q.Get("prefix")
	if !q.Has("prefix") {
		prefix = "hands:kv:"
	}
	q.Del("prefix")
	c := *u
	c.RawQuery = q.Encode()
	opts, err := redis.ParseURL(c.String())
	if err != nil {
		return nil, fmt.Errorf("rediskv: %s: the URL does not parse", redact.URL(u.String()))
	}
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("rediskv: connect to %s: %w", redact.URL(u.String()), redact.Error(err, u.String()))
	}
	return New(client, prefix), nil
}

// Store is a driver.Store in Redis.
type Store struct {
	c      *redis.Client
	prefix string
}

// New returns a store on client whose Redis keys start with prefix. Close
// closes the client.
func New(client *redis.Client, prefix string) *Store { return &Store{c: client, prefix: prefix} }

// As reaches the *redis.Client through kv.Store.As.
func (s *Store) As(target any) bool {
	if p, ok := target.(**redis.Client); ok {
		*p = s.c
		return true
	}
	return false
}

func (s *Store) entry(key string) string { return s.prefix + "k:" + key }
func (s *Store) index() string           { return s.prefix + "index" }

// Get implements driver.Store.
func (s *Store) Get(ctx context.Context, key string, now time.Time) (driver.Entry, error) {
	vals, err := s.c.HMGet(ctx, s.entry(key), "v", "m", "e").Result()
	if err != nil {
		return driver.Entry{}, err
	}
	v, ok := vals[0].(string)
	if !ok {
		return driver.Entry{}, driver.ErrNotFound
	}
	e := driver.Entry{Value: []byte(v), Expires: expiry(vals[2])}
	if m, ok := vals[1].(string); ok && m != "" {
		e.Metadata = []byte(m)
	}
	if !e.Expires.IsZero() && !now.Before(e.Expires) {
		return driver.Entry{}, driver.ErrNotFound
	}
	return e, nil
}

// expiry reads the "e" field: Unix milliseconds, 0 for never.
func expiry(v any) time.Time {
	s, _ := v.(string)
	ms, _ := strconv.ParseInt(s, 10, 64)
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// Put implements driver.Store.
func (s *Store) Put(ctx context.Context, key string, e driver.Entry) error {
	var ms int64
	if !e.Expires.IsZero() {
		ms = e.Expires.UnixMilli()
	}
	k := s.entry(key)
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, k)
		p.HSet(ctx, k, "v", e.Value, "m", []byte(e.Metadata), "e", ms)
		if ms != 0 {
			p.PExpireAt(ctx, k, e.Expires)
		}
		p.ZAdd(ctx, s.index(), redis.Z{Member: key})
		return nil
	})
	return err
}

// Delete implements driver.Store.
func (s *Store) Delete(ctx context.Context, key string, now time.Time) (bool, error) {
	var exp *redis.StringCmd
	var del *redis.IntCmd
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		exp = p.HGet(ctx, s.entry(key), "e")
		del = p.Del(ctx, s.entry(key))
		p.ZRem(ctx, s.index(), key)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, err
	}
	e := expiry(exp.Val())
	return del.Val() > 0 && (e.IsZero() || now.Before(e)), nil
}

// List implements driver.Store.
func (s *Store) List(ctx context.Context, prefix, after string, limit int, now time.Time) ([]driver.Key, bool, error) {
	stop := "+"
	if prefix != "" {
		stop = "(" + prefix + "\xff" // no UTF-8 key has the byte 0xff
	}
	var keys []driver.Key
	for {
		start := "[" + prefix
		if after != "" {
			start = "(" + after
		}
		names, err := s.c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.index(), Start: start, Stop: stop, ByLex: true, Count: int64(limit + 1)}).Result()
		if err != nil {
			return nil, false, err
		}
		cmds, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, n := range names {
				p.HMGet(ctx, s.entry(n), "m", "e") // never the value
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, false, err
		}
		var gone []any
		for i, n := range names {
			if len(keys) == limit {
				return keys, true, nil
			}
			vals := cmds[i].(*redis.SliceCmd).Val()
			if _, ok := vals[1].(string); !ok {
				// Every Put sets "e": without it, the hash is gone,
				// expired by Redis or deleted since the ZRANGE.
				gone = append(gone, n)
				continue
			}
			exp := expiry(vals[1])
			if !exp.IsZero() && !now.Before(exp) {
				continue
			}
			k := driver.Key{Name: n, Expires: exp}
			if m, ok := vals[0].(string); ok && m != "" {
				k.Metadata = []byte(m)
			}
			keys = append(keys, k)
		}
		if len(gone) > 0 {
			s.c.ZRem(ctx, s.index(), gone...)
		}
		if len(names) <= limit {
			return keys, false, nil
		}
		after = names[len(names)-1]
	}
}

// Close implements driver.Store: it closes the client.
func (s *Store) Close() error { return s.c.Close() }
