// Command devserver runs a Temporal server for the end-to-end tests of
// package durable: in memory, on 127.0.0.1, on a port the system chooses,
// with one namespace registered.
//
// It prints one line on stdout, "<host:port> <namespace>", once the server
// accepts clients, and stops when its standard input closes or it receives
// an interrupt.
//
// It is its own module because the server needs go.opentelemetry.io/otel/log
// v0, while hands requires v1: the two cannot be built into one binary.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/server/temporaltest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devserver:", err)
		os.Exit(1)
	}
}

func run() (err error) {
	// NewServer without a testing.T panics on error; turn that into one.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("temporal server: %v", r)
		}
	}()
	ts := temporaltest.NewServer()
	fmt.Printf("%s %s\n", ts.GetFrontendHostPort(), ts.GetDefaultNamespace())

	stop := make(chan struct{}, 2)
	go func() {
		// The parent closes our stdin, or dies: either way, stop.
		io.Copy(io.Discard, os.Stdin)
		stop <- struct{}{}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		stop <- struct{}{}
	}()
	<-stop
	ts.Stop()
	return nil
}
