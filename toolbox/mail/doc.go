// Package mail holds the email tools: send_email over SMTP, and email_list
// and email_read over IMAP. Each is bound to one server the operator
// configures by URL, and reaches it through the address guard of package
// netguard, which trusts that server's exact endpoint and nothing else.
//
//	send, err := mail.SendEmail("smtp://bot:PASSWORD@smtp.example.com:587",
//		&mail.SendOptions{From: "Bot <bot@example.com>", Allow: []string{"@example.com"}})
//	list, err := mail.EmailList("imaps://bot:PASSWORD@imap.example.com/INBOX", nil)
//	read, err := mail.EmailRead("imaps://bot:PASSWORD@imap.example.com/INBOX", nil)
//
// # Connections
//
// smtps:// and imaps:// speak TLS from the first byte (ports 465 and 993
// by default); smtp:// and imap:// (587 and 143) require STARTTLS, and
// fail if the server does not offer it. Plain text is asked for with
// ?tls=none, and is refused with a password unless the host is a loopback
// address (localhost, 127.0.0.0/8, ::1), as net/smtp's PLAIN
// authentication refuses it: a relay on the same machine needs no TLS, and
// a password crossing a network needs it. Certificates are checked against
// the system's pool, or against the pool of the options' RootCAs (a
// private CA). The password of a URL appears in no error, description or
// result: errors name the host and port and the user.
//
// # Sending
//
// The model chooses the recipients, the subject, the text (plain), the
// Message-ID it answers and the attachments — never the sender, which
// SendOptions.From sets, nor any other header. Every field that becomes a
// header is refused if it holds a line break or another control character,
// before or after the decoding of encoded words, so that no field can
// start another (a smuggled Bcc); each recipient entry is one address, read
// by net/mail; Bcc recipients go to the server in RCPT commands and appear
// in no header. SendOptions.Allow restricts the recipients to addresses and
// domains. The message, attachments encoded, is at most
// SendOptions.MaxBytes, checked before anything is sent, and against the
// server's SIZE. Attachments are read by key through
// SendOptions.Attachment, a function rather than a bucket, so that the
// caller decides which store and which keys a model may mail out (the
// hands command gives the files host_file wrote, read as its file server
// reads them: no symbolic link, no metadata file). send_email is annotated
// as destructive: what it sends cannot be taken back, so an agent's
// approval policy asks first.
//
// # Reading
//
// email_list searches a folder (EXAMINE, read-only) and returns the
// newest matches with their UID, sender, subject, date, size and flags,
// and the UID to page back from. email_read fetches one message with
// BODY.PEEK, so that reading marks nothing as read unless the call asks
// (markRead, which opens the folder read-write and adds \Seen). It returns
// the headers and the text as Markdown — HTML converted by the same bounded
// converter as fetch_markdown, the HTML of a multipart/alternative
// preferred to its plain text — and the attachments as embedded resources
// whose URIs are IMAP URLs (RFC 5092) without credentials.
//
// What a message costs to read is bounded, and linear in what is fetched:
// at most IMAPOptions.MaxBytes of it (10 MiB) is fetched, a range of the
// body the server sends as a literal that is read as it streams; at most
// MaxParts MIME parts are read and multiparts nested deeper than MaxDepth
// are not entered, so a 10,000-part bomb costs what 100 parts cost; each
// text part is read up to four times the output limit; attachments are
// embedded up to IMAPOptions.MaxAttachmentBytes together, and the others
// listed with their size; the text returned is cut to
// IMAPOptions.MaxOutputBytes. Each cut is noted in the text the model
// reads.
package mail
