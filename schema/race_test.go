//go:build race

package schema

// The race detector slows the decoder several times over, so the hostile
// tests' guard against super-linear cost allows for it.
func init() { hostileDeadline *= 5 }
