package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/hands-go/hands/toolbox/netguard"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one call: waiting for a page, loading it, the
	// steps, and reading it.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxPages is how many pages are open at once, across callers;
	// a call beyond it waits for one to close, within its timeout.
	DefaultMaxPages = 2
	// DefaultMaxContexts is how many callers keep a browser context at
	// once; the one idle the longest is closed to make room.
	DefaultMaxContexts = 16
	// DefaultIdleTimeout is how long a caller's browser context, its
	// cookies and storage, outlives the caller's last call.
	DefaultIdleTimeout = 10 * time.Minute
	// DefaultMaxOutputBytes bounds the text a tool returns: 256 KiB.
	DefaultMaxOutputBytes = 256 << 10
	// DefaultMaxHTMLBytes bounds the rendered HTML read from a page for
	// conversion to Markdown: 4 MiB.
	DefaultMaxHTMLBytes = 4 << 20
	// DefaultMaxImageBytes bounds a screenshot: 4 MiB.
	DefaultMaxImageBytes = 4 << 20
	// DefaultMaxProcessMemory bounds the writable memory of each process
	// of a browser that New starts (RLIMIT_DATA, on Linux): 1 GiB.
	DefaultMaxProcessMemory = 1 << 30
	// MaxScreenshotHeight is the tallest full-page screenshot, in CSS
	// pixels; a longer page is cut there.
	MaxScreenshotHeight = 8192
)

// Options configure a Browser. The zero value starts the system Chromium,
// guards every connection with the default address guard, and selects
// every default.
type Options struct {
	// ExecPath is the Chromium (or Chrome) executable to start. If empty,
	// and RemoteURL is empty too, the first of chromium,
	// chromium-browser, google-chrome, google-chrome-stable and chrome
	// found on PATH.
	ExecPath string
	// RemoteURL is the DevTools WebSocket URL (ws:// or wss://) of a
	// browser that is already running, to use instead of starting one.
	// Its pages reach the network through this process's proxy at a
	// 127.0.0.1 address, so the browser must share this host's network
	// (a container with host networking, say). The process limits of
	// MaxProcessMemory do not apply to it.
	RemoteURL string
	// Guard checks every connection a page makes. If nil, only public
	// internet addresses may be reached (a nil *netguard.Guard).
	Guard *netguard.Guard
	// Caller names who calls, from the call's context, such as an MCP
	// session or a user: the calls of one caller share a browser context
	// (cookies, storage, cache), and no two callers ever do. If nil, or
	// if it returns "", each call gets a browser context of its own,
	// closed when the call ends.
	Caller func(ctx context.Context) string
	// MaxPages bounds the pages open at once. If zero or less,
	// DefaultMaxPages.
	MaxPages int
	// MaxContexts bounds the callers' browser contexts kept at once. If
	// zero or less, DefaultMaxContexts; it is at least MaxPages+1.
	MaxContexts int
	// IdleTimeout is how long a caller's browser context is kept after
	// its last call. If zero or less, DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Timeout bounds each call. If zero or less, DefaultTimeout.
	Timeout time.Duration
	// MaxOutputBytes bounds the text each tool returns; a longer text is
	// cut with a note. If zero or less, DefaultMaxOutputBytes.
	MaxOutputBytes int
	// MaxImageBytes bounds a screenshot. If zero or less,
	// DefaultMaxImageBytes.
	MaxImageBytes int
	// MaxProcessMemory bounds, in bytes, the writable memory of each
	// process of a browser that New starts (RLIMIT_DATA on Linux; not
	// elsewhere): a page that allocates more fails its allocation or
	// crashes, and the call says so. If zero or less,
	// DefaultMaxProcessMemory.
	MaxProcessMemory int64
	// Host, when set, also hosts each screenshot, and screenshot returns
	// its URL: key is a path such as "screenshots/<hash>.png", body the
	// image, contentType its media type. It returns the file's public
	// URL.
	Host func(ctx context.Context, key string, body []byte, contentType string) (url string, err error)
	// Script lets browser_execute run JavaScript steps the model writes
	// in the page. The tool is then annotated as destructive: a script
	// can do anything the page can, submit forms and spend money
	// included. Off by default.
	Script bool
	// ScriptSetting names, in a refusal the model reads, what an operator
	// sets to allow script steps. If empty, "browser.Options.Script".
	ScriptSetting string
	// Width and Height are the viewport, in CSS pixels. If zero or less,
	// 1280 by 800.
	Width, Height int
	// Logf receives the browser's diagnostics. If nil, they are dropped.
	Logf func(format string, args ...any)
}

// A Browser runs the browser tools' pages in one Chromium, started on the
// first call and started again after it crashes. Each caller's pages run
// in a browser context of its own, whose every connection goes through an
// address-guarded proxy. A Browser is safe for concurrent use; Close it
// to stop Chromium.
type Browser struct {
	opts  Options
	guard *netguard.Guard
	pages chan struct{} // one token for each open page

	mu       sync.Mutex
	closed   bool
	inst     *instance
	contexts map[string]*session // the callers' kept contexts
}

