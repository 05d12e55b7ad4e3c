package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/sessionlog"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Lineage entries of a cairn log (docs/formats.md, "Session lineage"). A session's list is a fold
// over its log; lineage makes that fold follow the conversation without copying anything:
//
//   - fork, the first entry of a forked session's log: replay starts with the parent log replayed
//     up to parent_lines, so the fork inherits the parent's list as it was and then diverges; its
//     new ids continue after the highest inherited one.
//   - handoff, appended to a log whose conversation moved to another session (a /clear): a
//     process still bound to the old session id (an MCP server started before the clear) writes
//     and reads the successor's log from its next call on. A later handoff with no successor (the
//     old conversation was resumed) binds the old id to its own log again.
const (
	TypeFork    = "fork"
	TypeHandoff = "handoff"
)

// maxLineage bounds how many parents a replay follows and how many handoffs a binding follows, so
// a cycle or a hostile chain costs a bounded number of file reads.
const maxLineage = 32

// Fork is the first entry of a forked session's log.
type Fork struct {
	Type string `json:"type"`
	// Parent is the parent session's log, a file name in the same folder (sessions/<id>.jsonl).
	Parent string `json:"parent"`
	// ParentLines is how many lines of the parent log the fork inherits: its length at the fork.
	ParentLines int `json:"parent_lines"`
	// Runtime and Session name the fork as the runtime knows it (claude-code, codex).
	Runtime string `json:"runtime,omitempty"`
	Session string `json:"session,omitempty"`
	At      string `json:"at"`
}

// Handoff says the conversation of this log's session moved on (To, a log in the same folder) or,
// with To empty, came back to it.
type Handoff struct {
	Type   string `json:"type"`
	To     string `json:"to"`
	Reason string `json:"reason"`
	At     string `json:"at"`
}

// ForkPoint is a fork entry as replay found it, for `session check` and the hook's text.
type ForkPoint struct {
	Parent      string `json:"parent"`
	ParentLines int    `json:"parent_lines"`
}

// logName checks that name is a session log in the same folder: one safe segment ending .jsonl.
func logName(name string) bool {
	id, ok := strings.CutSuffix(name, ".jsonl")
	return ok && safeSegment(id)
}

// replayParent replays the parent log a fork entry names into r, up to its fork point. Its skips
// and notes say which log they are in; its changes carry the log's name. ctx ends the wait for
// its lock and its read (CANCELLED).
func (r *Replayer) replayParent(ctx context.Context, line int, f ForkPoint, stop Stop) error {
	if r.Dir == "" {
		r.skip(line, "fork entry: the parent log %q cannot be read from here (a log read from standard input)", f.Parent)
		return nil
	}
	if !logName(f.Parent) || f.ParentLines < 0 {
		r.skip(line, "fork entry: parent %q is not a session log of this folder (give <id>.jsonl) or parent_lines is negative", f.Parent)
		return nil
	}
	if r.depth >= maxLineage {
		r.skip(line, "fork entry: more than %d forks in a chain (a cycle?); the parent %s is not replayed", maxLineage, f.Parent)
		return nil
	}
	r.Fork = &f
	path := filepath.Join(r.Dir, f.Parent)
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		r.skip(line, "fork entry: the parent log %s is missing or not a regular file; the fork starts empty", f.Parent)
		return nil
	}
	sub := &Replayer{Store: r.Store, Dir: r.Dir, depth: r.depth + 1, OnChange: r.OnChange}
	if r.OnChange != nil {
		sub.OnChange = func(c Change) {
			if c.Log == "" {
				c.Log = f.Parent
			}
			r.OnChange(c)
		}
	}
	pstop := Stop{Line: f.ParentLines, Time: stop.Time}
	if f.ParentLines == 0 {
		return nil // forked from an empty list
	}
	log := sessionlog.Log{Path: path, Wait: r.Wait}
	err := log.Read(ctx, func(in io.Reader) error { return ReplayCairn(ctx, workspace.ContextReader(ctx, in), sub, pstop, nil) })
	for _, s := range sub.Skips {
		r.Skips = append(r.Skips, Skip{Line: line, Reason: fmt.Sprintf("in the parent log %s, line %d: %s", f.Parent, s.Line, s.Reason)})
	}
	for _, s := range sub.Notes {
		r.Notes = append(r.Notes, Skip{Line: line, Reason: fmt.Sprintf("in the parent log %s, line %d: %s", f.Parent, s.Line, s.Reason)})
	}
	if err != nil {
		return fmt.Errorf("replay the parent log %s: %w", f.Parent, err)
	}
	return nil
}

