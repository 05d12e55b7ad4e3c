package pgstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn/core/errs"
)

// gramBucketShift groups comment times into buckets of 2^50 ns (about 13 days) for the
// short-term index: a one- or two-character term is looked up bucket by bucket, newest first.
const gramBucketShift = 50

// migrations bring a database from schema version i to i+1, each in its own transaction with
// the version recorded in schema_version. Text that answers show is kept as bytea (its bytes as
// core/spaces prepared them: PostgreSQL's text cannot hold U+0000); ids, idkeys and the index
// text are COLLATE "C", so they compare byte by byte as SQLite compares them.
var migrations = []string{
	// 1: the records, the trigram index for terms of three or more characters, and the
	// short-term index for terms of one or two.
	`CREATE EXTENSION IF NOT EXISTS pg_trgm;
	CREATE TABLE spaces (
		id     text COLLATE "C" PRIMARY KEY,
		name   text NOT NULL DEFAULT '',
		owner  text COLLATE "C" NOT NULL DEFAULT '',
		source text NOT NULL DEFAULT ''
	);
	CREATE TABLE members (
		space  text COLLATE "C" NOT NULL,
		"user" text COLLATE "C" NOT NULL,
		PRIMARY KEY (space, "user")
	);
	CREATE INDEX members_user ON members("user");
	CREATE TABLE tasks (
		id         text COLLATE "C" PRIMARY KEY,
		space      text COLLATE "C" NOT NULL,
		title      text NOT NULL DEFAULT '',
		status     text NOT NULL DEFAULT '',
		parent     text COLLATE "C",
		created_at text NOT NULL DEFAULT '',
		dtitle     bytea
	);
	CREATE INDEX tasks_space ON tasks(space);
	CREATE TABLE comments (
		rid           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id            text COLLATE "C" NOT NULL UNIQUE,
		idkey         text COLLATE "C" NOT NULL,
		task          text COLLATE "C" NOT NULL,
		space         text COLLATE "C" NOT NULL DEFAULT '',
		kind          text NOT NULL,
		progress_type text NOT NULL DEFAULT '',
		tool_name     text NOT NULL DEFAULT '',
		author        bytea NOT NULL DEFAULT '',
		created_at    text NOT NULL,
		at_ns         bigint NOT NULL,
		body          bytea NOT NULL DEFAULT '',
		attachments   text NOT NULL DEFAULT '[]',
		itext         text COLLATE "C",
		dtext         bytea
	);
	CREATE INDEX comments_space_at ON comments(space, at_ns, idkey);
	CREATE INDEX comments_task_at ON comments(task, at_ns, idkey);
	CREATE INDEX comments_idkey ON comments(idkey);
	CREATE INDEX comments_trgm ON comments USING gin (itext gin_trgm_ops);
	-- The short-term index: every distinct character and pair of neighbouring characters of the
	-- index text (pairs with a space left out: no query term holds one), each prefixed with the
	-- comment's time bucket in hex, as the expression of a GIN index. A search asks for the
	-- term's token in the newest buckets first and tests LIKE on each row it gets, so the index
	-- only chooses which rows are tested, never what matches. An expression, not a column: the
	-- index is kept by PostgreSQL in the statement that writes the comment, and stores nothing
	-- but its posting lists. COST makes the planner read the index rather than compute it.
	CREATE FUNCTION cairn_grams(itext text, at_ns bigint) RETURNS text[]
		LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000 AS $$
		SELECT coalesce(array_agg(DISTINCT to_hex(at_ns >> 50) || ':' || v.g), '{}')
		FROM (SELECT u.c, u.c || coalesce(lead(u.c) OVER (ORDER BY u.o), ' ') AS p
			FROM unnest(string_to_array(itext, NULL)) WITH ORDINALITY AS u(c, o)) s,
			LATERAL (VALUES (s.c), (s.p)) AS v(g)
		WHERE strpos(v.g, ' ') = 0
	$$;
	CREATE INDEX comments_grams ON comments USING gin (cairn_grams(itext, at_ns));
	-- member tokens of a team server: only a hash of each token is kept
	CREATE TABLE tokens (
		hash       bytea PRIMARY KEY,
		"user"     text COLLATE "C" NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX tokens_user ON tokens("user");`,
	// 2: what a team server (core/team) keeps: its MAC key, made once, and its members, each
	// with its token's public id and MAC (never the token); a member's spaces are its rows in
	// members.
	`CREATE TABLE team_key (
		one boolean PRIMARY KEY DEFAULT true CHECK (one),
		key bytea NOT NULL
	);
	CREATE TABLE team_members (
		"user"     text COLLATE "C" PRIMARY KEY,
		token_id   text COLLATE "C" NOT NULL UNIQUE,
		token_mac  bytea NOT NULL,
		created_at text NOT NULL
	);`,
	// 3: the short-term index's tokens in a column, computed by the writer (gramBuffer.tokens, the
	// same tokens as cairn_grams) rather than by PostgreSQL for each row it writes: cairn_grams in SQL
	// cost about 0.15 ms a comment, most of an import's time. Rows written before are filled by
	// cairn_grams once, here; the function stays, the reference the writer's tokens are tested
	// against.
	`ALTER TABLE comments ADD COLUMN grams text[] COLLATE "C";
	UPDATE comments SET grams = cairn_grams(itext, at_ns) WHERE itext IS NOT NULL;
	DROP INDEX comments_grams;
	CREATE INDEX comments_grams ON comments USING gin (grams);`,
	// 4: the version of the rules the stored texts were redacted with (redactAgain): a store
	// an earlier build wrote is redacted again by the first build with newer rules to open it.
	`CREATE TABLE redaction (
		one     boolean PRIMARY KEY DEFAULT true CHECK (one),
		version integer NOT NULL
	);
	INSERT INTO redaction(version) VALUES (0);`,
}

