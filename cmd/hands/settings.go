package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/sqlitekv"
	"github.com/hands-go/hands/toolbox/files"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// A setting is one thing the environment may set for a command. The list
// is printed by --help and is the README's table, which a test keeps in
// step with it.
type setting struct {
	env      string // the environment variable (or config file key)
	flag     string // the flag that sets it too, if any
	def      string // the default, as a person reads it
	commands string // the commands it applies to
	what     string // what it does
}

// settings are every setting of the command, flags aside.
var settings = []setting{
	{env: "HANDS_BUCKET", def: "hands/files in the user's data directory, such as ~/.local/share/hands/files", commands: "serve, call",
		what: "where host_file writes: file://DIR, mem:// or s3://BUCKET (add ?endpoint= for S3-compatible stores)"},
	{env: "HANDS_PUBLIC_URL", def: "/files/ of --http, else the bucket's file:// URL", commands: "serve, call",
		what: "the public base URL of the bucket's files, which host_file returns"},
	{env: "HANDS_MAX_FILE_BYTES", def: strconv.Itoa(files.DefaultHostMaxBytes), commands: "serve, call",
		what: "the largest file host_file accepts, in bytes"},
	{env: "HANDS_FETCH_ALLOW_PRIVATE", def: "false", commands: "serve, call",
		what: "let the tools that reach the network (fetch_markdown, the browser tools) reach loopback, private and link-local addresses"},
	{env: "HANDS_NET_ALLOW", def: "none", commands: "serve, call",
		what: "exact endpoints, host:port comma-separated (10.0.0.5:8080,search.internal:443), that the tools reaching the network may reach although they are not public addresses, while every other private address stays refused"},
	{env: "HANDS_KV", def: "hands/kv.db in the user's data directory, beside the bucket's folder", commands: "serve, call",
		what: "the key-value store of kv_get, kv_put, kv_delete and kv_list: sqlite:///FILE, mem:// or redis://:PASSWORD@HOST:PORT/DB"},
	{env: "HANDS_SQL", def: "none: no SQL tools", commands: "serve, call",
		what: "the database of sql_query and sql_schema: sqlite:///FILE, which must exist unless HANDS_SQL_WRITE=true (it is opened read-only), or postgres://USER:PASSWORD@HOST/DB; a PostgreSQL role that may run programs or read the server's files (a superuser, say) is refused unless the URL adds allow_superuser=true: bind one that may read only what the model may"},
	{env: "HANDS_SQL_WRITE", def: "false", commands: "serve, call",
		what: "let sql_query change data and the schema; it is then annotated as destructive"},
	{env: "HANDS_SERVICES", def: "none: no service tools", commands: "serve, call",
		what: "the HTTP APIs of call_service and describe_service, comma-separated NAME=BASE_URL|DOCUMENT[|header=HEADER:ENV_VAR][|read-only], DOCUMENT the URL or file of the API's OpenAPI 3 or Swagger 2.0 document in JSON; only BASE_URL is reached (trusted by the address guard), a header's value is read from ENV_VAR and never shown, and read-only offers the GET and HEAD operations alone"},
	{env: "HANDS_SEARCH", def: "none: no web_search", commands: "serve, call",
		what: "the search API of web_search: brave:// (key in BRAVE_API_KEY), tavily:// (key in TAVILY_API_KEY) or searxng://HOST (add ?tls=false for http); ?key_env=NAME reads the key from another variable, ?endpoint=URL sends the requests elsewhere; a key in the URL is refused"},
	{env: "HANDS_IMAGE", def: "none: no image_generate", commands: "serve, call",
		what: "the image API of image_generate: openai://MODEL (OpenAI's Images API, such as openai://gpt-image-1; key in OPENAI_API_KEY) or gemini://MODEL (such as gemini://gemini-2.5-flash-image; key in GEMINI_API_KEY); ?key_env=NAME reads the key from another variable, ?endpoint=URL sends the requests elsewhere; a key in the URL is refused. serve stores each image in HANDS_BUCKET and returns its URL beside it"},
	{env: "HANDS_IMAGE_MAX_COUNT", def: "1", commands: "serve, call",
		what: "the most images one image_generate call makes, at most 4; each is at most 8 MiB"},
	{env: "HANDS_SMTP", def: "none: no send_email", commands: "serve, call",
		what: "the SMTP server of send_email: smtp://USER:PASSWORD@HOST:587 (STARTTLS required) or smtps://USER:PASSWORD@HOST:465 (TLS); ?tls=none sends in plain text, with a password only to a loopback address. send_email attaches the bucket's files by key and is annotated as destructive"},
	{env: "HANDS_EMAIL_FROM", def: "HANDS_SMTP's user, if it is an address", commands: "serve, call",
		what: "the sender of send_email's messages, such as Bot <bot@example.com>; the model never chooses it"},
	{env: "HANDS_EMAIL_ALLOW", def: "none: any recipient", commands: "serve, call",
		what: "the only recipients send_email may send to, comma-separated: addresses (ada@example.com) and domains (@example.com, not its subdomains)"},
	{env: "HANDS_IMAP", def: "none: no email_list, email_read", commands: "serve, call",
		what: "the IMAP server and folder of email_list and email_read: imaps://USER:PASSWORD@HOST:993/FOLDER (TLS; INBOX if no folder) or imap://… (STARTTLS required); ?tls=none as for HANDS_SMTP. They mark nothing as read unless a call asks"},
	{env: "HANDS_EMAIL_CA", def: "the system's certificate authorities", commands: "serve, call",
		what: "a PEM file of certificate authorities that the email servers' certificates may also be signed by, besides the system's"},
	{env: "HANDS_BROWSER", def: "none: no browser tools", commands: "serve, call",
		what: "the browser of browse, screenshot and browser_execute: chromium (the system Chromium, found on PATH), the absolute path of a Chromium or Chrome executable, or the ws:// DevTools URL of a running browser on this host's network; each caller gets a browser context of its own, and every request of its pages goes through the address guard"},
	{env: "HANDS_BROWSER_SCRIPT", def: "false", commands: "serve, call",
		what: "let browser_execute run JavaScript steps the model writes; it is then annotated as destructive"},
	{env: "HANDS_TOKEN", flag: "token", def: "none", commands: "serve --http",
		what: "require this bearer token on /mcp and the playground's tools.json; the files at /files/ stay public URLs"},
	{env: "HANDS_TOKENS", flag: "tokens", def: "none", commands: "serve --http",
		what: "several callers, each with a bearer token of its own: NAME=TOKEN pairs, comma-separated (--tokens names a file of them, one a line); each is a caller apart, with its own cut results, request states and enabled tools; not with HANDS_TOKEN"},
	{env: "HANDS_UPSTREAM_ENV", flag: "upstream-env", def: "none", commands: "serve, diff",
		what: "comma-separated names of environment variables passed on to --upstream commands (and to the command hands diff runs), which otherwise get only HOME, PATH, LANG, LC_*, TMPDIR, TZ, TERM, USER, LOGNAME and SHELL"},
	{env: "HANDS_RESULT_BUDGET", flag: "result-budget", def: "0: results are not cut", commands: "serve",
		what: "the most bytes of a tool's result each caller reads, for tools without a budget of their own; the rest is kept for an hour in hands/results.db in the user's data directory (in memory where there is none), bound to the caller, and read_result pages through it"},
	{env: "HANDS_TASK_STORE", flag: "task-store", def: "mem://: the process's memory", commands: "serve",
		what: "where the state of tasks is kept, so that replicas behind one endpoint answer for each other's tasks: mem://, redis://:PASSWORD@HOST:PORT/DB, postgres://USER:PASSWORD@HOST/DB or sqlite:///FILE (tables are created); replicas share HANDS_STATE_KEY too"},
	{env: "HANDS_TASK_LEASE", def: "30s", commands: "serve",
		what: "how long a task's call may go without its replica renewing its lease (at a third of it): the tasks of a replica that was killed read as failed that long after (one stopped with Ctrl-C or SIGTERM waits 5s for their calls, then fails them at once)"},
	{env: "HANDS_MAX_TASKS", def: "1024", commands: "serve",
		what: "how many tasks the store holds over all callers, and how many task calls one replica runs at once"},
	{env: "HANDS_MAX_CALLER_TASKS", def: "32", commands: "serve",
		what: "how many tasks one caller (a token's user, else a session) holds at once, running or finished and not yet expired"},
	{env: "HANDS_LIST_TTL", flag: "list-ttl", def: "0: lists are stale at once", commands: "serve",
		what: "how long clients may keep a tools/list result before listing again (its ttlMs; a change is still announced at once); a list that depends on the caller is marked private, for that caller's cache alone"},
	{env: "HANDS_TASK_RESULT_WAIT", def: "250ms", commands: "serve",
		what: "how long a call of a tool that may run as a task runs before it becomes one, for a client of the 2026-07-28 tasks extension: a call that ends sooner is answered plainly; a negative duration makes a task of every such call at once"},
	{env: "HANDS_STATE_KEY", def: "a random key per process", commands: "serve",
		what: "the base64 of 32 random bytes that seals the request state of multi round-trip calls and the IDs of tasks (and the task calls a task runner carries); replicas behind one endpoint share it"},
	{env: "HANDS_OAUTH_CLIENT_ID", def: "dynamic registration", commands: "serve --upstream",
		what: "the client ID registered in advance with the authorization server of --upstream URLs that ask for OAuth"},
	{env: "HANDS_OAUTH_ISSUER", def: "none; required with HANDS_OAUTH_CLIENT_ID", commands: "serve --upstream",
		what: "the issuer of the authorization server that client is registered with, such as https://auth.example.com: its ID and secret go to that server alone, and an upstream whose authorization server is another is refused"},
	{env: "HANDS_OAUTH_CLIENT_SECRET", def: "none", commands: "serve --upstream",
		what: "that client's secret"},
	{env: "HANDS_OAUTH_GRANT", def: grantAuthorizationCode, commands: "serve --upstream",
		what: "authorization_code: a person signs in once in the browser; client_credentials: no one does (needs the client ID and secret)"},
	{env: "GOGC", def: "400", commands: "serve",
		what: "the Go collector's target: the heap may grow by this percentage over the live heap before a collection (serve's live heap is a few MB; 100 collects more often and costs calls CPU)"},
	{env: "OTEL_EXPORTER_OTLP_ENDPOINT", def: "off", commands: "serve",
		what: "export a span of every served call over OTLP/HTTP; the other OTEL_* variables apply"},
}

