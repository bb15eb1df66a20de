// Package toolbox is the family of ready-made tools for models, each built
// with package tool and configured by an options struct, one package to a
// kind of resource, so that a program links only what the tools it uses
// need:
//
//   - package web: fetch_markdown, a web page as Markdown, behind an
//     address guard that keeps it off private networks (package netguard).
//   - package files: host_file, a file written to a bucket (any that
//     gocloud.dev opens, such as R2) and its public URL; Hoster, the same
//     for other tools; Server, the bucket served over HTTP.
//   - package sqltool: sql_query and sql_schema on a *sql.DB (package
//     sqldb).
//   - package kvtool: kv_get, kv_put, kv_delete and kv_list on a *kv.Store
//     (package kv), memory that outlives a run.
//
// A tool's resources come in through its constructor, and its handler
// reaches them by closure, so that the tool, its schema and its bindings
// sit in one place:
//
//	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{
//		files.HostFile(env.Files, env.PublicURL, nil),
//		web.FetchMarkdown(nil),
//		sqltool.Query(env.DB, nil),
//	}})
//
// This package holds what the tools share, and uses only the standard
// library: the sentinels of their refusals, *OpError, and HostFunc, the
// way a tool that makes a file publishes it without importing a bucket.
//
// # Refusals
//
// Each tool checks what it can in its input's schema (lengths, a pattern, a
// URL format), so the model sees the rules before it calls; the rest is
// checked in a Validate method, and both come back to the model as issues
// at the field's path. What can only be known while running — content over
// a size limit, a private address behind a public name, a binary response —
// is an error that wraps a sentinel of this package (ErrTooLarge,
// ErrRedirect, ErrContentType, ErrStatus, ErrSymlink, ErrInvalidKey) or of
// package netguard (ErrBlocked, as a *netguard.BlockedError), and whose
// text tells the model what to change; the failure of an operation, such
// as fetching a page, is an *OpError that names it. No error names a path
// of the machine: the model learns keys, not where a bucket is on the
// disk.
package toolbox
