package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type payer struct {
	Account string `json:"account" jsonschema:"the account that pays" tool:"enum=main|savings"`
}

type confirmation struct {
	OK   bool   `json:"ok" jsonschema:"go ahead"`
	Note string `json:"note,omitempty" tool:"default=none"`
}

// talkback is a server whose tools log, sample and elicit, and counts how
// often each handler ran.
type talkback struct {
	reg       *tool.Registry
	srv       *mcpserver.Server
	runs      atomic.Int64 // runs of pay's handler
	transfers atomic.Int64 // runs of transfer's handler
}

func newTalkback(t *testing.T) *talkback {
	t.Helper()
	tb := &talkback{}
	logTool := tool.New("chatty", "Log at three levels.", func(ctx context.Context, _ struct{}) (string, error) {
		mcpserver.Log(ctx, slog.LevelDebug, "looking")
		mcpserver.Log(ctx, slog.LevelInfo, "found", "pages", 3)
		mcpserver.Log(ctx, slog.LevelWarn, "slow")
		return "logged", nil
	})
	summarise := tool.New("summarise", "Summarise a text.", func(ctx context.Context, a struct {
		Text string `json:"text"`
	}) (string, error) {
		res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise: " + a.Text}}},
			MaxTokens: 50,
		})
		if errors.Is(err, mcpserver.ErrUnsupported) {
			return "no sampling", nil
		}
		if err != nil {
			return "", err
		}
		return res.Model + ": " + res.Content.(*mcp.TextContent).Text, nil
	})
	pay := tool.New("pay", "Pay a bill.", func(ctx context.Context, _ struct{}) (string, error) {
		tb.runs.Add(1)
		who, err := mcpserver.Elicit[payer](ctx, "Which account should pay?")
		switch {
		case errors.Is(err, mcpserver.ErrUnsupported):
			return "no elicitation", nil
		case errors.Is(err, mcpserver.ErrDeclined):
			return "declined", nil
		case err != nil:
			return "", err
		}
		ok, err := mcpserver.Elicit[confirmation](ctx, "Pay from "+who.Account+"?")
		if errors.Is(err, mcpserver.ErrDeclined) {
			return "declined", nil
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("paid from %s: %t (%s)", who.Account, ok.OK, ok.Note), nil
	})
	transfer := tool.New("transfer", "Move money.", func(ctx context.Context, _ struct{}) (string, error) {
		tb.transfers.Add(1)
		from, err := tool.Ask(ctx, "Which account?")
		if err != nil {
			return "", err
		}
		amount, err := tool.Ask(ctx, "How much?")
		if err != nil {
			return "", err
		}
		return "moved " + amount + " from " + from, nil
	})
	both := tool.New("both", "Pay an amount.", func(ctx context.Context, _ struct{}) (string, error) {
		who, err := mcpserver.Elicit[payer](ctx, "Which account should pay?")
		if err != nil {
			return "", err
		}
		amount, err := tool.Ask(ctx, "How much?")
		if err != nil {
			return "", err
		}
		return "paid " + amount + " from " + who.Account, nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "talkback", Tools: []tool.Interface{logTool, summarise, pay, transfer, both}})
	if err != nil {
		t.Fatal(err)
	}
	tb.reg, tb.srv = reg, mcpserver.New(reg, nil)
	return tb
}

// transports are the ways a client reaches the server in these tests, and
// whether requests to the client go back in the call's result (protocol
// versions from 2026-07-28) or are sent while the call waits.
var transports = []struct {
	name       string
	roundTrips bool
}{
	{"inmemory", true},
	{"inmemory-2025-11-25", false},
	{"http", false}, // stateful streamable HTTP negotiates 2025-11-25
	{"http-stateless", true},
}

