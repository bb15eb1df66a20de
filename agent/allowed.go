package agent

// A ToolAllower is a Model whose provider is shown every tool of the
// registry on every turn and told which of them it may call on that turn,
// such as OpenAI's allowed_tools tool choice. The loop checks for it at
// run time, as it checks for a ToolSearcher.
//
// For a model that allows tools (AllowsTools reports true), a request's
// Tools are every tool of the registry, enabled or not, in the
// registry's order, and Request.Allowed names the enabled ones: the list
// of tools, and the prompt cache built on it, change only when the
// registry does, however the enabled predicates turn from turn to turn.
// The price is that the provider reads the definitions of the tools
// disabled now: a tool disabled because the caller must not know of it
// belongs in another registry, not behind a predicate. A call to a tool
// the model was not allowed is still refused by the registry, whose
// predicates are asked again when the call runs.
//
// Deferred tools go to such a model as to any other: flagged to a
// ToolSearcher, behind the portable search otherwise, the tools the search
// loaded staying in Tools once a predicate turns them off.
type ToolAllower interface {
	// AllowsTools reports whether the model is sent every tool, with the
	// names of those it may call in Request.Allowed.
	AllowsTools() bool
}

// allows reports whether m is shown every tool and told which it may
// call.
func allows(m Model) bool {
	ta, ok := m.(ToolAllower)
	return ok && ta.AllowsTools()
}
