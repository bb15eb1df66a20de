package gemini

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"google.golang.org/genai"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/provider"
)

// DefaultMaxRetries is how many times a request is sent again after a rate
// limit, a timeout or a server error, when Options.MaxRetries is zero.
const DefaultMaxRetries = 2

// Options configure a Model. Model is required; every other zero field
// selects its default.
type Options struct {
	// APIKey authenticates the requests (the x-goog-api-key header). If
	// empty, GOOGLE_API_KEY or GEMINI_API_KEY is used, and New fails if
	// neither is set.
	APIKey string
	// BaseURL is the API's base URL, without the version, such as
	// "https://generativelanguage.googleapis.com/". If empty,
	// GOOGLE_GEMINI_BASE_URL is used, or else Google's own.
	BaseURL string
	// Model names the model, such as "gemini-3-flash". It is required.
	Model string
	// HTTPClient sends the requests. If nil, a new http.Client is used.
	HTTPClient *http.Client

	// JSONSchema sends each tool's schema as parametersJsonSchema, JSON
	// Schema rewritten by dialect.GeminiJSONSchema, instead of parameters,
	// the OpenAPI 3.0 subset rewritten by dialect.Gemini. JSON Schema keeps
	// more (references, maps, type lists), but older models accept only
	// parameters, which is the default.
	JSONSchema bool
	// MaxTokens bounds the tokens the model may generate in one turn
	// (maxOutputTokens). Zero leaves it to the API.
	MaxTokens int
	// MaxRetries is how many times a request is sent again after a rate
	// limit, a timeout or a server error. Zero selects DefaultMaxRetries; a
	// negative value sends each request once.
	MaxRetries int
}

// A Model is an agent.Model backed by the Gemini API through the official
// Go SDK (google.golang.org/genai). A Model is safe for concurrent use.
//
// A Model remembers, for the calls it returned, the IDs the API gave them
// and the thought signatures that came with them, and sends both back with
// the conversation; see the package documentation.
type Model struct {
	client     *genai.Client
	model      string
	jsonSchema bool
	maxTokens  int32
	calls      callMemory
}

var _ agent.Model = (*Model)(nil)

