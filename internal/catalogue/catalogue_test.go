package catalogue_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hands-go/hands/internal/catalogue"
)

// TestManifest checks that every server's file holds the tools its
// MANIFEST line counts, and that each tool is a JSON object with a name,
// used once in its server.
func TestManifest(t *testing.T) {
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := catalogue.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != len(entries) {
		t.Fatalf("Load returned %d servers, MANIFEST lists %d", len(servers), len(entries))
	}
	total := 0
	for i, s := range servers {
		e := entries[i]
		if e.Name != s.Name || e.Source != s.Package+"@"+s.Version || e.Tools != len(s.Tools) || e.Captured != s.Captured {
			t.Errorf("server %s (%s@%s, %d tools, %s) does not match its MANIFEST line %+v", s.Name, s.Package, s.Version, len(s.Tools), s.Captured, e)
		}
		names := map[string]bool{}
		for j, raw := range s.Tools {
			var tool struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Errorf("%s: tool %d: %v", s.Name, j, err)
				continue
			}
			if tool.Name == "" {
				t.Errorf("%s: tool %d has no name", s.Name, j)
			}
			if names[tool.Name] {
				t.Errorf("%s: tool %q listed twice", s.Name, tool.Name)
			}
			names[tool.Name] = true
			if len(tool.InputSchema) == 0 {
				t.Errorf("%s: tool %q has no inputSchema", s.Name, tool.Name)
			}
		}
		total += len(s.Tools)
	}
	if len(servers) < 22 {
		t.Errorf("the catalogue has %d servers, want at least 22", len(servers))
	}
	t.Logf("%d servers, %d tools", len(servers), total)
}

// TestLoadDir checks that the catalogue read from its directory, as the
// capture command reads it, is the one embedded.
func TestLoadDir(t *testing.T) {
	embedded, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := catalogue.LoadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(onDisk, embedded) {
		t.Errorf("LoadDir(testdata) read %d servers unlike the %d embedded", len(onDisk), len(embedded))
	}
}
