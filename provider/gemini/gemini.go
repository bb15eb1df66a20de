package gemini

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"

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
	// Schema rewritten by dialect.GeminiJSONSchema(), instead of parameters,
	// the OpenAPI 3.0 subset rewritten by dialect.Gemini(). JSON Schema keeps
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
	// Stream makes Model.Stream, which agent.Run calls, use the API's
	// streaming form (streamGenerateContent) and yield the text as it
	// arrives. By default Stream sends the request as Generate does and
	// yields the whole response as one chunk.
	Stream bool
}

// A Model is an agent.Model backed by the Gemini API through the official
// Go SDK (google.golang.org/genai). A Model is safe for concurrent use.
//
// A Model keeps no state: the IDs the API gave its calls and the thought
// signatures that came with them travel in the history's state; see the
// package documentation.
type Model struct {
	client     *genai.Client
	model      string
	jsonSchema bool
	maxTokens  int32
	stream     bool
}

var _ agent.StreamingModel = (*Model)(nil)

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
		stream:     opts.Stream,
	}, nil
}

// Generate sends one turn to the model and returns its text and tool calls.
// An error status from the API is returned as an error that wraps a
// *provider.Error. Tools the dialect rejects are not sent: the error
// matches dialect.ErrRejected and lists their problems.
func (m *Model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	contents, config, err := m.request(req)
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

// Streams reports whether Stream asks the API for a stream
// (Options.Stream). When it does not, Stream makes one request and yields
// its response; tracing reads this as gen_ai.request.stream.
func (m *Model) Streams() bool { return m.stream }

// Stream runs one turn as Generate does. With Options.Stream it uses the
// API's streaming form and yields the text as it arrives, and each call as
// it comes (whole: the API does not stream a call's arguments), then the
// response; otherwise it yields Generate's response as one chunk.
func (m *Model) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.Chunk, error] {
	if !m.stream {
		return agent.Chunks(ctx, generator{m}, req)
	}
	return func(yield func(agent.Chunk, error) bool) {
		contents, config, err := m.request(req)
		if err != nil {
			yield(agent.Chunk{}, m.fail(err))
			return
		}
		// The response of the stream as a whole: every chunk's parts, and
		// the last chunk's finish and usage.
		var whole *genai.GenerateContentResponse
		calls := 0
		// streamID stands in for the response's ID when the chunks carry
		// none, so that a call the API gave no ID has the same one in its
		// delta and in the response.
		var streamID string
		for r, err := range m.client.Models.GenerateContentStream(ctx, m.model, contents, config) {
			if err != nil {
				yield(agent.Chunk{}, m.fail(err))
				return
			}
			if r.ResponseID == "" {
				if streamID == "" {
					streamID = randomID()
				}
				r.ResponseID = streamID
			}
			whole = merge(whole, r)
			if len(r.Candidates) == 0 || r.Candidates[0].Content == nil {
				continue
			}
			for _, part := range r.Candidates[0].Content.Parts {
				var d agent.Delta
				switch {
				case part.FunctionCall != nil:
					args := []byte("{}")
					if len(part.FunctionCall.Args) > 0 {
						args, _ = json.Marshal(part.FunctionCall.Args)
					}
					id := part.FunctionCall.ID
					if id == "" {
						id = m.newID(r.ResponseID, calls)
					}
					d.Call = &agent.CallDelta{Index: calls, ID: id, Name: part.FunctionCall.Name, Args: string(args)}
					calls++
				case part.Text != "" && !part.Thought:
					d.Text = part.Text
				default:
					continue
				}
				if !yield(agent.Chunk{Delta: d}, nil) {
					return
				}
			}
		}
		if whole == nil {
			yield(agent.Chunk{}, m.fail(errors.New("the stream ended without a response")))
			return
		}
		resp, err := m.response(whole)
		if err != nil {
			yield(agent.Chunk{}, m.fail(err))
			return
		}
		yield(agent.Chunk{Response: resp}, nil)
	}
}

