package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	oracle "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/tool"
)

// budgeted returns a registry of tools with budgets on.
func budgeted(t testing.TB, b *tool.Budget, tools ...tool.Interface) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "t", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return reg
	}
	if err := reg.SetBudget(b); err != nil {
		t.Fatal(err)
	}
	return reg
}

type noArgs struct{}

func textTool(name, text string, opts ...tool.Option) tool.Interface {
	return tool.New(name, "Return a text.", func(context.Context, noArgs) (string, error) { return text, nil }, opts...)
}

// lines returns n numbered lines.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("line " + strconv.Itoa(i) + " of the report, with some words é\n")
	}
	return b.String()
}

// TestBudgetIdentity checks that a result within its budget passes as it
// was made, byte for byte, in every form: text, structured output, parts.
func TestBudgetIdentity(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	type out struct {
		Items []item `json:"items"`
	}
	tools := []tool.Interface{
		textTool("text", lines(10)),
		tool.New("structured", "Return items.", func(context.Context, noArgs) (out, error) {
			return out{Items: []item{{"a"}, {"b"}}}, nil
		}),
		tool.New("parts", "Return parts.", func(context.Context, noArgs) ([]tool.Part, error) {
			return []tool.Part{tool.Text("chart:"), tool.Image("image/png", []byte{1, 2, 3})}, nil
		}),
		tool.New("fails", "Fail.", func(context.Context, noArgs) (string, error) { return "", errors.New("no") }),
	}
	plain, err := tool.NewRegistry(&tool.Scope{Name: "t", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	reg := budgeted(t, &tool.Budget{Default: 4096}, tools...)
	for _, name := range []string{"text", "structured", "parts", "fails"} {
		call := tool.Call{ID: "1", Name: name, Args: json.RawMessage(`{}`)}
		want := tool.Run(t.Context(), plain, call)
		for _, progress := range []func(any) bool{nil, func(any) bool { return true }} {
			got := tool.Drain(t.Context(), reg, call, progress)
			want.Err, got.Err = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s within budget = %+v, want it unchanged: %+v", name, got, want)
			}
		}
	}
}

var noteOffset = regexp.MustCompile(`"handle":"(res_[A-Za-z0-9_-]+)","offset":(\d+)`)

// handleOf returns the handle and offset a cut result's note names.
func handleOf(t *testing.T, content string) (string, int) {
	t.Helper()
	m := noteOffset.FindStringSubmatch(content)
	if m == nil {
		t.Fatalf("no read_result handle in %q", content)
	}
	n, _ := strconv.Atoi(m[2])
	return m[1], n
}

// TestBudgetText checks that a text over budget is cut at a line boundary,
// within the budget, with a note naming a handle and where the rest
// starts; an error result stays one.
func TestBudgetText(t *testing.T) {
	whole := lines(2000)
	reg := budgeted(t, &tool.Budget{Default: 2048},
		textTool("report", whole),
		tool.New("fails", "Fail.", func(context.Context, noArgs) (string, error) { return "", errors.New(whole) }))
	res := tool.Run(t.Context(), reg, tool.Call{Name: "report", Args: json.RawMessage(`{}`)})
	if len(res.Content) > 2048 {
		t.Fatalf("cut result is %d bytes, over its budget of 2048", len(res.Content))
	}
	if res.Cut == nil || res.Cut.Size != len(whole) || res.Cut.Budget != 2048 || res.Cut.Kept != len(whole) {
		t.Fatalf("Cut = %+v, want the whole's size %d, kept whole, budget 2048", res.Cut, len(whole))
	}
	shown := res.Content[:res.Cut.Shown]
	if !strings.HasPrefix(whole, shown) || !strings.HasSuffix(shown, "\n") {
		t.Errorf("the shown text is not whole lines from the start: %q", shown[max(0, len(shown)-40):])
	}
	handle, offset := handleOf(t, res.Content)
	if handle != res.Cut.Handle || offset != res.Cut.Shown {
		t.Errorf("the note names %s at %d, want %s at %d", handle, offset, res.Cut.Handle, res.Cut.Shown)
	}

	fail := tool.Run(t.Context(), reg, tool.Call{Name: "fails", Args: json.RawMessage(`{}`)})
	if !fail.IsError || fail.Err == nil || fail.Cut == nil || len(fail.Content) > 2048 {
		t.Errorf("error result over budget: IsError %v, Err %v, Cut %+v, %d bytes; want an error result cut to 2048", fail.IsError, fail.Err, fail.Cut, len(fail.Content))
	}
}

// TestBudgetPrecedence checks which budget a call gets: the tool's own,
// else the recipient's, else the registry's default.
func TestBudgetPrecedence(t *testing.T) {
	whole := lines(500) // about 25 KB
	reg := budgeted(t, &tool.Budget{Default: 1024}, textTool("plain", whole), textTool("own", whole, tool.WithResultBudget(8192)))
	for _, tt := range []struct {
		name string
		tool string
		rcpt *tool.Recipient
		want int // the budget; 0 for whole
	}{
		{"default", "plain", nil, 1024},
		{"recipient", "plain", &tool.Recipient{Budget: 4096}, 4096},
		{"recipient raised to the minimum", "plain", &tool.Recipient{Budget: 10}, tool.MinResultBudget},
		{"recipient unbounded", "plain", &tool.Recipient{Budget: -1}, 0},
		{"tool's own over recipient", "own", &tool.Recipient{Budget: 4096}, 8192},
		{"tool's own over default", "own", nil, 8192},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.rcpt != nil {
				ctx = tool.WithRecipient(ctx, *tt.rcpt)
			}
			res := tool.Run(ctx, reg, tool.Call{Name: tt.tool, Args: json.RawMessage(`{}`)})
			if tt.want == 0 {
				if res.Cut != nil || res.Content != whole {
					t.Errorf("result cut to %+v, want it whole", res.Cut)
				}
				return
			}
			if res.Cut == nil || res.Cut.Budget != tt.want || len(res.Content) > tt.want {
				t.Errorf("Cut = %+v (%d bytes), want a cut to %d", res.Cut, len(res.Content), tt.want)
			}
		})
	}
}

