// Package toolbox holds ready-made tools for models, each built with
// package tool and configured by an options struct:
//
//   - [HostFile], host_file: write a file to a bucket and return its public
//     URL. Upload from the sandbox to R2 (or any bucket gocloud.dev opens)
//     and get a link to share.
//   - [FetchMarkdown], fetch_markdown: fetch a web page and return it as
//     Markdown, behind an address guard that keeps it off private networks.
//   - [SQLQuery], sql_query: run one SQL statement on a *sql.DB, read-only
//     unless the operator allows writes, bounded in rows, bytes and time by
//     the database itself (package sqldb); the model reads a table, and
//     clients get the columns and rows as structured output.
//   - [SQLSchema], sql_schema: the tables, columns, types and keys.
//   - [KVTools], kv_get, kv_put, kv_delete and kv_list: memory that outlives
//     a run, in a *kv.Store (package kv).
//
// [FileServer] serves a bucket's files over HTTP, at the URLs host_file
// returns when the program itself is their public URL.
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
// ErrRedirect, ErrContentType, ErrStatus, ErrSymlink) or of package
// netguard (ErrBlocked, as a *netguard.BlockedError), and whose text tells
// the model what to change. No error names a path of the
// machine: the model learns keys, not where the bucket is on the disk.
//
// # Directory buckets
//
// A bucket that gocloud's fileblob opened on a directory (a file:// URL,
// such as the default bucket of the hands command) is read and written by this
// package itself, in fileblob's layout — the body at the key's path, the
// content type in a JSON file beside it whose name adds ".attrs" — so that
// the directory stays a fileblob bucket, but not in fileblob's way, which
// gets four things wrong for a tool that a model drives:
//
//   - Symbolic links. fileblob follows them, so a link in the directory
//     would serve /etc/hostname, and a write under a linked folder would
//     land outside the bucket. host_file and FileServer follow none: a key that
//     is a link or lies below one is refused (ErrSymlink; 403 from
//     FileServer), and every file operation goes through an os.Root of the
//     directory, so not even a link swapped in midway leads out of it.
//   - Pairing a body with its type. fileblob rewrites the .attrs file in
//     place and then renames the body into place, unlocked, so concurrent
//     writes of one key could leave one writer's body with another's
//     content type, and a reader could see a half-written .attrs file.
//     Here a write renames a complete .attrs file and then the body into
//     place under a lock of the key, which FileServer takes to read the
//     pair, so that, within the process, a read always pairs a body with
//     its own type. Another process writing the same directory is not kept
//     in step.
//   - What else the directory holds. Every file in it is one host_file may
//     replace and FileServer serves to anyone, so a program must keep
//     nothing of its own there (a database, a config file, tokens):
//     BucketDir tells a bucket's directory, to check against. The hands
//     command refuses to start with such a bucket.
//   - Temporary files. fileblob writes them in $TMPDIR and renames them
//     into the bucket, which fails when $TMPDIR is on another file system.
//     Here they are written in the key's own folder, named
//     ".hands-RANDOM.tmp"; only a crash leaves one behind.
//   - Paths in errors. fileblob's errors carry the absolute paths of the
//     directory and of $TMPDIR; these name keys only.
//
// A name that ends in ".attrs" is refused as a key in every bucket, so that
// the same keys work everywhere, and FileServer never serves one (404).
// The bucket's directory is found from the path in fileblob's error for a
// key that does not exist, checked against the directory's os.FileInfo
// that fileblob gives through Bucket.As; fileblob offers no other way.
//
// # Serving files
//
// FileServer serves what host_file writes: read-only, with the stored
// content type — plus charset=utf-8 for a text type that names no charset,
// since host_file stores text as UTF-8 and a browser would guess otherwise
// — and with nosniff and a sandboxing Content-Security-Policy, so that a
// hosted page runs no script with the server's origin.
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
// are refused, in their IPv4 and IPv6 forms. FetchOptions.AllowPrivate
// turns the guard off for trusted networks; nothing else weakens it.
package toolbox
