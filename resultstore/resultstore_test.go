package resultstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/memkv"
	_ "github.com/hands-go/hands/kv/sqlitekv"
	"github.com/hands-go/hands/resultstore"
	"github.com/hands-go/hands/tool"
)

// TestStore checks Put and Read over chunks: every byte range reads back
// as it was, a text past MaxEntryBytes is kept to its bound at a
// character boundary, and a key not held is ErrResultNotFound.
func TestStore(t *testing.T) {
	ctx := t.Context()
	db, err := kv.Open(ctx, "sqlite:///"+t.TempDir()+"/results.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := resultstore.New(db, &resultstore.Options{MaxEntryBytes: 600 << 10})
	whole := strings.Repeat("日本語 text 0123456789\n", 40000) // about 1 MB, several chunks
	kept, err := s.Put(ctx, "k", whole, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if kept > 600<<10 || kept < 600<<10-3 || !strings.HasPrefix(whole, whole[:kept]) {
		t.Fatalf("Put kept %d bytes, want 600 KiB at a character boundary", kept)
	}
	for _, r := range [][2]int{{0, 10}, {resultstore.DefaultChunkBytes - 5, 10}, {100, 2*resultstore.DefaultChunkBytes + 7}, {kept - 3, 100}, {kept, 10}} {
		got, size, err := s.Read(ctx, "k", r[0], r[1])
		want := whole[min(r[0], kept):min(kept, r[0]+r[1])]
		if err != nil || size != kept || got != want {
			t.Errorf("Read(%d, %d) = %d bytes, size %d, %v; want %d bytes of %d", r[0], r[1], len(got), size, err, len(want), kept)
		}
	}
	if _, _, err := s.Read(ctx, "other", 0, 10); !errors.Is(err, tool.ErrResultNotFound) {
		t.Errorf("Read of a key not held = %v, want ErrResultNotFound", err)
	}
}

// TestStoreExpiry checks that a text is not read after its TTL.
func TestStoreExpiry(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	db := kv.New(memkv.New(), &kv.Options{Now: func() time.Time { return now }})
	s := resultstore.New(db, nil)
	if _, err := s.Put(t.Context(), "k", "text", time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, _, err := s.Read(t.Context(), "k", 0, 10); err != nil || got != "text" {
		t.Fatalf("Read before expiry = %q, %v", got, err)
	}
	now = now.Add(time.Minute)
	if _, _, err := s.Read(t.Context(), "k", 0, 10); !errors.Is(err, tool.ErrResultNotFound) {
		t.Errorf("Read after expiry = %v, want ErrResultNotFound", err)
	}
}

// TestBudgetWithStore checks the store behind a registry's budget: a cut
// result reads back whole through read_result.
func TestBudgetWithStore(t *testing.T) {
	ctx := t.Context()
	db, err := kv.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	whole := strings.Repeat("a line of the log\n", 30000)
	reg, err := tool.NewRegistry(&tool.Scope{Name: "t", Tools: []tool.Interface{
		tool.New("log", "Log.", func(context.Context, struct{}) (string, error) { return whole, nil }),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.SetBudget(&tool.Budget{Default: 64 << 10, Store: resultstore.New(db, nil)}); err != nil {
		t.Fatal(err)
	}
	res := tool.Run(ctx, reg, tool.Call{Name: "log", Args: json.RawMessage(`{}`)})
	if res.Cut == nil || res.Cut.Handle == "" {
		t.Fatalf("Cut = %+v, want a handle", res.Cut)
	}
	var b strings.Builder
	offset := 0
	next := regexp.MustCompile(`"offset":(\d+)`)
	for range 100 {
		args, _ := json.Marshal(map[string]any{"handle": res.Cut.Handle, "offset": offset})
		page := tool.Run(ctx, reg, tool.Call{Name: tool.ReadResultName, Args: args})
		i := strings.LastIndexByte(page.Content, '\n')
		b.WriteString(page.Content[:i])
		m := next.FindStringSubmatch(page.Content[i:])
		if m == nil {
			break
		}
		offset, _ = strconv.Atoi(m[1])
	}
	if b.String() != whole {
		t.Errorf("read_result read %d bytes back, want the whole %d", b.Len(), len(whole))
	}
}
