package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hands-go/hands/tool"
)

// The benchmarked tool mirrors the official comparison in /bench
// (bench/bench_test.go and bench/paths_test.go): the same input and output
// types, the same handler and the same three payloads. Compare the two
// benchmarks of one payload in the same run:
//
//	go test ./tool -run '^$' -bench 'Run|Stdlib' -count 6 > out.txt
//	benchstat -col '.name@(Stdlib Run)' -row /payload out.txt

type benchUser struct {
	Username string            `json:"username" jsonschema:"the login name" tool:"minLength=3,maxLength=20,pattern=^[a-z0-9_]+$"`
	Email    string            `json:"email" jsonschema:"where to reach the user" tool:"format=email"`
	Age      *int              `json:"age,omitempty" jsonschema:"age in years" tool:"minimum=1"`
	Roles    []string          `json:"roles,omitempty" jsonschema:"what the user may do" tool:"enum=admin|user|guest,default=[\"user\"]"`
	Address  benchAddress      `json:"address" jsonschema:"the postal address"`
	Labels   map[string]string `json:"labels,omitempty" jsonschema:"free-form labels"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"search tags" tool:"maxItems=1000,maxLength=64"`
}

type benchAddress struct {
	Street   string `json:"street" jsonschema:"street and number" tool:"minLength=1,maxLength=100"`
	City     string `json:"city" jsonschema:"the city" tool:"minLength=1,maxLength=60"`
	Country  string `json:"country" jsonschema:"ISO 3166-1 alpha-2 code" tool:"pattern=^[A-Z]{2}$"`
	Postcode string `json:"postcode,omitempty" jsonschema:"the postal code" tool:"maxLength=12"`
}

type benchCreated struct {
	ID      string `json:"id"`
	Created bool   `json:"created"`
}

func benchHandler(_ context.Context, in benchUser) (benchCreated, error) {
	return benchCreated{ID: "user/" + in.Username, Created: true}, nil
}

// benchValid is a typical call: every kind of field, roles left to its
// default.
const benchValid = `{"username":"ada_lovelace","email":"ada.lovelace@example.com","age":36,` +
	`"address":{"street":"12 St James's Square","city":"London","country":"GB","postcode":"SW1Y 4JH"},` +
	`"labels":{"team":"analytics","plan":"pro"},"tags":["mathematics","poetry","engines","looms"]}`

// benchInvalid has exactly three bad fields: age is a string, email is not
// an email address, and the second role is not in the enum.
const benchInvalid = `{"username":"ada_lovelace","email":"ada.lovelace-example.com","age":"36","roles":["admin","root"],` +
	`"address":{"street":"12 St James's Square","city":"London","country":"GB","postcode":"SW1Y 4JH"},` +
	`"labels":{"team":"analytics","plan":"pro"},"tags":["mathematics"]}`

