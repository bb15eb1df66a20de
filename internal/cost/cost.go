// Package cost measures what a piece of work costs in units that the load
// of the machine does not change: the CPU time of the thread that does it,
// and the bytes and objects allocated while it runs. Tests use it to check
// that a cost grows in proportion to an input, not faster: a wall-clock
// bound fails on a busy machine and lets a quadratic cost through on an
// idle one, while a ratio of two sizes measured alike does neither.
package cost

import (
	"runtime"
	"testing"
	"time"
)

// A Cost is what one run of some work took.
type Cost struct {
	// CPU is the CPU time of the thread that ran the work, which does not
	// count the time the thread waited for a processor. It is zero where
	// the system has no clock of a thread's CPU time (see [HasCPU]).
	CPU time.Duration
	// Bytes and Allocs are the bytes and heap objects the whole process
	// allocated while the work ran.
	Bytes, Allocs uint64
}

// HasCPU reports whether [Measure] measures CPU time on this system.
const HasCPU = hasThreadCPU

// Measure runs work on the calling goroutine, locked to its thread, and
// returns its cost. Work that hands part of itself to other goroutines is
// charged only the part that runs on the caller's thread, and the
// switches of threads each hand-over takes (see [LinearGoroutines]).
func Measure(work func()) Cost {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return measure(work, threadCPU)
}

// measure runs work and returns its cost, with cpu the clock of its CPU
// time.
func measure(work func(), cpu func() time.Duration) Cost {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := cpu()
	work()
	spent := cpu() - start
	runtime.ReadMemStats(&after)
	return Cost{CPU: spent, Bytes: after.TotalAlloc - before.TotalAlloc, Allocs: after.Mallocs - before.Mallocs}
}

// measureProcess runs work on the calling goroutine, not locked to its
// thread, and returns its cost in the CPU time of the whole process.
func measureProcess(work func()) Cost { return measure(work, processCPU) }

// runs is how many times Linear measures each size; it keeps the least.
const runs = 3

// Linear checks that the cost of work grows no faster than the size it is
// given: work(large) may cost at most 2.5 times large/small times what
// work(small) costs, in CPU time, in bytes and in objects allocated. A cost
// in proportion to the size passes with room for the noise of caches and
// collections (fixed costs make the ratio smaller still), and a cost that
// grows with the square of the size fails as soon as large is four times
// small or more: it is then at least 16 times, against a bound of 10. Each
// size is measured runs times, alternately, after one run to warm up, and
// the least CPU time of each is compared, so that a pause of the machine
// during one run does not count; in allocations, the large size's least
// is compared with the small size's most, since a run that finds its
// buffers in a sync.Pool allocates none of them, and which runs do is
// chance. Small allocations are forgiven a little
// slack (64 KiB, 64 objects), and a CPU time below a millisecond counts as
// one.
func Linear(t testing.TB, what string, small, large int, work func(size int)) {
	t.Helper()
	linear(t, what, small, large, work, Measure, true)
}

// LinearAllocs is Linear without its check of CPU time: it checks the
// bytes and the objects work allocates, which neither the machine nor the
// runtime's state changes. It is for work that allocates megabytes,
// whose CPU time is then mostly the kernel's, mapping again the pages the
// runtime gave back to the system between runs: how many it gave back
// depends on when its background scavenger ran, so the small size may
// find all its pages mapped and the large size few (reading a line over
// a limit of 1.5 MiB, in buffers of 8 MiB: none of the small size's pages
// faulted, 600 to 900 of the large size's, and it took 11 to 21 times
// the CPU time at 4 times the size, where its work took 4), and a ratio
// of CPU times shows that, not the work. The CPU time of the code such
// work runs is better checked on inputs that allocate less.
func LinearAllocs(t testing.TB, what string, small, large int, work func(size int)) {
	t.Helper()
	linear(t, what, small, large, work, Measure, false)
}

