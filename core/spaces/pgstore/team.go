package pgstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/team"
)

// Linking this package in (a blank import, as commands does) gives `cairn serve --store
// postgres://...` its store.
func init() {
	team.Postgres = func(ctx context.Context, url string, wait time.Duration) (team.Store, error) {
		st, err := Open(ctx, url, Options{Wait: wait})
		if err != nil {
			return nil, err
		}
		return NewTeam(st), nil
	}
}

// Team is a team server's store (team.Store, whose package doc is the contract) on a Store: the
// records in its spaces, tasks and comments, the key in team_key, the members in team_members
// with their spaces in members. Nothing read from the database is cached but the key, which
// never changes once made: every other call reads the database, so several servers may share it.
type Team struct {
	st    *Store
	keyMu sync.Mutex
	key   []byte
}

// NewTeam serves st as a team store; closing the Team closes st.
func NewTeam(st *Store) *Team { return &Team{st: st} }

var _ team.Store = (*Team)(nil)

// Close closes the store.
func (t *Team) Close() error {
	t.st.Close()
	return nil
}

// Hold is Store.Hold: a request's member lookup and search on one connection.
func (t *Team) Hold(ctx context.Context) (context.Context, func()) { return t.st.Hold(ctx) }

// Key reads the store's MAC key, making it (32 random bytes) the first time: of two servers
// starting at once, one key is inserted and both read it. The key is read once per process:
// nothing changes it once made (a server keeps it until it stops; a key deleted by hand needs
// every server restarted, and every member added again).
func (t *Team) Key(ctx context.Context) ([]byte, error) {
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	if t.key != nil {
		return t.key, nil
	}
	var key []byte
	err := t.st.retry(ctx, func() error {
		return t.st.withConn(ctx, "read the team key", func(ctx context.Context, c *pgxpool.Conn) error {
			err := c.QueryRow(ctx, `SELECT key FROM team_key`).Scan(&key)
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			var b [32]byte
			if _, err := rand.Read(b[:]); err != nil {
				return fmt.Errorf("generate the team key: %w", err)
			}
			if _, err := c.Exec(ctx, `INSERT INTO team_key(key) VALUES ($1) ON CONFLICT DO NOTHING`, b[:]); err != nil {
				return err
			}
			return c.QueryRow(ctx, `SELECT key FROM team_key`).Scan(&key)
		})
	})
	if err != nil {
		return nil, err
	}
	if len(key) < 32 {
		return nil, errs.Invalidf("the team key in the database is damaged: delete the team_key row, restart every server and add every member again (their tokens no longer check)")
	}
	t.key = key
	return key, nil
}

