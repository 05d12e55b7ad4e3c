package mcp

import "sync/atomic"

// keptWorkers is how many idle workers wait for the next tool call: more calls than that at once
// still each get a goroutine of their own, which ends after its call instead of waiting.
const keptWorkers = 4

// workers runs tool calls on goroutines kept between calls, instead of on the goroutine the
// go-sdk starts for each request. A space search runs modernc.org/sqlite, deep Go code: on a
// fresh goroutine (8 kB of stack) its stack grew and was copied several times per call, about
// a tenth of the server's CPU for a rare-term search; a kept worker's stack has grown already.
// No call waits for another: a call no idle worker takes starts a new one (kept afterwards while
// fewer than keptWorkers wait). A nil *workers runs each call on the caller's goroutine.
type workers struct {
	jobs chan func()   // unbuffered: a send succeeds only when an idle worker takes it
	quit chan struct{} // closed when the server ends: idle workers end, busy ones after their call
	idle atomic.Int32  // workers waiting for a call
}

func newWorkers() *workers {
	return &workers{jobs: make(chan func()), quit: make(chan struct{})}
}

// do runs f on a worker and returns when it has returned; f sees the caller's context through
// its closure, so a cancelled call stops as it did on the caller's goroutine.
func (w *workers) do(f func()) {
	if w == nil {
		f()
		return
	}
	done := make(chan struct{})
	job := func() {
		defer close(done)
		f()
	}
	select {
	case w.jobs <- job:
	default:
		go w.work(job)
	}
	<-done
}

// work runs job, then the calls handed to it while it waits, until the server ends or more
// workers than keptWorkers wait already.
func (w *workers) work(job func()) {
	for {
		job()
		if w.idle.Add(1) > keptWorkers {
			w.idle.Add(-1)
			return
		}
		select {
		case job = <-w.jobs:
			w.idle.Add(-1)
		case <-w.quit:
			w.idle.Add(-1)
			return
		}
	}
}

// close ends the idle workers, and each busy one when its call returns.
func (w *workers) close() {
	if w != nil {
		close(w.quit)
	}
}
