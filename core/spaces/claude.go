package spaces

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
)

// LocalAccount owns every space imported from Claude Code transcripts: the history of one person
// on one machine. It is the caller when no user is given.
const LocalAccount = "local"

// SourceClaudeCode marks a space imported from Claude Code transcripts (spaces.source).
const SourceClaudeCode = "claude-code"

// claudeSpacePrefix starts the id of a space imported from Claude Code: claude-code/<project folder>.
const claudeSpacePrefix = SourceClaudeCode + "/"

// headBytes is how much of a transcript's beginning is hashed to tell an appended file (resume
// where the last import stopped) from a rewritten one (read it again from the start).
const headBytes = 4096

// ClaudeBadLine is a transcript line (or, with Line 0, a whole transcript) that was skipped.
type ClaudeBadLine struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// ClaudeReport says what an import of Claude Code transcripts read and wrote.
type ClaudeReport struct {
	Files     int             `json:"files"`     // transcripts found
	Unchanged int             `json:"unchanged"` // same size and time as at the last import: not opened
	Resumed   int             `json:"resumed"`   // grown since the last import: read from where it stopped
	Read      int             `json:"read"`      // new or rewritten: read from the start
	Spaces    int             `json:"spaces"`    // projects written
	Tasks     int             `json:"tasks"`     // sessions and subagents written
	Lines     int             `json:"lines"`     // lines read
	Comments  int             `json:"comments"`  // comments written
	Bytes     int64           `json:"bytes"`     // bytes read
	BadLines  []ClaudeBadLine `json:"bad_lines"`
}

// claudeState is what claude_files remembers of one transcript.
type claudeState struct {
	size, modNS, offset int64
	lines               int
	head, task, title   string
	createdAt           string
}

// ImportClaude imports Claude Code transcripts (files, or folders walked for *.jsonl) through the
// same write path as Import, so the index text is redacted alike: one space per project folder
// (owned by LocalAccount, source claude-code), one task per session (a subagent's transcript is a
// subtask of its session), one comment per prompt, answer, thinking block and tool call, keyed by
// the transcript record's uuid. A transcript whose size and modification time are unchanged since
// the last import is not opened; one that grew is read from where the last import stopped.
// ctx ending stops it between comments with CANCELLED: the batches already committed stay, with
// how far their files were read, so the next import goes on from there.
func (s *Store) ImportClaude(ctx context.Context, paths []string, progress Progress) (rep ClaudeReport, err error) {
	const what = "space import --from claude-code"
	defer func() { err = errs.IfStopped(ctx, err, what) }()
	rep = ClaudeReport{BadLines: []ClaudeBadLine{}}
	files, err := claudecode.Find(paths)
	if err != nil {
		return rep, errs.Wrap(errs.Invalid, err, what)
	}
	im := claudeImport{s: s, ctx: ctx, rep: &rep, spaces: map[string]bool{}, progress: progress}
	err = importFiles(&im, what, files, func(f claudecode.File) (string, int64, int64) { return f.Path, f.Size, f.ModNS }, im.file)
	return rep, err
}

// claudeImport is one run of ImportClaude: the batch being filled and the file states it settles.
type claudeImport struct {
	s        *Store
	ctx      context.Context
	rep      *ClaudeReport
	batch    []record
	states   map[string]claudeState // written after the batch holding their last records
	spaces   map[string]bool
	done     int64
	total    int64
	progress Progress
	source   string // the source its spaces are marked with: SourceClaudeCode when ""
	flushes  int    // batches written as they filled
}

// ClaudeIDs are the space and task ids of a transcript (claude-code/<project>, and the session id,
// or <session>/agent-<id> for a subagent), and the parent task of a subagent.
func ClaudeIDs(f claudecode.File) (space, task, parent ID) {
	project := f.Project
	if len(project) > 150 {
		// a deep working directory: keep the id within checkID's bound, still one per folder
		sum := sha256.Sum256([]byte(project))
		cut := 140
		for cut > 0 && !utf8.RuneStart(project[cut]) {
			cut--
		}
		project = project[:cut] + "-" + hex.EncodeToString(sum[:4])
	}
	space = ID(claudeSpacePrefix + project)
	task = ID(f.Session)
	if f.Agent != "" {
		parent = task
		task = ID(f.Session + "/agent-" + f.Agent)
	}
	return space, task, parent
}

