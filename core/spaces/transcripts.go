package spaces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The steps every runtime's import of past sessions shares (Claude Code, Codex, Gemini CLI
// files; OpenCode's sessions in its database): which files are new, the ids checked, a
// comment into the batch, a task record settled, how far a file was read.

// importFiles reads the transcript files of one import: a file whose size and modification time
// are those of the last import is counted and not opened, every other is read by read (given
// its whole state from the last import, if any) with the bytes still to read as the progress'
// total; then the batch is written and the spaces counted. what names the command.
func importFiles[F any](im *claudeImport, what string, files []F, stat func(F) (path string, size, modNS int64), read func(F, claudeState, bool) error) error {
	im.rep.Files = len(files)
	states, err := im.s.claudeStates(im.ctx)
	if err != nil {
		return err
	}
	var todo []F
	for _, f := range files {
		path, size, modNS := stat(f)
		st, ok := states[path]
		if ok && st.size == size && st.modNS == modNS {
			im.rep.Unchanged++
			continue
		}
		todo = append(todo, f)
		im.total += size
		if ok && size >= st.offset {
			im.total -= st.offset
		}
	}
	for _, f := range todo {
		if err := errs.Stopped(im.ctx, what); err != nil {
			return err
		}
		path, _, _ := stat(f)
		st, ok, err := im.s.fullState(im.ctx, states, path)
		if err != nil {
			return err
		}
		if err := read(f, st, ok); err != nil {
			return err
		}
	}
	if err := im.flush(); err != nil {
		return err
	}
	im.rep.Spaces = len(im.spaces)
	if im.progress != nil {
		im.progress(im.total, im.total)
	}
	return nil
}

// badFor records, for the report, what was skipped of a file: line 0 for the whole file.
func (im *claudeImport) badFor(file string) func(line int, format string, args ...any) {
	return func(line int, format string, args ...any) {
		im.rep.BadLines = append(im.rep.BadLines, ClaudeBadLine{File: file, Line: line, Message: fmt.Sprintf(format, args...)})
	}
}

// openTranscript opens a session file to read; nil, with bad told why it is skipped, when it
// cannot be (workspace.OpenRegular).
func openTranscript(path string, bad func(line int, format string, args ...any)) *os.File {
	fh, err := workspace.OpenRegular(path, "transcript")
	if err != nil {
		bad(0, "skipped: %v", err)
		return nil
	}
	return fh
}

// checkIDs checks a session's space and task ids (checkID), the space's first.
func checkIDs(space, task ID) error {
	if err := checkID("space", space); err != nil {
		return err
	}
	return checkID("task", task)
}

// resumeAt is where a file known from the last import is read on from: its offset, lines and
// the space of its task, when its first bytes are unchanged and its task is stored; 0 (read it
// from the start) otherwise.
func (im *claudeImport) resumeAt(fh *os.File, st claudeState) (int64, int, ID, error) {
	if start, _ := sameHead(fh, st, true); start > 0 {
		var sp string
		err := im.s.db.QueryRowContext(im.ctx, `SELECT space FROM tasks WHERE id = ?`, st.task).Scan(&sp)
		if err == nil {
			return st.offset, st.lines, ID(sp), nil
		} else if err := im.ctx.Err(); err != nil {
			return 0, 0, "", err
		}
	}
	return 0, 0, "", nil
}

// sameHead is where a file the last import read (known) goes on from when its first bytes are
// still those it hashed: the offset and line it stopped at; 0 (from the start) otherwise.
func sameHead(fh *os.File, st claudeState, known bool) (int64, int) {
	if known {
		if h, err := headHash(fh, st.offset); err == nil && h == st.head {
			return st.offset, st.lines
		}
	}
	return 0, 0
}

// addComment puts a comment read from a session into the batch, or tells bad why it does not
// fit, and writes the batch when it is full; ctx ending stops it.
func (im *claudeImport) addComment(c Comment, bad func(line int, format string, args ...any)) error {
	if err := im.ctx.Err(); err != nil {
		return err
	}
	at, err := c.validate()
	if err != nil {
		bad(0, "comment %s: %v", c.ID, err)
		return nil
	}
	im.batch = append(im.batch, record{kind: "comment", comment: c, at: at})
	im.rep.Comments++
	if len(im.batch) >= BatchSize {
		im.flushes++
		return im.flush()
	}
	return nil
}

