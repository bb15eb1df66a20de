package mcpserver

import (
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// content returns the MCP content of a result: its parts, each as the MCP
// content of its kind, or else its text.
func content(res *tool.Result) []mcp.Content {
	if len(res.Parts) == 0 || res.IsError {
		return []mcp.Content{&mcp.TextContent{Text: res.Content}}
	}
	out := make([]mcp.Content, 0, len(res.Parts))
	for _, p := range res.Parts {
		out = append(out, part(p))
	}
	return out
}

// part returns the MCP content of one part, with its annotations and
// _meta. A part of a kind it does not know becomes its text rendering.
func part(p tool.Part) mcp.Content {
	var a *mcp.Annotations
	if pa := p.Annotations; pa != nil {
		a = &mcp.Annotations{Priority: pa.Priority, LastModified: pa.LastModified}
		for _, role := range pa.Audience {
			a.Audience = append(a.Audience, mcp.Role(role))
		}
	}
	meta := mcp.Meta(p.Meta)
	switch p.Kind {
	case tool.PartText:
		return &mcp.TextContent{Text: p.Text, Annotations: a, Meta: meta}
	case tool.PartImage:
		return &mcp.ImageContent{MIMEType: p.MIME, Data: p.Data, Annotations: a, Meta: meta}
	case tool.PartAudio:
		return &mcp.AudioContent{MIMEType: p.MIME, Data: p.Data, Annotations: a, Meta: meta}
	case tool.PartResource:
		r := &mcp.ResourceContents{URI: p.URI, MIMEType: p.MIME}
		if p.Data != nil {
			r.Blob = p.Data
		} else {
			r.Text = p.Text
		}
		return &mcp.EmbeddedResource{Resource: r, Annotations: a, Meta: meta}
	case tool.PartLink:
		name := p.Name
		if name == "" {
			name = p.URI // the protocol requires a name
		}
		return &mcp.ResourceLink{URI: p.URI, Name: name, MIMEType: p.MIME, Title: p.Title, Description: p.Description, Size: p.Size, Annotations: a, Meta: meta}
	}
	return &mcp.TextContent{Text: tool.PartsText([]tool.Part{p})}
}
