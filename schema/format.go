package schema

import (
	"net/netip"
	"net/url"
	"strings"
)

// The checkers in this file implement the JSON Schema draft 2020-12 "format"
// assertions. Each one agrees exactly with the corresponding checker of
// github.com/santhosh-tekuri/jsonschema/v6 (v6.0.3), including its quirks,
// so that switching validators never changes a verdict. Apart from uri and
// uri-reference, which rely on net/url, they do not allocate when given
// valid input.

// formats holds the asserted formats, by name.
var formats = func() map[string]*format {
	m := make(map[string]*format, len(formatCheckers))
	for name, check := range formatCheckers {
		m[name] = &format{name: name, check: check}
	}
	return m
}()

// formatCheckers maps each asserted format name to its checker.
var formatCheckers = map[string]func(string) bool{
	"date-time":     isDateTime,
	"date":          isFullDate,
	"time":          isFullTime,
	"duration":      isDuration,
	"email":         isEmail,
	"hostname":      isHostname,
	"ipv4":          isIPv4,
	"ipv6":          isIPv6,
	"uri":           isURI,
	"uri-reference": isURIReference,
	"uuid":          isUUID,
}

// isDateTime reports whether s is an RFC 3339 (section 5.6) date-time:
// a full-date, the letter "T" (or "t") and a full-time.
func isDateTime(s string) bool {
	// The shortest date-time is "yyyy-mm-ddThh:mm:ssZ".
	if len(s) < 20 {
		return false
	}
	if s[10] != 'T' && s[10] != 't' {
		return false
	}
	return isFullDate(s[:10]) && isFullTime(s[11:])
}

// isFullDate reports whether s is an RFC 3339 (section 5.6) full-date,
// "yyyy-mm-dd", naming a day that exists in the proleptic Gregorian calendar.
// It accepts exactly what time.Parse("2006-01-02", s) accepts.
func isFullDate(s string) bool {
	if len(s) != len("yyyy-mm-dd") || s[4] != '-' || s[7] != '-' {
		return false
	}
	year, ok := parseDigits(s[0:4])
	if !ok {
		return false
	}
	month, ok := parseDigits(s[5:7])
	if !ok || month < 1 || month > 12 {
		return false
	}
	day, ok := parseDigits(s[8:10])
	if !ok {
		return false
	}
	return day >= 1 && day <= daysInMonth(year, month)
}

