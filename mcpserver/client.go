package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	// ErrUnsupported is matched by the error of Sample or Elicit when the
	// client cannot answer: it did not declare the capability, the call
	// did not come over MCP (Sample), or the transport carries no requests
	// to the client (stateless HTTP on a protocol version before
	// 2026-07-28).
	ErrUnsupported = errors.New("mcpserver: the client cannot answer this request")
	// ErrDeclined is matched by the error of Elicit when the user declined
	// to answer or dismissed the request.
	ErrDeclined = errors.New("mcpserver: the user did not answer")
)

// roundTripsFrom is the first protocol version on which a server may not
// send requests to the client while it serves one: it returns the request
// in its result, and the client calls again with the answer (multi
// round-trip requests, SEP-2322).
const roundTripsFrom = "2026-07-28"

// answersKey is the context key of a call's *inputAnswers.
type answersKey struct{}

// inputAnswers are the answers a client gave to the requests of earlier
// rounds of one tools/call, in the order the handler made them: List to
// Elicit and Sample (the handler has taken the first taken of them in this
// round), Asks to tool.Ask. Both travel in the request state, sealed.
type inputAnswers struct {
	mu       sync.Mutex
	List     []json.RawMessage
	Asks     []string
	declined bool // the user did not answer the last tool.Ask
	taken    int
	sealer   *stateSealer  // seals the request state
	bind     func() []byte // what the request state is bound to, worked out when first needed
	asked    string        // in an opened state: the key of the request it was sent with
}

// next returns the index of the handler's next request in this round, and
// the answer an earlier round got for it, or nil.
func (a *inputAnswers) next() (int, json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := a.taken
	a.taken++
	if i < len(a.List) {
		return i, a.List[i]
	}
	return i, nil
}

// add records the answer to the handler's request i, for the rounds
// after this one.
func (a *inputAnswers) add(i int, data json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i == len(a.List) {
		a.List = append(a.List, data)
	}
}

// restart begins a round: the handler asks again from its first request.
func (a *inputAnswers) restart() {
	a.mu.Lock()
	a.taken = 0
	a.mu.Unlock()
}

// inputKey returns the key of the i-th input request of Elicit or Sample
// in a call, and askKey that of its i-th tool.Ask.
func inputKey(i int) string { return "hands-" + strconv.Itoa(i) }
func askKey(i int) string   { return "hands-ask-" + strconv.Itoa(i) }

// answersOf returns the answers a retried tools/call carries: those of
// earlier rounds, sealed in its request state, then those of the last
// round. A request state the server did not seal for this call, or that
// expired or was used before, is a *RequestStateError.
func (s *Server) answersOf(ctx context.Context, req *mcp.CallToolRequest) (*inputAnswers, error) {
	p := req.Params
	a := &inputAnswers{sealer: s.states, bind: sync.OnceValue(func() []byte { return binding(ctx, req) })}
	if p.RequestState == "" {
		if len(p.InputResponses) > 0 {
			// Answers to requests the server never made.
			return nil, &RequestStateError{Tool: p.Name, Err: ErrStateAltered}
		}
		return a, nil // the first round
	}
	caller, ss := stateCaller(ctx, req)
	got, err := s.states.open(ctx, p.Name, p.RequestState, a.bind(), caller, ss, time.Now())
	if err != nil {
		return nil, err
	}
	a.List, a.Asks = got.List, got.Asks
	// Only the answer to the one request the last round made counts.
	r, ok := p.InputResponses[got.asked]
	switch {
	case !ok:
	case got.asked == inputKey(len(a.List)):
		if data, err := json.Marshal(r); err == nil {
			a.List = append(a.List, data)
		}
	case got.asked == askKey(len(a.Asks)):
		a.declined = true
		if res, ok := r.(*mcp.ElicitResult); ok && res != nil && res.Action == "accept" {
			if answer, ok := res.Content["answer"].(string); ok {
				a.Asks, a.declined = append(a.Asks, answer), false
			}
		}
	}
	return a, nil
}

// state returns the answers as the request state of a result that makes
// the input request with the given key, sealed and bound to the call.
func (a *inputAnswers) state(asked string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sealer.seal(a, asked, a.bind(), time.Now())
}

