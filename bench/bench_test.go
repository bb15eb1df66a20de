package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// valid is a typical call: every kind of field, roles left to its default.
const valid = `{"username":"ada_lovelace","email":"ada.lovelace@example.com","age":36,` +
	`"address":{"street":"12 St James's Square","city":"London","country":"GB","postcode":"SW1Y 4JH"},` +
	`"labels":{"team":"analytics","plan":"pro"},"tags":["mathematics","poetry","engines","looms"]}`

// invalid is valid with exactly three bad fields: age is a string (a type
// error, which even the paths that do not validate catch), email is not an
// email address (format), and the second role is not in the enum.
const invalid = `{"username":"ada_lovelace","email":"ada.lovelace-example.com","age":"36","roles":["admin","root"],` +
	`"address":{"street":"12 St James's Square","city":"London","country":"GB","postcode":"SW1Y 4JH"},` +
	`"labels":{"team":"analytics","plan":"pro"},"tags":["mathematics"]}`

// invalidIssues is how many issues invalid has.
const invalidIssues = 3

// large is a valid call of about 30 KB, most of it 500 tags.
var large = largePayload()

func largePayload() string {
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
}

// payloads are the benchmarked inputs, in the order they are reported.
var payloads = []struct {
	name  string
	data  []byte
	valid bool
}{
	{"valid", []byte(valid), true},
	{"invalid", []byte(invalid), false},
	{"large", []byte(large), true},
}

