package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/hands-go/hands/schema"
)

// RepairMigrated records a call made against an earlier version of the
// tool's input, upgraded by its migrations (Migrate, MigrateJSON) before it
// was validated against the current one; its Version is the version the
// call was made against. It is recorded on the result like the repairs,
// so that a history says which calls were made against an old version.
const RepairMigrated RepairKind = "migrated"

// MaxMigrations bounds how many migrations a tool may have, and so how
// many earlier versions stay callable and how long a chain of upgrades
// can be. A call that fails the current input costs at most this many
// first steps (one per earlier version, to find the one it was made
// against) and then at most this many more (the chain from that version).
const MaxMigrations = 16

// A migration is one step from an earlier version's input to a later one.
type migration struct {
	from string       // the version the step upgrades calls of; "" when the tool has none
	to   string       // the version it produces: declared by MigrateJSON, resolved for Migrate
	old  reflect.Type // Migrate's Old: the input of version from; nil for MigrateJSON
	new  reflect.Type // Migrate's New; nil for MigrateJSON
	next *migration   // the step that takes what this one produces; nil for the last

	upgrade func(args json.RawMessage) (json.RawMessage, error)
}

// Migrate accepts calls made against an earlier version of the tool, from
// (WithVersion; "" for a tool that declares no version), whose input was
// the type Old: a call whose arguments fail the current input schema but
// are valid for Old (its own schema, with its tags) is upgraded by up, and
// the result is validated against the current input as any call is. The
// call then runs as if it had been made against the current version, and
// its result records a RepairMigrated repair whose Version is from. Such
// calls come from a model's cached tool list, a history written before a
// deploy, an MCP session that listed the tools before the change. An error
// from up leaves the call failing with its validation error against the
// current input.
//
// Migrations chain: New is either the tool's input type, so that up
// produces a call of the current version, or the Old of another migration,
// so that up produces a call of that migration's version, which goes on
// from there. A tool at version 3 with Migrate("1", func(V1) (V2, error))
// and Migrate("2", func(V2) (V3, error)) upgrades a call made against
// version 1 through both steps, validating it against V2's schema between
// them. The chain is checked when the tool is built: a New that is no
// version's input (a gap), two migrations from one version, a cycle, more
// than MaxMigrations migrations, and Migrate on a RawTool (use
// MigrateJSON) are definition errors.
func Migrate[Old, New any](from string, up func(Old) (New, error)) Option {
	old, err := schema.For[Old](nil)
	return func(c *config) {
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("Migrate from %q: the previous input: %w", from, err))
			return
		}
		if up == nil {
			c.errs = append(c.errs, fmt.Errorf("Migrate from %q: the upgrade function is nil", from))
			return
		}
		c.migrations = append(c.migrations, &migration{from: from, old: reflect.TypeFor[Old](), new: reflect.TypeFor[New](),
			upgrade: func(args json.RawMessage) (json.RawMessage, error) {
				v, _, err := schema.DecodeValue[Old](old, args)
				if err != nil {
					return nil, err
				}
				n, err := up(v)
				if err != nil {
					return nil, err
				}
				return json.Marshal(n)
			}})
	}
}

// MigrateJSON is Migrate on raw JSON, for any kind of tool: up upgrades
// the arguments of a call made against version from into a call of
// version to, or returns an error when args are not a call of version
// from. to is the tool's own version (WithVersion; "" for a tool that
// declares none), or the from of another migration, which goes on from
// there; the same definition errors as Migrate's apply.
func MigrateJSON(from, to string, up func(args json.RawMessage) (json.RawMessage, error)) Option {
	return func(c *config) {
		if up == nil {
			c.errs = append(c.errs, fmt.Errorf("MigrateJSON from %q: the upgrade function is nil", from))
			return
		}
		c.migrations = append(c.migrations, &migration{from: from, to: to, upgrade: up})
	}
}

// chain checks the migrations of a tool whose input type is in (nil for a
// RawTool) and whose version is version, links each to the step that
// follows it, and returns the versions they upgrade from, those nearest
// the current version first (then in the order given), which is the order
// a call is tried against them.
func chain(migs []*migration, in reflect.Type, version string) ([]*migration, error) {
	if len(migs) == 0 {
		return nil, nil
	}
	if len(migs) > MaxMigrations {
		return nil, fmt.Errorf("%d migrations, more than MaxMigrations (%d)", len(migs), MaxMigrations)
	}
	byFrom := make(map[string]*migration, len(migs))
	for _, m := range migs {
		switch {
		case m.from != "" && version == "":
			return nil, fmt.Errorf("the migration is from version %q, but the tool declares no version of its own (WithVersion)", m.from)
		case m.from == "" && version != "":
			return nil, fmt.Errorf("the tool is version %q, but a migration does not say which version it upgrades from", version)
		case m.from != "" && m.from == version:
			return nil, fmt.Errorf("a migration is from version %q, the tool's own version", m.from)
		case byFrom[m.from] != nil:
			return nil, fmt.Errorf("two migrations from version %q", m.from)
		case m.old != nil && in == nil:
			return nil, errors.New("Migrate does not apply to a raw tool, whose input is not a Go type; use MigrateJSON")
		case m.old != nil && m.old == in:
			return nil, fmt.Errorf("the migration from version %q takes the tool's current input, %v: the calls it accepts never need upgrading", m.from, in)
		}
		byFrom[m.from] = m
	}
	for _, m := range migs {
		if err := m.link(migs, byFrom, in, version); err != nil {
			return nil, err
		}
	}
	steps := make(map[*migration]int, len(migs))
	for _, m := range migs {
		n := 0
		for s := m; s != nil; s = s.next {
			if n++; n > len(migs) {
				return nil, fmt.Errorf("the migrations from version %q form a cycle: %s", m.from, cycle(m))
			}
		}
		steps[m] = n
	}
	starts := slices.Clone(migs)
	slices.SortStableFunc(starts, func(a, b *migration) int { return steps[a] - steps[b] })
	return starts, nil
}