// dial connects a client with opts to srv over the named transport.
func dial(t *testing.T, srv *mcpserver.Server, transport string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "talkback", Version: "1"}, opts)
	var mt mcp.Transport
	var sopts *mcp.ClientSessionOptions
	switch transport {
	case "inmemory", "inmemory-2025-11-25":
		serverSide, clientSide := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, serverSide) }()
		t.Cleanup(func() { cancel(); <-done })
		mt = clientSide
		if transport == "inmemory-2025-11-25" {
			sopts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
		}
	case "http", "http-stateless", "http-stateless-2025-11-25":
		pn := servePipe(t, srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: transport != "http"}))
		mt = &mcp.StreamableClientTransport{Endpoint: pn.URL, HTTPClient: pn.Client}
		if transport == "http-stateless-2025-11-25" {
			sopts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
		}
	}
	session, err := client.Connect(t.Context(), mt, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

func TestLog(t *testing.T) {
	for _, tr := range transports {
		if tr.name == "http-stateless" {
			continue // a stateless session on an old protocol never sets a level
		}
		t.Run(tr.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tb := newTalkback(t)
				var mu sync.Mutex
				var got []string
				session := dial(t, tb.srv, tr.name, &mcp.ClientOptions{
					LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
						mu.Lock()
						defer mu.Unlock()
						got = append(got, fmt.Sprintf("%s %s %v", req.Params.Level, req.Params.Logger, req.Params.Data))
					},
				})
				params := &mcp.CallToolParams{Name: "chatty", Arguments: map[string]any{}}
				if tr.roundTrips {
					params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"} // each request says its level
				} else if err := session.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
					t.Fatal(err)
				}
				if res, err := session.CallTool(t.Context(), params); err != nil || text(res) != "logged" {
					t.Fatalf("CallTool(chatty) = %+v, %v", res, err)
				}
				want := []string{"info chatty map[msg:found pages:3]", "warning chatty slow"}
				synctest.Wait() // every message sent has arrived
				mu.Lock()
				messages := slices.Clone(got)
				mu.Unlock()
				if !slices.Equal(messages, want) {
					t.Errorf("messages = %q, want %q (debug is below the level)", messages, want)
				}
			})
		})
	}
	// Outside MCP, Log does nothing.
	mcpserver.Log(t.Context(), slog.LevelError, "nobody hears this")
}

func TestSample(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			tb := newTalkback(t)
			var prompts []string
			var mu sync.Mutex
			session := dial(t, tb.srv, tr.name, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					mu.Lock()
					prompts = append(prompts, req.Params.Messages[0].Content.(*mcp.TextContent).Text)
					mu.Unlock()
					return &mcp.CreateMessageResult{Model: "tiny", Role: "assistant", Content: &mcp.TextContent{Text: "short"}}, nil
				},
			})
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{"text": "a long story"}})
			if err != nil || res.IsError || text(res) != "tiny: short" {
				t.Fatalf("CallTool(summarise) = %+v, %v; want the client's answer", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(prompts, []string{"Summarise: a long story"}) {
				t.Errorf("the client was asked %q", prompts)
			}
		})
	}
	t.Run("unsupported", func(t *testing.T) {
		for _, tr := range transports {
			tb := newTalkback(t)
			session := dial(t, tb.srv, tr.name, nil)
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{"text": "x"}})
			if err != nil || text(res) != "no sampling" {
				t.Errorf("%s: CallTool(summarise) from a client without sampling = %+v, %v; want ErrUnsupported", tr.name, res, err)
			}
		}
	})
}

func TestElicit(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			tb := newTalkback(t)
			var asked []string
			var mu sync.Mutex
			session := dial(t, tb.srv, tr.name, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params.Message)
					if strings.HasPrefix(req.Params.Message, "Which") {
						schema := fmt.Sprint(req.Params.RequestedSchema)
						if !strings.Contains(schema, "the account that pays") || !strings.Contains(schema, "savings") {
							t.Errorf("requested schema = %s", schema)
						}
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"account": "savings"}}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
				},
			})
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{}})
			if err != nil || res.IsError || text(res) != "paid from savings: true (none)" {
				t.Fatalf("CallTool(pay) = %+v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"Which account should pay?", "Pay from savings?"}; !slices.Equal(asked, want) {
				t.Errorf("the user was asked %q, want %q", asked, want)
			}
			// With round trips, the handler runs once per question and
			// once more; otherwise once.
			if want := map[bool]int64{true: 3, false: 1}[tr.roundTrips]; tb.runs.Load() != want {
				t.Errorf("the handler ran %d times, want %d", tb.runs.Load(), want)
			}
		})
	}
	t.Run("declined", func(t *testing.T) {
		for _, tr := range transports {
			tb := newTalkback(t)
			session := dial(t, tb.srv, tr.name, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{}})
			if err != nil || text(res) != "declined" {
				t.Errorf("%s: CallTool(pay), declined = %+v, %v", tr.name, res, err)
			}
		}
	})
	t.Run("unsupported", func(t *testing.T) {
		for _, tr := range transports {
			tb := newTalkback(t)
			session := dial(t, tb.srv, tr.name, nil)
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{}})
			if err != nil || text(res) != "no elicitation" {
				t.Errorf("%s: CallTool(pay) from a client without elicitation = %+v, %v; want ErrUnsupported", tr.name, res, err)
			}
		}
	})
}

