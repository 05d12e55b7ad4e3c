package workspace

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// GitignoreName is the file init and setup extend.
const GitignoreName = ".gitignore"

// Ignore is a line cairn adds to a .gitignore, and why it is kept out of git.
type Ignore struct {
	Pattern string `json:"pattern"`
	Why     string `json:"why"`
}

// WorkspaceIgnores are what init keeps out of git, relative to the workspace root: one machine's
// stores (rebuilt by an import), its locks and snapshots, and each agent session's task list.
// cairn.toml, memory/ and knowledge/ are the team's and stay in.
var WorkspaceIgnores = []Ignore{
	{"/spaces.db", "the imported conversations (redacted, still your team's words); space import rebuilds it"},
	{"/spaces.db-*", "SQLite's -wal and -shm beside spaces.db"},
	{"/board/", "the imported board (board.db, its JSON files); board import rebuilds it, board export saves it"},
	{"/.cairn/", "lock files and derived snapshots, made again on demand"},
	{"/sessions/", "each agent session's task list and its lock: one person's work in progress"},
}

// GitignoreHeader is the comment above the lines cairn adds.
const GitignoreHeader = "# cairn: this machine's stores, locks and session task lists (what and why: the help of cairn init)"

// maxGitignore bounds the .gitignore cairn reads.
const maxGitignore = 1 << 20

// IgnorePatterns are the patterns of ignores.
func IgnorePatterns(ignores []Ignore) []string {
	out := make([]string, len(ignores))
	for i, ig := range ignores {
		out[i] = ig.Pattern
	}
	return out
}

// GitignoreEdit is a .gitignore's content with every pattern it lacks appended under header; every
// line already there stays byte for byte. A pattern counts as there when a line says it, with or
// without its leading slash. It returns the patterns added (none: after is before).
func GitignoreEdit(before []byte, header string, patterns []string) (after []byte, added []string) {
	have := map[string]bool{}
	for _, line := range strings.Split(string(before), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		have[line] = true
		have[strings.TrimPrefix(line, "/")] = true
	}
	for _, p := range patterns {
		if !have[p] && !have[strings.TrimPrefix(p, "/")] {
			added = append(added, p)
			have[p] = true
		}
	}
	if len(added) == 0 {
		return before, nil
	}
	var b bytes.Buffer
	b.Write(before)
	if len(before) > 0 {
		if !bytes.HasSuffix(before, []byte("\n")) {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if !bytes.Contains(before, []byte(header+"\n")) {
		b.WriteString(header + "\n")
	}
	for _, p := range added {
		b.WriteString(p + "\n")
	}
	return b.Bytes(), added
}

// ReadGitignore reads dir's .gitignore (missing: nil, false), refusing anything but a regular file
// (through a symlink) of at most 1 MiB; a FIFO or device in its place is refused, never opened.
func ReadGitignore(dir string) (data []byte, exists bool, err error) {
	p := filepath.Join(dir, GitignoreName)
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(p); lerr == nil {
			return nil, false, errs.Invalidf("%s is a symlink to nothing; cairn leaves it alone", p)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, FSError(err, "read %s", p)
	}
	if !st.Mode().IsRegular() {
		return nil, false, errs.Invalidf("%s is %s, not a file; cairn leaves it alone", p, FileType(st.Mode()))
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, false, FSError(err, "read %s", p)
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxGitignore+1))
	if err != nil {
		return nil, false, FSError(err, "read %s", p)
	}
	if len(data) > maxGitignore {
		return nil, false, errs.Invalidf("%s is over 1 MiB; cairn leaves it alone", p)
	}
	return data, true, nil
}

// EnsureIgnored adds the patterns dir/.gitignore lacks (creating it when missing) and says what
// it did: created, updated or unchanged, and the patterns added.
func EnsureIgnored(dir, header string, patterns []string) (status string, added []string, err error) {
	before, exists, err := ReadGitignore(dir)
	if err != nil {
		return "", nil, err
	}
	after, added := GitignoreEdit(before, header, patterns)
	if len(added) == 0 {
		return "unchanged", nil, nil
	}
	p := filepath.Join(dir, GitignoreName)
	mode := os.FileMode(0o644)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if st, err := os.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	if err := WriteFileAtomic(p, after, mode); err != nil {
		return "", nil, err
	}
	if exists {
		return "updated", added, nil
	}
	return "created", added, nil
}
