package board

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Secrets on the board. Every text a search indexes or an answer shows is redacted with
// core/redact when a board is imported (whole or one project), before anything is written, so
// board.db, the JSON files, the snapshot, every answer and `cairn board export` hold
// "[REDACTED]" where a secret was:
//
//   - a project's title;
//   - a card's title, description, type and tags;
//   - an event's note and actor;
//   - a workpad item's description, command and evidence;
//   - an idea's title, detail, rationale and context;
//   - an artifact's title, note, target and external key (a URL with a password in it is redacted
//     like any text; an external key is searched, so it is treated as text);
//   - a summary's state, target, recap and next;
//   - a memory entry's kind, title, body, keywords and tags.
//
// Left as given: ids and the ids that refer to other records (a card's project, a record's card,
// a workspace id), which join the tables and files and name a card in `--card` and card reads;
// card lane names and idea and memory statuses, event types and workpad kinds, which filters and
// ranking compare with fixed values; times; and the two switches (archived, memory).
//
// A board.db says in meta 'redaction' which redaction it holds. One written before redaction
// existed has none: the next load, card read, export or project import brings it up to date
// (upgradeRedaction, under the exclusive lock, published like an import), and when that cannot
// be done (a read-only workspace, a lock held too long, a damaged JSON file) the reader redacts
// what it reads instead, so an old board never shows a secret either way.

// redactionVersion is meta 'redaction' of a board redacted by this build; raise it when boards
// must be redacted again (a board with a lower one is treated as an earlier build's). 2: the
// password shape and the other rules of session 8; 3: the decoders of session 9; 4: the
// generic rules of issue 22 (named and reversed encodings, split tokens, short random passwords);
// 5: the rules of the fifth blind corpus (HEX: keys, named digit groups, namespaced and CDATA
// XML values, CI logging commands, letter-group app passwords); 6: the generic rules of session
// 10 (unframed key bodies, encodings and wrapped secrets with no key word); 7: the rules of
// session 12 (glued key-file labels, the seventh blind corpus's shapes); 8: the rules of session
// 13 (the seventh blind corpus's sentences and encodings).
const redactionVersion = 8

// scrubber redacts the texts of board records with one Redactor. A nil *scrubber leaves them as
// they are: the reader of a board whose stored texts are already redacted.
type scrubber struct{ r *redact.Redactor }

// newScrubber compiles the rules once (a few ms); an import or an upgrade builds one.
func newScrubber() *scrubber { return &scrubber{r: redact.New()} }

// str redacts each text in place; a nil scrubber leaves them (fields spells the record's texts).
func (s *scrubber) str(ps ...*string) {
	if s == nil {
		return
	}
	for _, p := range ps {
		if t := s.r.Text(*p); t != *p {
			*p = t
		}
	}
}

func (s *scrubber) strs(lists ...[]string) {
	for _, l := range lists {
		for i := range l {
			s.str(&l[i])
		}
	}
}

func (s *scrubber) project(p *Project) { s.str(&p.Title) }

func (s *scrubber) card(c *Card) {
	s.str(&c.Title, &c.Description, &c.Type)
	s.strs(c.Tags)
}

func (s *scrubber) event(e *Event) { s.str(&e.Note, &e.Actor) }

func (s *scrubber) workpad(w *Workpad) { s.str(&w.Description, &w.Command, &w.Evidence) }

func (s *scrubber) idea(d *Idea) { s.str(&d.Title, &d.Detail, &d.Rationale, &d.Context) }

func (s *scrubber) artifact(a *Artifact) { s.str(&a.Title, &a.Note, &a.Target, &a.ExternalKey) }

func (s *scrubber) summary(x *Summary) { s.str(&x.State, &x.Target, &x.Recap, &x.Next) }

func (s *scrubber) memory(m *MemoryEntry) {
	s.str(&m.Kind, &m.Title, &m.Body)
	s.strs(m.Keywords, m.Tags)
}

// cardInfo redacts a card as a card read shows it, its project's title included.
func (s *scrubber) cardInfo(c *CardInfo) {
	s.str(&c.ProjectTitle, &c.Title, &c.Description, &c.Type)
	s.strs(c.Tags)
}

// tables redacts the records of board.db's tables in place, spread over the cores (the Redactor
// is safe for concurrent use and every record is independent); it stops with CANCELLED once ctx
// ends.
func (s *scrubber) tables(ctx context.Context, projects []Project, cards []Card, events []Event, workpads []Workpad, ideas []Idea, artifacts []Artifact) error {
	if s == nil {
		return nil
	}
	return inOrder(
		func() error { return eachInParallel(ctx, projects, s.project) },
		func() error { return eachInParallel(ctx, cards, s.card) },
		func() error { return eachInParallel(ctx, events, s.event) },
		func() error { return eachInParallel(ctx, workpads, s.workpad) },
		func() error { return eachInParallel(ctx, ideas, s.idea) },
		func() error { return eachInParallel(ctx, artifacts, s.artifact) },
	)
}

// loaded redacts what a search loads from a board an earlier build wrote.
func (s *scrubber) loaded(ctx context.Context, l *loaded) error {
	if s == nil {
		return nil
	}
	if err := s.tables(ctx, l.projects, l.cards, l.events, l.workpads, l.ideas, l.artifacts); err != nil {
		return err
	}
	for _, versions := range l.summaries {
		for i := range versions {
			s.summary(&versions[i])
		}
	}
	return eachInParallel(ctx, l.memory, s.memory)
}

