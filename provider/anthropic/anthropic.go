package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/provider"
)

// DefaultMaxTokens is the max_tokens of every request when
// Options.MaxTokens is zero. It is enough for a turn of text and tool calls,
// and every current model accepts it in a request that is not streamed.
const DefaultMaxTokens = 8192

// DefaultMaxRetries is how many times a request is sent again after a rate
// limit, an overload, a timeout or a server error, when Options.MaxRetries
// is zero.
const DefaultMaxRetries = 2

// Options configure a Model. Model is required; every other zero field
// selects its default.
type Options struct {
	// APIKey authenticates the requests. If empty, the SDK's usual sources
	// are used, such as ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL is the API's base URL, without the version, such as
	// "https://api.anthropic.com". If empty, ANTHROPIC_BASE_URL is used, or
	// else Anthropic's own.
	BaseURL string
	// Model names the model, such as "claude-sonnet-5-5". It is required.
	Model string
	// HTTPClient sends the requests. If nil, the SDK's default client is
	// used.
	HTTPClient *http.Client

	// MaxTokens is max_tokens: how many tokens the model may generate in
	// one turn. Zero selects DefaultMaxTokens. The SDK refuses a value whose
	// answer could take more than ten minutes to come back (above about
	// 21,000), since a Model does not stream.
	MaxTokens int
	// Strict sends tools with strict: true, so that the model's arguments
	// are constrained to match each tool's schema, which is then rewritten
	// for Anthropic's strict subset of JSON Schema. Off by default.
	Strict bool
	// MaxRetries is how many times a request is sent again after a rate
	// limit, an overload, a timeout or a server error. Zero selects
	// DefaultMaxRetries; a negative value sends each request once.
	MaxRetries int
}

// A Model is an agent.Model backed by Anthropic's Messages API through the
// official Go SDK. A Model is safe for concurrent use.
type Model struct {
	client    sdk.Client
	model     string
	maxTokens int64
	strict    bool
}

var _ agent.Model = (*Model)(nil)

// New returns a Model configured by opts. It reports an error if opts is nil
// or names no model, or if MaxTokens is negative.
func New(opts *Options) (*Model, error) {
	if opts == nil || opts.Model == "" {
		return nil, errors.New("anthropic: Options.Model is required")
	}
	if opts.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: Options.MaxTokens is %d, want a positive number or zero for the default", opts.MaxTokens)
	}
	var reqOpts []option.RequestOption
	if opts.APIKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(opts.APIKey))
	}
	if opts.BaseURL != "" {
		reqOpts = append(reqOpts, option.WithBaseURL(opts.BaseURL))
	}
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	switch {
	case opts.MaxRetries > 0:
		reqOpts = append(reqOpts, option.WithMaxRetries(opts.MaxRetries))
	case opts.MaxRetries < 0:
		reqOpts = append(reqOpts, option.WithMaxRetries(0))
	default:
		reqOpts = append(reqOpts, option.WithMaxRetries(DefaultMaxRetries))
	}
	maxTokens := opts.MaxTokens
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}
	return &Model{
		client:    sdk.NewClient(reqOpts...),
		model:     opts.Model,
		maxTokens: int64(maxTokens),
		strict:    opts.Strict,
	}, nil
}

// Generate sends one turn to the model and returns its text and tool calls.
// An error status from the API is returned as an error that wraps a
// *provider.Error. Tools the dialect rejects are not sent: the error
// matches dialect.ErrRejected and lists their problems.
func (m *Model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	if err := provider.CheckTools(m.dialect(), req.Tools); err != nil {
		return nil, m.fail(err)
	}
	params, err := m.params(req)
	if err != nil {
		return nil, m.fail(err)
	}
	msg, err := m.client.Messages.New(ctx, params)
	if err != nil {
		return nil, m.fail(err)
	}
	resp := &agent.Response{}
	for _, block := range msg.Content {
		switch block.Type {
		case "text":
			resp.Text += block.Text
		case "tool_use":
			resp.Calls = append(resp.Calls, agent.ToolCall{ID: block.ID, Name: block.Name, Args: compactArgs(block.Input)})
		}
	}
	return resp, nil
}

// params builds the request's parameters.
func (m *Model) params(req *agent.Request) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{Model: m.model, MaxTokens: m.maxTokens}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, spec := range req.Tools {
		schema, err := m.toolSchema(spec)
		if err != nil {
			return params, err
		}
		tp := &sdk.ToolParam{Name: spec.Name, InputSchema: schema}
		if spec.Description != "" {
			tp.Description = sdk.String(spec.Description)
		}
		if m.strict {
			tp.Strict = sdk.Bool(true)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return params, err
	}
	params.Messages = msgs
	return params, nil
}

// messages maps the conversation. Tool results go back as tool_result
// blocks in a user message; consecutive messages of one role, such as the
// results of the calls of one turn, are joined into one message, since the
// API wants the roles to alternate and all the results of a turn together.
func messages(in []agent.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	var role agent.Role
	var blocks []sdk.ContentBlockParamUnion
	flush := func() {
		if len(blocks) == 0 {
			return
		}
		if role == agent.RoleAssistant {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		} else {
			out = append(out, sdk.NewUserMessage(blocks...))
		}
		blocks = nil
	}
	for i, msg := range in {
		var next []sdk.ContentBlockParamUnion
		r := msg.Role
		switch msg.Role {
		case agent.RoleUser:
			next = append(next, sdk.NewTextBlock(msg.Text))
		case agent.RoleAssistant:
			if msg.Text != "" {
				next = append(next, sdk.NewTextBlock(msg.Text))
			}
			for _, c := range msg.Calls {
				next = append(next, sdk.NewToolUseBlock(c.ID, objectArgs(c.Args), c.Name))
			}
		case agent.RoleTool:
			r = agent.RoleUser
			res := &sdk.ToolResultBlockParam{ToolUseID: msg.CallID}
			if msg.Text != "" { // the API rejects an empty text block
				res.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: msg.Text}}}
			}
			if msg.IsError {
				res.IsError = sdk.Bool(true)
			}
			next = append(next, sdk.ContentBlockParamUnion{OfToolResult: res})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
		if len(next) == 0 {
			continue // an empty assistant turn says nothing, and the API rejects it
		}
		if r != role {
			flush()
			role = r
		}
		blocks = append(blocks, next...)
	}
	flush()
	return out, nil
}

// compactArgs returns the input of a tool_use block as compact JSON, "{}"
// for none.
func compactArgs(input json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, input) != nil || buf.Len() == 0 || buf.String() == "null" {
		return json.RawMessage("{}")
	}
	return buf.Bytes()
}

// objectArgs returns a call's arguments as the input of a tool_use block,
// which must be an object.
func objectArgs(args json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return args
}

// fail wraps an error of the SDK with the model's name, and an error status
// of the API in a *provider.Error.
func (m *Model) fail(err error) error {
	if apiErr, ok := errors.AsType[*sdk.Error](err); ok {
		err = &provider.Error{Provider: "anthropic", StatusCode: apiErr.StatusCode, Code: string(apiErr.Type()), Message: apiErr.Message, Err: apiErr}
	}
	return fmt.Errorf("anthropic: %s: %w", m.model, err)
}
