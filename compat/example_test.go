package compat_test

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/compat"
)

func Example() {
	var old, new jsonschema.Schema
	json.Unmarshal([]byte(`{"type":"object","properties":{
		"city": {"type":"string"},
		"days": {"type":"integer","maximum":7}},
		"required":["city"],"additionalProperties":false}`), &old)
	json.Unmarshal([]byte(`{"type":"object","properties":{
		"city": {"type":"string"},
		"days": {"type":"number","maximum":5},
		"units": {"enum":["metric","imperial"]}},
		"required":["city"],"additionalProperties":false}`), &new)

	changes := compat.Input(&old, &new, nil)
	for _, c := range changes {
		fmt.Println(c)
	}
	fmt.Println("breaks:", compat.Breaks(changes))
	// Output:
	// breaking   /properties/days/maximum: maximum 7 → 5
	// compatible /properties/days/type: type integer → number
	// compatible /properties/units: property "units" added
	// breaks: true
}