// tally reports what a read of a file of size bytes from byte start (line lines) did: the lines
// it could not use, the lines and bytes read, the progress.
func (im *claudeImport) tally(info lineInfo, bad func(line int, format string, args ...any), start int64, lines int, size int64) {
	for _, l := range info.Bad {
		bad(l.Line, "%s", l.Message)
	}
	im.rep.Lines += info.Lines - lines
	im.rep.Bytes += info.Offset - start
	im.done += size - start
}

// settleTask gives the task record put in the batch at taskAt before its comments (so they
// find their space) its title and time: in place while the batch still holds it unwritten, else
// as a record of its own.
func (im *claudeImport) settleTask(taskAt int, tr taskRec) {
	if taskAt < len(im.batch) && im.batch[taskAt].kind == "task" && im.batch[taskAt].task.ID == tr.ID {
		im.batch[taskAt].task = tr
	} else {
		im.batch = append(im.batch, record{kind: "task", task: tr})
	}
}

// keep records a file's (or session's) state, written with the batch that completes it.
func (im *claudeImport) keep(path string, st claudeState) {
	if im.states == nil {
		im.states = map[string]claudeState{}
	}
	im.states[path] = st
}

// readState is the state of a file read up to offset: its size and time as found before the
// read (a line appended meanwhile is read next time), the size -1 when the read stopped short
// of it (a torn last line, or the file grew while it was read) so it is never passed over next
// time, and the hash of its first bytes.
func readState(fh *os.File, path string, size, modNS, offset int64, lines int) (claudeState, error) {
	head, err := headHash(fh, offset)
	if err != nil {
		return claudeState{}, fmt.Errorf("read %s: %w", path, err)
	}
	if offset != size {
		size = -1
	}
	return claudeState{size: size, modNS: modNS, offset: offset, lines: lines, head: head}, nil
}

// lineInfo is how far a read of a JSON-lines session file got (Codex, Gemini CLI) and what it
// learned besides the comments.
type lineInfo struct {
	Lines       int   // lines read, counting from the file's start
	Offset      int64 // just after the last line used (a torn last line is left for the next read)
	FirstPrompt string
	CreatedAt   string
	Comments    int
	Bad         []claudecode.BadLine
}

// bad records that the line just read could not be used, and why.
func (info *lineInfo) bad(message string) {
	info.Bad = append(info.Bad, claudecode.BadLine{Line: info.Lines, Message: message})
}

// emit passes a comment on, noting the session's first time and first prompt.
func (info *lineInfo) emit(c Comment, emit func(Comment) error) error {
	if info.CreatedAt == "" {
		info.CreatedAt = c.CreatedAt
	}
	if info.FirstPrompt == "" && c.Kind == "request" {
		info.FirstPrompt = codexFirstLine(c.Body)
	}
	info.Comments++
	return emit(c)
}

// readJSONLines reads the lines of a session file from r, positioned at info.Offset (line
// info.Lines), and gives each JSON line, decoded into an L, to each: a line longer than maxLine,
// or a complete one that is no JSON, is told bad and passed over, a blank one and one skip
// passes over are counted; a torn last line (no newline yet) is left for the next read.
func readJSONLines[L any](r io.Reader, info *lineInfo, maxLine int, skip func(data []byte) bool, each func(*L) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, n, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return fmt.Errorf("read line %d: %w", info.Lines+1, err)
		}
		if n == 0 {
			return nil
		}
		complete := err == nil // ended by its newline
		if raw == nil {
			if !complete {
				return nil // a long last line still being written: the next read starts here
			}
			info.Lines++
			info.Offset += n
			info.bad(fmt.Sprintf("longer than %s, the most a line may hold; skipped unparsed", byteSize(maxLine)))
			continue
		}
		data := bytes.TrimSpace(raw)
		if len(data) == 0 || complete && skip != nil && skip(data) {
			info.Lines++
			info.Offset += n
			if !complete {
				return nil
			}
			continue
		}
		var l L
		if jerr := json.Unmarshal(data, &l); jerr != nil {
			if !complete {
				return nil // torn: the next read starts here
			}
			info.Lines++
			info.Offset += n
			info.bad("not a JSON object: " + strings.TrimPrefix(jerr.Error(), "json: "))
			continue
		}
		info.Lines++
		info.Offset += n
		if err := each(&l); err != nil {
			return err
		}
		if !complete {
			return nil
		}
	}
}
