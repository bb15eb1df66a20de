package jsonrpcwire

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestInbox: a message handed in is read out; a done context is reported
// first; once closed, Read gives io.EOF and Hand reports false, a Hand
// waiting for a Read included.
func TestInbox(t *testing.T) {
	b := NewInbox()
	want := &jsonrpc.Request{Method: "ping"}
	go b.Hand(want, nil)
	if got, err := b.Read(t.Context()); err != nil || got != want {
		t.Fatalf("Read = %v, %v; want the message handed in", got, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := b.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a done context = %v, want context.Canceled", err)
	}
	b.Close()
	b.Close()
	if _, err := b.Read(t.Context()); err != io.EOF {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
	if b.Hand(want, nil) {
		t.Error("Hand after Close reported true")
	}

	b = NewInbox()
	handed := make(chan bool)
	go func() { handed <- b.Hand(want, nil) }()
	b.Close()
	if <-handed {
		t.Error("a Hand waiting when the Inbox closed reported true")
	}
}
