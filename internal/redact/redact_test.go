package redact

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/redact/redacttest"
)

// TestURL hides each credential a URL may carry, parsed or not, and
// nothing else.
func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://app:pw@db:5432/app?sslmode=disable", "postgres://app:xxxxx@db:5432/app?sslmode=disable"},
		{"postgres://app@db/app?password=pw&sslmode=disable", "postgres://app@db/app?password=xxxxx&sslmode=disable"},
		{"postgres://app@db/app?sslmode=require&sslpassword=pw", "postgres://app@db/app?sslmode=require&sslpassword=xxxxx"},
		{"postgres://app@db/app?PassWord=pw", "postgres://app@db/app?PassWord=xxxxx"},
		{"postgres://app@db/app?pass%77ord=pw", "postgres://app@db/app?pass%77ord=xxxxx"},
		{"redis://127.0.0.1:6379/0?password=pw&prefix=a:", "redis://127.0.0.1:6379/0?password=xxxxx&prefix=a:"},
		{"redis://:pw@127.0.0.1:6379/0", "redis://:xxxxx@127.0.0.1:6379/0"},
		// A bad escape: the URL does not parse, and is redacted all the same.
		{"postgres://app:p%zzw@db/app", "postgres://app:xxxxx@db/app"},
		{"postgres://app@db/app?password=p%zzw&x=%", "postgres://app@db/app?password=xxxxx&x=%"},
		// Characters that end a part, written unescaped in the password.
		{"postgres://app:a@b#c?d/e@db/app", "postgres://app:xxxxx@db/app"},
		{"postgres://app@db/app?password=a#b?c@d", "postgres://app@db/app?password=xxxxx"},
		{"https://h/cb#access_token=tok&state=s", "https://h/cb#access_token=xxxxx&state=s"},
		{"s3://bucket?region=auto&aws_secret_access_key=k&client-secret=c", "s3://bucket?region=auto&aws_secret_access_key=xxxxx&client-secret=xxxxx"},
		{"https://api/x?key=k&api_key=a&sig=s", "https://api/x?key=xxxxx&api_key=xxxxx&sig=xxxxx"},
		// Empty passwords are masked as url.URL.Redacted masks them.
		{"postgres://app:@db/app", "postgres://app:xxxxx@db/app"},
		// Files and names are not credentials.
		{"postgres://app@db/app?sslkey=/k.pem&sslcert=/c.pem&passfile=/p&require_auth=scram-sha-256", "postgres://app@db/app?sslkey=/k.pem&sslcert=/c.pem&passfile=/p&require_auth=scram-sha-256"},
		{"postgres://app@db/app?application_name=a@b", "postgres://app@db/app?application_name=a@b"},
		{"sqlite:///var/lib/app.db", "sqlite:///var/lib/app.db"},
		{"mem://", "mem://"},
		{"", ""},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestError hides a credential wherever a driver quoted it, in any
// spelling, and keeps the error's identity for errors.Is.
func TestError(t *testing.T) {
	const u = "s3://AKID:se%2Fcret@bucket?token=t%20ok%21"
	err := Error(fmt.Errorf("open bucket s3://AKID:se%%2Fcret@bucket?token=t+ok%%21 (se/cret, t ok!, se%%2Fcret): %w", context.Canceled), u)
	want := "open bucket s3://AKID:xxxxx@bucket?token=xxxxx (xxxxx, xxxxx, xxxxx): context canceled"
	if err.Error() != want {
		t.Errorf("Error = %q, want %q", err, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("the redacted error does not match context.Canceled")
	}
	// Every error of the chain is reached, and none shows a credential.
	detail := &url.Error{Op: "parse", URL: "s3://bucket", Err: context.DeadlineExceeded}
	quoted := &url.Error{Op: "parse", URL: u, Err: errors.New("bad")}
	err = Error(fmt.Errorf("open: %w", errors.Join(fmt.Errorf("one: %w", quoted), detail)), u)
	if e, ok := errors.AsType[*url.Error](err); !ok || e != detail || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.As(%v) = %v, want the *url.Error without a credential", err, e)
	}
	var walk func(error)
	walk = func(e error) {
		if strings.Contains(e.Error(), "cret") || strings.Contains(e.Error(), "ok%21") {
			t.Errorf("an error of the chain shows a credential: %v", e)
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, in := range u.Unwrap() {
				walk(in)
			}
		}
	}
	walk(err)
	plain := errors.New("connection refused")
	if got := Error(plain, u); got != plain {
		t.Errorf("Error of a message without credentials = %v, want it as it was", got)
	}
	if Error(nil, u) != nil {
		t.Error("Error(nil) != nil")
	}
}

