package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A ClaimStore records which interrupts have been resumed, so that each is
// resumed at most once: Resume claims an interrupt's ID after it has
// checked the interrupt and the decisions, and before anything runs, and a
// second Resume of the same interrupt gets ErrInterruptClaimed. Processes
// that resume each other's interrupts share one store.
type ClaimStore interface {
	// Claim records id as claimed. It reports true if this call claimed
	// it, and false if it was claimed before, by any process sharing the
	// store; of concurrent calls for one id, exactly one reports true. An
	// error means the store could not say; Resume then runs nothing. It
	// must be safe for concurrent use.
	Claim(ctx context.Context, id string) (bool, error)
}

// defaultClaims is the claim store of a nil Options.Claims: this process's
// memory.
var defaultClaims = &MemoryClaims{}

// MemoryClaims is a ClaimStore in memory, for one process. It keeps every
// ID claimed (16 bytes and a map entry each) for as long as it lives. The
// zero value is ready to use.
type MemoryClaims struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

// Claim records id in memory.
func (m *MemoryClaims) Claim(_ context.Context, id string) (bool, error) {
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

// DirClaims is a ClaimStore of files in a directory, one empty file per
// claimed ID, created with O_EXCL: the processes of one machine (or of a
// file system with exclusive create, which local ones have) that name the
// same directory share it. The directory must exist.
type DirClaims struct {
	Dir string
}

// Claim creates the file named id in the directory.
func (d DirClaims) Claim(_ context.Context, id string) (bool, error) {
	if !validID(id) {
		return false, fmt.Errorf("agent: claim %q: not an interrupt ID", id)
	}
	f, err := os.OpenFile(filepath.Join(d.Dir, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("agent: claim %q: %w", id, err)
	}
	return true, f.Close()
}
