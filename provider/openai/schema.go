package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// checked returns the dialect the tools are checked in: the strict one, or
// for tools sent as they are, its rules for names, the root, the number of
// tools and the examples alone, with its features. Chat Completions has no
// deferred loading, tool search or namespaces, and a Model with
// Options.AllowedTools uses none (see SearchesTools): its copy lacks them.
func (m *Model) checked() *dialect.Dialect {
	d := m.dialect
	if !m.strict {
		d = &dialect.Dialect{Name: d.Name, Provider: d.Provider, ToolNames: d.ToolNames, NotAtRoot: d.NotAtRoot, MaxTools: d.MaxTools,
			Examples: d.Examples, MaxFoldedExamples: d.MaxFoldedExamples, Features: d.Features}
	}
	if (m.api == ChatCompletions || m.allowed) && d.Features&(dialect.DeferLoading|dialect.ToolSearch|dialect.Namespaces) != 0 {
		d = d.Clone()
		d.Features &^= dialect.DeferLoading | dialect.ToolSearch | dialect.Namespaces
	}
	return d
}

// toolSchema returns the parameters object sent for a tool. A strict tool's
// schema is rewritten by the dialect (dialect.OpenAIStrict() unless
// Options.Dialect says otherwise): what strict mode cannot carry as a
// keyword is folded into a description, and the registry still validates
// the arguments when the call arrives; Generate has already refused a tool
// the dialect cannot express. A tool that is not strict is sent its schema
// as it is. The properties keep their order, in which the model writes
// them.
func (m *Model) toolSchema(spec tool.Spec) (map[string]any, error) {
	in := provider.InputSchema(spec)
	var raw json.RawMessage
	if m.strict {
		var problems []dialect.Problem
		raw, problems = m.dialect.ConvertJSON(in)
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

// describe returns the description a tool is sent with: its own, and its
// examples as d, the dialect the tools are checked in, decides
// (dialect.OpenAIStrict() folds them into it, strict or not, since a
// function has no field for them and the model reads the description).
// Examples a dialect keeps go in the parameters' root "examples", draft
// 2020-12's list of valid instances, the one place a schema has for them.
func describe(d *dialect.Dialect, spec tool.Spec, params map[string]any) string {
	description, kept, _ := d.ConvertExamples(spec.Name, spec.Description, spec.Examples)
	if len(kept) > 0 {
		params["examples"] = kept
	}
	return description
}
