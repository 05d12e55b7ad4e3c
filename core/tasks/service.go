package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/sessionlog"
	"github.com/cairn-dev/cairn/core/workspace"
)

// TimeFormat stamps log entries: RFC 3339 in UTC with milliseconds, so --as-of can tell entries apart.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Session is a task list bound to one session log.
type Session struct {
	Log sessionlog.Log
	// Format is auto, cairn or claude; auto looks at the first lines of the log.
	Format string
	// Now stamps new entries; tests set it.
	Now func() time.Time
	// ClaudeConfig is Claude Code's config directory, whose tasks/<session-id>/ store `session
	// check` compares a transcript's replay with ("" skips the comparison).
	ClaudeConfig string
	// Which is the list a runtime transcript is read for (ListAuto: the one it used).
	Which string
	// Runtime is the session read from a store holding many (FormatOpenCode: Log.Path is
	// OpenCode's database, Runtime the ses_… id in it).
	Runtime string
	// Memo, when set, is what a long-lived process keeps of this log between calls (NewMemo):
	// its calls on the log take turns, and an update reuses the last update's store while the
	// log is as that update left it.
	Memo *Memo
}

// NewSession binds a log path with its lock wait.
func NewSession(path string, wait time.Duration) *Session {
	return &Session{Log: sessionlog.Log{Path: path, Wait: wait}, Format: FormatAuto, Now: time.Now}
}

// checkFormat refuses a Format that is none of the formats.
func (s *Session) checkFormat() error {
	switch s.Format {
	case "", FormatAuto, FormatCairn, FormatClaude, FormatCodex, FormatOpenCode, FormatGemini:
		return nil
	}
	return errs.Invalidf("unknown session format %q; valid: auto, cairn, claude, codex, opencode, gemini", s.Format)
}

// detect is the one open of the log before any lock is taken (none is made beside a runtime's
// transcript): its format is s.Format, or with auto what the log's first lines show (a log that
// cannot be opened is an empty cairn log, and the read reports why). The log is opened to detect
// its format, or with open; f is the open log back at its start, or nil when it was not opened.
// The caller closes f.
func (s *Session) detect(open bool) (format string, f *os.File, err error) {
	if err := s.checkFormat(); err != nil {
		return "", nil, err
	}
	auto := s.Format == "" || s.Format == FormatAuto
	format = s.Format
	if auto {
		format = FormatCairn
	}
	if !auto && !open {
		return format, nil, nil
	}
	if f, err = workspace.OpenRegular(s.Log.Path, "session log"); err != nil {
		return format, nil, nil
	}
	if auto {
		format = DetectFormat(f)
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close() // not a file to read twice (a pipe): what reads it opens it again
			return format, nil, nil
		}
	}
	return format, f, nil
}

// read replays the whole log (or up to stop) under the shared lock; ctx ending stops it
// between chunks of the log, or its wait for the lock (CANCELLED). A runtime's transcript is
// read from the open that detected its format.
func (s *Session) read(ctx context.Context, r *Replayer, stop Stop, counts *Counts) (err error) {
	defer func() { err = errs.IfStopped(ctx, err, "session replay") }()
	if err := errs.Stopped(ctx, "session replay"); err != nil {
		return err
	}
	if r.Want == "" {
		r.Want = s.Which
	}
	if s.Format == FormatOpenCode {
		return replayOpenCode(ctx, s.Log.Path, s.Runtime, r, stop, counts)
	}
	format, f, err := s.detect(false)
	if err != nil {
		return err
	}
	transcript := func(fn func(io.Reader) error) error {
		if f != nil {
			defer f.Close()
			return s.Log.ReadOpened(f, fn)
		}
		return s.Log.ReadWithoutLock(fn)
	}
	if format == FormatGemini {
		if real := geminiRealFile(s.Log.Path); real != s.Log.Path {
			if f != nil {
				f.Close() // a stub a resume left: the conversation goes on in the first file
			}
			f, _ = workspace.OpenRegular(real, "session log")
		}
		return transcript(func(log io.Reader) error {
			return ReplayGemini(workspace.ContextReader(ctx, log), r, stop, counts)
		})
	}
	if format == FormatCodex {
		return transcript(func(log io.Reader) error {
			return replayCodex(workspace.ContextReader(ctx, log), s.Log.Path, r, stop, counts)
		})
	}
	if format == FormatClaude {
		subs := SubagentLogs(s.Log.Path)
		return transcript(func(log io.Reader) error {
			return replayClaude(workspace.ContextReader(ctx, log), subs, r, stop, counts)
		})
	}
	if f != nil {
		f.Close() // a cairn log is read again under its lock
	}
	if r.Want != "" && r.Want != ListAuto && r.Want != ListCairn {
		return errs.Invalidf("%s is a cairn log: it holds cairn's own task list only (%s cairn), not the runtime's %q list", s.Log.Path, errs.Field("list", errs.Name), r.Want)
	}
	r.List, r.Dir, r.Wait = ListCairn, filepath.Dir(s.Log.Path), s.Log.Wait
	if s.Memo != nil {
		if err := s.Memo.take(ctx, "session replay"); err != nil {
			return err
		}
		defer s.Memo.give()
	}
	return s.Log.Read(ctx, func(log io.Reader) error { return ReplayCairn(ctx, workspace.ContextReader(ctx, log), r, stop, counts) })
}

