package main

import (
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/mailpittest"
)

// TestServices checks HANDS_SERVICES: call_service and describe_service
// reach the API it names, and a mistake in it is an error naming it.
func TestServices(t *testing.T) {
	inTempDir(t)
	mp := mailpittest.Start(t, nil)
	t.Setenv("MAILPIT_AUTH", "Basic dXNlcjpwYXNz")
	t.Setenv("HANDS_SERVICES", "mail="+mp.APIURL+"|"+mp.APIURL+"/api/v1/swagger.json|header=Authorization:MAILPIT_AUTH")
	out, stderr, err := runCmd(t, "call", "call_service", `{"service":"mail","operation":"SendMessageParams","arguments":"{\"body\":{\"From\":{\"Email\":\"a@example.com\"},\"To\":[{\"Email\":\"b@example.com\"}],\"Subject\":\"hi\"}}"}`)
	if err != nil || !strings.Contains(out, `"ID":`) {
		t.Fatalf("call call_service: %v\n%s\n%s", err, out, stderr)
	}
	out, stderr, err = runCmd(t, "call", "describe_service", `{"service":"mail","query":"search messages"}`)
	if err != nil || !strings.Contains(out, "SearchParams: GET /api/v1/search") {
		t.Fatalf("call describe_service: %v\n%s\n%s", err, out, stderr)
	}
	out, _, err = runCmd(t, "schema", "call_service")
	if err != nil || !strings.Contains(out, "Services: mail.") {
		t.Errorf("schema call_service: %v\n%s", err, out)
	}

	t.Setenv("MAILPIT_AUTH", "")
	if _, _, err := runCmd(t, "call", "describe_service", `{"service":"mail"}`); err == nil || !strings.Contains(err.Error(), "MAILPIT_AUTH") {
		t.Errorf("without the credential's variable: %v, want an error naming MAILPIT_AUTH", err)
	}
	t.Setenv("HANDS_SERVICES", "mail=ftp://x|y")
	if _, _, err := runCmd(t, "schema"); err == nil || !strings.Contains(err.Error(), "HANDS_SERVICES") {
		t.Errorf("an ftp base URL: %v, want an error naming HANDS_SERVICES", err)
	}
}
