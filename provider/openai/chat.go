package openai

import (
	"context"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hands-go/hands/agent"
)

// chatParams builds a turn's parameters for the Chat Completions API.
func (m *Model) chatParams(req *agent.Request) (oai.ChatCompletionNewParams, error) {
	params := oai.ChatCompletionNewParams{Model: m.model}
	if m.maxTokens > 0 {
		params.MaxCompletionTokens = oai.Int(m.maxTokens)
	}
	checked := m.checked()
	for _, spec := range req.Tools {
		schema, err := m.toolSchema(spec)
		if err != nil {
			return params, err
		}
		fn := shared.FunctionDefinitionParam{
			Name:       spec.Name,
			Parameters: schema,
			Strict:     oai.Bool(m.strict),
		}
		if description := describe(checked, spec, schema); description != "" {
			fn.Description = oai.String(description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	if req.Allowed != nil && len(params.Tools) > 0 {
		params.ToolChoice = chatAllowed(req.Allowed)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, oai.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleUser:
			params.Messages = append(params.Messages, oai.UserMessage(msg.Text))
		case agent.RoleAssistant:
			if msg.Text == "" && len(msg.Calls) == 0 {
				continue // an empty turn says nothing, and some servers reject it
			}
			var am oai.ChatCompletionAssistantMessageParam
			if msg.Text != "" {
				am.Content.OfString = oai.String(msg.Text)
			}
			for _, c := range msg.Calls {
				am.ToolCalls = append(am.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID: c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      c.Name,
							Arguments: callArgs(c.Args),
						},
					},
				})
			}
			params.Messages = append(params.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case agent.RoleTool:
			params.Messages = append(params.Messages, oai.ToolMessage(resultText(msg), msg.CallID))
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return params, nil
}

// chatAllowed returns the tool_choice that allows the named function
// tools alone: of type allowed_tools, in auto mode; "none" when no tool
// is allowed, since the API wants at least one.
func chatAllowed(allowed []string) oai.ChatCompletionToolChoiceOptionUnionParam {
	if len(allowed) == 0 {
		return oai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: oai.String(string(oai.ChatCompletionToolChoiceOptionAutoNone))}
	}
	tools := make([]map[string]any, len(allowed))
	for i, n := range allowed {
		tools[i] = map[string]any{"type": "function", "function": map[string]any{"name": n}}
	}
	return oai.ToolChoiceOptionAllowedTools(oai.ChatCompletionAllowedToolsParam{Mode: oai.ChatCompletionAllowedToolsModeAuto, Tools: tools})
}

// chat runs one turn on the Chat Completions API.
func (m *Model) chat(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params, err := m.chatParams(req)
	if err != nil {
		return nil, err
	}
	completion, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, err
	}
	return fromCompletion(completion)
}

// streamChat runs one turn on the Chat Completions API as a stream of
// chunks, with usage in the last one: text and argument deltas as they
// come, then the response the SDK's accumulator assembled.
func (m *Model) streamChat(ctx context.Context, req *agent.Request, yield func(agent.Chunk, error) bool) error {
	params, err := m.chatParams(req)
	if err != nil {
		return err
	}
	params.StreamOptions.IncludeUsage = oai.Bool(true)
	stream := m.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc oai.ChatCompletionAccumulator
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return errors.New("the stream sent a chunk that does not continue the completion")
		}
		if len(chunk.Choices) == 0 || chunk.Choices[0].Index != 0 {
			continue
		}
		delta := chunk.Choices[0].Delta
		if delta.Content != "" && !yield(agent.Chunk{Delta: agent.Delta{Text: delta.Content}}, nil) {
			return nil
		}
		for _, tc := range delta.ToolCalls {
			d := agent.CallDelta{Index: int(tc.Index), ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments}
			if !yield(agent.Chunk{Delta: agent.Delta{Call: &d}}, nil) {
				return nil
			}
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	resp, err := fromCompletion(&acc.ChatCompletion)
	if err != nil {
		return err
	}
	yield(agent.Chunk{Response: resp}, nil)
	return nil
}

// fromCompletion reads the first choice of a completion: its text, its
// calls with their arguments as sent, why it finished, and the usage.
func fromCompletion(completion *oai.ChatCompletion) (*agent.Response, error) {
	if len(completion.Choices) == 0 {
		return nil, errors.New("the completion has no choices")
	}
	choice := completion.Choices[0]
	msg := choice.Message
	resp := &agent.Response{Text: msg.Content, RawFinishReason: choice.FinishReason, ID: completion.ID, Model: completion.Model}
	if resp.Text == "" {
		resp.Text = msg.Refusal
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "function" {
			continue
		}
		resp.Calls = append(resp.Calls, agent.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: parseArgs(tc.Function.Arguments)})
	}
	switch {
	case msg.Refusal != "":
		resp.FinishReason = agent.FinishRefusal
	case choice.FinishReason == "length":
		resp.FinishReason = agent.FinishLength
	case choice.FinishReason == "content_filter":
		resp.FinishReason = agent.FinishContentFilter
	case choice.FinishReason == "tool_calls", choice.FinishReason == "function_call":
		resp.FinishReason = agent.FinishToolCalls
	case choice.FinishReason == "stop" && len(resp.Calls) > 0:
		resp.FinishReason = agent.FinishToolCalls // some compatible servers say stop
	case choice.FinishReason == "stop":
		resp.FinishReason = agent.FinishStop
	default:
		resp.FinishReason = agent.FinishOther
	}
	u := completion.Usage
	resp.Usage = agent.Usage{
		InputTokens:       u.PromptTokens,
		OutputTokens:      u.CompletionTokens,
		CachedInputTokens: u.PromptTokensDetails.CachedTokens,
		ReasoningTokens:   u.CompletionTokensDetails.ReasoningTokens,
	}
	return resp, nil
}
