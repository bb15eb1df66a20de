package web_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/web"
)

// A bomb is a shape of HTML whose conversion cost the converter far more
// than its size: a head, a unit repeated up to the page's size, and a
// tail. Each shape is one that took the converter seconds and gigabytes
// at a few kilobytes before the conversion was bounded.
type bomb struct {
	name             string
	head, unit, tail string
	maxAlloc         int // bytes allocated per byte of page, at most
}

// page returns the bomb at about size bytes: at least its head, one unit
// and its tail.
func (b bomb) page(size int) []byte {
	n := max(1, (size-len(b.head)-len(b.tail))/len(b.unit))
	return []byte(b.head + strings.Repeat(b.unit, n) + b.tail)
}

// distinct returns n start tags of the element name, each with its own id
// attribute.
func distinct(name string, n int) string {
	var s strings.Builder
	for i := range n {
		fmt.Fprintf(&s, "<%s id=%d>", name, i)
	}
	return s.String()
}

var bombs = []bomb{
	// Spans: the converter makes every spanned cell and shifts rows for
	// each; 1 KB took 7.5 s.
	{name: "spanned cells", head: "<table><tr>", unit: "<td colspan=1000 rowspan=30>x", tail: "</table>", maxAlloc: 1000},
	{name: "spanned rows", head: "<table>", unit: "<tr><td colspan=1000 rowspan=1000>x", tail: "</table>", maxAlloc: 1000},
	// Padding: every row is filled up to the widest one, and every cell
	// padded to the longest in its column.
	{name: "wide row", head: "<table><tr>" + strings.Repeat("<td>x", 200), unit: "<tr><td>y", tail: "</table>", maxAlloc: 1000},
	{name: "long cell", head: "<table><tr><td>" + strings.Repeat("x", 800), unit: "<tr><td>y", tail: "</table>", maxAlloc: 1000},
	// Misnested formatting: the parser copies every open formatting
	// element into each new paragraph; 243 KB took 14 s and 2 GB.
	{name: "reconstructed formatting", head: "<p>" + distinct("b", 60) + "</p>", unit: "<p>x</p>", maxAlloc: 1000},
	// Depth: each level of a quote, a list or a heading rewrites every line
	// below it, so the cost grows with the depth squared; 64 KB of quotes
	// took 14 s and 9 GB.
	{name: "deep quotes", head: strings.Repeat("<blockquote>", 250), unit: "x<br>", maxAlloc: 1000},
	{name: "deep lists", head: strings.Repeat("<ul><li>", 120), unit: "x<br>", maxAlloc: 1000},
	{name: "deep headings", head: strings.Repeat("<h1><span>", 200), unit: "x<br>", maxAlloc: 1000},
	// The converter drops nested bold and italic, so deep inline
	// formatting cost little even before; it stays here to keep it so.
	{name: "deep inline", head: strings.Repeat("<b><i><s><code><em><strong><del>", 30), unit: "x<br>", maxAlloc: 1000},
	// Text cut up by comments: the converter joins the pieces by
	// repeated concatenation; 70 KB took 0.2 s and 209 MB, 640 KB 2.3 s and
	// 3.3 GB.
	{name: "text between comments", head: "<p>", unit: "aaaa<!>", maxAlloc: 1000},
}

// TestFetchBombs fetches each bomb, at 1 KB and at 64 KB, and checks that
// the call succeeds, that its output is within the output limit, and that
// the memory allocated meanwhile is bounded by the page's size. The call's
// time is bounded by TestBombsGrowLinearly, in CPU time, which the load of
// the machine does not change; the tool's timeout has its own test
// (TestFetchTimeoutCoversConversion), so here it is long enough that a busy
// machine does not reach it.
func TestFetchBombs(t *testing.T) {
	const timeout = 5 * time.Minute
	for _, b := range bombs {
		for _, size := range []int{1 << 10, 64 << 10} {
			t.Run(fmt.Sprintf("%s/%d", b.name, size), func(t *testing.T) {
				page := b.page(size)
				f, u := servePage(t, page, &web.FetchOptions{Timeout: timeout})
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				out, err := fetch(t, f, u)
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatalf("fetch_markdown(%d-byte %s) = %.200v, want success", len(page), b.name, err)
				}
				if len(out) > web.DefaultFetchMaxOutputBytes {
					t.Errorf("fetch_markdown(%d-byte %s) returned %d bytes, over the limit of %d", len(page), b.name, len(out), web.DefaultFetchMaxOutputBytes)
				}
				alloc := after.TotalAlloc - before.TotalAlloc
				if limit := uint64(b.maxAlloc*len(page) + 16<<20); alloc > limit {
					t.Errorf("fetch_markdown(%d-byte %s) allocated %d MB, want at most %d MB", len(page), b.name, alloc>>20, limit>>20)
				}
			})
		}
	}
}

