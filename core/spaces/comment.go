package spaces

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/core/errs"
)

// AddedComment is what add-comment answers.
type AddedComment struct {
	Ref       string `json:"ref"`
	Task      string `json:"task"`
	Kind      string `json:"kind"`
	Author    string `json:"author"`
	CreatedAt string `json:"created_at"`
	Indexed   bool   `json:"indexed"`
	Replaced  bool   `json:"replaced"`
}

// AddComment stores one comment (upsert by id; a missing id gets the next integer id) and its
// index text in one transaction. The task must exist. ctx ending before the commit stores
// nothing and is CANCELLED.
func (s *Store) AddComment(ctx context.Context, c Comment) (added AddedComment, err error) {
	defer func() { err = errs.IfStopped(ctx, err, "add-comment") }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return AddedComment{}, s.dbErr(err, "begin add-comment")
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tasks WHERE id = ?`, string(c.Task)).Scan(&n); err != nil {
		return AddedComment{}, s.dbErr(err, "look up task")
	}
	if n == 0 {
		return AddedComment{}, errs.NotFoundf("task:%s not found in %s", c.Task, FileName)
	}
	if c.ID == "" {
		var next int64
		// integer ids have the idkey n + 20 digits, so the largest is the last of that range in
		// comments_idkey, one index step
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(CAST(substr((SELECT max(idkey) FROM comments WHERE idkey > 'n' AND idkey < 'o'), 2) AS INTEGER), 0) + 1`).Scan(&next); err != nil {
			return AddedComment{}, s.dbErr(err, "assign comment id")
		}
		c.ID = ID(fmt.Sprint(next))
	}
	at, err := c.validate()
	if err != nil {
		return AddedComment{}, errs.Invalidf("%v", err)
	}
	var existing int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM comments WHERE id = ?`, string(c.ID)).Scan(&existing); err != nil {
		return AddedComment{}, s.dbErr(err, "look up comment")
	}
	w, err := prepareWriter(ctx, tx)
	if err != nil {
		return AddedComment{}, s.dbErr(err, "prepare add-comment")
	}
	defer w.close()
	if err := s.putComment(ctx, w, c, at); err != nil {
		return AddedComment{}, s.dbErr(err, "add comment")
	}
	if err := w.fts.flush(ctx, tx); err != nil {
		return AddedComment{}, s.dbErr(err, "update the search index")
	}
	if err := tx.Commit(); err != nil {
		return AddedComment{}, s.dbErr(err, "commit add-comment")
	}
	return AddedComment{
		Ref: "comment:" + string(c.ID), Task: "task:" + string(c.Task), Kind: c.Kind, Author: c.Author,
		CreatedAt: formatTime(at), Indexed: Indexed(c.Kind, c.ProgressType), Replaced: existing > 0,
	}, nil
}
