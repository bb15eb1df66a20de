package gemini_test

import (
	"cmp"
	"os"
	"testing"

	"github.com/hands-go/hands/provider/gemini"
	"github.com/hands-go/hands/provider/internal/providertest"
)

// TestLive runs one real tool-calling exchange against the Gemini API. It
// runs only when GEMINI_API_KEY or GOOGLE_API_KEY is set;
// HANDS_LIVE_MODEL_GEMINI picks the model.
func TestLive(t *testing.T) {
	key := cmp.Or(os.Getenv("GEMINI_API_KEY"), os.Getenv("GOOGLE_API_KEY"))
	if key == "" {
		t.Skip("neither GEMINI_API_KEY nor GOOGLE_API_KEY is set")
	}
	m, err := gemini.New(&gemini.Options{
		APIKey: key,
		Model:  providertest.LiveModel("HANDS_LIVE_MODEL_GEMINI", "gemini-2.5-flash"),
	})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Live(t, m)
}
