package tool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// MinResultBudget is the smallest result budget: room for the note that
// says what was cut and how to read the rest, and for some of the result.
// A smaller budget given to a Recipient is raised to it; WithResultBudget
// refuses one.
const MinResultBudget = 512

// DefaultResultTTL is how long the rest of a cut result stays readable
// when Budget.TTL is zero.
const DefaultResultTTL = time.Hour

// WithResultBudget bounds what one result of the tool shows a model to n
// bytes of UTF-8 text (see Budget), whatever the defaults of the registry,
// the MCP caller or the agent run: a tool that knows its results are
// large and worth reading whole raises its budget, one that knows they
// are noise lowers it. n must be at least MinResultBudget. It has effect
// where a Registry with budgets on (Registry.SetBudget) runs the call; a
// direct call (Call, CallJSON) always returns the whole output.
func WithResultBudget(n int) Option {
	return func(c *config) {
		if n < MinResultBudget {
			c.errs = append(c.errs, fmt.Errorf("WithResultBudget(%d): a budget must be at least MinResultBudget (%d) bytes", n, MinResultBudget))
			return
		}
		c.budget = n
	}
}

// A Budgeted is a tool that declares the budget of its results
// (WithResultBudget), in bytes; zero means none of its own. The tools of
// New and NewRaw are Budgeted, and so are mcpclient's, which take the
// upstream tool's anthropic/maxResultSizeChars.
type Budgeted interface {
	ResultBudget() int
}

// ResultBudget returns the budget WithResultBudget set; zero when the tool
// has none.
func (c *core) ResultBudget() int { return c.budget }

// A Budget turns a registry's result budgets on (Registry.SetBudget). A
// result over its budget is cut before it reaches the model: its text at
// a line or word boundary, its structured output along its output schema,
// its parts whole; the whole text is kept in Store under a handle, which
// the read_result tool pages through. What the Go program gets from a
// direct call is never cut.
//
// A call's budget, in bytes of the UTF-8 text the model reads, is the
// tool's own (WithResultBudget) when it declares one, else the budget of
// the call's Recipient (an MCP caller, an agent run) when it has one, else
// Default. A result within its budget passes unchanged, byte for byte.
type Budget struct {
	// Default bounds the results of the calls that no tool or recipient
	// gives a budget. Zero leaves them whole; otherwise it must be at
	// least MinResultBudget.
	Default int
	// Store keeps the whole text of each result that was cut. Nil selects
	// a new MemoryStore with its default bounds.
	Store ResultStore
	// TTL is how long a cut result's text stays readable. Zero selects
	// DefaultResultTTL.
	TTL time.Duration
}

// ReadResultName is the name of the tool that Registry.SetBudget adds, which
// pages through the text of a result that was cut.
const ReadResultName = "read_result"

// SetBudget turns result budgets on for every call the registry runs,
// whatever kind of tool answers it (see Budget), and adds the read_result
// tool, in a scope of its own named "results", the first time. It reports a
// *NameError when the registry already has a tool of that name, and an
// error for a Default below MinResultBudget; the registry is then left as
// it was. A later SetBudget replaces the budget; nil turns budgets off
// (read_result stays, and reads what is still kept).
func (r *Registry) SetBudget(b *Budget) error {
	if b == nil {
		r.budget.Store(nil)
		return nil
	}
	if b.Default != 0 && b.Default < MinResultBudget {
		return fmt.Errorf("tool: a budget's Default (%d) must be 0 or at least MinResultBudget (%d) bytes", b.Default, MinResultBudget)
	}
	if b.TTL < 0 {
		return fmt.Errorf("tool: a budget's TTL (%v) is negative", b.TTL)
	}
	st := &budgetState{Budget: *b}
	if st.Store == nil {
		st.Store = NewMemoryStore(nil)
	}
	if st.TTL == 0 {
		st.TTL = DefaultResultTTL
	}
	r.budgetMu.Lock()
	defer r.budgetMu.Unlock()
	if r.reader == nil {
		reader := newReadResult(r)
		if err := r.Add(&Scope{Name: "results", Tools: []Interface{reader}}); err != nil {
			return err
		}
		r.reader = reader
	}
	r.budget.Store(st)
	return nil
}

