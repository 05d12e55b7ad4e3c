package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// maxConfigFile bounds a runtime's file setup reads (~/.claude.json keeps the user's history and
// grows to some MiB; nothing setup edits comes near this).
const maxConfigFile = 64 << 20

// readExisting reads a file setup edits by workspace's rule: absent is (nil, false); a regular
// file (or a symlink to one) is read through the cap; a FIFO, a device, a socket, a directory or
// a dangling symlink is refused before any open can block, and setup changes no file.
func readExisting(path string) (data []byte, existed bool, mode fs.FileMode, err error) {
	if _, err := workspace.WriteTarget(path, ""); err != nil {
		return nil, false, 0, err // it says nothing was written
	}
	data, err = workspace.ReadRegular(context.Background(), path, maxConfigFile, "")
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, 0, nil
	default:
		return nil, false, 0, errs.Wrap(errs.Invalid, err, "cairn setup changed no file")
	}
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return data, true, mode, nil
}

// staged is one change written to a temp file beside its target, waiting for its rename.
type staged struct {
	c      *Change
	target string // the path renamed onto (a symlink's target)
	tmp    string
}

// Apply writes the changed files all or none: first every target is checked and staged (its
// folder made, a backup of each file it replaces, PATH.cairn-backup-YYYYMMDDTHHMMSSZ, same mode,
// and the new content in a temp file beside it, fsynced), and only when every one is staged are
// they renamed into place. A target that cannot be written (a folder not writable, a read-only
// or full file system, a special file) fails before any file changed; a rename that fails after
// others (which a staged temp file in the same folder makes all but impossible) puts the renamed
// files back from their backups. A symlinked settings file is written through the link.
func Apply(changes []*Change, now time.Time) error {
	stamp := now.UTC().Format("20060102T150405Z")
	var st []staged
	var made []string // folders made, removed again when staging fails
	var backups []string
	undo := func() {
		for _, s := range st {
			os.Remove(s.tmp)
		}
		for _, b := range backups {
			os.Remove(b)
		}
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
	}
	for _, c := range changes {
		if c.Status == "unchanged" {
			continue
		}
		target, err := workspace.WriteTarget(c.Path, "")
		if err != nil {
			undo()
			return errs.Wrap(errs.Invalid, err, "cairn setup changed no file")
		}
		if !c.existed {
			dirs, err := missingDirs(filepath.Dir(target))
			if err != nil {
				undo()
				return err
			}
			if err := workspace.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				undo()
				return errs.Wrap(errs.Invalid, workspace.FSError(err, "create the folder of %s", c.Path), "cairn setup changed no file")
			}
			made = append(made, dirs...)
		} else if !c.noBackup { // a .gitignore only gains lines: no backup of it
			c.Backup = c.Path + ".cairn-backup-" + stamp
			if err := os.WriteFile(c.Backup, c.before, c.mode); err != nil {
				undo()
				return errs.Wrap(errs.Invalid, workspace.FSError(err, "back up %s", c.Path), "cairn setup changed no file")
			}
			backups = append(backups, c.Backup)
		}
		tmp, err := workspace.StageFile(target, c.after, c.mode)
		if err != nil {
			undo()
			return errs.Wrap(errs.Invalid, err, "cairn setup changed no file")
		}
		st = append(st, staged{c, target, tmp})
	}
	for i, s := range st {
		if err := workspace.CommitStaged(s.tmp, s.target); err != nil {
			for _, done := range st[:i] {
				if done.c.existed {
					workspace.WriteFileAtomic(done.target, done.c.before, done.c.mode)
				} else {
					os.Remove(done.target)
				}
			}
			for _, rest := range st[i:] {
				os.Remove(rest.tmp)
			}
			return fmt.Errorf("write %s (the files written before it were put back): %w", s.c.Path, err)
		}
	}
	return nil
}

// missingDirs lists the folders from the first missing one down to dir, outermost first.
func missingDirs(dir string) ([]string, error) {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		out = append([]string{d}, out...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out, nil
}
