package gemini_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/provider/gemini"
)

// A Model asks for one turn; here the API is a stand-in server that always
// gives the same answer, reached through the base URL and HTTP client a
// proxy or a test would use.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"index":0,"finishReason":"STOP",
			"content":{"role":"model","parts":[{"text":"Hello from `+r.URL.Path+`."}]}}],
			"modelVersion":"gemini-3-flash","responseId":"example"}`)
	}))
	defer srv.Close()

	model, err := gemini.New(&gemini.Options{
		APIKey:     "AIza-example",
		BaseURL:    srv.URL,
		Model:      "gemini-3-flash",
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
	// Output: Hello from /v1beta/models/gemini-3-flash:generateContent.
}
