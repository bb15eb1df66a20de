// Command hands serves hands' bundled tools over the Model Context Protocol,
// prints their schemas, runs them from the command line, and compares two
// versions of any MCP server's tools.
//
// Usage:
//
//	hands serve [--http ADDR] [flags]
//	hands schema [--dialect D] [TOOL…]
//	hands call TOOL 'JSON'
//	hands diff OLD NEW
//	hands snapshot SOURCE
//	hands version
//
// serve speaks MCP on stdio by default, for a desktop client that starts it
// as a process; with --http it serves streamable HTTP at /mcp on ADDR, and
// the hosted files at /files/, so that the URLs host_file returns work at
// once, and at / a playground page for trying the tools in a browser. It
// needs no configuration and starts in any directory: the bucket is
// "hands/files" in the user's data directory ($XDG_DATA_HOME or
// ~/.local/share on Linux, ~/Library/Application Support on macOS,
// %LocalAppData% on Windows), and the key-value store "hands/kv.db" beside
// it, never in it, created when serve or call first needs them. serve
// refuses a bucket directory that holds any file of hands' own (a store, the
// config file, the OAuth tokens): its files are public. serve --help and call --help
// list every flag and every setting the environment (or the JSON object in
// --config) may make:
//
//	HANDS_BUCKET                 where host_file writes: file://…, mem:// or s3://…
//	HANDS_PUBLIC_URL             the public base URL of the bucket's files
//	HANDS_MAX_FILE_BYTES         the largest file host_file accepts
//	HANDS_FETCH_ALLOW_PRIVATE    let fetch_markdown and the browser reach loopback and private addresses
//	HANDS_NET_ALLOW              exact host:port endpoints the network tools may reach though private
//	HANDS_SERVICES               HTTP APIs for call_service and describe_service, from their OpenAPI documents
//	HANDS_SEARCH                 the search API of web_search: brave://, tavily:// or searxng://HOST
//	HANDS_IMAGE                  the image API of image_generate: openai://MODEL or gemini://MODEL
//	HANDS_IMAGE_MAX_COUNT        the most images one image_generate call makes (1; at most 4)
//	HANDS_SMTP                   the SMTP server of send_email: smtp://USER:PASSWORD@HOST:587 or smtps://…
//	HANDS_EMAIL_FROM             the sender of send_email's messages (the model never chooses it)
//	HANDS_EMAIL_ALLOW            the only recipients send_email may send to: addresses, @domains
//	HANDS_IMAP                   the IMAP server of email_list and email_read: imaps://USER:PASSWORD@HOST/FOLDER
//	HANDS_EMAIL_CA               a PEM file of CAs the email servers' certificates may also be signed by
//	HANDS_BROWSER                the browser tools' browser: chromium, an executable's path, or ws://…
//	HANDS_BROWSER_SCRIPT         let browser_execute run JavaScript steps the model writes
//	HANDS_TOKEN                  with --http, the bearer token of /mcp and tools.json (not /files/)
//	HANDS_TOKENS                 with --http, several callers' tokens instead: NAME=TOKEN,… (--tokens FILE)
//	HANDS_LIST_TTL               how long clients may keep a tools/list result (--list-ttl)
//	HANDS_STATE_KEY              the key that seals request state and task IDs (base64, 32 bytes)
//	HANDS_TASK_STORE             where tasks are kept for replicas: mem://, redis://, postgres://, sqlite://
//	HANDS_TASK_LEASE             how long a task runs unrenewed before it reads as failed (30s)
//	HANDS_MAX_TASKS              tasks held over all callers (1024)
//	HANDS_MAX_CALLER_TASKS       tasks one caller holds at once (32)
//	HANDS_TASK_RESULT_WAIT       how long a task call runs, or asks in its result, before it becomes a task (250ms)
//	HANDS_OAUTH_CLIENT_ID        a client registered in advance for --upstream URLs that ask for OAuth
//	HANDS_OAUTH_ISSUER           the one authorization server that client is registered with
//	HANDS_OAUTH_CLIENT_SECRET    that client's secret
//	HANDS_OAUTH_GRANT            authorization_code (a person signs in) or client_credentials
//	GOGC                         the collector's target; serve uses 400 unless it is set
//	OTEL_EXPORTER_OTLP_ENDPOINT  export a span of every served call over OTLP/HTTP
//
// With --upstream 'CMD ARGS' (repeatable), serve is also a gateway to other
// MCP servers: it starts each command (or connects to an http(s) URL) and
// serves its tools beside the bundled ones, each call checked against the
// tool's input schema by hands, under its limits, timeout and --token,
// before it is passed on (see package mcpclient). The tools served follow
// each upstream's list as it changes, without a restart, and each schema is
// listed exactly as the upstream sent it. --upstream 'NAME=CMD ARGS' names
// an upstream and serves its tools as NAME_tool; a tool whose name is
// taken otherwise is left out and named on standard error. The upstreams
// may offer 1000 tools together, less the bundled ones, taken in the order
// given; an upstream that does not start or does not fit is named on
// standard error and the others are served. An http(s)
// upstream that asks for OAuth is signed in to once: the address of its
// sign-in page is written to standard error and opened in the browser, and
// the tokens are kept in hands/oauth in the user's config directory (mode
// 0600), refreshed and reused by every later run. With --tool-search, the
// upstreams' tools are deferred: tools/list shows the bundled tools and
// search_tools, which finds the upstream tools that fit a task and adds
// them to the session's list (see package mcpserver, "Deferred tools").
//
// schema prints each tool as the provider of a dialect takes it in a
// request, ready to paste (--dialect list names them): MCP's inputSchema,
// an OpenAI Responses function tool with strict, Anthropic's input_schema,
// Gemini's parameters or parametersJsonSchema. The problems of the tools
// go to stderr, and it exits non-zero if the provider would refuse one. It
// opens no bucket and creates no file. call validates the JSON arguments, runs the
// tool, prints its result on stdout and its progress on stderr, and exits
// non-zero on any error, printing a validation error's issues.
//
// diff compares two tool lists and prints each change, one a line: whether
// it is compatible, breaking or unknown (counted as breaking), the tool,
// the JSON Pointer into the tool, and what changed, old value first
// (package compat decides; --json prints the same as a JSON array). A
// list is a snapshot file (the JSON of an MCP tools/list result, as
// tooltest.Snapshot and snapshot write it), an http(s) URL of an MCP
// server's streamable HTTP endpoint (--header adds a header, such as
// Authorization), an executable file, or a command, split at spaces, that
// serves MCP on stdio: so it checks any MCP server, not only hands. A file
// that exists is a snapshot when it starts with { or [ (after white
// space), and otherwise a program to run if it is executable, whatever
// its name. --mode forward checks the callers of NEW reaching a replica of
// OLD (a rolling deploy), --mode full both ways (package compat's Mode);
// --accept FILE accepts the breaking changes that its waivers name (lines
// of TOOL [POINTER] [# reason]; compat.ParseWaivers), printed as
// "accepted", and names on stderr each waiver that accepted nothing. It
// exits 0 when no change breaks the callers of OLD, 1 when
// one does, 2 for a mistake in the command line, and 3 when it could not
// compare (a missing or invalid snapshot, a server that failed, did not
// start or did not answer within --timeout). snapshot prints one
// tool list as a snapshot file. version
// prints the module version and, for a build from a checkout, the revision
// it was built from, as in "hands v1.2.3" or "hands devel (rev 1a6bc8d,
// modified)".
package main
