package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A tab is one call's page: its own target in the caller's browser
// context, watched for what the page tries and is refused.
type tab struct {
	ctx     context.Context // the call's chromedp context: ends with the call, or when the page crashes
	session *session
	onCrash func()                          // ends the call when the page crashes
	target  atomic.Pointer[chromedp.Target] // the page, once open

	mu       sync.Mutex
	refused  []refusal // the guard's refusals during the call
	notes    []string
	inflight map[network.RequestID]bool
	quietAt  time.Time // when inflight last became empty
}

// maxNotes bounds the notes of one call.
const maxNotes = 20

// note records what the page tried and was refused, for the result.
func (t *tab) note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.notes) < maxNotes {
		t.notes = append(t.notes, s)
	}
}

// refusals returns the guard's refusals of the call so far.
func (t *tab) refusals() []refusal {
	r := t.session.proxy.takeRefusals()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.refused) < maxNotes {
		t.refused = append(t.refused, r...)
	}
	return t.refused
}

// takeNotes returns the notes of the call, the guard's refusals first.
func (t *tab) takeNotes() []string {
	var notes []string
	for _, r := range t.refusals() {
		notes = append(notes, r.String())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append(notes, t.notes...)
}

// blockedSchemes are the URL patterns of requests that are refused before
// they start: every scheme that does not reach the network through the
// proxy (http, https, ws, wss), and that a page could use to read the
// machine or the browser.
var blockedSchemes = []*fetch.RequestPattern{
	{URLPattern: "file:*"}, {URLPattern: "ftp:*"}, {URLPattern: "chrome:*"},
	{URLPattern: "chrome-extension:*"}, {URLPattern: "chrome-untrusted:*"},
	{URLPattern: "devtools:*"}, {URLPattern: "filesystem:*"}, {URLPattern: "view-source:*"},
}

// withTab runs fn in a new page of the caller's browser context, within
// the call's context ctx. When ctx ends — the call's timeout — or the page
// crashes, the page's JavaScript is terminated and the page closed,
// whatever it is doing; fn's actions then fail.
func (b *Browser) withTab(ctx context.Context, fn func(t *tab) error) error {
	select {
	case b.pages <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-b.pages }()
	s, err := b.acquire(ctx)
	if err != nil {
		return err
	}
	defer b.release(s)

	t := &tab{session: s, inflight: map[network.RequestID]bool{}, quietAt: time.Now()}
	s.proxy.takeRefusals() // those of an earlier call of the caller's
	tctx, closeTab := chromedp.NewContext(s.inst.ctx, chromedp.WithExistingBrowserContext(s.id), chromedp.WithListener(t.listen))
	defer closeTab()
	runCtx, cancelRun := context.WithCancelCause(tctx)
	defer cancelRun(nil)
	stop := context.AfterFunc(ctx, func() { cancelRun(context.Cause(ctx)) })
	defer stop()
	t.ctx = runCtx
	crashed := make(chan struct{})
	var crashOnce sync.Once
	t.onCrash = func() {
		crashOnce.Do(func() {
			close(crashed)
			cancelRun(fmt.Errorf("%w: the page crashed, most likely over the memory limit of %d MiB; try a lighter page", ErrCrashed, b.opts.MaxProcessMemory>>20))
		})
	}

	if err := chromedp.Do(runCtx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		t.target.Store(tg)
		if _, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: blockedSchemes}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
			return err
		}
		return nil
	})); err != nil {
		return t.fail("open a page", err)
	}

	err = fn(t)

	select {
	case <-crashed:
	default:
		if ctx.Err() != nil {
			// Stop a script that ignores everything (while(true){}) before
			// the page is closed: closing waits on the page otherwise.
			kctx, cancel := context.WithTimeout(tctx, 2*time.Second)
			if tg := t.target.Load(); tg != nil {
				cdp.Call(kctx, tg, runtime.TerminateExecution, cdp.Empty{})
			}
			cancel()
		}
	}
	if err != nil {
		return t.fail("", err)
	}
	return nil
}

// fail turns an error of a page's action into the error the model reads:
// the crash or the call's end that caused it, if any.
func (t *tab) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(t.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // the crash, or the call's deadline
	}
	if _, ok := errors.AsType[*opError](err); ok || op == "" {
		return err
	}
	return errOf(op, err)
}

// listen handles the page's events. It runs on chromedp's reading
// goroutine: it sends no command itself.
func (t *tab) listen(ev any) {
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		t.note(fmt.Sprintf("dismissed a %s dialog: %q", ev.Type, clip(ev.Message, 200)))
		go t.command(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			return err
		})
	case *page.EventFileChooserOpened:
		t.note("refused a file chooser: the browser tools upload no files")
	case *fetch.EventRequestPaused:
		t.note(fmt.Sprintf("refused a request to %s: only http and https are loaded", clip(ev.Request.URL, 200)))
		id := ev.RequestID
		go t.command(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonBlockedByClient})
			return err
		})
	case *inspector.EventTargetCrashed:
		if t.onCrash != nil {
			go t.onCrash()
		}
	case *network.EventRequestWillBeSent:
		t.mu.Lock()
		t.inflight[ev.RequestID] = true
		t.mu.Unlock()
	case *network.EventLoadingFinished:
		t.done(ev.RequestID)
	case *network.EventLoadingFailed:
		t.done(ev.RequestID)
	}
}

// done records the end of a request.
func (t *tab) done(id network.RequestID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inflight[id] {
		delete(t.inflight, id)
		if len(t.inflight) == 0 {
			t.quietAt = time.Now()
		}
	}
}

// idleFor reports whether no request has been in flight for d.
func (t *tab) idleFor(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inflight) == 0 && time.Since(t.quietAt) >= d
}

// command sends a command to the page from a goroutine of its own, within
// the call.
func (t *tab) command(f func(ctx context.Context, tg *chromedp.Target) error) {
	tg := t.target.Load()
	if tg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	f(ctx, tg)
}

// clip cuts s to at most n bytes, for a note.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
