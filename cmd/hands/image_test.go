package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	stdimage "image"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	httpreplay "github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// imageKey is the API key of the image tests: no output may hold it.
const imageKey = "sk-cmd-image-7f31c9d0e2"

// TestImageSetting checks that HANDS_IMAGE adds image_generate to what
// serve and schema list, hosted and open-world, every dialect taking it
// beside the other bundled tools; that HANDS_IMAGE_MAX_COUNT bounds it;
// and that a URL holding a key, or an unknown backend, is refused without
// the key in the message.
func TestImageSetting(t *testing.T) {
	inTempDir(t)
	t.Setenv("HANDS_IMAGE", "")
	if stdout, _, err := runCmd(t, "schema"); err != nil || strings.Contains(stdout, "image_generate") {
		t.Errorf("schema without HANDS_IMAGE = %v, lists image_generate: %v", err, strings.Contains(stdout, "image_generate"))
	}
	t.Setenv("OPENAI_API_KEY", imageKey)
	t.Setenv("GEMINI_API_KEY", imageKey)
	for _, url := range []string{"openai://gpt-image-1", "gemini://gemini-2.5-flash-image"} {
		t.Setenv("HANDS_IMAGE", url)
		specs := bundledSpecs(t)
		var all []tool.Spec
		var gen *tool.Spec
		for _, s := range specs {
			spec := s.Spec()
			all = append(all, spec)
			if spec.Name == "image_generate" {
				gen = &spec
			}
		}
		if gen == nil {
			t.Fatalf("HANDS_IMAGE=%s: the tools are %v, without image_generate", url, all)
		}
		if a := gen.Annotations; a == nil || a.ReadOnly || !a.OpenWorld || gen.Title == "" {
			t.Errorf("HANDS_IMAGE=%s: image_generate's annotations = %+v, title %q; want open-world, not read-only (serve stores the images), titled", url, a, gen.Title)
		}
		for _, d := range dialect.Dialects() {
			if err := provider.CheckTools(d, all); err != nil {
				t.Errorf("HANDS_IMAGE=%s, %s: %v", url, d.Name, err)
			}
			stdout, stderr, err := runCmd(t, "schema", "--dialect", d.Name, "image_generate")
			if err != nil || !strings.Contains(stdout, `"image_generate"`) || strings.Contains(stdout+stderr, imageKey) {
				t.Errorf("schema --dialect %s image_generate with HANDS_IMAGE=%s = %v, %q; want the tool, without the key", d.Name, url, err, stderr)
			}
		}
	}

	t.Setenv("HANDS_IMAGE_MAX_COUNT", "3")
	if stdout, _, err := runCmd(t, "schema", "image_generate"); err != nil || !strings.Contains(stdout, "at most 3 per call") {
		t.Errorf("schema image_generate with HANDS_IMAGE_MAX_COUNT=3 = %v, %s; want at most 3 per call", err, stdout)
	}
	for _, tt := range []struct{ env, value, names string }{
		{"HANDS_IMAGE_MAX_COUNT", "5", "HANDS_IMAGE_MAX_COUNT"},
		{"HANDS_IMAGE_MAX_COUNT", "-1", "HANDS_IMAGE_MAX_COUNT"},
		{"HANDS_IMAGE", "openai://gpt-image-1?key=" + imageKey, "HANDS_IMAGE"},
		{"HANDS_IMAGE", "dalle://dall-e-3", "HANDS_IMAGE"},
	} {
		t.Run(tt.env+"="+tt.value, func(t *testing.T) {
			t.Setenv(tt.env, tt.value)
			for _, cmd := range []string{"schema", "serve"} {
				stdout, stderr, err := runCmd(t, cmd)
				if err == nil || !strings.Contains(err.Error(), tt.names) || strings.Contains(err.Error()+stdout+stderr, imageKey) {
					t.Errorf("%s = %v, %q; want an error naming %s, without the key", cmd, err, stderr, tt.names)
				}
			}
		})
	}
	for _, cmd := range []string{"serve", "call"} {
		stdout, stderr, _ := runCmd(t, cmd, "--help")
		if !strings.Contains(stdout, "HANDS_IMAGE") || !strings.Contains(stdout, "HANDS_IMAGE_MAX_COUNT") || strings.Contains(stdout+stderr, imageKey) {
			t.Errorf("%s --help does not list HANDS_IMAGE and HANDS_IMAGE_MAX_COUNT, or shows the key", cmd)
		}
	}
}

