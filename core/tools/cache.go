package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Cache is what a long-lived face (`cairn mcp`) keeps between calls so a warm call does not
// open, read and rebuild the same stores again: spaces.db stays open, the board index stays
// in memory until its files change, and a task list is kept, encoded, with the identity, size
// and modification time of the log it was replayed from. Every entry is checked against its files
// on each call, so a write by another process is seen by the next call. Safe for concurrent use.
type Cache struct {
	spaces spaces.Readers

	boardMu sync.Mutex
	board   *board.Index
	boardWS *workspace.Workspace

	tasksMu sync.Mutex
	tasks   *taskEntry

	memosMu sync.Mutex
	memos   map[string]*tasks.Memo // by log path
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

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// Close releases the open stores.
func (c *Cache) Close() { c.spaces.Close() }

// boardIndex returns the loaded board, loading it again when its files changed since.
func (c *Cache) boardIndex(ctx context.Context, ws *workspace.Workspace) (*board.Index, error) {
	c.boardMu.Lock()
	defer c.boardMu.Unlock()
	if c.board != nil && c.boardWS == ws {
		stale, err := c.board.Stale(ws)
		if err != nil {
			return nil, err
		}
		if !stale {
			return c.board, nil
		}
	}
	ix, err := board.Load(ctx, ws)
	if err != nil {
		c.board = nil
		return nil, err
	}
	_ = ix.EnableNarrowing() // kept for many calls: worth one pass over its text
	c.board, c.boardWS = ix, ws
	return ix, nil
}

// taskMemo is the memo of the log at path (tasks.Memo), made on first use: the calls of this
// process on one log take turns there, and a write reuses the store of the one before it while
// nobody else wrote to the log in between.
func (c *Cache) taskMemo(path string) *tasks.Memo {
	c.memosMu.Lock()
	defer c.memosMu.Unlock()
	m := c.memos[path]
	if m == nil {
		if c.memos == nil {
			c.memos = map[string]*tasks.Memo{}
		}
		m = tasks.NewMemo()
		c.memos[path] = m
	}
	return m
}

// taskList is s.List(ctx, tasks.Stop{}, nil), answered from the last replay while the log is the same
// file with the same size and modification time, encoded with it (Encoded). Only cairn logs are
// kept: a Claude Code transcript's task list also depends on its subagents' files.
func (c *Cache) taskList(ctx context.Context, s *tasks.Session) (any, error) {
	path := s.Log.Path
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || !isCairnLog(s) {
		return s.List(ctx, tasks.Stop{}, nil)
	}
	c.tasksMu.Lock()
	if e := c.tasks; e != nil && e.path == path && sameVersion(e.fi, fi) {
		c.tasksMu.Unlock()
		return e.list, nil
	}
	c.tasksMu.Unlock()
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
	c.tasksMu.Lock()
	c.tasks = &taskEntry{path: path, fi: fi, list: e}
	c.tasksMu.Unlock()
	return e, nil
}

// isCairnLog reports whether s replays its log as a cairn log.
func isCairnLog(s *tasks.Session) bool {
	switch s.Format {
	case tasks.FormatCairn:
		return true
	case "", tasks.FormatAuto:
		f, err := os.Open(s.Log.Path)
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
