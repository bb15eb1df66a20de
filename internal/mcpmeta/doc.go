// Package mcpmeta holds the keys hands puts in the _meta of what it sends
// over MCP, for the packages that write them (mcpserver) and those that
// read them back (mcpclient; compat, whose snapshot file is a tools/list
// result, spells them in struct tags and tests that they agree).
package mcpmeta

// Keys of a listed tool's _meta.
const (
	// Version is the tool's version (tool.WithVersion), a string.
	Version = "com.github.hands-go/version"
	// MigratesFrom lists the earlier versions whose calls the tool still
	// accepts, upgraded by its migrations (tool.Migrate), as an array of
	// strings, nearest first.
	MigratesFrom = "com.github.hands-go/migratesFrom"
	// MaxResultSizeChars is Claude Code's key for how large a tool's
	// results may be, in characters, before the client keeps them apart
	// from the model's context (a number, up to MaxResultSizeCharsCeiling).
	// A server declares it in the tool's _meta in tools/list; see
	// https://code.claude.com/docs/en/mcp ("Raise the limit for a specific
	// tool").
	MaxResultSizeChars = "anthropic/maxResultSizeChars"
)

// MaxResultSizeCharsCeiling is the largest MaxResultSizeChars Claude Code
// takes; hands neither sends nor reads a larger one.
const MaxResultSizeCharsCeiling = 500_000

// Keys of the _meta of a call's result.
const (
	// Issues are the issues of a call with invalid arguments, an array of
	// {"path", "keyword", "message"} objects.
	Issues = "com.github.hands-go/issues"
	// MigratedFrom is the version a call was made against, a string, when
	// the tool's migrations upgraded it (tool.RepairMigrated).
	MigratedFrom = "com.github.hands-go/migratedFrom"
	// Cut says how a result was cut to its budget (tool.Cut): an object
	// with the budget, the whole's size, the handle read_result reads it
	// by, and the arrays shortened.
	Cut = "com.github.hands-go/cut"
)

// MaxMigratesFrom bounds how many versions hands reads from another
// server's MigratesFrom; a longer list is not read.
const MaxMigratesFrom = 64

// MaxVersionBytes bounds a version read from another server's _meta; a
// longer one is not a version hands takes.
const MaxVersionBytes = 128
