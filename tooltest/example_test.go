package tooltest_test

import (
	"context"
	"fmt"
	"log"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/tooltest"
)

// printTB prints what a test would report, for the example; a test passes
// its own *testing.T.
type printTB struct{ testing.TB }

func (printTB) Helper() {}

func (printTB) Errorf(format string, args ...any) { fmt.Printf("FAIL "+format+"\n", args...) }

func (printTB) Logf(format string, args ...any) { fmt.Printf("log  "+format+"\n", args...) }

func ExamplePortable() {
	type Args struct {
		Text   string            `json:"text" tool:"maxLength=280"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	post := tool.New("post", "Post a message.", func(ctx context.Context, a Args) (string, error) { return "posted", nil })
	reg, err := tool.NewRegistry(&tool.Scope{Name: "social", Tools: []tool.Interface{post}})
	if err != nil {
		log.Fatal(err)
	}

	tooltest.Portable(printTB{}, reg, dialect.OpenAIStrict()) // in a test: tooltest.Portable(t, reg)
	// Output:
	// log  folded [openai-strict] tool post at /properties/text: maxLength 280 is not carried by OpenAI strict mode; the description says it instead
	// FAIL error [openai-strict] tool post at /properties/labels: OpenAI strict mode cannot express a map (additionalProperties {"type":"string"}); the map is left out; to fix, make the field a slice of key-value structs, or use a dialect that takes maps (mcp, anthropic, gemini-json-schema)
}
