package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/workspace"
)

// HookInput is the part of a runtime's hook input (JSON on stdin) that cairn reads; Claude Code
// and Codex send the same fields. Others (permission_mode, model, ...) are ignored.
type HookInput struct {
	Event          string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Source         string `json:"source"`
	Trigger        string `json:"trigger"`
	Reason         string `json:"reason"`
}

// hookOutput is the hook output contract for context a hook adds.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// HookRuntime is what the hook needs to know of a runtime: its name in lineage entries, how a
// transcript of it is read, and how its built-in list is titled.
type HookRuntime struct {
	// Name is the runtime in lineage entries (claude-code, codex); Title in messages.
	Name, Title string
	// Format is the transcript's format for Session.Format.
	Format string
	// PreCompactText says the runtime puts a PreCompact hook's plain output in front of the
	// compaction (Claude Code does; Codex 0.171.0 takes only its JSON fields and shows none).
	PreCompactText bool
	// HandsOffOnClear says a process started before a /clear keeps the old session id (Claude
	// Code's MCP server), so SessionEnd and SessionStart hand the binding over; Codex names the
	// session in every MCP call instead.
	HandsOffOnClear bool
	// PromptContext says the lists come back as context of the next prompt after a resume or a
	// compression (Gemini CLI's BeforeAgent), not at SessionStart or PreCompact: geminiHook.
	PromptContext bool
}

// ClaudeCode is the Claude Code runtime as the hook sees it.
var ClaudeCode = HookRuntime{Name: "claude-code", Title: "Claude Code", Format: FormatClaude, PreCompactText: true, HandsOffOnClear: true}

// Codex is the Codex CLI runtime as the hook sees it.
var Codex = HookRuntime{Name: "codex", Title: "Codex", Format: FormatCodex}

// sessionLists are the lists of one runtime session as the hook found them.
type sessionLists struct {
	cairn   *Replayer // cairn's list: its log, or the transcript's record of its tools
	builtin *Replayer // the runtime's own list, when its tools were used
	prefix  string    // how the runtime named cairn's MCP tools
}

// readTranscript replays a runtime transcript for cairn's list and the built-in lists in one pass.
// A missing transcript is none (a session that has not written one yet); one that is not a
// regular file (a FIFO, a device) is refused before it is opened, so no open can block.
func readTranscript(ctx context.Context, rt HookRuntime, path string, wait time.Duration) (*Replayer, error) {
	st, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, workspace.FSError(err, "transcript_path %s", path)
	}
	if !st.Mode().IsRegular() {
		return nil, errs.Invalidf("transcript_path %s is %s, not a transcript file: not read", path, workspace.FileType(st.Mode()))
	}
	s := NewSession(path, wait)
	s.Format = rt.Format
	r := NewReplayer()
	r.Want = ListCairn
	r.Also = map[string]*Replayer{ListTasks: NewReplayer(), ListTodos: NewReplayer(), ListPlan: NewReplayer(), ListGemini: NewReplayer()}
	if err := s.read(ctx, r, Stop{}, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// hookWorkspace opens the workspace of the hook's cwd; none is not an error.
func hookWorkspace(in HookInput, wsFlag string) (*workspace.Workspace, error) {
	if in.Cwd == "" {
		return nil, nil
	}
	ws, err := workspace.Open(wsFlag, in.Cwd)
	if errors.Is(err, workspace.ErrNoWorkspace) {
		return nil, nil
	}
	return ws, err
}

// regular reports whether path is a regular file (a log worth replaying).
func regular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// lists gathers the session's lists: cairn's log for session_id (following its handoffs) is the
// one authority for cairn's list; the transcript's record of cairn's tools stands in only where
// there is no such log (no workspace, or a log removed). The built-in list is the transcript's.
func lists(ctx context.Context, ws *workspace.Workspace, in HookInput, t *Replayer, wait time.Duration) (sessionLists, error) {
	var out sessionLists
	if t != nil {
		out.prefix = t.MCPPrefix
		for _, l := range Lists[2:] { // the runtimes' own lists
			if o := t.Also[l]; o != nil && out.builtin == nil && (t.Lists[l] > 0 || len(o.Store.tasks) > 0) {
				out.builtin = o // used here, or inherited from the parent of a fork
			}
		}
	}
	if ws != nil && in.SessionID != "" {
		path, err := LogPath(ctx, ws, "", in.SessionID)
		if err != nil {
			return out, err
		}
		if regular(path) {
			r, err := NewSession(path, wait).Replay(ctx, Stop{})
			if err != nil {
				return out, err
			}
			out.cairn = r
			return out, nil
		}
	}
	if t != nil && t.Lists[ListCairn] > 0 {
		out.cairn = t
	}
	return out, nil
}

// clearMark is left by SessionEnd (reason clear) for the SessionStart (source clear) that follows
// in the same runtime process, which hands the old session's list over to the new session.
type clearMark struct {
	Session string `json:"session"`
	Project string `json:"project"`
	// Process is the runtime process both hooks ran under (Claude Code's CLAUDE_PID), when known
	Process string `json:"process,omitempty"`
	At      string `json:"at"`
}

// clearWindow is how long a clear mark waits for its SessionStart: the two hooks run a moment apart.
const clearWindow = 2 * time.Minute

func clearDir(ws *workspace.Workspace) (string, error) {
	dir, err := ws.StateDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "cleared")
	if err := workspace.MkdirAll(dir, 0o755); err != nil {
		return "", workspace.FSError(err, "create %s", dir)
	}
	return dir, nil
}