// maxHandoffLine bounds the tail successor reads: a handoff entry is far shorter.
const maxHandoffLine = 4096

// successor is where a log's binding points: the target of its last entry when that entry is a
// handoff ("" when it names none, or the last entry is anything else). A handed-off log gets
// no entry after its handoff but a handoff back (a resume) or what someone writes to it by
// name, and either makes it its session's own again; so only the tail is read, and every call
// that opens a log by session id costs one small read, not a scan of the log.
func successor(path string) (string, error) {
	f, err := workspace.OpenRegular(path, "session log")
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil
		}
		return "", workspace.FSError(err, "open session log %s", path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return "", nil
	}
	n := min(st.Size(), maxHandoffLine)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, st.Size()-n); err != nil {
		return "", fmt.Errorf("read session log %s: %w", path, err)
	}
	if buf[len(buf)-1] != '\n' {
		return "", nil // a torn last line is no handoff
	}
	line := buf[:len(buf)-1]
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	} else if n < st.Size() {
		return "", nil // a last line longer than any handoff
	}
	if !bytes.Contains(line, markHandoff) && !bytes.Contains(line, markEscape) {
		return "", nil // no handoff type, even escaped: the last entry of almost every call, not decoded
	}
	var h Handoff
	if json.Unmarshal(line, &h) != nil || h.Type != TypeHandoff || h.To != "" && !logName(h.To) {
		return "", nil
	}
	return h.To, nil
}

// markHandoff is a handoff entry's type as it is written; markEscape starts the escape that could
// spell it otherwise.
var markHandoff, markEscape = []byte(`"` + TypeHandoff + `"`), []byte(`\u`)

// follow walks the handoffs from a session's log to the log its conversation lives in now.
func follow(ws *workspace.Workspace, path string) (string, error) {
	seen := map[string]bool{path: true}
	for range maxLineage {
		to, err := successor(path)
		if err != nil || to == "" {
			return path, err
		}
		next := filepath.Join(filepath.Dir(path), to)
		if seen[next] {
			return path, nil // a cycle of handoffs: stay where the chain closed
		}
		rel, err := filepath.Rel(ws.Root, next)
		if err != nil {
			return path, nil
		}
		if err := ws.CheckStore(filepath.ToSlash(rel), filepath.ToSlash(rel)+".lock"); err != nil {
			return "", err
		}
		seen[next] = true
		path = next
	}
	return path, nil
}

// lineCount counts the lines of a log (its length at a fork point).
func lineCount(in io.Reader) (int, error) {
	n := 0
	sc := sessionlog.NewScanner(in)
	for sc.Next() {
		n = sc.Line().No
	}
	return n, sc.Err()
}

// StartFork starts the log of a forked session (child) as a fork of parent's, at parent's length
// now. Nothing is written when the parent has no log (nothing to inherit) or the child's log
// already has entries (the fork was recorded before, or the child wrote first): it is never
// rewritten. It reports whether the fork entry was written.
func StartFork(ctx context.Context, ws *workspace.Workspace, runtime, parent, child string, now string) (bool, error) {
	if err := errs.Stopped(ctx, "fork"); err != nil {
		return false, err
	}
	ppath, err := SessionLogFor(ws, parent)
	if err != nil {
		return false, err
	}
	cpath, err := SessionLogFor(ws, child)
	if err != nil {
		return false, err
	}
	if ppath == cpath {
		return false, nil
	}
	if st, err := os.Lstat(ppath); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	// the parent is read under its shared lock, so the fork point is a whole line
	var lines int
	plog := sessionlog.Log{Path: ppath, Wait: ws.Wait}
	if err := plog.Read(ctx, func(in io.Reader) error {
		var err error
		lines, err = lineCount(in)
		return err
	}); err != nil {
		return false, err
	}
	written := false
	clog := sessionlog.Log{Path: cpath, Wait: ws.Wait}
	err = clog.Update(ctx, func(in io.Reader) ([]any, error) {
		var b [1]byte
		if n, _ := in.Read(b[:]); n > 0 {
			return nil, nil // the child's log exists: never rewritten
		}
		written = true
		return []any{Fork{Type: TypeFork, Parent: filepath.Base(ppath), ParentLines: lines, Runtime: runtime, Session: child, At: now}}, nil
	})
	return written, err
}

