package workspace

// Caller is who runs an operation and from where: every face (the command line, `cairn mcp`,
// `cairn serve`) fills one from its flags or environment and hands it to the core unchanged.
type Caller struct {
	// Session is the session log named outright (--session, CAIRN_SESSION); empty means the
	// Claude Code session's own log, else the [session] log of cairn.toml.
	Session string
	// ClaudeSession is the Claude Code session id (CLAUDE_CODE_SESSION_ID): without Session it
	// picks sessions/<id>.jsonl, and a search of the local account's Claude Code spaces leaves
	// that session out.
	ClaudeSession string
	// SessionFormat is the session log's format: auto (or empty), cairn or claude.
	SessionFormat string
	// User is the signed-in user; empty is the no-auth context.
	User string
	// Task is the space task the caller runs in.
	Task string
	// Subtask says the caller runs as a subtask, which does not search its space.
	Subtask bool
	// Card is the board card the caller works on.
	Card string
}
