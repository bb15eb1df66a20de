package mail

import (
	"cmp"
	"context"
	"crypto/x509"
	"fmt"
	"mime"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message/charset"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
)

// Defaults of IMAPOptions.
const (
	// DefaultReadMaxBytes is how much of a message email_read fetches: 10
	// MiB. The rest of a larger message is not fetched, and the result
	// says so.
	DefaultReadMaxBytes = 10 << 20
	// DefaultReadMaxOutputBytes is the default size limit of the text
	// email_read returns: 256 KiB.
	DefaultReadMaxOutputBytes = 256 << 10
	// DefaultReadMaxAttachmentBytes is how many bytes of attachments
	// email_read embeds in its result: 5 MiB. The others are listed.
	DefaultReadMaxAttachmentBytes = 5 << 20
	// DefaultIMAPTimeout is the default time limit of one call.
	DefaultIMAPTimeout = 60 * time.Second
	// MaxParts is how many MIME parts of a message email_read reads; the
	// rest are left out, and the result says so.
	MaxParts = 100
	// MaxDepth is how deep multipart parts nest before email_read stops
	// descending.
	MaxDepth = 8
	// MaxListMessages is the most messages email_list returns at once.
	MaxListMessages = 100
)

// IMAPOptions configure the tools made by EmailList and EmailRead. The zero
// value selects every default.
type IMAPOptions struct {
	// Name is the tool's name. If empty, "email_list" or "email_read".
	Name string
	// MaxBytes is how much of a message email_read fetches, in bytes. If
	// zero or less, DefaultReadMaxBytes.
	MaxBytes int
	// MaxOutputBytes is the most text email_read returns, in bytes;
	// longer text is cut with a note. If zero or less,
	// DefaultReadMaxOutputBytes.
	MaxOutputBytes int
	// MaxAttachmentBytes is how many bytes of attachments email_read
	// embeds in its result, together. If zero or less,
	// DefaultReadMaxAttachmentBytes; negative embeds none.
	MaxAttachmentBytes int
	// Timeout bounds each call. If zero or less, DefaultIMAPTimeout.
	Timeout time.Duration
	// Guard checks the addresses dialed (nil: public internet addresses
	// only). The server of the URL is trusted at its exact host and port
	// (netguard.Guard.Trust).
	Guard *netguard.Guard
	// RootCAs are the certificate authorities the server's certificate is
	// checked against. If nil, the system's.
	RootCAs *x509.CertPool
}

// A mailbox is the state the IMAP tools share: the server and how to reach
// it.
type mailbox struct {
	srv    *server
	dialer *dialer
	folder string // the default folder
}

func newMailbox(serverURL string, opts *IMAPOptions) (*mailbox, error) {
	srv, err := parseServer(serverURL, "imap", "imaps")
	if err != nil {
		return nil, err
	}
	d, err := newDialer(srv, opts.Guard, opts.RootCAs)
	if err != nil {
		return nil, err
	}
	return &mailbox{srv: srv, dialer: d, folder: cmp.Or(srv.folder, "INBOX")}, nil
}

// session is one signed-in connection.
type session struct {
	c     *imapclient.Client
	close func()
}

// open connects, secures the connection and signs in.
func (m *mailbox) open(ctx context.Context) (*session, error) {
	fail := func(op string, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return &opError{op: op, err: err, server: true}
	}
	conn, closeConn, err := m.dialer.dial(ctx)
	if err != nil {
		return nil, fail("connect to "+m.srv.addr, err)
	}
	opts := &imapclient.Options{TLSConfig: m.dialer.tls, WordDecoder: &mime.WordDecoder{CharsetReader: charset.Reader}}
	var c *imapclient.Client
	if m.srv.security == startTLS {
		c, err = imapclient.NewStartTLS(conn, opts)
		if err != nil {
			closeConn()
			return nil, fail("STARTTLS with "+m.srv.addr, err)
		}
	} else {
		c = imapclient.New(conn, opts)
	}
	s := &session{c: c, close: func() { c.Close(); closeConn() }}
	if err := c.Login(m.srv.user, m.srv.password).Wait(); err != nil {
		s.close()
		return nil, fail("sign in to "+m.srv.addr+" as "+m.srv.user, err)
	}
	return s, nil
}

// selectFolder opens a folder, read-only unless write.
func (s *session) selectFolder(ctx context.Context, folder string, write bool) (*imap.SelectData, error) {
	data, err := s.c.Select(folder, &imap.SelectOptions{ReadOnly: !write}).Wait()
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, &opError{op: "open the folder " + folder, err: fmt.Errorf("%w; call email_list without a folder for the default one", err), server: true}
	}
	return data, nil
}

