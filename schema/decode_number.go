package schema

import (
	"bytes"
	"math/big"
	"slices"
	"strconv"
	"unsafe"
)

// number reads a JSON number into an integer or float field and checks it.
// The schema keywords are checked first, so that a value outside a small
// integer's range is reported as the minimum or maximum the schema shows.
func (d *decoder) number(n *node, raw []byte, p unsafe.Pointer) {
	switch n.kind {
	case kindInt:
		i, ok := shortInt(raw)
		var err error
		if !ok {
			i, err = strconv.ParseInt(string(raw), 10, 64)
		}
		if err != nil {
			f, exact, ok := d.integral(raw)
			if !ok || !d.checkNumber(n, f, raw) {
				return
			}
			if exact == nil || !exact.IsInt64() {
				d.fail(KeywordRange, "is too large for a 64-bit integer: "+shortRaw(raw))
				return
			}
			i = exact.Int64()
		} else if !d.checkNumber(n, float64(i), raw) {
			return
		}
		if n.bits < 64 && (i < -1<<(n.bits-1) || i > 1<<(n.bits-1)-1) {
			d.fail(KeywordRange, "is out of range for a "+strconv.Itoa(n.bits)+"-bit integer")
			return
		}
		// n.bits is the size of the type (reflect's Bits), so these are
		// stores of the type's own size.
		switch n.bits {
		case 8:
			*(*int8)(p) = int8(i)
		case 16:
			*(*int16)(p) = int16(i)
		case 32:
			*(*int32)(p) = int32(i)
		default:
			*(*int64)(p) = i
		}
	case kindUint:
		i, ok := shortInt(raw)
		u, err := uint64(i), error(nil)
		if !ok || raw[0] == '-' {
			u, err = strconv.ParseUint(string(raw), 10, 64)
		}
		if err != nil {
			f, exact, ok := d.integral(raw)
			if !ok || !d.checkNumber(n, f, raw) {
				return
			}
			if exact == nil || !exact.IsUint64() {
				d.fail(KeywordRange, "is out of range for a 64-bit unsigned integer: "+shortRaw(raw))
				return
			}
			u = exact.Uint64()
		} else if !d.checkNumber(n, float64(u), raw) {
			return
		}
		if n.bits < 64 && u > 1<<n.bits-1 {
			d.fail(KeywordRange, "is out of range for a "+strconv.Itoa(n.bits)+"-bit unsigned integer")
			return
		}
		switch n.bits {
		case 8:
			*(*uint8)(p) = uint8(u)
		case 16:
			*(*uint16)(p) = uint16(u)
		case 32:
			*(*uint32)(p) = uint32(u)
		default:
			*(*uint64)(p) = u
		}
	case kindFloat:
		// The keywords judge the JSON number, read as a float64 as the
		// schema's bounds are; a float32 holds it rounded, and the rounding
		// must not move it across a bound (0.1 against maximum=0.1).
		f, err := strconv.ParseFloat(string(raw), 64)
		held := f
		if err == nil && n.bits < 64 {
			held, err = strconv.ParseFloat(string(raw), n.bits)
		}
		if err != nil {
			d.fail(KeywordRange, "is too large for a "+strconv.Itoa(n.bits)+"-bit number: "+shortRaw(raw))
			return
		}
		if d.checkNumber(n, f, raw) {
			if n.bits == 32 {
				*(*float32)(p) = float32(held)
			} else {
				*(*float64)(p) = held
			}
		}
	}
}

// shortInt returns the value of raw, a JSON number (scanNumber checked its
// syntax), when it is an integer of at most 18 digits, which no int64
// overflows; otherwise false, and strconv decides. (JSON has no leading
// zeros and no '+', so such a number is its digits, after an optional '-'.)
func shortInt(raw []byte) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var i int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if raw[0] == '-' {
		i = -i
	}
	return i, true
}

// integral reads a number that strconv refused as an integer: one written
// with a fraction or an exponent (1.0, 1e3), or one beyond 64 bits. It
// returns the number as a float64, for the keywords, and exactly, for the
// value, or nil for an integer beyond 64 bits. Whether it is an integer is
// decided exactly, as JSON Schema does: 1.0000000000000000001 and 1e-400
// are not integers, although their float64 values are.
func (d *decoder) integral(raw []byte) (float64, *big.Int, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		d.fail(KeywordRange, "is too large for a 64-bit integer: "+shortRaw(raw))
		return 0, nil, false
	}
	x := readDecimal(raw)
	switch {
	case len(x.digits) == 0:
		return 0, new(big.Int), true
	case x.exp < 0:
		d.fail(KeywordType, "must be an integer, got "+shortRaw(raw))
		return 0, nil, false
	case len(x.digits)+x.exp > 20:
		return f, nil, true // at least 10^20, beyond 64 bits
	}
	exact, _ := new(big.Int).SetString(string(x.digits), 10)
	exact.Mul(exact, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.exp)), nil))
	if x.neg {
		exact.Neg(exact)
	}
	return f, exact, true
}

