package mcpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	pngenc "image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hands-go/hands/internal/browsertest"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

// byLabel returns an XPath for the control labelled label, inside the
// fieldset whose legend is within, when within is not empty.
func byLabel(within, label string) string {
	scope := "//"
	if within != "" {
		scope = fmt.Sprintf(`//fieldset[legend[text()=%q]]//`, within)
	}
	return fmt.Sprintf(`//*[@id=(%slabel[text()=%q]/@for)]`, scope, label)
}

// clearValue empties the input or textarea with the given id.
func clearValue(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(document.getElementById(%q).value = "", true)`, id))
}

// fieldIssues returns, for each field of the form that shows issues, its
// label and the issues, as "label: issue | issue".
const fieldIssues = `Array.from(document.querySelectorAll("#fields .field, #fields fieldset"))
	.filter(f => f.querySelector(":scope > ul.issues li"))
	.map(f => f.querySelector(":scope > label, :scope > legend").firstChild.textContent + ": " +
		Array.from(f.querySelectorAll(":scope > ul.issues li")).map(li => li.textContent).join(" | "))`

// TestPlaygroundBrowser drives the page in headless Chromium: the tool
// list, a form filled and sent with invalid and then valid arguments, live
// progress, and the schema in other dialects.
func TestPlaygroundBrowser(t *testing.T) {
	ctx := browsertest.New(t, 1280, 1000)
	release := make(chan struct{})
	ts, _ := newPlayground(t, playgroundTools(t, release), nil)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	eval := func(js string) []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return v
	}

	run("load the page",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#tools button[data-tool="wipe"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#tool-name`)),
	)
	if got := text("#status"); !strings.Contains(got, "Connected to hands") || !strings.Contains(got, "2 of 3 tools enabled") {
		t.Errorf("status = %q", got)
	}
	if got := eval(`Array.from(document.querySelectorAll("#tools button")).map(b => b.textContent)`); !slices.Equal(got, []string{
		"planPlannerread-onlyidempotentversion 2enabled", "countenabled", "wipedestructivedeprecated until 2099-01-31disabled",
	}) {
		t.Errorf("tool list = %q", got)
	}
	if got := text("#tool-name"); got != "Planner (plan)" {
		t.Errorf("tool heading = %q", got)
	}

	// The form: required marks, the enum as a select with its default,
	// help text from the descriptions, an optional nested object.
	if got := eval(`Array.from(document.querySelectorAll("#fields label, #fields legend")).map(l => l.textContent)`); !slices.Equal(got, []string{
		"title *", "priority", "steps *", "owner", "Include owner", "email *", "labels", "draftdeprecated",
	}) {
		t.Errorf("labels = %q", got)
	}
	if got := eval(`[document.querySelector("#fields select").selectedOptions[0].textContent, document.getElementById(document.querySelector("#fields input").getAttribute("aria-describedby").split(" ")[0]).textContent]`); !slices.Equal(got, []string{"normal", "what the plan is called"}) {
		t.Errorf("priority's selection and title's help = %q", got)
	}

	// Every control has a label, and results and progress are live regions.
	if got := eval(`Array.from(document.querySelectorAll("input, select, textarea")).filter(e => !e.labels || e.labels.length === 0).map(e => e.outerHTML)`); len(got) != 0 {
		t.Errorf("controls without a label: %q", got)
	}
	if got := eval(`["result", "progress"].filter(id => document.getElementById(id).getAttribute("aria-live") !== "polite")`); len(got) != 0 {
		t.Errorf("not live regions: %q", got)
	}
	// The keyboard reaches the tools: Enter on a focused tool's button opens it.
	run("open count with the keyboard",
		chromedp.Focus(chromedp.CSS(`#tools button[data-tool="count"]`)),
		chromedp.KeyEvent("\r"),
		chromedp.Poll[chromedp.Void](`document.getElementById("tool-name").textContent === "count"`, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Focus(chromedp.CSS(`#tools button[data-tool="plan"]`)),
		chromedp.KeyEvent(" "),
		chromedp.Poll[chromedp.Void](`document.getElementById("tool-name").textContent === "Planner (plan)"`, chromedp.WithPollingTimeout(5*time.Second)),
	)

	// Invalid arguments: each issue at its field.
	run("fill the form with invalid arguments",
		chromedp.SendKeys(byLabel("", "title"), "ab"),
		chromedp.Click(`//button[text()="Add steps item"]`),
		chromedp.SendKeys(byLabel("steps item 1", "minutes"), "0"),
		chromedp.Click(`//button[text()="Add steps item"]`),
		chromedp.SendKeys(byLabel("steps item 2", "name"), "review"),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.error")),
	)
	if got := text("#result pre"); !strings.Contains(got, "- /title: must be at least 3 characters") || !strings.Contains(got, "Fix these and call plan again.") {
		t.Errorf("error result text = %q", got)
	}
	if got := eval(fieldIssues); !slices.Equal(got, []string{
		"title: must be at least 3 characters, got 2",
		"name: must be at least 1 character, got 0",
		"minutes: must be at least 1, got 0",
		`minutes: missing required property "minutes" (an integer)`, // reported at /steps/1, shown at its field
	}) {
		t.Errorf("issues at fields = %q", got)
	}
	if got := eval(`Array.from(document.querySelectorAll("#fields [aria-invalid=true]")).map(e => e.tagName)`); len(got) != 4 {
		t.Errorf("controls marked invalid: %q, want 4", got)
	}

	// Valid arguments: the text and the structured output.
	run("fix the arguments and call again",
		chromedp.SendKeys(byLabel("", "title"), "c"),
		chromedp.SendKeys(byLabel("steps item 1", "name"), "write"),
		chromedp.SendKeys(byLabel("steps item 1", "minutes"), "5"),
		chromedp.SendKeys(byLabel("steps item 2", "minutes"), "10"),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.ok")),
	)
	if got := text("#result pre.structured"); !strings.Contains(got, `"title": "abc"`) || !strings.Contains(got, `"minutes": 15`) {
		t.Errorf("structured output = %q", got)
	}
	if got := eval(fieldIssues); len(got) != 0 {
		t.Errorf("issues left at fields after a valid call: %q", got)
	}

	// The same call as raw JSON, with a missing property.
	run("send raw JSON",
		chromedp.Click(`//label[normalize-space(.)="JSON"]/input`),
		chromedp.WaitVisible(chromedp.ID("raw-json")),
		clearValue("raw-json"),
		chromedp.SendKeys(chromedp.ID("raw-json"), `{"title": "abc"}`),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.error")),
	)
	if got := text("#result pre"); !strings.Contains(got, `(root): missing required property "steps"`) {
		t.Errorf("error result text for raw JSON = %q", got)
	}
	run("back to the form", chromedp.Click(`//label[normalize-space(.)="Form"]/input`), chromedp.WaitVisible(chromedp.ID("fields")))
	if got, err := chromedp.Run(ctx, chromedp.Value(byLabel("", "title"))); err != nil || got != "abc" {
		t.Errorf("title after the JSON view = %q, %v; want the form filled from the JSON", got, err)
	}
	if got := eval(`Array.from(document.querySelectorAll("#fields ol.items > li")).map(li => li.textContent)`); len(got) != 0 {
		t.Errorf("steps after the JSON view = %q, want none, as in the JSON", got)
	}
	if got := eval(fieldIssues); !slices.Equal(got, []string{`steps: missing required property "steps" (an array)`}) {
		t.Errorf("issues at fields after the JSON view = %q, want the JSON call's issue at its field", got)
	}

	// Progress arrives while the call runs, before its result.
	run("call count",
		chromedp.Click(chromedp.CSS(`#tools button[data-tool="count"]`)),
		chromedp.WaitVisible(byLabel("", "n")),
		chromedp.Click(chromedp.ID("call")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#progress-log li").length === 3`, chromedp.WithPollingTimeout(20*time.Second)),
	)
	if got := eval(`Array.from(document.querySelectorAll("#progress-log li")).map(li => li.textContent)`); !slices.Equal(got, []string{
		"1 of 3: counted 1", "2 of 3: counted 2", "3 of 3: counted 3",
	}) {
		t.Errorf("progress = %q", got)
	}
	if got := text("#result"); !strings.Contains(got, "Calling count") {
		t.Errorf("result while the call runs = %q, want it still calling", got)
	}
	close(release)
	run("wait for count's result", chromedp.WaitVisible(chromedp.CSS("#result .result.ok")))
	if got := text("#result pre"); got != "counted to 3" {
		t.Errorf("count's result = %q", got)
	}

	// Everything the page loaded came from its own origin.
	if got := eval(`performance.getEntriesByType("resource").map(e => e.name).filter(n => !n.startsWith(location.origin + "/"))`); len(got) != 0 {
		t.Errorf("the page loaded from elsewhere: %q", got)
	}

	// A disabled tool: the page says so, and a call gets the protocol's error.
	run("call wipe",
		chromedp.Click(chromedp.CSS(`#tools button[data-tool="wipe"]`)),
		chromedp.WaitVisible(chromedp.ID("tool-note")),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.error")),
	)
	if got := text("#result .verdict"); !strings.Contains(got, "JSON-RPC error -32602") {
		t.Errorf("result of a disabled tool = %q, want the JSON-RPC invalid-params error", got)
	}

	// Dialects: the schema and the problems of each.
	run("show plan in OpenAI's strict mode",
		chromedp.Click(chromedp.CSS(`#tools button[data-tool="plan"]`)),
		chromedp.WaitVisible(byLabel("", "title")),
		chromedp.Focus(chromedp.ID("dialect")),
		chromedp.SetValue(chromedp.ID("dialect"), "openai-strict"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("dialect").dispatchEvent(new Event("change"))`),
		chromedp.WaitVisible(chromedp.CSS("#problems li.error")),
	)
	if got := text("#problems li.error"); !strings.Contains(got, "/properties/labels") {
		t.Errorf("openai-strict error = %q", got)
	}
	if got := text("#schema"); !strings.Contains(got, `"additionalProperties": false`) {
		t.Errorf("openai-strict schema = %q", got)
	}
	// Strict mode folds the examples into the description it sends.
	if got := text("#sent-description-text"); !strings.HasPrefix(got, "Make a plan from steps.") || !strings.Contains(got, `{"title":"tidy","steps":[{"name":"sweep","minutes":5}]}`) {
		t.Errorf("openai-strict's description = %q, want the examples at its end", got)
	}
	run("show plan for Gemini",
		chromedp.SetValue(chromedp.ID("dialect"), "gemini"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("dialect").dispatchEvent(new Event("change"))`),
		chromedp.Poll[chromedp.Void](`document.getElementById("schema").textContent.includes('"OBJECT"')`, chromedp.WithPollingTimeout(5*time.Second)),
	)
	run("back to MCP",
		chromedp.SetValue(chromedp.ID("dialect"), "mcp"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("dialect").dispatchEvent(new Event("change"))`),
		chromedp.WaitVisible(chromedp.CSS("#problems p.ok")),
	)
	if got := eval(`[String(document.getElementById("sent-description").hidden)]`); !slices.Equal(got, []string{"true"}) {
		t.Errorf("the sent description is shown for MCP, which keeps the examples")
	}

	// Examples: listed, and one fills the form, nested objects and array
	// items included, and calls as it is.
	if got := eval(`Array.from(document.querySelectorAll("#example-list pre")).map(p => JSON.stringify(JSON.parse(p.textContent)))`); !slices.Equal(got, []string{
		`{"title":"tidy","steps":[{"name":"sweep","minutes":5}]}`,
		`{"title":"launch","priority":"high","steps":[{"name":"write","minutes":20},{"name":"review","minutes":10}],"owner":{"email":"ada@example.com"}}`,
	}) {
		t.Errorf("examples shown = %q", got)
	}
	run("use the second example",
		chromedp.Click(chromedp.CSS(`#example-list button[data-example="1"]`)),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#fields ol.items > li").length === 2`, chromedp.WithPollingTimeout(5*time.Second)),
	)
	for label, want := range map[[2]string]string{
		{"", "title"}:               "launch",
		{"steps item 2", "name"}:    "review",
		{"steps item 2", "minutes"}: "10",
		{"owner", "email"}:          "ada@example.com",
	} {
		if got, err := chromedp.Run(ctx, chromedp.Value(byLabel(label[0], label[1]))); err != nil || got != want {
			t.Errorf("%s after using the example = %q, %v; want %q", label[1], got, err, want)
		}
	}
	if got := eval(`[document.querySelector("#fields select").selectedOptions[0].textContent]`); !slices.Equal(got, []string{"high"}) {
		t.Errorf("priority after using the example = %q, want high", got)
	}
	run("call with the example",
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.ok")),
	)
	if got := text("#result pre.structured"); !strings.Contains(got, `"title": "launch"`) || !strings.Contains(got, `"minutes": 30`) {
		t.Errorf("structured output of the example's call = %q", got)
	}
	run("the example in the JSON view",
		chromedp.Click(chromedp.CSS(`#example-list button[data-example="0"]`)),
		chromedp.Click(`//label[normalize-space(.)="JSON"]/input`),
		chromedp.WaitVisible(chromedp.ID("raw-json")),
	)
	if got := eval(`[JSON.stringify(JSON.parse(document.getElementById("raw-json").value))]`); !slices.Equal(got, []string{`{"title":"tidy","steps":[{"name":"sweep","minutes":5}]}`}) {
		t.Errorf("the JSON view after using the first example = %q", got)
	}
	run("count has no examples",
		chromedp.Click(chromedp.CSS(`#tools button[data-tool="count"]`)),
		chromedp.Poll[chromedp.Void](`document.getElementById("tool-name").textContent === "count"`, chromedp.WithPollingTimeout(5*time.Second)),
	)
	if got := eval(`[String(document.getElementById("examples").hidden), String(document.querySelectorAll("#example-list li").length)]`); !slices.Equal(got, []string{"true", "0"}) {
		t.Errorf("count's examples section: hidden, items = %q; want it hidden and empty", got)
	}
}

// TestPlaygroundBrowserToken checks that the page asks for the token of a
// server that requires one, and then works with it.
func TestPlaygroundBrowserToken(t *testing.T) {
	ctx := browsertest.New(t, 1024, 768)
	ts, srv := newPlayground(t, playgroundTools(t, nil), &mcpserver.HTTPOptions{Verify: mcpserver.StaticToken("s3cret", "dev")})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), "wrong\n"),
		chromedp.Poll[chromedp.Void](`document.getElementById("status").textContent.includes("refused")`, chromedp.WithPollingTimeout(10*time.Second)),
		clearValue("token"),
		chromedp.SendKeys(chromedp.ID("token"), "s3cret\n"),
		chromedp.WaitVisible(chromedp.CSS(`#tools button[data-tool="plan"]`)),
		chromedp.SendKeys(byLabel("", "title"), "abc"),
		chromedp.Click(`//button[text()="Add steps item"]`),
		chromedp.SendKeys(byLabel("steps item 1", "name"), "go"),
		chromedp.SendKeys(byLabel("steps item 1", "minutes"), "1"),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.ok")),
	); err != nil {
		t.Fatal(err)
	}
	if n := liveSessions(srv); n != 1 {
		t.Errorf("%d sessions open while the page is, want 1", n)
	}
	// Leaving the page ends its session.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); liveSessions(srv) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions open after the page went away, want 0", liveSessions(srv))
		}
	}
}

