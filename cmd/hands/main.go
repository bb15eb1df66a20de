package main

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/buildinfo"
	"github.com/hands-go/hands/internal/otelexport"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/resultstore"
	"github.com/hands-go/hands/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintln(os.Stderr, "hands:", err)
		}
		os.Exit(exitCode(err))
	}
}

// errReported is an error whose explanation has already been printed.
var errReported = errors.New("reported")

// A usageError is a mistake in the command line; it exits with 2.
type usageError struct {
	msg string
	err error // errReported when it has been printed already, with the help
}

func (e *usageError) Error() string { return e.msg }

// Unwrap returns errReported when the error has been printed.
func (e *usageError) Unwrap() error { return e.err }

// exitCode is the status hands exits with after err: 2 for a usage
// error, 3 when hands diff could not compare (a compareError), 1 for
// anything else, a breaking change found by hands diff included.
func exitCode(err error) int {
	var uerr *usageError
	if errors.As(err, &uerr) {
		return 2
	}
	if _, ok := errors.AsType[*compareError](err); ok {
		return 3
	}
	return 1
}

const usage = `hands gives LLM agents their hands: Go tools they can call.

Usage:
  hands serve [--http ADDR] [flags]                         serve the bundled tools over MCP
  hands schema [--dialect D] [TOOL…]                        print the tools as a provider's request takes them
  hands call TOOL 'JSON'                                    run a tool and print its result
  hands diff OLD NEW                                        compare two tool lists; exit 1 if a change breaks callers, 3 if they cannot be compared
  hands snapshot SOURCE                                     print a tool list as a snapshot file
  hands version                                             print the version

Run "hands COMMAND --help" for a command's flags.
`

// run is the whole command; main only sets up signals and the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return &usageError{msg: "no command given"}
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdin, stdout, stderr)
	case "schema":
		return printSchema(ctx, args[1:], stdout, stderr)
	case "call":
		return callTool(ctx, args[1:], stdout, stderr)
	case "diff":
		return diffTools(ctx, args[1:], stdout, stderr)
	case "snapshot":
		return snapshotTools(ctx, args[1:], stdout, stderr)
	case "version":
		return version(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return &usageError{msg: fmt.Sprintf("unknown command %q", args[0])}
}

// flags returns a flag set whose help goes to stdout and whose errors go
// to stderr, each printed once by parse.
func flags(name, synopsis string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: hands %s\n\n", synopsis)
		printFlags(fs.Output(), fs)
		printSettings(fs.Output(), name)
	}
	return fs
}

// parse parses flags; --help prints the help on stdout and ends the command,
// and a bad flag prints the error and the help on stderr.
func parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (done bool, err error) {
	usage := fs.Usage
	fs.Usage = func() {}
	err = fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		return true, nil
	case err != nil:
		fmt.Fprintf(stderr, "hands %s: %v\n", fs.Name(), err)
		fs.SetOutput(stderr)
		fs.Usage()
		return true, &usageError{msg: err.Error(), err: errReported}
	}
	return false, nil
}

