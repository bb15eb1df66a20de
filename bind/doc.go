// Package bind fills a struct of typed resources — buckets, URLs, secrets,
// numbers, durations — from environment variables and a config file, so
// that tool handlers can reach them by closure.
//
// An environment is a plain struct. Each field to fill carries a bind tag
// with the binding's name:
//
//	type Env struct {
//		Files     *blob.Bucket  `bind:"FILES,default=file://./hands-data"`
//		PublicURL *url.URL      `bind:"PUBLIC_URL"`
//		Token     bind.Secret   `bind:"API_TOKEN"`
//		Timeout   time.Duration `bind:"TIMEOUT,default=20s"`
//		Debug     bool          `bind:"DEBUG,optional"`
//	}
//
//	var env Env
//	if err := bind.Load(ctx, &env, nil); err != nil {
//		log.Fatal(err) // every missing or invalid binding, at once
//	}
//	defer bind.Close(&env)
//
//	hostFile := files.HostFile(env.Files, env.PublicURL.String(), nil)
//
// # Tags
//
// The tag is the name, then options after commas:
//
//	bind:"NAME"                      required
//	bind:"NAME,default=VALUE"        VALUE when nothing else sets NAME
//	bind:"NAME,default='a,b'"        a quoted default may hold commas; '' is a quote
//	bind:"NAME,optional"             left as it was when nothing sets NAME
//
// Names are ASCII letters, digits and underscores, not starting with a
// digit, as environment variables are. A name may be bound once. Fields
// without a bind tag are left alone; the fields of an embedded struct are
// walked as if they were the outer struct's.
//
// # Sources
//
// A binding's value is the first non-empty one of: the environment variable
// Options.Prefix+NAME, the key NAME in Options.ConfigFile (a JSON object of
// names to strings), and the tag's default. An empty value counts as unset,
// so NAME= in a deployment does not hide the file or the default. A name in
// the config file that no field binds is reported, since it is usually a
// misspelling.
//
// # Field types
//
// string, [Secret], bool, every int and uint size, float32 and float64 are
// parsed with strconv (base 10); time.Duration with time.ParseDuration
// ("30s", "1h30m"); *url.URL must be absolute; types whose pointer has
// UnmarshalText (netip.Addr, slog.Level) parse themselves. A *blob.Bucket
// is opened from its URL with gocloud.dev/blob, through the drivers the
// program imports, as gocloud intends: this package links none, so a
// program that uses only files does not build the S3 client. Import the
// driver of each scheme you use:
//
//	import _ "gocloud.dev/blob/fileblob"  // file:///srv/data, file://./data
//	import _ "gocloud.dev/blob/memblob"   // mem://: memory, new and empty on each open
//	import _ "gocloud.dev/blob/s3blob"    // s3://bucket?region=us-east-1
//
// A URL whose scheme no imported driver serves is a Problem that names the
// scheme.
//
// A *sql.DB is opened by package sqldb and a *kv.Store by package kv, the
// same way, through the driver packages the program imports:
//
//	type Env struct {
//		DB     *sql.DB   `bind:"DATABASE_URL,default=sqlite://./app.db"`
//		Memory *kv.Store `bind:"MEMORY,default=sqlite://./memory.db"`
//	}
//
//	import _ "github.com/hands-go/hands/sqldb/sqlitedb" // sqlite:///path/app.db (pure Go)
//	import _ "github.com/hands-go/hands/sqldb/pgdb"     // postgres://user:pw@host/db
//	import _ "github.com/hands-go/hands/kv/sqlitekv"    // sqlite:///path/kv.db
//	import _ "github.com/hands-go/hands/kv/memkv"       // mem://
//	import _ "github.com/hands-go/hands/kv/rediskv"     // redis://:pw@host:6379/0
//
// Both are opened, and a server pinged, by Load, so that a wrong address or
// password is a Problem at once. A Problem never shows a credential of a
// URL, of a resource or of a *url.URL field: the password of its user
// information and the value of every query parameter that bears one
// (password, sslpassword, token, secret, api_key and the like) are
// redacted, from the value and from the driver's error, even when the URL
// does not parse (a bad %-escape in the password, say). A resource's URL
// with a fragment is refused: it is a '#' written unescaped (write %23) in
// a password or a value, which no driver reads past.
//
// A file:// directory is created if it does not exist (the URL gets
// create_dir=true unless it names create_dir itself), so a default such as
// file://./hands-data works on a fresh machine. Its host must be empty,
// "localhost" or "."; file://data would otherwise open the working
// directory itself.
//
// An s3:// URL reaches any S3-compatible store, such as Cloudflare R2 or
// MinIO, through the query parameters of gocloud's s3blob URL opener:
// endpoint (the store's base URL), region, and use_path_style=true for
// stores that want the bucket in the path:
//
//	s3://files?endpoint=https://ACCOUNT.r2.cloudflarestorage.com&region=auto
//	s3://files?endpoint=http://127.0.0.1:9000&region=us-east-1&use_path_style=true
//
// A store that rejects the SDK's default request checksums takes
// request_checksum_calculation=when_required. The credentials come from the
// AWS SDK's usual chain: AWS_ACCESS_KEY_ID
// and AWS_SECRET_ACCESS_KEY, a shared profile (profile=NAME), or the
// instance's role. Other drivers (gcsblob, azureblob) register their
// schemes when a program imports them, and Load opens them too.
//
// # Errors
//
// Load reports all that is wrong in one *[Error]: each [Problem] names the
// binding, the Go field and where the rejected value came from, and matches
// [ErrMissing], [ErrInvalid] or [ErrUnknown] with errors.Is. When Load
// fails it closes the buckets it had opened and leaves the struct as it
// was. A mistake in the struct itself — not a pointer to a struct, a bad
// tag, a name bound twice, a field type Load cannot fill, a default that
// does not parse — is a *[DefinitionError], found before anything is read.
//
// # Secrets
//
// A [Secret] field holds a credential. It prints as "[REDACTED]" through
// fmt, encoding/json and log/slog, so logging the whole environment is safe;
// Reveal returns the value where it is needed. A problem with a Secret
// binding never quotes its value.
//
// # Closing
//
// [Close] closes each bound field that is an io.Closer — each bucket,
// database and store — and joins their errors. Handlers that closed over the environment must be done
// by then.
package bind
