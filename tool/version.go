package tool

// A SpecVersioner is a tool that says when its spec changes, so that what
// follows a registry, such as an MCP server's Sync, builds a spec again
// only when it has. SpecVersion returns a number that changes whenever
// Spec would return something different; 0 means the spec never changes,
// and a tool whose spec may change never returns it. The tools of New and
// NewRaw never change their specs; a tool without the method may change
// its spec at any time, and is read again each time.
type SpecVersioner interface {
	SpecVersion() uint64
}

// SpecVersion returns 0: a tool's spec never changes.
func (t *Tool[In, Out]) SpecVersion() uint64 { return 0 }

// SpecVersion returns 0: a raw tool's spec never changes.
func (t *RawTool) SpecVersion() uint64 { return 0 }

// gated reports whether the tool has an enabled predicate (WithEnabled)
// or a sunset (WithDeprecated), after which it is disabled; one with
// neither is always enabled, and a registry need not ask it.
func (c *core) gated() bool {
	return c.enabled != nil || (c.deprecation != nil && !c.deprecation.Sunset.IsZero())
}

// A gatedTool is a tool that knows whether it has an enabled predicate.
type gatedTool interface{ gated() bool }
