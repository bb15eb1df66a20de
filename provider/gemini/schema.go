package gemini

import (
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// The adapter's own copies of its dialects, taken once: a copy per
// request would cost a table per request.
var (
	parametersDialect = dialect.Gemini()
	jsonSchemaDialect = dialect.GeminiJSONSchema()
)

// dialect returns the dialect of the tools: dialect.Gemini(), or
// dialect.GeminiJSONSchema() with Options.JSONSchema.
func (m *Model) dialect() *dialect.Dialect {
	if m.jsonSchema {
		return jsonSchemaDialect
	}
	return parametersDialect
}

// declaration returns the function declaration of a tool. Its schema is
// rewritten by dialect.Gemini() into parameters or, with Options.JSONSchema,
// by dialect.GeminiJSONSchema() into parametersJsonSchema. What the dialect
// cannot carry as a keyword is folded into a description, and the registry
// still validates the arguments when the call arrives; Generate has already
// refused a tool the dialect cannot express. A tool without arguments has
// no parameters. The tool's examples end its description: both dialects
// fold them, since a declaration has no field for them (a Schema's
// example holds one value, which the API reads only at the root).
func (m *Model) declaration(spec tool.Spec) (*genai.FunctionDeclaration, error) {
	d := m.dialect()
	description, _, _ := d.ConvertExamples(spec.Name, spec.Description, spec.Examples)
	decl := &genai.FunctionDeclaration{Name: spec.Name, Description: description}
	in := spec.InputSchema
	if in == nil {
		return decl, nil
	}
	if m.jsonSchema {
		raw, problems := d.ConvertJSON(in)
		if err := errorOf(problems); err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", spec.Name, err)
		}
		decl.ParametersJsonSchema = raw
		return decl, nil
	}
	converted, problems := d.Convert(in)
	if err := errorOf(problems); err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", spec.Name, err)
	}
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

// errorOf joins the errors among problems, or returns nil.
func errorOf(problems []dialect.Problem) error {
	var errs []error
	for _, p := range problems {
		if p.Severity == dialect.SeverityError {
			errs = append(errs, p)
		}
	}
	return errors.Join(errs...)
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
