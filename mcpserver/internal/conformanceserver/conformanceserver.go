// Package conformanceserver is the server that the server scenarios of the
// official MCP conformance suite (@modelcontextprotocol/conformance) drive:
// an mcpserver.Server of hands tools named as the scenarios expect them
// (test_simple_text, test_tool_with_progress, slow_compute, and so on),
// each written with package tool as any hands tool is. mcpserver's
// TestConformance serves it on 127.0.0.1, stateful and stateless, and runs
// the suite against it.
//
// It serves tools only, as hands does: the scenarios of resources,
// prompts, completions and skills have nothing here to test, and the test
// counts them as not applicable.
package conformanceserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// New returns the server.
func New() (*mcpserver.Server, error) {
	var (
		reg *tool.Registry
		srv *mcpserver.Server
	)
	// test_trigger_tool_change adds a tool to the registry, once, and
	// has the server tell the sessions that list tools.
	trigger := func(ctx context.Context, t tool.Interface) {
		if reg.Add(&tool.Scope{Name: "transient", Tools: []tool.Interface{t}}) == nil {
			srv.Sync(ctx)
		}
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "conformance", Tools: tools(trigger)})
	if err != nil {
		return nil, err
	}
	srv = mcpserver.New(reg, &mcpserver.Options{Name: "hands-conformance-server", Version: "1.0.0"})
	return srv, nil
}

// empty is the input of the tools that take no arguments.
type empty struct{}

