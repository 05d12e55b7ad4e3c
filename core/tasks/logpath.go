package tasks

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// ClaudeSessionEnv names the variable Claude Code sets in the processes it starts (Bash, hooks,
// MCP servers) to its session id.
const ClaudeSessionEnv = "CLAUDE_CODE_SESSION_ID"

// safeSegment reports whether id is one safe path segment: a letter or digit, then up to 127
// letters, digits, '.', '_' or '-'. A loop, not a regular expression: compiling the repetition
// {0,127} cost every process about a third of a millisecond at start-up.
func safeSegment(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// SessionLogFor is the cairn log of one runtime session: sessions/<id>.jsonl in the workspace,
// whatever the runtime (Claude Code and Codex session ids are UUIDs). An id that is not one safe
// path segment (letters, digits, '.', '_', '-', at most 128, not starting with a dot) is refused,
// so no id can name a file elsewhere.
func SessionLogFor(ws *workspace.Workspace, id string) (string, error) {
	if !safeSegment(id) {
		return "", errs.Invalidf("session id %q is not usable: give letters, digits, '.', '_' or '-' (at most 128, not starting with '.')", id)
	}
	rel := "sessions/" + id + ".jsonl"
	if err := ws.CheckStore(rel, rel+".lock"); err != nil {
		return "", err
	}
	return ws.Path(rel), nil
}

// ClaudeSessionLog is SessionLogFor with the message naming the variable the id came from.
func ClaudeSessionLog(ws *workspace.Workspace, id string) (string, error) {
	if !safeSegment(id) {
		return "", errs.Invalidf("%s %q is not a usable session id: give letters, digits, '.', '_' or '-' (at most 128, not starting with '.')", ClaudeSessionEnv, id)
	}
	return SessionLogFor(ws, id)
}

// LogPath picks the session log: a log the caller names (--session, CAIRN_SESSION),
// else the log of the runtime session id given (sessions/<id>.jsonl, following its handoffs to
// the session its conversation lives in now: a server started before a /clear writes to the
// cleared conversation's list), else the manifest's [session] log. So two runtime sessions in
// one repository never share a task list, and a resumed session finds its tasks again. ctx ends
// the lock waits of a pending fork started on the way (resolveFork).
func LogPath(ctx context.Context, ws *workspace.Workspace, explicit, claudeID string) (string, error) {
	if explicit == "" && claudeID != "" {
		path, err := ClaudeSessionLog(ws, claudeID)
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(path); os.IsNotExist(err) {
			resolveFork(ctx, ws, claudeID, path)
		}
		return follow(ws, path)
	}
	return ws.SessionLogPath(explicit)
}

// OpenSession binds the caller's session log (LogPath) in its format; the command line and the
// agent tools open their session here, so both read and write the same log the same way. With ws
// nil (no workspace) only a log named outright (c.Session) can be opened: nothing else of a
// workspace is read, so a transcript can be inspected from anywhere; its locks wait up to wait.
func OpenSession(ctx context.Context, ws *workspace.Workspace, wait time.Duration, c workspace.Caller) (*Session, error) {
	var s *Session
	id, db, isOpenCode, err := ParseOpenCodeSession(c.Session)
	if err != nil {
		return nil, err
	}
	switch {
	case isOpenCode:
		s = NewSession(db, wait)
		s.Format, s.Runtime = FormatOpenCode, id
		if err := CheckList(c.List); err != nil {
			return nil, err
		}
		s.Which = c.List
		return s, nil
	case ws != nil:
		path, err := LogPath(ctx, ws, c.Session, c.ClaudeSession)
		if err != nil {
			return nil, err
		}
		s = NewSession(path, ws.Wait)
	case c.Session != "":
		path, err := filepath.Abs(c.Session)
		if err != nil {
			return nil, errs.Wrap(errs.Invalid, err, "session log %s", c.Session)
		}
		s = NewSession(path, wait)
	default:
		return nil, &errs.Error{Code: errs.Invalid, Err: workspace.ErrNoWorkspace}
	}
	s.ClaudeConfig = ClaudeConfigDir()
	if err := CheckList(c.List); err != nil {
		return nil, err
	}
	s.Which = c.List
	switch c.SessionFormat {
	case "", FormatAuto, FormatCairn, FormatClaude, FormatCodex, FormatGemini:
		s.Format = c.SessionFormat
	default:
		return nil, errs.Invalidf("unknown %s %q; valid: auto, cairn, claude, codex, gemini (an OpenCode session is named opencode:ses_…)", errs.Field("session_format", errs.Name), c.SessionFormat)
	}
	return s, nil
}
