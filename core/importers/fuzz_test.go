package importers

import (
	"context"
	"os"
	"path/filepath"
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

// FuzzBacklogMD writes one task file (front matter and sections) and a config.yml into a
// backlog/ folder and converts it.
func FuzzBacklogMD(f *testing.F) {
	f.Add([]byte("---\nid: task-1\ntitle: A\nstatus: In Progress\nassignee: ['@a']\ncreated_date: '2026-10-01 08:00'\nlabels: [x]\n---\n\n## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nd\n<!-- SECTION:DESCRIPTION:END -->\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [x] #1 one\n<!-- AC:END -->\n\n## Final Summary\n\ns\n"), []byte("project_name: P\nstatuses: [To Do, Done]\n"))
	f.Add([]byte("---\ntitle: {a: 1}\n---\n"), []byte("statuses: 7\n"))
	f.Add([]byte("no front matter\n## Implementation Notes\nn"), []byte(""))
	f.Fuzz(func(t *testing.T, task, config []byte) {
		dir := t.TempDir()
		tasks := filepath.Join(dir, "backlog", "tasks")
		if err := os.MkdirAll(tasks, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "backlog", "config.yml"), config, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tasks, "task-1 - A.md"), task, 0o644); err != nil {
			t.Fatal(err)
		}
		pb, err := BacklogMD(dir, "app")
		checkConverted(t, pb, err)
	})
}