// TestPlaygroundBrowserStateless checks the page against a stateless
// endpoint that answers with JSON rather than event streams: no session,
// progress only in the result's wake, the same results.
func TestPlaygroundBrowserStateless(t *testing.T) {
	ctx := browsertest.New(t, 1024, 768)
	release := make(chan struct{})
	close(release)
	ts, _ := newPlayground(t, playgroundTools(t, release), &mcpserver.HTTPOptions{Stateless: true, JSONResponse: true})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/#count"),
		chromedp.WaitVisible(byLabel("", "n")),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.ok")),
	); err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("status")))
	if err != nil || !strings.Contains(status, "(stateless)") {
		t.Errorf("status = %q, %v; want it to say the endpoint is stateless", status, err)
	}
	result, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#result pre")))
	if err != nil || result != "counted to 3" {
		t.Errorf("result = %q, %v", result, err)
	}
}

// TestPlaygroundBrowserSessionEnded checks that the page opens a new
// session when the server has closed its own, and the call goes through.
func TestPlaygroundBrowserSessionEnded(t *testing.T) {
	ctx := browsertest.New(t, 1024, 768)
	release := make(chan struct{})
	close(release)
	ts, srv := newPlayground(t, playgroundTools(t, release), &mcpserver.HTTPOptions{SessionTimeout: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/#count"),
		chromedp.WaitVisible(byLabel("", "n")),
	); err != nil {
		t.Fatal(err)
	}
	// The page listed the tools in a session of its own. Wait for it to
	// time out, by the count of sessions, not by a guess of how long a
	// busy machine takes to close it.
	for deadline := time.Now().Add(time.Minute); liveSessions(srv) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the session is still open 30 s after its idle timeout of 300 ms")
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.ok")),
	); err != nil {
		t.Fatal(err)
	}
}

