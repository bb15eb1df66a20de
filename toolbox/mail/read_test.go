package mail

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/internal/dovecottest"
	"github.com/hands-go/hands/tool"
)

// imapURL is the URL of a Dovecot's plain-text port, for its user.
func imapURL(s *dovecottest.Server, scheme, addr, query string) string {
	u := url.URL{Scheme: scheme, User: url.UserPassword(s.User, s.Password), Host: addr, Path: "/INBOX", RawQuery: query}
	return u.String()
}

const plainMessage = "From: Ada <ada@example.com>\r\nTo: bot@example.com\r\nSubject: plain one\r\nDate: Mon, 01 Jan 2024 10:00:00 +0000\r\nMessage-ID: <plain@example.com>\r\n\r\nJust text.\r\n"

// htmlMessage has a plain and an HTML alternative and a PDF attachment.
const htmlMessage = "From: Bob <bob@example.org>\r\nTo: bot@example.com\r\nSubject: =?utf-8?q?R=C3=A9sum=C3=A9?=\r\nDate: Tue, 02 Jan 2024 10:00:00 +0000\r\nMessage-ID: <html@example.org>\r\n" +
	"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=OUT\r\n\r\n" +
	"--OUT\r\nContent-Type: multipart/alternative; boundary=ALT\r\n\r\n" +
	"--ALT\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nplain version\r\n" +
	"--ALT\r\nContent-Type: text/html; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<h1>Caf=E9</h1><p>See <a href=3D\"https://example.com/x\">the link</a>.</p>\r\n" +
	"--ALT--\r\n" +
	"--OUT\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"report.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n" +
	"--OUT--\r\n"

