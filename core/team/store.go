package team

import (
	"context"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Store is what a team server keeps: its members with their tokens and spaces, and the records
// of the team spaces. The package doc is its contract.
type Store interface {
	// Key is the secret the store's token MACs are keyed with, made once on first use and the
	// same for every server over the store.
	Key(ctx context.Context) ([]byte, error)
	// AddMember records a new member with the spaces it may read and write and its token's
	// public id and MAC; a user that is already a member is INVALID_INPUT.
	AddMember(ctx context.Context, user string, spaceIDs []string, tokenID string, mac []byte) error
	// Member is the member whose token has this public id, with the stored MAC; NOT_FOUND when
	// there is none (never issued, or revoked).
	Member(ctx context.Context, tokenID string) (m Member, mac []byte, err error)
	// Members lists every member, by user.
	Members(ctx context.Context) ([]Member, error)
	// RemoveMember deletes a member, its token and its spaces; removed is false when there was
	// no such member.
	RemoveMember(ctx context.Context, user string) (removed bool, err error)

	// Search is SearchWorkspaceTasks in space, leaving out the task exclude ("" for none).
	Search(ctx context.Context, space, exclude string, in spaces.SearchInput) (spaces.Answer, error)
	// AddComment upserts one comment of a task of space.
	AddComment(ctx context.Context, space string, c spaces.Comment) (spaces.AddedComment, error)
	// Import writes a batch of tasks and comments into space, all or nothing.
	Import(ctx context.Context, space string, b spaces.Batch) (spaces.BatchReport, error)

	// Close releases the store.
	Close() error
}

// Member is a member as the server knows it: the user and the spaces it may reach.
type Member struct {
	User   string   `json:"user"`
	Spaces []string `json:"spaces"`
	// Created is when the member was added (RFC 3339).
	Created string `json:"created_at,omitempty"`
}

// In reports whether the member may reach space.
func (m Member) In(space string) bool {
	for _, s := range m.Spaces {
		if s == space {
			return true
		}
	}
	return false
}

// StoreSQLite is the name of the embedded store.
const StoreSQLite = "sqlite"

// OpenStore opens the team store a `cairn serve --store` value (or `[serve] store`) names:
// "" or "sqlite" is the workspace's own SQLite store; postgres:// and postgresql:// URLs need
// a build with the PostgreSQL store (Postgres, set by that package when it is linked in).
func OpenStore(ctx context.Context, ws *workspace.Workspace, url string) (Store, error) {
	switch {
	case url == "" || url == StoreSQLite:
		return OpenSQLite(ctx, ws)
	case strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://"):
		if Postgres == nil {
			return nil, errs.Invalidf("store %s: the postgres store is not built in this build; use store sqlite (the default)", RedactURL(url))
		}
		return Postgres(ctx, url, ws.Wait)
	}
	return nil, errs.Invalidf("store %q is not sqlite or a postgres:// URL", RedactURL(url))
}

// Postgres opens a PostgreSQL store from its URL; nil in a build without one. The PostgreSQL
// package sets it in its init. wait (the workspace's --wait; 0 for the default) bounds how long
// each call waits for the database, a connection or the write lock, and how long it keeps trying
// a database that is restarting, before it fails with STORAGE_BUSY.
var Postgres func(ctx context.Context, url string, wait time.Duration) (Store, error)

// RedactURL hides the password of a store URL, for messages and logs.
func RedactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return u
	}
	cred := rest[:at]
	if user, _, hasPW := strings.Cut(cred, ":"); hasPW {
		return scheme + "://" + user + ":xxxxx@" + rest[at+1:]
	}
	return u
}
