package spaces

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// writer holds the prepared statements of one write transaction and the index changes it owes.
type writer struct {
	space, member, task, taskComments, comment, old *sql.Stmt
	fts                                             ftsSync
	// bulk: comments are written many to a statement and the search indexes are built after
	// the rows (buildIndexes), so none of their changes are collected
	bulk *bulkComments
}

// ftsSync collects the index changes of one transaction and applies them in two statements at
// its end: removing the old text of changed comments, then adding the current text of new and
// changed ones.
type ftsSync struct {
	deletes []any          // [rid, old itext] pairs as FTS5 'delete' needs them
	pending map[int64]bool // rids whose current text is added at the end
	order   []int64
	blocks  blockChanges // the newest position written to each block of rowids (comment_blocks)
}

// note records that comment rid went from old (ok: it existed and is in the index) to itext.
func (f *ftsSync) note(rid int64, existed bool, old, itext sql.NullString) {
	if f.pending == nil {
		f.pending = map[int64]bool{}
	}
	if f.pending[rid] {
		return // added at the end with whatever text it has then
	}
	if existed {
		if old == itext {
			return
		}
		var o any
		if old.Valid {
			o = old.String
		}
		f.deletes = append(f.deletes, []any{rid, o})
	}
	f.pending[rid] = true
	f.order = append(f.order, rid)
}

// flush applies the collected changes inside tx.
func (f *ftsSync) flush(ctx context.Context, tx execer) error {
	if len(f.deletes) > 0 {
		doc, err := json.Marshal(f.deletes)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO comments_fts(comments_fts, rowid, itext)
			SELECT 'delete', j.value ->> 0, j.value ->> 1 FROM json_each(?) j`, string(doc)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM comments_short WHERE rowid IN
			(SELECT j.value ->> 0 FROM json_each(?) j WHERE j.value ->> 1 IS NOT NULL)`, string(doc)); err != nil {
			return err
		}
	}
	if len(f.order) > 0 {
		doc, err := json.Marshal(f.order)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO comments_fts(rowid, itext)
			SELECT rid, itext FROM comments WHERE rid IN (SELECT value FROM json_each(?)) ORDER BY rid`, string(doc)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO comments_short(rowid, grams)
			SELECT rid, `+shortGramsOfText+` FROM comments WHERE rid IN (SELECT value FROM json_each(?)) AND itext IS NOT NULL ORDER BY rid`, string(doc)); err != nil {
			return err
		}
	}
	if err := f.blocks.flush(ctx, tx); err != nil {
		return err
	}
	*f = ftsSync{}
	return nil
}

func prepareWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	var w writer
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.space, `INSERT INTO spaces(id, name, owner) VALUES (?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET name = excluded.name, owner = excluded.owner`},
		{&w.member, `INSERT OR IGNORE INTO members(space, user) VALUES (?, ?)`},
		{&w.task, `INSERT INTO tasks(id, space, title, status, parent, created_at, dtitle) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET space = excluded.space, title = excluded.title, status = excluded.status,
				parent = excluded.parent, created_at = excluded.created_at, dtitle = excluded.dtitle`},
		{&w.taskComments, `UPDATE comments SET space = ?1 WHERE task = ?2 AND space <> ?1`},
		{&w.comment, `INSERT INTO comments(id, idkey, task, space, kind, progress_type, tool_name, author, created_at, at_ns, body, attachments, itext, dtext)
			VALUES (?1, ?2, ?3, COALESCE((SELECT space FROM tasks WHERE id = ?3), ''), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
			ON CONFLICT(id) DO UPDATE SET idkey = excluded.idkey, task = excluded.task, space = excluded.space,
				kind = excluded.kind, progress_type = excluded.progress_type, tool_name = excluded.tool_name,
				author = excluded.author, created_at = excluded.created_at, at_ns = excluded.at_ns,
				body = excluded.body, attachments = excluded.attachments, itext = excluded.itext, dtext = excluded.dtext
			RETURNING rid`},
		{&w.old, `SELECT rid, itext FROM comments WHERE id = ?`},
	} {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.dst = st
	}
	return &w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.space, w.member, w.task, w.taskComments, w.comment, w.old} {
		if st != nil {
			st.Close()
		}
	}
}

