package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hands-go/hands/tool"
)

// Calc is the input of calculator.
type Calc struct {
	Operation string  `json:"operation" jsonschema:"the operation to apply" tool:"enum=add|subtract|multiply|divide"`
	A         float64 `json:"a" jsonschema:"the first operand"`
	B         float64 `json:"b" jsonschema:"the second operand"`
}

// The calculator of the seed documents: an enum picks the operation.
func Example_calculator() {
	calculator := tool.New("calculator", "Do arithmetic on two numbers.",
		func(ctx context.Context, c Calc) (float64, error) {
			switch c.Operation {
			case "add":
				return c.A + c.B, nil
			case "subtract":
				return c.A - c.B, nil
			case "multiply":
				return c.A * c.B, nil
			}
			if c.B == 0 {
				return 0, errors.New("division by zero; choose a non-zero divisor")
			}
			return c.A / c.B, nil
		})

	ctx := context.Background()
	for _, args := range []string{
		`{"operation":"multiply","a":6,"b":7}`,
		`{"operation":"divide","a":1,"b":0}`,
		`{"operation":"power","a":2,"b":"8"}`,
	} {
		res := tool.Run(ctx, calculator, tool.Call{ID: "c1", Name: "calculator", Args: json.RawMessage(args)})
		fmt.Printf("error=%v %s\n", res.IsError, res.Content)
	}
	// Output:
	// error=false 42
	// error=true division by zero; choose a non-zero divisor
	// error=true The arguments for calculator are invalid:
	// - /operation: must be one of "add", "subtract", "multiply", "divide"; got "power"
	// - /b: must be a number, got a string ("8")
	// Fix these and call calculator again.
}

// Fetch is the input of fetch_data.
type Fetch struct {
	URL    string `json:"url" jsonschema:"the page to fetch" tool:"format=uri"`
	Format string `json:"format,omitempty" jsonschema:"how to return the body" tool:"enum=json|text|html,default=json"`
}

// fetch_data streams progress events before its one result; the URL must be
// absolute, and the format has a default.
func Example_fetchData() {
	fetchData := tool.New("fetch_data", "Fetch data from a URL.",
		func(ctx context.Context, f Fetch) (string, error) {
			tool.Progress(ctx, "connecting to "+f.URL)
			tool.Progress(ctx, "reading the body")
			// A real handler would use an *http.Client with ctx here.
			return fmt.Sprintf(`{"url":%q,"format":%q}`, f.URL, f.Format), nil
		})

	call := tool.Call{ID: "call_1", Name: "fetch_data", Args: json.RawMessage(`{"url":"https://example.com/data"}`)}
	for ev := range fetchData.Stream(context.Background(), call) {
		if ev.Result != nil {
			fmt.Println("result:", ev.Result.Content)
			continue
		}
		fmt.Println("progress:", ev.Progress)
	}
	// Output:
	// progress: connecting to https://example.com/data
	// progress: reading the body
	// result: {"url":"https://example.com/data","format":"json"}
}

// Username is a transform: it trims spaces and lower-cases the name as it is
// decoded, after the schema's checks on the raw string.
type Username string

// UnmarshalText trims and lower-cases the name.
func (u *Username) UnmarshalText(text []byte) error {
	*u = Username(strings.ToLower(strings.TrimSpace(string(text))))
	return nil
}

// CreateUser is the input of create_user.
type CreateUser struct {
	Username Username `json:"username" jsonschema:"login name; trimmed and lower-cased" tool:"minLength=3,maxLength=20"`
	Email    string   `json:"email" jsonschema:"contact address" tool:"format=email"`
	Age      *int     `json:"age,omitempty" jsonschema:"age in years" tool:"minimum=1"`
	Roles    []string `json:"roles,omitempty" jsonschema:"what the user may do" tool:"enum=admin|user|guest,default=[\"user\"]"`
}

// Validate is a refinement: it runs after the schema checks pass.
func (c *CreateUser) Validate() error {
	if c.Age != nil && *c.Age < 18 {
		for _, r := range c.Roles {
			if r == "admin" {
				return errors.New("an admin must be at least 18")
			}
		}
	}
	return nil
}

