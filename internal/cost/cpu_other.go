//go:build !linux

package cost

import "time"

const hasThreadCPU = false

// threadCPU returns zero: this system has no clock of a thread's CPU time
// that the standard library reaches.
func threadCPU() time.Duration { return 0 }
