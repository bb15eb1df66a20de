package toolbox

import "net/netip"

// AllowForTest lets a test reach its own loopback server: the address guard
// passes the addresses allow accepts and stays on for every other one. It
// is compiled only into this package's tests, so no program can weaken the
// guard but through AllowPrivate.
func AllowForTest(o *FetchOptions, allow func(netip.AddrPort) bool) { o.allow = allow }

// BlockedReason is the guard's classifier, for tests that need no network.
var BlockedReason = blockedReason

// GuardControl runs the guard's dialer check on an address, as the dialer
// would just before connecting to it.
func GuardControl(address string) error { return (&guard{}).control("tcp", address, nil) }

// HTMLToMarkdown is the conversion of fetch_markdown, for tests of its
// bounds that need no server.
var HTMLToMarkdown = htmlToMarkdown