// update is Log.Update for cairn logs only: a Claude Code transcript is never written to. ctx
// ending before the append (while the log is replayed, or its lock awaited) appends nothing
// (CANCELLED).
func (s *Session) update(ctx context.Context, fn func(r *Replayer) ([]any, error)) (err error) {
	defer func() { err = errs.IfStopped(ctx, err, "session update") }()
	if err := errs.Stopped(ctx, "session update"); err != nil {
		return err
	}
	if err := s.checkFormat(); err != nil {
		return err
	}
	// replay rebuilds the store from the log as the exclusive lock found it.
	replay := func(log io.Reader) (*Replayer, error) {
		r := NewReplayer()
		r.List, r.Dir, r.Wait = ListCairn, filepath.Dir(s.Log.Path), s.Log.Wait
		return r, ReplayCairn(ctx, workspace.ContextReader(ctx, log), r, Stop{}, nil)
	}
	if s.Format == FormatOpenCode {
		return readOnlyFormat(s.Log.Path, s.Format)
	}
	if s.Memo != nil {
		return s.updateMemo(ctx, replay, fn)
	}
	format, f, err := s.detect(s.Format != FormatClaude)
	if err != nil {
		return err
	}
	if f != nil {
		// Any Claude Code record anywhere in the file makes it a transcript, whatever its first
		// lines are and whatever --session-format says; checked before the lock file is made.
		held, herr := HoldsTranscript(f)
		f.Close()
		if herr != nil {
			return fmt.Errorf("read session log %s: %w", s.Log.Path, herr)
		}
		if held && format != FormatGemini {
			format = FormatClaude
		}
	}
	if err := readOnlyFormat(s.Log.Path, format); err != nil {
		return err
	}
	return s.Log.Update(ctx, func(log io.Reader) ([]any, error) {
		r, err := replay(log)
		if err != nil {
			return nil, err
		}
		if err := errs.Stopped(ctx, "session update"); err != nil {
			return nil, err
		}
		return fn(r)
	})
}

// readOnlyFormat refuses to write to a runtime's transcript (format claude or codex).
func readOnlyFormat(path, format string) error {
	switch format {
	case FormatClaude:
		return notTranscript(path, true)
	case FormatCodex:
		return errs.Invalidf("%s is a Codex rollout; cairn reads it but never writes to it (%s)", path, errs.Field("session", errs.CairnLog))
	case FormatOpenCode:
		return errs.Invalidf("%s is OpenCode's database; cairn reads it but never writes to it (%s)", path, errs.Field("session", errs.CairnLog))
	case FormatGemini:
		return errs.Invalidf("%s is a Gemini CLI session file; cairn reads it but never writes to it (%s)", path, errs.Field("session", errs.CairnLog))
	}
	return nil
}

func (s *Session) now() string { return s.Now().UTC().Format(TimeFormat) }

// Result is what TaskCreate and TaskUpdate answer.
type Result struct {
	Task    Task    `json:"task"`
	Summary Summary `json:"summary"`
}

// ListResult is what TaskList answers: every task by id, and the summary. Read from a runtime's
// transcript it also names the list shown and counts the calls of the others it holds.
type ListResult struct {
	Tasks      []Task         `json:"tasks"`
	Summary    Summary        `json:"summary"`
	List       string         `json:"list,omitempty"`
	OtherLists map[string]int `json:"other_lists,omitempty"`
}

// Replay rebuilds the store under a shared lock, optionally stopping early (--as-of).
func (s *Session) Replay(ctx context.Context, stop Stop) (*Replayer, error) {
	r := NewReplayer()
	err := s.read(ctx, r, stop, nil)
	return r, err
}

