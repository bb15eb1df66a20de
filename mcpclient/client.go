package mcpclient

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/buildinfo"
	"github.com/hands-go/hands/internal/mcpwire"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTimeout bounds a call of a remote tool when Options.Timeout is
// zero.
const DefaultTimeout = 5 * time.Minute

// DefaultListTimeout bounds the handshake with a server and each listing of
// its tools when Options.ListTimeout is zero.
const DefaultListTimeout = 30 * time.Second

// The bounds on what a server may hand the client, where Options leave
// them at zero: a server is another program, and what it sends costs this
// one memory and the model's context.
const (
	// DefaultMaxTools is how many tools a server may list.
	DefaultMaxTools = 1000
	// DefaultMaxListPages is how many pages a listing of a server's tools
	// may take.
	DefaultMaxListPages = 100
	// DefaultMaxToolBytes is how large one tool's definition (its name,
	// description, schemas and annotations, as JSON) may be.
	DefaultMaxToolBytes = 64 << 10
	// DefaultMaxMessageBytes is how large one message from the server (a
	// result, say) may be on the wire. It is the SDK's own bound on a line
	// of a command's output (mcp.DefaultMaxLineLength) and on a server-sent
	// event (mcp.DefaultMaxEventSize); HTTP applies it to JSON bodies too.
	DefaultMaxMessageBytes = 16 << 20
	// DefaultMaxTextBytes is how much of a result's text a model reads;
	// the rest is cut, with a note saying how much.
	DefaultMaxTextBytes = 1 << 20
)

// Options configure a Client. A nil *Options selects every default.
type Options struct {
	// Name names the server in errors and logs. Empty means the name the
	// server gives itself when it connects.
	Name string
	// Prefix is put before every remote tool's name, so that the tools of
	// several servers cannot collide: with Prefix "gh_", the server's
	// "search" is the model's "gh_search". Empty means none.
	Prefix string
	// Allow, when not empty, offers only the remote tools named in it (by
	// their names on the server, without Prefix).
	Allow []string
	// Deny leaves out the remote tools named in it (by their names on the
	// server, without Prefix).
	Deny []string
	// Include, when set, offers only the tools for which it reports true.
	// It sees each tool's Spec as the model would, Prefix and annotations
	// included: ReadOnly is such a predicate.
	Include func(tool.Spec) bool
	// Timeout bounds each call (tool.WithTimeout): at the deadline the call
	// ends with a *tool.TimeoutError and the server is sent
	// notifications/cancelled. Zero selects DefaultTimeout; a negative value
	// removes the bound.
	Timeout time.Duration
	// Limits bound the arguments a model may send (tool.WithLimits). The
	// zero value selects tool's defaults.
	Limits tool.Limits
	// Dialects, when set, leave out every tool that one of them would
	// reject (dialect.Dialect.Check): a tool a provider refuses would
	// otherwise fail every request it is part of. The tools left out are
	// reported by Refused.
	Dialects []*dialect.Dialect
	// OnChange, when set, is called after the server's tool list changed
	// (notifications/tools/list_changed) and the client has listed the
	// tools again, with what changed. It runs on the client's own
	// goroutine, one call at a time, and must not call Close.
	OnChange func(ctx context.Context, ch Change)
	// Logger receives the client's and the SDK's diagnostics. Nil discards
	// them.
	Logger *slog.Logger
	// MaxTools is how many tools the server may list; a listing with more
	// is an error, and the tools stay as they were. Zero selects
	// DefaultMaxTools; a negative value removes the bound.
	MaxTools int
	// MaxToolBytes is how large one tool's definition (as JSON, its
	// description and schemas included) may be; a larger one is refused
	// (a *RefusedError matching ErrToolTooLarge), since every list a
	// model reads repeats it. Zero selects DefaultMaxToolBytes; a negative
	// value removes the bound. Schemas are also held to
	// dynamic.MaxSchemaDepth, before they are compiled.
	MaxToolBytes int
	// ListTimeout bounds the handshake with the server (initialize), within
	// Connect's ctx, and each listing of its tools: a server that does not
	// answer cannot hold up its client's start. Zero selects
	// DefaultListTimeout; a negative value removes the bound.
	ListTimeout time.Duration
	// MaxListPages is how many pages a listing of the tools may take; a
	// listing with more is an error, and the tools stay as they were. Zero
	// selects DefaultMaxListPages; a negative value removes the bound.
	MaxListPages int
	// MaxTextBytes is how much of a text result (or of an error result's
	// text) a model reads; the rest is cut at a character boundary, with a
	// note of how much more there was. Zero selects DefaultMaxTextBytes; a
	// negative value removes the bound.
	MaxTextBytes int
	// Reconnect, when set, makes the client start a new session when its
	// session ends other than by Close (the server exited, or dropped the
	// connection): it connects over the transport Reconnect returns and
	// lists the tools again, first after ReconnectDelay and then after
	// twice as long each time it fails, up to a minute. Until then calls
	// fail with ErrDisconnected. A transport serves one session, so
	// Reconnect returns a new one each time: a new Command, say.
	Reconnect func() mcp.Transport
	// ReconnectDelay is the first wait before reconnecting. Zero selects
	// one second.
	ReconnectDelay time.Duration
	// Elicit, when set, answers the server's elicitation/create requests,
	// form and URL modes alike (the request's Params.Mode says which), and
	// the client declares the elicitation capability for both. Nil
	// declares none, and the server may not ask. When the request names
	// the call of the client's tools that caused it, ctx is that call's
	// (its values, and its end), so that a gateway can pass the request on
	// to whoever made the call (mcpserver.ElicitRequest), however many
	// calls are under way; otherwise ctx is the request's own, and a relay
	// refuses (ErrUnattributed) rather than guess. Over streamable HTTP a
	// request names its call by coming on the stream of the call, or of
	// the tasks/result of the task the call created; on any transport, by
	// carrying the call's progress token in its _meta (progressToken), or
	// the ID of a task the client created for the call and still awaits
	// (_meta io.modelcontextprotocol/related-task). Nothing else on the
	// wire ties a request to a call. But on any other transport (stdio
	// above all), the server's requests all come on the one connection,
	// whose calls under way the client knows; servers there seldom name
	// the call (the TypeScript SDK's sendRequest names none). So a request
	// that names nothing (no progress token, no task) is put down to the
	// one call under way when it arrived, if it still is, and ctx is that
	// call's; when there were several, ctx is the request's own and holds
	// theirs (CallsUnderWay), for a relay that can tell whether they are
	// all one caller's; when there were none, a relay refuses. A request
	// that names a token or a task of no call under way belongs to none.
	Elicit func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// Sample, when set, answers the server's sampling/createMessage
	// requests, and the client declares the sampling capability. Nil
	// declares none. Its ctx is chosen as Elicit's (mcpserver.Sample
	// passes such a request on). Protocol 2026-07-28 deprecates sampling
	// (SEP-2577); it works on every revision still.
	Sample func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
}

