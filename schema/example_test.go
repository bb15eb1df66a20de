package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hands-go/hands/schema"
)

// A Validator is the schema of a Go type and its one-pass decoder: a valid
// document is decoded with its defaults, and an invalid one is reported
// with every issue at its JSON Pointer.
func Example() {
	type Order struct {
		SKU      string `json:"sku" jsonschema:"the product's stock-keeping unit" tool:"pattern=^[A-Z]{3}-[0-9]{4}$"`
		Quantity int    `json:"quantity,omitempty" tool:"minimum=1,maximum=99,default=1"`
	}
	v, err := schema.For[Order](nil)
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(v.Schema())
	fmt.Println(string(out))

	var o Order
	if err := v.Decode([]byte(`{"sku":"ABC-1234"}`), &o); err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", o)

	err = v.Decode([]byte(`{"sku":"abc","quantity":100,"colour":"red"}`), &o)
	if serr, ok := errors.AsType[*schema.Error](err); ok {
		for _, is := range serr.Issues {
			fmt.Println(is.Path, is.Keyword)
		}
	}
	// Output:
	// {"type":"object","properties":{"sku":{"type":"string","description":"the product's stock-keeping unit","pattern":"^[A-Z]{3}-[0-9]{4}$"},"quantity":{"type":"integer","default":1,"minimum":1,"maximum":99}},"required":["sku"],"additionalProperties":false}
	// {SKU:ABC-1234 Quantity:1}
	// /sku pattern
	// /quantity maximum
	//  additionalProperties
}
