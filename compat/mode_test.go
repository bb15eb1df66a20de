package compat_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/compat"
)

// TestModes: Backward keeps the old version's callers working, Forward
// the new version's callers reaching an old replica (a rolling deploy),
// Full both.
func TestModes(t *testing.T) {
	const (
		days5 = `"inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":5}},"additionalProperties":false}`
		days7 = `"inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":7}},"additionalProperties":false}`
		out1  = `,"outputSchema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`
		out2  = `,"outputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`
	)
	tool := func(name string, parts ...string) string {
		return `{"name":"` + name + `",` + strings.Join(parts, "") + `}`
	}
	list := func(tools ...string) string { return "[" + strings.Join(tools, ",") + "]" }
	for _, tt := range []struct {
		name                    string
		old, new                string
		backward, forward, full bool // whether each mode breaks
	}{
		{"input widened", list(tool("t", days5)), list(tool("t", days7)), false, true, true},
		{"input narrowed", list(tool("t", days7)), list(tool("t", days5)), true, false, true},
		{"output gains a required field", list(tool("t", days5, out1)), list(tool("t", days5, out2)), false, true, true},
		{"output loses a required field", list(tool("t", days5, out2)), list(tool("t", days5, out1)), true, false, true},
		{"tool added", list(tool("t", days5)), list(tool("t", days5), tool("u", days5)), false, true, true},
		{"tool removed", list(tool("t", days5), tool("u", days5)), list(tool("t", days5)), true, false, true},
		{"made read-only", list(tool("t", days5)), list(tool("t", days5, `,"annotations":{"readOnlyHint":true}`)), false, true, true},
		{"unchanged", list(tool("t", days5, out1)), list(tool("t", days5, out1)), false, false, false},
	} {
		for _, m := range []struct {
			mode   compat.Mode
			breaks bool
		}{{compat.Backward, tt.backward}, {compat.Forward, tt.forward}, {compat.Full, tt.full}} {
			changes := compat.Tools(snapshot(t, tt.old), snapshot(t, tt.new), &compat.Options{Mode: m.mode})
			if got := compat.Breaks(changes); got != m.breaks {
				t.Errorf("%s, %v: breaks = %v, want %v; changes:\n%s", tt.name, m.mode, got, m.breaks, lines(changes))
			}
			if m.mode == compat.Forward && m.breaks && !slices.ContainsFunc(compat.BreakingChanges(changes), func(c compat.Change) bool { return strings.Contains(c.Message, "forward") }) {
				t.Errorf("%s: the forward break does not say it is forward:\n%s", tt.name, lines(changes))
			}
		}
	}
	for _, s := range []string{"backward", "forward", "full"} {
		if m, err := compat.ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := compat.ParseMode("transitive"); err == nil {
		t.Error("ParseMode of an unknown mode succeeded")
	}
}

// TestWaive: a waiver accepts the breaking changes it names, at its
// pointer or under it, and one that names none is returned as unused.
func TestWaive(t *testing.T) {
	waivers, err := compat.ParseWaivers([]byte(`# reviewed
forecast /inputSchema/properties/days   # no caller sends more than 5
legacy                                   # removed on purpose
weather /inputSchema/properties/city
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(waivers) != 3 || waivers[0].Reason != "no caller sends more than 5" || waivers[1].Pointer != "" {
		t.Fatalf("ParseWaivers = %+v", waivers)
	}
	changes := []compat.Change{
		{Tool: "forecast", Pointer: "/inputSchema/properties/days/maximum", Kind: "maximum", Effect: compat.Breaking},
		{Tool: "forecast", Pointer: "/inputSchema/properties/daysOff", Kind: "type", Effect: compat.Breaking},
		{Tool: "forecast", Pointer: "/inputSchema/properties/days/minimum", Kind: "minimum", Effect: compat.Compatible},
		{Tool: "legacy", Kind: compat.KindTool, Effect: compat.Breaking},
	}
	got, unused := compat.Waive(changes, waivers)
	want := []compat.Effect{compat.Accepted, compat.Breaking, compat.Compatible, compat.Accepted}
	for i, c := range got {
		if c.Effect != want[i] {
			t.Errorf("change %d (%s): %v, want %v", i, c.Pointer, c.Effect, want[i])
		}
	}
	if !compat.Breaks(got) || len(unused) != 1 || unused[0].Tool != "weather" {
		t.Errorf("Waive: breaks %v, unused %+v; want the daysOff change left and the weather waiver unused", compat.Breaks(got), unused)
	}
	if changes[0].Effect != compat.Breaking {
		t.Error("Waive changed its argument")
	}
	for _, bad := range []string{"forecast days", "forecast /a /b"} {
		if _, err := compat.ParseWaivers([]byte(bad)); err == nil {
			t.Errorf("ParseWaivers(%q) succeeded", bad)
		}
	}
}