// TestWithResultBudgetTooSmall checks that a budget below the minimum is a
// definition error.
func TestWithResultBudgetTooSmall(t *testing.T) {
	_, err := tool.Define("t", "T.", func(context.Context, noArgs) (string, error) { return "", nil }, tool.WithResultBudget(10))
	if _, ok := errors.AsType[*tool.DefinitionError](err); !ok {
		t.Errorf("WithResultBudget(10) = %v, want a *DefinitionError", err)
	}
}

type row struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type listing struct {
	Rows  []row    `json:"rows" tool:"minItems=1"`
	Tags  []string `json:"tags"`
	Total int      `json:"total"`
}

// TestBudgetStructured checks that a structured output over budget is
// shortened along its schema: it stays valid against the output schema
// (checked by an independent validator), within the budget, with the
// arrays shortened and how many items each lost.
func TestBudgetStructured(t *testing.T) {
	var out listing
	for i := range 5000 {
		out.Rows = append(out.Rows, row{ID: i, Name: "row " + strconv.Itoa(i)})
	}
	for i := range 50 {
		out.Tags = append(out.Tags, "tag"+strconv.Itoa(i))
	}
	out.Total = len(out.Rows)
	list := tool.New("list", "List rows.", func(context.Context, noArgs) (listing, error) { return out, nil })
	reg := budgeted(t, &tool.Budget{Default: 4096}, list)
	res := tool.Run(t.Context(), reg, tool.Call{Name: "list", Args: json.RawMessage(`{}`)})
	if res.Cut == nil || len(res.Structured) > 4096 || len(res.Content) > 4096 {
		t.Fatalf("Cut %+v, structured %d bytes, content %d bytes; want both within 4096", res.Cut, len(res.Structured), len(res.Content))
	}
	schemaJSON, err := json.Marshal(list.Spec().OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	validate := oracleValidator(t, schemaJSON)
	if err := validate(res.Structured); err != nil {
		t.Errorf("the shortened output fails its schema: %v\n%s", err, res.Structured)
	}
	var got listing
	if err := json.Unmarshal(res.Structured, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) == 0 || !reflect.DeepEqual(got.Rows, out.Rows[:len(got.Rows)]) || got.Total != 5000 {
		t.Errorf("shortened output keeps %d rows, total %d; want a non-empty prefix of the rows and the total", len(got.Rows), got.Total)
	}
	dropped := map[string]int{}
	for _, a := range res.Cut.Arrays {
		dropped[a.Path] = a.Dropped
	}
	if dropped["/rows"] != 5000-len(got.Rows) || dropped["/tags"] != 50-len(got.Tags) {
		t.Errorf("Cut.Arrays = %+v, want /rows losing %d and /tags losing %d", res.Cut.Arrays, 5000-len(got.Rows), 50-len(got.Tags))
	}
	if !strings.HasPrefix(res.Content, string(res.Structured)+"\n") {
		t.Errorf("Content does not start with the shortened output")
	}
	// The whole output is kept: the handle reads it back.
	handle, _ := handleOf(t, res.Content)
	whole := readAll(t, reg, t.Context(), handle)
	if whole != string(mustJSON(t, out)) {
		t.Errorf("read_result returned %d bytes, want the whole output's %d", len(whole), len(mustJSON(t, out)))
	}
}

// TestBudgetStructuredMinItems checks that an array is never shortened
// below its minItems: a first item too large to keep whole is shortened
// itself.
func TestBudgetStructuredMinItems(t *testing.T) {
	type inner struct {
		Values []string `json:"values"`
	}
	type outer struct {
		Groups []inner `json:"groups" tool:"minItems=1"`
	}
	var big inner
	for i := range 3000 {
		big.Values = append(big.Values, "value "+strconv.Itoa(i))
	}
	nested := tool.New("nested", "Nest.", func(context.Context, noArgs) (outer, error) { return outer{Groups: []inner{big, big}}, nil })
	reg := budgeted(t, &tool.Budget{Default: 1024}, nested)
	res := tool.Run(t.Context(), reg, tool.Call{Name: "nested", Args: json.RawMessage(`{}`)})
	schemaJSON, _ := json.Marshal(nested.Spec().OutputSchema)
	if err := oracleValidator(t, schemaJSON)(res.Structured); err != nil {
		t.Errorf("the shortened output fails its schema: %v\n%s", err, res.Structured)
	}
	if len(res.Structured) > 1024 || res.Cut == nil || len(res.Cut.Arrays) != 2 {
		t.Errorf("structured %d bytes, Cut %+v; want within 1024, with /groups and /groups/0/values shortened", len(res.Structured), res.Cut)
	}
}

// TestBudgetParts checks that parts over budget are never half-sent: an
// image that does not fit is left out whole, text is cut, and the text of
// the result is the rendering of the parts sent.
func TestBudgetParts(t *testing.T) {
	img := bytes.Repeat([]byte{0x89}, 5000)
	parts := []tool.Part{tool.Text("summary"), tool.Image("image/png", []byte{1, 2}), tool.Text(lines(200)), tool.Image("image/png", img), tool.Resource("file:///r", "text/plain", "r")}
	pt := tool.New("chart", "Chart.", func(context.Context, noArgs) ([]tool.Part, error) { return parts, nil })
	reg := budgeted(t, &tool.Budget{Default: 2048}, pt)
	res := tool.Run(t.Context(), reg, tool.Call{Name: "chart", Args: json.RawMessage(`{}`)})
	if res.Cut == nil || res.Cut.Parts != 2 {
		t.Fatalf("Cut = %+v, want the big image and the resource left out (2 parts)", res.Cut)
	}
	if len(res.Content) > 2048 || res.Content != tool.PartsText(res.Parts) {
		t.Errorf("Content is %d bytes and the parts' rendering %v; want within budget and equal", len(res.Content), res.Content == tool.PartsText(res.Parts))
	}
	for _, p := range res.Parts {
		if p.Kind == tool.PartImage && !bytes.Equal(p.Data, []byte{1, 2}) {
			t.Errorf("an image was sent with %d bytes, want only the small one, whole", len(p.Data))
		}
	}
	if got := res.Parts[2]; got.Kind != tool.PartText || !strings.HasPrefix(lines(200), got.Text) || len(got.Text) == 0 {
		t.Errorf("third part = %+v, want a prefix of the long text", got.Kind)
	}
	if len(parts[2].Text) != len(lines(200)) {
		t.Error("the handler's parts were changed")
	}
}

// readAll pages through a kept result from its start with read_result,
// following the offset each page names, and checks that each page is
// within the registry's budget.
func readAll(t *testing.T, reg *tool.Registry, ctx context.Context, handle string) string {
	t.Helper()
	var b strings.Builder
	offset := 0
	for range 10000 {
		args, _ := json.Marshal(map[string]any{"handle": handle, "offset": offset})
		res := tool.Run(ctx, reg, tool.Call{Name: tool.ReadResultName, Args: args})
		if res.IsError {
			t.Fatalf("read_result at %d: %s", offset, res.Content)
		}
		if res.Cut != nil {
			t.Fatalf("read_result's page was cut: %+v", res.Cut)
		}
		text, note, ok := cutLast(res.Content)
		if !ok {
			t.Fatalf("no note in %q", res.Content)
		}
		b.WriteString(text)
		m := noteOffset.FindStringSubmatch(note)
		if m == nil {
			return b.String() // the end
		}
		next, _ := strconv.Atoi(m[2])
		if next != offset+len(text) {
			t.Fatalf("page at %d of %d bytes names %d as the next offset", offset, len(text), next)
		}
		offset = next
	}
	t.Fatal("read_result never reached the end")
	return ""
}

// cutLast splits a page at its last line, the note.
func cutLast(s string) (text, note string, ok bool) {
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// TestReadResultPaging checks that paging from the start covers every byte
// of a cut result exactly once, in order, in whole characters.
func TestReadResultPaging(t *testing.T) {
	whole := strings.Repeat("αβγ 日本語 text\n", 3000) + "end"
	reg := budgeted(t, &tool.Budget{Default: 1000}, textTool("big", whole))
	res := tool.Run(t.Context(), reg, tool.Call{Name: "big", Args: json.RawMessage(`{}`)})
	handle, offset := handleOf(t, res.Content)
	if got := res.Content[:res.Cut.Shown] + readFrom(t, reg, handle, offset); got != whole {
		t.Errorf("shown text and pages from its end make %d bytes, want the whole %d", len(got), len(whole))
	}
	if got := readAll(t, reg, t.Context(), handle); got != whole {
		t.Errorf("pages from 0 make %d bytes, want the whole %d", len(got), len(whole))
	}
	// An offset inside a character starts at that character.
	args, _ := json.Marshal(map[string]any{"handle": handle, "offset": 1, "limit": 10})
	page := tool.Run(t.Context(), reg, tool.Call{Name: tool.ReadResultName, Args: args})
	if text, _, _ := cutLast(page.Content); !utf8.ValidString(text) || !strings.HasPrefix(whole, text) {
		t.Errorf("page at offset 1 = %q, want whole characters from the start", text)
	}
}

func readFrom(t *testing.T, reg *tool.Registry, handle string, offset int) string {
	t.Helper()
	var b strings.Builder
	for {
		args, _ := json.Marshal(map[string]any{"handle": handle, "offset": offset})
		res := tool.Run(t.Context(), reg, tool.Call{Name: tool.ReadResultName, Args: args})
		text, note, _ := cutLast(res.Content)
		if !utf8.ValidString(text) {
			t.Fatalf("page at %d is not whole characters", offset)
		}
		b.WriteString(text)
		m := noteOffset.FindStringSubmatch(note)
		if m == nil {
			return b.String()
		}
		offset, _ = strconv.Atoi(m[2])
	}
}

// TestReadResultIsolation checks that a handle reads only for the
// recipient it was made for: another gets the answer a handle that never
// existed gets.
func TestReadResultIsolation(t *testing.T) {
	reg := budgeted(t, &tool.Budget{Default: 1024}, textTool("big", lines(500)))
	alice := tool.WithRecipient(t.Context(), tool.Recipient{ID: "session A"})
	bob := tool.WithRecipient(t.Context(), tool.Recipient{ID: "session B"})
	res := tool.Run(alice, reg, tool.Call{Name: "big", Args: json.RawMessage(`{}`)})
	handle, _ := handleOf(t, res.Content)
	read := func(ctx context.Context, handle string) tool.Result {
		args, _ := json.Marshal(map[string]any{"handle": handle})
		return tool.Run(ctx, reg, tool.Call{Name: tool.ReadResultName, Args: args})
	}
	if got := read(alice, handle); got.IsError {
		t.Fatalf("the recipient's own read failed: %s", got.Content)
	}
	stolen := read(bob, handle)
	missing := read(bob, "res_AAAAAAAAAAAAAAAAAAAAAA")
	anonymous := read(t.Context(), handle)
	for _, got := range []tool.Result{stolen, anonymous} {
		if !got.IsError || !errors.Is(got.Err, tool.ErrResultNotFound) || got.Content != missing.Content {
			t.Errorf("another recipient's read = %q (%v), want the answer to a missing handle, %q", got.Content, got.Err, missing.Content)
		}
	}
}

// TestReadResultExpiry checks that a kept result is not read after its TTL.
func TestReadResultExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := budgeted(t, &tool.Budget{Default: 1024, TTL: time.Minute}, textTool("big", lines(500)))
		res := tool.Run(context.Background(), reg, tool.Call{Name: "big", Args: json.RawMessage(`{}`)})
		handle, _ := handleOf(t, res.Content)
		args, _ := json.Marshal(map[string]any{"handle": handle})
		call := tool.Call{Name: tool.ReadResultName, Args: args}
		time.Sleep(59 * time.Second)
		if got := tool.Run(context.Background(), reg, call); got.IsError {
			t.Fatalf("read before expiry failed: %s", got.Content)
		}
		time.Sleep(time.Second)
		if got := tool.Run(context.Background(), reg, call); !errors.Is(got.Err, tool.ErrResultNotFound) {
			t.Errorf("read after expiry = %q, want ErrResultNotFound", got.Content)
		}
	})
}

