// Package redact hides the credentials a URL may carry, in the URL itself
// and in the errors of the code that opened it, whether or not the URL
// parses.
//
// A credential is the password of the user information (from the first
// ':' after "//" to the last '@') and the value of every parameter whose
// name bears one (see [Credential]), from its '=' to the next '&'. Both are
// found in the raw text, never through url.Parse, so that a bad
// percent-escape, or a '@', '#', '?' or '/' written unescaped in a
// password, hides as much as it would have shown. The cost is that an '@'
// later in the URL (in a query value, say) widens the hidden password to
// it.
//
// [Secrets] hides known values, such as the API keys the tools send to
// their backends, wherever they appear in a text.
package redact

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// Mask is what a credential is replaced with, as url.URL.Redacted does.
const Mask = "xxxxx"

// Hidden is what Secrets puts in place of a secret: words, so that a model
// reading the text knows that something was taken out.
const Hidden = "[redacted]"

// Secrets returns text with every occurrence of each secret replaced by
// Hidden, the longest secrets first, so that a secret that holds another
// leaves no part of itself behind. An empty secret is skipped.
func Secrets(text string, secrets ...string) string {
	sorted := slices.SortedFunc(slices.Values(secrets), func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	var pairs []string
	for _, s := range sorted {
		if s != "" {
			pairs = append(pairs, s, Hidden)
		}
	}
	if len(pairs) == 0 {
		return text
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// URL returns s with every credential replaced by Mask. It works on the
// raw text, so a URL that does not parse is redacted too.
func URL(s string) string {
	sp := spans(s)
	if len(sp) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, r := range sp {
		b.WriteString(s[last:r.start])
		b.WriteString(Mask)
		last = r.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// Error returns err with every spelling of every credential of the URL s
// replaced by Mask in its text: as written, decoded, and escaped again as
// each part of a URL escapes it, since drivers quote a URL that
// url.URL.String wrote again; and the same for each piece of a credential
// between the characters that end a part of a URL ('#', '?', '/', '@',
// ':', '&', '=', ';'), since a credential that holds one unescaped is read
// as several parts, each escaped its own way. A spelling shorter than 4
// bytes is left, or the words of the message would go with it. An error
// whose text holds none is returned as it is. Another is
// replaced by one with the clean text, whose Unwrap returns what err's
// returns, redacted the same way: errors.Is and errors.As reach every
// error of the chain whose text holds no credential, and none that does.
func Error(err error, s string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	// The URL itself, as written and as url.URL.String writes it again,
	// first: its redaction keeps what is not a credential.
	clean := strings.ReplaceAll(msg, s, URL(s))
	if u, perr := url.Parse(s); perr == nil && u.String() != s {
		clean = strings.ReplaceAll(clean, u.String(), URL(u.String()))
	}
	for _, f := range forms(s) {
		clean = strings.ReplaceAll(clean, f, Mask)
	}
	if clean == msg {
		return err
	}
	return &redacted{msg: clean, err: err, url: s}
}

// A redacted is an error whose text lost the credentials of url.
type redacted struct {
	msg string
	err error // the original, which Unwrap does not return
	url string
}

func (e *redacted) Error() string { return e.msg }

func (e *redacted) Unwrap() []error {
	var inner []error
	switch u := e.err.(type) {
	case interface{ Unwrap() error }:
		inner = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	out := make([]error, 0, len(inner))
	for _, in := range inner {
		if in != nil {
			out = append(out, Error(in, e.url))
		}
	}
	return out
}

// ends are the characters that end a part of a URL.
const ends = "#?/@:&=;"

// minForm is the shortest spelling of a credential that Error replaces:
// a shorter one would also hide the words of the message it occurs in.
const minForm = 4

// forms returns the spellings of the credentials of s that Error
// replaces, longest first.
func forms(s string) []string {
	var out []string
	add := func(f string) {
		if len(f) >= minForm && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	spell := func(raw string) {
		add(raw)
		for _, unescape := range []func(string) (string, error){url.PathUnescape, url.QueryUnescape} {
			d, err := unescape(raw)
			if err != nil {
				d = raw // as a URL's parser keeps a part it need not decode
			}
			add(d)
			add(url.QueryEscape(d))
			add(url.PathEscape(d))
			add((&url.URL{Path: d}).EscapedPath())
			add((&url.URL{Fragment: d}).EscapedFragment())
			add(strings.TrimPrefix((&url.URL{Host: d}).String(), "//"))
			add(strings.TrimPrefix(url.UserPassword("", d).String(), ":"))
			add(url.User(d).String())
		}
	}
	for _, r := range spans(s) {
		raw := s[r.start:r.end]
		spell(raw)
		// Each piece between two of the characters that end a part, and
		// what comes before and after each: the parts a parser reads.
		for piece := range strings.FieldsFuncSeq(raw, func(c rune) bool { return strings.ContainsRune(ends, c) }) {
			if piece != raw {
				spell(piece)
			}
		}
		for i := range len(raw) {
			if strings.IndexByte(ends, raw[i]) >= 0 {
				spell(raw[:i])
				spell(raw[i+1:])
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// A span is the byte range [start, end) of a credential.
type span struct{ start, end int }

// spans returns the credentials of s, sorted and merged.
func spans(s string) []span {
	var sp []span
	// A parameter's name starts after any '?', '&', ';' or '#', so that a
	// '?' or '#' inside a value, or a fragment that carries parameters,
	// hides nothing; its value runs to the next '&'.
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("?&;#", rune(s[i])) {
			continue
		}
		end := len(s)
		if j := strings.IndexByte(s[i+1:], '&'); j >= 0 {
			end = i + 1 + j
		}
		name, _, ok := strings.Cut(s[i+1:end], "=")
		if ok && Credential(name) {
			sp = append(sp, span{i + 1 + len(name) + 1, end})
		}
	}
	// The user information, after "//" and up to the last '@', even one in
	// a credential found above: a password may hold "?token=".
	start := -1
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	} else if strings.HasPrefix(s, "//") {
		start = 2
	}
	if start >= 0 {
		for at := len(s) - 1; at >= start; at-- {
			if s[at] != '@' {
				continue
			}
			if colon := strings.IndexByte(s[start:at], ':'); colon >= 0 {
				sp = append(sp, span{start + colon + 1, at})
			}
			break
		}
	}
	slices.SortFunc(sp, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	merged := sp[:0]
	for _, r := range sp {
		if n := len(merged); n > 0 && r.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, r.end)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// exact are the parameter names that bear a credential only as the whole
// name; contained bear one anywhere in a name.
var (
	exact     = []string{"pw", "pwd", "pass", "key", "sig", "auth", "authorization"}
	contained = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "credential", "signature", "private_key"}
)

// Credential reports whether a URL parameter of this name bears a
// credential, whatever its case and with '-' read as '_': password,
// sslpassword, passwd, pwd, secret, client_secret, aws_secret_access_key,
// token, access_token, api_key, apikey, key, sig, signature, auth,
// authorization, credentials, and any name containing password, passwd,
// passphrase, secret, token, apikey, api_key, credential, signature or
// private_key. A name that escapes its letters is read decoded. Names of
// files that hold a credential, such as PostgreSQL's sslkey, sslcert and
// passfile, are not credentials: the path is shown, which says which file
// was read.
func Credential(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
	if slices.Contains(exact, n) {
		return true
	}
	for _, c := range contained {
		if strings.Contains(n, c) {
			return true
		}
	}
	return false
}
