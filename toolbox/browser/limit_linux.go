package browser

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// limitTree bounds the writable memory (RLIMIT_DATA) of the process pid
// and of every process below it: those it starts later inherit the limit.
// V8 and PartitionAlloc reserve their address space without write access,
// which the limit does not count, and a page's allocations beyond it
// fail.
func limitTree(pid int, bytes int64) error {
	lim := &unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	var first error
	for _, p := range append([]int{pid}, descendants(pid)...) {
		if err := unix.Prlimit(p, unix.RLIMIT_DATA, lim, nil); err != nil && first == nil && p == pid {
			first = err
		}
	}
	return first
}

// descendants returns the processes below pid, read from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(p); pp > 0 {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 0; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// ppid returns the parent of process p, or 0.
func ppid(p int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(string(f[1]))
	return n
}
