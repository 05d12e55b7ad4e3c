package mcp

import (
	"sync"
	"testing"
	"time"
)

// Calls at once each get a worker: none waits for another to return.
func TestWorkersRunCallsAtOnce(t *testing.T) {
	w := newWorkers()
	defer w.close()
	const n = keptWorkers + 3
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	var done sync.WaitGroup
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			w.do(func() {
				started.Done()
				<-release
			})
		}()
	}
	waited := make(chan struct{})
	go func() { started.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the calls did not all run at once")
	}
	close(release)
	done.Wait()
	eventually(t, func() bool { return w.idle.Load() == keptWorkers }, "keptWorkers idle workers")
}

// A call after another runs on the worker the first left waiting, and close ends it.
func TestWorkersKeepAndClose(t *testing.T) {
	w := newWorkers()
	ran := 0
	w.do(func() { ran++ })
	eventually(t, func() bool { return w.idle.Load() == 1 }, "one idle worker")
	w.do(func() { ran++ })
	eventually(t, func() bool { return w.idle.Load() == 1 }, "still one idle worker")
	if ran != 2 {
		t.Fatalf("ran %d calls, want 2", ran)
	}
	w.close()
	eventually(t, func() bool { return w.idle.Load() == 0 }, "no worker after close")
	w.do(func() { ran++ }) // a call after the end still runs
	if ran != 3 {
		t.Fatalf("ran %d calls, want 3", ran)
	}
	var nilW *workers
	nilW.do(func() { ran++ })
	nilW.close()
	if ran != 4 {
		t.Fatalf("ran %d calls, want 4", ran)
	}
}

func eventually(t *testing.T, ok func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}