// folderIssue checks a folder name an argument gives.
func folderIssue(folder string) *schema.Issue {
	if hasControl(folder) || strings.ContainsAny(folder, "*%") {
		return &schema.Issue{Path: "/folder", Keyword: "validate", Message: "must be a folder's name, without control characters or the wildcards * and %"}
	}
	return nil
}

// ListArgs is the input of email_list.
type ListArgs struct {
	// Folder is the folder to list.
	Folder string `json:"folder,omitempty" jsonschema:"the folder, such as INBOX or Archive; by default the configured one" tool:"maxLength=255"`
	// Search, From and Subject narrow the list to messages that contain
	// these words.
	Search  string `json:"search,omitempty" jsonschema:"only messages that contain these words anywhere, headers or text" tool:"maxLength=255"`
	From    string `json:"from,omitempty" jsonschema:"only messages whose sender contains this, such as ada@example.com or example.com" tool:"maxLength=255"`
	Subject string `json:"subject,omitempty" jsonschema:"only messages whose subject contains this" tool:"maxLength=255"`
	// Unread lists only unread messages.
	Unread bool `json:"unread,omitempty" jsonschema:"only messages not yet read"`
	// Since lists only messages received on or after a date.
	Since string `json:"since,omitempty" jsonschema:"only messages received on or after this date, YYYY-MM-DD" tool:"format=date"`
	// BeforeUID pages back: only messages older than this UID.
	BeforeUID uint32 `json:"beforeUid,omitempty" jsonschema:"only messages older than this UID, to see the page after one already listed: give its nextBeforeUid"`
	// Limit is how many messages to list, newest first.
	Limit int `json:"limit,omitempty" jsonschema:"how many messages to list, newest first" tool:"minimum=1,maximum=100,default=20"`
}

// Validate checks the folder, the search words and the date.
func (a *ListArgs) Validate() error {
	var issues []schema.Issue
	if is := folderIssue(a.Folder); is != nil {
		issues = append(issues, *is)
	}
	for ptr, s := range map[string]string{"/search": a.Search, "/from": a.From, "/subject": a.Subject} {
		if hasControl(s) {
			issues = append(issues, schema.Issue{Path: ptr, Keyword: "validate", Message: "must not hold line breaks or control characters"})
		}
	}
	if a.Since != "" {
		if _, err := time.Parse(time.DateOnly, a.Since); err != nil {
			issues = append(issues, schema.Issue{Path: "/since", Keyword: "validate", Message: "must be a date, YYYY-MM-DD"})
		}
	}
	slices.SortFunc(issues, func(x, y schema.Issue) int { return strings.Compare(x.Path, y.Path) })
	if len(issues) > 0 {
		return &schema.Error{Issues: issues}
	}
	return nil
}

// A Summary is one message of a list.
type Summary struct {
	UID     uint32    `json:"uid"`
	From    string    `json:"from"`
	Subject string    `json:"subject"`
	Date    time.Time `json:"date"`
	Size    int64     `json:"size"`
	Flags   []string  `json:"flags"`
}

// A List is the output of email_list.
type List struct {
	// Folder is the folder listed.
	Folder string `json:"folder"`
	// Matching is how many messages of the folder match the search.
	Matching int `json:"matching"`
	// Messages are the newest of them, newest first.
	Messages []Summary `json:"messages"`
	// NextBeforeUID, when not zero, lists the next page as beforeUid.
	NextBeforeUID uint32 `json:"nextBeforeUid,omitempty"`
}

// ModelText lists one message a line.
func (l *List) ModelText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d matching message(s)", l.Folder, l.Matching)
	if len(l.Messages) < l.Matching {
		fmt.Fprintf(&b, ", the newest %d shown", len(l.Messages))
	}
	b.WriteString("\n")
	for _, m := range l.Messages {
		state := "unread"
		if slices.Contains(m.Flags, string(imap.FlagSeen)) {
			state = "read"
		}
		fmt.Fprintf(&b, "uid %d | %s | %s | %s | %d bytes | %s\n", m.UID, m.Date.Format("2006-01-02 15:04 MST"), m.From, m.Subject, m.Size, state)
	}
	if l.NextBeforeUID != 0 {
		fmt.Fprintf(&b, "(more: call email_list with beforeUid %d)\n", l.NextBeforeUID)
	}
	return b.String()
}

