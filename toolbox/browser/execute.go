package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

// MaxSteps is the most steps one browser_execute call runs.
const MaxSteps = 50

// maxMatches bounds the elements one extract step reads.
const maxMatches = 100

// The actions of a step.
const (
	ActionNavigate = "navigate" // load URL
	ActionClick    = "click"    // click the first element Selector matches
	ActionType     = "type"     // type Text into the element Selector matches
	ActionSelect   = "select"   // choose the option whose value is Text in the select element Selector matches
	ActionWaitFor  = "waitFor"  // wait until an element matches Selector
	ActionWaitIdle = "waitIdle" // wait until no request has been in flight for half a second
	ActionScroll   = "scroll"   // scroll the element Selector matches into view, or to the bottom
	ActionExtract  = "extract"  // read the text, or Attribute, of each element Selector matches
	ActionScript   = "script"   // run Script in the page (when the operator allows it)
)

// StepFields are the fields of a step besides its action.
type StepFields struct {
	// URL is the page a navigate step loads.
	URL string `json:"url,omitempty" jsonschema:"navigate: the page to load, an absolute http or https URL" tool:"maxLength=2048"`
	// Selector is the CSS selector of the element a step acts on.
	Selector string `json:"selector,omitempty" jsonschema:"click, type, select, waitFor, extract: a CSS selector of the element; scroll: the element to scroll into view (empty: to the bottom of the page)" tool:"maxLength=512"`
	// Text is what a type step types, or the option value a select step
	// chooses.
	Text string `json:"text,omitempty" jsonschema:"type: the text to type; select: the value of the option to choose" tool:"maxLength=10000"`
	// Attribute is what an extract step reads of each match.
	Attribute string `json:"attribute,omitempty" jsonschema:"extract: the attribute to read of each element, such as href; empty reads their visible text" tool:"maxLength=100"`
}

// A Step is one action of browser_execute.
type Step struct {
	// Action is what the step does.
	Action string `json:"action" jsonschema:"what the step does" tool:"enum=navigate|click|type|select|waitFor|waitIdle|scroll|extract"`
	StepFields
}

// A ScriptStep is one action of browser_execute when script steps are
// allowed (Options.Script).
type ScriptStep struct {
	// Action is what the step does.
	Action string `json:"action" jsonschema:"what the step does" tool:"enum=navigate|click|type|select|waitFor|waitIdle|scroll|extract|script"`
	StepFields
	// Script is the JavaScript a script step runs in the page: an
	// expression, whose value (awaited if a promise) is returned as JSON.
	Script string `json:"script,omitempty" jsonschema:"script: a JavaScript expression to evaluate in the page; its value (awaited, if a promise) is returned as JSON" tool:"maxLength=20000"`
}

// ExecuteArgs is the input of browser_execute.
type ExecuteArgs struct {
	// Steps run in order, in one page.
	Steps []Step `json:"steps" jsonschema:"the steps to run in order in one page; the first is usually navigate" tool:"minItems=1,maxItems=50"`
	// Screenshot adds a screenshot of the viewport after the last step.
	Screenshot bool `json:"screenshot,omitempty" jsonschema:"return a screenshot of the viewport after the last step"`
}

// ScriptExecuteArgs is the input of browser_execute when script steps are
// allowed.
type ScriptExecuteArgs struct {
	// Steps run in order, in one page.
	Steps []ScriptStep `json:"steps" jsonschema:"the steps to run in order in one page; the first is usually navigate" tool:"minItems=1,maxItems=50"`
	// Screenshot adds a screenshot of the viewport after the last step.
	Screenshot bool `json:"screenshot,omitempty" jsonschema:"return a screenshot of the viewport after the last step"`
}

// Validate checks that each step has what its action needs.
func (a *ExecuteArgs) Validate() error {
	steps := make([]ScriptStep, len(a.Steps))
	for i, s := range a.Steps {
		steps[i] = ScriptStep{Action: s.Action, StepFields: s.StepFields}
	}
	return checkSteps(steps)
}

// Validate checks that each step has what its action needs.
func (a *ScriptExecuteArgs) Validate() error { return checkSteps(a.Steps) }

