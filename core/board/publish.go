package board

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// An import never changes board/ file by file. It writes the whole new board (board.db,
// summaries.json, memory.json) into stagingName, a directory beside board/ on the same file
// system, syncs it, and then exchanges the two directories in one rename (renameat2 with
// RENAME_EXCHANGE on Linux, renamex_np with RENAME_SWAP on macOS): before that rename every path
// under board/ is the old board, after it the new one. The old board, now in stagingName, is
// removed under the same lock, or by the next import when this one was killed first. Readers take
// the shared board lock and read board/ by path, so they see one board or the other, never a mix.
// The workspace layout is unchanged: board/board.db, board/summaries.json, board/memory.json.
const (
	boardDir    = "board"
	stagingName = ".board-import"
)

// boardFile reports whether name is a file an import writes (or SQLite or an atomic write makes
// beside one); other entries of board/ are not the board's and an import keeps them.
func boardFile(name string) bool {
	for _, f := range []string{DBPath, SummariesPath, MemoryPath} {
		base := filepath.Base(f)
		if name == base || strings.HasPrefix(name, "."+base+".tmp-") {
			return true
		}
	}
	switch name {
	case "board.db-journal", "board.db-wal", "board.db-shm":
		return true
	}
	return false
}

// checkBoardDir refuses an import over a board path that leads outside the workspace
// (CheckStore), a board/ that is not a directory or a board file that is not a regular file (a
// directory named memory.json, say): the import would replace it, so it is left to the user, and
// nothing is changed.
// lockForWrite takes the board's write lock for an import and checks that board/ can take the
// new files; the caller releases the lock with unlock.
func lockForWrite(ctx context.Context, ws *workspace.Workspace) (unlock func(), err error) {
	lock, err := ws.LockNamed(ctx, lockName, true)
	if err != nil {
		return nil, err
	}
	held := false
	defer func() {
		if !held { // a failed check, or a stop at the step (the fault tests end an import there)
			lock.Unlock()
		}
	}()
	step("locked")
	if err := checkBoardDir(ws); err != nil {
		return nil, err
	}
	held = true
	return func() { lock.Unlock() }, nil
}

func checkBoardDir(ws *workspace.Workspace) error {
	if err := ws.CheckStore(DBPath, SummariesPath, MemoryPath); err != nil {
		return err
	}
	fi, err := os.Stat(ws.Path(boardDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", boardDir, err)
	}
	if !fi.IsDir() {
		return errs.Invalidf("%s is not a directory; move it away and import again (nothing was changed)", boardDir)
	}
	for _, rel := range []string{DBPath, SummariesPath, MemoryPath} {
		fi, err := os.Stat(ws.Path(rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("stat %s: %w", rel, err)
		}
		if !fi.Mode().IsRegular() {
			what := "not a regular file"
			if fi.IsDir() {
				what = "a directory"
			}
			return errs.Invalidf("%s is %s, not a board file; move it away and import again (nothing was changed)", rel, what)
		}
	}
	return nil
}

// discardStaging removes what an earlier import left beside board/: its unpublished new board
// (killed before the exchange) or the old board it replaced (killed after). Entries that are not
// board files came from the user's board/ and are moved back into it.
func discardStaging(ws *workspace.Workspace) error {
	for _, dir := range []string{ws.Path(stagingName), ws.Path(stagingName) + ".old"} {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		for _, e := range entries {
			if boardFile(e.Name()) {
				continue
			}
			dst := filepath.Join(ws.Path(boardDir), e.Name())
			if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
				os.MkdirAll(ws.Path(boardDir), 0o755)
				os.Rename(filepath.Join(dir, e.Name()), dst)
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove what an earlier import left in %s: %w", stagingName, err)
		}
	}
	return nil
}

// publish makes the staged board the board: one rename when there is no board/ yet, else one
// exchange of the two directories.
func publish(ws *workspace.Workspace) error {
	staging, dst := ws.Path(stagingName), ws.Path(boardDir)
	if err := syncDir(staging); err != nil {
		return err
	}
	step("staging-synced")
	var err error
	if fi, statErr := os.Stat(dst); errors.Is(statErr, fs.ErrNotExist) {
		err = os.Rename(staging, dst)
	} else {
		if statErr == nil {
			os.Chmod(staging, fi.Mode().Perm()) // board/ keeps its permissions
		}
		err = exchange(staging, dst)
	}
	if err != nil {
		return fmt.Errorf("publish the new board (%s to %s): %w", stagingName, boardDir, err)
	}
	step("published")
	// The new board is published: a failure to make the rename durable is not reported as a
	// failed import (the next import, or any, sees the new board; a power loss may bring back
	// the old one, whole).
	_ = syncDir(ws.Root)
	step("root-synced")
	return nil
}

// swapByRenames exchanges two directories with three renames where the file system or platform
// cannot do it in one. It is not atomic: a process killed between the first two renames leaves no
// board/ (the old one is in stagingName+".old"), until the next import.
func swapByRenames(staging, dst string) error {
	old := staging + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(dst, old); err != nil {
		return err
	}
	if err := os.Rename(staging, dst); err != nil {
		os.Rename(old, dst)
		return err
	}
	return os.Rename(old, staging)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
