package bind_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hands-go/hands/bind"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// vars returns a LookupEnv over a fixed map, so that no test reads or
// writes the process environment.
func vars(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// tracked records the buckets opened through the "bindtest" scheme, so a
// test can see that a failed Load closed them.
var tracked struct {
	sync.Mutex
	buckets []*blob.Bucket
}

type trackingOpener struct{}

func (trackingOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	b := memblob.OpenBucket(nil)
	tracked.Lock()
	defer tracked.Unlock()
	tracked.buckets = append(tracked.buckets, b)
	return b, nil
}

func init() {
	blob.DefaultURLMux().RegisterBucket("bindtest", trackingOpener{})
}

func TestLoadMemBucket(t *testing.T) {
	var env struct {
		Files *blob.Bucket `bind:"FILES"`
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"FILES": "mem://"})}); err != nil {
		t.Fatalf("Load = %v, want nil", err)
	}
	defer bind.Close(&env)
	ctx := t.Context()
	if err := env.Files.WriteAll(ctx, "a/b.txt", []byte("body"), &blob.WriterOptions{ContentType: "text/plain"}); err != nil {
		t.Fatal(err)
	}
	got, err := env.Files.ReadAll(ctx, "a/b.txt")
	if err != nil || string(got) != "body" {
		t.Errorf("ReadAll = %q, %v; want %q, nil", got, err, "body")
	}
}

func TestLoadFileBucket(t *testing.T) {
	dir := t.TempDir()
	var env struct {
		Files *blob.Bucket `bind:"FILES"`
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"FILES": u})}); err != nil {
		t.Fatalf("Load(FILES=%s) = %v, want nil", u, err)
	}
	defer bind.Close(&env)
	if err := env.Files.WriteAll(t.Context(), "notes/today.txt", []byte("hi"), nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "notes", "today.txt"))
	if err != nil || string(got) != "hi" {
		t.Errorf("the file under %s = %q, %v; want %q, nil", dir, got, err, "hi")
	}
}

// TestLoadFileDefault checks the embedded default: a relative file:// URL
// opens, and creates, a directory under the working directory.
func TestLoadFileDefault(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var env struct {
		Files *blob.Bucket `bind:"FILES,default=file://./hands-data"`
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(nil)}); err != nil {
		t.Fatalf("Load = %v, want nil", err)
	}
	defer bind.Close(&env)
	if err := env.Files.WriteAll(t.Context(), "k.txt", []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "hands-data", "k.txt"))
	if err != nil || string(got) != "v" {
		t.Errorf("hands-data/k.txt = %q, %v; want %q, nil", got, err, "v")
	}
}

// TestFileBucketIgnoresTMPDIR checks that a file bucket writes its
// temporary files beside its keys: with $TMPDIR on another file system the
// final rename would fail, and here $TMPDIR does not even exist.
func TestFileBucketIgnoresTMPDIR(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	var env struct {
		Files *blob.Bucket `bind:"FILES,default=file://./data"`
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(nil)}); err != nil {
		t.Fatalf("Load = %v, want nil", err)
	}
	defer bind.Close(&env)
	if err := env.Files.WriteAll(t.Context(), "a/k.txt", []byte("v"), nil); err != nil {
		t.Errorf("WriteAll with $TMPDIR missing: %v", err)
	}
}

// Scalars has a field of each supported value type.
type Scalars struct {
	S    string        `bind:"S"`
	Sec  bind.Secret   `bind:"SEC"`
	B    bool          `bind:"B"`
	I    int           `bind:"I"`
	I8   int8          `bind:"I8"`
	I64  int64         `bind:"I64"`
	U    uint          `bind:"U"`
	U16  uint16        `bind:"U16"`
	F32  float32       `bind:"F32"`
	F64  float64       `bind:"F64"`
	D    time.Duration `bind:"D"`
	URL  *url.URL      `bind:"URL"`
	Addr netip.Addr    `bind:"ADDR"`
	Lvl  slog.Level    `bind:"LVL"`
	Skip string        // no tag: left alone
}

