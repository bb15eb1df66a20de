package schema

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

type durationArgs struct {
	Timeout time.Duration            `json:"timeout" jsonschema:"how long to wait"`
	Wait    time.Duration            `json:"wait,omitempty" tool:"default=30s"`
	Every   *time.Duration           `json:"every,omitempty"`
	Steps   []time.Duration          `json:"steps,omitempty" tool:"enum=1s|1m"`
	ByName  map[string]time.Duration `json:"byName,omitempty"`
}

// TestDuration checks that a time.Duration is read from a string that says
// its unit, never from a bare number, and is described so.
func TestDuration(t *testing.T) {
	v := mustFor[durationArgs](t)
	for _, tt := range []struct {
		name string
		doc  string
		want []string      // issues as "path keyword"; nil when valid
		got  time.Duration // the timeout, when valid
	}{
		{name: "minutes and seconds", doc: `{"timeout":"1m30s"}`, got: 90 * time.Second},
		{name: "fraction and sign", doc: `{"timeout":"-1.5h"}`, got: -90 * time.Minute},
		{name: "fraction alone", doc: `{"timeout":".5s"}`, got: 500 * time.Millisecond},
		{name: "trailing point", doc: `{"timeout":"2.s"}`, got: 2 * time.Second},
		{name: "micro sign", doc: `{"timeout":"3µs"}`, got: 3 * time.Microsecond},
		{name: "greek mu", doc: `{"timeout":"3μs"}`, got: 3 * time.Microsecond},
		{name: "zero", doc: `{"timeout":"0"}`, got: 0},
		{name: "every unit", doc: `{"timeout":"1h1m1s1ms1us1ns"}`, got: time.Hour + time.Minute + time.Second + time.Millisecond + time.Microsecond + time.Nanosecond},
		{name: "most negative", doc: `{"timeout":"-2562047h47m16.854775808s"}`, got: math.MinInt64},
		{name: "a number", doc: `{"timeout":30}`, want: []string{"/timeout type"}},
		{name: "null", doc: `{"timeout":null}`, want: []string{"/timeout type"}},
		{name: "no unit", doc: `{"timeout":"30"}`, want: []string{"/timeout pattern"}},
		{name: "plus sign", doc: `{"timeout":"+1s"}`, want: []string{"/timeout pattern"}},
		{name: "days", doc: `{"timeout":"1d"}`, want: []string{"/timeout pattern"}},
		{name: "exponent", doc: `{"timeout":"1e3s"}`, want: []string{"/timeout pattern"}},
		{name: "space", doc: `{"timeout":"1m 30s"}`, want: []string{"/timeout pattern"}},
		{name: "empty", doc: `{"timeout":""}`, want: []string{"/timeout pattern"}},
		{name: "too long", doc: `{"timeout":"2562048h"}`, want: []string{"/timeout range"}},
		{name: "items and values", doc: `{"timeout":"1s","steps":["1s","1m"],"every":null,"byName":{"a":"1h"}}`, got: time.Second},
		{name: "enum compares text", doc: `{"timeout":"1s","steps":["60s",7]}`, want: []string{"/steps/0 enum", "/steps/1 type"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got durationArgs
			err := v.Decode([]byte(tt.doc), &got)
			checkIssues(t, "Decode", tt.doc, err, tt.want)
			if tt.want == nil && err == nil && (got.Timeout != tt.got || got.Wait != 30*time.Second) {
				t.Errorf("Decode(%s) = timeout %v, wait %v; want %v and the default, 30s", tt.doc, got.Timeout, got.Wait, tt.got)
			}
		})
	}

	t.Run("message", func(t *testing.T) {
		err := v.Validate([]byte(`{"timeout":30}`))
		serr, _ := errors.AsType[*Error](err)
		if serr == nil || !strings.Contains(serr.Issues[0].Message, `"30s"`) {
			t.Errorf("Validate(30) = %v, want a message that asks for a string such as \"30s\"", err)
		}
	})

	t.Run("schema", func(t *testing.T) {
		s := v.Schema()
		timeout := s.Properties["timeout"]
		if timeout.Type != "string" || timeout.Pattern != durationExpr || timeout.Description != "how long to wait\n"+durationNote {
			t.Errorf("schema of timeout = %+v, want a string with the duration pattern and both descriptions", timeout)
		}
		if wait := s.Properties["wait"]; string(wait.Default) != `"30s"` || wait.Description != durationNote {
			t.Errorf("schema of wait = %+v, want the default \"30s\" and the note", wait)
		}
		if items := s.Properties["steps"].Items; items.Pattern != durationExpr || !reflect.DeepEqual(items.Enum, []any{"1s", "1m"}) {
			t.Errorf("schema of steps' items = %+v, want the pattern and the enum as strings", items)
		}
	})

	t.Run("output", func(t *testing.T) {
		// encoding/json writes nanoseconds, so an output says so.
		out, err := For[durationArgs](&Options{Output: true})
		if err != nil {
			t.Fatal(err)
		}
		s := out.Schema()
		if p := s.Properties["timeout"]; p.Type != "integer" || !strings.Contains(p.Description, "nanoseconds") || p.Pattern != "" {
			t.Errorf("output schema of timeout = %+v, want an integer of nanoseconds", p)
		}
		if p := s.Properties["wait"]; string(p.Default) != "30000000000" {
			t.Errorf("output schema of wait has default %s, want 30s in nanoseconds", p.Default)
		}
		if p := s.Properties["steps"].Items; !reflect.DeepEqual(p.Enum, []any{1e9, 6e10}) {
			t.Errorf("output schema of steps' items has enum %v, want nanoseconds", p.Enum)
		}
	})

	t.Run("Check", func(t *testing.T) {
		// A Go value is written in nanoseconds, and Check reads it so.
		if err := v.Check(durationArgs{Timeout: 5 * time.Second, Steps: []time.Duration{time.Minute}}); err != nil {
			t.Errorf("Check = %v, want nil", err)
		}
		err := v.Check(durationArgs{Steps: []time.Duration{2 * time.Minute}})
		checkIssues(t, "Check", "2m", err, []string{"/steps/0 enum"})
	})

	t.Run("definition", func(t *testing.T) {
		for _, typ := range []reflect.Type{
			reflect.TypeFor[struct {
				D time.Duration `json:"d,omitempty" tool:"default=30"`
			}](),
			reflect.TypeFor[struct {
				D time.Duration `json:"d" tool:"minimum=1"`
			}](),
			reflect.TypeFor[struct {
				D time.Duration `json:"d" tool:"enum=1s|1 day"`
			}](),
		} {
			if _, err := ForType(typ, nil); !errors.As(err, new(*DefinitionError)) {
				t.Errorf("ForType(%v) = %v, want a *DefinitionError", typ, err)
			}
		}
	})
}

