package mcpclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
)

// maxStoredTokenBytes bounds a stored token's file: what is read back is
// a few hundred bytes, and a larger file is not one FileStore wrote.
const maxStoredTokenBytes = 1 << 20

// A StoredToken is what a TokenStore keeps for one server: the tokens, and
// what refreshing them takes.
type StoredToken struct {
	Token        *oauth2.Token `json:"token"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"` // an oauth2.AuthStyle
	Scopes       []string      `json:"scopes,omitempty"`
}

// A TokenStore keeps the OAuth tokens of servers, by their endpoint URL,
// across runs. Its methods may be called concurrently.
type TokenStore interface {
	// Load returns what is stored for the server, or nil and no error
	// when nothing is.
	Load(ctx context.Context, server string) (*StoredToken, error)
	// Save replaces what is stored for the server.
	Save(ctx context.Context, server string, t *StoredToken) error
}

// NoStore keeps nothing: every run authorizes again.
var NoStore TokenStore = noStore{}

type noStore struct{}

func (noStore) Load(context.Context, string) (*StoredToken, error) { return nil, nil }
func (noStore) Save(context.Context, string, *StoredToken) error   { return nil }

// DefaultTokenDir returns where OAuth's default FileStore keeps tokens:
// hands/oauth in the user's config directory (os.UserConfigDir).
func DefaultTokenDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "hands", "oauth"), nil
}

// A FileStore keeps each server's tokens in a file of its own in Dir,
// named by a hash of the server's URL, readable and writable by the user
// alone (mode 0600, in a directory of mode 0700). A file is replaced
// whole, by renaming, so a reader never sees half of one.
type FileStore struct {
	Dir string

	mu sync.Mutex
}

func (s *FileStore) path(server string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+".json")
}

// Load reads the server's file. A file that others may read is refused:
// the tokens in it may have been seen.
func (s *FileStore) Load(_ context.Context, server string) (*StoredToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(s.path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("token file %s has mode %v; it must be readable by its owner alone (0600)", f.Name(), info.Mode().Perm())
	}
	if info.Size() > maxStoredTokenBytes {
		return nil, fmt.Errorf("token file %s holds %d bytes, more than a token file can", f.Name(), info.Size())
	}
	var t StoredToken
	if err := json.NewDecoder(f).Decode(&t); err != nil {
		return nil, fmt.Errorf("token file %s: %w", f.Name(), err)
	}
	return &t, nil
}

// Save writes the server's file, with mode 0600.
func (s *FileStore) Save(_ context.Context, server string, t *StoredToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), s.path(server))
}
