package spaces

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
)

// SourceCodex marks a space imported from Codex CLI rollouts (spaces.source).
const SourceCodex = "codex"

// codexSpacePrefix starts the id of a space imported from Codex: codex/<working directory, as a
// folder name>.
const codexSpacePrefix = SourceCodex + "/"

// CodexReport says what an import of Codex rollouts read and wrote: the counts of a Claude Code
// import, and the records of types this build does not read, skipped, by type.
type CodexReport struct {
	ClaudeReport
	Unknown map[string]int `json:"unknown_records"`
}

// codexFile is one rollout to read.
type codexFile struct {
	Path  string // absolute, cleaned
	Size  int64
	ModNS int64
}

// findCodex lists the rollouts under paths: a .jsonl file is itself; a folder (~/.codex/sessions,
// a day's folder, ~/.codex itself) is walked for rollout-*.jsonl files. Symbolic links inside
// folders are not followed; the result is sorted by path, each file once.
func findCodex(paths []string) ([]codexFile, error) {
	return findSessionFiles(paths, "rollout-", "a Codex rollout (want a rollout-*.jsonl file or a folder such as ~/.codex/sessions)")
}

// findSessionFiles lists the PREFIX*.jsonl files under paths (a file is itself, a folder is
// walked without following links), sorted by path, each once; what names them in a refusal.
func findSessionFiles(paths []string, prefix, what string) ([]codexFile, error) {
	seen := map[string]bool{}
	var out []codexFile
	err := claudecode.Walk(paths, func(name string) bool {
		return strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".jsonl")
	}, what, func(p string, fi fs.FileInfo) {
		if !seen[p] {
			seen[p] = true
			out = append(out, codexFile{Path: p, Size: fi.Size(), ModNS: fi.ModTime().UnixNano()})
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// codexFileSession is the session id a rollout's name ends with (rollout-<time>-<uuid>.jsonl), or "".
func codexFileSession(p string) string {
	stem := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	if len(stem) < 36 {
		return ""
	}
	id := stem[len(stem)-36:]
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return ""
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return ""
			}
		}
	}
	return id
}

