package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoIn is the input of the tools of the scale benchmarks.
type echoIn struct {
	Text string `json:"text"`
}

// toolName is the name of the i-th tool of a scale fixture.
func toolName(i int) string { return fmt.Sprintf("echo_%04d", i) }

// handsScaleServer returns hands' server of n echo tools in one scope,
// without enabled predicates.
func handsScaleServer(n int) (*mcpserver.Server, *tool.Registry) {
	return handsScaleServerOf(n, false)
}

// blockedClient is the client name to which the tools of a scale server
// with predicates are not enabled.
const blockedClient = "blocked"

// enabledForCaller is the enabled predicate of the tools of a scale server
// with predicates: a tool is enabled for every session except one whose
// client calls itself blockedClient. It reads the caller's session, as a
// predicate that depends on who calls does.
func enabledForCaller(ctx context.Context) bool {
	c, ok := mcpserver.CallerFrom(ctx)
	if !ok || c.Session == nil {
		return true
	}
	p := c.Session.InitializeParams()
	return p == nil || p.ClientInfo == nil || p.ClientInfo.Name != blockedClient
}

// handsScaleServerOf returns hands' server of n echo tools in one scope,
// each with the enabled predicate enabledForCaller when predicates is set.
func handsScaleServerOf(n int, predicates bool) (*mcpserver.Server, *tool.Registry) {
	var opts []tool.Option
	if predicates {
		opts = append(opts, tool.WithEnabled(enabledForCaller))
	}
	tools := make([]tool.Interface, n)
	for i := range tools {
		tools[i] = tool.New(toolName(i), "Echo a text.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil }, opts...)
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "echo", Tools: tools})
	if err != nil {
		panic(err)
	}
	return mcpserver.New(reg, nil), reg
}

// sdkScaleServer returns a server of the SDK's typed tools: n echo tools
// added with mcp.AddTool.
func sdkScaleServer(n int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.0"}, nil)
	for i := range n {
		mcp.AddTool(s, &mcp.Tool{Name: toolName(i), Description: "Echo a text."},
			func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
			})
	}
	return s
}

// A scaleFixture is one server with idle sessions that have listed its
// tools, and client sessions that call them.
type scaleFixture struct {
	callers []*mcp.ClientSession // sessions of the SDK's client, which listed the tools too
	closers []func()
}

func (f *scaleFixture) close() {
	for _, c := range slices.Backward(f.closers) {
		c()
	}
}

// serveFunc serves one session on the server side of an in-memory pair.
type serveFunc func(ctx context.Context, t mcp.Transport) (wait func())

func handsServe(srv *mcpserver.Server) serveFunc {
	return func(ctx context.Context, t mcp.Transport) func() {
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, t) }()
		return func() { <-done }
	}
}

func sdkServe(srv *mcp.Server) serveFunc {
	return func(ctx context.Context, t mcp.Transport) func() {
		ss, err := srv.Connect(ctx, t, nil)
		if err != nil {
			panic(err)
		}
		return func() { ss.Close() }
	}
}

// newScaleFixture opens sessions on a server: callers sessions of the
// SDK's client and idle-callers bare ones. Every session lists the tools
// once, as a client does when it connects. The bare sessions speak JSON-RPC
// on the connection and keep nothing of what they read, so that a thousand
// sessions of a thousand tools do not hold a thousand lists in the
// benchmark's own memory, as the SDK's client would.
func newScaleFixture(ctx context.Context, serve serveFunc, sessions, callers int) *scaleFixture {
	f := &scaleFixture{}
	ctx, cancel := context.WithCancel(ctx)
	f.closers = append(f.closers, cancel)
	for range sessions - callers {
		serverSide, clientSide := net.Pipe()
		wait := serve(ctx, &mcp.IOTransport{Reader: serverSide, Writer: serverSide})
		bareSession(clientSide)
		f.closers = append(f.closers, func() { clientSide.Close(); wait() })
	}
	for range callers {
		st, ct := mcp.NewInMemoryTransports()
		wait := serve(ctx, st)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			panic(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			panic(err)
		}
		f.callers = append(f.callers, cs)
		f.closers = append(f.closers, func() { cs.Close(); wait() })
	}
	return f
}

