package dialect_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/hands-go/hands/dialect"
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
	out, problems := dialect.OpenAIStrict().ConvertJSON(v.Schema())
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
	for _, d := range dialect.Dialects() {
		for _, p := range d.Lint("walk.tree", v.Schema()) {
			if p.Severity == dialect.SeverityError {
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
	d := *dialect.OpenAIStrict()
	d.MaxProperties = 2
	for _, p := range d.Lint("search", v.Schema()) {
		fmt.Println(p)
	}
	// Output:
	// error [openai-strict] tool search at the root: the schema has 3 object properties in all; OpenAI strict mode accepts at most 2; to fix, split the tool into smaller ones
}

// A dialect for an OpenAI-compatible server that runs a local model: it
// takes OpenAI's strict subset, but also minLength and maxLength and
// optional properties, nests objects at most 2 levels deep and takes tool
// names of at most 32 characters.
func ExampleOpenAIStrict() {
	local := dialect.OpenAIStrict()
	local.Name = "local"
	local.Provider = "the local server"
	local.ToolNames.MaxLength = 32
	local.MaxDepth = 2
	local.Keywords["minLength"] = dialect.Keep
	local.Keywords["maxLength"] = dialect.Keep
	local.Passes &^= dialect.RequireAll

	type Street struct {
		Name string `json:"name" tool:"minLength=1"`
	}
	type City struct {
		Street Street `json:"street"`
	}
	type Args struct {
		Query string `json:"query" tool:"minLength=3,maxLength=20"`
		Page  int    `json:"page,omitempty"`
		City  *City  `json:"city,omitempty"`
	}
	v, err := schema.For[Args](nil)
	if err != nil {
		log.Fatal(err)
	}
	out, _ := local.ConvertJSON(v.Schema())
	fmt.Println(string(out))
	err = local.Check(dialect.ToolSchema{Name: "search_the_whole_document_archive", Schema: v.Schema()})
	fmt.Println(errors.Is(err, dialect.ErrRejected))
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"query":{"type":"string","minLength":3,"maxLength":20},"page":{"type":"integer"},"city":{"type":["object","null"],"properties":{"street":{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"],"additionalProperties":false}},"required":["street"],"additionalProperties":false}},"required":["query"],"additionalProperties":false}
	// true
	// dialect: local: the provider would reject the tools or lose part of them (2 errors):
	// 	error [local] tool search_the_whole_document_archive: the tool name is 33 characters long; the local server accepts at most 32; to fix, rename the tool
	// 	error [local] tool search_the_whole_document_archive at /properties/city/properties/street: objects nest 3 levels deep here; the local server accepts at most 2; to fix, flatten the nesting of the input's types
}