// TestSetBudgetNameTaken checks that SetBudget refuses a registry that
// has a tool named read_result, and changes nothing.
func TestSetBudgetNameTaken(t *testing.T) {
	reg, _ := tool.NewRegistry(&tool.Scope{Name: "t", Tools: []tool.Interface{textTool("read_result", "x")}})
	err := reg.SetBudget(&tool.Budget{})
	if _, ok := errors.AsType[*tool.NameError](err); !ok {
		t.Errorf("SetBudget = %v, want a *NameError", err)
	}
	if reg.Budget() != nil {
		t.Error("budgets are on after a failed SetBudget")
	}
}

// TestMemoryStoreBounds checks that a MemoryStore holds no more than its
// bytes and entries, evicting the oldest, and keeps only the first
// MaxEntryBytes of a text, whole characters.
func TestMemoryStoreBounds(t *testing.T) {
	ctx := t.Context()
	s := tool.NewMemoryStore(&tool.MemoryStoreOptions{MaxBytes: 1000, MaxEntries: 3, MaxEntryBytes: 400})
	kept, err := s.Put(ctx, "big", strings.Repeat("é", 300), time.Hour)
	if err != nil || kept != 400 {
		t.Fatalf("Put of 600 bytes kept %d (%v), want 400", kept, err)
	}
	for i := range 5 {
		s.Put(ctx, strconv.Itoa(i), strings.Repeat("x", 300), time.Hour)
		if n, b := s.Len(); n > 3 || b > 1000 {
			t.Fatalf("after %d puts the store holds %d entries, %d bytes; want at most 3 and 1000", i+2, n, b)
		}
	}
	if _, _, err := s.Read(ctx, "big", 0, 10); !errors.Is(err, tool.ErrResultNotFound) {
		t.Errorf("the oldest entry was not evicted: %v", err)
	}
	if text, size, err := s.Read(ctx, "4", 290, 100); err != nil || text != "xxxxxxxxxx" || size != 300 {
		t.Errorf("Read(4, 290, 100) = %q, %d, %v; want the last 10 bytes of 300", text, size, err)
	}
}

