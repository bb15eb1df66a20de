package openai_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/provider/openai"
)

// A Model for an OpenAI-compatible server that implements only Chat
// Completions, such as one serving a local model. Here the server is a
// stand-in that always gives the same answer.
func Example_compatibleServer() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1760619443,"model":"local-model",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hello from `+r.URL.Path+`."}}]}`)
	}))
	defer srv.Close()

	model, err := openai.New(&openai.Options{
		BaseURL:    srv.URL + "/v1",
		APIKey:     "not-needed-locally",
		Model:      "local-model",
		API:        openai.ChatCompletions,
		HTTPClient: srv.Client(),
	})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := model.Generate(context.Background(), &agent.Request{
		System:   "You are terse.",
		Messages: []agent.Message{agent.UserText("Say hello.")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text)
	// Output: Hello from /v1/chat/completions.
}
