package claims

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A Store records IDs as claimed, so that each is claimed at most once.
// Processes that must not both act on one ID share a store.
type Store interface {
	// Claim records id as claimed. It reports true if this call claimed
	// it, and false if it was claimed before, by any process sharing the
	// store; of concurrent calls for one id, exactly one reports true. An
	// error means the store could not say, and the caller acts as if the
	// claim failed. It must be safe for concurrent use.
	Claim(ctx context.Context, id string) (bool, error)
}

// NewID returns a new ID: 128 random bits as 32 lower-case hexadecimal
// digits.
func NewID() string {
	id := make([]byte, 16)
	rand.Read(id) // never fails (crypto/rand)
	return hex.EncodeToString(id)
}

// ValidID reports whether id has the form NewID gives: 32 lower-case
// hexadecimal digits.
func ValidID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Memory is a Store in memory, for one process. It keeps every ID claimed
// (16 bytes and a map entry each) for as long as it lives. The zero value
// is ready to use.
type Memory struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

// Claim records id in memory.
func (m *Memory) Claim(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.ids[id]; ok {
		return false, nil
	}
	if m.ids == nil {
		m.ids = map[string]struct{}{}
	}
	m.ids[id] = struct{}{}
	return true, nil
}

// Dir is a Store of files in a directory, one empty file per claimed ID,
// created with O_EXCL: the processes of one machine (or of a file system
// with exclusive create, which local ones have) that name the same
// directory share it. The directory must exist. It refuses an ID that
// ValidID refuses.
type Dir struct {
	// Path is the directory.
	Path string
}

// Claim creates the file named id in the directory.
func (d Dir) Claim(_ context.Context, id string) (bool, error) {
	if !ValidID(id) {
		return false, fmt.Errorf("claims: claim %q: not an ID of 32 lower-case hexadecimal digits", id)
	}
	f, err := os.OpenFile(filepath.Join(d.Path, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claims: claim %q: %w", id, err)
	}
	return true, f.Close()
}