// merge adds a streamed chunk to the response so far: the first
// candidate's parts are appended, and the rest is the chunk's.
func merge(whole, r *genai.GenerateContentResponse) *genai.GenerateContentResponse {
	if whole == nil {
		whole = &genai.GenerateContentResponse{}
	}
	var parts []*genai.Part
	if len(whole.Candidates) > 0 && whole.Candidates[0].Content != nil {
		parts = whole.Candidates[0].Content.Parts
	}
	next := *r
	if len(r.Candidates) > 0 {
		cand := *r.Candidates[0]
		if cand.Content != nil {
			parts = append(parts, cand.Content.Parts...)
		}
		cand.Content = &genai.Content{Role: genai.RoleModel, Parts: parts}
		next.Candidates = []*genai.Candidate{&cand}
	} else if parts != nil {
		next.Candidates = whole.Candidates
	}
	if next.UsageMetadata == nil {
		next.UsageMetadata = whole.UsageMetadata
	}
	if next.ResponseID == "" {
		next.ResponseID = whole.ResponseID
	}
	return &next
}

// A generator hides a Model's Stream, so that agent.Chunks calls its
// Generate.
type generator struct{ m *Model }

func (g generator) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	return g.m.Generate(ctx, req)
}

// request builds a turn's contents and configuration.
func (m *Model) request(req *agent.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	if err := provider.CheckAllowed(m.dialect(), req.Tools, req.Allowed); err != nil {
		return nil, nil, err
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
				return nil, nil, err
			}
			decls[i] = decl
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	contents, err := contents(req.Messages)
	if err != nil {
		return nil, nil, err
	}
	return contents, config, nil
}

// name is the key of the adapter's part of an opaque state.
const name = "gemini"

// messageState is the adapter's state of an assistant message: its parts
// other than calls — text, thoughts — as the API sent them, with their
// thought signatures.
type messageState struct {
	Parts []*genai.Part `json:"parts,omitempty"`
}

// callState is the adapter's state of a call: the ID the API gave it, if
// it gave one, and the thought signature that came with it.
type callState struct {
	ID        string `json:"id,omitempty"`
	Signature []byte `json:"signature,omitempty"`
}

// contents maps the conversation. An assistant's calls are functionCall
// parts of a model turn; each result is a functionResponse part, with the
// result as {"output": text} or, for a failed call, {"error": text}.
// Consecutive messages of one role are joined into one turn, so that the
// responses to one turn's calls go back together.
//
// A call's ID from the API and its thought signature come from the call's
// state, and an assistant message's text parts, with their signatures,
// from the message's state when that still holds the message's text.
func contents(msgs []agent.Message) ([]*genai.Content, error) {
	ids := map[string]string{}    // call ID to tool name
	apiIDs := map[string]string{} // call ID to the API's ID
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
			var st messageState
			if provider.LoadState(msg.State, name, &st) && textOf(st.Parts) == msg.Text {
				parts = append(parts, st.Parts...)
			} else if msg.Text != "" {
				parts = append(parts, &genai.Part{Text: msg.Text})
			}
			for _, c := range msg.Calls {
				ids[c.ID] = c.Name
				var args map[string]any
				if len(c.Args) > 0 {
					if err := json.Unmarshal(c.Args, &args); err != nil {
						args = nil // not an object: the call goes back without arguments
					}
				}
				var cs callState
				provider.LoadState(c.State, name, &cs)
				apiIDs[c.ID] = cs.ID
				parts = append(parts, &genai.Part{
					FunctionCall:     &genai.FunctionCall{ID: cs.ID, Name: c.Name, Args: args},
					ThoughtSignature: cs.Signature,
				})
			}
			add(genai.RoleModel, parts...)
		case agent.RoleTool:
			tool := msg.Name
			if tool == "" {
				tool = ids[msg.CallID]
			}
			var output any = msg.Text
			var structured any
			if len(msg.Structured) > 0 && json.Unmarshal(msg.Structured, &structured) == nil {
				output = structured
			}
			result := map[string]any{"output": output}
			if msg.IsError {
				result = map[string]any{"error": msg.Text}
			}
			add(genai.RoleUser, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: apiIDs[msg.CallID], Name: tool, Response: result, Parts: responseParts(msg)}})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// textOf returns the text of parts that are not thoughts, joined.
func textOf(parts []*genai.Part) string {
	var text string
	for _, p := range parts {
		if !p.Thought {
			text += p.Text
		}
	}
	return text
}

