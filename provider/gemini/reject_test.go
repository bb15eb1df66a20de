package gemini_test

import (
	"testing"

	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/gemini"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

// TestRejected checks that a tool the dialect rejects is never sent.
func TestRejected(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts gemini.Options
		spec tool.Spec
		path string
	}{
		{"property name", gemini.Options{}, providertest.Spec[providertest.Kebab]("user"), "/properties/user-id"},
		{"name", gemini.Options{}, providertest.Spec[providertest.Labels]("2fa"), ""},
		{"map", gemini.Options{}, providertest.Spec[providertest.Labels]("tag"), "/properties/labels"},
		{"recursion", gemini.Options{}, providertest.Spec[providertest.Tree]("tree"), "/properties/kids/items"},
		{"required recursion in JSON Schema", gemini.Options{JSONSchema: true}, providertest.Spec[providertest.Tree]("tree"), "/properties/kids/items"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Response{}))
			providertest.Rejected(t, newModel(t, srv, tt.opts), srv, tt.spec, tt.path)
		})
	}
}
