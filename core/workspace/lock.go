package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/cairn-dev/cairn/core/errs"
)

// Lock is a held advisory file lock; Unlock releases it.
type Lock struct{ fl *flock.Flock }

// Unlock releases the lock; calling it twice is harmless.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}

// LockFile takes an flock on path (created if missing), exclusive or shared, waiting at most wait
// and no longer than ctx lives. Timing out is STORAGE_BUSY so callers can tell contention from
// failure; ctx ending first is CANCELLED. A shared lock on a read-only file system, where no lock
// file can be created, is not needed: nobody can write there.
func LockFile(ctx context.Context, path string, exclusive bool, wait time.Duration) (*Lock, error) {
	if err := errs.Stopped(ctx, "waiting for "+path); err != nil {
		return nil, err
	}
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		if !exclusive && readOnly(err) {
			return &Lock{}, nil
		}
		return nil, FSError(err, "create %s", filepath.Dir(path))
	}
	fl := flock.New(path)
	if !exclusive {
		fl = flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY))
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644); err != nil {
			if readOnly(err) {
				return &Lock{}, nil
			}
		} else {
			f.Close()
		}
	}
	if wait <= 0 {
		wait = DefaultWait
	}
	// one try before the clock starts: a lock that is free is taken even when this goroutine was
	// kept from running until after a short wait had passed (the retry loop checks the deadline
	// before its first try)
	var ok bool
	var err error
	if exclusive {
		ok, err = fl.TryLock()
	} else {
		ok, err = fl.TryRLock()
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if !ok && err == nil {
		if exclusive {
			ok, err = fl.TryLockContext(wctx, 10*time.Millisecond)
		} else {
			ok, err = fl.TryRLockContext(wctx, 10*time.Millisecond)
		}
	}
	if !ok {
		if err := errs.Stopped(ctx, "waiting for "+path); err != nil {
			return nil, err
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, FSError(err, "lock %s", path)
	}
	if !ok {
		return nil, errs.New(errs.Busy, "%s is locked by another process (waited %s; %s)", path, wait, errs.Field("wait", errs.Retry))
	}
	return &Lock{fl: fl}, nil
}

// readOnly reports errors that mean the file system (or the directory) cannot be written.
func readOnly(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// LockNamed takes a workspace-wide lock .cairn/<name>.lock; neither .cairn nor the lock file may
// be a symlink leading outside the workspace (opening the lock creates it).
func (w *Workspace) LockNamed(ctx context.Context, name string, exclusive bool) (*Lock, error) {
	if err := w.CheckStore(".cairn/" + name + ".lock"); err != nil {
		return nil, err
	}
	dir, err := w.StateDir()
	if err != nil {
		return nil, err
	}
	return LockFile(ctx, filepath.Join(dir, name+".lock"), exclusive, w.Wait)
}
