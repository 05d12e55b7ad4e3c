//go:build linux

package memory

import (
	"syscall"
	"unsafe"
)

// The three calls below go straight to the kernel without telling the Go scheduler (RawSyscall):
// reading thousands of small files from the page cache returns in microseconds, and announcing
// each call made the runtime hand processors back and forth (thousands of futex and nanosleep
// calls per search, measured with strace -c). A read that does wait on a disk only holds its
// worker's processor a little longer.

func rawOpenat(dirfd int, name string, flags int) (int, error) {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	r, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

func rawRead(fd int, buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func rawClose(fd int) { syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0) }

func rawFstat(fd int, st *syscall.Stat_t) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	if e != 0 {
		return e
	}
	return nil
}

// readAt reads the regular file name directly inside the directory dirfd, which was opened
// through the workspace's os.Root. It is what os.Root does for a single path component
// (openat with O_NOFOLLOW), without the *os.File bookkeeping that dominates scanning thousands
// of small files. A symlink (ELOOP) is left to the caller's os.Root path.
func readAt(dirfd int, name string, buf []byte) ([]byte, readStatus) {
	var fd int
	var err error
	for {
		fd, err = rawOpenat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK)
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
		return nil, readUnreadable
	}
	defer rawClose(fd)
	// One fstat: a FIFO, device or socket is skipped (O_NONBLOCK kept the open from waiting on
	// it), and a file already over the limit is not read at all.
	var st syscall.Stat_t
	if rawFstat(fd, &st) != nil {
		return buf, readUnreadable
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		return buf, readMissing
	default:
		return buf, readSpecial
	}
	if st.Size > MaxSearchFileSize {
		return buf, readTooBig
	}
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > MaxSearchFileSize {
				return buf, readTooBig
			}
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, err := rawRead(fd, buf[len(buf):cap(buf)])
		switch err {
		case nil:
		case syscall.EINTR:
			continue
		case syscall.EISDIR, syscall.EAGAIN:
			return buf, readMissing
		default:
			return buf, readUnreadable
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			break
		}
	}
	if len(buf) > MaxSearchFileSize {
		return buf, readTooBig
	}
	return buf, readOK
}
