package spaces

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/opencode/opencodetest"
)

// Real OpenCode ids end in 14 random letters and digits, which the redactor takes for a secret
// in free text (scripts/opencode-harness/README.md): the session id is the task's id and the
// resume command is made from it, so both survive; a secret said in the session does not.
func TestOpenCodeImportKeepsRandomSessionIDs(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	const id = "ses_dcb6a13d3ffeQ7xK9mP2vL8nRt"
	const secret = "sk-proj-Zq8Xw3Lm9Pv2Nr7Tb4Hc6Jd1Kf5Sg0Ay"
	db := filepath.Join(t.TempDir(), "opencode.db")
	opencodetest.Build(t, "todowrite", db, func(table string, row map[string]any) bool {
		for _, k := range []string{"id", "session_id"} {
			if v, _ := row[k].(string); v == "ses_dcb6a13d3ffe00000000000001" {
				row[k] = id
			}
		}
		if d, ok := row["data"].(map[string]any); ok && table == "part" {
			if s, _ := d["text"].(string); strings.Contains(s, "SCENARIO-TODO start") {
				d["text"] = s + " with the key " + secret
			}
		}
		return row["session_id"] != "ses_dcb69e8beffe00000000000002" && row["id"] != "ses_dcb69e8beffe00000000000002"
	})
	st, err := Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.ImportOpenCode(ctx, []string{db}, nil)
	st.Close()
	if err != nil || rep.Tasks != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	ans, err := SearchWorkspaceTasks(ctx, ws, Caller{}, SearchInput{Query: "SCENARIO-TODO start"})
	if err != nil || ans.Search == nil || len(ans.Search.Hits) == 0 {
		t.Fatalf("search: %+v %v", ans, err)
	}
	h := ans.Search.Hits[0]
	if h.SessionID != id || h.Resume != "opencode --session "+id || h.Runtime != "opencode" || h.Task != "task:"+id {
		t.Errorf("hit: %+v", h)
	}
	if strings.Contains(h.Excerpt+h.TaskTitle, secret[8:]) {
		t.Errorf("the secret is shown: %+v", h)
	}
}
