// Package mediatype sorts the media types of HTTP responses and stored
// files into what the tools of package toolbox do with them: convert
// HTML, return text as it is, refuse binary content.
package mediatype

import (
	"mime"
	"strings"
)

// A Kind is what a tool does with content of a media type.
type Kind int

const (
	Unknown Kind = iota // no media type: sniff the body
	HTML                // a web page: convert it to Markdown
	Text                // text: return it as it is
	Binary              // anything else: refuse it
)

// Of returns the lower-case media type of a Content-Type header, without
// parameters; for a header that mime.ParseMediaType refuses, what comes
// before the first ';'.
func Of(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// textTypes are the application/ types that hold text.
var textTypes = map[string]bool{
	"application/json":         true,
	"application/xml":          true,
	"application/javascript":   true,
	"application/ecmascript":   true,
	"application/x-javascript": true,
	"application/yaml":         true,
	"application/x-yaml":       true,
	"application/toml":         true,
	"application/x-ndjson":     true,
	"application/graphql":      true,
	"application/sql":          true,
	"application/x-sh":         true,
}

// Classify says what a tool does with a media type, as Of returns it.
func Classify(media string) Kind {
	switch {
	case media == "":
		return Unknown
	case media == "text/html" || media == "application/xhtml+xml":
		return HTML
	case strings.HasPrefix(media, "text/"), textTypes[media]:
		return Text
	case strings.HasPrefix(media, "application/") && (strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml")):
		return Text
	}
	return Binary
}

// IsText reports whether a media type is text, whose charset its
// Content-Type should declare: HTML, text, and any type ending in +xml or
// +json.
func IsText(media string) bool {
	switch Classify(media) {
	case Text, HTML:
		return true
	}
	return strings.HasSuffix(media, "+xml") || strings.HasSuffix(media, "+json")
}