// file reads one new or changed transcript into the batch.
func (im *claudeImport) file(f claudecode.File, st claudeState, known bool) error {
	bad := im.badFor(f.Path)
	space, task, parent := ClaudeIDs(f)
	if err := checkIDs(space, task); err != nil {
		bad(0, "skipped: its %v", err)
		return nil
	}
	fh := openTranscript(f.Path, bad)
	if fh == nil {
		return nil
	}
	defer fh.Close()
	start, lines := sameHead(fh, st, known && f.Size >= st.offset && st.task == string(task))
	if start > 0 {
		im.rep.Resumed++
	} else {
		im.rep.Read++
		st = claudeState{}
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", f.Path, err)
	}
	// the task first, so its comments find their space; its title is settled after the read
	taskAt := len(im.batch)
	im.batch = append(im.batch, record{kind: "task", task: taskRec{ID: task, Space: space, Parent: parent}})
	info, err := claudecode.Read(fh, start, lines, func(c claudecode.Comment) error {
		return im.addComment(Comment{ID: ID(c.ID), Task: task, Kind: c.Kind, ProgressType: c.ProgressType, ToolName: c.ToolName,
			Author: c.Author, CreatedAt: c.CreatedAt, Body: c.Body, Attachments: c.Attachments}, bad)
	})
	if err != nil {
		return err
	}
	im.tally(lineInfo{Lines: info.Lines, Offset: info.Offset, Bad: info.Bad}, bad, start, lines, f.Size)
	im.rep.Tasks++

	if st.createdAt == "" {
		st.createdAt = info.CreatedAt
	}
	if st.title == "" {
		// a subagent by the description its session gave it; a session by its first prompt
		if f.Agent != "" {
			st.title = claudecode.AgentDescription(f.Path)
		}
		if st.title == "" {
			st.title = info.FirstPrompt
		}
		if st.title == "" {
			st.title = info.Summary
		}
		// redacted before the cut, so a secret at the edge is recognised whole
		st.title = claudecode.Title(im.s.rd().Text(DropPrivate(st.title)))
		if st.title != "" && f.Agent != "" {
			st.title = "subagent: " + st.title
		}
	}
	title := st.title
	if title == "" {
		title = "session " + f.Session
		if f.Agent != "" {
			title = "subagent " + f.Agent + " of session " + f.Session
		}
	}
	im.settleTask(taskAt, taskRec{ID: task, Space: space, Title: title, Parent: parent, CreatedAt: st.createdAt})
	if start == 0 || info.CWD != "" {
		name := info.CWD
		if name == "" {
			name = f.Project
		}
		im.batch = append(im.batch, record{kind: "space", space: spaceRec{ID: space, Name: name, Owner: LocalAccount}})
	}
	im.spaces[string(space)] = true
	next, err := readState(fh, f.Path, f.Size, f.ModNS, info.Offset, info.Lines)
	if err != nil {
		return err
	}
	next.task, next.title, next.createdAt = string(task), st.title, st.createdAt
	im.keep(f.Path, next)
	if im.progress != nil {
		im.progress(im.done, im.total)
	}
	return nil
}

