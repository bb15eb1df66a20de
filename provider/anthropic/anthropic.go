package anthropic

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/respjson"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
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
	// 21,000) in a request that is not streamed; with Stream it does not.
	MaxTokens int
	// Strict sends tools with strict: true, so that the model's arguments
	// are constrained to match each tool's schema, which is then rewritten
	// for Anthropic's strict subset of JSON Schema. Off by default.
	Strict bool
	// StrictTools names the tools sent with strict: true when Strict is
	// off, each with its schema rewritten by dialect.AnthropicStrict(),
	// the others as they are by dialect.Anthropic(): strict mode for the
	// tools whose arguments must match, without holding every tool to its
	// subset of JSON Schema and its limits (at most 20 strict tools in a
	// request). A name the request does not hold is passed over.
	StrictTools []string
	// MaxRetries is how many times a request is sent again after a rate
	// limit, an overload, a timeout or a server error. Zero selects
	// DefaultMaxRetries; a negative value sends each request once.
	MaxRetries int
	// ThinkingBudget turns on extended thinking with that many tokens for
	// it, fewer than MaxTokens. The thinking blocks, with their
	// signatures, travel in the history's state and go back with the
	// conversation, as the API requires of tool use with thinking. Zero
	// leaves thinking off.
	ThinkingBudget int
	// Stream makes Model.Stream, which agent.Run calls, use the API's
	// streaming form and yield the text and the calls' arguments as they
	// arrive. By default Stream sends the request as Generate does and
	// yields the whole response as one chunk.
	Stream bool
	// ToolSearch chooses how deferred tools (tool.WithDeferLoading,
	// tool.Scope.DeferLoading) are found. The zero value is
	// ToolSearchRegex.
	ToolSearch ToolSearch
	// EagerInputStreaming sends every tool with eager_input_streaming:
	// true, so that the API streams a call's arguments as the model writes
	// them, without buffering or validating them first; the registry still
	// validates them when the call runs. Off by default.
	EagerInputStreaming bool
}

// A ToolSearch is how a Model's deferred tools are found.
type ToolSearch string

// The tool searches.
const (
	// ToolSearchRegex sends deferred tools with defer_loading: true and
	// the API's tool_search_tool_regex_20251119, with which Claude writes
	// regular expressions over the tools' names, descriptions and
	// arguments.
	ToolSearchRegex ToolSearch = "regex"
	// ToolSearchBM25 is ToolSearchRegex with tool_search_tool_bm25_20251119,
	// with which Claude searches in natural language.
	ToolSearchBM25 ToolSearch = "bm25"
	// ToolSearchPortable leaves the search to agent.Run's portable
	// search_tools tool (the Model then searches no tools itself), for a
	// model the API's tool search does not serve.
	ToolSearchPortable ToolSearch = "portable"
)

// A Model is an agent.Model backed by Anthropic's Messages API through the
// official Go SDK. A Model is safe for concurrent use.
type Model struct {
	client    sdk.Client
	model     string
	maxTokens int64
	strict    bool
	thinking  int64
	stream    bool
	search    ToolSearch
	eager     bool
	checked   *dialect.Dialect // the tools' dialect, without tool search under ToolSearchPortable
	// strictTools are Options.StrictTools, when Strict is off;
	// checkedStrict is their dialect as checked is the others'.
	strictTools   map[string]bool
	checkedStrict *dialect.Dialect
}

var (
	_ agent.StreamingModel = (*Model)(nil)
	_ agent.ToolSearcher   = (*Model)(nil)
)

// New returns a Model configured by opts. It reports an error if opts is nil
// or names no model, if MaxTokens or ThinkingBudget is negative, or if
// ThinkingBudget is not below max_tokens.
func New(opts *Options) (*Model, error) {
	if opts == nil || opts.Model == "" {
		return nil, errors.New("anthropic: Options.Model is required")
	}
	if opts.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: Options.MaxTokens is %d, want a positive number or zero for the default", opts.MaxTokens)
	}
	if opts.ThinkingBudget < 0 {
		return nil, fmt.Errorf("anthropic: Options.ThinkingBudget is %d, want a positive number or zero for none", opts.ThinkingBudget)
	}
	search := opts.ToolSearch
	switch search {
	case "":
		search = ToolSearchRegex
	case ToolSearchRegex, ToolSearchBM25, ToolSearchPortable:
	default:
		return nil, fmt.Errorf("anthropic: unknown Options.ToolSearch %q; want %q, %q or %q", search, ToolSearchRegex, ToolSearchBM25, ToolSearchPortable)
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
	if opts.ThinkingBudget > 0 && opts.ThinkingBudget >= maxTokens {
		return nil, fmt.Errorf("anthropic: Options.ThinkingBudget is %d, want fewer than the %d of max_tokens", opts.ThinkingBudget, maxTokens)
	}
	m := &Model{
		client:    sdk.NewClient(reqOpts...),
		model:     opts.Model,
		maxTokens: int64(maxTokens),
		strict:    opts.Strict,
		thinking:  int64(opts.ThinkingBudget),
		stream:    opts.Stream,
		search:    search,
		eager:     opts.EagerInputStreaming,
	}
	m.checked = m.checkedIn(m.dialect())
	if !m.strict && len(opts.StrictTools) > 0 {
		m.strictTools = make(map[string]bool, len(opts.StrictTools))
		for _, n := range opts.StrictTools {
			m.strictTools[n] = true
		}
		m.checkedStrict = m.checkedIn(strictDialect)
	}
	return m, nil
}

