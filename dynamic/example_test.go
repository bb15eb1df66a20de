package dynamic_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/tool"
)

// A tool defined by a JSON Schema document, as configuration or another
// system supplies it: its arguments are checked by a complete draft
// 2020-12 validator before the handler runs, and a model hears every issue.
func Example() {
	lookup, err := dynamic.New("lookup_order", "Look up an order by its number.",
		json.RawMessage(`{"type":"object","properties":{"order":{"type":"string","pattern":"^[0-9]{8}$"}},"required":["order"],"additionalProperties":false}`),
		func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ Order string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return "order " + a.Order + " shipped", nil
		})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fmt.Println(tool.Run(ctx, lookup, tool.Call{Name: "lookup_order", Args: json.RawMessage(`{"order":"12345678"}`)}).Content)
	res := tool.Run(ctx, lookup, tool.Call{Name: "lookup_order", Args: json.RawMessage(`{"order":"12-34"}`)})
	fmt.Println(res.IsError)
	// Output:
	// order 12345678 shipped
	// true
}
