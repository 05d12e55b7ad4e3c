package mcp

import (
	"bytes"
	"encoding/json"
	"os"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/opencode"
	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/tools"
)

// callerSession is the runtime session a tools/call names in its _meta: Codex sends its session id
// with every call (sessionId, and x-codex-turn-metadata.session_id), so one server started once
// serves each Codex session's own task list, before and after a /clear. Claude Code sends none;
// its server has CLAUDE_CODE_SESSION_ID in its environment instead. Gemini CLI sends none and
// sets none: fallback (geminiSession) finds it. "" when nothing names one.
// It reads no other key of meta: the gate's direct path decodes only these.
func callerSession(meta map[string]any, fallback func() string) string {
	if id, ok := meta["sessionId"].(string); ok && id != "" {
		return id
	}
	if turn, ok := meta["x-codex-turn-metadata"].(map[string]any); ok {
		if id, ok := turn["session_id"].(string); ok {
			return id
		}
	}
	if fallback != nil {
		return fallback()
	}
	return ""
}

// geminiSession is how a server Gemini CLI started (GEMINI_CLI=1 in its environment) finds the
// session of each call: the session its Gemini CLI process runs now, as `cairn hook gemini`
// recorded it (SessionStart and BeforeAgent, every prompt) under the workspace's .cairn/gemini/,
// looked up on every call by the server's ancestors (tasks.GeminiProcessSession), so a /clear or
// a switch to another session in the same process is followed at the next prompt. nil when the
// server was not started by Gemini CLI, or is bound already (--session, a session id in its
// environment).
func geminiSession(c tools.Context) func() string {
	if os.Getenv("GEMINI_CLI") != "1" || c.Workspace == nil || c.Session != "" || c.ClaudeSession != "" {
		return nil
	}
	ancestors := tasks.ProcessAncestors() // the server's ancestors do not change while it runs
	return func() string { return tasks.GeminiProcessSession(c.Workspace, ancestors) }
}

// sessionTag takes the argument OpenCode's cairn plugin adds to every cairn tool call
// (tasks.SessionTag, "cairn_session": the OpenCode session the call comes from) out of the
// arguments, before the tool's strict decoding sees them: OpenCode names no session to an MCP
// server, and one `opencode serve` serves all its sessions through one server. It is in no
// tool's schema, so the model is never asked for it. The value must be an OpenCode session id
// (ses_…); without the argument the arguments are as they came and the session is "".
func sessionTag(args json.RawMessage) (json.RawMessage, string, error) {
	if !bytes.Contains(args, []byte(`"`+tasks.SessionTag+`"`)) {
		return args, "", nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args, "", nil // not an object: the tool's decoding says what is wrong
	}
	raw, ok := m[tasks.SessionTag]
	if !ok {
		return args, "", nil
	}
	var id string
	if json.Unmarshal(raw, &id) != nil || !opencode.ValidSessionID(id) {
		return nil, "", errs.InvalidField(tasks.SessionTag, "%s %s is not an OpenCode session id (ses_ and letters or digits): it names the session a call comes from, and only cairn's OpenCode plugin sets it", tasks.SessionTag, truncate(string(raw), 80))
	}
	delete(m, tasks.SessionTag)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	return out, id, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
