// Command devserver runs a Temporal server in memory, on 127.0.0.1, with
// one namespace: for the durable example (durable/examples/approval), for
// the tests of your own durable workers, and for durable's own tests. It
// keeps nothing: its runs are gone once it stops.
//
// Build it once, from the durable directory, into $(go env GOBIN) or else
// $(go env GOPATH)/bin; a cold build takes about 520 CPU-seconds (ten
// minutes on a busy machine of two cores) and 2.6 GB of memory, and later
// ones, with Go's build cache warm, only link it (about 12 CPU-seconds):
//
//	go install -C internal/devserver .
//
// Then start it in the background, where it stays, without the terminal,
// until it is killed; it returns once the server takes clients:
//
//	devserver -detach
//
// It prints one line on stdout, "<host:port> <namespace>" — by default
// "127.0.0.1:7233 default", the address and namespace a Temporal client
// takes by default — and, with -detach, the process to kill to stop it on
// stderr. Without -detach it runs in the foreground until it receives an
// interrupt or SIGTERM; it does not read its standard input, unless
// -exit-with-stdin makes it stop when that closes (durable's tests start
// it so, so that it never outlives them).
//
// Flags:
//
//	-addr host:port   where clients dial it; default $TEMPORAL_ADDRESS, or 127.0.0.1:7233;
//	                  empty for a port the system chooses
//	-namespace name   its namespace; default "default"; empty for a random one, which is
//	                  ready sooner
//	-detach           run in the background, in a session of its own
//	-exit-with-stdin  stop when standard input closes
//
// It is its own module because the server needs go.opentelemetry.io/otel/log
// v0, while hands requires v1: the two cannot be built into one binary.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/types/known/durationpb"
)

// detachedEnv marks the process that -detach starts: it reports its line,
// or why it could not start, on file descriptor 3 rather than stdout.
const detachedEnv = "HANDS_DEVSERVER_DETACHED"

func main() {
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if addr == "" {
		addr = "127.0.0.1:7233"
	}
	flag.StringVar(&addr, "addr", addr, "where clients dial the server; empty for a port the system chooses")
	namespace := flag.String("namespace", "default", "the server's namespace; empty for a random one")
	detach := flag.Bool("detach", false, "run in the background, in a session of its own, once the server takes clients")
	exitWithStdin := flag.Bool("exit-with-stdin", false, "stop when standard input closes")
	flag.Parse()

	var err error
	switch {
	case *detach:
		err = background(addr, *namespace)
	case os.Getenv(detachedEnv) != "":
		report := os.NewFile(3, "report")
		err = run(addr, *namespace, false, report)
		if err != nil {
			fmt.Fprintln(report, "devserver:", err)
		}
	default:
		err = run(addr, *namespace, *exitWithStdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "devserver:", err)
		os.Exit(1)
	}
}

// background starts the server in a process of its own, in a new session,
// with no terminal and its output discarded, and returns once it takes
// clients, having printed its line.
func background(addr, namespace string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, "-addr="+addr, "-namespace="+namespace)
	cmd.Env = append(os.Environ(), detachedEnv+"=1")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if strings.HasPrefix(line, "devserver:") || err != nil {
		cmd.Wait()
		return fmt.Errorf("the server did not start: %s", strings.TrimPrefix(strings.TrimSpace(line), "devserver: "))
	}
	fmt.Print(line)
	fmt.Fprintf(os.Stderr, "devserver: running in the background as process %d; stop it with: kill %d\n", cmd.Process.Pid, cmd.Process.Pid)
	return cmd.Process.Release()
}

// run runs the server until a signal, or the end of standard input when
// exitWithStdin is set, and writes its line to out once it takes clients.
func run(addr, namespace string, exitWithStdin bool, out io.Writer) (err error) {
	var l net.Listener
	if addr != "" { // take the address first: a server that cannot have it is no use
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
		defer l.Close()
	}
	// NewServer without a testing.T panics on error; turn that into one.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("temporal server: %v", r)
		}
	}()
	ts := temporaltest.NewServer()
	defer ts.Stop()
	hostPort, ns := ts.GetFrontendHostPort(), ts.GetDefaultNamespace()
	if namespace != "" && namespace != ns {
		if err := register(hostPort, namespace); err != nil {
			return err
		}
		ns = namespace
	}
	if l != nil {
		go forward(l, hostPort)
		hostPort = l.Addr().String()
	}

	stop := make(chan struct{}, 2)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		stop <- struct{}{}
	}()
	if exitWithStdin {
		go func() {
			// The parent closes our stdin, or dies: either way, stop.
			io.Copy(io.Discard, os.Stdin)
			stop <- struct{}{}
		}()
	}
	if _, err := fmt.Fprintf(out, "%s %s\n", hostPort, ns); err != nil {
		return err
	}
	if f, ok := out.(*os.File); ok && f != os.Stdout {
		f.Close() // the reader of a detached server's line is gone once it has it
	}
	<-stop
	return nil
}

// register registers namespace on the server at hostPort and waits until
// its frontend serves it, which takes up to the frontend's namespace
// refresh (10 seconds).
func register(hostPort, namespace string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := client.Options{HostPort: hostPort, Namespace: namespace, Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))}
	nc, err := client.NewNamespaceClient(opts)
	if err != nil {
		return err
	}
	defer nc.Close()
	err = nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{Namespace: namespace, WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	if err != nil {
		return fmt.Errorf("registering namespace %s: %w", namespace, err)
	}
	c, err := client.Dial(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		_, err := c.DescribeTaskQueue(ctx, "devserver", enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %s: %w", namespace, errors.Join(ctx.Err(), err))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// forward forwards the connections l accepts to the server at hostPort,
// until l is closed.
func forward(l net.Listener, hostPort string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", hostPort)
			if err != nil {
				return
			}
			defer s.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(s, c)
				s.(*net.TCPConn).CloseWrite()
				close(done)
			}()
			io.Copy(c, s)
			c.(*net.TCPConn).CloseWrite()
			<-done
		}()
	}
}
