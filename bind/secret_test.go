package bind_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/bind"
)

func TestSecretRedacted(t *testing.T) {
	const value = "hunter2"
	s := bind.Secret(value)
	type holder struct {
		Name  string
		Token bind.Secret
	}
	h := holder{Name: "svc", Token: s}

	var shown []string
	for _, format := range []string{"%v", "%+v", "%s", "%q", "%#v", "%x", "%X", "%d", "%10s"} {
		shown = append(shown,
			fmt.Sprintf(format, s),
			fmt.Sprintf(format, h),
			fmt.Sprintf(format, &h),
			fmt.Sprintf(format, []bind.Secret{s}),
			fmt.Sprintf(format, map[string]bind.Secret{"k": s}),
		)
	}
	shown = append(shown, fmt.Sprint(s), fmt.Sprintln(h), s.String(), s.GoString(), fmt.Errorf("login with %v", s).Error())
	for _, v := range []any{s, h, &h, map[string]any{"token": s}} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T) = %v", v, err)
		}
		shown = append(shown, string(data))
	}
	var logs bytes.Buffer
	for _, handler := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		log := slog.New(handler)
		log.Info("start", "token", s, "env", h, slog.Any("ptr", &h), slog.Group("g", "token", s))
	}
	shown = append(shown, logs.String())

	for _, out := range shown {
		if strings.Contains(out, value) {
			t.Errorf("the secret's value is visible in %q", out)
		}
		if !strings.Contains(out, "REDACTED") {
			t.Errorf("%q does not say REDACTED", out)
		}
	}
	// A problem with a Secret binding does not quote its value.
	config := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(config, []byte(`{"TOKEN":{"value":"`+value+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var env struct {
		Token bind.Secret `bind:"TOKEN"`
	}
	err := bind.Load(t.Context(), &env, &bind.Options{ConfigFile: config, LookupEnv: vars(nil)})
	if err == nil || strings.Contains(err.Error(), value) {
		t.Errorf("Load = %v, want an error that does not show the secret", err)
	}

	if got := s.Reveal(); got != value {
		t.Errorf("Reveal() = %q, want %q", got, value)
	}
}