// AddMember inserts a member, its token's id and MAC and its spaces in one transaction.
func (t *Team) AddMember(ctx context.Context, user string, spaceIDs []string, tokenID string, mac []byte) error {
	if strings.TrimSpace(user) == "" || strings.IndexByte(user, 0) >= 0 {
		return errs.Invalidf("a member's user name is required (and holds no NUL character)")
	}
	tx, err := t.st.begin(ctx, true, "add member")
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	tag, err := tx.Exec(ctx, `INSERT INTO team_members("user", token_id, token_mac, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT ("user") DO NOTHING`,
		user, tokenID, mac, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return t.st.dbErr(ctx, err, "add member")
	}
	if tag.RowsAffected() == 0 {
		return errs.Invalidf("user %q is already a member; remove it first to give it a new token", user)
	}
	if spaceIDs == nil {
		spaceIDs = []string{}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO members(space, "user") SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING`, spaceIDs, user); err != nil {
		return t.st.dbErr(ctx, err, "add member")
	}
	return t.st.dbErr(ctx, tx.Commit(ctx), "add member")
}

// Member finds a token's member by its public id.
func (t *Team) Member(ctx context.Context, tokenID string) (team.Member, []byte, error) {
	var m team.Member
	var mac []byte
	err := t.st.retry(ctx, func() error {
		return t.st.withConn(ctx, "look up token", func(ctx context.Context, c *pgxpool.Conn) error {
			return c.QueryRow(ctx, `SELECT "user", token_mac, created_at,
				COALESCE((SELECT array_agg(space ORDER BY space) FROM members s WHERE s."user" = m."user"), '{}')
				FROM team_members m WHERE token_id = $1`, tokenID).Scan(&m.User, &mac, &m.Created, &m.Spaces)
		})
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return team.Member{}, nil, errs.NotFoundf("no such token")
	}
	if err != nil {
		return team.Member{}, nil, err
	}
	return m, mac, nil
}

// Members lists the members by user, each with its spaces in order.
func (t *Team) Members(ctx context.Context) ([]team.Member, error) {
	out := []team.Member{}
	err := t.st.withConn(ctx, "list members", func(ctx context.Context, c *pgxpool.Conn) error {
		rows, err := c.Query(ctx, `SELECT "user", created_at,
			COALESCE((SELECT array_agg(space ORDER BY space) FROM members s WHERE s."user" = m."user"), '{}')
			FROM team_members m ORDER BY "user"`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m team.Member
			if err := rows.Scan(&m.User, &m.Created, &m.Spaces); err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RemoveMember deletes a member with its token and spaces in one transaction.
func (t *Team) RemoveMember(ctx context.Context, user string) (bool, error) {
	tx, err := t.st.begin(ctx, true, "remove member")
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	tag, err := tx.Exec(ctx, `DELETE FROM team_members WHERE "user" = $1`, user)
	if err != nil {
		return false, t.st.dbErr(ctx, err, "remove member")
	}
	for _, q := range []string{`DELETE FROM members WHERE "user" = $1`, `DELETE FROM tokens WHERE "user" = $1`} {
		if _, err := tx.Exec(ctx, q, user); err != nil {
			return false, t.st.dbErr(ctx, err, "remove member")
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return false, t.st.dbErr(ctx, err, "remove member")
	}
	return tag.RowsAffected() > 0, nil
}

// Search is SearchSpace.
func (t *Team) Search(ctx context.Context, space, exclude string, in spaces.SearchInput) (spaces.Answer, error) {
	return t.st.SearchSpace(ctx, spaces.ID(space), spaces.ID(exclude), in)
}

// AddComment is AddCommentIn.
func (t *Team) AddComment(ctx context.Context, space string, c spaces.Comment) (spaces.AddedComment, error) {
	return t.st.AddCommentIn(ctx, spaces.ID(space), c)
}

// Import is ImportBatch.
func (t *Team) Import(ctx context.Context, space string, b spaces.Batch) (spaces.BatchReport, error) {
	return t.st.ImportBatch(ctx, spaces.ID(space), b)
}

// SearchSpace is spaces.Store.SearchSpace: SearchWorkspaceTasks in one space the caller was
// allowed into (a team server checks its member's spaces), every statement bounded by space and
// the task exclude ("" for none) left out; it answers as Search does for a task of that space.
func (s *Store) SearchSpace(ctx context.Context, space, exclude spaces.ID, in spaces.SearchInput) (a spaces.Answer, err error) {
	if err := in.Validate(); err != nil {
		return spaces.Answer{}, err
	}
	if err := spaces.CheckID("space", space); err != nil {
		return spaces.Answer{}, errs.Invalidf("%v", err)
	}
	defer func() {
		if err = errs.IfStopped(ctx, err, "space search"); err != nil {
			a = spaces.Answer{}
		}
	}()
	err = s.retry(ctx, func() (err error) {
		a, err = s.inBudget(ctx, func(ctx context.Context, tx pgx.Tx) (spaces.Answer, error) {
			return s.read(ctx, tx, scope{space: space, task: exclude}, in)
		})
		return err
	})
	return a, err
}

// ImportBatch is spaces.Store.ImportBatch: a batch written into space in one transaction, all or
// nothing. Every task goes to space (a task naming another space is FORBIDDEN); a task or comment
// id that already belongs to another space is FORBIDDEN; a comment's task (and a task's parent)
// must be in the batch or already in space (NOT_FOUND otherwise). Upserts by id, so sending the
// same batch again changes nothing. The space row is made when missing, with no owner.
func (s *Store) ImportBatch(ctx context.Context, space spaces.ID, b spaces.Batch) (rep spaces.BatchReport, err error) {
	defer func() { err = errs.IfStopped(ctx, err, "import") }()
	recs, err := spaces.PrepareBatch(s.redactor, space, b)
	if err != nil {
		return spaces.BatchReport{}, err
	}
	// a batch is upserts by id: writing it again after a restart or a broken connection (even
	// one that broke after the commit) leaves every record once
	err = s.retry(ctx, func() (err error) {
		rep, err = s.importBatch(ctx, space, recs)
		return err
	})
	return rep, err
}

// importBatch is one try of ImportBatch: its checks and writes in one transaction.
func (s *Store) importBatch(ctx context.Context, space spaces.ID, recs []spaces.PreparedRecord) (rep spaces.BatchReport, err error) {
	tx, err := s.begin(ctx, true, "begin import")
	if err != nil {
		return spaces.BatchReport{}, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var taskIDs, commentIDs, refs []string
	inBatch := map[spaces.ID]bool{}
	for _, r := range recs {
		switch r.Type {
		case "task":
			taskIDs = append(taskIDs, string(r.Task.ID))
			inBatch[r.Task.ID] = true
			if r.Task.Parent != "" {
				refs = append(refs, string(r.Task.Parent))
			}
		case "comment":
			commentIDs = append(commentIDs, string(r.Comment.ID))
			refs = append(refs, string(r.Comment.Task))
		}
	}
	spaceOf := func(table string, ids []string) (map[string]string, error) {
		out := map[string]string{}
		if len(ids) == 0 {
			return out, nil
		}
		rows, err := tx.Query(ctx, `SELECT id, space FROM `+table+` WHERE id = ANY($1::text[])`, ids)
		if err != nil {
			return nil, s.dbErr(ctx, err, "look up "+table)
		}
		defer rows.Close()
		for rows.Next() {
			var id, sp string
			if err := rows.Scan(&id, &sp); err != nil {
				return nil, s.dbErr(ctx, err, "look up "+table)
			}
			out[id] = sp
		}
		return out, s.dbErr(ctx, rows.Err(), "look up "+table)
	}
	tasks, err := spaceOf("tasks", append(append([]string(nil), taskIDs...), refs...))
	if err != nil {
		return spaces.BatchReport{}, err
	}
	comments, err := spaceOf("comments", commentIDs)
	if err != nil {
		return spaces.BatchReport{}, err
	}
	for _, r := range recs {
		if r.Type != "task" {
			continue
		}
		if sp, ok := tasks[string(r.Task.ID)]; ok && sp != string(space) {
			return spaces.BatchReport{}, errs.New(errs.Forbidden, "task:%s belongs to another space", r.Task.ID)
		}
	}
	for _, r := range recs {
		if r.Type == "task" && r.Task.Parent != "" && !inBatch[r.Task.Parent] && tasks[string(r.Task.Parent)] != string(space) {
			return spaces.BatchReport{}, errs.NotFoundf("task:%s's parent task:%s is not in space %s", r.Task.ID, r.Task.Parent, space)
		}
	}
	for _, r := range recs {
		if r.Type != "comment" {
			continue
		}
		c := r.Comment
		if !inBatch[c.Task] && tasks[string(c.Task)] != string(space) {
			return spaces.BatchReport{}, errs.NotFoundf("comment:%s: its task:%s is neither in this batch nor in space %s", c.ID, c.Task, space)
		}
		if sp, ok := comments[string(c.ID)]; ok {
			if sp != string(space) {
				return spaces.BatchReport{}, errs.New(errs.Forbidden, "comment:%s belongs to another space", c.ID)
			}
			rep.Existing++
		}
	}
	// the space row is made once, with no owner, and never changed by a push
	if _, err := tx.Exec(ctx, `INSERT INTO spaces(id, name, owner) VALUES ($1, $1, '') ON CONFLICT (id) DO NOTHING`, noNUL(string(space))); err != nil {
		return spaces.BatchReport{}, s.dbErr(ctx, err, "create space")
	}
	var ir spaces.ImportReport
	if err := s.writeRecords(ctx, tx, recs, &ir); err != nil {
		return spaces.BatchReport{}, s.dbErr(ctx, err, "import")
	}
	if err := tx.Commit(ctx); err != nil {
		return spaces.BatchReport{}, s.dbErr(ctx, err, "commit import")
	}
	rep.Tasks, rep.Comments = ir.Tasks, ir.Comments
	return rep, nil
}
