package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/claims"
	"github.com/hands-go/hands/internal/buildinfo"
	"github.com/hands-go/hands/internal/mcpmeta"
	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolsearch"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server. A nil *Options selects every default.
type Options struct {
	// Name is the implementation name sent to clients. Empty means "hands".
	Name string
	// Version is the implementation version. Empty means the main module's
	// version from the build, or "devel".
	Version string
	// Instructions are sent to clients when they connect.
	Instructions string
	// Logger receives the SDK's and the server's diagnostics. Nil discards
	// them. A registry logs through its own logger (Registry.SetLogger).
	Logger *slog.Logger
	// StateKey is the key, StateKeyBytes long, under which the server
	// seals, with AES-256-GCM, what it hands out and takes back: the
	// request state of multi round-trip calls (protocol versions from
	// 2026-07-28), bound to the call's tool, arguments and caller; the
	// task IDs its clients hold, bound to their owner; and the calls it
	// hands to TaskOptions.Runner (TaskCall.Seal). Nil selects a random
	// key made once per process; replicas that serve one endpoint share
	// a key, since a client's next round may reach another, as do the
	// servers whose RunTask runs their calls.
	StateKey []byte
	// StateTTL is how long a request state is accepted after the server
	// issued it. Zero selects DefaultStateTTL.
	StateTTL time.Duration
	// StateClaims records the request states used, each good for one
	// retry. Nil selects this process's memory, which keeps them until
	// they expire, a bounded share for each user or session
	// (ErrStateLimit), and the latest of those of the callers it cannot
	// tell apart (ErrStateOverrun; see the package doc); replicas share a
	// store, such as a claims.Dir or claims.SQL, so that a state used at
	// one is refused at the others.
	StateClaims claims.Store
	// Tasks bound the tasks the server runs for tools that may run as
	// tasks (tool.WithTaskSupport); the zero value selects every default.
	Tasks TaskOptions
	// ToolSearch, when not nil, keeps the deferred tools (those whose spec
	// says DeferLoading: tool.WithDeferLoading, tool.Scope.DeferLoading)
	// out of tools/list, and lists a tool named search_tools
	// (SearchToolName) that finds them: a session's list gains the tools
	// its searches found. See the package doc, "Deferred tools".
	ToolSearch *ToolSearchOptions
	// ResultBudget bounds, in bytes, each result a caller reads of a tool
	// that declares no budget of its own (tool.WithResultBudget): it is
	// every caller's tool.Recipient budget, and the rest of a result cut
	// to it is read by the same caller alone — the same verified user, or
	// else the same session. Zero leaves the registry's Budget.Default; a
	// negative value leaves such results whole. Budgets must be on
	// (tool.Registry.SetBudget) when it is not zero: New panics otherwise.
	// Each tool listed declares its budget to clients in its _meta, as
	// anthropic/maxResultSizeChars (see ResultBudgetMeta).
	ResultBudget int
	// ListTTL is how long a client may take a tools/list result as fresh
	// and not list again (the result's ttlMs, from protocol 2026-07-28;
	// SEP-2549): notifications/tools/list_changed still tells it of a
	// change at once. Zero, the default, or less sends 0: the list is
	// stale at once. Whatever the TTL, a list that may depend on the
	// caller (an enabled predicate, Options.ToolSearch) is marked
	// cacheScope "private", which a shared cache keeps for that caller
	// alone; any other list is "public".
	ListTTL time.Duration
}

// A Server serves a registry's tools over MCP. It is safe for concurrent
// use, and one Server may serve many sessions at once.
type Server struct {
	reg    *tool.Registry
	mcp    *mcp.Server
	logger *slog.Logger
	states *stateSealer

	regMu      sync.Mutex                // one registration at a time
	registered map[string]registration   // by name: every tool registered with the SDK server, as it was
	refused    map[string]string         // by name: the spec, in JSON, that the SDK refused last, not tried again
	synced     uint64                    // the registry's version whose tools have all been looked at
	known      map[string]tool.Interface // by name: the tools looked at, registered or not
	watched    []watchedTool             // the tools whose spec may change, looked at on every Sync

	sessions sync.Map // *mcp.ServerSession → *sessionList: the sessions that listed tools

	tasks     *taskRunner
	taskModes sync.Map // tool name → tool.TaskSupport, of the tools registered that may run as tasks

	search       *searcher // nil without Options.ToolSearch
	resultBudget int       // Options.ResultBudget
	listTTLMs    int       // Options.ListTTL, in milliseconds
}

