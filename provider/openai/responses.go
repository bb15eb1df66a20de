package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// name is the key of the adapter's part of an opaque state.
const name = "openai"

// messageState is the adapter's state of an assistant message on the
// Responses API: the output items the API needs back that are neither
// text nor calls, as it sent them, in their order — reasoning items, with
// their encrypted content when the response was not stored, and the
// tool_search_call and tool_search_output items of its tool search.
type messageState struct {
	Items []json.RawMessage `json:"items,omitempty"`
}

// callState is the adapter's state of a call on the Responses API: the
// function_call item's own ID, which differs from its call_id, and the
// namespace of the function called, which a call of a deferred tool has
// and the API wants back.
type callState struct {
	ItemID    string `json:"itemId,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// responsesParams builds a turn's parameters for the Responses API. The
// whole conversation is sent each time; unless Options.Store is set the
// response is not stored, and (unless Options.NoReasoning is set) the
// reasoning items come back encrypted, to be sent back from the history.
func (m *Model) responsesParams(req *agent.Request) (responses.ResponseNewParams, error) {
	params := responses.ResponseNewParams{Model: m.model, Store: oai.Bool(m.store)}
	if m.encrypted {
		params.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	if m.maxTokens > 0 {
		params.MaxOutputTokens = oai.Int(m.maxTokens)
	}
	if req.System != "" {
		params.Instructions = oai.String(req.System)
	}
	tools, err := m.responsesTools(req.Tools)
	if err != nil {
		return params, err
	}
	params.Tools = tools
	if req.Allowed != nil && len(tools) > 0 {
		params.ToolChoice = responsesAllowed(req.Allowed)
	}
	var input responses.ResponseInputParam
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleUser:
			input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleUser))
		case agent.RoleAssistant:
			var st messageState
			provider.LoadState(msg.State, name, &st)
			for _, raw := range st.Items {
				var kind struct {
					Type string `json:"type"`
				}
				if err := json.Unmarshal(raw, &kind); err != nil {
					return params, fmt.Errorf("message %d: state item: %w", i, err)
				}
				if kind.Type != "reasoning" { // the tool search's items go back byte for byte
					input = append(input, param.Override[responses.ResponseInputItemUnionParam](raw))
					continue
				}
				var item responses.ResponseReasoningItemParam
				if err := json.Unmarshal(raw, &item); err != nil {
					return params, fmt.Errorf("message %d: reasoning item: %w", i, err)
				}
				input = append(input, responses.ResponseInputItemUnionParam{OfReasoning: &item})
			}
			if msg.Text != "" {
				input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range msg.Calls {
				fc := responses.ResponseInputItemParamOfFunctionCall(callArgs(c.Args), c.ID, c.Name)
				var cs callState
				if provider.LoadState(c.State, name, &cs) && cs.ItemID != "" {
					fc.OfFunctionCall.ID = oai.String(cs.ItemID)
				}
				if cs.Namespace != "" {
					fc.OfFunctionCall.Namespace = oai.String(cs.Namespace)
				}
				input = append(input, fc)
			}
		case agent.RoleTool:
			out := responses.ResponseInputItemParamOfFunctionCallOutput(resultText(msg))
			out.OfFunctionCallOutput.CallID = oai.String(msg.CallID)
			if items := outputItems(msg); items != nil {
				out.OfFunctionCallOutput.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: items}
			}
			input = append(input, out)
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	return params, nil
}

// responsesAllowed returns the tool_choice that allows the named function
// tools alone: of type allowed_tools, in auto mode; "none" when no tool
// is allowed, since the API wants at least one.
func responsesAllowed(allowed []string) responses.ResponseNewParamsToolChoiceUnion {
	if len(allowed) == 0 {
		return responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: oai.Opt(responses.ToolChoiceOptionsNone)}
	}
	tools := make([]map[string]any, len(allowed))
	for i, n := range allowed {
		tools[i] = map[string]any{"type": "function", "name": n}
	}
	return responses.ResponseNewParamsToolChoiceUnion{OfAllowedTools: &responses.ToolChoiceAllowedParam{Mode: responses.ToolChoiceAllowedModeAuto, Tools: tools}}
}

// responsesTools returns the tools of a turn on the Responses API: each as
// a function, a deferred one with defer_loading: true, and a deferred
// scope's (tool.Spec.Namespace) grouped in a namespace of its name, where
// the first of them stands, when the dialect has dialect.Namespaces; then,
// when some are deferred, the API's tool_search.
func (m *Model) responsesTools(specs []tool.Spec) ([]responses.ToolUnionParam, error) {
	var out []responses.ToolUnionParam
	namespaces := map[string]*responses.NamespaceToolParam{}
	deferred := false
	checked := m.checked()
	for _, spec := range specs {
		schema, err := m.toolSchema(spec)
		if err != nil {
			return nil, err
		}
		deferred = deferred || spec.DeferLoading
		if spec.DeferLoading && spec.Namespace != "" && m.dialect.Features&dialect.Namespaces != 0 {
			fn := &responses.NamespaceToolToolFunctionParam{Name: spec.Name, Parameters: schema, Strict: oai.Bool(m.strict), DeferLoading: oai.Bool(true)}
			if description := describe(checked, spec, schema); description != "" {
				fn.Description = oai.String(description)
			}
			ns := namespaces[spec.Namespace]
			if ns == nil {
				ns = &responses.NamespaceToolParam{Name: spec.Namespace}
				namespaces[spec.Namespace] = ns
				out = append(out, responses.ToolUnionParam{OfNamespace: ns})
			}
			ns.Tools = append(ns.Tools, responses.NamespaceToolToolUnionParam{OfFunction: fn})
			continue
		}
		fn := &responses.FunctionToolParam{
			Name:       spec.Name,
			Parameters: schema,
			Strict:     oai.Bool(m.strict),
		}
		if description := describe(checked, spec, schema); description != "" {
			fn.Description = oai.String(description)
		}
		if spec.DeferLoading {
			fn.DeferLoading = oai.Bool(true)
		}
		out = append(out, responses.ToolUnionParam{OfFunction: fn})
	}
	for _, ns := range namespaces {
		ns.Description = namespaceDescription(ns)
	}
	if deferred {
		out = append(out, responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{}})
	}
	return out, nil
}

// namespaceDescription is what the model is shown of a namespace before it
// searches it: its name and its tools' names.
func namespaceDescription(ns *responses.NamespaceToolParam) string {
	d := "The tools of " + ns.Name + ":"
	for i, t := range ns.Tools {
		if i > 0 {
			d += ","
		}
		d += " " + t.OfFunction.Name
	}
	return d + "."
}

// responses runs one turn on the Responses API.
func (m *Model) responses(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params, err := m.responsesParams(req)
	if err != nil {
		return nil, err
	}
	r, err := m.client.Responses.New(ctx, params)
	if err != nil {
		return nil, err
	}
	return fromResponse(r)
}

// streamResponses runs one turn on the Responses API as a stream of
// server-sent events: text and argument deltas as they come, then the
// response of the last event (response.completed, or response.incomplete).
func (m *Model) streamResponses(ctx context.Context, req *agent.Request, yield func(agent.Chunk, error) bool) error {
	params, err := m.responsesParams(req)
	if err != nil {
		return err
	}
	stream := m.client.Responses.NewStreaming(ctx, params)
	defer stream.Close()
	calls := map[int64]int{} // output index to call index
	for stream.Next() {
		ev := stream.Current()
		var d agent.Delta
		switch ev.Type {
		case "response.output_text.delta":
			d.Text = ev.Delta
		case "response.output_item.added":
			if ev.Item.Type != "function_call" {
				continue
			}
			i := len(calls)
			calls[ev.OutputIndex] = i
			d.Call = &agent.CallDelta{Index: i, ID: ev.Item.CallID, Name: ev.Item.Name, Args: ev.Item.Arguments.OfString}
		case "response.function_call_arguments.delta":
			i, ok := calls[ev.OutputIndex]
			if !ok {
				continue
			}
			d.Call = &agent.CallDelta{Index: i, Args: ev.Delta}
		case "response.completed", "response.incomplete", "response.failed":
			resp, err := fromResponse(&ev.Response)
			if err != nil {
				return err
			}
			yield(agent.Chunk{Response: resp}, nil)
			return nil
		case "error":
			return fmt.Errorf("the stream failed (%s): %s", ev.Code, ev.Message)
		default:
			continue
		}
		if d.Text == "" && d.Call == nil {
			continue
		}
		if !yield(agent.Chunk{Delta: d}, nil) {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	return errors.New("the stream ended without a response")
}

// fromResponse reads a response of the Responses API: its text, its calls
// with their arguments as sent, why it finished, the items to send back,
// and its usage.
func fromResponse(r *responses.Response) (*agent.Response, error) {
	if r.Status == responses.ResponseStatusFailed {
		if r.Error.Message != "" {
			return nil, fmt.Errorf("the response failed (%s): %s", r.Error.Code, r.Error.Message)
		}
		return nil, errors.New("the response failed")
	}
	resp := &agent.Response{RawFinishReason: string(r.Status), ID: r.ID, Model: string(r.Model)}
	var st messageState
	refused := false
	for _, item := range r.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				switch c.Type {
				case "output_text":
					resp.Text += c.Text
				case "refusal":
					resp.Text += c.Refusal
					refused = true
				}
			}
		case "function_call":
			fc := item.AsFunctionCall()
			resp.Calls = append(resp.Calls, agent.ToolCall{
				ID:    fc.CallID,
				Name:  fc.Name,
				Args:  parseArgs(fc.Arguments),
				State: provider.State(name, callState{ItemID: fc.ID, Namespace: fc.Namespace}),
			})
		case "reasoning", "tool_search_call", "tool_search_output":
			st.Items = append(st.Items, json.RawMessage(item.RawJSON()))
		}
	}
	if len(st.Items) > 0 {
		resp.State = provider.State(name, st)
	}
	switch {
	case r.Status == responses.ResponseStatusIncomplete:
		reason := r.IncompleteDetails.Reason
		resp.RawFinishReason += ": " + reason
		switch reason {
		case "max_output_tokens":
			resp.FinishReason = agent.FinishLength
		case "content_filter":
			resp.FinishReason = agent.FinishContentFilter
		default:
			resp.FinishReason = agent.FinishOther
		}
	case refused:
		resp.FinishReason = agent.FinishRefusal
	case len(resp.Calls) > 0:
		resp.FinishReason = agent.FinishToolCalls
	default:
		resp.FinishReason = agent.FinishStop
	}
	u := r.Usage
	resp.Usage = agent.Usage{
		InputTokens:       u.InputTokens,
		OutputTokens:      u.OutputTokens,
		CachedInputTokens: u.InputTokensDetails.CachedTokens,
		ReasoningTokens:   u.OutputTokensDetails.ReasoningTokens,
	}
	return resp, nil
}

// images are the media types of the images a function_call_output may
// hold.
var images = provider.Images("image/png", "image/jpeg", "image/webp", "image/gif")

// outputItems returns the output of a tool message's function_call_output
// as a list, when its parts (agent.Message.Parts) hold an image the API
// takes: each such image as an input_image with a data URL, and the other
// parts as input_text between them. It returns nil for a message that
// goes as its text: a failed call, or one without such an image.
func outputItems(msg agent.Message) responses.ResponseFunctionCallOutputItemListParam {
	if msg.IsError {
		return nil
	}
	parts := provider.ResultParts(msg.Parts, images)
	if parts == nil {
		return nil
	}
	items := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(parts))
	for _, p := range parts {
		if p.Kind == tool.PartImage {
			url := "data:" + p.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
			items = append(items, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: oai.String(url)}})
			continue
		}
		items = append(items, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: p.Text}})
	}
	return items
}