// List is TaskList; statuses, when non-empty, filters the tasks (the summary stays whole).
func (s *Session) List(ctx context.Context, stop Stop, statuses map[string]bool) (ListResult, error) {
	r, err := s.Replay(ctx, stop)
	if err != nil {
		return ListResult{}, err
	}
	all := r.Store.Tasks()
	out := make([]Task, 0, len(all))
	for _, t := range all {
		if len(statuses) == 0 || statuses[t.Status] {
			out = append(out, t)
		}
	}
	res := ListResult{Tasks: out, Summary: r.Store.Summary()}
	if r.Lists != nil {
		res.List = r.List
		for l, n := range r.Lists {
			if l != r.List && n > 0 {
				if res.OtherLists == nil {
					res.OtherLists = map[string]int{}
				}
				res.OtherLists[l] = n
			}
		}
	}
	return res, nil
}

// Get is TaskGet.
func (s *Session) Get(ctx context.Context, id int) (Task, error) {
	r, err := s.Replay(ctx, Stop{})
	if err != nil {
		return Task{}, err
	}
	t, ok := r.Store.Get(id)
	if !ok {
		return Task{}, unknownTask(id, r.Store)
	}
	return t, nil
}

func unknownTask(id int, st *Store) error {
	if st.NextID() == 1 {
		return errs.NotFoundf("task %d not found: the task list is empty", id)
	}
	return errs.NotFoundf("task %d not found (ids 1-%d exist)", id, st.NextID()-1)
}

func newCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

func marshalArgs(v any) json.RawMessage {
	data, _ := json.Marshal(v) // plain structs of strings and ints always marshal
	return data
}

// Create is TaskCreate with a subject and a description, the short form of CreateFrom.
func (s *Session) Create(ctx context.Context, subject, description string) (Result, error) {
	return s.CreateFrom(ctx, CreateInput{Subject: subject, Description: description})
}

// CreateFrom is TaskCreate from its input, as every face passes it: validate, append one
// tool_call under the exclusive lock, fsync, answer. The arguments are validated once, here, and
// the task is added to the replayed store as they are: encoding them for the log and decoding
// them again would give the same task.
func (s *Session) CreateFrom(ctx context.Context, in CreateInput) (Result, error) {
	t, err := in.task()
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = s.update(ctx, func(r *Replayer) ([]any, error) {
		res.Task = r.Store.create(t)
		res.Summary = r.Store.Summary()
		return []any{sessionlog.ToolCall{Type: sessionlog.TypeToolCall, ID: newCallID(), Name: "TaskCreate", Arguments: createArgs(&t), At: s.now()}}, nil
	})
	return res, err
}

// Update is TaskUpdate: at least one field, a known id, valid values; then one appended call.
func (s *Session) Update(ctx context.Context, id int, f UpdateFields) (Result, error) {
	if f.none() {
		return Result{}, errs.Invalidf("nothing to update: give %s%s", orList(updateFields), errs.Fields(errs.Flags, keysOf(updateFields, nil)...))
	}
	checked, err := f.checked() // validated once: under the lock the fields are only set
	if err != nil {
		return Result{}, errs.Invalidf("%v", err)
	}
	var res Result
	err = s.update(ctx, func(r *Replayer) ([]any, error) {
		old, ok := r.Store.Get(id)
		if !ok {
			return nil, unknownTask(id, r.Store)
		}
		t := checked.onto(old)
		r.Store.put(t)
		res = Result{Task: t, Summary: r.Store.Summary()}
		args := marshalArgs(UpdateInput{TaskID: id, UpdateFields: checked})
		return []any{sessionlog.ToolCall{Type: sessionlog.TypeToolCall, ID: newCallID(), Name: "TaskUpdate", Arguments: args, At: s.now()}}, nil
	})
	return res, err
}

// HistoryResult is every change of one task, in log order.
type HistoryResult struct {
	TaskID  int      `json:"taskid"`
	Changes []Change `json:"changes"`
}

// History replays the whole log and keeps every change that touched task id.
func (s *Session) History(ctx context.Context, id int) (HistoryResult, error) {
	res := HistoryResult{TaskID: id, Changes: []Change{}}
	r := NewReplayer()
	r.OnChange = func(c Change) {
		if c.TaskID == id {
			res.Changes = append(res.Changes, c)
		}
	}
	if err := s.read(ctx, r, Stop{}, nil); err != nil {
		return res, err
	}
	if len(res.Changes) == 0 {
		return res, unknownTask(id, r.Store)
	}
	return res, nil
}

