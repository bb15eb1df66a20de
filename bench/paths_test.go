package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-playground/validator/v10"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	segjson "github.com/segmentio/encoding/json"
)

// CreateUser is the input of the benchmarked tool. One struct carries every
// tag set: json for the field names, jsonschema (the description) and tool
// (the constraints) for hands, validate for go-playground/validator. The
// jsonschema-go schema of the mcp_sdk path is inferred from the same struct
// and given the same constraints in mcpInputSchema.
type CreateUser struct {
	Username string            `json:"username" jsonschema:"the login name" tool:"minLength=3,maxLength=20,pattern=^[a-z0-9_]+$" validate:"required,min=3,max=20,username"`
	Email    string            `json:"email" jsonschema:"where to reach the user" tool:"format=email" validate:"required,email"`
	Age      *int              `json:"age,omitempty" jsonschema:"age in years" tool:"minimum=1" validate:"omitempty,min=1"`
	Roles    []string          `json:"roles,omitempty" jsonschema:"what the user may do" tool:"enum=admin|user|guest,default=[\"user\"]" validate:"omitempty,dive,oneof=admin user guest"`
	Address  Address           `json:"address" jsonschema:"the postal address" validate:"required"`
	Labels   map[string]string `json:"labels,omitempty" jsonschema:"free-form labels"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"search tags" tool:"maxItems=1000,maxLength=64" validate:"omitempty,max=1000,dive,max=64"`
}

// Address is the nested struct of CreateUser.
type Address struct {
	Street   string `json:"street" jsonschema:"street and number" tool:"minLength=1,maxLength=100" validate:"required,min=1,max=100"`
	City     string `json:"city" jsonschema:"the city" tool:"minLength=1,maxLength=60" validate:"required,min=1,max=60"`
	Country  string `json:"country" jsonschema:"ISO 3166-1 alpha-2 code" tool:"pattern=^[A-Z]{2}$" validate:"required,country"`
	Postcode string `json:"postcode,omitempty" jsonschema:"the postal code" tool:"maxLength=12" validate:"omitempty,max=12"`
}

// Created is the output of the benchmarked tool.
type Created struct {
	ID      string `json:"id"`
	Created bool   `json:"created"`
}

// A handler is the tool's function, shared by every path.
type handler = func(context.Context, CreateUser) (Created, error)

// createUser is the handler the benchmarks run.
func createUser(_ context.Context, in CreateUser) (Created, error) {
	return Created{ID: "user/" + in.Username, Created: true}, nil
}

// withDefaults applies the schema's one default, roles = ["user"], the way
// hands and the MCP SDK do for an absent property. The paths that have no
// notion of defaults do not call it; TestPathsAgree calls it on their
// values before comparing.
func withDefaults(in *CreateUser) {
	if in.Roles == nil {
		in.Roles = []string{"user"}
	}
}

// A path is one way of serving a call: decode (and validate) the arguments,
// run the handler, encode its output.
type path struct {
	name string
	// defaults reports whether the path applies schema defaults itself.
	defaults bool
	// make returns a function that serves one call with h and returns the
	// length of the encoded output.
	make func(h handler) func(ctx context.Context, args []byte) (int, error)
}

// paths lists every path, in the order they are reported.
var paths = []path{
	{name: "encoding_json", make: encodingJSONPath},
	{name: "jsonv2", make: jsonv2Path},
	{name: "hands", defaults: true, make: handsPath},
	{name: "mcp_sdk", defaults: true, make: mcpPath},
	{name: "santhosh", make: santhoshPath},
	{name: "validator", make: validatorPath},
}

// encodingJSONPath is the baseline: encoding/json both ways, no validation.
func encodingJSONPath(h handler) func(context.Context, []byte) (int, error) {
	return func(ctx context.Context, args []byte) (int, error) {
		var in CreateUser
		if err := json.Unmarshal(args, &in); err != nil {
			return 0, err
		}
		out, err := h(ctx, in)
		if err != nil {
			return 0, err
		}
		data, err := json.Marshal(out)
		return len(data), err
	}
}

// jsonv2Path is encoding/json v2 (go-json-experiment/json) both ways, no
// validation.
func jsonv2Path(h handler) func(context.Context, []byte) (int, error) {
	return func(ctx context.Context, args []byte) (int, error) {
		var in CreateUser
		if err := jsonv2.Unmarshal(args, &in); err != nil {
			return 0, err
		}
		out, err := h(ctx, in)
		if err != nil {
			return 0, err
		}
		data, err := jsonv2.Marshal(out)
		return len(data), err
	}
}

// handsTool returns the hands tool running h.
func handsTool(h handler) *tool.Tool[CreateUser, Created] {
	return tool.New("create_user", "Create a user account.", h)
}

// handsPath is tool.Run of a *tool.Tool: one pass that validates, applies defaults
// and decodes, then the handler, then encoding/json for the output.
func handsPath(h handler) func(context.Context, []byte) (int, error) {
	t := handsTool(h)
	return func(ctx context.Context, args []byte) (int, error) {
		res := tool.Run(ctx, t, tool.Call{Name: "create_user", Args: args})
		if res.IsError {
			return 0, res.Err
		}
		return len(res.Content), nil
	}
}

// mcpInputSchema returns the input schema of the mcp_sdk path: the schema
// jsonschema-go infers for CreateUser, exactly as the SDK's setSchema
// (mcp/server.go) infers it, plus the constraints that hands reads from the
// tool tags. jsonschema-go infers only types, required properties and
// descriptions, so an SDK user who wants these constraints adds them to the
// inferred schema and passes it as Tool.InputSchema, which is what this does.
func mcpInputSchema() *jsonschema.Schema {
	s, err := jsonschema.ForType(reflect.TypeFor[CreateUser](), &jsonschema.ForOptions{})
	if err != nil {
		panic(err)
	}
	p := s.Properties
	p["username"].MinLength, p["username"].MaxLength, p["username"].Pattern = new(3), new(20), "^[a-z0-9_]+$"
	p["email"].Format = "email"
	p["age"].Minimum = new(1.0)
	p["roles"].Items.Enum = []any{"admin", "user", "guest"}
	p["roles"].Default = json.RawMessage(`["user"]`)
	p["tags"].MaxItems = new(1000)
	p["tags"].Items.MaxLength = new(64)
	a := p["address"].Properties
	a["street"].MinLength, a["street"].MaxLength = new(1), new(100)
	a["city"].MinLength, a["city"].MaxLength = new(1), new(60)
	a["country"].Pattern = "^[A-Z]{2}$"
	a["postcode"].MaxLength = new(12)
	return s
}

// mcpOutputSchema returns the output schema the SDK infers for Created.
func mcpOutputSchema() *jsonschema.Schema {
	s, err := jsonschema.ForType(reflect.TypeFor[Created](), &jsonschema.ForOptions{})
	if err != nil {
		panic(err)
	}
	return s
}

// mcpResolve resolves a schema as the SDK's setSchema does.
func mcpResolve(s *jsonschema.Schema) *jsonschema.Resolved {
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(err)
	}
	return r
}