// TestPlaygroundBrowserOrigin opens the page under a name that is not
// localhost but resolves to 127.0.0.1, as a page of another site does
// after DNS rebinding: the page itself is refused, as the endpoint is,
// before any script of it runs. (On an address that is not loopback the
// page would load and say how to allow its origin; tests listen on
// loopback only.)
func TestPlaygroundBrowserOrigin(t *testing.T) {
	// playground.test resolves to 127.0.0.1 in the browser only.
	ctx := browsertest.New(t, 1024, 768, chromedp.Flag("host-resolver-rules", "MAP playground.test 127.0.0.1"))
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ts, _ := newPlayground(t, playgroundTools(t, nil), nil)
	page := strings.Replace(ts.URL, "127.0.0.1", "playground.test", 1)
	if err := chromedp.Do(ctx, chromedp.Navigate(page+"/")); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil || !strings.Contains(body, "is not allowed on a loopback address") {
		t.Errorf("the page under a rebound name = %q, %v; want the refusal", body, err)
	}
}

// TestPlaygroundBrowserPicture checks that the page shows an image part as
// a picture the browser decodes, a link part to an http(s) URL as a link,
// and a link of another scheme as its JSON, never as a link.
func TestPlaygroundBrowserPicture(t *testing.T) {
	ctx := browsertest.New(t, 1024, 768)
	var png bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	draw := tool.New("draw", "Draw a picture.", func(ctx context.Context, _ struct{}) ([]tool.Part, error) {
		return []tool.Part{
			tool.Text("a picture"),
			tool.Image("image/png", png.Bytes()),
			tool.Link("https://files.example.com/p.png", "p.png", "image/png"),
			tool.Link("javascript:alert(1)", "bad", ""),
			tool.Image("image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)),
		}, nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{draw}})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := newPlayground(t, reg, nil)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/#draw"),
		chromedp.WaitVisible(chromedp.ID("call")),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.ok figure.picture img")),
	); err != nil {
		t.Fatal(err)
	}
	// The picture decoded, at its size: the page's policy let the data:
	// URL through.
	var size []int
	for range 200 {
		size, err = chromedp.Run(ctx, chromedp.Evaluate[[]int](`(() => {
			const img = document.querySelector("#result figure.picture img");
			return [img.complete ? img.naturalWidth : -1, img.naturalHeight, document.querySelectorAll("#result figure.picture").length];
		})()`))
		if err != nil || size[0] != -1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil || fmt.Sprint(size) != "[3 2 1]" {
		t.Errorf("the picture's natural size and the pictures shown = %v, %v; want [3 2 1] (the SVG is not shown as one)", size, err)
	}
	links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#result a")).map(a => a.href + " " + a.rel + " " + a.target)`))
	if err != nil || fmt.Sprint(links) != "[https://files.example.com/p.png noopener noreferrer _blank]" {
		t.Errorf("links = %q, %v; want only the https one, opening apart", links, err)
	}
	other, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("#result pre.other")).map(p => p.textContent).join("\n")`))
	if err != nil || !strings.Contains(other, "javascript:alert(1)") || !strings.Contains(other, "image/svg+xml") {
		t.Errorf("blocks shown as JSON = %q, %v; want the javascript: link and the SVG", other, err)
	}
}