func TestLoadScalars(t *testing.T) {
	env := Scalars{Skip: "kept"}
	in := map[string]string{
		"S": "text, with commas", "SEC": "hunter2", "B": "true", "I": "-42", "I8": "127",
		"I64": "9223372036854775807", "U": "7", "U16": "65535", "F32": "0.5", "F64": "-1e300",
		"D": "1h30m", "URL": "https://example.com/a?b=c", "ADDR": "::1", "LVL": "warn",
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(in)}); err != nil {
		t.Fatalf("Load = %v, want nil", err)
	}
	want := Scalars{
		S: "text, with commas", Sec: "hunter2", B: true, I: -42, I8: 127, I64: math.MaxInt64,
		U: 7, U16: 65535, F32: 0.5, F64: -1e300, D: 90 * time.Minute,
		URL:  &url.URL{Scheme: "https", Host: "example.com", Path: "/a", RawQuery: "b=c"},
		Addr: netip.MustParseAddr("::1"), Lvl: slog.LevelWarn, Skip: "kept",
	}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("Load filled\n%#v\nwant\n%#v", env, want)
	}
}

func TestLoadInvalidValues(t *testing.T) {
	for _, tt := range []struct {
		name, value string
	}{
		{"B", "yes please"},
		{"I", "4.2"},
		{"I8", "128"},
		{"I64", "0x10"},
		{"U", "-1"},
		{"U16", "65536"},
		{"F32", "1e40"},
		{"F64", "half"},
		{"D", "30"},
		{"URL", "example.com/path"},
		{"ADDR", "999.1.1.1"},
		{"LVL", "loud"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]string{
				"S": "s", "SEC": "x", "B": "true", "I": "1", "I8": "1", "I64": "1", "U": "1", "U16": "1",
				"F32": "1", "F64": "1", "D": "1s", "URL": "https://x", "ADDR": "1.2.3.4", "LVL": "info",
			}
			in[tt.name] = tt.value
			env := Scalars{S: "before"}
			err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(in)})
			berr, ok := errors.AsType[*bind.Error](err)
			if !ok || len(berr.Problems) != 1 {
				t.Fatalf("Load(%s=%q) = %v, want an *Error with one problem", tt.name, tt.value, err)
			}
			p := berr.Problems[0]
			if p.Name != tt.name || !errors.Is(p, bind.ErrInvalid) || p.Source != "environment variable "+tt.name {
				t.Errorf("Load(%s=%q) problem = %+v, want name %s, ErrInvalid, from the environment", tt.name, tt.value, p, tt.name)
			}
			if env.S != "before" {
				t.Errorf("after a failed Load, S = %q; want the struct untouched", env.S)
			}
		})
	}
}

