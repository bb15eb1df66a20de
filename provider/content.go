package provider

import (
	"slices"

	"github.com/hands-go/hands/tool"
)

// ResultParts returns what an adapter sends of a tool result's parts
// (agent.Message.Parts) to a provider that takes some media in a tool
// result: each part that media accepts, as it is, and between them the
// text of the other parts, rendered as tool.PartsText renders them, as
// one text part per run; a run whose text is empty is left out. It
// returns nil when media accepts none of the parts, in which case the
// adapter sends the message's text.
func ResultParts(parts []tool.Part, media func(tool.Part) bool) []tool.Part {
	if !slices.ContainsFunc(parts, media) {
		return nil
	}
	var out []tool.Part
	start := 0
	flush := func(end int) {
		if text := tool.PartsText(parts[start:end]); text != "" {
			out = append(out, tool.Text(text))
		}
	}
	for i, p := range parts {
		if media(p) {
			flush(i)
			out = append(out, p)
			start = i + 1
		}
	}
	flush(len(parts))
	return out
}

// Images returns a test for ResultParts that accepts an image part of one
// of the given media types.
func Images(mimes ...string) func(tool.Part) bool {
	return func(p tool.Part) bool { return p.Kind == tool.PartImage && slices.Contains(mimes, p.MIME) }
}
