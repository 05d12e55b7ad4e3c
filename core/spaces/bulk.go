package spaces

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// bulkRows is how many comments one INSERT statement of a bulk import carries: each statement
// costs database/sql and the driver a fixed amount of work (binding, locking, a result set),
// which rows share this way; 64 rows of 14 values stay far below SQLite's parameter limit.
const bulkRows = 64

// bulkCols is the number of values one comment row binds in bulkInsertSQL.
const bulkCols = 14

// bulkInsertSQL is the upsert of n comments in one statement. A comment repeated in the file
// updates the row its first occurrence wrote, as the one-row statement does.
func bulkInsertSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO comments(id, idkey, task, space, kind, progress_type, tool_name, author, created_at, at_ns, body, attachments, itext, dtext) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`(?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	}
	b.WriteString(` ON CONFLICT(id) DO UPDATE SET idkey = excluded.idkey, task = excluded.task, space = excluded.space,
		kind = excluded.kind, progress_type = excluded.progress_type, tool_name = excluded.tool_name,
		author = excluded.author, created_at = excluded.created_at, at_ns = excluded.at_ns,
		body = excluded.body, attachments = excluded.attachments, itext = excluded.itext, dtext = excluded.dtext`)
	return b.String()
}

// bulkComments buffers the comments of a bulk import and writes them bulkRows at a time. A
// comment's space is its task's as known when it is buffered (a task written earlier in this
// import, or one stored before it); the tasks written after some of their comments, with
// another space, are in stale, and buildIndexes gives their comments the task's space.
type bulkComments struct {
	tx     *sql.Tx
	full   *sql.Stmt         // the statement for bulkRows comments, prepared once
	args   []any             // the values of the buffered comments, bulkCols per comment
	spaces map[string]string // task id → space: tasks of this import and the stored ones looked up
	used   map[string]bool   // tasks whose space a buffered comment took
	stale  []string          // tasks written, with another space, after a comment took theirs
	lookup *sql.Stmt
}

// taskWritten records the space of a task the import wrote.
func (b *bulkComments) taskWritten(id, space string) {
	if old, ok := b.spaces[id]; ok && old != space && b.used[id] {
		b.stale = append(b.stale, id)
		delete(b.used, id)
	}
	b.known(id, space)
}

// known records the space of task id.
func (b *bulkComments) known(id, space string) {
	if b.spaces == nil {
		b.spaces = map[string]string{}
	}
	b.spaces[id] = space
}

// spaceOf is the space of task id for a comment of it: "" when no such task is known yet.
func (b *bulkComments) spaceOf(ctx context.Context, id string) (string, error) {
	if b.used == nil {
		b.used = map[string]bool{}
	}
	b.used[id] = true
	if sp, ok := b.spaces[id]; ok {
		return sp, nil
	}
	if b.lookup == nil {
		st, err := b.tx.PrepareContext(ctx, `SELECT space FROM tasks WHERE id = ?`)
		if err != nil {
			return "", err
		}
		b.lookup = st
	}
	var sp string
	if err := b.lookup.QueryRowContext(ctx, id).Scan(&sp); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	b.known(id, sp)
	return sp, nil
}

// add buffers one prepared comment, writing the buffer when it is full.
func (b *bulkComments) add(ctx context.Context, rec *record) error {
	c := &rec.comment
	sp, err := b.spaceOf(ctx, string(c.Task))
	if err != nil {
		return err
	}
	b.args = append(b.args, string(c.ID), idKey(c.ID), string(c.Task), sp, c.Kind, c.ProgressType, c.ToolName,
		c.Author, formatTime(rec.at), rec.at.UnixNano(), c.Body, rec.attJSON, rec.itext, rec.dtext)
	if len(b.args) < bulkRows*bulkCols {
		return nil
	}
	if b.full == nil {
		if b.full, err = b.tx.PrepareContext(ctx, bulkInsertSQL(bulkRows)); err != nil {
			return err
		}
	}
	_, err = b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

// flush writes the buffered comments.
func (b *bulkComments) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, bulkInsertSQL(len(b.args)/bulkCols), b.args...)
	b.args = b.args[:0]
	return err
}

func (b *bulkComments) close() {
	for _, st := range []*sql.Stmt{b.full, b.lookup} {
		if st != nil {
			st.Close()
		}
	}
}

// bulkHashSize is the FTS5 'hashsize' (bytes of pending index terms before they are written as
// a segment; 1 MiB by default) while buildIndexes builds both search indexes: a first import of
// 200,000 comments then writes a few large segments instead of hundreds that automerge merges
// again, about a twentieth of its CPU time, for at most this much more memory.
const bulkHashSize = 32 << 20

// defaultHashSize is FTS5's own 'hashsize'.
const defaultHashSize = 1 << 20

// bigHash sets bulkHashSize on both search indexes inside tx; restore puts back the setting each
// had (FTS5's default when none was stored), so the file holds the same configuration after.
func bigHash(ctx context.Context, tx *sql.Tx) (restore func() error, err error) {
	type setting struct {
		table string
		old   sql.NullInt64
	}
	var set []setting
	for _, t := range []string{"comments_fts", "comments_short"} {
		st := setting{table: t}
		err := tx.QueryRowContext(ctx, `SELECT v FROM `+t+`_config WHERE k = 'hashsize'`).Scan(&st.old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rank) VALUES ('hashsize', ?)`, bulkHashSize); err != nil {
			return nil, err
		}
		set = append(set, st)
	}
	return func() error {
		for _, st := range set {
			v := int64(defaultHashSize)
			if st.old.Valid {
				v = st.old.Int64
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+st.table+`(`+st.table+`, rank) VALUES ('hashsize', ?)`, v); err != nil {
				return err
			}
			if !st.old.Valid {
				if _, err := tx.ExecContext(ctx, `DELETE FROM `+st.table+`_config WHERE k = 'hashsize'`); err != nil {
					return err
				}
			}
		}
		return nil
	}, nil
}
