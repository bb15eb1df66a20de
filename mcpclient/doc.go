// Package mcpclient offers the tools of MCP servers as hands tools, with
// the official Go SDK's client (github.com/modelcontextprotocol/go-sdk).
//
//	everything, err := mcpclient.Connect(ctx,
//		mcpclient.Command("npx", "-y", "@modelcontextprotocol/server-everything"),
//		&mcpclient.Options{Prefix: "everything_", Include: mcpclient.ReadOnly})
//	if err != nil {
//		return err
//	}
//	defer everything.Close()
//	reg, err := tool.NewRegistry(&tool.Scope{Name: "everything", Tools: everything.Tools()})
//
// Connect takes any SDK transport: Command starts a program that speaks
// MCP on its standard input and output, HTTP reaches a streamable HTTP
// endpoint and sends the headers given (an Authorization header, say), and
// HTTPWith reaches one that OAuth guards.
//
// # OAuth
//
// With HTTPOptions.OAuth, a server's 401 or 403 insufficient_scope runs
// the authorization flow of the SDK's auth package: protected-resource
// metadata (RFC 9728), authorization-server metadata (RFC 8414 or OpenID
// Connect), a client ID metadata document, a pre-registered client or
// dynamic registration (RFC 7591), and the authorization code grant with
// PKCE. The person signs in in the browser (OAuth.Browser, OpenBrowser by
// default), which comes back to a loopback address this package listens on
// for that moment. A program with no person uses the client credentials
// grant (OAuth.Machine), with a secret or a signed JWT (OAuth.ClientKey);
// OAuth.Enterprise exchanges an identity provider's ID token instead. The
// tokens are kept in a TokenStore — by default a FileStore in the user's
// config directory, mode 0600 — refreshed when they expire, and reused by
// the next run; a call that needs more scope asks for it (step-up). A
// refusal by the authorization server (the person declines, say) is an
// *AuthorizationError, which matches ErrAuthorization: Connect's error, or,
// when it comes at a step-up, the Cause of the call's *CallError, so that
// the call's error matches tool.ErrUpstream too.
//
//	transport, err := mcpclient.HTTPWith("https://mcp.example.com/mcp",
//		&mcpclient.HTTPOptions{OAuth: &mcpclient.OAuth{}})
//
// # Requests from the server
//
// Options.Elicit and Options.Sample answer a server's elicitation (form
// and URL modes) and sampling requests; their context is that of the call
// that caused the request, when the request names it, so that a gateway
// can pass each on to the client that made that call, however many calls
// are under way — and refuse one that names none (ErrUnattributed). A
// request names its call by coming, over streamable HTTP, on the stream of
// the call's tools/call or of the tasks/result of the task the call
// created; by carrying the call's progress token (_meta progressToken);
// or by carrying the ID of a task the client created for the call, while
// the call is under way (_meta io.modelcontextprotocol/related-task). An
// ID the client did not create for a call under way names none.
//
// On every transport but streamable HTTP (stdio above all), the server's
// requests come on the one connection whose calls under way the client
// knows, and servers there seldom name the call. A request that names
// nothing (no progress token, no task) is then put down to the call under
// way when there is only one;
// when there are several, its context holds them all (CallsUnderWay), and
// a gateway may pass it on when they are all one caller's; when there
// are none, or over streamable HTTP, where such a request came outside
// every call, it is refused.
//
// A gateway whose own client takes requests in the call's result (MCP
// from 2026-07-28) ends the call with the error that asks for the answer
// (Interrupt): the tool's handler returns it, the call to the server is
// cancelled, and the call made again with the answer asks the server
// again, whose request then gets the answer.
//
// # Tasks
//
// With a server of protocol revision 2025-11-25 (SEP-1686), a remote tool
// whose execution.taskSupport is "required" is called as an MCP task: the
// call creates the task, polls it with tasks/get at the server's
// pollInterval (held between 100 ms and 10 s), passes its status messages
// on as progress, and fetches its result with tasks/result, which is then
// read as a plain call's result is, within the same bounds. A tool whose
// task support is "optional" is called plainly.
//
// From 2026-07-28, tasks are an extension (io.modelcontextprotocol/tasks,
// SEP-2663), which the client declares in the capabilities of every
// tools/call and tasks/* request: the server decides which calls become
// tasks, and answers those with the task in place of the result. The
// client then polls tasks/get, waiting the server's pollIntervalMs before
// each (at least 100 ms, at most a minute), and half again as long each
// time while the task goes on unchanged, up to 5 s or the server's
// interval when that is longer; passes its status messages on as
// progress; answers the server's requests among its inputRequests, once
// each, through Options.Elicit and Options.Sample with the call's context
// (a request the client did not declare ends the call), sending the
// answers with tasks/update; and returns the result or the JSON-RPC error
// the task ends with, inline in tasks/get, as a plain call's. Over
// streamable HTTP, tasks/get, tasks/update and tasks/cancel carry the
// task's ID in the Mcp-Name header. The call gives up, and cancels the
// task, once the task's ttlMs has passed since the client read it.
//
// On either revision the call's context and timeout bound the whole, and
// 10 000 polls bound a call without a timeout; when the call ends first,
// the task is cancelled on the server (tasks/cancel, within 5 s, which
// may hold a call of a tool that does not require a task past its end by
// as long). Close cancels the tasks that calls under way await, and waits
// for the calls whose answer may still be a task to cancel theirs, 5 s at
// most in all, before it ends the session: a client that goes leaves no
// task running for nobody (those not cancelled within the 5 s are left to
// their ttl); those calls fail as ErrDisconnected. Tools
// that require or allow tasks are tool.TaskOptional to hands' own clients.
//
// # A remote tool is a hands tool
//
// Each tool the server lists becomes a tool.Interface, built with package
// dynamic from the tool's input schema, so it behaves like a local tool in
// a registry, under middleware, in an agent and behind mcpserver:
//
//   - A model's arguments are checked against the input schema by a
//     complete draft 2020-12 validator, and held to the tool's limits,
//     before anything is sent: a bad call is a *tool.ValidationError result
//     that lists every issue, and the server never sees it. The exception
//     is a tool whose server says it upgrades calls made against earlier
//     versions (_meta migratesFrom, as mcpserver writes it): the client
//     has no schema for those versions, so it sends every call on, and
//     the server upgrades it or refuses it.
//   - The version the server lists in the tool's _meta (mcpserver.VersionMeta)
//     is the tool's (Spec.Version, Result.Version), and a result whose
//     _meta says the server upgraded the call (mcpserver.MigratedFromMeta)
//     records a tool.RepairMigrated repair, so a history and a snapshot
//     see an upstream's versions as they see hands' own.
//   - The title, the annotations (with MCP's defaults for hints left out)
//     and the output schema are in the tool's Spec, so the same dialect
//     conversion and lint apply (tool.Lint, dialect.Dialect.Check,
//     tooltest.Portable): a remote schema a provider would reject is
//     refused by the provider adapter like a local one, and
//     Options.Dialects leaves such tools out at once.
//   - A result of text alone is Result.Content; one with images, audio or
//     resources has them in Result.Parts, as tool parts that an mcpserver
//     sends on as content, and their text rendering (tool.PartsText) in
//     Result.Content. Its structured content is Result.Structured when
//     the tool has an output schema, and the whole *mcp.CallToolResult is
//     Result.Output. Structured content that does not satisfy the tool's
//     own output schema is an error result (a *CallError): what a program
//     reads from Result.Structured has been checked.
//   - An isError result is an error result whose Err is a *ToolError
//     carrying the server's text, which matches ErrToolFailed. When the
//     server lists the issues of arguments it refused, as an mcpserver
//     does (mcpserver.IssuesMeta), the *ToolError holds them and matches
//     tool.ErrInvalidArguments instead, so that a caller that retries
//     failures does not retry those, and the model reads them as it would
//     a local tool's, under the name it calls the tool by. A call the server did not answer is a
//     *CallError, which matches tool.ErrUpstream, and ErrDisconnected too
//     when the connection ended: a call on a server that exits ends at
//     once, and one on a server that stops answering ends at
//     Options.Timeout with a *tool.TimeoutError. So every failure of a
//     call that hands finds matches a tool.Err… sentinel, as for a local
//     tool.
//   - The server's notifications/progress become tool.Progress events of
//     type tool.ProgressReport, so a re-served tool passes them on with
//     their totals. Ending the hands call — its context cancelled, or
//     Options.Timeout passed — sends notifications/cancelled.
//
// # Tracing
//
// A call made inside an OpenTelemetry span (an agent run traced by
// otelhands, say) carries the span's W3C trace context to the server in
// the request's _meta — traceparent, tracestate and baggage, as SEP-414
// names them — and, over HTTP, in the same headers, so that the server's
// spans continue the caller's trace; mcpserver reads them. Nothing is sent
// outside a span. From protocol 2026-07-28 every request over HTTP also
// carries SEP-2243's Mcp-Method and Mcp-Name headers (the SDK's).
//
// # Choosing tools
//
// Options.Allow and Options.Deny name remote tools to offer or leave out,
// Options.Include is a predicate over each tool's Spec (ReadOnly offers
// only tools annotated read-only), and Options.Prefix keeps the names of
// several servers apart. Tools hands cannot take as they are (a name
// outside ^[a-zA-Z0-9_-]{1,64}$, a schema that does not compile or refers
// to other documents, or an input schema that does not describe an
// object) are left out and reported by Client.Refused. An input schema
// whose root is an object that says nothing of its kind — no "type",
// $ref, combinator, if, enum or const, such as {"$schema": "..."} alone —
// is taken as an object's: "type":"object" is added at the front of its
// root, which MCP requires and its clients check, and the tool is listed
// and validated with that schema, its bytes otherwise as sent.
//
// # When the server's list changes
//
// On notifications/tools/list_changed the client lists the tools again,
// on a goroutine of its own that Close ends, and calls Options.OnChange
// with what changed. A server of protocol 2026-07-28 may say how long its
// list stays fresh (ttlMs, SEP-2549): until then Client.Refresh does not
// ask it again, unless it has sent list_changed since, which always
// makes the client list again. Each name is one tool for the life of the client, so
// a registry built on Client.Tools follows the server:
//
//   - a tool the server changed keeps its identity, and its Spec and
//     validation are the new ones at once;
//   - a tool the server removed is disabled (tool.Enabler): a registry no
//     longer lists it and answers its calls with a *tool.DisabledToolError;
//     if the server lists it again, it is enabled again;
//   - a tool the server added is in Client.Tools from then on; a registry
//     built earlier takes it with tool.Registry.Add, in OnChange.
//
// A program that re-serves the tools with an mcpserver.Server, as hands
// serve --upstream does, adds to its registry in OnChange the tools of
// Client.Tools it does not hold (Change.Added names them) and calls the
// server's Sync: its sessions are then sent
// notifications/tools/list_changed and list the added tools, the changed
// ones with their new specs, and no longer the removed ones.
package mcpclient
