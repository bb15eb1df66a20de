package mcpserver

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrTaskCallAltered reports a TaskCall that Server.RunTask refuses, and
// does not run: one that no server of its StateKey sealed as it is —
// forged, changed since in a field that grants authority, its seal
// missing, another call's, made under another key or for another purpose
// (a task handle, a request state) — or whose task in the store is of
// another owner or tool than the call says.
var ErrTaskCallAltered = errors.New("mcpserver: the task call is not one a server of this StateKey sealed for its task")

// taskCallVersion begins every seal of a task call.
const taskCallVersion = "hc1."

// taskCallPurpose begins what the seal of a task call covers, so that
// what the state key sealed for another purpose (a request state, a task
// handle), which covers other associated data, is never a task call's
// seal.
const taskCallPurpose = "hands mcpserver task call v1\x00"

// sealTaskCall sets call.Seal: an AES-256-GCM tag, under the state key,
// of no plaintext and of the associated data taskCallAD, with a random
// nonce — a MAC (GMAC) of every field but the seal, which leaves them
// readable.
func (r *taskRunner) sealTaskCall(call *TaskCall) error {
	ad, err := taskCallAD(call)
	if err != nil {
		return fmt.Errorf("mcpserver: seal the task call of %s: %w", call.Tool, err)
	}
	nonce := make([]byte, r.seal.NonceSize(), r.seal.NonceSize()+r.seal.Overhead())
	rand.Read(nonce)
	call.Seal = taskCallVersion + base64.RawURLEncoding.EncodeToString(r.seal.Seal(nonce, nonce, nil, ad))
	return nil
}

// openTaskCall returns nil if call.Seal is the seal, under the state key,
// of the call's other fields, and an error that matches
// ErrTaskCallAltered if not. A seal has one spelling: the one
// sealTaskCall writes.
func (r *taskRunner) openTaskCall(call *TaskCall) error {
	altered := fmt.Errorf("%w (task %q, tool %q, owner %q)", ErrTaskCallAltered, call.ID, call.Tool, call.Owner)
	data, ok := strings.CutPrefix(call.Seal, taskCallVersion)
	n := r.seal.NonceSize() + r.seal.Overhead()
	if !ok || len(data) != base64.RawURLEncoding.EncodedLen(n) {
		return altered
	}
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(data)
	if err != nil || len(sealed) != n {
		return altered
	}
	ad, err := taskCallAD(call)
	if err != nil {
		return altered
	}
	if _, err := r.seal.Open(nil, sealed[:r.seal.NonceSize()], sealed[r.seal.NonceSize():], ad); err != nil {
		return altered
	}
	return nil
}

// taskCallAD returns what the seal of call covers: taskCallPurpose, then
// each field of the call that grants authority in a fixed order, each
// length-prefixed or of fixed form, so that no two calls share it — and
// so that a call carried as JSON, by any faithful encoder, shares it with
// the call sealed. Strings are bound byte for byte; the arguments, and
// the token's extra claims, as the JSON values they are (appendJSON); the
// token's expiry as an instant, whatever its zone or monotonic reading;
// durations as nanoseconds.
func taskCallAD(call *TaskCall) ([]byte, error) {
	b := make([]byte, 0, len(taskCallPurpose)+len(call.ID)+len(call.Owner)+len(call.Tool)+len(call.Arguments)+128)
	b = append(b, taskCallPurpose...)
	b = appendString(b, call.ID)
	b = appendString(b, call.Owner)
	b = appendString(b, call.Tool)
	b = appendJSON(b, call.Arguments, false)
	if tok := call.Token; tok == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendString(b, tok.UserID)
		b = binary.AppendUvarint(b, uint64(len(tok.Scopes)))
		for _, s := range tok.Scopes {
			b = appendString(b, s)
		}
		b = binary.AppendVarint(b, tok.Expiration.Unix())
		b = binary.AppendVarint(b, int64(tok.Expiration.Nanosecond()))
		extra := []byte("{}") // none: nil and empty alike, as encoders differ on them
		if len(tok.Extra) > 0 {
			var err error
			if extra, err = json.Marshal(tok.Extra); err != nil {
				return nil, fmt.Errorf("the token's extra claims: %w", err)
			}
		}
		b = appendJSON(b, extra, true)
	}
	b = binary.AppendVarint(b, int64(call.TTL))
	b = binary.AppendVarint(b, int64(call.Lease))
	return b, nil
}

// appendString appends s, prefixed with its length.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendJSON appends the JSON value v in the form every faithful copy of
// it shares: without whitespace, each string in its shortest escaping
// (an encoder may escape <, >, & or U+2028, or not). Raw JSON such as the
// arguments (values false), which a copy carries as written and a tool
// decodes as it likes, keeps its numbers as written, to the last digit,
// and its members in order. A value decoded into an any (values true),
// as the token's extra claims are, is bound as such a value reads:
// numbers as the float64 it holds, members sorted by name (RFC 8785), so
// that an int64 claim written and read back as a float64 keeps its seal,
// and any value that reads back different breaks it. What is not strict
// JSON (invalid, with a duplicate name or invalid UTF-8; no arguments) is
// appended byte for byte, tagged apart.
func appendJSON(b, v []byte, values bool) []byte {
	c := jsontext.Value(bytes.Clone(v))
	var err error
	if values {
		err = c.Canonicalize()
	} else {
		err = c.Format()
	}
	if len(v) == 0 || err != nil {
		return appendString(append(b, 'r'), string(v))
	}
	return appendString(append(b, 'j'), string(c))
}
