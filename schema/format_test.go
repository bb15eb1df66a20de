package schema

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// formatTests lists valid and invalid examples for each asserted format.
// Entries marked "quirk" are accepted or rejected only because the reference
// implementation, github.com/santhosh-tekuri/jsonschema/v6, does so.
var formatTests = []struct {
	format  string
	valid   []string
	invalid []string
}{
	{
		format: "date-time",
		valid: []string{
			"1963-06-19T08:30:06.283185Z",
			"1963-06-19t08:30:06z",
			"1963-06-19T08:30:06Z",
			"1937-01-01T12:00:27.87+00:20",
			"1963-06-19T08:30:06.0+23:59",
			"1963-06-19T08:30:06.123456789123456789-23:59",
			"1998-12-31T23:59:60Z",
			"1998-12-31T23:59:60.5Z",
			"1990-12-31T15:59:60-08:00",
			"2000-02-29T00:00:00Z",
			"2024-02-29T12:00:00+01:00",
			"0000-02-29T00:00:00Z",
			"9999-12-31T23:59:59Z",
			"1963-06-19T+8:+3:+6Z",      // quirk: signed fields
			"1963-06-19T-0:00:00Z",      // quirk: "-0" hour
			"1963-06-19T08:30:06+-0:+0", // quirk: signed offset fields
		},
		invalid: []string{
			"",
			"1963-06-19T08:30:06",
			"1963-06-19 08:30:06Z",
			"1963-06-19_08:30:06Z",
			"1963-06-19T08:30:06.Z",
			"1963-06-19T08:30:06,5Z",
			"1963-06-19T08:30:06+0100",
			"1963-06-19T08:30:06+01",
			"1963-06-19T08:30:06+24:00",
			"1963-06-19T08:30:06+01:60",
			"1963-06-19T08:30:06 Z",
			"1963-06-19T08:30:06Zx",
			"1963-06-19T08:30:06.1.2Z",
			"1963-06-19T24:00:00Z",
			"1963-06-19T08:60:06Z",
			"1963-06-19T8:30:06Z",
			"1963-6-19T08:30:06Z",
			"63-06-19T08:30:06Z",
			"1998-12-31T23:58:60Z",
			"1990-12-31T15:59:60+08:00",
			"1998-12-31T23:59:61Z",
			"1990-02-31T15:59:59.123-08:00",
			"2001-02-29T00:00:00Z",
			"1900-02-29T00:00:00Z",
			"06/19/1963 08:30:06 PST",
			"2013-350T01:01:01",
			"1963-06-1\u09eaT00:00:00Z",
			"1963-06-19T08:30:06\u00a0Z",
			"1963-06-19T-1:30:06Z",
			"1963-06-19T08:30:06+-1:00",
		},
	},
	{
		format: "date",
		valid: []string{
			"1963-06-19",
			"2020-01-31",
			"2020-02-29",
			"2000-02-29",
			"2021-04-30",
			"0000-01-01",
			"0000-02-29",
			"9999-12-31",
		},
		invalid: []string{
			"",
			"2021-02-29",
			"1900-02-29",
			"2020-04-31",
			"2020-01-32",
			"2020-13-01",
			"2020-00-10",
			"2020-01-00",
			"2020-1-01",
			"2020-01-1",
			"20200101",
			"2020/01/01",
			"+020-01-01",
			"-020-01-01",
			"02020-01-01",
			"2020-01-01T00:00:00Z",
			"2020-01-01 ",
			" 2020-01-01",
			"2020-0\u09ea-01",
			"2020-+1-01",
		},
	},
	{
		format: "time",
		valid: []string{
			"08:30:06Z",
			"08:30:06z",
			"08:30:06.283185Z",
			"08:30:06+00:20",
			"08:30:06-23:59",
			"00:00:00-00:00",
			"23:59:60Z",
			"23:59:60.999z",
			"23:59:60+00:00",
			"15:59:60-08:00",
			"00:29:60-23:30",
			"22:59:60-01:00",
			"00:59:60+01:00",
			"+8:+3:+6Z",      // quirk: signed fields
			"-0:-0:-0Z",      // quirk: "-0" fields
			"08:30:06-+0:+0", // quirk: signed offset fields
		},
		invalid: []string{
			"",
			"08:30:06",
			"8:30:06Z",
			"08:30:6Z",
			"08:30Z",
			"08:30:06 Z",
			"08:30:06Zz",
			"08:30:06.Z",
			"08:30:06.5.5Z",
			"08:30:06,5Z",
			"24:00:00Z",
			"08:60:00Z",
			"08:30:61Z",
			"23:58:60Z",
			"23:59:60+01:00",
			"22:59:60-00:59",
			"08:30:06+01:00:00",
			"08:30:06+0100",
			"08:30:06+24:00",
			"08:30:06+01:60",
			"08:30:06*01:00",
			"08:30:06+01-00",
			"-1:00:00Z",
			"08:-1:00Z",
			"08:30:06+-1:00",
			"08::0:06Z",
			"0:::0:06Z",
			"08:30:06+:0:00",
			"08:30:0\u0666Z",
		},
	},
	{
		format: "duration",
		valid: []string{
			"P4DT12H30M5S",
			"P1W",
			"P52W",
			"P1Y2M",
			"P1Y",
			"P1M",
			"P1D",
			"P1Y1D",
			"PT1H",
			"PT1M",
			"PT0S",
			"PT1H1S",
			"P0D",
			"P1Y2M3DT4H5M6S",
			"P10000000000000000000000Y",
			"P001D",
		},
		invalid: []string{
			"",
			"P",
			"PT",
			"P1YT",
			"P1",
			"P1Y2",
			"PW",
			"P1Y1W",
			"P1W1D",
			"P1WT1H",
			"PT1D",
			"P1H",
			"P1S",
			"P1M1Y",
			"P1Y1Y",
			"PT1S1M",
			"P1.5Y",
			"PT0.5S",
			"P-1Y",
			"P+1Y",
			"1Y",
			"p1y",
			"P1y",
			"P1DT1HT1S",
			"P1DTT1H",
			"P1W ",
			"PT1H\n",
			"P\u0661D",
			"P\u0661W",
		},
	},
	{
		format: "email",
		valid: []string{
			"joe.bloggs@example.com",
			"te~st@example.com",
			"a@b",
			"!#$%&'*+-/=?^_`{|}~@example.com",
			"joe@example.com.",
			`"joe bloggs"@example.com`,
			`"joe..bloggs"@example.com`,
			`"joe@bloggs"@example.com`,
			`"jöe"@example.com`,
			`""@example.com`,
			"joe.bloggs@[127.0.0.1]",
			"joe.bloggs@[IPv6:::1]",
			"joe.bloggs@[IPv6:2001:db8::1]",
			strings.Repeat("l", 64) + "@example.com",
			strings.Repeat("l", 64) + "@" + strings.Repeat("d", 63) + "." + strings.Repeat("d", 63) + "." + strings.Repeat("d", 61),
			"@example.com",   // quirk: empty local part
			"joe@[+1.2.3.4]", // quirk: signed IPv4 number
			"joe@[IPv6:::1.2.3.4]",
		},
		invalid: []string{
			"",
			"joe",
			"joe@",
			"@",
			".joe@example.com",
			"joe.@example.com",
			"joe..bloggs@example.com",
			"joe bloggs@example.com",
			`"@example.com`,
			`"joe\"bloggs"@example.com`,
			`"joe\\bloggs"@example.com`,
			`"joe"bloggs"@example.com`,
			"jöe@example.com",
			"joe@exämple.com",
			"joe@-example.com",
			"joe@example..com",
			"joe@example.com..",
			"joe@[127.0.0.300]",
			"joe@[127.0.0.01]",
			"joe@[IPv6:127.0.0.1]",
			"joe@[IPv6:fe80::1%eth0]",
			"joe@[ipv6:::1]",
			"joe@[::1]",
			"joe@[]",
			"joe@[127.0.0.1",
			"joe@127.0.0.1]",
			strings.Repeat("l", 65) + "@example.com",
			strings.Repeat("l", 64) + "@" + strings.Repeat("d", 63) + "." + strings.Repeat("d", 63) + "." + strings.Repeat("d", 62),
			"joe@" + strings.Repeat("d", 64) + ".com",
		},
	},
	{
		format: "hostname",
		valid: []string{
			"www.example.com",
			"example.com.",
			"EXAMPLE.com",
			"xn--4gbwdl.xn--wgbh1c",
			"a",
			"1host",
			"123",
			"1.2.3.4",
			"a-b--c",
			strings.Repeat("a", 63),
			strings.Repeat("a", 63) + ".com",
			strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61),
			strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61) + ".",
		},
		invalid: []string{
			"",
			".",
			"..",
			"example..com",
			".example.com",
			"example.com..",
			"-a.com",
			"a-.com",
			"a.-b",
			"a_b.com",
			"ex ample.com",
			"éxample.com",
			"例子.测试",
			"example.com\x00",
			strings.Repeat("a", 64),
			strings.Repeat("a", 64) + ".com",
			strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 62),
			strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61) + "..",
		},
	},
	{
		format: "ipv4",
		valid: []string{
			"192.168.0.1",
			"0.0.0.0",
			"255.255.255.255",
			"10.0.0.10",
			"+1.2.3.4",                         // quirk: signed number
			"-0.0.0.0",                         // quirk: negative zero
			"+01.2.3.4",                        // quirk: a sign hides the leading zero
			"1.2.3.-000",                       // quirk
			"+0000000000000000000000001.2.3.4", // quirk
		},
		invalid: []string{
			"",
			"127.0.0.0.1",
			"256.256.256.256",
			"1.2.3.256",
			"1.2.3",
			"01.2.3.4",
			"1.2.3.04",
			"00.0.0.0",
			"1.2.3.4.",
			".1.2.3",
			"1..2.3",
			"0x7f000001",
			"0x7f.0.0.1",
			"2130706433",
			"1.2.3.a",
			"-1.2.3.4",
			"1.2.3.-1",
			"1.2.3.+256",
			"+.1.2.3",
			"1.2.3.-",
			"1.2.3.4 ",
			" 1.2.3.4",
			"1.2.3.\u09e8",
			"99999999999999999999.1.2.3",
			"-99999999999999999999.1.2.3",
			"1_0.2.3.4",
			"1.2.3.4/8",
		},
	},
	{
		format: "ipv6",
		valid: []string{
			"::1",
			"::",
			"2001:db8::ff00:42:8329",
			"2001:DB8:0:0:0:0:0:1",
			"1:2:3:4:5:6:7:8",
			"fe80::",
			"::42:ff:1",
			"::ffff:192.168.0.1",
			"1:2:3:4:5:6:1.2.3.4",
		},
		invalid: []string{
			"",
			"12345::",
			"::1%eth0",
			"fe80::1%",
			"%eth0",
			"1:2:3:4:5:6:7:8:9",
			"1:2:3:4:5:6:7",
			":::",
			"1::2::3",
			"127.0.0.1",
			"::ffff:192.168.0.256",
			"::ffff:1.2.3.04",
			"[::1]",
			"::g",
			" ::1",
			"::1 ",
			"1:2:3:4:5:6:7:1.2.3.4",
		},
	},
	{
		format: "uri",
		valid: []string{
			"http://example.com",
			"https://example.com/path?q=1#frag",
			"mailto:joe@example.com",
			"urn:isbn:0451450523",
			"http://[::1]:8080/",
			"http://[2001:db8::7]/c=GB?objectClass?one",
			"ftp://user:pass@host:21/",
			"file:///etc/hosts",
			"tag:example.com,2024:x",
			"a:",
			"http://example.com/%20",
			"http://example.com/a\\b", // quirk: "uri" does not reject backslashes
			"http://example.com/a b",  // quirk: net/url accepts a space in the path
		},
		invalid: []string{
			"",
			"//example.com",
			"/path",
			"path",
			"#frag",
			"?q",
			"../a",
			":foo",
			"1http://example.com",
			"http://[::1",
			"http://::1/",
			"http://[1.2.3.4]/",
			"http://[fe80::1%25eth0]/", // quirk: RFC 6874 zone identifiers are rejected
			"http://example.com:port/",
			"http://exa mple.com",
			"http://example.com/%zz",
			"http://example.com/\x7f",
		},
	},
	{
		format: "uri-reference",
		valid: []string{
			"",
			"http://example.com",
			"//example.com",
			"//[::1]:80",
			"/path",
			"path",
			"../a/b",
			"./a:b",
			"#frag",
			"?q",
			"a:b",
		},
		invalid: []string{
			`\\WINDOWS\fileshare`,
			`a\b`,
			":foo",
			"a:b/c:d\\",
			"%zz",
			"http://[::1",
			"//[::1",
			"//::1",
			"//[fe80::1%25eth0]",
			"http://example.com:port/",
			"\x00",
		},
	},
	{
		format: "uuid",
		valid: []string{
			"2eb8aa08-aa98-11ea-b4aa-73b441d16380",
			"2EB8AA08-AA98-11EA-B4AA-73B441D16380",
			"2eb8aa08-AA98-11ea-B4aA-73b441d16380",
			"00000000-0000-0000-0000-000000000000",
			"ffffffff-ffff-ffff-ffff-ffffffffffff",
		},
		invalid: []string{
			"",
			"2eb8aa08-aa98-11ea-b4aa-73b441d1638",
			"2eb8aa08-aa98-11ea-b4aa-73b441d163800",
			"2eb8aa08aa9811eab4aa73b441d16380",
			"2eb8aa08-aa98-11ea-73b441d16380",
			"2eb8aa08-aa98-11ea-b4aa-73b441d1638g",
			"{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
			"urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380",
			"2eb8aa0-8aa98-11ea-b4aa-73b441d16380",
			"2eb8aa08-aa98-11ea-b4aa-73b441d16380 ",
			"2eb8aa08+aa98-11ea-b4aa-73b441d16380",
			"2eb8aa08-aa98-11ea-b4aa-73b441d1638\u00e9",
		},
	},
}

