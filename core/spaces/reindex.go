package spaces

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
)

// ReindexReport says how many comments were indexed again and how many index texts changed.
type ReindexReport struct {
	Comments int `json:"comments"`
	Indexed  int `json:"indexed"`
	Changed  int `json:"changed"`
}

// Reindex recomputes every comment's index and display texts and every task's shown title (after
// the redaction rules or folding change) and rebuilds the FTS5 index, all in one transaction.
// ctx ending stops it between batches and keeps nothing (CANCELLED).
func (s *Store) Reindex(ctx context.Context, progress Progress) (rep ReindexReport, err error) {
	defer func() { err = errs.IfStopped(ctx, err, "reindex") }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ReindexReport{}, s.dbErr(err, "begin reindex")
	}
	defer tx.Rollback()
	rep, err = reindex(ctx, tx, s.rd(), progress)
	if err != nil {
		return rep, s.dbErr(err, "reindex")
	}
	if err := tx.Commit(); err != nil {
		return rep, s.dbErr(err, "commit reindex")
	}
	return rep, nil
}

// reindex is Reindex inside a transaction the caller owns (a command's, or a migration's).
func reindex(ctx context.Context, db execer, r *redact.Redactor, progress Progress) (ReindexReport, error) {
	return reindexTexts(ctx, db, r, progress, true)
}

// reindexTexts is reindex; with rebuild false, only the comments whose texts changed are taken
// out of both search indexes and put back, instead of both indexes built again.
func reindexTexts(ctx context.Context, db execer, r *redact.Redactor, progress Progress, rebuild bool) (ReindexReport, error) {
	var rep ReindexReport
	var rids []int64
	rows, err := db.QueryContext(ctx, `SELECT rid FROM comments ORDER BY rid`)
	if err != nil {
		return rep, fmt.Errorf("list comments: %w", err)
	}
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			rows.Close()
			return rep, fmt.Errorf("list comments: %w", err)
		}
		rids = append(rids, rid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("list comments: %w", err)
	}
	total := int64(len(rids))
	var fts ftsSync // the index changes, when the indexes are not built again
	upd, err := db.PrepareContext(ctx, `UPDATE comments SET itext = ?, dtext = ?, author = ? WHERE rid = ?`)
	if err != nil {
		return rep, fmt.Errorf("prepare reindex: %w", err)
	}
	defer upd.Close()
	for i := 0; i < len(rids); i += BatchSize {
		if err := errs.Stopped(ctx, "reindex"); err != nil {
			return rep, err
		}
		j := min(i+BatchSize, len(rids))
		rows, err := db.QueryContext(ctx, `SELECT rid, kind, progress_type, tool_name, body, attachments, itext, dtext, author FROM comments WHERE rid BETWEEN ? AND ? ORDER BY rid`, rids[i], rids[j-1])
		if err != nil {
			return rep, fmt.Errorf("read comments: %w", err)
		}
		type change struct {
			rid              int64
			text, dtext, old sql.NullString
			author           string
		}
		var changes []change
		for rows.Next() {
			var rid int64
			var kind, pt, tool, body, attJSON, author string
			var old, oldD sql.NullString
			if err := rows.Scan(&rid, &kind, &pt, &tool, &body, &attJSON, &old, &oldD, &author); err != nil {
				rows.Close()
				return rep, fmt.Errorf("read comments: %w", err)
			}
			var att []string
			if err := json.Unmarshal([]byte(attJSON), &att); err != nil {
				att = nil
			}
			var nt, nd sql.NullString
			if d, t, ok := Texts(r, kind, pt, tool, body, att); ok {
				nt = sql.NullString{String: t, Valid: true}
				nd = sql.NullString{String: d, Valid: true}
				rep.Indexed++
			}
			rep.Comments++
			na := r.Text(author)
			if nt != old || nd != oldD || na != author {
				changes = append(changes, change{rid, nt, nd, old, na})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return rep, fmt.Errorf("read comments: %w", err)
		}
		for _, c := range changes {
			if _, err := upd.ExecContext(ctx, c.text, c.dtext, c.author, c.rid); err != nil {
				return rep, fmt.Errorf("update index text: %w", err)
			}
			if !rebuild {
				fts.note(c.rid, true, c.old, c.text)
			}
		}
		rep.Changed += len(changes)
		if progress != nil {
			progress(int64(j), total)
		}
	}
	if err := retitle(ctx, db, r); err != nil {
		return rep, err
	}
	if !rebuild {
		if err := fts.flush(ctx, db); err != nil {
			return rep, fmt.Errorf("update the search index: %w", err)
		}
		return rep, nil
	}
	for _, q := range []string{
		`INSERT INTO comments_fts(comments_fts) VALUES ('delete-all')`,
		`INSERT INTO comments_fts(rowid, itext) SELECT rid, itext FROM comments`,
		`INSERT INTO comments_fts(comments_fts) VALUES ('optimize')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return rep, fmt.Errorf("rebuild the search index: %w", err)
		}
	}
	return rep, rebuildShort(ctx, db)
}

// rebuildShort builds the short-term index again from the index texts; a file whose schema
// predates it (reindex run by migration 3) has none yet, and migration 5 builds it.
func rebuildShort(ctx context.Context, db execer) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'comments_short'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	for _, q := range []string{
		`INSERT INTO comments_short(comments_short) VALUES ('delete-all')`,
		`INSERT INTO comments_short(rowid, grams) SELECT rid, ` + shortGramsOfText + ` FROM comments WHERE itext IS NOT NULL`,
		`INSERT INTO comments_short(comments_short) VALUES ('optimize')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild the short-term index: %w", err)
		}
	}
	return nil
}

