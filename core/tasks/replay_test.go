package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func replayString(t *testing.T, log string, stop Stop) *Replayer {
	t.Helper()
	r := NewReplayer()
	ReplayCairn(context.Background(), strings.NewReader(log), r, stop, nil)
	return r
}

func call(id, name, args string) string {
	return fmt.Sprintf(`{"type":"tool_call","id":%q,"name":%q,"arguments":%s,"at":"2026-11-29T10:00:00Z"}`, id, name, args) + "\n"
}

func TestReplayCreateUpdate(t *testing.T) {
	log := call("a", "TaskCreate", `{"subject":"design","description":"d"}`) +
		`{"type":"message","role":"assistant","content":"working on it"}` + "\n" +
		call("b", "TaskCreate", `"{\"subject\":\"string args\"}"`) + // OpenAI-style string arguments
		call("c", "TaskUpdate", `{"taskid":1,"status":"inprogress"}`) +
		call("d", "TaskList", `{}`) +
		call("e", "TaskUpdate", `"{\"taskid\":2,\"status\":\"deleted\"}"`)
	r := replayString(t, log, Stop{})
	want := []Task{
		{TaskID: 1, Status: InProgress, Subject: "design", Description: "d"},
		{TaskID: 2, Status: Deleted, Subject: "string args"},
	}
	if got := r.Store.Tasks(); !reflect.DeepEqual(got, want) {
		t.Fatalf("tasks = %+v, want %+v", got, want)
	}
	if len(r.Skips) != 0 {
		t.Fatalf("unexpected skips %+v", r.Skips)
	}
	sum := r.Store.Summary()
	if sum.Total != 2 || sum.InProgress != 1 || sum.Deleted != 1 || len(sum.Open) != 1 || sum.Open[0].TaskID != 1 {
		t.Fatalf("summary = %+v", sum)
	}
}

func TestReplaySkipsWhatDoesNotFit(t *testing.T) {
	log := call("a", "TaskCreate", `{"subject":"ok"}`) +
		call("old", "TaskCreate", `{"title":"old schema"}`) + // unknown field: an older version
		call("nosubj", "TaskCreate", `{"description":"x"}`) +
		call("badstatus", "TaskUpdate", `{"taskid":1,"status":"done"}`) +
		call("unknown", "TaskUpdate", `{"taskid":42,"status":"completed"}`) +
		call("empty", "TaskUpdate", `{"taskid":1}`) +
		"this is not json\n" +
		`{"type":"tool_call","name":"TaskCreate","arguments":{"subject":"half` + "\n" + // garbage line with a marker
		call("failed", "TaskCreate", `{"subject":"rejected by the runtime"}`) +
		`{"type":"tool_result","call_id":"failed","content":"boom","is_error":true}` + "\n" +
		call("b", "TaskCreate", `{"subject":"second"}`) +
		`{"type":"tool_call","id":"torn","name":"TaskCreate","arguments":{"subject":"torn"}}` // no newline
	r := replayString(t, log, Stop{})
	tasks := r.Store.Tasks()
	if len(tasks) != 2 || tasks[0].Subject != "ok" || tasks[1].Subject != "second" || tasks[1].TaskID != 2 {
		t.Fatalf("tasks = %+v", tasks)
	}
	lines := []int{}
	for _, s := range r.Skips {
		lines = append(lines, s.Line)
	}
	// line 7 (plain garbage) is skipped undecoded in the fast path; check mode reports it
	want := []int{2, 3, 4, 5, 6, 8, 9, 12}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("skipped lines = %v, want %v (%+v)", lines, want, r.Skips)
	}
	full := NewReplayer()
	counts := &Counts{ByType: map[string]int{}}
	ReplayCairn(context.Background(), strings.NewReader(log), full, Stop{}, counts)
	if len(full.Skips) != len(want)+1 || full.Skips[5].Line != 7 {
		t.Fatalf("check mode skips = %+v", full.Skips)
	}
	if counts.Lines != 12 || counts.ByType["tool_call"] != 8 || counts.ByType["tool_result"] != 1 {
		t.Fatalf("counts = %+v", counts)
	}
}

func TestReplayCompactSnapshot(t *testing.T) {
	snap := `[{"taskid":3,"status":"completed","subject":"c","description":""},{"taskid":7,"status":"pending","subject":"g","description":"x"}]`
	log := call("a", "TaskCreate", `{"subject":"before"}`) +
		`{"type":"compact","summary":"s","tasks":` + snap + `,"at":"2026-11-29T11:00:00Z"}` + "\n" +
		call("b", "TaskCreate", `{"subject":"after"}`)
	r := replayString(t, log, Stop{})
	got := r.Store.Tasks()
	if len(got) != 3 || got[0].TaskID != 3 || got[1].TaskID != 7 || got[2].TaskID != 8 || got[2].Subject != "after" {
		t.Fatalf("tasks = %+v", got)
	}
}

