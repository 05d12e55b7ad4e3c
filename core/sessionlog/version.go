package sessionlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cairn-dev/cairn/core/workspace"
)

// tailBytes is how much of a log's end a Version keeps: cairn's own lines end in a random call
// id and a timestamp, so a file rewritten to the same size (and given the same modification time)
// still ends differently.
const tailBytes = 64

// Version is what a log file was at one moment, so a long-lived process can tell whether anyone
// wrote to it since: the file's identity, size and modification time, and its last bytes. The
// zero Version is a log that does not exist.
type Version struct {
	fi   os.FileInfo
	tail string
}

// Exists reports whether the log existed.
func (v Version) Exists() bool { return v.fi != nil }

// Size is the log's length in bytes (0 when it did not exist).
func (v Version) Size() int64 {
	if v.fi == nil {
		return 0
	}
	return v.fi.Size()
}

// Same reports whether v and w are one existing file with the same size, modification time
// and last bytes: nobody appended to it, truncated it or put another file in its place between.
func (v Version) Same(w Version) bool {
	return v.fi != nil && w.fi != nil && os.SameFile(v.fi, w.fi) && v.fi.Size() == w.fi.Size() &&
		v.fi.ModTime().Equal(w.fi.ModTime()) && v.tail == w.tail
}

// versionOf is the Version of the open file f.
func versionOf(f *os.File) (Version, error) {
	fi, err := f.Stat()
	if err != nil {
		return Version{}, err
	}
	n := min(fi.Size(), tailBytes)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, fi.Size()-n); err != nil && !errors.Is(err, io.EOF) {
		return Version{}, err
	}
	return Version{fi: fi, tail: string(tail)}, nil
}

// Stat is the log's Version now, without the lock (a missing log is the zero Version): a hint
// for what to check before the lock is taken; only a Version read under the lock is the truth.
func (l Log) Stat() (Version, error) {
	f, err := workspace.OpenRegular(l.Path, "session log")
	if errors.Is(err, os.ErrNotExist) {
		return Version{}, nil
	}
	if err != nil {
		return Version{}, workspace.FSError(err, "open session log %s", l.Path)
	}
	defer f.Close()
	v, err := versionOf(f)
	if err != nil {
		return Version{}, fmt.Errorf("stat session log %s: %w", l.Path, err)
	}
	return v, nil
}

// StatOpened is Stat of the log already open as f (the open that detected its format), so a
// call that checks its log before the lock opens it once.
func (l Log) StatOpened(f *os.File) (Version, error) {
	v, err := versionOf(f)
	if err != nil {
		return Version{}, fmt.Errorf("stat session log %s: %w", l.Path, err)
	}
	return v, nil
}

// UpdateVersioned is Update (ctx bounds the wait for the lock) for a caller that keeps what it
// read between calls: fn is also given the log's Version as the exclusive lock found it, and
// the Version the log has once fn's entries are appended (still under the lock) is returned. A
// caller that saw Version v and gets v again from a later call knows nobody else wrote in
// between. On an error the returned Version is the zero one.
func (l Log) UpdateVersioned(ctx context.Context, fn func(v Version, r io.Reader) ([]any, error)) (Version, error) {
	return l.update(ctx, true, fn)
}

// update is Update and UpdateVersioned: with version, fn is given the log's Version as the lock
// found it and the Version after the append is returned (read from the file the append opened).
func (l Log) update(ctx context.Context, version bool, fn func(v Version, r io.Reader) ([]any, error)) (Version, error) {
	lock, err := workspace.LockFile(ctx, l.LockPath(), true, l.Wait)
	if err != nil {
		return Version{}, err
	}
	defer lock.Unlock()
	var before Version
	var entries []any
	err = l.readUnlocked(func(r io.Reader) error {
		if version {
			if er, ok := r.(*errReader); ok {
				if f, ok := er.r.(*os.File); ok {
					v, err := versionOf(f)
					if err != nil {
						return fmt.Errorf("stat session log %s: %w", l.Path, err)
					}
					before = v
				}
			}
		}
		var err error
		entries, err = fn(before, r)
		return err
	})
	if err != nil {
		return Version{}, err
	}
	if len(entries) == 0 {
		return before, nil
	}
	payload, err := encodeLines(entries)
	if err != nil {
		return Version{}, err
	}
	return appendLines(l.Path, payload, version)
}