// maxAsks bounds how many questions of tool.Ask one call may put to the
// user, against a handler that asks again whatever the answer.
const maxAsks = 16

// askForm is the form in which the user answers a question of tool.Ask.
type askForm struct {
	Answer string `json:"answer" jsonschema:"your answer"`
}

// askClient puts a handler's tool.Ask question to the user of the client,
// as a form of one text field, when the client declared elicitation. On
// protocol versions from 2026-07-28 it returns the result that carries the
// request, but in a task of the tasks extension, which has answered its
// request already; there, and before 2026-07-28, it asks (through the
// task, or on the session) and waits, and reports whether it got an
// answer, with which the call runs again. Otherwise — no elicitation, a
// declined form, too many questions — the call's error result stands.
func askClient(ctx context.Context, question string, answers *inputAnswers) (again bool, asked *mcp.CallToolResult) {
	if answers.declined || len(answers.Asks) >= maxAsks {
		return false, nil
	}
	p, err := peerFrom(ctx, "elicitation")
	if err != nil {
		return false, nil
	}
	f, err := formFor(reflect.TypeFor[askForm]())
	if err != nil {
		return false, nil
	}
	params := &mcp.ElicitParams{Mode: "form", Message: question, RequestedSchema: f.schema}
	t := p.task
	if p.pending != nil {
		t = p.pending.pin()
	}
	if p.roundTrips && t == nil {
		// The handler has returned, and runs again with the answer: the
		// question goes back in the result, as a plain call's does.
		key := askKey(len(answers.Asks))
		return false, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: params}, RequestState: answers.state(key)}
	}
	var res *mcp.ElicitResult
	if t != nil {
		// The extension's task asks through the task, as Elicit does in
		// one; the call runs again with the answer.
		data, err := t.r.ask(ctx, t, "elicitation/create", params)
		if err != nil || json.Unmarshal(data, &res) != nil || res == nil {
			return false, nil
		}
	} else if res, err = p.session.Elicit(ctx, params); err != nil {
		return false, nil
	}
	if res.Action != "accept" {
		return false, nil
	}
	answer, ok := res.Content["answer"].(string)
	if !ok {
		return false, nil
	}
	answers.mu.Lock()
	answers.Asks = append(answers.Asks, answer)
	answers.mu.Unlock()
	return true, nil
}

// An inputRequired is the error of a handler that waits for the client's
// answer to a request, on a protocol version where the request goes back
// in the call's result: the server returns the request, and the client
// calls again with the answer, which the handler, run again from the
// start, then gets.
type inputRequired struct {
	key    string
	params mcp.InputRequest
	state  string // the answers so far, for the client to send back
	err    error  // tool.ErrInterrupted
}

func (e *inputRequired) Error() string {
	return "mcpserver: the call waits for the client's answer"
}

// Unwrap returns tool.ErrInterrupted, which the error holds.
func (e *inputRequired) Unwrap() error { return e.err }

// A peer is the client of the call a handler serves, as far as asking it
// something goes.
type peer struct {
	session    *mcp.ServerSession
	roundTrips bool          // requests go back in the result (see inputRequired)
	answers    *inputAnswers // the answers given in earlier rounds, when roundTrips
	task       *task         // the extension's task whose call asks, which asks through it
	pending    *pendingCall  // the call that may yet become a task, when roundTrips
	ctx        context.Context
}

