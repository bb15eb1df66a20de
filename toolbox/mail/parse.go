package mail

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	gomail "github.com/emersion/go-message/mail"
	"github.com/hands-go/hands/internal/htmlmd"
)

// readLimits bound the reading of one message.
type readLimits struct {
	maxTextBytes       int // of each text part read
	maxAttachmentBytes int // of all attachments embedded, together
}

// A readMessage is a message read into what email_read returns: headers,
// the text in Markdown, attachments and notes on what was left out.
type readMessage struct {
	header      []headerLine
	text        strings.Builder
	attachments []attachment
	notes       []string

	parts    int  // parts read so far
	partsCut bool // MaxParts reached
	deepCut  bool // MaxDepth reached
	embedded int  // bytes of attachments embedded so far
	limits   readLimits
	ctx      context.Context
}

type headerLine struct{ name, value string }

// An attachment is a part that is not the message's text.
type attachment struct {
	section  string // the IMAP section number, such as "2" or "1.3"
	filename string
	mime     string
	size     int    // decoded bytes
	data     []byte // nil when not embedded
	why      string // why it is not embedded
}

// parseMessage reads a raw message, which may have been cut after a number
// of bytes. Its time and memory are linear in len(raw): at most MaxParts
// parts are read, multiparts nested deeper than MaxDepth are not entered,
// each text part is read up to limits.maxTextBytes, and attachments are
// embedded up to limits.maxAttachmentBytes together; what is left out is
// counted in one pass, and noted.
func parseMessage(ctx context.Context, raw []byte, limits readLimits) (*readMessage, error) {
	m := &readMessage{limits: limits, ctx: ctx}
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return nil, fmt.Errorf("the message cannot be read: %w", err)
	}
	h := gomail.Header{Header: e.Header}
	for _, name := range []string{"From", "To", "Cc", "Reply-To", "Date", "Subject", "Message-ID", "In-Reply-To"} {
		if v := headerText(h, name); v != "" {
			m.header = append(m.header, headerLine{name, v})
		}
	}
	m.walk(e, nil, 0, nil)
	if m.partsCut {
		m.notes = append(m.notes, fmt.Sprintf("the message has more than %d MIME parts; only the first %[1]d were read", MaxParts))
	}
	if m.deepCut {
		m.notes = append(m.notes, fmt.Sprintf("parts nested more than %d deep were not read", MaxDepth))
	}
	return m, ctx.Err()
}

// headerText returns a header field decoded for a reader, "" if absent.
func headerText(h gomail.Header, name string) string {
	if !h.Has(name) {
		return ""
	}
	switch name {
	case "From", "To", "Cc", "Reply-To":
		if list, err := h.AddressList(name); err == nil {
			s := make([]string, len(list))
			for i, a := range list {
				s[i] = a.Address
				if a.Name != "" {
					s[i] = a.Name + " <" + a.Address + ">"
				}
			}
			return oneLine(strings.Join(s, ", "))
		}
	}
	v, err := h.Text(name)
	if err != nil {
		v = h.Get(name)
	}
	return oneLine(v)
}

// oneLine replaces control characters with spaces, so that a header
// field the sender wrote stays one line of what the model reads.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// An alternative collects the texts of a multipart/alternative, of which
// one is shown: the HTML if there is one, else the plain text.
type alternative struct {
	plain, html string
	seen        bool
}

