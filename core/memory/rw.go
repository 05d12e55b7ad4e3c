package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// ReadInput addresses one entry: kind and slug (the summary needs no slug).
type ReadInput struct {
	Kind string `json:"kind" jsonschema:"summary, decision, request or knowledge"`
	Slug string `json:"slug,omitempty" jsonschema:"the file name without .md, as search returns it; not needed for summary"`
}

// ReadResult is the output of MemoryRead; SHA256 lets a later write or edit detect that the
// entry changed in between.
type ReadResult struct {
	Kind    Kind   `json:"kind"`
	Slug    string `json:"slug"`
	Path    string `json:"path"`
	Content string `json:"content"`
	SHA256  string `json:"sha256"`
}

// WriteInput replaces a whole entry. ExpectSHA256, when set, must be the sha256 of the entry as
// it is now, or nothing is written.
type WriteInput struct {
	Kind         string `json:"kind" jsonschema:"summary, decision, request or knowledge"`
	Slug         string `json:"slug,omitempty" jsonschema:"file name without .md: one path segment, no / or leading dot; not needed for summary"`
	Content      string `json:"content" jsonschema:"the whole new content of the entry (Markdown, frontmatter included)"`
	ExpectSHA256 string `json:"expect_sha256,omitempty" jsonschema:"sha256 from MemoryRead; refuse if the entry changed since"`
}

// WriteResult is the output of MemoryWrite.
type WriteResult struct {
	Kind    Kind   `json:"kind"`
	Slug    string `json:"slug"`
	Path    string `json:"path"`
	Bytes   int    `json:"bytes"`
	Created bool   `json:"created"`
}

// EditInput replaces Old by New in an entry: Old must occur exactly once unless All is set.
type EditInput struct {
	Kind         string `json:"kind" jsonschema:"summary, decision, request or knowledge"`
	Slug         string `json:"slug,omitempty" jsonschema:"file name without .md; not needed for summary"`
	Old          string `json:"old" jsonschema:"exact text to replace; must occur exactly once unless all is true"`
	New          string `json:"new" jsonschema:"replacement text"`
	All          bool   `json:"all,omitempty" jsonschema:"replace every occurrence"`
	ExpectSHA256 string `json:"expect_sha256,omitempty" jsonschema:"sha256 from MemoryRead; refuse if the entry changed since"`
}

// EditResult is the output of MemoryEdit.
type EditResult struct {
	Kind         Kind   `json:"kind"`
	Slug         string `json:"slug"`
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
}

// SHA256 is the hex digest read reports and --expect-sha256 compares against.
func SHA256(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// OpenRoot opens the workspace as an os.Root, through which every memory file access goes.
func OpenRoot(ws *workspace.Workspace) (*os.Root, error) {
	root, err := os.OpenRoot(ws.Root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", ws.Root, err)
	}
	return root, nil
}

// MemoryRead returns an entry's content and its sha256; a missing entry is NOT_FOUND with up to
// three similar slugs of the same kind. ctx ending stops the read (CANCELLED).
func MemoryRead(ctx context.Context, ws *workspace.Workspace, in ReadInput) (*ReadResult, error) {
	k, slug, rel, err := Address(in.Kind, in.Slug)
	if err != nil {
		return nil, err
	}
	if err := errs.Stopped(ctx, "memory read"); err != nil {
		return nil, err
	}
	root, err := OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, exists, err := readEntry(ctx, root, ws.Root, rel)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, notFound(root, k, slug, rel)
	}
	return &ReadResult{Kind: k, Slug: slug, Path: rel, Content: string(data), SHA256: SHA256(data)}, nil
}

