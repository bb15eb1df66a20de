package warmstack

import (
	"runtime"
)

// A Pool runs calls on goroutines that it keeps between calls. At most
// MaxIdle of them wait for work; a call that finds none waiting starts
// one, which stays if there is room. The zero Pool is not usable; use
// New.
type Pool struct {
	idle chan *worker
}

// New returns a Pool that keeps at most maxIdle goroutines waiting for
// calls; maxIdle below 1 is taken as 1.
func New(maxIdle int) *Pool {
	return &Pool{idle: make(chan *worker, max(maxIdle, 1))}
}

// A worker is one goroutine of a Pool, with the channels that hand it a
// call and hand back how the call ended.
type worker struct {
	calls chan func()
	ended chan ending
}

// An ending is how a call ended: returned, panicked with value, or
// ended its goroutine with runtime.Goexit.
type ending struct {
	panicked bool
	value    any
	exited   bool
}

// Do runs f on one of the pool's goroutines and returns once f has. A
// panic in f panics again in Do's caller, with the same value; a
// runtime.Goexit in f ends Do's caller too.
func (p *Pool) Do(f func()) {
	var w *worker
	select {
	case w = <-p.idle:
	default:
		w = &worker{calls: make(chan func()), ended: make(chan ending)}
		go w.serve(p)
	}
	w.calls <- f
	e := <-w.ended
	switch {
	case e.exited:
		runtime.Goexit()
	case e.panicked:
		panic(e.value)
	}
}

// serve runs the calls handed to w, and waits among the pool's idle
// goroutines between them, or ends when there is no room there.
func (w *worker) serve(p *Pool) {
	for f := range w.calls {
		if !w.run(f) {
			return // runtime.Goexit: this goroutine is ending
		}
		select {
		case p.idle <- w:
		default:
			return
		}
	}
}

// run runs f and hands back how it ended. It reports false when f called
// runtime.Goexit, which ends the goroutine once run's deferred call is
// done.
func (w *worker) run(f func()) (returned bool) {
	defer func() {
		if returned {
			return
		}
		v := recover()
		// A nil recover with returned unset is runtime.Goexit (a
		// panic(nil) recovers as a *runtime.PanicNilError).
		w.ended <- ending{panicked: v != nil, value: v, exited: v == nil}
	}()
	f()
	w.ended <- ending{}
	return true
}