// daysInMonth returns the number of days in the given month (1-12) of year.
func daysInMonth(year, month int) int {
	switch month {
	case 2:
		if isLeapYear(year) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}

// isLeapYear reports whether year is a leap year in the Gregorian calendar.
func isLeapYear(year int) bool {
	return year%4 == 0 && (year%100 != 0 || year%400 == 0)
}

// isFullTime reports whether s is an RFC 3339 (section 5.6) full-time:
// "hh:mm:ss", an optional fraction of a second, then "Z" (or "z") or a
// numeric offset "+hh:mm"/"-hh:mm". A leap second (ss = 60) is accepted
// only at 23:59 UTC.
//
// Like the reference checker, it parses each two-character field with
// strconv.Atoi semantics, so a field may carry a sign: "+1:+2:+3Z" and
// "-0:00:00Z" are accepted.
func isFullTime(s string) bool {
	// The shortest full-time is "hh:mm:ssZ".
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	hour, ok := parseTimeField(s[0:2])
	if !ok || hour > 23 {
		return false
	}
	minute, ok := parseTimeField(s[3:5])
	if !ok || minute > 59 {
		return false
	}
	second, ok := parseTimeField(s[6:8])
	if !ok || second > 60 {
		return false
	}
	rest := s[8:]

	// time-secfrac
	if fraction, ok := strings.CutPrefix(rest, "."); ok {
		n := countDigits(fraction)
		if n == 0 {
			return false
		}
		rest = fraction[n:]
	}

	// time-offset
	utcMinutes := hour*60 + minute
	if rest != "Z" && rest != "z" {
		if len(rest) != len("+hh:mm") || rest[3] != ':' {
			return false
		}
		offsetHour, ok := parseTimeField(rest[1:3])
		if !ok || offsetHour > 23 {
			return false
		}
		offsetMinute, ok := parseTimeField(rest[4:6])
		if !ok || offsetMinute > 59 {
			return false
		}
		offset := offsetHour*60 + offsetMinute
		switch rest[0] {
		case '+':
			utcMinutes -= offset
		case '-':
			utcMinutes += offset
		default:
			return false
		}
		if utcMinutes < 0 {
			utcMinutes += 24 * 60
		}
	}

	// A leap second can only be inserted at the end of a UTC day.
	return second < 60 || utcMinutes == 23*60+59
}

// parseTimeField parses a two-character time field the way strconv.Atoi
// does, rejecting negative values: "07", "+7" and "-0" are accepted.
func parseTimeField(field string) (int, bool) {
	first, second := field[0], field[1]
	switch {
	case isDecimalDigit(first) && isDecimalDigit(second):
		return int(first-'0')*10 + int(second-'0'), true
	case first == '+' && isDecimalDigit(second):
		return int(second - '0'), true
	case first == '-' && second == '0':
		return 0, true
	}
	return 0, false
}

// isDuration reports whether s is an ISO 8601 duration as restricted by
// RFC 3339 (appendix A): "P" followed either by a number of weeks ("P3W") or
// by date units Y, M, D in that order and optionally "T" and time units
// H, M, S in that order, each unit preceded by a whole number. Unlike the
// strict grammar, any subset of units is allowed ("P1Y1D", "PT1H1S").
func isDuration(s string) bool {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok || rest == "" {
		return false
	}
	if weeks, ok := strings.CutSuffix(rest, "W"); ok {
		return weeks != "" && countDigits(weeks) == len(weeks)
	}
	datePart, timePart, hasTime := strings.Cut(rest, "T")
	if hasTime && (timePart == "" || strings.Contains(timePart, "T")) {
		return false
	}
	return isDurationPart(datePart, "YMD") && isDurationPart(timePart, "HMS")
}

// isDurationPart reports whether s is a sequence of number-unit pairs whose
// units appear in units, in the same order and at most once each.
func isDurationPart(s, units string) bool {
	for s != "" {
		n := countDigits(s)
		if n == 0 || n == len(s) {
			return false // missing number or missing unit
		}
		i := strings.IndexByte(units, s[n])
		if i < 0 {
			return false // unknown, repeated or out-of-order unit
		}
		units = units[i+1:]
		s = s[n+1:]
	}
	return true
}

// isEmail reports whether s is an email address (RFC 5321 mailbox, as
// summarised at https://en.wikipedia.org/wiki/Email_address): a local part
// of at most 64 bytes, which is either a dot-atom or a quoted string without
// backslashes or inner quotes, then "@" and a hostname or a bracketed IPv4
// or "IPv6:" address literal; at most 254 bytes in all.
//
// Like the reference checker, it accepts an empty local part ("@example.com").
func isEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || !isEmailLocalPart(local) {
		return false
	}
	if literal, ok := cutBrackets(domain); ok {
		if address, ok := strings.CutPrefix(literal, "IPv6:"); ok {
			return isIPv6(address)
		}
		return isIPv4(literal)
	}
	return isHostname(domain)
}

// isEmailLocalPart reports whether local is a valid local part of an email
// address: a quoted string, or dot-separated atoms of atext characters (no
// dot first, last, or after another). It reads the atoms in one pass;
// FuzzEmailAndHostname checks it against the rule read as written.
func isEmailLocalPart(local string) bool {
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		quoted := local[1 : len(local)-1]
		return !strings.ContainsAny(quoted, `\"`)
	}
	prev := byte('.') // as if a dot came before: a first dot fails
	for i := 0; i < len(local); i++ {
		c := local[i]
		if c == '.' {
			if prev == '.' {
				return false
			}
		} else if !emailAtext[c] {
			return false
		}
		prev = c
	}
	return prev != '.' || local == ""
}

// isEmailAtext reports whether c is an RFC 5322 atext character.
func isEmailAtext(c byte) bool { return emailAtext[c] }

// emailAtext holds the RFC 5322 atext characters: letters, digits and
// !#$%&'*+-/=?^_`{|}~.
var emailAtext = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isASCIILetter(byte(c)) || isDecimalDigit(byte(c)) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", byte(c)) >= 0
	}
	return t
}()

// cutBrackets returns s without its enclosing square brackets, and whether
// s was enclosed in them.
func cutBrackets(s string) (string, bool) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return s, false
	}
	return s[1 : len(s)-1], true
}

