package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/memkv"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/sqldb/sqlitedb"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"github.com/hands-go/hands/toolbox/browser"
	"github.com/hands-go/hands/toolbox/files"
	"github.com/hands-go/hands/toolbox/image"
	"github.com/hands-go/hands/toolbox/kvtool"
	"github.com/hands-go/hands/toolbox/netguard"
	"github.com/hands-go/hands/toolbox/search"
	"github.com/hands-go/hands/toolbox/service"
	"github.com/hands-go/hands/toolbox/sqltool"
	"github.com/hands-go/hands/toolbox/web"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// env is what the bundled tools are bound to.
type env struct {
	Bucket         *blob.Bucket  `bind:"HANDS_BUCKET,optional"` // nil: the default bucket
	PublicURL      string        `bind:"HANDS_PUBLIC_URL,optional"`
	MaxFileBytes   int           `bind:"HANDS_MAX_FILE_BYTES,optional"`
	FetchPrivate   bool          `bind:"HANDS_FETCH_ALLOW_PRIVATE,default=false"`
	NetAllow       string        `bind:"HANDS_NET_ALLOW,optional"`  // host:port, comma-separated
	TaskStore      bind.Secret   `bind:"HANDS_TASK_STORE,optional"` // serve's task store URL, which may hold a password
	TaskLease      time.Duration `bind:"HANDS_TASK_LEASE,optional"`
	MaxTasks       int           `bind:"HANDS_MAX_TASKS,optional"`
	MaxCallerTasks int           `bind:"HANDS_MAX_CALLER_TASKS,optional"`
	TaskResultWait time.Duration `bind:"HANDS_TASK_RESULT_WAIT,optional"`
	Token          bind.Secret   `bind:"HANDS_TOKEN,optional"`  // serve --http's bearer token
	Tokens         bind.Secret   `bind:"HANDS_TOKENS,optional"` // serve --http's callers: NAME=TOKEN, comma-separated
	SQL            *url.URL      `bind:"HANDS_SQL,optional"`    // nil: no SQL tools; opened by openSQL
	SQLWrite       bool          `bind:"HANDS_SQL_WRITE,default=false"`
	KV             *kv.Store     `bind:"HANDS_KV,optional"`            // nil: the default store
	UpstreamEnv    string        `bind:"HANDS_UPSTREAM_ENV,optional"`  // names, comma-separated
	StateKey       bind.Secret   `bind:"HANDS_STATE_KEY,optional"`     // serve's request-state key, base64
	ResultBudget   int           `bind:"HANDS_RESULT_BUDGET,optional"` // serve's budget of a result, in bytes
	ListTTL        time.Duration `bind:"HANDS_LIST_TTL,optional"`      // serve's ttlMs of tools/list
	Services       string        `bind:"HANDS_SERVICES,optional"`      // NAME=BASE|DOCUMENT[|option…], comma-separated
	Search         string        `bind:"HANDS_SEARCH,optional"`        // "": no web_search; opened by search.Open
	Image          string        `bind:"HANDS_IMAGE,optional"`         // "": no image_generate; opened by image.Open
	ImageMaxCount  int           `bind:"HANDS_IMAGE_MAX_COUNT,optional"`

	// The email tools' servers and settings (emailTools).
	SMTP          bind.Secret `bind:"HANDS_SMTP,optional"`
	IMAP          bind.Secret `bind:"HANDS_IMAP,optional"`
	EmailFrom     string      `bind:"HANDS_EMAIL_FROM,optional"`
	EmailAllow    string      `bind:"HANDS_EMAIL_ALLOW,optional"`
	EmailCA       string      `bind:"HANDS_EMAIL_CA,optional"`
	Browser       string      `bind:"HANDS_BROWSER,optional"` // "": no browser tools; chromium, a path, or ws://
	BrowserScript bool        `bind:"HANDS_BROWSER_SCRIPT,default=false"`

	// How serve signs in to upstreams that ask for OAuth (upstreamAuth).
	OAuthClientID     string      `bind:"HANDS_OAUTH_CLIENT_ID,optional"`
	OAuthIssuer       string      `bind:"HANDS_OAUTH_ISSUER,optional"`
	OAuthClientSecret bind.Secret `bind:"HANDS_OAUTH_CLIENT_SECRET,optional"`
	OAuthGrant        string      `bind:"HANDS_OAUTH_GRANT,default=authorization_code"`
}

