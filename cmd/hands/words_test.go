package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

var wordsCases = []struct {
	line  string
	words []string
	err   error // the sentinel of a refusal
	at    int   // its offset
}{
	{line: "npx -y server", words: []string{"npx", "-y", "server"}},
	{line: "  spaced \t out\n", words: []string{"spaced", "out"}},
	{line: "", words: nil},
	{line: `run 'a b' "c d"`, words: []string{"run", "a b", "c d"}},
	{line: `run '' ""`, words: []string{"run", "", ""}},
	{line: `run a'b'"c"d`, words: []string{"run", "abcd"}},
	{line: `run 'it"s' "it's"`, words: []string{"run", `it"s`, "it's"}},
	{line: `run a\ b`, words: []string{"run", "a b"}},
	{line: `run "a \"q\" \\ \$HOME \x"`, words: []string{"run", `a "q" \ $HOME \x`}},
	{line: `run '\n'`, words: []string{"run", `\n`}},
	{line: "run a\\\nb", words: []string{"run", "ab"}},
	{line: `/path/with\ space/bin --flag='{"a": 1}'`, words: []string{"/path/with space/bin", `--flag={"a": 1}`}},
	{line: `run 'open`, err: errUnbalancedQuote, at: 4},
	{line: `run "open \"`, err: errUnbalancedQuote, at: 4},
	{line: `run ok'`, err: errUnbalancedQuote, at: 6},
	{line: `run \`, err: errTrailingBackslash, at: 4},
}

func TestSplitWords(t *testing.T) {
	for _, tt := range wordsCases {
		got, err := splitWords(tt.line)
		if tt.err != nil {
			werr, ok := errors.AsType[*wordsError](err)
			if !ok || !errors.Is(err, tt.err) || werr.Offset != tt.at {
				t.Errorf("splitWords(%q) = %q, %v; want %v at byte %d", tt.line, got, err, tt.err, tt.at)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.words) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tt.line, got, err, tt.words)
		}
	}
}

// quoteWord quotes a word for a POSIX shell, the simplest way.
func quoteWord(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }

// FuzzSplitWords checks that splitWords never panics, that what it splits
// holds no more bytes than the line, and that words quoted one by one and
// joined split back into the same words.
func FuzzSplitWords(f *testing.F) {
	for _, tt := range wordsCases {
		f.Add(tt.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitWords(line)
		if err != nil {
			if _, ok := errors.AsType[*wordsError](err); !ok {
				t.Fatalf("splitWords(%q) = %v, want a *wordsError", line, err)
			}
			return
		}
		n := 0
		for _, w := range words {
			n += len(w)
		}
		if n > len(line) {
			t.Fatalf("splitWords(%q) = %q: more bytes than the line", line, words)
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = quoteWord(w)
		}
		again, err := splitWords(strings.Join(quoted, " "))
		if err != nil || !reflect.DeepEqual(again, words) && len(words) > 0 {
			t.Fatalf("splitWords of %q quoted = %q, %v; want %q", line, again, err, words)
		}
	})
}

// TestUpstreamQuoting checks that serve refuses an --upstream command line
// whose quote is not closed, naming the flag, before starting anything.
func TestUpstreamQuoting(t *testing.T) {
	_, _, err := runCmd(t, "serve", "--upstream", `server --name 'unclosed`)
	// The flag package keeps the refusal's text, not the error itself.
	if err == nil || !strings.Contains(err.Error(), "upstream") || !strings.Contains(err.Error(), errUnbalancedQuote.Error()) {
		t.Errorf("serve --upstream with an unclosed quote = %v, want a refusal of the flag", err)
	}
}
