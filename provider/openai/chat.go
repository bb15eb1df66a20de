package openai

import (
	"context"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hands-go/hands/agent"
)

// chat runs one turn on the Chat Completions API.
func (m *Model) chat(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params := oai.ChatCompletionNewParams{Model: m.model}
	if m.maxTokens > 0 {
		params.MaxCompletionTokens = oai.Int(m.maxTokens)
	}
	for _, spec := range req.Tools {
		schema, err := m.toolSchema(spec)
		if err != nil {
			return nil, err
		}
		fn := shared.FunctionDefinitionParam{
			Name:       spec.Name,
			Parameters: schema,
			Strict:     oai.Bool(m.strict),
		}
		if spec.Description != "" {
			fn.Description = oai.String(spec.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
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
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}

	completion, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, err
	}
	if len(completion.Choices) == 0 {
		return nil, errors.New("the completion has no choices")
	}
	msg := completion.Choices[0].Message
	resp := &agent.Response{Text: msg.Content}
	if resp.Text == "" {
		resp.Text = msg.Refusal
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "function" {
			continue
		}
		resp.Calls = append(resp.Calls, agent.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: parseArgs(tc.Function.Arguments)})
	}
	return resp, nil
}
