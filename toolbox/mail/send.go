package mail

import (
	"bytes"
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	netmail "net/mail"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/emersion/go-message"
	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
)

// Defaults of SendOptions.
const (
	// DefaultSendMaxBytes is the default size limit of a message as sent,
	// attachments and their encoding included: 10 MiB.
	DefaultSendMaxBytes = 10 << 20
	// DefaultSendTimeout is the default time limit of one call: connecting,
	// TLS, signing in and sending.
	DefaultSendTimeout = 60 * time.Second
	// MaxAttachments is how many attachments one message may carry.
	MaxAttachments = 10
	// MaxRecipients is how many recipients (To, Cc and Bcc together) one
	// message may have.
	MaxRecipients = 50
)

// An AttachmentFunc returns the content and the media type of the
// attachment stored at key, reading at most maxBytes of it: a larger one
// is an error wrapping ErrMailTooLarge. A key that names nothing is an error
// wrapping fs.ErrNotExist. Its errors reach the model, so they must name
// no path or credential.
type AttachmentFunc func(ctx context.Context, key string, maxBytes int64) (body []byte, contentType string, err error)

// SendOptions configure the tool made by SendEmail. From is required.
type SendOptions struct {
	// Name is the tool's name. If empty, "send_email".
	Name string
	// From is the sender, "Name <address>" or an address: the operator's
	// choice, never the model's. Required.
	From string
	// Allow, if not empty, lists the recipients the tool may send to: an
	// address (any case) or "@domain", every address of that exact domain
	// (not its subdomains). Every recipient, To, Cc and Bcc, must match
	// one entry. Empty allows any recipient.
	Allow []string
	// Attachment reads the attachments a call names by key, such as the
	// files of a bucket. If nil, calls may not attach files.
	Attachment AttachmentFunc
	// MaxBytes is the largest message, in bytes, as sent: headers, body
	// and encoded attachments. If zero or less, DefaultSendMaxBytes.
	MaxBytes int
	// Timeout bounds each call. If zero or less, DefaultSendTimeout.
	Timeout time.Duration
	// Guard checks the addresses dialed (nil: public internet addresses
	// only). The server of the URL is trusted at its exact host and port
	// whatever the guard says (netguard.Guard.Trust).
	Guard *netguard.Guard
	// RootCAs are the certificate authorities the server's certificate is
	// checked against. If nil, the system's.
	RootCAs *x509.CertPool
}

// SendArgs is the input of send_email.
type SendArgs struct {
	// To, Cc and Bcc are the recipients, each one address.
	To  []string `json:"to" jsonschema:"the recipients, each one address such as ada@example.com or Ada Lovelace <ada@example.com>" tool:"minItems=1,maxItems=50"`
	Cc  []string `json:"cc,omitempty" jsonschema:"recipients in copy, each one address" tool:"maxItems=50"`
	Bcc []string `json:"bcc,omitempty" jsonschema:"hidden recipients, each one address: they receive the message, and no recipient sees them" tool:"maxItems=50"`
	// Subject is the subject line.
	Subject string `json:"subject" jsonschema:"the subject line, one line" tool:"minLength=1,maxLength=900"`
	// Body is the message, plain text.
	Body string `json:"body" jsonschema:"the message, as plain text" tool:"maxLength=1048576"`
	// InReplyTo is the Message-ID of the message this one answers.
	InReplyTo string `json:"inReplyTo,omitempty" jsonschema:"the Message-ID of the message this one answers, as email_read shows it, such as <abc@example.com>" tool:"maxLength=900"`
	// Attachments are files to attach, by key.
	Attachments []Attachment `json:"attachments,omitempty" jsonschema:"files to attach, by their key in the file store" tool:"maxItems=10"`
}

// An Attachment names a file to attach.
type Attachment struct {
	// Key is where the file is stored.
	Key string `json:"key" jsonschema:"the file's key in the file store, such as reports/q3.pdf" tool:"minLength=1,maxLength=1024"`
	// Filename is the name the recipient sees; empty means the key's last
	// segment.
	Filename string `json:"filename,omitempty" jsonschema:"the name the recipient sees; by default the key's last segment" tool:"maxLength=255"`
}

