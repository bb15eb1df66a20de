package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/internal/mcpmeta"
	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/internal/mcptrace"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A remote is one tool of the server, as a hands tool. Its name never
// changes; what the server says of it (its version) may.
type remote struct {
	c          *Client
	name       string // as the model calls it
	remoteName string // as the server calls it
	cur        atomic.Pointer[version]
	revision   atomic.Uint64 // counts the definitions cur has held
	gone       atomic.Bool   // the server no longer offers it, or the client is closed
}

// SpecVersion changes each time the server changes the tool's definition
// (see tool.SpecVersioner).
func (r *remote) SpecVersion() uint64 { return r.revision.Load() }

// A version is one definition of a remote tool.
type version struct {
	raw          *tool.RawTool      // validation, limits, timeout, title, annotations
	output       *jsonschema.Schema // the server's output schema; nil if none
	migratesFrom []string           // the earlier versions whose calls the server upgrades
	def          string             // the server's definition, to tell a change
	// The server's schemas as it sent them, listed as they are
	// (tool.SchemaDocumenter), the input schema's root typed as an object
	// where it said nothing of its kind (dynamic.Document.TypedObject);
	// output is nil when it sent none.
	inputDoc, outputDoc json.RawMessage
}

func (r *remote) Name() string { return r.name }

// Spec returns the tool's current spec, its output schema included.
func (r *remote) Spec() tool.Spec { return r.cur.Load().spec() }

// SpecDocuments returns the tool's current spec with its schemas as the
// server sent them (see tool.SchemaDocumenter), which an MCP server
// lists as they are.
func (r *remote) SpecDocuments() (tool.Spec, json.RawMessage, json.RawMessage) {
	v := r.cur.Load()
	return v.spec(), v.inputDoc, v.outputDoc
}

var _ tool.SchemaDocumenter = (*remote)(nil)

// spec returns the version's spec, its output schema included.
func (v *version) spec() tool.Spec {
	spec := v.raw.Spec()
	if v.output != nil {
		spec.OutputSchema = v.output.CloneSchemas()
	}
	spec.MigratesFrom = slices.Clone(v.migratesFrom)
	return spec
}

// Timeout returns the bound on each call (Options.Timeout; see tool.Timed).
func (r *remote) Timeout() time.Duration { return r.cur.Load().raw.Timeout() }

// ResultBudget returns the budget the server declares for the tool's
// results, as anthropic/maxResultSizeChars (see tool.Budgeted); 0 when it
// declares none.
func (r *remote) ResultBudget() int { return r.cur.Load().raw.ResultBudget() }

// Enabled reports whether the server offers the tool now.
func (r *remote) Enabled(context.Context) bool { return !r.gone.Load() }

// Stream validates the call's arguments against the tool's input schema
// and, when they pass, calls the tool on the server; a tool whose server
// migrates from earlier versions sends every call on, for the server to
// upgrade or refuse. A call the server
// answers has the server's text as its Content, its images, audio and
// resources as Parts, its structured content as Structured (when the tool
// has an output schema) and the *mcp.CallToolResult as Output.
func (r *remote) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	if r.gone.Load() {
		call.Name = r.name
		res := tool.ErrorResult(call, &tool.DisabledToolError{Tool: r.name, CallID: call.ID, Err: tool.ErrDisabled})
		return func(yield func(tool.Event) bool) { yield(tool.Event{Result: &res}) }
	}
	return r.cur.Load().raw.Stream(ctx, call)
}

// Forward returns the tool's current version, which runs a call to its end
// with no goroutine of the remote's (see tool.Forwarder); nil once the
// server no longer offers the tool, for Stream to answer.
func (r *remote) Forward() tool.Interface {
	if r.gone.Load() {
		return nil
	}
	return r.cur.Load().raw
}

var _ tool.Forwarder = (*remote)(nil)

var (
	errDuplicate = errors.New("the server lists two tools of this name")
	errNotObject = errors.New("the structured content is not a JSON object")
	errOffSchema = errors.New("the structured content does not satisfy the output schema")
)

// maxOutputIssues is how many of the ways a server's structured content
// fails its output schema an error lists.
const maxOutputIssues = 5

// sentOf returns the schemas of the tool named name as the listing kept
// them, as sent (the schemas stage); none where it kept none.
func (c *Client) sentOf(name string) sentSchemas {
	c.sentMu.Lock()
	defer c.sentMu.Unlock()
	return c.sent[name]
}

