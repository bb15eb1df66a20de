package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/jsondepth"
)

// A Tool is what a client is shown of one tool, in the shape of an entry of
// MCP's tools/list result, so that a saved tools/list is a Snapshot.
type Tool struct {
	Name         string             `json:"name"`
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description,omitempty"`
	InputSchema  *jsonschema.Schema `json:"inputSchema"`
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
	Annotations  *Annotations       `json:"annotations,omitempty"`
	// Meta is what the check reads of the tool's _meta: its version and
	// the versions its migrations upgrade from. Other keys are not kept.
	Meta *Meta `json:"_meta,omitempty"`
}

// Meta holds a tool's versions, under the keys of _meta that hands'
// server writes (mcpserver.VersionMeta and mcpserver.MigratesFromMeta),
// which a snapshot written by tooltest or hands snapshot keeps.
type Meta struct {
	// Version is the tool's version (tool.WithVersion); "" when it
	// declares none.
	Version string `json:"com.github.hands-go/version,omitempty"`
	// MigratesFrom are the earlier versions whose calls the tool still
	// accepts, upgraded by its migrations (tool.Migrate).
	MigratesFrom []string `json:"com.github.hands-go/migratesFrom,omitempty"`
}

// Limits on the versions read from a tool's _meta; a value beyond them,
// or of another JSON type, is not read, as a server's _meta is its own
// business and must not make its list unreadable.
const (
	MaxVersionBytes = 128
	MaxMigratesFrom = 64
)

