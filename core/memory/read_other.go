//go:build !linux

package memory

import "os"

// readAt has no fast path here: every file goes through os.Root.
func readAt(dirfd int, name string, buf []byte, path *[]byte, regular bool) ([]byte, readStatus) {
	return buf, readFallback
}

// listDir lists the names in the directory d; the types are not known here.
func listDir(d *os.File) ([]dirName, error) {
	names, err := d.Readdirnames(-1)
	out := make([]dirName, len(names))
	for i, n := range names {
		out[i].name = n
	}
	return out, err
}
