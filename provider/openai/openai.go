package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
)

// An API is one of OpenAI's two APIs for generating text with tools.
type API string

// The APIs a Model can use.
const (
	// Responses is the Responses API (POST /responses), OpenAI's primary
	// API and the default.
	Responses API = "responses"
	// ChatCompletions is the Chat Completions API (POST /chat/completions),
	// which most OpenAI-compatible servers also implement.
	ChatCompletions API = "chat"
)

// DefaultMaxRetries is how many times a request is sent again after a rate
// limit, a timeout or a server error, when Options.MaxRetries is zero.
const DefaultMaxRetries = 2

// Options configure a Model. Model is required; every other zero field
// selects its default.
type Options struct {
	// APIKey authenticates the requests. If empty, the OPENAI_API_KEY
	// environment variable is used.
	APIKey string
	// BaseURL is the API's base URL, up to and including the version, such
	// as "https://api.openai.com/v1" or an OpenAI-compatible server's. If
	// empty, OPENAI_BASE_URL is used, or else OpenAI's own.
	BaseURL string
	// Model names the model, such as "gpt-5.5". It is required.
	Model string
	// HTTPClient sends the requests. If nil, the SDK's default client is
	// used.
	HTTPClient *http.Client

	// API selects the API. If empty, Responses is used: it is OpenAI's
	// primary API, new models and features arrive there first, and some
	// models are offered only there. Choose ChatCompletions for a
	// compatible server that implements only that.
	API API
	// NonStrict sends tools with strict: false. By default tools are strict:
	// the model's arguments are constrained to match each tool's schema,
	// which is rewritten for OpenAI's strict subset of JSON Schema.
	NonStrict bool
	// Dialect rewrites and checks the tools' schemas for strict mode. If
	// nil, dialect.OpenAIStrict() is used; set it for a compatible server
	// with rules or limits of its own (start from
	// dialect.OpenAIStrict()). With NonStrict, schemas are sent as
	// they are, and only its rule for tool names, its root keywords and
	// MaxTools apply.
	Dialect *dialect.Dialect
	// MaxTokens bounds the tokens the model may generate in one turn,
	// reasoning included. Zero leaves it to the API.
	MaxTokens int
	// MaxRetries is how many times a request is sent again after a rate
	// limit, a timeout or a server error. Zero selects DefaultMaxRetries; a
	// negative value sends each request once.
	MaxRetries int
	// Store lets the Responses API keep each response on OpenAI's side
	// (store: true). By default it is false: nothing is kept, and the
	// model's reasoning comes back encrypted (include:
	// reasoning.encrypted_content) and travels in the history's state, so
	// that a conversation can go on from its JSON in another process.
	Store bool
	// NoReasoning says that the model does not reason, such as gpt-4.1 or
	// gpt-4o: requests on the Responses API then do not ask for
	// reasoning.encrypted_content, which such a model answers with a 400
	// ("Encrypted content is not supported with this model").
	NoReasoning bool
	// Stream makes Model.Stream, which agent.Run calls, use the API's
	// streaming form and yield the text and the calls' arguments as they
	// arrive. By default Stream sends the request as Generate does and
	// yields the whole response as one chunk.
	Stream bool
	// AllowedTools has agent.Run send every tool of the registry on every
	// turn, enabled or not, in the registry's order, with a tool_choice of
	// type allowed_tools that names the enabled ones (agent.ToolAllower):
	// the tools sent, and the prompt cache built on them, stay the same
	// bytes from turn to turn however the enabled predicates turn. The
	// price is that the model reads the definitions of the tools disabled
	// now, so leave it off when a predicate hides a tool the caller must
	// not know of. A call to a tool not allowed is still refused by the
	// registry. Deferred tools then go behind agent.Run's portable
	// search_tools, on the Responses API too. The dialect must have
	// dialect.AllowedTools. Off by default.
	AllowedTools bool
}

// A Model is an agent.Model backed by OpenAI's API through the official Go
// SDK. A Model is safe for concurrent use.
type Model struct {
	client    oai.Client
	model     string
	api       API
	strict    bool
	dialect   *dialect.Dialect
	maxTokens int64
	store     bool
	encrypted bool
	stream    bool
	allowed   bool             // Options.AllowedTools
	check     *dialect.Dialect // what the tools are checked in (see checked)
}

var (
	_ agent.StreamingModel = (*Model)(nil)
	_ agent.ToolSearcher   = (*Model)(nil)
	_ agent.ToolAllower    = (*Model)(nil)
)

