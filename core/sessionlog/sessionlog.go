// Package sessionlog reads and appends the JSONL session log: streaming, locked, torn-line safe.
package sessionlog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Entry types of a cairn session log.
const (
	TypeToolCall   = "tool_call"
	TypeToolResult = "tool_result"
	TypeCompact    = "compact"
	TypeSystem     = "system"
	TypeMessage    = "message"
)

// ToolCall is a tool invocation; Arguments is an object, or a string holding one (OpenAI style).
type ToolCall struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	At        string          `json:"at,omitempty"`
	// Origin is "runtime" for calls the runtime fired itself (the TaskList after a compaction).
	Origin string `json:"origin,omitempty"`
}

// ToolResult answers a ToolCall; an error result means the call never took effect.
type ToolResult struct {
	Type    string `json:"type"`
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	At      string `json:"at,omitempty"`
}

// Compact is a compaction: the full task snapshot that the store becomes on replay.
type Compact struct {
	Type    string          `json:"type"`
	Summary string          `json:"summary"`
	Tasks   json.RawMessage `json:"tasks"`
	At      string          `json:"at,omitempty"`
}

// System is a message injected by the runtime in a lane such as mark_read_required.
type System struct {
	Type    string `json:"type"`
	Lane    string `json:"lane"`
	Content string `json:"content"`
	At      string `json:"at,omitempty"`
}

// Line is one physical line of the log as the scanner saw it.
type Line struct {
	// No is the 1-based line number.
	No int
	// Data is the line without its newline; valid only until the next call to Next.
	Data []byte
	// Torn is true for a final line with no newline: a write that never finished.
	Torn bool
	// TooLong is true for a line over MaxLineBytes: Data is only its first bytes, and Size its
	// length; no reader holds such a line whole.
	TooLong bool
	Size    int64
}

// Scanner streams lines of a log; memory is bounded by the longest line, not the file.
type Scanner struct {
	r    *bufio.Reader
	buf  []byte
	line Line
	err  error
}

// NewScanner reads lines from r.
func NewScanner(r io.Reader) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, 1<<20)}
}

// Next advances to the next line; false at the end or on a read error (see Err). A line over
// MaxLineBytes is read through, not held: it comes back with TooLong set and Data its start.
func (s *Scanner) Next() bool {
	if s.err != nil {
		return false
	}
	chunk, err := s.r.ReadSlice('\n')
	data := chunk
	size := int64(len(chunk))
	last := chunk
	if errors.Is(err, bufio.ErrBufferFull) {
		s.buf = append(s.buf[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = s.r.ReadSlice('\n')
			size += int64(len(chunk))
			if len(chunk) > 0 {
				last = chunk
			}
			if len(s.buf) <= maxLine {
				s.buf = append(s.buf, chunk...)
			}
		}
		data = s.buf
	}
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
		return false
	}
	if len(data) == 0 {
		return false
	}
	s.line.No++
	s.line.Torn = last[len(last)-1] != '\n'
	s.line.TooLong = size > int64(len(data)) // its end was read through, not kept
	if !s.line.Torn {
		size-- // the newline
	}
	s.line.Size = size
	if s.line.TooLong {
		data = data[:min(len(data), headBytes)]
	} else if !s.line.Torn {
		data = data[:len(data)-1]
		if n := len(data); n > 0 && data[n-1] == '\r' {
			data = data[:n-1]
		}
	}
	s.line.Data = data
	if errors.Is(err, io.EOF) {
		s.err = io.EOF
	}
	return true
}

// Line is the current line.
func (s *Scanner) Line() Line { return s.line }

// Err is the read error that stopped the scan, if any.
func (s *Scanner) Err() error {
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// Log is a session log file and its lock file (<log>.lock).
type Log struct {
	Path string
	Wait time.Duration
}

// LockPath is where the log's flock lives.
func (l Log) LockPath() string { return l.Path + ".lock" }

// Read opens the log under a shared lock and calls fn with its content; a missing log reads as
// empty. ctx ends the wait for the lock (CANCELLED), so a Ctrl-C or a cancelled MCP call does
// not wait out --wait.
func (l Log) Read(ctx context.Context, fn func(io.Reader) error) error {
	lock, err := workspace.LockFile(ctx, l.LockPath(), false, l.Wait)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return l.readUnlocked(fn)
}

// ReadWithoutLock reads a log that cairn never writes (a Claude Code transcript), so no lock file
// is created beside it.
func (l Log) ReadWithoutLock(fn func(io.Reader) error) error { return l.readUnlocked(fn) }

// ReadOpened is ReadWithoutLock of the log already open as f (the open that detected its
// format), read from its start, so a transcript is opened once per call. f stays open.
func (l Log) ReadOpened(f *os.File, fn func(io.Reader) error) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read session log %s: %w", l.Path, err)
	}
	return l.readFile(f, fn)
}

