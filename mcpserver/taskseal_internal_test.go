package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// sealServer returns a server of one tool, note, that counts its runs, on
// a store in memory, and the store.
func sealServer(t testing.TB, runs *int) (*Server, taskstore.Store) {
	t.Helper()
	note := tool.New("note", "Take a note.", func(ctx context.Context, a struct {
		Text string `json:"text"`
	}) (string, error) {
		*runs++
		return "noted", nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "notes", Tools: []tool.Interface{note}})
	if err != nil {
		t.Fatal(err)
	}
	store := taskstore.NewMemory(nil)
	return New(reg, &Options{StateKey: make([]byte, StateKeyBytes), Tasks: TaskOptions{Store: store}}), store
}

// sealedCall returns a call of note by ada, sealed by s.
func sealedCall(t testing.TB, s *Server) TaskCall {
	t.Helper()
	call := TaskCall{
		ID: randomID(), Owner: "user ada", Tool: "note", Arguments: json.RawMessage(`{"text":"milk"}`),
		Token: &auth.TokenInfo{UserID: "ada", Scopes: []string{"notes"}, Expiration: time.Unix(1e9, 5), Extra: map[string]any{"n": 1.5}},
		TTL:   time.Minute, Lease: time.Minute,
	}
	if err := s.tasks.sealTaskCall(&call); err != nil {
		t.Fatal(err)
	}
	return call
}

// TestRunTaskChecksItsTask: a call sealed by a server of the key is still
// refused, with ErrTaskCallAltered, when the task of its ID in the store
// is another owner's or another tool's (two fleets that share a key, or a
// store, by mistake), and the tool does not run; it runs when they agree.
func TestRunTaskChecksItsTask(t *testing.T) {
	for _, tt := range []struct {
		name        string
		owner, tool string // of the task in the store
		ok          bool
	}{
		{"another owner", "user eve", "note", false},
		{"another tool", "user ada", "erase", false},
		{"its own", "user ada", "note", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			s, store := sealServer(t, &runs)
			call := sealedCall(t, s)
			if _, err := store.Create(context.Background(), taskstore.New{ID: call.ID, Owner: tt.owner, Tool: tt.tool, TTL: time.Minute, Lease: time.Minute}, taskstore.Limits{}); err != nil {
				t.Fatal(err)
			}
			err := s.RunTask(context.Background(), call)
			if tt.ok {
				if err != nil || runs != 1 {
					t.Fatalf("RunTask of the task's own call = %v, %d runs; want nil, 1", err, runs)
				}
				return
			}
			if !errors.Is(err, ErrTaskCallAltered) || runs != 0 {
				t.Errorf("RunTask of a call of %s's %s for %s's task of %s = %v, %d runs; want ErrTaskCallAltered, none",
					call.Owner, call.Tool, tt.owner, tt.tool, err, runs)
			}
			if task, err := store.Get(context.Background(), call.ID); err != nil || task.Status != taskstore.Working {
				t.Errorf("the task after: %+v, %v; want working", task, err)
			}
		})
	}
}

// FuzzTaskCallSeal: whatever the seal field and the arguments hold, opening
// never panics, and it passes only for the seal the server made, with
// arguments of the same meaning as those it sealed (decoded with
// encoding/json, numbers as written) — so random bytes never pass.
func FuzzTaskCallSeal(f *testing.F) {
	runs := 0
	s, _ := sealServer(f, &runs)
	genuine := sealedCall(f, s)
	f.Add(genuine.Seal, []byte(genuine.Arguments))
	f.Add(genuine.Seal, []byte(` { "text" : "mil\u006b" } `))
	f.Add(genuine.Seal, []byte(`{"text":"milk","text":"milk"}`))
	f.Add(genuine.Seal, []byte(`{"text":"milk"}x`))
	f.Add(genuine.Seal+"A", []byte(genuine.Arguments))
	f.Add("\n"+genuine.Seal, []byte(genuine.Arguments))
	f.Add(genuine.Seal[:len(genuine.Seal)-1]+"B", []byte(genuine.Arguments))
	f.Add(taskCallVersion, []byte(`{}`))
	f.Add("", []byte(nil))
	f.Add(s.tasks.sealHandle(genuine.ID, genuine.Owner), []byte(genuine.Arguments))
	f.Add(taskCallVersion+strings.TrimPrefix(s.tasks.sealHandle(genuine.ID, genuine.Owner), handleVersion), []byte(genuine.Arguments))
	f.Fuzz(func(t *testing.T, seal string, args []byte) {
		call := genuine
		call.Seal, call.Arguments = seal, args
		err := s.tasks.openTaskCall(&call)
		if err != nil {
			if !errors.Is(err, ErrTaskCallAltered) {
				t.Fatalf("openTaskCall = %v, want ErrTaskCallAltered", err)
			}
			return
		}
		if seal != genuine.Seal {
			t.Fatalf("openTaskCall passed the seal %q, which the server did not make (it made %q)", seal, genuine.Seal)
		}
		var got, want any
		if !decodeNumbers(args, &got) || !decodeNumbers(genuine.Arguments, &want) || !jsonEqual(got, want) {
			t.Fatalf("openTaskCall passed the arguments %q, which do not mean %s", args, genuine.Arguments)
		}
	})
}

// decodeNumbers decodes data, one JSON value, into v with encoding/json,
// numbers as json.Number, and reports whether it could.
func decodeNumbers(data []byte, v *any) bool {
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	return json.Valid(data) && d.Decode(v) == nil
}

// jsonEqual reports whether two values that encoding/json decoded (with
// json.Number) are equal.
func jsonEqual(a, b any) bool {
	ad, _ := json.Marshal(a)
	bd, _ := json.Marshal(b)
	return string(ad) == string(bd)
}

// BenchmarkTaskCallSeal measures what the seal adds to a task handed to a
// runner: sealing the call, and opening it in RunTask, for arguments of
// 1 KiB and a token with claims.
func BenchmarkTaskCallSeal(b *testing.B) {
	runs := 0
	s, _ := sealServer(b, &runs)
	call := sealedCall(b, s)
	call.Arguments = json.RawMessage(`{"text":"` + strings.Repeat("x", 1024) + `"}`)
	call.Token.Extra = map[string]any{"tenant": "acme", "groups": []any{"a", "b", "c"}, "iat": 1.7e9}
	if err := s.tasks.sealTaskCall(&call); err != nil {
		b.Fatal(err)
	}
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := call
			if err := s.tasks.sealTaskCall(&c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.tasks.openTaskCall(&call); err != nil {
				b.Fatal(err)
			}
		}
	})
}
