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
)

// Key of the _meta of a call's error result.
const (
	// Issues are the issues of a call with invalid arguments, an array of
	// {"path", "keyword", "message"} objects.
	Issues = "com.github.hands-go/issues"
)

// MaxVersionBytes bounds a version read from another server's _meta; a
// longer one is not a version hands takes.
const MaxVersionBytes = 128
