package mail

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"
	"github.com/hands-go/hands/tool"
)

// sink is an SMTP backend that reads each message and keeps nothing.
type sink struct{}

func (sink) NewSession(*smtp.Conn) (smtp.Session, error) { return sinkSession{}, nil }

type sinkSession struct{}

func (sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (sinkSession) Data(r io.Reader) error               { _, err := io.Copy(io.Discard, r); return err }
func (sinkSession) Reset()                               {}
func (sinkSession) Logout() error                        { return nil }

// startSink serves an SMTP sink on 127.0.0.1 until b ends.
func startSink(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := smtp.NewServer(sink{})
	s.Domain = "localhost"
	go s.Serve(ln)
	b.Cleanup(func() { s.Close() })
	return ln.Addr().String()
}

// BenchmarkSend compares one call of send_email, a message of 4 KiB to two
// recipients, with sending the same through go-smtp directly: a
// connection, EHLO, MAIL, RCPT, DATA and QUIT each time, to an SMTP server
// in the process that discards what it reads. The difference is what the
// tool adds: decoding and validating the arguments, composing the MIME
// message, the guarded dial.
func BenchmarkSend(b *testing.B) {
	addr := startSink(b)
	body := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing.\n", 80)
	args, _ := json.Marshal(SendArgs{To: []string{"ada@example.com"}, Cc: []string{"bob@example.com"}, Subject: "report", Body: body})
	b.Run("tool", func(b *testing.B) {
		send, err := SendEmail("smtp://"+addr+"?tls=none", &SendOptions{From: "bot@example.com"})
		if err != nil {
			b.Fatal(err)
		}
		ctx := b.Context()
		b.ReportAllocs()
		for b.Loop() {
			if res := tool.Run(ctx, send, tool.Call{Name: "send_email", Args: args}); res.IsError {
				b.Fatal(res.Content)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		msg := []byte("From: bot@example.com\r\nTo: ada@example.com\r\nCc: bob@example.com\r\nSubject: report\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + strings.ReplaceAll(body, "\n", "\r\n"))
		b.ReportAllocs()
		for b.Loop() {
			c, err := smtp.Dial(addr)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.SendMail("bot@example.com", []string{"ada@example.com", "bob@example.com"}, bytes.NewReader(msg)); err != nil {
				b.Fatal(err)
			}
			c.Quit()
		}
	})
}