// MemoryWrite creates or replaces an entry atomically, creating its directory, under the
// workspace memory lock.
// ctx ending while it waits for the lock is CANCELLED.
func MemoryWrite(ctx context.Context, ws *workspace.Workspace, in WriteInput) (*WriteResult, error) {
	k, slug, rel, err := Address(in.Kind, in.Slug)
	if err != nil {
		return nil, err
	}
	if len(in.Content) > MaxFileSize {
		return nil, tooBig("the content for "+rel+" is", int64(len(in.Content)))
	}
	var res *WriteResult
	err = lockedEntry(ctx, ws, rel, in.ExpectSHA256, func(root *os.Root, _ []byte, exists bool) error {
		if err := root.MkdirAll(path.Dir(rel), 0o755); err != nil {
			return errs.Wrap(errs.Invalid, err, "create %s", path.Dir(rel))
		}
		if err := workspace.WriteFileAtomicRoot(root, rel, []byte(in.Content), filePerm(root, rel)); err != nil {
			return err
		}
		res = &WriteResult{Kind: k, Slug: slug, Path: rel, Bytes: len(in.Content), Created: !exists}
		return nil
	})
	return res, err
}

// MemoryEdit replaces exact text in an entry atomically under the workspace memory lock, so
// concurrent editors never lose an update; bytes it does not replace are left as they are.
// ctx ending while it waits for the lock is CANCELLED.
func MemoryEdit(ctx context.Context, ws *workspace.Workspace, in EditInput) (*EditResult, error) {
	k, slug, rel, err := Address(in.Kind, in.Slug)
	if err != nil {
		return nil, err
	}
	if in.Old == "" {
		return nil, errs.Invalidf("old text is empty; give the exact text to replace")
	}
	if len(in.Old) > MaxFileSize || len(in.New) > MaxFileSize {
		return nil, tooBig("the old or new text for "+rel+" is", int64(max(len(in.Old), len(in.New))))
	}
	var res *EditResult
	err = lockedEntry(ctx, ws, rel, in.ExpectSHA256, func(root *os.Root, cur []byte, exists bool) error {
		if !exists {
			return notFound(root, k, slug, rel)
		}
		text := string(cur)
		n := strings.Count(text, in.Old)
		if grown := int64(len(text)) + int64(n)*(int64(len(in.New))-int64(len(in.Old))); n > 0 && grown > MaxFileSize && (n == 1 || in.All) {
			return tooBig("after the edit "+rel+" would be", grown)
		}
		switch {
		case n == 0:
			return errs.Invalidf("old text occurs 0 times in %s; nothing changed (it must match exactly, whitespace and line ends included)", rel)
		case n > 1 && !in.All:
			return errs.Invalidf("old text occurs %d times in %s; nothing changed (give more surrounding text to make it unique, or %s to replace every one)", n, rel, errs.Field("all", errs.Switch))
		}
		if updated := strings.ReplaceAll(text, in.Old, in.New); updated != text {
			if err := workspace.WriteFileAtomicRoot(root, rel, []byte(updated), filePerm(root, rel)); err != nil {
				return err
			}
		}
		res = &EditResult{Kind: k, Slug: slug, Path: rel, Replacements: n}
		return nil
	})
	return res, err
}

// lockedEntry is the read-check-write frame write and edit share: the workspace root, the memory
// lock, no symlink in the entry's place, the current content, and the --expect-sha256 check,
// before fn changes anything.
func lockedEntry(ctx context.Context, ws *workspace.Workspace, rel, expectHex string, fn func(root *os.Root, cur []byte, exists bool) error) error {
	expect, err := parseExpect(expectHex)
	if err != nil {
		return err
	}
	root, err := OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	lock, err := ws.LockNamed(ctx, "memory", true)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := refuseSymlink(root, rel); err != nil {
		return err
	}
	cur, exists, err := readEntry(ctx, root, ws.Root, rel)
	if err != nil {
		return err
	}
	if err := checkExpect(rel, expect, cur, exists); err != nil {
		return err
	}
	return fn(root, cur, exists)
}

