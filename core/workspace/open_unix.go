//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// oNonblock opens a FIFO without waiting for a writer, so the fstat that follows can refuse it.
const oNonblock = syscall.O_NONBLOCK

func checkWritableDir(dir string) error {
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return &os.PathError{Op: "write", Path: dir, Err: err}
	}
	return nil
}
