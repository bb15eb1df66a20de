package replay

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// Capture runs check with a testing.TB that keeps the failures reported
// to it instead of failing t, and returns them: how a test checks that a
// checker such as [CheckManifest] or providertest.Live fails when it should.
func Capture(t testing.TB, check func(testing.TB)) []string {
	f := &failures{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(f)
	}()
	<-done
	return f.msgs
}

// failures is a testing.TB that keeps the failures it is told of; Fatal
// and Fatalf end the goroutine, as they do a test's.
type failures struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *failures) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *failures) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *failures) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }
