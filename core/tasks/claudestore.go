package tasks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/core/workspace"
)

// ClaudeConfigDir is where Claude Code keeps its state: $CLAUDE_CONFIG_DIR (which Claude Code
// itself honours), else ~/.claude; "" when neither can be told.
func ClaudeConfigDir() string { return workspace.RuntimeHome("CLAUDE_CONFIG_DIR", ".claude") }

// StoreCheck compares a transcript's replay with Claude Code's own task store
// (<config>/tasks/<session-id>/<id>.json).
type StoreCheck struct {
	Dir         string   `json:"dir"`
	Tasks       int      `json:"tasks"`
	Matches     bool     `json:"matches"`
	Differences []string `json:"differences"`
}

// claudeStoreTask is one <id>.json of Claude Code's store; blocks, owner and the rest are not
// part of cairn's model.
type claudeStoreTask struct {
	ID          json.RawMessage `json:"id"`
	Subject     string          `json:"subject"`
	Description string          `json:"description"`
	Status      string          `json:"status"`
}

// compareClaudeStore reads the store of session id under config and names every difference
// with the replayed tasks; nil when there is no such store. A task deleted in the replay is
// expected to be gone from the store (Claude Code removes its file).
func compareClaudeStore(config, id string, replayed []Task) (*StoreCheck, error) {
	if config == "" || id == "" || !safeSegment(id) {
		return nil, nil
	}
	dir := filepath.Join(config, "tasks", id)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil // no store for this session: nothing to compare
	}
	store := map[int]claudeStoreTask{}
	chk := &StoreCheck{Dir: dir, Differences: []string{}}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := workspace.ReadSmall(filepath.Join(dir, e.Name()), 16<<20, "Claude Code task")
		if err != nil {
			return nil, fmt.Errorf("read Claude Code task %s: %w", e.Name(), err)
		}
		var t claudeStoreTask
		n := 0
		if json.Unmarshal(data, &t) == nil {
			n = idValue(t.ID)
		}
		if n <= 0 {
			chk.Differences = append(chk.Differences, fmt.Sprintf("%s in the store is not a task this replay can read", e.Name()))
			continue
		}
		if t.Status == "in_progress" {
			t.Status = InProgress
		}
		store[n] = t
	}
	chk.Tasks = len(store)
	seen := map[int]bool{}
	for _, r := range replayed {
		seen[r.TaskID] = true
		s, ok := store[r.TaskID]
		switch {
		case !ok && r.Status == Deleted:
		case !ok:
			chk.Differences = append(chk.Differences, fmt.Sprintf("task %d (%s, %q) is in the replay but not in Claude Code's store", r.TaskID, r.Status, r.Subject))
		case r.Status == Deleted && s.Status != Deleted:
			chk.Differences = append(chk.Differences, fmt.Sprintf("task %d is deleted in the replay but %s in the store", r.TaskID, s.Status))
		default:
			if s.Status != r.Status {
				chk.Differences = append(chk.Differences, fmt.Sprintf("task %d: status %s in the store, %s in the replay", r.TaskID, s.Status, r.Status))
			}
			if strings.TrimSpace(s.Subject) != r.Subject {
				chk.Differences = append(chk.Differences, fmt.Sprintf("task %d: subject %q in the store, %q in the replay", r.TaskID, s.Subject, r.Subject))
			}
			if s.Description != r.Description {
				chk.Differences = append(chk.Differences, fmt.Sprintf("task %d: the description differs", r.TaskID))
			}
		}
	}
	var extra []int
	for n := range store {
		if !seen[n] {
			extra = append(extra, n)
		}
	}
	sort.Ints(extra)
	for _, n := range extra {
		chk.Differences = append(chk.Differences, fmt.Sprintf("task %d (%s, %q) is in Claude Code's store but not in the replay", n, store[n].Status, store[n].Subject))
	}
	chk.Matches = len(chk.Differences) == 0
	return chk, nil
}