// TestPathsAgree checks that every path accepts the valid payloads and hands
// its handler the same value, and that every path rejects invalid.
func TestPathsAgree(t *testing.T) {
	for _, p := range payloads {
		t.Run(p.name, func(t *testing.T) {
			var want *CreateUser
			for _, pt := range paths {
				var got *CreateUser
				run := pt.make(func(ctx context.Context, in CreateUser) (Created, error) {
					got = &in
					return createUser(ctx, in)
				})
				n, err := run(t.Context(), p.data)
				if !p.valid {
					if err == nil {
						t.Errorf("%s accepts %s", pt.name, p.name)
					}
					if got != nil {
						t.Errorf("%s called the handler on %s", pt.name, p.name)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s rejects %s: %v", pt.name, p.name, err)
					continue
				}
				if n == 0 {
					t.Errorf("%s encoded no output for %s", pt.name, p.name)
				}
				if !pt.defaults {
					withDefaults(got)
				}
				if want == nil {
					want = got
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s decodes %s as\n%+v\nwant (as %s)\n%+v", pt.name, p.name, got, paths[0].name, want)
				}
			}
		})
	}
}

// TestHandsIssues checks that hands reports each of invalid's bad fields.
func TestHandsIssues(t *testing.T) {
	res := tool.Run(t.Context(), handsTool(createUser), tool.Call{Name: "create_user", Args: []byte(invalid)})
	verr, ok := errors.AsType[*tool.ValidationError](res.Err)
	if !ok {
		t.Fatalf("Run(invalid).Err = %v, want a *tool.ValidationError", res.Err)
	}
	if len(verr.Issues) != invalidIssues {
		t.Errorf("Run(invalid) reports %d issues, want %d:\n%v", len(verr.Issues), invalidIssues, verr)
	}
	for _, want := range []string{"/age", "/email", "/roles/1"} {
		found := false
		for _, is := range verr.Issues {
			found = found || is.Path == want
		}
		if !found {
			t.Errorf("Run(invalid) reports no issue at %s:\n%v", want, verr)
		}
	}
}

// TestReported pins how many of invalid's three issues each path reports;
// docs/PERFORMANCE.md quotes it.
func TestReported(t *testing.T) {
	want := map[string]int{
		"encoding_json": 1, // the first type error
		"jsonv2":        1, // stops at the first error
		"hands":         3,
		"mcp_sdk":       1, // jsonschema-go stops at the first failure
		"santhosh":      3,
		"validator":     1, // encoding/json fails first, so Struct never runs
	}
	for _, pt := range paths {
		_, err := pt.make(createUser)(t.Context(), []byte(invalid))
		got := reported(err)
		t.Logf("%s reports %d:\n\t%s", pt.name, len(got), joinLines(got))
		if len(got) != want[pt.name] {
			t.Errorf("%s reports %d issues, want %d", pt.name, len(got), want[pt.name])
		}
	}
}

// TestFormat pins which paths assert "format": email. A payload whose only
// fault is its email is caught by hands, santhosh and validator; jsonschema-go,
// and so the MCP SDK, treats format as an annotation.
func TestFormat(t *testing.T) {
	badEmail := strings.Replace(valid, "ada.lovelace@example.com", "ada.lovelace-example.com", 1)
	rejects := map[string]bool{"hands": true, "santhosh": true, "validator": true}
	for _, pt := range paths {
		_, err := pt.make(createUser)(t.Context(), []byte(badEmail))
		if got := err != nil; got != rejects[pt.name] {
			t.Errorf("%s rejects a bad email: %t, want %t (err = %v)", pt.name, got, rejects[pt.name], err)
		}
	}
}

func joinLines(s []string) string {
	var b bytes.Buffer
	for i, l := range s {
		if i > 0 {
			b.WriteString("\n\t")
		}
		b.WriteString(l)
	}
	return b.String()
}

// BenchmarkDecode runs every path on every payload. Each iteration is one
// call: decode and validate the arguments, run the handler, encode the output.
func BenchmarkDecode(b *testing.B) {
	ctx := context.Background()
	for _, p := range payloads {
		b.Run(p.name, func(b *testing.B) {
			for _, pt := range paths {
				b.Run(pt.name, func(b *testing.B) {
					run := pt.make(createUser)
					if _, err := run(ctx, p.data); (err == nil) != p.valid {
						b.Fatalf("%s on %s: err = %v, want valid = %t", pt.name, p.name, err, p.valid)
					}
					b.ReportAllocs()
					b.SetBytes(int64(len(p.data)))
					for b.Loop() {
						if _, err := run(ctx, p.data); (err == nil) != p.valid {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// decodeRatioBatch is how many calls BenchmarkDecodeRatio times on one path
// before it turns to the other.
const decodeRatioBatch = 32

// BenchmarkDecodeRatio times the hands path against the encoding_json
// path on each payload, the two in alternation: every iteration runs a batch
// of decodeRatioBatch calls on one and then a batch on the other, in an order
// that alternates, so that both see the same moments of a machine that other
// work shares. It reports the median over the iterations of hands' time per
// call divided by encoding_json's as ratio, and each path's median time per
// call. The ratio is what BenchmarkDecode's two times give on a quiet
// machine; on a busy one it varies far less than they do.
func BenchmarkDecodeRatio(b *testing.B) {
	ctx := context.Background()
	for _, p := range payloads {
		b.Run(p.name, func(b *testing.B) {
			base, hands := encodingJSONPath(createUser), handsPath(createUser)
			batch := func(run func(context.Context, []byte) (int, error)) time.Duration {
				start := time.Now()
				for range decodeRatioBatch {
					if _, err := run(ctx, p.data); (err == nil) != p.valid {
						b.Fatal(err)
					}
				}
				return time.Since(start)
			}
			batch(base)
			batch(hands)
			var ratios, baseNs, handsNs []float64
			i := 0
			for b.Loop() {
				var tb, th time.Duration
				if i%2 == 0 {
					tb, th = batch(base), batch(hands)
				} else {
					th, tb = batch(hands), batch(base)
				}
				i++
				ratios = append(ratios, float64(th)/float64(tb))
				baseNs = append(baseNs, float64(tb)/decodeRatioBatch)
				handsNs = append(handsNs, float64(th)/decodeRatioBatch)
			}
			b.ReportMetric(median(ratios), "ratio")
			b.ReportMetric(median(handsNs), "hands-ns/call")
			b.ReportMetric(median(baseNs), "encoding_json-ns/call")
		})
	}
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// TestMCPReplica checks mcpPath against the SDK itself: served by a real
// mcp.Server over in-memory transports, the tool accepts and rejects the same
// payloads, receives the same value and returns the same content.
func TestMCPReplica(t *testing.T) {
	ctx := t.Context()
	var got *CreateUser
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "create_user", Description: "Create a user account.", InputSchema: mcpInputSchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in CreateUser) (*mcp.CallToolResult, Created, error) {
			got = &in
			out, err := createUser(ctx, in)
			return nil, out, err
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, p := range payloads {
		got = nil
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_user", Arguments: json.RawMessage(p.data)})
		if err != nil {
			t.Fatalf("CallTool(%s): %v", p.name, err)
		}
		var replica *CreateUser
		n, rerr := mcpPath(func(ctx context.Context, in CreateUser) (Created, error) {
			replica = &in
			return createUser(ctx, in)
		})(ctx, p.data)
		if res.IsError != !p.valid || (rerr != nil) != !p.valid {
			t.Errorf("%s: the SDK's IsError = %t, the replica's error = %v; want valid = %t", p.name, res.IsError, rerr, p.valid)
		}
		if !reflect.DeepEqual(replica, got) {
			t.Errorf("%s: the replica decodes\n%+v\nthe SDK\n%+v", p.name, replica, got)
		}
		if !p.valid {
			continue
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if n != len(text) {
			t.Errorf("%s: the replica returns %d bytes, the SDK %q", p.name, n, text)
		}
	}
}

// BenchmarkMCPOutputSchema measures the share of the mcp_sdk path that
// checks the handler's output (applySchema on the output), work that no other
// path does.
func BenchmarkMCPOutputSchema(b *testing.B) {
	resolved := mcpResolve(mcpOutputSchema())
	data, err := json.Marshal(Created{ID: "user/ada_lovelace", Created: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := mcpApplySchema(data, resolved, true); err != nil {
			b.Fatal(err)
		}
	}
}
