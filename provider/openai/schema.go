package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// toolSchema returns the parameters object sent for a tool. A strict tool's
// schema is rewritten by dialect.OpenAIStrict: what strict mode cannot carry
// as a keyword is folded into a description or left out, and the registry
// still validates the arguments when the call arrives (tool.Lint lists
// those problems). A tool that is not strict is sent its schema as it is.
// The properties keep their order, in which the model writes them.
func (m *Model) toolSchema(spec tool.Spec) (map[string]any, error) {
	in := spec.InputSchema
	if in == nil {
		in = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	}
	var raw json.RawMessage
	if m.strict {
		var problems []dialect.Problem
		raw, problems = dialect.OpenAIStrict.ConvertJSON(in)
		if raw == nil {
			errs := make([]error, len(problems))
			for i, p := range problems {
				errs[i] = p
			}
			return nil, fmt.Errorf("tool %s: input schema: %w", spec.Name, errors.Join(errs...))
		}
	} else {
		var err error
		if raw, err = json.Marshal(in); err != nil {
			return nil, fmt.Errorf("tool %s: encode input schema: %w", spec.Name, err)
		}
	}
	return rawObject(spec.Name, raw)
}

// rawObject splits a JSON object into its members, each kept as raw JSON so
// that the SDK writes them out as they are, nested keys in their order.
func rawObject(name string, raw json.RawMessage) (map[string]any, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return nil, fmt.Errorf("tool %s: the input schema is not a JSON object", name)
	}
	out := make(map[string]any, len(members))
	for k, v := range members {
		out[k] = v
	}
	return out, nil
}
