// Package urlmux is the URL mux that sqldb and kv share: openers registered
// by scheme, a duplicate a panic, unknown query parameters an error.
package urlmux

import (
	"fmt"
	"net/url"
	"slices"
	"sync"

	"github.com/hands-go/hands/internal/redact"
)

// A Mux holds the opener of each scheme. The zero value is ready to use.
type Mux[O any] struct {
	mu      sync.RWMutex
	openers map[string]O
}

// Register makes o the opener of scheme. It panics if the scheme already
// has one; pkg prefixes the message.
func (m *Mux[O]) Register(pkg, scheme string, o O) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.openers[scheme]; dup {
		panic(pkg + ": scheme " + scheme + " registered twice")
	}
	if m.openers == nil {
		m.openers = map[string]O{}
	}
	m.openers[scheme] = o
}

// Schemes returns the registered schemes, sorted.
func (m *Mux[O]) Schemes() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s := make([]string, 0, len(m.openers))
	for k := range m.openers {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Lookup returns the opener of scheme.
func (m *Mux[O]) Lookup(scheme string) (O, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	o, ok := m.openers[scheme]
	return o, ok
}

// CheckParams returns an error naming the first query parameter of u, in
// sorted order, that is not among known, or saying that the query does not
// parse, since url.URL.Query drops what it cannot read, or that u has a
// fragment, which no opener reads: it is a '#' written unescaped in a
// password or a value, which would end it there. pkg prefixes the
// message, which names the URL with its credentials redacted.
func CheckParams(pkg string, u *url.URL, known ...string) error {
	if u.Fragment != "" || u.RawFragment != "" {
		// Without the fragment, which may be the rest of a password.
		c := *u
		c.Fragment, c.RawFragment = "", ""
		return fmt.Errorf("%s: %s#…: the URL has a fragment; write # as %%23 in a password or a value", pkg, redact.URL(c.String()))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		// err quotes the bad escape, which may be part of a password.
		return fmt.Errorf("%s: %s: the query does not parse: write %% as %%25 and ; as %%3B in a value", pkg, redact.URL(u.String()))
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return fmt.Errorf("%s: %s: unknown query parameter %q; the parameters are %v", pkg, redact.URL(u.String()), k, known)
		}
	}
	return nil
}