// bundle is the bundled tools and the bucket they write to.
type bundle struct {
	token    bind.Secret // HANDS_TOKEN, from the environment or the config file
	tokens   bind.Secret // HANDS_TOKENS, likewise
	auth     *upstreamAuth
	stateKey bind.Secret // HANDS_STATE_KEY, likewise
	// resultBudget is serve's budget of a result (HANDS_RESULT_BUDGET).
	resultBudget int
	// listTTL is how long serve's clients may keep a tools/list result
	// (HANDS_LIST_TTL).
	listTTL time.Duration
	// upstreamEnv names the variables passed on to upstream commands
	// (HANDS_UPSTREAM_ENV), besides those of --upstream-env.
	upstreamEnv []string
	bucket      *blob.Bucket
	// guard is the address guard of every bundled tool that reaches the
	// network (HANDS_FETCH_ALLOW_PRIVATE, HANDS_NET_ALLOW); a tool bound
	// to a backend the operator configured trusts that backend's address
	// through guard.Trust.
	guard *netguard.Guard
	// taskStore, taskLease, maxTasks and maxCallerTasks configure serve's
	// tasks (HANDS_TASK_STORE, HANDS_TASK_LEASE, HANDS_MAX_TASKS,
	// HANDS_MAX_CALLER_TASKS); zero values select mcpserver's defaults.
	taskStore      bind.Secret
	taskLease      time.Duration
	maxTasks       int
	maxCallerTasks int
	taskResultWait time.Duration
	hostFile       tool.Interface
	fetch          tool.Interface
	kv             []tool.Interface // kv_get, kv_put, kv_delete, kv_list
	sql            []tool.Interface // sql_query and sql_schema, when HANDS_SQL is set
	services       []tool.Interface // call_service and describe_service, when HANDS_SERVICES is set
	web            []tool.Interface // web_search, when HANDS_SEARCH is set
	image          []tool.Interface // image_generate, when HANDS_IMAGE is set
	email          []tool.Interface // send_email (HANDS_SMTP), email_list and email_read (HANDS_IMAP)
	browser        []tool.Interface // browse, screenshot, browser_execute, when HANDS_BROWSER is set
	// unavailable says, for serve, which tools answer every call with an
	// error because their default store could not be opened.
	unavailable []string
	// notices says, for serve, what else an operator should know: a
	// service whose document did not load (its calls try again).
	notices []string
}

func (b *bundle) list() []tool.Interface {
	return slices.Concat([]tool.Interface{b.hostFile, b.fetch}, b.kv, b.sql, b.services, b.web, b.image, b.email, b.browser)
}

// registry returns a registry of the bundled tools, in one scope.
func (b *bundle) registry() (*tool.Registry, error) {
	return tool.NewRegistry(&tool.Scope{Name: "bundled", Tools: b.list()})
}

func (b *bundle) names() []string {
	var names []string
	for _, t := range b.list() {
		names = append(names, t.Spec().Name)
	}
	return names
}

// The tools that use a default store or bucket, for bundledTools' uses.
const (
	usesAll    = "" // serve: every tool
	usesBucket = "host_file"
	usesAttach = "send_email" // reads the bucket's files as attachments
)