// A watchedTool is a tool whose spec may change after it is registered.
type watchedTool struct {
	tool     tool.Interface
	versions tool.SpecVersioner // nil when the tool cannot say when its spec changed
}

// New returns a server for reg's tools, with the tools enabled now already
// listed. A tool whose spec the SDK refuses (an input schema whose root is
// not of type "object", say, which a raw tool's $ref may be) is left out
// and the error logged through opts.Logger, as for a tool added or
// changed later, so that one bad tool of a registry — another server's,
// under hands serve --upstream — does not stop the others being served.
//
// New panics on a mistake in opts made at setup: a StateKey that is set
// and not StateKeyBytes long, or a ResultBudget with the registry's result
// budgets off.
func New(reg *tool.Registry, opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	if reg == nil {
		reg = &tool.Registry{}
	}
	impl := &mcp.Implementation{Name: opts.Name, Version: opts.Version}
	if impl.Name == "" {
		impl.Name = "hands"
	}
	if impl.Version == "" {
		impl.Version = buildinfo.Read().Version
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	states, err := newStateSealer(opts)
	if err != nil {
		panic(err) // a key of the wrong length: a mistake at setup
	}
	if opts.ResultBudget != 0 && reg.Budget() == nil {
		panic("mcpserver: Options.ResultBudget needs the registry's result budgets on (tool.Registry.SetBudget)")
	}
	s := &Server{reg: reg, logger: logger, states: states, registered: map[string]registration{}, refused: map[string]string{}, known: map[string]tool.Interface{}, resultBudget: opts.ResultBudget,
		listTTLMs: int(min(max(opts.ListTTL.Milliseconds(), 0), math.MaxInt32))}
	s.tasks = newTaskRunner(opts.Tasks, states.aead)
	sdkOpts := &mcp.ServerOptions{
		Instructions: opts.Instructions,
		Logger:       logger,
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{}, // see Log
		},
	}
	if opts.ToolSearch != nil {
		s.search = newSearcher(s, opts.ToolSearch)
		// One page: the deferred tools are taken out of it per caller,
		// and a page of them alone would push the others off the first.
		sdkOpts.PageSize = searchPageSize
	}
	s.mcp = mcp.NewServer(impl, sdkOpts)
	tools, _ := s.pending(context.Background(), true)
	for _, r := range tools {
		s.registerLive(context.Background(), r)
	}
	if s.search != nil {
		s.mcp.AddTool(s.search.listed, s.search.handler)
	}
	s.mcp.AddReceivingMiddleware(s.taskCalls, s.perCaller)
	s.addTaskMethods()
	s.mcp.AddSendingMiddleware(s.listChanged, s.taskRequests)
	return s
}

// NewTools returns a server for a plain list of tools, in one scope. The
// registry it makes logs through opts.Logger.
func NewTools(opts *Options, tools ...tool.Interface) (*Server, error) {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "tools", Tools: tools})
	if err != nil {
		return nil, err
	}
	if opts != nil && opts.Logger != nil {
		reg.SetLogger(opts.Logger)
	}
	return New(reg, opts), nil
}

// searchPageSize is the SDK server's page size under Options.ToolSearch:
// every tool on one page.
const searchPageSize = 1 << 30

// A registration is a tool as it was registered with the SDK server.
type registration struct {
	tool     *mcp.Tool
	def      string // tool in JSON, to compare with the tool's spec now
	version  uint64 // the tool's SpecVersion when its spec was read
	deferred bool   // under Options.ToolSearch, the tool is deferred
	doc      toolsearch.Doc
}