// TestServeImage runs serve --http with HANDS_IMAGE pointed at a server
// that replays an image model's response, and calls image_generate as a
// client would: the result holds the image as an image part and a link
// to it under /files/, and that URL serves the same bytes with their
// type. Gemini's and OpenAI's responses are recorded live (toolbox/image's
// testdata/recorded/manifest.json names their sources); the recording of
// OpenAI's holds one image, so a hand-written response in its documented
// wire format, with three, checks that HANDS_IMAGE_MAX_COUNT bounds what
// is returned.
func TestServeImage(t *testing.T) {
	recorded := filepath.Join("..", "..", "toolbox", "image", "testdata", "recorded")
	cassette := httpreplay.LoadCassette(t, filepath.Join(recorded, "test_image_generation_local_fallback_google.yaml"))
	var sent struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					InlineData struct {
						MIMEType string `json:"mimeType"`
						Data     []byte `json:"data"`
					} `json:"inlineData"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(cassette[0].Response.Raw, &sent); err != nil || len(sent.Candidates) == 0 || len(sent.Candidates[0].Content.Parts) == 0 {
		t.Fatalf("the recorded response does not hold an image: %v", err)
	}
	jpegBytes := sent.Candidates[0].Content.Parts[0].InlineData.Data
	openAIRecorded := httpreplay.LoadCassette(t, filepath.Join(recorded, "image_create_b64_json.yaml"))
	var openAISent struct {
		Data []struct {
			B64JSON []byte `json:"b64_json"`
		} `json:"data"`
	}
	if err := json.Unmarshal(openAIRecorded[0].Response.Raw, &openAISent); err != nil || len(openAISent.Data) != 1 {
		t.Fatalf("the recorded OpenAI response does not hold one image: %v", err)
	}

	var buf bytes.Buffer
	if err := png.Encode(&buf, stdimage.NewRGBA(stdimage.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	pngBytes := buf.Bytes()
	b64 := base64.StdEncoding.EncodeToString(pngBytes)
	openAI := httpreplay.Response{Body: json.RawMessage(fmt.Sprintf(`{"created":1,"data":[{"b64_json":%q},{"b64_json":%q},{"b64_json":%q}],"output_format":"png","size":"1024x1024"}`, b64, b64, b64))}

	for _, tt := range []struct {
		name     string
		url      string
		response httpreplay.Response
		maxCount string
		want     []byte
		mime     string
	}{
		{"gemini recorded", "gemini://gemini-3-pro-image", cassette[0].Response, "", jpegBytes, "image/jpeg"},
		{"openai recorded", "openai://dall-e-2", openAIRecorded[0].Response, "", openAISent.Data[0].B64JSON, "image/png"},
		{"openai over the count", "openai://gpt-image-1", openAI, "2", pngBytes, "image/png"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inTempDir(t)
			srv := httpreplay.NewServer(t, httpreplay.Always(tt.response))
			t.Setenv("HANDS_IMAGE", tt.url+"?endpoint="+srv.URL)
			t.Setenv("HANDS_IMAGE_MAX_COUNT", tt.maxCount)
			t.Setenv("OPENAI_API_KEY", imageKey)
			t.Setenv("GEMINI_API_KEY", imageKey)
			line, stop := startServe(t, "--http", "127.0.0.1:0")
			defer stop()
			m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
			if m == nil || !strings.Contains(line, "image_generate") || strings.Contains(line, imageKey) {
				t.Fatalf("startup line %q does not list image_generate, or shows the key", line)
			}
			base := m[1]
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			tools, err := session.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "image_generate" })
			if i < 0 || tools.Tools[i].Annotations == nil || tools.Tools[i].Annotations.OpenWorldHint == nil || !*tools.Tools[i].Annotations.OpenWorldHint || tools.Tools[i].Annotations.ReadOnlyHint {
				t.Fatalf("image_generate is not listed as an open-world tool that writes: %+v", tools.Tools)
			}

			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "image_generate", Arguments: map[string]any{"prompt": "A cute baby sea otter", "count": 4}})
			if err != nil || res.IsError {
				t.Fatalf("image_generate = %+v, %v", res, err)
			}
			var images []*mcp.ImageContent
			var links []*mcp.ResourceLink
			var text string
			for _, c := range res.Content {
				switch c := c.(type) {
				case *mcp.ImageContent:
					images = append(images, c)
				case *mcp.ResourceLink:
					links = append(links, c)
				case *mcp.TextContent:
					text += c.Text
				}
			}
			want := 1
			if tt.maxCount == "2" {
				want = 2 // three sent, four asked for, HANDS_IMAGE_MAX_COUNT kept
			}
			if len(images) != want || len(links) != want {
				t.Fatalf("image_generate returned %d images and %d links, want %d of each", len(images), len(links), want)
			}
			for i, img := range images {
				if img.MIMEType != tt.mime || !bytes.Equal(img.Data, tt.want) {
					t.Errorf("image %d is %s of %d bytes, want the %s of %d bytes the backend sent", i, img.MIMEType, len(img.Data), tt.mime, len(tt.want))
				}
				link := links[i]
				if !strings.HasPrefix(link.URI, base+"/files/images/") || link.MIMEType != tt.mime || !strings.Contains(text, link.URI) {
					t.Errorf("link %d = %s (%s), want a URL under %s/files/images/ of type %s, named in the text %q", i, link.URI, link.MIMEType, base, tt.mime, text)
					continue
				}
				resp, err := http.Get(link.URI)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tt.mime || !bytes.Equal(body, tt.want) {
					t.Errorf("GET %s = %d, %s, %d bytes; want the image's %d bytes as %s", link.URI, resp.StatusCode, resp.Header.Get("Content-Type"), len(body), len(tt.want), tt.mime)
				}
			}
			if links[0].URI == links[len(links)-1].URI && len(links) > 1 {
				t.Errorf("two images are hosted at one URL, %s", links[0].URI)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the backend got %d requests, want 1", len(reqs))
			}
			if auth := reqs[0].Header.Get("Authorization") + reqs[0].Header.Get("X-Goog-Api-Key"); !strings.Contains(auth, imageKey) {
				t.Errorf("the request sent no key: %v", reqs[0].Header)
			}
			raw, _ := json.Marshal(res)
			if strings.Contains(string(raw)+text, imageKey) {
				t.Error("the result holds the key")
			}
		})
	}
}
