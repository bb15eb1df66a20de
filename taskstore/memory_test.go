package taskstore_test

import (
	"testing"
	"time"

	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/taskstore/taskstoretest"
)

func TestMemory(t *testing.T) {
	taskstoretest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
		return taskstore.NewMemory(&taskstore.MemoryOptions{Now: now})
	})
}
