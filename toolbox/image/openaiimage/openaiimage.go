// Package openaiimage is the OpenAI backend of package toolbox/image
// (openai://MODEL, such as openai://gpt-image-1, with the key in
// OPENAI_API_KEY), through the official SDK, openai-go. Import it for its
// effect:
//
//	import _ "github.com/hands-go/hands/toolbox/image/openaiimage"
//
// The SDK registers its types from its packages' init functions, which
// every program that imports it runs, so the linker keeps their JSON
// methods whatever the program calls: it adds about 26 MB to a binary
// (docs/PERFORMANCE.md, "What image_generate costs").
package openaiimage

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"net/http"

	"github.com/hands-go/hands/toolbox/image"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func init() {
	image.Register(image.OpenAI, "https://api.openai.com/v1/", "OPENAI_API_KEY", "gpt-image-1", driver{})
}

// driver calls OpenAI's Images API.
type driver struct{}

// Generate implements image.Driver.
func (driver) Generate(ctx context.Context, b *image.Backend, client *http.Client, prompt, shape string, n int) ([]image.Picture, error) {
	c := openai.NewClient(option.WithAPIKey(b.Key()), option.WithBaseURL(b.Endpoint()), option.WithHTTPClient(client), option.WithMaxRetries(0))
	size := map[string]openai.ImageGenerateParamsSize{
		"square":    openai.ImageGenerateParamsSize1024x1024,
		"landscape": openai.ImageGenerateParamsSize1536x1024,
		"portrait":  openai.ImageGenerateParamsSize1024x1536,
	}[shape]
	resp, err := c.Images.Generate(ctx, openai.ImageGenerateParams{
		Prompt: prompt, Model: openai.ImageModel(b.Model()), N: openai.Int(int64(n)), Size: size,
	})
	if err != nil {
		return nil, err
	}
	mime := "image/" + cmp.Or(string(resp.OutputFormat), "png")
	var out []image.Picture
	for _, d := range resp.Data {
		if d.B64JSON == "" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(d.B64JSON)
		if err != nil {
			return nil, &image.BackendError{Detail: "the image's base64 does not decode", Err: image.ErrImageType}
		}
		out = append(out, image.Picture{Data: data, MIME: mime})
	}
	return out, nil
}

// Status implements image.Driver.
func (driver) Status(err error) (int, string) {
	if oerr, ok := errors.AsType[*openai.Error](err); ok {
		return oerr.StatusCode, cmp.Or(oerr.Message, oerr.Code, http.StatusText(oerr.StatusCode))
	}
	return 0, ""
}
