package commands_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// buildCairnFault returns cairn built with the cairnfault tag, once per test run:
// CAIRN_FAULT_BOARD_IMPORT=STEP makes a board import kill itself with SIGKILL at the end of STEP,
// =trace prints the steps.
func buildCairnFault(t *testing.T) string {
	t.Helper()
	return cairnFault.path(t)
}

// boardGeneration writes a board document whose card, note, summary and memory entry all carry
// word (memory padded to pad bytes), so a search shows which import each board file came from.
func boardGeneration(t *testing.T, word string, revision, pad int) string {
	t.Helper()
	doc := fmt.Sprintf(`{"revision": %d,
 "projects": [{"id": "p1", "title": "Project"}],
 "cards": [{"id": "c1", "project": "p1", "title": "%[2]s card", "status": "Todo", "updated_at": "2026-10-20T08:00:00Z"}],
 "events": [{"id": "e1", "card": "c1", "type": "progress_reported", "note": "%[2]s note", "at": "2026-10-20T08:00:00Z"}],
 "summaries": {"c1": [{"state": "%[2]s summary", "at": "2026-10-20T08:00:00Z"}]},
 "memory": [{"id": "m1", "project": "p1", "kind": "decision", "title": "%[2]s memory", "body": "%[3]s", "status": "active"}]}`,
		revision, word, strings.Repeat("x", pad))
	path := filepath.Join(t.TempDir(), word+".json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// boardHolds names the board of ws as the CLI sees it: "alpha", "bravo", "none" (no board), or
// what is mixed, searched twice (the second search reads the snapshot the first one left).
func boardHolds(t *testing.T, bin, ws string) string {
	t.Helper()
	return boardHoldsVia(t, func(word string) (string, int) {
		out, e, code := run(bin, "-C", ws, "board", "search", word, "--json")
		return out + e, code
	})
}

// boardHoldsVia is boardHolds with search answering a word's search as JSON and an exit code.
func boardHoldsVia(t *testing.T, search func(word string) (string, int)) string {
	t.Helper()
	var states []string
	for range 2 {
		var found []string
		for _, word := range []string{"alpha", "bravo", "charlie"} {
			out, code := search(word)
			if code == 3 {
				found = []string{"none"}
				break
			}
			if code != 0 {
				return fmt.Sprintf("search %s: exit %d %s", word, code, out)
			}
			var res struct {
				Cards []struct {
					Hits []struct{ Source string }
				}
				Memory  []any
				Partial []string
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("search output: %v %s", err, out)
			}
			if len(res.Partial) > 0 {
				return fmt.Sprintf("partial %v", res.Partial)
			}
			var parts []string
			for _, c := range res.Cards {
				for _, h := range c.Hits {
					parts = append(parts, h.Source)
				}
			}
			if len(res.Memory) > 0 {
				parts = append(parts, "memory")
			}
			slices.Sort(parts)
			switch strings.Join(parts, ",") {
			case "":
			case "card,memory,note,summary":
				found = append(found, word)
			default:
				found = append(found, word+"("+strings.Join(parts, ",")+")")
			}
		}
		states = append(states, strings.Join(found, "+"))
	}
	if states[0] != states[1] {
		return fmt.Sprintf("first search %s, second %s", states[0], states[1])
	}
	return states[0]
}

// importWithFault runs a board import with CAIRN_FAULT_BOARD_IMPORT=fault.
func importWithFault(bin, ws, doc, fault string) (string, error) {
	cmd := exec.Command(bin, "-C", ws, "board", "import", doc)
	cmd.Env = append(os.Environ(), "CAIRN_FAULT_BOARD_IMPORT="+fault)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// tracedImportSteps imports before and then after into a new workspace and returns the steps of
// the second import, with the index of the one that publishes the new board.
func tracedImportSteps(t *testing.T, bin, before, after string) ([]string, int) {
	t.Helper()
	ws := newWorkspace(t, bin)
	if out, err := importWithFault(bin, ws, before, ""); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	out, err := importWithFault(bin, ws, after, "trace")
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
	return steps, published
}

// killedBy reports whether err is the exit of a process killed with SIGKILL.
func killedBy(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
}

// A running cairn serve answers from the old board or the new one after an import killed at
// each step, reloading when the board changed.
func TestServeAfterKilledBoardImports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn and runs the daemon")
	}
	t.Parallel()
	bin := buildCairnFault(t)
	alpha, bravo := boardGeneration(t, "alpha", 1, 0), boardGeneration(t, "bravo", 2, 0)
	steps, published := tracedImportSteps(t, bin, alpha, bravo)
	ws := newWorkspace(t, bin)
	if out, err := importWithFault(bin, ws, alpha, ""); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	d := startServe(t, bin, ws)
	defer d.stop(t)
	base, token, _ := strings.Cut(d.url, "/?token=")
	viaServe := func(word string) (string, int) {
		req, _ := http.NewRequest(http.MethodPost, base+"/api", strings.NewReader(`{"action":"search","input":{"query":"`+word+`"}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return string(data), resp.StatusCode
		}
		return string(data), 0
	}
	if got := boardHoldsVia(t, viaServe); got != "alpha" {
		t.Fatalf("serve before any kill: %s", got)
	}
	for i, at := range steps {
		if out, err := importWithFault(bin, ws, bravo, at); !killedBy(err) {
			t.Fatalf("import with a kill at %s: %v %s", at, err, out)
		}
		want := "alpha"
		if i >= published {
			want = "bravo"
		}
		if got := boardHoldsVia(t, viaServe); got != want {
			t.Errorf("serve after an import killed at %s: the board is %s, want %s", at, got, want)
		}
		if out, err := importWithFault(bin, ws, alpha, ""); err != nil {
			t.Fatalf("import: %v %s", err, out)
		}
		if got := boardHoldsVia(t, viaServe); got != "alpha" {
			t.Errorf("serve after alpha was imported again: %s", got)
		}
	}
}

// A board import killed with SIGKILL at the end of each of its steps, over a board or over none,
// leaves the old board or the new one, never the database of one with the JSON files of the
// other; the next import succeeds and leaves nothing beside board/.
func TestBoardImportKilledAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn and runs a hundred processes")
	}
	t.Parallel()
	bin := buildCairnFault(t)
	alpha, bravo, charlie := boardGeneration(t, "alpha", 1, 0), boardGeneration(t, "bravo", 2, 0), boardGeneration(t, "charlie", 3, 0)
	importWith := func(ws, doc, fault string) (string, error) { return importWithFault(bin, ws, doc, fault) }
	steps, published := tracedImportSteps(t, bin, alpha, bravo)
	for i, at := range steps {
		for _, before := range []string{"alpha", "none"} {
			// each step and board before in a workspace of its own, side by side
			t.Run(at+"/over-"+before, func(t *testing.T) {
				t.Parallel()
				ws := newWorkspace(t, bin)
				if before == "alpha" {
					if out, err := importWith(ws, alpha, ""); err != nil {
						t.Fatalf("import: %v %s", err, out)
					}
					boardHolds(t, bin, ws) // leaves a snapshot of the old board
				}
				if out, err := importWith(ws, bravo, at); !killedBy(err) {
					t.Fatalf("import over %s with a kill at %s: %v %s", before, at, err, out)
				}
				want := before
				if i >= published {
					want = "bravo"
				}
				if got := boardHolds(t, bin, ws); got != want {
					t.Errorf("import over %s killed after step %s: the board is %s, want %s", before, at, got, want)
				}
				if out, err := importWith(ws, charlie, ""); err != nil {
					t.Fatalf("import after a kill at %s: %v %s", at, err, out)
				}
				if got := boardHolds(t, bin, ws); got != "charlie" {
					t.Errorf("import after a kill at %s: the board is %s, want charlie", at, got)
				}
				if entries, _ := os.ReadDir(ws); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".board") }) {
					t.Errorf("after a kill at %s and a new import, the workspace holds %v", at, entries)
				}
			})
		}
	}
}

// An import that fills the disk fails with the disk's error and leaves the old board, whole.
func TestBoardImportFullDisk(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := mountTmpfs(t, "1m")
	if _, e, code := run(bin, "init", ws); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if _, e, code := run(bin, "-C", ws, "board", "import", boardGeneration(t, "alpha", 1, 0)); code != 0 {
		t.Fatalf("import: %s", e)
	}
	// bravo's memory.json does not fit; its database and summaries do
	_, e, code := run(bin, "-C", ws, "board", "import", boardGeneration(t, "bravo", 2, 2<<20))
	if code != 2 || !strings.Contains(e, "no space left on device") || !strings.Contains(e, "free some space") || strings.Contains(e, "goroutine") {
		t.Fatalf("import on a full disk: exit %d %q", code, e)
	}
	if got := boardHolds(t, bin, ws); got != "alpha" {
		t.Errorf("after an import that filled the disk, the board is %s, want alpha", got)
	}
	if entries, _ := os.ReadDir(ws); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".board") }) {
		t.Errorf("a failed import left %v", entries)
	}
	if _, e, code := run(bin, "-C", ws, "board", "import", boardGeneration(t, "charlie", 3, 0)); code != 0 {
		t.Fatalf("import after a full disk: %s", e)
	}
	if got := boardHolds(t, bin, ws); got != "charlie" {
		t.Errorf("import after a full disk: the board is %s", got)
	}
}
