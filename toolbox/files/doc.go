// Package files holds host_file, the tool that publishes a file a model
// wrote, and what goes with it: a way for other tools to publish files
// the same way, and a server of the published files.
//
//   - [HostFile], host_file: write a file to a bucket and return its public
//     URL. Upload from the sandbox to R2 (or any bucket gocloud.dev opens)
//     and get a link to share.
//   - [Hoster]: the same checks and writes as a toolbox.HostFunc, for a
//     tool that makes a file (a screenshot, a generated image) and
//     returns its link.
//   - [Server]: an http.Handler that serves a bucket's files at the URLs
//     host_file returns, when the program itself is their public URL.
//   - [BucketDir]: the directory of a bucket on the disk, to check that
//     the program keeps none of its own files there.
//
// The bucket and its public URL come in through the constructor:
//
//	var env struct {
//		Files     *blob.Bucket `bind:"FILES,default=file://./hands-data"`
//		PublicURL string       `bind:"PUBLIC_URL,default=http://localhost:8080/files"`
//	}
//	if err := bind.Load(ctx, &env, nil); err != nil { ... }
//
//	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{
//		files.HostFile(env.Files, env.PublicURL, nil),
//	}})
//
// A key or content type host_file cannot store is refused in its input's
// schema or its Validate method, at the field's path. Content over the
// size limit is an error that wraps toolbox.ErrTooLarge, a key through a
// symbolic link one that wraps toolbox.ErrSymlink (see below), and a
// failed write a *toolbox.OpError that names the key. No error names a
// path of the machine: the model learns keys, not where the bucket is on
// the disk.
//
// # Directory buckets
//
// A bucket that gocloud's fileblob opened on a directory (a file:// URL,
// such as the default bucket of the hands command) is read and written by this
// package itself, in fileblob's layout — the body at the key's path, the
// content type in a JSON file beside it whose name adds ".attrs" — so that
// the directory stays a fileblob bucket, but not in fileblob's way, which
// gets five things wrong for a tool that a model drives:
//
//   - Symbolic links. fileblob follows them, so a link in the directory
//     would serve /etc/hostname, and a write under a linked folder would
//     land outside the bucket. host_file, Hoster and Server follow none:
//     a key that is a link or lies below one is refused
//     (toolbox.ErrSymlink; 403 from Server), and every file operation goes through an os.Root of the
//     directory, so not even a link swapped in midway leads out of it.
//   - Pairing a body with its type. fileblob rewrites the .attrs file in
//     place and then renames the body into place, unlocked, so concurrent
//     writes of one key could leave one writer's body with another's
//     content type, and a reader could see a half-written .attrs file.
//     Here a write renames a complete .attrs file and then the body into
//     place under a lock of the key, which Server takes to read the
//     pair, so that, within the process, a read always pairs a body with
//     its own type. Another process writing the same directory is not kept
//     in step.
//   - What else the directory holds. Every file in it is one host_file may
//     replace and Server serves to anyone, so a program must keep
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
// the same keys work everywhere, and Server never serves one (404).
// The bucket's directory is found from the path in fileblob's error for a
// key that does not exist, checked against the directory's os.FileInfo
// that fileblob gives through Bucket.As; fileblob offers no other way.
//
// # Serving files
//
// Server serves what host_file writes: read-only, with the stored
// content type — plus charset=utf-8 for a text type that names no charset,
// since host_file stores text as UTF-8 and a browser would guess otherwise
// — and with nosniff and a sandboxing Content-Security-Policy, so that a
// hosted page runs no script with the server's origin.
package files