// build makes a version of the tool mt describes, its schemas read once
// from the bytes sent (sentSchema), or returns why it cannot; a nil
// version without an error means Include left it out.
func (c *Client) build(mt *mcp.Tool, sent sentSchemas, def string) (*version, error) {
	var opts []tool.Option
	switch {
	case c.opts.Timeout == 0:
		opts = append(opts, tool.WithTimeout(DefaultTimeout))
	case c.opts.Timeout > 0:
		opts = append(opts, tool.WithTimeout(c.opts.Timeout))
	}
	if c.opts.Limits != (tool.Limits{}) {
		opts = append(opts, tool.WithLimits(c.opts.Limits))
	}
	title := mt.Title
	if a := mt.Annotations; a != nil {
		if title == "" {
			title = a.Title
		}
		opts = append(opts, tool.WithAnnotations(annotations(a)))
	}
	if title != "" {
		opts = append(opts, tool.WithTitle(title))
	}
	declared := upstreamVersion(mt.Meta)
	var migratesFrom []string
	if declared != "" {
		opts = append(opts, tool.WithVersion(declared))
		migratesFrom = upstreamMigratesFrom(mt.Meta)
	}
	if n := upstreamBudget(mt.Meta); n > 0 {
		opts = append(opts, tool.WithResultBudget(n))
	}
	support := mcptask.Execution(mt.Meta)
	if support == string(tool.TaskRequired) || support == string(tool.TaskOptional) {
		// The client runs it either way: as a task when the server
		// requires one, plainly otherwise. To hands' own clients it is a
		// tool that may take long.
		opts = append(opts, tool.WithTaskSupport(tool.TaskOptional))
	}
	if support != string(tool.TaskRequired) {
		// Called plainly, the SDK's CallTool returns when its context
		// ends; a call as a task may outlive it, to cancel the task.
		opts = append(opts, tool.WithContextBoundHandler())
	}
	description := mt.Description
	if description == "" {
		description = nameOr(title, fmt.Sprintf("The tool %s of the MCP server %s.", mt.Name, c.name))
	}
	var out *jsonschema.Schema
	var outDoc json.RawMessage
	var check *dynamic.Validator // of structured content, against the output schema
	if mt.OutputSchema != nil {
		doc, err := sentSchema(sent.output, mt.OutputSchema)
		if err == nil {
			check, err = doc.Validator()
		}
		if err == nil {
			out, err = doc.Schema()
		}
		if err != nil {
			return nil, fmt.Errorf("the output schema: %w", err)
		}
		outDoc = doc.Bytes()
	}
	name := c.opts.Prefix + mt.Name
	input, err := sentSchema(sent.input, mt.InputSchema)
	if err != nil {
		return nil, &tool.DefinitionError{Tool: name, Err: err}
	}
	input = input.TypedObject()
	run := c.handler(mt.Name, check, support)
	raw, err := dynamic.NewFromDocument(name, description, input, run, opts...)
	if err != nil {
		return nil, err
	}
	if len(migratesFrom) > 0 {
		// The server upgrades calls made against its earlier versions,
		// whose schemas the client does not have: it sends every call on,
		// and the server, which validates each against its version, is
		// the one to refuse.
		if raw, err = tool.DefineRaw(raw.Spec(), nil, run, opts...); err != nil {
			return nil, err
		}
	}
	v := &version{raw: raw, output: out, migratesFrom: migratesFrom, def: def, inputDoc: input.Bytes(), outputDoc: outDoc}
	for _, d := range c.opts.Dialects {
		if err := d.Check(dialect.ToolSchema{Name: raw.Name(), Schema: raw.Spec().InputSchema}); err != nil {
			return nil, err
		}
	}
	if c.opts.Include != nil && !c.opts.Include(remoteSpec(v)) {
		return nil, nil
	}
	return v, nil
}

// upstreamVersion returns the version a listed tool declares in its _meta,
// under the key hands' own server writes (mcpserver.VersionMeta): a
// string of at most mcpmeta.MaxVersionBytes, trimmed. Anything else there
// (a number, an empty or overlong string, text that is not UTF-8) is not
// a version, and the tool has none.
func upstreamVersion(meta mcp.Meta) string {
	v, ok := meta[mcpmeta.Version].(string)
	v = strings.TrimSpace(v)
	if !ok || v == "" || len(v) > mcpmeta.MaxVersionBytes || !utf8.ValidString(v) {
		return ""
	}
	return v
}