// TestBudgetHostileSize checks that cutting a huge result costs memory
// bounded by the budget and the store's bound on an entry, not by the
// result's size: the handler's text is already in memory, and the copy
// that reaches the model and the one the store keeps are bounded.
func TestBudgetHostileSize(t *testing.T) {
	const entry = 256 << 10
	big := strings.Repeat(lines(100), 1<<16/len(lines(100))*512) // 32 MiB
	reg := budgeted(t, &tool.Budget{Default: 4096, Store: tool.NewMemoryStore(&tool.MemoryStoreOptions{MaxEntryBytes: entry})},
		tool.New("huge", "Huge.", func(_ context.Context, a struct {
			N int `json:"n"`
		}) (string, error) {
			return big[:a.N], nil
		}))
	for _, n := range []int{1 << 20, len(big)} {
		call := tool.Call{Name: "huge", Args: json.RawMessage(`{"n":` + strconv.Itoa(n) + `}`)}
		tool.Run(t.Context(), reg, call) // warm up
		c := cost.Measure(func() { tool.Run(t.Context(), reg, call) })
		if c.Bytes > 4*entry {
			t.Errorf("a %d-byte result cost %d bytes to cut and keep; want at most %d, whatever its size", n, c.Bytes, 4*entry)
		}
	}
}