// New returns a Model configured by opts. It reports an error if opts is nil
// or names no model, if opts.API is not one of the APIs, or if
// opts.AllowedTools is set and the dialect lacks dialect.AllowedTools.
func New(opts *Options) (*Model, error) {
	if opts == nil || opts.Model == "" {
		return nil, errors.New("openai: Options.Model is required")
	}
	api := opts.API
	switch api {
	case "":
		api = Responses
	case Responses, ChatCompletions:
	default:
		return nil, fmt.Errorf("openai: unknown API %q; want %q or %q", api, Responses, ChatCompletions)
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
	m := &Model{
		client:    oai.NewClient(reqOpts...),
		model:     opts.Model,
		api:       api,
		strict:    !opts.NonStrict,
		dialect:   cmp.Or(opts.Dialect, dialect.OpenAIStrict()),
		maxTokens: int64(max(opts.MaxTokens, 0)),
		store:     opts.Store,
		encrypted: !opts.Store && !opts.NoReasoning,
		stream:    opts.Stream,
		allowed:   opts.AllowedTools,
	}
	if m.allowed && m.dialect.Features&dialect.AllowedTools == 0 {
		return nil, fmt.Errorf("openai: Options.AllowedTools is set, but dialect %s has no allowed_tools; leave it off, or use a dialect with dialect.AllowedTools", m.dialect.Name)
	}
	m.check = m.checked()
	return m, nil
}

// SearchesTools reports whether the API searches the deferred tools: on
// the Responses API, when the dialect has dialect.ToolSearch (as
// dialect.OpenAIStrict does). agent.Run then sends every enabled tool, the
// deferred ones flagged, and the API's tool_search_call and
// tool_search_output items travel in the history's state. Chat Completions
// has no tool search, and a Model with Options.AllowedTools uses none:
// agent.Run gives such a Model its portable search_tools.
func (m *Model) SearchesTools() bool {
	return m.api == Responses && m.dialect.Features&dialect.ToolSearch != 0 && !m.allowed
}

// AllowsTools reports whether agent.Run sends every tool, enabled or not,
// with the names of the enabled ones (Options.AllowedTools), which go as
// a tool_choice of type allowed_tools.
func (m *Model) AllowsTools() bool { return m.allowed }

// Generate sends one turn to the model and returns its text and tool calls.
// An error status from the API is returned as an error that wraps a
// *provider.Error. Tools the dialect rejects are not sent: the error
// matches dialect.ErrRejected and lists their problems.
func (m *Model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	if err := provider.CheckAllowed(m.check, req.Tools, req.Allowed); err != nil {
		return nil, m.fail(err)
	}
	var (
		resp *agent.Response
		err  error
	)
	if m.api == ChatCompletions {
		resp, err = m.chat(ctx, req)
	} else {
		resp, err = m.responses(ctx, req)
	}
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
// API's streaming form and yields the text and the calls' arguments as they
// arrive, then the response; otherwise it yields Generate's response as
// one chunk.
func (m *Model) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.Chunk, error] {
	if !m.stream {
		return agent.Chunks(ctx, generator{m}, req)
	}
	return func(yield func(agent.Chunk, error) bool) {
		if err := provider.CheckAllowed(m.check, req.Tools, req.Allowed); err != nil {
			yield(agent.Chunk{}, m.fail(err))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var err error
		if m.api == ChatCompletions {
			err = m.streamChat(ctx, req, yield)
		} else {
			err = m.streamResponses(ctx, req, yield)
		}
		if err != nil {
			yield(agent.Chunk{}, m.fail(err))
		}
	}
}

// A generator hides a Model's Stream, so that agent.Chunks calls its
// Generate.
type generator struct{ m *Model }

func (g generator) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	return g.m.Generate(ctx, req)
}

// fail wraps an error of the SDK with the model's name, and an error status
// of the API in a *provider.Error.
func (m *Model) fail(err error) error {
	if apiErr, ok := errors.AsType[*oai.Error](err); ok {
		code := apiErr.Code
		if code == "" {
			code = apiErr.Type
		}
		err = &provider.Error{Provider: "openai", StatusCode: apiErr.StatusCode, Code: code, Message: apiErr.Message, Cause: apiErr, Err: provider.Kind(apiErr.StatusCode)}
	}
	return fmt.Errorf("openai: %s: %w", m.model, err)
}

// resultText is what the model reads of a tool message. The APIs have no
// flag for a failed call, so the text of one says so.
func resultText(msg agent.Message) string {
	if msg.IsError {
		return "Error: " + msg.Text
	}
	return msg.Text
}

// callArgs returns a call's arguments as the API sends them: JSON text, "{}"
// for none.
func callArgs(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return string(args)
}

// parseArgs returns the arguments the model sent, as it sent them, even
// when they are not valid JSON (the call's validation error then reaches
// the model); "{}" for none.
func parseArgs(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}
