//go:build linux

package memory

import (
	"encoding/binary"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// The three calls below go straight to the kernel without telling the Go scheduler (RawSyscall):
// reading thousands of small files from the page cache returns in microseconds, and announcing
// each call made the runtime hand processors back and forth (thousands of futex and nanosleep
// calls per search, measured with strace -c). A read that does wait on a disk only holds its
// worker's processor a little longer.

// rawOpenat opens name in dirfd; path is the caller's buffer for the NUL-terminated name, reused
// from file to file (syscall.BytePtrFromString allocates one per call).
func rawOpenat(dirfd int, name string, flags int, path *[]byte) (int, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return -1, syscall.EINVAL
	}
	p := append(append((*path)[:0], name...), 0)
	*path = p
	r, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&p[0])), uintptr(flags), 0, 0, 0)
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
//
// regular says the directory listing gave the file as a regular file: then the fstat that tells
// the types apart is left out (a file replaced since the listing by a FIFO reads as empty or
// not at all, O_NONBLOCK; by a directory, EISDIR), and a file over the limit is found by reading.
func readAt(dirfd int, name string, buf []byte, path *[]byte, regular bool) ([]byte, readStatus) {
	var fd int
	var err error
	for {
		fd, err = rawOpenat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, path)
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
	// One fstat, unless the listing said regular: a FIFO, device or socket is skipped
	// (O_NONBLOCK kept the open from waiting on it), and a file already over the limit is not
	// read at all.
	if !regular {
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

// listDir lists the names in the directory d with whether each is a regular file, from the
// types getdents64 gives (os.File.ReadDir on a directory opened through os.Root costs an lstat
// per entry, Readdirnames drops the types).
func listDir(d *os.File) ([]dirName, error) {
	fd := int(d.Fd())
	buf := make([]byte, 64<<10)
	var out []dirName
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: d_ino, d_off (8 bytes each), d_reclen (2), d_type (1), d_name
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, syscall.EIO
			}
			name := b[19:reclen]
			if i := strings.IndexByte(string(name), 0); i >= 0 {
				name = name[:i]
			}
			if string(name) != "." && string(name) != ".." {
				out = append(out, dirName{name: string(name), regular: b[18] == syscall.DT_REG})
			}
			b = b[reclen:]
		}
	}
}
