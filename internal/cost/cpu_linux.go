package cost

import (
	"time"

	"golang.org/x/sys/unix"
)

const hasThreadCPU = true

// threadCPU returns the CPU time of the calling thread so far.
func threadCPU() time.Duration { return clock(unix.CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID") }

// processCPU returns the CPU time of the process so far, all its threads'.
func processCPU() time.Duration {
	return clock(unix.CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID")
}

func clock(id int32, name string) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		panic("cost: " + name + ": " + err.Error())
	}
	return time.Duration(ts.Nano())
}
