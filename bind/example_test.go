package bind_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/hands-go/hands/bind"
	"gocloud.dev/blob"
)

// Env is the environment of a small service: a bucket, a secret and a
// timeout.
type Env struct {
	Files   *blob.Bucket  `bind:"FILES"`
	Token   bind.Secret   `bind:"API_TOKEN"`
	Timeout time.Duration `bind:"TIMEOUT,default=20s"`
}

func Example() {
	// A stand-in for the process environment.
	vars := map[string]string{"FILES": "mem://", "API_TOKEN": "s3cr3t"}
	lookup := func(name string) (string, bool) { v, ok := vars[name]; return v, ok }

	ctx := context.Background()
	var env Env
	if err := bind.Load(ctx, &env, &bind.Options{LookupEnv: lookup}); err != nil {
		log.Fatal(err)
	}
	defer bind.Close(&env)

	// A handler reaches the bucket by closure.
	if err := env.Files.WriteAll(ctx, "hello.txt", []byte("hello"), nil); err != nil {
		log.Fatal(err)
	}
	data, err := env.Files.ReadAll(ctx, "hello.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(data))
	fmt.Println(env.Timeout)
	fmt.Println(env.Token, len(env.Token.Reveal()))
	// Output:
	// hello
	// 20s
	// [REDACTED] 6
}

// Load reports every problem at once, each with its name and field.
func ExampleLoad_problems() {
	vars := map[string]string{"TIMEOUT": "soon"}
	lookup := func(name string) (string, bool) { v, ok := vars[name]; return v, ok }

	var env Env
	err := bind.Load(context.Background(), &env, &bind.Options{LookupEnv: lookup})
	fmt.Println(err)
	fmt.Println(errors.Is(err, bind.ErrMissing), errors.Is(err, bind.ErrInvalid))
	// Output:
	// bind: 3 problems
	// 	FILES (Env.Files): missing: set the environment variable FILES
	// 	API_TOKEN (Env.Token): missing: set the environment variable API_TOKEN
	// 	TIMEOUT (Env.Timeout): invalid value "soon" from environment variable TIMEOUT: want a duration with a unit, such as 30s or 1h30m
	// true true
}