// maxReconnectDelay is the longest wait between two attempts to reconnect.
const maxReconnectDelay = time.Minute

// A Change says which of a client's tools changed when the server's list
// did, by the names a model calls them.
type Change struct {
	Added   []string // tools offered now and not before; a registry built earlier holds them once given them (tool.Registry.Add)
	Updated []string // tools whose definition changed; their Spec and validation follow it
	Removed []string // tools the server no longer lists; they are disabled and forgotten
}

// A Client is a session with one MCP server, whose tools it offers as hands
// tools. It is safe for concurrent use.
type Client struct {
	name    string
	opts    Options
	logger  *slog.Logger
	client  *mcp.Client
	session atomic.Pointer[mcp.ClientSession] // replaced when the client reconnects

	refreshMu sync.Mutex    // one listing at a time
	listedAt  time.Time     // when the latest listing's last page arrived; under refreshMu
	listTTL   time.Duration // how long that listing is fresh (the least ttlMs of its pages); under refreshMu
	changedAt atomic.Bool   // the server said its list changed since the latest listing began

	mu      sync.Mutex
	byName  map[string]*remote // the tools offered now, by their names on the server
	order   []*remote          // the tools offered now, in the server's order
	refused []error

	sentMu sync.Mutex
	sent   map[string]sentSchemas // the schemas of the listing under way as sent, by tool name (schemaStage)

	progressMu sync.Mutex
	progress   map[string]*forwarder // calls under way, by progress token
	tasks      map[string]string     // the progress tokens of calls under way, by the ID of the task each created
	creating   int                   // task creations the server has not answered yet
	created    chan struct{}         // closed, and replaced, when one is answered
	tokens     atomic.Uint64
	secret     string // seals the call a server's request is marked with (callMetaKey)
	// arrivals are the calls under way when each of the server's requests
	// to relay arrived on a transport other than streamable HTTP, by the
	// number its arrivalMetaKey mark carries, until callOf takes them.
	arrivals    map[uint64][]*forwarder
	arrivalSeq  uint64
	arrivalLost uint64 // arrivals below this number were dropped

	// now and sleep are the clock that tasks of the extension are polled
	// by: time.Now and sleepCtx, but in tests.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	heldMu sync.Mutex
	held   map[heldTask]int // the server's tasks that calls under way await, and how many calls await each
	closed bool             // under heldMu: Close has begun, and a task is held no more
	// creations counts the calls whose answer may yet be a task
	// (beginTask), which Close waits for.
	creations sync.WaitGroup

	wake    chan struct{} // a list change to act on; capacity 1
	stop    context.CancelFunc
	worker  sync.WaitGroup
	closing sync.Once
}

