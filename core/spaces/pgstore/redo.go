package pgstore

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn/core/spaces"
)

// redactionVersion is the version of core/redact's rules this build redacts with, as the
// redaction table records it for the stored texts; raise it with the rules (as spaces.db's
// redactedAgainAt and the board's redactionVersion), so that a team store an earlier build
// wrote shows no secret the new rules hide. 1: session 13's rules.
const redactionVersion = 1

// redactBatch is how many comments redactAgain reads and rewrites per statement.
const redactBatch = 1000

// redactAgain redacts every stored text again with this build's rules when the store was
// redacted with older ones: each comment's body, author and attachment names, its display and
// index texts (and the short-term tokens of the index text) made again from its body, and each
// task's titles. A text is redacted already, so redacting it again only hides what the new
// rules find. It runs once, in one transaction under the migration lock: the processes starting
// with it wait and find it done; an interrupted run leaves everything as it was.
func (s *Store) redactAgain(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.dbErr(ctx, err, "redact again")
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLockKey)); err != nil {
		return s.dbErr(ctx, err, "redact again")
	}
	var v int
	if err := tx.QueryRow(ctx, `SELECT version FROM redaction`).Scan(&v); err != nil {
		return s.dbErr(ctx, err, "read redaction version")
	}
	if v >= redactionVersion {
		return nil
	}
	if err := s.redactComments(ctx, tx); err != nil {
		return err
	}
	if err := s.redactTasks(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE redaction SET version = $1`, redactionVersion); err != nil {
		return s.dbErr(ctx, err, "write redaction version")
	}
	return s.dbErr(ctx, tx.Commit(ctx), "redact again")
}

// redactComments rewrites, batch by batch of rowids, the comments whose texts the rules change.
func (s *Store) redactComments(ctx context.Context, tx pgx.Tx) error {
	var buf gramBuffer
	for after := int64(0); ; {
		rows, err := tx.Query(ctx, `SELECT rid, kind, progress_type, tool_name, body, attachments, author, itext, dtext, at_ns
			FROM comments WHERE rid > $1 ORDER BY rid LIMIT $2`, after, redactBatch)
		if err != nil {
			return s.dbErr(ctx, err, "read comments to redact")
		}
		var rids []int64
		var bodies, authors, dtexts [][]byte
		var atts, itexts, grams []string
		n := 0
		for rows.Next() {
			n++
			var rid, atNS int64
			var kind, pt, tool, attJSON string
			var body, author, dtext []byte
			var itext *string
			if err := rows.Scan(&rid, &kind, &pt, &tool, &body, &attJSON, &author, &itext, &dtext, &atNS); err != nil {
				rows.Close()
				return s.dbErr(ctx, err, "read comments to redact")
			}
			after = rid
			var att []string
			if err := json.Unmarshal([]byte(attJSON), &att); err != nil {
				att = nil
			}
			nb, na := s.redactor.Text(string(body)), s.redactor.Text(string(author))
			changed := nb != string(body) || na != string(author)
			for i, a := range att {
				if t := s.redactor.Text(a); t != a {
					att[i], changed = t, true
				}
			}
			d, t, ok := spaces.Texts(s.redactor, kind, pt, tool, nb, att)
			t = indexText(t)
			if ok && (itext == nil || *itext != t || d != string(dtext)) {
				changed = true
			}
			if !changed {
				continue
			}
			aj, err := json.Marshal(att)
			if err != nil || att == nil {
				aj = []byte(attJSON)
			}
			g := ""
			if ok {
				g = buf.tokens(t, atNS)
			}
			rids, bodies, authors, atts = append(rids, rid), append(bodies, []byte(nb)), append(authors, []byte(na)), append(atts, string(aj))
			itexts, dtexts, grams = append(itexts, t), append(dtexts, []byte(d)), append(grams, g)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.dbErr(ctx, err, "read comments to redact")
		}
		if len(rids) > 0 {
			// a comment not indexed keeps its NULL texts: only what is indexed has them
			if _, err := tx.Exec(ctx, `UPDATE comments c SET body = u.body, author = u.author, attachments = u.att,
					itext = CASE WHEN c.itext IS NULL THEN NULL ELSE u.itext END,
					dtext = CASE WHEN c.itext IS NULL THEN NULL ELSE u.dtext END,
					grams = CASE WHEN c.itext IS NULL THEN NULL ELSE string_to_array(u.grams, ' ') END
				FROM unnest($1::int8[], $2::bytea[], $3::bytea[], $4::text[], $5::text[], $6::bytea[], $7::text[])
					AS u(rid, body, author, att, itext, dtext, grams)
				WHERE c.rid = u.rid`, rids, bodies, authors, atts, itexts, dtexts, grams); err != nil {
				return s.dbErr(ctx, err, "redact comments again")
			}
		}
		if n < redactBatch {
			return nil
		}
	}
}

// redactTasks rewrites the titles the rules change.
func (s *Store) redactTasks(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT id, title, dtitle FROM tasks`)
	if err != nil {
		return s.dbErr(ctx, err, "read tasks to redact")
	}
	var ids, titles []string
	var dtitles [][]byte
	for rows.Next() {
		var id, title string
		var dtitle []byte
		if err := rows.Scan(&id, &title, &dtitle); err != nil {
			rows.Close()
			return s.dbErr(ctx, err, "read tasks to redact")
		}
		nt, nd := s.redactor.Text(title), s.redactor.Text(string(dtitle))
		if nt != title || nd != string(dtitle) {
			d := []byte(nd)
			if dtitle == nil {
				d = nil // no display title stays none
			}
			ids, titles, dtitles = append(ids, id), append(titles, noNUL(nt)), append(dtitles, d)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.dbErr(ctx, err, "read tasks to redact")
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE tasks t SET title = u.title, dtitle = u.dtitle
		FROM unnest($1::text[], $2::text[], $3::bytea[]) AS u(id, title, dtitle) WHERE t.id = u.id`, ids, titles, dtitles); err != nil {
		return s.dbErr(ctx, err, "redact tasks again")
	}
	return nil
}
