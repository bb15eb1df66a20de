package openai

import (
	"context"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/hands-go/hands/agent"
)

// responses runs one turn on the Responses API. The whole conversation is
// sent each time, so no state is kept on OpenAI's side between turns.
func (m *Model) responses(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	params := responses.ResponseNewParams{Model: m.model}
	if m.maxTokens > 0 {
		params.MaxOutputTokens = oai.Int(m.maxTokens)
	}
	if req.System != "" {
		params.Instructions = oai.String(req.System)
	}
	for _, spec := range req.Tools {
		schema, err := m.toolSchema(spec)
		if err != nil {
			return nil, err
		}
		fn := &responses.FunctionToolParam{
			Name:       spec.Name,
			Parameters: schema,
			Strict:     oai.Bool(m.strict),
		}
		if spec.Description != "" {
			fn.Description = oai.String(spec.Description)
		}
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	var input responses.ResponseInputParam
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleUser:
			input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleUser))
		case agent.RoleAssistant:
			if msg.Text != "" {
				input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range msg.Calls {
				input = append(input, responses.ResponseInputItemParamOfFunctionCall(callArgs(c.Args), c.ID, c.Name))
			}
		case agent.RoleTool:
			out := responses.ResponseInputItemParamOfFunctionCallOutput(resultText(msg))
			out.OfFunctionCallOutput.CallID = oai.String(msg.CallID)
			input = append(input, out)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}

	r, err := m.client.Responses.New(ctx, params)
	if err != nil {
		return nil, err
	}
	if r.Status == responses.ResponseStatusFailed {
		if r.Error.Message != "" {
			return nil, fmt.Errorf("the response failed (%s): %s", r.Error.Code, r.Error.Message)
		}
		return nil, errors.New("the response failed")
	}
	resp := &agent.Response{}
	for _, item := range r.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				switch c.Type {
				case "output_text":
					resp.Text += c.Text
				case "refusal":
					resp.Text += c.Refusal
				}
			}
		case "function_call":
			fc := item.AsFunctionCall()
			resp.Calls = append(resp.Calls, agent.ToolCall{ID: fc.CallID, Name: fc.Name, Args: parseArgs(fc.Arguments)})
		}
	}
	return resp, nil
}
