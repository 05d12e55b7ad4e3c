//go:build unix

package board

import (
	"io/fs"
	"syscall"
)

// fileIdentity returns the device and inode of a file.
func fileIdentity(fi fs.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