// parseInterspersed parses flags as parse does, wherever they stand among
// the arguments (hands schema TOOL --dialect D), and returns the
// arguments that are not flags, in order. A lone "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (rest []string, done bool, err error) {
	for {
		if done, err := parse(fs, args, stdout, stderr); done {
			return nil, true, err
		}
		left := fs.Args()
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), false, nil // flag consumed the "--"
		}
		if len(left) == 0 {
			return rest, false, nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

func version(args []string, stdout, stderr io.Writer) error {
	fs := flags("version", "version", stdout, stderr)
	if done, err := parse(fs, args, stdout, stderr); done {
		return err
	}
	fmt.Fprintf(stdout, "hands %s\n", buildinfo.Read())
	return nil
}

// serveGCPercent is the collector's target (GOGC) for hands serve when the
// environment sets none. A server's live heap is a few MB, and every JSON
// message a session of the SDK decodes allocates a buffer of 32 KiB (a
// call through --upstream decodes several, on each side), so at Go's
// default of 100 the collector would run every dozen calls, its workers
// taking the cores from the upstreams and clients beside it. At 400 it
// runs a quarter as often, for a heap of five times the live one.
const serveGCPercent = 400

// serveBudget turns reg's result budgets on for serve: the cut results
// are kept in results.db in the data directory, or in memory where there
// is none.
// It returns a function that closes the store.
func serveBudget(ctx context.Context, reg *tool.Registry, budget int, stderr io.Writer) (func(), error) {
	if budget < 0 {
		return nil, &usageError{msg: fmt.Sprintf("--result-budget %d is negative: give a number of bytes, or 0 to cut nothing", budget)}
	}
	if budget > 0 && budget < tool.MinResultBudget {
		return nil, &usageError{msg: fmt.Sprintf("--result-budget %d is below the least budget, %d bytes", budget, tool.MinResultBudget)}
	}
	var store tool.ResultStore = tool.NewMemoryStore(nil)
	closeStore := func() {}
	if db, err := openResultStore(ctx); err == nil {
		store, closeStore = resultstore.New(db, nil), func() { db.Close() }
	} else {
		fmt.Fprintf(stderr, "hands: %v; cut results are kept in memory\n", err)
	}
	if err := reg.SetBudget(&tool.Budget{Store: store}); err != nil {
		closeStore()
		return nil, err
	}
	return closeStore, nil
}

// serve runs the MCP server on stdio or HTTP until ctx ends.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flags("serve", "serve [--http ADDR] [flags]", stdout, stderr)
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (such as 127.0.0.1:8080) instead of stdio")
	stateless := fs.Bool("stateless", false, "with --http, keep no session between requests (for replicas behind a load balancer)")
	config := fs.String("config", "", "read bindings from the JSON object in `FILE`")
	var httpOpts mcpserver.HTTPOptions
	fs.DurationVar(&httpOpts.SessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout, "with --http, close a session idle for this long")
	fs.IntVar(&httpOpts.MaxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "with --http, refuse new sessions while this many are open")
	fs.Func("allow-origin", "with --http, let pages from `ORIGIN` call the server (repeatable; localhost is allowed on loopback)", func(v string) error {
		httpOpts.AllowedOrigins = append(httpOpts.AllowedOrigins, v)
		return nil
	})
	resultBudget := fs.Int("result-budget", 0, "cut each tool result a caller reads to `BYTES`, unless the tool has a budget of its own, keeping the rest for read_result (default $HANDS_RESULT_BUDGET, else 0: no cut)")
	token := fs.String("token", "", "with --http, require `TOKEN` as a bearer token on /mcp and the playground's tools.json; /files/ stays public (default $HANDS_TOKEN)")
	tokensFile := fs.String("tokens", "", "with --http, serve several callers, each with a bearer token of its own, read from `FILE`: one NAME=TOKEN line a caller; each is a caller apart, with its own cut results, request states and enabled tools (default $HANDS_TOKENS, the pairs comma-separated)")
	listTTL := fs.Duration("list-ttl", 0, "tell clients they may keep a tools/list result for `D` before listing again; a change is still announced at once (default $HANDS_LIST_TTL, else 0)")
	var upstream []upstreamSpec
	fs.Func("upstream", "also serve the tools of the MCP server that `'[NAME=]CMD ARGS'` starts, or at an http(s) URL, validated by hands first; NAME names it and prefixes its tools' names with NAME_ (repeatable)", func(v string) error {
		spec, err := parseUpstream(v)
		if err != nil {
			return err
		}
		for _, other := range upstream {
			if spec.name != "" && other.name == spec.name {
				return fmt.Errorf("two upstreams are named %s", spec.name)
			}
		}
		upstream = append(upstream, spec)
		return nil
	})
	taskStore := fs.String("task-store", "", "keep the state of tasks in `URL`, which replicas share: mem:// (the default), redis://:PASSWORD@HOST:PORT/DB, postgres://USER:PASSWORD@HOST/DB or sqlite:///FILE (default $HANDS_TASK_STORE)")
	toolSearch := fs.Bool("tool-search", false, "list the --upstream tools only once a call of the search_tools tool finds them; the bundled tools stay listed")
	var upstreamEnvNames []string
	fs.Func("upstream-env", "pass the environment variable `NAME` on to --upstream commands, which get only HOME, PATH, LANG, LC_*, TMPDIR, TZ, TERM, USER, LOGNAME and SHELL otherwise (repeatable)", func(v string) error {
		upstreamEnvNames = append(upstreamEnvNames, v)
		return nil
	})
	if done, err := parse(fs, args, stdout, stderr); done {
		return err
	}
	if fs.NArg() > 0 {
		return &usageError{msg: fmt.Sprintf("serve takes no arguments, got %q", fs.Args())}
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if *stateless && *addr == "" {
		return &usageError{msg: "--stateless needs --http"}
	}
	if *token != "" && *addr == "" {
		return &usageError{msg: "--token needs --http: a server on stdio answers only the process that started it, and takes no token"}
	}
	if *tokensFile != "" && *addr == "" {
		return &usageError{msg: "--tokens needs --http: a server on stdio answers only the process that started it, and takes no token"}
	}
	if *listTTL < 0 {
		return &usageError{msg: fmt.Sprintf("--list-ttl %v is negative: give a duration, or 0 for lists that are stale at once", *listTTL)}
	}

	var ln net.Listener
	publicBase := ""
	if *addr != "" {
		var err error
		ln, err = net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		defer ln.Close()
		publicBase = "http://" + displayAddr(ln.Addr()) + "/files"
	}
	tools, closeEnv, err := bundledTools(ctx, *config, publicBase, usesAll)
	if err != nil {
		return err
	}
	defer closeEnv()
	for _, u := range tools.unavailable {
		fmt.Fprintf(stderr, "hands: %s; it answers every call with this error\n", u)
	}
	for _, n := range tools.notices {
		fmt.Fprintf(stderr, "hands: %s\n", n)
	}
	verify, callers, err := callerTokens(*tokensFile, tools.tokens.Reveal())
	if err != nil {
		return err
	}
	single := cmp.Or(*token, tools.token.Reveal())
	switch {
	case verify != nil && single != "":
		return &usageError{msg: "both a single token (--token, HANDS_TOKEN) and several callers' (--tokens, HANDS_TOKENS) are set: give the single one a NAME=TOKEN line among the others"}
	case verify != nil:
		httpOpts.Verify = verify
	case single != "":
		httpOpts.Verify = mcpserver.StaticToken(single, "owner")
	}
	ttl := cmp.Or(*listTTL, tools.listTTL)
	if ttl < 0 {
		return &usageError{msg: fmt.Sprintf("HANDS_LIST_TTL %v is negative: give a duration, or 0 for lists that are stale at once", ttl)}
	}
	reg, err := tools.registry()
	if err != nil {
		return err
	}
	tools.auth.stderr = stderr
	ups, err := connectUpstreams(ctx, upstream, append(upstreamEnvNames, tools.upstreamEnv...), len(reg.Tools()), *toolSearch, tools.auth, stderr)
	if err != nil {
		return err
	}
	defer ups.close()
	bundledNames := reg.Tools()
	taken := func(name string) bool {
		return slices.ContainsFunc(bundledNames, func(t tool.Interface) bool { return t.Name() == name })
	}
	if reg, err = tool.NewRegistry(append(reg.Scopes(), ups.scopes(taken)...)...); err != nil {
		return err
	}
	if otelexport.EnabledByEnv() { // traces of served calls, off unless an OTLP endpoint is set
		shutdown, err := otelexport.InstallFromEnv(ctx, "hands")
		if err != nil {
			return err
		}
		defer shutdown(context.WithoutCancel(ctx))
		reg.Use(otelhands.Tools(&otelhands.Options{Registry: reg}))
	}
	stateKey, err := decodeStateKey(tools.stateKey.Reveal())
	if err != nil {
		return err
	}
	budget := cmp.Or(*resultBudget, tools.resultBudget)
	if budget != 0 {
		closeStore, err := serveBudget(ctx, reg, budget, stderr)
		if err != nil {
			return err
		}
		defer closeStore()
	}
	srvOpts := &mcpserver.Options{Name: "hands", StateKey: stateKey, ResultBudget: budget, ListTTL: ttl, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	store, closeTasks, err := openTaskStore(ctx, cmp.Or(*taskStore, tools.taskStore.Reveal()))
	if err != nil {
		return err
	}
	defer closeTasks()
	srvOpts.Tasks = mcpserver.TaskOptions{Store: store, Lease: tools.taskLease, MaxTasks: tools.maxTasks, MaxSessionTasks: tools.maxCallerTasks, ResultWait: tools.taskResultWait}
	if *toolSearch {
		srvOpts.ToolSearch = &mcpserver.ToolSearchOptions{}
	}
	srv := mcpserver.New(reg, srvOpts)
	ups.serve(ctx, reg, srv)
	names := strings.Join(reg.EnabledNames(ctx), ", ")

	if ln == nil {
		fmt.Fprintf(stderr, "hands: serving %s over MCP on stdio; stop with Ctrl-C or by closing stdin\n", names)
		err := srv.Run(ctx, &mcpserver.StdioTransport{Reader: stdin, Writer: stdout})
		stopTasks(srv)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	mux := http.NewServeMux()
	httpOpts.Stateless = *stateless
	mux.Handle("/mcp", srv.HTTPHandler(&httpOpts))
	// The files host_file hosts are public URLs, made to be opened by
	// people and pages that hold no token: the token guards the tools.
	mux.Handle("/files/", http.StripPrefix("/files/", tools.files()))
	// The playground: a page for trying the tools, which calls them through /mcp.
	mux.Handle("/", srv.Playground(&mcpserver.PlaygroundOptions{Endpoint: "/mcp", HTTP: &httpOpts}))
	// Requests live in ctx, so that Ctrl-C also ends the long-lived event
	// streams of MCP sessions and Shutdown can finish.
	httpServer := &http.Server{
		Handler:           mcpserver.CheckHost(mux), // every route, as the endpoint checks itself, against DNS rebinding
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute, // no ReadTimeout: it would end event streams; the MCP handler bounds bodies
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	var modes []string
	if *stateless {
		modes = append(modes, "stateless")
	}
	switch {
	case len(callers) > 0:
		modes = append(modes, fmt.Sprintf("bearer tokens of %d callers required: %s", len(callers), strings.Join(callers, ", ")))
	case httpOpts.Verify != nil:
		modes = append(modes, "bearer token required")
	}
	mode := ""
	if len(modes) > 0 {
		mode = " (" + strings.Join(modes, ", ") + ")"
	}
	fmt.Fprintf(stderr, "hands: serving %s over MCP at http://%s/mcp%s, files at %s/, the playground at http://%[2]s/; stop with Ctrl-C\n", names, displayAddr(ln.Addr()), mode, publicBase)
	errc := make(chan error, 1)
	go func() { errc <- httpServer.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// The tasks' grace runs alongside the requests': a new task is
		// refused from now on.
		tasksStopped := make(chan struct{})
		go func() { stopTasks(srv); close(tasksStopped) }()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := httpServer.Shutdown(shutdown)
		if err != nil {
			err = httpServer.Close()
		}
		<-tasksStopped
		return err
	}
}

// taskGrace is how long serve, stopping, waits for the calls of the tasks
// it runs before it fails them.
const taskGrace = 5 * time.Second

// stopTasks ends the tasks srv runs when serve stops: it waits up to
// taskGrace for their calls, then cancels those still running, upstream
// ones included, and fails their tasks, so that the replicas sharing the
// task store report them at once rather than a lease later (the upstreams
// are closed after, which cancels any upstream task still awaited).
func stopTasks(srv *mcpserver.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), taskGrace)
	defer cancel()
	srv.Shutdown(ctx)
}

// displayAddr turns a listening address into one a browser can open: a
// wildcard host becomes localhost.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// printSchema prints the named tools, or all of them, as the provider of
// the dialect takes them in a request, ready to paste, their examples as
// the dialect's ConvertExamples makes them; the problems of the tools go to
// stderr. They are the tools serve serves with the same
// environment and --config, upstreams aside. It opens no bucket or
// database and creates no file. It fails when the provider would reject a
// tool.
func printSchema(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("schema", "schema [--dialect D] [TOOL…]", stdout, stderr)
	name := fs.String("dialect", "mcp", "write the tools for `D`; \"list\" names the dialects")
	config := fs.String("config", "", "read the settings the tools depend on (HANDS_SQL, HANDS_SQL_WRITE) from the JSON object in `FILE`, as serve does")
	names, done, err := parseInterspersed(fs, args, stdout, stderr)
	if done {
		return err
	}
	if *name == "list" {
		for _, name := range dialectNames() {
			fmt.Fprintln(stdout, name)
		}
		return nil
	}
	d, ok := dialect.Named(*name)
	if !ok {
		return &usageError{msg: "unknown dialect " + *name + "; the dialects are " + strings.Join(dialectNames(), ", ")}
	}
	tools, err := specTools(ctx, *config)
	if err != nil {
		return err
	}
	var specs, all []tool.Spec
	for _, t := range tools {
		spec := t.Spec()
		all = append(all, spec)
		if len(names) == 0 || slices.Contains(names, spec.Name) {
			specs = append(specs, spec)
		}
	}
	for _, name := range names {
		if !slices.ContainsFunc(specs, func(s tool.Spec) bool { return s.Name == name }) {
			var names []string
			for _, s := range all {
				names = append(names, s.Name)
			}
			return &usageError{msg: fmt.Sprintf("no tool named %q; the tools are %s", name, strings.Join(names, ", "))}
		}
	}
	list, problems := declarations(specs, d)
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", data); err != nil {
		return err
	}
	errs := 0
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
		if p.Severity == dialect.SeverityError {
			errs++
		}
	}
	if errs > 0 {
		return fmt.Errorf("%s would refuse the tools: %d errors", d.Name, errs)
	}
	return nil
}

