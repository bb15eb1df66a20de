package htmlmd

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Bounds of the conversion of a page to Markdown. The parser and the
// converter cost more than linear time and memory for some shapes of
// markup — misnested formatting, spanned table cells, deep quotes and
// lists, text cut up by comments — so the page is reshaped within these
// bounds before it is converted. Each is far above what a readable page
// uses.
const (
	// MaxNodes is how many elements and text nodes of a page are
	// converted; the rest is left out, with a note.
	MaxNodes = 100_000
	// maxNesting is how deep quotes, lists, headings, links, code and
	// inline formatting are nested; deeper ones become plain blocks
	// (div) and spans.
	maxNesting = 8
	// maxColspan and maxRowspan are HTML's own limits of a cell's span,
	// which browsers apply too.
	maxColspan = 1000
	maxRowspan = 65534
	// maxTableColumns and maxTableCells bound a table rendered as a
	// Markdown grid; a bigger one is rendered as blocks of text.
	maxTableColumns = 1000
	maxTableCells   = 100_000
	// maxGridWork bounds the work of rendering all the grids of a page:
	// their cells, plus, for each spanned cell, a move of a row of cells.
	// Tables past it are rendered as blocks of text.
	maxGridWork = 20_000_000
)

// fmtPrefix renames the formatting elements while a page is parsed; see
// hideFormatting.
const fmtPrefix = "hands-fmt-"

// formatting are the formatting elements of the HTML parser but a: the
// parser copies those still open into each new block ("reconstructs" them),
// so a page of a few kilobytes can make millions of nodes.
var formatting = map[string]bool{
	"b": true, "big": true, "code": true, "em": true, "font": true, "i": true, "nobr": true,
	"s": true, "small": true, "strike": true, "strong": true, "tt": true, "u": true,
}

// hideFormatting renames every start and end tag of a formatting element
// (but a) in an HTML page: <b> becomes <hands-fmt-b>, an element the parser
// treats as any other, never copying it. The scan is of the bytes, not of
// tokens, so that no state of the parser's tokenizer (raw text, foreign
// content) can hide a tag from it; what it renames in text and attribute
// values, the shaper restores with unhide. The one formatting element left
// alone, a, the parser keeps at most one of open at a time.
func hideFormatting(page []byte) []byte {
	var out []byte
	last := 0 // page[last:] is not yet in out
	for i := 0; i < len(page); i++ {
		if page[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(page) && page[j] == '/' {
			j++
		}
		k := j
		for k < len(page) && !isTagNameEnd(page[k]) {
			k++
		}
		if k == len(page) || k-j > len("strong") || !formatting[strings.ToLower(string(page[j:k]))] {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(page)+len(page)/8)
		}
		out = append(out, page[last:j]...)
		out = append(out, fmtPrefix...)
		last = j
		i = k - 1
	}
	if out == nil {
		return page
	}
	return append(out, page[last:]...)
}

// isTagNameEnd reports whether c ends a tag name for the HTML tokenizer.
func isTagNameEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', '/', '>':
		return true
	}
	return false
}

// unhide undoes hideFormatting in a string of text or an attribute value.
func unhide(s string) string {
	if !strings.Contains(s, fmtPrefix) {
		return s
	}
	s = strings.ReplaceAll(s, "<"+fmtPrefix, "<")
	return strings.ReplaceAll(s, "</"+fmtPrefix, "</")
}

// Convert converts an HTML page to Markdown, in time and memory
// linear in the page's size. pageURL resolves the page's relative links. It stops early, with ctx's error, when ctx
// ends: the parser reads its input through ctx, and nothing more is
// rendered once ctx is done. cut reports that the page had more than
// MaxNodes nodes, and only the first ones were converted.
func Convert(ctx context.Context, page []byte, pageURL string) (md []byte, cut bool, err error) {
	doc, err := html.Parse(&ctxReader{ctx, bytes.NewReader(hideFormatting(page))})
	if err != nil {
		return nil, false, err
	}
	b := &bounds{}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		// Cells are not padded to their column's width: padding costs the
		// model tokens, and its size grows with rows × the longest cell.
		table.NewTablePlugin(table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
		strikethrough.NewStrikethroughPlugin(),
		b,
	))
	md, err = conv.ConvertNode(doc, converter.WithContext(ctx), converter.WithDomain(pageURL))
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, false, err
	}
	return md, b.cut, nil
}