// checkNumber checks the number keywords and reports whether all passed.
func (d *decoder) checkNumber(n *node, f float64, raw []byte) bool {
	ok := true
	if n.minimum != nil && f < *n.minimum {
		d.fail(KeywordMinimum, "must be at least "+formatFloat(*n.minimum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.maximum != nil && f > *n.maximum {
		d.fail(KeywordMaximum, "must be at most "+formatFloat(*n.maximum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.exclusiveMinimum != nil && f <= *n.exclusiveMinimum {
		d.fail(KeywordExclusiveMinimum, "must be greater than "+formatFloat(*n.exclusiveMinimum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.exclusiveMaximum != nil && f >= *n.exclusiveMaximum {
		d.fail(KeywordExclusiveMaximum, "must be less than "+formatFloat(*n.exclusiveMaximum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.multipleOf != nil && !multipleOf(raw, n.multipleOf.rat) {
		d.fail(KeywordMultipleOf, "must be a multiple of "+n.multipleOf.text+", got "+shortRaw(raw))
		ok = false
	}
	if n.enum != nil && !d.inEnum(n, f) {
		d.failEnum(n, shortRaw(raw))
		ok = false
	}
	return ok
}

// multipleOf reports whether the JSON number raw, which a float64 holds
// (the caller parsed it), is an exact multiple of m, which is positive. It
// takes time linear in the length of raw: a number may be written with
// millions of digits, which big.Rat would take quadratic time to read.
func multipleOf(raw []byte, m *big.Rat) bool {
	if m.IsInt() && m.Num().IsInt64() {
		if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return i%m.Num().Int64() == 0
		}
	}
	x := readDecimal(raw)
	if len(x.digits) == 0 {
		return true // zero is a multiple of anything
	}
	// With m = p/q in lowest terms, raw/m = digits × 10^exp × q / p.
	p, q := m.Num(), m.Denom()
	if x.exp >= 0 {
		r := digitsMod(x.digits, p)
		r.Mul(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.exp)), p))
		r.Mul(r, q)
		return r.Mod(r, p).Sign() == 0
	}
	// raw/m is an integer when 10^k × p divides digits × q, k = -exp.
	// digits has no factor 10, so it lacks either every factor 2 or every
	// factor 5, and q must supply k of them: k is at most q's bit length.
	k := -x.exp
	if k > q.BitLen() {
		return false
	}
	mod := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
	mod.Mul(mod, p)
	r := digitsMod(x.digits, mod)
	r.Mul(r, q)
	return r.Mod(r, mod).Sign() == 0
}

// A decimal is a JSON number as ±digits × 10^exp, where digits, decimal
// digits in ASCII, has no leading or trailing zeros; it is empty for zero.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
}

// maxExponent bounds the exponents readDecimal reads, so that adding the
// count of digits to one cannot overflow an int. A number whose exponent
// reaches it is far beyond a float64, or, negative, far below the smallest
// fraction one holds: its sign, and whether it is an integer, are still
// exact, but not its value.
const maxExponent = 1 << 59

// readDecimal reads a number that scanNumber accepted, in one pass.
func readDecimal(raw []byte) decimal {
	var x decimal
	if raw[0] == '-' {
		x.neg = true
		raw = raw[1:]
	}
	mantissa, exponent := raw, []byte(nil)
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		mantissa, exponent = raw[:i], raw[i+1:]
	}
	whole, fraction, _ := bytes.Cut(mantissa, []byte("."))
	if len(fraction) == 0 {
		x.digits = whole
	} else {
		x.digits = append(slices.Clip(whole), fraction...)
	}
	x.digits = bytes.TrimLeft(x.digits, "0")
	trimmed := bytes.TrimRight(x.digits, "0")
	if len(trimmed) == 0 {
		return decimal{}
	}
	x.exp = len(x.digits) - len(trimmed) - len(fraction)
	x.digits = trimmed
	e, sign := 0, 1
	if len(exponent) > 0 && (exponent[0] == '-' || exponent[0] == '+') {
		if exponent[0] == '-' {
			sign = -1
		}
		exponent = exponent[1:]
	}
	for _, c := range exponent {
		if e < maxExponent {
			e = e*10 + int(c-'0')
		}
	}
	x.exp += sign * e
	return x
}

// digitsMod returns the number that decimal digits spell, modulo m, in
// time linear in their count: 18 digits at a time, each step on numbers no
// larger than m × 10^18.
func digitsMod(digits []byte, m *big.Int) *big.Int {
	r, scale, part := new(big.Int), new(big.Int).SetUint64(1e18), new(big.Int)
	for len(digits) > 0 {
		n := min(len(digits), 18)
		var v uint64
		for _, c := range digits[:n] {
			v = v*10 + uint64(c-'0')
		}
		if n < 18 {
			scale.Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
		}
		r.Mul(r, scale).Add(r, part.SetUint64(v)).Mod(r, m)
		digits = digits[n:]
	}
	return r
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
