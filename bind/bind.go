package bind

import (
	"context"
	"database/sql"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/hands-go/hands/internal/msgtext"
	"github.com/hands-go/hands/internal/redact"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/sqldb"
	"gocloud.dev/blob"
)

// Options configure Load. The zero value selects every default.
type Options struct {
	// ConfigFile is the path of a JSON object that maps names to values,
	// such as {"BUCKET": "s3://files", "PORT": "8080"}. Values are strings;
	// numbers and booleans are read as their JSON text, and any other value
	// is a Problem (ErrInvalid). Environment
	// variables win over the file. A name in the file that no field binds is
	// a Problem (ErrUnknown). If empty, only the environment is read.
	ConfigFile string
	// LookupEnv looks up an environment variable. If nil, os.LookupEnv is
	// used.
	LookupEnv func(name string) (value string, ok bool)
	// Prefix is put before each name when it is looked up in the
	// environment, and only there: with Prefix "APP_", the binding BUCKET
	// reads APP_BUCKET from the environment and BUCKET from the config file.
	// If empty, names are looked up as they are.
	Prefix string
}

// Load fills the bound fields of the struct env points to, from the
// environment and the config file of opts (nil means the defaults: the
// process environment and no file). See the package documentation for the
// tags, the field types and the order of sources.
//
// Load reports every missing, invalid and unknown binding at once, as an
// *Error whose Problems name each binding and its field. When it fails, it
// closes the buckets it opened and leaves env as it was. A mistake in env's
// type is reported as a *DefinitionError before anything is read. An
// unreadable or malformed config file is reported as it is, wrapped.
func Load(ctx context.Context, env any, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	rv, bindings, err := definition(env)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	file, err := readConfig(opts.ConfigFile, bindings)
	if err != nil {
		return err
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}

	work := reflect.New(rv.Type()).Elem()
	work.Set(rv)
	var opened []io.Closer
	var found []Problem
	for _, b := range bindings {
		if p, bad := file.bad[b.name]; bad {
			found = append(found, p)
			continue
		}
		value, source, ok := b.lookup(lookup, opts.Prefix, file.values, opts.ConfigFile)
		if !ok {
			if !b.optional {
				found = append(found, b.missing(opts.Prefix, opts.ConfigFile))
			}
			continue
		}
		f := work.FieldByIndex(b.index)
		if b.kind.opened() {
			r, err := b.open(ctx, value)
			if err != nil {
				found = append(found, b.invalid(value, source, err))
				continue
			}
			opened = append(opened, r)
			f.Set(reflect.ValueOf(r))
			continue
		}
		v, err := b.parse(value)
		if err != nil {
			found = append(found, b.invalid(value, source, err))
			continue
		}
		f.Set(v)
	}
	found = append(found, file.unknown...)
	if len(found) > 0 {
		for _, c := range opened {
			c.Close() // the bucket was never handed out; its error has nowhere to go
		}
		return &Error{Problems: found, Err: ErrUnfilled}
	}
	rv.Set(work)
	return nil
}

// Close closes every bound field of the struct env points to that is an
// io.Closer, such as each *blob.Bucket, and joins their errors. Nil fields
// are skipped. Call it once, when the handlers that use env are done;
// closing a bucket twice is an error.
func Close(env any) error {
	rv, bindings, err := definition(env)
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range bindings {
		f := rv.FieldByIndex(b.index)
		if !b.typ.Implements(closerType) || (f.Kind() == reflect.Pointer || f.Kind() == reflect.Interface) && f.IsNil() {
			continue
		}
		if err := f.Interface().(io.Closer).Close(); err != nil {
			errs = append(errs, fmt.Errorf("bind: close %s (%s): %w", b.name, b.field, err))
		}
	}
	return errors.Join(errs...)
}

// A kind is how a binding's text becomes its field's value.
type kind int

const (
	kindString kind = iota
	kindSecret
	kindBool
	kindInt
	kindUint
	kindFloat
	kindDuration
	kindURL
	kindBucket
	kindSQL     // *sql.DB, opened by sqldb
	kindKV      // *kv.Store, opened by kv
	kindText    // *T implements encoding.TextUnmarshaler
	kindTextPtr // the field is a *T, and *T implements encoding.TextUnmarshaler
)