// pending returns the registry's tools that the SDK server does not have
// yet and, with specs, those whose spec changed since they were
// registered; and the names of the registered tools the registry no longer
// holds (Registry.Remove), which it forgets. A tool put in the place of
// another of the same name counts as new. It builds the spec of a tool only
// when the tool is new, says that its spec changed (tool.SpecVersioner), or
// cannot say, and it looks at the registry's tools only when the registry
// changed — at those added alone, when nothing was taken out. Hold regMu.
func (s *Server) pending(ctx context.Context, specs bool) (out []registration, gone []string) {
	if specs {
		for _, w := range s.watched {
			old, ok := s.registered[w.tool.Name()]
			if ok && w.versions != nil && w.versions.SpecVersion() == old.version {
				continue
			}
			if r, ok := s.build(ctx, w.tool); ok && r.def != old.def {
				out = append(out, r)
			}
		}
	}
	if s.reg.Version() == s.synced {
		return out, nil
	}
	if added, v, ok := s.reg.Added(s.synced); ok { // tools added, none taken out: only they are looked at
		s.synced = v
		for _, t := range added {
			out = s.look(ctx, t, out)
		}
		return out, nil
	}
	s.synced = s.reg.Version()
	tools := s.reg.Tools()
	held := make(map[string]bool, len(tools))
	for _, t := range tools {
		held[t.Name()] = true
		out = s.look(ctx, t, out)
	}
	if len(held) == len(s.known) {
		return out, nil
	}
	for name := range s.known {
		if held[name] {
			continue
		}
		delete(s.known, name)
		delete(s.refused, name)
		s.unwatch(name)
		if _, ok := s.registered[name]; ok {
			delete(s.registered, name)
			gone = append(gone, name)
		}
	}
	return out, gone
}

// look looks at a tool the registry holds: a tool new to the server, or
// put in the place of another of its name, is watched if its spec may
// change, and its registration appended to out. Hold regMu.
func (s *Server) look(ctx context.Context, t tool.Interface, out []registration) []registration {
	name := t.Name()
	old, ok := s.known[name]
	if ok && sameTool(old, t) {
		return out
	}
	if ok {
		s.unwatch(name)
	}
	s.known[name] = t
	versions, ok := t.(tool.SpecVersioner)
	if !ok || versions.SpecVersion() != 0 {
		s.watched = append(s.watched, watchedTool{tool: t, versions: versions})
	}
	if r, ok := s.build(ctx, t); ok {
		out = append(out, r)
	}
	return out
}

// unwatch stops watching the spec of the tool named name. Hold regMu.
func (s *Server) unwatch(name string) {
	s.watched = slices.DeleteFunc(s.watched, func(w watchedTool) bool { return w.tool.Name() == name })
}

// sameTool reports whether a and b are the same tool. Tools of a type that
// cannot be compared are taken to be the same when their types are.
func sameTool(a, b tool.Interface) bool {
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) {
		return false
	}
	return !ta.Comparable() || a == b
}

// build returns the registration of a tool's spec now, under the tool's
// name, which the registry calls it by whatever the spec says (a spec that
// names it otherwise is refused only when the tool is added), unless the
// SDK refused the very same spec before or the spec does not encode.
func (s *Server) build(ctx context.Context, t tool.Interface) (registration, bool) {
	var version uint64
	if v, ok := t.(tool.SpecVersioner); ok {
		version = v.SpecVersion() // before the spec: a change in between is seen next time
	}
	var spec tool.Spec
	var docs [2]json.RawMessage // the input and output schemas as written, if the tool has them
	if d, ok := t.(tool.SchemaDocumenter); ok {
		spec, docs[0], docs[1] = d.SpecDocuments()
	} else {
		spec = t.Spec()
	}
	spec.Name = t.Name()
	mt := mcpTool(spec)
	if chars := s.declaredBudget(t); chars > 0 {
		if mt.Meta == nil {
			mt.Meta = mcp.Meta{}
		}
		mt.Meta[ResultBudgetMeta] = chars
	}
	err := encodeSchemas(mt, docs)
	var def []byte
	if err == nil {
		def, err = json.Marshal(mt)
	}
	if err != nil {
		s.logger.ErrorContext(ctx, "mcpserver: a tool's spec does not encode; it is not served as it is now", "tool", mt.Name, "err", err)
		return registration{}, false
	}
	if s.refused[mt.Name] == string(def) {
		return registration{}, false
	}
	r := registration{tool: mt, def: string(def), version: version}
	if s.search != nil {
		if mt.Name == SearchToolName {
			s.logger.ErrorContext(ctx, "mcpserver: a tool of the registry has the name of the tool that searches the deferred ones; it is not served", "tool", mt.Name)
			s.refused[mt.Name] = string(def)
			return registration{}, false
		}
		scope, _ := s.reg.ScopeOf(mt.Name)
		if r.deferred = spec.DeferLoading || scope != nil && scope.DeferLoading; r.deferred {
			r.doc = toolsearch.DocOf(spec)
		}
	}
	return r, true
}