// An instance is one running browser.
type instance struct {
	ctx    context.Context // chromedp's root context of the browser
	cancel func()          // stops the browser, and waits for it
	proxy  *proxy          // the default context's proxy
}

// A session is one browser context, with its own proxy.
type session struct {
	inst   *instance
	id     cdp.BrowserContextID
	proxy  *proxy
	caller string // "" for a call's own context
	users  int
	last   time.Time
}

// New returns a Browser. Chromium is started on the first call. New fails
// if no Chromium is found, or opts.RemoteURL is not a ws:// or wss:// URL.
// opts may be nil.
func New(opts *Options) (*Browser, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.RemoteURL != "" {
		if !strings.HasPrefix(o.RemoteURL, "ws://") && !strings.HasPrefix(o.RemoteURL, "wss://") {
			return nil, fmt.Errorf("%w: the remote browser %q is not a ws:// or wss:// DevTools URL", ErrNoBrowser, o.RemoteURL)
		}
	} else if o.ExecPath == "" {
		o.ExecPath = FindChromium()
		if o.ExecPath == "" {
			return nil, fmt.Errorf("%w: none of %s is on PATH; install Chromium or name the executable", ErrNoBrowser, strings.Join(chromiumNames, ", "))
		}
	} else if _, err := exec.LookPath(o.ExecPath); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoBrowser, err)
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxContexts <= 0 {
		o.MaxContexts = DefaultMaxContexts
	}
	o.MaxContexts = max(o.MaxContexts, o.MaxPages+1)
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	o.MaxOutputBytes = max(o.MaxOutputBytes, minOutputBytes)
	if o.MaxImageBytes <= 0 {
		o.MaxImageBytes = DefaultMaxImageBytes
	}
	if o.MaxProcessMemory <= 0 {
		o.MaxProcessMemory = DefaultMaxProcessMemory
	}
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1280, 800
	}
	o.ScriptSetting = cmp.Or(o.ScriptSetting, "browser.Options.Script")
	return &Browser{
		opts:     o,
		guard:    o.Guard,
		pages:    make(chan struct{}, o.MaxPages),
		contexts: make(map[string]*session),
	}, nil
}

// chromiumNames are the executables FindChromium looks for, in order.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// FindChromium returns the path of the first of chromium,
// chromium-browser, google-chrome, google-chrome-stable and chrome found
// on PATH, or "" if there is none.
func FindChromium() string {
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Close closes every page and context and stops Chromium (a remote
// browser is left running, its contexts closed). Calls after Close fail
// with ErrClosed.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	for k, s := range b.contexts {
		delete(b.contexts, k)
		b.dispose(s)
	}
	if b.inst != nil {
		b.inst.cancel()
		b.inst.proxy.close()
		b.inst = nil
	}
	return nil
}

// flags are the command-line flags of a browser New starts, beyond
// chromedp's defaults.
func (b *Browser) flags(proxyAddr string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(b.opts.ExecPath),
		chromedp.Flag("headless", true),
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("deny-permission-prompts", true),
		// Every connection goes through the proxy, loopback ones too
		// (Chromium bypasses a proxy for them unless told not to), and
		// WebRTC sends no UDP around it.
		chromedp.ProxyServer("http://" + proxyAddr),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		// The browser resolves no name itself: the proxy does, and the
		// guard checks what it dials.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("renderer-process-limit", strconv.Itoa(2*b.opts.MaxPages+1)),
		chromedp.WindowSize(b.opts.Width, b.opts.Height),
	}
}

// start starts a browser, or connects to the remote one. Hold b.mu.
func (b *Browser) start() (*instance, error) {
	px, err := newProxy(b.guard)
	if err != nil {
		return nil, err
	}
	var actx context.Context
	var cancelAlloc context.CancelFunc
	if b.opts.RemoteURL != "" {
		actx, cancelAlloc = remote.NewAllocator(context.Background(), b.opts.RemoteURL)
	} else {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], b.flags(px.addr())...)
		actx, cancelAlloc = chromedp.NewExecAllocator(context.Background(), opts...)
	}
	var copts []chromedp.ContextOption
	if b.opts.Logf != nil {
		copts = append(copts, chromedp.WithLogf(b.opts.Logf), chromedp.WithErrorf(b.opts.Logf))
	} else {
		quiet := func(string, ...any) {}
		copts = append(copts, chromedp.WithLogf(quiet), chromedp.WithErrorf(quiet))
	}
	ctx, cancel := chromedp.NewContext(actx, copts...)
	stop := func() {
		// Browser.close first, so that Chromium ends its own processes
		// and reaps them, then the allocator's kill for what is left.
		chromedp.Cancel(ctx)
		cancel()
		cancelAlloc()
	}
	if err := chromedp.Do(ctx); err != nil {
		stop()
		px.close()
		return nil, fmt.Errorf("%w: start the browser: %v", ErrNoBrowser, err)
	}
	if b.opts.RemoteURL == "" {
		if p := chromedp.FromContext(ctx).Browser.Process(); p != nil {
			if err := limitTree(p.Pid, b.opts.MaxProcessMemory); err != nil && b.opts.Logf != nil {
				b.opts.Logf("browser: the memory limit could not be set: %v", err)
			}
		}
	}
	return &instance{ctx: ctx, cancel: stop, proxy: px}, nil
}

