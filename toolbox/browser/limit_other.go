//go:build !linux

package browser

// limitTree does nothing: process memory limits are set on Linux only.
func limitTree(pid int, bytes int64) error { return nil }
