package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/browsertest"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
)

// chromium returns the Chromium executable, or skips the test (fails it
// under CI=true, where Chromium is installed), as browsertest does.
func chromium(t *testing.T) string {
	t.Helper()
	p := browsertest.Path()
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found (set HANDS_CHROMIUM, or install the chromium package); CI requires it")
		}
		t.Skip("no Chromium found: install it (apt-get install chromium) or set HANDS_CHROMIUM to run the browser tests")
	}
	return p
}

// hostile is a server on 127.0.0.1 of pages that try what a page must
// not get away with.
func hostile(t *testing.T, other string, slow *slowRoute) *httptest.Server {
	mux := http.NewServeMux()
	page := func(path, html string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, html)
		})
	}
	page("/page", `<html><head><title>Hello</title></head><body><h1>Hi</h1><p id="p">static</p>
<script>document.getElementById("p").textContent = "rendered by script"</script></body></html>`)
	mux.HandleFunc("/setcookie", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		io.WriteString(w, `<html><body><script>localStorage.setItem("who", "`+r.URL.Query().Get("v")+`")</script>set</body></html>`)
	})
	mux.HandleFunc("/showcookie", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><p>cookie=[%s]</p><p id="ls"></p><script>document.getElementById("ls").textContent = "storage=[" + (localStorage.getItem("who") || "") + "]"</script></body></html>`, r.Header.Get("Cookie"))
	})
	page("/loop", `<html><head><title>loop</title></head><body>spinning<script>while (true) {}</script></body></html>`)
	page("/alloc", `<html><head><title>start</title></head><body><script>
try { const a = new Uint8Array(1 << 30); a.fill(1); document.title = "allocated " + a[12345]; }
catch (e) { document.title = "refused: " + e; }
</script>done</body></html>`)
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect/"))
		http.Redirect(w, r, "/redirect/"+strconv.Itoa(n+1), http.StatusFound)
	})
	mux.HandleFunc("/to-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+"/secret", http.StatusFound)
	})
	page("/reach", `<html><body><p>outside</p>
<iframe src="http://169.254.169.254/latest/meta-data/"></iframe>
<iframe src="`+other+`/secret"></iframe>
<img src="http://10.1.2.3/x.png">
<script>
fetch("`+other+`/secret").catch(() => {});
fetch("http://192.168.0.1/").catch(() => {});
try { new WebSocket("ws://10.0.0.7:8080/"); } catch (e) {}
try { new WebSocket("`+strings.Replace(other, "http://", "ws://", 1)+`/ws"); } catch (e) {}
</script></body></html>`)
	mux.HandleFunc("/file.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="evil.bin"`)
		io.WriteString(w, "not for the disk")
	})
	page("/download", `<html><body><a id="a" href="/file.bin" download>get</a><script>document.getElementById("a").click()</script>downloading</body></html>`)
	page("/alert", `<html><head><title>before</title></head><body><script>alert("hello"); confirm("sure?"); document.title = "after the dialogs"</script></body></html>`)
	page("/perm", `<html><body><p id="s">?</p><script>
navigator.permissions.query({name: "geolocation"}).then(p => { document.getElementById("s").textContent = "geolocation: " + p.state; });
</script></body></html>`)
	page("/form", `<html><head><title>form</title></head><body>
<input id="name"><select id="color"><option value="red">Red</option><option value="blue">Blue</option></select>
<button id="go" onclick="document.getElementById('out').textContent = document.getElementById('name').value + '/' + document.getElementById('color').value">go</button>
<p id="out"></p><a class="l" href="/one">one</a><a class="l" href="/two">two</a></body></html>`)
	if slow != nil {
		mux.HandleFunc("/slow", slow.serve)
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// slowRoute holds its requests until released, counting how many are held
// at once.
type slowRoute struct {
	mu      sync.Mutex
	now     int
	most    int
	arrived chan struct{}
	release chan struct{}
}

func (s *slowRoute) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.now++
	s.most = max(s.most, s.now)
	s.mu.Unlock()
	s.arrived <- struct{}{}
	<-s.release
	s.mu.Lock()
	s.now--
	s.mu.Unlock()
	io.WriteString(w, "<html><body>slow</body></html>")
}

// callerKey carries a test's caller name.
type callerKey struct{}

func as(caller string) context.Context {
	return context.WithValue(context.Background(), callerKey{}, caller)
}

