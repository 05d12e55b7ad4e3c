package commands

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The first frame of a progress bar never shows a rate over the microseconds since the bar was
// made (it printed hundreds of GB/s): nothing is drawn until the job has run for a while.
func TestProgressFirstFrameHasNoAbsurdRate(t *testing.T) {
	var stderr strings.Builder
	env := newEnv(nil, &strings.Builder{}, &stderr)
	env.StderrTTY = true
	progress, finish := env.spaceProgress(200<<20, true, "importing")
	progress(100<<20, 200<<20)
	finish()
	if out := stderr.String(); strings.Contains(out, "GB/s") || strings.Contains(out, "MB/s") {
		t.Fatalf("first frame shows a rate: %q", out)
	}
}

// A person at a terminal is told which identity a space search missed; an agent (no terminal)
// and --json keep the one-line answer.
func TestSpaceHintOnTerminalOnly(t *testing.T) {
	for _, tc := range []struct {
		tty, json bool
		id        workspace.Caller
		want      string
	}{
		{true, false, workspace.Caller{}, "hint: no user given: pass --user ID and --task ID"},
		{true, false, workspace.Caller{User: "bob"}, "hint: no task given"},
		{true, false, workspace.Caller{User: "bob", Task: "7", Subtask: true}, "hint: a subtask"},
		{false, false, workspace.Caller{}, ""},
		{true, true, workspace.Caller{}, ""},
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
