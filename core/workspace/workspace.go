// Package workspace finds a cairn workspace, reads its manifest and gives safe ways to change files in it.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// ManifestName marks the root of a workspace.
const ManifestName = "cairn.toml"

// DefaultWait is how long a command waits for a lock before answering STORAGE_BUSY.
const DefaultWait = 5 * time.Second

// Workspace is an opened workspace: its root, its manifest and how long to wait for locks.
type Workspace struct {
	Root   string
	Config Config
	Wait   time.Duration
}

// NotFoundMessage is the text shown when no workspace can be found.
const NotFoundMessage = "not inside a cairn workspace (no cairn.toml here or above); run 'cairn init' or pass --workspace"

// ErrNoWorkspace is the cause of Find's INVALID_INPUT when no manifest lies at or above the start,
// so a command that can work without a workspace (a session log named outright) can tell.
var ErrNoWorkspace = errors.New(NotFoundMessage)

// Find locates the workspace root: an explicit dir (flag or env, already merged by the caller) wins,
// else the nearest directory at or above start that holds cairn.toml.
func Find(explicit, start string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", errs.Wrap(errs.Invalid, err, "workspace %s", explicit)
		}
		if _, err := os.Stat(filepath.Join(abs, ManifestName)); err != nil {
			if strings.HasPrefix(explicit, "-") {
				// cairn -C --json task list: the flag took the next word as its directory
				return "", errs.Invalidf("%s needs a directory, got %q, which looks like a flag", errs.Field("workspace", errs.Name), explicit)
			}
			return "", errs.Invalidf("%s is not a cairn workspace (no %s); run 'cairn init %s'", explicit, ManifestName, explicit)
		}
		return abs, nil
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "resolve %s", start)
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, ManifestName)); err == nil && !st.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &errs.Error{Code: errs.Invalid, Err: ErrNoWorkspace}
		}
		dir = parent
	}
}

// Open finds the workspace and reads and validates its manifest.
func Open(explicit, start string) (*Workspace, error) {
	root, err := Find(explicit, start)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(filepath.Join(root, ManifestName))
	if err != nil {
		return nil, err
	}
	return &Workspace{Root: root, Config: cfg, Wait: DefaultWait}, nil
}

// Path joins a workspace-relative slash path onto the root.
func (w *Workspace) Path(rel string) string {
	return filepath.Join(w.Root, filepath.FromSlash(rel))
}

// SessionLog resolves the session log: an explicit file (flag/env) relative to the current
// directory, else the manifest's [session] log relative to the root. Commands that open the log
// use SessionLogPath, which also checks that the manifest's path stays inside the workspace.
func (w *Workspace) SessionLog(explicit string) string {
	if explicit != "" {
		if abs, err := filepath.Abs(explicit); err == nil {
			return abs
		}
		return explicit
	}
	return w.Path(w.Config.Session.Log)
}

// SessionLogPath is SessionLog for opening the log. An explicit log is the caller's choice and is
// used as it is; the manifest's, which comes with the repository, must stay inside the workspace:
// relative, without '..', and without a symlink leading out (CheckStore, which also covers its
// lock file). A repository's manifest never decides where cairn writes outside it.
func (w *Workspace) SessionLogPath(explicit string) (string, error) {
	if explicit == "" {
		log := w.Config.Session.Log
		if !filepath.IsLocal(filepath.FromSlash(log)) {
			return "", errs.Invalidf("%s: session.log = %q leaves the workspace; give a log elsewhere%s", ManifestName, log, errs.Field("session", errs.With))
		}
		if err := w.CheckStore(log, log+".lock"); err != nil {
			return "", err
		}
	}
	return w.SessionLog(explicit), nil
}

// StateDir is .cairn/, home of lock files and derived snapshots; it is created on demand, and a
// symlink that leads it outside the workspace is refused.
func (w *Workspace) StateDir() (string, error) {
	if err := w.CheckStore(".cairn"); err != nil {
		return "", err
	}
	dir := w.Path(".cairn")
	if err := MkdirAll(dir, 0o755); err != nil {
		return "", pathError(err, "create %s", dir)
	}
	return dir, nil
}

// CheckStore refuses a store path (workspace-relative, slash-separated) that a symlink leads
// outside the workspace: each existing component is resolved, and one that lands outside the
// root, or a symlink whose target is missing (creating the file would create it wherever the link
// points), is INVALID_INPUT naming the link. A database path ("x.db") also checks the files SQLite
// keeps beside it (-wal, -shm, -journal). Every store checks its path when it opens, so neither a
// repository nor a stray link can make cairn write outside the workspace.
func (w *Workspace) CheckStore(rels ...string) error {
	var all []string
	for _, rel := range rels {
		all = append(all, rel)
		if strings.HasSuffix(rel, ".db") {
			all = append(all, rel+"-wal", rel+"-shm", rel+"-journal")
		}
	}
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return pathError(err, "resolve workspace %s", w.Root)
	}
	for _, rel := range all {
		if err := checkInside(root, rel); err != nil {
			return err
		}
	}
	return nil
}

