package bind

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// redacted is what a Secret shows instead of its value.
const redacted = "[REDACTED]"

// A Secret is a string that does not print itself: fmt (with any verb, and
// inside structs, slices and maps), encoding/json and log/slog all show
// "[REDACTED]". Reveal
// returns the value, for the one place that needs it, such as an
// Authorization header.
//
// The redaction covers the ways a value is usually shown, not every way a
// program could copy a string: converting a Secret to a string, or printing
// it through reflection on an unexported field, shows the value.
type Secret string

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// String returns "[REDACTED]", whatever the value.
func (s Secret) String() string { return redacted }

// GoString returns "[REDACTED]", so that %#v does not show the value either.
func (s Secret) GoString() string { return redacted }

// Format writes "[REDACTED]" for every verb, quoted for %q. Without it, a
// verb that does not fit a string, such as %d, would print the value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, strconv.Quote(redacted))
		return
	}
	io.WriteString(f, redacted)
}

// MarshalJSON encodes the secret as the JSON string "[REDACTED]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue returns "[REDACTED]" for log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }
