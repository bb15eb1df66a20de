// Package web holds fetch_markdown, the tool that reads a web page for a
// model:
//
//	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{
//		web.FetchMarkdown(nil),
//	}})
//
// [FetchMarkdown] fetches a page and returns it as Markdown, behind an
// address guard (package netguard) that keeps it off private networks.
// What it can only learn while running — a body over its size limit, a
// redirect it does not follow, a binary response, a failed status, a
// private address behind a public name — is an error that wraps a
// sentinel of package toolbox (toolbox.ErrTooLarge, toolbox.ErrRedirect,
// toolbox.ErrContentType, toolbox.ErrStatus) or netguard.ErrBlocked, inside
// a *toolbox.OpError that names the page.
//
// # Converting pages
//
// fetch_markdown's timeout (FetchOptions.Timeout) bounds the whole call,
// the conversion to Markdown included: the tool runs under
// tool.WithTimeout, which ends the call at the deadline, and the
// conversion itself stops when its context ends — the HTML parser reads
// through the context, and nothing more is rendered once it is done — so
// an abandoned call does not keep converting. What the tool returns is at
// most FetchOptions.MaxOutputBytes long (256 KiB by default): a longer
// result is cut at a character boundary and ends with a note such as
// "[truncated: 81234 more bytes; …]", so the model knows it saw part.
//
// The converter (github.com/JohannesKaufmann/html-to-markdown) and the
// HTML parser cost more than linear time and memory for some markup: a
// page under 1 KB of spanned table cells took 10–110 s and up to 11 GB and
// returned 115 MB. So the page is reshaped before it is converted, and the
// cost of a conversion grows linearly with the page, whatever its markup
// (BenchmarkBombs measures each shape at three sizes):
//
//   - Formatting elements other than a (b, i, em, strong, code, font, …)
//     are renamed while the page is parsed, so that the parser treats them
//     as ordinary elements and never copies the open ones into each new
//     paragraph, which made millions of nodes of a few kilobytes. The
//     renaming is a scan of the bytes, so no parser state can hide a tag
//     from it; an element closed out of order is not reopened after its
//     parent as a browser would.
//   - Only the first 100000 elements and text nodes are converted, and a
//     note says the rest was left out.
//   - Quotes, lists, headings, links, code and inline formatting nested
//     more than 8 deep are converted as plain blocks and spans: each level
//     rewrites every line below it.
//   - Comments and the elements the converter drops (script, style, …)
//     are removed first, and the text around them joined in one pass.
//   - Cell spans are clamped to HTML's limits (colspan 1000, rowspan
//     65534), and a table is drawn as a Markdown grid only when the grid
//     is at most 1000 columns and 100000 cells, and the grids of the page
//     together stay within a fixed budget of work; other tables, and
//     tables that hold tables, are converted as one block of text per
//     cell. Cells are not padded to their column's width, which saves the
//     model tokens and whose cost grew with rows × the longest cell.
//
// A page nested more than 512 elements deep is refused by the parser, at
// once.
//
// # The address guard
//
// fetch_markdown reads pages a model chose, so by default it connects only
// to public internet addresses. The check runs in the dialer on the IP
// address actually dialed, after DNS resolution and for every redirect:
// loopback, private, link-local (cloud metadata at 169.254.169.254
// included), multicast, shared (CGNAT), reserved and unspecified addresses
// are refused, in their IPv4 and IPv6 forms. FetchOptions.Allow opens
// exact endpoints (host:port) of internal services, and
// FetchOptions.AllowPrivate turns the guard off for trusted networks;
// nothing else weakens it.
package web
