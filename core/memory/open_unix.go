//go:build unix

package memory

import "syscall"

// oNonblock opens a FIFO without waiting for a writer, so the fstat that follows can refuse it.
const oNonblock = syscall.O_NONBLOCK