// TestBombsGrowLinearly converts each bomb at 16 KB and at 64 KB and checks
// that the cost grows in proportion to the page: CPU time, bytes and
// objects at most 10 times (about 4 is linear), where the quadratic costs
// these shapes had before the conversion was bounded are 16 times or more. CPU time is the
// converting thread's, so a busy machine does not change it.
func TestBombsGrowLinearly(t *testing.T) {
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			pages := map[int][]byte{16 << 10: b.page(16 << 10), 64 << 10: b.page(64 << 10)}
			cost.Linear(t, b.name, 16<<10, 64<<10, func(size int) {
				if _, _, err := web.HTMLToMarkdown(t.Context(), pages[size], "https://example.com/"); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// TestFetchDeepNesting checks a page nested deeper than the HTML parser
// goes (512 elements): it is refused at once, with an error.
func TestFetchDeepNesting(t *testing.T) {
	page := []byte(strings.Repeat("<b>", 100_000) + "x")
	f, u := servePage(t, page, &web.FetchOptions{Timeout: 5 * time.Minute}) // refused at once; a busy machine must not reach it
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := fetch(t, f, u)
	runtime.ReadMemStats(&after)
	if err == nil || errors.Is(err, tool.ErrTimedOut) {
		t.Errorf("fetch_markdown(100000 nested <b>) = %v, want a conversion error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("fetch_markdown(100000 nested <b>) allocated %d MB, want at most 64 MB", alloc>>20)
	}
}

// TestConversionStops checks that the conversion itself stops when its
// context ends, so that a call abandoned at its deadline does not keep
// converting.
func TestConversionStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	md, _, err := web.HTMLToMarkdown(ctx, []byte(strings.Repeat("<p>x<br>y", 10_000)), "https://example.com/")
	if !errors.Is(err, context.Canceled) || len(md) > 0 {
		t.Errorf("HTMLToMarkdown(cancelled) = %d bytes, %v; want context.Canceled", len(md), err)
	}
}

// TestReshape checks that bounding the conversion leaves ordinary pages
// as the converter renders them, and what it does past the bounds.
func TestReshape(t *testing.T) {
	for _, tt := range []struct {
		name, page, want string
	}{
		{"formatting", `<p>a <b class="x">bold <i>both</i></b> <code>c</code> <s>gone</s></p>`, "a **bold *both*** `c` ~~gone~~"},
		// A formatting element is closed with the element it is in, and is
		// not reopened after it as browsers do.
		{"misnested formatting", `<p><b>bold<i>both</b>italic</i></p>`, "**bold*both***italic"},
		{"tag-like text", `<img alt="<b>x</b>" src="/i.png"><xmp><i>raw</i></xmp><script>var b = "<b>";</script>`, "![<b>x</b>](https://example.com/i.png)&lt;i&gt;raw&lt;/i&gt;"},
		{"text between comments", `<p>a<!-- 1 -->b<!-- 2 -->c<style>p{}</style>d</p>`, "abcd"},
		{"spans", `<table><tr><th>a<th>b<tr><td colspan=2>x</table>`, "| a | b |\n|---|---|\n| x |  |"},
		{"nested tables", `<table><tr><td>a<td>b<table><tr><th>x<th>y</table></table>`, "a\n\nb\n\n| x | y |\n|---|---|"},
		{"table too wide", `<table><tr><th>a<td colspan=1000>b<td>c</table>`, "a\n\nb\n\nc"},
		{"quotes past the limit", strings.Repeat("<blockquote>", 10) + "deep", strings.Repeat("> ", 8) + "deep"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			md, cut, err := web.HTMLToMarkdown(t.Context(), []byte(tt.page), "https://example.com/")
			if err != nil || cut || string(md) != tt.want {
				t.Errorf("HTMLToMarkdown(%s) = %q, %v, %v; want %q", tt.page, md, cut, err, tt.want)
			}
		})
	}
}

// TestReshapeCut checks that a page over the node limit is converted up to
// the limit, and the tool says so.
func TestReshapeCut(t *testing.T) {
	page := []byte("<p>first</p>" + strings.Repeat("<i>x</i>", 60_000) + "<p>last</p>")
	md, cut, err := web.HTMLToMarkdown(t.Context(), page, "https://example.com/")
	if err != nil || !cut || !strings.HasPrefix(string(md), "first") || strings.Contains(string(md), "last") {
		t.Errorf("HTMLToMarkdown(120000 nodes) = %.20q…%q, cut %v, %v; want the start only, cut", md, md[max(0, len(md)-20):], cut, err)
	}
}

// BenchmarkBombs converts each bomb at 1 KB, 10 KB and 100 KB. Linear
// growth shows as bytes and allocations per page byte that stay flat as
// the size grows.
func BenchmarkBombs(b *testing.B) {
	for _, bm := range bombs {
		for _, size := range []int{1 << 10, 10 << 10, 100 << 10} {
			page := bm.page(size)
			b.Run(fmt.Sprintf("%s/%dKB", bm.name, size>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(page)))
				for b.Loop() {
					if _, _, err := web.HTMLToMarkdown(context.Background(), page, "https://example.com/"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
