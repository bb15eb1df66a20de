package provider

import "encoding/json"

// State returns an opaque provider state, as agent.Message.State and
// agent.ToolCall.State hold it: a JSON object whose one key is the
// provider's name and whose value is v. It returns nil when v encodes as
// null or cannot be encoded.
func State(name string, v any) json.RawMessage {
	data, err := json.Marshal(map[string]any{name: v})
	if err != nil || string(data) == `{"`+name+`":null}` {
		return nil
	}
	return data
}

// LoadState decodes into v the part of state that belongs to the provider
// name, and reports whether there was one. State written for another
// provider, or not written by an adapter at all, is ignored.
func LoadState(state json.RawMessage, name string, v any) bool {
	if len(state) == 0 {
		return false
	}
	var parts map[string]json.RawMessage
	if json.Unmarshal(state, &parts) != nil {
		return false
	}
	part, ok := parts[name]
	return ok && json.Unmarshal(part, v) == nil
}
