package hands_test

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// prereleaseOnly are the modules that have published no release, each with
// why the module uses it all the same.
var prereleaseOnly = map[string]string{
	// IMAP for email_list and email_read (toolbox/mail): its author's v1
	// is no longer maintained, and v2, its successor, has only betas; it
	// streams a fetched body, which the tools' bounds need.
	"github.com/emersion/go-imap/v2": "IMAP's maintained client, in beta only",
}

// TestRequirements keeps the root go.mod to what the module's packages
// build with: every requirement it names directly is a module that a
// package of this module (not only its tests) imports, so that a test's
// helper — a fake server, a tool that tests run — lives in the test
// rather than in every user's module graph; and none is a pre-release
// (v1.2.3-rc.1), which a user would inherit as the version to build with.
// Pseudo-versions (v0.0.0-20240101000000-abcdef123456) name a commit of a
// module that has no release, and are allowed.
//
// A module whose every version is a pre-release is named, with the reason
// it is used all the same, in prereleaseOnly.
func TestRequirements(t *testing.T) {
	out, err := exec.Command("go", "mod", "edit", "-json").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var mod struct {
		Require []struct {
			Path, Version string
			Indirect      bool
		}
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	used := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		used[m] = true
	}
	prerelease := regexp.MustCompile(`^v\d+\.\d+\.\d+-`)
	pseudo := regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)
	for _, r := range mod.Require {
		if !r.Indirect && !used[r.Path] {
			t.Errorf("go.mod requires %s, which no package of the module imports, only tests: give its tests another way, such as a fake of their own on the standard library", r.Path)
		}
		if prerelease.MatchString(r.Version) && !pseudo.MatchString(r.Version) && prereleaseOnly[r.Path] == "" {
			t.Errorf("go.mod requires %s %s, a pre-release: require a released version", r.Path, r.Version)
		}
	}
}