// TestLoadEveryProblem checks that one Load reports every missing, invalid
// and unknown binding, with its name and field, and closes what it opened.
func TestLoadEveryProblem(t *testing.T) {
	type Storage struct {
		Archive *blob.Bucket `bind:"ARCHIVE"`
	}
	type Env struct {
		Storage
		Files   *blob.Bucket  `bind:"FILES"`
		Broken  *blob.Bucket  `bind:"BROKEN"`
		Token   bind.Secret   `bind:"TOKEN"`
		Port    int           `bind:"PORT"`
		Timeout time.Duration `bind:"TIMEOUT"`
		Home    *url.URL      `bind:"HOME_URL,optional"`
	}
	config := filepath.Join(t.TempDir(), "hands.json")
	if err := os.WriteFile(config, []byte(`{"PORT":"eighty","TIMOUT":"5s","TIMEOUT":{"s":5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tracked.Lock()
	before := len(tracked.buckets)
	tracked.Unlock()

	env := Env{Port: 1}
	err := bind.Load(t.Context(), &env, &bind.Options{
		ConfigFile: config,
		LookupEnv:  vars(map[string]string{"ARCHIVE": "bindtest://", "FILES": "bindtest://", "BROKEN": "nosuch://x"}),
	})
	berr, ok := errors.AsType[*bind.Error](err)
	if !ok || !errors.Is(err, bind.ErrUnfilled) {
		t.Fatalf("Load = %v, want a *bind.Error matching ErrUnfilled", err)
	}
	type row struct {
		name, field string
		kind        error
	}
	var got []row
	for _, p := range berr.Problems {
		var kind error
		for _, k := range []error{bind.ErrMissing, bind.ErrInvalid, bind.ErrUnknown} {
			if errors.Is(p, k) {
				kind = k
			}
		}
		got = append(got, row{p.Name, p.Field, kind})
	}
	want := []row{
		{"BROKEN", "Env.Broken", bind.ErrInvalid},
		{"TOKEN", "Env.Token", bind.ErrMissing},
		{"PORT", "Env.Port", bind.ErrInvalid},
		{"TIMEOUT", "Env.Timeout", bind.ErrInvalid},
		{"TIMOUT", "", bind.ErrUnknown},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load problems = %v\nwant %v\nerror: %v", got, want, err)
	}
	for _, k := range []error{bind.ErrMissing, bind.ErrInvalid, bind.ErrUnknown} {
		if !errors.Is(err, k) {
			t.Errorf("errors.Is(Load error, %v) = false, want true", k)
		}
	}
	if env.Port != 1 || env.Files != nil || env.Archive != nil {
		t.Errorf("after a failed Load, env = %+v; want it untouched", env)
	}
	tracked.Lock()
	opened := tracked.buckets[before:]
	tracked.Unlock()
	if len(opened) != 2 {
		t.Fatalf("Load opened %d bindtest buckets, want 2", len(opened))
	}
	for i, b := range opened {
		if err := b.WriteAll(t.Context(), "k", []byte("v"), nil); err == nil {
			t.Errorf("bucket %d is still open after a failed Load; want it closed", i)
		}
	}
}

func TestLoadMissingHint(t *testing.T) {
	var env struct {
		Token bind.Secret `bind:"TOKEN"`
	}
	config := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(config, []byte(`{}`), 0o644)
	err := bind.Load(t.Context(), &env, &bind.Options{Prefix: "APP_", ConfigFile: config, LookupEnv: vars(nil)})
	want := `TOKEN (Token): missing: set the environment variable APP_TOKEN or "TOKEN" in ` + config
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load = %v, want it to say %q", err, want)
	}
}

// TestLoadPrecedence checks the order of the sources: the environment, then
// the config file, then the default, with empty values counting as unset.
func TestLoadPrecedence(t *testing.T) {
	type Env struct {
		A string `bind:"A,default=from default"`
		B string `bind:"B,default=from default"`
		C string `bind:"C,default=from default"`
		D string `bind:"D,default=from default"`
		E int    `bind:"E"`
		F string `bind:"F,default='a,b,''c'''"`
		G bool   `bind:"G,optional"`
		H string `bind:"H,optional"`
	}
	config := filepath.Join(t.TempDir(), "hands.json")
	if err := os.WriteFile(config, []byte(`{"A":"from file","B":"from file","D":"","E":8080,"G":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Env{H: "preset"}
	err := bind.Load(t.Context(), &env, &bind.Options{
		ConfigFile: config,
		Prefix:     "APP_",
		LookupEnv:  vars(map[string]string{"APP_A": "from env", "APP_B": "", "C": "unprefixed, ignored", "APP_D": ""}),
	})
	if err != nil {
		t.Fatalf("Load = %v, want nil", err)
	}
	want := Env{A: "from env", B: "from file", C: "from default", D: "from default", E: 8080, F: "a,b,'c'", G: true, H: "preset"}
	if env != want {
		t.Errorf("Load filled %+v\nwant %+v", env, want)
	}
}

func TestLoadConfigFileErrors(t *testing.T) {
	var env struct {
		A string `bind:"A,optional"`
	}
	dir := t.TempDir()
	err := bind.Load(t.Context(), &env, &bind.Options{ConfigFile: filepath.Join(dir, "none.json")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load with a missing config file = %v, want fs.ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`["A"]`), 0o644)
	err = bind.Load(t.Context(), &env, &bind.Options{ConfigFile: bad})
	if err == nil {
		t.Error("Load with a config file that is not an object = nil, want an error")
	}
	if _, ok := errors.AsType[*bind.Error](err); ok {
		t.Errorf("Load with a malformed config file = %v, want an error about the file, not a *bind.Error", err)
	}
}

func TestLoadBadBucketURLs(t *testing.T) {
	for _, u := range []string{
		"nosuch://bucket",
		"file://data",
		"file:data",
		"mem://?colour=blue",
		"/just/a/path",
	} {
		t.Run(u, func(t *testing.T) {
			var env struct {
				Files *blob.Bucket `bind:"FILES"`
			}
			err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"FILES": u})})
			if !errors.Is(err, bind.ErrInvalid) {
				t.Errorf("Load(FILES=%s) = %v, want ErrInvalid", u, err)
			}
		})
	}
}

