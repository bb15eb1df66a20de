// Package browser holds the browser tools: browse, which returns a page
// as a browser rendered it, in Markdown; screenshot, which returns an
// image of a page; and browser_execute, which runs steps (navigate, click,
// type, select, wait, scroll, extract) in one page. They run in a headless
// Chromium that a [Browser] starts on the first call and starts again if
// it crashes, or in a remote browser at a DevTools URL.
//
//	b, err := browser.New(&browser.Options{Caller: callerOf})
//	if err != nil { ... } // no Chromium: serve the other tools
//	defer b.Close()
//	tools := []tool.Interface{b.Browse(), b.Screenshot(), b.Execute()}
//
// # Isolation
//
// Each caller (Options.Caller) gets a browser context of its own
// (Target.createBrowserContext): cookies, storage and cache are never
// shared between callers, and a call without a caller gets a context that
// is closed when the call ends. A caller's context is kept for
// Options.IdleTimeout after its last call, and at most Options.MaxContexts
// are kept.
//
// # The address guard
//
// Every request a page makes — the page itself, its redirects, scripts,
// images, fetches, iframes and WebSockets — goes through an HTTP proxy of
// this process, one for each browser context, on a 127.0.0.1 port, and the
// proxy dials through the address guard (package netguard), on the address
// being dialed, after DNS resolution. So a page cannot reach loopback,
// private or link-local addresses (the cloud metadata service included),
// whether by a redirect, a fetch, an iframe or a WebSocket, nor by a name
// that resolves to one (DNS rebinding), unless the guard allows it. The
// browser is told to send loopback addresses through the proxy too (which
// Chromium otherwise bypasses), to resolve no name itself, and to send no
// WebRTC traffic around the proxy. Requests of other schemes (file:,
// chrome:, ftp:, …) are refused before they start.
//
// # Refused
//
// Downloads, file choosers and permission requests (location, camera,
// notifications, clipboard, …) are refused, and dialogs (alert, confirm,
// prompt) dismissed; the result's notes say what the page tried.
//
// # Bounds
//
// Every call has a time limit (Options.Timeout) that the page cannot
// ignore: at the deadline the page's JavaScript is terminated and the page
// closed, whatever it is doing (a while(true){} loop included). Each
// process of a browser that New starts may write at most
// Options.MaxProcessMemory bytes (RLIMIT_DATA, on Linux), so a page that
// allocates gigabytes fails its allocation or crashes, and the call says
// so. At most Options.MaxPages pages are open at once; further calls wait
// for one, within their time limit. Close stops the browser and every
// process it started.
package browser