// New returns a Model configured by opts. It reports an error if opts is nil
// or names no model, or if there is no API key.
func New(opts *Options) (*Model, error) {
	if opts == nil || opts.Model == "" {
		return nil, errors.New("gemini: Options.Model is required")
	}
	cfg := &genai.ClientConfig{
		APIKey:     opts.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: opts.HTTPClient,
		HTTPOptions: genai.HTTPOptions{
			BaseURL: opts.BaseURL,
		},
	}
	retries := opts.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	if retries > 0 {
		attempts := int32(retries + 1)
		cfg.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts}
	}
	// The context only serves to find Google Cloud credentials, which the
	// Gemini API backend does not use.
	client, err := genai.NewClient(context.Background(), cfg)
	if err != nil {
		if opts.APIKey == "" {
			return nil, errors.New("gemini: no API key: set Options.APIKey, GOOGLE_API_KEY or GEMINI_API_KEY")
		}
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &Model{
		client:     client,
		model:      opts.Model,
		jsonSchema: opts.JSONSchema,
		maxTokens:  int32(min(max(opts.MaxTokens, 0), 1<<31-1)),
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
	config := &genai.GenerateContentConfig{}
	if req.System != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if m.maxTokens > 0 {
		config.MaxOutputTokens = m.maxTokens
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, len(req.Tools))
		for i, spec := range req.Tools {
			decl, err := m.declaration(spec)
			if err != nil {
				return nil, m.fail(err)
			}
			decls[i] = decl
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	contents, err := m.contents(req.Messages)
	if err != nil {
		return nil, m.fail(err)
	}
	r, err := m.client.Models.GenerateContent(ctx, m.model, contents, config)
	if err != nil {
		return nil, m.fail(err)
	}
	resp, err := m.response(r)
	if err != nil {
		return nil, m.fail(err)
	}
	return resp, nil
}

// contents maps the conversation. An assistant's calls are functionCall
// parts of a model turn; each result is a functionResponse part, with the
// result as {"output": text} or, for a failed call, {"error": text}.
// Consecutive messages of one role are joined into one turn, so that the
// responses to one turn's calls go back together.
func (m *Model) contents(msgs []agent.Message) ([]*genai.Content, error) {
	names := map[string]string{} // call ID to tool name
	var out []*genai.Content
	add := func(role string, parts ...*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, &genai.Content{Role: role, Parts: parts})
	}
	for i, msg := range msgs {
		switch msg.Role {
		case agent.RoleUser:
			add(genai.RoleUser, &genai.Part{Text: msg.Text})
		case agent.RoleAssistant:
			var parts []*genai.Part
			if msg.Text != "" {
				parts = append(parts, &genai.Part{Text: msg.Text})
			}
			for _, c := range msg.Calls {
				names[c.ID] = c.Name
				var args map[string]any
				if len(c.Args) > 0 {
					if err := json.Unmarshal(c.Args, &args); err != nil {
						args = nil // not an object: the call goes back without arguments
					}
				}
				apiID, signature := m.calls.recall(c.ID)
				parts = append(parts, &genai.Part{
					FunctionCall:     &genai.FunctionCall{ID: apiID, Name: c.Name, Args: args},
					ThoughtSignature: signature,
				})
			}
			add(genai.RoleModel, parts...)
		case agent.RoleTool:
			name := msg.Name
			if name == "" {
				name = names[msg.CallID]
			}
			result := map[string]any{"output": msg.Text}
			if msg.IsError {
				result = map[string]any{"error": msg.Text}
			}
			apiID, _ := m.calls.recall(msg.CallID)
			add(genai.RoleUser, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: apiID, Name: name, Response: result}})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// response reads the first candidate's text and calls. A call without an ID
// from the API gets one made from the response's ID.
func (m *Model) response(r *genai.GenerateContentResponse) (*agent.Response, error) {
	if len(r.Candidates) == 0 {
		if fb := r.PromptFeedback; fb != nil && fb.BlockReason != "" {
			return nil, fmt.Errorf("the prompt was blocked (%s) %s", fb.BlockReason, fb.BlockReasonMessage)
		}
		return nil, errors.New("the response has no candidates")
	}
	cand := r.Candidates[0]
	if cand.Content == nil || len(cand.Content.Parts) == 0 {
		if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonStop {
			return nil, fmt.Errorf("the model stopped without an answer (%s) %s", cand.FinishReason, cand.FinishMessage)
		}
		return &agent.Response{}, nil
	}
	resp := &agent.Response{}
	for _, part := range cand.Content.Parts {
		switch {
		case part.FunctionCall != nil:
			fc := part.FunctionCall
			id := fc.ID
			if id == "" {
				id = m.newID(r.ResponseID, len(resp.Calls))
			}
			m.calls.remember(id, fc.ID, part.ThoughtSignature)
			args := json.RawMessage("{}")
			if len(fc.Args) > 0 {
				data, err := json.Marshal(fc.Args)
				if err != nil {
					return nil, fmt.Errorf("call %s: %w", fc.Name, err)
				}
				args = data
			}
			resp.Calls = append(resp.Calls, agent.ToolCall{ID: id, Name: fc.Name, Args: args})
		case part.Text != "" && !part.Thought:
			resp.Text += part.Text
		}
	}
	return resp, nil
}

// newID returns an ID for the i'th call of a response that gave it none.
func (m *Model) newID(responseID string, i int) string {
	if responseID == "" {
		var b [8]byte
		rand.Read(b[:])
		responseID = hex.EncodeToString(b[:])
	}
	return "call_" + responseID + "_" + strconv.Itoa(i+1)
}

// fail wraps an error with the model's name, and an error status of the
// API in a *provider.Error.
func (m *Model) fail(err error) error {
	if apiErr, ok := errors.AsType[genai.APIError](err); ok {
		err = &provider.Error{Provider: "gemini", StatusCode: apiErr.Code, Code: apiErr.Status, Message: apiErr.Message, Err: apiErr}
	}
	return fmt.Errorf("gemini: %s: %w", m.model, err)
}

// maxRemembered bounds a callMemory; the oldest calls are forgotten first.
const maxRemembered = 4096

// A callMemory keeps, for each call a Model returned, the ID the API gave
// it (if it gave one) and its thought signature, for as long as the
// conversation is likely to refer to it.
type callMemory struct {
	mu    sync.Mutex
	calls map[string]rememberedCall
	order []string // oldest first
}

type rememberedCall struct {
	apiID     string
	signature []byte
}

// remember notes what the API said of the call it returned with ID id.
func (c *callMemory) remember(id, apiID string, signature []byte) {
	if apiID == "" && len(signature) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]rememberedCall{}
	}
	if _, ok := c.calls[id]; !ok {
		c.order = append(c.order, id)
	}
	c.calls[id] = rememberedCall{apiID: apiID, signature: signature}
	for len(c.order) > maxRemembered {
		delete(c.calls, c.order[0])
		c.order = c.order[1:]
	}
}

// recall returns the API's ID and the thought signature of the call with
// ID id, or zero values for a call the Model did not return.
func (c *callMemory) recall(id string) (apiID string, signature []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rc := c.calls[id]
	return rc.apiID, rc.signature
}
