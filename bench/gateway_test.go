package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// builtDir holds the binaries gatewayBinaries built, if it ran.
var builtDir string

// gatewayBinaries builds hands and the echo server once, into a
// directory of their own.
var gatewayBinaries = sync.OnceValues(func() (dir string, err error) {
	dir, err = os.MkdirTemp("", "hands-gateway-bench")
	if err != nil {
		return "", err
	}
	builtDir = dir
	for _, build := range [][]string{
		{"go", "build", "-o", filepath.Join(dir, "echoserver"), "./internal/echoserver"},
		{"go", "build", "-C", "..", "-o", filepath.Join(dir, "hands"), "./cmd/hands"},
	} {
		cmd := exec.Command(build[0], build[1:]...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return "", err
		}
	}
	return dir, nil
})

// TestMain removes the binaries that the gateway's tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// gatewaySessions starts the echo server directly and through hands serve
// --upstream, both on stdio, and returns a client session to each, with
// the process of each server.
func gatewaySessions(tb testing.TB) (direct, gateway *mcp.ClientSession, processes [2]*os.Process) {
	dir, err := gatewayBinaries()
	if err != nil {
		tb.Fatal(err)
	}
	echo := filepath.Join(dir, "echoserver")
	direct, processes[0] = connectCommand(tb, exec.Command(echo))
	gateway, processes[1] = connectCommand(tb, exec.Command(filepath.Join(dir, "hands"), "serve", "--upstream", echo))
	return direct, gateway, processes
}

// connectCommand starts cmd, a server on stdio, and returns a client
// session to it and its process.
func connectCommand(tb testing.TB, cmd *exec.Cmd) (*mcp.ClientSession, *os.Process) {
	cmd.Env = append(os.Environ(), "HANDS_BUCKET=mem://", "HANDS_PUBLIC_URL=https://files.invalid")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs, cmd.Process
}

// processCPU returns the CPU time, user and system, that a process has
// used so far, from /proc on Linux (in clock ticks of 10 ms, which is
// what Linux reports to every process, whatever the kernel's own tick),
// and false elsewhere.
func processCPU(p *os.Process) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid))
	if err != nil {
		return 0, false
	}
	// The command's name, in parentheses, may hold spaces: the fields
	// counted are those after it, state first.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, false
	}
	fields := strings.Fields(string(data[end+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(fields[11], 10, 64)
	system, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+system) * 10 * time.Millisecond, true
}

// TestGateway checks that the echo tool answers alike directly and
// through the gateway, and that the servers' CPU time can be read where
// the benchmark reports it.
func TestGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hands and starts processes")
	}
	direct, gateway, processes := gatewaySessions(t)
	call(t, direct)
	call(t, gateway)
	if runtime.GOOS == "linux" {
		for _, p := range processes {
			if _, ok := processCPU(p); !ok {
				t.Errorf("the CPU time of process %d cannot be read", p.Pid)
			}
		}
	}
}

// BenchmarkGateway calls the echo server's tool directly over stdio and
// through hands serve --upstream (a second stdio hop, with hands'
// validation), in turns, and reports each one's median and the ratio
// gateway ÷ direct of the medians. An iteration is two calls. On Linux
// it also reports the CPU time that the echo server and hands' process
// spend on a call of theirs (hands-cpu-us does not count the echo server
// behind it).
func BenchmarkGateway(b *testing.B) {
	direct, gateway, processes := gatewaySessions(b)
	cs := [2]*mcp.ClientSession{direct, gateway}
	var took [2][]time.Duration
	one := func(i int) {
		start := time.Now()
		call(b, cs[i])
		took[i] = append(took[i], time.Since(start))
	}
	one(0)
	one(1)
	took = [2][]time.Duration{}
	cpu := cpuCounter(processes[:])
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		one(n % 2)
		one(1 - n%2)
		n++
	}
	p50 := medians(took)
	b.ReportMetric(p50[0], "direct-p50-ns")
	b.ReportMetric(p50[1], "gateway-p50-ns")
	b.ReportMetric(p50[1]/p50[0], "p50-ratio")
	if spent, ok := cpu(); ok {
		b.ReportMetric(float64(spent[0].Microseconds())/float64(n), "echo-cpu-us")
		b.ReportMetric(float64(spent[1].Microseconds())/float64(n), "hands-cpu-us")
	}
}

// cpuCounter returns a function that reports the CPU time each process
// has used since cpuCounter was called, or false where that cannot be
// read.
func cpuCounter(processes []*os.Process) func() ([]time.Duration, bool) {
	start := make([]time.Duration, len(processes))
	for i, p := range processes {
		start[i], _ = processCPU(p)
	}
	return func() ([]time.Duration, bool) {
		spent := make([]time.Duration, len(processes))
		for i, p := range processes {
			now, ok := processCPU(p)
			if !ok {
				return nil, false
			}
			spent[i] = now - start[i]
		}
		return spent, true
	}
}

// BenchmarkGatewayPair compares two builds of hands as gateways: the echo
// server directly and through two hands serve --upstream processes, the
// hands binaries named by HANDS_BENCH_A and HANDS_BENCH_B (each the one
// built from this tree when unset), called in turns in every order. Two
// builds measured in one process meet the same moments of a shared
// machine, which two benchmark runs one after the other do not. It
// reports the ratio of each gateway's median to the direct call's, and on
// Linux the CPU time each hands process spends on a call of its own. An
// iteration is three calls.
func BenchmarkGatewayPair(b *testing.B) {
	dir, err := gatewayBinaries()
	if err != nil {
		b.Fatal(err)
	}
	echo := filepath.Join(dir, "echoserver")
	handsBinary := func(env string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		return filepath.Join(dir, "hands")
	}
	var cs [3]*mcp.ClientSession
	var processes [3]*os.Process
	cs[0], processes[0] = connectCommand(b, exec.Command(echo))
	cs[1], processes[1] = connectCommand(b, exec.Command(handsBinary("HANDS_BENCH_A"), "serve", "--upstream", echo))
	cs[2], processes[2] = connectCommand(b, exec.Command(handsBinary("HANDS_BENCH_B"), "serve", "--upstream", echo))
	for _, s := range cs {
		call(b, s)
	}
	var took [3][]time.Duration
	orders := [][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}
	cpu := cpuCounter(processes[1:])
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, i := range orders[n%len(orders)] {
			start := time.Now()
			call(b, cs[i])
			took[i] = append(took[i], time.Since(start))
		}
		n++
	}
	var p50 [3]float64
	for i := range took {
		slices.Sort(took[i])
		p50[i] = float64(took[i][len(took[i])/2])
	}
	b.ReportMetric(p50[0], "direct-p50-ns")
	b.ReportMetric(p50[1]/p50[0], "A-p50-ratio")
	b.ReportMetric(p50[2]/p50[0], "B-p50-ratio")
	if spent, ok := cpu(); ok {
		b.ReportMetric(float64(spent[0].Microseconds())/float64(n), "A-cpu-us")
		b.ReportMetric(float64(spent[1].Microseconds())/float64(n), "B-cpu-us")
	}
}
