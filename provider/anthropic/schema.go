package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// dialect returns the dialect of the tools: dialect.Anthropic(), or
// dialect.AnthropicStrict() for strict tools.
func (m *Model) dialect() *dialect.Dialect {
	if m.strict {
		return strictDialect
	}
	return plainDialect
}

// The adapter's own copies of its dialects, taken once: a copy per
// request would cost a table per request.
var (
	plainDialect  = dialect.Anthropic()
	strictDialect = dialect.AnthropicStrict()
)

// toolSchema returns the input_schema sent for a tool: its schema rewritten
// by its dialect, dialect.AnthropicStrict() for a strict tool
// (Options.Strict, Options.StrictTools) and dialect.Anthropic() for any
// other. What the dialect cannot carry as a keyword is
// folded into a description, and the registry still validates the
// arguments when the call arrives; Generate has already refused a tool the
// dialect cannot express. The properties keep their order.
func (m *Model) toolSchema(spec tool.Spec) (sdk.ToolInputSchemaParam, error) {
	in := provider.InputSchema(spec)
	d := plainDialect
	if m.strictFor(spec) {
		d = strictDialect
	}
	raw, problems := d.ConvertJSON(in)
	if raw == nil {
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = p
		}
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("tool %s: input schema: %w", spec.Name, errors.Join(errs...))
	}
	return inputSchema(spec.Name, raw)
}

// inputSchema puts a schema object into the SDK's type, which names
// properties and required and carries every other keyword as an extra
// field; "type" is always "object". Values stay raw JSON, so that the SDK
// writes them as they are.
func inputSchema(name string, raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var p sdk.ToolInputSchemaParam
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return p, fmt.Errorf("tool %s: the input schema is not a JSON object", name)
	}
	extra := map[string]any{}
	for k, v := range members {
		switch k {
		case "type":
		case "properties":
			p.Properties = v
		case "required":
			if err := json.Unmarshal(v, &p.Required); err != nil {
				return p, fmt.Errorf("tool %s: input schema: required: %w", name, err)
			}
		default:
			extra[k] = v
		}
	}
	if p.Properties == nil {
		p.Properties = json.RawMessage("{}")
	}
	if len(extra) > 0 {
		p.ExtraFields = extra
	}
	return p, nil
}

// toolExamples returns the description a tool is sent with and the
// examples sent as its input_examples, as the model's dialect decides:
// both Anthropic dialects keep them. They go as an extra field of the
// SDK's ToolParam, each as it is, rather than in its InputExamples, whose
// []map[string]any would write every example's keys sorted, and not in
// the order of the schema's properties, in which the model writes them.
// input_examples is a field of the Messages API's tools, with no beta
// header (it was one of the "advanced-tool-use-2025-11-20" beta at first).
func (m *Model) toolExamples(spec tool.Spec) (string, []json.RawMessage) {
	description, examples, _ := m.dialect().ConvertExamples(spec.Name, spec.Description, spec.Examples)
	return description, examples
}
