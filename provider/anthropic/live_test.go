package anthropic_test

import (
	"os"
	"testing"

	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
)

// TestLive runs one real tool-calling exchange against the Anthropic API.
// It runs only when ANTHROPIC_API_KEY is set; HANDS_LIVE_MODEL_ANTHROPIC
// picks the model.
func TestLive(t *testing.T) {
	key := os.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		t.Skip("ANTHROPIC_API_KEY is not set")
	}
	m, err := anthropic.New(&anthropic.Options{
		APIKey: key,
		Model:  providertest.LiveModel("HANDS_LIVE_MODEL_ANTHROPIC", "claude-haiku-4-5"),
	})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Live(t, m)
}
