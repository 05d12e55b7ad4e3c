package board

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two directories atomically (renameat2 RENAME_EXCHANGE); a file system without
// it falls back to renames.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return swapByRenames(a, b)
	}
	return err
}