// errReader remembers a read error so it is reported even when the consumer stops early.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		e.err = err
	}
	return n, err
}

func (l Log) readUnlocked(fn func(io.Reader) error) error {
	f, err := workspace.OpenRegular(l.Path, "session log")
	if errors.Is(err, os.ErrNotExist) {
		return fn(bytes.NewReader(nil))
	}
	if err != nil {
		return workspace.FSError(err, "open session log %s", l.Path)
	}
	defer f.Close()
	return l.readFile(f, fn)
}

// readFile calls fn with the content of the log open as f.
func (l Log) readFile(f *os.File, fn func(io.Reader) error) error {
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return errs.Invalidf("session log %s is a directory", l.Path)
	}
	r := &errReader{r: f}
	if err := fn(r); err != nil {
		if r.err != nil {
			return fmt.Errorf("read session log %s: %w", l.Path, r.err)
		}
		return err
	}
	if r.err != nil {
		return fmt.Errorf("read session log %s: %w", l.Path, r.err)
	}
	return nil
}

// Update takes the exclusive lock (ctx ends the wait: CANCELLED), lets fn read the log and decide
// what to append, appends those entries (one JSON line each, after isolating a torn tail) and
// fsyncs before returning.
func (l Log) Update(ctx context.Context, fn func(io.Reader) ([]any, error)) error {
	_, err := l.update(ctx, false, func(_ Version, r io.Reader) ([]any, error) { return fn(r) })
	return err
}

// encodeLines renders entries as JSON lines without HTML escaping.
func encodeLines(entries []any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return nil, fmt.Errorf("encode log entry: %w", err)
		}
	}
	return buf.Bytes(), nil
}

// TornMark is what an append writes after a torn fragment, before the newline that ends it. A
// fragment can be a whole JSON entry that only lacks its newline; with the newline alone it would
// start replaying after the next append and shift every task id answered since. With the mark the
// line can never be valid JSON (the mark holds no quote, so it cannot close an open string), so
// it stays skipped for every reader, and `session check` can say why.
const TornMark = " #torn"

// AppendLines appends payload (whole lines) with O_APPEND and fsyncs; if the file ends in a torn
// line, TornMark and a newline are written first so the fragment stays a skipped line of its own.
// Callers hold the lock.
func AppendLines(path string, payload []byte) error {
	_, err := appendLines(path, payload, false)
	return err
}

// appendLines is AppendLines through one open of the file, which also reads its last byte and,
// with version, gives the file's Version after the append.
func appendLines(path string, payload []byte, version bool) (Version, error) {
	// a dangling symlink would have the create make its target, wherever it points; a FIFO
	// or a device is refused by the fstat below
	if _, err := workspace.WriteTarget(path, "session log"); err != nil {
		return Version{}, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return Version{}, workspace.FSError(err, "open session log %s", path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Version{}, fmt.Errorf("stat session log %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return Version{}, workspace.NotRegular(path, "session log", st.Mode())
	}
	if st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err != nil {
			return Version{}, fmt.Errorf("read session log %s: %w", path, err)
		}
		if last[0] != '\n' {
			payload = append([]byte(TornMark+"\n"), payload...)
		}
	}
	if _, err := f.Write(payload); err != nil {
		f.Truncate(st.Size()) // a half-written line (disk full) is taken back; we hold the lock
		return Version{}, fmt.Errorf("append to session log %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Truncate(st.Size())
		return Version{}, fmt.Errorf("sync session log %s: %w", path, err)
	}
	if !version {
		return Version{}, nil
	}
	v, err := versionOf(f)
	if err != nil {
		return Version{}, fmt.Errorf("stat session log %s: %w", path, err)
	}
	return v, nil
}

// CreateLog writes entries as a new log at path; an existing file is never overwritten.
func CreateLog(path string, entries []any) error {
	payload, err := encodeLines(entries)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return errs.Invalidf("%s already exists; %s never overwrites a file", path, errs.Field("new_log", errs.Name))
	}
	if err != nil {
		return errs.Wrap(errs.Invalid, err, "create new log")
	}
	defer f.Close()
	if _, err := f.Write(payload); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