// bundledTools loads the environment and builds the tools. publicBase is the
// base URL of the files when this process serves them; the environment's
// HANDS_PUBLIC_URL wins over it.
// The default bucket and the default key-value store are opened, and their
// directory created, only for uses: usesAll, the name of host_file, or a
// kv_ tool's; a command that will call another tool creates nothing.
// For usesAll (serve), a default store that cannot be opened fails only
// the tools that need it: they are listed, and answer every call with the
// reason (bundle.unavailable names them), so that the other tools are
// served.
func bundledTools(ctx context.Context, configFile, publicBase, uses string) (*bundle, func(), error) {
	var e env
	if err := bind.Load(ctx, &e, &bind.Options{ConfigFile: configFile}); err != nil {
		return nil, nil, err
	}
	var db *sql.DB          // HANDS_SQL's
	var br *browser.Browser // HANDS_BROWSER's
	closeEnv := func() {
		bind.Close(&e)
		if db != nil {
			db.Close()
		}
		if br != nil {
			br.Close()
		}
	}
	if e.SQL != nil {
		var err error
		if db, err = openSQL(ctx, e.SQL, e.SQLWrite); err != nil {
			closeEnv()
			return nil, nil, fmt.Errorf("HANDS_SQL: %w", err)
		}
	}
	writes := uses == usesAll || uses == usesBucket || uses == usesAttach
	var kvErr, bucketErr error
	if e.KV == nil && (uses == usesAll || strings.HasPrefix(uses, "kv_")) {
		store, err := openDefaultKV(ctx)
		switch {
		case err != nil && uses == usesAll:
			kvErr = err
		case err != nil:
			closeEnv()
			return nil, nil, err
		default:
			e.KV = store
		}
	}
	if e.KV == nil {
		e.KV = kv.New(memkv.New(), nil) // never written: no kv_ tool is called
	}
	public := cmp.Or(e.PublicURL, publicBase)
	if e.Bucket == nil && !writes {
		e.Bucket, public = memblob.OpenBucket(nil), cmp.Or(public, "https://files.invalid") // never written: host_file is not called
	}
	if e.Bucket == nil {
		bucket, url, err := openDefaultBucket()
		switch {
		case err != nil && uses == usesAll:
			bucketErr = err
			e.Bucket, public = memblob.OpenBucket(nil), cmp.Or(public, "https://files.invalid") // never written: host_file answers with bucketErr
		case err != nil:
			closeEnv()
			return nil, nil, err
		default:
			e.Bucket = bucket
			public = cmp.Or(public, url)
		}
	}
	if writes && bucketErr == nil {
		// The bucket's files are public and host_file writes them: none of
		// hands' own files may be among them.
		if err := checkApart(ctx, e.Bucket, privateFiles(ctx, configFile, e.KV, db)); err != nil {
			closeEnv()
			return nil, nil, err
		}
	}
	if public == "" {
		closeEnv()
		return nil, nil, errors.New("set HANDS_PUBLIC_URL to the public base URL of the files in HANDS_BUCKET")
	}
	if e.OAuthClientID != "" && e.OAuthIssuer == "" {
		closeEnv()
		return nil, nil, errors.New("HANDS_OAUTH_CLIENT_ID needs HANDS_OAUTH_ISSUER, the issuer of the authorization server the client is registered with (such as https://auth.example.com): the client's ID and secret are sent to that server alone")
	}
	if e.OAuthGrant != grantAuthorizationCode && e.OAuthGrant != grantClientCredentials {
		closeEnv()
		return nil, nil, fmt.Errorf("HANDS_OAUTH_GRANT is %q; it is %s or %s", e.OAuthGrant, grantAuthorizationCode, grantClientCredentials)
	}
	allow, err := netguard.ParseList(e.NetAllow)
	if err != nil {
		closeEnv()
		return nil, nil, fmt.Errorf("HANDS_NET_ALLOW: %w", err)
	}
	guard, err := netguard.New(netguard.Options{AllowPrivate: e.FetchPrivate, Allow: allow, Setting: "HANDS_NET_ALLOW=HOST:PORT (or HANDS_FETCH_ALLOW_PRIVATE=true)"})
	if err != nil {
		closeEnv()
		return nil, nil, fmt.Errorf("HANDS_NET_ALLOW: %w", err)
	}
	b := &bundle{
		guard:          guard,
		taskStore:      e.TaskStore,
		taskLease:      e.TaskLease,
		maxTasks:       e.MaxTasks,
		maxCallerTasks: e.MaxCallerTasks,
		taskResultWait: e.TaskResultWait,
		token:          e.Token,
		tokens:         e.Tokens,
		listTTL:        e.ListTTL,
		auth:           &upstreamAuth{clientID: e.OAuthClientID, issuer: e.OAuthIssuer, clientSecret: e.OAuthClientSecret, grant: e.OAuthGrant},
		stateKey:       e.StateKey,
		resultBudget:   e.ResultBudget,
		bucket:         e.Bucket,
		upstreamEnv:    strings.FieldsFunc(e.UpstreamEnv, func(r rune) bool { return r == ',' || r == ' ' }),
		hostFile:       files.HostFile(e.Bucket, public, &files.HostOptions{MaxBytes: e.MaxFileBytes, MaxBytesSetting: "HANDS_MAX_FILE_BYTES"}),
		fetch:          web.FetchMarkdown(&web.FetchOptions{AllowPrivate: e.FetchPrivate, Allow: allow, AllowPrivateSetting: "HANDS_NET_ALLOW=HOST:PORT (or HANDS_FETCH_ALLOW_PRIVATE=true)"}),
		kv:             kvtool.Tools(e.KV),
	}
	if b.web, err = webTools(e.Search, guard); err != nil {
		closeEnv()
		return nil, nil, err
	}
	var host toolbox.HostFunc // nil: what the tools make is not hosted
	if writes && bucketErr == nil {
		// Screenshots and images are hosted beside host_file's files, by
		// the same safe write (serve; a call of one tool hosts none).
		host = files.Hoster(e.Bucket, public, nil)
	}
	if b.image, err = imageTools(e.Image, e.ImageMaxCount, guard, host, nil); err != nil {
		closeEnv()
		return nil, nil, err
	}
	if e.Browser != "" {
		opts, err := browserOptions(e.Browser, e.BrowserScript)
		if err == nil {
			opts.Guard, opts.Caller, opts.Host = guard, callerID, host
			br, err = browser.New(opts)
		}
		if err != nil {
			closeEnv()
			return nil, nil, fmt.Errorf("HANDS_BROWSER: %w", err)
		}
		b.browser = []tool.Interface{br.Browse(), br.Screenshot(), br.Execute()}
	}
	if bucketErr != nil {
		b.hostFile = unavailable{b.hostFile, bucketErr}
		b.unavailable = append(b.unavailable, fmt.Sprintf("%s: %v", b.hostFile.Name(), bucketErr))
	}
	if kvErr != nil {
		for i, t := range b.kv {
			b.kv[i] = unavailable{t, kvErr}
			b.unavailable = append(b.unavailable, fmt.Sprintf("%s: %v", t.Name(), kvErr))
		}
	}
	if e.Services != "" {
		svcs, err := openServices(e.Services, guard, nil)
		if err != nil {
			closeEnv()
			return nil, nil, err
		}
		if uses == usesAll {
			for _, err := range unjoin(svcs.Load(ctx)) {
				b.notices = append(b.notices, fmt.Sprintf("HANDS_SERVICES: %v; its calls try to load it again", err))
			}
		}
		b.services = svcs.Tools()
	}
	var attachFrom *blob.Bucket // nil: no file store to attach from
	if bucketErr == nil {
		attachFrom = e.Bucket
	}
	b.email, err = emailTools(emailEnv{SMTP: e.SMTP.Reveal(), IMAP: e.IMAP.Reveal(), From: e.EmailFrom, Allow: e.EmailAllow, CA: e.EmailCA}, attachFrom, guard)
	if err != nil {
		closeEnv()
		return nil, nil, err
	}
	if db != nil {
		b.sql = []tool.Interface{
			sqltool.Query(db, &sqltool.Options{Write: e.SQLWrite, WriteSetting: "HANDS_SQL_WRITE=true"}),
			sqltool.Schema(db, ""),
		}
	}
	return b, closeEnv, nil
}

