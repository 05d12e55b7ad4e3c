package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Stores is where a handler reaches the workspace's stores, and the only way it does: the board's
// search index, spaces.db and the caller's session log with its task list. A face chooses how
// they live: OpenEach opens them on every call (the CLI, `cairn tools call`), Keep keeps them
// between calls and reloads what changed (`cairn mcp`, `cairn serve`). Either answers alike.
type Stores interface {
	// Board is the board's search index (NOT_FOUND before a board is imported).
	Board(ctx context.Context) (*board.Index, error)
	// Spaces opens spaces.db for one read; release ends it (spaces.Opener).
	Spaces(ctx context.Context) (st *spaces.Store, release func(), err error)
	// Session opens the caller's session log (tasks.OpenSession).
	Session(ctx context.Context, caller workspace.Caller) (*tasks.Session, error)
	// TaskList is the whole task list of s (s.List without a stop or filter): a tasks.ListResult,
	// or an Encoded one.
	TaskList(ctx context.Context, s *tasks.Session) (any, error)
}

// stores is c's stores: its own, or those opened on each call when the face set none.
func (c Context) stores() Stores {
	if c.Stores != nil {
		return c.Stores
	}
	return OpenEach(c.Workspace)
}

// OpenEach returns the stores of a face that lives for one call: each one is opened (and the
// board's snapshot read) when asked for, and closed with the call.
func OpenEach(ws *workspace.Workspace) Stores { return openEach{ws} }

type openEach struct{ ws *workspace.Workspace }

func (o openEach) Board(ctx context.Context) (*board.Index, error) { return board.Load(ctx, o.ws) }

func (o openEach) Spaces(ctx context.Context) (*spaces.Store, func(), error) {
	return spaces.OpenOnce(ctx, o.ws)
}

func (o openEach) Session(ctx context.Context, caller workspace.Caller) (*tasks.Session, error) {
	return tasks.OpenSession(ctx, o.ws, o.ws.Wait, caller)
}

func (o openEach) TaskList(ctx context.Context, s *tasks.Session) (any, error) {
	return s.List(ctx, tasks.Stop{}, nil)
}

// KeepOptions says how a long-lived face keeps its board.
type KeepOptions struct {
	// Board is the board as loaded at start (the daemon says what it loaded before it listens);
	// nil loads it on first use.
	Board *board.Index
	// NarrowLater builds a loaded board's narrowing index in the background, so no request
	// waits for it (the daemon, on every core); otherwise the load builds it before it returns
	// (`cairn mcp`, whose Go code runs on one thread: a background build would take turns
	// with the calls).
	NarrowLater bool
	// Reloaded, when set, is told of every load Board does (the daemon logs it).
	Reloaded func(*board.Index)
}

// Kept is the Stores of a long-lived face (`cairn mcp`, `cairn serve`), so a warm call does not
// open, read and rebuild the same stores again: spaces.db stays open (spaces.Readers), the board
// index stays in memory until its files change, each session log has a memo (its calls take
// turns and reuse the last state, tasks.Memo), and the last task list is kept, encoded, with the
// identity, size and modification time of the log it was replayed from. Every entry is checked
// against its files on each call, so a write by another process is seen by the next call. Safe
// for concurrent use.
type Kept struct {
	ws   *workspace.Workspace
	opts KeepOptions

	spaces spaces.Readers

	board    atomic.Pointer[board.Index]
	reloadMu sync.Mutex // serialises rebuilds so concurrent calls share one
	// reloadErr and reloadErrAt (guarded by reloadMu) keep the last failed rebuild, so calls
	// that waited for it get its error rather than each trying again in turn.
	reloadErr   error
	reloadErrAt time.Time
	reloads     atomic.Int64

	tasksMu sync.Mutex
	tasks   *taskEntry

	memosMu sync.Mutex
	memos   map[string]*tasks.Memo // by log path
}

// Keep returns the stores a long-lived face keeps for ws between calls; Close releases them.
func Keep(ws *workspace.Workspace, opts KeepOptions) *Kept {
	k := &Kept{ws: ws, opts: opts}
	if opts.Board != nil {
		k.narrow(opts.Board)
		k.board.Store(opts.Board)
	}
	return k
}

// Close releases the open stores; a call still running keeps what it uses until it is done.
func (k *Kept) Close() { k.spaces.Close() }

// Reloads counts how many times Board loaded the board (KeepOptions.Board not counted), for
// tests and diagnostics.
func (k *Kept) Reloads() int64 { return k.reloads.Load() }

// Spaces hands out the open spaces.db, opened again when the file was replaced.
func (k *Kept) Spaces(ctx context.Context) (*spaces.Store, func(), error) {
	return k.spaces.Open(ctx, k.ws)
}

