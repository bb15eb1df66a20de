package provider

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// CheckTools returns nil if the tools of one request can be sent in dialect
// d, and otherwise an error that matches dialect.ErrRejected and lists
// every problem with the tool, the field and the fix (a
// *dialect.RejectError). An adapter calls it before it builds a request,
// so that no tool is sent in a form the provider rejects or with part of
// its schema left out; a tool's examples are held to the dialect too
// (dialect.Dialect.Examples). A tool without an input schema counts as one
// without arguments. Each tool needs the features Needs gives, and those
// of extra, which an adapter passes for what it adds to every tool (such
// as dialect.EagerInputStreaming); d refuses the ones it lacks.
func CheckTools(d *dialect.Dialect, specs []tool.Spec, extra ...dialect.Feature) error {
	return CheckAllowed(d, specs, nil, extra...)
}

// CheckAllowed is CheckTools for a request that may name the tools the
// model is allowed to call (agent.Request.Allowed, nil when it names
// none): a tool it leaves out needs dialect.AllowedTools too, which d
// refuses when it lacks it, so that an adapter whose provider cannot be
// told which tools are allowed never shows a model a tool it may not call.
func CheckAllowed(d *dialect.Dialect, specs []tool.Spec, allowed []string, extra ...dialect.Feature) error {
	var all dialect.Feature
	for _, f := range extra {
		all |= f
	}
	var ok map[string]bool
	if allowed != nil {
		ok = make(map[string]bool, len(allowed))
		for _, name := range allowed {
			ok[name] = true
		}
	}
	tools := make([]dialect.ToolSchema, len(specs))
	for i, spec := range specs {
		need := Needs(spec) | all
		if ok != nil && !ok[spec.Name] {
			need |= dialect.AllowedTools
		}
		tools[i] = dialect.ToolSchema{Name: spec.Name, Schema: InputSchema(spec), Examples: spec.Examples, Features: need}
	}
	return d.Check(tools...)
}

// Needs returns the features of the provider that sending spec as it is
// needs: dialect.DeferLoading and dialect.ToolSearch for a deferred tool
// (tool.Spec.DeferLoading), which is sent flagged, behind the provider's
// own search; none for any other.
func Needs(spec tool.Spec) dialect.Feature {
	if spec.DeferLoading {
		return dialect.DeferLoading | dialect.ToolSearch
	}
	return 0
}

// InputSchema returns the input schema of spec, or an object schema
// without properties when it has none.
func InputSchema(spec tool.Spec) *jsonschema.Schema {
	if spec.InputSchema == nil {
		return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	}
	return spec.InputSchema
}
