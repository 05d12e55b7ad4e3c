package spaces

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/jsonscan"
)

// BatchSize is how many records one import transaction writes.
const BatchSize = 5000

// Progress is told how far a long operation got: bytes for import, comments for reindex.
type Progress func(done, total int64)

// BadLine is an import line that was skipped, with why.
type BadLine struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// ImportReport says what an import loaded and what it skipped.
type ImportReport struct {
	Lines          int       `json:"lines"`
	Spaces         int       `json:"spaces"`
	Members        int       `json:"members"`
	Tasks          int       `json:"tasks"`
	Comments       int       `json:"comments"`
	OrphanComments int       `json:"orphan_comments"`
	BadLines       []BadLine `json:"bad_lines"`
}

// record is one parsed import line.
type record struct {
	kind    string // space, member, task, comment
	space   spaceRec
	member  memberRec
	task    taskRec
	comment Comment
	at      time.Time
	// set by prepareTexts (prepared): what a comment or task stores besides its fields
	prepared     bool
	attJSON      string
	itext, dtext sql.NullString
	dtitle       string
}

type spaceRec struct {
	ID    ID     `json:"id"`
	Name  string `json:"name"`
	Owner string `json:"owner"`
}

type memberRec struct {
	Space ID     `json:"space"`
	User  string `json:"user"`
}

type taskRec struct {
	ID        ID     `json:"id"`
	Space     ID     `json:"space"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Parent    ID     `json:"parent"`
	CreatedAt string `json:"created_at"`
}

// recordTypes lists the valid "type" values for messages.
const recordTypes = "space, member, task, comment"

// taskAliases are the output spellings of task fields (what search answers print) accepted as
// aliases: a hit's task_title is the task's title.
var taskAliases = []formats.Alias{{Field: "title", Alias: "task_title"}}

// parseLine decodes and validates one line of the space import format (docs/formats.md).
//
// The line's type is found by a structural scan (lineType) and the line decoded once, into the
// record of that type. A line the scan cannot answer for, or that the decode refuses, is decoded
// again the long way, first its type alone, so what a bad line is told does not depend on the
// shortcut.
func parseLine(line []byte) (record, error) {
	if typ, ok := lineType(line); ok {
		if rec, err := parseTyped(typ, line); err == nil {
			return rec, nil
		}
	}
	return parseLineDecoded(line)
}

// parseLineDecoded is parseLine by encoding/json alone: the line's type, then its record.
func parseLineDecoded(line []byte) (record, error) {
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return record{}, fmt.Errorf("not a JSON object: %v", jsonMsg(err))
	}
	if head.Type == nil {
		return record{}, fmt.Errorf(`no "type" (want one of %s)`, recordTypes)
	}
	return parseTyped(*head.Type, line)
}

// lineType is the "type" of a line as encoding/json decodes it, found without decoding the line:
// the value of the key spelt "type" in any case (the last one, as encoding/json keeps), when the
// line is one object, no key holds an escape and that value is a string without escapes. ok is
// false otherwise.
func lineType(line []byte) (typ string, ok bool) {
	var val []byte
	found, plain := false, true
	n := jsonscan.Object(line, func(key, rest []byte) int {
		end := jsonscan.ValueEnd(rest, 0)
		switch {
		case bytes.IndexByte(key, '\\') >= 0:
			plain = false // an escaped key may spell "type"
		case end >= 2 && bytes.EqualFold(key, []byte("type")):
			found = true
			if rest[0] == '"' && bytes.IndexByte(rest[1:end-1], '\\') < 0 {
				val = rest[1 : end-1]
			} else {
				plain = false
			}
		}
		return end
	})
	if n != len(line) || !found || !plain || !utf8.Valid(val) {
		return "", false
	}
	return string(val), true
}

// parseTyped decodes and validates a line whose "type" is kind.
func parseTyped(kind string, line []byte) (record, error) {
	rec := record{kind: kind}
	var err error
	if rec.kind == "task" {
		if line, err = formats.Rename(line, taskAliases); err != nil {
			return record{}, fmt.Errorf("task: %v", err)
		}
	}
	switch rec.kind {
	case "space":
		if err = json.Unmarshal(line, &rec.space); err == nil {
			err = checkID("id", rec.space.ID)
			if err == nil && strings.TrimSpace(rec.space.Owner) == "" {
				err = errors.New("owner is required")
			}
		}
	case "member":
		if err = json.Unmarshal(line, &rec.member); err == nil {
			err = checkID("space", rec.member.Space)
			if err == nil && strings.TrimSpace(rec.member.User) == "" {
				err = errors.New("user is required")
			}
		}
	case "task":
		if err = json.Unmarshal(line, &rec.task); err == nil {
			err = checkID("id", rec.task.ID)
			if err == nil {
				err = checkID("space", rec.task.Space)
			}
			if err == nil && rec.task.Parent != "" {
				err = checkID("parent", rec.task.Parent)
			}
			if err == nil && rec.task.CreatedAt != "" {
				var t time.Time
				t, err = parseTime("created_at", rec.task.CreatedAt)
				rec.task.CreatedAt = formatTime(t)
			}
		}
	case "comment":
		if c, ok := plainComment(line); ok {
			rec.comment = c
			rec.at, err = rec.comment.validate()
		} else if err = json.Unmarshal(line, &rec.comment); err == nil {
			rec.at, err = rec.comment.validate()
		}
	default:
		return record{}, fmt.Errorf("unknown type %q (want one of %s)", rec.kind, recordTypes)
	}
	if err != nil {
		var bad *badIDError
		if errors.As(err, &bad) {
			bad.field = idField(line)
		}
		return record{}, fmt.Errorf("%s: %v", rec.kind, jsonMsg(err))
	}
	return rec, nil
}

// plainComment decodes a comment line of the plain shape most lines have, without reflection:
// one object whose keys are spelt exactly as the format names them, each once, with no
// attachments, string values without escapes or control characters, and ids that are such a
// string or an integer in the int64 range. ok is false for any other line, which
// encoding/json then decodes; for the lines it takes, the comment is the one encoding/json gives.
func plainComment(line []byte) (c Comment, ok bool) {
	var seen uint16
	ok = true
	text := "" // the line as a string once something is taken from it: the fields share it
	n := jsonscan.Object(line, func(key, rest []byte) int {
		var dst *string
		var id *ID
		var bit uint16
		switch string(key) {
		case "type":
			bit = 1 << 0
		case "id":
			bit, id = 1<<1, &c.ID
		case "task":
			bit, id = 1<<2, &c.Task
		case "kind":
			bit, dst = 1<<3, &c.Kind
		case "progress_type":
			bit, dst = 1<<4, &c.ProgressType
		case "tool_name":
			bit, dst = 1<<5, &c.ToolName
		case "author":
			bit, dst = 1<<6, &c.Author
		case "created_at":
			bit, dst = 1<<7, &c.CreatedAt
		case "body":
			bit, dst = 1<<8, &c.Body
		}
		if bit == 0 || seen&bit != 0 {
			ok = false
			return -1
		}
		seen |= bit
		if len(rest) > 0 && rest[0] == '"' {
			end := plainString(rest)
			if end < 0 {
				ok = false
				return -1
			}
			if text == "" {
				text = string(line)
			}
			at := len(line) - len(rest)
			str := text[at+1 : at+end-1]
			if dst != nil {
				*dst = str
			} else if id != nil {
				*id = ID(str)
			}
			return end
		}
		if id == nil {
			ok = false
			return -1
		}
		end := 0
		if end < len(rest) && rest[end] == '-' {
			end++
		}
		digits := end
		for end < len(rest) && '0' <= rest[end] && rest[end] <= '9' {
			end++
		}
		if end == digits || (rest[digits] == '0' && end > digits+1) {
			ok = false
			return -1
		}
		if end < len(rest) && strings.IndexByte(",} \t\r\n", rest[end]) < 0 {
			ok = false // a fraction, an exponent or another literal
			return -1
		}
		v, err := strconv.ParseInt(string(rest[:end]), 10, 64)
		if err != nil {
			ok = false
			return -1
		}
		*id = ID(strconv.FormatInt(v, 10))
		return end
	})
	return c, ok && n == len(line)
}

// plainString is the index just past the string that opens b when it holds no escape, no
// control character and only valid UTF-8 (so encoding/json gives its bytes as they are), and -1
// for any other string.
func plainString(b []byte) (end int) {
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if !utf8.Valid(b[1:i]) {
				return -1
			}
			return i + 1
		case c == '\\' || c < 0x20:
			return -1
		}
	}
	return -1
}

// idField names the first id field of a line that holds neither a string nor an integer; it runs
// only when a line was refused for one.
func idField(line []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	for _, f := range []string{"id", "space", "task", "parent"} {
		if v, ok := m[f]; ok {
			var id ID
			if id.UnmarshalJSON(v) != nil {
				return f
			}
		}
	}
	return ""
}

// jsonMsg shortens encoding/json's messages to what a user can act on: the field, what it was
// given and what it takes.
func jsonMsg(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	if errors.As(err, &te) || errors.As(err, &se) {
		return formats.Message(err, nil)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Import loads the JSON Lines of the space import format (docs/formats.md) from r (size bytes, for progress; 0 if unknown). Records are
// upserted by id, so importing the same file twice changes nothing; they may come in any order.
// A bad line is reported by number and the others still load.
//
// Lines are read on one goroutine, parsed, folded and redacted on parseWorkers others (in
// chunks, put back in input order) while another writes the previous batch, so every core
// works at once. Everything is written in one transaction, so
// a failed, cancelled or killed import leaves the store as it was. Into a store with comments,
// each batch of BatchSize records keeps both search indexes in step as it goes. Into a store with
// no comments yet (a first import, the common case of a large one) the search indexes are built
// once after the rows: several times less index work than adding to them batch by batch.
//
// ctx is checked between batches and interrupts a statement in progress: a cancelled import
// returns ctx's error and commits nothing.
func (s *Store) Import(ctx context.Context, r io.Reader, size int64, progress Progress) (ImportReport, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rep := ImportReport{BadLines: []BadLine{}}
	var empty bool
	if err := s.db.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM comments)`).Scan(&empty); err != nil {
		return rep, s.importErr(ctx, err, "count comments")
	}
	batches := make(chan parsedBatch, 2)
	var read readReport
	go func() {
		defer close(batches)
		read = s.readBatches(ctx, r, batches)
	}()
	// the reader's error is read once batches is closed, so a failed read commits nothing
	err := s.writeAll(ctx, empty, batches, &rep, size, progress, func() error { return read.err })
	if err != nil {
		cancel()
		for range batches { // let the reader stop
		}
		return rep, err
	}
	rep.Lines, rep.BadLines = read.lines, append(rep.BadLines, read.bad...)
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM comments c WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = c.task)`).Scan(&rep.OrphanComments); err != nil {
		return rep, s.importErr(ctx, err, "count comments without a task")
	}
	if progress != nil {
		progress(size, size)
	}
	return rep, nil
}

// importErr is s.dbErr of err, or CANCELLED when ctx ended (SQLite then reports only that it
// was interrupted).
func (s *Store) importErr(ctx context.Context, err error, doing string) error {
	if stopped := errs.Stopped(ctx, "space import"); stopped != nil {
		return stopped
	}
	return s.dbErr(err, doing)
}

// parsedBatch is up to BatchSize records ready to write, and how many bytes were read after it.
type parsedBatch struct {
	recs []record
	done int64
}

// readReport is what reading the lines found: their number, the bad ones, a read error.
type readReport struct {
	lines int
	bad   []BadLine
	err   error
}

// parseWorkers is how many goroutines parse lines and prepare their texts: parsing, folding and
// redacting a line take longer than writing it, and each line's work is its own.
const parseWorkers = 2

// chunkLines is how many lines are handed to a parsing goroutine at a time.
const chunkLines = 256

// lineChunk is a run of consecutive lines of the input and, once ready is closed, what parsing
// them gave.
type lineChunk struct {
	first int      // the line number of lines[0]
	lines [][]byte // as read, with their line ends; nil for a line over the store's maxLine
	done  int64    // bytes read through the chunk's last line
	recs  []record
	bad   []BadLine
	err   error
	ready chan struct{}
}

// readBatches reads every line of r, has them parsed and their texts prepared by parseWorkers
// goroutines, and sends the records in input order, in batches of BatchSize, until r ends or
// ctx is cancelled. It returns once every goroutine it started has stopped.
func (s *Store) readBatches(ctx context.Context, r io.Reader, out chan<- parsedBatch) (rr readReport) {
	work := make(chan *lineChunk, parseWorkers)
	ordered := make(chan *lineChunk, 4*parseWorkers) // in input order: bounds the chunks in flight
	var wg sync.WaitGroup
	for range parseWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				s.parseChunk(ctx, c)
				close(c.ready)
			}
		}()
	}
	collected := make(chan readReport, 1)
	go func() { collected <- s.collectBatches(ctx, ordered, out) }()

	br := bufio.NewReaderSize(r, 1<<20)
	var done int64
	chunk := &lineChunk{first: 1, ready: make(chan struct{})}
	send := func() bool {
		if len(chunk.lines) == 0 {
			return true
		}
		chunk.done = done
		select {
		case ordered <- chunk:
		case <-ctx.Done():
			return false
		}
		work <- chunk // a worker takes it: workers never wait on anything but work
		chunk = &lineChunk{first: rr.lines + 1, ready: make(chan struct{})}
		return true
	}
	for {
		if rr.lines%256 == 0 && ctx.Err() != nil {
			break // the writer stopped: no more batches are taken
		}
		line, n, err := readLine(br, s.maxLine)
		if n > 0 {
			done += n
			rr.lines++
			if rr.lines == 1 && line != nil {
				line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte order mark some editors write
			}
			chunk.lines = append(chunk.lines, line) // nil: a line over maxLine, read through
			if len(chunk.lines) >= chunkLines && !send() {
				break
			}
		}
		if err == io.EOF {
			send()
			break
		}
		if err != nil {
			rr.err = fmt.Errorf("read line %d: %w", rr.lines+1, err)
			break
		}
	}
	close(work)
	close(ordered)
	wg.Wait()
	got := <-collected
	rr.bad = got.bad
	if rr.err == nil {
		rr.err = got.err
	}
	return rr
}

// readLine reads one line of br with its end and how many bytes it took. A line longer than max
// is read through without being held and given as nil, so a hostile line costs no more memory
// than max.
func readLine(br *bufio.Reader, max int) (line []byte, n int64, err error) {
	long := false
	for {
		frag, err := br.ReadSlice('\n')
		n += int64(len(frag))
		if !long {
			if len(line)+len(frag) > max {
				long, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, n, err
		}
	}
}

// byteSize writes n bytes as MiB when it is a whole number of them.
func byteSize(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// defaultMaxLine is the longest line a space import reads (docs/formats.md); a longer one is a
// bad line, skipped.
const defaultMaxLine = 64 << 20

// parseChunk parses the lines of c and prepares the texts of their records; a cancelled ctx
// leaves the rest unparsed (nothing more is written then).
func (s *Store) parseChunk(ctx context.Context, c *lineChunk) {
	for i, line := range c.lines {
		if i%64 == 0 && ctx.Err() != nil {
			return
		}
		if line == nil {
			c.bad = append(c.bad, BadLine{Line: c.first + i, Message: fmt.Sprintf("longer than %s, the most a line may hold; skipped unparsed", byteSize(s.maxLine))})
			continue
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		rec, err := parseLine(trimmed)
		if err != nil {
			c.bad = append(c.bad, BadLine{Line: c.first + i, Message: err.Error()})
			continue
		}
		if err := s.prepareTexts(&rec); err != nil {
			c.err = err
			return
		}
		c.recs = append(c.recs, rec)
	}
	c.lines = nil
}

// collectBatches takes the parsed chunks in input order and sends their records in batches of
// BatchSize; it reads ordered to its end even after ctx is cancelled or a chunk failed, so the
// reader never waits on it. Its report holds the bad lines and the first error.
func (s *Store) collectBatches(ctx context.Context, ordered <-chan *lineChunk, out chan<- parsedBatch) (rr readReport) {
	batch := make([]record, 0, BatchSize)
	var done int64
	sending := true
	send := func() {
		if len(batch) == 0 || !sending {
			return
		}
		select {
		case out <- parsedBatch{recs: batch, done: done}:
			batch = make([]record, 0, BatchSize)
		case <-ctx.Done():
			sending = false
		}
	}
	for c := range ordered {
		<-c.ready
		if !sending {
			continue
		}
		if c.err != nil && rr.err == nil {
			rr.err, sending = c.err, false
			continue
		}
		rr.bad = append(rr.bad, c.bad...)
		done = c.done // progress counts a chunk's bytes with its first batch
		for _, rec := range c.recs {
			batch = append(batch, rec)
			if len(batch) >= BatchSize {
				send()
			}
		}
	}
	if rr.err == nil && ctx.Err() == nil {
		send()
	}
	return rr
}

// prepareTexts computes what a record stores besides its fields: a comment's attachments as
// JSON and its index and display texts, a task's shown title.
func (s *Store) prepareTexts(rec *record) error {
	switch rec.kind {
	case "comment":
		c := &rec.comment
		// a private region is dropped before anything of it is stored or indexed
		c.Body = DropPrivate(c.Body)
		// the author is shown in every hit and neighbour: a secret pasted there is hidden too
		c.Author = s.rd().Text(c.Author)
		att := c.Attachments
		if att == nil {
			att = []string{}
		}
		rec.attJSON = "[]" // what json.Marshal gives for none, the common case
		if len(att) > 0 {
			attJSON, err := json.Marshal(att)
			if err != nil {
				return fmt.Errorf("encode attachments: %w", err)
			}
			rec.attJSON = string(attJSON)
		}
		if d, t, ok := Texts(s.rd(), c.Kind, c.ProgressType, c.ToolName, c.Body, att); ok {
			rec.itext = sql.NullString{String: t, Valid: true}
			rec.dtext = sql.NullString{String: d, Valid: true}
		}
	case "task":
		rec.task.Title = DropPrivate(rec.task.Title)
		rec.dtitle = TitleText(s.rd(), rec.task.Title)
	}
	rec.prepared = true
	return nil
}

// commentIndexes are the secondary indexes of comments exactly as migrations 1 and 5 create them.
const commentIndexes = `CREATE INDEX comments_space_at ON comments(space, at_ns, idkey);
	CREATE INDEX comments_task_at ON comments(task, at_ns, idkey);
	CREATE INDEX comments_idkey ON comments(idkey);`

// writeAll writes every batch in one transaction. Into a store with no comments (empty) the
// secondary indexes of comments and both search indexes are built after the rows; otherwise each
// batch keeps them in step.
func (s *Store) writeAll(ctx context.Context, empty bool, batches <-chan parsedBatch, rep *ImportReport, size int64, progress Progress, readErr func() error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.importErr(ctx, err, "begin import")
	}
	defer tx.Rollback()
	if empty {
		// The secondary indexes of comments are built once after the rows, from sorted keys,
		// instead of being updated row by row; a task's comments get its space in one pass then.
		for _, q := range []string{`DROP INDEX comments_space_at`, `DROP INDEX comments_task_at`, `DROP INDEX comments_idkey`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return s.importErr(ctx, err, "prepare import")
			}
		}
	}
	w, err := prepareWriter(ctx, tx)
	if err != nil {
		return s.importErr(ctx, err, "prepare import")
	}
	defer w.close()
	if empty {
		w.bulk = &bulkComments{tx: tx}
		defer w.bulk.close()
	}
	for b := range batches {
		if err := errs.Stopped(ctx, "space import"); err != nil {
			return err
		}
		if err := s.writeRecords(ctx, w, b.recs, rep); err != nil {
			return err
		}
		if err := w.fts.flush(ctx, tx); err != nil {
			return s.importErr(ctx, err, "update the search index")
		}
		if progress != nil {
			progress(b.done, size)
		}
	}
	if err := readErr(); err != nil {
		return err
	}
	if err := errs.Stopped(ctx, "space import"); err != nil {
		return err
	}
	if empty {
		if err := s.buildIndexes(ctx, tx, w.bulk); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return s.importErr(ctx, err, "commit import")
	}
	return nil
}

// optimizeIndexes merges each search index into one segment. A first import of 200,000 long
// comments built the trigram index in seven segments (bulkHashSize) and the short-term index in
// three, and every term a search asks for is looked up, and its matches merged, in each: a
// warm search's index reads took about half the CPU time with one (gen-longspace, p50 of 1,238
// queries). About 2.5 s of CPU time per index for those 200,000 comments; none for an index
// that is one segment already.
const optimizeIndexes = `INSERT INTO comments_fts(comments_fts) VALUES ('optimize');
	INSERT INTO comments_short(comments_short) VALUES ('optimize');`

// buildIndexes writes the buffered comments of a bulk import and builds, after the rows, the
// secondary indexes of comments and both search indexes.
func (s *Store) buildIndexes(ctx context.Context, tx *sql.Tx, bulk *bulkComments) error {
	if err := bulk.flush(ctx); err != nil {
		return s.importErr(ctx, err, "import comment")
	}
	importStep("rows")
	restore, err := bigHash(ctx, tx)
	if err != nil {
		return s.importErr(ctx, err, "build the search index")
	}
	stale, err := json.Marshal(bulk.stale)
	if err != nil {
		return err
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{sql: commentIndexes},
		{sql: rebuildBlocks()},
		// the comments of tasks written after them, with another space, through comments_task_at
		{sql: `UPDATE comments SET space = t.space FROM tasks t WHERE t.id = comments.task
			AND comments.task IN (SELECT value FROM json_each(?)) AND comments.space <> t.space`, args: []any{string(stale)}},
		{sql: `INSERT INTO comments_fts(comments_fts) VALUES ('rebuild')`},
		{sql: `INSERT INTO comments_short(rowid, grams) SELECT rid, ` + shortGramsOfText + ` FROM comments WHERE itext IS NOT NULL`},
		// one segment each
		{sql: optimizeIndexes},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return s.importErr(ctx, err, "build the search index")
		}
	}
	if err := restore(); err != nil {
		return s.importErr(ctx, err, "build the search index")
	}
	importStep("index")
	return nil
}
