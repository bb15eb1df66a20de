package mcpserver

import (
	"container/heap"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/hands-go/hands/claims"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Errors that a *RequestStateError wraps.
var (
	// ErrStateAltered reports a request state this server did not seal
	// for this call: forged, changed, sealed under another key, or issued
	// for another tool, other arguments or another caller.
	ErrStateAltered = errors.New("mcpserver: the request state is not one this server issued for this call")
	// ErrStateExpired reports a request state older than Options.StateTTL.
	ErrStateExpired = errors.New("mcpserver: the request state has expired")
	// ErrStateReplayed reports a request state that was used before: each
	// is good for one retry of the call.
	ErrStateReplayed = errors.New("mcpserver: the request state was used before")
	// ErrStateLimit reports a request state refused because its caller
	// has used, within the states' TTL, as many as the server remembers
	// for one caller (without Options.StateClaims, which has no such
	// bound). Other callers are not affected.
	ErrStateLimit = errors.New("mcpserver: the caller has used its share of request states; they are remembered until they expire, and the call can start over then")
	// ErrStateOverrun reports a request state of a caller the server
	// cannot tell apart from others (no verified user, no session) that it
	// no longer knows to be unused: since it was issued, more states of
	// such callers were used than the process remembers, and it forgot
	// the oldest (without Options.StateClaims, which has no such bound).
	ErrStateOverrun = errors.New("mcpserver: since this request state was issued, more request states of callers without a user or a session were used than the server remembers (1,048,576); the call can start over")
)

// A RequestStateError reports the request state of a tools/call that the
// server refuses. The client gets a JSON-RPC error (invalid params), and
// the tool does not run.
type RequestStateError struct {
	Tool string // the tool called
	Err  error  // ErrStateAltered, ErrStateExpired, ErrStateReplayed, ErrStateLimit or ErrStateOverrun
}

// Error says what is wrong, and names the tool.
func (e *RequestStateError) Error() string {
	return fmt.Sprintf("%v (tools/call %s)", e.Err, e.Tool)
}

// Unwrap returns Err.
func (e *RequestStateError) Unwrap() error { return e.Err }

// DefaultStateTTL is how long a request state is accepted when
// Options.StateTTL is zero.
const DefaultStateTTL = 10 * time.Minute

// StateKeyBytes is the length of Options.StateKey: an AES-256 key.
const StateKeyBytes = 32

// processStateKey is the key of a nil Options.StateKey: made at random,
// once per process.
var processStateKey = sync.OnceValue(func() []byte {
	key := make([]byte, StateKeyBytes)
	rand.Read(key) // never fails (crypto/rand)
	return key
})

// usedStates holds, in this process's memory, the IDs of the request
// states used and not yet expired, for the servers without StateClaims.
var usedStates = newStateMemory()

// newStateMemory returns an empty memory with the bounds below.
func newStateMemory() *stateMemory {
	return &stateMemory{callers: map[string]*callerStates{}, anonymous: anonymousStates{limit: maxAnonymousStates}}
}

// The bounds of usedStates. A state opens only for the caller it was
// sealed for (binding), so each caller's states are checked for replay
// among its own. A caller the server can tell apart holds a share, and
// once it has used its share it is refused, as ErrStateLimit, until some
// expire, whoever else calls. The callers it cannot tell apart
// (stateCaller's "") are not given a share that one of them could fill
// for all: their states are remembered together up to
// maxAnonymousStates, and past that the memory forgets those that expire
// first and refuses, as ErrStateOverrun, any state that expires no later
// than one it forgot. A state is refused so only once that many others
// that expire no earlier (with one StateTTL: issued in the same second or
// later) were used before it.
const (
	maxCallerStates    = 1 << 10 // a user's, or a session's
	maxAnonymousStates = 1 << 20 // the callers without a name, together
)

// minSweep is how many callers usedStates holds before it first drops
// those whose states have all expired.
const minSweep = 1 << 10

// A stateMemory remembers the request states used until they expire, by
// caller.
type stateMemory struct {
	mu        sync.Mutex
	callers   map[string]*callerStates
	swept     int             // how many callers were left at the last sweep
	anonymous anonymousStates // the states of caller ""
}

// A callerStates is the share of one caller.
type callerStates struct {
	ids         map[string]time.Time // expiry by ID
	first, last time.Time            // the earliest and the latest expiry in ids
	session     bool                 // dropped when the session ends, not swept
}

// claim records id, used by caller, until exp, and returns nil if it was
// new, ErrStateReplayed if it was used before, ErrStateLimit if the
// caller's share is full, and, for caller "", ErrStateOverrun if the
// memory forgot states that expire no earlier. ss is the session when the
// caller is one: its share is dropped when the session ends, since its
// states open in no other. What a claim costs does not grow with the
// number of callers, nor with the states they used.
func (m *stateMemory) claim(caller string, ss *mcp.ServerSession, id string, exp, now time.Time) error {
	if caller == "" {
		return m.anonymous.claim(id, exp, now)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.callers[caller]
	if c == nil {
		m.sweep(now)
		c = &callerStates{ids: map[string]time.Time{}, session: ss != nil}
		m.callers[caller] = c
		if ss != nil {
			go func() {
				ss.Wait()
				m.forget(caller)
			}()
		}
	}
	if _, ok := c.ids[id]; ok {
		return ErrStateReplayed
	}
	if len(c.ids) >= maxCallerStates && !now.Before(c.first) {
		c.first = time.Time{}
		for k, e := range c.ids {
			if !now.Before(e) {
				delete(c.ids, k)
			} else if c.first.IsZero() || e.Before(c.first) {
				c.first = e
			}
		}
	}
	if len(c.ids) >= maxCallerStates {
		return ErrStateLimit
	}
	c.ids[id] = exp
	if c.first.IsZero() || exp.Before(c.first) {
		c.first = exp
	}
	if exp.After(c.last) {
		c.last = exp
	}
	return nil
}

// sweep drops the callers, other than sessions, whose states have all
// expired, once the callers have doubled since the last sweep: a cost in
// the number of callers paid once for as many new ones.
func (m *stateMemory) sweep(now time.Time) {
	if len(m.callers) < max(2*m.swept, minSweep) {
		return
	}
	for caller, c := range m.callers {
		if !c.session && !now.Before(c.last) {
			delete(m.callers, caller)
		}
	}
	m.swept = len(m.callers)
}

// forget drops the share of caller.
func (m *stateMemory) forget(caller string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.callers, caller)
}

// An anonymousStates remembers the request states used by the callers
// the server cannot tell apart, at most limit of them, grouped by the
// second they expire in. A group is dropped whole: when its second has
// passed, and, while the memory holds limit states, the group that
// expires first, whose second then becomes the floor: a state that
// expires in it or before is refused, since it may be one forgotten. So
// the memory is bounded, a replay is refused whenever it comes, and a
// flood of states crowds out only states that expire no later than its
// own, once it has used limit of them.
type anonymousStates struct {
	mu      sync.Mutex
	limit   int
	seed    maphash.Seed
	groups  map[int64]*markSet // the marks of the states used, by the Unix second they expire
	seconds secondHeap         // the keys of groups, earliest first
	n       int                // how many marks groups holds
	floor   int64              // the latest second of a group dropped while unexpired
}

// claim records id, used until exp, and returns nil if it was new,
// ErrStateReplayed if it was used before, and ErrStateOverrun if it
// expires no later than a state the memory forgot. Its cost does not
// grow with the states held: a probe of one group, and, for a claim that
// opens a second or drops groups, a heap operation for each (in the
// number of seconds held, those of the TTL), paid once by each group.
func (a *anonymousStates) claim(id string, exp, now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.groups == nil {
		a.groups = map[int64]*markSet{}
		a.seed = maphash.MakeSeed()
	}
	for len(a.seconds) > 0 && a.seconds[0] <= now.Unix() {
		a.drop() // expired: a state of that second is refused as such
	}
	sec := exp.Unix()
	if sec <= a.floor {
		return ErrStateOverrun
	}
	// A keyed hash: the client does not choose a state's ID, and could
	// not aim at a mark if it did. Two IDs share a mark with odds of one
	// in 2⁶⁴, which would refuse the later as replayed.
	mark := max(maphash.String(a.seed, id), 1)
	if g := a.groups[sec]; g != nil && g.has(mark) {
		return ErrStateReplayed
	}
	for a.n >= a.limit {
		a.floor = a.seconds[0]
		a.drop()
		if sec <= a.floor {
			return ErrStateOverrun
		}
	}
	g := a.groups[sec]
	if g == nil {
		g = &markSet{}
		a.groups[sec] = g
		heap.Push(&a.seconds, sec)
	}
	g.add(mark)
	a.n++
	return nil
}

// drop forgets the group that expires first.
func (a *anonymousStates) drop() {
	sec := heap.Pop(&a.seconds).(int64)
	a.n -= a.groups[sec].n
	delete(a.groups, sec)
}

// A markSet is a set of nonzero 64-bit marks, kept in a table of a power
// of two slots, at least 8, at most 3/4 full and, once it has grown, at
// least 3/8 (open addressing, linear probing; the marks are hashes, so
// their low bits spread): 8 bytes a slot, at most 22 bytes a mark past
// the first 8 slots.
type markSet struct {
	slots []uint64 // 0: empty
	n     int      // the marks held
}

// has reports whether s holds mark.
func (s *markSet) has(mark uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := mark & mask; len(s.slots) > 0; i = (i + 1) & mask {
		switch s.slots[i] {
		case mark:
			return true
		case 0:
			return false
		}
	}
	return false
}

// add puts mark, nonzero and not held, in s.
func (s *markSet) add(mark uint64) {
	if 4*(s.n+1) > 3*len(s.slots) {
		old := s.slots
		s.slots = make([]uint64, max(2*len(old), 8))
		s.n = 0
		for _, m := range old {
			if m != 0 {
				s.add(m)
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	i := mark & mask
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = mark
	s.n++
}

// A secondHeap is a min-heap of Unix seconds (container/heap).
type secondHeap []int64

func (h secondHeap) Len() int           { return len(h) }
func (h secondHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h secondHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *secondHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *secondHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// A stateSealer seals and opens the request states of one server.
type stateSealer struct {
	aead   cipher.AEAD
	ttl    time.Duration
	claims claims.Store // nil: usedStates
}

func newStateSealer(opts *Options) (*stateSealer, error) {
	key := opts.StateKey
	if key == nil {
		key = processStateKey()
	}
	if len(key) != StateKeyBytes {
		return nil, fmt.Errorf("mcpserver: Options.StateKey has %d bytes, want %d", len(key), StateKeyBytes)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	ttl := opts.StateTTL
	if ttl <= 0 {
		ttl = DefaultStateTTL
	}
	return &stateSealer{aead: aead, ttl: ttl, claims: opts.StateClaims}, nil
}

// stateVersion begins every sealed state.
const stateVersion = "hs1."

// A sealedState is what a request state holds inside its seal.
type sealedState struct {
	ID      string                     `json:"id"`    // random, for the replay check
	Expires int64                      `json:"exp"`   // Unix seconds
	Asked   string                     `json:"asked"` // the key of the input request made with it
	Answers []json.RawMessage          `json:"answers,omitempty"`
	Named   map[string]json.RawMessage `json:"named,omitempty"` // the answers to the requests the handler named, by key
	Asks    []string                   `json:"asks,omitempty"`
}

// binding returns the associated data of the state of a call: what the
// state is bound to, but does not carry.
func binding(ctx context.Context, req *mcp.CallToolRequest) []byte {
	args := jsontext.Value(append([]byte(nil), req.Params.Arguments...))
	if args.Canonicalize() != nil {
		args = jsontext.Value(req.Params.Arguments) // not JSON: bound byte for byte
	}
	sum := sha256.Sum256(args)
	caller, _ := stateCaller(ctx, req)
	return fmt.Appendf(nil, "hands mcpserver request state v1\x00%s\x00%s\x00%x", req.Params.Name, caller, sum)
}

// stateCaller names who makes a call, as far as a request state is bound
// to it: the user of a verified token, else the session of a stateful
// connection (returned too), else nobody in particular ("").
func stateCaller(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.ServerSession) {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return "user " + req.Extra.TokenInfo.UserID, nil
	}
	if _, stateless := ctx.Value(httpRequestKey{}).(context.Context); !stateless && req.Session != nil && req.Session.ID() != "" {
		return "session " + req.Session.ID(), req.Session
	}
	return "", nil
}

// seal returns the request state that carries a's answers for the call
// bound by ad, in a result that makes the input request with key asked.
func (s *stateSealer) seal(a *inputAnswers, asked string, ad []byte, now time.Time) string {
	st := sealedState{ID: claims.NewID(), Expires: now.Add(s.ttl).Unix(), Asked: asked, Answers: a.List, Named: a.Named, Asks: a.Asks}
	plain, err := json.Marshal(st)
	if err != nil {
		return "" // raw JSON answers the SDK encoded; cannot happen
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	rand.Read(nonce)
	return stateVersion + base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, ad))
}

// open returns the answers a request state carries, and the key of the
// input request made with it (in asked), once it has checked
// that this server sealed it for the call bound by ad, that it has not
// expired, and that it was not used before. caller and ss are the call's
// stateCaller, which ad binds.
func (s *stateSealer) open(ctx context.Context, tool, state string, ad []byte, caller string, ss *mcp.ServerSession, now time.Time) (*inputAnswers, error) {
	refuse := func(err error) (*inputAnswers, error) { return nil, &RequestStateError{Tool: tool, Err: err} }
	data, ok := strings.CutPrefix(state, stateVersion)
	if !ok {
		return refuse(ErrStateAltered)
	}
	sealed, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil || len(sealed) < s.aead.NonceSize() {
		return refuse(ErrStateAltered)
	}
	nonce, box := sealed[:s.aead.NonceSize()], sealed[s.aead.NonceSize():]
	plain, err := s.aead.Open(nil, nonce, box, ad)
	if err != nil {
		return refuse(ErrStateAltered)
	}
	var st sealedState
	if err := json.Unmarshal(plain, &st); err != nil || st.ID == "" {
		return refuse(ErrStateAltered)
	}
	exp := time.Unix(st.Expires, 0)
	if !now.Before(exp) {
		return refuse(ErrStateExpired)
	}
	if s.claims != nil {
		fresh, err := s.claims.Claim(ctx, st.ID)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: tools/call %s: claim the request state: %w", tool, err)
		}
		if !fresh {
			return refuse(ErrStateReplayed)
		}
	} else if err := usedStates.claim(caller, ss, st.ID, exp, now); err != nil {
		return refuse(err)
	}
	return &inputAnswers{List: st.Answers, Named: st.Named, Asks: st.Asks, asked: st.Asked}, nil
}
