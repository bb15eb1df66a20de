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
// CPU and in allocations, and fails work that grows with the square of it.
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
	}{
		{"line", 100_000, 400_000, line, true},
		{"square in CPU", 3_000, 12_000, squareCPU, !HasCPU}, // milliseconds at the small size, over the floor Linear gives CPU time
		{"square in bytes", 1_000, 8_000, squareAllocs, false},
		{"sizes too close", 1_000, 2_000, line, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Linear(r, tt.name, tt.small, tt.large, tt.work)
			if pass := len(r.failures) == 0; pass != tt.pass {
				t.Errorf("Linear(%s) failures %q, want pass %v", tt.name, r.failures, tt.pass)
			}
		})
	}
}