// upstreamBudget returns the budget a listed tool declares for its
// results in its _meta, as Claude Code's anthropic/maxResultSizeChars
// (mcpserver.ResultBudgetMeta), in bytes: a whole number from
// tool.MinResultBudget (a smaller one is raised to it) to 500000 (a larger
// one is lowered to it); 0 when there is none, or it is not such a number.
// Characters are read as bytes, so a result of as many bytes as the tool
// declares characters reaches the model whole.
func upstreamBudget(meta mcp.Meta) int {
	v, ok := meta[mcpmeta.MaxResultSizeChars].(float64)
	if !ok || v != math.Trunc(v) || v <= 0 {
		return 0
	}
	return int(min(max(v, tool.MinResultBudget), mcpmeta.MaxResultSizeCharsCeiling))
}

// upstreamMigratesFrom returns the earlier versions a listed tool says
// its server upgrades calls of, in its _meta (mcpserver.MigratesFromMeta):
// at most mcpmeta.MaxMigratesFrom versions, each as upstreamVersion takes
// one; anything else there is not read.
func upstreamMigratesFrom(meta mcp.Meta) []string {
	list, ok := meta[mcpmeta.MigratesFrom].([]any)
	if !ok || len(list) > mcpmeta.MaxMigratesFrom {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s := upstreamVersion(mcp.Meta{mcpmeta.Version: v})
		if s == "" {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// migratedFrom returns the version the server says it upgraded a call
// from, in the result's _meta (mcpserver.MigratedFromMeta); "" for none.
func migratedFrom(meta mcp.Meta) string {
	return upstreamVersion(mcp.Meta{mcpmeta.Version: meta[mcpmeta.MigratedFrom]})
}

func remoteSpec(v *version) tool.Spec {
	spec := v.raw.Spec()
	spec.OutputSchema = v.output
	spec.MigratesFrom = v.migratesFrom
	return spec
}

// annotations maps MCP's hints to hands' annotations, with MCP's defaults
// for the hints the server left out (destructive and open-world: true);
// a read-only tool is not destructive, whatever the hint says, since MCP
// gives the hint meaning only for tools that are not read-only.
func annotations(a *mcp.ToolAnnotations) tool.Annotations {
	deref := func(p *bool) bool { return p == nil || *p }
	return tool.Annotations{
		ReadOnly:    a.ReadOnlyHint,
		Destructive: !a.ReadOnlyHint && deref(a.DestructiveHint),
		Idempotent:  a.IdempotentHint,
		OpenWorld:   deref(a.OpenWorldHint),
	}
}

// interruptKey is the context key of the function that interrupts a call
// of the client's tools (Interrupt).
type interruptKey struct{}

// Interrupt ends the call of the client's tools that ctx belongs to (the
// ctx Options.Elicit or Options.Sample is given, one of CallsUnderWay, or
// one derived from them) with err, which must match tool.ErrInterrupted:
// the call to the server is cancelled, and the tool's handler returns err
// in place of the server's answer. A relay whose client takes its requests
// in the call's result rather than while the call waits (mcpserver's
// ElicitRequest and Sample, on protocol versions from 2026-07-28, return
// such an error) interrupts the call with it; the client calls again
// with the answer, the handler runs again from the start, and the
// server's request of the new call gets the answer. It reports false
// when ctx belongs to no call under way, or err does not match
// tool.ErrInterrupted.
func Interrupt(ctx context.Context, err error) bool {
	interrupt, ok := ctx.Value(interruptKey{}).(context.CancelCauseFunc)
	if !ok || !errors.Is(err, tool.ErrInterrupted) {
		return false
	}
	interrupt(err)
	return true
}

// ReadOnly reports whether a tool says it does not change its environment:
// an Options.Include that offers only such tools.
func ReadOnly(spec tool.Spec) bool { return spec.Annotations != nil && spec.Annotations.ReadOnly }

// handler returns the handler of a remote tool: it runs once the arguments
// passed the tool's schema, and sends them to the server as they are.
// A result's structured content is kept when the tool has an output
// schema (check is not nil) and the content satisfies it. support is the
// tool's execution.taskSupport: a tool that requires a task is called as
// one, and one that allows a task may be answered with one (see
// callTool).
func (c *Client) handler(remoteName string, check *dynamic.Validator, support string) func(ctx context.Context, args json.RawMessage) (any, error) {
	asTask := support == string(tool.TaskRequired)
	mayBeTask := asTask || support == string(tool.TaskOptional)
	return func(ctx context.Context, args json.RawMessage) (any, error) {
		params := &mcp.CallToolParams{Name: remoteName, Arguments: args}
		n := c.tokens.Add(1)
		token := "hands-" + strconv.FormatUint(n, 10)
		// The token names the call in the server's requests (callOf) too, so
		// it is sent whether or not anyone reads the call's progress.
		params.SetProgressToken(token)
		params.Meta = mcptrace.Inject(ctx, params.Meta) // SEP-414: the server's spans continue the caller's trace
		call, interrupt := context.WithCancelCause(ctx)
		defer interrupt(nil)
		call = context.WithValue(call, interruptKey{}, interrupt)
		stop := c.forward(call, token, n, tool.ReportsProgress(ctx))
		res, err := c.callTool(call, params, asTask, mayBeTask)
		stop()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err() // the call's end: cancelled, or past its timeout
			}
			if cause := context.Cause(call); errors.Is(cause, tool.ErrInterrupted) {
				return nil, cause // Interrupt: the handler waits for an answer
			}
			return nil, callError(c.name, remoteName, err)
		}
		out := tool.Result{Content: cutText(text(res), c.opts.MaxTextBytes), Parts: partsOf(res), Output: res}
		if from := migratedFrom(res.Meta); from != "" {
			out.Repairs = []tool.Repair{{Kind: tool.RepairMigrated, Version: from}}
		}
		if out.Parts != nil {
			out.Parts = cutParts(out.Parts, c.opts.MaxTextBytes)
			out.Content = tool.PartsText(out.Parts) // the parts' own text, which a reader checks them against
		}
		if res.IsError {
			return nil, toolError(c.name, remoteName, out.Content, res)
		}
		if check != nil && res.StructuredContent != nil {
			data, err := json.Marshal(res.StructuredContent)
			if err != nil || len(data) == 0 || data[0] != '{' {
				return nil, callError(c.name, remoteName, errNotObject)
			}
			if err := check.Validate(data); err != nil {
				// Not %w: the issues are the server's, not the model's
				// arguments', and must not read as a request to fix them.
				return nil, callError(c.name, remoteName, fmt.Errorf("%w: %s", errOffSchema, issuesText(err)))
			}
			out.Structured = data
			if out.Content == "" {
				out.Content = string(data)
			}
		}
		return out, nil
	}
}

// issuesText lists the first few issues of a validation error, one per
// line.
func issuesText(err error) string {
	serr, ok := errors.AsType[*schema.Error](err)
	if !ok {
		return err.Error()
	}
	issues := serr.Issues
	more := len(issues) - maxOutputIssues
	if more > 0 {
		issues = issues[:maxOutputIssues]
	}
	var b strings.Builder
	for _, is := range issues {
		b.WriteString("\n")
		b.WriteString(is.String())
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n(and %d more)", more)
	}
	return b.String()
}

// partsOf returns a result's content as tool parts, so that images, audio
// and resources reach a client of hands as what they are; nil when the
// result is text alone, whose Content says everything.
func partsOf(res *mcp.CallToolResult) []tool.Part {
	parts := make([]tool.Part, 0, len(res.Content))
	textOnly := true
	for _, c := range res.Content {
		var p tool.Part
		var a *mcp.Annotations
		var meta mcp.Meta
		switch c := c.(type) {
		case *mcp.TextContent:
			p, a, meta = tool.Text(c.Text), c.Annotations, c.Meta
		case *mcp.ImageContent:
			p, a, meta = tool.Image(c.MIMEType, c.Data), c.Annotations, c.Meta
		case *mcp.AudioContent:
			p, a, meta = tool.Audio(c.MIMEType, c.Data), c.Annotations, c.Meta
		case *mcp.ResourceLink:
			p, a, meta = tool.Link(c.URI, c.Name, c.MIMEType), c.Annotations, c.Meta
			p.Title, p.Description, p.Size = c.Title, c.Description, c.Size
		case *mcp.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Blob != nil {
				p = tool.ResourceBlob(r.URI, r.MIMEType, r.Blob)
			} else {
				p = tool.Resource(r.URI, r.MIMEType, r.Text)
			}
			a, meta = c.Annotations, c.Meta
		default:
			continue
		}
		if a != nil {
			p.Annotations = &tool.PartAnnotations{Priority: a.Priority, LastModified: a.LastModified}
			for _, role := range a.Audience {
				p.Annotations.Audience = append(p.Annotations.Audience, string(role))
			}
		}
		if len(meta) > 0 {
			p.Meta = meta
		}
		if p.Kind != tool.PartText || p.Annotations != nil || p.Meta != nil {
			textOnly = false // text alone, as Content says it, would lose what the part says of itself
		}
		parts = append(parts, p)
	}
	if textOnly {
		return nil
	}
	return parts
}

// text renders a result's content for a model: text as it is, and a line
// that says what else there is.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[image: %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[resource: %s %s]", c.URI, c.Name)
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil && r.Text != "" {
				b.WriteString(r.Text)
			} else if r != nil {
				fmt.Fprintf(&b, "[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
			}
		default:
			fmt.Fprintf(&b, "[%T]", c)
		}
	}
	return b.String()
}

