package agent

import (
	"context"
	"slices"

	"github.com/hands-go/hands/tool"
)

// The functions of this file are the steps of Run, for a loop that runs
// them elsewhere (such as the durable package, which runs each turn and
// each call as a Temporal activity) and must build the same turns as Run.

// NewRequest returns the request of one turn as Run builds it for a model
// that does not search deferred tools itself: the system prompt with the
// instructions of the scopes enabled now, the history, and the tools
// enabled now, the deferred ones left out until the portable search loads
// them (see ToolSearcher). NewRequestFor builds it for a given model.
func NewRequest(ctx context.Context, reg *tool.Registry, system string, history History) *Request {
	return NewRequestFor(ctx, nil, reg, system, history)
}

// NewRequestFor returns the request of one turn of model as Run builds it:
// NewRequest's, with every enabled tool, the deferred ones flagged, for a
// model that searches tools itself (a ToolSearcher whose SearchesTools
// reports true); with every tool, enabled or not, and the enabled ones
// named in Request.Allowed, for a model that is shown every tool (a
// ToolAllower whose AllowsTools reports true).
func NewRequestFor(ctx context.Context, model Model, reg *tool.Registry, system string, history History) *Request {
	if reg == nil {
		reg = &tool.Registry{}
	}
	return buildRequest(ctx, reg, system, history, searches(model), allows(model))
}

// CallIDs returns the calls of turn with an ID each, unique in history, as
// Run gives them: a call without an ID, or with one used before, gets one
// made from the turn and its place.
func CallIDs(calls []ToolCall, turn int, history History) []ToolCall {
	return withIDs(calls, turn, history)
}

// ToolMessage returns the tool message Run records for the result of call:
// the result's text, and its structured output and parts when the text is
// theirs (middleware did not rewrite it), and whether its arguments were
// migrated (tool.RepairMigrated), and the versions of the tool it was
// made against and ran as; for a result of the portable tool search, the
// tools it loaded (Message.Loaded).
func ToolMessage(call ToolCall, res tool.Result) Message {
	structured := res.Structured
	if string(structured) != res.Content {
		structured = nil // middleware rewrote what the model reads: the structured output must not bypass it
	}
	parts := res.Parts
	if tool.PartsText(parts) != res.Content {
		parts = nil // likewise for the images and resources
	}
	version := res.Version
	i := slices.IndexFunc(res.Repairs, func(rp tool.Repair) bool { return rp.Kind == tool.RepairMigrated })
	if i >= 0 {
		version = res.Repairs[i].Version
	}
	m := Message{Role: RoleTool, CallID: call.ID, Name: call.Name, Text: res.Content, Structured: structured, Parts: parts, IsError: res.IsError, Migrated: i >= 0, Version: version, RanAs: res.Version, Loaded: loadedBy(res)}
	if res.Cut != nil {
		m.Handle = res.Cut.Handle
	}
	return m
}