// printSettings writes the settings that apply to command as the
// Environment section of its help.
func printSettings(w io.Writer, command string) {
	var rows []setting
	for _, s := range settings {
		for _, c := range strings.Split(s.commands, ", ") {
			if strings.Fields(c)[0] == command {
				rows = append(rows, s)
				break
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nEnvironment (also read from --config FILE, a JSON object, for the HANDS_ names):")
	for _, s := range rows {
		fmt.Fprintf(w, "  %s\n    \t%s (default: %s)\n", s.env, s.what, s.def)
	}
}

// printFlags writes a flag set's flags as --name, the one spelling the
// command, its documentation and its messages use.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		line += "\n    \t" + usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			line += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

// dataDir returns the directory of the default bucket and store (see
// openDataDir for its layout): "hands" in the
// user's data directory — $XDG_DATA_HOME, or ~/.local/share, on Linux and
// the BSDs; ~/Library/Application Support on macOS; %LocalAppData% on
// Windows; $home/lib on Plan 9. It is where the files of a user's programs
// live whatever directory a program is started in (desktop clients often
// start servers in /).
func dataDir() (string, error) {
	var base string
	switch runtime.GOOS {
	case "windows":
		base = os.Getenv("LocalAppData")
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, "Library", "Application Support")
	case "plan9":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, "lib")
	default:
		if xdg := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(xdg) { // the spec says to ignore a relative one
			base = xdg
		} else {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".local", "share")
		}
	}
	if base == "" {
		return "", errors.New("the user's data directory is not known")
	}
	return filepath.Join(base, "hands"), nil
}

