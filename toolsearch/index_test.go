package toolsearch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"createPullRequest", []string{"create", "pull", "request"}},
		{"create_pull_request", []string{"create", "pull", "request"}},
		{"create-pull-request", []string{"create", "pull", "request"}},
		{"HTTPServer v2", []string{"http", "server", "v", "2"}},
		{"List the files in a directory.", []string{"list", "file", "directory"}},
		{"repositories issues status class", []string{"repository", "issue", "status", "class"}},
		{"Ünïcödé Wörter", []string{"ünïcödé", "wörter"}},
		{"", nil},
		{"  ,.; ", nil},
	} {
		var got []string
		for w := range words(c.text) {
			got = append(got, w)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("words(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func FuzzWords(f *testing.F) {
	f.Add("createPullRequest HTTPServer v2 ünï")
	f.Add(strings.Repeat("a", 200))
	f.Fuzz(func(t *testing.T, text string) {
		for w := range words(text) {
			if w == "" || !utf8.ValidString(w) || len(w) > maxWordBytes+utf8.UTFMax {
				t.Fatalf("words(%q) yielded %q", text, w)
			}
			if strings.ToLower(w) != w {
				t.Fatalf("words(%q) yielded %q, not lower-cased", text, w)
			}
		}
	})
}

func docs() []Doc {
	return []Doc{
		{Name: "read_file", Description: "Read the contents of a file.", Properties: []Property{{Name: "path", Description: "the file's path"}}},
		{Name: "write_file", Description: "Write text to a file, replacing it.", Properties: []Property{{Name: "path"}, {Name: "content"}}},
		{Name: "create_pull_request", Title: "Open a pull request", Description: "Create a new pull request in a GitHub repository.", Properties: []Property{{Name: "owner"}, {Name: "repo"}, {Name: "head"}, {Name: "base"}}},
		{Name: "list_issues", Description: "List issues in a GitHub repository, filtered by state.", Properties: []Property{{Name: "state", Description: "open or closed"}}},
		{Name: "send_message", Description: "Post a message to a Slack channel.", Properties: []Property{{Name: "channel_id"}, {Name: "text"}}},
		{Name: "browser_take_screenshot", Description: "Take a screenshot of the current page.", Properties: []Property{{Name: "fullPage", Description: "capture the whole scrollable page"}}},
	}
}

func names(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func TestSearch(t *testing.T) {
	var x Index
	for _, d := range docs() {
		x.Put(d)
	}
	for _, c := range []struct {
		query string
		first string
	}{
		{"open a pull request", "create_pull_request"},
		{"read a file", "read_file"},
		{"write file contents", "write_file"},
		{"screenshot of the page", "browser_take_screenshot"},
		{"slack channel message", "send_message"},
		{"closed issues", "list_issues"},
	} {
		got := x.Search(c.query, 3, nil)
		if len(got) == 0 || got[0].Name != c.first {
			t.Errorf("Search(%q) = %v, want %s first", c.query, names(got), c.first)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Errorf("Search(%q) is not best first: %v", c.query, got)
			}
		}
	}
	if got := x.Search("kubernetes", 5, nil); len(got) != 0 {
		t.Errorf("a query with no word of any tool found %v", names(got))
	}
	if got := x.Search("file", 0, nil); got != nil {
		t.Errorf("a limit of 0 found %v", names(got))
	}
	if got := x.Search("file", 1, nil); len(got) != 1 {
		t.Errorf("a limit of 1 found %v", names(got))
	}
}

// TestSearchAllow checks that a search never returns a tool allow refuses,
// and that the limit counts only the allowed ones.
func TestSearchAllow(t *testing.T) {
	var x Index
	for _, d := range docs() {
		x.Put(d)
	}
	var asked []string
	allow := func(name string) bool {
		asked = append(asked, name)
		return name != "read_file"
	}
	got := x.Search("file", 1, allow)
	if len(got) != 1 || got[0].Name != "write_file" {
		t.Errorf("Search with read_file refused = %v, want [write_file]", names(got))
	}
	if !slices.Contains(asked, "read_file") {
		t.Error("allow was not asked about read_file, a match")
	}
	if got := x.Search("file", 5, func(string) bool { return false }); len(got) != 0 {
		t.Errorf("a search that allows nothing found %v", names(got))
	}
}

// TestIncremental checks that an index changed by any sequence of Put and
// Remove ranks as one built at once from the tools it holds at the end.
func TestIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("file read write list create delete issue pull request repository page browser screenshot message channel user search query table row column database key value bucket upload download image")
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(vocab[r.IntN(len(vocab))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	var x Index
	live := map[string]Doc{}
	for i := range 3000 {
		name := fmt.Sprintf("tool_%d", r.IntN(200))
		if r.IntN(3) == 0 {
			_, had := live[name]
			if x.Remove(name) != had {
				t.Fatalf("step %d: Remove(%s) reported %v, want %v", i, name, !had, had)
			}
			delete(live, name)
			continue
		}
		d := Doc{Name: name, Title: text(2), Description: text(1 + r.IntN(12)), Properties: []Property{{Name: text(1), Description: text(3)}}}
		x.Put(d)
		live[name] = d
	}
	var fresh Index
	for _, d := range live {
		fresh.Put(d)
	}
	if x.Len() != len(live) || fresh.Len() != len(live) {
		t.Fatalf("Len = %d and %d, want %d", x.Len(), fresh.Len(), len(live))
	}
	for range 50 {
		q := text(1 + r.IntN(4))
		a, b := x.Search(q, 10, nil), fresh.Search(q, 10, nil)
		if len(a) != len(b) {
			t.Fatalf("Search(%q): %v incrementally, %v at once", q, a, b)
		}
		for i := range a {
			if a[i].Name != b[i].Name || !near(a[i].Score, b[i].Score) {
				t.Fatalf("Search(%q): %v incrementally, %v at once", q, a, b)
			}
		}
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

// TestPutReplaces checks that a Put under a name the index holds replaces
// that tool's text, and leaves nothing of the old text findable.
func TestPutReplaces(t *testing.T) {
	var x Index
	x.Put(Doc{Name: "t", Description: "paint the fence"})
	x.Put(Doc{Name: "t", Description: "wash the car"})
	if x.Len() != 1 {
		t.Fatalf("Len = %d after two Puts of one name, want 1", x.Len())
	}
	if got := x.Search("fence", 5, nil); len(got) != 0 {
		t.Errorf("the replaced text is still found: %v", got)
	}
	if got := x.Search("car", 5, nil); len(got) != 1 {
		t.Errorf("the new text is not found: %v", got)
	}
}

// synthetic returns n tools of 20 to 40 words each, drawn from a vocabulary
// of 5,000 words with a Zipf distribution, as tool text is.
func synthetic(n int) []Doc {
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.1, 1, 4999)
	word := func() string { return fmt.Sprintf("w%dx", z.Uint64()) }
	out := make([]Doc, n)
	for i := range out {
		var b strings.Builder
		for range 20 + r.IntN(20) {
			b.WriteString(word())
			b.WriteByte(' ')
		}
		out[i] = Doc{Name: fmt.Sprintf("tool_%d", i), Description: b.String(),
			Properties: []Property{{Name: word(), Description: word() + " " + word()}, {Name: word()}}}
	}
	return out
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var x Index
			for _, d := range synthetic(n) {
				x.Put(d)
			}
			queries := []string{"w1x w17x w250x", "w3x w900x", "w2x w5x w40x w1200x"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				x.Search(queries[i%len(queries)], 5, nil)
			}
		})
	}
}

// BenchmarkPut measures replacing one tool in indexes of growing size: the
// cost is that of the tool's own text, whatever the index holds.
func BenchmarkPut(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var x Index
			all := synthetic(n)
			for _, d := range all {
				x.Put(d)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				x.Put(all[i%n])
			}
		})
	}
}

