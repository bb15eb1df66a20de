package kv_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/hands-go/hands/kv"
	_ "github.com/hands-go/hands/kv/memkv"
)

func Example() {
	ctx := context.Background()
	store, err := kv.Open(ctx, "mem://") // or sqlite:///path/kv.db, redis://host:6379/0
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	store.Put(ctx, "user/42/name", []byte("Ada"), nil)
	store.Put(ctx, "user/42/city", []byte("London"), &kv.PutOptions{TTL: time.Hour})
	store.Put(ctx, "user/7/name", []byte("Alan"), nil)

	e, err := store.Get(ctx, "user/42/name")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(e.Value))
	page, err := store.List(ctx, &kv.ListOptions{Prefix: "user/42/"})
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range page.Keys {
		fmt.Println(k.Name, !k.Expires.IsZero())
	}
	// Output:
	// Ada
	// user/42/city true
	// user/42/name false
}
