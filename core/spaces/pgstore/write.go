package pgstore

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
)

// Import loads the JSON Lines of the space import format from r (size bytes, for progress; 0 if
// unknown) as spaces.Store.Import does: the same decoding, redaction and texts
// (spaces.ReadImport), records upserted by id in any order, bad lines reported by number and
// skipped, and everything in one transaction, so a failed or cancelled import changes nothing.
// Importing the same records again, from this process or another, changes nothing.
func (s *Store) Import(ctx context.Context, r io.Reader, size int64, progress spaces.Progress) (spaces.ImportReport, error) {
	rep := spaces.ImportReport{BadLines: []spaces.BadLine{}}
	tx, err := s.begin(ctx, true, "begin import")
	if err != nil {
		return rep, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	lines, bad, err := spaces.ReadImport(ctx, r, func(batch []spaces.PreparedRecord, read int64) error {
		if err := s.writeRecords(ctx, tx, batch, &rep); err != nil {
			return err
		}
		if progress != nil {
			progress(read, size)
		}
		return nil
	})
	if err != nil {
		return rep, s.dbErr(ctx, err, "space import")
	}
	rep.Lines, rep.BadLines = lines, append(rep.BadLines, bad...)
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM comments c WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = c.task)`).Scan(&rep.OrphanComments); err != nil {
		return rep, s.dbErr(ctx, err, "count comments without a task")
	}
	if err := tx.Commit(ctx); err != nil {
		return rep, s.dbErr(ctx, err, "commit import")
	}
	if progress != nil {
		progress(size, size)
	}
	return rep, nil
}

// An upsert that would change nothing writes nothing (ON CONFLICT ... WHERE IS DISTINCT FROM): a
// re-push of records the store has leaves no dead rows and no index entries behind.

// ImportRecords writes records prepared by spaces.ReadImport (a team server's push: a client
// reads and redacts, the server writes) in one transaction, upserted by id as Import writes
// them. Its report counts the records by type; it leaves Lines, BadLines and OrphanComments 0.
func (s *Store) ImportRecords(ctx context.Context, recs []spaces.PreparedRecord) (spaces.ImportReport, error) {
	rep := spaces.ImportReport{BadLines: []spaces.BadLine{}}
	tx, err := s.begin(ctx, true, "begin import")
	if err != nil {
		return rep, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := s.writeRecords(ctx, tx, recs, &rep); err != nil {
		return rep, s.dbErr(ctx, err, "space import")
	}
	return rep, s.dbErr(ctx, tx.Commit(ctx), "commit import")
}

// lastByID is the records of one kind in a batch, by index: each id's last, in the order the ids
// first came.
type lastByID struct {
	at   map[spaces.ID]int
	recs []int
}

func (l *lastByID) add(id spaces.ID, i int) {
	if j, ok := l.at[id]; ok {
		l.recs[j] = i
		return
	}
	if l.at == nil {
		l.at = map[spaces.ID]int{}
	}
	l.at[id] = len(l.recs)
	l.recs = append(l.recs, i)
}

// writeRecords writes one batch in tx: spaces, members, tasks (moving the comments of a task that
// changed space), then comments, each kind in one statement. Within a batch the last record of an
// id wins, as it does when spaces.db writes them one by one, and the order of kinds leaves the
// same rows: a comment's space is its task's whenever the task exists, whichever came first.
func (s *Store) writeRecords(ctx context.Context, tx pgx.Tx, recs []spaces.PreparedRecord, rep *spaces.ImportReport) error {
	if err := errs.Stopped(ctx, "space import"); err != nil {
		return err
	}
	type member struct {
		space spaces.ID
		user  string
	}
	memberSeen := map[member]bool{}
	var spaceRecs, taskRecs, commentRecs lastByID
	var ms []member
	for i := range recs {
		r := &recs[i]
		switch r.Type {
		case "space":
			rep.Spaces++
			spaceRecs.add(r.Space.ID, i)
		case "member":
			rep.Members++
			m := member{r.Member.Space, noNUL(r.Member.User)}
			if !memberSeen[m] {
				memberSeen[m] = true
				ms = append(ms, m)
			}
		case "task":
			rep.Tasks++
			taskRecs.add(r.Task.ID, i)
		case "comment":
			rep.Comments++
			commentRecs.add(r.Comment.ID, i)
		default:
			return fmt.Errorf("record type %q", r.Type)
		}
	}
	sp, ta, co := spaceRecs.recs, taskRecs.recs, commentRecs.recs
	if len(sp) > 0 {
		ids, names, owners := make([]string, len(sp)), make([]string, len(sp)), make([]string, len(sp))
		for j, i := range sp {
			r := recs[i].Space
			ids[j], names[j], owners[j] = string(r.ID), noNUL(r.Name), noNUL(r.Owner)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO spaces(id, name, owner) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, owner = excluded.owner
			WHERE (spaces.name, spaces.owner) IS DISTINCT FROM (excluded.name, excluded.owner)`, ids, names, owners); err != nil {
			return s.dbErr(ctx, err, "import space")
		}
	}
	if len(ms) > 0 {
		sps, users := make([]string, len(ms)), make([]string, len(ms))
		for j, m := range ms {
			sps[j], users[j] = string(m.space), m.user
		}
		if _, err := tx.Exec(ctx, `INSERT INTO members(space, "user") SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`, sps, users); err != nil {
			return s.dbErr(ctx, err, "import member")
		}
	}
	if len(ta) > 0 {
		n := len(ta)
		ids, sps, titles, statuses, parents, created := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		dtitles := make([][]byte, n)
		for j, i := range ta {
			t := recs[i].Task
			ids[j], sps[j], titles[j], statuses[j], parents[j], created[j] = string(t.ID), string(t.Space), noNUL(t.Title), noNUL(t.Status), string(t.Parent), t.CreatedAt
			dtitles[j] = []byte(t.DisplayTitle)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO tasks(id, space, title, status, parent, created_at, dtitle)
			SELECT u.id, u.space, u.title, u.status, NULLIF(u.parent, ''), u.created_at, u.dtitle
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[]) AS u(id, space, title, status, parent, created_at, dtitle)
			ON CONFLICT (id) DO UPDATE SET space = excluded.space, title = excluded.title, status = excluded.status,
				parent = excluded.parent, created_at = excluded.created_at, dtitle = excluded.dtitle
			WHERE (tasks.space, tasks.title, tasks.status, tasks.parent, tasks.created_at, tasks.dtitle)
				IS DISTINCT FROM (excluded.space, excluded.title, excluded.status, excluded.parent, excluded.created_at, excluded.dtitle)`,
			ids, sps, titles, statuses, parents, created, dtitles); err != nil {
			return s.dbErr(ctx, err, "import task")
		}
		if _, err := tx.Exec(ctx, `UPDATE comments c SET space = t.space FROM tasks t
			WHERE t.id = ANY($1::text[]) AND c.task = t.id AND c.space <> t.space`, ids); err != nil {
			return s.dbErr(ctx, err, "import task")
		}
	}
	if len(co) > 0 {
		cs := make([]spaces.PreparedComment, len(co))
		for j, i := range co {
			cs[j] = recs[i].Comment
		}
		if err := s.putComments(ctx, tx, cs); err != nil {
			return s.dbErr(ctx, err, "import comment")
		}
	}
	return nil
}

// putComments upserts prepared comments (distinct ids) in one statement, each in its task's
// space (none while the task is unknown).
func (s *Store) putComments(ctx context.Context, tx pgx.Tx, cs []spaces.PreparedComment) error {
	n := len(cs)
	ids, idkeys, tasks, kinds, pts, tools, created, atts, itexts := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	authors, bodies, dtexts := make([][]byte, n), make([][]byte, n), make([][]byte, n)
	atNS, indexed := make([]int64, n), make([]bool, n)
	grams := make([]string, n)
	var buf gramBuffer
	for j, c := range cs {
		ids[j], idkeys[j], tasks[j], kinds[j], pts[j], tools[j] = string(c.ID), c.IDKey, string(c.Task), c.Kind, noNUL(c.ProgressType), noNUL(c.ToolName)
		created[j], atts[j], itexts[j] = c.CreatedAt, c.AttachmentsJSON, indexText(c.Index)
		authors[j], bodies[j], dtexts[j] = []byte(c.Author), []byte(c.Body), []byte(c.Display)
		atNS[j], indexed[j] = c.AtNS, c.Indexed
		if c.Indexed {
			grams[j] = buf.tokens(itexts[j], c.AtNS)
		}
	}
	// grams arrive as one string a comment, the tokens separated by spaces (no token holds one)
	_, err := tx.Exec(ctx, `INSERT INTO comments(id, idkey, task, space, kind, progress_type, tool_name, author, created_at, at_ns, body, attachments, itext, dtext, grams)
		SELECT u.id, u.idkey, u.task, COALESCE(t.space, ''), u.kind, u.pt, u.tool, u.author, u.created_at, u.at_ns, u.body, u.att,
			CASE WHEN u.indexed THEN u.itext END, CASE WHEN u.indexed THEN u.dtext END,
			CASE WHEN u.indexed THEN string_to_array(u.grams, ' ') END
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::text[], $9::int8[],
			$10::bytea[], $11::text[], $12::text[], $13::bytea[], $14::bool[], $15::text[])
			AS u(id, idkey, task, kind, pt, tool, author, created_at, at_ns, body, att, itext, dtext, indexed, grams)
		LEFT JOIN tasks t ON t.id = u.task
		ON CONFLICT (id) DO UPDATE SET idkey = excluded.idkey, task = excluded.task, space = excluded.space,
			kind = excluded.kind, progress_type = excluded.progress_type, tool_name = excluded.tool_name,
			author = excluded.author, created_at = excluded.created_at, at_ns = excluded.at_ns,
			body = excluded.body, attachments = excluded.attachments, itext = excluded.itext, dtext = excluded.dtext,
			grams = excluded.grams
		WHERE (comments.idkey, comments.task, comments.space, comments.kind, comments.progress_type, comments.tool_name,
			comments.author, comments.created_at, comments.at_ns, comments.body, comments.attachments, comments.itext, comments.dtext)
			IS DISTINCT FROM (excluded.idkey, excluded.task, excluded.space, excluded.kind, excluded.progress_type, excluded.tool_name,
			excluded.author, excluded.created_at, excluded.at_ns, excluded.body, excluded.attachments, excluded.itext, excluded.dtext)`,
		ids, idkeys, tasks, kinds, pts, tools, authors, created, atNS, bodies, atts, itexts, dtexts, indexed, grams)
	return err
}

// AddComment stores one comment as spaces.Store.AddComment does (upsert by id; a missing id gets
// the next integer id; its task must exist), in one transaction. ctx ending before the commit
// stores nothing and is CANCELLED.
func (s *Store) AddComment(ctx context.Context, c spaces.Comment) (added spaces.AddedComment, err error) {
	return s.addComment(ctx, "", c)
}

// AddCommentIn is AddComment bounded by space, as spaces.Store.AddCommentIn: the comment's task
// must be in space (NOT_FOUND otherwise, as for a task that does not exist), and the id of
// another space's comment is FORBIDDEN. The checks and the write are one transaction.
func (s *Store) AddCommentIn(ctx context.Context, space spaces.ID, c spaces.Comment) (spaces.AddedComment, error) {
	if space == "" {
		return spaces.AddedComment{}, errs.Invalidf("space is required")
	}
	return s.addComment(ctx, space, c)
}

// addComment is AddComment, bounded by space unless it is "".
func (s *Store) addComment(ctx context.Context, space spaces.ID, c spaces.Comment) (added spaces.AddedComment, err error) {
	defer func() { err = errs.IfStopped(ctx, err, "add-comment") }()
	tx, err := s.begin(ctx, true, "begin add-comment")
	if err != nil {
		return spaces.AddedComment{}, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM tasks WHERE id = $1 AND ($2 = '' OR space = $2)`, string(c.Task), string(space)).Scan(&n); err != nil {
		return spaces.AddedComment{}, s.dbErr(ctx, err, "look up task")
	}
	if n == 0 {
		if space != "" {
			return spaces.AddedComment{}, errs.NotFoundf("task:%s not found in space %s", c.Task, space)
		}
		return spaces.AddedComment{}, errs.NotFoundf("task:%s not found in the space store", c.Task)
	}
	if space != "" && c.ID != "" {
		var other int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM comments WHERE id = $1 AND space <> $2`, string(c.ID), string(space)).Scan(&other); err != nil {
			return spaces.AddedComment{}, s.dbErr(ctx, err, "look up comment")
		}
		if other > 0 {
			return spaces.AddedComment{}, errs.New(errs.Forbidden, "comment:%s belongs to another space", c.ID)
		}
	}
	if c.ID == "" {
		// integer ids have the idkey n + 20 digits: the largest is the last of that range
		var next int64
		if err := tx.QueryRow(ctx, `SELECT COALESCE((SELECT substr(max(idkey), 2)::bigint FROM comments WHERE idkey > 'n' AND idkey < 'o'), 0) + 1`).Scan(&next); err != nil {
			return spaces.AddedComment{}, s.dbErr(ctx, err, "assign comment id")
		}
		c.ID = spaces.ID(fmt.Sprint(next))
	}
	p, err := spaces.PrepareComment(s.redactor, c)
	if err != nil {
		return spaces.AddedComment{}, err
	}
	var existing int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM comments WHERE id = $1`, string(c.ID)).Scan(&existing); err != nil {
		return spaces.AddedComment{}, s.dbErr(ctx, err, "look up comment")
	}
	if err := s.putComments(ctx, tx, []spaces.PreparedComment{p}); err != nil {
		return spaces.AddedComment{}, s.dbErr(ctx, err, "add comment")
	}
	if err := tx.Commit(ctx); err != nil {
		return spaces.AddedComment{}, s.dbErr(ctx, err, "commit add-comment")
	}
	return spaces.AddedComment{
		Ref: "comment:" + string(c.ID), Task: "task:" + string(c.Task), Kind: c.Kind, Author: c.Author,
		CreatedAt: p.CreatedAt, Indexed: spaces.Indexed(c.Kind, c.ProgressType), Replaced: existing > 0,
	}, nil
}