// benchLarge is a valid call of about 30 KB, most of it 500 tags.
var benchLarge = func() string {
	var b bytes.Buffer
	b.WriteString(`{"username":"grace_hopper","email":"grace.hopper@example.com","age":85,"roles":["admin","user"],` +
		`"address":{"street":"1 Navy Yard","city":"Arlington","country":"US","postcode":"22202"},` +
		`"labels":{"team":"compilers","plan":"enterprise","region":"us-east"},"tags":[`)
	for i := range 500 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"release-2025.%03d/service-%03d/artifact-sha256-%08x.tgz"`, i, i*7%1000, uint32(i)*2654435761)
	}
	b.WriteString(`]}`)
	return b.String()
}()

var benchPayloads = []struct {
	name  string
	data  []byte
	valid bool
}{
	{"valid", []byte(benchValid), true},
	{"invalid", []byte(benchInvalid), false},
	{"large", []byte(benchLarge), true},
}

// BenchmarkRun is (*tool.Tool).Run: validate, apply defaults and decode in
// one pass, run the handler, encode the output.
func BenchmarkRun(b *testing.B) {
	t := tool.New("create_user", "Create a user account.", benchHandler)
	ctx := context.Background()
	for _, p := range benchPayloads {
		b.Run("payload="+p.name, func(b *testing.B) {
			if res := tool.Run(ctx, t, tool.Call{Name: "create_user", Args: p.data}); res.IsError == p.valid {
				b.Fatalf("Run(%s): IsError = %t: %s", p.name, res.IsError, res.Content)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(p.data)))
			for b.Loop() {
				if res := tool.Run(ctx, t, tool.Call{Name: "create_user", Args: p.data}); res.IsError == p.valid {
					b.Fatal(res.Content)
				}
			}
		})
	}
}

// BenchmarkPaths is one valid call through each way of running it: Run on
// the tool (the handler on the caller's goroutine), Run on a registry with
// middleware (drained from its stream), Stream (the handler on a goroutine
// of its own, events handed to the consumer), and Run with a timeout (the
// handler on a goroutine of its own, raced against the deadline); and the
// first two again with a context that can end (…_ctx), as a server's is,
// where Drain runs the call on a goroutine of its own to answer at the
// caller's deadline.
func BenchmarkPaths(b *testing.B) {
	plain := tool.New("create_user", "Create a user account.", benchHandler)
	timed := tool.New("create_user", "Create a user account.", benchHandler, tool.WithTimeout(time.Minute))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{plain}})
	if err != nil {
		b.Fatal(err)
	}
	reg.Use(tool.OnResult(func(context.Context, tool.Call, *tool.Result) {}))
	ctx := context.Background()
	cancellable, cancel := context.WithCancel(ctx)
	defer cancel()
	call := tool.Call{Name: "create_user", Args: []byte(benchValid)}
	for _, path := range []struct {
		name string
		run  func() tool.Result
	}{
		{"run", func() tool.Result { return tool.Run(ctx, plain, call) }},
		{"registry_middleware", func() tool.Result { return tool.Run(ctx, reg, call) }},
		{"stream", func() tool.Result {
			var res tool.Result
			for ev := range plain.Stream(ctx, call) {
				if ev.Result != nil {
					res = *ev.Result
				}
			}
			return res
		}},
		{"timeout", func() tool.Result { return tool.Run(ctx, timed, call) }},
		{"run_ctx", func() tool.Result { return tool.Run(cancellable, plain, call) }},
		{"registry_middleware_ctx", func() tool.Result { return tool.Run(cancellable, reg, call) }},
	} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := path.run(); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}

// BenchmarkStdlib is the baseline: encoding/json both ways, no validation.
func BenchmarkStdlib(b *testing.B) {
	ctx := context.Background()
	run := func(data []byte) (int, error) {
		var in benchUser
		if err := json.Unmarshal(data, &in); err != nil {
			return 0, err
		}
		out, err := benchHandler(ctx, in)
		if err != nil {
			return 0, err
		}
		enc, err := json.Marshal(out)
		return len(enc), err
	}
	for _, p := range benchPayloads {
		b.Run("payload="+p.name, func(b *testing.B) {
			if _, err := run(p.data); (err == nil) != p.valid {
				b.Fatalf("stdlib on %s: err = %v, want valid = %t", p.name, err, p.valid)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(p.data)))
			for b.Loop() {
				if _, err := run(p.data); (err == nil) != p.valid {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSpec is what a model turn pays per tool to list it: the input and
// output schemas, written afresh for the caller to keep or change.
func BenchmarkSpec(b *testing.B) {
	t := tool.New("create_user", "Create a user account.", benchHandler)
	b.ReportAllocs()
	for b.Loop() {
		if s := t.Spec(); s.InputSchema == nil || s.OutputSchema == nil {
			b.Fatal("Spec has no schemas")
		}
	}
}

// BenchmarkNew is the cost of defining the tool, once per process: the plans
// of the input and output types, uncached only the first time.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		tool.New("create_user", "Create a user account.", benchHandler)
	}
}
