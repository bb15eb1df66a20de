// Package dovecottest starts a throwaway Dovecot IMAP server for a test:
// on free ports of 127.0.0.1, with one user whose password is random,
// passwd-file authentication, mail kept as a Maildir in the test's
// temporary directory, a configuration of its own (never the system's),
// and no system service; it stops when the test ends. With a certificate
// it also speaks TLS: STARTTLS on Addr and implicit TLS on TLSAddr.
//
// Dovecot runs as the current user. Run as root, as CI is, its login
// processes and the user's mail processes run as "nobody" instead, since
// Dovecot refuses root for both: the temporary directory is then opened to
// others for traversal (mode 0711) and the mail directory given to nobody.
//
// The configuration is Dovecot 2.3's, Debian's dovecot-imapd package, which
// .ci/run installs. Without Dovecot a test is skipped, except under
// CI=true, where it fails.
package dovecottest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/hands-go/hands/internal/testserver"
)

// User is the name of the server's one user.
const User = "hands"

// A Server is a running Dovecot.
type Server struct {
	// Addr is the host:port of IMAP: plain text, with STARTTLS offered when
	// the server has a certificate.
	Addr string
	// TLSAddr is the host:port of IMAP over implicit TLS, or "" when the
	// server has no certificate.
	TLSAddr string
	// User and Password sign in as the server's one user. Plain-text LOGIN
	// is allowed, since the server listens on loopback only.
	User, Password string
	// MailDir is the Maildir of the user's INBOX.
	MailDir string
}

// Options configure a Server. The zero value is a server without TLS.
type Options struct {
	// CertFile and KeyFile are PEM files of the server's certificate and
	// key. When set, the server offers STARTTLS on Addr and implicit TLS
	// on TLSAddr.
	CertFile, KeyFile string
}

// Binary returns the path of the dovecot program, and false if it is not
// installed.
func Binary() (string, bool) {
	if p, err := exec.LookPath("dovecot"); err == nil {
		return p, true
	}
	const p = "/usr/sbin/dovecot" // not on every user's PATH
	_, err := os.Stat(p)
	return p, err == nil
}

// config is Dovecot 2.3's configuration of a test server.
var config = template.Must(template.New("dovecot.conf").Parse(`# A throwaway server of package dovecottest.
base_dir = {{.Dir}}/run
state_dir = {{.Dir}}/state
instance_name = {{.Instance}}
protocols = imap
listen = 127.0.0.1
log_path = {{.Dir}}/dovecot.log
info_log_path = {{.Dir}}/dovecot.log
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = {{.LoginUser}}
default_internal_user = {{.InternalUser}}
default_internal_group = {{.InternalGroup}}
first_valid_uid = {{.MailUID}}
first_valid_gid = 0
mail_location = maildir:{{.Dir}}/mail/%u
{{- if .CertFile}}
ssl = yes
ssl_cert = <{{.CertFile}}
ssl_key = <{{.KeyFile}}
{{- else}}
ssl = no
{{- end}}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {{.Dir}}/passwd
}
userdb {
  driver = static
  args = uid={{.MailUID}} gid={{.MailGID}} home={{.Dir}}/home/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = {{.Port}}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = {{.TLSPort}}
{{- if .CertFile}}
    ssl = yes
{{- end}}
  }
{{- if not .Root}}
  chroot =
{{- end}}
}
{{- if not .Root}}
service anvil {
  chroot =
}
{{- end}}
`))