// encodeSchemas replaces mt's schemas by their JSON encoding, which the
// SDK server then sends as it is: a tools/list would otherwise encode every
// schema of every tool again (through jsonschema's reflective MarshalJSON),
// which costs a server of a thousand tools milliseconds a list, and a
// client that lists again on every list_changed makes a list of each
// change. A schema's document as written (docs: input, output;
// tool.SchemaDocumenter) is sent as it is, in place of its encoding; an
// encoded one has its empty subschemas as {} (emptySchemasAsObjects).
func encodeSchemas(mt *mcp.Tool, docs [2]json.RawMessage) error {
	for i, schema := range []*any{&mt.InputSchema, &mt.OutputSchema} {
		if s, ok := (*schema).(*jsonschema.Schema); ok && s != nil {
			if len(docs[i]) > 0 {
				*schema = docs[i]
				continue
			}
			data, err := json.Marshal(s)
			if err == nil {
				data, err = emptySchemasAsObjects(data)
			}
			if err != nil {
				return err
			}
			*schema = json.RawMessage(data)
		}
	}
	return nil
}

// register registers a tool with the SDK server, replacing one of the same
// name. Hold regMu.
func (s *Server) register(r registration) {
	s.mcp.AddTool(r.tool, s.handler())
	s.registered[r.tool.Name] = r
	if s.search != nil {
		s.search.put(r)
	}
	if support := mcptask.Execution(r.tool.Meta); support != "" {
		s.taskModes.Store(r.tool.Name, tool.TaskSupport(support))
	} else {
		s.taskModes.Delete(r.tool.Name)
	}
}

// registerLive is register that survives the SDK's refusal: a tool the
// SDK refuses (it panics on an input schema that is not an object) is
// logged, once for each spec, and left as it was — not served, when New
// registers it. Hold regMu.
func (s *Server) registerLive(ctx context.Context, r registration) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.ErrorContext(ctx, "mcpserver: the SDK refused a tool's spec; the tool is served as it was, if at all", "tool", r.tool.Name, "panic", fmt.Sprint(v))
			s.refused[r.tool.Name] = r.def
		}
	}()
	s.register(r)
}

// withExamples returns the input schema of spec with the spec's examples
// as its root "examples": MCP's Tool has no field for them, and draft
// 2020-12 lists valid instances of a schema there, which the examples
// are, whole arguments of calls (dialect.MCP keeps them so). Examples the
// schema had of its own are replaced; a spec without examples keeps its
// schema as it is.
func withExamples(spec tool.Spec) *jsonschema.Schema {
	if len(spec.Examples) == 0 || spec.InputSchema == nil {
		return spec.InputSchema
	}
	s := *spec.InputSchema // the top level alone changes
	s.Examples = make([]any, len(spec.Examples))
	for i, ex := range spec.Examples {
		s.Examples[i] = ex
	}
	return &s
}

// MCP returns the underlying SDK server, for what this package does not
// cover (prompts, resources). Do not add or remove tools on it directly.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// mcpTool converts a spec to the SDK's tool description.
func mcpTool(spec tool.Spec) *mcp.Tool {
	t := &mcp.Tool{
		Name:        spec.Name,
		Title:       spec.Title,
		Description: spec.Description,
		InputSchema: withExamples(spec),
	}
	if spec.OutputSchema != nil {
		t.OutputSchema = spec.OutputSchema
	}
	if spec.Version != "" {
		t.Meta = mcp.Meta{VersionMeta: spec.Version}
		if len(spec.MigratesFrom) > 0 {
			t.Meta[MigratesFromMeta] = spec.MigratesFrom
		}
	}
	if spec.TaskSupport != tool.TaskForbidden {
		if t.Meta == nil {
			t.Meta = mcp.Meta{}
		}
		// Where the SDK keeps it; taskCalls puts it in its place.
		t.Meta[mcptask.ExecutionMeta] = map[string]any{"taskSupport": string(spec.TaskSupport)}
	}
	if a := spec.Annotations; a != nil {
		destructive, openWorld := a.Destructive, a.OpenWorld
		t.Annotations = &mcp.ToolAnnotations{
			Title:           spec.Title,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &openWorld,
		}
	}
	return t
}

