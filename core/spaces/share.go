package spaces

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// Exclude is [space] exclude of cairn.toml: project paths (the directory a session ran in) and
// session ids that are never imported and never pushed. A path excludes the spaces its sessions
// land in (claude-code/, codex/, opencode/, gemini/ of that directory) and any space named by it
// or by a directory under it; a session id excludes its task, its subagents and their comments.
type Exclude struct {
	paths    []string
	sessions map[string]bool
	spaceIDs map[ID]bool
}

// NewExclude builds an Exclude from the entries of [space] exclude: an absolute path (or one
// starting with ~/, which home expands) is a project path, anything else a session id.
func NewExclude(entries []string, home string) Exclude {
	e := Exclude{sessions: map[string]bool{}, spaceIDs: map[ID]bool{}}
	for _, x := range entries {
		x = strings.TrimSpace(x)
		if x == "" {
			continue
		}
		if strings.HasPrefix(x, "~/") && home != "" {
			x = filepath.Join(home, x[2:])
		}
		if filepath.IsAbs(x) {
			p := filepath.Clean(x)
			e.paths = append(e.paths, p)
			for _, id := range []ID{ID(claudeSpacePrefix) + ID(strings.TrimPrefix(string(CodexSpaceID(p)), codexSpacePrefix)), CodexSpaceID(p), OpenCodeSpaceID(p), GeminiSpaceID(p)} {
				e.spaceIDs[id] = true
			}
			continue
		}
		e.sessions[x] = true
	}
	return e
}

// Empty reports whether nothing is excluded.
func (e Exclude) Empty() bool { return len(e.paths) == 0 && len(e.sessions) == 0 }

// Space reports whether a space of this id and name (a working directory, for the spaces of
// agent sessions) is excluded.
func (e Exclude) Space(id ID, name string) bool {
	if e.spaceIDs[id] {
		return true
	}
	if name == "" || !filepath.IsAbs(name) {
		return false
	}
	name = filepath.Clean(name)
	for _, p := range e.paths {
		if name == p || strings.HasPrefix(name, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Task reports whether a task is an excluded session: its id, or a subagent of it
// (<session>/agent-…).
func (e Exclude) Task(id ID) bool {
	s := string(id)
	if e.sessions[s] {
		return true
	}
	if i := strings.IndexByte(s, '/'); i > 0 && e.sessions[s[:i]] {
		return true
	}
	return false
}

// excludeState is an import's exclusion: the rule and what it has left out so far, so the
// comments of a left-out task are left out in later batches too.
type excludeState struct {
	rule   Exclude
	spaces map[ID]bool
	tasks  map[ID]bool
	// Skipped counts the records left out.
	skipped int
}

// SetExclude makes every later import of this store leave out what e excludes ([space] exclude).
func (s *Store) SetExclude(e Exclude) {
	if e.Empty() {
		s.exclude = nil
		return
	}
	s.exclude = &excludeState{rule: e, spaces: map[ID]bool{}, tasks: map[ID]bool{}}
}

// Excluded is how many records the imports of this store left out ([space] exclude).
func (s *Store) Excluded() int {
	if s.exclude == nil {
		return 0
	}
	return s.exclude.skipped
}

// leaveOut reports whether rec is excluded, and remembers the spaces and tasks it excludes.
func (x *excludeState) leaveOut(rec *record) bool {
	out := false
	switch rec.kind {
	case "space":
		out = x.rule.Space(rec.space.ID, rec.space.Name)
		if out {
			x.spaces[rec.space.ID] = true
		}
	case "member":
		out = x.spaces[rec.member.Space] || x.rule.Space(rec.member.Space, "")
	case "task":
		out = x.rule.Task(rec.task.ID) || x.spaces[rec.task.Space] || x.rule.Space(rec.task.Space, "")
		if out {
			x.tasks[rec.task.ID] = true
		}
	case "comment":
		out = x.tasks[rec.comment.Task] || x.rule.Task(rec.comment.Task)
	}
	if out {
		x.skipped++
	}
	return out
}

// SpaceInfo is one space as Walk gives it.
type SpaceInfo struct {
	ID     ID     `json:"id"`
	Name   string `json:"name"`
	Owner  string `json:"owner"`
	Source string `json:"source"`
}

// Walk calls fn for every task of every space, spaces and tasks in id order, with the task's
// comments oldest first, as stored (raw bodies: a sharing step redacts them itself). It reads in
// one transaction, so a concurrent import is seen whole or not at all.
func (s *Store) Walk(ctx context.Context, fn func(sp SpaceInfo, t BatchTask, comments []Comment) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.dbErr(err, "begin read")
	}
	defer tx.Rollback()
	var sps []SpaceInfo
	rows, err := tx.QueryContext(ctx, `SELECT id, name, owner, source FROM spaces ORDER BY id`)
	if err != nil {
		return s.dbErr(err, "list spaces")
	}
	for rows.Next() {
		var sp SpaceInfo
		if err := rows.Scan(&sp.ID, &sp.Name, &sp.Owner, &sp.Source); err != nil {
			rows.Close()
			return s.dbErr(err, "list spaces")
		}
		sps = append(sps, sp)
	}
	rows.Close()
	// tasks whose space has no row (an import of tasks alone) are walked too, under their space id
	orphans, err := tx.QueryContext(ctx, `SELECT DISTINCT space FROM tasks WHERE space NOT IN (SELECT id FROM spaces) ORDER BY space`)
	if err != nil {
		return s.dbErr(err, "list spaces")
	}
	for orphans.Next() {
		var id ID
		if err := orphans.Scan(&id); err != nil {
			orphans.Close()
			return s.dbErr(err, "list spaces")
		}
		sps = append(sps, SpaceInfo{ID: id})
	}
	orphans.Close()
	for _, sp := range sps {
		if err := errs.Stopped(ctx, "read spaces"); err != nil {
			return err
		}
		var tasks []BatchTask
		trows, err := tx.QueryContext(ctx, `SELECT id, space, title, status, COALESCE(parent, ''), created_at FROM tasks WHERE space = ? ORDER BY id`, string(sp.ID))
		if err != nil {
			return s.dbErr(err, "list tasks")
		}
		for trows.Next() {
			var t BatchTask
			if err := trows.Scan(&t.ID, &t.Space, &t.Title, &t.Status, &t.Parent, &t.CreatedAt); err != nil {
				trows.Close()
				return s.dbErr(err, "list tasks")
			}
			tasks = append(tasks, t)
		}
		trows.Close()
		for _, t := range tasks {
			cs, err := walkComments(ctx, tx, t.ID)
			if err != nil {
				return s.dbErr(err, "read comments")
			}
			if err := fn(sp, t, cs); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkComments reads a task's comments, oldest first.
func walkComments(ctx context.Context, q querier, task ID) ([]Comment, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, task, kind, progress_type, tool_name, author, created_at, body, attachments
		FROM comments WHERE task = ? ORDER BY at_ns, idkey`, string(task))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Comment
	for rows.Next() {
		var c Comment
		var att string
		if err := rows.Scan(&c.ID, &c.Task, &c.Kind, &c.ProgressType, &c.ToolName, &c.Author, &c.CreatedAt, &c.Body, &att); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(att), &c.Attachments); err != nil || c.Attachments == nil {
			c.Attachments = []string{}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
