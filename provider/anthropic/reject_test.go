package anthropic_test

import (
	"testing"

	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

// TestRejected checks that a tool the dialect rejects is never sent.
func TestRejected(t *testing.T) {
	dotted := providertest.Spec[providertest.Labels]("tag")
	dotted.Name = "tag.add" // a raw spec: tool.New would refuse the name
	for _, tt := range []struct {
		name string
		opts anthropic.Options
		spec tool.Spec
		path string
	}{
		{"name", anthropic.Options{}, dotted, ""},
		{"recursion in strict mode", anthropic.Options{Strict: true}, providertest.Spec[providertest.Tree]("tree"), "/properties/kids/items"},
		{"map in strict mode", anthropic.Options{Strict: true}, providertest.Spec[providertest.Labels]("tag"), "/properties/labels"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Response{}))
			providertest.Rejected(t, newModel(t, srv, tt.opts), srv, tt.spec, tt.path)
		})
	}
}
