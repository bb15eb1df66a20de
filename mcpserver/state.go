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
)

// A RequestStateError reports the request state of a tools/call that the
// server refuses. The client gets a JSON-RPC error (invalid params), and
// the tool does not run.
type RequestStateError struct {
	Tool string // the tool called
	Err  error  // ErrStateAltered, ErrStateExpired or ErrStateReplayed
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
var usedStates = &stateMemory{ids: map[string]time.Time{}}

// maxUsedStates bounds usedStates: past it, once the expired are dropped,
// a state is refused as if replayed rather than remembered, so memory
// stays bounded whatever clients send.
const maxUsedStates = 1 << 16

// A stateMemory remembers the request states used until they expire.
type stateMemory struct {
	mu  sync.Mutex
	ids map[string]time.Time // expiry by ID
}

// claim records id until exp, and reports whether it was new.
func (m *stateMemory) claim(id string, exp, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.ids[id]; ok {
		return false
	}
	if len(m.ids) >= maxUsedStates {
		for k, e := range m.ids {
			if !now.Before(e) {
				delete(m.ids, k)
			}
		}
		if len(m.ids) >= maxUsedStates {
			return false
		}
	}
	m.ids[id] = exp
	return true
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
	return fmt.Appendf(nil, "hands mcpserver request state v1\x00%s\x00%s\x00%x", req.Params.Name, stateCaller(ctx, req), sum)
}

// stateCaller names who makes a call, as far as a request state is bound
// to it: the user of a verified token, else the session of a stateful
// connection, else nobody in particular.
func stateCaller(ctx context.Context, req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return "user " + req.Extra.TokenInfo.UserID
	}
	if _, stateless := ctx.Value(httpRequestKey{}).(context.Context); !stateless && req.Session != nil && req.Session.ID() != "" {
		return "session " + req.Session.ID()
	}
	return ""
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
// expired, and that it was not used before.
func (s *stateSealer) open(ctx context.Context, tool, state string, ad []byte, now time.Time) (*inputAnswers, error) {
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
		ok = fresh
	} else {
		ok = usedStates.claim(st.ID, exp, now)
	}
	if !ok {
		return refuse(ErrStateReplayed)
	}
	return &inputAnswers{List: st.Answers, Asks: st.Asks, asked: st.Asked}, nil
}
