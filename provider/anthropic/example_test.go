package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/provider/anthropic"
)

// A Model asks for one turn; here the API is a stand-in server that always
// gives the same answer, reached through the base URL and HTTP client a
// proxy or a test would use.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-5-5",
			"content":[{"type":"text","text":"Hello from `+r.URL.Path+`."}],
			"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":6}}`)
	}))
	defer srv.Close()

	model, err := anthropic.New(&anthropic.Options{
		APIKey:     "sk-ant-example",
		BaseURL:    srv.URL,
		Model:      "claude-sonnet-5-5",
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
	// Output: Hello from /v1/messages.
}
