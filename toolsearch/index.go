package toolsearch

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/tool"
)

// A Doc is what an Index knows of one tool.
type Doc struct {
	// Name is the tool's name, unique in an Index.
	Name string
	// Title is the tool's human-readable title; it may be empty.
	Title string
	// Description is what the tool does.
	Description string
	// Properties are the tool's input properties.
	Properties []Property
}

// A Property is one property of a tool's input.
type Property struct {
	// Name is the property's name.
	Name string
	// Description is the property's description; it may be empty.
	Description string
}

// DocOf returns the Doc of a tool's spec: its name, title and description,
// and the name and description of each property of its input, nested
// objects' properties included.
func DocOf(spec tool.Spec) Doc {
	d := Doc{Name: spec.Name, Title: spec.Title, Description: spec.Description}
	if spec.InputSchema != nil {
		d.Properties = properties(d.Properties, spec.InputSchema.Properties, spec.InputSchema.PropertyOrder, 0)
	}
	return d
}

// maxPropertyDepth bounds how deep DocOf looks for properties: a schema
// from another server may nest without end.
const maxPropertyDepth = 3

// properties appends the properties of one object schema, in order, and
// those of the objects they hold, to list.
func properties(list []Property, props map[string]*jsonschema.Schema, order []string, depth int) []Property {
	if depth >= maxPropertyDepth {
		return list
	}
	names := order
	if len(names) != len(props) {
		names = make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	for _, name := range names {
		p := props[name]
		if p == nil {
			continue
		}
		list = append(list, Property{Name: name, Description: p.Description})
		list = properties(list, p.Properties, p.PropertyOrder, depth+1)
		if p.Items != nil {
			list = properties(list, p.Items.Properties, p.Items.PropertyOrder, depth+1)
		}
	}
	return list
}

// The fields of a Doc that an Index weighs apart.
const (
	fieldName = iota
	fieldTitle
	fieldDescription
	fieldPropertyName
	fieldPropertyDescription
	numFields
)

// weights are how much a word counts in each field, and lengthNorm how much
// a field's length lowers the weight of each of its words (BM25F's b).
var (
	weights    = [numFields]float64{3, 2, 1, 1.5, 0.5}
	lengthNorm = [numFields]float64{0.5, 0.5, 0.75, 0.75, 0.75}
)

// k1 is BM25's saturation: how soon more occurrences of a word stop
// counting.
const k1 = 1.2

// An Index ranks tools against queries. The zero Index is empty and ready to
// use. It is safe for concurrent use: Put and Remove may run while others
// search.
type Index struct {
	mu       sync.RWMutex
	docs     []entry              // by slot; a removed tool leaves a free slot
	free     []int32              // free slots
	slots    map[string]int32     // by tool name
	postings map[string][]posting // by word: the docs that hold it, unordered
	lengths  [numFields]int       // each field's words, over every doc
	count    int                  // docs held
	scratch  sync.Pool            // of *scores
}

// entry is one tool's place in an Index.
type entry struct {
	name    string
	lengths [numFields]int
	words   map[string]int // by word: the doc's place in the word's postings
}

// posting is one word of one doc.
type posting struct {
	slot   int32
	counts [numFields]float32 // how often the word is in each field
}

// scores is one search's working memory, by slot.
type scores struct {
	score   []float64
	touched []int32   // the slots with a score, in the order first scored
	concept []float64 // by slot: the best score of one concept's words
	inTerm  []int32   // the slots with a concept score
}

// A Match is one tool a search found.
type Match struct {
	// Name is the tool's name.
	Name string
	// Score is how well the tool matches: higher is better. Scores are
	// comparable within one search only.
	Score float64
}

// Len returns how many tools the index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.count
}

