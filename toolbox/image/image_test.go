package image_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	stdimage "image"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/image"
	_ "github.com/hands-go/hands/toolbox/image/geminiimage"
	_ "github.com/hands-go/hands/toolbox/image/openaiimage"
)

// secret is the API key of every test: no output may hold it.
const secret = "sk-test-9d2c41e0aa7f4b18"

func env(name string) string {
	if name == "OPENAI_API_KEY" || name == "GEMINI_API_KEY" {
		return secret
	}
	return ""
}

func open(t *testing.T, rawURL string) *image.Backend {
	t.Helper()
	b, err := image.Open(rawURL, env)
	if err != nil {
		t.Fatalf("Open(%s): %v", rawURL, err)
	}
	return b
}

func call(t *testing.T, tl tool.Interface, args string) tool.Result {
	t.Helper()
	return tool.Run(t.Context(), tl, tool.Call{Name: tl.Spec().Name, Args: json.RawMessage(args)})
}

func noSecret(t *testing.T, res tool.Result) {
	t.Helper()
	if strings.Contains(res.Content, secret) || res.Err != nil && strings.Contains(res.Err.Error(), secret) {
		t.Errorf("the result holds the key: %s %v", res.Content, res.Err)
	}
}

// encode returns a small image in the given format.
func encode(t *testing.T, format string) []byte {
	t.Helper()
	img := stdimage.NewRGBA(stdimage.Rect(0, 0, 8, 6))
	var buf bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, nil)
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestManifest(t *testing.T) {
	replay.CheckManifest(t, filepath.Join("testdata", "recorded"))
}

