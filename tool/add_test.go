package tool_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
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
