package dialect_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/schema"
)

// dialectUser is a typical tool input: constraints of every kind, optional
// fields, a nested struct, bytes and a numeric enum.
type dialectUser struct {
	Username string          `json:"username" jsonschema:"login name" tool:"minLength=3,maxLength=20,pattern=^[a-z0-9_]+$"`
	Email    string          `json:"email" jsonschema:"contact address" tool:"format=email"`
	Age      *int            `json:"age,omitempty" jsonschema:"age in years" tool:"minimum=1,maximum=150"`
	Roles    []string        `json:"roles,omitempty" jsonschema:"what the user may do" tool:"enum=admin|user|guest,default=[\"user\"],uniqueItems"`
	Plan     int             `json:"plan" jsonschema:"billing plan" tool:"enum=1|2|3"`
	Homepage string          `json:"homepage,omitempty" tool:"format=uri"`
	Avatar   []byte          `json:"avatar,omitempty" jsonschema:"a small picture"`
	Address  *dialectAddress `json:"address,omitempty" jsonschema:"where the user lives"`
}

type dialectAddress struct {
	Street string `json:"street"`
	City   string `json:"city" tool:"minLength=1"`
}

// dialectTree is a recursive type: its root refers to itself.
type dialectTree struct {
	Name     string        `json:"name" jsonschema:"the node's label"`
	Weight   float64       `json:"weight,omitempty" tool:"minimum=0,multipleOf=0.5"`
	Children []dialectTree `json:"children,omitempty" jsonschema:"the subtrees" tool:"maxItems=10"`
}

// dialectSchedule has what the dialects must carry about null, durations
// and types that describe or read themselves.
type dialectSchedule struct {
	Jobs    []string          `json:"jobs" jsonschema:"the jobs to run" tool:"minItems=1"`
	Tags    []string          `json:"tags,omitempty"`
	Env     map[string]string `json:"env" tool:"nullable"`
	Every   time.Duration     `json:"every" jsonschema:"how often to run"`
	Timeout *time.Duration    `json:"timeout,omitempty" tool:"default=30s"`
	Ink     inkColor          `json:"ink,omitempty" jsonschema:"the color of the report"`
	Owner   dialectLogin      `json:"owner" tool:"minLength=3"`
}

// dialectLogin reads itself, trimmed; it is described as a string.
type dialectLogin string

func (l *dialectLogin) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = dialectLogin(strings.TrimSpace(s))
	return nil
}

func mustSchema[T any](t testing.TB) *jsonschema.Schema {
	t.Helper()
	v, err := schema.For[T](nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.Schema()
}

// dialectForecast is the input of a tool with examples.
type dialectForecast struct {
	City  string `json:"city" jsonschema:"the city's name" tool:"minLength=1"`
	Days  int    `json:"days,omitempty" jsonschema:"how many days ahead" tool:"minimum=1,maximum=7,default=1"`
	Units string `json:"units,omitempty" tool:"enum=celsius|fahrenheit"`
}

// TestDialectsGolden keeps each predefined dialect's output for
// representative types in testdata/, with the problems met;
// go test ./dialect -update rewrites them. A tool with examples also
// keeps, in a .tool.json file, the description and the examples it is
// sent with.
func TestDialectsGolden(t *testing.T) {
	for _, tt := range []struct {
		name        string
		schema      *jsonschema.Schema
		description string
		examples    []json.RawMessage
	}{
		{name: "create_user", schema: mustSchema[dialectUser](t)},
		{name: "tree", schema: mustSchema[dialectTree](t)},
		{name: "schedule", schema: mustSchema[dialectSchedule](t)},
		{
			name: "forecast", schema: mustSchema[dialectForecast](t), description: "Forecast the weather in a city.",
			examples: []json.RawMessage{
				json.RawMessage(`{"city":"Oslo"}`),
				json.RawMessage(`{"city":"Lima","days":3,"units":"celsius"}`),
			},
		},
	} {
		for _, d := range dialect.Dialects() {
			t.Run(tt.name+"/"+d.Name, func(t *testing.T) {
				data, problems := d.ConvertJSON(tt.schema)
				base := filepath.Join("testdata", tt.name+"."+d.Name)
				if tt.examples != nil {
					desc, kept, exampleProblems := d.ConvertExamples(tt.name, tt.description, tt.examples)
					problems = append(problems, exampleProblems...)
					sent, err := json.MarshalIndent(struct {
						Description string            `json:"description"`
						Examples    []json.RawMessage `json:"examples"`
					}{desc, kept}, "", "  ")
					if err != nil {
						t.Fatal(err)
					}
					golden.Check(t, base+".tool.json", append(sent, '\n'))
				}
				var out bytes.Buffer
				if data == nil {
					out.WriteString("null")
				} else if err := json.Indent(&out, data, "", "  "); err != nil {
					t.Fatalf("ConvertJSON returned invalid JSON: %v\n%s", err, data)
				}
				out.WriteByte('\n')
				golden.Check(t, base+".json", out.Bytes())
				var lines strings.Builder
				for _, p := range problems {
					lines.WriteString(p.String() + "\n")
				}
				golden.Check(t, base+".problems.txt", []byte(lines.String()))

				// Convert and ConvertJSON agree.
				m, _ := d.Convert(tt.schema)
				var fromJSON map[string]any
				if data != nil {
					if err := json.Unmarshal(data, &fromJSON); err != nil {
						t.Fatal(err)
					}
				}
				if !reflect.DeepEqual(m, fromJSON) {
					t.Errorf("Convert and ConvertJSON differ:\nConvert: %v\nConvertJSON: %s", m, data)
				}
			})
		}
	}
}