// markCleared records that session id's conversation was cleared; the mark is claimed by the
// new session's SessionStart.
func markCleared(ws *workspace.Workspace, in HookInput, env HookEnv) error {
	if !safeSegment(in.SessionID) {
		return badSessionID(in.SessionID)
	}
	dir, err := clearDir(ws)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(clearMark{Session: in.SessionID, Project: filepath.Dir(in.TranscriptPath), Process: env.Process, At: env.Now.UTC().Format(TimeFormat)})
	return workspace.WriteFileAtomic(filepath.Join(dir, in.SessionID+".json"), data, 0o644)
}

// claimCleared takes the newest clear mark of the same project folder and runtime process left within clearWindow,
// removing it so no other session claims it, and returns the cleared session's id ("" if none).
func claimCleared(ws *workspace.Workspace, in HookInput, env HookEnv) (string, error) {
	now := env.Now
	dir, err := clearDir(ws)
	if err != nil {
		return "", err
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	type cand struct {
		id, path string
		at       time.Time
	}
	var cands []cand
	for _, p := range paths {
		data, err := workspace.ReadSmall(p, 4096, "")
		var m clearMark
		if err != nil || len(data) > 4096 || json.Unmarshal(data, &m) != nil || !safeSegment(m.Session) || m.Session == in.SessionID {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m.At)
		if err != nil || now.Sub(at) > clearWindow {
			os.Remove(p) // stale: its SessionStart never came
			continue
		}
		if m.Project == filepath.Dir(in.TranscriptPath) && m.Process == env.Process {
			cands = append(cands, cand{m.Session, p, at})
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].at.After(cands[j].at) })
	for _, c := range cands {
		if os.Remove(c.path) == nil {
			return c.id, nil
		}
	}
	return "", nil
}

func badSessionID(id string) error {
	return errs.Invalidf("the hook input's session_id %q is not a usable session id: give letters, digits, '.', '_' or '-' (at most 128, not starting with '.')", id)
}

// forkParent is the session a transcript says it was forked from ("" when it says none): the
// parent a Claude Code fork's copied records name in requestSessionId, a Codex rollout's
// session_meta.forked_from_id.
func forkParent(t *Replayer, self string) string {
	if t == nil || t.Origin == nil || t.Origin.Session == self {
		return ""
	}
	return t.Origin.Session
}

