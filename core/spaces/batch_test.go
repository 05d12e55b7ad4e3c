package spaces

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

// TestReadBatchLongLine: a record over the line limit refuses the whole batch; it is never read
// through and dropped, which would lose a record the client counts as sent.
func TestReadBatchLongLine(t *testing.T) {
	task := `{"type":"task","id":"t1","space":"s","title":"a task","status":"completed"}` + "\n"
	comment := func(body string) string {
		return `{"type":"comment","id":"c1","task":"t1","kind":"request","author":"u","created_at":"2026-06-20T10:00:00Z","body":"` + body + `"}` + "\n"
	}
	const max = 1 << 10
	b, err := ReadBatch(strings.NewReader(task+comment("short")+"\n"), max)
	if err != nil || len(b.Tasks) != 1 || len(b.Comments) != 1 {
		t.Fatalf("a good batch: %v %+v", err, b)
	}
	for _, in := range []string{
		task + comment(strings.Repeat("x", max)),
		comment(strings.Repeat("x", 3*max)) + task,  // the long line first
		task + comment(strings.Repeat("x", 70<<10)), // longer than the reader's buffer
	} {
		b, err := ReadBatch(strings.NewReader(in), max)
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "longer than") {
			t.Errorf("a line over %d bytes: %v, %d tasks and %d comments taken", max, err, len(b.Tasks), len(b.Comments))
		}
	}
}
