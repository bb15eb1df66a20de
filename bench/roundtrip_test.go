package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server is one way of serving create_user over MCP.
type server struct {
	name string
	// connect serves the tool on an in-memory transport and returns the
	// client's session; close ends both.
	connect func(ctx context.Context) (cs *mcp.ClientSession, close func())
	// http starts a server on loopback that serves the tool on streamable
	// HTTP, stateless, with JSON responses.
	http func() *httptest.Server
}

// servers lists the servers compared, in the order they are reported: hands'
// mcpserver, which registers the tool through the SDK's raw handler and
// validates in one pass, and the SDK's own typed path, mcp.AddTool with the
// same constrained input schema as the mcp_sdk path of BenchmarkDecode.
var servers = []server{
	{name: "hands", connect: handsConnect, http: handsHTTP},
	{name: "mcp_sdk", connect: sdkConnect, http: sdkHTTP},
}

func handsServer() *mcpserver.Server {
	srv, err := mcpserver.NewTools(nil, handsTool(createUser))
	if err != nil {
		panic(err)
	}
	return srv
}

func sdkServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "create_user", Description: "Create a user account.", InputSchema: mcpInputSchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in CreateUser) (*mcp.CallToolResult, Created, error) {
			out, err := createUser(ctx, in)
			return nil, out, err
		})
	return s
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil)
}

func handsConnect(ctx context.Context) (*mcp.ClientSession, func()) {
	srv := handsServer()
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := newClient().Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	return cs, func() { cs.Close(); cancel(); <-done }
}

func sdkConnect(ctx context.Context) (*mcp.ClientSession, func()) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := sdkServer().Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	cs, err := newClient().Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	return cs, func() { cs.Close(); ss.Close() }
}

func handsHTTP() *httptest.Server {
	return httptest.NewServer(handsServer().HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true}))
}

func sdkHTTP() *httptest.Server {
	s := sdkServer()
	return httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
}

// TestRoundTripsAgree checks that both servers, in both transports, answer
// every payload alike: the same text for the valid ones, an error result
// for invalid.
func TestRoundTripsAgree(t *testing.T) {
	for _, transport := range []string{"inmemory", "http"} {
		for _, p := range payloads {
			var texts []string
			for _, s := range servers {
				cs, closeAll := session(t.Context(), s, transport)
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_user", Arguments: json.RawMessage(p.data)})
				closeAll()
				if err != nil {
					t.Fatalf("%s/%s/%s: %v", transport, p.name, s.name, err)
				}
				if res.IsError == p.valid {
					t.Errorf("%s/%s/%s: IsError = %t, want %t", transport, p.name, s.name, res.IsError, !p.valid)
				}
				if p.valid {
					texts = append(texts, res.Content[0].(*mcp.TextContent).Text)
				}
			}
			if len(texts) == 2 && !sameJSON(texts[0], texts[1]) {
				t.Errorf("%s/%s: hands says %s, the SDK %s", transport, p.name, texts[0], texts[1])
			}
		}
	}
}

// sameJSON reports whether a and b are the same JSON value, whatever the
// order of their keys (the SDK writes its output through a map, so sorted).
func sameJSON(a, b string) bool {
	var va, vb any
	return json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil && reflect.DeepEqual(va, vb)
}

// session connects a client to s over transport, "inmemory" or "http".
func session(ctx context.Context, s server, transport string) (*mcp.ClientSession, func()) {
	if transport == "inmemory" {
		return s.connect(ctx)
	}
	ts := s.http()
	cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()}, nil)
	if err != nil {
		panic(err)
	}
	return cs, func() { cs.Close(); ts.Close() }
}

// BenchmarkRoundTrip measures one tools/call of create_user, from the SDK's
// client to the server and back, on each server, payload and transport. It
// reports the median and the 95th percentile of the calls' latencies as
// p50-ns and p95-ns besides the mean.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	for _, transport := range []string{"inmemory", "http"} {
		b.Run(transport, func(b *testing.B) {
			for _, p := range payloads {
				b.Run(p.name, func(b *testing.B) {
					for _, s := range servers {
						b.Run(s.name, func(b *testing.B) {
							cs, closeAll := session(ctx, s, transport)
							defer closeAll()
							params := &mcp.CallToolParams{Name: "create_user", Arguments: json.RawMessage(p.data)}
							if res, err := cs.CallTool(ctx, params); err != nil || res.IsError == p.valid {
								b.Fatalf("CallTool(%s) = %+v, %v", p.name, res, err)
							}
							var took []time.Duration
							b.ReportAllocs()
							b.SetBytes(int64(len(p.data)))
							for b.Loop() {
								start := time.Now()
								res, err := cs.CallTool(ctx, params)
								took = append(took, time.Since(start))
								if err != nil || res.IsError == p.valid {
									b.Fatal(err)
								}
							}
							slices.Sort(took)
							b.ReportMetric(float64(took[len(took)/2]), "p50-ns")
							b.ReportMetric(float64(took[len(took)*95/100]), "p95-ns")
						})
					}
				})
			}
		})
	}
}

// BenchmarkRoundTripRatio calls hands' server and the SDK's in turns, one
// call each per iteration (the order alternating), so that both see the
// same moments of a busy machine, and reports the ratios hands ÷ SDK of
// their medians and 95th percentiles as p50-ratio and p95-ratio, with each
// server's percentiles beside them. An iteration is two calls.
func BenchmarkRoundTripRatio(b *testing.B) {
	ctx := context.Background()
	for _, transport := range []string{"inmemory", "http"} {
		b.Run(transport, func(b *testing.B) {
			for _, p := range payloads {
				b.Run(p.name, func(b *testing.B) {
					var sessions [2]*mcp.ClientSession
					for i, s := range servers {
						cs, closeAll := session(ctx, s, transport)
						defer closeAll()
						sessions[i] = cs
					}
					params := &mcp.CallToolParams{Name: "create_user", Arguments: json.RawMessage(p.data)}
					var took [2][]time.Duration
					call := func(i int) {
						start := time.Now()
						res, err := sessions[i].CallTool(ctx, params)
						took[i] = append(took[i], time.Since(start))
						if err != nil || res.IsError == p.valid {
							b.Fatalf("%s: CallTool(%s) = %+v, %v", servers[i].name, p.name, res, err)
						}
					}
					call(0) // warm up both
					call(1)
					took = [2][]time.Duration{}
					b.ReportAllocs()
					n := 0
					for b.Loop() {
						call(n % 2)
						call(1 - n%2)
						n++
					}
					var p50, p95 [2]float64
					for i := range took {
						slices.Sort(took[i])
						p50[i] = float64(took[i][len(took[i])/2])
						p95[i] = float64(took[i][len(took[i])*95/100])
					}
					b.ReportMetric(p50[0], "hands-p50-ns")
					b.ReportMetric(p50[1], "sdk-p50-ns")
					b.ReportMetric(p95[0], "hands-p95-ns")
					b.ReportMetric(p95[1], "sdk-p95-ns")
					b.ReportMetric(p50[0]/p50[1], "p50-ratio")
					b.ReportMetric(p95[0]/p95[1], "p95-ratio")
				})
			}
		})
	}
}
