package mail

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/mailpittest"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// files is an AttachmentFunc over a map of key to content.
func files(m map[string]string) AttachmentFunc {
	return func(_ context.Context, key string, maxBytes int64) ([]byte, string, error) {
		body, ok := m[key]
		if !ok {
			return nil, "", fs.ErrNotExist
		}
		if int64(len(body)) > maxBytes {
			return nil, "", ErrMailTooLarge
		}
		ct := "application/octet-stream"
		if strings.HasSuffix(key, ".txt") {
			ct = "text/plain; charset=utf-8"
		}
		return []byte(body), ct, nil
	}
}

// messages lists what Mailpit received, newest first, in full.
func messages(t *testing.T, s *mailpittest.Server) []mailpitMessage {
	t.Helper()
	var list struct {
		Messages []struct{ ID string }
	}
	getJSON(t, s.APIURL+"/api/v1/messages", &list)
	var out []mailpitMessage
	for _, m := range list.Messages {
		var full mailpitMessage
		getJSON(t, s.APIURL+"/api/v1/message/"+m.ID, &full)
		out = append(out, full)
	}
	return out
}

// raw returns the source of a message Mailpit received.
func raw(t *testing.T, s *mailpittest.Server, id string) string {
	t.Helper()
	resp, err := http.Get(s.APIURL + "/api/v1/message/" + id + "/raw")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addrs returns the addresses of a list Mailpit's API gives.
func addrs(l []mailpitAddress) []string {
	var out []string
	for _, a := range l {
		out = append(out, a.Address)
	}
	return out
}

// TestSendEmail sends a message with recipients in To, Cc and Bcc and an
// attachment through Mailpit, and checks what arrived: the operator's
// sender, every recipient, no Bcc header in the source, the attachment,
// the reply's threading, and a password nowhere in the result.
func TestSendEmail(t *testing.T) {
	s := mailpittest.Start(t, &mailpittest.Options{Auth: true})
	const password = "pw-Zq81-never-shown"
	send, err := SendEmail("smtp://bot:"+password+"@"+s.SMTPAddr+"?tls=none", &SendOptions{
		From:       "Hands Bot <bot@example.com>",
		Attachment: files(map[string]string{"reports/q3.txt": "numbers"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	args := `{"to":["Ada <ada@example.com>"],"cc":["bob@example.org"],"bcc":["hidden@example.net"],
		"subject":"Q3 — report","body":"Here it is.\n.\nA line with a dot.","inReplyTo":"<orig@example.com>",
		"attachments":[{"key":"reports/q3.txt"}]}`
	res := tool.Run(t.Context(), send, tool.Call{Name: "send_email", Args: json.RawMessage(args)})
	if res.IsError {
		t.Fatalf("send_email: %s", res.Content)
	}
	if strings.Contains(res.Content+string(res.Structured), password) {
		t.Errorf("the result shows the password: %s", res.Content)
	}
	got := messages(t, s)
	if len(got) != 1 {
		t.Fatalf("Mailpit received %d messages, want 1", len(got))
	}
	m := got[0]
	if m.From.Address != "bot@example.com" || m.Subject != "Q3 — report" {
		t.Errorf("from %q, subject %q; want bot@example.com, Q3 — report", m.From.Address, m.Subject)
	}
	if to, cc, bcc := addrs(m.To), addrs(m.Cc), addrs(m.Bcc); !slices.Equal(to, []string{"ada@example.com"}) || !slices.Equal(cc, []string{"bob@example.org"}) || !slices.Equal(bcc, []string{"hidden@example.net"}) {
		t.Errorf("to %v, cc %v, bcc %v; want ada@example.com, bob@example.org, hidden@example.net", to, cc, bcc)
	}
	if text := strings.ReplaceAll(m.Text, "\r\n", "\n"); !strings.Contains(text, "Here it is.\n.\nA line with a dot.") {
		t.Errorf("text = %q, want the body whole", m.Text)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].FileName != "q3.txt" || m.Attachments[0].Size != len("numbers") {
		t.Errorf("attachments = %+v, want q3.txt of 7 bytes", m.Attachments)
	}
	// Mailpit puts its own Return-Path, Received and (from the envelope)
	// Bcc lines above the message it received, which starts with the
	// first header the tool wrote.
	src := raw(t, s, m.ID)
	if i := strings.Index(src, "\r\nContent-Type:"); i < 0 || strings.Contains(src[i:], "hidden@example.net") || strings.Contains(strings.ToLower(src[i:]), "\nbcc:") {
		t.Errorf("the message sent names the Bcc recipient, or has no Content-Type:\n%s", src)
	}
	if !strings.Contains(src, "In-Reply-To: <orig@example.com>") {
		t.Errorf("the source has no In-Reply-To of the message answered:\n%s", src)
	}
}

// TestSendEmailRefusesInjection checks that each field that becomes a
// header refuses a line break, encoded or not, and that an entry of
// several addresses is refused, all before anything is sent: the server
// of the tool does not exist.
func TestSendEmailRefusesInjection(t *testing.T) {
	send, err := SendEmail("smtp://127.0.0.1:1?tls=none", &SendOptions{From: "bot@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, args, path string
	}{
		{"line break in the subject", `{"to":["a@example.com"],"subject":"hi\r\nBcc: evil@example.com","body":""}`, "/subject"},
		{"bare LF in the subject", `{"to":["a@example.com"],"subject":"hi\nBcc: evil@example.com","body":""}`, "/subject"},
		{"line break in an address", `{"to":["a@example.com\r\nBcc: evil@example.com"],"subject":"s","body":""}`, "/to/0"},
		{"encoded line break in a name", `{"to":["=?utf-8?q?Ada=0D=0ABcc=3A_evil=40example.com?= <a@example.com>"],"subject":"s","body":""}`, "/to/0"},
		{"two addresses in one entry", `{"to":["a@example.com, evil@example.com"],"subject":"s","body":""}`, "/to/0"},
		{"a group", `{"cc":["friends: a@example.com, b@example.com;"],"to":["a@example.com"],"subject":"s","body":""}`, "/cc/0"},
		{"not an address", `{"bcc":["nobody"],"to":["a@example.com"],"subject":"s","body":""}`, "/bcc/0"},
		{"line break in the reply's id", `{"to":["a@example.com"],"subject":"s","body":"","inReplyTo":"<a@b>\r\nBcc: evil@example.com"}`, "/inReplyTo"},
		{"line break in a file name", `{"to":["a@example.com"],"subject":"s","body":"","attachments":[{"key":"k","filename":"a\r\nBcc: x"}]}`, "/attachments/0/filename"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tool.Run(t.Context(), send, tool.Call{Name: "send_email", Args: json.RawMessage(tt.args)})
			verr, ok := errors.AsType[*tool.ValidationError](res.Err)
			if !ok {
				t.Fatalf("send_email(%s) = %v, want a *tool.ValidationError", tt.args, res.Err)
			}
			var paths []string
			for _, is := range verr.Issues {
				paths = append(paths, is.Path)
			}
			if !slices.Contains(paths, tt.path) {
				t.Errorf("send_email(%s) failed at %v, want %s", tt.args, paths, tt.path)
			}
		})
	}
}

// TestSendEmailAllow checks the recipient allowlist: a recipient it does
// not name, in any field, is refused before anything is sent, and the
// ones it names are sent to.
func TestSendEmailAllow(t *testing.T) {
	s := mailpittest.Start(t, nil)
	send, err := SendEmail("smtp://"+s.SMTPAddr+"?tls=none", &SendOptions{From: "bot@example.com", Allow: []string{"ada@example.com", "@team.example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"to":["eve@example.com"],"subject":"s","body":""}`,
		`{"to":["ada@example.com"],"bcc":["eve@sub.team.example.org"],"subject":"s","body":""}`,
		`{"to":["ada@example.com"],"cc":["eve@example.org"],"subject":"s","body":""}`,
	} {
		_, err := send.CallJSON(t.Context(), json.RawMessage(args))
		if !errors.Is(err, ErrRecipient) {
			t.Errorf("send_email(%s) = %v, want ErrRecipient", args, err)
		}
	}
	if n := len(messages(t, s)); n != 0 {
		t.Fatalf("Mailpit received %d messages from refused calls", n)
	}
	if _, err := send.CallJSON(t.Context(), json.RawMessage(`{"to":["ADA@example.com"],"cc":["bob@TEAM.example.org"],"subject":"s","body":"b"}`)); err != nil {
		t.Fatalf("send_email to allowed recipients: %v", err)
	}
	if n := len(messages(t, s)); n != 1 {
		t.Errorf("Mailpit received %d messages, want 1", n)
	}
}

// TestSendEmailTLS sends over STARTTLS and over implicit TLS to a Mailpit
// that requires each, with a certificate of a test CA given as RootCAs;
// without it the certificate is refused.
func TestSendEmailTLS(t *testing.T) {
	cert, key, pool := testCA(t)
	for _, tt := range []struct{ name, scheme, flag string }{
		{"STARTTLS", "smtp", "--smtp-require-starttls"},
		{"implicit TLS", "smtps", "--smtp-require-tls"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			authFile := filepath.Join(t.TempDir(), "auth")
			if err := os.WriteFile(authFile, []byte("bot:s3cret-pw-42\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := mailpittest.Start(t, &mailpittest.Options{Args: []string{"--smtp-tls-cert", cert, "--smtp-tls-key", key, tt.flag, "--smtp-auth-file", authFile}})
			url := tt.scheme + "://bot:s3cret-pw-42@" + s.SMTPAddr
			args := json.RawMessage(`{"to":["ada@example.com"],"subject":"over TLS","body":"b"}`)
			send, err := SendEmail(url, &SendOptions{From: "bot@example.com", RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := send.CallJSON(t.Context(), args); err != nil {
				t.Fatalf("send_email over %s: %v", tt.name, err)
			}
			if got := messages(t, s); len(got) != 1 || got[0].Subject != "over TLS" {
				t.Fatalf("Mailpit received %+v, want the message", got)
			}
			untrusted, err := SendEmail(url, &SendOptions{From: "bot@example.com"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = untrusted.CallJSON(t.Context(), args)
			if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("send_email with the system's CAs = %v, want a refused certificate", err)
			}
			wrong, err := SendEmail(tt.scheme+"://bot:not-the-pw-77@"+s.SMTPAddr, &SendOptions{From: "bot@example.com", RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			_, err = wrong.CallJSON(t.Context(), args)
			if !errors.Is(err, ErrServer) || strings.Contains(err.Error(), "not-the-pw-77") {
				t.Errorf("send_email with a wrong password = %v, want ErrServer without the password", err)
			}
		})
	}
}

// TestSendEmailNeedsTLS checks that smtp:// refuses a server that offers
// no STARTTLS, rather than sending in plain text.
func TestSendEmailNeedsTLS(t *testing.T) {
	s := mailpittest.Start(t, nil)
	send, err := SendEmail("smtp://"+s.SMTPAddr, &SendOptions{From: "bot@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = send.CallJSON(t.Context(), json.RawMessage(`{"to":["ada@example.com"],"subject":"s","body":"b"}`))
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "STARTTLS") {
		t.Errorf("send_email to a server without STARTTLS = %v, want a refusal that names STARTTLS", err)
	}
	if n := len(messages(t, s)); n != 0 {
		t.Errorf("Mailpit received %d messages in plain text", n)
	}
}

// TestServerURL checks the URLs the tools accept, and that a refusal
// never shows the password.
func TestServerURL(t *testing.T) {
	const pw = "Pw-9f3k-secret"
	for _, tt := range []struct {
		url string
		ok  bool
		sec security
	}{
		{"smtp://u:" + pw + "@mail.example.com", true, startTLS},
		{"smtps://u:" + pw + "@mail.example.com", true, implicitTLS},
		{"smtp://u:" + pw + "@127.0.0.1:25?tls=none", true, noTLS},
		{"smtp://u:" + pw + "@localhost:25?tls=none", true, noTLS},
		{"smtp://relay.internal:25?tls=none", true, noTLS},
		{"smtp://u:" + pw + "@mail.example.com?tls=none", false, 0},
		{"smtps://u:" + pw + "@mail.example.com?tls=none", false, 0},
		{"smtp://u:" + pw + "@mail.example.com?from=x", false, 0},
		{"http://u:" + pw + "@mail.example.com", false, 0},
		{"smtp://u:" + pw + "@mail.example.com/path", false, 0},
		{"smtp://u:" + pw + "@%zz", false, 0},
	} {
		srv, err := parseServer(tt.url, "smtp", "smtps")
		if tt.ok != (err == nil) {
			t.Errorf("parseServer(%s) = %v, want ok=%v", tt.url, err, tt.ok)
			continue
		}
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("parseServer(%s) = %v, which shows the password", tt.url, err)
		}
		if err == nil && srv.security != tt.sec {
			t.Errorf("parseServer(%s).security = %d, want %d", tt.url, srv.security, tt.sec)
		}
	}
}

// TestSendEmailLimits checks the size limit and a missing attachment,
// both before anything is sent.
func TestSendEmailLimits(t *testing.T) {
	send, err := SendEmail("smtp://127.0.0.1:1?tls=none", &SendOptions{From: "bot@example.com", MaxBytes: 4 << 10,
		Attachment: files(map[string]string{"big.bin": strings.Repeat("x", 8<<10)})})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args string
		want error
	}{
		{`{"to":["a@example.com"],"subject":"s","body":"b","attachments":[{"key":"big.bin"}]}`, ErrMailTooLarge},
		{`{"to":["a@example.com"],"subject":"s","body":"` + strings.Repeat("y", 5<<10) + `"}`, ErrMailTooLarge},
		{`{"to":["a@example.com"],"subject":"s","body":"b","attachments":[{"key":"missing.pdf"}]}`, ErrAttachment},
	} {
		if _, err := send.CallJSON(t.Context(), json.RawMessage(tt.args)); !errors.Is(err, tt.want) {
			t.Errorf("send_email(%.80s) = %v, want %v", tt.args, err, tt.want)
		}
	}
}

// TestSpecsAllDialects checks that every dialect takes the three tools.
func TestSpecsAllDialects(t *testing.T) {
	send, err := SendEmail("smtps://u:p@mail.example.com", &SendOptions{From: "bot@example.com", Attachment: files(nil)})
	if err != nil {
		t.Fatal(err)
	}
	list, err := EmailList("imaps://u:p@mail.example.com/INBOX", nil)
	if err != nil {
		t.Fatal(err)
	}
	read, err := EmailRead("imaps://u:p@mail.example.com/INBOX", nil)
	if err != nil {
		t.Fatal(err)
	}
	specs := []tool.Spec{send.Spec(), list.Spec(), read.Spec()}
	for _, d := range dialect.Dialects() {
		if err := provider.CheckTools(d, specs); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if a := send.Spec().Annotations; a == nil || !a.Destructive || a.ReadOnly {
		t.Errorf("send_email's annotations = %+v, want destructive", a)
	}
	if a := list.Spec().Annotations; a == nil || !a.ReadOnly {
		t.Errorf("email_list's annotations = %+v, want read-only", a)
	}
}