// EmailList returns the email_list tool: the newest messages of a folder
// of the IMAP server of serverURL, or those a search finds, each with its
// UID, sender, subject, date, size and flags. It opens the folder
// read-only (EXAMINE) and changes nothing.
//
// serverURL is imaps://USER:PASSWORD@HOST:PORT/FOLDER (port 993 by
// default), TLS from the start, or imap://… (143), which requires
// STARTTLS; imap://…?tls=none is plain text, refused with a password
// unless HOST is a loopback address. FOLDER, INBOX if empty, is the
// default folder. opts may be nil.
func EmailList(serverURL string, opts *IMAPOptions) (*tool.Tool[ListArgs, *List], error) {
	if opts == nil {
		opts = &IMAPOptions{}
	}
	m, err := newMailbox(serverURL, opts)
	if err != nil {
		return nil, err
	}
	return tool.New(cmp.Or(opts.Name, "email_list"),
		"List the newest emails of a folder ("+m.folder+" by default), or those matching a search: each with its UID, sender, subject, date, size and flags. "+
			"Read one with email_read and its UID. Listing marks nothing as read.",
		m.list,
		tool.WithTitle("List emails"),
		tool.WithTimeout(cmp.Or(max(opts.Timeout, 0), DefaultIMAPTimeout)),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true})), nil
}

// list is the handler of email_list.
func (m *mailbox) list(ctx context.Context, a ListArgs) (*List, error) {
	folder := cmp.Or(a.Folder, m.folder)
	limit := cmp.Or(a.Limit, 20)
	s, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if _, err := s.selectFolder(ctx, folder, false); err != nil {
		return nil, err
	}
	crit := &imap.SearchCriteria{}
	if a.Search != "" {
		crit.Text = []string{a.Search}
	}
	if a.From != "" {
		crit.Header = append(crit.Header, imap.SearchCriteriaHeaderField{Key: "From", Value: a.From})
	}
	if a.Subject != "" {
		crit.Header = append(crit.Header, imap.SearchCriteriaHeaderField{Key: "Subject", Value: a.Subject})
	}
	if a.Unread {
		crit.NotFlag = []imap.Flag{imap.FlagSeen}
	}
	if a.Since != "" {
		crit.Since, _ = time.Parse(time.DateOnly, a.Since)
	}
	if a.BeforeUID > 1 {
		crit.UID = []imap.UIDSet{{imap.UIDRange{Start: 1, Stop: imap.UID(a.BeforeUID - 1)}}}
	} else if a.BeforeUID == 1 {
		return &List{Folder: folder, Messages: []Summary{}}, nil
	}
	data, err := s.c.UIDSearch(crit, nil).Wait()
	if err != nil {
		return nil, &opError{op: "search " + folder, err: err, server: true}
	}
	uids := data.AllUIDs()
	slices.Sort(uids)
	out := &List{Folder: folder, Matching: len(uids), Messages: []Summary{}}
	if len(uids) > limit {
		out.NextBeforeUID = uint32(uids[len(uids)-limit])
		uids = uids[len(uids)-limit:]
	}
	if len(uids) == 0 {
		return out, nil
	}
	msgs, err := s.c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, Envelope: true, Flags: true, RFC822Size: true, InternalDate: true}).Collect()
	if err != nil {
		return nil, &opError{op: "fetch from " + folder, err: err, server: true}
	}
	for _, msg := range msgs {
		sum := Summary{UID: uint32(msg.UID), Size: msg.RFC822Size, Date: msg.InternalDate, Flags: []string{}}
		if e := msg.Envelope; e != nil {
			sum.Subject = e.Subject
			if len(e.From) > 0 {
				sum.From = formatAddress(e.From[0])
			}
			if !e.Date.IsZero() {
				sum.Date = e.Date
			}
		}
		for _, f := range msg.Flags {
			if f != `\Recent` {
				sum.Flags = append(sum.Flags, string(f))
			}
		}
		out.Messages = append(out.Messages, sum)
	}
	slices.SortFunc(out.Messages, func(x, y Summary) int { return -cmpUint(x.UID, y.UID) })
	return out, nil
}

func cmpUint(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// formatAddress writes an envelope's address as "Name <addr>" or addr.
func formatAddress(a imap.Address) string {
	addr := a.Addr()
	if a.Name == "" {
		return addr
	}
	return a.Name + " <" + addr + ">"
}

// errNoMessage is the error of a UID that names no message.
func errNoMessage(uid uint32, folder string) error {
	return fmt.Errorf("%w: no message has UID %d in %s; call email_list to find one", ErrNoMessage, uid, folder)
}
