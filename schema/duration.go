package schema

import (
	"encoding/json"
	"strconv"
	"time"
	"unsafe"
)

// A time.Duration is an int64 of nanoseconds, and encoding/json writes it
// so; but a model that sends 30 for a timeout means seconds, not 30ns. As an
// input, a duration is therefore a string in the form time.ParseDuration
// reads, which says its unit ("1m30s", "250ms", "2h"), and an integer is
// refused. As an output (Options.Output), it is described as what
// encoding/json writes: an integer number of nanoseconds.

// durationExpr matches what time.ParseDuration accepts, less a leading '+'
// and less the durations too long for an int64 of nanoseconds (which
// decoding reports with the keyword "range"): "0", or one or more numbers,
// each with a unit.
const durationExpr = `^-?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

var durationPattern = func() *pattern {
	p, err := compilePattern(durationExpr)
	if err != nil {
		panic(err)
	}
	return p
}()

const (
	// durationNote is the description of an input duration; a field's own
	// description comes before it.
	durationNote = `a duration such as "1m30s" or "250ms" (units h, m, s, ms, us, ns)`
	// durationOutputNote is the description of an output duration.
	durationOutputNote = "a duration in nanoseconds"
	// durationNoun names an input duration in messages.
	durationNoun = `a duration string such as "30s" or "1m30s"`
)

// duration reads a time.Duration, whose first byte c is at d.pos: a string
// that matches durationPattern (and its enum, if any), parsed by
// time.ParseDuration. Under goValue (Validator.Check), which reads what
// encoding/json wrote, it is an integer of nanoseconds instead.
func (d *decoder) duration(n *node, c byte, p unsafe.Pointer) {
	if c != '"' {
		if d.goValue && isNumberStart(c) {
			d.durationNanos(n, p)
			return
		}
		raw, ok := d.skip()
		if !ok {
			return
		}
		msg := "must be " + durationNoun
		if n.nullable {
			msg += " or null"
		}
		if isNumberStart(c) {
			msg += `, with its unit: 30 would be read as 30 nanoseconds; send "30s" for 30 seconds`
		}
		d.fail(KeywordType, msg+", got "+describeJSON(c, raw))
		return
	}
	s, ok := d.readString()
	if !ok {
		return
	}
	if !n.pattern.MatchString(s) {
		d.fail(KeywordPattern, "must be "+durationNoun+" (a number and a unit, h, m, s, ms, us or ns, as often as needed), got "+quote(s))
		return
	}
	if n.enum != nil && !d.inEnum(n, s) {
		d.failEnum(n, quote(s))
		return
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.fail(KeywordRange, "is a duration too long for a time.Duration, which holds about 292 years, got "+quote(s))
		return
	}
	*(*time.Duration)(p) = v
}

// durationNanos reads the integer encoding/json writes for a time.Duration
// and checks it against the node's enum, whose values are duration strings.
func (d *decoder) durationNanos(n *node, p unsafe.Pointer) {
	start := d.pos
	if !d.scanNumber() {
		return
	}
	raw := d.data[start:d.pos]
	nanos, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		d.fail(KeywordRange, "is not a number of nanoseconds a time.Duration holds: "+shortRaw(raw))
		return
	}
	v := time.Duration(nanos)
	if n.enum != nil && !inDurationEnum(n.enum, v) {
		d.failEnum(n, strconv.Quote(v.String()))
		return
	}
	*(*time.Duration)(p) = v
}

// inDurationEnum reports whether v is the duration of one of the enum's
// values, compared as durations ("1m" and "60s" are equal).
func inDurationEnum(e *enumSet, v time.Duration) bool {
	for _, value := range e.values {
		if s, ok := value.(string); ok {
			if d, err := time.ParseDuration(s); err == nil && d == v {
				return true
			}
		}
	}
	return false
}

// durationNanos returns a tag value of a duration field of an output
// (Options.Output), which encoding/json writes as nanoseconds, as that
// integer, when the value is a duration string such as 30s, quoted or not.
func durationNanos(n *node, text string) (json.RawMessage, bool) {
	if n = n.deref(); n.kind != kindInt || n.typ != durationType {
		return nil, false
	}
	if unquoted, err := strconv.Unquote(text); err == nil {
		text = unquoted
	}
	v, err := time.ParseDuration(text)
	if err != nil {
		return nil, false
	}
	return strconv.AppendInt(nil, int64(v), 10), true
}