// redactChunk is how many records one worker takes at a time.
const redactChunk = 256

// eachInParallel calls each on every element of list, chunks of it on every core, and reports
// CANCELLED when ctx ended before all were done.
func eachInParallel[T any](ctx context.Context, list []T, each func(*T)) error {
	n := len(list)
	workers := min(runtime.GOMAXPROCS(0), (n+redactChunk-1)/redactChunk)
	if workers <= 1 {
		for i := range list {
			if i%redactChunk == 0 {
				if err := errs.Stopped(ctx, "board redaction"); err != nil {
					return err
				}
			}
			each(&list[i])
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(redactChunk)) - redactChunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+redactChunk, n); i++ {
					each(&list[i])
				}
			}
		}()
	}
	wg.Wait()
	return errs.Stopped(ctx, "board redaction")
}

// encodeJSON is v as one line of JSON and a newline, with <, > and & as they are.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// summaryVersions decodes one card's list of summary versions from board/summaries.json,
// redacts them and encodes them again; what is not a list of versions is an error.
func (s *scrubber) summaryVersions(raw json.RawMessage) (json.RawMessage, error) {
	var versions []Summary
	if err := json.Unmarshal(raw, &versions); err != nil {
		return nil, err
	}
	for i := range versions {
		s.summary(&versions[i])
	}
	out, err := encodeJSON(nonNil(versions))
	return bytes.TrimSuffix(out, []byte("\n")), err
}

// memoryEntry decodes one entry of board/memory.json, redacts it and encodes it again.
func (s *scrubber) memoryEntry(raw json.RawMessage) (json.RawMessage, error) {
	var m MemoryEntry
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	s.memory(&m)
	out, err := encodeJSON(m)
	return bytes.TrimSuffix(out, []byte("\n")), err
}

// whole redacts a board read whole by readWholeBoard in place: its tables and every entry of its
// JSON files. An entry that cannot be decoded is refused, as readWholeBoard refuses a file that
// cannot be: it would be written on unredacted.
func (s *scrubber) whole(ctx context.Context, w *wholeBoard) error {
	if err := s.tables(ctx, w.projects, w.cards, w.events, w.workpads, w.ideas, w.artifacts); err != nil {
		return err
	}
	for card, raw := range w.summaries {
		out, err := s.summaryVersions(raw)
		if err != nil {
			return errs.Invalidf("%s: the summaries of card %q cannot be read (%v); re-import the board", SummariesPath, card, err)
		}
		w.summaries[card] = out
	}
	for i, raw := range w.memory {
		out, err := s.memoryEntry(raw)
		if err != nil {
			return errs.Invalidf("%s: entry %d cannot be read (%v); re-import the board", MemoryPath, i, err)
		}
		w.memory[i] = out
	}
	w.redacted = true
	return nil
}

// readRedaction reads meta 'redaction': whether the board's stored texts are redacted by this
// build's rules (a board.db of an earlier build has no such row).
func readRedaction(q interface {
	QueryRow(string, ...any) *sql.Row
}) (bool, error) {
	var v int
	err := q.QueryRow(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'redaction'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, storageErr(err, "read the redaction of %s", DBPath)
	}
	return v >= redactionVersion, nil
}

// upgradeRedaction redacts a board an earlier build wrote and publishes it as the next revision,
// exactly as an import would (one staging directory, one exchange, under the exclusive lock): a
// reader sees the board before or after. A board already redacted (by another process, while
// this one waited for the lock) is left alone.
func upgradeRedaction(ctx context.Context, ws *workspace.Workspace) error {
	lock, err := ws.LockNamed(ctx, lockName, true)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := checkBoardDir(ws); err != nil {
		return err
	}
	w, err := readWholeBoard(ctx, ws)
	if err != nil || w.redacted {
		return errs.IfStopped(ctx, err, "board redaction")
	}
	if err := newScrubber().whole(ctx, w); err != nil {
		return err
	}
	b := w.parsedBoard
	if err := encodeFiles(w.summaries, w.memory, &b); err != nil {
		return err
	}
	_, err = replaceBoard(ctx, ws, &b, w.revision)
	return err
}

// upgradeOnce runs upgradeRedaction for a reader that found an earlier build's board. Only
// CANCELLED stops the reader: any other failure leaves it to redact what it reads.
func upgradeOnce(ctx context.Context, ws *workspace.Workspace) error {
	err := upgradeRedaction(ctx, ws)
	if errs.CodeOf(err) == errs.Cancelled {
		return err
	}
	return nil
}

// encodeFiles encodes a board's summaries by card id and its memory entries into b's JSON files.
func encodeFiles(summaries map[string]json.RawMessage, memory []json.RawMessage, b *parsedBoard) error {
	var err error
	if b.summaries, err = encodeJSON(summaries); err != nil {
		return fmt.Errorf("encode summaries: %w", err)
	}
	b.nSummary = len(summaries)
	if b.memory, err = encodeJSON(nonNil(memory)); err != nil {
		return fmt.Errorf("encode memory: %w", err)
	}
	b.nMemory = len(memory)
	return nil
}