// SchemaVersion is the schema version this build writes and reads.
func SchemaVersion() int { return len(migrations) }

// migrationLockKey is the advisory lock a migration holds, so processes starting together
// migrate one at a time (the others find the work done).
const migrationLockKey = 0x63726e74

// migrate applies the missing migrations in order.
func (s *Store) migrate(ctx context.Context) error {
	for {
		done, err := s.migrateOne(ctx)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next missing migration and reports whether none was missing.
func (s *Store) migrateOne(ctx context.Context) (done bool, err error) {
	actx, cancel := context.WithTimeout(ctx, s.wait)
	tx, err := s.pool.Begin(actx)
	cancel()
	if err != nil {
		return false, s.dbErr(ctx, err, "migrate")
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLockKey)); err != nil {
		return false, s.dbErr(ctx, err, "migrate")
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)`); err != nil {
		return false, s.dbErr(ctx, err, "create schema_version")
	}
	var v int
	err = tx.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		var tables int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ('spaces', 'tasks', 'comments')`).Scan(&tables); err != nil {
			return false, s.dbErr(ctx, err, "read schema version")
		}
		if tables > 0 {
			return false, errs.Invalidf("this database has tables named like cairn's but no cairn schema version; give cairn a database of its own")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_version(version) VALUES (0)`); err != nil {
			return false, s.dbErr(ctx, err, "write schema version")
		}
	} else if err != nil {
		return false, s.dbErr(ctx, err, "read schema version")
	}
	switch {
	case v > len(migrations):
		return false, errs.Invalidf("the database has cairn schema version %d, newer than this cairn understands (%d); upgrade cairn", v, len(migrations))
	case v == len(migrations):
		return true, s.dbErr(ctx, tx.Commit(ctx), "migrate")
	}
	if _, err := tx.Exec(ctx, migrations[v]); err != nil {
		return false, s.dbErr(ctx, err, "migrate to schema version "+strconv.Itoa(v+1))
	}
	if _, err := tx.Exec(ctx, `UPDATE schema_version SET version = $1`, v+1); err != nil {
		return false, s.dbErr(ctx, err, "write schema version")
	}
	return false, s.dbErr(ctx, tx.Commit(ctx), "migrate")
}
