package openai_test

import (
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
	"github.com/hands-go/hands/tool"
)

// TestRejected checks that a tool the dialect rejects is never sent.
func TestRejected(t *testing.T) {
	dotted := providertest.Spec[providertest.Labels]("tag")
	dotted.Name = "tag.add" // a raw spec: tool.New would refuse the name
	local := dialect.OpenAIStrict()
	local.MaxProperties = 2
	for _, tt := range []struct {
		name string
		opts openai.Options
		spec tool.Spec
		path string
	}{
		{"map in strict mode", openai.Options{}, providertest.Spec[providertest.Labels]("tag"), "/properties/labels"},
		{"name not strict", openai.Options{NonStrict: true}, dotted, ""},
		{"own dialect", openai.Options{Dialect: local}, providertest.Spec[providertest.ForecastArgs]("forecast"), ""},
	} {
		for _, api := range apis {
			t.Run(tt.name+"/"+string(api.api), func(t *testing.T) {
				srv := replay.NewServer(t, replay.Always(replay.Response{}))
				tt.opts.API = api.api
				providertest.Rejected(t, newModel(t, srv, tt.opts), srv, tt.spec, tt.path)
			})
		}
	}
}
