package tool_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/tool"
)

func TestAdd(t *testing.T) {
	var rec recorder
	reg, err := tool.NewRegistry(&tool.Scope{Name: "local", Tools: []tool.Interface{rec.tool("get_user")}})
	if err != nil {
		t.Fatal(err)
	}
	err = reg.Add(&tool.Scope{Name: "remote", Tools: []tool.Interface{
		rec.tool("list_notes"), rec.tool("Get-User"), badName{}, rec.tool("add_note"),
	}})
	if got := nameErrors(err); !slices.Equal(got, []string{"Get-User collides with get_user: local, remote", "bad name invalid: remote"}) {
		t.Errorf("Add = %v; want the collision and the invalid name reported, in order", got)
	}
	if got, want := reg.EnabledNames(t.Context()), []string{"get_user"}; !slices.Equal(got, want) {
		t.Errorf("EnabledNames after a failed Add = %v, want %v: it adds nothing", got, want)
	}
	if got := len(reg.Scopes()); got != 1 {
		t.Errorf("Scopes after a failed Add has %d scopes, want 1", got)
	}
	err = reg.Add(&tool.Scope{Name: "remote", Instructions: "Remote tools.", Tools: []tool.Interface{rec.tool("list_notes"), rec.tool("add_note")}})
	if err != nil {
		t.Fatalf("Add = %v", err)
	}
	if got, want := reg.EnabledNames(t.Context()), []string{"get_user", "list_notes", "add_note"}; !slices.Equal(got, want) {
		t.Errorf("EnabledNames after Add = %v, want %v", got, want)
	}
	if got := len(reg.Tools()); got != 3 {
		t.Errorf("Tools after Add has %d tools, want 3", got)
	}
	if got := len(reg.Scopes()); got != 2 {
		t.Errorf("Scopes after Add has %d scopes, want 2", got)
	}
	if got := reg.Instructions(t.Context()); len(got) != 1 || got[0].Scope != "remote" {
		t.Errorf("Instructions after Add = %v", got)
	}
	if res := tool.Run(t.Context(), reg, call("1", "add_note", `{"title":"x"}`)); res.IsError || res.Content != "add_note x" {
		t.Errorf("a call of an added tool = %+v", res)
	}

	var zero tool.Registry
	if err := zero.Add(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("a")}}); err != nil {
		t.Fatalf("Add on a zero Registry = %v", err)
	}
	if res := tool.Run(t.Context(), &zero, call("1", "a", `{"title":"y"}`)); res.IsError {
		t.Errorf("a call of a tool added to a zero Registry = %+v", res)
	}
}

// nameErrors describes each *NameError joined in err.
func nameErrors(err error) []string {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []string
	for _, e := range errs {
		ne, ok := errors.AsType[*tool.NameError](e)
		switch {
		case !ok:
			out = append(out, "not a *NameError: "+e.Error())
		case errors.Is(ne, tool.ErrDuplicateName):
			out = append(out, fmt.Sprintf("%s collides with %s: %s, %s", ne.Name, ne.Other, ne.Scopes[0], ne.Scopes[1]))
		default:
			out = append(out, fmt.Sprintf("%s invalid: %s", ne.Name, ne.Scopes[0]))
		}
	}
	return out
}

// TestAddWhileCalling adds tools while others are listed and called; run
// with -race.
func TestAddWhileCalling(t *testing.T) {
	var rec recorder
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("a")}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if res := tool.Run(t.Context(), reg, call("1", "a", `{"title":"x"}`)); res.IsError {
					t.Errorf("a call during Add = %+v", res)
					return
				}
				if specs := reg.Specs(t.Context()); specs[0].Name != "a" {
					t.Errorf("Specs during Add begins with %q", specs[0].Name)
					return
				}
			}
		})
	}
	for i := range 20 {
		wg.Go(func() {
			if err := reg.Add(&tool.Scope{Name: "more", Tools: []tool.Interface{rec.tool(fmt.Sprintf("t%d", i))}}); err != nil {
				t.Errorf("Add = %v", err)
			}
		})
	}
	wg.Wait()
	if got := len(reg.Specs(t.Context())); got != 21 {
		t.Errorf("Specs after the Adds has %d tools, want 21", got)
	}
}

