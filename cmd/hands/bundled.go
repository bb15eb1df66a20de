package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"gocloud.dev/blob"
)

// env is what the bundled tools are bound to.
type env struct {
	Bucket       *blob.Bucket `bind:"HANDS_BUCKET,default=file://./hands-data"`
	PublicURL    string       `bind:"HANDS_PUBLIC_URL,optional"`
	MaxFileBytes int          `bind:"HANDS_MAX_FILE_BYTES,optional"`
	FetchPrivate bool         `bind:"HANDS_FETCH_ALLOW_PRIVATE,default=false"`
}

// bundle is the bundled tools and the bucket they write to.
type bundle struct {
	bucket   *blob.Bucket
	hostFile tool.Interface
	fetch    tool.Interface
}

func (b *bundle) list() []tool.Interface { return []tool.Interface{b.hostFile, b.fetch} }

// registry returns a registry of the bundled tools, in one scope.
func (b *bundle) registry() (*tool.Registry, error) {
	return tool.NewRegistry(&tool.Scope{Name: "bundled", Tools: b.list()})
}

func (b *bundle) names() []string {
	var names []string
	for _, t := range b.list() {
		names = append(names, t.Spec().Name)
	}
	return names
}

// bundledTools loads the environment and builds the tools. publicBase is the
// base URL of the files when this process serves them; the environment's
// HANDS_PUBLIC_URL wins over it.
func bundledTools(ctx context.Context, configFile, publicBase string) (*bundle, func(), error) {
	var e env
	if err := bind.Load(ctx, &e, &bind.Options{ConfigFile: configFile}); err != nil {
		return nil, nil, err
	}
	closeEnv := func() { bind.Close(&e) }
	public := e.PublicURL
	if public == "" {
		public = publicBase
	}
	if public == "" {
		if usesDefaultBucket(configFile) {
			public = absHandsData()
		} else {
			closeEnv()
			return nil, nil, errors.New("set HANDS_PUBLIC_URL to the public base URL of the files in HANDS_BUCKET")
		}
	}
	b := &bundle{
		bucket:   e.Bucket,
		hostFile: toolbox.HostFile(e.Bucket, public, &toolbox.HostOptions{MaxBytes: e.MaxFileBytes}),
		fetch:    toolbox.FetchMarkdown(&toolbox.FetchOptions{AllowPrivate: e.FetchPrivate}),
	}
	return b, closeEnv, nil
}

// usesDefaultBucket reports whether neither the environment nor the config
// file names a bucket, so that the bucket is ./hands-data.
func usesDefaultBucket(configFile string) bool {
	if os.Getenv("HANDS_BUCKET") != "" {
		return false
	}
	if configFile == "" {
		return true
	}
	data, err := os.ReadFile(configFile)
	if err != nil {
		return false
	}
	var values map[string]any
	if json.Unmarshal(data, &values) != nil {
		return false
	}
	v, ok := values["HANDS_BUCKET"]
	return !ok || v == ""
}

// files serves the bucket's objects read-only, with their content types.
func (b *bundle) files() http.Handler { return toolbox.FileServer(b.bucket) }

// dialectNames lists the dialects schema knows.
func dialectNames() []string {
	var names []string
	for _, d := range schema.Dialects() {
		names = append(names, d.Name)
	}
	return names
}

// renderSpecs writes the specs in a dialect: "mcp" as they are, any other as
// the provider's tool declarations.
func renderSpecs(specs []tool.Spec, dialect string) (any, error) {
	d, ok := schema.DialectNamed(dialect)
	if !ok {
		return nil, &usageError{msg: "unknown dialect " + dialect + "; the dialects are " + strings.Join(dialectNames(), ", ")}
	}
	type out struct {
		Name        string          `json:"name"`
		Title       string          `json:"title,omitempty"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Problems    []string        `json:"problems,omitempty"`
	}
	var list []out
	for _, spec := range specs {
		params, problems := d.ConvertJSON(spec.InputSchema)
		o := out{Name: spec.Name, Title: spec.Title, Description: spec.Description, Parameters: params}
		for _, p := range problems {
			o.Problems = append(o.Problems, p.String())
		}
		list = append(list, o)
	}
	return list, nil
}
