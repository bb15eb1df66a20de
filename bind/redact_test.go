package bind_test

import (
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/internal/redact"
	"github.com/hands-go/hands/internal/redact/redacttest"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/sqldb"
	"gocloud.dev/blob"
)

// A place is where a URL carries a credential: url builds the URL around
// the secret, and kind is what opens it.
type place struct {
	name string
	kind string // "sql", "kv", "bucket" or "url": the binding, and the opener
	url  func(secret string) string
}

// inQuery writes a secret unescaped into a query value, but for '&', which
// ends a value in every reading of a URL.
func inQuery(s string) string { return strings.ReplaceAll(s, "&", "%26") }

func userinfo(s string) string { return strings.TrimPrefix(url.UserPassword("", s).String(), ":") }

var places = []place{
	{"postgres user info", "sql", func(s string) string { return "postgres://app:" + s + "@127.0.0.1:1/db?sslmode=disable" }},
	{"postgres user info, escaped", "sql", func(s string) string { return "postgres://app:" + userinfo(s) + "@127.0.0.1:1/db?sslmode=disable" }},
	{"postgres password", "sql", func(s string) string { return "postgres://app@127.0.0.1:1/db?sslmode=disable&password=" + inQuery(s) }},
	{"postgres password, escaped", "sql", func(s string) string {
		return "postgres://app@127.0.0.1:1/db?password=" + url.QueryEscape(s) + "&sslmode=disable"
	}},
	{"postgres sslpassword", "sql", func(s string) string {
		return "postgresql://app@127.0.0.1:1/db?sslpassword=" + inQuery(s) + "&sslmode=disable"
	}},
	{"postgres password and an unknown parameter", "sql", func(s string) string { return "postgres://app@127.0.0.1:1/db?password=" + inQuery(s) + "&pool=9" }},
	// go-redis dials a closed port five times with pauses, too slowly for a
	// fuzz test: the URLs of these places fail before it dials (a bad
	// pool_size, an unknown parameter), and rediskv's tests reach a real
	// server with a wrong password.
	{"redis user info", "kv", func(s string) string { return "redis://:" + s + "@127.0.0.1:1/0?pool_size=x" }},
	{"redis user info, escaped", "kv", func(s string) string { return "redis://:" + userinfo(s) + "@127.0.0.1:1/0?pool_size=x" }},
	{"redis password", "kv", func(s string) string { return "redis://127.0.0.1:1/0?password=" + inQuery(s) }},
	{"bucket user info", "bucket", func(s string) string { return "mem://u:" + s + "@/?x=1" }},
	{"bucket secret", "bucket", func(s string) string { return "mem://?aws_secret_access_key=" + inQuery(s) }},
	{"url user info", "url", func(s string) string { return "https://u:" + s + "@example.com/" }},
	{"url token", "url", func(s string) string { return "//example.com/?token=" + inQuery(s) }},
}

// local reports whether the URL s, when it parses, reaches nothing but the
// closed port 127.0.0.1:1 (or, for a bucket or a *url.URL, nothing at all),
// so that a secret that changes the URL's shape never sends a test to
// another host.
func local(p place, s string) bool {
	u, err := url.Parse(s)
	if err != nil || p.kind == "bucket" || p.kind == "url" {
		return true
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "sslmode", "password", "sslpassword", "pool", "pool_size":
		default:
			return false
		}
	}
	return u.Host == "127.0.0.1:1" || strings.HasSuffix(u.Host, "@127.0.0.1:1")
}

// opened returns the errors of the ways a URL of p is opened: its driver's
// opener (for a database or a store) and bind.Load.
func opened(t *testing.T, p place, s string) []string {
	var msgs []string
	switch p.kind {
	case "sql":
		if db, err := sqldb.Open(t.Context(), s); err != nil {
			msgs = append(msgs, err.Error())
		} else {
			db.Close()
		}
	case "kv":
		if st, err := kv.Open(t.Context(), s); err != nil {
			msgs = append(msgs, err.Error())
		} else {
			st.Close()
		}
	}
	var env struct {
		DB     *sql.DB      `bind:"SQL,optional"`
		KV     *kv.Store    `bind:"KV,optional"`
		Bucket *blob.Bucket `bind:"BUCKET,optional"`
		URL    *url.URL     `bind:"URL,optional"`
	}
	err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{strings.ToUpper(p.kind): s})})
	if err != nil {
		msgs = append(msgs, err.Error())
	} else {
		bind.Close(&env)
	}
	return msgs
}

// FuzzRedact puts a secret in each place a URL carries a credential —
// unescaped, with bad escapes, '@', ':', '#', '?', '/' and non-ASCII text
// in it, and escaped — and checks that no piece of it shows in
// redact.URL's result nor in the errors of the openers and of bind.Load.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"Sekr1t-pw-0042",
		"p%zzw0rd-7781",
		"bad%escape%",
		"a@b:c#d?e/f-991",
		"12#frag@host",
		"a?token=b@c&x",
		"mot-de-passe-é日本",
		"xxxxx-secret-xxxxx",
		"pw with spaces+plus=eq;semi",
	} {
		for i := range places {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, secret string, i uint8) {
		if len(secret) > 64 {
			t.Skip("the check is quadratic in the secret's length")
		}
		p := places[int(i)%len(places)]
		s, other := p.url(secret), p.url(redacttest.Rot(secret))
		if w := redacttest.Leaked(secret, redact.URL(s), redact.URL(other)); w != "" {
			t.Errorf("%s: redact.URL(%q) = %q, which shows %q of the secret", p.name, s, redact.URL(s), w)
		}
		if !local(p, s) || !local(p, other) {
			return
		}
		got, want := opened(t, p, s), opened(t, p, other)
		for k := range got {
			if k < len(want) {
				if w := redacttest.Leaked(secret, got[k], want[k]); w != "" {
					t.Errorf("%s: opening %q: %s\nshows %q of the secret", p.name, s, got[k], w)
				}
			}
		}
	})
}