// Start starts a server for t and stops it when t ends. opts may be nil.
func Start(t testing.TB, opts *Options) *Server {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	bin, ok := Binary()
	if !ok {
		testserver.Missing(t, "dovecot", "apt-get install dovecot-imapd")
	}
	dir := t.TempDir()
	cur, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	root := os.Getuid() == 0
	data := struct {
		Dir, Instance, CertFile, KeyFile       string
		LoginUser, InternalUser, InternalGroup string
		MailUID, MailGID, Port, TLSPort        int
		Root                                   bool
	}{
		Dir: dir, Instance: "hands-test-" + strings.ToLower(rand.Text()[:8]),
		CertFile: opts.CertFile, KeyFile: opts.KeyFile,
		LoginUser: cur.Username, InternalUser: cur.Username,
		MailUID: os.Getuid(), MailGID: os.Getgid(),
		Port: testserver.FreePort(t), Root: root,
	}
	if g, err := user.LookupGroupId(strconv.Itoa(os.Getgid())); err == nil {
		data.InternalGroup = g.Name
	} else {
		t.Fatal(err)
	}
	if opts.CertFile != "" {
		data.TLSPort = testserver.FreePort(t)
	}
	mail := filepath.Join(dir, "mail")
	for _, d := range []string{"run", "state", "mail", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if root {
		// Dovecot runs neither its login processes nor a user's mail
		// processes as root.
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Fatalf("dovecottest: run as root, the server needs the user nobody: %v", err)
		}
		uid, _ := strconv.Atoi(nobody.Uid)
		gid, _ := strconv.Atoi(nobody.Gid)
		data.LoginUser, data.MailUID, data.MailGID = "nobody", uid, gid
		// nobody must reach the mail and home directories, and only
		// those.
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o711); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []string{"mail", "home"} {
			if err := os.Chown(filepath.Join(dir, d), uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	password := rand.Text()
	if err := os.WriteFile(filepath.Join(dir, "passwd"), []byte(User+":{PLAIN}"+password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var conf bytes.Buffer
	if err := config.Execute(&conf, data); err != nil {
		t.Fatal(err)
	}
	confFile := filepath.Join(dir, "dovecot.conf")
	if err := os.WriteFile(confFile, conf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// The master stops its children on SIGTERM; a SIGKILL would leave them
	// running.
	p := testserver.Start(t, "dovecottest: dovecot", exec.Command(bin, "-F", "-c", confFile), syscall.SIGTERM, filepath.Join(dir, "dovecot.log"))
	s := &Server{
		Addr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(data.Port)),
		User:     User,
		Password: password,
		MailDir:  filepath.Join(mail, User),
	}
	if data.TLSPort != 0 {
		s.TLSAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(data.TLSPort))
	}
	p.Wait(t, 30*time.Second, 50*time.Millisecond, s.login)
	return s
}

// login signs in and out once, over plain text.
func (s *Server) login() error {
	c, err := s.Dial()
	if err != nil {
		return err
	}
	c.Logout().Wait()
	return c.Close()
}

// Dial connects to the server over plain text and signs in as its user.
func (s *Server) Dial() (*imapclient.Client, error) {
	conn, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	c := imapclient.New(conn, nil)
	if err := c.Login(s.User, s.Password).Wait(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Deliver appends a message, as its raw bytes, to a folder (created if
// missing) with the given flags, and returns its UID.
func (s *Server) Deliver(t testing.TB, folder string, raw []byte, flags ...imap.Flag) imap.UID {
	t.Helper()
	c, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if folder != "INBOX" {
		c.Create(folder, nil).Wait() // it may exist already
	}
	cmd := c.Append(folder, int64(len(raw)), &imap.AppendOptions{Flags: flags})
	if _, err := cmd.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := cmd.Wait()
	if err != nil {
		t.Fatalf("dovecottest: append to %s: %v", folder, err)
	}
	c.Logout().Wait()
	return data.UID
}

// Flags returns the flags of the message uid in folder.
func (s *Server) Flags(t testing.TB, folder string, uid imap.UID) []imap.Flag {
	t.Helper()
	c, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Select(folder, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{Flags: true}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("dovecottest: no message %d in %s", uid, folder)
	}
	c.Logout().Wait()
	return msgs[0].Flags
}

// String describes the server for a test's log.
func (s *Server) String() string { return fmt.Sprintf("dovecot imap=%s imaps=%s", s.Addr, s.TLSAddr) }
