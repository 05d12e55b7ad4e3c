package tasks

import (
	"regexp"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// ClaudeSessionEnv names the variable Claude Code sets in the processes it starts (Bash, hooks,
// MCP servers) to its session id.
const ClaudeSessionEnv = "CLAUDE_CODE_SESSION_ID"

var safeSegment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ClaudeSessionLog is the cairn log of one Claude Code session: sessions/<id>.jsonl in the
// workspace. An id that is not one safe path segment (letters, digits, '.', '_', '-', at most 128,
// not starting with a dot) is refused, so no id can name a file elsewhere.
func ClaudeSessionLog(ws *workspace.Workspace, id string) (string, error) {
	if !safeSegment.MatchString(id) {
		return "", errs.Invalidf("%s %q is not a usable session id: give letters, digits, '.', '_' or '-' (at most 128, not starting with '.')", ClaudeSessionEnv, id)
	}
	rel := "sessions/" + id + ".jsonl"
	if err := ws.CheckStore(rel, rel+".lock"); err != nil {
		return "", err
	}
	return ws.Path(rel), nil
}

// LogPath picks the session log (SPEC §2.4): a log the caller names (--session, CAIRN_SESSION),
// else sessions/<id>.jsonl when a Claude Code session id is given, else the manifest's
// [session] log. So two Claude Code sessions in one repository never share a task list, and a
// resumed session finds its tasks again.
func LogPath(ws *workspace.Workspace, explicit, claudeID string) (string, error) {
	if explicit == "" && claudeID != "" {
		return ClaudeSessionLog(ws, claudeID)
	}
	return ws.SessionLogPath(explicit)
}
