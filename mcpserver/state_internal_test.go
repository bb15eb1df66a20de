package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStateExpires: a request state is good until its TTL has passed from
// when it was issued, and no longer.
func TestStateExpires(t *testing.T) {
	s, err := newStateSealer(&Options{StateTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ad := []byte("call")
	t0 := time.Unix(1_800_000_000, 0)
	for _, tt := range []struct {
		after time.Duration
		want  error
	}{
		{59 * time.Second, nil},
		{time.Minute, ErrStateExpired},
		{time.Hour, ErrStateExpired},
	} {
		state := s.seal(&inputAnswers{Asks: []string{"yes"}}, "hands-ask-1", ad, t0)
		a, err := s.open(context.Background(), "t", state, ad, t0.Add(tt.after))
		if !errors.Is(err, tt.want) {
			t.Errorf("open after %v = %v, want %v", tt.after, err, tt.want)
		}
		if tt.want == nil && (a == nil || len(a.Asks) != 1 || a.Asks[0] != "yes" || a.asked != "hands-ask-1") {
			t.Errorf("open after %v = %+v, want the answers sealed", tt.after, a)
		}
	}
}

// TestStateKey: a state sealed under one key does not open under another,
// and a key of the wrong length is refused.
func TestStateKey(t *testing.T) {
	a, _ := newStateSealer(&Options{StateKey: make([]byte, StateKeyBytes)})
	other := make([]byte, StateKeyBytes)
	other[0] = 1
	b, _ := newStateSealer(&Options{StateKey: other})
	now := time.Now()
	state := a.seal(&inputAnswers{}, "hands-0", nil, now)
	if _, err := b.open(context.Background(), "t", state, nil, now); !errors.Is(err, ErrStateAltered) {
		t.Errorf("open under another key = %v, want ErrStateAltered", err)
	}
	if _, err := newStateSealer(&Options{StateKey: make([]byte, 16)}); err == nil {
		t.Error("newStateSealer accepted a 16-byte key")
	}
}

// TestUsedStatesBounded: the memory of used states holds at most
// maxUsedStates; when full, a new state is refused until old ones expire.
func TestUsedStatesBounded(t *testing.T) {
	m := &stateMemory{ids: map[string]time.Time{}}
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Minute)
	for i := range maxUsedStates {
		if !m.claim(string(rune(i))+"/"+time.Duration(i).String(), exp, now) {
			t.Fatalf("claim %d refused before the memory was full", i)
		}
	}
	if m.claim("one more", exp, now) {
		t.Error("a claim past maxUsedStates was accepted while none had expired")
	}
	if !m.claim("one more", exp.Add(time.Minute), exp) {
		t.Error("a claim once the others expired was refused")
	}
	if n := len(m.ids); n != 1 {
		t.Errorf("%d states remembered after the expired were dropped, want 1", n)
	}
}

// FuzzOpenState: whatever a client sends as request state, open neither
// panics nor accepts anything the server did not seal for the call. (The
// fuzzing processes each seal their own copy of the seed, so the one a
// process is given may be genuine but not its own: what open accepts must
// carry exactly what was sealed.)
func FuzzOpenState(f *testing.F) {
	s, err := newStateSealer(&Options{StateKey: make([]byte, StateKeyBytes)})
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	ad := []byte("call")
	sealed := s.seal(&inputAnswers{Asks: []string{"yes"}}, "hands-ask-1", ad, now)
	f.Add(sealed)
	f.Add(`{"asks":["yes"]}`)
	f.Add(stateVersion)
	f.Add(stateVersion + "AAAA")
	f.Add(sealed[:len(sealed)-1])
	f.Fuzz(func(t *testing.T, state string) {
		a, err := s.open(context.Background(), "t", state, ad, now)
		if err == nil && (len(a.Asks) != 1 || a.Asks[0] != "yes" || a.asked != "hands-ask-1" || len(a.List) != 0) {
			t.Fatalf("open(%q) = %+v, accepted a state the server did not seal", state, a)
		}
	})
}

// BenchmarkRequestState measures what a round of a multi round-trip call
// adds: sealing its request state, and opening it on the next round.
func BenchmarkRequestState(b *testing.B) {
	s, err := newStateSealer(&Options{StateKey: make([]byte, StateKeyBytes)})
	if err != nil {
		b.Fatal(err)
	}
	s.claims = claimAll{}
	a := &inputAnswers{List: []json.RawMessage{json.RawMessage(`{"action":"accept","content":{"account":"main"}}`)}, Asks: []string{"10"}}
	ad := []byte("hands mcpserver request state v1\x00transfer\x00\x00" + strings.Repeat("0", 64))
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		state := s.seal(a, "hands-ask-1", ad, now)
		if _, err := s.open(context.Background(), "transfer", state, ad, now); err != nil {
			b.Fatal(err)
		}
	}
}

// claimAll is a StateClaims that never refuses, so that a benchmark does
// not fill the process's memory of used states.
type claimAll struct{}

func (claimAll) Claim(context.Context, string) (bool, error) { return true, nil }

func TestNewPanicsOnAShortStateKey(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with a 16-byte StateKey did not panic")
		}
	}()
	New(nil, &Options{StateKey: make([]byte, 16)})
}