// opened reports whether a field of the kind is a resource opened from its
// URL, which Load closes when it fails.
func (k kind) opened() bool { return k == kindBucket || k == kindSQL || k == kindKV }

var (
	bucketType   = reflect.TypeFor[*blob.Bucket]()
	sqlType      = reflect.TypeFor[*sql.DB]()
	kvType       = reflect.TypeFor[*kv.Store]()
	urlType      = reflect.TypeFor[*url.URL]()
	durationType = reflect.TypeFor[time.Duration]()
	secretType   = reflect.TypeFor[Secret]()
	textType     = reflect.TypeFor[encoding.TextUnmarshaler]()
	closerType   = reflect.TypeFor[io.Closer]()
)

// A binding is one tagged field.
type binding struct {
	tag
	field string // Go path for messages, such as "Env.Storage.Bucket"
	index []int
	typ   reflect.Type
	kind  kind
}

// definition checks that env is a non-nil pointer to a struct and returns
// the struct and its bindings, in field order.
func definition(env any) (reflect.Value, []binding, error) {
	rv := reflect.ValueOf(env)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, nil, &DefinitionError{
			Type: reflect.TypeOf(env),
			Err:  errors.New("want a non-nil pointer to a struct, such as &env"),
		}
	}
	rv = rv.Elem()
	w := walker{root: rv.Type(), names: map[string]string{}}
	w.walk(rv.Type(), nil, "", false)
	if len(w.errs) > 0 {
		return reflect.Value{}, nil, errors.Join(w.errs...)
	}
	return rv, w.bindings, nil
}

// A walker collects the bindings of a struct type and every mistake in
// them.
type walker struct {
	root     reflect.Type
	names    map[string]string // name → field that binds it
	bindings []binding
	errs     []error
}

func (w *walker) walk(t reflect.Type, index []int, prefix string, viaPointer bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		path := prefix + sf.Name
		idx := append(slices.Clone(index), i)
		raw, tagged := sf.Tag.Lookup("bind")
		if !tagged {
			if sf.Anonymous {
				switch ft := sf.Type; {
				case ft.Kind() == reflect.Struct:
					w.walk(ft, idx, path+".", viaPointer)
				case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
					w.walk(ft.Elem(), idx, path+".", true)
				}
			}
			continue
		}
		fail := func(err error) {
			w.errs = append(w.errs, &DefinitionError{Type: w.root, Field: path, Tag: raw, Err: err})
		}
		if viaPointer {
			fail(errors.New("a binding inside an embedded pointer cannot be filled; embed the struct itself"))
			continue
		}
		if !sf.IsExported() {
			fail(errors.New("the field is unexported; export it so that it can be filled"))
			continue
		}
		tg, err := parseTag(raw)
		if err != nil {
			fail(err)
			continue
		}
		k, err := kindOf(sf.Type)
		if err != nil {
			fail(err)
			continue
		}
		if other, dup := w.names[tg.name]; dup {
			fail(fmt.Errorf("the name %s is already bound by field %s", tg.name, other))
			continue
		}
		w.names[tg.name] = path
		field := path
		if w.root.Name() != "" {
			field = w.root.Name() + "." + path
		}
		b := binding{tag: tg, field: field, index: idx, typ: sf.Type, kind: k}
		if b.hasDef {
			if err := b.checkDefault(); err != nil {
				fail(fmt.Errorf("the default %s: %w", msgtext.Quote(b.def, maxShown), err))
				continue
			}
		}
		w.bindings = append(w.bindings, b)
	}
}

// kindOf returns how a field of type t is filled, or why it cannot be.
func kindOf(t reflect.Type) (kind, error) {
	switch t {
	case bucketType:
		return kindBucket, nil
	case sqlType:
		return kindSQL, nil
	case kvType:
		return kindKV, nil
	case urlType:
		return kindURL, nil
	case durationType:
		return kindDuration, nil
	case secretType:
		return kindSecret, nil
	}
	if reflect.PointerTo(t).Implements(textType) {
		return kindText, nil
	}
	if t.Kind() == reflect.Pointer && t.Implements(textType) {
		return kindTextPtr, nil
	}
	switch t.Kind() {
	case reflect.String:
		return kindString, nil
	case reflect.Bool:
		return kindBool, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kindUint, nil
	case reflect.Float32, reflect.Float64:
		return kindFloat, nil
	}
	hint := ""
	if t == bucketType.Elem() {
		hint = "; use *blob.Bucket"
	} else if t == urlType.Elem() {
		hint = "; use *url.URL"
	} else if t == sqlType.Elem() {
		hint = "; use *sql.DB"
	} else if t == kvType.Elem() {
		hint = "; use *kv.Store"
	}
	return 0, fmt.Errorf("cannot fill a field of type %s%s (the types are *blob.Bucket, *sql.DB, *kv.Store, string, Secret, bool, ints, uints, floats, time.Duration, *url.URL and types with UnmarshalText)", t, hint)
}

