package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"github.com/hands-go/hands/internal/urlmux"
)

// An Opener opens the databases of one URL scheme. Each driver package has
// one and registers it on DefaultURLMux in its init function.
type Opener interface {
	// OpenDB opens the database at u, whose scheme is the opener's. It
	// rejects query parameters it does not know, and its errors never hold
	// a credential: where they name the URL, the password of its user
	// information and the value of every parameter that bears a credential
	// (password, sslpassword, token, …) are redacted, as CheckParams does.
	// u.Redacted is not enough: it keeps the query.
	OpenDB(ctx context.Context, u *url.URL) (*sql.DB, error)
}

// A URLMux sends a database URL to the opener of its scheme. The zero value
// is ready to use.
type URLMux struct{ m urlmux.Mux[Opener] }

// Register makes o the opener of scheme. It panics if the scheme already
// has one, which is a mistake in the program.
func (m *URLMux) Register(scheme string, o Opener) { m.m.Register("sqldb", scheme, o) }

// Schemes returns the registered schemes, sorted.
func (m *URLMux) Schemes() []string { return m.m.Schemes() }

// ValidScheme reports whether scheme has an opener.
func (m *URLMux) ValidScheme(scheme string) bool {
	_, ok := m.m.Lookup(scheme)
	return ok
}

// OpenDB opens the database at the URL s through the opener of its scheme.
// A URL that does not parse is an error that does not quote it; the
// openers' errors hold no credential (see Opener).
func (m *URLMux) OpenDB(ctx context.Context, s string) (*sql.DB, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return nil, errors.New("sqldb: want a database URL, such as sqlite:///var/lib/app.db or postgres://user@host/db")
	}
	o, ok := m.m.Lookup(u.Scheme)
	if !ok {
		return nil, fmt.Errorf("sqldb: no driver for the scheme %q; the schemes are %v (import a driver package such as sqldb/sqlitedb)", u.Scheme, m.Schemes())
	}
	return o.OpenDB(ctx, u)
}

var defaultMux URLMux

// DefaultURLMux returns the mux that the driver packages register on and
// that Open uses.
func DefaultURLMux() *URLMux { return &defaultMux }

// Open opens the database at the URL s through DefaultURLMux. The result is
// a plain *sql.DB, with the pool limits the driver set; close it when done.
func Open(ctx context.Context, s string) (*sql.DB, error) {
	return defaultMux.OpenDB(ctx, s)
}

// CheckParams returns an error naming the first query parameter of u that
// is not among known, so that a misspelt option is not silently ignored,
// or saying that the query does not parse (a bad %-escape), since
// u.Query would drop the parameter, or that the URL has a fragment (a '#'
// written unescaped in a password or a value, which ends it there). The
// error names the URL with its credentials redacted. A driver's opener
// calls it first.
func CheckParams(u *url.URL, known ...string) error {
	return urlmux.CheckParams("sqldb", u, known...)
}