// link finds the step that takes what m produces: none when m produces
// the current version.
func (m *migration) link(migs []*migration, byFrom map[string]*migration, in reflect.Type, version string) error {
	if m.new == nil { // MigrateJSON: the version it produces is declared
		switch {
		case m.to == version:
			return nil
		case m.to == m.from:
			return fmt.Errorf("the migration from version %q produces version %q itself", m.from, m.to)
		case byFrom[m.to] == nil:
			return fmt.Errorf("the migration from version %q produces version %q, which is neither the tool's version (%q) nor one a migration upgrades from", m.from, m.to, version)
		}
		m.next = byFrom[m.to]
		return nil
	}
	if m.new == in {
		m.to = version
		return nil
	}
	var next []*migration
	for _, o := range migs {
		if o.old == m.new {
			next = append(next, o)
		}
	}
	switch len(next) {
	case 0:
		return fmt.Errorf("the migration from version %q produces %v, which is neither the tool's input (%v) nor the previous input of another migration", m.from, m.new, in)
	case 1:
		m.to, m.next = next[0].from, next[0]
		return nil
	}
	return fmt.Errorf("the migration from version %q produces %v, the previous input of several migrations (from %q and %q)", m.from, m.new, next[0].from, next[1].from)
}

// cycle names the versions of the cycle that the chain from m runs into.
func cycle(m *migration) string {
	seen := map[*migration]bool{}
	for !seen[m] {
		seen[m] = true
		m = m.next
	}
	names := []string{strconv.Quote(m.from)}
	for s := m.next; s != m; s = s.next {
		names = append(names, strconv.Quote(s.from))
	}
	return strings.Join(append(names, strconv.Quote(m.from)), " → ")
}

// WithVersion declares the tool's version, such as "2" or "2026-11-01":
// its spec carries it (Spec.Version, and an MCP tool's _meta), each
// result records it (Result.Version), and the agent's history records it
// on the tool message of each call. A migration (Migrate, MigrateJSON)
// names the version it upgrades from, which the result of an upgraded
// call records too (Repair.Version), so a history says which version each
// call was made against. Any non-empty string is a version; hands only
// compares them for equality.
func WithVersion(version string) Option {
	return func(c *config) {
		if strings.TrimSpace(version) == "" {
			c.errs = append(c.errs, errors.New("WithVersion: the version is empty"))
			return
		}
		c.version = version
	}
}

// migratesFrom returns the versions the tool's migrations upgrade from,
// nearest first, for its Spec; nil when it has none, or declares no
// version (its one migration then has no version to name).
func (c *core) migratesFrom() []string {
	if c.version == "" || len(c.migrations) == 0 {
		return nil
	}
	out := make([]string, len(c.migrations))
	for i, m := range c.migrations {
		out[i] = m.from
	}
	return out
}

// migrated is the repair that records a call upgraded from version from.
func migrated(from string) Repair {
	return Repair{Kind: RepairMigrated, Version: from}
}

// migrate upgrades args written for an earlier version through the chain
// of migrations to the current one, or reports that it cannot, and returns
// the version the call was made against. The earlier versions are tried
// nearest first; the first whose step accepts args is the version the call
// was made against, and a later step refusing what the one before produced
// fails the call. A panic in a step counts as a refusal.
func (c *core) migrate(args json.RawMessage) (up json.RawMessage, from string, ok bool) {
	defer func() {
		if recover() != nil {
			up, from, ok = nil, "", false
		}
	}()
	for _, start := range c.migrations {
		up, err := c.step(start, args)
		if err != nil {
			continue
		}
		for s := start.next; s != nil; s = s.next {
			if up, err = c.step(s, up); err != nil {
				return nil, "", false
			}
		}
		return up, start.from, true
	}
	return nil, "", false
}

// step runs one migration and holds what it produces to the tool's limits.
func (c *core) step(m *migration, args json.RawMessage) (json.RawMessage, error) {
	up, err := m.upgrade(args)
	if err != nil {
		return nil, err
	}
	if up == nil {
		return nil, errors.New("the upgrade produced nothing")
	}
	if err := c.limits.CheckJSON(up); err != nil {
		return nil, err
	}
	return up, nil
}

// Check holds args to the tool's input as a call would be held, migrations
// included, without calling the tool: it returns nil when a call with args
// would reach the handler, and the earlier version whose migration
// upgraded args ("" when they fit the current input as they are).
// tooltest.Snapshot runs calls written for an earlier version through it,
// to show that a migration the tool declares does accept them.
func (t *Tool[In, Out]) Check(args json.RawMessage) (from string, err error) {
	_, repairs, err := t.decode(args, "")
	return migratedFrom(repairs), err
}

// Check is Tool.Check for a raw tool.
func (t *RawTool) Check(args json.RawMessage) (from string, err error) {
	args, repairs := t.repairWhole(args)
	_, repairs, err = t.checkOrMigrate(args, repairs, "")
	return migratedFrom(repairs), err
}

// migratedFrom returns the version of a RepairMigrated among repairs, or "".
func migratedFrom(repairs []Repair) string {
	for _, r := range repairs {
		if r.Kind == RepairMigrated {
			return r.Version
		}
	}
	return ""
}
