// Package tooltest checks tools in a test: that they can be sent to every
// model provider (Portable), that a change to them breaks no caller
// (Snapshot), and that the examples they show the model work (Examples).
//
// # Snapshots
//
// Snapshot keeps the specs of a registry's tools in a file under testdata/,
// in the shape of MCP's tools/list result, and compares the tools with it
// on every run (package compat decides): each breaking change, such as a
// new required argument, a narrowed range, a removed tool or a read-only
// tool turned destructive, fails the test with its JSON Pointer;
// go test -update accepts the changes and rewrites the file.
//
//	func TestToolsSnapshot(t *testing.T) {
//		tooltest.Snapshot(t, "testdata/tools.json", reg)
//	}
//
// The -update flag is defined by this package unless the test binary
// already has one; a test package that defines its own -update must do so
// in a package initialised before tooltest, or not at all.
//
// # Portability
//
// A tool's input schema is draft 2020-12 JSON Schema; each provider accepts
// a subset of it (package dialect calls a subset a Dialect). A constraint a
// dialect cannot carry is folded into the property's description, and hands
// still enforces it when the call arrives; a schema a dialect cannot express
// at all (a map for OpenAI's strict mode, a recursive type for Gemini) is an
// error. Portable turns those errors into test failures:
//
//	func TestToolsArePortable(t *testing.T) {
//		reg, err := tool.NewRegistry(scopes...)
//		if err != nil {
//			t.Fatal(err)
//		}
//		tooltest.Portable(t, reg) // every predefined dialect
//	}
//
// Name the dialects to check only the providers in use:
//
//	tooltest.Portable(t, reg, dialect.OpenAIStrict(), dialect.AnthropicStrict())
//
// Each error is one t.Errorf that names the dialect, the tool and the JSON
// Pointer of the schema concerned; each fold is logged with t.Logf, so
// go test -v shows what reaches a model only as text, and so is each
// warning (a value the schema says nothing about, which is portable but
// tells the model too little).
//
// # Examples
//
// A tool's examples (tool.WithExamples) are checked against its input
// when it is defined; Examples goes further and runs each of them through
// the tool, as a call from a model, so that an example the handler fails
// on (a city with no weather station, a file that does not exist) fails
// the test rather than teaching the model a call that does not work:
//
//	func TestToolExamples(t *testing.T) {
//		tooltest.Examples(t, weather, search)
//	}
package tooltest