// response reads the first candidate: its text, its calls, their state,
// why it finished, and the usage. A call without an ID from the API gets
// one made from the response's ID. A prompt the API blocked is a response
// with FinishContentFilter.
func (m *Model) response(r *genai.GenerateContentResponse) (*agent.Response, error) {
	resp := &agent.Response{ID: r.ResponseID, Model: r.ModelVersion}
	if u := r.UsageMetadata; u != nil {
		resp.Usage = agent.Usage{
			InputTokens:       int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
			OutputTokens:      int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
			CachedInputTokens: int64(u.CachedContentTokenCount),
			ReasoningTokens:   int64(u.ThoughtsTokenCount),
		}
	}
	if len(r.Candidates) == 0 {
		if fb := r.PromptFeedback; fb != nil && fb.BlockReason != "" {
			resp.FinishReason = agent.FinishContentFilter
			resp.RawFinishReason = "blocked: " + string(fb.BlockReason)
			resp.FinishMessage = fb.BlockReasonMessage
			return resp, nil
		}
		return nil, errors.New("the response has no candidates")
	}
	cand := r.Candidates[0]
	resp.RawFinishReason = string(cand.FinishReason)
	resp.FinishMessage = cand.FinishMessage
	var st messageState
	if cand.Content != nil {
		for _, part := range cand.Content.Parts {
			if part.FunctionCall == nil {
				if part.Text != "" || len(part.ThoughtSignature) > 0 {
					st.Parts = append(st.Parts, part)
				}
				if !part.Thought {
					resp.Text += part.Text
				}
				continue
			}
			fc := part.FunctionCall
			id := fc.ID
			if id == "" {
				id = m.newID(r.ResponseID, len(resp.Calls))
			}
			args := json.RawMessage("{}")
			if len(fc.Args) > 0 {
				data, err := json.Marshal(fc.Args)
				if err != nil {
					return nil, fmt.Errorf("call %s: %w", fc.Name, err)
				}
				args = data
			}
			call := agent.ToolCall{ID: id, Name: fc.Name, Args: args}
			if fc.ID != "" || len(part.ThoughtSignature) > 0 {
				call.State = provider.State(name, callState{ID: fc.ID, Signature: part.ThoughtSignature})
			}
			resp.Calls = append(resp.Calls, call)
		}
	}
	if slices.ContainsFunc(st.Parts, func(p *genai.Part) bool { return p.Thought || len(p.ThoughtSignature) > 0 }) {
		resp.State = provider.State(name, st)
	}
	switch cand.FinishReason {
	case genai.FinishReasonStop, "":
		resp.FinishReason = agent.FinishStop
		if len(resp.Calls) > 0 {
			resp.FinishReason = agent.FinishToolCalls
		}
	case genai.FinishReasonMaxTokens:
		resp.FinishReason = agent.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		resp.FinishReason = agent.FinishContentFilter
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall:
		resp.FinishReason = agent.FinishMalformedCall
	default:
		resp.FinishReason = agent.FinishOther
	}
	return resp, nil
}

// newID returns an ID for the i'th call of a response that gave it none.
func (m *Model) newID(responseID string, i int) string {
	if responseID == "" {
		responseID = randomID()
	}
	return "call_" + responseID + "_" + strconv.Itoa(i+1)
}

// randomID returns 16 random hexadecimal digits.
func randomID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fail wraps an error with the model's name, and an error status of the
// API in a *provider.Error.
func (m *Model) fail(err error) error {
	if apiErr, ok := errors.AsType[genai.APIError](err); ok {
		err = &provider.Error{Provider: "gemini", StatusCode: apiErr.Code, Code: apiErr.Status, Message: apiErr.Message, Cause: apiErr, Err: provider.Kind(apiErr.Code)}
	}
	return fmt.Errorf("gemini: %s: %w", m.model, err)
}

// images are the media types of the images a functionResponse may hold.
var images = provider.Images("image/png", "image/jpeg", "image/webp")

// responseParts returns the images of a tool message's parts
// (agent.Message.Parts) that the API takes in a functionResponse, as
// inline data; nil for a failed call. The rest of the parts reach the
// model as the message's text, the response's output, in which each image
// is a note such as "[image image/png, 5120 bytes]".
func responseParts(msg agent.Message) []*genai.FunctionResponsePart {
	if msg.IsError {
		return nil
	}
	var parts []*genai.FunctionResponsePart
	for _, p := range msg.Parts {
		if images(p) {
			parts = append(parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: p.MIME, Data: p.Data}})
		}
	}
	return parts
}