// Connect starts a session with the MCP server at the other end of
// transport — Command for a program that speaks MCP on its standard input
// and output, HTTP for a streamable HTTP endpoint, or any transport of the
// SDK — and lists its tools. ctx bounds the connection and the first
// listing, not the session.
func Connect(ctx context.Context, transport mcp.Transport, opts *Options) (*Client, error) {
	c := &Client{byName: map[string]*remote{}, progress: map[string]*forwarder{}, tasks: map[string]string{}, held: map[heldTask]int{}, created: make(chan struct{}), wake: make(chan struct{}, 1), secret: rand.Text(), now: time.Now, sleep: sleepCtx}
	if opts != nil {
		c.opts = *opts
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	copts := &mcp.ClientOptions{
		Logger:                      c.logger,
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { c.changed() },
		ProgressNotificationHandler: c.onProgress,
	}
	if c.opts.Sample != nil {
		copts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ctx, cancel := c.callOf(ctx, req.Params)
			defer cancel()
			return c.opts.Sample(ctx, req)
		}
	}
	if c.opts.Elicit != nil {
		copts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ctx, cancel := c.callOf(ctx, req.Params)
			defer cancel()
			return c.opts.Elicit(ctx, req)
		}
		copts.Capabilities = &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hands", Version: buildinfo.Read().Version}, copts)
	c.client = client
	c.addTaskMethods()
	session, err := c.handshake(ctx, transport)
	if err != nil {
		return nil, err
	}
	c.session.Store(session)
	c.name = c.opts.Name
	if c.name == "" {
		if res := session.InitializeResult(); res != nil && res.ServerInfo != nil {
			c.name = res.ServerInfo.Name
		}
		c.name = nameOr(c.name, "mcp")
	}
	if _, err := c.refresh(ctx, true); err != nil {
		session.Close()
		return nil, err
	}
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	c.worker.Go(func() { c.follow(life) })
	if c.opts.Reconnect != nil {
		c.worker.Go(func() { c.keep(life) })
	}
	return c, nil
}

// handshake connects c's SDK client over transport, within ListTimeout.
func (c *Client) handshake(ctx context.Context, transport mcp.Transport) (*mcp.ClientSession, error) {
	hctx, cancel := c.listContext(ctx)
	defer cancel()
	session, err := c.client.Connect(hctx, c.wire().Transport(transport), nil)
	if err != nil {
		return nil, fmt.Errorf("mcpclient: connect to %s: %w", nameOr(c.opts.Name, "the server"), err)
	}
	return session, nil
}

// keep starts a new session each time the session ends, until ctx ends
// (Close), waiting ReconnectDelay and then twice as long after each
// failure, up to maxReconnectDelay.
func (c *Client) keep(ctx context.Context) {
	for {
		c.session.Load().Wait()
		delay := cmp.Or(c.opts.ReconnectDelay, time.Second)
		for {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			session, err := c.handshake(ctx, c.opts.Reconnect())
			if err != nil {
				delay = min(2*delay, maxReconnectDelay)
				c.logger.WarnContext(ctx, "mcpclient: reconnecting failed", "server", c.name, "err", err, "retry in", delay)
				continue
			}
			c.session.Store(session)
			if ctx.Err() != nil { // Close ran meanwhile, and closed the old session
				session.Close()
				return
			}
			c.logger.InfoContext(ctx, "mcpclient: reconnected", "server", c.name)
			ch, err := c.refresh(ctx, true) // a new session: what the old one listed may be gone
			if err != nil {
				c.logger.WarnContext(ctx, "mcpclient: listing tools after reconnecting failed", "server", c.name, "err", err)
			} else if c.opts.OnChange != nil && (len(ch.Added) > 0 || len(ch.Updated) > 0 || len(ch.Removed) > 0) {
				c.opts.OnChange(ctx, ch)
			}
			break
		}
	}
}

