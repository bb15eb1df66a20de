// Package geminiimage is the Gemini backend of package toolbox/image
// (gemini://MODEL, such as gemini://gemini-2.5-flash-image, with the key in
// GEMINI_API_KEY), through the official SDK, google.golang.org/genai, and
// generateContent with the IMAGE modality. Import it for its effect:
//
//	import _ "github.com/hands-go/hands/toolbox/image/geminiimage"
//
// The SDK imports html/template (through net/rpc) but never executes a
// template, so the linker still drops the methods a program does not
// call: it adds about 4 MB to the hands command (docs/PERFORMANCE.md).
package geminiimage

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/hands-go/hands/toolbox/image"
	"google.golang.org/genai"
)

func init() {
	image.Register(image.Gemini, "https://generativelanguage.googleapis.com/", "GEMINI_API_KEY", "gemini-2.5-flash-image", driver{})
}

// driver calls the Gemini API's generateContent with the IMAGE modality.
type driver struct{}

// Generate implements image.Driver. It asks for one image a request.
func (driver) Generate(ctx context.Context, b *image.Backend, client *http.Client, prompt, shape string, n int) ([]image.Picture, error) {
	c, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: b.Key(), Backend: genai.BackendGeminiAPI, HTTPClient: client,
		HTTPOptions: genai.HTTPOptions{BaseURL: b.Endpoint()},
	})
	if err != nil {
		return nil, err
	}
	aspect := map[string]string{"square": "1:1", "landscape": "3:2", "portrait": "2:3"}[shape]
	var out []image.Picture
	for range n {
		resp, err := c.Models.GenerateContent(ctx, b.Model(), genai.Text(prompt), &genai.GenerateContentConfig{
			ResponseModalities: []string{"IMAGE"},
			ImageConfig:        &genai.ImageConfig{AspectRatio: aspect},
		})
		if err != nil {
			return nil, err
		}
		for _, cand := range resp.Candidates {
			if cand.Content == nil {
				continue
			}
			for _, p := range cand.Content.Parts {
				if p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "image/") {
					out = append(out, image.Picture{Data: p.InlineData.Data, MIME: p.InlineData.MIMEType})
				}
			}
		}
	}
	return out, nil
}

// Status implements image.Driver.
func (driver) Status(err error) (int, string) {
	if gerr, ok := errors.AsType[genai.APIError](err); ok {
		return gerr.Code, cmp.Or(gerr.Message, gerr.Status)
	}
	return 0, ""
}
