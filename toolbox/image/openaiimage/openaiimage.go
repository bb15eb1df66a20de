// Package openaiimage is the OpenAI backend of package toolbox/image
// (openai://MODEL, such as openai://gpt-image-1, with the key in
// OPENAI_API_KEY), through the official SDK, openai-go. The GPT image
// models take every shape; dall-e-3 makes one image a call, and dall-e-2
// square images only. Import it for its effect:
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
	"strings"

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
	params, err := generateParams(b.Model(), prompt, shape, n)
	if err != nil {
		return nil, err
	}
	resp, err := c.Images.Generate(ctx, params)
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

// generateParams returns the request for n images of shape by model.
// The GPT image models always answer with the image's bytes and take
// three shapes. DALL·E answers with a link unless asked for the bytes
// (response_format b64_json), which the tool needs; dall-e-3 makes one
// image a request, in its own wide and tall sizes, and dall-e-2 square
// images only, which a model asking for another shape is told.
func generateParams(model, prompt, shape string, n int) (openai.ImageGenerateParams, error) {
	p := openai.ImageGenerateParams{Prompt: prompt, Model: openai.ImageModel(model), N: openai.Int(int64(n))}
	sizes := map[string]openai.ImageGenerateParamsSize{
		"square":    openai.ImageGenerateParamsSize1024x1024,
		"landscape": openai.ImageGenerateParamsSize1536x1024,
		"portrait":  openai.ImageGenerateParamsSize1024x1536,
	}
	switch {
	case model == "dall-e-3" || strings.HasPrefix(model, "dall-e-3-"):
		p.ResponseFormat = openai.ImageGenerateParamsResponseFormatB64JSON
		p.N = openai.Int(1)
		sizes["landscape"] = openai.ImageGenerateParamsSize1792x1024
		sizes["portrait"] = openai.ImageGenerateParamsSize1024x1792
	case strings.HasPrefix(model, "dall-e"):
		p.ResponseFormat = openai.ImageGenerateParamsResponseFormatB64JSON
		if shape != "" && shape != "square" {
			return p, &image.BackendError{Detail: model + " makes square images only: ask for the shape square", Err: image.ErrImageBackend}
		}
	}
	p.Size = sizes[shape]
	return p, nil
}

// Status implements image.Driver.
func (driver) Status(err error) (int, string) {
	if oerr, ok := errors.AsType[*openai.Error](err); ok {
		return oerr.StatusCode, cmp.Or(oerr.Message, oerr.Code, http.StatusText(oerr.StatusCode))
	}
	return 0, ""
}
