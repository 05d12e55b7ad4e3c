package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/core/errs"
)

// The one rule for a path cairn reads or writes (docs/formats.md, "Files cairn reads and
// writes"):
//
//   - a file is read only when it is a regular file (or a symlink to one): it is opened with
//     O_NONBLOCK, so the open of a FIFO never waits for a writer, then fstat refuses anything
//     else (a FIFO, a device, a socket, a directory) before a byte is read;
//   - it is read through a size cap enforced while reading (limit+1 bytes at most), never judged
//     after, and the read ends with ctx;
//   - standard input, which may be a pipe or a device, is read through the same cap and ends
//     with ctx even while a read is blocked;
//   - a file is replaced only when it is absent or a regular file (or a symlink to one, whose
//     target is replaced): never a FIFO, a device, a socket or a dangling symlink
//     (CheckWritable).
//
// OpenRegular, ReadRegular, ReadCapped and CheckWritable are that rule; every command, hook and
// setup goes through them.

// OpenRegular opens path for reading when it is a regular file; anything else is INVALID_INPUT
// naming what it is, and no open of it can block. what names the file in messages ("session
// log", "--description-file"); a missing file is the open's own error (fs.ErrNotExist).
func OpenRegular(path, what string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, NotRegular(path, what, st.Mode())
	}
	return f, nil
}

// NotRegular is the refusal of a path that is not a regular file.
func NotRegular(path, what string, m fs.FileMode) error {
	return errs.Invalidf("%s is %s, not a regular file: not read (give a regular file)", named(what, path), FileType(m))
}

// ReadRegular reads the regular file at path, at most limit bytes: a file over the limit is
// refused by its size before it is read and, should it grow while read, when the read passes
// the limit. unit names the limit in messages ("8 MiB").
func ReadRegular(ctx context.Context, path string, limit int64, what string) ([]byte, error) {
	f, err := OpenRegular(path, what)
	if err != nil {
		return nil, FSErrorInput(err, "read %s", named(what, path))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, errs.Invalidf("%s is %d bytes, over the %d-byte (%s) limit; nothing was read and nothing was written", named(what, path), st.Size(), limit, SizeText(limit))
	}
	return readCapped(ctx, f, limit, named(what, path))
}

// ReadSmall is ReadRegular for a small file cairn keeps or finds beside one (a mark, a
// transcript's meta file), which no cancel needs to end.
func ReadSmall(path string, limit int64, what string) ([]byte, error) {
	return ReadRegular(context.Background(), path, limit, what)
}

// readCapped reads a regular file through the cap; its reads never block, so ctx is checked
// between them.
func readCapped(ctx context.Context, r io.Reader, limit int64, src string) ([]byte, error) {
	data, err := io.ReadAll(ContextReader(ctx, io.LimitReader(r, limit+1)))
	if err := errs.Stopped(ctx, "read "+src); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, FSErrorInput(err, "read %s", src)
	}
	if int64(len(data)) > limit {
		return nil, errs.Invalidf("%s grew past %d bytes (%s), the limit, while it was read; nothing was written", src, limit, SizeText(limit))
	}
	return data, nil
}

// ReadCapped reads r to its end, at most limit bytes (more is INVALID_INPUT when the read passes
// limit, never after holding more), and ends with ctx (CANCELLED) even while a read is blocked on
// a pipe or a terminal: the read then goes on in the background until the process exits. src
// names what is read in messages ("standard input").
func ReadCapped(ctx context.Context, r io.Reader, limit int64, src string) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(ContextReader(ctx, io.LimitReader(r, limit+1)))
		done <- result{data, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		return nil, errs.Stopped(ctx, "read "+src)
	}
	if err := errs.Stopped(ctx, "read "+src); err != nil {
		return nil, err
	}
	if res.err != nil {
		return nil, FSErrorInput(res.err, "read %s", src)
	}
	if int64(len(res.data)) > limit {
		return nil, errs.Invalidf("%s holds more than %d bytes (%s), the limit; it was not read further and nothing was written", src, limit, SizeText(limit))
	}
	return res.data, nil
}

// FSErrorInput is FSError for a file the caller named: a failure to open or read it (missing,
// not permitted, a directory) is INVALID_INPUT.
func FSErrorInput(err error, format string, args ...any) error {
	e := FSError(err, format, args...)
	if errs.CodeOf(e) == errs.Internal {
		return errs.Wrap(errs.Invalid, err, format, args...)
	}
	return e
}

// SizeText writes a byte count as the limit it is ("8 MiB", "1 GiB", "1000 bytes").
func SizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckWritable says whether path may be replaced by an atomic rename: absent, a regular file,
// or a symlink to a regular file (then the target is what is written; Target resolves it). A
// FIFO, a device node, a socket, a directory or a dangling symlink is INVALID_INPUT and stays as
// it is. what names the file in messages ("--output").
func CheckWritable(path, what string) error {
	_, err := WriteTarget(path, what)
	return err
}

// WriteTarget is the path an atomic write of path renames onto: path itself when it is absent
// or a regular file, the symlink's final target when path is a symlink to a regular file (so a
// symlinked settings file stays a symlink); anything else is refused as CheckWritable says.
func WriteTarget(path, what string) (string, error) {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", FSErrorInput(err, "%s", named(what, path))
	}
	if lst.Mode()&fs.ModeSymlink == 0 {
		if !lst.Mode().IsRegular() {
			return "", errs.Invalidf("%s is %s, not a regular file: it was left as it is and nothing was written (give the path of a regular file, or one that does not exist)", named(what, path), FileType(lst.Mode()))
		}
		return path, nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errs.Invalidf("%s is a symlink to nothing (dangling): it was left as it is and nothing was written (remove the link or point it at a regular file)", named(what, path))
	}
	if err != nil {
		return "", FSErrorInput(err, "%s", named(what, path))
	}
	if !st.Mode().IsRegular() {
		return "", errs.Invalidf("%s is a symlink to %s, not a regular file: it was left as it is and nothing was written", named(what, path), FileType(st.Mode()))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", FSErrorInput(err, "%s", named(what, path))
	}
	return real, nil
}

// named is a path as a message names it: after what it is ("--output FILE"), or alone.
func named(what, path string) string {
	if what == "" {
		return path
	}
	return what + " " + path
}

// CheckWritableDir is why dir cannot be written (a read-only file system, permission denied),
// as the system's error, nil when it can: for a failure whose cause a library did not keep
// (SQLite's "unable to open database file").
func CheckWritableDir(dir string) error {
	return checkWritableDir(dir)
}

// TextOnly reads r and fails (INVALID_INPUT) at the first NUL byte, which no text document
// cairn imports holds (JSON, JSON Lines, Markdown): standard input that is /dev/zero or
// /dev/urandom is refused within its first bytes instead of being read to the size cap.
func TextOnly(r io.Reader, src string) io.Reader {
	return &textOnly{r: r, src: src}
}

type textOnly struct {
	r   io.Reader
	src string
	off int64
}

func (t *textOnly) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		return i, errs.Invalidf("%s holds a NUL byte at byte %d: it is not a text document (a device such as /dev/zero, or a binary file); nothing was imported", t.src, t.off+int64(i)+1)
	}
	t.off += int64(n)
	return n, err
}