// TestStatelessOldProtocol checks that on stateless HTTP with a protocol
// version that sends requests to the client while a call waits, which
// stateless HTTP cannot carry, Elicit and Sample report ErrUnsupported
// even to a client that declared both.
func TestStatelessOldProtocol(t *testing.T) {
	tb := newTalkback(t)
	session := dial(t, tb.srv, "http-stateless-2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"account": "main"}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "tiny", Role: "assistant", Content: &mcp.TextContent{Text: "short"}}, nil
		},
	})
	for _, tt := range []struct{ name, args, want string }{
		{"pay", `{}`, "no elicitation"},
		{"summarise", `{"text":"x"}`, "no sampling"},
	} {
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.name, Arguments: json.RawMessage(tt.args)})
		if err != nil || text(res) != tt.want {
			t.Errorf("CallTool(%s) = %+v, %v; want %q", tt.name, res, err, tt.want)
		}
	}
}

// TestElicitOutsideMCP runs the same handler as a plain tool call, as
// agent.Run does: Elicit asks with tool.Ask, and the answers given on
// resuming fill the forms.
func TestElicitOutsideMCP(t *testing.T) {
	reg := newTalkback(t).reg
	call := tool.Call{ID: "c1", Name: "pay", Args: []byte(`{}`)}
	res := tool.Run(t.Context(), reg, call)
	ierr, ok := errors.AsType[*tool.InterruptError](res.Err)
	if !ok || ierr.Question != "Which account should pay?" {
		t.Fatalf("Run(pay) = %+v, want a *tool.InterruptError asking which account", res)
	}
	// The first answer is plain text, for a form of one string field; the
	// second is the form's JSON.
	ctx := tool.WithAnswers(t.Context(), "c1", []string{"main", `{"ok":true,"note":"rent"}`})
	res = tool.Run(ctx, reg, call)
	if res.IsError || res.Content != "paid from main: true (rent)" {
		t.Errorf("Run(pay) with answers = %+v", res)
	}
	ctx = tool.WithAnswers(t.Context(), "c1", []string{"neither"})
	res = tool.Run(ctx, reg, call)
	if !res.IsError || !strings.Contains(res.Content, "neither") {
		t.Errorf("Run(pay) with an answer outside the enum = %+v, want an error that names it", res)
	}
}

// TestElicitFlatForms checks that Elicit refuses a type that is not a flat
// form, before it asks anyone.
func TestElicitFlatForms(t *testing.T) {
	type nested struct {
		Address struct {
			City string `json:"city"`
		} `json:"address"`
	}
	if _, err := mcpserver.Elicit[nested](t.Context(), "Where?"); err == nil || errors.Is(err, tool.ErrInterrupted) {
		t.Errorf("Elicit[nested] = %v, want an error about the form", err)
	}
	if _, err := mcpserver.Elicit[string](t.Context(), "What?"); err == nil || errors.Is(err, tool.ErrInterrupted) {
		t.Errorf("Elicit[string] = %v, want an error about the form", err)
	}
	type miscounted struct {
		Account string `json:"account" tool:"enum=main|savings" elicit:"titles=Main|Savings|Other"`
	}
	if _, err := mcpserver.Elicit[miscounted](t.Context(), "Which?"); err == nil || errors.Is(err, tool.ErrInterrupted) {
		t.Errorf("Elicit[miscounted] = %v, want an error about the titles", err)
	}
	type untitled struct {
		Name string `json:"name" elicit:"titles=Ada"`
	}
	if _, err := mcpserver.Elicit[untitled](t.Context(), "Who?"); err == nil || errors.Is(err, tool.ErrInterrupted) {
		t.Errorf("Elicit[untitled] = %v, want an error: titles need an enum", err)
	}
	if _, err := mcpserver.Elicit[payer](t.Context(), "Who pays?"); !errors.Is(err, tool.ErrInterrupted) {
		t.Errorf("Elicit[payer] outside MCP = %v, want tool.Ask's interrupt", err)
	}
	// A json tag name that encoding/json does not take leaves the field
	// under its Go name, in the form as in the answer: its titles apply
	// there.
	type quoted struct {
		Account string `json:"it's" tool:"enum=main|savings" elicit:"titles=Main|Savings"`
	}
	if _, err := mcpserver.Elicit[quoted](t.Context(), "Which?"); !errors.Is(err, tool.ErrInterrupted) {
		t.Errorf("Elicit[quoted] outside MCP = %v, want tool.Ask's interrupt: the titles are for the field Account", err)
	}
}