// A forwarder hands the progress of one call to tool.Progress. The SDK
// delivers notifications on the connection's goroutine, which must not
// wait for a slow consumer, so a forwarder keeps the latest report and a
// goroutine of the call passes it on.
type forwarder struct {
	ctx    context.Context // the call's
	began  uint64          // the number of the call's progress token: calls begin in its order
	ended  bool            // the call has returned; guarded by Client.progressMu
	mu     sync.Mutex
	latest *mcp.ProgressNotificationParams
	wake   chan struct{} // capacity 1
}

func (f *forwarder) put(p *mcp.ProgressNotificationParams) {
	f.mu.Lock()
	f.latest = p
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *forwarder) take() *mcp.ProgressNotificationParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.latest
	f.latest = nil
	return p
}

// forward records a call under way, under token, until stop is called
// (causedBy finds it there) and, when report is set, passes the progress
// reported for token to tool.Progress(ctx) on a goroutine of its own; stop
// returns once the last report is passed on.
func (c *Client) forward(ctx context.Context, token string, began uint64, report bool) (stop func()) {
	f := &forwarder{ctx: ctx, began: began, wake: make(chan struct{}, 1)}
	c.progressMu.Lock()
	c.progress[token] = f
	c.progressMu.Unlock()
	if !report {
		return func() {
			c.progressMu.Lock()
			delete(c.progress, token)
			f.ended = true
			c.progressMu.Unlock()
		}
	}
	send := func() {
		if p := f.take(); p != nil {
			tool.Progress(ctx, tool.ProgressReport{Done: p.Progress, Total: p.Total, Message: p.Message})
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-f.wake:
				send()
			case <-done:
				send()
				return
			}
		}
	})
	return func() {
		c.progressMu.Lock()
		delete(c.progress, token)
		f.ended = true
		c.progressMu.Unlock()
		close(done)
		wg.Wait()
	}
}

