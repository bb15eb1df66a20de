package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/dovecottest"
	"github.com/hands-go/hands/internal/mailpittest"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// TestEmailTools configures the email tools with a Mailpit and a
// Dovecot, and checks that serve lists them, that every dialect takes
// them, that call send_email attaches a file host_file wrote, that call
// email_list reads the mailbox, and that no output shows a password.
func TestEmailTools(t *testing.T) {
	inTempDir(t)
	mp := mailpittest.Start(t, &mailpittest.Options{Auth: true})
	dc := dovecottest.Start(t, nil)
	dc.Deliver(t, "INBOX", []byte("From: ada@example.com\r\nSubject: for the tools\r\n\r\nhello\r\n"))
	const smtpPassword = "smtp-Pw-83kd-secret"
	t.Setenv("HANDS_SMTP", "smtp://bot%40example.com:"+smtpPassword+"@"+mp.SMTPAddr+"?tls=none")
	t.Setenv("HANDS_EMAIL_ALLOW", "@example.com")
	imap := url.URL{Scheme: "imap", User: url.UserPassword(dc.User, dc.Password), Host: dc.Addr, Path: "/INBOX", RawQuery: "tls=none"}
	t.Setenv("HANDS_IMAP", imap.String())
	secrets := []string{smtpPassword, dc.Password}
	leaks := func(what, s string) {
		t.Helper()
		for _, p := range secrets {
			if strings.Contains(s, p) {
				t.Errorf("%s shows a password:\n%s", what, s)
			}
		}
	}

	specs, err := specTools(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var all []tool.Spec
	for _, s := range specs {
		names = append(names, s.Spec().Name)
		all = append(all, s.Spec())
		desc, _ := json.Marshal(s.Spec())
		leaks("the spec of "+s.Spec().Name, string(desc))
	}
	for _, want := range []string{"send_email", "email_list", "email_read"} {
		if !slices.Contains(names, want) {
			t.Errorf("the tools served are %v, without %s", names, want)
		}
	}
	for _, d := range dialect.Dialects() {
		if err := provider.CheckTools(d, all); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}

	if _, stderr, err := runCmd(t, "call", "host_file", `{"key":"notes/a.txt","content":"attached text"}`); err != nil {
		t.Fatalf("call host_file: %v\n%s", err, stderr)
	}
	stdout, stderr, err := runCmd(t, "call", "send_email", `{"to":["ada@example.com"],"subject":"with a file","body":"see attached","attachments":[{"key":"notes/a.txt"}]}`)
	if err != nil {
		t.Fatalf("call send_email: %v\n%s", err, stderr)
	}
	leaks("call send_email", stdout+stderr)
	var list struct {
		Messages []struct {
			ID          string
			From        struct{ Address string }
			Attachments int
		}
	}
	resp, err := http.Get(mp.APIURL + "/api/v1/messages")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Messages) != 1 || list.Messages[0].From.Address != "bot@example.com" || list.Messages[0].Attachments != 1 {
		t.Errorf("Mailpit received %+v, want one message from bot@example.com with one attachment", list.Messages)
	}
	for _, args := range []string{
		`{"to":["ada@example.com"],"subject":"s","body":"b","attachments":[{"key":"../etc/passwd"}]}`,
		`{"to":["eve@example.org"],"subject":"s","body":"b"}`,
	} {
		stdout, stderr, err := runCmd(t, "call", "send_email", args)
		if err == nil {
			t.Errorf("call send_email %s succeeded", args)
		}
		leaks("a refused send_email", stdout+stderr+fmt.Sprint(err))
	}

	stdout, stderr, err = runCmd(t, "call", "email_list", `{}`)
	if err != nil || !strings.Contains(stdout, "for the tools") {
		t.Errorf("call email_list = %v, %q, want the message delivered\n%s", err, stdout, stderr)
	}
	leaks("call email_list", stdout+stderr)

	for _, cmd := range []string{"serve", "call"} {
		stdout, stderr, _ := runCmd(t, cmd, "--help")
		leaks(cmd+" --help", stdout+stderr)
	}
	// A wrong password and a bad URL: refusals that name no password.
	t.Setenv("HANDS_IMAP", strings.Replace(imap.String(), dc.Password, "wrong-Pw-7731-x", 1))
	secrets = append(secrets, "wrong-Pw-7731-x")
	stdout, stderr, err = runCmd(t, "call", "email_list", `{}`)
	if err == nil {
		t.Error("call email_list with a wrong password succeeded")
	}
	leaks("email_list with a wrong password", stdout+stderr+fmt.Sprint(err))
	t.Setenv("HANDS_SMTP", "smtp://bot:"+smtpPassword+"@mail.example.com?tls=none")
	stdout, stderr, err = runCmd(t, "call", "email_list", `{}`)
	if err == nil {
		t.Error("a password in plain text to a host not on loopback was accepted")
	}
	leaks("a refused HANDS_SMTP", stdout+stderr+fmt.Sprint(err))
}
