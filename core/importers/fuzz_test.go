package importers

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
)

// checkConverted: a converter either refuses with INVALID_INPUT or returns a project that an
// import accepts; never a panic, never a project the import would refuse.
func checkConverted(t *testing.T, pb *board.ProjectBoard, err error) {
	if err != nil {
		if errs.CodeOf(err) != errs.Invalid {
			t.Fatalf("refused with %v, want INVALID_INPUT", err)
		}
		return
	}
	if _, err := board.ImportProjectCheck(context.Background(), pb); err != nil {
		t.Fatalf("converted project is refused by the import: %v", err)
	}
}

func FuzzGitHub(f *testing.F) {
	f.Add([]byte(`[{"number":1,"title":"t","state":"OPEN","updatedAt":"2026-10-01T00:00:00Z","url":"https://github.com/o/r/issues/1","labels":[{"name":"bug"}],"comments":[{"body":"c","createdAt":"2026-10-01T00:00:00Z"}]}]`), "")
	f.Add([]byte(`[{"number":2,"title":"p","state":"MERGED","isDraft":false,"mergedAt":"2026-10-01T00:00:00Z","headRefName":"x","createdAt":"2026-10-01"}]`), "o/r")
	f.Add([]byte(`[] [{"number":3,"title":"q","closedAt":null,"updatedAt":"0001-01-01T00:00:00Z"}]`), "a/b")
	f.Fuzz(func(t *testing.T, data []byte, repo string) {
		pb, err := GitHub("f.json", data, repo)
		checkConverted(t, pb, err)
	})
}

func FuzzBeads(f *testing.F) {
	f.Add([]byte(`{"id":"a","title":"t","status":"closed","priority":1,"labels":["x"],"acceptance_criteria":"- [ ] one\n- [x] two","notes":"n","close_reason":"r","created_at":"2026-01-01T00:00:00Z","closed_at":"2026-01-02T00:00:00Z","comments":[{"id":1,"author":"m","text":"c","created_at":"2026-01-01T00:00:00Z"}],"dependencies":[{"issue_id":"a","depends_on_id":"b","type":"blocks"}],"external_ref":"gh-1"}`+"\n"+`{"id":"b","title":"u","updated_at":"2026-01-01T00:00:00Z"}`), "app")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		pb, err := Beads("f.jsonl", data, name)
		checkConverted(t, pb, err)
	})
}