// CodexSpaceID is the space of the sessions run in a working directory: codex/ and the directory
// spelt as Claude Code names its project folders (every character but a letter or digit a '-'),
// cut with a hash when long, so the id stays within checkID's bound.
func CodexSpaceID(cwd string) ID {
	var b strings.Builder
	for _, r := range cwd {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	project := b.String()
	if project == "" {
		project = "unknown-directory"
	}
	if len(project) > 150 {
		sum := sha256.Sum256([]byte(cwd))
		project = project[:140] + "-" + hex.EncodeToString(sum[:4])
	}
	return ID(codexSpacePrefix + project)
}

// ImportCodex imports Codex CLI rollouts (files, or folders walked for rollout-*.jsonl) as
// ImportClaude imports Claude Code transcripts: one space per working directory (owned by
// LocalAccount, source codex), one task per session (id: the session id), one comment per user
// prompt, assistant message, reasoning summary, tool call and compaction summary (id:
// <session>.<line number>). Runtime-injected text (developer messages, environment context,
// instructions, the compaction prompt and summary prefix) is not stored. A rollout whose size and
// modification time are unchanged since the last import is not opened; one that grew (a resumed
// session) is read from where the last import stopped. A fork's file holds only its own records
// (Codex points at the parent's instead of copying them), so the parent's comments stay in the
// parent's task, once. ctx ending stops it between comments with CANCELLED, as ImportClaude.
func (s *Store) ImportCodex(ctx context.Context, paths []string, progress Progress) (rep CodexReport, err error) {
	const what = "space import --from codex"
	defer func() { err = errs.IfStopped(ctx, err, what) }()
	rep = CodexReport{ClaudeReport: ClaudeReport{BadLines: []ClaudeBadLine{}}, Unknown: map[string]int{}}
	files, err := findCodex(paths)
	if err != nil {
		return rep, errs.Wrap(errs.Invalid, err, what)
	}
	im := claudeImport{s: s, ctx: ctx, rep: &rep.ClaudeReport, spaces: map[string]bool{}, progress: progress, source: SourceCodex}
	kind := codexSessions
	kind.read = func(im *claudeImport, fh *os.File, start int64, lines int, task ID, emit func(Comment) error) (lineInfo, error) {
		info, err := readCodex(fh, start, lines, im.s.maxLine, string(task), emit)
		for t, n := range info.Unknown {
			rep.Unknown[t] += n
		}
		return info.lineInfo, err
	}
	err = importFiles(&im, what, files, codexFile.stat, func(f codexFile, st claudeState, known bool) error {
		return im.readSession(f, st, known, kind)
	})
	return rep, err
}

// codexSessions are Codex rollouts for readSession (ImportCodex adds the read, which counts the
// unknown records): session_meta names the session and its working directory, the space; a
// rollout without one is named after its file.
var codexSessions = sessionKind{
	begin: func(im *claudeImport, fh *os.File, path string) (sessionBegin, string, error) {
		meta, err := readCodexMeta(fh, im.s.maxLine)
		if err != nil {
			return sessionBegin{}, "", fmt.Errorf("read %s: %w", path, err)
		}
		task := ID(meta.id())
		if task == "" {
			task = ID(codexFileSession(path))
		}
		if task == "" {
			return sessionBegin{}, "no session id (the first line is not a session_meta record and the name is not rollout-<time>-<uuid>.jsonl)", nil
		}
		name := meta.CWD
		if name == "" {
			name = "(no working directory recorded)"
		}
		return sessionBegin{task: task, space: CodexSpaceID(meta.CWD), name: name, forkedFrom: meta.ForkedFromID}, "", nil
	},
}

// stat is the file's path, size and modification time, as importFiles compares them.
func (f codexFile) stat() (string, int64, int64) { return f.Path, f.Size, f.ModNS }

// sessionKind is what readSession needs of a runtime whose session files it reads.
type sessionKind struct {
	// begin reads the beginning of a file read from the start: the session, or why the file is
	// skipped.
	begin func(im *claudeImport, fh *os.File, path string) (b sessionBegin, skip string, err error)
	// read reads the file's comments from byte start (line lines) on.
	read func(im *claudeImport, fh *os.File, start int64, lines int, task ID, emit func(Comment) error) (lineInfo, error)
	// stubs: a file read from the start that holds no comment makes no task (a resume's stub).
	stubs bool
}

// sessionBegin is what the beginning of a session file says: its task, its space and the space's
// name, and the session it was forked from, if any.
type sessionBegin struct {
	task, space ID
	name        string
	forkedFrom  string
}

// readSession reads one new or changed Codex or Gemini CLI session file into the batch: from
// where the last import stopped when the file's beginning is unchanged and its task stored, else
// from the start, where kind.begin names its task and space.
func (im *claudeImport) readSession(f codexFile, st claudeState, known bool, kind sessionKind) error {
	bad := im.badFor(f.Path)
	fh := openTranscript(f.Path, bad)
	if fh == nil {
		return nil
	}
	defer fh.Close()
	var start int64
	lines := 0
	var b sessionBegin
	var err error
	if known && f.Size >= st.offset && st.offset > 0 && st.task != "" {
		if start, lines, b.space, err = im.resumeAt(fh, st); err != nil {
			return err
		}
	}
	b.task = ID(st.task)
	if start > 0 {
		im.rep.Resumed++
	} else {
		im.rep.Read++
		st = claudeState{}
		var skip string
		if b, skip, err = kind.begin(im, fh, f.Path); err != nil {
			return err
		} else if skip != "" {
			bad(0, "skipped: %s", skip)
			return nil
		}
	}
	task, space := b.task, b.space
	if err := checkIDs(space, task); err != nil {
		bad(0, "skipped: its %v", err)
		return nil
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", f.Path, err)
	}
	taskAt := len(im.batch)
	im.batch = append(im.batch, record{kind: "task", task: taskRec{ID: task, Space: space}})
	flushes := im.flushes
	info, err := kind.read(im, fh, start, lines, task, func(c Comment) error {
		c.Task = task
		return im.addComment(c, bad)
	})
	if err != nil {
		return err
	}
	im.tally(info, bad, start, lines, f.Size)
	next, err := readState(fh, f.Path, f.Size, f.ModNS, info.Offset, info.Lines)
	if err != nil {
		return err
	}
	next.task, next.title, next.createdAt = string(task), st.title, st.createdAt
	if kind.stubs && start == 0 && info.Comments == 0 && im.flushes == flushes {
		// a resume's stub (a header and a checkpoint of the session context): no task of its own,
		// so it renames nothing of the real file's task
		im.batch = im.batch[:taskAt]
		next.task = ""
		im.keep(f.Path, next)
		return nil
	}
	im.rep.Tasks++
	if next.createdAt == "" {
		next.createdAt = info.CreatedAt
	}
	if next.title == "" && info.FirstPrompt != "" {
		// redacted before the cut, so a secret at the edge is recognised whole
		next.title = claudecode.Title(im.s.rd().Text(DropPrivate(info.FirstPrompt)))
	}
	title := next.title
	if title == "" {
		title = "session " + string(task)
		if b.forkedFrom != "" {
			title = "fork of session " + b.forkedFrom
		}
	}
	im.settleTask(taskAt, taskRec{ID: task, Space: space, Title: title, CreatedAt: next.createdAt})
	if start == 0 {
		im.batch = append(im.batch, record{kind: "space", space: spaceRec{ID: space, Name: b.name, Owner: LocalAccount}})
	}
	im.spaces[string(space)] = true
	im.keep(f.Path, next)
	if im.progress != nil {
		im.progress(im.done, im.total)
	}
	return nil
}