// checkSteps reports each step that lacks what its action needs.
func checkSteps(steps []ScriptStep) error {
	var issues []schema.Issue
	for i, s := range steps {
		at := "/steps/" + strconv.Itoa(i)
		need := func(field, value, what string) {
			if value == "" {
				issues = append(issues, schema.Issue{Path: at + "/" + field, Keyword: "validate", Message: "a " + s.Action + " step needs " + what})
			}
		}
		switch s.Action {
		case ActionNavigate:
			need("url", s.URL, "the url to load")
			if s.URL != "" {
				if err := checkURL(at+"/url", s.URL); err != nil {
					issues = append(issues, err.(*schema.Error).Issues...)
				}
			}
		case ActionClick, ActionWaitFor, ActionExtract:
			need("selector", s.Selector, "the CSS selector of an element")
		case ActionType:
			need("selector", s.Selector, "the CSS selector of the field to type into")
		case ActionSelect:
			need("selector", s.Selector, "the CSS selector of the select element")
			need("text", s.Text, "the value of the option to choose, in text")
		case ActionScript:
			need("script", s.Script, "the JavaScript to run")
		}
	}
	if len(issues) > 0 {
		return &schema.Error{Issues: issues}
	}
	return nil
}

// An Extracted is what one extract or script step read.
type Extracted struct {
	// Step is the step's index, from 0.
	Step int `json:"step"`
	// Selector is the step's selector (extract).
	Selector string `json:"selector,omitempty"`
	// Values are the text or attribute of each match, in document order
	// (extract).
	Values []string `json:"values,omitempty"`
	// Value is the script's value, as JSON (script).
	Value json.RawMessage `json:"value,omitempty"`
}

// An ExecuteResult is the text part of browser_execute's result.
type ExecuteResult struct {
	URL       string      `json:"url"`
	Title     string      `json:"title"`
	Extracted []Extracted `json:"extracted"`
	Notes     []string    `json:"notes,omitempty"`
}

// Execute returns the browser_execute tool: it runs a list of steps in one
// page — navigate, click, type, select, waitFor, waitIdle, scroll,
// extract — and returns what the extract steps read, as JSON, with a
// screenshot of the viewport after the last step if asked. A step that
// fails ends the call with an error naming the step.
//
// With Options.Script, a step may also be script, JavaScript the model
// writes, run in the page; the tool is then annotated as destructive,
// since a script can do anything the page can. Without it, the action is
// not offered, and the input schema has no script field.
func (b *Browser) Execute() tool.Interface {
	const name, title = "browser_execute", "Run steps in a web page"
	desc := "Run a list of steps in one browser page: navigate to a URL, click, type into a field, select an option, wait for an element (waitFor) or for the network to be idle (waitIdle), scroll, and extract the text or an attribute of the elements a CSS selector matches. " +
		"Returns what the extract steps read as JSON, and a screenshot after the last step if asked."
	opts := []tool.Option{tool.WithTimeout(b.opts.Timeout), tool.WithTitle(title)}
	if b.opts.Script {
		desc += " A script step evaluates a JavaScript expression in the page and returns its value."
		return tool.New(name, desc,
			func(ctx context.Context, a ScriptExecuteArgs) ([]tool.Part, error) {
				return b.execute(ctx, a.Steps, a.Screenshot)
			},
			append(opts, tool.WithAnnotations(tool.Annotations{Destructive: true, OpenWorld: true}))...)
	}
	return tool.New(name, desc,
		func(ctx context.Context, a ExecuteArgs) ([]tool.Part, error) {
			steps := make([]ScriptStep, len(a.Steps))
			for i, s := range a.Steps {
				steps[i] = ScriptStep{Action: s.Action, StepFields: s.StepFields}
			}
			return b.execute(ctx, steps, a.Screenshot)
		},
		// Clicks and typing may submit forms: the tool is not read-only,
		// but it runs no code of the model's.
		append(opts, tool.WithAnnotations(tool.Annotations{OpenWorld: true}))...)
}

