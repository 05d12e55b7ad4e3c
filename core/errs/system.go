package errs

import (
	"errors"
	"syscall"
)

// A storage failure that is the user's to fix (a full disk, a read-only file system) is
// INVALID_INPUT wherever it surfaces, with a message that says what to do: CodeOf and Message
// read it here, in one place, whether it came through a file write (ENOSPC, EDQUOT, EROFS) or
// through SQLite (SQLITE_FULL, SQLITE_READONLY), and whether or not a core wrapper coded it.

// Hints the messages end with; a message that already says so is not told twice.
const (
	fullHint     = "the file system is full: free some space on it, or move the workspace to a disk with room, and run the command again; nothing half-written was kept"
	readOnlyHint = "the file system is read-only: remount it read-write, or work in a writable copy of the workspace"
)

// sqliteCoder is modernc.org/sqlite's *Error (errs imports no driver).
type sqliteCoder interface{ Code() int }

// systemHint is the hint for a storage failure err holds, "" when it holds none.
func systemHint(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fullHint
	case errors.Is(err, syscall.EROFS):
		return readOnlyHint
	}
	var sc sqliteCoder
	if errors.As(err, &sc) {
		switch sc.Code() & 0xff {
		case 13: // SQLITE_FULL
			return fullHint
		case 8: // SQLITE_READONLY
			if errors.Is(err, syscall.EROFS) {
				return readOnlyHint
			}
		}
	}
	return ""
}