// Validate checks each address and refuses what could inject a header: a
// line break or other control character in an address, the subject, the
// Message-ID replied to or a file name, and an entry that holds more than
// one address.
func (a *SendArgs) Validate() error {
	var issues []schema.Issue
	add := func(ptr, msg string) {
		issues = append(issues, schema.Issue{Path: ptr, Keyword: "validate", Message: msg})
	}
	for _, list := range []struct {
		name  string
		addrs []string
	}{{"to", a.To}, {"cc", a.Cc}, {"bcc", a.Bcc}} {
		for i, s := range list.addrs {
			if _, err := parseAddress(s); err != nil {
				add(fmt.Sprintf("/%s/%d", list.name, i), err.Error())
			}
		}
	}
	if n := len(a.To) + len(a.Cc) + len(a.Bcc); n > MaxRecipients {
		add("", fmt.Sprintf("%d recipients in to, cc and bcc together; at most %d", n, MaxRecipients))
	}
	if hasControl(a.Subject) {
		add("/subject", "must be one line, without line breaks or control characters")
	}
	if a.InReplyTo != "" && !isMsgID(a.InReplyTo) {
		add("/inReplyTo", "must be one Message-ID in angle brackets, such as <abc@example.com>, without spaces or line breaks")
	}
	for i, at := range a.Attachments {
		if hasControl(at.Key) {
			add(fmt.Sprintf("/attachments/%d/key", i), "must not hold line breaks or control characters")
		}
		if hasControl(at.Filename) || strings.ContainsAny(at.Filename, `/\`) {
			add(fmt.Sprintf("/attachments/%d/filename", i), "must be a file name without slashes, line breaks or control characters")
		}
	}
	if len(issues) > 0 {
		return &schema.Error{Issues: issues}
	}
	return nil
}

// parseAddress parses one address, refusing a list, a group, and a
// control character anywhere, before or after the decoding of encoded
// words.
func parseAddress(s string) (*netmail.Address, error) {
	if hasControl(s) {
		return nil, errors.New("must be one address without line breaks or control characters")
	}
	a, err := netmail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("is not an address (%v); write one address, such as ada@example.com or Ada Lovelace <ada@example.com>", err)
	}
	if hasControl(a.Name) {
		return nil, errors.New("the name must not hold line breaks or control characters, encoded or not")
	}
	return a, nil
}

// hasControl reports whether s holds a control character: a line break
// above all, which would start a new header field.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// isMsgID reports whether s is one message identifier, "<left@right>",
// with no space, control character or second bracket.
func isMsgID(s string) bool {
	if len(s) < 3 || s[0] != '<' || s[len(s)-1] != '>' {
		return false
	}
	inner := s[1 : len(s)-1]
	return strings.Contains(inner, "@") && !strings.ContainsAny(inner, "<> \t") && !hasControl(inner)
}

// Sent is the output of send_email.
type Sent struct {
	// MessageID is the Message-ID of the message sent.
	MessageID string `json:"messageId"`
	// Recipients is how many recipients the server accepted.
	Recipients int `json:"recipients"`
	// Bytes is the size of the message as sent.
	Bytes int `json:"bytes"`
}

// ModelText says what was sent.
func (s *Sent) ModelText() string {
	return fmt.Sprintf("Sent %s to %d recipient(s), %d bytes.", s.MessageID, s.Recipients, s.Bytes)
}

// SendEmail returns the send_email tool: it sends a plain-text message,
// with attachments read through opts.Attachment, from opts.From over the
// SMTP server of serverURL. It is annotated as destructive, so that an
// agent's approval policy (agent.Destructive) asks a person first.
//
// serverURL is smtp://USER:PASSWORD@HOST:PORT (port 587 by default), which
// requires STARTTLS, or smtps://USER:PASSWORD@HOST:PORT (465 by default),
// TLS from the start. smtp://HOST:PORT?tls=none sends in plain text, and
// is refused with a password unless HOST is a loopback address. The
// server's certificate is checked against opts.RootCAs. The password
// appears in no error, description or result.
//
// The model chooses the recipients, the subject, the text, the Message-ID
// it answers and the attachments; never the sender nor any other header.
// Every field that becomes a header is refused if it holds a line break or
// a control character (encoded words included), each recipient must be one
// address, and Bcc recipients are given to the server alone, in no header.
// opts.Allow restricts the recipients (ErrRecipient).
//
// SendEmail fails if serverURL or opts.From cannot be read, or an entry of
// opts.Allow is neither an address nor "@domain".
func SendEmail(serverURL string, opts *SendOptions) (*tool.Tool[SendArgs, *Sent], error) {
	if opts == nil {
		opts = &SendOptions{}
	}
	srv, err := parseServer(serverURL, "smtp", "smtps")
	if err != nil {
		return nil, err
	}
	if opts.From == "" {
		return nil, errors.New("mail: SendOptions.From: no sender; name the address the messages come from")
	}
	from, err := parseAddress(opts.From)
	if err != nil {
		return nil, fmt.Errorf("mail: SendOptions.From %q: %w", opts.From, err)
	}
	allow, err := parseAllow(opts.Allow)
	if err != nil {
		return nil, err
	}
	d, err := newDialer(srv, opts.Guard, opts.RootCAs)
	if err != nil {
		return nil, err
	}
	s := &sender{srv: srv, dialer: d, from: from, allow: allow, attachment: opts.Attachment, maxBytes: opts.MaxBytes}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultSendMaxBytes
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultSendTimeout
	}
	desc := "Send a plain-text email from " + from.Address
	if opts.Attachment != nil {
		desc += ", with files attached by their key in the file store"
	}
	desc += ". The recipients get it at once and it cannot be taken back: check the recipients, subject and text first."
	if len(opts.Allow) > 0 {
		desc += " Only these recipients are allowed: " + strings.Join(opts.Allow, ", ") + "."
	}
	return tool.New(cmp.Or(opts.Name, "send_email"), desc, s.send,
		tool.WithTitle("Send an email"),
		tool.WithTimeout(timeout),
		tool.WithAnnotations(tool.Annotations{Destructive: true, OpenWorld: true}),
		tool.WithLimits(tool.Limits{MaxBytes: 4 << 20})), nil
}

// An allowlist is SendOptions.Allow, read: whole addresses and domains, in
// lower case.
type allowlist struct {
	addrs, domains map[string]bool
}

func parseAllow(entries []string) (*allowlist, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	l := &allowlist{addrs: map[string]bool{}, domains: map[string]bool{}}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if d, ok := strings.CutPrefix(e, "@"); ok && d != "" && !strings.ContainsAny(d, "@ <>") && !hasControl(d) {
			l.domains[strings.ToLower(strings.TrimSuffix(d, "."))] = true
			continue
		}
		a, err := netmail.ParseAddress(e)
		if err != nil || a.Name != "" || a.Address != e {
			return nil, fmt.Errorf("mail: allowlist entry %q is neither an address (ada@example.com) nor a domain (@example.com)", e)
		}
		l.addrs[strings.ToLower(a.Address)] = true
	}
	return l, nil
}

// allows reports whether the list allows addr; a nil list allows all.
func (l *allowlist) allows(addr string) bool {
	if l == nil {
		return true
	}
	addr = strings.ToLower(addr)
	_, domain, _ := cutLast(addr, "@")
	return l.addrs[addr] || l.domains[strings.TrimSuffix(domain, ".")]
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// A sender is the state of a send_email tool.
type sender struct {
	srv        *server
	dialer     *dialer
	from       *netmail.Address
	allow      *allowlist
	attachment AttachmentFunc
	maxBytes   int
}

// send is the handler of send_email.
func (s *sender) send(ctx context.Context, a SendArgs) (*Sent, error) {
	lists := [3][]*netmail.Address{}
	var rcpts []string
	for i, list := range [][]string{a.To, a.Cc, a.Bcc} {
		for _, raw := range list {
			addr, err := parseAddress(raw) // Validate checked it
			if err != nil {
				return nil, err
			}
			if !s.allow.allows(addr.Address) {
				return nil, fmt.Errorf("%w: %s is not among the recipients the operator allows; send only to those the tool's description lists", ErrRecipient, addr.Address)
			}
			lists[i] = append(lists[i], addr)
			rcpts = append(rcpts, addr.Address)
		}
	}
	if len(a.Attachments) > 0 && s.attachment == nil {
		return nil, fmt.Errorf("%w: this tool attaches no files (the operator configured no file store); send the message without attachments", ErrAttachment)
	}
	msg, id, err := s.compose(ctx, a, lists[0], lists[1])
	if err != nil {
		return nil, err
	}
	tool.Progress(ctx, fmt.Sprintf("sending %d bytes to %d recipient(s)", len(msg), len(rcpts)))
	if err := s.deliver(ctx, rcpts, msg); err != nil {
		return nil, err
	}
	return &Sent{MessageID: id, Recipients: len(rcpts), Bytes: len(msg)}, nil
}

// compose writes the message: the headers of the operator and of the
// checked fields, the text, and the attachments. Bcc is in no header.
func (s *sender) compose(ctx context.Context, a SendArgs, to, cc []*netmail.Address) ([]byte, string, error) {
	var h gomail.Header
	h.SetDate(time.Now())
	h.SetAddressList("From", []*gomail.Address{(*gomail.Address)(s.from)})
	h.SetAddressList("To", asList(to))
	if len(cc) > 0 {
		h.SetAddressList("Cc", asList(cc))
	}
	h.SetSubject(a.Subject)
	_, domain, _ := cutLast(s.from.Address, "@")
	if err := h.GenerateMessageIDWithHostname(domain); err != nil {
		return nil, "", err
	}
	id, _ := h.MessageID()
	if a.InReplyTo != "" {
		ref := strings.Trim(a.InReplyTo, "<>")
		h.SetMsgIDList("In-Reply-To", []string{ref})
		h.SetMsgIDList("References", []string{ref})
	}
	var buf bytes.Buffer
	over := func() error {
		return fmt.Errorf("%w: the message is over the limit of %d bytes with its attachments encoded; send smaller or fewer files", ErrMailTooLarge, s.maxBytes)
	}
	var text message.Header
	text.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	text.Set("Content-Transfer-Encoding", "quoted-printable")
	if len(a.Attachments) == 0 {
		h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
		h.Set("Content-Transfer-Encoding", "quoted-printable")
		w, err := gomail.CreateSingleInlineWriter(&buf, h)
		if err != nil {
			return nil, "", err
		}
		w.Write([]byte(a.Body))
		w.Close()
		if buf.Len() > s.maxBytes {
			return nil, "", over()
		}
		return buf.Bytes(), "<" + id + ">", nil
	}
	mw, err := gomail.CreateWriter(&buf, h)
	if err != nil {
		return nil, "", err
	}
	tw, err := mw.CreateSingleInline(gomail.InlineHeader{Header: text})
	if err != nil {
		return nil, "", err
	}
	tw.Write([]byte(a.Body))
	tw.Close()
	for i, at := range a.Attachments {
		left := int64(s.maxBytes - buf.Len())
		if left <= 0 {
			return nil, "", over()
		}
		tool.Progress(ctx, "attaching "+at.Key)
		body, ct, err := s.attachment(ctx, at.Key, left*3/4) // base64 makes 4 bytes of 3
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, "", fmt.Errorf("%w: attachments/%d: no file has the key %q; attach a file that exists", ErrAttachment, i, at.Key)
		case errors.Is(err, ErrMailTooLarge):
			return nil, "", over()
		case err != nil:
			return nil, "", fmt.Errorf("attachments/%d (%s): %w", i, at.Key, err)
		}
		if _, _, perr := mime.ParseMediaType(ct); perr != nil || hasControl(ct) {
			ct = "application/octet-stream"
		}
		name := cmp.Or(at.Filename, path.Base(at.Key))
		var ah gomail.AttachmentHeader
		mt, params, _ := mime.ParseMediaType(ct)
		ah.SetContentType(mt, params)
		ah.SetFilename(name)
		w, err := mw.CreateAttachment(ah)
		if err != nil {
			return nil, "", err
		}
		w.Write(body)
		w.Close()
		if buf.Len() > s.maxBytes {
			return nil, "", over()
		}
	}
	mw.Close()
	if buf.Len() > s.maxBytes {
		return nil, "", over()
	}
	return buf.Bytes(), "<" + id + ">", nil
}

func asList(addrs []*netmail.Address) []*gomail.Address {
	l := make([]*gomail.Address, len(addrs))
	for i, a := range addrs {
		l[i] = (*gomail.Address)(a)
	}
	return l
}

// deliver sends msg to rcpts over one SMTP session.
func (s *sender) deliver(ctx context.Context, rcpts []string, msg []byte) error {
	fail := func(op string, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return &opError{op: op, err: err, server: true}
	}
	conn, closeConn, err := s.dialer.dial(ctx)
	if err != nil {
		return fail("connect to "+s.srv.addr, err)
	}
	defer closeConn()
	var c *smtp.Client
	if s.srv.security == startTLS {
		c, err = smtp.NewClientStartTLS(conn, s.dialer.tls)
		if err != nil {
			return fail("STARTTLS with "+s.srv.addr, err)
		}
	} else {
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	// EHLO, over TLS after STARTTLS: the handshake's error surfaces here,
	// not as an empty list of extensions.
	if err := c.Hello("localhost"); err != nil {
		return fail("greet "+s.srv.addr, err)
	}
	if s.srv.user != "" {
		var auth sasl.Client
		switch {
		case c.SupportsAuth(sasl.Plain):
			auth = sasl.NewPlainClient("", s.srv.user, s.srv.password)
		case c.SupportsAuth(sasl.Login):
			auth = sasl.NewLoginClient(s.srv.user, s.srv.password)
		default:
			return fail("sign in to "+s.srv.addr, errors.New("the server offers neither PLAIN nor LOGIN authentication"))
		}
		if err := c.Auth(auth); err != nil {
			return fail("sign in to "+s.srv.addr+" as "+s.srv.user, err)
		}
	}
	if max, ok := c.MaxMessageSize(); ok && max > 0 && len(msg) > max {
		return &opError{op: "send the message", err: fmt.Errorf("%w: the message is %d bytes and the server takes at most %d; send smaller or fewer files", ErrMailTooLarge, len(msg), max)}
	}
	if err := c.Mail(s.from.Address, nil); err != nil {
		return fail("send the message", err)
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r, nil); err != nil {
			return fail("send to "+r, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fail("send the message", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fail("send the message", err)
	}
	if err := w.Close(); err != nil {
		return fail("send the message", err)
	}
	c.Quit()
	return nil
}