// ErrUnattributed is what a relay of a server's requests answers a
// request that names no call under way (see Options.Elicit): it cannot
// know whose the request is, and must not guess.
var ErrUnattributed = errors.New("mcpclient: the server's request names no call under way")

// callsKey is the context key of the calls under way that a server's
// request may belong to (CallsUnderWay).
type callsKey struct{}

// CallsUnderWay returns, from the ctx that Options.Elicit or Options.Sample
// is given for a request that names no call, the contexts of the calls
// of the client's tools under way when it arrived, in the order they
// began: those it may belong to, which a relay may tell apart by what it
// knows of their callers. The context of a call that has returned since
// is ended (its values stay). It returns nil when the request names its
// call (ctx is then the call's), and over streamable HTTP, where a
// request that names no call came outside every call's stream.
func CallsUnderWay(ctx context.Context) []context.Context {
	calls, _ := ctx.Value(callsKey{}).([]context.Context)
	return calls
}

// callOf returns the context of the call a server's request belongs to
// (see Options.Elicit), ended when either it or the request is; or, when
// the request names no call under way, the request's own ctx. A request
// names its call by the call's progress token: the calls stage of an
// HTTP session's wire marks the requests on a call's stream with it (callMetaKey,
// which is removed here), and a server may send it itself as the
// request's progressToken. Failing that, it names the call by the task
// the call created (related-task; see taskCall). A request that names
// nothing, on a transport whose server's requests all come on one stream
// (stdio, and any but streamable HTTP), where the calls under way are all
// the connection's, belongs to the one call under way when it arrived
// (markArrival), if there was one and it still is; when there were
// several, the request's ctx holds them (CallsUnderWay). The calls are
// those of its arrival, not of now: the SDK runs the handler later, by
// when a call the request belongs to may have returned and left another
// alone. A request that names something else — a token or a task of no
// call under way, a forged mark — belongs to none.
func (c *Client) callOf(ctx context.Context, params mcp.Params) (context.Context, context.CancelFunc) {
	meta := params.GetMeta()
	var arrival []*forwarder
	arrived := false
	if mark, ok := meta[arrivalMetaKey]; ok {
		delete(meta, arrivalMetaKey)
		arrival, arrived = c.takeArrival(mark)
	}
	_, named := meta["progressToken"]
	token, _ := meta["progressToken"].(string)
	if _, ok := meta[callMetaKey]; ok {
		named = true
	}
	if mark, ok := meta[callMetaKey].(string); ok {
		delete(meta, callMetaKey)
		if secret, marked, ok := strings.Cut(mark, " "); ok && secret == c.secret {
			token = marked
		}
	}
	c.progressMu.Lock()
	f := c.progress[token]
	c.progressMu.Unlock()
	if f == nil {
		if id := relatedTask(meta); id != "" {
			named = true
			f = c.taskCall(ctx, id)
		}
	}
	if f == nil && !named && arrived {
		c.progressMu.Lock()
		defer c.progressMu.Unlock()
		switch {
		case len(arrival) == 1 && !arrival[0].ended:
			f = arrival[0]
		case len(arrival) > 1:
			calls := make([]context.Context, len(arrival))
			for i, a := range arrival {
				calls[i] = a.ctx
				if a.ended {
					ended, cancel := context.WithCancelCause(a.ctx)
					cancel(errCallEnded)
					calls[i] = ended
				}
			}
			return context.WithValue(ctx, callsKey{}, calls), func() {}
		}
	}
	if f == nil {
		return ctx, func() {}
	}
	call, cancel := context.WithCancel(f.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return call, func() { stop(); cancel() }
}

// errCallEnded ends the context CallsUnderWay gives of a call that was
// under way when the server's request arrived and has returned since.
var errCallEnded = errors.New("mcpclient: the call has returned")

// arrivalMetaKey is the _meta key with which a server's request to relay,
// on a transport other than streamable HTTP, is marked when it arrives:
// the client's secret and the number of the calls then under way in
// Client.arrivals.
const arrivalMetaKey = "hands/arrival"

// maxArrivals bounds Client.arrivals: the marks of requests the SDK
// refused before their handler ran are never taken.
const maxArrivals = 256

// markArrival returns params, those of a request to relay that has just
// arrived, marked (arrivalMetaKey) with the calls under way now, which
// the request may belong to; or params as they are when they cannot be
// read, for the SDK to refuse.
func (c *Client) markArrival(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		return params
	}
	var meta map[string]any
	if len(p["_meta"]) > 0 && json.Unmarshal(p["_meta"], &meta) != nil {
		return params
	}
	if meta == nil {
		meta = map[string]any{}
	}
	c.progressMu.Lock()
	under := slices.Collect(maps.Values(c.progress))
	slices.SortFunc(under, func(a, b *forwarder) int { return cmp.Compare(a.began, b.began) })
	if c.arrivals == nil {
		c.arrivals = map[uint64][]*forwarder{}
	}
	c.arrivalSeq++
	n := c.arrivalSeq
	c.arrivals[n] = under
	for ; len(c.arrivals) > maxArrivals; c.arrivalLost++ {
		delete(c.arrivals, c.arrivalLost)
	}
	c.progressMu.Unlock()
	meta[arrivalMetaKey] = c.secret + " " + strconv.FormatUint(n, 10)
	var err error
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// takeArrival returns, and forgets, the calls under way when the request
// that mark (arrivalMetaKey) marks arrived; false for a mark the client
// did not make.
func (c *Client) takeArrival(mark any) ([]*forwarder, bool) {
	s, _ := mark.(string)
	secret, id, ok := strings.Cut(s, " ")
	n, err := strconv.ParseUint(id, 10, 64)
	if !ok || err != nil || secret != c.secret {
		return nil, false
	}
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	under, ok := c.arrivals[n]
	delete(c.arrivals, n)
	return under, ok
}

func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}