// A log with several compactions replays to the same store as the same calls without them.
func TestCompactionsEqualPlainReplay(t *testing.T) {
	dir := t.TempDir()
	plain := NewSession(filepath.Join(dir, "plain.jsonl"), time.Second)
	compacted := NewSession(filepath.Join(dir, "compacted.jsonl"), time.Second)
	for i := 1; i <= 30; i++ {
		for _, s := range []*Session{plain, compacted} {
			if _, err := s.Create(context.Background(), fmt.Sprintf("task %d", i), ""); err != nil {
				t.Fatal(err)
			}
			st := []string{Pending, InProgress, Completed, Deleted}[i%4]
			if _, err := s.Update(context.Background(), (i+1)/2, UpdateFields{Status: &st}); err != nil {
				t.Fatal(err)
			}
		}
		if i%7 == 0 {
			if _, err := compacted.Compact(context.Background(), fmt.Sprintf("compaction %d", i/7), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, _ := plain.List(context.Background(), Stop{}, nil)
	b, _ := compacted.List(context.Background(), Stop{}, nil)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("compacted replay differs:\n%+v\n%+v", a, b)
	}
}

func TestNewLogRestoresEveryTask(t *testing.T) {
	dir := t.TempDir()
	s := NewSession(filepath.Join(dir, "old.jsonl"), time.Second)
	s.Create(context.Background(), "one", "")
	s.Create(context.Background(), "two", "")
	del := Deleted
	s.Update(context.Background(), 1, UpdateFields{Status: &del})
	newPath := filepath.Join(dir, "new.jsonl")
	if _, err := s.Compact(context.Background(), "sum", newPath); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(newPath)
	var e struct{ Type string }
	json.Unmarshal([]byte(strings.SplitN(string(first), "\n", 2)[0]), &e)
	if e.Type != "compact" {
		t.Fatalf("first line of new log has type %q", e.Type)
	}
	n := NewSession(newPath, time.Second)
	a, _ := s.List(context.Background(), Stop{}, nil)
	b, _ := n.List(context.Background(), Stop{}, nil)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("new log replay differs: %+v vs %+v", a, b)
	}
	res, err := n.Create(context.Background(), "three", "")
	if err != nil || res.Task.TaskID != 3 {
		t.Fatalf("id after new log = %+v, %v", res.Task, err)
	}
	if _, err := s.Compact(context.Background(), "again", newPath); err == nil {
		t.Fatal("--new-log overwrote an existing file")
	}
}

func TestAsOfAndHistory(t *testing.T) {
	dir := t.TempDir()
	s := NewSession(filepath.Join(dir, "log.jsonl"), time.Second)
	clock := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	s.Create(context.Background(), "a", "") // line 1, 10:01
	s.Create(context.Background(), "b", "") // line 2, 10:02
	st := Completed
	s.Update(context.Background(), 1, UpdateFields{Status: &st}) // line 3, 10:03
	subj := "a renamed"
	s.Update(context.Background(), 1, UpdateFields{Subject: &subj}) // line 4, 10:04

	r, _ := s.List(context.Background(), Stop{Line: 1}, nil)
	if len(r.Tasks) != 1 || r.Tasks[0].Status != Pending {
		t.Fatalf("as of line 1: %+v", r.Tasks)
	}
	r, _ = s.List(context.Background(), Stop{Time: time.Date(2026, 11, 29, 10, 3, 0, 0, time.UTC)}, nil)
	if len(r.Tasks) != 2 || r.Tasks[0].Status != Completed || r.Tasks[0].Subject != "a" {
		t.Fatalf("as of 10:03: %+v", r.Tasks)
	}
	h, err := s.History(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Changes) != 3 || h.Changes[0].Op != "create" || h.Changes[1].Changes["status"].To != Completed || h.Changes[2].Line != 4 {
		t.Fatalf("history = %+v", h.Changes)
	}
	if _, ok := h.Changes[2].Changes["status"]; ok {
		t.Fatalf("unchanged field reported: %+v", h.Changes[2])
	}
	if _, err := s.History(context.Background(), 9); err == nil {
		t.Fatal("history of an unknown task succeeded")
	}
}

func TestCheckSubject(t *testing.T) {
	if s, err := CheckSubject("  trimmed  "); err != nil || s != "trimmed" {
		t.Fatalf("%q %v", s, err)
	}
	for _, bad := range []string{"", "   ", "two\nlines", strings.Repeat("あ", 201), "bell\a"} {
		if _, err := CheckSubject(bad); err == nil {
			t.Errorf("subject %q accepted", bad)
		}
	}
	if _, err := CheckSubject(strings.Repeat("あ", 200)); err != nil {
		t.Errorf("200 characters refused: %v", err)
	}
	if err := CheckDescription(strings.Repeat("x", 64*1024+1)); err == nil {
		t.Error("description over 64 KiB accepted")
	}
}

func FuzzReplay(f *testing.F) {
	f.Add(call("a", "TaskCreate", `{"subject":"x"}`) + call("b", "TaskUpdate", `{"taskid":1,"status":"completed"}`))
	f.Add(`{"type":"compact","tasks":[{"taskid":2,"status":"pending","subject":"s","description":""}]}` + "\n")
	f.Add("garbage\n{\"type\":\"tool_call\",\"name\":\"TaskCreate\",\"arguments\":\"{}\"}")
	f.Fuzz(func(t *testing.T, log string) {
		for _, counts := range []*Counts{nil, {ByType: map[string]int{}}} {
			r := NewReplayer()
			ReplayCairn(context.Background(), strings.NewReader(log), r, Stop{}, counts)
			prev := 0
			for _, tk := range r.Store.Tasks() {
				if tk.TaskID <= prev {
					t.Fatalf("ids not increasing: %+v", r.Store.Tasks())
				}
				prev = tk.TaskID
				if CheckStatus(tk.Status) != nil {
					t.Fatalf("invalid status replayed: %+v", tk)
				}
			}
			if r.Store.NextID() <= prev {
				t.Fatalf("next id %d not above %d", r.Store.NextID(), prev)
			}
		}
	})
}

// An error result cancels the latest pending call with its id, and only that one; a compaction
// in between settles the earlier calls for good.
func TestErrorResultCancelsTheLatestCallOfItsID(t *testing.T) {
	errResult := func(id string) string {
		return `{"type":"tool_result","call_id":"` + id + `","content":"boom","is_error":true}` + "\n"
	}
	log := call("dup", "TaskCreate", `{"subject":"first"}`) +
		call("dup", "TaskCreate", `{"subject":"second"}`) +
		errResult("dup") +
		call("x", "TaskCreate", `{"subject":"third"}`) +
		errResult("nobody") +
		errResult("")
	r := replayString(t, log, Stop{})
	var got []string
	for _, tk := range r.Store.Tasks() {
		got = append(got, tk.Subject)
	}
	if strings.Join(got, ",") != "first,third" {
		t.Fatalf("tasks = %v, want first,third", got)
	}
	if len(r.Skips) != 1 || r.Skips[0].Line != 2 {
		t.Fatalf("skips = %+v, want line 2 only", r.Skips)
	}
}

func TestSummaryOpenIsBounded(t *testing.T) {
	st := NewStore()
	for i := range MaxOpenListed + 30 {
		st.create(Task{Subject: "task " + strconv.Itoa(i+1)})
	}
	// two in-progress tasks past the cap are listed before pending ones
	for _, id := range []int{MaxOpenListed + 10, MaxOpenListed + 20} {
		tk, _ := st.Get(id)
		tk.Status = InProgress
		st.put(tk)
	}
	sum := st.Summary()
	if len(sum.Open) != MaxOpenListed || sum.OpenMore != 30 || sum.Pending+sum.InProgress != MaxOpenListed+30 {
		t.Fatalf("open %d, more %d", len(sum.Open), sum.OpenMore)
	}
	ids := map[int]bool{}
	for i, o := range sum.Open {
		ids[o.TaskID] = true
		if i > 0 && sum.Open[i-1].TaskID > o.TaskID {
			t.Fatal("open tasks are not in id order")
		}
	}
	if !ids[MaxOpenListed+10] || !ids[MaxOpenListed+20] || !ids[1] || ids[MaxOpenListed-1] {
		t.Fatalf("listed: %v", ids)
	}
	// under the cap nothing changes: every open task, by id, no open_more
	small := NewStore()
	small.create(Task{Subject: "a"})
	if s := small.Summary(); len(s.Open) != 1 || s.OpenMore != 0 {
		t.Fatalf("%+v", s)
	}
}
