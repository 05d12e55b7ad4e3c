package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// memoSession is a session on path with a memo, as a long-lived server opens it.
func memoSession(path string) *Session {
	s := NewSession(path, time.Second)
	s.Memo = NewMemo()
	return s
}

// checkAgainstReplay fails unless res, answered by a session with a memo, is what a whole replay
// of the log gives now.
func checkAgainstReplay(t *testing.T, path string, res Result) {
	t.Helper()
	r, err := NewSession(path, time.Second).Replay(context.Background(), Stop{})
	if err != nil {
		t.Fatal(err)
	}
	want, ok := r.Store.Get(res.Task.TaskID)
	if !ok || want != res.Task || !reflect.DeepEqual(r.Store.Summary(), res.Summary) {
		t.Fatalf("answered %+v\nsummary %+v\na whole replay has %+v (%v)\nsummary %+v", res.Task, res.Summary, want, ok, r.Store.Summary())
	}
}

func appendRaw(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// lastCallID is the id of the last tool_call in the log.
func lastCallID(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, line := range strings.Split(string(data), "\n") {
		var e struct{ Type, ID string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "tool_call" {
			id = e.ID
		}
	}
	return id
}

// A run of writes through one memo replays the log once; a write by another process in between
// (a create, an error result cancelling one of the memo's own calls, a compaction, a torn tail)
// makes the next write replay it whole, and every answer is what a whole replay gives.
func TestMemoFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := memoSession(path)
	other := NewSession(path, time.Second)
	create := func(subject string) Result {
		t.Helper()
		res, err := s.Create(ctx, subject, "")
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReplay(t, path, res)
		return res
	}
	for i := range 20 {
		if res := create(fmt.Sprint("mine ", i)); res.Task.TaskID != i+1 {
			t.Fatalf("create %d answered id %d", i, res.Task.TaskID)
		}
	}
	done := "completed"
	if _, err := s.Update(ctx, 3, UpdateFields{Status: &done}); err != nil {
		t.Fatal(err)
	}
	if s.Memo.replays != 1 {
		t.Fatalf("21 writes with nobody else writing replayed the log %d times, not once", s.Memo.replays)
	}

	if _, err := other.Create(ctx, "theirs", ""); err != nil {
		t.Fatal(err)
	}
	if res := create("after theirs"); res.Task.TaskID != 22 {
		t.Fatalf("after another process's create: id %d, want 22", res.Task.TaskID)
	}
	replays := s.Memo.replays
	if replays != 2 {
		t.Fatalf("another process's append did not make the next write replay (%d replays)", replays)
	}

	// An error result for the memo's own last call, appended by the runtime: that call never
	// took effect, so the next create gets its id.
	call := lastCallID(t, path)
	appendRaw(t, path, `{"type":"tool_result","call_id":"`+call+`","content":"refused","is_error":true}`+"\n")
	if res := create("after the error"); res.Task.TaskID != 22 {
		t.Fatalf("after an error result cancelled task 22: id %d, want 22 again", res.Task.TaskID)
	}

	if _, err := other.Compact(ctx, "compacted elsewhere", ""); err != nil {
		t.Fatal(err)
	}
	create("after a compaction")
	appendRaw(t, path, `{"type":"tool_call","id":"torn","name":"TaskCreate","arguments":{"subject":"half`)
	create("after a torn tail")
	if _, err := s.Update(ctx, 1, UpdateFields{Status: &done}); err != nil {
		t.Fatal(err)
	}
	create("last")
	if s.Memo.replays != replays+3 {
		t.Fatalf("%d replays after three writes by others, want %d", s.Memo.replays, replays+3)
	}
}

// createLine is a cairn TaskCreate line with its description padded with x to make it size bytes long.
func createLine(t *testing.T, id string, size int) string {
	t.Helper()
	line := `{"type":"tool_call","id":"` + id + `","name":"TaskCreate","arguments":{"subject":"s","description":"d"}}` + "\n"
	if len(line) > size {
		t.Fatalf("a line of %d bytes does not fit %d", len(line), size)
	}
	return strings.Replace(line, `"d"`, `"d`+strings.Repeat("x", size-len(line))+`"`, 1)
}

// The memo is dropped when the log is replaced by another file, or truncated and written again,
// even to the same size with the same modification time.
func TestMemoDroppedWhenLogReplacedOrTruncated(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"replaced", "truncated"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			s := memoSession(path)
			for range 3 {
				if _, err := s.Create(ctx, "mine", ""); err != nil {
					t.Fatal(err)
				}
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			// one task instead of three, in as many bytes
			other := createLine(t, "other", int(st.Size()))
			switch how {
			case "replaced":
				tmp := path + ".new"
				if err := os.WriteFile(tmp, []byte(other), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, path); err != nil {
					t.Fatal(err)
				}
			case "truncated":
				if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
					t.Fatal(err)
				}
			}
			if st2, _ := os.Stat(path); st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
				t.Fatalf("the new log is %d bytes of %v, not %d of %v", st2.Size(), st2.ModTime(), st.Size(), st.ModTime())
			}
			res, err := s.Create(ctx, "after", "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Task.TaskID != 2 || res.Summary.Total != 2 {
				t.Fatalf("after the log was %s: task %d of %d, want 2 of 2", how, res.Task.TaskID, res.Summary.Total)
			}
			checkAgainstReplay(t, path, res)
			if s.Memo.replays != 2 {
				t.Fatalf("%d replays, want 2", s.Memo.replays)
			}
		})
	}
}