// SearchesTools reports whether the API searches the deferred tools
// (Options.ToolSearch is not ToolSearchPortable): agent.Run then sends
// every enabled tool, the deferred ones flagged, and the API's search
// blocks travel in the history's state.
func (m *Model) SearchesTools() bool { return m.search != ToolSearchPortable }

// checkedIn returns d as the tools are checked in it: without tool search
// under ToolSearchPortable.
func (m *Model) checkedIn(d *dialect.Dialect) *dialect.Dialect {
	if m.search == ToolSearchPortable {
		d = d.Clone()
		d.Features &^= dialect.DeferLoading | dialect.ToolSearch
	}
	return d
}

// check refuses the tools of req that the API would reject, or that need
// what the Model does not send: the tools of Options.StrictTools in the
// strict dialect, where each needs dialect.PerToolStrict and the limits
// count them alone, and the others in the plain one.
func (m *Model) check(req *agent.Request) error {
	var extra dialect.Feature
	if m.eager {
		extra = dialect.EagerInputStreaming
	}
	if m.strictTools == nil {
		return provider.CheckAllowed(m.checked, req.Tools, req.Allowed, extra)
	}
	var plain, strict []tool.Spec
	for _, spec := range req.Tools {
		if m.strictTools[spec.Name] {
			strict = append(strict, spec)
		} else {
			plain = append(plain, spec)
		}
	}
	err := provider.CheckAllowed(m.checked, plain, req.Allowed, extra)
	serr := provider.CheckAllowed(m.checkedStrict, strict, req.Allowed, extra|dialect.PerToolStrict)
	if serr == nil {
		return err
	}
	if err == nil {
		return serr
	}
	rej, _ := errors.AsType[*dialect.RejectError](err)
	srej, _ := errors.AsType[*dialect.RejectError](serr)
	return &dialect.RejectError{Dialect: rej.Dialect, Problems: append(rej.Problems, srej.Problems...), Err: dialect.ErrRejected}
}

// strictFor reports whether spec is sent strict.
func (m *Model) strictFor(spec tool.Spec) bool { return m.strict || m.strictTools[spec.Name] }

