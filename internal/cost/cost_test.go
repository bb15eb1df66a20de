package cost

import (
	"fmt"
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
// and that LinearAllocs does the same in allocations, and does not look
// at CPU time.
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
	for _, tt := range []struct {
		name         string
		small, large int
		work         func(int)
		pass         bool
		allocs       bool // LinearAllocs
	}{
		{"line", 100_000, 400_000, line, true, false},
		{"square in CPU", 3_000, 12_000, squareCPU, !HasCPU, false}, // milliseconds at the small size, over the floor Linear gives CPU time
		{"square in bytes", 1_000, 8_000, squareAllocs, false, false},
		{"sizes too close", 1_000, 2_000, line, false, false},
		{"allocations of a line", 100_000, 400_000, line, true, true},
		{"allocations of a square in CPU", 3_000, 12_000, squareCPU, true, true},
		{"allocations of a square in bytes", 1_000, 8_000, squareAllocs, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			linear := Linear
			if tt.allocs {
				linear = LinearAllocs
			}
			linear(r, tt.name, tt.small, tt.large, tt.work)
			if pass := len(r.failures) == 0; pass != tt.pass {
				t.Errorf("Linear(%s) failures %q, want pass %v", tt.name, r.failures, tt.pass)
			}
		})
	}
}
