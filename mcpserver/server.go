package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"

	"github.com/hands-go/hands/internal/buildinfo"
	"github.com/hands-go/hands/tool"
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
}

// A Server serves a registry's tools over MCP. It is safe for concurrent
// use, and one Server may serve many sessions at once.
type Server struct {
	reg    *tool.Registry
	mcp    *mcp.Server
	logger *slog.Logger

	mu     sync.Mutex
	listed map[string]bool // the tools registered with the SDK server
}

// New returns a server for reg's tools, with the tools enabled now already
// listed.
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
	s := &Server{reg: reg, logger: logger, listed: map[string]bool{}}
	s.mcp = mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: opts.Instructions,
		Logger:       logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.Sync(context.Background())
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

// MCP returns the underlying SDK server, for what this package does not
// cover (prompts, resources). Do not add or remove tools on it directly.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Sync evaluates the enabled predicates now and makes the listed tools
// match: newly enabled tools are added and disabled ones removed. Connected
// clients are told when the list changed.
func (s *Server) Sync(ctx context.Context) {
	names := s.reg.EnabledNames(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	want := make(map[string]bool, len(names))
	for _, name := range names {
		want[name] = true
		if s.listed[name] {
			continue
		}
		t, _ := s.reg.Lookup(name)
		spec := t.Spec()
		s.mcp.AddTool(mcpTool(spec), s.handler(spec))
		s.listed[name] = true
	}
	var gone []string
	for name := range s.listed {
		if !want[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.mcp.RemoveTools(gone...)
		for _, name := range gone {
			delete(s.listed, name)
		}
	}
}

// mcpTool converts a spec to the SDK's tool description.
func mcpTool(spec tool.Spec) *mcp.Tool {
	t := &mcp.Tool{
		Name:        spec.Name,
		Title:       spec.Title,
		Description: spec.Description,
		InputSchema: spec.InputSchema,
	}
	if spec.OutputSchema != nil {
		t.OutputSchema = spec.OutputSchema
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
func (s *Server) handler(spec tool.Spec) mcp.ToolHandler {
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
		call := tool.Call{Name: req.Params.Name, Args: req.Params.Arguments}
		token := req.Params.GetProgressToken()
		var res tool.Result
		var progress progressCounter
		for ev := range s.reg.Stream(ctx, call) {
			if ev.Result != nil {
				res = *ev.Result
				continue
			}
			if token == nil || req.Session == nil {
				continue
			}
			if err := req.Session.NotifyProgress(ctx, progress.next(token, ev.Progress)); err != nil {
				s.logger.DebugContext(ctx, "mcpserver: progress notification failed", "tool", call.Name, "err", err)
			}
		}
		result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Content}}, IsError: res.IsError}
		if res.Structured != nil && !res.IsError {
			result.StructuredContent = res.Structured
		}
		s.Sync(ctx)
		return result, nil
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return "mcpserver with " + strconv.Itoa(len(s.listed)) + " tools"
}

var _ fmt.Stringer = (*Server)(nil)