// Name returns the server's name, as errors and logs give it.
func (c *Client) Name() string { return c.name }

// Session returns the SDK's session, for what this package does not cover
// (prompts, resources).
// After a reconnection (Options.Reconnect) it is the new session.
func (c *Client) Session() *mcp.ClientSession { return c.session.Load() }

// Tools returns the tools the server offers now, in the server's order,
// after filtering and with Prefix. A name is the same tool for as long as
// the server lists it: a tool the server changes keeps its identity, and
// its Spec and validation follow the change. A tool the server removes is
// disabled (it implements tool.Enabler), so a registry built earlier no
// longer lists it and refuses its calls with a *tool.DisabledToolError,
// and the client forgets it: if the server lists it again, it is a new
// tool, which a registry takes once the old one is removed from it
// (tool.Registry.Remove).
func (c *Client) Tools() []tool.Interface {
	c.mu.Lock()
	defer c.mu.Unlock()
	list := make([]tool.Interface, len(c.order))
	for i, r := range c.order {
		list[i] = r
	}
	return list
}

// Refused returns why remote tools were left out at the latest listing,
// one *RefusedError each: a name hands cannot take, a schema that does not
// compile or refers to other documents, a dialect's rejection. Tools left
// out by Allow, Deny and Include are not refused.
func (c *Client) Refused() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.refused)
}

// Refresh lists the server's tools again, updates Tools and returns what
// changed; Options.OnChange is not called. The client lists the tools by
// itself when the server sends notifications/tools/list_changed. While
// the latest list is fresh by the server's hint (its ttlMs, from protocol
// 2026-07-28), and the server has not said since that it changed,
// Refresh does not ask the server again and returns no change.
func (c *Client) Refresh(ctx context.Context) (Change, error) {
	return c.refresh(ctx, false)
}

// Close ends the session (and stops a server started by Command) and the
// client's goroutine. The tools are disabled. The server's tasks that
// calls under way await are cancelled first (tasks/cancel, within 5 s in
// all), so that a client that goes leaves no task running for nobody; the
// calls return an error.
func (c *Client) Close() error {
	var err error
	c.closing.Do(func() {
		c.stop()
		c.cancelHeld()
		err = c.session.Load().Close() // also ends keep's wait for the session's end
		c.worker.Wait()
		c.session.Load().Close() // one keep may have started meanwhile
		c.mu.Lock()
		for _, r := range c.byName {
			r.gone.Store(true)
		}
		c.order = nil
		c.mu.Unlock()
	})
	return err
}