// checkInside walks rel from root, following each symlink it meets, and refuses one that leaves root.
func checkInside(root, rel string) error {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return errs.Invalidf("%s is not a path inside the workspace", rel)
	}
	cur := root
	parts := strings.Split(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), "/")
	for i, part := range parts {
		next := filepath.Join(cur, part)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // created later as a plain file or directory, inside
		}
		if err != nil {
			return pathError(err, "check %s", rel)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		shown := strings.Join(parts[:i+1], "/")
		real, err := filepath.EvalSymlinks(next)
		if err != nil {
			target, _ := os.Readlink(next)
			return errs.Invalidf("%s is a symlink to %s, which cannot be resolved; cairn would create it wherever the link points — remove the link or make its target inside the workspace", shown, target)
		}
		if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return errs.Invalidf("%s is a symlink that leads outside the workspace (to %s); cairn keeps its stores inside the workspace — replace the link with a directory or file of its own", shown, real)
		}
		cur = real
	}
	return nil
}

// pathError classifies a file system error: a path that cannot exist (too long, a file in the
// way, missing parent) is the caller's input; anything else goes through FSError.
func pathError(err error, format string, args ...any) error {
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) {
		return errs.Wrap(errs.Invalid, err, format, args...)
	}
	return FSError(err, format, args...)
}

// FSError wraps a file system error with context and, when it is the environment's or the
// caller's to fix rather than cairn's, makes it INVALID_INPUT with what to do: a
// read-only file system, a permission refused, a path too long. Anything else (a full disk, an
// I/O error) stays INTERNAL. The cause, which names the path, is kept in the message.
func FSError(err error, format string, args ...any) error {
	if _, ok := err.(*errs.Error); ok {
		return err // already coded and worded (OpenRegular's refusal names its path)
	}
	msg := fmt.Sprintf(format, args...)
	// the cause names the path again: say it once (a path too long runs to thousands of bytes)
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != "" && strings.Contains(msg, pe.Path) {
		err = &samePath{op: pe.Op, err: err}
	}
	switch {
	case errors.Is(err, syscall.EROFS):
		return errs.Wrap(errs.Invalid, err, "%s (the file system is read-only: remount it read-write, or work in a writable copy of the workspace)", msg)
	case errors.Is(err, fs.ErrPermission):
		return errs.Wrap(errs.Invalid, err, "%s (permission denied: check the owner and mode of the path, or run cairn as a user who may write it)", msg)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return errs.Wrap(errs.Invalid, err, "%s (the path is too long for the file system: use a shorter one)", msg)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// samePath is a *fs.PathError whose path the message around it names already: it reads as its
// operation and cause alone, and unwraps to the whole error.
type samePath struct {
	op  string
	err error
}

func (e *samePath) Error() string {
	var pe *fs.PathError
	errors.As(e.err, &pe)
	return e.op + ": " + pe.Err.Error()
}

func (e *samePath) Unwrap() error { return e.err }

// MkdirAll is os.MkdirAll that leaves nothing behind when it fails: the directories it created
// before the failure (a path too long fails only deep inside) are removed again, so a refused
// path changes nothing.
func MkdirAll(dir string, perm fs.FileMode) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	err := os.MkdirAll(dir, perm)
	if err != nil {
		for _, d := range missing { // deepest first
			os.Remove(d) // only an empty directory goes; one that did not exist before is empty
		}
	}
	return err
}

// InitDirs are the directories `cairn init` creates, relative to the root.
var initDirs = []string{"sessions", "memory", "memory/decisions", "memory/requests", "knowledge", "board", ".cairn"}

// Init creates a workspace in dir without overwriting anything and returns what it created.
func Init(dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "resolve %s", dir)
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return nil, errs.Invalidf("%s exists and is not a directory", dir)
	}
	var created []string
	if err := MkdirAll(abs, 0o755); err != nil {
		return nil, pathError(err, "create %s", dir)
	}
	manifest := filepath.Join(abs, ManifestName)
	f, err := os.OpenFile(manifest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	switch {
	case err == nil:
		if _, err := f.WriteString(DefaultManifest); err != nil {
			f.Close()
			return nil, fmt.Errorf("write %s: %w", manifest, err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("write %s: %w", manifest, err)
		}
		created = append(created, ManifestName)
	case errors.Is(err, fs.ErrExist):
		if _, err := LoadConfig(manifest); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("create %s: %w", manifest, err)
	}
	for _, d := range initDirs {
		p := filepath.Join(abs, filepath.FromSlash(d))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := MkdirAll(p, 0o755); err != nil {
			return created, fmt.Errorf("create %s: %w", p, err)
		}
		created = append(created, d+"/")
	}
	return created, nil
}

// FileType names a file that is not a regular one, for a message that says why it is not read.
func FileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}