// Budget returns the registry's budget, as SetBudget set it with its
// defaults filled in, or nil when budgets are off.
func (r *Registry) Budget() *Budget {
	st := r.budget.Load()
	if st == nil {
		return nil
	}
	b := st.Budget
	return &b
}

// budgetState is a registry's budget, with its defaults filled in.
type budgetState struct{ Budget }

// A Recipient is who reads the results of the calls run with a context:
// the model of an agent run, or an MCP server's caller. A registry with
// budgets on cuts each result to the recipient's budget (unless the tool
// has its own), and binds the rest to the recipient's ID.
type Recipient struct {
	// ID names the recipient: the rest of a result cut for it can be read
	// with the handle by a recipient of the same ID only; any other gets
	// the answer a handle that never existed gets. "" is a recipient the
	// program cannot tell apart from others, for which the handle itself,
	// 128 random bits, is what grants the reading.
	ID string
	// Budget bounds the results of tools that declare no budget of their
	// own, in bytes. Zero leaves the registry's Default; a negative
	// budget leaves such results whole; a positive one below
	// MinResultBudget counts as MinResultBudget.
	Budget int
}

// recipientKey is the context key of a Recipient.
type recipientKey struct{}

// WithRecipient returns a context whose calls are read by rcpt: a
// registry's budgets and result handles take its budget and its ID.
func WithRecipient(ctx context.Context, rcpt Recipient) context.Context {
	return context.WithValue(ctx, recipientKey{}, rcpt)
}

// RecipientFrom returns the recipient of the calls run with ctx, and
// whether one was given.
func RecipientFrom(ctx context.Context) (Recipient, bool) {
	rcpt, ok := ctx.Value(recipientKey{}).(Recipient)
	return rcpt, ok
}

// budgetOf returns the budget of a result of the tool named name read by
// the recipient of ctx; 0 when it is not bounded.
func (r *Registry) budgetOf(ctx context.Context, st *budgetState, name string) int {
	if t, ok := r.Lookup(name); ok {
		if b, ok := t.(Budgeted); ok {
			if n := b.ResultBudget(); n > 0 {
				return n
			}
		}
	}
	if rcpt, ok := RecipientFrom(ctx); ok && rcpt.Budget != 0 {
		if rcpt.Budget < 0 {
			return 0
		}
		return max(rcpt.Budget, MinResultBudget)
	}
	return st.Default
}

// withinBudget applies the registry's budget to res, the result the model
// reads of a call: unchanged when budgets are off or res is within its
// budget, otherwise cut, with the whole text kept in the store.
func (r *Registry) withinBudget(ctx context.Context, res Result) Result {
	st := r.budget.Load()
	if st == nil {
		return res
	}
	budget := r.budgetOf(ctx, st, res.Tool)
	if budget <= 0 || !over(&res, budget) {
		return res
	}
	return r.cut(ctx, st, res, budget)
}

// over reports whether any form of res that a reader gets exceeds budget
// bytes: its text, its structured output, or its parts.
func over(res *Result, budget int) bool {
	return len(res.Content) > budget || len(res.Structured) > budget || partsBytes(res.Parts) > budget
}