// openDefaultKV opens the default key-value store, kv.db in the user's
// data directory (beside the bucket's folder, never in it), creating it:
// it is called only by the commands that may write to it.
func openDefaultKV(ctx context.Context) (*kv.Store, error) {
	return openDataStore(ctx, kvFile, "the default key-value store", "HANDS_KV")
}

// openResultStore opens the store of the results that a budget cut,
// results.db in the user's data directory: a store of its own, so that
// the kv tools, which list and read the default key-value store, never
// show one caller's results to another, and out of the bucket's folder,
// whose files are public.
func openResultStore(ctx context.Context) (*kv.Store, error) {
	return openDataStore(ctx, resultsFile, "the store of cut results", "HANDS_RESULT_BUDGET=0 to cut nothing")
}

// openDataStore opens the SQLite key-value store file in the user's data
// directory, creating it, the user's alone; what and setting name it in
// errors.
func openDataStore(ctx context.Context, file, what, setting string) (*kv.Store, error) {
	dir, err := dataDir()
	if err != nil {
		return nil, fmt.Errorf("no %s (%v): set %s", what, err, setting)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create %s: %v; set %s", what, err, setting)
	}
	// The store is the user's alone, as its directory is: made with mode
	// 0600 before SQLite opens it, and its WAL files, which SQLite makes
	// with mode 0644 as it opens the store, put to the same mode (the
	// directory's mode, 0700, guards any it makes again later).
	path := filepath.Join(dir, file)
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	s, err := sqlitekv.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %v; set %s", what, err, setting)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Chmod(p, 0o600)
	}
	return kv.New(s, nil), nil
}

// openDefaultBucket opens the default bucket, the folder files in the
// user's data directory, laying the directory out (openDataDir): it is
// called only by the commands that may write to it.
func openDefaultBucket() (*blob.Bucket, string, error) {
	dir, err := dataDir()
	if err != nil {
		return nil, "", fmt.Errorf("no default bucket (%v): set HANDS_BUCKET", err)
	}
	if dir, err = openDataDir(); err != nil {
		return nil, "", fmt.Errorf("cannot create the default bucket: %v; set HANDS_BUCKET to a bucket this user can write", err)
	}
	dir = filepath.Join(dir, bucketFolder)
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true}) // temporary files beside their keys, not in $TMPDIR
	if err != nil {
		return nil, "", fmt.Errorf("open the default bucket: %v; set HANDS_BUCKET", err)
	}
	return b, "file://" + filepath.ToSlash(dir), nil
}
