// Package mcpserver serves a tool.Registry over the Model Context Protocol,
// with the official Go SDK (github.com/modelcontextprotocol/go-sdk), on stdio
// or on streamable HTTP, stateful or stateless.
//
//	reg, _ := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{weather}})
//	srv := mcpserver.New(reg, nil)
//	err := srv.Run(ctx, &mcpserver.StdioTransport{})      // a desktop client starts us
//	http.Handle("/mcp", srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true}))
//
// # What a client sees
//
// tools/list returns the tools enabled now: their draft 2020-12 input
// schemas (always type: object), with a tool's examples (tool.WithExamples)
// as the root "examples" of its input schema, since MCP's Tool has no
// field for them; their output schemas when the output is a struct, their
// titles and annotations (read-only, destructive, idempotent, open-world),
// and in _meta a versioned tool's version (VersionMeta) and the earlier
// versions its migrations upgrade (MigratesFromMeta). A tool whose schemas
// were written as JSON documents (tool.SchemaDocumenter, such as a tool
// mcpclient passes on from another server) is listed with those documents
// byte for byte, {} as {} and unknown keywords kept.
// tools/call runs the call through the registry — its
// middleware, predicates, hands' own one-pass validation and timeouts — with
// the arguments exactly as they arrived: tools are registered through the
// SDK's raw handler, so nothing is decoded or validated twice. A validation
// or handler failure is a result with isError set, carrying the text a model
// can act on; for invalid arguments the result's _meta also holds the
// issues, each with its JSON Pointer and keyword, under IssuesMeta, and
// the result of a call that a migration upgraded names the version it was
// made against under MigratedFromMeta; a call to a name the server does
// not list is a JSON-RPC invalid-params error. A struct output is sent as structuredContent and,
// for older clients, as JSON text.
//
// # Rich results
//
// A tool whose output is tool.Part or []tool.Part sends each part as the
// MCP content of its kind: text, image, audio, an embedded resource (text
// or blob) or a resource link.
//
// # Talking back to the client
//
// From inside a handler, on any transport: Log sends a log message
// (notifications/message) when the client asked for that level; Sample
// asks the client's model for a message (sampling); Elicit[T] asks the
// user to fill in a form whose schema is T's, and decodes the answer into
// a T. Sample and Elicit report ErrUnsupported when the client did not
// declare the capability, and Elicit reports ErrDeclined when the user
// said no. A handler that returns the ErrUnsupported of an undeclared
// capability as it is fails the call, from protocol 2026-07-28, with the
// protocol's -32021 (Missing Required Client Capability) naming the
// capability; before, the call's result is the error. On protocol versions before 2026-07-28 they send the request
// and wait; from 2026-07-28, where a server may not send requests while it
// serves one, the request goes back in the call's result, the client
// calls again with the answer and the handler runs again from the start,
// as it does after tool.Ask — so a handler asks before it changes
// anything. The answers come to the requests by their order when the
// handler runs again, under keys hands gives them (hands-0, hands-1, …),
// or by key, for a request the handler named with WithInputKey. Outside MCP, as inside agent.Run, Elicit asks with tool.Ask;
// and over MCP, a question a handler asks with tool.Ask is put to the user
// as a form of one text field, when the client declared elicitation, and
// the handler runs again with the answer. So a handler written for either
// works in both. Protocol 2026-07-28 deprecates logging and sampling
// (SEP-2577), without changing the wire: Log and Sample work on every
// revision, but new servers log to standard error or through
// OpenTelemetry, and call a model provider themselves. Elicitation is
// not deprecated.
//
// The answers of earlier rounds travel in the call's request state, which
// the client holds, so the server seals it (AES-256-GCM under
// Options.StateKey) and binds it to the call's tool, arguments and caller;
// it is good for one retry within Options.StateTTL. A forged, altered,
// rebound, expired or replayed state is a *RequestStateError, answered with
// a JSON-RPC invalid-params error, and the tool does not run. Without
// Options.StateClaims, the states used are remembered in this process by
// caller: a user (of HTTPOptions.Verify) or a session holds at most 1,024
// until they expire, and past that its next state is refused
// (ErrStateLimit) while other callers' calls go on. The callers the server
// cannot tell apart (anonymous clients of stateless HTTP, stdio) have no
// share that one of them could fill for the others: their states used are
// remembered together, the latest 1,048,576 of them (at most 22 bytes
// each, 22 MiB in all), and when the memory is full it forgets those that
// expire first and refuses, as ErrStateOverrun, any state expiring no
// later than one it forgot. So a used state is refused whenever it comes
// back, and a state is crowded out only once 1,048,576 others expiring no
// earlier (with one StateTTL: issued in the same second or later) were
// used before it: some two million tools/calls (an issue and a use for
// each) between its issue and its use. A check costs the same however
// many states are held.
//
// # Progress, cancellation and changes
//
// tool.Progress inside a handler becomes notifications/progress when the
// client sent a progress token. A tool.ProgressReport gives the amount done, the
// total when known, and a message; a number is the amount done; anything
// else is a message. The value sent increases strictly from one
// notification to the next, as the protocol requires, whatever the handler
// reports. When the client cancels a request — with notifications/cancelled,
// or in stateless HTTP by closing the request — the handler's context is
// cancelled, and on stdio and other transports passed to Run the cancelled
// request gets no response. On stateful streamable HTTP the messages of
// each stream are kept (HTTPOptions.ResumeBytes), so a client whose stream
// broke reconnects with Last-Event-ID and gets what it missed.
//
// # Per-caller tool lists
//
// Every tool of the registry is registered with the SDK server; what a
// client sees is decided per request. tools/list lists the tools whose
// enabled predicates hold for the caller, and a tools/call of a tool not
// enabled for the caller is a JSON-RPC invalid-params error, as for a name
// the server does not know. A predicate reads who is calling with
// CallerFrom: the session, the verified bearer token (HTTPOptions.Verify),
// the HTTP headers. Shortly after a tools/call (10ms, once for the calls
// of that moment), the server evaluates the predicates again for the
// caller's session, and for no other: a call costs the same however many
// sessions and tools there are. Sync evaluates them for every session that
// has listed tools, each with its own caller; call it when something that
// predicates read changes for sessions other than the caller's. Either
// way, notifications/tools/list_changed goes to the sessions whose list
// changed, and to no other. A registry without predicates
// (tool.Registry.HasPredicates) is not evaluated at all. In stateless
// HTTP mode there are no sessions to notify; clients list tools again on
// their next request.
//
// From protocol 2026-07-28 a tools/list result carries caching hints
// (SEP-2549): ttlMs, how long a client may keep it (Options.ListTTL, 0 by
// default), and cacheScope. A list that may depend on the caller — the
// registry has an enabled predicate, or Options.ToolSearch lists each
// session what it found — is "private": a shared cache (a gateway, a
// proxy) keeps it for that caller's authorization alone. Any other list
// is "public", the same for every caller. StaticTokens makes a Verify for
// several callers, one token each, each served as a user of its own.
//
// The server follows its registry as it changes. Sync registers the tools
// added since (tool.Registry.Add) and registers again each tool whose Spec
// changed, so tools/list shows the spec as it is now, and tells the
// sessions whose list gained a tool or holds one that changed. It costs
// what changed: a spec is built only for a new tool, one that says its
// spec changed (tool.SpecVersioner), or one that cannot say. Calls and
// listing take no lock that Sync holds. A tool that reports itself
// disabled is no longer listed, as for any predicate.
//
// # Tracing
//
// A request whose _meta carries W3C trace context (traceparent,
// tracestate, baggage: SEP-414; else the same HTTP headers) is served in
// that trace: its context continues the client's span, so that the spans
// of otelhands.Tools, installed on the registry, are its children. The
// context is also marked with the request's method, session and protocol
// version, which otelhands records as OpenTelemetry's MCP conventions ask
// (a tools/call span named "tools/call {tool}", of kind server, with
// mcp.method.name and mcp.session.id, and mcp.server.operation.duration).
// A span the context had already (an HTTP instrumentation's) stays the
// parent when the request names none, and is linked when it does. The
// Mcp-Method and Mcp-Name headers of protocol 2026-07-28 (SEP-2243) are
// checked against the body by the SDK's handler.
//
// # Deferred tools
//
// With Options.ToolSearch, a server of many tools lists few. The tools
// whose spec says DeferLoading (tool.WithDeferLoading, or a scope's
// tool.Scope.DeferLoading) are left out of tools/list, which shows the
// others and one more, search_tools (SearchToolName). Its input is
// {"query": string, "limit": integer} (limit 1 to MaxSearchLimit, default
// DefaultSearchLimit); it ranks the deferred tools enabled for the caller
// against the query (package toolsearch: BM25F over their names, titles,
// descriptions and properties) and returns the best as structured content,
// {"tools": [{"name", "title", "description", "inputSchema"}]}, best
// first. A tool that is not enabled for the caller is never found. The
// tools found are added to the session's list, and the session is sent
// notifications/tools/list_changed; a session keeps at most
// ToolSearchOptions.MaxLoaded of them (DefaultMaxLoaded), dropping those
// found longest ago. A stateless HTTP client has no session to keep them
// in: its list stays as it is, and it calls what it found by name.
//
// Deferring is about the model's context, not about access: a deferred
// tool enabled for the caller is called like any other, found or not, and
// enabled predicates remain what decides who may call what. The index
// follows the registry as Sync does, one tool at a time: a Sync after one
// tool changed puts that tool alone in it. Under tool search tools/list
// has one page, since what it shows is a small part of what is
// registered, and a registry tool named search_tools is not served.
//
// # Tasks
//
// A tool declared with tool.WithTaskSupport may be called as an MCP task
// (protocol revision 2025-11-25): the client's tools/call carries a task
// parameter, the server answers at once with the task, runs the call in
// the background, bound to the session, and answers tasks/get,
// tasks/result, tasks/cancel (which ends the handler's context) and
// tasks/list for that session's tasks only; a task ID from another
// session is not found. A tool that requires tasks refuses plain calls. A
// task is forgotten once its ttl has passed, its call cancelled if it
// still runs. TaskOptions (Options.Tasks) bound the tasks per session and
// in all, the ttl and the result held. The call's progress is also the
// task's status message, which a client that polls reads.
//
// From protocol version 2026-07-28 tasks are the tasks extension
// (io.modelcontextprotocol/tasks), which server/discover declares: a
// client declares it in a request's capabilities, and the server decides
// whether a call becomes a task. A call of a tool that allows one is run
// and answered with its result if it ends within TaskOptions.ResultWait
// (250 ms by default), so that a quick call costs no tasks/get; one that
// goes on becomes a task, created in the store before the client learns
// of it, the call carrying on as the task's. A call of a tool that
// requires one is run so too, and becomes a task when it ends within the
// wait as well. A call that asks its client (Elicit, Sample, tool.Ask)
// before it is a task asks in its result, as a plain call does, and the
// retry with the answer runs it again: the round trips are over before
// the task is made, as the extension has it. A handler that would rather
// ask through the task, and run once, makes its call one first
// (BecomeTask). A tool that requires a task, called by a client that did not
// declare the extension, is refused with -32021 (over HTTP, with 400 Bad
// Request). SEP-1686's task parameter is not of that revision, and is
// ignored. The client polls tasks/get (the result or the error inline),
// answers the call's requests to it (Elicit, Sample) with tasks/update,
// and cancels with tasks/cancel; tasks/result and tasks/list are gone.
// Over HTTP, tasks/* must carry the task's ID in the Mcp-Name header.
//
// Tasks' state is in a taskstore.Store (TaskOptions.Store; in memory by
// default): servers that share one and one Options.StateKey answer for
// each other's tasks, stateless HTTP servers included. A task's ID, as
// the client sees it, is sealed with the state key and bound to its
// caller (a session before 2026-07-28; the token's user, else the
// session, after), so that another caller's use of it is "task not
// found". The server that runs a task holds a lease on it, which it
// renews; when it stops, the task reads as failed, with a message that
// tells the model to call the tool again. A stateless HTTP server serves
// tasks on 2026-07-28 only: before it, tasks need a session. Tasks
// need the server's own transports (Run, HTTPHandler), which carry the
// task parameter that the SDK's types drop; a session made directly on
// the SDK server (MCP) sees task-augmented calls as plain ones.
//
// A server runs its tasks' calls itself, unless TaskOptions.Runner says
// otherwise: a TaskRunner takes the calls of the extension's tasks
// (2026-07-28), which its workers run with Server.RunTask on a server of
// the same registry, store and state key, taking the task's lease over,
// so that a call may outlive the replica that made its task. Package
// durable's Tasks runs them as Temporal activities, run again on another
// worker when theirs is lost, for the tools that are safe to run twice.
// Such a call runs without its client's connection: it cannot ask the
// client (Elicit, Sample), and says so. The call leaves the process as
// plain JSON (a TaskCall: the task, its owner, the tool, the arguments,
// what was verified of the caller's token), so it goes sealed: a MAC
// under the state key of all it says, and RunTask runs only a call so
// sealed, unchanged, for a task of the store of its owner and tool;
// anything else is ErrTaskCallAltered, and nothing runs. So whoever can
// give the runner's workers a call (start a workflow, say) cannot choose
// the tool, its arguments or the caller it runs as.
//
// # The playground
//
// Playground returns a handler for a web page on which a developer tries
// the tools, mounted beside the endpoint (hands serve --http serves it at
// /). The page is plain HTML, CSS and JavaScript modules embedded in the
// package: no build step, nothing fetched from elsewhere. It is an MCP
// client of the endpoint from the same origin — initialize, tools/list,
// tools/call with a progress token, over JSON or server-sent events — so a
// call from the page meets the same session, origin check, token and
// middleware as a model's. It builds a form from a tool's input schema,
// shows progress as it arrives, and shows the issues of invalid arguments
// (IssuesMeta) at their fields. The schema of each tool in every dialect,
// with the dialect's problems, comes from tools.json beside the page,
// which MCP has no message for.
package mcpserver
