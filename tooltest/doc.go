// Package tooltest checks, in a test, that tools can be sent to every model
// provider.
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
package tooltest
