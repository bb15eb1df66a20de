package openaiimage

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/hands-go/hands/toolbox/image"
)

// TestGenerateParams checks the request each model family is sent: the
// GPT image models as asked, DALL·E asked for the image's bytes (it
// answers with a link otherwise, which the tool cannot use), dall-e-3 one
// image in its own sizes, and dall-e-2 square only, with a refusal a
// model can act on.
func TestGenerateParams(t *testing.T) {
	for _, tt := range []struct {
		model, shape string
		n            int
		wantSize     string
		wantN        float64
		wantFormat   any // nil: not sent
	}{
		{"gpt-image-1", "landscape", 3, "1536x1024", 3, nil},
		{"gpt-image-1", "portrait", 1, "1024x1536", 1, nil},
		{"dall-e-3", "landscape", 3, "1792x1024", 1, "b64_json"},
		{"dall-e-3", "portrait", 1, "1024x1792", 1, "b64_json"},
		{"dall-e-3", "square", 2, "1024x1024", 1, "b64_json"},
		{"dall-e-2", "square", 2, "1024x1024", 2, "b64_json"},
		{"dall-e-2", "", 1, "", 1, "b64_json"},
	} {
		p, err := generateParams(tt.model, "an otter", tt.shape, tt.n)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.model, tt.shape, err)
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			t.Fatal(err)
		}
		size, _ := body["size"].(string)
		if body["model"] != tt.model || size != tt.wantSize || body["n"] != tt.wantN || body["response_format"] != tt.wantFormat {
			t.Errorf("%s %s n=%d sends %s, want size %q, n %g, response_format %v", tt.model, tt.shape, tt.n, data, tt.wantSize, tt.wantN, tt.wantFormat)
		}
	}
	for _, shape := range []string{"landscape", "portrait"} {
		_, err := generateParams("dall-e-2", "an otter", shape, 1)
		var be *image.BackendError
		if !errors.Is(err, image.ErrImageBackend) || !errors.As(err, &be) || be.Detail != "dall-e-2 makes square images only: ask for the shape square" {
			t.Errorf("dall-e-2 %s: %v, want a refusal that names the square shape", shape, err)
		}
	}
}
