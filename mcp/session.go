package mcp

// callerSession is the runtime session a tools/call names in its _meta: Codex sends its session id
// with every call (sessionId, and x-codex-turn-metadata.session_id), so one server started once
// serves each Codex session's own task list, before and after a /clear. Claude Code sends none;
// its server has CLAUDE_CODE_SESSION_ID in its environment instead. "" when the call names none.
func callerSession(meta map[string]any) string {
	if id, ok := meta["sessionId"].(string); ok && id != "" {
		return id
	}
	if turn, ok := meta["x-codex-turn-metadata"].(map[string]any); ok {
		if id, ok := turn["session_id"].(string); ok {
			return id
		}
	}
	return ""
}
