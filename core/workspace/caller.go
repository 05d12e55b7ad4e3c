package workspace

// Caller is who runs an operation and from where; every face (the command line, `cairn mcp`,
// `cairn serve`) fills one from its flags or environment and hands it to the core unchanged.
// Session is the log named outright (--session); ClaudeSession the agent runtime's session id
// (CLAUDE_CODE_SESSION_ID, CODEX_SESSION_ID, or the session a Codex MCP call names), which
// without Session picks sessions/<id>.jsonl and is left out of a search of the local account's
// past-session spaces; SessionFormat is auto (or empty), cairn or
// claude; User empty is the no-auth context; Task the space task and Card the board card the
// caller works on; a Subtask does not search its space.
type Caller struct {
	Session, ClaudeSession, SessionFormat string
	// List is the task list of a runtime transcript to read (tasks.Lists; "" is auto).
	List       string
	User, Task string
	Subtask    bool
	Card       string
}
