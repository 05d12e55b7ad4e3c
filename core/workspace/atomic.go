package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// WriteFileAtomic replaces path with data so a reader sees the old or the new file, never a torn one:
// temp file in the same directory, fsync, rename, fsync of the directory.
func WriteFileAtomic(p string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(p)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return FSError(err, "write %s", p)
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", p, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := os.Rename(name, p); err != nil {
		return fmt.Errorf("rename into %s: %w", p, err)
	}
	return syncDir(dir)
}

// WriteFileAtomicRoot is WriteFileAtomic for a slash path inside root, so the write cannot
// escape the root through "..", an absolute path or a symlink. Callers hold the lock that
// serialises every writer in rel's folder: temp files it finds there (".NAME.tmp-" and 12 hex
// digits, the names it creates, for any NAME) were left by a writer that was killed or failed,
// and are removed first, so a killed first write of an entry never written again leaves nothing.
func WriteFileAtomicRoot(root *os.Root, rel string, data []byte, perm os.FileMode) error {
	dir := path.Dir(rel)
	removeStaleTemps(root, dir)
	var suffix [tempSuffixBytes]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	tmpRel := path.Join(dir, "."+path.Base(rel)+".tmp-"+hex.EncodeToString(suffix[:]))
	tmp, err := root.OpenFile(tmpRel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return FSError(err, "write %s", rel)
	}
	defer root.Remove(tmpRel) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", rel, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := root.Rename(tmpRel, rel); err != nil {
		return fmt.Errorf("rename into %s: %w", rel, err)
	}
	if d, err := root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// tempSuffixBytes random bytes, in hex, end the name of WriteFileAtomicRoot's temp file.
const tempSuffixBytes = 6

// removeStaleTemps removes the regular files in dir named like WriteFileAtomicRoot's temp files
// (".NAME.tmp-" and 12 lower-case hex digits); anything else (a user's ".NAME.tmp-notes", a
// directory, a link) is left alone. Failing to clean is not failing to write.
func removeStaleTemps(root *os.Root, dir string) {
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		i := strings.LastIndex(name, ".tmp-")
		if i < 2 || name[0] != '.' {
			continue
		}
		suffix := name[i+len(".tmp-"):]
		if len(suffix) != 2*tempSuffixBytes || strings.Trim(suffix, "0123456789abcdef") != "" {
			continue
		}
		p := path.Join(dir, name)
		if st, err := root.Lstat(p); err == nil && st.Mode().IsRegular() {
			root.Remove(p)
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil // the rename happened; a directory we cannot open cannot be synced either
	}
	defer d.Close()
	d.Sync()
	return nil
}

// SQLiteURI makes a file path safe inside a "file:" URI, where ?, # and % would otherwise be
// read as the query, the fragment or an escape.
func SQLiteURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(filepath.ToSlash(path))
}
