package commands

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The first frame of a progress bar shows a rate over the time since the job started (it
// printed hundreds of GB/s, and TB/s once the bar waited before drawing: the bar's own clock
// started at its first frame, with the bytes already done counted against a few microseconds).
func TestProgressFirstFrameHasNoAbsurdRate(t *testing.T) {
	var stderr strings.Builder
	env := newEnv(nil, &strings.Builder{}, &stderr)
	env.StderrTTY = true
	const done = 100 << 20
	progress, finish := env.spaceProgress(200<<20, true, "importing")
	wait := progressDelay + 50*time.Millisecond
	time.Sleep(wait)
	progress(done, 200<<20)
	frame := stderr.String()
	finish()
	m := regexp.MustCompile(`([0-9.]+) (B|kB|MB|GB|TB|PB)/s`).FindStringSubmatch(frame)
	if m == nil {
		t.Fatalf("no frame with a rate after %v: %q", wait, frame)
	}
	rate, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	rate *= map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}[m[2]]
	// the job has run for at least wait, so no honest rate exceeds done/wait (10% for rounding)
	if max := done / wait.Seconds() * 1.1; rate > max {
		t.Fatalf("first frame shows %s %s/s, more than %.0f B/s: %q", m[1], m[2], max, frame)
	}
}

// A person at the command line is told which identity a space search missed, at a terminal or
// not; --json keeps the one-line answer.
func TestSpaceHintOnCommandLine(t *testing.T) {
	for _, tc := range []struct {
		tty, json bool
		id        workspace.Caller
		want      string
	}{
		{true, false, workspace.Caller{}, "hint: no user given: pass --user ID and --task ID"},
		{true, false, workspace.Caller{User: "bob"}, "hint: no task given"},
		{true, false, workspace.Caller{User: "bob", Task: "7", Subtask: true}, "hint: a subtask"},
		{false, false, workspace.Caller{}, "hint: no user given: pass --user ID and --task ID"},
		{true, true, workspace.Caller{}, ""},
		{false, true, workspace.Caller{}, ""},
	} {
		var stderr strings.Builder
		env := newEnv(nil, &strings.Builder{}, &stderr)
		env.StderrTTY, env.JSON, env.Caller = tc.tty, tc.json, tc.id
		env.spaceHint(spaces.Answer{Unavailable: &spaces.Unavailable{Message: spaces.UnavailableMessage}})
		if got := stderr.String(); (tc.want == "" && got != "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("tty=%v json=%v %+v: stderr %q, want %q", tc.tty, tc.json, tc.id, got, tc.want)
		}
	}
}

// Once an import has read everything, the bar gives way to a line that says the index is being
// built (the longest part of a first import), and that line is cleared when the job ends.
func TestProgressSaysIndexingAfterReading(t *testing.T) {
	var stderr strings.Builder
	env := newEnv(nil, &strings.Builder{}, &stderr)
	env.StderrTTY = true
	progress, finish := env.spaceProgress(50<<20, true, "importing")
	time.Sleep(progressDelay + 20*time.Millisecond)
	progress(10<<20, 50<<20)
	progress(50<<20, 50<<20)
	if got := stderr.String(); !strings.HasSuffix(got, "importing: all 52.4 MB read; building the search index…") {
		t.Fatalf("after reading: %q", got)
	}
	progress(50<<20, 50<<20) // the end of the job reports the total again: drawn once
	if n := strings.Count(stderr.String(), "building the search index"); n != 1 {
		t.Fatalf("indexing line drawn %d times", n)
	}
	finish()
	if !strings.HasSuffix(stderr.String(), "\r\x1b[K") {
		t.Fatalf("the indexing line is not cleared: %q", stderr.String())
	}
}