// checkDefault reports whether the default can fill the field: parsed for
// a value, and checked as a URL for a resource, which is opened only when
// it is used.
func (b *binding) checkDefault() error {
	switch b.kind {
	case kindBucket:
		_, err := bucketURL(b.def)
		return err
	case kindSQL, kindKV:
		if u, err := url.Parse(b.def); err != nil || u.Scheme == "" {
			return errors.New("want an absolute URL, such as sqlite:///var/lib/app.db")
		}
		return nil
	}
	_, err := b.parse(b.def)
	return err
}

// lookup returns the binding's value and where it came from: the
// environment first, then the config file, then the default. An empty value
// counts as unset.
func (b *binding) lookup(env func(string) (string, bool), prefix string, file map[string]string, path string) (value, source string, ok bool) {
	if v, ok := env(prefix + b.name); ok && v != "" {
		return v, "environment variable " + prefix + b.name, true
	}
	if v := file[b.name]; v != "" {
		return v, "config file " + path, true
	}
	if b.hasDef {
		return b.def, "default", true
	}
	return "", "", false
}

func (b *binding) missing(prefix, path string) Problem {
	hint := "set the environment variable " + prefix + b.name
	if path != "" {
		hint += fmt.Sprintf(" or %q in %s", b.name, path)
	}
	return Problem{Name: b.name, Field: b.field, Err: fmt.Errorf("%w: %s", ErrMissing, hint)}
}

// shown returns a value as a message may show it: a URL's credentials
// redacted, whether or not it parses.
func (b *binding) shown(value string) string {
	if b.kind == kindURL || b.kind.opened() {
		return redact.URL(value)
	}
	return value
}

// invalid returns the problem of a value that could not fill the field.
// The value is quoted, except a Secret's, and a URL's credentials are
// redacted from it and from err, which may quote the URL too.
func (b *binding) invalid(value, source string, err error) Problem {
	shown := " "
	if b.kind != kindSecret {
		shown = " " + msgtext.Quote(b.shown(value), maxShown) + " "
	}
	if b.kind == kindURL || b.kind.opened() {
		err = redact.Error(err, value)
	}
	return Problem{Name: b.name, Field: b.field, Source: source,
		Err: fmt.Errorf("%w%sfrom %s: %w", ErrInvalid, shown, source, err)}
}

// parse turns text into a value of the field's type. It does not handle
// buckets, which are opened, not parsed.
func (b *binding) parse(s string) (reflect.Value, error) {
	t := b.typ
	v := reflect.New(t).Elem()
	switch b.kind {
	case kindString, kindSecret:
		v.SetString(s)
	case kindBool:
		x, err := strconv.ParseBool(s)
		if err != nil {
			return v, errors.New("want true or false")
		}
		v.SetBool(x)
	case kindInt:
		x, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return v, fmt.Errorf("out of range for %s (%d to %d)", t, int64(-1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1)
			}
			return v, errors.New("want a whole number, such as 42")
		}
		v.SetInt(x)
	case kindUint:
		x, err := strconv.ParseUint(s, 10, t.Bits())
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return v, fmt.Errorf("out of range for %s (0 to %d)", t, uint64(math.MaxUint64)>>(64-t.Bits()))
			}
			return v, errors.New("want a whole number of zero or more, such as 42")
		}
		v.SetUint(x)
	case kindFloat:
		x, err := strconv.ParseFloat(s, t.Bits())
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return v, fmt.Errorf("out of range for %s", t)
			}
			return v, errors.New("want a number, such as 0.5")
		}
		v.SetFloat(x)
	case kindDuration:
		x, err := time.ParseDuration(s)
		if err != nil {
			return v, errors.New("want a duration with a unit, such as 30s or 1h30m")
		}
		v.SetInt(int64(x))
	case kindURL:
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" {
			return v, errors.New("want an absolute URL, such as https://example.com/path")
		}
		v.Set(reflect.ValueOf(u))
	case kindText:
		p := reflect.New(t)
		if err := p.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return v, err
		}
		v.Set(p.Elem())
	case kindTextPtr:
		p := reflect.New(t.Elem())
		if err := p.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return v, err
		}
		v.Set(p)
	default:
		return v, fmt.Errorf("cannot parse a %s", t)
	}
	return v, nil
}