// peerFrom returns the client of the call ctx serves, if it declared
// capability ("sampling" or "elicitation") and the transport can carry a
// request to it.
func peerFrom(ctx context.Context, capability string) (*peer, error) {
	req, ok := RequestFrom(ctx)
	if !ok || req.Session == nil {
		return nil, fmt.Errorf("%w: %s, in a call that did not come over MCP", ErrUnsupported, capability)
	}
	version, _ := req.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	init := req.Session.InitializeParams()
	if version == "" && init != nil {
		version = init.ProtocolVersion
	}
	p := &peer{session: req.Session, roundTrips: version >= roundTripsFrom}
	declared := false
	if caps, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok && p.roundTrips {
		_, declared = caps[capability] // this request's own capabilities
	} else if init != nil && init.Capabilities != nil {
		switch capability {
		case "sampling":
			declared = init.Capabilities.Sampling != nil
		case "elicitation":
			declared = init.Capabilities.Elicitation != nil
		}
	}
	if !declared {
		return nil, fmt.Errorf("%w: %s, which the client did not declare", ErrUnsupported, capability)
	}
	if t := taskOf(ctx); p.roundTrips && t != nil && t.ext {
		// The tasks extension's task asks through the task: the request
		// is among its inputRequests, and tasks/update brings the answer.
		return &peer{session: req.Session, task: t, ctx: ctx}, nil
	}
	if p.roundTrips && taskOf(ctx) != nil {
		// A task's call has answered its request already: there is no
		// result left to carry the request back in.
		return nil, fmt.Errorf("%w: %s, in a task on protocol version %s, where a request to the client goes back in the call's result", ErrUnsupported, capability, version)
	}
	if _, stateless := ctx.Value(httpRequestKey{}).(context.Context); stateless && !p.roundTrips {
		return nil, fmt.Errorf("%w: %s, on stateless HTTP with protocol version %s", ErrUnsupported, capability, version)
	}
	if p.answers, _ = ctx.Value(answersKey{}).(*inputAnswers); p.answers == nil {
		return nil, fmt.Errorf("%w: %s, outside a tools/call", ErrUnsupported, capability)
	}
	if p.roundTrips {
		p.pending, p.ctx = pendingOf(ctx), ctx
	}
	return p, nil
}

// taskAsking returns the task through which a call that may become one
// (a pendingCall) asks its client: the handler waits for the answer as a
// task's does (become). It returns nil for another call, and for one that
// cannot become a task, which asks in its result.
func (p *peer) taskAsking() *task {
	if p.pending == nil {
		return nil
	}
	return p.pending.become()
}

// ask returns the client's answer to the handler's next request: the one
// an earlier round of the call got, or, with round trips, the
// *inputRequired error that asks for it, or else the answer send gets now,
// which is kept for the rounds after this one (a handler that also asks
// with tool.Ask runs again, and is not to ask the user twice).
func (p *peer) ask(params mcp.InputRequest, send func() (any, error)) (json.RawMessage, error) {
	if p.task != nil {
		method := "elicitation/create"
		if _, ok := params.(*mcp.CreateMessageParams); ok {
			method = "sampling/createMessage"
		}
		return p.task.r.ask(p.ctx, p.task, method, params)
	}
	i, data := p.answers.next()
	if data != nil {
		return data, nil
	}
	if t := p.taskAsking(); t != nil {
		return (&peer{task: t, ctx: p.ctx}).ask(params, send)
	}
	if p.roundTrips {
		return nil, &inputRequired{key: inputKey(i), params: params, state: p.answers.state(inputKey(i)), err: tool.ErrInterrupted}
	}
	res, err := send()
	if err != nil {
		return nil, err
	}
	if data, err = json.Marshal(res); err != nil {
		return nil, err
	}
	p.answers.add(i, data)
	return data, nil
}

// Log sends a log message to the client of the call ctx serves
// (notifications/message), if the client asked for messages of this level
// (with logging/setLevel, or with the level it sends in each request on
// later protocol versions). The message's logger is the tool's name; its
// data is msg, or, with args (key-value pairs, as slog takes them), an
// object of msg and the attributes. In a call that did not come over MCP,
// Log does nothing. Levels map to the protocol's at the SDK's mcp.Level
// constants: slog.LevelInfo is "info", slog.LevelWarn "warning", and so on.
//
// Protocol 2026-07-28 deprecates logging (SEP-2577): it still works on
// every revision, but new code should log to standard error (on stdio)
// or through OpenTelemetry (otelhands, log/slog with an OpenTelemetry
// bridge), which the deprecation names as its replacement.
func Log(ctx context.Context, level slog.Level, msg string, args ...any) {
	req, ok := RequestFrom(ctx)
	if !ok || req.Session == nil {
		return
	}
	var data any = msg
	if len(args) > 0 {
		fields := map[string]any{"msg": msg}
		r := slog.NewRecord(time.Time{}, level, msg, 0)
		r.Add(args...)
		r.Attrs(func(a slog.Attr) bool {
			fields[a.Key] = a.Value.Resolve().Any()
			return true
		})
		data = fields
	}
	params := &mcp.LoggingMessageParams{Level: loggingLevel(level), Data: data}
	if call, ok := tool.CallFrom(ctx); ok {
		params.Logger = call.Name
	}
	req.Session.Log(ctx, params) // a message that cannot be sent is lost, like one sent to a closed stream
}