func TestLoadDefinitionErrors(t *testing.T) {
	type Inner struct {
		X string `bind:"X"`
	}
	for _, tt := range []struct {
		name  string
		env   any
		field string
	}{
		{"not a pointer", struct{}{}, ""},
		{"nil pointer", (*struct{})(nil), ""},
		{"nil", nil, ""},
		{"pointer to non-struct", new(int), ""},
		{"unsupported type", &struct {
			M map[string]string `bind:"M"`
		}{}, "M"},
		{"bucket by value", &struct {
			B blob.Bucket `bind:"B"`
		}{}, "B"},
		{"pointer to int", &struct {
			P *int `bind:"P"`
		}{}, "P"},
		{"unexported", &struct {
			s string `bind:"S"`
		}{}, "s"},
		{"empty name", &struct {
			S string `bind:",default=x"`
		}{}, "S"},
		{"bad name", &struct {
			S string `bind:"1ST"`
		}{}, "S"},
		{"unknown option", &struct {
			S string `bind:"S,requird"`
		}{}, "S"},
		{"option twice", &struct {
			S string `bind:"S,default=a,default=b"`
		}{}, "S"},
		{"optional and default", &struct {
			S string `bind:"S,optional,default=a"`
		}{}, "S"},
		{"optional with value", &struct {
			S string `bind:"S,optional=true"`
		}{}, "S"},
		{"empty default", &struct {
			S string `bind:"S,default="`
		}{}, "S"},
		{"unclosed quote", &struct {
			S string `bind:"S,default='a,b"`
		}{}, "S"},
		{"text after quote", &struct {
			S string `bind:"S,default='a'b"`
		}{}, "S"},
		{"bad default", &struct {
			N int `bind:"N,default=many"`
		}{}, "N"},
		{"bad bucket default", &struct {
			B *blob.Bucket `bind:"B,default=file://data"`
		}{}, "B"},
		{"duplicate name", &struct {
			A string `bind:"N"`
			B string `bind:"N"`
		}{}, "B"},
		{"embedded pointer", &struct{ *Inner }{}, "Inner.X"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := bind.Load(t.Context(), tt.env, nil)
			derr, ok := errors.AsType[*bind.DefinitionError](err)
			if !ok {
				t.Fatalf("Load(%T) = %v, want a *DefinitionError", tt.env, err)
			}
			if derr.Field != tt.field {
				t.Errorf("Load(%T) blamed field %q, want %q (%v)", tt.env, derr.Field, tt.field, err)
			}
			if err := bind.Close(tt.env); !errors.As(err, &derr) {
				t.Errorf("Close(%T) = %v, want a *DefinitionError", tt.env, err)
			}
		})
	}
}

func TestClose(t *testing.T) {
	var env struct {
		A     *blob.Bucket `bind:"A"`
		B     *blob.Bucket `bind:"B"`
		Unset *blob.Bucket `bind:"C,optional"`
		Other *blob.Bucket // not bound: not closed
	}
	env.Other = memblob.OpenBucket(nil)
	defer env.Other.Close()
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"A": "mem://", "B": "mem://"})}); err != nil {
		t.Fatal(err)
	}
	if err := bind.Close(&env); err != nil {
		t.Fatalf("Close = %v, want nil", err)
	}
	for name, b := range map[string]*blob.Bucket{"A": env.A, "B": env.B} {
		if err := b.WriteAll(t.Context(), "k", nil, nil); err == nil {
			t.Errorf("bucket %s is open after Close", name)
		}
	}
	if err := env.Other.WriteAll(t.Context(), "k", nil, nil); err != nil {
		t.Errorf("Close closed an unbound field: %v", err)
	}
	// A second Close reports each bucket, joined.
	err := bind.Close(&env)
	if err == nil || strings.Count(err.Error(), "bind: close") != 2 {
		t.Errorf("second Close = %v, want an error for each of the two buckets", err)
	}
}

func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var env struct {
		A string `bind:"A,default=x"`
	}
	if err := bind.Load(ctx, &env, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Load(cancelled) = %v, want context.Canceled", err)
	}
}

// TestLoadProcessEnvironment checks the default LookupEnv, os.LookupEnv,
// with a prefix.
func TestLoadProcessEnvironment(t *testing.T) {
	t.Setenv("HANDS_BIND_TEST_PORT", "8080")
	var env struct {
		Port int `bind:"PORT"`
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{Prefix: "HANDS_BIND_TEST_"}); err != nil || env.Port != 8080 {
		t.Errorf("Load = %v with Port %d, want nil and 8080", err, env.Port)
	}
}