// onProgress is the SDK's handler of notifications/progress.
func (c *Client) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token, _ := req.Params.ProgressToken.(string)
	c.progressMu.Lock()
	f := c.progress[token]
	c.progressMu.Unlock()
	if f != nil {
		f.put(req.Params)
	}
}

// cutParts holds the text of parts (text parts and text resources) to max
// bytes in all, as cutText does for one text: the part that reaches the
// bound is cut with a note, and the text parts after it are left out; the
// other parts stay. The parts are copied before they are changed.
func cutParts(parts []tool.Part, max int) []tool.Part {
	max = cmp.Or(max, DefaultMaxTextBytes)
	if max < 0 {
		return parts
	}
	out := make([]tool.Part, 0, len(parts))
	left := max
	for _, p := range parts {
		if p.Kind != tool.PartText && (p.Kind != tool.PartResource || p.Data != nil) {
			out = append(out, p)
			continue
		}
		if left == 0 && len(p.Text) > 0 {
			continue // past the bound: the note on the part that reached it says so
		}
		if len(p.Text) > left {
			p.Text = cutAt(p.Text, left)
			left = 0
		} else {
			left -= len(p.Text)
		}
		out = append(out, p)
	}
	return out
}

// cutText cuts a result's text to max bytes (DefaultMaxTextBytes when
// zero, no cut when negative) at a character boundary, with a note the
// model reads.
func cutText(s string, max int) string {
	max = cmp.Or(max, DefaultMaxTextBytes)
	if max < 0 || len(s) <= max {
		return s
	}
	return cutAt(s, max)
}

// cutAt cuts s to at most max bytes at a character boundary, with a note.
func cutAt(s string, max int) string {
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[truncated: %d more bytes]", len(s)-cut)
}