// changed is the SDK's handler of notifications/tools/list_changed. It
// only wakes the client's goroutine: listing from inside the handler
// would wait on the connection that is delivering the notification.
func (c *Client) changed() {
	c.changedAt.Store(true)
	select {
	case c.wake <- struct{}{}:
	default: // a listing is already due
	}
}

// follow lists the tools again after each change the server announces,
// until ctx ends (Close).
func (c *Client) follow(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		ch, err := c.refresh(ctx, false)
		if err != nil {
			c.logger.WarnContext(ctx, "mcpclient: listing tools after a change failed", "server", c.name, "err", err)
			continue
		}
		if c.opts.OnChange != nil && (len(ch.Added) > 0 || len(ch.Updated) > 0 || len(ch.Removed) > 0) {
			c.opts.OnChange(ctx, ch)
		}
	}
}

// listContext returns ctx bounded by Options.ListTimeout.
func (c *Client) listContext(ctx context.Context) (context.Context, context.CancelFunc) {
	switch d := cmp.Or(c.opts.ListTimeout, DefaultListTimeout); {
	case d > 0:
		return context.WithTimeout(ctx, d)
	default:
		return context.WithCancel(ctx)
	}
}

// refresh lists the tools, page by page within Options.ListTimeout,
// MaxListPages and MaxTools, and applies the list. Unless force is set,
// it does not list while the latest list is fresh by the server's ttlMs
// (SEP-2549) and the server has not said since that its list changed.
func (c *Client) refresh(ctx context.Context, force bool) (Change, error) {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	told := c.changedAt.Swap(false)
	if !force && !told && c.listTTL > 0 && time.Since(c.listedAt) < c.listTTL {
		return Change{}, nil
	}
	c.sentMu.Lock()
	c.sent = nil
	c.sentMu.Unlock()
	defer func() {
		c.sentMu.Lock()
		c.sent = nil
		c.sentMu.Unlock()
	}()
	listed, ttl, err := c.list(ctx)
	if err != nil {
		if told {
			c.changedAt.Store(true) // the next refresh lists
		}
		c.listTTL = 0
		return Change{}, err
	}
	// Taken once the last page arrived, so that the SDK's own cache of
	// each page (keyed by cursor, fresh from its arrival) is stale
	// whenever this listing is, and a listing reaches the server.
	c.listedAt, c.listTTL = time.Now(), ttl
	return c.apply(listed), nil
}

// list lists the tools, page by page within Options.ListTimeout,
// MaxListPages and MaxTools, and returns them and how long the list is
// fresh: the least ttlMs of its pages. Their schemas as sent are in
// c.sent, which refresh empties before and after.
func (c *Client) list(ctx context.Context) ([]*mcp.Tool, time.Duration, error) {
	ctx, cancel := c.listContext(ctx)
	defer cancel()
	var listed []*mcp.Tool
	ttl := time.Duration(math.MaxInt64)
	maxTools := cmp.Or(c.opts.MaxTools, DefaultMaxTools)
	maxPages := cmp.Or(c.opts.MaxListPages, DefaultMaxListPages)
	params := &mcp.ListToolsParams{}
	for pages := 1; ; pages++ {
		if maxPages > 0 && pages > maxPages {
			return nil, 0, fmt.Errorf("mcpclient: %s lists its tools on more than %d pages (Options.MaxListPages)", c.name, maxPages)
		}
		res, err := c.session.Load().ListTools(ctx, params)
		if err != nil {
			return nil, 0, fmt.Errorf("mcpclient: list the tools of %s: %w", c.name, err)
		}
		if maxTools > 0 && len(listed)+len(res.Tools) > maxTools {
			return nil, 0, fmt.Errorf("mcpclient: %s lists more than %d tools (Options.MaxTools)", c.name, maxTools)
		}
		listed = append(listed, res.Tools...)
		ttl = min(ttl, time.Duration(max(res.TTLMs, 0))*time.Millisecond)
		if res.NextCursor == "" {
			break
		}
		params.Cursor = res.NextCursor
	}
	return listed, ttl, nil
}