// openServices reads HANDS_SERVICES' list of services and makes them, each
// reached through guard with its base URL trusted. lookup reads the
// credentials' variables (nil: the environment).
func openServices(list string, guard *netguard.Guard, lookup func(string) (string, bool)) (*service.Services, error) {
	configs, err := service.Parse(list)
	if err != nil {
		return nil, fmt.Errorf("HANDS_SERVICES: %w", err)
	}
	svcs, err := service.New(configs, &service.Options{Guard: guard, LookupEnv: lookup})
	if err != nil {
		return nil, fmt.Errorf("HANDS_SERVICES: %w", err)
	}
	return svcs, nil
}

// unjoin returns the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// webTools returns web_search when HANDS_SEARCH names a backend, dialing
// through guard, which it makes trust the backend's endpoint. The key comes
// from the backend's own variable (BRAVE_API_KEY, TAVILY_API_KEY, or the
// one key_env names), never from the URL.
func webTools(searchURL string, guard *netguard.Guard) ([]tool.Interface, error) {
	if searchURL == "" {
		return nil, nil
	}
	b, err := search.Open(searchURL, nil)
	if err != nil {
		return nil, fmt.Errorf("HANDS_SEARCH: %w", err)
	}
	return []tool.Interface{search.WebSearch(b, &search.Options{Guard: guard})}, nil
}