func tools(trigger func(context.Context, tool.Interface)) []tool.Interface {
	text := func(name, description, out string) tool.Interface {
		return tool.New(name, description, func(context.Context, empty) (string, error) { return out, nil })
	}
	parts := func(name, description string, out ...tool.Part) tool.Interface {
		return tool.New(name, description, func(context.Context, empty) ([]tool.Part, error) { return out, nil })
	}
	return []tool.Interface{
		text("test_simple_text", "Tests simple text content response", "This is a simple text response for testing."),
		parts("test_image_content", "Tests image content response", tool.Image("image/png", pngData)),
		parts("test_audio_content", "Tests audio content response", tool.Audio("audio/wav", wavData)),
		parts("test_embedded_resource", "Tests embedded resource content response",
			tool.Resource("test://embedded-resource", "text/plain", "This is an embedded resource")),
		parts("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)",
			tool.Text("This is text content"), tool.Image("image/png", pngData),
			tool.Resource("test://embedded-in-multiple", "text/plain", "This is an embedded resource")),
		tool.New("test_tool_with_logging", "Tests tool that emits log messages during execution", func(ctx context.Context, _ empty) (string, error) {
			for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				mcpserver.Log(ctx, slog.LevelInfo, msg)
			}
			return "Tool with logging executed successfully", nil
		}),
		tool.New("test_tool_with_progress", "Tests tool that reports progress notifications", func(ctx context.Context, _ empty) (string, error) {
			for _, done := range []float64{0, 50, 100} {
				tool.Progress(ctx, tool.ProgressReport{Done: done, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", done)})
			}
			return "Tool with progress executed successfully", nil
		}),
		tool.New("test_error_handling", "Tests error response handling", func(context.Context, empty) (string, error) {
			return "", errors.New("this tool intentionally returns an error for testing")
		}),
		tool.New("test_sampling", "Tests server-initiated sampling (LLM completion request)", func(ctx context.Context, in struct {
			Prompt string `json:"prompt" jsonschema:"the prompt to send to the LLM"`
		}) (string, error) {
			res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
				MaxTokens: 100,
			})
			if err != nil {
				return "", err
			}
			text := "(non-text response)"
			if c, ok := res.Content.(*mcp.TextContent); ok {
				text = c.Text
			}
			return "LLM response: " + text, nil
		}),
		elicit("test_elicitation", "Tests server-initiated elicitation (user input request)", "", map[string]any{
			"type":       "object",
			"properties": map[string]any{"username": map[string]any{"type": "string", "description": "Your preferred username"}},
			"required":   []string{"username"},
		}),
		elicit("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", "Test defaults for primitives", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
		}),
		elicit("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", "Test enum schemas", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle": map[string]any{"type": "string", "oneOf": []map[string]any{
					{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"},
				}},
				"legacyEnum":    map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3, "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3, "items": map[string]any{"type": "string", "anyOf": []map[string]any{
					{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"},
				}}},
			},
		}),
		raw("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)", schema202012,
			func(_ context.Context, args json.RawMessage) (any, error) {
				return "JSON Schema 2020-12 tool called with: " + string(args), nil
			}),
		raw("test_x_mcp_header", "Tests SEP-2243 Mcp-Param-* server-side validation", schemaXMcpHeader,
			func(_ context.Context, args json.RawMessage) (any, error) {
				var in struct {
					Region string `json:"region"`
				}
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				return "region=" + in.Region, nil
			}),
		tool.New("test_missing_capability", "Requires the sampling client capability (SEP-2575)", func(ctx context.Context, _ empty) (string, error) {
			res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello"}}},
				MaxTokens: 10,
			})
			if err != nil {
				return "", err
			}
			_ = res
			return "Client declared the sampling capability; tool executed.", nil
		}),
		text("test_streaming_elicitation", "Streams a result only, with no requests to the client (SEP-2575)", "stream observed: result frames only, no top-level requests"),
		tool.New("test_logging_tool", "Logs a message, which goes to the client only if it asked for a level (SEP-2575)", func(ctx context.Context, _ empty) (string, error) {
			mcpserver.Log(ctx, slog.LevelInfo, "test_logging_tool executed")
			return "Log attempted.", nil
		}),
		tool.New("test_trigger_tool_change", "Adds a tool, which changes the tool list (SEP-2575)", func(ctx context.Context, _ empty) (string, error) {
			trigger(ctx, text("transient_tool_for_list_changed", "Added by test_trigger_tool_change", "done"))
			return "tools_list_changed published", nil
		}),

		// The multi round-trip requests' fixtures (SEP-2322): hands seals
		// the request state, and names the input requests, but for the
		// one the scenario wants keyed "user_name".
		tool.New("test_input_required_result_elicitation", "Asks the user's name", func(ctx context.Context, _ empty) (string, error) {
			name, err := askName(mcpserver.WithInputKey(ctx, "user_name"), "What is your name?")
			if err != nil {
				return "", err
			}
			return "Hello, " + name + "!", nil
		}),
		tool.New("test_input_required_result_sampling", "Asks the client's model a question", func(ctx context.Context, _ empty) (string, error) {
			res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "What is the capital of France?"}}},
				MaxTokens: 100,
			})
			if err != nil {
				return "", err
			}
			text := "(non-text response)"
			if c, ok := res.Content.(*mcp.TextContent); ok {
				text = c.Text
			}
			return "The model answered: " + text, nil
		}),
		tool.New("test_input_required_result_request_state", "Asks for a confirmation", func(ctx context.Context, _ empty) (string, error) {
			res, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{
				Message: "Please confirm",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
					"required":   []string{"ok"},
				},
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("state-ok: action=%s", res.Action), nil
		}),
		tool.New("test_input_required_result_multi_round", "Asks two questions, one after the other", func(ctx context.Context, _ empty) (string, error) {
			name, err := askName(ctx, "Step 1: What is your name?")
			if err != nil {
				return "", err
			}
			res, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{
				Message: "Step 2: What is your favorite color?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"color": map[string]any{"type": "string"}},
					"required":   []string{"color"},
				},
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s likes %v", name, res.Content["color"]), nil
		}),
		tool.New("test_input_required_result_tampered_state", "Asks the user's name", func(ctx context.Context, _ empty) (string, error) {
			name, err := askName(ctx, "What is your name?")
			if err != nil {
				return "", err
			}
			return "Hello, " + name + "!", nil
		}),
		tool.New("test_input_required_result_capabilities", "Asks the client's model, else the user", func(ctx context.Context, _ empty) (string, error) {
			res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello"}}},
				MaxTokens: 50,
			})
			if err == nil {
				return fmt.Sprintf("sampled: %v", res.Content), nil
			}
			if !errors.Is(err, mcpserver.ErrUnsupported) {
				return "", err
			}
			name, err := askName(ctx, "What is your name?")
			if err != nil {
				return "", err
			}
			return "Hello, " + name + "!", nil
		}),

		// The tasks extension's fixtures (SEP-2663).
		tool.New("greet", "Greets someone by name", func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name + "!", nil
		}),
		tool.New("slow_compute", "Sleeps for the given seconds, then answers", func(ctx context.Context, in struct {
			Seconds float64 `json:"seconds" jsonschema:"how long to take"`
			Label   string  `json:"label,omitempty"`
		}) (string, error) {
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
				return fmt.Sprintf("computed %s after %gs", in.Label, in.Seconds), nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}, tool.WithTaskSupport(tool.TaskOptional)),
		tool.New("failing_job", "Fails after a second, as a tool's error", func(ctx context.Context, _ empty) (string, error) {
			select {
			case <-time.After(time.Second):
				return "", errors.New("failing_job failed, as it always does")
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}, tool.WithTaskSupport(tool.TaskRequired)),
		// protocol_error_job fails with a protocol error, as the scenario
		// asks: a hands handler's own error is a tool's error (completed,
		// isError), so it asks in URL mode, which the scenario's client
		// does not declare, and the call fails with -32021 (Missing
		// Required Client Capability), as it would outside a task.
		tool.New("protocol_error_job", "Fails with a protocol error: asks in URL mode, which the client did not declare", func(ctx context.Context, _ empty) (string, error) {
			_, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/sign-in", ElicitationID: "protocol-error-job"})
			return "", err
		}, tool.WithTaskSupport(tool.TaskRequired)),
		// test_tool_with_task asks the user's name, which, asked before
		// the call is a task, goes back in the call's result (a multi
		// round-trip request); the retry with the answer ends at once,
		// and is answered with a task, since the tool requires one.
		tool.New("test_tool_with_task", "Asks the user's name, as a task", func(ctx context.Context, _ empty) (string, error) {
			name, err := askName(ctx, "What is your name?")
			if err != nil {
				return "", err
			}
			return "Hello, " + name + "!", nil
		}, tool.WithTaskSupport(tool.TaskRequired)),
		// confirm_delete and multi_input ask through the task: they make
		// the call one (BecomeTask) before they ask.
		tool.New("confirm_delete", "Asks the user to confirm, then deletes nothing", func(ctx context.Context, in struct {
			Filename string `json:"filename,omitempty"`
		}) (string, error) {
			mcpserver.BecomeTask(ctx)
			ok, err := confirm(ctx, "Delete "+in.Filename+"?")
			if err != nil || !ok {
				return "kept " + in.Filename, err
			}
			return "deleted " + in.Filename, nil
		}, tool.WithTaskSupport(tool.TaskOptional)),
		tool.New("multi_input", "Asks two questions at once", func(ctx context.Context, _ empty) (string, error) {
			mcpserver.BecomeTask(ctx)
			var (
				wg      sync.WaitGroup
				answers [2]bool
				errs    [2]error
			)
			for i := range answers {
				wg.Go(func() { answers[i], errs[i] = confirm(ctx, fmt.Sprintf("Question %d?", i+1)) })
			}
			wg.Wait()
			if err := errors.Join(errs[:]...); err != nil {
				return "", err
			}
			return fmt.Sprintf("answers: %v", answers), nil
		}, tool.WithTaskSupport(tool.TaskOptional)),
	}
}