// putComment upserts one comment with its index and display texts.
func (s *Store) putComment(ctx context.Context, w *writer, c Comment, at time.Time) error {
	rec := record{kind: "comment", comment: c, at: at}
	if err := s.prepareTexts(&rec); err != nil {
		return err
	}
	return putPrepared(ctx, w, &rec)
}

// putPrepared upserts one comment whose texts prepareTexts computed.
func putPrepared(ctx context.Context, w *writer, rec *record) error {
	if w.bulk != nil {
		return w.bulk.add(ctx, rec)
	}
	c := &rec.comment
	var oldRID int64
	var old sql.NullString
	existed := true
	if err := w.old.QueryRowContext(ctx, string(c.ID)).Scan(&oldRID, &old); errors.Is(err, sql.ErrNoRows) {
		existed = false
	} else if err != nil {
		return err
	}
	var rid int64
	err := w.comment.QueryRowContext(ctx, string(c.ID), idKey(c.ID), string(c.Task), c.Kind, c.ProgressType, c.ToolName,
		c.Author, formatTime(rec.at), rec.at.UnixNano(), c.Body, rec.attJSON, rec.itext, rec.dtext).Scan(&rid)
	if err != nil {
		return err
	}
	w.fts.note(rid, existed, old, rec.itext)
	w.fts.blocks.note(rid, rec.at.UnixNano())
	return nil
}

// writeBatch writes records in one transaction.
func (s *Store) writeBatch(ctx context.Context, batch []record, rep *ImportReport) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.dbErr(err, "begin import")
	}
	defer tx.Rollback()
	w, err := prepareWriter(ctx, tx)
	if err != nil {
		return s.dbErr(err, "prepare import")
	}
	defer w.close()
	if err := s.writeRecords(ctx, w, batch, rep); err != nil {
		return err
	}
	if err := w.fts.flush(ctx, tx); err != nil {
		return s.dbErr(err, "update the search index")
	}
	if err := tx.Commit(); err != nil {
		return s.dbErr(err, "commit import")
	}
	return nil
}

// writeRecords writes records with w.
func (s *Store) writeRecords(ctx context.Context, w *writer, batch []record, rep *ImportReport) error {
	var err error
	for i := range batch {
		rec := &batch[i]
		if s.exclude != nil && s.exclude.leaveOut(rec) {
			continue
		}
		if !rec.prepared {
			if err := s.prepareTexts(rec); err != nil {
				return err
			}
		}
		switch rec.kind {
		case "space":
			_, err = w.space.ExecContext(ctx, string(rec.space.ID), rec.space.Name, rec.space.Owner)
			rep.Spaces++
		case "member":
			_, err = w.member.ExecContext(ctx, string(rec.member.Space), rec.member.User)
			rep.Members++
		case "task":
			var parent any
			if rec.task.Parent != "" {
				parent = string(rec.task.Parent)
			}
			_, err = w.task.ExecContext(ctx, string(rec.task.ID), string(rec.task.Space), rec.task.Title, rec.task.Status, parent, rec.task.CreatedAt,
				rec.dtitle)
			if err == nil && w.bulk != nil {
				w.bulk.taskWritten(string(rec.task.ID), string(rec.task.Space))
			} else if err == nil {
				_, err = w.taskComments.ExecContext(ctx, string(rec.task.Space), string(rec.task.ID))
			}
			rep.Tasks++
		case "comment":
			err = putPrepared(ctx, w, rec)
			rep.Comments++
		}
		if err != nil {
			return s.importErr(ctx, err, "import "+rec.kind)
		}
	}
	return nil
}