// imageTools returns image_generate when HANDS_IMAGE names a backend
// (openai://MODEL or gemini://MODEL), making at most maxCount images a
// call (HANDS_IMAGE_MAX_COUNT; 0 is the package's default, 1) and dialing
// through guard, which it makes trust the backend's endpoint. With host,
// each image is also stored in the bucket and its URL returned. The key
// comes from the backend's own variable (OPENAI_API_KEY, GEMINI_API_KEY,
// or the one key_env names), looked up with getenv (nil: the environment),
// never from the URL.
func imageTools(imageURL string, maxCount int, guard *netguard.Guard, host toolbox.HostFunc, getenv func(string) string) ([]tool.Interface, error) {
	if imageURL == "" {
		return nil, nil
	}
	if maxCount < 0 || maxCount > image.MaxCountLimit {
		return nil, fmt.Errorf("HANDS_IMAGE_MAX_COUNT is %d; it is from 1 to %d", maxCount, image.MaxCountLimit)
	}
	b, err := image.Open(imageURL, getenv)
	if err != nil {
		return nil, fmt.Errorf("HANDS_IMAGE: %w", err)
	}
	return []tool.Interface{image.Generate(b, &image.Options{MaxCount: maxCount, Host: host, Guard: guard})}, nil
}

// browserOptions reads HANDS_BROWSER: chromium (the system Chromium,
// found on PATH), the path of a Chromium or Chrome executable, or the
// ws:// or wss:// DevTools URL of a running browser.
func browserOptions(s string, script bool) (*browser.Options, error) {
	opts := &browser.Options{Script: script, ScriptSetting: "HANDS_BROWSER_SCRIPT=true"}
	switch {
	case s == "chromium":
	case strings.HasPrefix(s, "ws://"), strings.HasPrefix(s, "wss://"):
		opts.RemoteURL = s
	case filepath.IsAbs(s):
		opts.ExecPath = s
	default:
		return nil, fmt.Errorf("%q is neither chromium (the system Chromium), the absolute path of a Chromium executable, nor a ws:// DevTools URL", s)
	}
	return opts, nil
}

