package urlmux

import (
	"net/url"
	"strings"
	"testing"
)

// TestCheckParams names an unknown parameter without the credentials of
// the URL, and refuses a query that does not parse, which url.URL.Query
// would drop a parameter of in silence.
func TestCheckParams(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"redis://:Sekr1t-a@h/0?password=Sekr1t-b&x=1", `unknown query parameter "password"`},
		{"postgres://h/db?sslpassword=Sekr1t-b&nonsense=1", `unknown query parameter "nonsense"`},
		{"redis://h/0?prefix=a&password=Sekr1t%zz", "the query does not parse"},
		{"redis://h/0?prefix=a;password=Sekr1t-b", "the query does not parse"},
		// A '#' in a value: the rest is a fragment, which url.URL.String
		// writes again with a '&' of its own unescaped.
		{"postgres://h/db?sslpassword=Sek#r1t%26Sekr1t&x=1", "the URL has a fragment"},
		{"redis://:12#Sekr1t@h/0", "the URL has a fragment"},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckParams("kv", u, "prefix", "sslpassword")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckParams(%s) = %v, want an error saying %s", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "Sekr1t") {
			t.Errorf("CheckParams(%s) = %v, which holds a password", c.url, err)
		}
	}
	u, _ := url.Parse("redis://h/0?prefix=a")
	if err := CheckParams("kv", u, "prefix"); err != nil {
		t.Errorf("CheckParams of known parameters = %v", err)
	}
}