// TestBrowser runs the tools in one browser against hostile pages.
func TestBrowser(t *testing.T) {
	path := chromium(t)
	home := t.TempDir()
	t.Setenv("HOME", home) // Chromium's downloads would land in $HOME/Downloads
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		io.WriteString(w, "secret")
	}))
	t.Cleanup(other.Close)
	slow := &slowRoute{arrived: make(chan struct{}, 8), release: make(chan struct{})}
	srv := hostile(t, other.URL, slow)
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	guard, err := netguard.New(netguard.Options{Allow: []string{hostPort}, Setting: "TEST_ALLOW"})
	if err != nil {
		t.Fatal(err)
	}
	var hosted atomic.Pointer[string]
	b, err := New(&Options{
		ExecPath: path,
		Guard:    guard,
		Caller:   func(ctx context.Context) string { s, _ := ctx.Value(callerKey{}).(string); return s },
		Timeout:  90 * time.Second, // a loaded machine; the loop test sets its own deadline
		MaxPages: 2,
		Script:   true,
		Host: func(ctx context.Context, key string, body []byte, ct string) (string, error) {
			if !bytes.HasPrefix(body, []byte("\x89PNG")) || ct != "image/png" {
				return "", fmt.Errorf("hosted %s, %d bytes, not a PNG", ct, len(body))
			}
			hosted.Store(&key)
			return "https://files.example.com/" + key, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			b.Close()
		}
	})
	browse := b.Browse()
	get := func(ctx context.Context, path string) (*Page, error) {
		return browse.Call(ctx, BrowseArgs{URL: srv.URL + path})
	}

	t.Run("renders script", func(t *testing.T) {
		p, err := get(as(""), "/page")
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != "Hello" || p.URL != srv.URL+"/page" || !strings.Contains(p.Markdown, "rendered by script") {
			t.Errorf("browse = %+v, want the title, URL and the text the script wrote", p)
		}
	})

	t.Run("callers do not share cookies or storage", func(t *testing.T) {
		if _, err := get(as("ann"), "/setcookie?v=ann"); err != nil {
			t.Fatal(err)
		}
		p, err := get(as("ann"), "/showcookie")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Markdown, `cookie=\[who=ann]`) || !strings.Contains(p.Markdown, `storage=\[ann]`) {
			t.Errorf("the caller who set them does not see its cookie and storage:\n%s", p.Markdown)
		}
		for _, caller := range []string{"bob", ""} {
			p, err := get(as(caller), "/showcookie")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Markdown, `cookie=\[]`) || !strings.Contains(p.Markdown, `storage=\[]`) {
				t.Errorf("caller %q sees another caller's cookie or storage:\n%s", caller, p.Markdown)
			}
		}
	})

	t.Run("redirect to another loopback port", func(t *testing.T) {
		_, err := get(as(""), "/to-other")
		berr, ok := errors.AsType[*netguard.BlockedError](err)
		if !ok || berr.Reason != "loopback" || !strings.Contains(err.Error(), "TEST_ALLOW") {
			t.Errorf("browse of a redirect to another loopback port = %v, want a loopback *netguard.BlockedError naming the setting", err)
		}
	})

	t.Run("iframes, fetches, images and WebSockets to private addresses", func(t *testing.T) {
		_, err := browse.Call(as(""), BrowseArgs{URL: srv.URL + "/reach", WaitFor: "p"})
		if err != nil {
			t.Fatal(err)
		}
		// The page's requests run on after its load; a second page of the
		// same context waits for nothing of the first. What matters is
		// that none reached the other server, which the end of the test
		// checks too.
		p, err := browse.Call(as(""), BrowseArgs{URL: srv.URL + "/reach"})
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(p.Notes, "\n")
		for _, want := range []string{"169.254.169.254", "link-local"} {
			if !strings.Contains(notes, want) {
				t.Errorf("the notes do not mention %q:\n%s", want, notes)
			}
		}
	})

	t.Run("endless redirects", func(t *testing.T) {
		_, err := get(as(""), "/redirect/0")
		if !errors.Is(err, ErrLoad) || !strings.Contains(err.Error(), "REDIRECT") {
			t.Errorf("browse of an endless redirect chain = %v, want ErrLoad", err)
		}
	})

	t.Run("dialogs are dismissed", func(t *testing.T) {
		p, err := get(as(""), "/alert")
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != "after the dialogs" || !strings.Contains(strings.Join(p.Notes, "\n"), `alert dialog: "hello"`) {
			t.Errorf("browse of a page with dialogs = %+v", p)
		}
	})

	t.Run("permissions are denied", func(t *testing.T) {
		p, err := browse.Call(as(""), BrowseArgs{URL: srv.URL + "/perm", WaitFor: "#s"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Markdown, "geolocation: denied") {
			t.Errorf("geolocation is not denied:\n%s", p.Markdown)
		}
	})

	t.Run("downloads are refused", func(t *testing.T) {
		if _, err := get(as(""), "/download"); err != nil {
			t.Fatal(err)
		}
		var files []string
		filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(d.Name(), "evil") {
				files = append(files, p)
			}
			return nil
		})
		if len(files) > 0 {
			t.Errorf("the download was written: %v", files)
		}
	})

	t.Run("a script that never ends is stopped", func(t *testing.T) {
		// The call's deadline is the caller's here, which ends the call
		// as the tool's timeout does.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, err := browse.Call(ctx, BrowseArgs{URL: srv.URL + "/loop"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("browse of a page that loops = %v, want the deadline", err)
		}
		// The page slot is free again, and the browser serves the next call.
		if _, err := get(as(""), "/page"); err != nil {
			t.Errorf("the call after the loop: %v", err)
		}
	})

	t.Run("a gigabyte is not allocated", func(t *testing.T) {
		p, err := get(as(""), "/alloc")
		if err == nil && strings.HasPrefix(p.Title, "allocated") {
			t.Errorf("the page allocated a gigabyte: %+v", p)
		}
		if err != nil && !errors.Is(err, ErrCrashed) {
			t.Errorf("browse of a page that allocates 1 GB = %v, want the page or ErrCrashed", err)
		}
		if _, err := get(as(""), "/page"); err != nil {
			t.Errorf("the call after the allocation: %v", err)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		parts, err := b.Screenshot().Call(as(""), ScreenshotArgs{URL: srv.URL + "/page", FullPage: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) != 3 || parts[1].Kind != tool.PartImage || !bytes.HasPrefix(parts[1].Data, []byte("\x89PNG")) ||
			parts[2].Kind != tool.PartLink || hosted.Load() == nil || parts[2].URI != "https://files.example.com/"+*hosted.Load() {
			t.Errorf("screenshot = %+v", parts)
		}
	})

	t.Run("execute", func(t *testing.T) {
		res := tool.Run(as(""), b.Execute(), tool.Call{Name: "browser_execute", Args: json.RawMessage(`{"steps":[
			{"action":"navigate","url":"` + srv.URL + `/form"},
			{"action":"type","selector":"#name","text":"Ann"},
			{"action":"select","selector":"#color","text":"blue"},
			{"action":"click","selector":"#go"},
			{"action":"waitIdle"},
			{"action":"scroll"},
			{"action":"extract","selector":"#out"},
			{"action":"extract","selector":"a.l","attribute":"href"},
			{"action":"script","script":"Promise.resolve(1 + 2)"}
		],"screenshot":true}`)})
		if res.IsError {
			t.Fatal(res.Content)
		}
		var out ExecuteResult
		if err := json.Unmarshal([]byte(res.Parts[0].Text), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Extracted) != 3 || strings.Join(out.Extracted[0].Values, ",") != "Ann/blue" ||
			strings.Join(out.Extracted[1].Values, ",") != "/one,/two" || string(out.Extracted[2].Value) != "3" ||
			len(res.Parts) != 2 || res.Parts[1].Kind != tool.PartImage {
			t.Errorf("browser_execute = %s, %d parts", res.Parts[0].Text, len(res.Parts))
		}
		res = tool.Run(as(""), b.Execute(), tool.Call{Name: "browser_execute", Args: json.RawMessage(`{"steps":[
			{"action":"navigate","url":"` + srv.URL + `/form"},{"action":"click","selector":"#missing"}]}`)})
		if !errors.Is(res.Err, ErrElementNotFound) || !strings.Contains(res.Content, "step 1 (click)") {
			t.Errorf("a click on no element = %v", res.Err)
		}
	})

	t.Run("pages are bounded", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if _, err := get(as(""), "/slow"); err != nil {
					t.Error(err)
				}
			})
		}
		ended := make(chan struct{})
		go func() { wg.Wait(); close(ended) }()
		for range 2 {
			select {
			case <-slow.arrived:
			case <-ended:
			}
		}
		close(slow.release)
		<-ended
		if slow.most > 2 {
			t.Errorf("%d pages were open at once, and the limit is 2", slow.most)
		}
	})

	t.Run("a crashed browser is started again", func(t *testing.T) {
		pid := b.pid()
		if pid == 0 {
			t.Fatal("no browser running")
		}
		b.mu.Lock()
		done := b.inst.ctx.Done()
		b.mu.Unlock()
		syscall.Kill(pid, syscall.SIGKILL)
		<-done
		if _, err := get(as(""), "/page"); err != nil {
			t.Fatalf("the call after the crash: %v", err)
		}
		if b.pid() == pid || b.pid() == 0 {
			t.Errorf("the browser was not started again")
		}
	})

	t.Run("Close leaves no process", func(t *testing.T) {
		procs := descendants(os.Getpid())
		if len(procs) < 2 {
			t.Fatalf("the browser runs %d processes, want several", len(procs))
		}
		b.Close()
		closed = true
		// A process still running is left over; so is a zombie that is
		// this process's child, unreaped. Chromium's helpers that outlive
		// its main process for a moment are reparented to init, whose to
		// reap they are (a container's init may not be one that reaps).
		for _, p := range procs {
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
			if err != nil {
				continue
			}
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			if f[0] != "Z" || f[1] == strconv.Itoa(os.Getpid()) {
				t.Errorf("process %d is left after Close: %s", p, stat)
			}
		}
		if kids := children(os.Getpid()); len(kids) > 0 {
			t.Errorf("this process has children after Close: %v", kids)
		}
		if _, err := get(as(""), "/page"); !errors.Is(err, ErrClosed) {
			t.Errorf("browse after Close = %v, want ErrClosed", err)
		}
	})

	if n := otherHits.Load(); n != 0 {
		t.Errorf("the server no page may reach was reached %d times", n)
	}
}

// children returns the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil && ppid(p) == pid {
			out = append(out, p)
		}
	}
	return out
}
