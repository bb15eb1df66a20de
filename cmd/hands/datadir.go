package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/sqldb/sqlitedb"
	"github.com/hands-go/hands/toolbox/files"
	"gocloud.dev/blob"
)

// The data directory (dataDir) holds what hands keeps by default, laid
// out so that nothing but the hosted files is ever in the bucket:
//
//	DIR/            mode 0700
//	DIR/files/      the default bucket: host_file's files, public at /files/
//	DIR/kv.db       the default key-value store (and its -wal and -shm)
//	DIR/results.db  the results a budget cut (HANDS_RESULT_BUDGET), likewise
//	DIR/.layout     says that DIR is laid out this way
//
// Before the layout file, DIR itself was the bucket and kv.db lay among
// the hosted files, so that /files/kv.db served the store and host_file
// could overwrite it. migrateDataDir moves such a directory's files into
// files/.
const (
	bucketFolder = "files"
	kvFile       = "kv.db"
	resultsFile  = "results.db"
	layoutFile   = ".layout"
	layoutText   = "2\n" // the layout's version, which no earlier one wrote
)

// internalFiles are the names of the data directory that are not hosted
// files: they stay where they are when an old directory is migrated.
var internalFiles = map[string]bool{
	bucketFolder: true, layoutFile: true, layoutFile + ".tmp": true,
	kvFile: true, kvFile + "-wal": true, kvFile + "-shm": true, kvFile + "-journal": true,
	resultsFile: true, resultsFile + "-wal": true, resultsFile + "-shm": true, resultsFile + "-journal": true,
}

// openDataDir returns the data directory, created with mode 0700 and laid
// out as above, migrating an old one. It is called only by the commands
// that may write to it.
func openDataDir() (string, error) {
	dir, err := dataDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := migrateDataDir(dir); err != nil {
		return "", fmt.Errorf("lay out %s: %w", dir, err)
	}
	return dir, nil
}

// migrateDataDir lays out dir as the data directory, once: it makes the
// bucket's folder, moves every file and folder of an earlier layout but
// the store's into it (so that a file hosted at /files/KEY stays there),
// and writes the layout file last. Each step is a rename or is done again,
// so a run that stops half-way, or two that run at once, end in the same
// layout, and nothing is removed. A name that is already in the bucket's
// folder (an old key under files/ beside one of the same name at the top)
// is left where it is, and reported.
func migrateDataDir(dir string) error {
	if b, err := os.ReadFile(filepath.Join(dir, layoutFile)); err == nil && string(b) == layoutText {
		return nil
	}
	// The directory is the user's alone, like the store in it; earlier
	// releases made it so too, but a directory made by hand may not be.
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	bucket := filepath.Join(dir, bucketFolder)
	if err := os.Mkdir(bucket, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var kept []string
	for _, e := range entries {
		name := e.Name()
		if internalFiles[name] {
			continue
		}
		to := filepath.Join(bucket, name)
		if _, err := os.Lstat(to); err == nil {
			kept = append(kept, name)
			continue
		}
		if err := os.Rename(filepath.Join(dir, name), to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err // fs.ErrNotExist: another run moved it
		}
	}
	if len(kept) > 0 {
		return fmt.Errorf("%s and %s/ both hold %s; move them into %s/ by hand", dir, bucket, strings.Join(kept, ", "), bucket)
	}
	tmp := filepath.Join(dir, layoutFile+".tmp")
	if err := os.WriteFile(tmp, []byte(layoutText), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, layoutFile))
}

// A privateFile is a file of hands' that must not be in a served bucket.
type privateFile struct {
	what string // what it is, as the error names it
	path string
}

// privateFiles returns the files of this process that hold what no one but
// the user may read: the key-value store's and the SQL database's SQLite
// files, the config file, and the OAuth token store.
func privateFiles(ctx context.Context, configFile string, store *kv.Store, db *sql.DB) []privateFile {
	var files []privateFile
	var kvDB *sql.DB
	if store != nil && store.As(&kvDB) {
		for _, p := range sqliteFiles(ctx, kvDB) {
			files = append(files, privateFile{"HANDS_KV's database", p})
		}
	}
	if db != nil {
		if e, ok := sqldb.EngineOf(db); ok {
			if _, lite := e.(sqlitedb.Engine); lite {
				for _, p := range sqliteFiles(ctx, db) {
					files = append(files, privateFile{"HANDS_SQL's database", p})
				}
			}
		}
	}
	if configFile != "" {
		files = append(files, privateFile{"the config file", configFile})
	}
	if d, err := mcpclient.DefaultTokenDir(); err == nil {
		files = append(files, privateFile{"the OAuth token store", d})
	}
	return files
}

// sqliteFiles returns the files of a SQLite database's attached databases
// (none for one in memory).
func sqliteFiles(ctx context.Context, db *sql.DB) []string {
	rows, err := db.QueryContext(ctx, "PRAGMA database_list")
	if err != nil {
		return nil
	}
	defer rows.Close()
	var files []string
	for rows.Next() {
		var seq int
		var name, file string
		if rows.Scan(&seq, &name, &file) == nil && file != "" {
			files = append(files, file)
		}
	}
	return files
}

// checkApart reports an error if a private file lies in the directory of
// bucket, whose files host_file overwrites and serve --http serves to
// anyone: a bucket that is not a directory holds none of them.
func checkApart(ctx context.Context, bucket *blob.Bucket, private []privateFile) error {
	dir, ok, err := files.BucketDir(ctx, bucket)
	if err != nil || !ok {
		return err
	}
	dir = resolved(dir)
	for _, f := range private {
		if within(dir, resolved(f.path)) {
			return fmt.Errorf("%s, %s, is in the bucket's directory %s, whose files are public and which host_file writes: set HANDS_BUCKET to a directory of its own", f.what, f.path, dir)
		}
	}
	return nil
}

// resolved returns path made absolute with its symbolic links resolved,
// as far as it exists.
func resolved(path string) string {
	path, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within reports whether path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