// walk reads entity e, at section (nil for the message itself), depth
// multiparts deep; alt, when not nil, collects the texts of the
// alternative e belongs to.
func (m *readMessage) walk(e *message.Entity, section []int, depth int, alt *alternative) {
	if m.ctx.Err() != nil {
		return
	}
	if m.parts >= MaxParts {
		m.partsCut = true
		return
	}
	m.parts++
	mt, params, _ := e.Header.ContentType()
	if mr := e.MultipartReader(); mr != nil {
		if depth >= MaxDepth {
			m.deepCut = true
			return
		}
		var own *alternative
		if mt == "multipart/alternative" {
			own = &alternative{}
		}
		for i := 1; ; i++ {
			if m.parts >= MaxParts {
				m.partsCut = true
				break
			}
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil && (p == nil || !(message.IsUnknownCharset(err) || message.IsUnknownEncoding(err))) {
				if err != io.ErrUnexpectedEOF && !strings.Contains(err.Error(), "EOF") {
					m.notes = append(m.notes, "a part could not be read: "+err.Error())
				}
				break
			}
			m.walk(p, append(section[:len(section):len(section)], i), depth+1, own)
		}
		if own != nil && own.seen {
			m.addText(cmpStr(own.html, own.plain))
		}
		return
	}
	disp, dparams, _ := e.Header.ContentDisposition()
	filename := dparams["filename"]
	if filename == "" {
		filename = params["name"]
	}
	isText := mt == "text/plain" || mt == "text/html" || mt == ""
	if isText && disp != "attachment" && filename == "" {
		body, cut := readUpTo(e.Body, m.limits.maxTextBytes)
		text := m.textOf(mt, body)
		if cut {
			text += fmt.Sprintf("\n\n[this part is cut: only its first %d bytes were read]", m.limits.maxTextBytes)
		}
		if alt != nil {
			alt.seen = true
			if mt == "text/html" {
				alt.html = text
			} else {
				alt.plain = text
			}
			return
		}
		m.addText(text)
		return
	}
	a := attachment{section: sectionString(section), filename: oneLine(filename), mime: mt}
	if a.mime == "" {
		a.mime = "application/octet-stream"
	}
	left := m.limits.maxAttachmentBytes - m.embedded
	data, cut := readUpTo(e.Body, max(left, 0))
	a.size = len(data)
	if cut {
		n, _ := io.Copy(io.Discard, e.Body) // counted, not kept
		a.size += int(n)
		a.why = fmt.Sprintf("not embedded: the attachments of a message together may be %d bytes in a result", m.limits.maxAttachmentBytes)
	} else {
		a.data = data
		m.embedded += len(data)
	}
	m.attachments = append(m.attachments, a)
}

// readUpTo reads at most n bytes of r, and reports whether r had more.
func readUpTo(r io.Reader, n int) ([]byte, bool) {
	b, _ := io.ReadAll(io.LimitReader(r, int64(n)+1))
	if len(b) > n {
		return b[:n], true
	}
	return b, false
}

// textOf returns a text part as Markdown: HTML converted, plain text as
// it is.
func (m *readMessage) textOf(mt string, body []byte) string {
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	if mt != "text/html" {
		return string(body)
	}
	md, cut, err := htmlmd.Convert(m.ctx, body, "")
	if err != nil {
		m.notes = append(m.notes, "the HTML of a part could not be converted, and is shown as it is")
		return string(body)
	}
	if cut {
		md = fmt.Appendf(md, "\n\n[cut: this part has more than %d HTML elements and text nodes, and only the first %[1]d were converted]", htmlmd.MaxNodes)
	}
	return string(md)
}

func (m *readMessage) addText(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if m.text.Len() > 0 {
		m.text.WriteString("\n\n")
	}
	m.text.WriteString(strings.TrimSpace(s))
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sectionString writes a part's IMAP section number, "1" for the text of
// a message that is not multipart.
func sectionString(section []int) string {
	if len(section) == 0 {
		return "1"
	}
	s := make([]string, len(section))
	for i, n := range section {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}

// markdown returns what the model reads: the headers, the notes on what
// was left out and the list of attachments, then the text, cut to limit
// bytes. The text comes last so that a cut takes only text.
func (m *readMessage) markdown(uriOf func(section string) string, limit int) string {
	var b strings.Builder
	for _, h := range m.header {
		fmt.Fprintf(&b, "%s: %s\n", h.name, h.value)
	}
	for _, n := range m.notes {
		b.WriteString("[" + n + "]\n")
	}
	if len(m.attachments) > 0 {
		b.WriteString("Attachments:\n")
		for _, a := range m.attachments {
			name := cmpStr(a.filename, "(unnamed)")
			fmt.Fprintf(&b, "- %s (%s, %d bytes): ", name, mediaOnly(a.mime), a.size)
			if a.data != nil {
				b.WriteString("embedded as " + uriOf(a.section) + "\n")
			} else {
				b.WriteString(a.why + "\n")
			}
		}
	}
	b.WriteString("\n")
	if m.text.Len() == 0 {
		b.WriteString("(the message has no text)\n")
	} else {
		b.WriteString(m.text.String())
		b.WriteString("\n")
	}
	return truncate(b.String(), limit)
}

func mediaOnly(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return ct
}

// truncate returns s cut to at most limit bytes, at a character boundary,
// with a note at the end, within the limit, that says how many bytes were
// left out. limit must leave room for the note.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := func(left int) string {
		return fmt.Sprintf("\n\n[truncated: %d more bytes; the tool returns at most %d bytes of a message]", left, limit)
	}
	cut := limit - len(note(len(s)))
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note(len(s)-cut)
}
