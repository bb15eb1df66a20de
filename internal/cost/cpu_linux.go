package cost

import (
	"time"

	"golang.org/x/sys/unix"
)

const hasThreadCPU = true

// threadCPU returns the CPU time of the calling thread so far.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic("cost: CLOCK_THREAD_CPUTIME_ID: " + err.Error())
	}
	return time.Duration(ts.Nano())
}