// retitle recomputes the shown (redacted) title of every task.
func retitle(ctx context.Context, db execer, r *redact.Redactor) error {
	rows, err := db.QueryContext(ctx, `SELECT id, title, dtitle FROM tasks`)
	if err != nil {
		return fmt.Errorf("read tasks: %w", err)
	}
	type change struct{ id, title string }
	var changes []change
	for rows.Next() {
		var id, title string
		var old sql.NullString
		if err := rows.Scan(&id, &title, &old); err != nil {
			rows.Close()
			return fmt.Errorf("read tasks: %w", err)
		}
		if t := TitleText(r, title); !old.Valid || old.String != t {
			changes = append(changes, change{id, t})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read tasks: %w", err)
	}
	for _, c := range changes {
		if _, err := db.ExecContext(ctx, `UPDATE tasks SET dtitle = ? WHERE id = ?`, c.title, c.id); err != nil {
			return fmt.Errorf("update task title: %w", err)
		}
	}
	return nil
}

// IntegrityCheck runs FTS5's integrity-check against the content table and checks that
// comment_blocks bounds every block of comments, for tests and doctors.
func (s *Store) IntegrityCheck() error {
	if _, err := s.db.Exec(`INSERT INTO comments_fts(comments_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		return s.dbErr(err, "integrity-check")
	}
	// comment_blocks bounds every block's comments, and upto is the running maximum of max_at
	for _, c := range []struct{ query, says string }{
		{`SELECT c.b, coalesce(k.max_at, -1), c.m FROM
			(SELECT ` + blockOf("rid") + ` AS b, max(at_ns) AS m FROM comments GROUP BY 1) c
			LEFT JOIN comment_blocks k ON k.block = c.b WHERE k.max_at IS NULL OR k.max_at < c.m LIMIT 1`,
			"gives block %d the newest position %d, older than its comment at %d"},
		{`SELECT block, upto, u FROM (SELECT block, upto, max(max_at) OVER (ORDER BY block) AS u FROM comment_blocks)
			WHERE upto <> u LIMIT 1`,
			"gives block %d upto %d, not the running maximum %d"},
	} {
		var block, got, want int64
		err := s.db.QueryRow(c.query).Scan(&block, &got, &want)
		if err == nil {
			return fmt.Errorf("integrity-check %s: comment_blocks "+c.says, s.path, block, got, want)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return s.dbErr(err, "integrity-check")
		}
	}
	return nil
}