// TestAskOverMCP serves a handler written for the agent loop, which asks
// with tool.Ask: a client that fills in forms is asked each question as a
// form of one text field, and the handler runs again with the answers. A
// client without elicitation, or a user who declines, gets the error result
// that states the question.
func TestAskOverMCP(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			tb := newTalkback(t)
			var mu sync.Mutex
			var asked []string
			session := dial(t, tb.srv, tr.name, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params.Message)
					if !strings.Contains(fmt.Sprint(req.Params.RequestedSchema), "answer") {
						t.Errorf("requested schema = %v, want one answer field", req.Params.RequestedSchema)
					}
					answer := map[string]string{"Which account?": "main", "How much?": "10"}[req.Params.Message]
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
				},
			})
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "transfer", Arguments: map[string]any{}})
			if err != nil || res.IsError || text(res) != "moved 10 from main" {
				t.Fatalf("CallTool(transfer) = %+v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"Which account?", "How much?"}; !slices.Equal(asked, want) {
				t.Errorf("the user was asked %q, want %q", asked, want)
			}
			if n := tb.transfers.Load(); n != 3 {
				t.Errorf("the handler ran %d times, want 3: once per question and once more", n)
			}
		})
	}
	for _, tt := range []struct {
		name string
		opts *mcp.ClientOptions
	}{
		{"no elicitation", nil},
		{"declined", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}}},
	} {
		for _, tr := range transports {
			session := dial(t, newTalkback(t).srv, tr.name, tt.opts)
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "transfer", Arguments: map[string]any{}})
			if err != nil || !res.IsError || !strings.Contains(text(res), "Which account?") {
				t.Errorf("%s, %s: CallTool(transfer) = %+v, %v; want an error result with the question", tt.name, tr.name, res, err)
			}
		}
	}
}

// TestElicitThenAsk serves a handler that fills in a form with Elicit and
// then asks with tool.Ask: the answer to tool.Ask runs the handler again,
// and the form is not put to the user a second time.
func TestElicitThenAsk(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			session := dial(t, newTalkback(t).srv, tr.name, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params.Message)
					if req.Params.Message == "How much?" {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "10"}}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"account": "main"}}, nil
				},
			})
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "both", Arguments: map[string]any{}})
			if err != nil || res.IsError || text(res) != "paid 10 from main" {
				t.Fatalf("CallTool(both) = %+v, %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"Which account should pay?", "How much?"}; !slices.Equal(asked, want) {
				t.Errorf("the user was asked %q, want %q", asked, want)
			}
		})
	}
}

// funds is a form with titled options from tags: a single-select and a
// multi-select.
type funds struct {
	Account string   `json:"account" jsonschema:"the account that pays" tool:"enum=main|savings" elicit:"titles=Main account|Savings account"`
	Notify  []string `json:"notify,omitempty" tool:"enum=mail|sms" elicit:"titles=By mail|By text"`
}

// handFunds is a form whose fields write their own schemas: the legacy
// enum with enumNames, and the titled multi-select.
type handFunds struct {
	Account legacyAccount `json:"account"`
	Notify  titledNotify  `json:"notify"`
}

type legacyAccount string

func (legacyAccount) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Enum: []any{"main", "savings"}, Extra: map[string]any{"enumNames": []any{"Main account", "Savings account"}}}
}

type titledNotify []string

func (titledNotify) JSONSchema() *jsonschema.Schema {
	mail, sms := any("mail"), any("sms")
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Const: &mail, Title: "By mail"}, {Const: &sms, Title: "By text"}}}}
}

