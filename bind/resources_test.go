package bind_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/sqldb/pgdb"
)

// TestLoadDatabaseAndStore fills a *sql.DB and a *kv.Store from their
// URLs, as a bucket is filled, and Close closes them.
func TestLoadDatabaseAndStore(t *testing.T) {
	dir := t.TempDir()
	var env struct {
		DB     *sql.DB   `bind:"DB"`
		Memory *kv.Store `bind:"MEMORY,default=mem://"`
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"DB": "sqlite://" + filepath.ToSlash(dir) + "/app.db"})}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`CREATE TABLE t(x)`); err != nil {
		t.Fatal(err)
	}
	if err := env.Memory.Put(t.Context(), "k", []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	if err := bind.Close(&env); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Ping(); err == nil {
		t.Error("the database is open after Close")
	}
}

// TestLoadResourceProblems reports a bad URL of each kind as a Problem, and
// closes what was opened.
func TestLoadResourceProblems(t *testing.T) {
	var env struct {
		Good *sql.DB   `bind:"GOOD"`
		DB   *sql.DB   `bind:"DB"`
		KV   *kv.Store `bind:"KV"`
	}
	err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{
		"GOOD": "sqlite://" + filepath.ToSlash(t.TempDir()) + "/ok.db",
		"DB":   "mysql://root:hunter2@localhost/db",
		"KV":   "mem://?size=1",
	})})
	var berr *bind.Error
	if !errors.As(err, &berr) || len(berr.Problems) != 2 || !errors.Is(err, bind.ErrInvalid) {
		t.Fatalf("Load = %v, want two invalid problems", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the problem shows the password: %v", err)
	}
	if env.Good != nil {
		t.Error("a failed Load filled the struct")
	}
}

// TestLoadPostgresMessages keeps the password of a postgres URL out of a
// Problem when the server refuses it.
func TestLoadPostgresMessages(t *testing.T) {
	srv := pgtest.Start(t)
	var env struct {
		DB *sql.DB `bind:"DB"`
	}
	wrong := strings.Replace(srv.URL, srv.Password, "Sekr1t-wrong", 1)
	err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"DB": wrong})})
	if err == nil {
		t.Fatal("Load with a wrong password = nil")
	}
	if strings.Contains(err.Error(), "Sekr1t-wrong") || strings.Contains(err.Error(), srv.Password) {
		t.Errorf("the problem shows a password: %v", err)
	}
	// The server's role is a superuser, which pgdb refuses unless told.
	err = bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"DB": srv.URL})})
	if !errors.Is(err, pgdb.ErrPrivilegedRole) || strings.Contains(err.Error(), srv.Password) {
		t.Errorf("Load of a superuser's URL = %v, want a problem that wraps pgdb.ErrPrivilegedRole without the password", err)
	}
	if err := bind.Load(t.Context(), &env, &bind.Options{LookupEnv: vars(map[string]string{"DB": srv.URL + "&allow_superuser=true"})}); err != nil {
		t.Fatal(err)
	}
	defer bind.Close(&env)
	if _, err := sqldb.Query(t.Context(), env.DB, "SELECT 1", nil, nil); err != nil {
		t.Error(err)
	}
}
