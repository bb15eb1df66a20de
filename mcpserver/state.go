package mcpserver

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
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
)

// A RequestStateError reports the request state of a tools/call that the
// server refuses. The client gets a JSON-RPC error (invalid params), and
// the tool does not run.
type RequestStateError struct {
	Tool string // the tool called
	Err  error  // ErrStateAltered, ErrStateExpired, ErrStateReplayed or ErrStateLimit
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

// A StateClaims records the request states used, so that each is used
// once. agent.SQLClaims and agent.DirClaims are ones that processes can
// share.
type StateClaims interface {
	// Claim records id as used. It reports true if this call claimed it,
	// and false if it was claimed before; of concurrent calls for one id,
	// exactly one reports true.
	Claim(ctx context.Context, id string) (bool, error)
}

// processStateKey is the key of a nil Options.StateKey: made at random,
// once per process.
var processStateKey = sync.OnceValue(func() []byte {
	key := make([]byte, StateKeyBytes)
	rand.Read(key) // never fails (crypto/rand)
	return key
})

// usedStates holds, in this process's memory, the IDs of the request
// states used and not yet expired, for the servers without StateClaims.
var usedStates = &stateMemory{callers: map[string]*callerStates{}}

// The shares of usedStates. A state opens only for the caller it was
// sealed for (binding), so each caller's states are checked for replay
// among its own, and a caller that has used its share is refused, as
// ErrStateLimit, until some expire, whoever else calls. The callers the
// server cannot tell apart (stateCaller's "") share one, larger share.
const (
	maxCallerStates    = 1 << 10 // a user's, or a session's
	maxAnonymousStates = 1 << 16 // the callers without a name, together
)

// minSweep is how many callers usedStates holds before it first drops
// those whose states have all expired.
const minSweep = 1 << 10

// A stateMemory remembers the request states used until they expire, by
// caller.
type stateMemory struct {
	mu      sync.Mutex
	callers map[string]*callerStates
	swept   int // how many callers were left at the last sweep
}

// A callerStates is the share of one caller.
type callerStates struct {
	ids         map[string]time.Time // expiry by ID
	first, last time.Time            // the earliest and the latest expiry in ids
	session     bool                 // dropped when the session ends, not swept
}

// claim records id, used by caller, until exp, and returns nil if it was
// new, ErrStateReplayed if it was used before, and ErrStateLimit if the
// caller's share is full. ss is the session when the caller is one: its
// share is dropped when the session ends, since its states open in no
// other. What a claim costs does not grow with the number of callers.
func (m *stateMemory) claim(caller string, ss *mcp.ServerSession, id string, exp, now time.Time) error {
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
	limit := maxCallerStates
	if caller == "" {
		limit = maxAnonymousStates
	}
	if len(c.ids) >= limit && !now.Before(c.first) {
		c.first = time.Time{}
		for k, e := range c.ids {
			if !now.Before(e) {
				delete(c.ids, k)
			} else if c.first.IsZero() || e.Before(c.first) {
				c.first = e
			}
		}
	}
	if len(c.ids) >= limit {
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

// A stateSealer seals and opens the request states of one server.
type stateSealer struct {
	aead   cipher.AEAD
	ttl    time.Duration
	claims StateClaims // nil: usedStates
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
	ID      string            `json:"id"`    // random, for the replay check
	Expires int64             `json:"exp"`   // Unix seconds
	Asked   string            `json:"asked"` // the key of the input request made with it
	Answers []json.RawMessage `json:"answers,omitempty"`
	Asks    []string          `json:"asks,omitempty"`
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
	id := make([]byte, 16)
	rand.Read(id)
	st := sealedState{ID: hex.EncodeToString(id), Expires: now.Add(s.ttl).Unix(), Asked: asked, Answers: a.List, Asks: a.Asks}
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
	return &inputAnswers{List: st.Answers, Asks: st.Asks, asked: st.Asked}, nil
}