// bareSession initializes a session on conn and lists the tools, then
// reads and drops whatever the server sends until the connection closes.
func bareSession(conn net.Conn) {
	r := bufio.NewReader(conn)
	send := func(msg string) {
		if _, err := conn.Write([]byte(msg + "\n")); err != nil {
			panic(err)
		}
	}
	await := func(id string) { // reads up to the response with this id
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				panic(err)
			}
			if bytes.Contains(line, []byte(`"error":`)) {
				panic(string(line))
			}
			if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`+id+`,`)) {
				return
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bare","version":"1"}}}`)
	await("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	await("2")
	go io.Copy(io.Discard, r)
}

var echoParams = &mcp.CallToolParams{Name: toolName(0), Arguments: json.RawMessage(`{"text":"hi"}`)}

// call makes one call of echo_0000 and checks its answer.
func call(tb testing.TB, cs *mcp.ClientSession) {
	res, err := cs.CallTool(context.Background(), echoParams)
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi" {
		tb.Fatalf("CallTool = %+v, %v", res, err)
	}
}

// scaleSessions and scaleTools are the cells of BenchmarkScale.
var (
	scaleSessions = []int{1, 10, 100, 1000}
	scaleTools    = []int{10, 100, 1000}
)

// BenchmarkScale calls one tool of hands' server and of the SDK's in
// turns, one call each per iteration (the order alternating), from one
// session among sessions that have all listed tools, at each number of
// sessions and tools. It reports each server's median latency and the
// ratio hands ÷ SDK of the medians and of the means. An iteration is two
// calls.
func BenchmarkScale(b *testing.B) { benchmarkScale(b, false) }

// BenchmarkScalePredicates is BenchmarkScale with an enabled predicate on
// every one of hands' tools that reads the caller's session
// (enabledForCaller), so that what is listed and callable depends on who
// calls. The SDK's server, which has no predicates, is the same as in
// BenchmarkScale.
func BenchmarkScalePredicates(b *testing.B) { benchmarkScale(b, true) }

func benchmarkScale(b *testing.B, predicates bool) {
	ctx := context.Background()
	for _, sessions := range scaleSessions {
		for _, tools := range scaleTools {
			b.Run(fmt.Sprintf("sessions=%d/tools=%d", sessions, tools), func(b *testing.B) {
				hs, _ := handsScaleServerOf(tools, predicates)
				hf := newScaleFixture(ctx, handsServe(hs), sessions, 1)
				defer hf.close()
				sf := newScaleFixture(ctx, sdkServe(sdkScaleServer(tools)), sessions, 1)
				defer sf.close()
				cs := [2]*mcp.ClientSession{hf.callers[0], sf.callers[0]}
				var took [2][]time.Duration
				var sum [2]time.Duration
				one := func(i int) {
					start := time.Now()
					call(b, cs[i])
					d := time.Since(start)
					took[i] = append(took[i], d)
					sum[i] += d
				}
				one(0)
				one(1)
				took, sum = [2][]time.Duration{}, [2]time.Duration{}
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					one(n % 2)
					one(1 - n%2)
					n++
				}
				p50 := medians(took)
				b.ReportMetric(p50[0], "hands-p50-ns")
				b.ReportMetric(p50[1], "sdk-p50-ns")
				b.ReportMetric(p50[0]/p50[1], "p50-ratio")
				b.ReportMetric(float64(sum[0])/float64(sum[1]), "mean-ratio")
			})
		}
	}
}

