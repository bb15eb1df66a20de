package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
// --upstream, both on stdio, and returns a client session to each.
func gatewaySessions(tb testing.TB) (direct, gateway *mcp.ClientSession) {
	dir, err := gatewayBinaries()
	if err != nil {
		tb.Fatal(err)
	}
	connect := func(cmd *exec.Cmd) *mcp.ClientSession {
		cmd.Env = append(os.Environ(), "HANDS_BUCKET=mem://", "HANDS_PUBLIC_URL=https://files.invalid")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0.0.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { cs.Close() })
		return cs
	}
	echo := filepath.Join(dir, "echoserver")
	return connect(exec.Command(echo)), connect(exec.Command(filepath.Join(dir, "hands"), "serve", "--upstream", echo))
}

// TestGateway checks that the echo tool answers alike directly and
// through the gateway.
func TestGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hands and starts processes")
	}
	direct, gateway := gatewaySessions(t)
	call(t, direct)
	call(t, gateway)
}

// BenchmarkGateway calls the echo server's tool directly over stdio and
// through hands serve --upstream (a second stdio hop, with hands'
// validation), in turns, and reports each one's median and the ratio
// gateway ÷ direct of the medians. An iteration is two calls.
func BenchmarkGateway(b *testing.B) {
	direct, gateway := gatewaySessions(b)
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
}
