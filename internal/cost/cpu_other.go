//go:build !linux

package cost

import "time"

const hasThreadCPU = false

// threadCPU returns zero: this system has no clock of a thread's CPU time
// that the standard library reaches.
func threadCPU() time.Duration { return 0 }

// processCPU returns zero, as threadCPU does, so that CPU time is measured
// on every system alike or on none.
func processCPU() time.Duration { return 0 }