// running returns the running browser, starting it if there is none or
// the last one died. Hold b.mu.
func (b *Browser) running() (*instance, error) {
	if b.closed {
		return nil, ErrClosed
	}
	if b.inst != nil && b.inst.ctx.Err() != nil {
		// It crashed, or was killed: its contexts went with it.
		for k, s := range b.contexts {
			if s.inst == b.inst {
				delete(b.contexts, k)
				s.proxy.close()
			}
		}
		b.inst.cancel()
		b.inst.proxy.close()
		b.inst = nil
	}
	if b.inst == nil {
		inst, err := b.start()
		if err != nil {
			return nil, err
		}
		b.inst = inst
	}
	return b.inst, nil
}

// acquire returns the browser context of the caller of ctx, creating it
// (and the browser) if need be.
func (b *Browser) acquire(ctx context.Context) (*session, error) {
	caller := ""
	if b.opts.Caller != nil {
		caller = b.opts.Caller(ctx)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	inst, err := b.running()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	b.sweep(now)
	if caller != "" {
		if s := b.contexts[caller]; s != nil {
			s.users++
			s.last = now
			return s, nil
		}
	}
	s, err := b.newSession(ctx, inst)
	if err != nil {
		return nil, err
	}
	s.caller, s.users, s.last = caller, 1, now
	if caller != "" {
		b.contexts[caller] = s
	}
	return s, nil
}

// release ends a call's use of its context; a call's own context is
// closed.
func (b *Browser) release(s *session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.users--
	s.last = time.Now()
	if s.caller == "" || b.contexts[s.caller] != s {
		if s.users == 0 {
			b.dispose(s)
		}
	}
}

// sweep closes the callers' contexts idle past IdleTimeout, and the
// longest idle while there are MaxContexts or more. Hold b.mu.
func (b *Browser) sweep(now time.Time) {
	for k, s := range b.contexts {
		if s.users == 0 && now.Sub(s.last) > b.opts.IdleTimeout {
			delete(b.contexts, k)
			b.dispose(s)
		}
	}
	for len(b.contexts) >= b.opts.MaxContexts {
		var oldest *session
		for _, s := range b.contexts {
			if s.users == 0 && (oldest == nil || s.last.Before(oldest.last)) {
				oldest = s
			}
		}
		if oldest == nil {
			return
		}
		delete(b.contexts, oldest.caller)
		b.dispose(oldest)
	}
}

// newSession creates a browser context whose every connection goes
// through a proxy of its own, and which refuses downloads and permission
// requests.
func (b *Browser) newSession(ctx context.Context, inst *instance) (*session, error) {
	px, err := newProxy(b.guard)
	if err != nil {
		return nil, err
	}
	bc := chromedp.FromContext(inst.ctx).Browser
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	res, err := cdp.Call(cctx, bc, target.CreateBrowserContext, target.CreateBrowserContextParams{
		ProxyServer:     "http://" + px.addr(),
		ProxyBypassList: "<-loopback>",
	})
	if err != nil {
		px.close()
		return nil, fmt.Errorf("create a browser context: %w", err)
	}
	s := &session{inst: inst, id: res.BrowserContextID, proxy: px}
	if _, err := cdp.Call(cctx, bc, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: s.id,
	}); err != nil {
		b.dispose(s)
		return nil, fmt.Errorf("refuse downloads: %w", err)
	}
	for _, name := range deniedPermissions {
		// A permission this Chromium does not know is not an error of
		// the call: it cannot be asked for either.
		cdp.Call(cctx, bc, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingDenied, BrowserContextID: s.id,
		})
	}
	return s, nil
}

// deniedPermissions are the permissions a page is refused without a
// prompt, whatever it asks.
var deniedPermissions = []string{
	"geolocation", "notifications", "camera", "microphone", "midi",
	"clipboard-read", "display-capture", "idle-detection", "local-fonts",
	"storage-access", "window-management",
}

// dispose closes a browser context, every page in it, and its proxy.
// Hold b.mu.
func (b *Browser) dispose(s *session) {
	if s.inst.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cdp.Call(ctx, chromedp.FromContext(s.inst.ctx).Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: s.id})
		cancel()
	}
	s.proxy.close()
}

// pid returns the process ID of the running browser, or 0.
func (b *Browser) pid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil || b.inst.ctx.Err() != nil {
		return 0
	}
	if p := chromedp.FromContext(b.inst.ctx).Browser.Process(); p != nil {
		return p.Pid
	}
	return 0
}

// errOf names a failure of the browser for the model, adding what the
// browser's exit said.
func errOf(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return &opError{op: op, err: fmt.Errorf("%w: %v", ErrCrashed, ee)}
	}
	return &opError{op: op, err: err}
}