// BenchmarkThroughput calls from 8 sessions at once, among 1000 sessions
// that have listed 100 tools, on each server, and reports calls/s. An
// iteration is one call.
func BenchmarkThroughput(b *testing.B) {
	const sessions, tools, callers = 1000, 100, 8
	ctx := context.Background()
	for _, name := range []string{"hands", "mcp_sdk"} {
		b.Run(name, func(b *testing.B) {
			var serve serveFunc
			if name == "hands" {
				hs, _ := handsScaleServer(tools)
				serve = handsServe(hs)
			} else {
				serve = sdkServe(sdkScaleServer(tools))
			}
			f := newScaleFixture(ctx, serve, sessions, callers)
			defer f.close()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			var next atomic.Int64
			var wg sync.WaitGroup
			for _, cs := range f.callers {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						call(b, cs)
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}

// BenchmarkCallDuringSync calls one tool of hands' server of 1000 tools,
// with 100 sessions that listed them, while nothing else happens (idle)
// and while another goroutine adds a tool to the registry and runs Sync,
// as a gateway does when its upstream adds tools: every 5ms (paced, 200
// changes a second, each told to the 100 sessions), or back to back
// (syncing), when the Syncs take a core of their own. It reports the
// median and 99th percentile of the calls and how many Syncs ran per call.
func BenchmarkCallDuringSync(b *testing.B) {
	const sessions, tools = 100, 1000
	ctx := context.Background()
	for _, mode := range []string{"idle", "paced", "syncing"} {
		b.Run(mode, func(b *testing.B) {
			hs, reg := handsScaleServer(tools)
			f := newScaleFixture(ctx, handsServe(hs), sessions, 1)
			defer f.close()
			stop := make(chan struct{})
			var syncs atomic.Int64
			var wg sync.WaitGroup
			if mode != "idle" {
				var pace <-chan time.Time // nil: back to back
				if mode == "paced" {
					ticker := time.NewTicker(5 * time.Millisecond)
					defer ticker.Stop()
					pace = ticker.C
				}
				wg.Go(func() {
					for i := 0; ; i++ {
						if pace != nil {
							select {
							case <-stop:
								return
							case <-pace:
							}
						}
						select {
						case <-stop:
							return
						default:
						}
						t := tool.New(fmt.Sprintf("added_%d_%d", b.N, i), "Echo a text.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil })
						if err := reg.Add(&tool.Scope{Name: "added", Tools: []tool.Interface{t}}); err != nil {
							panic(err)
						}
						hs.Sync(ctx)
						syncs.Add(1)
					}
				})
			}
			var took []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				call(b, f.callers[0])
				took = append(took, time.Since(start))
			}
			close(stop)
			wg.Wait()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2]), "p50-ns")
			b.ReportMetric(float64(took[len(took)*99/100]), "p99-ns")
			b.ReportMetric(float64(syncs.Load())/float64(b.N), "syncs/call")
		})
	}
}

// BenchmarkCallDuringSyncAlternating is BenchmarkCallDuringSync's paced
// mode against its idle one in alternating windows of one run, so that
// both see the same moments of a shared machine: for 100ms a goroutine
// adds a tool and runs Sync every 5ms, for the next 100ms it does nothing,
// and so on. A call counts for the window it starts in, unless it starts
// within 20ms of a switch (the Syncs' list_changed notifications, which
// the SDK sends a few ms late, and their garbage still belong to the window
// before). It reports the p50 and p99 of each kind of window and the
// ratio of the p99s, syncing ÷ idle.
func BenchmarkCallDuringSyncAlternating(b *testing.B) {
	const sessions, tools = 100, 1000
	const window, settle, pace = 100 * time.Millisecond, 20 * time.Millisecond, 5 * time.Millisecond
	ctx := context.Background()
	hs, reg := handsScaleServer(tools)
	f := newScaleFixture(ctx, handsServe(hs), sessions, 1)
	defer f.close()
	start := time.Now()
	// syncing reports whether the window at t has Syncs, and whether t is
	// past the settling time of its window.
	syncing := func(t time.Time) (on, settled bool) {
		d := t.Sub(start)
		return (d/window)%2 == 1, d%window >= settle
	}
	stop := make(chan struct{})
	var syncs atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		ticker := time.NewTicker(pace)
		defer ticker.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case now := <-ticker.C:
				if on, _ := syncing(now); !on {
					continue
				}
			}
			t := tool.New(fmt.Sprintf("added_%d_%d", b.N, i), "Echo a text.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil })
			if err := reg.Add(&tool.Scope{Name: "added", Tools: []tool.Interface{t}}); err != nil {
				panic(err)
			}
			hs.Sync(ctx)
			syncs.Add(1)
		}
	})
	var took [2][]time.Duration // idle, syncing
	b.ReportAllocs()
	for b.Loop() {
		begin := time.Now()
		call(b, f.callers[0])
		d := time.Since(begin)
		if on, settled := syncing(begin); settled {
			i := 0
			if on {
				i = 1
			}
			took[i] = append(took[i], d)
		}
	}
	close(stop)
	wg.Wait()
	if len(took[0]) < 100 || len(took[1]) < 100 {
		b.Logf("too few calls for a p99: %d idle, %d syncing", len(took[0]), len(took[1]))
		return
	}
	var p99 [2]float64
	for i := range took {
		slices.Sort(took[i])
		p99[i] = float64(took[i][len(took[i])*99/100])
	}
	b.ReportMetric(float64(took[0][len(took[0])/2]), "idle-p50-ns")
	b.ReportMetric(float64(took[1][len(took[1])/2]), "syncing-p50-ns")
	b.ReportMetric(p99[0], "idle-p99-ns")
	b.ReportMetric(p99[1], "syncing-p99-ns")
	b.ReportMetric(p99[1]/p99[0], "p99-ratio")
	b.ReportMetric(float64(syncs.Load())/float64(len(took[1])), "syncs/call")
}