// loggingLevel returns the protocol's name of a level.
func loggingLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l < mcp.LevelInfo:
		return "debug"
	case l < mcp.LevelNotice:
		return "info"
	case l < mcp.LevelWarning:
		return "notice"
	case l < mcp.LevelError:
		return "warning"
	case l < mcp.LevelCritical:
		return "error"
	case l < mcp.LevelAlert:
		return "critical"
	case l < mcp.LevelEmergency:
		return "alert"
	}
	return "emergency"
}

// Sample asks the model of the client of the call ctx serves for a message
// (sampling/createMessage), as a handler that wants a model's help without
// holding an API key does:
//
//	res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
//		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise: " + text}}},
//		MaxTokens: 200,
//	})
//
// The client may show the request to a person, change it, or refuse it. An
// error matches ErrUnsupported when the client did not declare sampling or
// the call did not come over MCP; the handler can then do without.
//
// On protocol versions from 2026-07-28 the request goes back to the client
// in the call's result, and the client calls again with the answer: Sample
// returns an error that the handler returns as it is, and the handler runs
// again from the start, when Sample returns the answer. So a handler asks
// before it changes anything, as with tool.Ask (see the package
// documentation). On earlier versions Sample waits for the answer.
//
// Protocol 2026-07-28 deprecates sampling (SEP-2577): it still works on
// every revision, for clients that declare it, but few clients do, and
// the deprecation's replacement is a server that calls a model provider's
// API itself (package provider, say).
func Sample(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	p, err := peerFrom(ctx, "sampling")
	if err != nil {
		return nil, err
	}
	data, err := p.ask(params, func() (any, error) { return p.session.CreateMessage(ctx, params) })
	if err != nil {
		return nil, err
	}
	if !p.roundTrips {
		var res *mcp.CreateMessageResult
		if err := json.Unmarshal(data, &res); err != nil {
			return nil, fmt.Errorf("mcpserver: the client's sampling answer: %w", err)
		}
		return res, nil
	}
	var res mcp.CreateMessageWithToolsResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("mcpserver: the client's sampling answer: %w", err)
	}
	if len(res.Content) != 1 {
		return nil, fmt.Errorf("mcpserver: the client's sampling answer has %d contents, want 1", len(res.Content))
	}
	return &mcp.CreateMessageResult{Meta: res.Meta, Content: res.Content[0], Model: res.Model, Role: res.Role, StopReason: res.StopReason}, nil
}