// execute runs the steps in one page.
func (b *Browser) execute(ctx context.Context, steps []ScriptStep, screenshot bool) ([]tool.Part, error) {
	var parts []tool.Part
	err := b.withTab(ctx, func(t *tab) error {
		res := ExecuteResult{Extracted: []Extracted{}}
		for i, s := range steps {
			tool.Progress(t.ctx, fmt.Sprintf("step %d: %s", i, s.Action))
			ex, err := b.step(t, s)
			if err != nil {
				return &opError{op: fmt.Sprintf("step %d (%s)", i, s.Action), err: err}
			}
			if ex != nil {
				ex.Step = i
				res.Extracted = append(res.Extracted, *ex)
			}
		}
		info, err := chromedp.Run(t.ctx, chromedp.Evaluate[[2]string](`[location.href, document.title]`))
		if err != nil {
			return t.fail("read the page", err)
		}
		res.URL, res.Title = info[0], info[1]
		var img []byte
		var mime string
		if screenshot {
			if img, mime, err = b.capture(t, false); err != nil {
				return err
			}
		}
		res.Notes = t.takeNotes()
		text, _ := json.Marshal(res)
		parts = []tool.Part{tool.Text(truncate(string(text), b.opts.MaxOutputBytes))}
		if img != nil {
			parts = append(parts, tool.Image(mime, img))
		}
		return nil
	})
	return parts, err
}

// step runs one step, and returns what it read, if anything.
func (b *Browser) step(t *tab, s ScriptStep) (*Extracted, error) {
	sel := chromedp.CSS(s.Selector)
	q := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	switch s.Action {
	case ActionNavigate:
		return nil, b.load(t, s.URL, "")
	case ActionClick:
		return nil, t.onElement(s.Selector, chromedp.Click(sel))
	case ActionType:
		return nil, t.onElement(s.Selector, chromedp.SendKeys(sel, s.Text))
	case ActionWaitFor:
		return nil, t.fail("", chromedp.Do(t.ctx, chromedp.WaitReady(sel)))
	case ActionSelect:
		ok, err := chromedp.Run(t.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
			const e = document.querySelector(%s);
			if (!e) return false;
			e.value = %s;
			e.dispatchEvent(new Event("input", {bubbles: true}));
			e.dispatchEvent(new Event("change", {bubbles: true}));
			return true;
		})()`, q(s.Selector), q(s.Text))))
		if err != nil {
			return nil, t.fail("", err)
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrElementNotFound, s.Selector)
		}
		return nil, nil
	case ActionWaitIdle:
		for !t.idleFor(500 * time.Millisecond) {
			select {
			case <-t.ctx.Done():
				return nil, t.fail("", t.ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
		return nil, nil
	case ActionScroll:
		if s.Selector != "" {
			return nil, t.onElement(s.Selector, chromedp.ScrollIntoView(sel))
		}
		_, err := chromedp.Run(t.ctx, chromedp.Evaluate[bool](`(window.scrollTo(0, document.documentElement.scrollHeight), true)`))
		return nil, t.fail("", err)
	case ActionExtract:
		values, err := chromedp.Run(t.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll(%s)).slice(0, %d).map(e => %s)`,
			q(s.Selector), maxMatches, extractor(s.Attribute, q))))
		if err != nil {
			return nil, t.fail("", err)
		}
		return &Extracted{Selector: s.Selector, Values: values}, nil
	case ActionScript:
		if !b.opts.Script {
			return nil, fmt.Errorf("%w: script steps are off (the operator can allow them with %s)", ErrScript, b.opts.ScriptSetting)
		}
		v, err := chromedp.Run(t.ctx, chromedp.Evaluate[json.RawMessage](s.Script, chromedp.EvalAwaitPromise))
		if err != nil {
			if t.ctx.Err() != nil {
				return nil, t.fail("", err)
			}
			return nil, fmt.Errorf("%w: %v", ErrScript, err)
		}
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		return &Extracted{Value: v}, nil
	}
	return nil, fmt.Errorf("unknown action %q", s.Action)
}

// elementWait is how long a click, type or scroll step waits for its
// element to appear; waitFor waits as long as the call may.
const elementWait = 10 * time.Second

// onElement runs an action on the element selector matches, waiting
// elementWait at most for it to appear.
func (t *tab) onElement(selector string, a chromedp.Action[chromedp.Void]) error {
	wait := elementWait
	if dl, ok := t.ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	err := chromedp.Do(ctx, a)
	if err != nil && t.ctx.Err() == nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %s (waited %s; add a waitFor step for an element that appears later)", ErrElementNotFound, selector, wait.Round(time.Second))
	}
	return t.fail("", err)
}

// extractor is the JavaScript that reads an element e: its visible text,
// or the attribute attr.
func extractor(attr string, q func(any) string) string {
	if attr == "" {
		return `(e.innerText ?? e.textContent ?? "").trim()`
	}
	return `e.getAttribute(` + q(attr) + `) ?? ""`
}
