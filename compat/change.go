package compat

import (
	"cmp"
	"fmt"
	"slices"
)

// An Effect says what a change does to the callers of a tool.
type Effect int

const (
	// Compatible: every call (input) or every result (output) that was
	// valid before is still valid.
	Compatible Effect = iota
	// Breaking: some call or result that was valid before is not any
	// more.
	Breaking
	// Unknown: the check cannot decide (two different patterns, a remote
	// $ref, a limit on the work reached). It counts as breaking.
	Unknown
	// Migrated: a change to a tool's input that breaks calls made against
	// the old version (Breaking or Unknown on its own), where the new
	// version of the tool declares a migration from the old one
	// (Meta.MigratesFrom), so that those calls are upgraded and still run.
	// It does not count as breaking. See Tools for the rule.
	Migrated
	// Accepted: a change that breaks (Breaking or Unknown), which a
	// reviewer has accepted with a Waiver. It does not count as breaking.
	Accepted
)

// String returns "compatible", "breaking", "unknown", "migrated" or
// "accepted".
func (e Effect) String() string {
	switch e {
	case Compatible:
		return "compatible"
	case Breaking:
		return "breaking"
	case Unknown:
		return "unknown"
	case Migrated:
		return "migrated"
	case Accepted:
		return "accepted"
	}
	return fmt.Sprintf("Effect(%d)", int(e))
}

// A Change is one difference between two versions of a tool.
type Change struct {
	// Tool names the tool changed; empty when a schema was compared alone
	// (Input, Output).
	Tool string
	// Pointer is the JSON Pointer of the change: into the tool's
	// description ("/inputSchema/properties/days/maximum") for Tools, into
	// the schema for Input and Output; "" is the whole tool or schema. A
	// $ref is followed as if its target were written in its place, so the
	// pointer says where in the arguments the change is felt.
	Pointer string
	// Kind is the schema keyword that changed ("type", "maximum",
	// "required", "properties") or one of the tool-level kinds (KindTool,
	// KindAnnotations, KindOutputSchema, KindLimit).
	Kind string
	// Effect says whether the change breaks callers.
	Effect Effect
	// Message says what changed, old value before new, for people.
	Message string
}

// Tool-level kinds of change and the kind of the check giving up.
const (
	KindTool         = "tool"         // a tool added or removed
	KindAnnotations  = "annotations"  // a behaviour hint changed
	KindOutputSchema = "outputSchema" // an output schema added or removed
	KindDescription  = "description"  // the tool's description or title changed
	KindLimit        = "limit"        // the check stopped at Options.MaxSteps or MaxDepth
	KindVersion      = "version"      // the tool's version changed, or a break kept it
)

// Breaks reports whether the change counts as breaking: its Effect is
// Breaking or Unknown.
func (c Change) Breaks() bool { return c.Effect == Breaking || c.Effect == Unknown }

// String formats the change on one line: effect, tool, pointer, message.
func (c Change) String() string {
	where := c.Pointer
	switch {
	case c.Tool != "" && c.Pointer != "":
		where = c.Tool + " " + c.Pointer
	case c.Tool != "":
		where = c.Tool
	case where == "":
		where = "/"
	}
	return fmt.Sprintf("%-10s %s: %s", c.Effect, where, c.Message)
}

// Breaks reports whether any of changes counts as breaking.
func Breaks(changes []Change) bool { return slices.ContainsFunc(changes, Change.Breaks) }

// BreakingChanges returns the changes among changes that count as breaking.
func BreakingChanges(changes []Change) []Change {
	var out []Change
	for _, c := range changes {
		if c.Breaks() {
			out = append(out, c)
		}
	}
	return out
}

// sortChanges orders changes by tool, pointer, kind and message, and drops
// duplicates (a schema reached through two $refs reports its change once).
func sortChanges(changes []Change) []Change {
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Pointer, b.Pointer),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Message, b.Message), cmp.Compare(a.Effect, b.Effect))
	})
	return slices.Compact(changes)
}
