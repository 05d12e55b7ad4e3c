package board

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two directories atomically (renamex_np RENAME_SWAP); a file system without it
// falls back to renames.
func exchange(a, b string) error {
	err := unix.RenamexNp(a, b, unix.RENAME_SWAP)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return swapByRenames(a, b)
	}
	return err
}
