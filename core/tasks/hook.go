package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// HookInput is the part of Claude Code's hook input (JSON on stdin) that cairn reads; other
// fields (permission_mode, custom_instructions, ...) are ignored.
type HookInput struct {
	Event          string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Source         string `json:"source"`
	Trigger        string `json:"trigger"`
}

// hookOutput is Claude Code's hook output contract for context a hook adds.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// hookReplay rebuilds the task list of the hook's session: cairn's own log for session_id
// (sessions/<id>.jsonl in the workspace found from cwd) when it exists, else the transcript. One
// exception: when the transcript records cairn's task tools called through MCP, the transcript
// wins, because it holds every such call with cairn's answer whichever log the MCP server wrote
// to (Claude Code may give an MCP server of a resumed session another id: claude-code#64412).
func hookReplay(ctx context.Context, in HookInput, wsFlag string, wait time.Duration) (*Replayer, error) {
	var transcript *Replayer
	if in.TranscriptPath != "" {
		s := NewSession(in.TranscriptPath, wait)
		s.Format = FormatClaude
		r, err := s.Replay(ctx, Stop{})
		if err != nil {
			return nil, err
		}
		transcript = r
	}
	if in.SessionID != "" && in.Cwd != "" && (transcript == nil || transcript.MCPCalls == 0) {
		if !safeSegment(in.SessionID) {
			return nil, errs.Invalidf("the hook input's session_id %q is not a usable session id: give letters, digits, '.', '_' or '-' (at most 128, not starting with '.')", in.SessionID)
		}
		ws, err := workspace.Open(wsFlag, in.Cwd)
		switch {
		case err == nil:
			path, err := ClaudeSessionLog(ws, in.SessionID)
			if err != nil {
				return nil, err
			}
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				return NewSession(path, wait).Replay(ctx, Stop{})
			}
		case !errors.Is(err, workspace.ErrNoWorkspace):
			return nil, err
		}
	}
	return transcript, nil
}

// ClaudeHook answers one Claude Code hook call. SessionStart after a compaction or on resume:
// the whole task snapshot (open tasks first, completed and deleted too) with the instruction to
// reconcile statuses and call TaskList, as hookSpecificOutput.additionalContext. PreCompact: the
// compact context as plain text, for the compaction. Anything else, or no tasks: nothing.
func ClaudeHook(ctx context.Context, input []byte, wsFlag string, wait time.Duration) (string, error) {
	var in HookInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", errs.Invalidf("hook input is not Claude Code's hook JSON: %v", err)
	}
	var compact bool
	switch {
	case in.Event == "SessionStart" && (in.Source == "compact" || in.Source == "resume"):
	case in.Event == "PreCompact":
		compact = true
	case in.Event == "":
		return "", errs.Invalidf("hook input has no hook_event_name")
	default:
		return "", nil
	}
	r, err := hookReplay(ctx, in, wsFlag, wait)
	if err != nil || r == nil {
		return "", err
	}
	all := r.Store.Tasks()
	if len(all) == 0 {
		return "", nil
	}
	text := Render(all, r.Store.Summary())
	if compact {
		return "The session's task list, kept by cairn across this compaction (read-only here): carry the open tasks and their ids into the summary.\n" + text, nil
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = "SessionStart"
	why := "after a compaction"
	if in.Source == "resume" {
		why = "on resume"
	}
	out.HookSpecificOutput.AdditionalContext = "cairn restored this session's task list " + why + ". " +
		"Reconcile each task's status with what was actually done (TaskUpdate), then call TaskList before you continue; do not recreate these tasks.\n" +
		strings.TrimRight(text, "\n")
	data, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}
