package schema_test

import (
	"fmt"
	"log"

	"github.com/hands-go/hands/schema"
)

func ExampleDialect_ConvertJSON() {
	type Args struct {
		Username string `json:"username" jsonschema:"login name" tool:"minLength=3,maxLength=20,pattern=^[a-z]+$"`
		Age      *int   `json:"age,omitempty" tool:"minimum=1"`
	}
	v, err := schema.For[Args](nil)
	if err != nil {
		log.Fatal(err)
	}
	out, problems := schema.OpenAIStrict.ConvertJSON(v.Schema())
	fmt.Println(string(out))
	for _, p := range problems {
		fmt.Println(p.Severity, p.Path, p.Keyword)
	}
	// Output:
	// {"type":"object","properties":{"username":{"type":"string","description":"login name (3–20 characters)","pattern":"^[a-z]+$"},"age":{"type":["integer","null"],"minimum":1}},"required":["username","age"],"additionalProperties":false}
	// folded /properties/username minLength
	// folded /properties/username maxLength
}

func ExampleDialect_Lint() {
	type Node struct {
		Name     string `json:"name"`
		Children []Node `json:"children,omitempty"`
	}
	v, err := schema.For[Node](nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range schema.Dialects() {
		for _, p := range d.Lint("walk.tree", v.Schema()) {
			if p.Severity == schema.SeverityError {
				fmt.Println(d.Name, p.Path, p.Keyword)
			}
		}
	}
	// Output:
	// openai-strict  name
	// anthropic  name
	// anthropic-strict  name
	// anthropic-strict /properties/children/items $ref
	// gemini /properties/children/items $ref
}

// A dialect's limits are fields: copy a predefined dialect to change them.
func ExampleDialect_limits() {
	type Args struct {
		Query string `json:"query"`
		Page  int    `json:"page"`
		Size  int    `json:"size"`
	}
	v, err := schema.For[Args](nil)
	if err != nil {
		log.Fatal(err)
	}
	d := *schema.OpenAIStrict
	d.MaxProperties = 2
	for _, p := range d.Lint("search", v.Schema()) {
		fmt.Println(p)
	}
	// Output:
	// error [openai-strict] tool search at the root: the schema has 3 object properties in all; OpenAI strict mode accepts at most 2
}
