package bind

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hands-go/hands/internal/tagvalue"
)

// A tag is a parsed bind tag: NAME[,default=VALUE][,optional].
type tag struct {
	name     string
	def      string
	hasDef   bool
	optional bool
}

// parseTag reads a bind tag. A default may be written 'quoted' to hold
// commas, with a doubled quote standing for one quote inside.
func parseTag(s string) (tag, error) {
	var t tag
	name, rest, _ := strings.Cut(s, ",")
	if name == "" {
		return t, errors.New("the tag has no name; write bind:\"NAME\"")
	}
	if !validName(name) {
		return t, fmt.Errorf("name %q must be letters, digits and '_', not starting with a digit", name)
	}
	t.name = name
	seen := map[string]bool{}
	for rest != "" {
		var key, value string
		var hasValue bool
		entry := rest
		if i := strings.IndexAny(rest, ",="); i >= 0 && rest[i] == '=' {
			key, rest = rest[:i], rest[i+1:]
			hasValue = true
			if strings.HasPrefix(rest, "'") {
				v, after, err := unquote(rest)
				if err != nil {
					return t, fmt.Errorf("option %s: %w", key, err)
				}
				value, rest = v, after
			} else {
				value, rest, _ = strings.Cut(rest, ",")
			}
		} else {
			key, rest, _ = strings.Cut(rest, ",")
			entry = key
		}
		if seen[key] {
			return t, fmt.Errorf("option %s appears twice", key)
		}
		seen[key] = true
		switch key {
		case "default":
			if value == "" {
				return t, errors.New("the default is empty; an empty value counts as unset, so write optional instead")
			}
			t.def, t.hasDef = value, true
		case "optional":
			if hasValue {
				return t, errors.New("optional takes no value")
			}
			t.optional = true
		default:
			return t, fmt.Errorf("unknown option %q; the options are default=VALUE and optional", entry)
		}
	}
	if t.hasDef && t.optional {
		return t, errors.New("a binding with a default is never unset; drop optional")
	}
	return t, nil
}

// unquote reads a single-quoted value from the start of s (see
// [tagvalue.CutQuoted]) and returns the value and what follows its closing
// quote and comma. Unlike the tool tag of package schema, the bind tag
// allows no space between the closing quote and the comma.
func unquote(s string) (value, rest string, err error) {
	value, rest, ok := tagvalue.CutQuoted(s)
	if !ok {
		return "", "", errors.New("the quoted value has no closing quote")
	}
	if rest != "" && rest[0] != ',' {
		return "", "", errors.New("a closing quote must end the value")
	}
	return value, strings.TrimPrefix(rest, ","), nil
}

// validName reports whether name can be an environment variable's name:
// ASCII letters, digits and underscores, not starting with a digit.
func validName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return name != ""
}