// askName asks the user's name.
func askName(ctx context.Context, question string) (string, error) {
	res, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{
		Message: question,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}},
			"required":   []string{"name"},
		},
	})
	if err != nil {
		return "", err
	}
	if res.Action != "accept" {
		return "", fmt.Errorf("the user did not answer (%s)", res.Action)
	}
	name, _ := res.Content["name"].(string)
	return name, nil
}

// confirm asks the user a yes-or-no question.
func confirm(ctx context.Context, question string) (bool, error) {
	res, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{
		Message: question,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}},
			"required":   []string{"confirm"},
		},
	})
	if err != nil {
		return false, err
	}
	return res.Action == "accept" && res.Content["confirm"] == true, nil
}

// elicit returns a tool that puts a form of the given schema to the user
// and says what came back; message is the tool's argument when empty.
func elicit(name, description, message string, schema map[string]any) tool.Interface {
	return tool.New(name, description, func(ctx context.Context, in struct {
		Message string `json:"message,omitempty" jsonschema:"the message to show the user"`
	}) (string, error) {
		if message != "" {
			in.Message = message
		}
		res, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{Message: in.Message, RequestedSchema: schema})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Elicitation result: action=%s, content=%v", res.Action, res.Content), nil
	})
}

// raw returns a tool whose input schema is listed as written, and whose
// handler validates its arguments itself.
func raw(name, description, schema string, handler func(context.Context, json.RawMessage) (any, error)) tool.Interface {
	var input jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &input); err != nil {
		panic(err)
	}
	return documented{tool.NewRaw(tool.Spec{Name: name, Description: description, InputSchema: &input}, nil, handler), json.RawMessage(schema)}
}

// documented is a raw tool whose input schema is listed as written.
type documented struct {
	*tool.RawTool
	input json.RawMessage
}

// SpecDocuments implements tool.SchemaDocumenter.
func (d documented) SpecDocuments() (tool.Spec, json.RawMessage, json.RawMessage) {
	spec := d.Spec()
	return spec, d.input, nil
}

const schema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

const schemaXMcpHeader = `{
	"type": "object",
	"properties": {
		"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
		"level": {"type": "integer", "description": "non-mirrored argument"}
	}
}`

// pngData is a 1×1 PNG; wavData a WAV file of one silent sample.
var (
	pngData = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	wavData = mustBase64("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