// Board returns the kept board, rebuilding it first when its files changed. The stamp is checked
// on every call; a call that finds it stale takes the reload lock and checks again, so
// concurrent calls share one rebuild instead of each doing their own.
//
// Checking on every call is what makes "the next call" exact: any call that reaches the face
// after `cairn board import` returned answers from the new board, with no window in which it
// answers from the old one. The check is four stat calls (about 4 µs, under 1% of a search on a
// scale-10 board), so it is not rate-limited: a check every N ms would save next to nothing and
// let a call that starts after the import returned see the old board.
func (k *Kept) Board(ctx context.Context) (*board.Index, error) {
	ix := k.board.Load()
	if ix != nil { // nil: nothing loaded yet (no board, or none imported when the face started)
		stale, err := ix.Stale(k.ws)
		if err != nil {
			return nil, fmt.Errorf("check board files: %w", err)
		}
		if !stale {
			return ix, nil
		}
	}
	waitStart := time.Now()
	k.reloadMu.Lock()
	defer k.reloadMu.Unlock()
	if cur := k.board.Load(); cur != ix {
		return cur, nil // another call rebuilt it while this one waited
	}
	if k.reloadErr != nil && k.reloadErrAt.After(waitStart) {
		// The rebuild this call waited for failed (a locked board, say): share its answer
		// instead of queueing one more full wait behind it.
		return nil, k.reloadErr
	}
	fresh, err := board.Load(context.Background(), k.ws) // one rebuild shared by every waiting call: no single call may cancel it
	if err != nil {
		k.reloadErr, k.reloadErrAt = err, time.Now()
		return nil, err
	}
	k.reloadErr = nil
	k.narrow(fresh)
	k.board.Store(fresh)
	k.reloads.Add(1)
	if k.opts.Reloaded != nil {
		k.opts.Reloaded(fresh)
	}
	return fresh, nil
}

// narrow builds the narrowing index of ix: a long-lived face searches the same board many times,
// so narrowing its searches is worth a pass over the text (about 150 ms of CPU at scale 10).
// Searches answer the same without it, by scanning; a snapshot cut under the build only leaves
// them unnarrowed until the reload.
func (k *Kept) narrow(ix *board.Index) {
	if k.opts.NarrowLater {
		go func() { _ = ix.EnableNarrowing() }()
		return
	}
	_ = ix.EnableNarrowing()
}

// Session opens the caller's session log with this process's memo of it: the calls of this
// process on one log take turns there, and a write reuses the store of the one before it while
// nobody else wrote to the log in between.
func (k *Kept) Session(ctx context.Context, caller workspace.Caller) (*tasks.Session, error) {
	s, err := tasks.OpenSession(ctx, k.ws, k.ws.Wait, caller)
	if err != nil {
		return nil, err
	}
	s.Memo = k.taskMemo(s.Log.Path)
	return s, nil
}

// taskMemo is the memo of the log at path (tasks.Memo), made on first use.
func (k *Kept) taskMemo(path string) *tasks.Memo {
	k.memosMu.Lock()
	defer k.memosMu.Unlock()
	m := k.memos[path]
	if m == nil {
		if k.memos == nil {
			k.memos = map[string]*tasks.Memo{}
		}
		m = tasks.NewMemo()
		k.memos[path] = m
	}
	return m
}

// taskEntry is one replayed task list, its JSON, and the version of the log it came from.
type taskEntry struct {
	path string
	fi   os.FileInfo
	list Encoded
}

// Encoded is an answer whose JSON is already made, so a face writes JSON as it is instead of
// encoding Value again: the task list of a long log is megabytes of JSON, and a warm call
// answers it unchanged. MarshalJSON is JSON, so a face that encodes answers itself gets the
// same document.
type Encoded struct {
	Value any
	JSON  json.RawMessage
}

// MarshalJSON returns the answer's JSON.
func (e Encoded) MarshalJSON() ([]byte, error) { return e.JSON, nil }

// TaskList is s.List(ctx, tasks.Stop{}, nil), answered from the last replay while the log is the
// same file with the same size and modification time, encoded with it (Encoded). Only cairn logs
// are kept: a Claude Code transcript's task list also depends on its subagents' files.
func (k *Kept) TaskList(ctx context.Context, s *tasks.Session) (any, error) {
	path := s.Log.Path
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || !isCairnLog(s) {
		return s.List(ctx, tasks.Stop{}, nil)
	}
	k.tasksMu.Lock()
	if e := k.tasks; e != nil && e.path == path && sameVersion(e.fi, fi) {
		k.tasksMu.Unlock()
		return e.list, nil
	}
	k.tasksMu.Unlock()
	// fi was taken before the replay: a line appended meanwhile changes the log's size, so the
	// next call replays again rather than answer from a list that may lack it.
	list, err := s.List(ctx, tasks.Stop{}, nil)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("encode the task list: %w", err)
	}
	e := Encoded{Value: list, JSON: body}
	k.tasksMu.Lock()
	k.tasks = &taskEntry{path: path, fi: fi, list: e}
	k.tasksMu.Unlock()
	return e, nil
}

// isCairnLog reports whether s replays its log as a cairn log.
func isCairnLog(s *tasks.Session) bool {
	switch s.Format {
	case tasks.FormatCairn:
		return true
	case "", tasks.FormatAuto:
		f, err := workspace.OpenRegular(s.Log.Path, "session log")
		if err != nil {
			return false
		}
		defer f.Close()
		return tasks.DetectFormat(f) == tasks.FormatCairn
	}
	return false
}

// sameVersion reports whether a and b are the same file with the same size and modification time.
func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