// CheckResult is the `session check` report.
type CheckResult struct {
	Log     string         `json:"log"`
	Lines   int            `json:"lines"`
	Entries map[string]int `json:"entries"`
	Tasks   Summary        `json:"tasks"`
	Skipped []Skip         `json:"skipped"`
	// Notes are lines replay used with a caveat (a task id not answered by Claude Code).
	Notes []Skip `json:"notes"`
	// ClaudeStore compares a transcript's replay with Claude Code's own store, when there is one.
	ClaudeStore *StoreCheck `json:"claude_store,omitempty"`
	// Fork is where a forked session's log starts (its parent log and the line it was forked
	// at); HandedOffTo the log a /clear handed this session's binding to.
	Fork        *ForkPoint `json:"fork,omitempty"`
	HandedOffTo string     `json:"handed_off_to,omitempty"`
}

// Check replays with every line classified and reports entries, tasks and skipped lines.
func (s *Session) Check(ctx context.Context) (CheckResult, error) {
	r := NewReplayer()
	counts := &Counts{ByType: map[string]int{}}
	err := s.read(ctx, r, Stop{}, counts)
	skips, notes := r.Skips, r.Notes
	if skips == nil {
		skips = []Skip{}
	}
	if notes == nil {
		notes = []Skip{}
	}
	res := CheckResult{Log: s.Log.Path, Lines: counts.Lines, Entries: counts.ByType, Tasks: r.Store.Summary(), Skipped: skips, Notes: notes, Fork: r.Fork}
	if r.List == ListCairn && r.Lists == nil {
		if to, err := successor(s.Log.Path); err == nil {
			res.HandedOffTo = to
		}
	}
	if err == nil && counts.SessionID != "" {
		res.ClaudeStore, err = compareClaudeStore(s.ClaudeConfig, counts.SessionID, r.Store.Tasks())
	}
	return res, err
}

// Brief is the system message a resuming session is shown.
type Brief struct {
	Lane    string `json:"lane"`
	Content string `json:"content"`
}

// MarkReadLane is the system-message lane that carries the task snapshot.
const MarkReadLane = "mark_read_required"

// Brief renders the current snapshot as the mark_read_required message.
func (s *Session) Brief(ctx context.Context) (Brief, error) {
	r, err := s.Replay(ctx, Stop{})
	if err != nil {
		return Brief{}, err
	}
	return Brief{Lane: MarkReadLane, Content: Render(r.Store.Tasks(), r.Store.Summary())}, nil
}

// CompactContext is the read-only snapshot a compact worker gets: open tasks first.
func (s *Session) CompactContext(ctx context.Context) (ListResult, error) {
	r, err := s.Replay(ctx, Stop{})
	if err != nil {
		return ListResult{}, err
	}
	return ListResult{Tasks: OpenFirst(r.Store.Tasks()), Summary: r.Store.Summary()}, nil
}

// CompactResult is what a new session must be shown after a compaction.
type CompactResult struct {
	System   Brief      `json:"system"`
	TaskList ListResult `json:"task_list"`
	NewLog   string     `json:"new_log,omitempty"`
}

// Compact appends, under one lock, the compact snapshot, the mark_read_required message and a
// runtime-fired TaskList call with its result; with newLog it also starts that log with them.
func (s *Session) Compact(ctx context.Context, summary, newLog string) (CompactResult, error) {
	var res CompactResult
	err := s.update(ctx, func(r *Replayer) ([]any, error) {
		all := r.Store.Tasks()
		sum := r.Store.Summary()
		at := s.now()
		snap, _ := json.Marshal(all)
		list := ListResult{Tasks: all, Summary: sum}
		listJSON, _ := json.Marshal(list)
		callID := newCallID()
		res = CompactResult{System: Brief{Lane: MarkReadLane, Content: Render(all, sum)}, TaskList: list, NewLog: newLog}
		entries := []any{
			sessionlog.Compact{Type: sessionlog.TypeCompact, Summary: summary, Tasks: snap, At: at},
			sessionlog.System{Type: sessionlog.TypeSystem, Lane: MarkReadLane, Content: res.System.Content, At: at},
			sessionlog.ToolCall{Type: sessionlog.TypeToolCall, ID: callID, Name: "TaskList", Arguments: json.RawMessage(`{}`), At: at, Origin: "runtime"},
			sessionlog.ToolResult{Type: sessionlog.TypeToolResult, CallID: callID, Content: string(listJSON), At: at},
		}
		if newLog != "" {
			if err := sessionlog.CreateLog(newLog, entries); err != nil {
				return nil, err
			}
		}
		return entries, nil
	})
	return res, err
}
