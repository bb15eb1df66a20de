package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
)

// A RepairKind names one of the repairs made to a model's arguments before
// they are validated. Each fixes a mistake models commonly make; none
// coerces a type: a "1" sent for a number is still an error the model must
// fix.
type RepairKind string

// The repairs, all on by default; WithoutRepairs turns them off.
const (
	// RepairEmptyArguments reads an empty string or null, as the whole
	// arguments, as {}.
	RepairEmptyArguments RepairKind = "empty-arguments"
	// RepairStringArguments reads a JSON string that holds a JSON object, as
	// the whole arguments, as that object.
	RepairStringArguments RepairKind = "string-arguments"
	// RepairNullOptional reads null for an optional property as absent, so
	// its default applies: the answer a model gives for an optional field
	// that a provider's strict mode made required and nullable. A field that
	// says tool:"nullable" keeps its null.
	RepairNullOptional RepairKind = "null-optional"
)

// A Repair records one repair made to a call's arguments.
type Repair struct {
	Kind RepairKind `json:"kind"`
	// Path is the JSON Pointer of what was repaired; "" is the whole
	// arguments.
	Path string `json:"path"`
}

// WithoutRepairs turns off the named repairs, or every repair when none is
// named.
func WithoutRepairs(kinds ...RepairKind) Option {
	return func(c *config) {
		if len(kinds) == 0 {
			kinds = []RepairKind{RepairEmptyArguments, RepairStringArguments, RepairNullOptional}
		}
		if c.noRepair == nil {
			c.noRepair = map[RepairKind]bool{}
		}
		for _, k := range kinds {
			c.noRepair[k] = true
		}
	}
}

// repairWhole applies the repairs that concern the whole arguments.
func (c *core) repairWhole(args json.RawMessage) (json.RawMessage, []Repair) {
	trimmed := bytes.TrimSpace(args)
	switch {
	case !c.noRepair[RepairEmptyArguments] && (len(trimmed) == 0 || string(trimmed) == "null" || string(trimmed) == `""`):
		return json.RawMessage("{}"), []Repair{{Kind: RepairEmptyArguments}}
	case !c.noRepair[RepairStringArguments] && len(trimmed) > 0 && trimmed[0] == '"':
		var inner string
		if json.Unmarshal(trimmed, &inner) != nil {
			return args, nil
		}
		if obj := bytes.TrimSpace([]byte(inner)); len(obj) > 0 && obj[0] == '{' && json.Valid(obj) {
			return obj, []Repair{{Kind: RepairStringArguments}}
		}
	}
	return args, nil
}

// logRepairs writes one log line per repair.
func (c *core) logRepairs(ctx context.Context, repairs []Repair) {
	for _, r := range repairs {
		slog.InfoContext(ctx, "tool: repaired arguments", "tool", c.name, "repair", string(r.Kind), "path", r.Path)
	}
}

// nullRepairs records the nulls the decoder counted as absent.
func nullRepairs(repairs []Repair, nulls []string) []Repair {
	for _, p := range nulls {
		repairs = append(repairs, Repair{Kind: RepairNullOptional, Path: p})
	}
	return repairs
}
