package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/files"
	mailtools "github.com/hands-go/hands/toolbox/mail"
	"github.com/hands-go/hands/toolbox/netguard"
	"gocloud.dev/blob"
)

// emailEnv is what the email tools are bound to: HANDS_SMTP enables
// send_email, HANDS_IMAP email_list and email_read.
type emailEnv struct {
	SMTP  string // smtp(s)://USER:PASSWORD@HOST:PORT
	IMAP  string // imap(s)://USER:PASSWORD@HOST:PORT/FOLDER
	From  string // HANDS_EMAIL_FROM
	Allow string // HANDS_EMAIL_ALLOW, comma-separated
	CA    string // HANDS_EMAIL_CA, a PEM file
}

// emailTools builds the email tools that e configures: none if it
// configures no server. Files are attached from bucket, as its file server
// reads them. Errors name the setting and never a password.
func emailTools(e emailEnv, bucket *blob.Bucket, guard *netguard.Guard) ([]tool.Interface, error) {
	if e.SMTP == "" && e.IMAP == "" {
		return nil, nil
	}
	var roots *x509.CertPool
	if e.CA != "" {
		pem, err := os.ReadFile(e.CA)
		if err != nil {
			return nil, fmt.Errorf("HANDS_EMAIL_CA: %w", err)
		}
		roots, err = x509.SystemCertPool()
		if err != nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("HANDS_EMAIL_CA: %s holds no PEM certificate", e.CA)
		}
	}
	var tools []tool.Interface
	if e.SMTP != "" {
		from := e.From
		if from == "" {
			// The SMTP user, when it is an address.
			if u, err := url.Parse(e.SMTP); err == nil && u.User != nil {
				if a, err := mail.ParseAddress(u.User.Username()); err == nil && a.Name == "" {
					from = a.Address
				}
			}
		}
		if from == "" {
			return nil, errors.New("HANDS_EMAIL_FROM: send_email needs the address its messages come from (HANDS_SMTP's user is not one)")
		}
		var allow []string
		for a := range strings.SplitSeq(e.Allow, ",") {
			if a = strings.TrimSpace(a); a != "" {
				allow = append(allow, a)
			}
		}
		var attach mailtools.AttachmentFunc
		if bucket != nil {
			attach = bucketAttachment(bucket)
		}
		send, err := mailtools.SendEmail(e.SMTP, &mailtools.SendOptions{From: from, Allow: allow, Attachment: attach, Guard: guard, RootCAs: roots})
		if err != nil {
			return nil, fmt.Errorf("HANDS_SMTP: %w", err)
		}
		tools = append(tools, send)
	}
	if e.IMAP != "" {
		opts := &mailtools.IMAPOptions{Guard: guard, RootCAs: roots}
		list, err := mailtools.EmailList(e.IMAP, opts)
		if err != nil {
			return nil, fmt.Errorf("HANDS_IMAP: %w", err)
		}
		read, err := mailtools.EmailRead(e.IMAP, opts)
		if err != nil {
			return nil, fmt.Errorf("HANDS_IMAP: %w", err)
		}
		tools = append(tools, list, read)
	}
	return tools, nil
}

// bucketAttachment reads attachments from the bucket through its file
// server, so that send_email mails out exactly the files that are served at
// /files/: no symbolic link of a directory bucket, no metadata file, no
// key that host_file would refuse.
func bucketAttachment(bucket *blob.Bucket) mailtools.AttachmentFunc {
	served := files.Server(bucket)
	return func(ctx context.Context, key string, maxBytes int64) ([]byte, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
		if err != nil {
			return nil, "", err
		}
		req.URL.Path = key
		w := &boundedWriter{header: http.Header{}, max: maxBytes}
		served.ServeHTTP(w, req)
		switch {
		case w.status == http.StatusNotFound:
			return nil, "", fs.ErrNotExist
		case w.over:
			return nil, "", mailtools.ErrMailTooLarge
		case w.status != http.StatusOK:
			return nil, "", fmt.Errorf("the file %q cannot be attached: %s", key, strings.TrimSpace(w.body.String()))
		}
		return w.body.Bytes(), w.header.Get("Content-Type"), nil
	}
}

// A boundedWriter is an http.ResponseWriter that keeps at most max bytes
// of the body, and notes a longer one.
type boundedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	max    int64
	over   bool
}

func (w *boundedWriter) Header() http.Header { return w.header }

func (w *boundedWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		if n, err := strconv.ParseInt(w.header.Get("Content-Length"), 10, 64); err == nil && n > w.max {
			w.over = true
		}
	}
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.over || int64(w.body.Len()+len(p)) > w.max {
		w.over = true
		return 0, mailtools.ErrMailTooLarge // stops the copy
	}
	return w.body.Write(p)
}