// Generate sends one turn to the model and returns its text and tool calls.
// An error status from the API is returned as an error that wraps a
// *provider.Error. Tools the dialect rejects are not sent: the error
// matches dialect.ErrRejected and lists their problems.
func (m *Model) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	if err := m.check(req); err != nil {
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
	return fromMessage(msg, streamed{}), nil
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
		if err := m.streamTurn(ctx, req, yield); err != nil {
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

// streamTurn streams one turn: text and argument deltas as the events come,
// then the message the SDK accumulated, with each call's arguments as the
// model sent them.
func (m *Model) streamTurn(ctx context.Context, req *agent.Request, yield func(agent.Chunk, error) bool) error {
	if err := m.check(req); err != nil {
		return err
	}
	params, err := m.params(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := m.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var msg sdk.Message
	calls := map[int64]int{} // block index to call index
	s := streamed{args: map[int64][]byte{}, inputLast: map[int64]bool{}}
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return err
		}
		var d agent.Delta
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "server_tool_use" && ev.ContentBlock.JSON.Input.Raw() == respjson.Omitted {
				s.inputLast[ev.Index] = true
			}
			if ev.ContentBlock.Type != "tool_use" {
				continue
			}
			calls[ev.Index] = len(calls)
			s.args[ev.Index] = []byte{}
			d.Call = &agent.CallDelta{Index: calls[ev.Index], ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				d.Text = ev.Delta.Text
			case "input_json_delta":
				i, ok := calls[ev.Index]
				if !ok {
					continue
				}
				s.args[ev.Index] = append(s.args[ev.Index], ev.Delta.PartialJSON...)
				d.Call = &agent.CallDelta{Index: i, Args: ev.Delta.PartialJSON}
			}
		case "content_block_stop":
			// A call without arguments streams none (its one
			// input_json_delta is empty): its delta then gives the
			// arguments the response has, so that the deltas add up to it.
			i, ok := calls[ev.Index]
			if !ok || len(s.args[ev.Index]) > 0 || ev.Index >= int64(len(msg.Content)) {
				continue
			}
			d.Call = &agent.CallDelta{Index: i, Args: string(compactArgs(msg.Content[ev.Index].Input))}
		case "message_stop":
			yield(agent.Chunk{Response: fromMessage(&msg, s)}, nil)
			return nil
		}
		if d.Text == "" && (d.Call == nil || d.Call.ID == "" && d.Call.Args == "") {
			continue
		}
		if !yield(agent.Chunk{Delta: d}, nil) {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	return errors.New("the stream ended without message_stop")
}

// name is the key of the adapter's part of an opaque state.
const name = "anthropic"

// messageState is the adapter's state of an assistant message: its
// thinking and redacted_thinking blocks, and the blocks of the API's tool
// search (server_tool_use, tool_search_tool_result with its
// tool_reference items), as the API sent them, signatures included, in
// their order.
type messageState struct {
	Blocks []json.RawMessage `json:"blocks,omitempty"`
}

// streamed is what a streamed message's blocks need beyond the SDK's
// accumulation; its zero value is that of a message not streamed.
type streamed struct {
	// args holds, by block index, the arguments of calls as they
	// streamed, which replace the parsed input.
	args map[int64][]byte
	// inputLast holds the indexes of the server_tool_use blocks whose
	// start had no input, which the SDK then adds as the block's last
	// member.
	inputLast map[int64]bool
}

// fromMessage reads a message: its text, its calls, its thinking blocks,
// why it stopped, and its usage.
func fromMessage(msg *sdk.Message, s streamed) *agent.Response {
	resp := &agent.Response{RawFinishReason: string(msg.StopReason), ID: msg.ID, Model: string(msg.Model)}
	var st messageState
	for i, block := range msg.Content {
		switch block.Type {
		case "text":
			resp.Text += block.Text
		case "tool_use":
			args := compactArgs(block.Input)
			if raw, ok := s.args[int64(i)]; ok && len(raw) > 0 {
				args = json.RawMessage(raw)
			}
			resp.Calls = append(resp.Calls, agent.ToolCall{ID: block.ID, Name: block.Name, Args: args})
		case "thinking", "redacted_thinking", "server_tool_use", "tool_search_tool_result":
			raw := json.RawMessage(block.RawJSON())
			if s.inputLast[int64(i)] {
				raw = inputAfterName(raw)
			}
			st.Blocks = append(st.Blocks, raw)
		}
	}
	if len(st.Blocks) > 0 {
		resp.State = provider.State(name, st)
	}
	switch msg.StopReason {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		resp.FinishReason = agent.FinishStop
	case sdk.StopReasonToolUse:
		resp.FinishReason = agent.FinishToolCalls
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		resp.FinishReason = agent.FinishLength
	case sdk.StopReasonRefusal:
		resp.FinishReason = agent.FinishRefusal
	default:
		resp.FinishReason = agent.FinishOther
	}
	u := msg.Usage
	resp.Usage = agent.Usage{
		InputTokens:       u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens:      u.OutputTokens,
		CachedInputTokens: u.CacheReadInputTokens,
		CacheWriteTokens:  u.CacheCreationInputTokens,
		ReasoningTokens:   u.OutputTokensDetails.ThinkingTokens,
	}
	return resp
}

// inputAfterName returns the server_tool_use block raw with its input
// moved to follow its name, where a message that is not streamed has it,
// so that a streamed search's block is kept, and sent back, as the same
// bytes. It returns raw as it is if it is not an object with an input and
// a name.
func inputAfterName(raw json.RawMessage) json.RawMessage {
	type member struct {
		key   string
		value json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return raw
	}
	var members []member
	input := -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return raw
		}
		m := member{key: tok.(string)}
		if err := dec.Decode(&m.value); err != nil {
			return raw
		}
		if m.key == "input" {
			input = len(members)
		}
		members = append(members, m)
	}
	name := slices.IndexFunc(members, func(m member) bool { return m.key == "name" })
	if input < 0 || name < 0 {
		return raw
	}
	in := members[input]
	members = slices.Delete(members, input, input+1)
	if input < name {
		name--
	}
	members = slices.Insert(members, name+1, in)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// params builds the request's parameters.
func (m *Model) params(req *agent.Request) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{Model: m.model, MaxTokens: m.maxTokens}
	if m.thinking > 0 {
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(m.thinking)
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	deferred := false
	for _, spec := range req.Tools {
		schema, err := m.toolSchema(spec)
		if err != nil {
			return params, err
		}
		tp := &sdk.ToolParam{Name: spec.Name, InputSchema: schema}
		description, examples := m.toolExamples(spec)
		if description != "" {
			tp.Description = sdk.String(description)
		}
		if len(examples) > 0 {
			tp.SetExtraFields(map[string]any{"input_examples": examples})
		}
		if m.strictFor(spec) {
			tp.Strict = sdk.Bool(true)
		}
		if m.eager {
			tp.EagerInputStreaming = sdk.Bool(true)
		}
		if spec.DeferLoading {
			tp.DeferLoading = sdk.Bool(true)
			deferred = true
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	if deferred {
		params.Tools = append(params.Tools, m.searchTool())
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return params, err
	}
	params.Messages = msgs
	return params, nil
}

// searchTool returns the API's tool search tool that Options.ToolSearch
// chooses, sent after the tools when some are deferred. It is never
// deferred itself.
func (m *Model) searchTool() sdk.ToolUnionParam {
	if m.search == ToolSearchBM25 {
		return sdk.ToolUnionParam{OfToolSearchToolBm25_20251119: &sdk.ToolSearchToolBm25_20251119Param{Type: sdk.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119}}
	}
	return sdk.ToolUnionParam{OfToolSearchToolRegex20251119: &sdk.ToolSearchToolRegex20251119Param{Type: sdk.ToolSearchToolRegex20251119TypeToolSearchToolRegex20251119}}
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
			var st messageState
			provider.LoadState(msg.State, name, &st)
			for _, raw := range st.Blocks {
				var block struct {
					Type      string `json:"type"`
					Thinking  string `json:"thinking"`
					Signature string `json:"signature"`
					Data      string `json:"data"`
				}
				if err := json.Unmarshal(raw, &block); err != nil {
					return nil, fmt.Errorf("message %d: state block: %w", i, err)
				}
				switch block.Type {
				case "thinking":
					next = append(next, sdk.NewThinkingBlock(block.Signature, block.Thinking))
				case "redacted_thinking":
					next = append(next, sdk.NewRedactedThinkingBlock(block.Data))
				default: // the tool search's blocks go back byte for byte
					next = append(next, param.Override[sdk.ContentBlockParamUnion](raw))
				}
			}
			if msg.Text != "" {
				next = append(next, sdk.NewTextBlock(msg.Text))
			}
			for _, c := range msg.Calls {
				next = append(next, sdk.NewToolUseBlock(c.ID, objectArgs(c.Args), c.Name))
			}
		case agent.RoleTool:
			r = agent.RoleUser
			res := &sdk.ToolResultBlockParam{ToolUseID: msg.CallID, Content: resultContent(msg)}
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
		err = &provider.Error{Provider: "anthropic", StatusCode: apiErr.StatusCode, Code: string(apiErr.Type()), Message: apiErr.Message, Cause: apiErr, Err: provider.Kind(apiErr.StatusCode)}
	}
	return fmt.Errorf("anthropic: %s: %w", m.model, err)
}

// images are the media types of the images a tool_result may hold.
var images = provider.Images("image/jpeg", "image/png", "image/gif", "image/webp")

// resultContent returns the content of a tool message's tool_result: its
// images as image blocks, and the rest of its parts as text blocks between
// them; or, when it has no image the API takes, its text, as one text
// block. An empty text block is left out, since the API rejects it.
func resultContent(msg agent.Message) []sdk.ToolResultBlockParamContentUnion {
	parts := provider.ResultParts(msg.Parts, images)
	if parts == nil {
		if msg.Text == "" {
			return nil
		}
		parts = []tool.Part{tool.Text(msg.Text)}
	}
	content := make([]sdk.ToolResultBlockParamContentUnion, 0, len(parts))
	for _, p := range parts {
		if p.Kind == tool.PartImage {
			src := sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
				Data:      base64.StdEncoding.EncodeToString(p.Data),
				MediaType: sdk.Base64ImageSourceMediaType(p.MIME),
			}}
			content = append(content, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{Source: src}})
			continue
		}
		content = append(content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
	}
	return content
}
