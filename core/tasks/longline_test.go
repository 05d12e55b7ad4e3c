package tasks

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/sessionlog"
)

// A log with a 64 MiB message line and a TaskCreate line over the line cap replays the other
// calls, reports the over-long call as skipped, and allocates the same whatever the junk's size.
func TestReplayLongLines(t *testing.T) {
	replay := func(junk int64, counts *Counts) (*Replayer, uint64) {
		log := io.MultiReader(
			strings.NewReader(call("a", "TaskCreate", `{"subject":"first"}`)+`{"type":"message","role":"user","content":"`),
			io.LimitReader(repeatReader('x'), junk),
			strings.NewReader(`"}`+"\n"+`{"type":"tool_call","id":"big","name":"TaskCreate","arguments":{"subject":"big","description":"`),
			io.LimitReader(repeatReader('y'), sessionlog.MaxLineBytes+4<<20),
			strings.NewReader(`"}}`+"\n"+call("c", "TaskUpdate", `{"taskid":1,"status":"completed"}`)+call("d", "TaskCreate", `{"subject":"second"}`)),
		)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := NewReplayer()
		if err := ReplayCairn(context.Background(), log, r, Stop{}, counts); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return r, after.TotalAlloc - before.TotalAlloc
	}
	r, small := replay(64<<20, nil)
	if small > 6*sessionlog.MaxLineBytes {
		t.Fatalf("replay allocated %d MiB for two lines over the %d MiB cap", small>>20, sessionlog.MaxLineBytes>>20)
	}
	want := "1 completed first; 2 pending second"
	if got := taskLine(r.Store.Tasks()); got != want {
		t.Fatalf("tasks %q, want %q", got, want)
	}
	if len(r.Skips) != 1 || r.Skips[0].Line != 3 || !strings.Contains(r.Skips[0].Reason, "over the 33554432-byte limit") {
		t.Fatalf("skips %+v", r.Skips)
	}
	_, big := replay(512<<20, nil)
	t.Logf("replay allocated %d MiB with a 64 MiB junk line, %d MiB with a 512 MiB one", small>>20, big>>20)
	if big > small+small/2 {
		t.Errorf("memory grows with the junk line: %d MiB for 64 MiB, %d MiB for 512 MiB", small>>20, big>>20)
	}
	// session check classifies every line: both over-long lines are listed.
	counts := &Counts{ByType: map[string]int{}}
	r, _ = replay(64<<20, counts)
	if len(r.Skips) != 2 || r.Skips[0].Line != 2 || r.Skips[1].Line != 3 || counts.Lines != 5 {
		t.Fatalf("check: skips %+v, %d lines", r.Skips, counts.Lines)
	}
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func taskLine(ts []Task) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("%d %s %s", t.TaskID, t.Status, t.Subject))
	}
	return strings.Join(parts, "; ")
}
