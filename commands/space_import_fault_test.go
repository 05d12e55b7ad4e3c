package commands_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A first space import (rows, then both search indexes, in one transaction) killed with SIGKILL
// at the end of each of its steps leaves the empty store; the import run again loads everything,
// and both indexes find it.
func TestKilledBulkSpaceImportLeavesTheOldState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn with the cairnfault tag")
	}
	t.Parallel()
	bin := buildCairnFault(t)
	src := filepath.Join(t.TempDir(), "space.jsonl")
	os.WriteFile(src, []byte(spaceDoc(3000)+`{"type":"comment","id":99999,"task":7,"kind":"request","author":"owner","created_at":"2026-01-02T00:00:00Z","body":"稀有 kumquat"}`+"\n"), 0o644)
	importWith := func(ws, fault string) (string, error) {
		cmd := exec.Command(bin, "-C", ws, "space", "import", src)
		cmd.Env = append(os.Environ(), "CAIRN_FAULT_SPACE_IMPORT="+fault)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	ws := newWorkspace(t, bin)
	out, err := importWith(ws, "trace")
	if err != nil || !strings.Contains(out, "space import step rows") || !strings.Contains(out, "space import step index") {
		t.Fatalf("traced import: %v %s", err, out)
	}
	for _, step := range []string{"rows", "index"} {
		// each step in a workspace of its own, side by side
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, bin)
			if out, err := importWith(ws, step); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("import killed after %s: %v %s", step, err, out)
			}
			// the old state: an empty store that opens, has no task 1 yet, and passes its checks
			out, e, code := run(bin, "-C", ws, "--user", "owner", "--task", "1", "space", "search", "稀有", "--json")
			if code != 3 || !strings.Contains(out, `"code": "NOT_FOUND"`) {
				t.Fatalf("after a kill at %s: exit %d %s %s", step, code, out, e)
			}
			if out, e, code := run(bin, "-C", ws, "space", "reindex", "--json"); code != 0 || !strings.Contains(out, `"comments": 0`) {
				t.Fatalf("after a kill at %s: reindex: exit %d %s %s", step, code, out, e)
			}
			if out, err := importWith(ws, ""); err != nil {
				t.Fatalf("import again after a kill at %s: %v %s", step, err, out)
			}
			for _, q := range []string{"稀有", "kumquat", "有"} {
				out, e, code := run(bin, "-C", ws, "--user", "owner", "--task", "1", "space", "search", q, "--json")
				if code != 0 || !strings.Contains(out, `"ref": "comment:99999"`) {
					t.Fatalf("after a kill at %s and a new import, %q: exit %d %s %s", step, q, code, out, e)
				}
			}
		})
	}
}