// IssuesMeta is the key in _meta under which the error result of a call
// with invalid arguments carries the issues that its text lists, as a JSON
// array of {"path", "keyword", "message"} objects (tool.Issue): path is a
// JSON Pointer into the arguments, keyword the schema keyword that failed.
// A client that shows the issues at their fields, as the playground does,
// reads them here instead of parsing the text; a model reads the text.
const IssuesMeta = mcpmeta.Issues

// VersionMeta is the key in a listed tool's _meta under which its version
// (tool.WithVersion, tool.Spec.Version) is given, as a string, so that a
// client sees which version it listed. A hands client (mcpclient) reads it
// back into the tool's spec, so a gateway passes an upstream's version on.
const VersionMeta = mcpmeta.Version

// MigratesFromMeta is the key in a listed tool's _meta under which the
// earlier versions whose calls the tool still accepts (tool.Migrate,
// tool.Spec.MigratesFrom) are given, as an array of strings, nearest
// first, so that a snapshot of the list (hands snapshot) knows which
// breaking changes to the input the migrations cover.
const MigratesFromMeta = mcpmeta.MigratesFrom

// MigratedFromMeta is the key in a call result's _meta under which the
// version the call was made against is given, as a string, when the
// tool's migrations upgraded it (tool.RepairMigrated), so that a hands
// client in front of the server (mcpclient) records it as hands' own
// tools do.
const MigratedFromMeta = mcpmeta.MigratedFrom

// ResultBudgetMeta is the key in a listed tool's _meta under which the
// server declares the budget of the tool's results (tool.WithResultBudget,
// Options.ResultBudget, tool.Budget.Default), as a number, when budgets are
// on: Claude Code's anthropic/maxResultSizeChars, which tells it to pass
// results up to that many characters to the model rather than keep them
// apart (https://code.claude.com/docs/en/mcp, "Raise the limit for a
// specific tool"). A budget counts bytes, which are never fewer than the
// characters they encode, so no result the server sends is over it. It is
// at most 500000, the largest the client takes.
const ResultBudgetMeta = mcpmeta.MaxResultSizeChars

// CutMeta is the key in a call result's _meta under which a result cut to
// its budget says how (tool.Cut): {"budget", "size", "shown", "handle",
// "kept", "arrays", "parts"}. Its structured content, shortened along the
// output schema, is valid against that schema unless the schema forbids
// every shortening that fits; either way the key says that it was cut.
const CutMeta = mcpmeta.Cut

// declaredBudget returns the budget of t's results that a client is told,
// in characters; 0 when budgets are off or leave its results whole.
func (s *Server) declaredBudget(t tool.Interface) int {
	b := s.reg.Budget()
	if b == nil {
		return 0
	}
	n := b.Default
	switch {
	case s.resultBudget < 0:
		n = 0
	case s.resultBudget > 0:
		n = max(s.resultBudget, tool.MinResultBudget)
	}
	if bt, ok := t.(tool.Budgeted); ok && bt.ResultBudget() > 0 {
		n = bt.ResultBudget()
	}
	return min(n, mcpmeta.MaxResultSizeCharsCeiling)
}

// requestKey is the context key of the MCP request a call serves.
type requestKey struct{}

// RequestFrom returns the MCP request that a tool's handler (or a
// middleware, or an enabled predicate evaluated for a call) is serving, when
// the call came through a Server: its session, and its Extra — the HTTP
// headers of a streamable HTTP request, the verified token of an
// authenticated one. It reports false for a call that did not come over MCP.
func RequestFrom(ctx context.Context) (*mcp.CallToolRequest, bool) {
	req, ok := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return req, ok
}