// create_user: lengths, an email format, an optional positive int, a
// transform, a roles enum slice with a default, and a refinement.
func Example_createUser() {
	createUser := tool.New("create_user", "Create a user account.",
		func(ctx context.Context, u CreateUser) (string, error) {
			return fmt.Sprintf("created %s <%s> roles=%v", u.Username, u.Email, u.Roles), nil
		})

	ctx := context.Background()
	for _, args := range []string{
		`{"username":"  Alice ","email":"alice@example.com"}`,
		`{"username":"al","email":"alice","age":0,"roles":["root"]}`,
		`{"username":"bob","email":"bob@example.com","age":12,"roles":["admin"]}`,
	} {
		fmt.Println(tool.Run(ctx, createUser, tool.Call{Name: "create_user", Args: json.RawMessage(args)}).Content)
	}
	// Output:
	// created alice <alice@example.com> roles=[user]
	// The arguments for create_user are invalid:
	// - /username: must be at least 3 characters, got 2
	// - /email: must be an email address, got "alice"
	// - /age: must be at least 1, got 0
	// - /roles/0: must be one of "admin", "user", "guest"; got "root"
	// Fix these and call create_user again.
	// The arguments for create_user are invalid:
	// - (root): an admin must be at least 18
	// Fix these and call create_user again.
}

// Note is the output of createNote: a struct output has an output schema,
// and the model reads it as JSON.
type Note struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Tags  []string `json:"tags,omitempty"`
}

// NewNote is the input of createNote.
type NewNote struct {
	Title string   `json:"title" jsonschema:"a short title" tool:"minLength=1,maxLength=80"`
	Body  string   `json:"body" jsonschema:"the note, in Markdown"`
	Tags  []string `json:"tags,omitempty" jsonschema:"labels" tool:"maxItems=5,uniqueItems,pattern=^[a-z]+$"`
}

// createNote returns a struct, so its spec carries an output schema.
func Example_createNote() {
	createNote := tool.New("createNote", "Save a note.",
		func(ctx context.Context, n NewNote) (Note, error) {
			return Note{ID: "note-1", Title: n.Title, Tags: n.Tags}, nil
		})

	fmt.Println(createNote.Spec().OutputSchema.Properties["id"].Type)
	res := tool.Run(context.Background(), createNote, tool.Call{Name: "createNote", Args: json.RawMessage(`{"title":"Groceries","body":"- milk","tags":["home"]}`)})
	fmt.Println(res.Content)
	fmt.Println(res.Output.(Note).ID)

	// The same tool, called directly from Go.
	note, err := createNote.Call(context.Background(), NewNote{Title: "Plans", Tags: []string{"a", "a"}})
	fmt.Println(note.ID == "", err)
	// Output:
	// string
	// {"id":"note-1","title":"Groceries","tags":["home"]}
	// note-1
	// true tool createNote: invalid arguments
	// /tags: items 0 and 1 are equal; every item must be unique
}

// memBucket is an in-memory object store standing in for a bound bucket.
type memBucket struct {
	mu      sync.Mutex
	objects map[string]memObject
}

type memObject struct {
	body        []byte
	contentType string
	modified    time.Time
}

func (b *memBucket) Put(ctx context.Context, key string, body []byte, contentType string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.objects == nil {
		b.objects = map[string]memObject{}
	}
	b.objects[key] = memObject{body: body, contentType: contentType, modified: time.Now()}
	return nil
}

// HostFile is the input of r2_host_file.
type HostFile struct {
	Key         string `json:"key" jsonschema:"Object key" tool:"minLength=1,maxLength=1024"`
	Content     string `json:"content" jsonschema:"UTF-8 file body"`
	ContentType string `json:"contentType" jsonschema:"MIME type" tool:"default=text/plain"`
}

// r2_host_file, the pattern's own example: the handler closes over its bound
// resources (a bucket and the bucket's public URL), so the tool, its schema
// and its bindings sit in one block.
func Example_hostFile() {
	env := struct {
		Bucket    *memBucket
		PublicURL string
	}{&memBucket{}, "https://files.example.com/"}

	hostFile := tool.New("r2_host_file", "Upload from sandbox to R2 and get a public URL.",
		func(ctx context.Context, in HostFile) (string, error) {
			if err := env.Bucket.Put(ctx, in.Key, []byte(in.Content), in.ContentType); err != nil {
				return "", err
			}
			return strings.TrimSuffix(env.PublicURL, "/") + "/" + (&url.URL{Path: in.Key}).EscapedPath(), nil
		})

	res := tool.Run(context.Background(), hostFile, tool.Call{Name: "r2_host_file", Args: json.RawMessage(`{"key":"reports/q1 summary.txt","content":"hello"}`)})
	fmt.Println(res.Content)
	fmt.Println(env.Bucket.objects["reports/q1 summary.txt"].contentType)
	// Output:
	// https://files.example.com/reports/q1%20summary.txt
	// text/plain
}
