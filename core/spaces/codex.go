package spaces

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
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
	rep.Files = len(files)
	states, err := s.claudeStates(ctx)
	if err != nil {
		return rep, err
	}
	var todo []codexFile
	var total int64
	for _, f := range files {
		st, ok := states[f.Path]
		if ok && st.size == f.Size && st.modNS == f.ModNS {
			rep.Unchanged++
			continue
		}
		todo = append(todo, f)
		total += f.Size
		if ok && f.Size >= st.offset {
			total -= st.offset
		}
	}
	im := codexImport{claudeImport: claudeImport{s: s, ctx: ctx, rep: &rep.ClaudeReport, spaces: map[string]bool{}, total: total,
		progress: progress, source: SourceCodex}, unknown: rep.Unknown}
	for _, f := range todo {
		if err := errs.Stopped(ctx, what); err != nil {
			return rep, err
		}
		st, ok, err := s.fullState(ctx, states, f.Path)
		if err != nil {
			return rep, err
		}
		if err := im.file(f, st, ok); err != nil {
			return rep, err
		}
	}
	if err := im.flush(); err != nil {
		return rep, err
	}
	rep.Spaces = len(im.spaces)
	if progress != nil {
		progress(total, total)
	}
	return rep, nil
}

// codexImport is one run of ImportCodex: a claudeImport (the batch, the file states, the spaces
// written) and the unknown records counted.
type codexImport struct {
	claudeImport
	unknown map[string]int
}

// file reads one new or changed rollout into the batch.
func (im *codexImport) file(f codexFile, st claudeState, known bool) error {
	bad := func(line int, format string, args ...any) {
		im.rep.BadLines = append(im.rep.BadLines, ClaudeBadLine{File: f.Path, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	fh, err := workspace.OpenRegular(f.Path, "transcript")
	if err != nil {
		bad(0, "skipped: %v", err)
		return nil
	}
	defer fh.Close()
	var start int64
	lines := 0
	var space ID
	if known && f.Size >= st.offset && st.offset > 0 {
		if h, err := headHash(fh, st.offset); err == nil && h == st.head {
			var sp string
			err := im.s.db.QueryRowContext(im.ctx, `SELECT space FROM tasks WHERE id = ?`, st.task).Scan(&sp)
			if err == nil {
				start, lines, space = st.offset, st.lines, ID(sp)
			} else if err := im.ctx.Err(); err != nil {
				return err
			}
		}
	}
	task := ID(st.task)
	var meta codexMeta
	if start > 0 {
		im.rep.Resumed++
	} else {
		im.rep.Read++
		st = claudeState{}
		// the session and its working directory come first, in session_meta; a file without one
		// is named after its session
		meta, err = readCodexMeta(fh, im.s.maxLine)
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		task = ID(meta.id())
		if task == "" {
			task = ID(codexFileSession(f.Path))
		}
		if task == "" {
			bad(0, "skipped: no session id (the first line is not a session_meta record and the name is not rollout-<time>-<uuid>.jsonl)")
			return nil
		}
		space = CodexSpaceID(meta.CWD)
	}
	for _, c := range []struct {
		field string
		id    ID
	}{{"space", space}, {"task", task}} {
		if err := checkID(c.field, c.id); err != nil {
			bad(0, "skipped: its %v", err)
			return nil
		}
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", f.Path, err)
	}
	taskAt := len(im.batch)
	im.batch = append(im.batch, record{kind: "task", task: taskRec{ID: task, Space: space}})
	info, err := readCodex(fh, start, lines, im.s.maxLine, string(task), func(c Comment) error {
		if err := im.ctx.Err(); err != nil {
			return err
		}
		c.Task = task
		at, err := c.validate()
		if err != nil {
			bad(0, "comment %s: %v", c.ID, err)
			return nil
		}
		im.batch = append(im.batch, record{kind: "comment", comment: c, at: at})
		im.rep.Comments++
		if len(im.batch) >= BatchSize {
			return im.flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range info.Bad {
		bad(b.Line, "%s", b.Message)
	}
	for t, n := range info.Unknown {
		im.unknown[t] += n
	}
	im.rep.Lines += info.Lines - lines
	im.rep.Bytes += info.Offset - start
	im.rep.Tasks++
	im.done += f.Size - start

	if st.createdAt == "" {
		st.createdAt = info.CreatedAt
	}
	if st.title == "" && info.FirstPrompt != "" {
		// redacted before the cut, so a secret at the edge is recognised whole
		st.title = claudecode.Title(im.s.rd().Text(DropPrivate(info.FirstPrompt)))
	}
	title := st.title
	if title == "" {
		title = "session " + string(task)
		if meta.ForkedFromID != "" {
			title = "fork of session " + meta.ForkedFromID
		}
	}
	tr := taskRec{ID: task, Space: space, Title: title, CreatedAt: st.createdAt}
	if taskAt < len(im.batch) && im.batch[taskAt].kind == "task" && im.batch[taskAt].task.ID == task {
		im.batch[taskAt].task = tr // still unwritten: settle it in place
	} else {
		im.batch = append(im.batch, record{kind: "task", task: tr})
	}
	if start == 0 {
		name := meta.CWD
		if name == "" {
			name = "(no working directory recorded)"
		}
		im.batch = append(im.batch, record{kind: "space", space: spaceRec{ID: space, Name: name, Owner: LocalAccount}})
	}
	im.spaces[string(space)] = true
	head, err := headHash(fh, info.Offset)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Path, err)
	}
	if im.states == nil {
		im.states = map[string]claudeState{}
	}
	// size and time as found before the read: a line appended meanwhile is read next time
	next := claudeState{size: f.Size, modNS: f.ModNS, offset: info.Offset, lines: info.Lines, head: head,
		task: string(task), title: st.title, createdAt: st.createdAt}
	if info.Offset != f.Size {
		next.size = -1 // a torn last line, or the file grew while it was read: never skip it next time
	}
	im.states[f.Path] = next
	if im.progress != nil {
		im.progress(im.done, im.total)
	}
	return nil
}