// mcpPath replicates, step for step, the handler that the MCP Go SDK
// v1.8.0 builds for a typed tool: the closure th in toolForErr
// (mcp/server.go), which AddTool[In, Out] registers. For a tools/call it
//
//  1. calls applySchema(args, inputResolved, false) (mcp/tool.go): unmarshals
//     the arguments into a map[string]any with internaljson.Unmarshal,
//     applies the schema's defaults (Resolved.ApplyDefaults), validates
//     (Resolved.Validate) and marshals the map again with encoding/json;
//  2. unmarshals that JSON into In with internaljson.Unmarshal;
//  3. calls the handler;
//  4. marshals the output with encoding/json, and passes it through
//     applySchema(out, outputResolved, true), which unmarshals it into an any,
//     applies defaults, validates it against the output schema inferred from
//     Out and marshals it again;
//  5. puts the JSON in the result, as StructuredContent and as a TextContent.
//
// internaljson (internal/json/json.go) is segmentio/encoding/json with
// DontMatchCaseInsensitiveStructFields behind a nesting-depth scan; it is
// internal to the SDK, so mcpUnmarshal copies it. Errors become an error
// result with CallToolResult.SetError, as in the SDK.
func mcpPath(h handler) func(context.Context, []byte) (int, error) {
	inputResolved := mcpResolve(mcpInputSchema())
	outputResolved := mcpResolve(mcpOutputSchema())
	return func(ctx context.Context, args []byte) (int, error) {
		input, err := mcpApplySchema(args, inputResolved, false)
		if err != nil {
			var errRes mcp.CallToolResult
			errRes.SetError(fmt.Errorf("validating \"arguments\": %v", err))
			return 0, errRes.GetError()
		}
		var in CreateUser
		if input != nil {
			if err := mcpUnmarshal(input, &in); err != nil {
				var errRes mcp.CallToolResult
				errRes.SetError(err)
				return 0, errRes.GetError()
			}
		}
		out, err := h(ctx, in)
		if err != nil {
			var errRes mcp.CallToolResult
			errRes.SetError(err)
			return 0, errRes.GetError()
		}
		res := &mcp.CallToolResult{}
		outbytes, err := json.Marshal(out)
		if err != nil {
			return 0, fmt.Errorf("marshaling output: %w", err)
		}
		outJSON, err := mcpApplySchema(outbytes, outputResolved, true)
		if err != nil {
			return 0, fmt.Errorf("validating tool output: %w", err)
		}
		res.StructuredContent = json.RawMessage(outJSON)
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(outJSON)}}
		return len(res.Content[0].(*mcp.TextContent).Text), nil
	}
}

// mcpApplySchema is applySchema from go-sdk v1.8.0 mcp/tool.go, with
// internaljson.Unmarshal replaced by its copy mcpUnmarshal.
func mcpApplySchema(data json.RawMessage, resolved *jsonschema.Resolved, forOutput bool) (json.RawMessage, error) {
	if resolved == nil {
		return data, nil
	}
	var unmarshaled any
	if !forOutput {
		v := make(map[string]any)
		if len(data) > 0 {
			if err := mcpUnmarshal(data, &v); err != nil {
				return nil, fmt.Errorf("unmarshaling arguments: %w", err)
			}
		}
		unmarshaled = v
	} else {
		if len(data) > 0 {
			if err := mcpUnmarshal(data, &unmarshaled); err != nil {
				return nil, fmt.Errorf("unmarshaling output: %w", err)
			}
		}
	}
	appliedDefaults := false
	if _, ok := unmarshaled.(map[string]any); ok {
		if err := resolved.ApplyDefaults(&unmarshaled); err != nil {
			return nil, fmt.Errorf("applying schema defaults:\n%w", err)
		}
		appliedDefaults = true
	} else if forOutput && unmarshaled == nil && resolved.Schema().Type == "object" {
		unmarshaled = make(map[string]any)
		if err := resolved.ApplyDefaults(&unmarshaled); err != nil {
			return nil, fmt.Errorf("applying schema defaults:\n%w", err)
		}
		appliedDefaults = true
	}
	if err := resolved.Validate(&unmarshaled); err != nil {
		return nil, err
	}
	if !appliedDefaults {
		return data, nil
	}
	out, err := json.Marshal(unmarshaled)
	if err != nil {
		return nil, fmt.Errorf("marshalling with defaults: %v", err)
	}
	return out, nil
}

// mcpMaxDepth is defaultMaxDepth of go-sdk v1.8.0 internal/json.
const mcpMaxDepth = 1000

var errMCPMaxDepth = fmt.Errorf("json: exceeded maximum nesting depth of %d", mcpMaxDepth)

