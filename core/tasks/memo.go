package tasks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/sessionlog"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Memo is what a long-lived process (`cairn mcp`, `cairn serve`: tools.Keep) keeps of one cairn log
// between calls; a Session carrying it (Session.Memo) uses it in read and update.
//
// It serialises the process's own calls on the log: they take turns here, in the order they
// came, before any of them waits for the log's lock. Without it every call of a burst opened
// the lock file on its own descriptor, and flock made them contend with one another as with
// another process, each polling with the workspace's wait: calls failed STORAGE_BUSY "locked by
// another process" with no other process there. The wait here has no limit but the call's ctx;
// the lock still bounds the wait for other processes.
//
// It keeps the store replayed by the last update and the log's sessionlog.Version after that
// update's append. The next update, under the exclusive lock, reuses the store only when the log
// is still exactly that version (nobody appended, truncated or replaced it); anything else is a
// full replay. Reusing it then is a replay's answer: replay holds task calls until the next
// compaction or the end so that a later error result can cancel them, and the only lines since
// the replay are the update's own, which hold no error result (a call, or a compaction with its
// successful TaskList); an error result another process appends later changes the version, and
// the next update replays everything again. A log holding a fork entry (its replay also reads
// the parent log, which the version does not cover) is never kept.
type Memo struct {
	turn chan struct{} // holds one token while a call of this process uses the log

	// Guarded by turn.
	store   *Store
	version sessionlog.Version
	replays int // whole replays an update made, for tests
}

// NewMemo is an empty memo: the first update replays the whole log.
func NewMemo() *Memo { return &Memo{turn: make(chan struct{}, 1)} }

// take waits for this process's turn on the log, or for ctx to end (CANCELLED).
func (m *Memo) take(ctx context.Context, what string) error {
	if err := errs.Stopped(ctx, what); err != nil {
		return err
	}
	select {
	case m.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errs.Stopped(ctx, what)
	}
}

// give ends the turn.
func (m *Memo) give() { <-m.turn }

// forget drops the kept store: the next update replays the whole log.
func (m *Memo) forget() {
	m.store, m.version = nil, sessionlog.Version{}
}

// storeFor is the kept store when the log is still at version v, else nil.
func (m *Memo) storeFor(v sessionlog.Version) *Store {
	if m.store != nil && m.version.Same(v) {
		return m.store
	}
	return nil
}

// keep remembers st as the store of the log at version v.
func (m *Memo) keep(st *Store, v sessionlog.Version) {
	if !v.Exists() {
		m.forget()
		return
	}
	m.store, m.version = st, v
}

// updateMemo is Session.update for a session with a Memo: the turn is taken first, then the log
// is opened once (Session.detect) and checked for transcript records unless it is as this
// process left it, and under the exclusive lock the kept store stands in for the replay while
// the version it was kept with still holds. replay is how Session.update replays the log it is
// given.
func (s *Session) updateMemo(ctx context.Context, replay func(io.Reader) (*Replayer, error), fn func(r *Replayer) ([]any, error)) error {
	m := s.Memo
	if err := m.take(ctx, "session update"); err != nil {
		return err
	}
	defer m.give()
	format, f, err := s.detect(s.Format != FormatClaude)
	if err != nil {
		return err
	}
	if f != nil {
		defer f.Close()
	}
	if format == FormatClaude {
		return notTranscript(s.Log.Path, true)
	}
	// Any Claude Code record anywhere in the file makes it a transcript (Session.update); a log
	// this process wrote last and nobody touched since was checked when it was kept.
	checked := false
	if m.store != nil && f != nil {
		if v, err := s.Log.StatOpened(f); err == nil && m.storeFor(v) != nil {
			checked = true
		}
	}
	if !checked && f != nil {
		if err := transcriptIn(s.Log.Path, f); err != nil {
			return err
		}
	}
	if err := readOnlyFormat(s.Log.Path, format); err != nil {
		return err // a Codex rollout, refused as Session.update refuses it
	}
	var kept *Store
	v, err := s.Log.UpdateVersioned(ctx, func(v sessionlog.Version, log io.Reader) ([]any, error) {
		st := m.storeFor(v)
		m.forget() // until the append succeeds; fn changes the store it is given
		var r *Replayer
		forkFree := true
		if st != nil {
			r = NewReplayer()
			r.Store = st
		} else {
			if checked { // someone wrote between the check and the lock: check again, under it
				if err := transcriptCheck(s.Log.Path); err != nil {
					return nil, err
				}
			}
			m.replays++
			fs := &forkSniffer{r: log}
			var err error
			if r, err = replay(fs); err != nil {
				return nil, err
			}
			forkFree = !fs.found
		}
		if err := errs.Stopped(ctx, "session update"); err != nil {
			return nil, err
		}
		entries, err := fn(r)
		if err == nil && forkFree {
			kept = r.Store
		}
		return entries, err
	})
	if err == nil && kept != nil {
		m.keep(kept, v)
	}
	return err
}

// transcriptCheck refuses a log holding any Claude Code record (a missing log holds none).
func transcriptCheck(path string) error {
	f, err := workspace.OpenRegular(path, "session log")
	if err != nil {
		return nil // a missing log is an empty cairn log; the update reports other errors
	}
	defer f.Close()
	return transcriptIn(path, f)
}

// transcriptIn is transcriptCheck of the log open as f, read from where f is.
func transcriptIn(path string, f *os.File) error {
	held, err := HoldsTranscript(f)
	if err != nil {
		return fmt.Errorf("read session log %s: %w", path, err)
	}
	return notTranscript(path, held)
}

// notTranscript is the error for writing to a Claude Code transcript, when held.
func notTranscript(path string, held bool) error {
	if !held {
		return nil
	}
	return errs.Invalidf("%s is a Claude Code transcript; cairn reads it but never writes to it (%s)", path, errs.Field("session", errs.CairnLog))
}

// forkMark is what a fork entry's type looks like in a line.
var forkMark = []byte(`"fork"`)

// forkSniffer passes a log through and notes whether it holds a fork entry's type anywhere
// (forkMark, even inside a string: a false alarm only costs the memo).
type forkSniffer struct {
	r     io.Reader
	carry []byte // the end of the last read, for a mark cut between two reads
	found bool
}

func (f *forkSniffer) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if !f.found && n > 0 {
		f.carry = append(f.carry, p[:min(n, len(forkMark))]...)
		if bytes.Contains(f.carry, forkMark) || bytes.Contains(p[:n], forkMark) {
			f.found = true
		}
		keep := len(forkMark) - 1 // the stream's last bytes, which may start a mark
		if n >= keep {
			f.carry = append(f.carry[:0], p[n-keep:n]...)
		} else {
			f.carry = append(f.carry[:len(f.carry)-min(n, len(forkMark))], p[:n]...)
			f.carry = f.carry[max(0, len(f.carry)-keep):]
		}
	}
	return n, err
}
