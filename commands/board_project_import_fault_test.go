package commands_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A project import (board import --from) killed with SIGKILL at the end of each of its steps
// leaves the board before it (the other project whole, the imported one absent) or after it
// (both), never a part of either; the next project import succeeds.
func TestProjectImportKilledAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn and runs dozens of processes")
	}
	t.Parallel()
	bin := buildCairnFault(t)
	alpha := boardGeneration(t, "alpha", 1, 0)
	gh := filepath.Join(t.TempDir(), "gh.json")
	if err := os.WriteFile(gh, []byte(`[{"number": 7, "title": "bravo card", "state": "OPEN", "updatedAt": "2026-10-20T08:00:00Z",
  "url": "https://github.com/o/r/issues/7",
  "comments": [{"author": {"login": "mona"}, "body": "bravo note", "createdAt": "2026-10-20T08:00:00Z"}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	importFrom := func(ws, fault string) (string, error) {
		cmd := exec.Command(bin, "-C", ws, "board", "import", "--from", "github", gh)
		cmd.Env = append(os.Environ(), "CAIRN_FAULT_BOARD_IMPORT="+fault)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// bravo is the imported project: "card,note" when it is there, "" when it is not
	bravo := func(ws string) string {
		out, e, code := run(bin, "-C", ws, "board", "search", "bravo", "--project", "gh-o-r")
		switch {
		case code == 3 && strings.Contains(e, "Project not found."):
			return ""
		case code != 0:
			return "exit " + e
		case strings.Contains(out, "gh-o-r/#7  bravo card") && strings.Contains(out, "Note:  bravo note"):
			return "card,note"
		}
		return "partial: " + out
	}
	ws := newWorkspace(t, bin)
	if _, e, code := run(bin, "-C", ws, "board", "import", alpha); code != 0 {
		t.Fatalf("import: %s", e)
	}
	out, err := importFrom(ws, "trace")
	if err != nil {
		t.Fatalf("traced import: %v %s", err, out)
	}
	var steps []string
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(line, "board import step "); ok {
			steps = append(steps, name)
		}
	}
	published := slices.Index(steps, "published")
	if published < 0 || len(steps) < 10 {
		t.Fatalf("steps traced: %v", steps)
	}
	for i, at := range steps {
		// each step in a workspace of its own, side by side
		t.Run(at, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, bin)
			if _, e, code := run(bin, "-C", ws, "board", "import", alpha); code != 0 {
				t.Fatalf("import: %s", e)
			}
			if out, err := importFrom(ws, at); !killedBy(err) {
				t.Fatalf("project import with a kill at %s: %v %s", at, err, out)
			}
			want, whole := "", "alpha"
			if i >= published {
				want, whole = "card,note", "alpha+bravo(card,note)"
			}
			if got := bravo(ws); got != want {
				t.Errorf("project import killed after step %s: the project holds %q, want %q", at, got, want)
			}
			if got := boardHolds(t, bin, ws); got != whole {
				t.Errorf("project import killed after step %s: the board is %s, want %s (alpha whole)", at, got, whole)
			}
			if out, err := importFrom(ws, ""); err != nil {
				t.Fatalf("project import after a kill at %s: %v %s", at, err, out)
			}
			if got := bravo(ws); got != "card,note" {
				t.Errorf("project import after a kill at %s: %q", at, got)
			}
			if entries, _ := os.ReadDir(ws); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".board") }) {
				t.Errorf("after a kill at %s and a new import, the workspace holds %v", at, entries)
			}
		})
	}
}
