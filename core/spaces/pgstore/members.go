package pgstore

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
)

// Member is a user of a team server: the spaces it is a member of, and whether it has a token.
type Member struct {
	User   string      `json:"user"`
	Spaces []spaces.ID `json:"spaces"`
	Tokens int         `json:"tokens"`
}

// AddMember makes user a member of each space (a space need not exist yet: membership is kept
// as the import format's member records are) and, when tokenHash is not nil, adds that token
// hash for user (the token itself is never given to the store). Adding again changes nothing.
func (s *Store) AddMember(ctx context.Context, user string, tokenHash []byte, spaceIDs ...spaces.ID) error {
	if strings.TrimSpace(user) == "" || strings.IndexByte(user, 0) >= 0 {
		return errs.Invalidf("a member's user name is required (and holds no NUL character)")
	}
	tx, err := s.begin(ctx, true, "add member")
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	ids := make([]string, len(spaceIDs))
	for i, id := range spaceIDs {
		ids[i] = string(id)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO members(space, "user") SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING`, ids, user); err != nil {
		return s.dbErr(ctx, err, "add member")
	}
	if tokenHash != nil {
		if _, err := tx.Exec(ctx, `INSERT INTO tokens(hash, "user") VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`, tokenHash, user); err != nil {
			return s.dbErr(ctx, err, "add token")
		}
	}
	return s.dbErr(ctx, tx.Commit(ctx), "add member")
}

// RemoveMember takes user out of every space and revokes its tokens at once (the next call
// with one finds no user); it reports whether there was anything to remove.
func (s *Store) RemoveMember(ctx context.Context, user string) (bool, error) {
	tx, err := s.begin(ctx, true, "remove member")
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	a, err := tx.Exec(ctx, `DELETE FROM members WHERE "user" = $1`, user)
	if err != nil {
		return false, s.dbErr(ctx, err, "remove member")
	}
	b, err := tx.Exec(ctx, `DELETE FROM tokens WHERE "user" = $1`, user)
	if err != nil {
		return false, s.dbErr(ctx, err, "revoke tokens")
	}
	return a.RowsAffected()+b.RowsAffected() > 0, s.dbErr(ctx, tx.Commit(ctx), "remove member")
}

// Members lists every user with a membership or a token, by name, each's spaces in order.
func (s *Store) Members(ctx context.Context) ([]Member, error) {
	out := []Member{}
	err := s.withConn(ctx, "list members", func(ctx context.Context, c *pgxpool.Conn) error {
		rows, err := c.Query(ctx, `SELECT u, COALESCE((SELECT array_agg(space ORDER BY space) FROM members m WHERE m."user" = u), '{}'),
			(SELECT count(*) FROM tokens k WHERE k."user" = u)
			FROM (SELECT "user" AS u FROM members UNION SELECT "user" FROM tokens) us ORDER BY u`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m Member
			var ids []string
			if err := rows.Scan(&m.User, &ids, &m.Tokens); err != nil {
				return err
			}
			for _, id := range ids {
				m.Spaces = append(m.Spaces, spaces.ID(id))
			}
			if m.Spaces == nil {
				m.Spaces = []spaces.ID{}
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	return out, err
}

// UserOfToken is the user a token hash belongs to, and false when none does (an unknown or
// revoked token). It reads the database on every call: a token revoked by another process is
// refused at once.
func (s *Store) UserOfToken(ctx context.Context, tokenHash []byte) (user string, ok bool, err error) {
	err = s.withConn(ctx, "check token", func(ctx context.Context, c *pgxpool.Conn) error {
		err := c.QueryRow(ctx, `SELECT "user" FROM tokens WHERE hash = $1`, tokenHash).Scan(&user)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return user, ok, err
}