// flush writes the batch through the import path, then the states of the files it completes and
// the source of their spaces. A crash between the two only makes the next import read again what
// it has already written, which upserts the same rows.
func (im *claudeImport) flush() error {
	var dummy ImportReport
	if len(im.batch) > 0 {
		if err := im.s.writeBatch(im.ctx, im.batch, &dummy); err != nil {
			return err
		}
		im.batch = im.batch[:0]
	}
	if len(im.states) == 0 && len(im.spaces) == 0 {
		return nil
	}
	tx, err := im.s.db.BeginTx(im.ctx, nil)
	if err != nil {
		return im.s.dbErr(err, "begin import")
	}
	defer tx.Rollback()
	for p, st := range im.states {
		if x := im.s.exclude; x != nil && x.tasks[ID(st.task)] {
			st.title, st.createdAt = "", "" // [space] exclude: nothing of its text is kept
		}
		if _, err := tx.ExecContext(im.ctx, `INSERT INTO claude_files(path, size, mtime_ns, offset, lines, head, task, title, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, offset = excluded.offset,
				lines = excluded.lines, head = excluded.head, task = excluded.task, title = excluded.title, created_at = excluded.created_at`,
			p, st.size, st.modNS, st.offset, st.lines, st.head, st.task, st.title, st.createdAt); err != nil {
			return im.s.dbErr(err, "record how far "+p+" was read")
		}
	}
	source := im.source
	if source == "" {
		source = SourceClaudeCode
	}
	for sp := range im.spaces {
		if _, err := tx.ExecContext(im.ctx, `UPDATE spaces SET source = ? WHERE id = ?`, source, sp); err != nil {
			return im.s.dbErr(err, "mark space "+sp)
		}
	}
	if err := tx.Commit(); err != nil {
		return im.s.dbErr(err, "commit import")
	}
	clear(im.states)
	return nil
}

// claudeStates reads what claude_files remembers of every file that tells an unchanged one
// (size, time) and how far it was read (offset, lines): one query of a few integers a row, so an
// import with nothing new costs a listing and this. fullState reads the rest for a changed file.
func (s *Store) claudeStates(ctx context.Context) (map[string]claudeState, error) {
	if s.sharedStates != nil {
		return s.sharedStates, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime_ns, offset, lines FROM claude_files`)
	if err != nil {
		return nil, s.dbErr(err, "read the transcript list")
	}
	defer rows.Close()
	out := map[string]claudeState{}
	for rows.Next() {
		var p string
		var st claudeState
		if err := rows.Scan(&p, &st.size, &st.modNS, &st.offset, &st.lines); err != nil {
			return nil, s.dbErr(err, "read the transcript list")
		}
		out[p] = st
	}
	return out, s.dbErr(rows.Err(), "read the transcript list")
}

// fullState is the whole state of a file claudeStates lists (its head hash, task, title and
// creation time added), and false when it lists none.
func (s *Store) fullState(ctx context.Context, states map[string]claudeState, path string) (claudeState, bool, error) {
	st, ok := states[path]
	if !ok {
		return st, false, nil
	}
	err := s.db.QueryRowContext(ctx, `SELECT head, task, title, created_at FROM claude_files WHERE path = ?`, path).Scan(&st.head, &st.task, &st.title, &st.createdAt)
	if errors.Is(err, sql.ErrNoRows) {
		return claudeState{}, false, nil
	}
	return st, true, s.dbErr(err, "read the transcript list")
}

// headHash is the SHA-256 of the first min(n, headBytes) bytes of f, in hex.
func headHash(f *os.File, n int64) (string, error) {
	n = min(n, headBytes)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), nil
}

// claudeSpaces lists the spaces imported from agent runtimes that the local account owns, and
// the source of each.
func claudeSpaces(ctx context.Context, q querier) ([]ID, []string, error) {
	in, args := runtimeSourcesIn()
	rows, err := q.QueryContext(ctx, `SELECT id, source FROM spaces WHERE source IN `+in+` AND owner = ? ORDER BY id`, append(args, LocalAccount)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []ID
	var sources []string
	for rows.Next() {
		var id, src string
		if err := rows.Scan(&id, &src); err != nil {
			return nil, nil, err
		}
		out = append(out, ID(id))
		sources = append(sources, src)
	}
	return out, sources, rows.Err()
}

// isClaudeSpace reports whether space came from Claude Code or Codex and belongs to the local account.
func isClaudeSpace(ctx context.Context, q querier, space string) (bool, error) {
	var n int
	in, args := runtimeSourcesIn()
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM spaces WHERE id = ? AND source IN `+in+` AND owner = ?`, append(append([]any{space}, args...), LocalAccount)...).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return n > 0, err
}

