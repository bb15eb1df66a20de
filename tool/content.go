package tool

import (
	"reflect"
	"strconv"
	"strings"
)

// A PartKind says what a Part holds.
type PartKind string

// The kinds of Part.
const (
	PartText     PartKind = "text"     // Text
	PartImage    PartKind = "image"    // MIME and Data
	PartAudio    PartKind = "audio"    // MIME and Data
	PartResource PartKind = "resource" // a resource embedded whole: URI, MIME, and Text or Data
	PartLink     PartKind = "link"     // a link to a resource the client may read: URI, Name, MIME
)

// A Part is one piece of a rich result: text, an image, audio, an embedded
// resource or a link to one. A handler returns rich content by having Part
// or []Part as its output type:
//
//	func(ctx context.Context, a Args) ([]tool.Part, error) {
//		return []tool.Part{tool.Text("Here is the chart."), tool.Image("image/png", png)}, nil
//	}
//
// The result then carries the parts in Result.Parts, for clients that show
// them (an MCP client gets each as MCP content), and a text rendering of
// them in Result.Content, for those that take text only (see [PartsText]).
// Build parts with [Text], [Image], [Audio], [Resource], [ResourceBlob] and
// [Link].
type Part struct {
	Kind PartKind `json:"kind"`               // what the part is, which says which fields hold it
	Text string   `json:"text,omitempty"`     // PartText; a text resource's content
	MIME string   `json:"mimeType,omitempty"` // the media type of Data, of a resource, or of what a link points to
	Data []byte   `json:"data,omitempty"`     // the bytes of an image, audio, or a binary resource
	URI  string   `json:"uri,omitempty"`      // a resource's URI or a link's target
	Name string   `json:"name,omitempty"`     // a link's name, for people

	// What a link says of its target, for people and clients: its title,
	// a description, and its size in bytes when known.
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	// Annotations say whom the part is for and how much it matters; nil
	// says nothing.
	Annotations *PartAnnotations `json:"annotations,omitempty"`
	// Meta is data for the client's software, not for the model, passed
	// on as it came (MCP's _meta); nil when there is none.
	Meta map[string]any `json:"_meta,omitempty"`
}

// PartAnnotations say whom a part is for and how much it matters, as MCP's
// content annotations do: a client may show a part for the user only, or
// leave out a part of low priority.
type PartAnnotations struct {
	Audience     []string `json:"audience,omitempty"`     // "user", "assistant", or both
	Priority     float64  `json:"priority,omitempty"`     // 0 (optional) to 1 (required)
	LastModified string   `json:"lastModified,omitempty"` // when the content last changed, in ISO 8601
}

// Text returns a text part.
func Text(s string) Part { return Part{Kind: PartText, Text: s} }

// Image returns an image part of the given media type, such as "image/png".
func Image(mime string, data []byte) Part { return Part{Kind: PartImage, MIME: mime, Data: data} }

// Audio returns an audio part of the given media type, such as "audio/wav".
func Audio(mime string, data []byte) Part { return Part{Kind: PartAudio, MIME: mime, Data: data} }

// Resource returns a text resource embedded in the result.
func Resource(uri, mime, text string) Part {
	return Part{Kind: PartResource, URI: uri, MIME: mime, Text: text}
}

// ResourceBlob returns a binary resource embedded in the result.
func ResourceBlob(uri, mime string, data []byte) Part {
	return Part{Kind: PartResource, URI: uri, MIME: mime, Data: data}
}

// Link returns a link to a resource that the client may read itself. mime
// may be empty.
func Link(uri, name, mime string) Part { return Part{Kind: PartLink, URI: uri, Name: name, MIME: mime} }

// PartsText renders parts as text, each on lines of its own, for a reader
// of text only: text as it is, a text resource as its URI and then its
// text, and every other part as a bracketed note of what it is, such as
// "[image image/png, 5120 bytes]" or "[link report: file:///r.pdf]". It is
// the Content of a result whose output is parts.
func PartsText(parts []Part) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case p.Kind == PartText:
			b.WriteString(p.Text)
		case p.Kind == PartResource && p.Data == nil:
			b.WriteString("[resource " + p.URI + "]\n" + p.Text)
		case p.Kind == PartLink:
			b.WriteString("[link ")
			if p.Name != "" {
				b.WriteString(p.Name + ": ")
			}
			b.WriteString(p.URI + "]")
		default:
			b.WriteString("[" + string(p.Kind))
			if p.URI != "" {
				b.WriteString(" " + p.URI)
			}
			if p.MIME != "" {
				b.WriteString(" " + p.MIME)
			}
			b.WriteString(", " + strconv.Itoa(len(p.Data)) + " bytes]")
		}
	}
	return b.String()
}

var (
	partType  = reflect.TypeFor[Part]()
	partsType = reflect.TypeFor[[]Part]()

	modelTexterType = reflect.TypeFor[ModelTexter]()
)

// partsOf returns an output's parts, when its type is Part or []Part.
func partsOf(output any) ([]Part, bool) {
	switch v := output.(type) {
	case Part:
		return []Part{v}, true
	case []Part:
		return v, true
	}
	return nil, false
}