// callerID names the caller of a served call for the browser tools, which
// give each caller a browser context of its own: the user of a verified
// token, else the MCP session. A call with neither gets a context of its
// own.
func callerID(ctx context.Context) string {
	c, ok := mcpserver.CallerFrom(ctx)
	switch {
	case !ok:
		return ""
	case c.Token != nil && c.Token.UserID != "":
		return "user " + c.Token.UserID
	case c.Session != nil:
		return fmt.Sprintf("session %p", c.Session)
	}
	return ""
}

// openSQL opens HANDS_SQL's database. Unless writes are allowed, a SQLite
// file is opened read-only (mode=ro), so that a mistyped path is an error
// naming it rather than a new, empty database.
func openSQL(ctx context.Context, u *url.URL, write bool) (*sql.DB, error) {
	if u.Scheme == sqlitedb.Scheme && !write && !u.Query().Has("mode") {
		ro := *u
		q := ro.Query()
		q.Set("mode", "ro")
		ro.RawQuery = q.Encode()
		u = &ro
	}
	return sqldb.Open(ctx, u.String())
}

// An unavailable tool is listed as the tool it wraps, and answers every
// call with err: why the store it needs could not be opened.
type unavailable struct {
	tool.Interface
	err error
}

// Stream yields the error result, whatever the arguments.
func (u unavailable) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	return func(yield func(tool.Event) bool) {
		res := tool.ErrorResult(call, u.err)
		yield(tool.Event{Result: &res})
	}
}

// files serves the bucket's objects read-only, with their content types.
func (b *bundle) files() http.Handler { return files.Server(b.bucket) }

// dialectNames lists the predefined dialects.
func dialectNames() []string {
	var names []string
	for _, d := range dialect.Dialects() {
		names = append(names, d.Name)
	}
	return names
}

// specEnv binds the names env binds, each as its text, so that reading it
// opens nothing: the specs of the tools depend only on whether HANDS_SQL
// names a database, of which engine, and on HANDS_SQL_WRITE.
type specEnv struct {
	Bucket            string `bind:"HANDS_BUCKET,optional"`
	PublicURL         string `bind:"HANDS_PUBLIC_URL,optional"`
	MaxFileBytes      string `bind:"HANDS_MAX_FILE_BYTES,optional"`
	FetchPrivate      string `bind:"HANDS_FETCH_ALLOW_PRIVATE,optional"`
	NetAllow          string `bind:"HANDS_NET_ALLOW,optional"`
	TaskStore         string `bind:"HANDS_TASK_STORE,optional"`
	TaskLease         string `bind:"HANDS_TASK_LEASE,optional"`
	MaxTasks          string `bind:"HANDS_MAX_TASKS,optional"`
	MaxCallerTasks    string `bind:"HANDS_MAX_CALLER_TASKS,optional"`
	TaskResultWait    string `bind:"HANDS_TASK_RESULT_WAIT,optional"`
	Token             string `bind:"HANDS_TOKEN,optional"`
	Tokens            string `bind:"HANDS_TOKENS,optional"`
	ListTTL           string `bind:"HANDS_LIST_TTL,optional"`
	SQL               string `bind:"HANDS_SQL,optional"`
	SQLWrite          bool   `bind:"HANDS_SQL_WRITE,default=false"`
	KV                string `bind:"HANDS_KV,optional"`
	Search            string `bind:"HANDS_SEARCH,optional"`
	Image             string `bind:"HANDS_IMAGE,optional"`
	ImageMaxCount     int    `bind:"HANDS_IMAGE_MAX_COUNT,optional"`
	UpstreamEnv       string `bind:"HANDS_UPSTREAM_ENV,optional"`
	StateKey          string `bind:"HANDS_STATE_KEY,optional"`
	ResultBudget      string `bind:"HANDS_RESULT_BUDGET,optional"`
	OAuthClientID     string `bind:"HANDS_OAUTH_CLIENT_ID,optional"`
	OAuthIssuer       string `bind:"HANDS_OAUTH_ISSUER,optional"`
	OAuthClientSecret string `bind:"HANDS_OAUTH_CLIENT_SECRET,optional"`
	OAuthGrant        string `bind:"HANDS_OAUTH_GRANT,optional"`
	Services          string `bind:"HANDS_SERVICES,optional"`
	SMTP              string `bind:"HANDS_SMTP,optional"`
	IMAP              string `bind:"HANDS_IMAP,optional"`
	EmailFrom         string `bind:"HANDS_EMAIL_FROM,optional"`
	EmailAllow        string `bind:"HANDS_EMAIL_ALLOW,optional"`
	EmailCA           string `bind:"HANDS_EMAIL_CA,optional"`
	Browser           string `bind:"HANDS_BROWSER,optional"`
	BrowserScript     bool   `bind:"HANDS_BROWSER_SCRIPT,default=false"`
}