// TestGeminiRecorded replays an image generated live by gemini-3-pro-image
// to the genai SDK.
func TestGeminiRecorded(t *testing.T) {
	x := replay.LoadCassette(t, filepath.Join("testdata", "recorded", "test_image_generation_local_fallback_google.yaml"))
	srv := replay.NewServer(t, replay.Always(x[0].Response))
	gen := image.Generate(open(t, "gemini://gemini-3-pro-image?endpoint="+srv.URL), nil)
	res := call(t, gen, `{"prompt":"A cute baby sea otter"}`)
	if res.IsError {
		t.Fatalf("image_generate = %s", res.Content)
	}
	noSecret(t, res)
	if len(res.Parts) != 2 || res.Parts[1].Kind != tool.PartImage || res.Parts[1].MIME != "image/jpeg" {
		t.Fatalf("image_generate parts = %s, want a note and a JPEG", tool.PartsText(res.Parts))
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(res.Parts[1].Data)); err != nil || cfg.Width == 0 {
		t.Errorf("the image does not decode as a JPEG: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/models/gemini-3-pro-image:generateContent") || reqs[0].Header.Get("X-Goog-Api-Key") != secret {
		t.Fatalf("requests %+v, want one generateContent of gemini-3-pro-image with the key", reqs)
	}
	var body struct {
		GenerationConfig struct {
			ResponseModalities []string `json:"responseModalities"`
			ImageConfig        struct {
				AspectRatio string `json:"aspectRatio"`
			} `json:"imageConfig"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || fmt.Sprint(body.GenerationConfig.ResponseModalities) != "[IMAGE]" || body.GenerationConfig.ImageConfig.AspectRatio != "1:1" {
		t.Errorf("request body %s, want the IMAGE modality and aspect 1:1", reqs[0].Body)
	}

	t.Run("over the limit", func(t *testing.T) {
		small := image.Generate(open(t, "gemini://gemini-3-pro-image?endpoint="+srv.URL), &image.Options{MaxBytes: 1 << 20})
		res := call(t, small, `{"prompt":"A cute baby sea otter"}`)
		if !errors.Is(res.Err, image.ErrImageTooLarge) {
			t.Errorf("image_generate with a 1 MiB limit = %v, want ErrImageTooLarge", res.Err)
		}
	})
}

// TestOpenAIRecorded replays an image generated live by dall-e-2 through
// OpenAI's Images API, with response_format b64_json, as dd-trace-py
// recorded it: one 256x256 PNG, whose metadata holds the request's ID.
func TestOpenAIRecorded(t *testing.T) {
	x := replay.LoadCassette(t, filepath.Join("testdata", "recorded", "image_create_b64_json.yaml"))
	if x[0].Response.Header["X-Request-Id"] == "" || x[0].Response.Header["Openai-Processing-Ms"] == "" {
		t.Fatalf("the recorded response lacks api.openai.com's headers: %v", x[0].Response.Header)
	}
	srv := replay.NewServer(t, replay.Always(x[0].Response))
	gen := image.Generate(open(t, "openai://dall-e-2?endpoint="+srv.URL), nil)
	res := call(t, gen, `{"prompt":"sleepy capybara with monkey on top"}`)
	if res.IsError {
		t.Fatalf("image_generate = %s", res.Content)
	}
	noSecret(t, res)
	if len(res.Parts) != 2 || res.Parts[1].Kind != tool.PartImage || res.Parts[1].MIME != "image/png" {
		t.Fatalf("image_generate parts = %s, want a note and a PNG", tool.PartsText(res.Parts))
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(res.Parts[1].Data)); err != nil || cfg.Width != 256 || cfg.Height != 256 {
		t.Errorf("the image decodes as a PNG of %dx%d, %v; want 256x256", cfg.Width, cfg.Height, err)
	}
	if id := x[0].Response.Header["X-Request-Id"]; !bytes.Contains(res.Parts[1].Data, []byte("OpenAI--"+id)) {
		t.Errorf("the image's metadata does not hold the request's ID %s: it is not the recorded image", id)
	}
	if !strings.Contains(res.Content, "256x256 image/png") {
		t.Errorf("the model reads %q, want the image's size and type", res.Content)
	}
	reqs := srv.Requests()
	var body map[string]any
	if len(reqs) != 1 || json.Unmarshal(reqs[0].Body, &body) != nil || reqs[0].Path != "/images/generations" || body["model"] != "dall-e-2" || body["n"] != 1.0 || body["size"] != "1024x1024" || body["response_format"] != "b64_json" || reqs[0].Header.Get("Authorization") != "Bearer "+secret {
		t.Fatalf("requests %+v, want one images/generations of dall-e-2, n 1, 1024x1024, response_format b64_json (as recorded), with the key", reqs)
	}
}

// openAIResponse is a response of OpenAI's Images API in its documented
// wire format, for what the one recorded response (TestOpenAIRecorded)
// does not cover: several images, a count over the limit, hosting, and
// broken images.
func openAIResponse(format string, images ...[]byte) replay.Response {
	var data []map[string]string
	for _, img := range images {
		data = append(data, map[string]string{"b64_json": base64.StdEncoding.EncodeToString(img)})
	}
	body, _ := json.Marshal(map[string]any{"created": 1, "data": data, "output_format": format, "size": "1024x1024"})
	return replay.Response{Body: body}
}

// TestOpenAI checks the count bound and hosting, which need more images
// than the recording holds: the response is hand-written, with two.
func TestOpenAI(t *testing.T) {
	pngBytes := encode(t, "png")
	srv := replay.NewServer(t, replay.Always(openAIResponse("png", pngBytes, pngBytes)))
	var hosted []string
	host := func(ctx context.Context, key string, body []byte, contentType string) (string, error) {
		if !bytes.Equal(body, pngBytes) || contentType != "image/png" || !strings.HasPrefix(key, "images/") || !strings.HasSuffix(key, ".png") {
			t.Errorf("Host(%s, %d bytes, %s), want the PNG under images/", key, len(body), contentType)
		}
		hosted = append(hosted, key)
		return "https://files.example.com/" + key, nil
	}
	gen := image.Generate(open(t, "openai://gpt-image-1?endpoint="+srv.URL), &image.Options{Host: host, MaxCount: 2})
	res := call(t, gen, `{"prompt":"a lighthouse at dusk","shape":"landscape","count":3}`)
	if res.IsError {
		t.Fatalf("image_generate = %s", res.Content)
	}
	noSecret(t, res)
	if len(hosted) != 2 || len(res.Parts) != 5 || res.Parts[1].Kind != tool.PartImage || res.Parts[2].Kind != tool.PartLink || res.Parts[2].URI != "https://files.example.com/"+hosted[0] {
		t.Fatalf("image_generate parts = %s, want a note, then each image and its link", tool.PartsText(res.Parts))
	}
	if !strings.Contains(res.Content, "8x6 image/png") || !strings.Contains(res.Content, "https://files.example.com/images/") {
		t.Errorf("the model reads %q, want each image's size, type and URL", res.Content)
	}
	req := srv.Requests()[0]
	var body map[string]any
	json.Unmarshal(req.Body, &body)
	if req.Path != "/images/generations" || body["model"] != "gpt-image-1" || body["n"] != 2.0 || body["size"] != "1536x1024" || body["response_format"] != nil || req.Header.Get("Authorization") != "Bearer "+secret {
		t.Errorf("request %s %s, want images/generations of gpt-image-1, n 2 (the limit), 1536x1024, with the key", req.Path, req.Body)
	}
	if a := gen.Spec().Annotations; a == nil || a.ReadOnly || !a.OpenWorld {
		t.Errorf("annotations with Host = %+v, want open-world and not read-only", a)
	}
}

func TestFailures(t *testing.T) {
	pngBytes := encode(t, "png")
	for _, tt := range []struct {
		name string
		resp replay.Response
		want error
		says string
	}{
		{"wrong type", openAIResponse("png", encode(t, "jpeg")), image.ErrImageType, "its bytes are image/jpeg"},
		{"not an image", openAIResponse("png", []byte("<html>hello</html>")), image.ErrImageType, "image/png"},
		{"truncated png", openAIResponse("png", pngBytes[:20]), image.ErrImageType, "does not decode"},
		{"no image", replay.Response{Body: json.RawMessage(`{"created":1,"data":[]}`)}, image.ErrImageBackend, "rephrase"},
		{"401", replay.Response{Status: 401, Body: json.RawMessage(`{"error":{"message":"Incorrect API key provided: ` + secret + `.","type":"invalid_request_error","code":"invalid_api_key"}}`)}, image.ErrImageKey, "OPENAI_API_KEY"},
		{"429", replay.Response{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: json.RawMessage(`{"error":{"message":"Rate limit reached","type":"requests"}}`)}, image.ErrImageRateLimited, "wait"},
		{"500", replay.Response{Status: 500, Body: json.RawMessage(`{"error":{"message":"The server had an error"}}`)}, image.ErrImageBackend, "500"},
		{"huge", openAIResponse("png", bytes.Repeat([]byte{0}, 3<<20)), image.ErrImageTooLarge, "limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(tt.resp))
			gen := image.Generate(open(t, "openai://gpt-image-1?endpoint="+srv.URL), &image.Options{MaxBytes: 1 << 20})
			res := call(t, gen, `{"prompt":"a lighthouse"}`)
			noSecret(t, res)
			if !errors.Is(res.Err, tt.want) {
				t.Fatalf("image_generate = %v, want %v", res.Err, tt.want)
			}
			if !strings.Contains(res.Content, tt.says) {
				t.Errorf("the model reads %q, which does not say %q", res.Content, tt.says)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{"openai://gpt-image-1", true},
		{"gemini://gemini-2.5-flash-image", true},
		{"openai://gpt-image-1?key_env=GEMINI_API_KEY", true},
		{"openai://", false},
		{"openai://gpt-image-1/x", false},
		{"openai://gpt-image-1?key=" + secret, false},
		{"openai://k:" + secret + "@gpt-image-1", false},
		{"openai://gpt-image-1?key_env=NONE", false},
		{"dalle://x", false},
		{"openai://gpt-image-1?size=2", false},
	} {
		b, err := image.Open(tt.url, env)
		if (err == nil) != tt.ok {
			t.Errorf("Open(%q) = %v, %v; want ok %v", tt.url, b, err, tt.ok)
		}
		if err != nil && strings.Contains(err.Error(), secret) || b != nil && strings.Contains(b.String(), secret) {
			t.Errorf("Open(%q) shows the key", tt.url)
		}
	}
}

func TestDialects(t *testing.T) {
	spec := image.Generate(open(t, "openai://gpt-image-1"), nil).Spec()
	for _, d := range dialect.Dialects() {
		if err := provider.CheckTools(d, []tool.Spec{spec}); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if a := spec.Annotations; a == nil || !a.ReadOnly || !a.OpenWorld {
		t.Errorf("annotations without Host = %+v, want read-only and open-world", a)
	}
}