// Put adds a tool to the index, or replaces the tool of the same name. Its
// cost is that of the doc's own text, whatever the index holds.
func (x *Index) Put(d Doc) {
	var lengths [numFields]int
	counts := map[string]*[numFields]float32{}
	var order []string // the doc's words, in the order first met
	add := func(f int, text string) {
		for w := range words(text) {
			lengths[f]++
			c := counts[w]
			if c == nil {
				c = new([numFields]float32)
				counts[w] = c
				order = append(order, w)
			}
			c[f]++
		}
	}
	add(fieldName, d.Name)
	add(fieldTitle, d.Title)
	add(fieldDescription, d.Description)
	for _, p := range d.Properties {
		add(fieldPropertyName, p.Name)
		add(fieldPropertyDescription, p.Description)
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	if x.slots == nil {
		x.slots = map[string]int32{}
		x.postings = map[string][]posting{}
	}
	if slot, ok := x.slots[d.Name]; ok {
		x.remove(slot)
	}
	e := entry{name: d.Name, lengths: lengths, words: make(map[string]int, len(order))}
	var slot int32
	if n := len(x.free); n > 0 {
		slot, x.free = x.free[n-1], x.free[:n-1]
	} else {
		slot = int32(len(x.docs))
		x.docs = append(x.docs, entry{})
	}
	for _, w := range order {
		e.words[w] = len(x.postings[w])
		x.postings[w] = append(x.postings[w], posting{slot: slot, counts: *counts[w]})
	}
	x.docs[slot] = e
	x.slots[d.Name] = slot
	for f := range numFields {
		x.lengths[f] += lengths[f]
	}
	x.count++
}

// Remove takes the named tool out of the index and reports whether it was
// there. Its cost is that of the tool's own text.
func (x *Index) Remove(name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	slot, ok := x.slots[name]
	if ok {
		x.remove(slot)
	}
	return ok
}

// remove frees a slot. The caller holds the lock.
func (x *Index) remove(slot int32) {
	e := &x.docs[slot]
	for w, at := range e.words {
		// Move the list's last posting into this one's place: a removal
		// costs the doc's own words, whatever the index holds.
		list := x.postings[w]
		last := list[len(list)-1]
		list[at] = last
		x.docs[last.slot].words[w] = at
		list = list[:len(list)-1]
		if len(list) == 0 {
			delete(x.postings, w)
		} else {
			x.postings[w] = list
		}
	}
	for f := range numFields {
		x.lengths[f] -= e.lengths[f]
	}
	delete(x.slots, e.name)
	*e = entry{}
	x.free = append(x.free, slot)
	x.count--
}

// Search returns the tools that best match query, best first, at most
// limit of them (none when limit is not positive). When allow is not nil,
// only the tools it allows are returned, and the limit counts only those;
// allow is asked only about tools that match. Ties go to the name that
// sorts first, so that one query always gives one answer.
func (x *Index) Search(query string, limit int, allow func(name string) bool) []Match {
	if limit <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	terms := x.terms(query)
	if x.count == 0 || len(terms) == 0 {
		return nil
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(float64(x.lengths[f])/float64(x.count), 1)
	}
	sc, _ := x.scratch.Get().(*scores)
	if sc == nil {
		sc = new(scores)
	}
	if len(sc.score) < len(x.docs) {
		sc.score = make([]float64, len(x.docs))
		sc.concept = make([]float64, len(x.docs))
	}
	n := float64(x.count)
	// A concept is a word of the query with its synonyms: a tool scores
	// the best of its words for each concept, so that a tool that has a
	// word and its synonym does not count the concept twice.
	for _, concept := range terms {
		for _, t := range concept {
			list := x.postings[t.word]
			df := float64(len(list))
			idf := t.weight * math.Log(1+(n-df+0.5)/(df+0.5))
			for i := range list {
				p := &list[i]
				lengths := &x.docs[p.slot].lengths
				var tf float64
				for f := range numFields {
					if p.counts[f] == 0 {
						continue
					}
					norm := 1 - lengthNorm[f] + lengthNorm[f]*float64(lengths[f])/avg[f]
					tf += weights[f] * float64(p.counts[f]) / norm
				}
				v := idf * tf / (k1 + tf)
				if sc.concept[p.slot] == 0 {
					sc.inTerm = append(sc.inTerm, p.slot)
				}
				sc.concept[p.slot] = max(sc.concept[p.slot], v)
			}
		}
		for _, slot := range sc.inTerm {
			if sc.score[slot] == 0 {
				sc.touched = append(sc.touched, slot)
			}
			sc.score[slot] += sc.concept[slot]
			sc.concept[slot] = 0
		}
		sc.inTerm = sc.inTerm[:0]
	}
	// Keep the best limit in a heap whose root is the worst kept.
	best := make([]Match, 0, min(limit, len(sc.touched)))
	for _, slot := range sc.touched {
		m := Match{Name: x.docs[slot].name, Score: sc.score[slot]}
		sc.score[slot] = 0
		if len(best) == limit && !better(m, best[0]) {
			continue
		}
		if allow != nil && !allow(m.Name) {
			continue
		}
		if len(best) < limit {
			best = append(best, m)
			up(best, len(best)-1)
		} else {
			best[0] = m
			down(best, 0)
		}
	}
	sc.touched = sc.touched[:0]
	x.scratch.Put(sc)
	slices.SortFunc(best, func(a, b Match) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return best
}

// better reports whether a ranks before b: a higher score, or the same score
// and a name that sorts first.
func better(a, b Match) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return cmp.Less(a.Name, b.Name)
}

// up and down keep h a heap whose root is the match that ranks last.
func up(h []Match, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func down(h []Match, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// maxWordBytes bounds one word: longer runs of letters (a base64 blob in a
// description, say) are cut, so that no word costs more than this.
const maxWordBytes = 64

// words yields the words of a text, lower-cased and reduced to a common
// stem, without the commonest English words. A word ends at a character
// that is neither a letter nor a digit, at a change from lower to upper case
// ("pullRequest"), before the last capital of a run of them ("HTTPServer")
// and between letters and digits ("v2").
func words(text string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		var buf []byte
		var prev rune // the previous character of the word, 0 at its start
		flush := func() bool {
			defer func() { buf, prev = buf[:0], 0 }()
			if len(buf) == 0 {
				return true
			}
			w := stem(string(buf))
			if stopWords[w] {
				return true
			}
			return yield(w)
		}
		for i, r := range text {
			isLetter, isDigit := unicode.IsLetter(r), unicode.IsDigit(r)
			if !isLetter && !isDigit {
				if !flush() {
					return
				}
				continue
			}
			if prev != 0 {
				split := unicode.IsDigit(prev) != isDigit ||
					unicode.IsLower(prev) && unicode.IsUpper(r)
				if !split && unicode.IsUpper(prev) && unicode.IsUpper(r) {
					// "HTTPServer": split before the S, the start of a word.
					if next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):]); unicode.IsLower(next) {
						split = true
					}
				}
				if split && !flush() {
					return
				}
			}
			if len(buf) < maxWordBytes {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			prev = r
		}
		flush()
	}
}

