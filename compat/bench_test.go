package compat

import (
	"os"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// benchTools reads the bundled tools' snapshot, a realistic pair of
// input schemas (host_file and fetch_markdown).
func benchTools(b *testing.B) []Tool {
	data, err := os.ReadFile("../cmd/hands/testdata/tools.json")
	if err != nil {
		b.Fatal(err)
	}
	s, err := ParseSnapshot(data)
	if err != nil {
		b.Fatal(err)
	}
	return s.Tools
}

// BenchmarkTools compares the bundled tools with themselves: what a CI
// snapshot check costs per run.
func BenchmarkTools(b *testing.B) {
	tools := benchTools(b)
	b.ReportAllocs()
	for b.Loop() {
		if changes := Tools(tools, tools, nil); len(changes) != 0 {
			b.Fatal(changes)
		}
	}
}

func benchPair(b *testing.B, old, new *jsonschema.Schema) {
	b.ReportAllocs()
	for b.Loop() {
		Input(old, new, nil)
	}
}

// BenchmarkInputWide compares two objects of 5 000 properties.
func BenchmarkInputWide(b *testing.B) {
	benchPair(b, mustParse(b, wide(5000, "string")), mustParse(b, wide(5000, "integer")))
}

// BenchmarkInputShared compares schemas of 60 definitions that each refer
// twice to the one before: 2^60 paths.
func BenchmarkInputShared(b *testing.B) {
	benchPair(b, mustParse(b, dag(60, `{"type":"integer"}`)), mustParse(b, dag(60, `{"type":"number"}`)))
}