// apply makes the tools offered follow a listing.
func (c *Client) apply(listed []*mcp.Tool) Change {
	var ch Change
	var order []*remote
	var refused []error
	seen := map[string]bool{}
	for _, mt := range listed {
		if (len(c.opts.Allow) > 0 && !slices.Contains(c.opts.Allow, mt.Name)) || slices.Contains(c.opts.Deny, mt.Name) {
			continue
		}
		if seen[mt.Name] {
			refused = append(refused, &RefusedError{Server: c.name, Tool: mt.Name, Reason: errDuplicate, Err: ErrToolRefused})
			continue
		}
		seen[mt.Name] = true
		def, err := json.Marshal(mt)
		if err != nil {
			refused = append(refused, &RefusedError{Server: c.name, Tool: mt.Name, Reason: err, Err: ErrToolRefused})
			continue
		}
		if max := cmp.Or(c.opts.MaxToolBytes, DefaultMaxToolBytes); max > 0 && len(def) > max {
			refused = append(refused, &RefusedError{Server: c.name, Tool: mt.Name, Reason: &SizeError{Bytes: len(def), Limit: max, Err: ErrToolTooLarge}, Err: ErrToolRefused})
			continue
		}
		// The schemas as sent tell a change of order only. A tool whose
		// definition and schemas as sent are those of its version is not
		// built again, nor are its schemas read.
		sent := c.sentOf(mt.Name)
		key := string(def) + "\x00" + string(sent.input) + "\x00" + string(sent.output)
		c.mu.Lock()
		r := c.byName[mt.Name]
		c.mu.Unlock()
		if r != nil && !r.gone.Load() && r.cur.Load().def == key {
			order = append(order, r)
			continue
		}
		v, err := c.build(mt, sent, key)
		if err != nil {
			refused = append(refused, &RefusedError{Server: c.name, Tool: mt.Name, Reason: err, Err: ErrToolRefused})
			c.logger.Warn("mcpclient: a remote tool is left out", "server", c.name, "tool", mt.Name, "err", err)
			continue
		}
		if v == nil { // Include said no
			continue
		}
		switch {
		case r == nil:
			r = &remote{c: c, name: v.raw.Name(), remoteName: mt.Name}
			c.mu.Lock()
			c.byName[mt.Name] = r
			c.mu.Unlock()
			ch.Added = append(ch.Added, r.name)
		case r.gone.Load():
			ch.Added = append(ch.Added, r.name)
		default:
			ch.Updated = append(ch.Updated, r.name)
		}
		r.cur.Store(v)
		r.revision.Add(1)
		r.gone.Store(false)
		order = append(order, r)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	current := make(map[*remote]bool, len(order))
	for _, r := range order {
		current[r] = true
	}
	for remoteName, r := range c.byName {
		if !current[r] {
			// Forgotten, so that what the client holds is the server's
			// list now and no more: a server that renames its tools on
			// every change cannot make it grow.
			delete(c.byName, remoteName)
			if !r.gone.Load() {
				r.gone.Store(true)
				ch.Removed = append(ch.Removed, r.name)
			}
		}
	}
	slices.Sort(ch.Removed)
	c.order, c.refused = order, refused
	return ch
}

// Command returns a transport that starts the program name with args and
// speaks MCP over its standard input and output; its standard error is
// this process's. Closing the client closes the program's input, and
// terminates it if it does not exit within five seconds. For another
// environment or directory, use a CommandTransport with an exec.Cmd of
// your own.
func Command(name string, args ...string) mcp.Transport {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	return &CommandTransport{Command: cmd}
}

// HTTP returns a transport to the streamable HTTP endpoint at url that
// sends header with every request: an Authorization header, say. A nil
// header sends none. No message the server sends may be larger than
// DefaultMaxMessageBytes, whether it comes as a JSON body or as a
// server-sent event: a larger one ends the session once that much is read.
// HTTPWith also answers OAuth challenges.
func HTTP(url string, header http.Header) mcp.Transport {
	rt := &mcpwire.RoundTripper{Next: http.DefaultTransport, Header: header, MaxBody: DefaultMaxMessageBytes, TooLarge: tooLarge}
	return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}, MaxEventSize: DefaultMaxMessageBytes}
}
