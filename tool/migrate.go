package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/hands-go/hands/schema"
)

// RepairMigrated records a call made against the tool's previous input,
// upgraded by its migration (Migrate, MigrateJSON) before it was validated
// against the current one. It is recorded on the result like the repairs,
// so that a history says which calls were made against the old version.
const RepairMigrated RepairKind = "migrated"

// A migration upgrades arguments written for a tool's previous input.
type migration struct {
	from    string       // the version the upgraded calls were made against; "" when the tool has none
	to      reflect.Type // the input type the upgrade produces; nil for MigrateJSON
	upgrade func(args json.RawMessage) (json.RawMessage, error)
}

// Migrate accepts calls made against the tool's previous input type Old,
// the input of its version from (WithVersion; "" for a tool that declares
// no version):
// a call whose arguments fail the current input schema but are valid for
// Old (its own schema, with its tags) is upgraded by up, and the result is
// validated against the current input as any call is. The call then runs
// as if it had been made against the current version, and its result
// records a RepairMigrated repair whose Version is from. Such calls come from a model's cached
// tool list, a history written before a deploy, an MCP session that listed
// the tools before the change. New must be the tool's input type: anything
// else is a definition error, as is Migrate on a RawTool (use MigrateJSON).
// An error from up leaves the call failing with its validation error
// against the current input.
func Migrate[Old, New any](from string, up func(Old) (New, error)) Option {
	old, err := schema.For[Old](nil)
	return func(c *config) {
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("Migrate: the previous input: %w", err))
			return
		}
		if up == nil {
			c.errs = append(c.errs, errors.New("Migrate: the upgrade function is nil"))
			return
		}
		c.migration = &migration{from: from, to: reflect.TypeFor[New](), upgrade: func(args json.RawMessage) (json.RawMessage, error) {
			v, _, err := schema.DecodeValue[Old](old, args)
			if err != nil {
				return nil, err
			}
			n, err := up(v)
			if err != nil {
				return nil, err
			}
			return json.Marshal(n)
		}}
	}
}

// MigrateJSON is Migrate on raw JSON, for any kind of tool: up returns the
// upgraded arguments, or an error when args are not a call made against
// the previous version, from.
func MigrateJSON(from string, up func(args json.RawMessage) (json.RawMessage, error)) Option {
	return func(c *config) {
		if up == nil {
			c.errs = append(c.errs, errors.New("MigrateJSON: the upgrade function is nil"))
			return
		}
		c.migration = &migration{from: from, upgrade: up}
	}
}

// check reports a migration that does not fit a tool whose input
// type is in (nil for a RawTool) and whose version is version.
func (m *migration) check(in reflect.Type, version string) error {
	switch {
	case m == nil:
		return nil
	case m.from != "" && version == "":
		return fmt.Errorf("the migration is from version %q, but the tool declares no version of its own (WithVersion)", m.from)
	case m.from == "" && version != "":
		return fmt.Errorf("the tool is version %q, but its migration does not say which version it upgrades from", version)
	case m.from != "" && m.from == version:
		return fmt.Errorf("the migration is from version %q, the tool's own version", m.from)
	case m.to == nil:
		return nil
	case in == nil:
		return errors.New("Migrate does not apply to a raw tool, whose input is not a Go type; use MigrateJSON")
	case m.to != in:
		return fmt.Errorf("Migrate produces %v, but the tool's input is %v", m.to, in)
	}
	return nil
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

// migrated is the repair that records a call upgraded by the migration.
func (c *core) migrated() Repair {
	return Repair{Kind: RepairMigrated, Version: c.migration.from}
}

// migrate upgrades args written for the previous input, or reports that
// they are not; a panic in the upgrade counts as not.
func (c *core) migrate(args json.RawMessage) (up json.RawMessage, ok bool) {
	if c.migration == nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			up, ok = nil, false
		}
	}()
	up, err := c.migration.upgrade(args)
	if err != nil || up == nil || c.limits.CheckJSON(up) != nil {
		return nil, false
	}
	return up, true
}