// TestEmailListRead delivers messages to Dovecot, lists them, searches
// them, reads one as Markdown with its attachment as a resource, and
// checks that nothing was marked as read until a call asked.
func TestEmailListRead(t *testing.T) {
	s := dovecottest.Start(t, nil)
	uPlain := s.Deliver(t, "INBOX", []byte(plainMessage))
	uHTML := s.Deliver(t, "INBOX", []byte(htmlMessage))
	uArch := s.Deliver(t, "Archive", []byte(strings.Replace(plainMessage, "plain one", "archived", 1)), imap.FlagSeen)
	srv := imapURL(s, "imap", s.Addr, "tls=none")
	list, err := EmailList(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, err := EmailRead(srv, nil)
	if err != nil {
		t.Fatal(err)
	}

	res := tool.Run(t.Context(), list, tool.Call{Name: "email_list", Args: json.RawMessage(`{}`)})
	if res.IsError {
		t.Fatalf("email_list: %s", res.Content)
	}
	var got List
	if err := json.Unmarshal(res.Structured, &got); err != nil {
		t.Fatal(err)
	}
	if got.Matching != 2 || len(got.Messages) != 2 || got.Messages[0].UID != uint32(uHTML) || got.Messages[1].UID != uint32(uPlain) {
		t.Fatalf("email_list = %+v, want the two messages of INBOX, newest first", got)
	}
	m := got.Messages[0]
	if m.From != "Bob <bob@example.org>" || m.Subject != "Résumé" || m.Size != int64(len(htmlMessage)) || m.Date.Year() != 2024 || len(m.Flags) != 0 {
		t.Errorf("email_list's first message = %+v", m)
	}
	if strings.Contains(res.Content, s.Password) {
		t.Errorf("email_list's text shows the password")
	}

	for _, tt := range []struct {
		args string
		want []uint32
	}{
		{`{"search":"Just text"}`, []uint32{uint32(uPlain)}},
		{`{"from":"bob@example.org"}`, []uint32{uint32(uHTML)}},
		{`{"limit":1}`, []uint32{uint32(uHTML)}},
		{fmt.Sprintf(`{"beforeUid":%d}`, uHTML), []uint32{uint32(uPlain)}},
		{`{"folder":"Archive"}`, []uint32{uint32(uArch)}},
		{`{"folder":"Archive","unread":true}`, nil},
	} {
		out, err := list.CallJSON(t.Context(), json.RawMessage(tt.args))
		if err != nil {
			t.Errorf("email_list(%s): %v", tt.args, err)
			continue
		}
		var uids []uint32
		for _, m := range out.Messages {
			uids = append(uids, m.UID)
		}
		if !slices.Equal(uids, tt.want) {
			t.Errorf("email_list(%s) = %v, want %v", tt.args, uids, tt.want)
		}
	}

	res = tool.Run(t.Context(), read, tool.Call{Name: "email_read", Args: json.RawMessage(fmt.Sprintf(`{"uid":%d}`, uHTML))})
	if res.IsError {
		t.Fatalf("email_read: %s", res.Content)
	}
	if len(res.Parts) != 2 {
		t.Fatalf("email_read returned %d parts, want the text and the attachment: %+v", len(res.Parts), res.Parts)
	}
	text := res.Parts[0].Text
	for _, want := range []string{"Subject: Résumé", "From: Bob <bob@example.org>", "Message-ID: <html@example.org>", "# Café", "[the link](https://example.com/x)", "report.pdf (application/pdf, 9 bytes)"} {
		if !strings.Contains(text, want) {
			t.Errorf("email_read's text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "plain version") {
		t.Errorf("email_read shows both alternatives:\n%s", text)
	}
	att := res.Parts[1]
	if att.Kind != tool.PartResource || att.MIME != "application/pdf" || !bytes.Equal(att.Data, []byte("%PDF-1.4\n")) || !strings.HasSuffix(att.URI, fmt.Sprintf("/INBOX/;UID=%d/;SECTION=2", uHTML)) || strings.Contains(att.URI, s.Password) {
		t.Errorf("email_read's attachment = %+v", att)
	}
	for _, uid := range []imap.UID{uPlain, uHTML} {
		if flags := s.Flags(t, "INBOX", uid); slices.Contains(flags, imap.FlagSeen) {
			t.Errorf("message %d is marked as read after email_list and email_read: %v", uid, flags)
		}
	}

	if _, err := read.CallJSON(t.Context(), json.RawMessage(fmt.Sprintf(`{"uid":%d,"markRead":true}`, uPlain))); err != nil {
		t.Fatal(err)
	}
	if flags := s.Flags(t, "INBOX", uPlain); !slices.Contains(flags, imap.FlagSeen) {
		t.Errorf("message %d is not marked as read after markRead: %v", uPlain, flags)
	}
	if _, err := read.CallJSON(t.Context(), json.RawMessage(`{"uid":999}`)); !errors.Is(err, ErrNoMessage) {
		t.Errorf("email_read of a missing UID = %v, want ErrNoMessage", err)
	}
	wrong, err := EmailList(strings.Replace(srv, url.UserPassword(s.User, s.Password).String(), s.User+":not-the-pw-1234", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.CallJSON(t.Context(), json.RawMessage(`{}`)); !errors.Is(err, ErrServer) || strings.Contains(err.Error(), "not-the-pw-1234") {
		t.Errorf("email_list with a wrong password = %v, want ErrServer without the password", err)
	}
}

// TestEmailReadTLS reads over STARTTLS and over implicit TLS from a
// Dovecot with a certificate of a test CA, given as RootCAs.
func TestEmailReadTLS(t *testing.T) {
	cert, key, pool := testCA(t)
	s := dovecottest.Start(t, &dovecottest.Options{CertFile: cert, KeyFile: key})
	uid := s.Deliver(t, "INBOX", []byte(plainMessage))
	for _, tt := range []struct{ name, url string }{
		{"STARTTLS", imapURL(s, "imap", s.Addr, "")},
		{"implicit TLS", imapURL(s, "imaps", s.TLSAddr, "")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			read, err := EmailRead(tt.url, &IMAPOptions{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			parts, err := read.CallJSON(t.Context(), json.RawMessage(fmt.Sprintf(`{"uid":%d}`, uid)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(parts[0].Text, "Just text.") {
				t.Errorf("email_read = %q, want the message", parts[0].Text)
			}
			untrusted, err := EmailRead(tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := untrusted.CallJSON(t.Context(), json.RawMessage(fmt.Sprintf(`{"uid":%d}`, uid))); !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("email_read with the system's CAs = %v, want a refused certificate", err)
			}
		})
	}
}

// TestEmailReadLarge reads a message larger than the limit of what is
// fetched: only the limit is fetched, and the text says so.
func TestEmailReadLarge(t *testing.T) {
	s := dovecottest.Start(t, nil)
	big := plainMessage + strings.Repeat(strings.Repeat("y", 76)+"\r\n", (16<<20)/78)
	uid := s.Deliver(t, "INBOX", []byte(big))
	read, err := EmailRead(imapURL(s, "imap", s.Addr, "tls=none"), &IMAPOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := read.CallJSON(t.Context(), json.RawMessage(fmt.Sprintf(`{"uid":%d}`, uid)))
	if err != nil {
		t.Fatal(err)
	}
	text := parts[0].Text
	if !strings.Contains(text, fmt.Sprintf("the message is %d bytes, and only its first %d were fetched", len(big), 1<<20)) {
		t.Errorf("email_read of a 16 MiB message says nothing of the cut:\n%.300s…%s", text, text[max(0, len(text)-600):])
	}
	if len(text) > DefaultReadMaxOutputBytes {
		t.Errorf("email_read returned %d bytes of text, over the limit of %d", len(text), DefaultReadMaxOutputBytes)
	}
}

// bomb is a message of n MIME parts, each a small attachment.
func bomb(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: a@example.com\r\nSubject: bomb\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=p%d.bin\r\n\r\nxxxxxxxxxxxxxxxx\r\n", i)
	}
	b.WriteString("--B--\r\n")
	return b.Bytes()
}

// nested is a message of multiparts nested n deep.
func nested(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: a@example.com\r\nSubject: deep\r\nContent-Type: multipart/mixed; boundary=B0\r\n\r\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "--B%d\r\nContent-Type: multipart/mixed; boundary=B%d\r\n\r\n", i-1, i)
	}
	fmt.Fprintf(&b, "--B%d\r\nContent-Type: text/plain\r\n\r\ndeepest\r\n", n)
	for i := n; i >= 0; i-- {
		fmt.Fprintf(&b, "--B%d--\r\n", i)
	}
	return b.Bytes()
}

// htmlBody is a message whose HTML text has n paragraphs.
func htmlBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: a@example.com\r\nSubject: long\r\nContent-Type: text/html\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "<p><b>para</b> %d <i>of <a href=\"https://example.com/%d\">text</a></i></p>\r\n", i, i)
	}
	return b.Bytes()
}

// headers is a message of n header fields.
func headers(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "X-Field-%d: =?utf-8?q?value_=C3=A9?= %d\r\n", i%7, i)
	}
	b.WriteString("From: a@example.com\r\nSubject: many fields\r\n\r\ntext\r\n")
	return b.Bytes()
}

// TestParseMessageBounded checks that a message of 10,000 parts is read
// to MaxParts, one nested past MaxDepth is not entered, and each says so.
func TestParseMessageBounded(t *testing.T) {
	limits := readLimits{maxTextBytes: 1 << 20, maxAttachmentBytes: 1 << 20}
	m, err := parseMessage(t.Context(), bomb(10_000), limits)
	if err != nil {
		t.Fatal(err)
	}
	if m.parts != MaxParts || len(m.attachments) != MaxParts-1 || !m.partsCut {
		t.Errorf("a 10,000-part message: %d parts read, %d attachments, cut %v; want %d parts", m.parts, len(m.attachments), m.partsCut, MaxParts)
	}
	if md := m.markdown(func(s string) string { return s }, 1<<20); !strings.Contains(md, "more than 100 MIME parts") {
		t.Errorf("the text says nothing of the parts left out:\n%s", md[max(0, len(md)-300):])
	}
	m, err = parseMessage(t.Context(), nested(1000), limits)
	if err != nil {
		t.Fatal(err)
	}
	if !m.deepCut || strings.Contains(m.text.String(), "deepest") {
		t.Errorf("a message nested 1000 deep: cut %v, text %q; want it not entered past %d", m.deepCut, m.text.String(), MaxDepth)
	}
}

// TestParseMessageLinear checks that reading a message costs time and
// memory linear in its size, whatever its shape: many parts, deep
// nesting, long HTML.
func TestParseMessageLinear(t *testing.T) {
	limits := readLimits{maxTextBytes: 64 << 20, maxAttachmentBytes: 64 << 20}
	for _, tt := range []struct {
		name         string
		make         func(int) []byte
		small, large int
	}{
		{"parts", bomb, 2_500, 10_000},
		{"nesting", nested, 250, 1_000},
		{"html", htmlBody, 2_000, 8_000},
		{"headers", headers, 2_000, 8_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msgs := map[int][]byte{tt.small: tt.make(tt.small), tt.large: tt.make(tt.large)}
			ctx := t.Context()
			cost.Linear(t, tt.name, tt.small, tt.large, func(n int) {
				if _, err := parseMessage(ctx, msgs[n], limits); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}