// A Cut says how a result was cut to its budget, what was left out, and
// where the whole can be read. It is set on a Result that a registry cut
// (Result.Cut) and is nil on every other.
type Cut struct {
	// Budget is the budget the result was cut to, in bytes.
	Budget int `json:"budget"`
	// Size is the size of the whole text, in bytes: the Content the
	// result had before it was cut.
	Size int `json:"size"`
	// Shown is how many bytes at the start of the whole text the cut
	// Content shows as they are; the rest starts there. It is 0 when the
	// structured output was shortened, whose text is not a prefix.
	Shown int `json:"shown"`
	// Handle names the whole text for read_result; "" when it was not
	// kept (the store failed).
	Handle string `json:"handle,omitempty"`
	// Kept is how many bytes of the whole text the store kept, from the
	// start: Size, unless the store bounds an entry and the text was
	// larger.
	Kept int `json:"kept"`
	// Arrays are the arrays of the structured output that were
	// shortened, in document order.
	Arrays []Shortened `json:"arrays,omitempty"`
	// Parts is how many parts (images, audio, resources, links, text)
	// were left out whole.
	Parts int `json:"parts,omitempty"`
}

// A Shortened is an array of a structured output that a budget shortened.
type Shortened struct {
	Path    string `json:"path"`    // the array's JSON Pointer in the output
	Dropped int    `json:"dropped"` // how many items were left out, from its end
}

// cut returns res cut to budget, its whole text kept under a new handle.
func (r *Registry) cut(ctx context.Context, st *budgetState, res Result, budget int) Result {
	whole := res.Content
	c := &Cut{Budget: budget, Size: len(whole)}
	rcpt, _ := RecipientFrom(ctx)
	if handle, err := newHandle(); err == nil {
		kept, err := st.Store.Put(ctx, storeKey(rcpt.ID, handle), whole, st.TTL)
		if err == nil {
			c.Handle, c.Kept = handle, kept
		} else {
			r.log().WarnContext(ctx, "tool: the result store did not keep a cut result; the model reads only what fits its budget", "tool", res.Tool, "err", err)
		}
	}
	room := budget - noteRoom
	rendered := res.Parts != nil && PartsText(res.Parts) == res.Content
	jsonText := !rendered && res.Structured != nil && string(res.Structured) == res.Content
	if res.Structured != nil && len(res.Structured) > budget {
		t, _ := r.Lookup(res.Tool)
		var s *jsonschema.Schema
		if t != nil {
			s = t.Spec().OutputSchema
		}
		out, arrays := shrinkJSON(res.Structured, s, room)
		if out != nil && checkCut(t, s, out) != nil {
			out, arrays = nil, nil // invalid where the shrinker does not follow the schema
		}
		res.Structured, c.Arrays = out, arrays
	}
	if res.Parts != nil && partsBytes(res.Parts) > budget {
		var left int
		res.Parts, left = cutParts(res.Parts, room)
		c.Parts = left
	}
	switch {
	case rendered:
		c.Shown = len(PartsText(res.Parts))
		res.Parts = append(res.Parts, Text(cutNote(c)))
		res.Content = PartsText(res.Parts)
	case jsonText && res.Structured != nil && len(res.Structured) <= room:
		res.Content = string(res.Structured) + "\n" + cutNote(c)
	default:
		shown := cutText(whole, room)
		c.Shown = len(shown)
		res.Content = shown + "\n" + cutNote(c)
	}
	res.Cut = c
	return res
}

// An outputChecker is a tool that checks a structured output with its
// own validator: a Tool with the validator of its Out, a RawTool with its
// output schema compiled once.
type outputChecker interface {
	checkOutput(data []byte) error
}

// checkCut reports whether data, a structured output of t cut to a
// budget, is valid against t's output schema s: by t's own validator, or
// else by s compiled by jsonschema-go. The shrinker follows local $refs but
// not anyOf, oneOf or allOf, where shortening an array may break a
// branch's minItems; a cut output that fails is left out. An output with
// no schema to check it against is valid.
func checkCut(t Interface, s *jsonschema.Schema, data []byte) error {
	if c, ok := t.(outputChecker); ok {
		return c.checkOutput(data)
	}
	if s == nil {
		return nil
	}
	return validateJSON(s, data)
}

