package spaces

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/cairn-dev/cairn/core/workspace"
)

// Readers keeps spaces.db open between searches of a long-lived process (`cairn mcp`), so a call
// does not open the database, read its schema and check its version again. It stays fresh: a
// commit by another process is seen by the next read transaction (WAL readers look at the
// write-ahead log each time one begins), and spaces.db replaced, removed or rewritten in place
// (another identity, size or modification time) is opened anew. The zero value is ready to use;
// it is safe for concurrent use.
type Readers struct {
	// Conns is how many searches the kept store runs at once, each on a connection of its own
	// (WAL readers never wait for each other or for the writer); 0 is one, so searches take
	// turns. A connection is opened when a search first needs it and kept, with its page cache
	// and prepared statements, for the next. Set it before the first Open.
	Conns int
	mu    sync.Mutex
	cur   *reader
}

// reader is one open store and the identity of the file it was opened from.
type reader struct {
	st    *Store
	path  string
	fi    os.FileInfo
	users int
	stale bool // replaced: closed when its last user is done
}

// sameVersion reports whether a and b are the same file with the same size and modification
// time (identity by device and inode where the platform has them).
func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// SearchWorkspaceTasks is the package's SearchWorkspaceTasks through the open store.
func (r *Readers) SearchWorkspaceTasks(ctx context.Context, ws *workspace.Workspace, caller Caller, in SearchInput) (Answer, error) {
	return SearchThrough(ctx, ws, caller, in, func(ctx context.Context) (*Store, func(), error) { return r.Open(ctx, ws) })
}

// Close closes the open store; a search still running keeps it until it is done.
func (r *Readers) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retire()
}

// retire drops the current reader, closing it now when nobody uses it. r.mu is held.
func (r *Readers) retire() {
	if old := r.cur; old != nil {
		r.cur = nil
		old.stale = true
		if old.users == 0 {
			old.st.Close()
		}
	}
}

// Open hands out the kept store when spaces.db is still the file it was opened from, and
// otherwise opens it (as OpenRead, with the same errors) and keeps it for the next call;
// release ends this use (the store stays open for the next). The kept store costs one stat call:
// the workspace's paths are checked (CheckStore: a dozen lstat calls, about a tenth of a warm
// rare-term search) when spaces.db is opened, and a file put in its place, a link to one outside
// included, is another file, which is opened, and checked, anew.
func (r *Readers) Open(ctx context.Context, ws *workspace.Workspace) (*Store, func(), error) {
	p := Path(ws)
	fi, err := os.Stat(p)
	if err == nil {
		if st, release := r.kept(p, fi); st != nil {
			return st, release, nil
		}
	}
	if err := ws.CheckStore(FileName); err != nil {
		return nil, nil, err
	}
	if err != nil {
		r.Close() // removed: nothing to keep
		return nil, nil, fmt.Errorf("open %s: %w", p, err)
	}
	r.mu.Lock()
	if cur := r.cur; cur != nil && cur.path == p && sameVersion(cur.fi, fi) {
		cur.users++ // another call opened it meanwhile
		r.mu.Unlock()
		return cur.st, r.releaser(cur), nil
	}
	r.retire()
	r.mu.Unlock()
	// fi was taken before opening: if the file changes in between, the next call sees a
	// version that differs and opens it again.
	st, err := OpenRead(ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	if r.Conns > 1 {
		st.db.SetMaxOpenConns(r.Conns)
		st.db.SetMaxIdleConns(r.Conns)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		return st, func() { st.Close() }, nil // another call cached one meanwhile: use this once
	}
	cur := &reader{st: st, path: p, fi: fi, users: 1}
	r.cur = cur
	return st, r.releaser(cur), nil
}

// kept hands out the kept store when it was opened from the file at p whose stat is fi, nil
// otherwise.
func (r *Readers) kept(p string, fi os.FileInfo) (*Store, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.cur; cur != nil && cur.path == p && sameVersion(cur.fi, fi) {
		cur.users++
		return cur.st, r.releaser(cur)
	}
	return nil, nil
}

// releaser ends one use of rd, closing it when it was retired meanwhile and this was the last use.
func (r *Readers) releaser(rd *reader) func() {
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		rd.users--
		if rd.stale && rd.users == 0 {
			rd.st.Close()
		}
	}
}
