package tasks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Gemini is the Gemini CLI runtime as the hook sees it (0.61.0; scripts/gemini-harness/README.md).
var Gemini = HookRuntime{Name: "gemini", Title: "Gemini CLI", Format: FormatGemini, PromptContext: true}

// Gemini CLI gives a hook's context to the model in two places that matter here: SessionStart's
// additionalContext in front of the user's first prompt, and BeforeAgent's as a second text part
// of every prompt. PreCompress's output reaches no request. cairn answers BeforeAgent only, once
// after each resume and once after each compression: a prompt that starts with SessionStart's
// <hook_context> is dropped from every later resume of the session (Gemini CLI ignores user
// messages starting with it when it rebuilds the history) and hides a slash command given with
// -p, while BeforeAgent's part comes after the prompt. PreCompress fires before every model
// request, compressing or not, so it only marks where the session file stood; the next
// BeforeAgent looks past that mark for the checkpoint a compression writes.
//
// State, under the workspace's .cairn/gemini/:
//   - procs/<pid>.json: the session the Gemini CLI process <pid> runs now ({process, session,
//     transcript, at}); SessionStart and BeforeAgent write it, and `cairn mcp` (which Gemini CLI
//     tells no session) finds its session there by its nearest ancestor (GeminiProcessSession).
//   - sessions/<session id>.json: what the next BeforeAgent owes the session ({pending,
//     compress_from}).

// geminiServer is the name `cairn setup gemini` registers cairn's MCP server under.
const geminiServer = "cairn"

// geminiProc is a procs/<pid>.json record.
type geminiProc struct {
	Process    string `json:"process"`
	Session    string `json:"session"`
	Transcript string `json:"transcript,omitempty"`
	At         string `json:"at"`
}

// geminiState is a sessions/<id>.json record.
type geminiState struct {
	// Pending is why the next BeforeAgent gives the lists ("on resume"), "" when it owes nothing.
	Pending string `json:"pending,omitempty"`
	// CompressFrom is the session file's size at the first PreCompress since the last BeforeAgent:
	// a compression's checkpoint past it means the lists are owed (nil: no PreCompress since).
	CompressFrom *int64 `json:"compress_from,omitempty"`
}

// geminiDir is .cairn/gemini/<sub> in ws, created on demand.
func geminiDir(ws *workspace.Workspace, sub string) (string, error) {
	dir, err := ws.StateDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "gemini", sub)
	if err := workspace.MkdirAll(dir, 0o755); err != nil {
		return "", workspace.FSError(err, "create %s", dir)
	}
	return dir, nil
}

// maxStateFile bounds the read of a state record.
const maxStateFile = 8 << 10

func readJSONFile(path string, v any) bool {
	f, err := workspace.OpenRegular(path, "file")
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	return err == nil && len(data) <= maxStateFile && json.Unmarshal(data, v) == nil
}

func writeJSONFile(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// procFile is the record of a process named "<pid>[:<start>]".
func procFile(dir, process string) string {
	pid, _, _ := strings.Cut(process, ":")
	return filepath.Join(dir, pid+".json")
}

// bindGeminiProcess records that process runs session now, and gives the session it ran before
// ("" when none was recorded for it). A record left by processes that have ended is removed at
// each SessionStart.
func bindGeminiProcess(ws *workspace.Workspace, process string, in HookInput, now time.Time, sweep bool) (string, error) {
	if process == "" {
		return "", nil
	}
	dir, err := geminiDir(ws, "procs")
	if err != nil {
		return "", err
	}
	if sweep {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, p := range paths {
			var old geminiProc
			if !readJSONFile(p, &old) || old.Process != process && !processAlive(old.Process) {
				os.Remove(p)
			}
		}
	}
	path := procFile(dir, process)
	var old geminiProc
	prev := ""
	if readJSONFile(path, &old) && old.Process == process {
		prev = old.Session
		if old.Session == in.SessionID && old.Transcript == in.TranscriptPath {
			return prev, nil // as it was: no write on every prompt
		}
	}
	rec := geminiProc{Process: process, Session: in.SessionID, Transcript: in.TranscriptPath, At: now.UTC().Format(TimeFormat)}
	return prev, writeJSONFile(path, rec)
}

// GeminiProcessSession is the Gemini CLI session the nearest of ancestors (process names,
// nearest first: ProcessAncestors) runs now, as its hooks recorded it, or "" when none did (its
// hooks are not registered, or ws is another workspace than the hooks'): how `cairn mcp`, which
// Gemini CLI tells no session, serves each session its own list.
func GeminiProcessSession(ws *workspace.Workspace, ancestors []string) string {
	if ws == nil {
		return ""
	}
	dir := filepath.Join(ws.Path(".cairn"), "gemini", "procs")
	for _, a := range ancestors {
		var rec geminiProc
		if readJSONFile(procFile(dir, a), &rec) && rec.Process == a && safeSegment(rec.Session) {
			return rec.Session
		}
	}
	return ""
}

func geminiStatePath(ws *workspace.Workspace, session string) (string, error) {
	dir, err := geminiDir(ws, "sessions")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, session+".json"), nil
}