// UnmarshalJSON reads the version keys of a _meta object and ignores the
// rest, and any value of them that is not a version.
func (m *Meta) UnmarshalJSON(data []byte) error {
	var raw struct {
		Version      json.RawMessage `json:"com.github.hands-go/version"`
		MigratesFrom json.RawMessage `json:"com.github.hands-go/migratesFrom"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = Meta{}
	var v string
	if json.Unmarshal(raw.Version, &v) == nil && isVersion(v) {
		m.Version = v
	}
	var from []string
	if json.Unmarshal(raw.MigratesFrom, &from) == nil && len(from) <= MaxMigratesFrom && !slices.ContainsFunc(from, func(v string) bool { return !isVersion(v) }) {
		m.MigratesFrom = from
	}
	return nil
}

func isVersion(v string) bool {
	return v != "" && len(v) <= MaxVersionBytes && strings.TrimSpace(v) == v
}

// version returns the tool's version, "" when it declares none.
func (t *Tool) version() string {
	if t.Meta == nil {
		return ""
	}
	return t.Meta.Version
}

// migratesFrom reports whether the tool declares a migration from version.
func (t *Tool) migratesFrom(version string) bool {
	return t.Meta != nil && version != "" && slices.Contains(t.Meta.MigratesFrom, version)
}

// Annotations are MCP's hints about a tool's behaviour. A hint left out
// takes MCP's default: not read-only, destructive, not idempotent, open
// world.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// A Snapshot is a list of tools as a file holds it: the result of MCP's
// tools/list, {"tools": [...]}.
type Snapshot struct {
	Tools []Tool `json:"tools"`
}

// Marshal returns the snapshot as indented JSON with its tools sorted by
// name and the properties of each schema sorted, so that two snapshots of
// the same tools are the same bytes.
func (s *Snapshot) Marshal() ([]byte, error) {
	sorted := Snapshot{Tools: slices.Clone(s.Tools)}
	if sorted.Tools == nil {
		sorted.Tools = []Tool{}
	}
	for i := range sorted.Tools {
		t := &sorted.Tools[i]
		t.InputSchema, t.OutputSchema = canonical(t.InputSchema), canonical(t.OutputSchema)
	}
	slices.SortStableFunc(sorted.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	data, err := json.MarshalIndent(sorted, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("compat: marshal snapshot: %w", err)
	}
	return append(data, '\n'), nil
}

// Limits on what ParseSnapshot reads; real tool lists are far below
// either. Reading costs in proportion to the size; the depth bounds the
// recursion of reading and comparing.
const (
	MaxSnapshotBytes = 16 << 20
	MaxSnapshotDepth = 200 // nested JSON objects and arrays
)

// ErrSnapshotTooLarge is wrapped by the error of ParseSnapshot for a
// document beyond MaxSnapshotBytes or MaxSnapshotDepth.
var ErrSnapshotTooLarge = errors.New("compat: snapshot too large")

// canonical returns a copy of s whose properties are written in sorted
// order, as a schema read back from JSON writes them, so that a snapshot
// has the same bytes whether its tools came from Go types or from a
// server.
func canonical(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	s = s.CloneSchemas()
	walk(s, 0, func(n *jsonschema.Schema) { n.PropertyOrder = nil })
	return s
}

// ParseSnapshot reads a snapshot: a tools/list result ({"tools": [...]}) or
// a bare array of tools. Two tools of the same name are an error, and so
// is a name given twice in one object of a schema. It reads the schemas
// as jsonschema-go's decoder does, but in one pass, so that its time and
// memory grow with the size of data alone, and reads a keyword holding
// subschemas written in another case ("Properties") as an unknown
// keyword, as validators do.
func ParseSnapshot(data []byte) (*Snapshot, error) {
	if len(data) > MaxSnapshotBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrSnapshotTooLarge, len(data), MaxSnapshotBytes)
	}
	if d := jsondepth.Deepest(data, MaxSnapshotDepth); d > MaxSnapshotDepth {
		return nil, fmt.Errorf("%w: nested more than %d deep", ErrSnapshotTooLarge, MaxSnapshotDepth)
	}
	// The schemas are read apart, by decodeSchema, in time linear in their
	// size; the rest of a tool as the Tool type reads it.
	type rawTool struct {
		Tool
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	var raw struct {
		Tools []rawTool `json:"tools"`
	}
	trimmed := bytes.TrimSpace(data)
	var err error
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &raw.Tools)
	} else {
		err = json.Unmarshal(trimmed, &raw)
	}
	if err != nil {
		return nil, fmt.Errorf("compat: read snapshot: %w", err)
	}
	s := Snapshot{Tools: make([]Tool, len(raw.Tools))}
	if raw.Tools == nil {
		s.Tools = nil
	}
	for i, rt := range raw.Tools {
		t := rt.Tool
		for _, f := range []struct {
			dst  **jsonschema.Schema
			data json.RawMessage
			name string
		}{{&t.InputSchema, rt.InputSchema, "inputSchema"}, {&t.OutputSchema, rt.OutputSchema, "outputSchema"}} {
			if f.data == nil {
				continue
			}
			if *f.dst, err = decodeSchema(f.data); err != nil {
				return nil, fmt.Errorf("compat: read snapshot: tool %q: %s: %w", t.Name, f.name, err)
			}
		}
		s.Tools[i] = t
	}
	seen := map[string]bool{}
	for i := range s.Tools {
		if m := s.Tools[i].Meta; m != nil && m.Version == "" && len(m.MigratesFrom) == 0 {
			s.Tools[i].Meta = nil // a _meta with nothing of the versions
		}
	}
	for _, t := range s.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("compat: read snapshot: a tool has no name")
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("compat: read snapshot: tool %q is listed twice", t.Name)
		}
		seen[t.Name] = true
	}
	return &s, nil
}

// Tools compares two lists of tools by name: each tool's input schema
// backward (Input), its output schema forward (Output), and the tool-level
// changes: a tool removed (breaking; a rename is a removal and an
// addition), added, its annotations made less safe (breaking), its output
// schema removed (breaking) or added, its description changed. Pointers
// are into the tool ("/inputSchema/properties/city"). The budget of opts
// applies to each schema compared.
//
// The versions of a tool (Meta) follow one rule. A tool that declared a
// version and changes in a way that breaks its callers must raise it:
// if the version stays the same, or is removed, that is one more breaking
// change (KindVersion), saying so. A raised version whose new tool
// declares a migration from the old one (Meta.MigratesFrom) covers the
// breaks to the input: they are reported as Migrated, which does not
// count as breaking, because a call made against the old version is
// upgraded and runs. Nothing covers a break to the output or the
// annotations, which a migration of calls does not change. A version the
// old tool migrated from and the new one does not (nor is) is one more
// breaking change: its callers' calls were migrated and now fail. A tool
// that never declared a version is held to the schemas alone. Any other
// change of version is a compatible change.
func Tools(old, new []Tool, opts *Options) []Change {
	byName := func(list []Tool) map[string]*Tool {
		m := make(map[string]*Tool, len(list))
		for i := range list {
			m[list[i].Name] = &list[i]
		}
		return m
	}
	olds, news := byName(old), byName(new)
	// The tools added, to name a likely rename: one whose input schema is
	// the same document.
	var added []*Tool
	for i := range new {
		if _, existed := olds[new[i].Name]; !existed {
			added = append(added, &new[i])
		}
	}
	renameSteps := 0
	var changes []Change
	for _, o := range old {
		n, ok := news[o.Name]
		if !ok {
			msg := "tool removed"
			if name := renamedTo(&o, added, &renameSteps, opts); name != "" {
				msg = fmt.Sprintf("tool removed (renamed to %q? callers still use the old name)", name)
			}
			effect := Breaking
			if opts.mode() == Forward {
				effect = Compatible // the callers of the new version do not know it
			}
			changes = append(changes, Change{Tool: o.Name, Kind: KindTool, Effect: effect, Message: msg})
			continue
		}
		changes = append(changes, compareTool(&o, n, opts)...)
	}
	for _, n := range new {
		if _, ok := olds[n.Name]; !ok {
			if opts.mode() == Backward {
				changes = append(changes, Change{Tool: n.Name, Kind: KindTool, Effect: Compatible, Message: "tool added"})
			} else {
				changes = append(changes, Change{Tool: n.Name, Kind: KindTool, Effect: Breaking, Message: "tool added" + forwardNote})
			}
		}
	}
	return sortChanges(changes)
}

// renamedTo returns the name of the first of added whose input schema is
// the same document as o's, or "". All the calls of one Tools share one
// budget of steps, *spent, as large as one comparison's, so that naming
// renames costs at most that much however many tools are removed and
// added.
func renamedTo(o *Tool, added []*Tool, spent *int, opts *Options) string {
	limit := DefaultMaxSteps
	if opts != nil && opts.MaxSteps > 0 {
		limit = opts.MaxSteps
	}
	spend := func(n int) bool { *spent += n; return *spent <= limit }
	for _, n := range added {
		if !spend(1) {
			return ""
		}
		if newChecker(o.InputSchema, n.InputSchema, false, opts).identicalWithin(o.InputSchema, n.InputSchema, spend) {
			return n.Name
		}
	}
	return ""
}

func compareTool(o, n *Tool, opts *Options) []Change {
	back, fwd := &Options{}, &Options{}
	if opts != nil {
		*back, *fwd = *opts, *opts
	}
	back.Mode, fwd.Mode = Backward, Forward
	switch opts.mode() {
	case Forward:
		return toolChanges(o, n, fwd, true)
	case Full:
		return merge(versionChanges(o, n, toolChanges(o, n, back, false)), toolChanges(o, n, fwd, true))
	}
	return versionChanges(o, n, toolChanges(o, n, back, false))
}

// toolChanges compares one tool's two versions in one direction: for the
// callers of the old version, or with forward for those of the new one
// reaching the old (opts.Mode says the same to the schemas).
func toolChanges(o, n *Tool, opts *Options, forward bool) []Change {
	var changes []Change
	add := func(list []Change, prefix string) {
		for _, c := range list {
			c.Tool, c.Pointer = n.Name, prefix+c.Pointer
			changes = append(changes, c)
		}
	}
	add(Input(o.InputSchema, n.InputSchema, opts), "/inputSchema")
	switch {
	case o.OutputSchema != nil && n.OutputSchema == nil && !forward:
		changes = append(changes, Change{Tool: n.Name, Pointer: "/outputSchema", Kind: KindOutputSchema, Effect: Breaking,
			Message: "output schema removed: callers that read structured results get none"})
	case o.OutputSchema == nil && n.OutputSchema != nil && forward:
		changes = append(changes, Change{Tool: n.Name, Pointer: "/outputSchema", Kind: KindOutputSchema, Effect: Breaking,
			Message: "output schema added: the old version returns no structured result" + forwardNote})
	case o.OutputSchema == nil && n.OutputSchema != nil:
		changes = append(changes, Change{Tool: n.Name, Pointer: "/outputSchema", Kind: KindOutputSchema, Effect: Compatible,
			Message: "output schema added"})
	case o.OutputSchema != nil && n.OutputSchema != nil:
		add(Output(o.OutputSchema, n.OutputSchema, opts), "/outputSchema")
	}
	oh, nh := hintsOf(o.Annotations), hintsOf(n.Annotations)
	for _, h := range []struct {
		name       string
		old, new   bool
		safeWhenOn bool
	}{
		{"readOnlyHint", oh.readOnly, nh.readOnly, true},
		{"destructiveHint", oh.destructive, nh.destructive, false},
		{"idempotentHint", oh.idempotent, nh.idempotent, true},
		{"openWorldHint", oh.openWorld, nh.openWorld, false},
	} {
		if h.old == h.new {
			continue
		}
		effect, note := Compatible, ""
		switch {
		case !forward && h.new != h.safeWhenOn: // the hint moved away from its safe value
			effect = Breaking
		case forward && h.new == h.safeWhenOn: // the old version is less safe than the new one says
			effect, note = Breaking, forwardNote
		}
		changes = append(changes, Change{Tool: n.Name, Pointer: "/annotations/" + h.name, Kind: KindAnnotations, Effect: effect,
			Message: fmt.Sprintf("%s %t → %t%s", h.name, h.old, h.new, note)})
	}
	if o.Description != n.Description {
		changes = append(changes, Change{Tool: n.Name, Pointer: "/description", Kind: KindDescription, Effect: Compatible, Message: "description changed"})
	}
	if o.Title != n.Title {
		changes = append(changes, Change{Tool: n.Name, Pointer: "/title", Kind: KindDescription, Effect: Compatible,
			Message: fmt.Sprintf("title %q → %q", o.Title, n.Title)})
	}
	return changes
}

// versionPointer and migratesFromPointer are where a tool's version and
// the versions it migrates from are, in its description.
const (
	versionPointer      = "/_meta/com.github.hands-go~1version"
	migratesFromPointer = "/_meta/com.github.hands-go~1migratesFrom"
)

// versionChanges applies the rule on versions to the changes of one tool
// (see Tools): it marks the breaks to the input that a migration from the
// old version covers, and reports a change of version, or a break that
// kept it.
func versionChanges(o, n *Tool, changes []Change) []Change {
	ov, nv := o.version(), n.version()
	bumped := nv != "" && nv != ov
	if ov != "" && bumped && n.migratesFrom(ov) {
		for i, c := range changes {
			if c.Breaks() && (c.Pointer == "/inputSchema" || strings.HasPrefix(c.Pointer, "/inputSchema/")) {
				changes[i].Effect = Migrated
				changes[i].Message += fmt.Sprintf(" (calls made against version %q are migrated)", ov)
			}
		}
	}
	// A migration the old tool declared is a promise to the callers of
	// that version; dropping it breaks them, even when this step's own
	// changes are covered, so that compatibility stays transitive across
	// several deploys.
	if o.Meta != nil {
		for _, v := range o.Meta.MigratesFrom {
			if !n.migratesFrom(v) && v != nv {
				changes = append(changes, Change{Tool: n.Name, Pointer: migratesFromPointer, Kind: KindVersion, Effect: Breaking,
					Message: fmt.Sprintf("the migration from version %q was removed: calls made against it, which were migrated, now fail", v)})
			}
		}
	}
	breaks := Breaks(changes)
	switch {
	case ov != "" && !bumped && breaks && nv == "":
		changes = append(changes, Change{Tool: n.Name, Pointer: versionPointer, Kind: KindVersion, Effect: Breaking,
			Message: fmt.Sprintf("version %q removed by a breaking change, instead of raised", ov)})
	case ov != "" && !bumped && breaks:
		changes = append(changes, Change{Tool: n.Name, Pointer: versionPointer, Kind: KindVersion, Effect: Breaking,
			Message: fmt.Sprintf("breaking change without a version bump: the version stays %q", ov)})
	case ov != nv:
		changes = append(changes, Change{Tool: n.Name, Pointer: versionPointer, Kind: KindVersion, Effect: Compatible,
			Message: fmt.Sprintf("version %q → %q", ov, nv)})
	}
	return changes
}

// hints are a tool's behaviour hints with MCP's defaults applied: a
// read-only tool is neither destructive nor anything but idempotent.
type hints struct{ readOnly, destructive, idempotent, openWorld bool }

func hintsOf(a *Annotations) hints {
	if a == nil {
		return hints{destructive: true, openWorld: true}
	}
	h := hints{readOnly: a.ReadOnlyHint, destructive: a.DestructiveHint == nil || *a.DestructiveHint,
		idempotent: a.IdempotentHint, openWorld: a.OpenWorldHint == nil || *a.OpenWorldHint}
	if h.readOnly {
		h.destructive, h.idempotent = false, true
	}
	return h
}