// BenchmarkAddSync adds one tool to a served registry of 1000 tools and
// runs Sync, as a gateway does for each tool its upstream adds. An
// iteration is one Add and one Sync.
func BenchmarkAddSync(b *testing.B) {
	ctx := context.Background()
	hs, reg := handsScaleServer(1000)
	f := newScaleFixture(ctx, handsServe(hs), 10, 1)
	defer f.close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		t := tool.New(fmt.Sprintf("added_%d", i), "Echo a text.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil })
		i++
		if err := reg.Add(&tool.Scope{Name: "added", Tools: []tool.Interface{t}}); err != nil {
			b.Fatal(err)
		}
		hs.Sync(ctx)
	}
}

// BenchmarkIdleSync runs a Sync that has nothing to do, on a server of
// 1000 tools with 10 sessions that listed them.
func BenchmarkIdleSync(b *testing.B) {
	ctx := context.Background()
	hs, _ := handsScaleServer(1000)
	f := newScaleFixture(ctx, handsServe(hs), 10, 1)
	defer f.close()
	b.ReportAllocs()
	for b.Loop() {
		hs.Sync(ctx)
	}
}

// TestScaleFixture checks that both servers answer a call the same way
// with 20 sessions listed, and that the bare sessions were served their
// lists.
func TestScaleFixture(t *testing.T) {
	ctx := t.Context()
	hs, _ := handsScaleServer(20)
	for _, serve := range []serveFunc{handsServe(hs), sdkServe(sdkScaleServer(20))} {
		f := newScaleFixture(ctx, serve, 20, 2)
		for _, cs := range f.callers {
			call(t, cs)
			res, err := cs.ListTools(ctx, nil)
			if err != nil || len(res.Tools) != 20 {
				t.Errorf("ListTools = %d tools, %v; want 20", len(res.Tools), err)
			}
		}
		f.close()
	}
}

// TestScalePredicates checks that the predicate of a scale server with
// predicates depends on the caller: a client named blockedClient is listed
// no tools and cannot call them, while the fixture's sessions, bare and
// the SDK's, are listed and call every tool.
func TestScalePredicates(t *testing.T) {
	ctx := t.Context()
	hs, _ := handsScaleServerOf(20, true)
	f := newScaleFixture(ctx, handsServe(hs), 5, 2)
	defer f.close()
	for _, cs := range f.callers {
		call(t, cs)
		if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != 20 {
			t.Errorf("ListTools = %d tools, %v; want 20", len(res.Tools), err)
		}
	}
	st, ct := mcp.NewInMemoryTransports()
	wait := handsServe(hs)(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: blockedClient, Version: "v0.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); wait() }()
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != 0 {
		t.Errorf("ListTools for %q = %d tools, %v; want none", blockedClient, len(res.Tools), err)
	}
	if res, err := cs.CallTool(ctx, echoParams); err == nil && !res.IsError {
		t.Errorf("CallTool for %q = %+v, want it refused", blockedClient, res)
	}
}

// medians returns the median of each of two paths' timings, sorting them.
func medians(took [2][]time.Duration) [2]float64 {
	var p50 [2]float64
	for i := range took {
		slices.Sort(took[i])
		p50[i] = float64(took[i][len(took[i])/2])
	}
	return p50
}