// transcriptSize is the size of the session file, 0 when it cannot be read.
func transcriptSize(path string) int64 {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return st.Size()
	}
	return 0
}

// Marks of the checkpoint a compression writes: the summary the model was asked for, and the
// model turn Gemini CLI adds after it.
var (
	markCheckpoint = []byte(`{"$set":{"messages":`)
	markSnapshot   = []byte(`<state_snapshot>`)
	markGotIt      = []byte(`Got it. Thanks for the additional context!`)
)

// compressedSince reports whether the session file holds a compression's checkpoint past byte
// offset from (from the start when the file is now shorter: it was rewritten).
func compressedSince(ctx context.Context, path string, from int64) (bool, error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	f, err := workspace.OpenRegular(path, "file")
	if err != nil {
		return false, nil
	}
	defer f.Close()
	if from > st.Size() {
		from = 0
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return false, nil
	}
	br := bufio.NewReaderSize(workspace.ContextReader(ctx, f), 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// a long line: only its start tells a checkpoint, so read it through in pieces
			head := append([]byte(nil), line...)
			found := bytes.HasPrefix(bytes.TrimSpace(head), markCheckpoint) && (bytes.Contains(head, markSnapshot) || bytes.Contains(head, markGotIt))
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if bytes.HasPrefix(bytes.TrimSpace(head), markCheckpoint) && (bytes.Contains(line, markSnapshot) || bytes.Contains(line, markGotIt)) {
					found = true
				}
			}
			if found {
				return true, nil
			}
		} else if bytes.HasPrefix(bytes.TrimSpace(line), markCheckpoint) && (bytes.Contains(line, markSnapshot) || bytes.Contains(line, markGotIt)) {
			return true, nil
		}
		if err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
	}
}

// geminiHook answers one Gemini CLI hook call (Hook for a PromptContext runtime): SessionStart
// binds the process to its session and, on resume, owes the session its lists; PreCompress marks
// where the session file stood; BeforeAgent binds again (a session switched inside the process
// without a SessionStart owes its lists too) and gives what is owed as its additionalContext.
func geminiHook(ctx context.Context, rt HookRuntime, in HookInput, wsFlag string, wait time.Duration, env HookEnv) (string, error) {
	switch in.Event {
	case "SessionStart", "PreCompress", "BeforeAgent":
	default:
		return "", nil
	}
	if in.SessionID == "" {
		return "", nil
	}
	ws, err := hookWorkspace(in, wsFlag)
	if err != nil || ws == nil {
		return "", err // no workspace: nowhere to keep what the next prompt owes
	}
	process := env.Process
	if process == "" {
		process = RuntimeProcess()
	}
	statePath, err := geminiStatePath(ws, in.SessionID)
	if err != nil {
		return "", err
	}
	var st geminiState
	readJSONFile(statePath, &st)
	switch in.Event {
	case "SessionStart":
		if _, err := bindGeminiProcess(ws, process, in, env.Now, true); err != nil {
			return "", err
		}
		st = geminiState{}
		if in.Source == "resume" {
			st.Pending = "on resume"
		}
		if st == (geminiState{}) {
			if err := os.Remove(statePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", workspace.FSError(err, "remove %s", statePath)
			}
			return "", nil
		}
		return "", writeJSONFile(statePath, st)
	case "PreCompress":
		if st.CompressFrom != nil {
			return "", nil // marked by the first PreCompress since the last prompt
		}
		size := transcriptSize(in.TranscriptPath)
		st.CompressFrom = &size
		return "", writeJSONFile(statePath, st)
	}
	// BeforeAgent
	prev, err := bindGeminiProcess(ws, process, in, env.Now, false)
	if err != nil {
		return "", err
	}
	why := st.Pending
	if why == "" && st.CompressFrom != nil && in.TranscriptPath != "" {
		done, err := compressedSince(ctx, in.TranscriptPath, *st.CompressFrom)
		if err != nil {
			return "", err
		}
		if done {
			why = "after a compression"
		}
	}
	if why == "" && prev != "" && prev != in.SessionID {
		why = "on switching to this session"
	}
	if st != (geminiState{}) {
		if err := os.Remove(statePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", workspace.FSError(err, "remove %s", statePath)
		}
	}
	if why == "" {
		return "", nil
	}
	var t *Replayer
	if in.TranscriptPath != "" {
		if t, err = readTranscript(ctx, rt, in.TranscriptPath, wait); err != nil {
			return "", err
		}
	}
	l, err := lists(ctx, ws, in, t, wait)
	if err != nil {
		return "", err
	}
	if l.prefix == "" {
		l.prefix = "mcp_" + geminiServer + "_" // as Gemini CLI names the tools of the server setup registers
	}
	text := renderLists(l)
	if text == "" {
		return "", nil
	}
	text = redact.New().Text(text)
	var out hookOutput
	out.HookSpecificOutput.HookEventName = "BeforeAgent"
	out.HookSpecificOutput.AdditionalContext = "cairn restored this session's task list " + why + ".\n" + strings.TrimRight(text, "\n")
	data, err := json.Marshal(out)
	if err != nil {
		return "", errs.Wrap(errs.Internal, err, "encode the hook's answer")
	}
	return string(data) + "\n", nil
}