// Hook answers one hook call of a runtime (Claude Code, Codex). SessionStart binds the session's
// list to its conversation first — a fork starts a log inheriting the parent's list, a clear hands
// the old session's list over to the new, empty one, a resume takes it back — then, after a
// compaction, on resume or fork, puts the lists in front of the model as
// hookSpecificOutput.additionalContext. PreCompact prints them as plain text for the compaction.
// SessionEnd after a clear leaves the mark the next SessionStart claims. Anything else: nothing.
func Hook(ctx context.Context, rt HookRuntime, input []byte, wsFlag string, wait time.Duration, env HookEnv) (string, error) {
	if rt.Format == FormatOpenCode {
		return openCodeHook(ctx, input, wsFlag, wait, env)
	}
	now := env.Now
	var in HookInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", errs.Invalidf("hook input is not %s's hook JSON: %v", rt.Title, err)
	}
	if in.Event == "" {
		return "", errs.Invalidf("hook input has no hook_event_name")
	}
	if in.SessionID != "" && !safeSegment(in.SessionID) {
		return "", badSessionID(in.SessionID)
	}
	if rt.PromptContext {
		return geminiHook(ctx, rt, in, wsFlag, wait, env)
	}
	switch in.Event {
	case "SessionStart":
	case "PreCompact":
		if !rt.PreCompactText {
			return "", nil
		}
	case "SessionEnd":
		if in.Reason != "clear" || in.SessionID == "" || !rt.HandsOffOnClear {
			return "", nil
		}
		ws, err := hookWorkspace(in, wsFlag)
		if err != nil || ws == nil {
			return "", err
		}
		return "", markCleared(ws, in, env)
	default:
		return "", nil
	}
	ws, err := hookWorkspace(in, wsFlag)
	if err != nil {
		return "", err
	}
	var t *Replayer
	if in.TranscriptPath != "" {
		if t, err = readTranscript(ctx, rt, in.TranscriptPath, wait); err != nil {
			return "", err
		}
	}
	stamp := now.UTC().Format(TimeFormat)
	why, forked := "", false
	if in.Event == "SessionStart" {
		switch in.Source {
		case "compact":
			why = "after a compaction"
		case "resume":
			why = "on resume"
		}
		if ws != nil && in.SessionID != "" {
			switch in.Source {
			case "clear":
				if !rt.HandsOffOnClear {
					break
				}
				old, err := claimCleared(ws, in, env)
				if err != nil {
					return "", err
				}
				if old != "" {
					if _, err := HandOff(ctx, ws, old, in.SessionID, "clear", stamp); err != nil {
						return "", err
					}
				}
			case "resume", "startup", "fork":
				// a resumed conversation takes its list back from a session it was handed to
				if _, err := HandOff(ctx, ws, in.SessionID, "", in.Source, stamp); err != nil {
					return "", err
				}
			}
			if in.Source != "clear" {
				if p := forkParent(t, in.SessionID); p != "" {
					if forked, err = StartFork(ctx, ws, rt.Name, p, in.SessionID, stamp); err != nil {
						return "", err
					}
				} else if in.Source == "fork" && in.TranscriptPath != "" {
					// the transcript does not name the parent yet: the session's first call will
					if err := recordFork(ws, rt.Name, in.SessionID, in.TranscriptPath, stamp); err != nil {
						return "", err
					}
				}
			}
		}
		if !forked && why == "" && in.Source != "fork" {
			return "", nil // a fresh start or a clear: the list is new and empty
		}
	}
	l, err := lists(ctx, ws, in, t, wait)
	if err != nil {
		return "", err
	}
	text := renderLists(l)
	if text == "" {
		return "", nil
	}
	// what a hook puts in front of the model is shown text: a secret in a task's subject or
	// description stays out of it, as it stays out of every search answer
	text = redact.New().Text(text)
	if in.Event == "PreCompact" {
		return "The session's task lists, kept by cairn across this compaction (read-only here): carry the open tasks and their ids into the summary.\n" + text, nil
	}
	head := "cairn restored this session's task list " + why + "."
	if forked || in.Source == "fork" {
		switch {
		case l.cairn != nil && l.cairn.Fork != nil:
			head = fmt.Sprintf("This session is a fork of session %s: cairn started its task list as that session's list at the fork; from here the two lists are separate, and new tasks continue from #%d.",
				strings.TrimSuffix(l.cairn.Fork.Parent, ".jsonl"), l.cairn.Store.NextID())
		case forkParent(t, in.SessionID) != "":
			head = fmt.Sprintf("This session is a fork of session %s; its lists as they stand at the fork:", forkParent(t, in.SessionID))
		default:
			head = "This session is a fork; its lists as they stand at the fork:"
		}
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = "SessionStart"
	out.HookSpecificOutput.AdditionalContext = head + "\n" + strings.TrimRight(text, "\n")
	data, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}

// renderLists is each non-empty list in its own section with the instruction for its tools; when
// both cairn's and the runtime's lists are there, each is titled and gets half the budget.
func renderLists(l sessionLists) string {
	type section struct {
		r *Replayer
		v Voice
	}
	var secs []section
	if l.cairn != nil && l.cairn.Store.Summary().Total > 0 {
		secs = append(secs, section{l.cairn, VoiceFor(ListCairn, l.prefix)})
	}
	if l.builtin != nil && l.builtin.Store.Summary().Total > 0 {
		secs = append(secs, section{l.builtin, VoiceFor(l.builtin.List, "")})
	}
	var b strings.Builder
	for i, s := range secs {
		if i > 0 {
			b.WriteString("\nA separate list with its own ids (do not merge it with the one above):\n")
		}
		b.WriteString(s.v.Instruction() + "\n")
		b.WriteString(RenderList(s.r.Store.Tasks(), s.r.Store.Summary(), s.v, maxInjectBytes/len(secs)))
	}
	return b.String()
}

// HookEnv is what a hook knows besides its input: the time, and the runtime process it runs under
// (Claude Code's CLAUDE_PID), which ties a SessionEnd of a /clear to the SessionStart after it.
type HookEnv struct {
	Now     time.Time
	Process string
}

// ClaudeHook answers one Claude Code hook call (Hook with the Claude Code runtime).
func ClaudeHook(ctx context.Context, input []byte, wsFlag string, wait time.Duration) (string, error) {
	return Hook(ctx, ClaudeCode, input, wsFlag, wait, HookEnv{Now: time.Now()})
}