// A ctxReader reads from r until ctx ends, so that the HTML parser, which
// reads its input as it goes, stops then.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// bounds is a converter plugin that reshapes the page within the bounds
// above before the other plugins see it, and stops the rendering when the
// context ends.
type bounds struct {
	cut bool // nodes past MaxNodes were left out
}

func (b *bounds) Name() string { return "hands-bounds" }

// Init registers the plugin's handlers ahead of every other plugin's.
func (b *bounds) Init(conv *converter.Converter) error {
	conv.Register.PreRenderer(b.reshape, converter.PriorityEarly-1)
	conv.Register.Renderer(stopWhenDone, converter.PriorityEarly-1)
	return nil
}

// stopWhenDone renders nothing for any node once the context has ended, so
// that the rendering, which does not look at the context, ends soon after
// it.
func stopWhenDone(ctx converter.Context, _ converter.Writer, _ *html.Node) converter.RenderStatus {
	if ctx.Err() != nil {
		return converter.RenderSuccess
	}
	return converter.RenderTryNext
}

// reshape brings the page within the bounds: see the shaper's methods.
func (b *bounds) reshape(ctx converter.Context, doc *html.Node) {
	s := &shaper{ctx: ctx}
	s.walk(doc, 0)
	for _, t := range s.tables {
		s.shapeTable(t)
	}
	b.cut = s.cut
}

// A shaper walks a parsed page once and reshapes it.
type shaper struct {
	ctx    converter.Context
	nodes  int
	cut    bool
	tables []*htmlTable // in document order
	open   []*htmlTable // the tables around the node being walked
	work   int          // of the grids so far, against maxGridWork
}

// An htmlTable is a table element and whether another table is inside it.
type htmlTable struct {
	node   *html.Node
	nested bool
}

// nestingKinds are the elements whose content the converter copies and
// rewrites, once per level (a quote prefixes each line, a list indents it,
// bold wraps each line in delimiters), and what each becomes past
// maxNesting. li is not among them: its list is.
var nestingKinds = map[atom.Atom]atom.Atom{
	atom.Blockquote: atom.Div, atom.Ul: atom.Div, atom.Ol: atom.Div, atom.Pre: atom.Div,
	atom.H1: atom.Div, atom.H2: atom.Div, atom.H3: atom.Div, atom.H4: atom.Div, atom.H5: atom.Div, atom.H6: atom.Div,
	atom.A: atom.Span, atom.B: atom.Span, atom.Strong: atom.Span, atom.I: atom.Span, atom.Em: atom.Span,
	atom.Code: atom.Span, atom.Kbd: atom.Span, atom.Samp: atom.Span, atom.Tt: atom.Span, atom.Var: atom.Span,
	atom.Del: atom.Span, atom.S: atom.Span, atom.Strike: atom.Span,
}

// walk reshapes the children of n, which sits inside nesting elements of
// nestingKinds. It restores the names hideFormatting changed; removes
// comments and the elements the converter removes (script, style, …) and
// joins the text around them, which the converter would do by repeated
// concatenation; counts nodes against MaxNodes, leaving out all after the
// last one; renames elements nested past maxNesting; clamps cell spans; and
// notes the tables.
func (s *shaper) walk(n *html.Node, nesting int) {
	var text *html.Node        // the text node that the current run of text is joined into
	var joined strings.Builder // the run, once it has a second node
	endRun := func() {
		if joined.Len() > 0 {
			text.Data = joined.String()
			joined.Reset()
		}
		text = nil
	}
	defer endRun()
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if s.cut {
			n.RemoveChild(c)
			continue
		}
		switch c.Type {
		case html.CommentNode:
			n.RemoveChild(c)
			continue
		case html.TextNode:
			c.Data = unhide(c.Data)
			if text != nil {
				if joined.Len() == 0 {
					joined.WriteString(text.Data)
				}
				joined.WriteString(c.Data)
				n.RemoveChild(c)
				continue
			}
			if !s.count() {
				n.RemoveChild(c)
				continue
			}
			text = c
			continue
		case html.ElementNode:
			if name, ok := strings.CutPrefix(c.Data, fmtPrefix); ok {
				c.Data, c.DataAtom = name, atom.Lookup([]byte(name))
			}
			if kind, ok := s.ctx.GetTagType(c.Data); ok && kind == converter.TagTypeRemove {
				n.RemoveChild(c)
				continue
			}
		}
		endRun()
		if !s.count() {
			n.RemoveChild(c)
			continue
		}
		if c.Type != html.ElementNode {
			s.walk(c, nesting)
			continue
		}
		for i := range c.Attr {
			c.Attr[i].Val = unhide(c.Attr[i].Val)
		}
		inner := nesting
		if plain, ok := nestingKinds[c.DataAtom]; ok {
			if inner++; inner > maxNesting {
				c.Data, c.DataAtom = plain.String(), plain
			}
		}
		switch c.DataAtom {
		case atom.Td, atom.Th:
			clampSpan(c, "colspan", maxColspan)
			clampSpan(c, "rowspan", maxRowspan)
		case atom.Table:
			t := &htmlTable{node: c}
			if len(s.open) > 0 {
				s.open[len(s.open)-1].nested = true // and so on outwards, as each was opened
			}
			s.tables = append(s.tables, t)
			s.open = append(s.open, t)
			s.walk(c, inner)
			s.open = s.open[:len(s.open)-1]
			continue
		}
		s.walk(c, inner)
	}
}