// A failed write keeps nothing: an update of an unknown task changes nothing and the next write
// replays; a cancelled write appends nothing.
func TestMemoAfterFailedAndCancelledWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := memoSession(path)
	if _, err := s.Create(ctx, "one", ""); err != nil {
		t.Fatal(err)
	}
	done := "completed"
	if _, err := s.Update(ctx, 9, UpdateFields{Status: &done}); err == nil {
		t.Fatal("an update of task 9 of 1 succeeded")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Create(cancelled, "never", ""); err == nil {
		t.Fatal("a cancelled create succeeded")
	}
	res, err := s.Create(ctx, "two", "")
	if err != nil || res.Task.TaskID != 2 {
		t.Fatalf("after a failed and a cancelled write: %+v, %v", res, err)
	}
	checkAgainstReplay(t, path, res)
}

// A forked log's replay reads its parent, which the memo's version does not cover: it is never
// kept, so a change of the parent is seen by the next write.
func TestMemoNotKeptForAFork(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	parent := filepath.Join(dir, "p.jsonl")
	ps := NewSession(parent, time.Second)
	for range 2 {
		if _, err := ps.Create(ctx, "parent", ""); err != nil {
			t.Fatal(err)
		}
	}
	child := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(child, []byte(`{"type":"fork","parent":"p.jsonl","parent_lines":2,"at":"2026-01-01T00:00:00.000Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := memoSession(child)
	for want := 3; want <= 4; want++ {
		res, err := s.Create(ctx, "child", "")
		if err != nil || res.Task.TaskID != want {
			t.Fatalf("create in the fork: %+v, %v (want id %d)", res, err, want)
		}
	}
	if s.Memo.replays != 2 {
		t.Fatalf("a fork's writes replayed %d times, want every time (2)", s.Memo.replays)
	}
}

// The sniffer finds the fork mark wherever reads cut it.
func TestForkSnifferAcrossReads(t *testing.T) {
	text := strings.Repeat("a", 100) + `{"type":"fork"}` + strings.Repeat("b", 100)
	for size := 1; size < 20; size++ {
		f := &forkSniffer{r: &chunkReader{s: text, n: size}}
		buf := make([]byte, 64)
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		if !f.found {
			t.Fatalf("reads of %d bytes: mark not found", size)
		}
	}
	f := &forkSniffer{r: strings.NewReader(`{"type":"forked"}"fork`)}
	buf := make([]byte, 64)
	f.Read(buf)
	if f.found {
		t.Fatal("found a mark that is not there")
	}
}

type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, fmt.Errorf("EOF")
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// A long-lived server's write (with a Memo) refuses a Codex rollout as a command's does: cairn
// reads a runtime's transcript but never writes to it. It used to append there.
func TestMemoRefusesCodexRollout(t *testing.T) {
	src, err := filepath.Glob(filepath.Join(codexDir, "auto-compact", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if err != nil || len(src) == 0 {
		t.Fatalf("no Codex rollout fixture: %v", err)
	}
	data, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, memo := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "rollout.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := NewSession(path, time.Second)
		if memo {
			s = memoSession(path)
		}
		_, err := s.Create(context.Background(), "never written", "")
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "is a Codex rollout; cairn reads it but never writes to it") {
			t.Errorf("memo %v: create in a Codex rollout: %v, want INVALID_INPUT", memo, err)
		}
		if after, _ := os.ReadFile(path); string(after) != string(data) {
			t.Errorf("memo %v: the rollout was written to", memo)
		}
		if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
			t.Errorf("memo %v: a lock file was made beside the rollout: %v", memo, err)
		}
	}
}