// TestElicitTitled asks for forms with SEP-1330's titled selects, from
// tags and from a hand-written schema: the client is sent the titles, its
// answer is decoded, and an answer outside the options is refused.
func TestElicitTitled(t *testing.T) {
	askFunds := tool.New("funds", "Ask for funds.", func(ctx context.Context, _ struct{}) (string, error) {
		f, err := mcpserver.Elicit[funds](ctx, "Which account?")
		if err != nil {
			return "", err
		}
		return f.Account + " " + strings.Join(f.Notify, "+"), nil
	})
	askHand := tool.New("hand", "Ask for funds.", func(ctx context.Context, _ struct{}) (string, error) {
		f, err := mcpserver.Elicit[handFunds](ctx, "Which account?")
		if err != nil {
			return "", err
		}
		return string(f.Account) + " " + strings.Join(f.Notify, "+"), nil
	})
	srv, err := mcpserver.NewTools(nil, askFunds, askHand)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool   string
		answer map[string]any
		want   string // the result's text; empty for an error result
		schema []string
	}{
		{"funds", map[string]any{"account": "savings", "notify": []any{"mail", "sms"}}, "savings mail+sms",
			[]string{`"oneOf":[{"const":"main","title":"Main account"},{"const":"savings","title":"Savings account"}]`, `"items":{"anyOf":[{"const":"mail","title":"By mail"},{"const":"sms","title":"By text"}]}`}},
		{"funds", map[string]any{"account": "savings", "notify": []any{"fax"}}, "", nil},
		{"hand", map[string]any{"account": "main", "notify": []any{"sms"}}, "main sms",
			[]string{`"enumNames":["Main account","Savings account"]`, `"anyOf":[{"const":"mail","title":"By mail"}`}},
		{"hand", map[string]any{"account": "main", "notify": []any{"fax"}}, "", nil},
	} {
		var sent []byte
		session := dial(t, srv, "inmemory-2025-11-25", &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				sent, _ = json.Marshal(req.Params.RequestedSchema)
				return &mcp.ElicitResult{Action: "accept", Content: tt.answer}, nil
			},
		})
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("CallTool(%s) = %v", tt.tool, err)
		}
		if tt.want == "" {
			if !res.IsError {
				t.Errorf("CallTool(%s) answered %v = %q, want an error result", tt.tool, tt.answer, text(res))
			}
			continue
		}
		if res.IsError || text(res) != tt.want {
			t.Errorf("CallTool(%s) answered %v = %q (error %v), want %q", tt.tool, tt.answer, text(res), res.IsError, tt.want)
		}
		for _, want := range tt.schema {
			if !strings.Contains(string(sent), want) {
				t.Errorf("CallTool(%s): requested schema %s lacks %s", tt.tool, sent, want)
			}
		}
	}
}

// TestMissingCapability: a handler that returns the error of Sample (or
// Elicit) for a capability the client did not declare fails the call, on
// protocol versions from 2026-07-28, with -32021 (Missing Required Client
// Capability, SEP-2575), whose data names the capability, and over HTTP
// with 400; before 2026-07-28 the call's result is the error, as any
// handler's error is.
func TestMissingCapability(t *testing.T) {
	needy := tool.New("needy", "Ask the client's model.", func(ctx context.Context, _ struct{}) (string, error) {
		_, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}},
			MaxTokens: 10,
		})
		return "", err
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "needy", Tools: []tool.Interface{needy}})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(reg, nil)
	for _, tr := range transports {
		session := dial(t, srv, tr.name, nil)
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "needy", Arguments: map[string]any{}})
		var werr *jsonrpc.Error
		switch {
		case tr.roundTrips && (!errors.As(err, &werr) || werr.Code != -32021 || string(werr.Data) != `{"requiredCapabilities":{"sampling":{}}}`):
			t.Errorf("%s: CallTool(needy) = %+v, %v; want -32021 naming sampling", tr.name, res, err)
		case !tr.roundTrips && (err != nil || !res.IsError || !strings.Contains(text(res), "did not declare")):
			t.Errorf("%s: CallTool(needy) = %+v, %v; want the error as the result", tr.name, res, err)
		}
	}
	urls := replicas(t, reg, mcpserver.TaskOptions{}, 1)
	r := extClient{t: t, url: urls[0], user: "ada"}.send("tools/call", map[string]any{"name": "needy", "arguments": map[string]any{}})
	if r.status != 400 || r.Error == nil || r.Error.Code != -32021 {
		t.Errorf("stateless HTTP: %d %s %+v; want 400 and -32021", r.status, r.Result, r.Error)
	}
}
