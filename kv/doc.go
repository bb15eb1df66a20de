// Package kv is a small key-value store for agents' memory, with what users
// of Cloudflare Workers KV rely on: Get; Put with an optional TTL and
// metadata; Delete; List by prefix with a cursor; and bounded key, value
// and metadata sizes (by default 512 bytes, 1 MiB and 1 KiB).
//
// Stores are opened from URLs, through the driver packages a program
// imports, as gocloud.dev's are:
//
//	import _ "github.com/hands-go/hands/kv/memkv"    // mem://: in memory, new on each open
//	import _ "github.com/hands-go/hands/kv/sqlitekv" // sqlite:///path/kv.db: embedded and persistent
//	import _ "github.com/hands-go/hands/kv/rediskv"  // redis://:PASSWORD@host:6379/0
//
//	store, err := kv.Open(ctx, "sqlite:///home/me/.local/share/hands/kv.db")
//	err = store.Put(ctx, "user/42/name", []byte("Ada"), &kv.PutOptions{TTL: 24 * time.Hour})
//	e, err := store.Get(ctx, "user/42/name")
//	page, err := store.List(ctx, &kv.ListOptions{Prefix: "user/42/"})
//
// # Keys and expiry
//
// A key is non-empty UTF-8 text; it is data, never a path, in every driver.
// Listings are in byte order. Expiry is decided by the Store's clock
// (Options.Now), which each driver is given with every read, so that an
// expired entry is never returned even where the backing store has not yet
// removed it; drivers also let their backing store remove it (Redis's
// PEXPIREAT, a sweep in SQLite).
//
// # Errors
//
// Every failure is an *Error naming the operation and the key, whose Err
// is ErrKeyNotFound, ErrOversize, ErrBadKey or the driver's own error.
//
// Drivers implement kv/driver.Store and pass the conformance kit in
// kv/kvtest. gocloud.dev's docstore was considered and not used: it has no
// expiry and no ordered listing by prefix with a cursor.
package kv
