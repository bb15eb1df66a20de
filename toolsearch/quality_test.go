package toolsearch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/catalogue"
	"github.com/hands-go/hands/tool"
)

// A query is one search of the benchmark: what an agent would type, and
// the tools (server/name) that would do what it asks. Any one of them
// counts as found.
type query struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// loadQueries reads testdata/queries.json.
func loadQueries(t testing.TB) []query {
	t.Helper()
	data, err := os.ReadFile("testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []query
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatal(err)
	}
	return qs
}

// catalogueDocs returns the Doc of every tool of the catalogue of real MCP
// servers, named server/name, as a gateway that prefixes the tools of its
// servers with the server's name lists them.
func catalogueDocs(t testing.TB) []Doc {
	t.Helper()
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for _, s := range servers {
		for _, raw := range s.Tools {
			var mt struct {
				Name        string             `json:"name"`
				Title       string             `json:"title"`
				Description string             `json:"description"`
				InputSchema *jsonschema.Schema `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &mt); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			docs = append(docs, DocOf(tool.Spec{Name: s.Name + "/" + mt.Name, Title: mt.Title, Description: mt.Description, InputSchema: mt.InputSchema}))
		}
	}
	return docs
}

// A ranker ranks the catalogue's tools against a query, best first.
type ranker interface {
	rank(query string, limit int) []string
}

// handsRanker is this package's Index.
type handsRanker struct{ x *Index }

func (h handsRanker) rank(q string, limit int) []string {
	var names []string
	for _, m := range h.x.Search(q, limit, nil) {
		names = append(names, m.Name)
	}
	return names
}

// text is a Doc's text in one string: its name, title, description and
// properties' names and descriptions.
func text(d Doc) string {
	parts := []string{d.Name, d.Title, d.Description}
	for _, p := range d.Properties {
		parts = append(parts, p.Name, p.Description)
	}
	return strings.Join(parts, " ")
}

// bm25 is plain BM25 (k1 = 1.2, b = 0.75) over each doc's text as one
// field, with this package's tokenizer (words: split at case changes and
// punctuation, lower-cased, plurals reduced, stop words dropped), so that
// it differs from the Index in ranking alone.
type bm25 struct {
	names  []string
	tf     []map[string]int
	length []int
	df     map[string]int
	avg    float64
}

func newBM25(docs []Doc) *bm25 {
	b := &bm25{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		n := 0
		for w := range words(text(d)) {
			tf[w]++
			n++
		}
		for w := range tf {
			b.df[w]++
		}
		b.names = append(b.names, d.Name)
		b.tf = append(b.tf, tf)
		b.length = append(b.length, n)
		total += n
	}
	b.avg = float64(total) / float64(len(docs))
	return b
}

func (b *bm25) rank(q string, limit int) []string {
	const k1, bb = 1.2, 0.75
	var terms []string
	for w := range words(q) {
		if !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	n := float64(len(b.names))
	var ms []Match
	for i, tf := range b.tf {
		score := 0.0
		for _, w := range terms {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			df := float64(b.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(b.length[i])/b.avg))
		}
		if score > 0 {
			ms = append(ms, Match{Name: b.names[i], Score: score})
		}
	}
	return top(ms, limit)
}

// substring ranks a doc by how many of the query's words its lower-cased
// text contains, as a plain filter of a tool list would.
type substring struct {
	names []string
	texts []string
}

func newSubstring(docs []Doc) *substring {
	s := &substring{}
	for _, d := range docs {
		s.names = append(s.names, d.Name)
		s.texts = append(s.texts, strings.ToLower(text(d)))
	}
	return s
}

func (s *substring) rank(q string, limit int) []string {
	var terms []string
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !stopWords[w] && !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	var ms []Match
	for i, text := range s.texts {
		n := 0
		for _, w := range terms {
			if strings.Contains(text, w) {
				n++
			}
		}
		if n > 0 {
			ms = append(ms, Match{Name: s.names[i], Score: float64(n)})
		}
	}
	return top(ms, limit)
}

// top returns the names of the best limit matches, ties to the name that
// sorts first, as Index.Search breaks them.
func top(ms []Match, limit int) []string {
	slices.SortFunc(ms, func(a, b Match) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	var names []string
	for _, m := range ms[:min(limit, len(ms))] {
		names = append(names, m.Name)
	}
	return names
}

// figures are a ranker's figures over a set of queries: the share whose
// first result is relevant (recall@1), the share with a relevant tool in
// the first five (recall@5), and the mean reciprocal rank of the first
// relevant tool within the first ten (MRR, 0 for a query without one).
type figures struct {
	n                int
	recall1, recall5 float64
	mrr              float64
	missed           []string // the queries with no relevant tool in the first five
}

// mrrDepth is how deep MRR looks for a relevant tool.
const mrrDepth = 10

func evaluate(r ranker, qs []query) figures {
	var s figures
	for _, q := range qs {
		got := r.rank(q.Query, mrrDepth)
		rank := slices.IndexFunc(got, func(name string) bool { return slices.Contains(q.Relevant, name) }) + 1
		s.n++
		if rank == 1 {
			s.recall1++
		}
		if rank >= 1 && rank <= 5 {
			s.recall5++
		} else {
			s.missed = append(s.missed, fmt.Sprintf("%q: %v", q.Query, got[:min(3, len(got))]))
		}
		if rank >= 1 {
			s.mrr += 1 / float64(rank)
		}
	}
	s.recall1 /= float64(s.n)
	s.recall5 /= float64(s.n)
	s.mrr /= float64(s.n)
	return s
}

// split returns the queries of the tuning half (even places in
// queries.json) and of the held-out half (odd places). The ranking was
// tuned on the first alone.
func split(qs []query) (tuning, heldOut []query) {
	for i, q := range qs {
		if i%2 == 0 {
			tuning = append(tuning, q)
		} else {
			heldOut = append(heldOut, q)
		}
	}
	return tuning, heldOut
}

// TestQuality ranks the tools of the catalogue of real MCP servers against
// queries written as an agent would search, with the Index, plain BM25 and
// substring matching, and checks that the Index beats plain BM25 on the
// held-out queries, in MRR and in recall@5. With -v it prints the table
// that docs/PERFORMANCE.md shows.
func TestQuality(t *testing.T) {
	docs := catalogueDocs(t)
	qs := loadQueries(t)
	names := map[string]bool{}
	servers := map[string]bool{}
	for _, d := range docs {
		names[d.Name] = true
		servers[strings.SplitN(d.Name, "/", 2)[0]] = true
	}
	for _, q := range qs {
		for _, r := range q.Relevant {
			if !names[r] {
				t.Fatalf("query %q: no tool %s in the catalogue", q.Query, r)
			}
		}
	}
	if len(docs) < 300 || len(servers) < 8 || len(qs) < 150 {
		t.Fatalf("the benchmark has %d tools of %d servers and %d queries; it needs 300, 8 and 150", len(docs), len(servers), len(qs))
	}
	var x Index
	for _, d := range docs {
		x.Put(d)
	}
	rankers := []struct {
		name string
		r    ranker
	}{
		{"hands (toolsearch)", handsRanker{&x}},
		{"plain BM25", newBM25(docs)},
		{"substring", newSubstring(docs)},
	}
	tuning, heldOut := split(qs)
	t.Logf("%d tools from %d servers, %d queries (%d tuning, %d held out)", len(docs), len(servers), len(qs), len(tuning), len(heldOut))
	t.Logf("| ranker | queries | recall@1 | recall@5 | MRR@%d |", mrrDepth)
	t.Logf("|---|---|---|---|---|")
	results := map[string]figures{}
	for _, r := range rankers {
		for _, set := range []struct {
			name string
			qs   []query
		}{{"tuning", tuning}, {"held out", heldOut}, {"all", qs}} {
			s := evaluate(r.r, set.qs)
			results[r.name+" "+set.name] = s
			t.Logf("| %s | %s (%d) | %.3f | %.3f | %.3f |", r.name, set.name, s.n, s.recall1, s.recall5, s.mrr)
		}
	}
	hands, plain := results["hands (toolsearch) held out"], results["plain BM25 held out"]
	if hands.mrr <= plain.mrr || hands.recall5 <= plain.recall5 {
		t.Errorf("on the held-out queries the Index has MRR %.3f and recall@5 %.3f, plain BM25 %.3f and %.3f: the Index must beat it on both",
			hands.mrr, hands.recall5, plain.mrr, plain.recall5)
	}
	if testing.Verbose() && os.Getenv("TOOLSEARCH_MISSED") != "" {
		for _, m := range results["hands (toolsearch) "+os.Getenv("TOOLSEARCH_MISSED")].missed {
			t.Log("missed:", m)
		}
	}
}

// replicated returns n tools made of the catalogue's, copied with a number
// added to each name ("github/create_issue_7"), as a gateway of many
// servers that offer the same kinds of tools holds.
func replicated(b testing.TB, n int) []Doc {
	base := catalogueDocs(b)
	out := make([]Doc, 0, n)
	for i := 0; len(out) < n; i++ {
		d := base[i%len(base)]
		d.Name = fmt.Sprintf("%s_%d", d.Name, i/len(base))
		out = append(out, d)
	}
	return out
}

// BenchmarkSearchCatalogue measures a search of limit 5 with the
// benchmark's queries, in turn, among 1,000 and 10,000 tools copied from
// the catalogue of real MCP servers.
func BenchmarkSearchCatalogue(b *testing.B) {
	qs := loadQueries(b)
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var x Index
			for _, d := range replicated(b, n) {
				x.Put(d)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				x.Search(qs[i%len(qs)].Query, 5, nil)
			}
		})
	}
}

// BenchmarkPutRemoveCatalogue measures taking one tool of the catalogue
// out of an index and putting it back, in indexes of growing size: the
// cost is that of the tool's own text, whatever the index holds.
func BenchmarkPutRemoveCatalogue(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var x Index
			all := replicated(b, n)
			for _, d := range all {
				x.Put(d)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				d := all[(i*7919)%n]
				x.Remove(d.Name)
				x.Put(d)
			}
		})
	}
}
