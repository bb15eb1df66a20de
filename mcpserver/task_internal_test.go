package mcpserver

import (
	"testing"
)

// BenchmarkTaskHandle measures what a task's ID costs each call that
// names it: sealing the store's ID for its owner when the task is created
// (and listed), opening it on every tasks/get, tasks/update and
// tasks/cancel.
func BenchmarkTaskHandle(b *testing.B) {
	s, err := newStateSealer(&Options{StateKey: make([]byte, StateKeyBytes)})
	if err != nil {
		b.Fatal(err)
	}
	r := newTaskRunner(TaskOptions{}, s.aead)
	id, owner := randomID(), "user caller7"
	handle := r.sealHandle(id, owner)
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.sealHandle(id, owner)
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got, err := r.openHandle(handle, owner); err != nil || got != id {
				b.Fatal(got, err)
			}
		}
	})
	b.Run("open-another-owner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.openHandle(handle, "user caller8"); err == nil {
				b.Fatal("another owner opened the handle")
			}
		}
	})
}
