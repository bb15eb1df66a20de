package tool

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Deprecation marks a tool as on its way out (WithDeprecated).
type Deprecation struct {
	// Message says what to use instead. The model reads it at the end of
	// the tool's description and in the result of every call.
	Message string `json:"message,omitempty"`
	// Sunset is when the tool stops being offered; zero means no date.
	// From then on the tool is disabled: a Registry does not list it, and
	// a call gets a *DisabledToolError result, as for a tool whose
	// WithEnabled predicate says false. The server keeps running: a date
	// passing never stops a deploy.
	Sunset time.Time `json:"sunset,omitzero"`
}

// WithDeprecated marks the tool deprecated. Its spec carries the
// Deprecation and says it at the end of the description; each call's
// result says it to the model in a note and lists it in
// Result.Deprecated; the first call of the tool is logged, at warning
// level, with slog's default logger. A field of the input is deprecated
// with its tag instead (tool:"deprecated='use city'"), with the same
// effects for the calls that send it.
func WithDeprecated(d Deprecation) Option {
	return func(c *config) { c.deprecation = &d }
}

// describe returns the description the model is shown: the tool's own,
// then its deprecation.
func (c *core) describe() string {
	d := c.deprecation
	if d == nil {
		return c.description
	}
	return c.description + "\n\n" + d.text("This tool is deprecated")
}

// text says a deprecation in a sentence or two, after what.
func (d *Deprecation) text(what string) string {
	var b strings.Builder
	b.WriteString(what)
	if d.Message != "" {
		b.WriteString(": ")
		b.WriteString(strings.TrimSuffix(d.Message, "."))
	}
	b.WriteString(".")
	if !d.Sunset.IsZero() {
		b.WriteString(" It will be removed on ")
		b.WriteString(d.Sunset.UTC().Format(time.DateOnly))
		b.WriteString(".")
	}
	return b.String()
}

func (c *core) copyDeprecation() *Deprecation {
	if c.deprecation == nil {
		return nil
	}
	d := *c.deprecation
	return &d
}

// sunsetPassed reports whether the tool's sunset has come.
func (c *core) sunsetPassed() bool {
	return c.deprecation != nil && !c.deprecation.Sunset.IsZero() && !time.Now().Before(c.deprecation.Sunset)
}

// A deprecatedField is a property of the input schema marked deprecated.
type deprecatedField struct {
	path    []string // property names from the arguments' root
	message string   // what its description says after "Deprecated: ", if anything
}

// maxFieldDepth bounds how deep deprecatedFields looks, through $refs too.
const maxFieldDepth = 8

// deprecatedFields finds the deprecated properties of an input schema, in
// nested objects too, following local $refs to a bounded depth.
func deprecatedFields(root *jsonschema.Schema) []deprecatedField {
	var out []deprecatedField
	var visit func(s *jsonschema.Schema, path []string, depth int)
	visit = func(s *jsonschema.Schema, path []string, depth int) {
		if s == nil || depth > maxFieldDepth {
			return
		}
		if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
			visit(root.Defs[name], path, depth+1)
		} else if s.Ref == "#" {
			visit(root, path, depth+1)
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			at := append(slices.Clip(path), name)
			if p.Deprecated {
				_, msg, _ := strings.Cut(p.Description, "Deprecated: ")
				out = append(out, deprecatedField{path: at, message: msg})
			}
			visit(p, at, depth+1)
		}
	}
	visit(root, nil, 0)
	return out
}

// deprecationLog remembers what has been logged as used, once per process.
var deprecationLog sync.Map // "tool\x00pointer" → true

// noteDeprecated tells the model, in res, that the call used a deprecated
// tool or argument, lists each in res.Deprecated, and logs the first use
// of each.
func (c *core) noteDeprecated(ctx context.Context, args json.RawMessage, res *Result) {
	if c.deprecation == nil && len(c.fields) == 0 {
		return
	}
	var notes []string
	if c.deprecation != nil {
		res.Deprecated = append(res.Deprecated, "")
		notes = append(notes, c.deprecation.text("Note: the tool "+c.name+" is deprecated"))
	}
	for _, f := range c.fields {
		if !present(args, f.path) {
			continue
		}
		pointer := "/" + strings.Join(f.path, "/")
		res.Deprecated = append(res.Deprecated, pointer)
		d := Deprecation{Message: f.message}
		notes = append(notes, d.text("Note: the argument "+pointer+" is deprecated"))
	}
	if len(notes) == 0 {
		return
	}
	note := strings.Join(notes, "\n")
	if res.Content == "" {
		res.Content = note
	} else {
		res.Content += "\n\n" + note
	}
	if res.Parts != nil {
		res.Parts = append(slices.Clip(res.Parts), Text(note))
	}
	for _, p := range res.Deprecated {
		if _, logged := deprecationLog.LoadOrStore(c.name+"\x00"+p, true); !logged {
			what := "tool"
			if p != "" {
				what = "argument " + p
			}
			slog.Default().WarnContext(ctx, "tool: a deprecated "+what+" was used", "tool", c.name, "pointer", p)
		}
	}
}

// present reports whether the arguments hold a value at path.
func present(args json.RawMessage, path []string) bool {
	raw := args
	for _, name := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return false
		}
		v, ok := obj[name]
		if !ok {
			return false
		}
		raw = v
	}
	return true
}
