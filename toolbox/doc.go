// Package toolbox holds ready-made tools for models, each built with
// package tool and configured by an options struct:
//
//   - [HostFile], host_file: write a file to a bucket and return its public
//     URL. Upload from the sandbox to R2 (or any bucket gocloud.dev opens)
//     and get a link to share.
//   - [FetchMarkdown], fetch_markdown: fetch a web page and return it as
//     Markdown, behind an address guard that keeps it off private networks.
//
// A tool's resources come in through its constructor, and its handler
// reaches them by closure, so that the tool, its schema and its bindings sit
// in one place:
//
//	var env struct {
//		Files     *blob.Bucket `bind:"FILES,default=file://./hands-data"`
//		PublicURL string       `bind:"PUBLIC_URL,default=http://localhost:8080/files"`
//	}
//	if err := bind.Load(ctx, &env, nil); err != nil { ... }
//
//	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{
//		toolbox.HostFile(env.Files, env.PublicURL, nil),
//		toolbox.FetchMarkdown(nil),
//	}})
//
// # Refusals
//
// Each tool checks what it can in its input's schema (lengths, a pattern, a
// URL format), so the model sees the rules before it calls; the rest is
// checked in a Validate method, and both come back to the model as issues
// at the field's path. What can only be known while running — content over
// a size limit, a private address behind a public name, a binary response —
// is an error that wraps a sentinel of this package (ErrTooLarge,
// ErrBlocked, ErrRedirect, ErrContentType, ErrStatus) and whose text tells
// the model what to change.
//
// # Converting pages
//
// fetch_markdown's timeout (FetchOptions.Timeout) bounds the whole call,
// the conversion to Markdown included: the tool runs under
// tool.WithTimeout, which ends the call at the deadline. What the tool
// returns is at most FetchOptions.MaxOutputBytes long (256 KiB by
// default): a longer result is cut at a character boundary and ends with a
// note such as "[truncated: 81234 more bytes; …]", so the model knows it
// saw part.
//
// # The address guard
//
// fetch_markdown reads pages a model chose, so by default it connects only
// to public internet addresses. The check runs in the dialer on the IP
// address actually dialed, after DNS resolution and for every redirect:
// loopback, private, link-local (cloud metadata at 169.254.169.254
// included), multicast, shared (CGNAT), reserved and unspecified addresses
// are refused, in their IPv4 and IPv6 forms. FetchOptions.AllowPrivate
// turns the guard off for trusted networks; nothing else weakens it.
package toolbox
