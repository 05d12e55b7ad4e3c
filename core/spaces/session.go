package spaces

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// Session names the past session of an agent runtime a task was imported from (a space of source
// claude-code, codex, opencode or gemini): the runtime, the project (the session's working
// directory, the space's name), the session id and the command that resumes it, run in that
// directory. All four are empty for any other task.
type Session struct {
	Runtime   string `json:"runtime,omitempty"`    // claude-code, codex, opencode or gemini
	Project   string `json:"project,omitempty"`    // the project the session ran in: its working directory (the space's name)
	SessionID string `json:"session_id,omitempty"` // the runtime's own session id
	Resume    string `json:"resume,omitempty"`     // claude --resume ID, codex resume ID, opencode --session ID, gemini --resume ID
}

// SessionOf is the session of task (its id, without task:) in a space of the given source.
func SessionOf(source, task string) Session {
	switch source {
	case SourceClaudeCode:
		// a subagent's task is <session>/agent-<id>: resuming its session is the way back to it
		id, _, _ := strings.Cut(task, "/agent-")
		return Session{Runtime: SourceClaudeCode, SessionID: id, Resume: "claude --resume " + shellWord(id)}
	case SourceCodex:
		return Session{Runtime: SourceCodex, SessionID: task, Resume: "codex resume " + shellWord(task)}
	case SourceOpenCode:
		return Session{Runtime: SourceOpenCode, SessionID: task, Resume: "opencode --session " + shellWord(task)}
	case SourceGemini:
		return Session{Runtime: SourceGemini, SessionID: task, Resume: "gemini --resume " + shellWord(task)}
	}
	return Session{}
}

// shellWord is s as one word of a POSIX shell command: as it is when it holds only characters no
// shell treats specially (a session id does), else in single quotes, so a crafted file name
// cannot make a resume command do anything else.
func shellWord(s string) string {
	plain := s != ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '/') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// spaceSource is where a space came from (spaces.source: claude-code, codex, opencode, gemini,
// or "") and its name.
func (s *Store) spaceSource(ctx context.Context, q querier, space ID) (source, name string, err error) {
	err = q.QueryRowContext(ctx, `SELECT source, COALESCE(name, '') FROM spaces WHERE id = ?`, string(space)).Scan(&source, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return source, name, s.dbErr(err, "read the space's source")
}

// sessionIn is SessionOf a task in a space of source, with the space's name as its project.
func sessionIn(source, name, task string) Session {
	ses := SessionOf(source, task)
	if ses.Runtime != "" {
		ses.Project = name
	}
	return ses
}

// RuntimeSources are the sources of the spaces imported from agent runtimes' past sessions: the
// local account's, searched when no user is given.
var RuntimeSources = []string{SourceClaudeCode, SourceCodex, SourceOpenCode, SourceGemini}

// runtimeSourcesIn is "(?, ?, ...)" for RuntimeSources and its arguments.
func runtimeSourcesIn() (string, []any) {
	args := make([]any, len(RuntimeSources))
	for i, s := range RuntimeSources {
		args[i] = s
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ") + ")", args
}
