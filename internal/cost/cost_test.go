package cost

import (
	"fmt"
	"runtime"
	"testing"
)

// recorder is a testing.TB that keeps the failures Linear reports.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper()                         {}
func (r *recorder) Logf(format string, args ...any) { r.TB.Logf(format, args...) }
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

var sink int

// TestLinear checks that Linear passes work in proportion to its size, in
// CPU and in allocations, and fails work that grows with the square of it;
// that LinearAllocs does the same in allocations, and does not look at
// CPU time; and that LinearGoroutines does what Linear does for work that
// hands each piece of itself to another goroutine, counting that
// goroutine's CPU time too, and gives back the processors it took.
func TestLinear(t *testing.T) {
	line := func(n int) {
		s := make([]int, n)
		for i := range s {
			s[i] = i * i
		}
		for range 40 {
			for _, v := range s {
				sink += v
			}
		}
	}
	squareCPU := func(n int) {
		for i := range n {
			for j := range n {
				sink += i ^ j
			}
		}
	}
	squareAllocs := func(n int) {
		for range n {
			sink += len(make([]byte, n))
		}
	}
	// handed runs work on n pieces, each handed to another goroutine over
	// an unbuffered channel, which does piece(i, n) with it.
	handed := func(piece func(i, n int)) func(int) {
		return func(n int) {
			pieces := make(chan int)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := range pieces {
					piece(i, n)
				}
			}()
			for i := range n {
				pieces <- i
			}
			close(pieces)
			<-done
		}
	}
	lineHanded := handed(func(i, n int) { sink += i * i })
	squareHanded := handed(func(i, n int) {
		s := 0
		for j := range n {
			s += i ^ j
		}
		sink += s
	})
	// pooled allocates bytes(n) as a pool would that the large size never
	// finds a buffer in and the small size finds one in on every measured
	// run but its first: a chance the race detector and collections give.
	pooled := func(bytes func(n int) int) func(int) {
		calls := map[int]int{}
		return func(n int) {
			calls[n]++
			if n > 10_000 || calls[n] == 2 { // 1: the warm-up; 2: the first measured run
				sink += len(make([]byte, bytes(n)))
			}
		}
	}
	type check func(testing.TB, string, int, int, func(int))
	for _, tt := range []struct {
		name         string
		small, large int
		work         func(int)
		pass         bool
		check        check
	}{
		{"line", 100_000, 400_000, line, true, Linear},
		{"square in CPU", 3_000, 12_000, squareCPU, !HasCPU, Linear}, // milliseconds at the small size, over the floor Linear gives CPU time
		{"square in bytes", 1_000, 8_000, squareAllocs, false, Linear},
		{"sizes too close", 1_000, 2_000, line, false, Linear},
		{"a line in pooled buffers", 10_000, 40_000, pooled(func(n int) int { return 64 * n }), true, Linear},
		{"a square in pooled buffers", 1_000, 16_000, pooled(func(n int) int { return n * n }), false, Linear},
		{"allocations of a line", 100_000, 400_000, line, true, LinearAllocs},
		{"allocations of a square in CPU", 3_000, 12_000, squareCPU, true, LinearAllocs},
		{"allocations of a square in bytes", 1_000, 8_000, squareAllocs, false, LinearAllocs},
		{"a line handed over", 25_000, 100_000, lineHanded, true, LinearGoroutines},
		{"a square handed over", 4_000, 16_000, squareHanded, !HasCPU, LinearGoroutines},
		{"a square in bytes, with goroutines", 1_000, 8_000, squareAllocs, false, LinearGoroutines},
	} {
		t.Run(tt.name, func(t *testing.T) {
			procs := runtime.GOMAXPROCS(0)
			r := &recorder{TB: t}
			tt.check(r, tt.name, tt.small, tt.large, tt.work)
			if pass := len(r.failures) == 0; pass != tt.pass {
				t.Errorf("%s: failures %q, want pass %v", tt.name, r.failures, tt.pass)
			}
			if got := runtime.GOMAXPROCS(0); got != procs {
				t.Errorf("GOMAXPROCS is %d after the check, %d before", got, procs)
			}
		})
	}
}