// specTools returns the tools serve would serve with the environment and
// configFile, for their specs alone: bound to a bucket and a store in
// memory, and the SQL tools to a database of HANDS_SQL's engine that is
// never connected to, so that printing them opens and creates nothing.
func specTools(ctx context.Context, configFile string) (tools []tool.Interface, err error) {
	var e specEnv
	if err := bind.Load(ctx, &e, &bind.Options{ConfigFile: configFile}); err != nil {
		return nil, err
	}
	tools = append([]tool.Interface{
		files.HostFile(memblob.OpenBucket(nil), "https://files.example.com", nil),
		web.FetchMarkdown(nil),
	}, kvtool.Tools(kv.New(memkv.New(), nil))...)
	if e.Browser != "" {
		// A browser that is never started or connected to.
		opts, err := browserOptions(e.Browser, e.BrowserScript)
		if err != nil {
			return nil, fmt.Errorf("HANDS_BROWSER: %w", err)
		}
		// Hosted, as serve hosts them: the screenshot tool's
		// annotations say so.
		opts.RemoteURL, opts.ExecPath = "ws://127.0.0.1:1/", ""
		opts.Host = files.Hoster(memblob.OpenBucket(nil), "https://files.example.com", nil)
		br, err := browser.New(opts)
		if err != nil {
			return nil, err
		}
		tools = append(tools, br.Browse(), br.Screenshot(), br.Execute())
	}
	if e.Services != "" {
		// The specs depend on the names and read-only flags alone: no
		// document is read, and no credential is needed.
		svcs, err := openServices(e.Services, nil, func(string) (string, bool) { return "unused", true })
		if err != nil {
			return nil, err
		}
		defer func() { tools = append(tools, svcs.Tools()...) }()
	}
	web, err := webTools(e.Search, nil)
	if err != nil {
		return nil, err
	}
	// Hosted, as serve hosts them, and with a key that is never sent: the
	// spec depends on the limit and on hosting alone.
	images, err := imageTools(e.Image, e.ImageMaxCount, nil, files.Hoster(memblob.OpenBucket(nil), "https://files.example.com", nil), func(string) string { return "unused" })
	if err != nil {
		return nil, err
	}
	web = append(web, images...)
	// The email tools' specs depend on the sender and the allowlist; the
	// CA file is not read, and nothing connects.
	email, err := emailTools(emailEnv{SMTP: e.SMTP, IMAP: e.IMAP, From: e.EmailFrom, Allow: e.EmailAllow}, memblob.OpenBucket(nil), nil)
	if err != nil {
		return nil, err
	}
	if e.SQL == "" {
		return append(append(tools, web...), email...), nil
	}
	db, err := unconnectedDB(e.SQL)
	if err != nil {
		return nil, err
	}
	return append(append(append(tools,
		sqltool.Query(db, &sqltool.Options{Write: e.SQLWrite, WriteSetting: "HANDS_SQL_WRITE=true"}),
		sqltool.Schema(db, ""),
	), web...), email...), nil
}

