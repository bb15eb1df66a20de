package mcpserver_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRichContent returns one part of every kind and checks what an SDK
// client receives for each, and the text a reader of text only gets.
func TestRichContent(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n...")
	wav := []byte("RIFF....WAVE")
	pdf := []byte("%PDF-1.7 ...")
	parts := []tool.Part{
		tool.Text("Here is the chart."),
		tool.Image("image/png", png),
		tool.Audio("audio/wav", wav),
		tool.Resource("file:///notes.md", "text/markdown", "# Notes"),
		tool.ResourceBlob("file:///report.pdf", "application/pdf", pdf),
		tool.Link("file:///big.csv", "big data", "text/csv"),
	}
	chart := tool.New("chart", "Draw a chart.", func(ctx context.Context, _ struct{}) ([]tool.Part, error) {
		return parts, nil
	})
	one := tool.New("one", "Draw one image.", func(ctx context.Context, _ struct{}) (tool.Part, error) {
		return tool.Image("image/png", png), nil
	})
	if spec := chart.Spec(); spec.OutputSchema != nil {
		t.Errorf("a tool whose output is []tool.Part has an output schema")
	}
	res := tool.Run(t.Context(), chart, tool.Call{Name: "chart", Args: []byte(`{}`)})
	wantText := "Here is the chart.\n[image image/png, 11 bytes]\n[audio audio/wav, 12 bytes]\n" +
		"[resource file:///notes.md]\n# Notes\n[resource file:///report.pdf application/pdf, 12 bytes]\n[link big data: file:///big.csv]"
	if res.Content != wantText || len(res.Parts) != len(parts) || res.Structured != nil {
		t.Errorf("Run(chart) = Content %q, %d parts, Structured %s; want Content %q, %d parts", res.Content, len(res.Parts), res.Structured, wantText, len(parts))
	}

	reg, err := tool.NewRegistry(&tool.Scope{Name: "rich", Tools: []tool.Interface{chart, one}})
	if err != nil {
		t.Fatal(err)
	}
	// Rewriting the text a model reads leaves the parts alone.
	reg.Use(tool.OnResult(func(_ context.Context, _ tool.Call, res *tool.Result) { res.Content = "rewritten" }))
	session := connect(t, mcpserver.New(reg, nil), nil)
	got, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "chart", Arguments: map[string]any{}})
	if err != nil || got.IsError {
		t.Fatalf("CallTool(chart) = %+v, %v", got, err)
	}
	if len(got.Content) != len(parts) {
		t.Fatalf("CallTool(chart) has %d contents, want %d", len(got.Content), len(parts))
	}
	for i, c := range got.Content {
		ok := false
		switch c := c.(type) {
		case *mcp.TextContent:
			ok = i == 0 && c.Text == "Here is the chart."
		case *mcp.ImageContent:
			ok = i == 1 && c.MIMEType == "image/png" && bytes.Equal(c.Data, png)
		case *mcp.AudioContent:
			ok = i == 2 && c.MIMEType == "audio/wav" && bytes.Equal(c.Data, wav)
		case *mcp.EmbeddedResource:
			r := c.Resource
			ok = i == 3 && r.URI == "file:///notes.md" && r.MIMEType == "text/markdown" && r.Text == "# Notes" && r.Blob == nil ||
				i == 4 && r.URI == "file:///report.pdf" && r.MIMEType == "application/pdf" && bytes.Equal(r.Blob, pdf) && r.Text == ""
		case *mcp.ResourceLink:
			ok = i == 5 && c.URI == "file:///big.csv" && c.Name == "big data" && c.MIMEType == "text/csv"
		}
		if !ok {
			t.Errorf("content %d = %T %+v, want %+v", i, c, c, parts[i])
		}
	}

	got, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "one", Arguments: map[string]any{}})
	if err != nil || got.IsError || len(got.Content) != 1 {
		t.Fatalf("CallTool(one) = %+v, %v", got, err)
	}
	if img, ok := got.Content[0].(*mcp.ImageContent); !ok || !bytes.Equal(img.Data, png) {
		t.Errorf("CallTool(one) = %T %+v, want the image", got.Content[0], got.Content[0])
	}
}