// handler runs one tools/call through the registry.
func (s *Server) handler() mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = context.WithValue(ctx, requestKey{}, req)
		if hctx, ok := ctx.Value(httpRequestKey{}).(context.Context); ok {
			// A stateless HTTP request: the client's disconnecting is how
			// it cancels, since a cancellation it sends arrives in a
			// session of its own.
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(hctx, cancel)()
		}
		answers, err := s.answersOf(ctx, req)
		if err != nil {
			s.logger.WarnContext(ctx, "mcpserver: a tools/call's request state was refused", "tool", req.Params.Name, "err", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		ctx = context.WithValue(ctx, answersKey{}, answers)
		if s.reg.Budget() != nil {
			id, _ := stateCaller(ctx, req)
			ctx = tool.WithRecipient(ctx, tool.Recipient{ID: id, Budget: s.resultBudget})
		}
		call := tool.Call{Name: req.Params.Name, Args: req.Params.Arguments}
		var progress progressCounter
		var res tool.Result
		for {
			var err error
			if res, err = s.stream(ctx, req, call, answers, &progress); err != nil {
				return nil, err
			}
			if ir, ok := errors.AsType[*inputRequired](res.Err); ok {
				// The handler waits for the client's answer (see
				// Elicit): the client calls again with it.
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{ir.key: ir.params}, RequestState: ir.state}, nil
			}
			ierr, ok := errors.AsType[*tool.InterruptError](res.Err)
			if !ok {
				break
			}
			again, asked := askClient(ctx, ierr.Question, answers)
			if asked != nil {
				return asked, nil
			}
			if !again {
				break // nobody can answer: the result says what was asked
			}
		}
		if mc, ok := errors.AsType[*missingCapability](res.Err); ok && versionOf(req) >= roundTripsFrom {
			return nil, mc.rpcError()
		}
		if perr, ok := errors.AsType[*tool.PanicError](res.Err); ok {
			s.logger.ErrorContext(ctx, "mcpserver: a tool call panicked", "tool", perr.Tool, "panic", fmt.Sprint(perr.Value), "stack", string(perr.Stack))
		}
		result := &mcp.CallToolResult{Content: content(&res), IsError: res.IsError}
		if verr, ok := errors.AsType[*tool.ValidationError](res.Err); ok && res.IsError {
			result.Meta = mcp.Meta{IssuesMeta: verr.Issues}
		}
		if i := slices.IndexFunc(res.Repairs, func(r tool.Repair) bool { return r.Kind == tool.RepairMigrated }); i >= 0 {
			if result.Meta == nil {
				result.Meta = mcp.Meta{}
			}
			result.Meta[MigratedFromMeta] = res.Repairs[i].Version
		}
		if res.Structured != nil && !res.IsError {
			result.StructuredContent = res.Structured
		}
		if res.Cut != nil {
			if result.Meta == nil {
				result.Meta = mcp.Meta{}
			}
			result.Meta[CutMeta] = res.Cut
		}
		s.afterCall(req)
		return result, nil
	}
}

// stream runs one round of a tools/call through the registry, with the
// answers to tool.Ask given so far, and sends its progress to the client.
// It returns the JSON-RPC error for a tool not listed for the caller.
func (s *Server) stream(ctx context.Context, req *mcp.CallToolRequest, call tool.Call, answers *inputAnswers, progress *progressCounter) (tool.Result, error) {
	answers.restart()
	if len(answers.Asks) > 0 {
		ctx = tool.WithAnswers(ctx, "", slices.Clone(answers.Asks))
	}
	token := req.Params.GetProgressToken()
	var notify func(any) bool
	status := taskStatusFrom(ctx) // the call is a task's, or may become one: its progress is the task's status too
	if (token != nil && req.Session != nil) || status != nil {
		notify = func(v any) bool {
			if status != nil && status(v) {
				return true // an extension's task sends no progress
			}
			if token == nil || req.Session == nil {
				return true
			}
			if err := req.Session.NotifyProgress(ctx, progress.next(token, v)); err != nil {
				s.logger.DebugContext(ctx, "mcpserver: progress notification failed", "tool", call.Name, "err", err)
			}
			return true
		}
	}
	res := tool.Drain(ctx, s.reg, call, notify)
	if errors.Is(res.Err, tool.ErrDisabled) || errors.Is(res.Err, tool.ErrUnknownTool) {
		// Not listed for this caller: the protocol's answer to a tool it
		// does not know.
		return res, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: res.Content}
	}
	return res, nil
}

// Run serves one session on transport until the client disconnects or ctx
// ends: &StdioTransport{} for a server a client starts as a process. A
// call the client cancels gets no response, and when the input ends, the
// calls already read are answered before Run returns.
func (s *Server) Run(ctx context.Context, transport mcp.Transport) error {
	return s.mcp.Run(ctx, callTransport{transport})
}

// String describes the server, for logs.
func (s *Server) String() string {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	return "mcpserver with " + strconv.Itoa(len(s.registered)) + " tools"
}

var _ fmt.Stringer = (*Server)(nil)