// validateJSON validates data against s, compiled by jsonschema-go; a
// schema it cannot resolve (a remote $ref) validates nothing.
func validateJSON(s *jsonschema.Schema, data []byte) error {
	resolved, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	return validateResolved(resolved, data)
}

// validateResolved validates data against a resolved schema.
func validateResolved(s *jsonschema.Resolved, data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return s.Validate(v)
}

// noteRoom is the room a budget keeps for the note that ends a cut
// result: the longest note cutNote writes, with room to spare.
const noteRoom = 320

// cutNote says what a cut result shows, what is left, and how to read it.
func cutNote(c *Cut) string {
	b := make([]byte, 0, noteRoom)
	b = append(b, "[cut to fit the result budget ("...)
	b = strconv.AppendInt(b, int64(c.Budget), 10)
	b = append(b, " bytes): the whole result is "...)
	b = strconv.AppendInt(b, int64(c.Size), 10)
	b = append(b, " bytes"...)
	switch {
	case len(c.Arrays) > 0:
		n := 0
		for _, a := range c.Arrays {
			n += a.Dropped
		}
		b = append(b, "; "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, " array items left out, first at "...)
		b = strconv.AppendQuote(b, c.Arrays[0].Path)
	case c.Shown > 0:
		b = append(b, ", of which the first "...)
		b = strconv.AppendInt(b, int64(c.Shown), 10)
		b = append(b, " are shown"...)
	}
	if c.Parts > 0 {
		b = append(b, "; "...)
		b = strconv.AppendInt(b, int64(c.Parts), 10)
		b = append(b, " parts left out whole"...)
	}
	if c.Handle == "" {
		return string(append(b, "; the rest was not kept: ask for less]"...))
	}
	from := c.Shown
	if from > c.Kept {
		from = c.Kept
	}
	b = append(b, `; read the rest with read_result {"handle":"`...)
	b = append(b, c.Handle...)
	b = append(b, `","offset":`...)
	b = strconv.AppendInt(b, int64(from), 10)
	b = append(b, '}')
	if c.Kept < c.Size {
		b = append(b, " (only the first "...)
		b = strconv.AppendInt(b, int64(c.Kept), 10)
		b = append(b, " bytes were kept)"...)
	}
	return string(append(b, ']'))
}

// handleBytes is how many random bytes a handle holds: 128 bits.
const handleBytes = 16

// handlePrefix starts every handle, so that a model and a person can tell
// one apart.
const handlePrefix = "res_"

// newHandle returns a new handle, unguessable.
func newHandle() (string, error) {
	var b [handleBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return handlePrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// storeKey is the key under which the store keeps the text of handle for
// the recipient rcpt: the same handle read by another recipient names
// another key, which holds nothing.
func storeKey(rcpt, handle string) string {
	h := sha256.New()
	h.Write([]byte(rcpt))
	h.Write([]byte{0})
	h.Write([]byte(handle))
	return hex.EncodeToString(h.Sum(nil))
}

// Keep keeps text in the registry's result store for the recipient of ctx,
// and returns the handle read_result reads it by, and how many bytes were
// kept from its start. An agent that clears old results from its history
// keeps them so. It reports ErrBudgetsOff when budgets are off.
func (r *Registry) Keep(ctx context.Context, text string) (handle string, kept int, err error) {
	st := r.budget.Load()
	if st == nil {
		return "", 0, ErrBudgetsOff
	}
	if handle, err = newHandle(); err != nil {
		return "", 0, err
	}
	rcpt, _ := RecipientFrom(ctx)
	kept, err = st.Store.Put(ctx, storeKey(rcpt.ID, handle), text, st.TTL)
	if err != nil {
		return "", 0, err
	}
	return handle, kept, nil
}

// ErrBudgetsOff reports a use of the result store of a registry whose
// budgets are off (Registry.SetBudget).
var ErrBudgetsOff = errors.New("tool: the registry's result budgets are off")