func TestFormatCheckersCoverAssertedFormats(t *testing.T) {
	want := []string{
		"date", "date-time", "duration", "email", "hostname", "ipv4", "ipv6",
		"time", "uri", "uri-reference", "uuid",
	}
	var got []string
	for name := range formatCheckers {
		got = append(got, name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("formatCheckers has %q, want %q", got, want)
	}
}

func TestFormatCheckers(t *testing.T) {
	for _, tt := range formatTests {
		check := formatCheckers[tt.format]
		if check == nil {
			t.Fatalf("no checker for format %q", tt.format)
		}
		for _, s := range tt.valid {
			if !check(s) {
				t.Errorf("%s: %q reported invalid, want valid", tt.format, s)
			}
		}
		for _, s := range tt.invalid {
			if check(s) {
				t.Errorf("%s: %q reported valid, want invalid", tt.format, s)
			}
		}
	}
}

func TestFormatCheckersDoNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts are slow to measure")
	}
	for _, tt := range formatTests {
		if tt.format == "uri" || tt.format == "uri-reference" {
			continue // net/url allocates the parsed URL
		}
		check := formatCheckers[tt.format]
		for _, s := range tt.valid {
			if allocs := testing.AllocsPerRun(10, func() { check(s) }); allocs != 0 {
				t.Errorf("%s: checking %q allocates %v times", tt.format, s, allocs)
			}
		}
	}
}

