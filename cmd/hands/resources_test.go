package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKVAcrossRuns stores a value with one command and reads it with
// another: the default store, in the user's data directory, persists.
func TestKVAcrossRuns(t *testing.T) {
	data := inTempDir(t)
	if _, _, err := runCmd(t, "call", "kv_put", `{"key":"user/name","value":"Ada"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "kv.db")); err != nil {
		t.Errorf("the default store is not in the data directory: %v", err)
	}
	stdout, _, err := runCmd(t, "call", "kv_get", `{"key":"user/name"}`)
	if err != nil || !strings.Contains(stdout, `"value":"Ada"`) {
		t.Errorf("kv_get in a second run = %q, %v", stdout, err)
	}
}

// TestSQLSetting serves sql_query and sql_schema only when HANDS_SQL is
// set, read-only unless HANDS_SQL_WRITE=true, whose name the description
// gives.
func TestSQLSetting(t *testing.T) {
	inTempDir(t)
	if _, _, err := runCmd(t, "call", "sql_query", `{"sql":"SELECT 1"}`); err == nil {
		t.Error("sql_query without HANDS_SQL ran")
	}
	t.Setenv("HANDS_SQL", "sqlite://"+filepath.ToSlash(t.TempDir())+"/app.db")
	t.Setenv("HANDS_SQL_WRITE", "true")
	if _, _, err := runCmd(t, "call", "sql_query", `{"sql":"CREATE TABLE notes(body TEXT)"}`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HANDS_SQL_WRITE", "false")
	if _, _, err := runCmd(t, "call", "sql_query", `{"sql":"INSERT INTO notes VALUES ('x')"}`); err == nil {
		t.Error("a read-only sql_query inserted a row")
	}
	stdout, _, err := runCmd(t, "call", "sql_schema", `{}`)
	if err != nil || !strings.Contains(stdout, "notes(body TEXT)") {
		t.Errorf("sql_schema = %q, %v", stdout, err)
	}
	tools, closeEnv, err := bundledTools(t.Context(), "", "http://127.0.0.1/files", "sql_query")
	if err != nil {
		t.Fatal(err)
	}
	defer closeEnv()
	if d := tools.sql[0].Spec().Description; !strings.Contains(d, "HANDS_SQL_WRITE=true") {
		t.Errorf("the read-only description does not name HANDS_SQL_WRITE=true: %q", d)
	}
}

// TestResourcePasswordsStayHidden sets HANDS_SQL, HANDS_KV and
// HANDS_BUCKET to URLs that carry a password where url.URL.Redacted does
// not hide it (the query, or a user's password with a bad escape) and
// checks that neither --help nor the error of a command that opens them
// shows it.
func TestResourcePasswordsStayHidden(t *testing.T) {
	const secret = "Sekr1t-4242"
	for _, c := range []struct{ env, url string }{
		{"HANDS_SQL", "postgres://app@127.0.0.1:1/db?sslmode=disable&password=" + secret},
		{"HANDS_SQL", "postgres://app@127.0.0.1:1/db?sslmode=disable&sslpassword=" + secret},
		{"HANDS_SQL", "postgres://app:" + secret + "%zz@127.0.0.1:1/db?sslmode=disable"},
		{"HANDS_SQL", "postgres://app@127.0.0.1:1/db?sslmode=disable&password=" + secret + "%zz"},
		{"HANDS_KV", "redis://127.0.0.1:1/0?password=" + secret},
		{"HANDS_KV", "redis://:" + secret + "%zz@127.0.0.1:1/0"},
		{"HANDS_BUCKET", "mem://app:" + secret + "@/?region=x"},
		{"HANDS_BUCKET", "mem://?token=" + secret},
	} {
		inTempDir(t)
		t.Setenv(c.env, c.url)
		for _, args := range [][]string{{"serve", "--help"}, {"call", "--help"}, {"call", "sql_query", `{"sql":"SELECT 1"}`}, {"call", "kv_get", `{"key":"k"}`}} {
			stdout, stderr, err := runCmd(t, args...)
			shown := stdout + stderr
			if err != nil {
				shown += err.Error()
			}
			if strings.Contains(shown, "Sekr1t") {
				t.Errorf("%s=%s hands %s shows the password:\n%s", c.env, c.url, strings.Join(args, " "), shown)
			}
		}
	}
}

// TestSQLReadOnlyDoesNotCreate names, read-only (HANDS_SQL_WRITE unset), a
// SQLite file that does not exist: the command fails with an error naming
// the path, and creates neither the file nor its directory.
func TestSQLReadOnlyDoesNotCreate(t *testing.T) {
	inTempDir(t)
	missing := filepath.Join(t.TempDir(), "typo", "app.db")
	t.Setenv("HANDS_SQL", "sqlite://"+filepath.ToSlash(missing))
	t.Setenv("HANDS_SQL_WRITE", "false")
	_, stderr, err := runCmd(t, "call", "sql_query", `{"sql":"SELECT 1"}`)
	if err == nil || !strings.Contains(err.Error()+stderr, missing) {
		t.Errorf("sql_query on a missing file, read-only = %v %s; want an error naming %s", err, stderr, missing)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("the missing file's directory: %v, want it not created", err)
	}
}
