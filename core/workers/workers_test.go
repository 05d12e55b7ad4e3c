package workers

import (
	"sync"
	"testing"
	"time"
)

// Calls at once each get a worker: none waits for another to return.
func TestCallsRunAtOnce(t *testing.T) {
	p := New()
	defer p.Close()
	const n = kept + 3
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	var done sync.WaitGroup
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			p.Do(func() {
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
	eventually(t, func() bool { return p.Idle() == kept }, "kept idle workers")
}

// A call after another runs on the worker the first left waiting, and Close ends it.
func TestKeepAndClose(t *testing.T) {
	p := New()
	ran := 0
	p.Do(func() { ran++ })
	eventually(t, func() bool { return p.Idle() == 1 }, "one idle worker")
	p.Do(func() { ran++ })
	eventually(t, func() bool { return p.Idle() == 1 }, "still one idle worker")
	if ran != 2 {
		t.Fatalf("ran %d calls, want 2", ran)
	}
	p.Close()
	p.Close() // again: nothing
	eventually(t, func() bool { return p.Idle() == 0 }, "no worker after Close")
	p.Do(func() { ran++ }) // a call after the end still runs
	if ran != 3 {
		t.Fatalf("ran %d calls, want 3", ran)
	}
	var none *Pool
	none.Do(func() { ran++ })
	none.Close()
	if ran != 4 {
		t.Fatalf("ran %d calls, want 4", ran)
	}
}

// A panic in a call reaches the caller's recover with its value, and the worker lives on.
func TestPanicReachesCaller(t *testing.T) {
	p := New()
	defer p.Close()
	got := func() (r any) {
		defer func() { r = recover() }()
		p.Do(func() { panic("boom") })
		return nil
	}()
	if got != "boom" {
		t.Fatalf("recovered %v, want boom", got)
	}
	eventually(t, func() bool { return p.Idle() == 1 }, "the worker waits again")
	ran := false
	p.Do(func() { ran = true })
	if !ran {
		t.Fatal("the call after a panic did not run")
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

// Go hands a call to an idle worker and returns at once; on a nil pool it runs on a goroutine.
func TestGo(t *testing.T) {
	p := New()
	defer p.Close()
	p.Do(func() {})
	eventually(t, func() bool { return p.Idle() == 1 }, "one idle worker")
	release := make(chan struct{})
	ran := make(chan struct{}, 2)
	p.Go(func() { <-release; ran <- struct{}{} })
	var none *Pool
	none.Go(func() { <-release; ran <- struct{}{} })
	close(release)
	for range 2 {
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			t.Fatal("a call handed to Go did not run")
		}
	}
	eventually(t, func() bool { return p.Idle() == 1 }, "the worker idle again")
}
