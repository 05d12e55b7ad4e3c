//go:build linux

package memory

import "syscall"

// readAt reads the regular file name directly inside the directory dirfd, which was opened
// through the workspace's os.Root. It is what os.Root does for a single path component
// (openat with O_NOFOLLOW), without the *os.File bookkeeping that dominates scanning thousands
// of small files. A symlink (ELOOP) is left to the caller's os.Root path.
func readAt(dirfd int, name string, buf []byte) ([]byte, readStatus) {
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	switch err {
	case nil:
	case syscall.ENOENT:
		return nil, readMissing
	case syscall.ELOOP:
		return nil, readFallback
	default:
		return nil, readSkip
	}
	defer syscall.Close(fd)
	// No fstat: a read shorter than the buffer is the end of a regular file, and a directory
	// answers EISDIR. Devices and FIFOs have no business here; O_NONBLOCK keeps them harmless.
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > MaxSearchFileSize {
				return buf, readSkip
			}
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch err {
		case nil:
		case syscall.EINTR:
			continue
		case syscall.EISDIR, syscall.EAGAIN:
			return buf, readMissing
		default:
			return buf, readSkip
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			break
		}
	}
	if len(buf) > MaxSearchFileSize {
		return buf, readSkip
	}
	return buf, readOK
}
