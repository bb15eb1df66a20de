package mail

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

// minOutputBytes is the smallest output limit: room for the note that
// says what was cut.
const minOutputBytes = 1 << 10

// ReadArgs is the input of email_read.
type ReadArgs struct {
	// Folder is the message's folder.
	Folder string `json:"folder,omitempty" jsonschema:"the folder, as email_list was given it; by default the configured one" tool:"maxLength=255"`
	// UID is the message's UID, from email_list.
	UID uint32 `json:"uid" jsonschema:"the message's UID, as email_list shows it" tool:"minimum=1"`
	// MarkRead marks the message as read (\Seen).
	MarkRead bool `json:"markRead,omitempty" jsonschema:"also mark the message as read; by default reading changes nothing"`
}

// Validate checks the folder.
func (a *ReadArgs) Validate() error {
	if is := folderIssue(a.Folder); is != nil {
		return &schema.Error{Issues: []schema.Issue{*is}}
	}
	return nil
}

// EmailRead returns the email_read tool: one message of the IMAP server of
// serverURL (see EmailList), its headers and text as Markdown (HTML
// converted), and its attachments as embedded resources, up to
// IMAPOptions.MaxAttachmentBytes together. It fetches at most
// IMAPOptions.MaxBytes of the message (BODY.PEEK with a range) and reads at
// most MaxParts parts, MaxDepth deep, so that its time and memory are
// bounded and linear in what it fetches; what is left out is noted. It
// marks nothing as read unless the call asks (markRead): the folder is
// opened read-only and the body fetched with BODY.PEEK. opts may be nil.
func EmailRead(serverURL string, opts *IMAPOptions) (*tool.Tool[ReadArgs, []tool.Part], error) {
	if opts == nil {
		opts = &IMAPOptions{}
	}
	m, err := newMailbox(serverURL, opts)
	if err != nil {
		return nil, err
	}
	r := &reader{mailbox: m, maxBytes: opts.MaxBytes, maxOutput: opts.MaxOutputBytes, maxAttach: opts.MaxAttachmentBytes}
	if r.maxBytes <= 0 {
		r.maxBytes = DefaultReadMaxBytes
	}
	if r.maxOutput <= 0 {
		r.maxOutput = DefaultReadMaxOutputBytes
	}
	r.maxOutput = max(r.maxOutput, minOutputBytes)
	switch {
	case r.maxAttach == 0:
		r.maxAttach = DefaultReadMaxAttachmentBytes
	case r.maxAttach < 0:
		r.maxAttach = 0
	}
	return tool.New(cmp.Or(opts.Name, "email_read"),
		"Read one email by its UID (from email_list): its headers and text as Markdown, and its attachments. "+
			"Reading leaves the message unread unless markRead is true.",
		r.read,
		tool.WithTitle("Read an email"),
		tool.WithTimeout(cmp.Or(max(opts.Timeout, 0), DefaultIMAPTimeout)),
		// markRead changes a flag, and nothing else: not read-only, not
		// destructive, the same however often it is called.
		tool.WithAnnotations(tool.Annotations{Idempotent: true, OpenWorld: true})), nil
}

// A reader is the state of an email_read tool.
type reader struct {
	*mailbox
	maxBytes, maxOutput, maxAttach int
}

// read is the handler of email_read.
func (r *reader) read(ctx context.Context, a ReadArgs) ([]tool.Part, error) {
	folder := cmp.Or(a.Folder, r.folder)
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if _, err := s.selectFolder(ctx, folder, a.MarkRead); err != nil {
		return nil, err
	}
	uid := imap.UID(a.UID)
	raw, size, found, err := r.fetch(s.c, uid)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, &opError{op: fmt.Sprintf("fetch message %d of %s", a.UID, folder), err: err, server: true}
	}
	if !found {
		return nil, errNoMessage(a.UID, folder)
	}
	if a.MarkRead {
		err := s.c.Store(imap.UIDSetNum(uid), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close()
		if err != nil {
			return nil, &opError{op: fmt.Sprintf("mark message %d of %s as read", a.UID, folder), err: err, server: true}
		}
	}
	tool.Progress(ctx, fmt.Sprintf("reading %d bytes", len(raw)))
	msg, err := parseMessage(ctx, raw, readLimits{maxTextBytes: 4 * r.maxOutput, maxAttachmentBytes: r.maxAttach})
	if err != nil {
		return nil, &opError{op: fmt.Sprintf("read message %d of %s", a.UID, folder), err: err}
	}
	if size > int64(len(raw)) {
		msg.notes = append(msg.notes, fmt.Sprintf("the message is %d bytes, and only its first %d were fetched: the text or attachments past them are missing", size, len(raw)))
	}
	base := r.uriBase(folder, a.UID)
	uriOf := func(section string) string { return base + ";SECTION=" + section }
	parts := []tool.Part{tool.Text(msg.markdown(uriOf, r.maxOutput))}
	for _, at := range msg.attachments {
		if at.data != nil {
			parts = append(parts, tool.ResourceBlob(uriOf(at.section), at.mime, at.data))
		}
	}
	return parts, nil
}

// uriBase is the IMAP URL (RFC 5092) of a message, without credentials.
func (r *reader) uriBase(folder string, uid uint32) string {
	return fmt.Sprintf("%s://%s/%s/;UID=%d/", strings.TrimSuffix(r.srv.scheme, "s"), r.srv.addr, url.PathEscape(folder), uid)
}

// fetch fetches the first maxBytes of message uid with BODY.PEEK, reading
// the literal as it streams, and its size.
func (r *reader) fetch(c *imapclient.Client, uid imap.UID) (raw []byte, size int64, found bool, err error) {
	section := &imap.FetchItemBodySection{Peek: true, Partial: &imap.SectionPartial{Offset: 0, Size: int64(r.maxBytes)}}
	cmd := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, RFC822Size: true, BodySection: []*imap.FetchItemBodySection{section}})
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		for item := msg.Next(); item != nil; item = msg.Next() {
			switch it := item.(type) {
			case imapclient.FetchItemDataUID:
				found = found || it.UID == uid
			case imapclient.FetchItemDataRFC822Size:
				size = it.Size
			case imapclient.FetchItemDataBodySection:
				if it.Literal != nil && raw == nil {
					// The server sends at most maxBytes; a server that
					// sends more is read no further.
					raw, err = io.ReadAll(io.LimitReader(it.Literal, int64(r.maxBytes)))
					if err != nil {
						cmd.Close()
						return nil, 0, false, err
					}
				}
			}
		}
	}
	if err := cmd.Close(); err != nil {
		return nil, 0, false, err
	}
	return raw, size, found && raw != nil, nil
}