// readEntry reads rel through root; exists is false when there is no such file. A symlink that
// leaves the workspace, or a directory in the file's place, is INVALID_INPUT; ctx ending while it
// reads is CANCELLED.
func readEntry(ctx context.Context, root *os.Root, wsRoot, rel string) ([]byte, bool, error) {
	st, err := root.Lstat(rel)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil
		}
		if dir := escapingParent(root, rel, wsRoot); dir != "" {
			return nil, false, errs.Invalidf("%s cannot be used: %s is a symlink that leads outside the workspace; cairn keeps memory and knowledge inside it — replace the link with a folder", rel, dir)
		}
		return nil, false, errs.Wrap(errs.Invalid, err, "%s cannot be used", rel)
	}
	if st.Mode()&fs.ModeSymlink != 0 && symlinkEscapes(root, rel, wsRoot) {
		return nil, false, errs.Invalidf("%s is a symlink that leads outside the workspace (or into a directory no tool reads); refusing to follow it", rel)
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below refuses it.
	f, err := root.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil // a dangling symlink
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, false, errs.Wrap(errs.Invalid, err, "%s is a symlink that cannot be followed inside the workspace", rel)
		}
		return nil, false, errs.Wrap(errs.Invalid, err, "read %s", rel)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, false, errs.Wrap(errs.Invalid, err, "read %s", rel)
	}
	if fst.IsDir() {
		return nil, false, errs.Invalidf("%s is a directory, not an entry file", rel)
	}
	if !fst.Mode().IsRegular() {
		return nil, false, errs.Invalidf("%s is not a regular file (%s); entries are regular files — remove it or replace it with one", rel, workspace.FileType(fst.Mode()))
	}
	if fst.Size() > MaxFileSize {
		return nil, false, tooBig(rel+" is", fst.Size())
	}
	// At most the limit and one byte more: the file may grow while it is read.
	data, err := io.ReadAll(workspace.ContextReader(ctx, io.LimitReader(f, MaxFileSize+1)))
	if err != nil {
		if stopped := errs.Stopped(ctx, "read "+rel); stopped != nil {
			return nil, false, stopped
		}
		return nil, false, errs.Wrap(errs.Invalid, err, "read %s", rel)
	}
	if len(data) > MaxFileSize {
		return nil, false, tooBig(rel+" grew while it was read, to more than", MaxFileSize)
	}
	return data, true, nil
}

// escapingParent is the first folder on rel's path that is a symlink leading outside the
// workspace, or "" when there is none.
func escapingParent(root *os.Root, rel, wsRoot string) string {
	parts := strings.Split(path.Dir(rel), "/")
	for i := range parts {
		dir := path.Join(parts[:i+1]...)
		st, err := root.Lstat(dir)
		if err != nil {
			return ""
		}
		if st.Mode()&fs.ModeSymlink != 0 && symlinkEscapes(root, dir, wsRoot) {
			return dir
		}
	}
	return ""
}

// tooBig is the INVALID_INPUT for an entry over MaxFileSize, read or about to be written; what
// says whose size it is ("memory/summary.md is", "the new content of memory/summary.md would be").
func tooBig(what string, size int64) error {
	return errs.Invalidf("%s %d bytes, over the %d-byte (8 MiB) limit for a memory or knowledge entry; nothing was read or written — split it into smaller entries", what, size, MaxFileSize)
}

// refuseSymlink keeps writes from replacing a symlink with a file (or writing through it).
func refuseSymlink(root *os.Root, rel string) error {
	st, err := root.Lstat(rel)
	if err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return errs.Invalidf("%s is a symlink; memory writes and edits only change regular files (edit its target instead)", rel)
	}
	if err == nil && st.IsDir() {
		return errs.Invalidf("%s is a directory, not an entry file", rel)
	}
	return nil
}

// filePerm keeps an existing file's permission bits; new files get 0644.
func filePerm(root *os.Root, rel string) os.FileMode {
	if st, err := root.Lstat(rel); err == nil && st.Mode().IsRegular() {
		return st.Mode().Perm()
	}
	return 0o644
}

// parseExpect validates an --expect-sha256 value; empty means no check.
func parseExpect(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "" {
		return "", errs.Invalidf("expect-sha256 %q is not a sha256 (64 hex digits, as 'cairn memory read' prints it)", s)
	}
	return s, nil
}

// checkExpect refuses a write when the entry changed since the caller read it.
func checkExpect(rel, expect string, cur []byte, exists bool) error {
	if expect == "" {
		return nil
	}
	if !exists {
		return errs.Invalidf("%s was deleted since you read it (expected sha256 %s); nothing written — read it again", rel, expect)
	}
	if got := SHA256(cur); got != expect {
		return errs.Invalidf("%s changed since you read it (sha256 is now %s, expected %s); nothing written — read it again and redo the change", rel, got, expect)
	}
	return nil
}