// TestCredential names the parameters that bear a credential.
func TestCredential(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "sslpassword": true, "PASSWD": true, "pwd": true, "secret": true,
		"client_secret": true, "Client-Secret": true, "token": true, "access_token": true,
		"api_key": true, "apikey": true, "X-Amz-Signature": true, "key": true, "auth": true,
		"authorization": true, "credentials": true, "aws_secret_access_key": true, "pass%77ord": true,
		"sslkey": false, "sslcert": false, "passfile": false, "require_auth": false, "user": false,
		"sslmode": false, "keys": false, "prefix": false, "region": false,
	} {
		if got := Credential(name); got != want {
			t.Errorf("Credential(%q) = %v, want %v", name, got, want)
		}
	}
}

// FuzzURL puts a secret in each place of a URL that bears a credential,
// unescaped and escaped, and checks that no piece of it shows in URL's
// result. bind's FuzzRedact checks the openers' errors too; this one
// builds and runs fast enough to fuzz for long.
func FuzzURL(f *testing.F) {
	places := []func(s string) string{
		func(s string) string { return "postgres://app:" + s + "@db:5432/app?sslmode=disable" },
		func(s string) string { return "postgres://app:" + url.UserPassword("", s).String()[1:] + "@db/app" },
		func(s string) string { return "postgres://app@db/app?sslmode=disable&password=" + inQuery(s) },
		func(s string) string {
			return "postgres://app@db/app?sslpassword=" + url.QueryEscape(s) + "&sslmode=disable"
		},
		func(s string) string { return "redis://:" + s + "@127.0.0.1:6379/0?prefix=a:" },
		func(s string) string {
			return "s3://AKID:" + s + "@bucket?region=auto&aws_secret_access_key=" + inQuery(s)
		},
		func(s string) string { return "https://h/cb?state=x#access_token=" + inQuery(s) },
		func(s string) string { return "//h/x?client_secret=" + inQuery(s) + "&a=1" },
	}
	for _, s := range []string{"Sekr1t-pw-0042", "p%zzw0rd", "a@b:c#d?e/f", "12#frag@host", "a?token=b@c", "mot-de-passe-é日本", "xxxxx-Secret"} {
		for i := range places {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, secret string, i uint8) {
		if len(secret) > 64 {
			t.Skip("the check is quadratic in the secret's length")
		}
		place := places[int(i)%len(places)]
		s := place(secret)
		got := URL(s)
		if w := redacttest.Leaked(secret, got, URL(place(redacttest.Rot(secret)))); w != "" {
			t.Errorf("URL(%q) = %q, which shows %q of the secret", s, got, w)
		}
	})
}

// inQuery writes a secret unescaped into a query value, but for '&', which
// ends a value in every reading of a URL.
func inQuery(s string) string { return strings.ReplaceAll(s, "&", "%26") }

// TestSecrets hides every secret, a secret that holds another as well as
// the other, whatever order they come in, and leaves the rest.
func TestSecrets(t *testing.T) {
	for _, tt := range []struct {
		text    string
		secrets []string
		want    string
	}{
		{"key sk-123 refused", []string{"sk-123"}, "key [redacted] refused"},
		{"sk-123 and sk-123", []string{"sk-123"}, "[redacted] and [redacted]"},
		{"no key here", []string{"sk-123"}, "no key here"},
		{"empty secrets leave the text", []string{"", ""}, "empty secrets leave the text"},
		{"empty secrets leave the text", nil, "empty secrets leave the text"},
		{"token abcd-efgh, prefix abcd", []string{"abcd", "abcd-efgh"}, "token [redacted], prefix [redacted]"},
		{"token abcd-efgh, prefix abcd", []string{"abcd-efgh", "abcd"}, "token [redacted], prefix [redacted]"},
		{"Bearer k1 and X-Key k2", []string{"k1", "k2"}, "Bearer [redacted] and X-Key [redacted]"},
	} {
		if got := Secrets(tt.text, tt.secrets...); got != tt.want {
			t.Errorf("Secrets(%q, %q) = %q, want %q", tt.text, tt.secrets, got, tt.want)
		}
	}
}
