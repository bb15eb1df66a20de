package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
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
		a, err := s.open(context.Background(), "t", state, ad, "", nil, t0.Add(tt.after))
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
	if _, err := b.open(context.Background(), "t", state, nil, "", nil, now); !errors.Is(err, ErrStateAltered) {
		t.Errorf("open under another key = %v, want ErrStateAltered", err)
	}
	if _, err := newStateSealer(&Options{StateKey: make([]byte, 16)}); err == nil {
		t.Error("newStateSealer accepted a 16-byte key")
	}
}

// TestUsedStatesBounded: the memory of used states holds at most a share
// for each caller; when a caller's is full, its new states are refused
// until old ones expire, and other callers' are not.
func TestUsedStatesBounded(t *testing.T) {
	m := &stateMemory{callers: map[string]*callerStates{}}
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Minute)
	for _, caller := range []string{"user mallory", ""} {
		limit := maxCallerStates
		if caller == "" {
			limit = maxAnonymousStates
		}
		for i := range limit {
			if err := m.claim(caller, nil, strconv.Itoa(i), exp, now); err != nil {
				t.Fatalf("claim %d of %q: %v, before its share was full", i, caller, err)
			}
		}
		if err := m.claim(caller, nil, "one more", exp, now); !errors.Is(err, ErrStateLimit) {
			t.Errorf("a claim of %q past its share while none had expired: %v, want ErrStateLimit", caller, err)
		}
		if err := m.claim(caller, nil, "0", exp, now); !errors.Is(err, ErrStateReplayed) {
			t.Errorf("a claim of %q of a state it used: %v, want ErrStateReplayed", caller, err)
		}
	}
	if err := m.claim("user ada", nil, "0", exp, now); err != nil {
		t.Errorf("ada's claim, with the other shares full: %v", err)
	}
	if err := m.claim("user mallory", nil, "one more", exp.Add(time.Minute), exp); err != nil {
		t.Errorf("a claim once the others expired: %v", err)
	}
	if n := len(m.callers["user mallory"].ids); n != 1 {
		t.Errorf("%d states remembered after the expired were dropped, want 1", n)
	}
}

// TestUsedStatesSweep: the callers whose states have all expired are
// dropped, once enough callers have come.
func TestUsedStatesSweep(t *testing.T) {
	m := &stateMemory{callers: map[string]*callerStates{}}
	now := time.Unix(1_800_000_000, 0)
	for i := range minSweep {
		m.claim("user "+strconv.Itoa(i), nil, "s", now.Add(time.Minute), now)
	}
	later := now.Add(time.Hour)
	if err := m.claim("user late", nil, "s", later.Add(time.Minute), later); err != nil {
		t.Fatal(err)
	}
	if n := len(m.callers); n != 1 {
		t.Errorf("%d callers remembered after a sweep, want only the one whose state has not expired", n)
	}
}

// BenchmarkUsedStates measures a claim among the shares of many callers,
// each claim by the next caller in turn: its cost does not grow with how
// many there are.
func BenchmarkUsedStates(b *testing.B) {
	for _, n := range []int{1, 1000, 100_000} {
		b.Run("callers="+strconv.Itoa(n), func(b *testing.B) {
			m := &stateMemory{callers: map[string]*callerStates{}}
			now := time.Unix(1_800_000_000, 0)
			callers := make([]string, n)
			for i := range callers {
				callers[i] = "user " + strconv.Itoa(i)
				m.claim(callers[i], nil, "first", now.Add(time.Hour), now)
			}
			ids := make([]string, 2*maxCallerStates)
			for i := range ids {
				ids[i] = strconv.Itoa(i)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// A caller's claims expire by its next round, and are
				// dropped once its share is full, so none is refused and
				// an ID comes back only once it has been dropped.
				round := i / n
				t := now.Add(time.Duration(round) * time.Second)
				if err := m.claim(callers[i%n], nil, ids[round%len(ids)], t.Add(time.Second), t); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
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
		a, err := s.open(context.Background(), "t", state, ad, "", nil, now)
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
		if _, err := s.open(context.Background(), "transfer", state, ad, "", nil, now); err != nil {
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
