package dovecottest_test

import (
	"slices"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/hands-go/hands/internal/dovecottest"
)

// TestStart delivers a message to a started Dovecot and reads it back,
// and checks that the server kept it unread.
func TestStart(t *testing.T) {
	s := dovecottest.Start(t, nil)
	raw := []byte("From: a@example.com\r\nTo: b@example.com\r\nSubject: hello from the test\r\n\r\nbody\r\n")
	uid := s.Deliver(t, "INBOX", raw)
	c, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{Envelope: true}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Envelope.Subject != "hello from the test" {
		t.Fatalf("fetched %+v, want the message delivered", msgs)
	}
	if flags := s.Flags(t, "INBOX", uid); slices.Contains(flags, imap.FlagSeen) {
		t.Errorf("flags = %v, want no \\Seen", flags)
	}
}
