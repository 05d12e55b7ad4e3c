package spaces

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// This file is what a team server (core/team) asks of spaces.db: a search bounded by a space the
// server chose, and an import of a member's records into one space that can never touch another.

// BatchTask is one task of a Batch, as the space import format writes it.
type BatchTask struct {
	ID        ID     `json:"id"`
	Space     ID     `json:"space"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Parent    ID     `json:"parent,omitempty"`
	CreatedAt string `json:"created_at,omitempty"`
}

// Batch is the records of one push: tasks and their comments, all for one space.
type Batch struct {
	Tasks    []BatchTask
	Comments []Comment
}

// BatchReport says what an ImportBatch wrote: tasks and comments, and how many of the comments
// were there already (a re-sent batch replaces them with the same text).
type BatchReport struct {
	Tasks    int `json:"tasks"`
	Comments int `json:"comments"`
	Existing int `json:"existing"`
}

// MaxBatchRecords bounds one batch, so one request cannot hold a transaction without limit.
const MaxBatchRecords = 5000

// ReadBatch reads a batch in the space import format (one JSON object a line, docs/formats.md):
// task and comment lines only, every line bounded by maxLine bytes. Any bad line, or one longer
// than maxLine, refuses the whole batch (INVALID_INPUT naming the line): a push is all or
// nothing, and never loses a record it was sent.
func ReadBatch(r io.Reader, maxLine int) (Batch, error) {
	var b Batch
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, size, err := readLine(br, maxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return Batch{}, errs.Wrap(errs.Invalid, err, "line %d; nothing was imported", n)
		}
		if line == nil && size > 0 {
			// readLine reads a line over maxLine through and gives nil: skipping it would drop a
			// record the client counts as sent
			return Batch{}, errs.Invalidf("line %d is longer than %s, the most one record of a batch may hold; nothing was imported (leave its session out with [space] exclude)", n, byteSize(maxLine))
		}
		if len(strings.TrimSpace(string(line))) > 0 {
			if len(b.Tasks)+len(b.Comments) >= MaxBatchRecords {
				return Batch{}, errs.Invalidf("a batch holds at most %d records; nothing was imported", MaxBatchRecords)
			}
			rec, perr := parseLine(line)
			if perr != nil {
				return Batch{}, errs.Invalidf("line %d: %v; nothing was imported", n, perr)
			}
			switch rec.kind {
			case "task":
				t := rec.task
				b.Tasks = append(b.Tasks, BatchTask{ID: t.ID, Space: t.Space, Title: t.Title, Status: t.Status, Parent: t.Parent, CreatedAt: t.CreatedAt})
			case "comment":
				b.Comments = append(b.Comments, rec.comment)
			default:
				return Batch{}, errs.New(errs.Forbidden, "line %d: a %s record cannot be pushed: spaces and members are kept by the server ('cairn serve member add'); nothing was imported", n, rec.kind)
			}
		}
		if errors.Is(err, io.EOF) {
			return b, nil
		}
	}
}

// SearchSpace is SearchWorkspaceTasks in one space the caller has already been allowed into (a
// team server checks its member's spaces): every statement is bounded by space, and exclude (the
// caller's current task, or "") is left out. It answers as SearchWorkspaceTasks does.
func (s *Store) SearchSpace(ctx context.Context, space, exclude ID, in SearchInput) (a Answer, err error) {
	if err := in.validate(); err != nil {
		return Answer{}, err
	}
	if err := checkID("space", space); err != nil {
		return Answer{}, errs.Invalidf("%v", err)
	}
	defer func() {
		if err = errs.IfStopped(ctx, err, "space search"); err != nil {
			a = Answer{}
		}
	}()
	if !s.fts5 {
		return Answer{Unavailable: &Unavailable{Message: NoFTS5Message}}, nil
	}
	return s.search(ctx, asker{fixed: &scope{space: space, task: exclude}}, in, false)
}

// ImportBatch writes a batch into space in one transaction, all or nothing. Every task goes to
// space (a task naming another space is FORBIDDEN); a task or comment id that already belongs to
// another space is FORBIDDEN, so no push can overwrite or move another space's records; a
// comment's task must be in the batch or already in space (NOT_FOUND otherwise). Upserts by id, so
// sending the same batch again changes nothing. The space itself is created when missing, with
// no owner: its members are kept by the team server, never in spaces.db.
func (s *Store) ImportBatch(ctx context.Context, space ID, b Batch) (rep BatchReport, err error) {
	defer func() { err = errs.IfStopped(ctx, err, "import") }()
	if err := checkID("space", space); err != nil {
		return rep, errs.Invalidf("%v", err)
	}
	if len(b.Tasks)+len(b.Comments) > MaxBatchRecords {
		return rep, errs.Invalidf("a batch holds at most %d records, this one %d", MaxBatchRecords, len(b.Tasks)+len(b.Comments))
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return rep, s.dbErr(err, "begin import")
	}
	defer tx.Rollback()
	inBatch := map[ID]bool{}
	var recs []record
	// the space row is made once, with no owner, and never changed by a push
	if _, err := tx.ExecContext(ctx, `INSERT INTO spaces(id, name, owner) VALUES (?, ?, '') ON CONFLICT(id) DO NOTHING`, string(space), string(space)); err != nil {
		return rep, s.dbErr(err, "create space")
	}
	for _, t := range b.Tasks {
		if err := checkID("task", t.ID); err != nil {
			return BatchReport{}, errs.Invalidf("%v", err)
		}
		if t.Space != "" && t.Space != space {
			return BatchReport{}, errs.New(errs.Forbidden, "task:%s names space %s in a push to space %s", t.ID, t.Space, space)
		}
		if err := ownedElsewhere(ctx, tx, `SELECT space FROM tasks WHERE id = ?`, string(t.ID), space); err != nil {
			return BatchReport{}, errs.New(errs.Forbidden, "task:%s %v", t.ID, err)
		}
		inBatch[t.ID] = true
		t.Space = space
		recs = append(recs, record{kind: "task", task: taskRec(t)})
	}
	for _, t := range b.Tasks {
		if t.Parent != "" && !inBatch[t.Parent] {
			if err := inSpace(ctx, tx, t.Parent, space); err != nil {
				return BatchReport{}, errs.NotFoundf("task:%s's parent task:%s is not in space %s", t.ID, t.Parent, space)
			}
		}
	}
	for _, c := range b.Comments {
		at, verr := c.validate()
		if verr != nil {
			return BatchReport{}, errs.Invalidf("comment %s: %v", c.ID, verr)
		}
		if !inBatch[c.Task] {
			if err := inSpace(ctx, tx, c.Task, space); err != nil {
				return BatchReport{}, errs.NotFoundf("comment:%s: its task:%s is neither in this batch nor in space %s", c.ID, c.Task, space)
			}
		}
		var existing string
		err := tx.QueryRowContext(ctx, `SELECT space FROM comments WHERE id = ?`, string(c.ID)).Scan(&existing)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return BatchReport{}, s.dbErr(err, "look up comment")
		case existing != string(space):
			return BatchReport{}, errs.New(errs.Forbidden, "comment:%s belongs to another space", c.ID)
		default:
			rep.Existing++
		}
		if c.Attachments == nil {
			c.Attachments = []string{}
		}
		recs = append(recs, record{kind: "comment", comment: c, at: at})
	}
	w, err := prepareWriter(ctx, tx)
	if err != nil {
		return BatchReport{}, s.dbErr(err, "prepare import")
	}
	defer w.close()
	var ir ImportReport
	if err := s.writeRecords(ctx, w, recs, &ir); err != nil {
		return BatchReport{}, err
	}
	if err := w.fts.flush(ctx, tx); err != nil {
		return BatchReport{}, s.dbErr(err, "update the search index")
	}
	if err := tx.Commit(); err != nil {
		return BatchReport{}, s.dbErr(err, "commit import")
	}
	rep.Tasks, rep.Comments = ir.Tasks, ir.Comments
	return rep, nil
}

// AddCommentIn is AddComment bounded by space: the comment's task must be in space (NOT_FOUND
// otherwise, as for a task that does not exist), and an id of another space's comment is
// FORBIDDEN.
func (s *Store) AddCommentIn(ctx context.Context, space ID, c Comment) (AddedComment, error) {
	if err := inSpace(ctx, s.db, c.Task, space); err != nil {
		return AddedComment{}, errs.NotFoundf("task:%s not found in space %s", c.Task, space)
	}
	if c.ID != "" {
		if err := ownedElsewhere(ctx, s.db, `SELECT space FROM comments WHERE id = ?`, string(c.ID), space); err != nil {
			return AddedComment{}, errs.New(errs.Forbidden, "comment:%s %v", c.ID, err)
		}
	}
	return s.AddComment(ctx, c)
}

// ownedElsewhere fails when the row q finds for id has a space other than space.
func ownedElsewhere(ctx context.Context, q querier, query, id string, space ID) error {
	var existing string
	err := q.QueryRowContext(ctx, query, id).Scan(&existing)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if existing != string(space) {
		return fmt.Errorf("belongs to another space")
	}
	return nil
}

// inSpace fails when task is not a task of space.
func inSpace(ctx context.Context, q querier, task, space ID) error {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM tasks WHERE id = ? AND space = ?`, string(task), string(space)).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("not in space")
	}
	return nil
}

// Check validates the input as a search does before it reads anything, filling the default
// limit: a store with nothing to read (a team server nobody has pushed to) refuses the same
// inputs.
func (in *SearchInput) Check() error { return in.validate() }