// bucketURL parses a bucket URL and prepares a file:// URL for fileblob:
// the host must be empty, "localhost" or "." (a path relative to the
// working directory); the directory is created unless the URL says
// create_dir itself, and temporary files are written beside their keys,
// not in $TMPDIR, unless it says no_tmp_dir.
func bucketURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return nil, errors.New("want a bucket URL, such as file://./data, mem:// or s3://bucket?region=auto")
	}
	if u.Fragment != "" || u.RawFragment != "" {
		// A '#' in a password or a value, which no driver reads past.
		return nil, errors.New("the URL has a fragment; write # as %23 in a password or a value")
	}
	if u.Scheme == "file" {
		switch u.Host {
		case "", ".", "localhost":
		default:
			return nil, fmt.Errorf("a file URL names no host: write file:///absolute/dir, or file://./%s%s for a directory relative to the working directory", u.Host, u.Path)
		}
		q := u.Query()
		if !q.Has("create_dir") {
			q.Set("create_dir", "true")
		}
		if !q.Has("no_tmp_dir") { // $TMPDIR may be another file system, where renaming into the bucket fails
			q.Set("no_tmp_dir", "true")
		}
		u.RawQuery = q.Encode()
	}
	return u, nil
}

// open opens the resource of an opened kind at the URL s.
func (b *binding) open(ctx context.Context, s string) (io.Closer, error) {
	switch b.kind {
	case kindSQL:
		return sqldb.Open(ctx, s)
	case kindKV:
		return kv.Open(ctx, s)
	}
	return openBucket(ctx, s)
}

// openBucket opens the bucket at URL s through blob's default URL mux.
// gocloud's drivers quote the URL they were given, which bucketURL may
// have changed: its credentials are redacted there.
func openBucket(ctx context.Context, s string) (*blob.Bucket, error) {
	u, err := bucketURL(s)
	if err != nil {
		return nil, err
	}
	if !blob.DefaultURLMux().ValidBucketScheme(u.Scheme) {
		return nil, fmt.Errorf("no bucket driver for the scheme %q; the schemes are %v", u.Scheme, blob.DefaultURLMux().BucketSchemes())
	}
	b, err := blob.DefaultURLMux().OpenBucketURL(ctx, u)
	if err != nil {
		return nil, redact.Error(err, u.String())
	}
	return b, nil
}

// A config is what a config file holds: the values, the problem of each
// bound name whose value is not a string, number or boolean, and a problem
// for each name that no field binds.
type config struct {
	values  map[string]string
	bad     map[string]Problem
	unknown []Problem
}

// readConfig reads the config file at path; an empty path is an empty
// config.
func readConfig(path string, bindings []binding) (config, error) {
	var c config
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("bind: read config file: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return c, fmt.Errorf("bind: config file %s: want a JSON object of names to values: %w", path, err)
	}
	fields := map[string]string{}
	for _, b := range bindings {
		fields[b.name] = b.field
	}
	c.values = make(map[string]string, len(raw))
	c.bad = map[string]Problem{}
	source := "config file " + path
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		field, known := fields[name]
		if !known {
			c.unknown = append(c.unknown, Problem{Name: name, Source: source,
				Err: fmt.Errorf("%w in %s: no field binds it; check its spelling", ErrUnknown, path)})
			continue
		}
		var v any
		if err := json.Unmarshal(raw[name], &v); err != nil {
			return c, fmt.Errorf("bind: config file %s: %w", path, err)
		}
		switch v := v.(type) {
		case string:
			c.values[name] = v
		case float64, bool:
			c.values[name] = string(raw[name])
		default:
			c.bad[name] = Problem{Name: name, Field: field, Source: source,
				Err: fmt.Errorf("%w in %s: want a string, number or boolean", ErrInvalid, path)}
		}
	}
	return c, nil
}

// maxShown is the longest value, in runes, that a problem repeats in full.
const maxShown = 60