// HandOff records in from's log that its conversation moved to session to ("" when it came back
// to from itself, as on a resume). A log that does not exist gets nothing: nothing was bound to
// it. It reports whether an entry was written; the same handoff twice in a row writes once.
func HandOff(ctx context.Context, ws *workspace.Workspace, from, to, reason, now string) (bool, error) {
	if err := errs.Stopped(ctx, "handoff"); err != nil {
		return false, err
	}
	fpath, err := SessionLogFor(ws, from)
	if err != nil {
		return false, err
	}
	target := ""
	if to != "" {
		tpath, err := SessionLogFor(ws, to)
		if err != nil {
			return false, err
		}
		target = filepath.Base(tpath)
	}
	if st, err := os.Lstat(fpath); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	cur, err := successor(fpath)
	if err != nil {
		return false, err
	}
	if cur == target {
		return false, nil
	}
	written := false
	log := sessionlog.Log{Path: fpath, Wait: ws.Wait}
	err = log.Update(ctx, func(io.Reader) ([]any, error) {
		written = true
		return []any{Handoff{Type: TypeHandoff, To: target, Reason: reason, At: now}}, nil
	})
	return written, err
}

// A fork's parent is often not known when its SessionStart runs: Claude Code writes the forked
// transcript (whose copied records name the parent in requestSessionId) only as the first turn
// starts. The hook then leaves a pending fork (.cairn/forks/<id>.json, naming the transcript),
// and the first open of that session's log (LogPath, before anything is read or written there)
// reads the transcript and starts the log as the parent's fork.
type pendingFork struct {
	Runtime    string `json:"runtime"`
	Transcript string `json:"transcript"`
	At         string `json:"at"`
}

// maxForkScan bounds how much of a transcript is read to find its parent.
const maxForkScan = 64 << 20

func forkMarkPath(ws *workspace.Workspace, id string) string {
	return filepath.Join(ws.Root, ".cairn", "forks", id+".json")
}

// recordFork records that session id is a fork whose parent its transcript will name.
func recordFork(ws *workspace.Workspace, runtime, id, transcript, now string) error {
	dir, err := ws.StateDir()
	if err != nil {
		return err
	}
	dir = filepath.Join(dir, "forks")
	if err := workspace.MkdirAll(dir, 0o755); err != nil {
		return workspace.FSError(err, "create %s", dir)
	}
	data, _ := json.Marshal(pendingFork{Runtime: runtime, Transcript: transcript, At: now})
	return workspace.WriteFileAtomic(filepath.Join(dir, id+".json"), data, 0o644)
}

// resolveFork starts the log at path (session id's, not there yet) as a fork when a pending fork
// names a transcript that now names the parent. Whatever fails (ctx ending too) leaves the
// session as it was.
func resolveFork(ctx context.Context, ws *workspace.Workspace, id, path string) {
	mark := forkMarkPath(ws, id)
	data, err := workspace.ReadSmall(mark, 8192, "")
	if err != nil || len(data) > 8192 {
		return
	}
	var m pendingFork
	if json.Unmarshal(data, &m) != nil || m.Transcript == "" {
		os.Remove(mark)
		return
	}
	parent := transcriptParent(m.Transcript, id)
	if parent == "" {
		return // not written yet: the next open tries again
	}
	if _, err := StartFork(ctx, ws, m.Runtime, parent, id, m.At); err == nil {
		os.Remove(mark)
	}
}

var markRequestSession = []byte(`"requestSessionId":"`)

// transcriptParent finds the parent a forked transcript names: the first requestSessionId (Claude
// Code) that is not the session's own, or a rollout's forked_from_id (Codex).
func transcriptParent(path, self string) string {
	f, err := workspace.OpenRegular(path, "session log")
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	sc := sessionlog.NewScanner(io.LimitReader(f, maxForkScan))
	for n := 0; sc.Next(); n++ {
		data := sc.Line().Data
		if n == 0 && isCodexLine(data) {
			var rec codexRecord
			if json.Unmarshal(data, &rec) == nil && rec.Type == "session_meta" {
				from := rec.Payload.ForkedFrom
				if from == "" && rec.Payload.HistoryBase != nil {
					from = rec.Payload.HistoryBase.ThreadID
				}
				if from != self && safeSegment(from) {
					return from
				}
			}
			return ""
		}
		if i := bytes.Index(data, markRequestSession); i >= 0 {
			rest := data[i+len(markRequestSession):]
			if j := bytes.IndexByte(rest, '"'); j > 0 {
				if id := string(rest[:j]); id != self && safeSegment(id) {
					return id
				}
			}
		}
	}
	return ""
}