// durationSamples are durations at the edges and in between.
var durationSamples = []time.Duration{
	0, 1, -1, 999, 1000, 1001, 1500 * time.Microsecond, time.Millisecond, time.Second, 90 * time.Second,
	-90 * time.Second, time.Hour, 36 * time.Hour, 1234567890123, math.MaxInt64, math.MinInt64, math.MinInt64 + 1,
}

// TestDurationRoundTrip checks that what Duration.String writes matches the
// schema's pattern and decodes to the same duration.
func TestDurationRoundTrip(t *testing.T) {
	v := mustFor[durationArgs](t)
	for _, want := range durationSamples {
		checkDurationRoundTrip(t, v, want)
	}
}

func checkDurationRoundTrip(t *testing.T, v *Validator, want time.Duration) {
	t.Helper()
	text := want.String()
	if !regexp.MustCompile(durationExpr).MatchString(text) {
		t.Errorf("the pattern does not match %q, which %d.String() writes", text, int64(want))
	}
	doc, _ := json.Marshal(map[string]string{"timeout": text})
	var got durationArgs
	if err := v.Decode(doc, &got); err != nil || got.Timeout != want {
		t.Errorf("Decode(%s) = %v, %v; want %v", doc, got.Timeout, err, want)
	}
}

func FuzzDurationRoundTrip(f *testing.F) {
	for _, d := range durationSamples {
		f.Add(int64(d))
	}
	v := mustFor[durationArgs](f)
	f.Fuzz(func(t *testing.T, nanos int64) {
		checkDurationRoundTrip(t, v, time.Duration(nanos))
	})
}

// FuzzDurationPattern checks the pattern against time.ParseDuration: every
// string ParseDuration reads matches, unless it starts with '+', and a
// string that matches but that ParseDuration refuses is a duration too long
// for an int64 of nanoseconds.
func FuzzDurationPattern(f *testing.F) {
	for _, s := range []string{"0", "-0", "+0", "00", "1m30s", "-1.5h", ".5s", "2.s", ".s", "1", "1d", "3µs", "3μs", "1e3s",
		"2562047h47m16.854775807s", "2562047h47m16.854775808s", "-2562047h47m16.854775808s", "9223372036854775807ns",
		"9223372036854775808ns", "1h1h", "1hm", "", "-", "1.2.3s", "99999999999999999999ns", "0.0000000000000000000001ns"} {
		f.Add(s)
	}
	re := regexp.MustCompile(durationExpr)
	f.Fuzz(func(t *testing.T, s string) {
		matched := re.MatchString(s)
		if matched != durationPattern.MatchString(s) {
			t.Fatalf("the compiled pattern and regexp disagree on %q", s)
		}
		_, err := time.ParseDuration(s)
		switch {
		case err == nil && !matched && !strings.HasPrefix(s, "+"):
			t.Errorf("ParseDuration reads %q, and the pattern does not match it", s)
		case err != nil && matched && !tooLong(s):
			t.Errorf("the pattern matches %q, and ParseDuration refuses it: %v", s, err)
		}
	})
}

// tooLong reports whether a string the duration pattern matches holds at
// least 2^62 nanoseconds in magnitude, near enough to the limit of an int64
// for time.ParseDuration to refuse it.
func tooLong(s string) bool {
	units := map[string]int64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
	sum := new(big.Rat)
	for _, m := range regexp.MustCompile(`([0-9.]+)(ns|us|µs|μs|ms|s|m|h)`).FindAllStringSubmatch(s, -1) {
		num := m[1]
		if strings.HasPrefix(num, ".") {
			num = "0" + num
		}
		num = strings.TrimSuffix(num, ".")
		r, ok := new(big.Rat).SetString(num)
		if !ok {
			return false
		}
		sum.Add(sum, r.Mul(r, new(big.Rat).SetInt64(units[m[2]])))
	}
	return sum.Cmp(new(big.Rat).SetFloat64(math.Ldexp(1, 62))) >= 0
}
