package tool

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
)

// A RepairKind names one of the repairs made to a model's arguments before
// they are validated. Each fixes a mistake models commonly make; none
// coerces a type: a "1" sent for a number is still an error the model must
// fix.
type RepairKind string

// The repairs, all on by default; WithoutRepairs turns them off. Each is
// recorded on the result and logged at debug level.
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
	// Kind says which repair was made.
	Kind RepairKind `json:"kind"`
	// Path is the JSON Pointer of what was repaired; "" is the whole
	// arguments.
	Path string `json:"path"`
	// Version is, on a RepairMigrated repair, the version of the tool the
	// call was made against: the one its migration upgrades from
	// (Migrate, MigrateJSON); "" when the tool declares no version.
	Version string `json:"version,omitempty"`
}

// repairWhole applies the repairs that concern the whole arguments. They
// run only on arguments within the size limit, and a string is unwrapped
// only when it is a valid JSON string holding a valid JSON object within the
// depth limit, read as strictly as any arguments: a repair never lets
// through what the main path would refuse.
func (c *core) repairWhole(args json.RawMessage) (json.RawMessage, []Repair) {
	if c.noRepair&(repairEmpty|repairString) == repairEmpty|repairString || c.limits.TooLarge(len(args)) {
		return args, nil
	}
	// Arguments that are an object, as nearly all are, need no repair: the
	// first byte after any white space tells, without trimming both ends.
	if i := jsonSpaceEnd(args); i < len(args) && args[i] != 'n' && args[i] != '"' {
		return args, nil
	}
	trimmed := bytes.Trim(args, " \t\r\n") // JSON's white space only
	switch {
	case c.noRepair&repairEmpty == 0 && (len(trimmed) == 0 || string(trimmed) == "null" || string(trimmed) == `""`):
		return json.RawMessage("{}"), []Repair{{Kind: RepairEmptyArguments}}
	case c.noRepair&repairString == 0 && len(trimmed) > 0 && trimmed[0] == '"':
		inner, err := jsontext.AppendUnquote(nil, trimmed)
		if err != nil {
			return args, nil // not one valid JSON string: the decoder says why
		}
		if obj := bytes.Trim(inner, " \t\r\n"); len(obj) > 0 && obj[0] == '{' && c.limits.CheckJSON(obj) == nil {
			return obj, []Repair{{Kind: RepairStringArguments}}
		}
	}
	return args, nil
}

// jsonSpaceEnd returns the index of the first byte of b that is not JSON's
// white space, or len(b).
func jsonSpaceEnd(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// nullRepairs records the nulls the decoder counted as absent.
func nullRepairs(repairs []Repair, nulls []string) []Repair {
	for _, p := range nulls {
		repairs = append(repairs, Repair{Kind: RepairNullOptional, Path: p})
	}
	return repairs
}
