package dialect

import (
	"strconv"
	"strings"
)

// A Pass is one rewrite or check that Convert applies to a schema, beyond
// the keyword table. A dialect's Passes is a set of them, combined with |:
//
//	d.Passes = dialect.CloseObjects | dialect.RequireAll
//
// Convert applies them in one walk of the schema, in a fixed order; the
// order of the constants below is not significant.
type Pass uint32

// The passes a dialect may apply.
const (
	// TypedValues leaves out, as an error, a schema that accepts a value
	// of any type ({} or true), which the provider cannot express.
	TypedValues Pass = 1 << iota
	// CloseObjects writes additionalProperties false on every object; a
	// map (additionalProperties with a schema) cannot be expressed.
	CloseObjects
	// RequireAll lists every property in required, and widens each
	// optional one to accept null instead (type [T, "null"], or anyOf with
	// null around a $ref).
	RequireAll
	// OneOfAsAnyOf writes oneOf as anyOf, and says in the description that
	// exactly one of the alternatives applies.
	OneOfAsAnyOf
	// WrapRefSiblings moves the keywords beside a $ref into a one-branch
	// anyOf around it, where a reference must stand alone.
	WrapRefSiblings
	// StripRefSiblings drops the keywords beside a $ref, where a reference
	// must stand alone, as Anthropic's SDK does; each one dropped is a
	// warning.
	StripRefSiblings
	// InlineRefs writes each reference out where it is used and drops
	// $defs, for a provider without $ref; a recursive type is written out
	// RecursionDepth times inside itself, then cut, and is an error.
	InlineRefs
	// NoRecursion leaves out, as an error, the reference that closes the
	// cycle of a recursive type.
	NoRecursion
	// RecurseThroughOptional leaves out, as an error, the reference that
	// closes a cycle passing through required properties only.
	RecurseThroughOptional
	// OpenAPITypes writes types as the OpenAPI 3.0 Schema object Gemini
	// reads: one upper-case type, nullable: true for null (a null branch
	// of anyOf included), a one-branch anyOf merged into its schema, no
	// additionalProperties, and no object without properties.
	OpenAPITypes
	// OmitEmptyRoot converts a root object without properties to nil: a
	// tool without arguments sends no parameters.
	OmitEmptyRoot
	// OrderProperties adds propertyOrdering, the order of the properties,
	// to every object with more than one.
	OrderProperties
	// ConstAsEnum writes const as a one-value enum, or folds it when the
	// enum rules would not keep that value.
	ConstAsEnum
	// StringEnums keeps enums of strings and folds any other enum into
	// the description ("one of 1, 2, 3"), numbers included; null in an
	// enum becomes nullable.
	StringEnums
	// StringNumberEnums keeps only enums of strings and numbers, folding
	// the others; null in an enum becomes anyOf the enum and null.
	StringNumberEnums
	// ScalarEnums leaves out, as an error, an enum or const that holds an
	// array or an object.
	ScalarEnums
	// PlainPatterns folds a pattern that uses backreferences, look-arounds
	// or word boundaries.
	PlainPatterns
	// MinItemsZeroOrOne writes a minItems above 1 as 1 and folds the rest.
	MinItemsZeroOrOne
	// NoRefInAllOf leaves out, as an error, an allOf with a $ref in it.
	NoRefInAllOf
)

var passNames = []string{
	"TypedValues", "CloseObjects", "RequireAll", "OneOfAsAnyOf", "WrapRefSiblings",
	"StripRefSiblings", "InlineRefs", "NoRecursion", "RecurseThroughOptional",
	"OpenAPITypes", "OmitEmptyRoot", "OrderProperties", "ConstAsEnum", "StringEnums",
	"StringNumberEnums", "ScalarEnums", "PlainPatterns", "MinItemsZeroOrOne", "NoRefInAllOf",
}

// String names the passes of the set, joined with "|".
func (p Pass) String() string {
	if p == 0 {
		return "0"
	}
	var names []string
	for i, name := range passNames {
		if p&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if rest := p &^ (1<<len(passNames) - 1); rest != 0 {
		names = append(names, "Pass(0x"+strconv.FormatUint(uint64(rest), 16)+")")
	}
	return strings.Join(names, "|")
}

// has reports whether the dialect applies every pass of p.
func (d *Dialect) has(p Pass) bool { return d.Passes&p == p }

// plainPattern reports whether a pattern is one PlainPatterns keeps: it
// uses no backreference, look-around or word boundary, the features
// Anthropic's structured outputs reject.
func plainPattern(p string) bool {
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			if c := p[i+1]; c == 'b' || c == 'B' || '1' <= c && c <= '9' {
				return false
			}
			i++
		case strings.HasPrefix(p[i:], "(?="), strings.HasPrefix(p[i:], "(?!"),
			strings.HasPrefix(p[i:], "(?<="), strings.HasPrefix(p[i:], "(?<!"):
			return false
		}
	}
	return true
}
