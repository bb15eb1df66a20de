// Package kvtool holds kv_get, kv_put, kv_delete and kv_list: memory that
// outlives a run, in a *kv.Store (package kv), for agents.
//
//	store := kv.New(memkv.New(), nil) // or a store that package bind opened
//	reg, err := tool.NewRegistry(&tool.Scope{Name: "memory", Tools: kvtool.Tools(store)})
//
// A key with no entry is an error that wraps kv.ErrKeyNotFound, and a key,
// value or note over the store's limits one that wraps kv.ErrOversize; the
// text of each tells the model what to change.
package kvtool