// mcpUnmarshal is Unmarshal from go-sdk v1.8.0 internal/json/json.go.
func mcpUnmarshal(data []byte, v any) error {
	if err := mcpCheckMaxDepth(data, mcpMaxDepth); err != nil {
		return err
	}
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// mcpCheckMaxDepth is checkMaxDepth from go-sdk v1.8.0 internal/json/json.go.
func mcpCheckMaxDepth(data []byte, maxDepth int) error {
	var (
		depth    int
		inString bool
		escaped  bool
	)
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return errMCPMaxDepth
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// santhoshSchema compiles hands' own input schema with
// santhosh-tekuri/jsonschema, with format assertion on.
func santhoshSchema() *santhosh.Schema {
	data, err := json.Marshal(handsTool(createUser).Spec().InputSchema)
	if err != nil {
		panic(err)
	}
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		panic(err)
	}
	c := santhosh.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("create_user.json", doc); err != nil {
		panic(err)
	}
	return c.MustCompile("create_user.json")
}

// santhoshPath validates with santhosh-tekuri/jsonschema (which reads the
// arguments into its own generic form), then decodes with encoding/json.
func santhoshPath(h handler) func(context.Context, []byte) (int, error) {
	sch := santhoshSchema()
	return func(ctx context.Context, args []byte) (int, error) {
		inst, err := santhosh.UnmarshalJSON(bytes.NewReader(args))
		if err != nil {
			return 0, err
		}
		if err := sch.Validate(inst); err != nil {
			return 0, err
		}
		var in CreateUser
		if err := json.Unmarshal(args, &in); err != nil {
			return 0, err
		}
		out, err := h(ctx, in)
		if err != nil {
			return 0, err
		}
		data, err := json.Marshal(out)
		return len(data), err
	}
}

// newValidator returns a go-playground validator with the two patterns of
// CreateUser registered, since validator has no pattern tag.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	for name, re := range map[string]*regexp.Regexp{
		"username": regexp.MustCompile(`^[a-z0-9_]+$`),
		"country":  regexp.MustCompile(`^[A-Z]{2}$`),
	} {
		err := v.RegisterValidation(name, func(fl validator.FieldLevel) bool {
			return re.MatchString(fl.Field().String())
		})
		if err != nil {
			panic(err)
		}
	}
	return v
}

// validatorPath decodes with encoding/json, then checks the Go value with
// go-playground/validator.
func validatorPath(h handler) func(context.Context, []byte) (int, error) {
	v := newValidator()
	return func(ctx context.Context, args []byte) (int, error) {
		var in CreateUser
		if err := json.Unmarshal(args, &in); err != nil {
			return 0, err
		}
		if err := v.Struct(&in); err != nil {
			return 0, err
		}
		out, err := h(ctx, in)
		if err != nil {
			return 0, err
		}
		data, err := json.Marshal(out)
		return len(data), err
	}
}

// reported returns the failures an error from a path reports: every issue
// for the paths that collect them, and the one error otherwise.
func reported(err error) []string {
	if verr, ok := errors.AsType[*tool.ValidationError](err); ok {
		var s []string
		for _, is := range verr.Issues {
			s = append(s, is.String())
		}
		return s
	}
	if verr, ok := errors.AsType[*santhosh.ValidationError](err); ok {
		var s []string
		var walk func(*santhosh.ValidationError)
		walk = func(e *santhosh.ValidationError) {
			if len(e.Causes) == 0 {
				s = append(s, fmt.Sprintf("/%s: %s", strings.Join(e.InstanceLocation, "/"), strings.Join(e.ErrorKind.KeywordPath(), "/")))
			}
			for _, c := range e.Causes {
				walk(c)
			}
		}
		walk(verr)
		return s
	}
	if verrs, ok := errors.AsType[validator.ValidationErrors](err); ok {
		var s []string
		for _, fe := range verrs {
			s = append(s, fe.Error())
		}
		return s
	}
	return []string{err.Error()}
}
