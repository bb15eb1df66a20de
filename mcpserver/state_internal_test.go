package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
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
// for each caller it can tell apart; when a caller's is full, its new
// states are refused until old ones expire, and other callers' are not.
func TestUsedStatesBounded(t *testing.T) {
	m := newStateMemory()
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Minute)
	for i := range maxCallerStates {
		if err := m.claim("user mallory", nil, strconv.Itoa(i), exp, now); err != nil {
			t.Fatalf("claim %d: %v, before the share was full", i, err)
		}
	}
	if err := m.claim("user mallory", nil, "one more", exp, now); !errors.Is(err, ErrStateLimit) {
		t.Errorf("a claim past the share while none had expired: %v, want ErrStateLimit", err)
	}
	if err := m.claim("user mallory", nil, "0", exp, now); !errors.Is(err, ErrStateReplayed) {
		t.Errorf("a claim of a state used before: %v, want ErrStateReplayed", err)
	}
	if err := m.claim("user ada", nil, "0", exp, now); err != nil {
		t.Errorf("ada's claim, with mallory's share full: %v", err)
	}
	if err := m.claim("", nil, "0", exp, now); err != nil {
		t.Errorf("an anonymous claim, with mallory's share full: %v", err)
	}
	if err := m.claim("user mallory", nil, "one more", exp.Add(time.Minute), exp); err != nil {
		t.Errorf("a claim once the others expired: %v", err)
	}
	if n := len(m.callers["user mallory"].ids); n != 1 {
		t.Errorf("%d states remembered after the expired were dropped, want 1", n)
	}
}

// anonymousHeld returns how many states a holds, counted group by group,
// and fails t if that is not the count a keeps or a's groups and seconds
// differ.
func anonymousHeld(t *testing.T, a *anonymousStates) int {
	t.Helper()
	n := 0
	for _, g := range a.groups {
		n += g.n
	}
	if n != a.n || len(a.groups) != len(a.seconds) {
		t.Fatalf("the memory counts %d states in %d seconds; its groups hold %d in %d", a.n, len(a.seconds), n, len(a.groups))
	}
	return n
}

// TestAnonymousStatesBounded: however many states the callers without a
// name use, and however fast, the memory holds at most its limit of them.
// The flood is three times the limit, each state expiring
// DefaultStateTTL after its claim, at 64 claims a second (so that the
// oldest expire as it goes on) and all in one second. The memory of the
// process has the limit maxAnonymousStates.
func TestAnonymousStatesBounded(t *testing.T) {
	if l := newStateMemory().anonymous.limit; l != maxAnonymousStates {
		t.Fatalf("the memory's limit is %d, want %d", l, maxAnonymousStates)
	}
	const limit = 1 << 14
	t0 := time.Unix(1_800_000_000, 0)
	for _, perSecond := range []int{1 << 6, 3 * limit} {
		m := newStateMemory()
		m.anonymous.limit = limit
		for i := range 3 * limit {
			now := t0.Add(time.Duration(i/perSecond) * time.Second)
			if err := m.claim("", nil, strconv.Itoa(i), now.Add(DefaultStateTTL), now); err != nil && !errors.Is(err, ErrStateOverrun) {
				t.Fatalf("claim %d: %v", i, err)
			}
			if m.anonymous.n > limit {
				t.Fatalf("%d states remembered after %d claims, %d a second; want at most %d", m.anonymous.n, i+1, perSecond, limit)
			}
		}
		if n := anonymousHeld(t, &m.anonymous); n > limit {
			t.Errorf("%d states held after the flood, %d a second; want at most %d", n, perSecond, limit)
		}
	}
}