// isHostname reports whether s is a hostname as restricted by RFC 1123
// (section 2.1): dot-separated labels of 1 to 63 ASCII letters, digits and
// hyphens, no label starting or ending with a hyphen, at most 253 bytes
// not counting one optional trailing dot.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	// One pass over the bytes, a label ending at each dot and at the end;
	// FuzzEmailAndHostname checks it against the labels read one by one.
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if !hostnameByte[s[i]] {
				return false
			}
			continue
		}
		if n := i - start; n < 1 || n > 63 || s[start] == '-' || s[i-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}

// hostnameByte holds the bytes a hostname label may hold: ASCII letters,
// digits and '-'.
var hostnameByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isASCIILetter(byte(c)) || isDecimalDigit(byte(c)) || c == '-'
	}
	return t
}()

// isIPv4 reports whether s is an IPv4 address in the RFC 2673 (section 3.2)
// dotted-quad notation: four decimal numbers from 0 to 255 without leading
// zeros.
//
// Like the reference checker, which parses each number with strconv.Atoi,
// it accepts a number carrying a sign ("+1.2.3.4", "-0.0.0.0", "+01.2.3.4").
func isIPv4(s string) bool {
	for i := range 4 {
		number, rest, more := strings.Cut(s, ".")
		if more != (i < 3) || !isIPv4Number(number) {
			return false
		}
		s = rest
	}
	return true
}

// isIPv4Number reports whether number is a decimal from 0 to 255 without a
// leading zero, accepting what strconv.Atoi accepts.
func isIPv4Number(number string) bool {
	if len(number) > 1 && number[0] == '0' {
		return false
	}
	digits := number
	negative := false
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		negative = digits[0] == '-'
		digits = digits[1:]
	}
	if digits == "" {
		return false
	}
	value := 0
	for i := 0; i < len(digits); i++ {
		if !isDecimalDigit(digits[i]) {
			return false
		}
		value = min(value*10+int(digits[i]-'0'), 256) // 256 stands for "too big"
	}
	if negative {
		return value == 0
	}
	return value <= 255
}

// isIPv6 reports whether s is an IPv6 address in the RFC 4291 (section 2.2)
// text representation, as accepted by net/netip, without a zone.
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Zone() == ""
}

// isURI reports whether s is an absolute URI (RFC 3986, section 4.3) as
// accepted by net/url, that is, a URI reference with a scheme.
func isURI(s string) bool {
	u, ok := parseURIReference(s)
	return ok && u.IsAbs()
}

// isURIReference reports whether s is a URI reference (RFC 3986, section
// 4.1) as accepted by net/url, without backslashes.
func isURIReference(s string) bool {
	if strings.Contains(s, `\`) {
		return false
	}
	_, ok := parseURIReference(s)
	return ok
}

// parseURIReference parses s with net/url, additionally requiring a host
// that contains a colon to be a bracketed IPv6 address (RFC 3986,
// section 3.2.2), which net/url does not check.
func parseURIReference(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, false
		}
		if !isIPv6(host) {
			return nil, false
		}
	}
	return u, true
}

// isUUID reports whether s is a UUID in the RFC 4122 (section 3) string
// representation: 32 hexadecimal digits, of either case, in groups of
// 8-4-4-4-12 separated by hyphens.
func isUUID(s string) bool {
	if len(s) != len("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHexDigit(s[i]) {
				return false
			}
		}
	}
	return true
}

// parseDigits parses s, which must consist of ASCII digits only, as a
// non-negative decimal number. It is meant for short, fixed-width fields.
func parseDigits(s string) (int, bool) {
	if s == "" || countDigits(s) != len(s) {
		return 0, false
	}
	value := 0
	for i := 0; i < len(s); i++ {
		value = value*10 + int(s[i]-'0')
	}
	return value, true
}

// countDigits returns the number of ASCII digits at the start of s.
func countDigits(s string) int {
	n := 0
	for n < len(s) && isDecimalDigit(s[n]) {
		n++
	}
	return n
}

// isDecimalDigit reports whether c is an ASCII decimal digit.
func isDecimalDigit(c byte) bool {
	return '0' <= c && c <= '9'
}

// isASCIILetter reports whether c is an ASCII letter of either case.
func isASCIILetter(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// isHexDigit reports whether c is an ASCII hexadecimal digit of either case.
func isHexDigit(c byte) bool {
	return isDecimalDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
