package board

import (
	"slices"
	"testing"
)

// TestExamples: the start page's example queries come from the board and each finds cards of
// its project; archived and unknown projects get none; the index read back from its snapshot
// gives the same examples.
func TestExamples(t *testing.T) {
	ws := newBoard(t, []byte(`{"revision":1,
  "projects":[{"id":"p1","title":"Tinylink","archived":false,"memory":true},{"id":"p2","title":"Pager","archived":false,"memory":true},{"id":"p3","title":"Old","archived":true,"memory":true}],
  "cards":[
    {"id":"c1","project":"p1","title":"Migrate storage to SQLite","description":"","tags":["storage","perf"],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-20T08:00:00Z","workspace_id":""},
    {"id":"c2","project":"p1","title":"SQLite migration: with WAL","description":"","tags":["storage"],"type":"","status":"In Progress","archived":false,"updated_at":"2026-10-21T08:00:00Z","workspace_id":""},
    {"id":"c3","project":"p1","title":"Login page login","description":"","tags":["auth"],"type":"","status":"Done","archived":false,"updated_at":"2026-10-22T08:00:00Z","workspace_id":""},
    {"id":"c4","project":"p2","title":"迁移到 SQLite 存储迁移","description":"","tags":[],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-22T08:00:00Z","workspace_id":""},
    {"id":"c5","project":"p2","title":"数据迁移","description":"","tags":[],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-22T08:00:00Z","workspace_id":""},
    {"id":"c6","project":"p3","title":"Archived project words","description":"","tags":["old"],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-22T08:00:00Z","workspace_id":""}
  ]}`))
	for round, ix := range []*Index{load(t, ws), load(t, ws)} {
		for id, want := range map[string][]string{
			"p1": {"sqlite", "#storage"}, // open cards only: "login" is in a Done card; "with" is a stop word
			"p2": {"迁移", "sqlite"},       // no tags: the second most frequent word
			"":   {"sqlite", "#storage"},
			"p3": nil,
			"p9": nil,
		} {
			got := ix.Examples(id)
			if !slices.Equal(got, want) {
				t.Errorf("round %d: Examples(%q) = %q, want %q", round, id, got, want)
			}
			for _, q := range got {
				in := func(s *SearchInput) {}
				if id != "" {
					in = inProject(id)
				}
				if res := search(t, ix, q, in); len(res.Cards) == 0 {
					t.Errorf("example %q of project %q finds no card", q, id)
				}
			}
		}
	}
}
