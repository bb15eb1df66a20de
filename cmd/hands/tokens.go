package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callerNameRE is what a caller's name in --tokens or HANDS_TOKENS may
// be: it is the verified user's ID that results, request states and
// enabled predicates are kept by, and it is printed at startup.
var callerNameRE = regexp.MustCompile(`^[A-Za-z0-9._@-]{1,64}$`)

// callerTokens returns the Verify of the callers that --tokens FILE (one
// NAME=TOKEN a line; blank lines and lines starting with # are skipped)
// or else HANDS_TOKENS (NAME=TOKEN pairs, comma-separated) name, and their
// names; nil when neither names any. No error shows a token: a line or
// pair that cannot be read is named by its place.
func callerTokens(file, env string) (auth.TokenVerifier, []string, error) {
	var entries []string
	where := func(i int) string { return fmt.Sprintf("pair %d of HANDS_TOKENS", i+1) }
	switch {
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("--tokens: %w", err)
		}
		entries = strings.Split(string(data), "\n")
		where = func(i int) string { return fmt.Sprintf("line %d of %s", i+1, file) }
	case env != "":
		entries = strings.Split(env, ",")
	default:
		return nil, nil, nil
	}
	tokens := map[string]string{}
	var names []string
	for i, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" || (file != "" && strings.HasPrefix(e, "#")) {
			continue
		}
		name, token, ok := strings.Cut(e, "=")
		name, token = strings.TrimSpace(name), strings.TrimSpace(token)
		switch {
		case !ok || token == "":
			return nil, nil, &usageError{msg: where(i) + " is not NAME=TOKEN"}
		case !callerNameRE.MatchString(name):
			return nil, nil, &usageError{msg: fmt.Sprintf("%s names the caller %q: a name is 1 to 64 letters, digits, '.', '_', '@' or '-'", where(i), name)}
		}
		if _, dup := tokens[name]; dup {
			return nil, nil, &usageError{msg: fmt.Sprintf("%s names the caller %q again", where(i), name)}
		}
		tokens[name] = token
		names = append(names, name)
	}
	if len(tokens) == 0 {
		if file != "" {
			return nil, nil, &usageError{msg: file + " names no caller: write one NAME=TOKEN line for each"}
		}
		return nil, nil, &usageError{msg: "HANDS_TOKENS names no caller: give NAME=TOKEN pairs, comma-separated"}
	}
	verify, err := mcpserver.StaticTokens(tokens)
	if err != nil {
		return nil, nil, &usageError{msg: strings.TrimPrefix(err.Error(), "mcpserver: ")}
	}
	return verify, names, nil
}