// oracleSchemas compiles, once, a schema {"type":"string","format":NAME} with
// format assertions enabled for each format in formatCheckers, using the
// reference implementation.
var oracleSchemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schemas := make(map[string]*jsonschema.Schema)
	for name := range formatCheckers {
		url := "urn:format-test:" + name
		if err := c.AddResource(url, map[string]any{"type": "string", "format": name}); err != nil {
			return nil, err
		}
		schema, err := c.Compile(url)
		if err != nil {
			return nil, err
		}
		schemas[name] = schema
	}
	return schemas, nil
})

// oracleValid reports whether the reference implementation considers s
// valid for the named format.
func oracleValid(t testing.TB, format, s string) bool {
	t.Helper()
	schemas, err := oracleSchemas()
	if err != nil {
		t.Fatalf("compiling oracle schemas: %v", err)
	}
	err = schemas[format].Validate(s)
	var validationErr *jsonschema.ValidationError
	if err != nil && !errors.As(err, &validationErr) {
		t.Fatalf("oracle %s: validating %q: unexpected error %v", format, s, err)
	}
	return err == nil
}

// checkAgainstOracle requires every checker to agree with the reference
// implementation about s.
func checkAgainstOracle(t *testing.T, s string) {
	t.Helper()
	for name, check := range formatCheckers {
		if got, want := check(s), oracleValid(t, name, s); got != want {
			t.Errorf("%s: %q: got valid=%v, oracle says valid=%v", name, s, got, want)
		}
	}
}