// Elicit asks the user of the client of the call ctx serves to fill in a
// form (elicitation/create): message says what for, and T, a struct whose
// fields are strings, numbers, booleans or lists of enumerated strings,
// gives the form — its schema is schema.For[T]'s, with the descriptions,
// enums, bounds and defaults of the jsonschema and tool tags — and receives
// the answer, validated and decoded as tool arguments are:
//
//	type Payer struct {
//		Account string `json:"account" jsonschema:"the account that pays" tool:"enum=main|savings"`
//	}
//	payer, err := mcpserver.Elicit[Payer](ctx, "Which account should pay?")
//	if err != nil {
//		return "", err
//	}
//
// The options of an enumerated field get titles, which the client shows
// in place of the values, from an elicit tag (see ElicitTag):
//
//	Account string `json:"account" tool:"enum=main|savings" elicit:"titles=Main account|Savings account"`
//
// An error matches ErrDeclined when the user declined or dismissed the
// form, and ErrUnsupported when the client did not declare elicitation.
// As with Sample, on protocol versions from 2026-07-28 the handler returns
// Elicit's error as it is and runs again with the answer.
//
// A call that did not come over MCP, such as one inside agent.Run, asks
// with tool.Ask instead, with message as the question: the handler returns
// the *tool.InterruptError, the run pauses, and when it resumes with the
// person's answer, the handler runs again and Elicit decodes the answer —
// T's JSON, or, when T has one string field, that field's text. So one
// handler asks its user both when served over MCP and inside an agent.
func Elicit[T any](ctx context.Context, message string) (T, error) {
	var zero T
	f, err := formFor(reflect.TypeFor[T]())
	if err != nil {
		return zero, err
	}
	if _, ok := RequestFrom(ctx); !ok {
		answer, err := tool.Ask(ctx, message)
		if err != nil {
			return zero, err
		}
		return decodeForm[T](f, f.fromText(answer))
	}
	p, err := peerFrom(ctx, "elicitation")
	if err != nil {
		return zero, err
	}
	params := &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: f.schema}
	data, err := p.ask(params, func() (any, error) { return p.session.Elicit(ctx, params) })
	if err != nil {
		return zero, err
	}
	var res *mcp.ElicitResult
	if err := json.Unmarshal(data, &res); err != nil {
		return zero, fmt.Errorf("mcpserver: the client's elicitation answer: %w", err)
	}
	if res.Action != "accept" {
		return zero, fmt.Errorf("%w (%s)", ErrDeclined, res.Action)
	}
	content, err := json.Marshal(res.Content)
	if err != nil {
		return zero, err
	}
	return decodeForm[T](f, content)
}

// ElicitRequest sends params to the client of the call ctx serves as they
// are (elicitation/create), form or URL mode, and returns the client's
// answer as it is, whatever its action: the raw form of Elicit, for a
// gateway that passes on an upstream server's request (hands serve
// --upstream does). An error matches ErrUnsupported when the client did not
// declare elicitation, or, for URL mode, its url mode; the round trips of
// later protocol versions work as for Sample.
func ElicitRequest(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	p, err := peerFrom(ctx, "elicitation")
	if err != nil {
		return nil, err
	}
	if params.Mode == "url" && !declaresURLElicitation(ctx) {
		return nil, fmt.Errorf("%w: elicitation in url mode, which the client did not declare", ErrUnsupported)
	}
	data, err := p.ask(params, func() (any, error) { return p.session.Elicit(ctx, params) })
	if err != nil {
		return nil, err
	}
	var res *mcp.ElicitResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("mcpserver: the client's elicitation answer: %w", err)
	}
	return res, nil
}

// declaresURLElicitation reports whether the client of the call ctx serves
// declared elicitation's url mode, in this request's capabilities or at
// initialization.
func declaresURLElicitation(ctx context.Context) bool {
	req, ok := RequestFrom(ctx)
	if !ok || req.Session == nil {
		return false
	}
	if caps, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
		if e, ok := caps["elicitation"].(map[string]any); ok {
			_, url := e["url"]
			return url
		}
	}
	init := req.Session.InitializeParams()
	return init != nil && init.Capabilities != nil && init.Capabilities.Elicitation != nil && init.Capabilities.Elicitation.URL != nil
}

// A form is what Elicit needs of a type: its validator and its schema.
type form struct {
	validator *schema.Validator
	schema    *jsonschema.Schema
	text      string // the one string property, if the type has exactly one property
}

var forms sync.Map // reflect.Type → *form or error

// formFor returns the form of type t, built once, or an error if t cannot
// be asked for: elicitation takes a flat object of primitive values.
func formFor(t reflect.Type) (*form, error) {
	if v, ok := forms.Load(t); ok {
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.(*form), nil
	}
	f, err := newForm(t)
	if err != nil {
		forms.Store(t, err)
		return nil, err
	}
	forms.Store(t, f)
	return f, nil
}