// count counts one more node, and reports whether it is within MaxNodes.
// Past it, the shaper is cut: every node after this one is removed.
func (s *shaper) count() bool {
	if s.nodes++; s.nodes > MaxNodes {
		s.cut = true
	}
	return !s.cut
}

// clampSpan lowers a cell's span attribute to max. A value the converter
// reads as 1 (not a number, or less than 1) is left as it is.
func clampSpan(cell *html.Node, key string, max int) {
	for i, a := range cell.Attr {
		if a.Namespace == "" && a.Key == key {
			if n, err := strconv.Atoi(a.Val); err == nil && n > max {
				cell.Attr[i].Val = strconv.Itoa(max)
			}
		}
	}
}

// span returns a cell's span attribute as the converter reads it.
func span(cell *html.Node, key string) int {
	for _, a := range cell.Attr {
		if a.Namespace == "" && a.Key == key {
			if n, err := strconv.Atoi(a.Val); err == nil && n > 1 {
				return n
			}
		}
	}
	return 1
}

// shapeTable decides whether a table is rendered as a Markdown grid. A
// table that is not is marked role="presentation", which the converter
// skips at once, and its cells become blocks (div), so that each is a
// paragraph of its own rather than text run into its neighbours'. A table
// that holds another table is never a grid: the converter cannot draw one.
func (s *shaper) shapeTable(t *htmlTable) {
	if !t.nested {
		if work, ok := gridWork(t.node); ok && s.work+work <= maxGridWork {
			s.work += work
			return
		}
	}
	role := slices.IndexFunc(t.node.Attr, func(a html.Attribute) bool { return a.Namespace == "" && a.Key == "role" })
	if role < 0 {
		t.node.Attr = append(t.node.Attr, html.Attribute{Key: "role"})
		role = len(t.node.Attr) - 1
	}
	t.node.Attr[role].Val = "presentation"
	cellsToBlocks(t.node)
}

// cellsToBlocks renames the cells below n to div, but those of the tables
// below n.
func cellsToBlocks(n *html.Node) {
	for c := range n.ChildNodes() {
		if c.Type != html.ElementNode || c.DataAtom == atom.Table {
			continue
		}
		if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
			c.Data, c.DataAtom = "div", atom.Div
		}
		cellsToBlocks(c)
	}
}

// gridWork returns the work of rendering a table with no table inside as
// a Markdown grid, and whether the grid is within maxTableColumns and
// maxTableCells. The converter pads every row to the widest one, so the
// grid has rows × columns cells, rows extended by row spans, and columns
// at most the widest row plus the width of every cell that spans rows
// (which pushes the cells below it to the right); and for each cell a span
// adds, it shifts the rest of a row. The work is the cells plus, for each
// added cell, a row's length.
func gridWork(t *html.Node) (work int, ok bool) {
	var rows, widest, carried, height, spanned int64
	for tr := range t.Descendants() {
		if tr.Type != html.ElementNode || tr.DataAtom != atom.Tr {
			continue
		}
		var width int64
		for cell := range tr.Descendants() {
			if cell.Type != html.ElementNode || (cell.DataAtom != atom.Td && cell.DataAtom != atom.Th) {
				continue
			}
			cs, rs := int64(span(cell, "colspan")), int64(span(cell, "rowspan"))
			width += cs
			if rs > 1 {
				carried += cs
			}
			spanned += cs*rs - 1
			height = max(height, rows+rs)
		}
		widest = max(widest, width)
		rows++
	}
	cols := widest + carried
	height = max(height, rows)
	if cols > maxTableColumns || height > maxTableCells || cols*height > maxTableCells {
		return 0, false
	}
	return int(min(cols*height+spanned*cols, maxGridWork+1)), true
}
