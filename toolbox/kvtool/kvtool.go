package kvtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/bytesize"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/tool"
)

// GetArgs is the input of kv_get.
type GetArgs struct {
	Key string `json:"key" jsonschema:"the key, such as user/42/preferences" tool:"minLength=1,maxLength=512"`
}

// Entry is the output of kv_get: a stored value.
type Entry struct {
	Key string `json:"key"`
	// Value is the stored text. A value that is not UTF-8 is given as
	// hexadecimal digits prefixed with "\x".
	Value string `json:"value"`
	// Metadata is the object stored with the value, if any.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Expires is when the entry stops existing; absent for never.
	Expires *time.Time `json:"expires,omitempty"`
}

// PutArgs is the input of kv_put.
type PutArgs struct {
	Key   string `json:"key" jsonschema:"the key, such as user/42/preferences; keys are listed by prefix, so put related keys under one" tool:"minLength=1,maxLength=512"`
	Value string `json:"value" jsonschema:"the text to store; it replaces any value under the key"`
	// TTLSeconds makes the entry expire; 0 keeps it.
	TTLSeconds int64 `json:"ttlSeconds,omitempty" jsonschema:"forget the entry after this many seconds; omit to keep it" tool:"minimum=1,maximum=315360000"`
	// Note is stored with the value as its metadata {"note": Note} and
	// shown by kv_list. It is at most 160 characters: the longest whose
	// JSON, {"note":"…"} with every character escaped in 6 bytes
	// (\u0001), fits kv.DefaultMaxMetadataBytes, so that any note the
	// schema accepts is stored.
	Note string `json:"note,omitempty" jsonschema:"a short note stored with the value and shown by kv_list, to find it again without reading it" tool:"maxLength=160"`
}

// DeleteArgs is the input of kv_delete.
type DeleteArgs struct {
	Key string `json:"key" jsonschema:"the key to forget" tool:"minLength=1,maxLength=512"`
}

// ListArgs is the input of kv_list.
type ListArgs struct {
	Prefix string `json:"prefix,omitempty" jsonschema:"list the keys that start with this, such as user/42/; omit to list all" tool:"maxLength=512"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the cursor of the previous page, to continue it" tool:"maxLength=1024"`
	Limit  int    `json:"limit,omitempty" jsonschema:"the most keys to return" tool:"minimum=1,maximum=1000,default=100"`
}

// Key is one key of kv_list.
type Key struct {
	Name     string         `json:"name"`
	Metadata map[string]any `json:"metadata,omitempty"`
	Expires  *time.Time     `json:"expires,omitempty"`
}

// Page is the output of kv_list.
type Page struct {
	Keys []Key `json:"keys"`
	// Cursor continues the listing; absent when it is complete.
	Cursor string `json:"cursor,omitempty"`
}

func expiresPtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func metadataMap(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// Tools returns kv_get, kv_put, kv_delete and kv_list on store: memory
// that outlives a run, for agents. Keys are at most the store's key limit
// and values its value limit (kv.DefaultMaxKeyBytes and
// kv.DefaultMaxValueBytes unless the store says otherwise); a key with no
// entry is an error that wraps kv.ErrKeyNotFound, and one over a limit an
// error that wraps kv.ErrOversize, whose text tells the model what to
// change. kv_delete of a key that holds nothing is not an error but a
// result that says so: what the model asked for, no entry under the key,
// holds, and an error would invite a retry; the model still learns that its
// key was wrong. kv_put and kv_delete are annotated as destructive: they
// replace and remove what was stored.
//
// A note of kv_put is at most 160 characters, which any store of the
// default limits (kv.DefaultMaxMetadataBytes) holds whatever they are; a
// store with a smaller metadata limit refuses some notes, with an error
// about the note.
//
// Tools panics if store is nil.
func Tools(store *kv.Store) []tool.Interface {
	if store == nil {
		panic("toolbox.Tools: store is nil")
	}
	maxVal := store.MaxValueBytes()
	get := tool.New("kv_get", "Read the value stored under a key by kv_put, in this run or an earlier one.",
		func(ctx context.Context, a GetArgs) (*Entry, error) {
			e, err := store.Get(ctx, a.Key)
			if errors.Is(err, kv.ErrKeyNotFound) {
				return nil, fmt.Errorf("%w: nothing is stored under %q (or it expired); kv_list shows the keys", kv.ErrKeyNotFound, a.Key)
			}
			if err != nil {
				return nil, err
			}
			v := string(e.Value)
			if !utf8.Valid(e.Value) {
				v = fmt.Sprintf(`\x%x`, e.Value)
			}
			return &Entry{Key: a.Key, Value: v, Metadata: metadataMap(e.Metadata), Expires: expiresPtr(e.Expires)}, nil
		},
		tool.WithTitle("Read a stored value"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
	put := tool.New("kv_put", "Store a text value under a key, to remember it across runs; it replaces what the key held. Give a TTL to forget it later.",
		func(ctx context.Context, a PutArgs) (string, error) {
			if len(a.Value) > maxVal {
				return "", fmt.Errorf("%w: the value is %d bytes and the limit is %d (%s); store it in parts under several keys", kv.ErrOversize, len(a.Value), maxVal, bytesize.Text(maxVal))
			}
			opts := &kv.PutOptions{TTL: time.Duration(a.TTLSeconds) * time.Second}
			if a.Note != "" {
				m, err := json.Marshal(map[string]string{"note": a.Note})
				if err != nil {
					return "", err
				}
				if max := store.MaxMetadataBytes(); len(m) > max {
					// Only for a store whose limit is under the default.
					return "", fmt.Errorf("%w: the note takes %d bytes once stored, and this store keeps at most %d with a value; shorten the note", kv.ErrOversize, len(m), max)
				}
				opts.Metadata = m
			}
			if err := store.Put(ctx, a.Key, []byte(a.Value), opts); err != nil {
				return "", err
			}
			return fmt.Sprintf("stored %d bytes under %q", len(a.Value), a.Key), nil
		},
		tool.WithTitle("Store a value"),
		tool.WithAnnotations(tool.Annotations{Destructive: true, Idempotent: true}),
		tool.WithLimits(tool.Limits{MaxBytes: 2*maxVal + 64<<10}))
	del := tool.New("kv_delete", "Forget the value stored under a key. Deleting a key that holds nothing is not an error.",
		func(ctx context.Context, a DeleteArgs) (string, error) {
			deleted, err := store.Delete(ctx, a.Key)
			if err != nil {
				return "", err
			}
			if !deleted {
				return fmt.Sprintf("nothing was stored under %q (or it had expired), so nothing was deleted", a.Key), nil
			}
			return fmt.Sprintf("deleted %q", a.Key), nil
		},
		tool.WithTitle("Forget a stored value"),
		tool.WithAnnotations(tool.Annotations{Destructive: true, Idempotent: true}))
	list := tool.New("kv_list", "List the stored keys that start with a prefix, in order, a page at a time, with their metadata and expiry; pass the cursor it returns to get the next page.",
		func(ctx context.Context, a ListArgs) (*Page, error) {
			p, err := store.List(ctx, &kv.ListOptions{Prefix: a.Prefix, Cursor: a.Cursor, Limit: a.Limit})
			if err != nil {
				return nil, err
			}
			out := &Page{Keys: make([]Key, len(p.Keys)), Cursor: p.Cursor}
			for i, k := range p.Keys {
				out.Keys[i] = Key{Name: k.Name, Metadata: metadataMap(k.Metadata), Expires: expiresPtr(k.Expires)}
			}
			return out, nil
		},
		tool.WithTitle("List the stored keys"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
	return []tool.Interface{get, put, del, list}
}