func newForm(t reflect.Type) (*form, error) {
	v, err := schema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: Elicit[%v]: %w", t, err)
	}
	s := v.Schema()
	if s.Type != "object" {
		return nil, fmt.Errorf("mcpserver: Elicit[%v]: a form is an object, so T must be a struct", t)
	}
	s, err = titled(t, s)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: Elicit[%v]: %w", t, err)
	}
	for name, p := range s.Properties {
		switch {
		case p.Type == "string", p.Type == "number", p.Type == "integer", p.Type == "boolean":
		case p.Type == "array" && p.Items != nil && p.Items.Type == "string" && len(p.Items.Enum) > 0:
		case p.Type == "array" && p.Items != nil && p.Items.Type == "" && len(p.Items.AnyOf) > 0 && allTitled(p.Items.AnyOf):
		default:
			return nil, fmt.Errorf("mcpserver: Elicit[%v]: field %q is not a string, number, boolean or list of enumerated strings", t, name)
		}
	}
	f := &form{validator: v, schema: s}
	if len(s.Properties) == 1 {
		for name, p := range s.Properties {
			if p.Type == "string" {
				f.text = name
			}
		}
	}
	return f, nil
}

// ElicitTag is the struct tag that gives the options of an enumerated
// field of an Elicit form titles, which a client shows in place of the
// values: elicit:"titles=Main account|Savings account", one title for each
// value of the field's enum, in order, separated by '|'. A string field
// becomes SEP-1330's titled single-select (oneOf of const and title), a
// list of strings its titled multi-select (items with anyOf of const and
// title); the answer is still one of the values, validated as before.
// A type with a JSONSchema method may write either form, or the legacy
// enum with enumNames, itself.
const ElicitTag = "elicit"

// titled returns s with the enumerated fields of t that carry titles in
// their elicit tag rewritten as titled selects; s itself is not changed.
func titled(t reflect.Type, s *jsonschema.Schema) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out *jsonschema.Schema
	for i := range t.NumField() {
		field := t.Field(i)
		tag, ok := field.Tag.Lookup(ElicitTag)
		if !ok {
			continue
		}
		titles, ok := strings.CutPrefix(tag, "titles=")
		if !ok {
			return nil, fmt.Errorf("field %s: the %s tag is titles=A|B|…, got %q", field.Name, ElicitTag, tag)
		}
		name := jsonName(field)
		p := s.Properties[name]
		if p == nil {
			return nil, fmt.Errorf("field %s has titles but is not in the form", field.Name)
		}
		enum := p
		if p.Type == "array" && p.Items != nil {
			enum = p.Items
		}
		names := strings.Split(titles, "|")
		if enum.Type != "string" || len(enum.Enum) != len(names) {
			return nil, fmt.Errorf("field %s has %d titles, for an enum of %d strings", field.Name, len(names), len(enum.Enum))
		}
		options := make([]*jsonschema.Schema, len(names))
		for i, v := range enum.Enum {
			options[i] = &jsonschema.Schema{Const: &v, Title: names[i]}
		}
		q := &jsonschema.Schema{Type: p.Type, Title: p.Title, Description: p.Description, Default: p.Default}
		if p.Type == "array" {
			q.MinItems, q.MaxItems, q.UniqueItems = p.MinItems, p.MaxItems, p.UniqueItems
			q.Items = &jsonschema.Schema{AnyOf: options}
		} else {
			q.OneOf = options
		}
		if out == nil {
			out = s.CloneSchemas()
		}
		out.Properties[name] = q
	}
	if out == nil {
		return s, nil
	}
	return out, nil
}

// allTitled reports whether every option is a string const with a title.
func allTitled(options []*jsonschema.Schema) bool {
	for _, o := range options {
		if o.Const == nil || o.Title == "" {
			return false
		}
		if _, ok := (*o.Const).(string); !ok {
			return false
		}
	}
	return true
}

// jsonName returns the name under which encoding/json puts a field.
func jsonName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
		return name
	}
	return f.Name
}

// fromText returns the JSON of a person's answer: the answer itself when
// it is a JSON object, else, for a form of one string field, an object
// with the answer as that field.
func (f *form) fromText(answer string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(answer), &obj) == nil || f.text == "" {
		return []byte(answer)
	}
	data, _ := json.Marshal(map[string]string{f.text: answer})
	return data
}

// decodeForm validates and decodes an answer into a T.
func decodeForm[T any](f *form, data []byte) (T, error) {
	var v T
	if err := f.validator.Decode(data, &v); err != nil {
		return v, fmt.Errorf("mcpserver: the answer does not fit the form: %w", err)
	}
	return v, nil
}