// LinearGoroutines is Linear for work that hands what it does to other
// goroutines as it goes, such as a reader passing each message it decodes
// to the goroutine that takes it. Linear charges work the CPU time of the
// thread it is locked to, which cannot run the goroutine it hands to: each
// hand-over is then a switch of the system's threads, whose CPU time in
// the kernel and in the runtime's scheduler depends on the load of the
// machine, not on the work. (Reading 28,000 small messages handed over
// one at a time, a switch cost the reading thread from 1 to 75 µs, nine
// tenths of its CPU time or more, and it took 9 to 17 times the CPU time
// at 4 times the size.) LinearGoroutines runs work with one processor
// (GOMAXPROCS 1) and not locked to a thread, so that a hand-over is a
// switch of goroutines on the same thread, and charges it the CPU time of
// the whole process: what every goroutine it hands to does is counted,
// and so is what anything else running in the process does, so that it
// must not measure in parallel with other tests.
func LinearGoroutines(t testing.TB, what string, small, large int, work func(size int)) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	linear(t, what, small, large, work, measureProcess, true)
}

func linear(t testing.TB, what string, small, large int, work func(size int), measure func(func()) Cost, cpu bool) {
	t.Helper()
	if large < 4*small {
		t.Fatalf("cost.Linear(%s): sizes %d and %d are too close to tell a square from a line; make the large at least 4 times the small", what, small, large)
	}
	work(small)
	work(large)
	least := func(a, b Cost) Cost {
		return Cost{CPU: min(a.CPU, b.CPU), Bytes: min(a.Bytes, b.Bytes), Allocs: min(a.Allocs, b.Allocs)}
	}
	// The small size is charged the most it allocated in a run and the
	// large size the least: a buffer taken from a sync.Pool costs a run
	// nothing and one the pool had not costs it the buffer, and which run
	// finds one is chance (the race detector drops a quarter of what is put
	// back, and a collection empties pools), so the small size's least may
	// be a run that found its buffers and the large size's every run one
	// that did not, a ratio that says nothing of the work. A square still
	// shows: the large size's least is then more than the bound times any
	// run of the small size.
	var s, l Cost
	var smallBytes, smallAllocs uint64 // the small size's most
	for i := range runs {
		cs := measure(func() { work(small) })
		cl := measure(func() { work(large) })
		smallBytes, smallAllocs = max(smallBytes, cs.Bytes), max(smallAllocs, cs.Allocs)
		if i == 0 {
			s, l = cs, cl
			continue
		}
		s, l = least(s, cs), least(l, cl)
	}
	s.Bytes, s.Allocs = smallBytes, smallAllocs
	bound := 2.5 * float64(large) / float64(small)
	t.Logf("%s: size %d: %v CPU, %d bytes, %d objects (the most of a run); size %d: %v CPU, %d bytes, %d objects (the least); bound %.0f×",
		what, small, s.CPU, s.Bytes, s.Allocs, large, l.CPU, l.Bytes, l.Allocs, bound)
	if cpu && HasCPU {
		if ratio := float64(l.CPU) / float64(max(s.CPU, time.Millisecond)); ratio > bound {
			t.Errorf("%s: at size %d it took %v of CPU, %.1f times the %v at size %d; a cost in proportion to the size is at most %.0f times", what, large, l.CPU, ratio, s.CPU, small, bound)
		}
	}
	if l.Bytes > uint64(bound*float64(s.Bytes))+64<<10 {
		t.Errorf("%s: at size %d it allocated %d bytes, %.1f times the %d at size %d; a cost in proportion to the size is at most %.0f times", what, large, l.Bytes, float64(l.Bytes)/float64(max(s.Bytes, 1)), s.Bytes, small, bound)
	}
	if l.Allocs > uint64(bound*float64(s.Allocs))+64 {
		t.Errorf("%s: at size %d it allocated %d objects, %.1f times the %d at size %d; a cost in proportion to the size is at most %.0f times", what, large, l.Allocs, float64(l.Allocs)/float64(max(s.Allocs, 1)), s.Allocs, small, bound)
	}
}
