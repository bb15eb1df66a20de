package gemini

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// declaration returns the function declaration of a tool. Its schema is
// rewritten by dialect.Gemini into parameters or, with Options.JSONSchema,
// by dialect.GeminiJSONSchema into parametersJsonSchema. What the dialect
// cannot carry as a keyword is folded into a description or left out, and
// the registry still validates the arguments when the call arrives
// (tool.Lint lists those problems). A tool without arguments, or whose
// schema keeps nothing in the dialect, has no parameters.
func (m *Model) declaration(spec tool.Spec) (*genai.FunctionDeclaration, error) {
	decl := &genai.FunctionDeclaration{Name: spec.Name, Description: spec.Description}
	in := spec.InputSchema
	if in == nil {
		return decl, nil
	}
	if m.jsonSchema {
		if raw, _ := dialect.GeminiJSONSchema.ConvertJSON(in); raw != nil {
			decl.ParametersJsonSchema = raw
		}
		return decl, nil
	}
	converted, _ := dialect.Gemini.Convert(in)
	if converted == nil {
		return decl, nil // an object without properties: no parameters
	}
	params, err := openAPISchema(converted)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", spec.Name, err)
	}
	decl.Parameters = params
	return decl, nil
}

// openAPISchema puts a schema converted for Gemini into the SDK's type.
func openAPISchema(converted map[string]any) (*genai.Schema, error) {
	data, err := json.Marshal(converted)
	if err != nil {
		return nil, err
	}
	var s genai.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
