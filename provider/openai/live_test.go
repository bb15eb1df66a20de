package openai_test

import (
	"os"
	"testing"

	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
)

// TestLive runs one real tool-calling exchange against the OpenAI API,
// through the Responses API and through Chat Completions. It runs only
// when OPENAI_API_KEY is set; HANDS_LIVE_MODEL_OPENAI picks the model.
func TestLive(t *testing.T) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		t.Skip("OPENAI_API_KEY is not set")
	}
	for _, api := range apis {
		t.Run(api.prefix, func(t *testing.T) {
			m, err := openai.New(&openai.Options{
				APIKey: key,
				Model:  providertest.LiveModel("HANDS_LIVE_MODEL_OPENAI", "gpt-5-mini"),
				API:    api.api,
			})
			if err != nil {
				t.Fatal(err)
			}
			providertest.Live(t, m)
		})
	}
}