// unconnectedDB returns a database handle of the engine that the URL s
// names, which connects to nothing until it is used (and it is not).
func unconnectedDB(s string) (*sql.DB, error) {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return nil, errors.New("HANDS_SQL: want a database URL, such as sqlite:///FILE or postgres://USER:PASSWORD@HOST/DB")
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		return sql.Open("sqlite3", ":memory:")
	case "postgres", "postgresql":
		return sql.Open("pgx", "")
	}
	return nil, fmt.Errorf("HANDS_SQL: no database engine for the scheme %s; the schemes are sqlite and postgres", scheme)
}

// declarations writes the specs as the provider of dialect d takes them in
// a request, each schema converted by d, and returns the problems of the
// tools sent together: MCP's Tool (inputSchema), an OpenAI Responses
// function tool (type "function", parameters, strict), an Anthropic tool
// (input_schema, strict for strict tool use, input_examples), a Gemini
// FunctionDeclaration (parameters, or parametersJsonSchema). A tool's
// examples become what d's dialect.Dialect.ConvertExamples makes of them,
// as the adapters send them: folded into the description, Anthropic's
// input_examples, or the input schema's root "examples" (MCP).
func declarations(specs []tool.Spec, d *dialect.Dialect) ([]any, []dialect.Problem) {
	type (
		mcpTool struct {
			Name         string             `json:"name"`
			Title        string             `json:"title,omitempty"`
			Description  string             `json:"description,omitempty"`
			InputSchema  json.RawMessage    `json:"inputSchema"`
			OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
		}
		openAITool struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters"`
			Strict      bool            `json:"strict"`
		}
		anthropicTool struct {
			Name          string            `json:"name"`
			Description   string            `json:"description,omitempty"`
			InputSchema   json.RawMessage   `json:"input_schema"`
			Strict        bool              `json:"strict,omitempty"`
			InputExamples []json.RawMessage `json:"input_examples,omitempty"`
		}
		geminiDeclaration struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description,omitempty"`
			Parameters           json.RawMessage `json:"parameters,omitempty"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
		}
	)
	var list []any
	tools := make([]dialect.ToolSchema, len(specs))
	for i, spec := range specs {
		in := provider.InputSchema(spec)
		tools[i] = dialect.ToolSchema{Name: spec.Name, Schema: in, Examples: spec.Examples}
		description, kept, _ := d.ConvertExamples(spec.Name, spec.Description, spec.Examples)
		anthropic := d.Name == dialect.Anthropic().Name || d.Name == dialect.AnthropicStrict().Name
		if len(kept) > 0 && !anthropic {
			in = rootExamples(in, kept)
		}
		schema, _ := d.ConvertJSON(in)
		switch {
		case d.Name == dialect.OpenAIStrict().Name:
			list = append(list, openAITool{Type: "function", Name: spec.Name, Description: description, Parameters: schema, Strict: true})
		case anthropic:
			list = append(list, anthropicTool{Name: spec.Name, Description: description, InputSchema: schema, Strict: d.Name == dialect.AnthropicStrict().Name, InputExamples: kept})
		case d.Name == dialect.Gemini().Name:
			list = append(list, geminiDeclaration{Name: spec.Name, Description: description, Parameters: schema})
		case d.Name == dialect.GeminiJSONSchema().Name:
			list = append(list, geminiDeclaration{Name: spec.Name, Description: description, ParametersJSONSchema: schema})
		default:
			list = append(list, mcpTool{Name: spec.Name, Title: spec.Title, Description: description, InputSchema: schema, OutputSchema: spec.OutputSchema})
		}
	}
	return list, d.LintTools(tools...)
}

// rootExamples returns a copy of the input schema s with examples as its
// root "examples", replacing any it had, as mcpserver lists a tool's
// examples: draft 2020-12 lists valid instances of a schema there, and a
// tool's examples are whole arguments of calls.
func rootExamples(s *jsonschema.Schema, examples []json.RawMessage) *jsonschema.Schema {
	c := *s // the top level alone changes
	c.Examples = make([]any, len(examples))
	for i, ex := range examples {
		c.Examples[i] = ex
	}
	return &c
}