// stem reduces an English plural to its singular, so that "files" finds
// "file" and "repositories" finds "repository".
func stem(w string) string {
	switch {
	case len(w) > 4 && w[len(w)-3:] == "ies":
		return w[:len(w)-3] + "y"
	case len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' && w[len(w)-2] != 'u' && w[len(w)-2] != 'i':
		return w[:len(w)-1]
	}
	return w
}

// stopWords are words too common in tool descriptions and queries to tell
// tools apart.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "in": true,
	"on": true, "and": true, "or": true, "with": true, "by": true, "from": true, "is": true,
	"it": true, "this": true, "that": true, "be": true, "as": true, "at": true, "i": true,
	"me": true, "my": true, "do": true, "can": true, "use": true, "are": true, "into": true,
}

// A term is one word a search looks for, with how much it counts.
type term struct {
	word   string
	weight float64
}

// synonymWeight is how much a word counts that a search looks for because
// the query has a synonym of it, against the query's own words.
const synonymWeight = 0.5

// terms returns the words a search for query looks for, by concept: each
// of the query's own words with those of its synonyms (synonyms) that the
// query does not have, which count less; and two of its words in a row
// written as one ("roll back" finds "rollback"). Only words that some
// tool has are returned. The caller holds the lock.
func (x *Index) terms(query string) [][]term {
	var own []string
	for w := range words(query) {
		if !slices.Contains(own, w) {
			own = append(own, w)
		}
	}
	var out [][]term
	seen := map[string]bool{}
	for _, w := range own {
		seen[w] = true // a synonym the query has counts as its own word
	}
	for i, w := range own {
		var concept []term
		if len(x.postings[w]) > 0 {
			concept = append(concept, term{w, 1})
		}
		for _, syn := range synonyms[w] {
			if !seen[syn] && len(x.postings[syn]) > 0 {
				seen[syn] = true
				concept = append(concept, term{syn, synonymWeight})
			}
		}
		if len(concept) > 0 {
			out = append(out, concept)
		}
		if i > 0 {
			if c := stem(own[i-1] + w); !seen[c] && len(x.postings[c]) > 0 {
				seen[c] = true
				out = append(out, []term{{c, 1}})
			}
		}
	}
	return out
}

// synonymGroups are words that tools and queries use for one another:
// kept small and general, the verbs of tool names and the nouns of
// everyday requests, never the words of one product.
var synonymGroups = [][]string{
	{"create", "new", "add", "make", "open"},
	{"delete", "remove", "drop", "erase", "destroy"},
	{"find", "search", "lookup", "query", "look"},
	{"get", "fetch", "retrieve", "read", "show"},
	{"list", "show", "enumerate"},
	{"update", "edit", "modify", "change"},
	{"run", "execute", "trigger", "start", "launch"},
	{"stop", "terminate", "kill", "end", "cancel"},
	{"send", "post", "publish"},
	{"folder", "directory"},
}

// synonyms maps each word of synonymGroups to the others of its groups.
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		for _, w := range g {
			for _, o := range g {
				if o != w && !slices.Contains(m[w], o) {
					m[w] = append(m[w], o)
				}
			}
		}
	}
	return m
}()
