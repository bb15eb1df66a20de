package tool

import (
	"context"
	"errors"
	"strconv"
	"unicode/utf8"
)

// DefaultReadLimit is how many bytes read_result returns at most when
// neither the call nor a budget bounds it.
const DefaultReadLimit = 16 << 10

// readArgs are the arguments of read_result.
type readArgs struct {
	Handle string `json:"handle" jsonschema:"the handle a cut result names, such as res_…" tool:"minLength=1,maxLength=64"`
	Offset int    `json:"offset,omitempty" jsonschema:"the byte offset to read from: 0 for the start, or the offset a cut result or the previous page names" tool:"minimum=0"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many bytes to read at most; 0 or more than the budget allows reads as many as it allows" tool:"minimum=0"`
}

// A page is one read of a kept result.
type page struct {
	Text   string // the bytes read, whole characters only
	Offset int    // where they start in the whole text
	Next   int    // where the next page starts: Offset+len(Text)
	Size   int    // the bytes kept of the whole text
}

// newReadResult returns the read_result tool of r.
func newReadResult(r *Registry) *Tool[readArgs, string] {
	return New(ReadResultName,
		"Read more of a tool result that was cut to fit the context: pass the handle the cut result names, and the offset it says the rest starts at. "+
			"Each read returns the next bytes and says where the following read starts, until the end.",
		func(ctx context.Context, a readArgs) (string, error) {
			st := r.budget.Load()
			if st == nil {
				return "", ErrBudgetsOff
			}
			limit := DefaultReadLimit
			if b := r.budgetOf(ctx, st, ReadResultName); b > 0 {
				limit = b - noteRoom
			}
			if a.Limit > 0 {
				limit = min(limit, a.Limit)
			}
			rcpt, _ := RecipientFrom(ctx)
			p, err := readPage(ctx, st.Store, storeKey(rcpt.ID, a.Handle), a.Offset, limit)
			if err != nil {
				return "", err
			}
			return p.Text + "\n" + pageNote(a.Handle, p), nil
		},
		WithAnnotations(Annotations{ReadOnly: true, Idempotent: true}))
}

// readPage reads up to limit bytes of the text under key from offset, in
// whole characters: an offset inside a character starts at that
// character, and a character that the limit would split is left for the
// next page (unless it is the page's only one).
func readPage(ctx context.Context, store ResultStore, key string, offset, limit int) (page, error) {
	limit = max(limit, utf8.UTFMax)
	from := max(offset-(utf8.UTFMax-1), 0)
	text, size, err := store.Read(ctx, key, from, offset-from+limit)
	if err != nil {
		if errors.Is(err, ErrResultNotFound) {
			return page{}, ErrResultNotFound // the same answer for every reason
		}
		return page{}, err
	}
	if offset >= size {
		return page{Offset: size, Next: size, Size: size}, nil
	}
	// Start at the character that holds offset.
	start := offset - from
	for start > 0 && !utf8.RuneStart(text[start]) && start > offset-from-(utf8.UTFMax-1) {
		start--
	}
	if !utf8.RuneStart(text[start]) {
		start = offset - from // not UTF-8 there: bytes as they are
	}
	text = text[start:]
	begin := from + start
	if len(text) > limit {
		text = text[:limit]
	}
	// Leave a character cut off at the end for the next page.
	if begin+len(text) < size {
		for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
			if utf8.RuneStart(text[i]) {
				if !utf8.FullRuneInString(text[i:]) && i > 0 {
					text = text[:i]
				}
				break
			}
		}
	}
	return page{Text: text, Offset: begin, Next: begin + len(text), Size: size}, nil
}

// pageNote says which bytes a page holds, and where the next starts.
func pageNote(handle string, p page) string {
	b := []byte("[read_result: bytes ")
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(p.Next), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(p.Size), 10)
	if p.Next >= p.Size {
		return string(append(b, "; that is the end]"...))
	}
	b = append(b, `; read on with read_result {"handle":"`...)
	b = append(b, handle...)
	b = append(b, `","offset":`...)
	b = strconv.AppendInt(b, int64(p.Next), 10)
	return string(append(b, "}]"...))
}