// callTool runs one tool on JSON arguments.
func callTool(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("call", "call TOOL 'JSON'", stdout, stderr)
	config := fs.String("config", "", "read bindings from the JSON object in `FILE`")
	if done, err := parse(fs, args, stdout, stderr); done {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.SetOutput(stderr)
		fs.Usage()
		return &usageError{msg: "call needs a tool name and, optionally, its JSON arguments"}
	}
	name, input := fs.Arg(0), "{}"
	if fs.NArg() == 2 {
		input = fs.Arg(1)
	}
	tools, closeEnv, err := bundledTools(ctx, *config, "", name)
	if err != nil {
		return err
	}
	defer closeEnv()
	reg, err := tools.registry()
	if err != nil {
		return err
	}
	res := tool.Drain(ctx, reg, tool.Call{ID: "cli", Name: name, Args: json.RawMessage(input)}, func(v any) bool {
		fmt.Fprintf(stderr, "progress: %v\n", v)
		return true
	})
	if !res.IsError {
		_, err := fmt.Fprintln(stdout, res.Content)
		return err
	}
	if verr, ok := errors.AsType[*tool.ValidationError](res.Err); ok {
		fmt.Fprintf(stderr, "hands: invalid arguments for %s:\n", verr.Tool)
		for _, is := range verr.Issues {
			fmt.Fprintf(stderr, "  %s\n", is)
		}
		return errReported
	}
	var uerr *tool.UnknownToolError
	if errors.As(res.Err, &uerr) {
		return &usageError{msg: res.Content}
	}
	return res.Err
}

// decodeStateKey decodes HANDS_STATE_KEY: the base64 of
// mcpserver.StateKeyBytes bytes, or nothing for a random key per process.
func decodeStateKey(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	s = strings.TrimSpace(s)
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		key, err = base64.RawURLEncoding.DecodeString(s)
	}
	if err != nil || len(key) != mcpserver.StateKeyBytes {
		return nil, fmt.Errorf("HANDS_STATE_KEY: want the base64 of %d random bytes (openssl rand -base64 %d)", mcpserver.StateKeyBytes, mcpserver.StateKeyBytes)
	}
	return key, nil
}
