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
// temp file in the same directory, fsync, rename, fsync of the directory. A path that is not a
// regular file (a FIFO, a device node such as /dev/null, a socket, a directory, a dangling
// symlink) is refused before anything is written and left as it is (CheckWritable).
func WriteFileAtomic(p string, data []byte, perm os.FileMode) error {
	tmp, err := StageFile(p, data, perm)
	if err != nil {
		return err
	}
	return CommitStaged(tmp, p)
}

// StageFile is the first half of WriteFileAtomic: it checks p (CheckWritable) and writes data
// to a temp file beside it, fsynced, whose name it returns for CommitStaged; nothing at p has
// changed yet. A caller that gives up removes the temp file.
func StageFile(p string, data []byte, perm os.FileMode) (string, error) {
	if err := CheckWritable(p, "the file"); err != nil {
		return "", err
	}
	dir := filepath.Dir(p)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return "", FSError(err, "write %s", p)
	}
	name := tmp.Name()
	fail := func(what string, err error) (string, error) {
		tmp.Close()
		os.Remove(name)
		return "", FSError(err, "%s %s", what, p)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail("write", err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail("write", err)
	}
	if err := tmp.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return "", FSError(err, "write %s", p)
	}
	return name, nil
}

// CommitStaged renames a temp file StageFile wrote onto p, checking p once more, and syncs the
// folder; on failure the temp file is removed.
func CommitStaged(tmp, p string) error {
	if err := CheckWritable(p, "the file"); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return FSError(err, "rename into %s", p)
	}
	return syncDir(filepath.Dir(p))
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