// FuzzCutText checks the text cutter through a registry: the text the
// model reads is valid UTF-8 when the result is, within its budget, and
// starts with a prefix of the result that the note says where it ends.
func FuzzCutText(f *testing.F) {
	f.Add(lines(40), 600)
	f.Add(strings.Repeat("日本語", 400), 700)
	f.Add(strings.Repeat("x", 5000), 512)
	f.Add(strings.Repeat("a b\n", 300)+"\xff\xfe", 900)
	f.Fuzz(func(t *testing.T, text string, budget int) {
		budget = tool.MinResultBudget + abs(budget)%8192
		reg := budgeted(t, &tool.Budget{Default: budget}, textTool("t", text))
		res := tool.Run(context.Background(), reg, tool.Call{Name: "t", Args: json.RawMessage(`{}`)})
		if len(text) <= budget {
			if res.Content != text || res.Cut != nil {
				t.Fatalf("a text within budget was changed")
			}
			return
		}
		if len(res.Content) > budget {
			t.Fatalf("cut text is %d bytes, over the budget %d", len(res.Content), budget)
		}
		if utf8.ValidString(text) && !utf8.ValidString(res.Content) {
			t.Fatalf("cut text is not valid UTF-8: %q", res.Content)
		}
		if shown := res.Content[:res.Cut.Shown]; !strings.HasPrefix(text, shown) {
			t.Fatalf("the shown text is not a prefix of the result")
		}
		if res.Cut.Shown < len(text) && res.Cut.Shown > 0 && !utf8.RuneStart(text[res.Cut.Shown]) && utf8.ValidString(text) {
			t.Fatalf("the cut splits a character at %d", res.Cut.Shown)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// oracleValidator compiles schema with an independent implementation.
func oracleValidator(t *testing.T, schema []byte) func([]byte) error {
	t.Helper()
	doc, err := oracle.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := oracle.NewCompiler()
	c.DefaultDraft(oracle.Draft2020)
	if err := c.AddResource("out.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	return func(data []byte) error {
		inst, err := oracle.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return err
		}
		return sch.Validate(inst)
	}
}

// TestShrinkJSONHostileSize checks that shortening a huge structured
// output costs memory bounded by the budget, not by the output's size:
// an array's items past the first budget's worth are skipped, not read.
func TestShrinkJSONHostileSize(t *testing.T) {
	row := `{"id":12345,"name":"a row of the table"},`
	data := func(n int) []byte {
		return []byte(`{"rows":[` + strings.Repeat(row, n/len(row)) + `{"id":0,"name":""}],"total":1}`)
	}
	small, large := data(1<<20), data(32<<20)
	for _, d := range [][]byte{small, large} {
		tool.ShrinkJSON(d, 4096) // warm up
		var out []byte
		c := cost.Measure(func() { out = tool.ShrinkJSON(d, 4096) })
		if len(out) == 0 || len(out) > 4096 {
			t.Fatalf("ShrinkJSON of %d bytes = %d bytes, want a value within 4096", len(d), len(out))
		}
		if c.Bytes > 256<<10 {
			t.Errorf("shortening %d bytes of JSON allocated %d bytes; want at most 256 KiB, whatever its size", len(d), c.Bytes)
		}
	}
}

// BenchmarkBudget measures what a budget costs a call: a registry without
// budgets, one whose budget the result is within (the common case, which
// should cost next to nothing more), and a 10 MB result cut to 16 KiB
// and kept in a MemoryStore.
func BenchmarkBudget(b *testing.B) {
	small := lines(20)
	big := strings.Repeat(lines(100), 10<<20/len(lines(100)))
	for _, bb := range []struct {
		name   string
		text   string
		budget *tool.Budget
	}{
		{"off", small, nil},
		{"within", small, &tool.Budget{Default: 16 << 10}},
		{"cut10MB", big, &tool.Budget{Default: 16 << 10}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			reg := budgeted(b, bb.budget, textTool("t", bb.text))
			call := tool.Call{Name: "t", Args: json.RawMessage(`{}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res := tool.Run(ctx, reg, call); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}

// TestBudgetStructuredCombinators checks that a cut structured output is
// kept only when the tool's validator accepts it: under a oneOf the
// shrinker does not follow, shortening an array breaks its branch's
// minItems, so the output is left out, the text says what was cut, and
// the result is marked cut.
func TestBudgetStructuredCombinators(t *testing.T) {
	output := `{"type":"object","properties":{"result":{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"list"},"items":{"type":"array","items":{"type":"string"},"minItems":40}},"required":["kind","items"]},
		{"type":"object","properties":{"kind":{"const":"error"},"message":{"type":"string"}},"required":["kind","message"]}]}}}`
	var out struct {
		Result struct {
			Kind  string   `json:"kind"`
			Items []string `json:"items"`
		} `json:"result"`
	}
	out.Result.Kind = "list"
	for i := range 50 {
		out.Result.Items = append(out.Result.Items, strings.Repeat("x", 90)+strconv.Itoa(i))
	}
	whole := mustJSON(t, out)
	validate := oracleValidator(t, []byte(output))
	if err := validate(whole); err != nil {
		t.Fatalf("the whole output fails its schema: %v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(output), &s); err != nil {
		t.Fatal(err)
	}
	raw := tool.NewRaw(tool.Spec{Name: "choose", Description: "Choose.", InputSchema: &jsonschema.Schema{Type: "object"}, OutputSchema: &s}, nil,
		func(context.Context, json.RawMessage) (any, error) { return json.RawMessage(whole), nil })
	reg := budgeted(t, &tool.Budget{Default: 2048}, raw)
	res := tool.Run(t.Context(), reg, tool.Call{Name: "choose", Args: json.RawMessage(`{}`)})
	if res.Cut == nil {
		t.Fatalf("a %d-byte result under a 2048-byte budget was not cut", len(whole))
	}
	if res.Structured != nil {
		if err := validate(res.Structured); err != nil {
			t.Errorf("the cut output fails its schema: %v\n%s", err, res.Structured)
		} else {
			t.Errorf("the cut output %s is valid: the test's output no longer breaks the branch's minItems", res.Structured)
		}
	}
	if len(res.Cut.Arrays) != 0 || res.Cut.Shown == 0 || len(res.Content) > 2048 {
		t.Errorf("Cut %+v, content %d bytes; want the text cut within 2048 bytes and no array reported shortened", res.Cut, len(res.Content))
	}
	if handle, _ := handleOf(t, res.Content); readAll(t, reg, t.Context(), handle) != string(whole) {
		t.Error("read_result does not return the whole output")
	}
}

// TestBudgetStructuredNothingFits checks that an output the shrinker
// cannot shorten (a string with a pattern, which is never cut) is left out
// and its text shown cut, rather than nothing but the note.
func TestBudgetStructuredNothingFits(t *testing.T) {
	type coded struct {
		Code string `json:"code" tool:"pattern=^x+$"`
	}
	code := tool.New("code", "Code.", func(context.Context, noArgs) (coded, error) { return coded{Code: strings.Repeat("x", 5000)}, nil })
	reg := budgeted(t, &tool.Budget{Default: 2048}, code)
	res := tool.Run(t.Context(), reg, tool.Call{Name: "code", Args: json.RawMessage(`{}`)})
	if res.Cut == nil || res.Structured != nil || res.Cut.Shown == 0 || !strings.HasPrefix(res.Content, `{"code":"xxx`) {
		t.Errorf("Cut %+v, structured %d bytes, content %.40q; want the output left out and its text shown cut", res.Cut, len(res.Structured), res.Content)
	}
}
