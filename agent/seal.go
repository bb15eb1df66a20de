package agent

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hands-go/hands/claims"
)

// Errors that a *ResumeError wraps.
var (
	// ErrInterruptAltered reports an interrupt that Resume did not make
	// with its key, or that was changed since: a call's arguments or
	// tool, an approval, a decision, the history — any byte of what the
	// run recorded. Nothing runs.
	ErrInterruptAltered = errors.New("agent: the interrupt was changed or sealed with another key")
	// ErrInterruptClaimed reports an interrupt that was resumed already,
	// in this process or in another sharing the claim store. Nothing runs.
	ErrInterruptClaimed = errors.New("agent: the interrupt was resumed already")
	// ErrInterruptExpired reports an interrupt resumed after its Expires
	// (see Options.PauseTTL). Nothing runs.
	ErrInterruptExpired = errors.New("agent: the interrupt has expired")
)

// A ResumeError reports an interrupt that Resume refuses as a whole.
type ResumeError struct {
	// InterruptID is the interrupt's ID, as the interrupt gives it; with
	// ErrInterruptAltered it is not to be trusted.
	InterruptID string
	Err         error // ErrInterruptAltered, ErrInterruptExpired or ErrInterruptClaimed
}

// Error says what is wrong, and names the interrupt.
func (e *ResumeError) Error() string {
	return fmt.Sprintf("%v (interrupt %q)", e.Err, e.InterruptID)
}

// Unwrap returns Err.
func (e *ResumeError) Unwrap() error { return e.Err }

// MinPauseKeyBytes is the shortest Options.PauseKey accepted.
const MinPauseKeyBytes = 32

// processPauseKey is the key that seals interrupts when Options.PauseKey is
// nil: made at random, once per process.
var processPauseKey = sync.OnceValue(func() []byte {
	key := make([]byte, MinPauseKeyBytes)
	rand.Read(key) // never fails (crypto/rand)
	return key
})

// pauseKey returns the key that seals interrupts under opts.
func pauseKey(opts *Options) ([]byte, error) {
	if opts == nil || opts.PauseKey == nil {
		return processPauseKey(), nil
	}
	if len(opts.PauseKey) < MinPauseKeyBytes {
		return nil, fmt.Errorf("agent: Options.PauseKey has %d bytes, want at least %d", len(opts.PauseKey), MinPauseKeyBytes)
	}
	return opts.PauseKey, nil
}

// sealContext begins what the seal's MAC covers, so that a MAC made under
// the same key for another purpose is never a valid seal.
const sealContext = "hands agent interrupt v1\x00"

// seal gives in a new ID and an expiry ttl from now (none when ttl is
// zero), and seals it under key.
func (in *Interrupt) seal(key []byte, ttl time.Duration) error {
	in.ID = claims.NewID()
	if ttl > 0 {
		in.Expires = time.Now().Add(ttl).UTC().Round(0)
	}
	in.Seal = ""
	mac, err := in.mac(key)
	if err != nil {
		return fmt.Errorf("agent: seal the interrupt: %w", err)
	}
	in.Seal = base64.RawURLEncoding.EncodeToString(mac)
	return nil
}

// mac returns the MAC of everything in the interrupt but its seal: of its
// canonical encoding (see canonical).
func (in *Interrupt) mac(key []byte) ([]byte, error) {
	data, err := in.canonical(false)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(sealContext))
	m.Write(data)
	return m.Sum(nil), nil
}

// canonical returns the JSON encoding of the interrupt, less its seal, in
// the form it has after one trip through JSON. That form is the same for
// the interrupt the run made and for any faithful copy of it decoded from
// JSON: encoding/json writes raw JSON compacted, which stays as it is, and
// escapes <, >, &, U+2028 and U+2029 in strings every time, but it writes
// a string's invalid UTF-8 as \ufffd escapes that decode to a valid
// U+FFFD, which it then writes as is. So an encoding without "\ufffd" is
// already in that form, and only one with it (or with trip set) makes the
// trip. And whatever bytes a decoder accepted, this is the encoding of the
// value decoded, so parser quirks (duplicate or differently cased keys)
// cannot smuggle a change past a MAC of it.
func (in *Interrupt) canonical(trip bool) ([]byte, error) {
	c := *in
	c.Seal = ""
	data, err := json.Marshal(&c)
	if err != nil || !trip && !bytes.Contains(data, []byte(`\ufffd`)) {
		return data, err
	}
	var decoded Interrupt
	if err := json.Unmarshal(data, &decoded); err != nil {
		return nil, err
	}
	return json.Marshal(&decoded)
}

// Verify reports whether the interrupt is one a run sealed under key and
// unchanged since, as Resume checks before anything else: it returns nil,
// or a *ResumeError for ErrInterruptAltered. A nil key is this process's
// key, as with a nil Options.PauseKey. A program that shows a person the
// pending calls can verify first, so that what the person approves is what
// Resume runs.
func (in *Interrupt) Verify(key []byte) error {
	k, err := pauseKey(&Options{PauseKey: key})
	if err != nil {
		return err
	}
	return in.verify(k)
}

func (in *Interrupt) verify(key []byte) error {
	altered := &ResumeError{InterruptID: in.ID, Err: ErrInterruptAltered}
	got, err := base64.RawURLEncoding.DecodeString(in.Seal)
	if err != nil || len(got) != sha256.Size || !claims.ValidID(in.ID) {
		return altered
	}
	want, err := in.mac(key)
	if err != nil || !hmac.Equal(got, want) {
		return altered
	}
	return nil
}
