package mailpittest_test

import (
	"encoding/json"
	"net/http"
	"net/smtp"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/mailpittest"
)

// TestStart sends a message to a started Mailpit over SMTP and finds it
// through the API, and reads the API's own document.
func TestStart(t *testing.T) {
	s := mailpittest.Start(t, nil)
	msg := "From: a@example.com\r\nTo: b@example.com\r\nSubject: hello from the test\r\n\r\nbody\r\n"
	if err := smtp.SendMail(s.SMTPAddr, nil, "a@example.com", []string{"b@example.com"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.APIURL + "/api/v1/messages")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Total    int `json:"total"`
		Messages []struct {
			Subject string `json:"Subject"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if list.Total != 1 || len(list.Messages) != 1 || list.Messages[0].Subject != "hello from the test" {
		t.Errorf("messages = %+v, want the one sent", list)
	}
	doc, err := http.Get(s.APIURL + "/api/v1/swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Body.Close()
	var head struct {
		Swagger string `json:"swagger"`
	}
	if err := json.NewDecoder(doc.Body).Decode(&head); err != nil || !strings.HasPrefix(head.Swagger, "2.") {
		t.Errorf("swagger.json: %v, version %q, want a Swagger 2.0 document", err, head.Swagger)
	}
}