// TestAnonymousFloodCrowdsOutNoEarlierState: a flood of states of callers
// without a name does not crowd out a state that expires later than the
// flood's, however many it uses; it crowds one out (ErrStateOverrun) only
// once the memory's limit of states expiring in its second or later were
// used before it. A state used before is refused whether the memory still
// holds it (ErrStateReplayed) or forgot it (ErrStateOverrun), and expired
// states are dropped.
func TestAnonymousFloodCrowdsOutNoEarlierState(t *testing.T) {
	const limit = 1 << 10
	now := time.Unix(1_800_000_000, 0)
	honest := now.Add(10 * time.Minute) // the second the honest state expires
	m := newStateMemory()
	m.anonymous.limit = limit
	flood := func(i int) time.Time { return honest.Add(-time.Duration(5*limit-i) * time.Minute / limit) }
	for i := range 5 * limit {
		exp := flood(i)
		if err := m.claim("", nil, "flood "+strconv.Itoa(i), exp, now); err != nil && !errors.Is(err, ErrStateOverrun) {
			t.Fatalf("flood claim %d: %v", i, err)
		}
	}
	if err := m.claim("", nil, "flood 0", flood(0), now); !errors.Is(err, ErrStateOverrun) {
		t.Errorf("a replay of a state forgotten: %v, want ErrStateOverrun", err)
	}
	last := "flood " + strconv.Itoa(5*limit-1)
	if err := m.claim("", nil, last, flood(5*limit-1), now); !errors.Is(err, ErrStateReplayed) {
		t.Errorf("a replay of a state remembered: %v, want ErrStateReplayed", err)
	}
	if err := m.claim("", nil, "honest", honest, now); err != nil {
		t.Fatalf("a state expiring after %d others used, all earlier: %v", 5*limit, err)
	}
	if err := m.claim("", nil, "honest", honest, now); !errors.Is(err, ErrStateReplayed) {
		t.Errorf("the honest state used again: %v, want ErrStateReplayed", err)
	}

	// limit-1 states expiring with the next honest one or later leave it
	// room; one more crowds it out.
	next := honest.Add(time.Second)
	for i := range limit - 1 {
		exp := next.Add(time.Duration(i%3) * time.Second)
		if err := m.claim("", nil, "later "+strconv.Itoa(i), exp, now); err != nil {
			t.Fatalf("claim %d expiring no earlier than the next honest state: %v", i, err)
		}
	}
	if err := m.claim("", nil, "next", next, now); err != nil {
		t.Errorf("a state with %d others used expiring no earlier: %v", limit-1, err)
	}
	if err := m.claim("", nil, "crowded", next, now); !errors.Is(err, ErrStateOverrun) {
		t.Errorf("a state with %d others used expiring no earlier: %v, want ErrStateOverrun", limit, err)
	}
	if err := m.claim("", nil, "fresh", next.Add(time.Minute), now); err != nil {
		t.Errorf("a state expiring after those forgotten: %v", err)
	}
	if n := anonymousHeld(t, &m.anonymous); n > limit {
		t.Errorf("%d states held, want at most %d", n, limit)
	}

	// Once all have expired, none is held.
	if err := m.claim("", nil, "much later", now.Add(2*time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := anonymousHeld(t, &m.anonymous); n != 1 {
		t.Errorf("%d states held once the others expired, want 1", n)
	}
}

// TestUsedStatesSweep: the callers whose states have all expired are
// dropped, once enough callers have come.
func TestUsedStatesSweep(t *testing.T) {
	m := newStateMemory()
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
			m := newStateMemory()
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

// TestMarkSet: a markSet holds exactly the marks added, through its
// growth, and no more than 3/4 of its slots are full.
func TestMarkSet(t *testing.T) {
	var s markSet
	want := map[uint64]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		m := r.Uint64() | 1
		if i%7 == 0 {
			m = uint64(i)<<12 | 1 // alike in their low bits
		}
		if s.has(m) != want[m] {
			t.Fatalf("has(%x) = %v before add, want %v", m, s.has(m), want[m])
		}
		if !want[m] {
			s.add(m)
			want[m] = true
		}
		if 4*s.n > 3*len(s.slots) {
			t.Fatalf("%d marks in %d slots", s.n, len(s.slots))
		}
	}
	if s.n != len(want) {
		t.Errorf("n = %d, want %d", s.n, len(want))
	}
	for m := range want {
		if !s.has(m) {
			t.Errorf("has(%x) = false after add", m)
		}
	}
	for range 5000 {
		if m := r.Uint64() | 1; !want[m] && s.has(m) {
			t.Errorf("has(%x) = true, never added", m)
		}
	}
}

// BenchmarkAnonymousStates measures a claim of a caller without a name
// in a memory that holds n states, expiring over DefaultStateTTL (or, for
// fewer than 16 a second, 16 in each second), and is full, as in a flood:
// each claim is of a state expiring in the latest second, and the memory
// drops the earliest second's as it goes. Its cost does not grow with n.
func BenchmarkAnonymousStates(b *testing.B) {
	for _, n := range []int{1 << 10, 10_000, 1 << 16, maxAnonymousStates} {
		b.Run("held="+strconv.Itoa(n), func(b *testing.B) {
			m := newStateMemory()
			m.anonymous.limit = n
			now := time.Unix(1_800_000_000, 0)
			ttl := int(DefaultStateTTL / time.Second)
			perSecond := max(n/ttl, 16)
			ids := make([]string, 1<<16) // more than a second holds
			for i := range ids {
				ids[i] = fmt.Sprintf("%032x", i)
			}
			for i := range n {
				m.claim("", nil, ids[i%len(ids)], now.Add(time.Duration(1+i/perSecond)*time.Second), now)
			}
			b.ReportAllocs()
			i := n
			for b.Loop() {
				exp := now.Add(time.Duration(1+i/perSecond) * time.Second)
				if err := m.claim("", nil, ids[i%len(ids)], exp, now); err != nil {
					b.Fatal(err)
				}
				i++
			}
			if m.anonymous.n > n {
				b.Fatalf("%d states held, want at most %d", m.anonymous.n, n)
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

// claimAll is a claims.Store that never refuses, so that a benchmark does
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