// TestConcurrent runs Put, Remove and Search at once, for the race detector.
func TestConcurrent(t *testing.T) {
	var x Index
	all := synthetic(200)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			if i%3 == 0 {
				x.Remove(all[i%len(all)].Name)
			} else {
				x.Put(all[i%len(all)])
			}
		}
	}()
	for range 500 {
		for _, m := range x.Search("w1x w2x w30x", 5, nil) {
			if !strings.HasPrefix(m.Name, "tool_") {
				t.Fatalf("found %q", m.Name)
			}
		}
	}
	<-done
}

// TestSynonymsAndCompounds checks that a query finds a tool by a synonym
// of its words and by two of its words written as one, and that the
// query's own word counts more than a synonym.
func TestSynonymsAndCompounds(t *testing.T) {
	var x Index
	for _, d := range []Doc{
		{Name: "delete_branch", Description: "Delete a branch."},
		{Name: "version_rollback", Description: "Go to an earlier version."},
		{Name: "add_create_new", Description: "Add, create, make a new thing: every synonym of create."},
		{Name: "create_issue", Description: "Create an issue."},
		{Name: "list_items", Description: "List the items."},
	} {
		x.Put(d)
	}
	for _, c := range []struct{ query, first string }{
		{"remove a branch", "delete_branch"},
		{"roll back the release", "version_rollback"},
		{"open an issue", "create_issue"},
		{"add a thing", "add_create_new"},
	} {
		if got := x.Search(c.query, 3, nil); len(got) == 0 || got[0].Name != c.first {
			t.Errorf("Search(%q) = %v, want %s first", c.query, names(got), c.first)
		}
	}
}
