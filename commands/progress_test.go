package commands

import (
	"strings"
	"testing"
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