// formatTestInputs returns every input of formatTests, plus every prefix of
// each, to probe the checkers' handling of truncated values.
func formatTestInputs() []string {
	var inputs []string
	for _, tt := range formatTests {
		for _, s := range slices.Concat(tt.valid, tt.invalid) {
			for i := range len(s) + 1 {
				inputs = append(inputs, s[:i])
			}
		}
	}
	slices.Sort(inputs)
	return slices.Compact(inputs)
}

func TestFormatsAgreeWithOracle(t *testing.T) {
	for _, tt := range formatTests {
		for _, s := range tt.valid {
			if !oracleValid(t, tt.format, s) {
				t.Errorf("%s: oracle reports %q invalid; table lists it as valid", tt.format, s)
			}
		}
		for _, s := range tt.invalid {
			if oracleValid(t, tt.format, s) {
				t.Errorf("%s: oracle reports %q valid; table lists it as invalid", tt.format, s)
			}
		}
	}
	for _, s := range formatTestInputs() {
		checkAgainstOracle(t, s)
	}
}

func FuzzFormatsAgreeWithOracle(f *testing.F) {
	for _, tt := range formatTests {
		for _, s := range slices.Concat(tt.valid, tt.invalid) {
			f.Add(s)
		}
	}
	f.Fuzz(checkAgainstOracle)
}