// TestAddCostsWhatItAdds adds one tool at a time to registries of 100 and
// of 10,000 tools: an Add allocates about as much in the large one as in
// the small one, since it does not copy what the registry holds.
func TestAddCostsWhatItAdds(t *testing.T) {
	perAdd := func(held int) float64 {
		tools := make([]tool.Interface, held)
		for i := range tools {
			tools[i] = tool.New(fmt.Sprintf("held_%d", i), "Held.", func(context.Context, struct{}) (string, error) { return "", nil })
		}
		reg, err := tool.NewRegistry(&tool.Scope{Name: "held", Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		const adds = 500
		added := make([]*tool.Scope, adds)
		for i := range added {
			added[i] = &tool.Scope{Name: "added", Tools: []tool.Interface{tool.New(fmt.Sprintf("added_%d", i), "Added.", func(context.Context, struct{}) (string, error) { return "", nil })}}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, s := range added {
			if err := reg.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if _, ok := reg.Lookup("added_499"); !ok {
			t.Fatal("Lookup(added_499) found nothing")
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / adds
	}
	small, large := perAdd(100), perAdd(10_000)
	if large > 4*small {
		t.Errorf("an Add allocates %.0f bytes in a registry of 10,000 tools and %.0f in one of 100; want about the same", large, small)
	}
}

// counted is a tool that counts how often its spec is built.
type counted struct {
	tool.Interface
	specs atomic.Int64
}

func (c *counted) Spec() tool.Spec { c.specs.Add(1); return c.Interface.Spec() }

// versioned is a counted tool that says its spec never changes.
type versioned struct{ *counted }

func (versioned) SpecVersion() uint64 { return 0 }

// TestSpecsCachedPerVersion checks that Specs builds the spec of a tool
// whose spec never changes once for each version of the registry, and
// asks a tool that cannot say every time.
func TestSpecsCachedPerVersion(t *testing.T) {
	newTool := func(name string) tool.Interface {
		return tool.New(name, "A tool.", func(context.Context, struct{}) (string, error) { return "", nil })
	}
	fixed := versioned{&counted{Interface: newTool("fixed")}}
	open := &counted{Interface: newTool("open")}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{fixed, open}})
	if err != nil {
		t.Fatal(err)
	}
	// NewRegistry reads the spec of a tool of the caller's own once, to
	// check its name; what Specs builds comes on top.
	fixed0, open0 := fixed.specs.Load(), open.specs.Load()
	for range 3 {
		if specs := reg.Specs(t.Context()); len(specs) != 2 || specs[0].Name != "fixed" || specs[1].Name != "open" {
			t.Fatalf("Specs = %+v", specs)
		}
	}
	if got := fixed.specs.Load() - fixed0; got != 1 {
		t.Errorf("the fixed tool's spec was built %d times for 3 Specs, want 1", got)
	}
	if got := open.specs.Load() - open0; got != 3 {
		t.Errorf("the open tool's spec was built %d times for 3 Specs, want 3", got)
	}
	if err := reg.Add(&tool.Scope{Name: "more", Tools: []tool.Interface{newTool("more")}}); err != nil {
		t.Fatal(err)
	}
	if specs := reg.Specs(t.Context()); len(specs) != 3 {
		t.Fatalf("Specs after Add = %d specs, want 3", len(specs))
	}
	if got := fixed.specs.Load() - fixed0; got != 2 {
		t.Errorf("the fixed tool's spec was built %d times after an Add, want 2 (once per version)", got)
	}
}

// TestRemove checks that Remove takes tools out by identity, frees their
// names for Add, drops a scope left without tools and leaves the rest.
func TestRemove(t *testing.T) {
	var rec recorder
	keep, old, other := rec.tool("keep"), rec.tool("old"), rec.tool("old")
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "local", Tools: []tool.Interface{keep}},
		&tool.Scope{Name: "remote", Tools: []tool.Interface{old}},
		&tool.Scope{Name: "notes", Instructions: "Take notes."},
	)
	if err != nil {
		t.Fatal(err)
	}
	if n := reg.Remove(other); n != 0 {
		t.Errorf("Remove of a tool the registry does not hold, by the name of one it does = %d, want 0", n)
	}
	if n := reg.Remove(old, old); n != 1 {
		t.Errorf("Remove(old) = %d, want 1", n)
	}
	if got, want := reg.EnabledNames(t.Context()), []string{"keep"}; !slices.Equal(got, want) {
		t.Errorf("EnabledNames after Remove = %v, want %v", got, want)
	}
	if got := len(reg.Scopes()); got != 2 {
		t.Errorf("Scopes after Remove has %d scopes, want 2: the emptied one is dropped, one of instructions stays", got)
	}
	if res := tool.Run(t.Context(), reg, call("1", "old", `{"title":"x"}`)); !errors.Is(res.Err, tool.ErrUnknownTool) {
		t.Errorf("a call of a removed tool = %+v, want ErrUnknownTool", res)
	}
	if err := reg.Add(&tool.Scope{Name: "remote", Tools: []tool.Interface{other}}); err != nil {
		t.Errorf("Add of a tool by a removed tool's name = %v", err)
	}
	if res := tool.Run(t.Context(), reg, call("2", "keep", `{"title":"y"}`)); res.IsError {
		t.Errorf("a call of a kept tool = %+v", res)
	}
}
