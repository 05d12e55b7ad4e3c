// Package workers runs calls on goroutines kept between calls, for a long-lived server whose
// calls run deep Go code: modernc.org/sqlite's search grows a fresh goroutine's stack (8 kB) and
// copies it several times per call, which a kept worker, its stack grown already, does not.
package workers

import (
	"sync"
	"sync/atomic"
)

// kept is how many idle workers wait for the next call: more calls than that at once still each
// get a goroutine of their own, which ends after its call instead of waiting.
const kept = 4

// Pool hands calls to kept workers (cairn mcp's and cairn serve's tool calls). No call waits
// for another: a call no idle worker takes starts a new one, kept afterwards while fewer than
// kept wait. A nil *Pool runs each call on the caller's goroutine. It is safe for concurrent use.
type Pool struct {
	jobs chan func()   // unbuffered: a send succeeds only when an idle worker takes it
	quit chan struct{} // closed by Close: idle workers end, busy ones after their call
	idle atomic.Int32  // workers waiting for a call
	once sync.Once     // Close closes quit once
}

// New returns a pool with no worker yet; Close ends its workers.
func New() *Pool {
	return &Pool{jobs: make(chan func()), quit: make(chan struct{})}
}

// Do runs f on a worker and returns when f has returned. f reaches the caller's context through
// its closure, so a cancelled call stops as it would on the caller's goroutine; a panic in f is
// raised again on the caller's goroutine, where its recover (if any) sees the same value.
func (p *Pool) Do(f func()) {
	if p == nil {
		f()
		return
	}
	done := make(chan struct{})
	var panicked bool
	var value any
	job := func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				panicked, value = true, r
			}
		}()
		f()
	}
	select {
	case p.jobs <- job:
	default:
		go p.work(job)
	}
	<-done
	if panicked {
		panic(value)
	}
}

// Go runs f on a worker without waiting for it: cairn mcp's gate starts a tool call this way and
// reads on while it runs. A panic in f is not recovered. A nil *Pool runs f on a new goroutine.
func (p *Pool) Go(f func()) {
	if p == nil {
		go f()
		return
	}
	select {
	case p.jobs <- f:
	default:
		go p.work(f)
	}
}

// work runs job, then the calls handed to it while it waits, until the pool is closed or more
// than kept workers wait already.
func (p *Pool) work(job func()) {
	for {
		job()
		if p.idle.Add(1) > kept {
			p.idle.Add(-1)
			return
		}
		select {
		case job = <-p.jobs:
			p.idle.Add(-1)
		case <-p.quit:
			p.idle.Add(-1)
			return
		}
	}
}

// Idle is how many workers wait for a call now, for tests.
func (p *Pool) Idle() int { return int(p.idle.Load()) }

// Close ends the idle workers, and each busy one when its call returns; a call after Close
// still runs, on a goroutine that ends with it. Closing again does nothing.
func (p *Pool) Close() {
	if p != nil {
		p.once.Do(func() { close(p.quit) })
	}
}