// FuzzEmailAndHostname checks the one-pass isEmailLocalPart and isHostname
// against the rules read as RFC 5322 and RFC 1123 write them: the local part
// split into atoms at its dots, the hostname into labels.
func FuzzEmailAndHostname(f *testing.F) {
	for _, tt := range formatTests {
		if tt.format == "email" || tt.format == "hostname" {
			for _, s := range slices.Concat(tt.valid, tt.invalid) {
				f.Add(s)
			}
		}
	}
	for _, s := range []string{"", ".", "..", "a.", ".a", "a..b", "a.b", "-", "a-", "-a", "a.-b", "a-.b",
		strings.Repeat("a", 63) + ".b", strings.Repeat("a", 64) + ".b", "a." + strings.Repeat("b", 64), "ab\x00c", "\"a\"", "\"a\\b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isEmailLocalPart(s), simpleEmailLocalPart(s); got != want {
			t.Errorf("isEmailLocalPart(%q) = %t, the rule as written says %t", s, got, want)
		}
		if got, want := isHostname(s), simpleHostname(s); got != want {
			t.Errorf("isHostname(%q) = %t, the rule as written says %t", s, got, want)
		}
	})
}

// simpleEmailLocalPart is isEmailLocalPart as the rule reads: a quoted
// string, or atoms of atext characters joined by single dots.
func simpleEmailLocalPart(local string) bool {
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		return !strings.ContainsAny(local[1:len(local)-1], `\"`)
	}
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return false
	}
	for i := 0; i < len(local); i++ {
		if !isEmailAtext(local[i]) && local[i] != '.' {
			return false
		}
	}
	return true
}

// simpleHostname is isHostname as the rule reads: labels split at the dots,
// each checked on its own.
func simpleHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isASCIILetter(c) && !isDecimalDigit(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func BenchmarkFormatCheckers(b *testing.B) {
	inputs := []struct{ format, input string }{
		{"email", "joe.bloggs@example.com"},
		{"date-time", "1963-06-19T08:30:06.283185Z"},
		{"date", "1963-06-19"},
		{"time", "08:30:06+00:20"},
		{"duration", "P4DT12H30M5S"},
		{"hostname", "www.example.com"},
		{"ipv4", "192.168.0.1"},
		{"ipv6", "2001:db8::ff00:42:8329"},
		{"uri", "https://example.com/path?q=1#frag"},
		{"uri-reference", "../a/b?q=1"},
		{"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380"},
	}
	for _, in := range inputs {
		check := formatCheckers[in.format]
		b.Run(in.format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !check(in.input) {
					b.Fatalf("%q reported invalid", in.input)
				}
			}
		})
	}
}