// localAsker is a caller with no user: the local account, leaving out the current task, which is
// --task when given, or the runtime's session (Caller.ClaudeSession) when it names one.
func localAsker(caller Caller) (asker, error) {
	if strings.TrimSpace(caller.Task) != "" {
		current, err := parseRef("task", caller.Task)
		return asker{task: current, explicit: true}, err
	}
	if checkID("session", ID(caller.ClaudeSession)) == nil {
		return asker{task: ID(caller.ClaudeSession)}, nil
	}
	return asker{}, nil
}

// resolveLocal resolves a caller with no user. Search is not available to it, except in the
// spaces imported from Claude Code or Codex, which belong to the local account: with a current
// task of one of them, its space without that task; with none (or a runtime session not imported),
// every Claude Code and Codex space of the local account, or for around_ref the comment's one.
func (s *Store) resolveLocal(ctx context.Context, q querier, who asker, in SearchInput) ([]scope, *Unavailable, error) {
	unavailable := &Unavailable{Message: UnavailableMessage}
	if who.task != "" {
		var space string
		err := q.QueryRowContext(ctx, `SELECT space FROM tasks WHERE id = ?`, string(who.task)).Scan(&space)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if who.explicit {
				return nil, unavailable, nil // no user, and not a task of a Claude Code space
			}
			// the Claude Code session has not been imported: there is nothing of it to leave out
		case err != nil:
			return nil, nil, s.dbErr(err, "look up the current task")
		default:
			ok, err := isClaudeSpace(ctx, q, space)
			if err != nil {
				return nil, nil, s.dbErr(err, "look up the current space")
			}
			if !ok {
				return nil, unavailable, nil
			}
			sc, unavailable, err := s.resolveTask(ctx, q, LocalAccount, who.task)
			return []scope{sc}, unavailable, err
		}
	}
	all, sources, err := claudeSpaces(ctx, q)
	if err != nil {
		return nil, nil, s.dbErr(err, "list the Claude Code and Codex spaces")
	}
	if len(all) == 0 {
		return nil, unavailable, nil
	}
	if in.Runtime != "" && strings.TrimSpace(in.Around) == "" {
		kept := all[:0]
		for i, sp := range all {
			if sources[i] == in.Runtime {
				kept = append(kept, sp)
			}
		}
		if all = kept; len(all) == 0 {
			return []scope{{space: "", task: who.task}}, nil, nil // no space of that runtime: no hits
		}
	}
	if strings.TrimSpace(in.Around) != "" {
		id, err := parseRef("comment", in.Around)
		if err != nil {
			return nil, nil, err
		}
		var space string
		in, args := runtimeSourcesIn()
		err = q.QueryRowContext(ctx, `SELECT c.space FROM comments c JOIN spaces s ON s.id = c.space
			WHERE c.id = ? AND s.source IN `+in+` AND s.owner = ?`, append(append([]any{string(id)}, args...), LocalAccount)...).Scan(&space)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil, errs.NotFoundf("comment:%s not found in the Claude Code and Codex spaces of this workspace", id)
		}
		if err != nil {
			return nil, nil, s.dbErr(err, "read comment")
		}
		return []scope{{space: ID(space), task: who.task}}, nil, nil
	}
	scopes := make([]scope, len(all))
	for i, sp := range all {
		scopes[i] = scope{space: sp, task: who.task}
	}
	return scopes, nil, nil
}

// sortHits orders hits from several spaces as one space's are: newest first, then comment id.
func sortHits(hits []Hit) {
	type key struct {
		at  time.Time
		idk string
	}
	keys := make(map[string]key, len(hits))
	for _, h := range hits {
		t, _ := time.Parse(time.RFC3339Nano, h.CreatedAt)
		keys[h.Ref] = key{t, idKey(ID(strings.TrimPrefix(h.Ref, "comment:")))}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := keys[hits[i].Ref], keys[hits[j].Ref]
		if !a.at.Equal(b.at) {
			return a.at.After(b.at)
		}
		return a.idk > b.idk
	})
}
