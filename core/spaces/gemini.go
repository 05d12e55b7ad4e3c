package spaces

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// SourceGemini marks a space imported from Gemini CLI session files (spaces.source).
const SourceGemini = "gemini"

// A Gemini CLI session file (~/.gemini/tmp/<project short name>/chats/session-<time>-<id8>.jsonl,
// Gemini CLI 0.61.0; scripts/gemini-harness/README.md) opens with a header {"sessionId",
// "projectHash", "startTime", ...}; then a message a line ({"id", "timestamp", "type":
// user|gemini|info|error|warning, "content", ...}, a line with an id seen before replacing that
// message), {"$set": {...}} updates ({"$set": {"messages": [...]}} a checkpoint of the whole
// conversation) and {"$rewindTo": id}. What is read: user prompts (without the session context
// and hook context Gemini CLI adds), the model's text, its thoughts and tool calls, and a
// compression's summary (the <state_snapshot> message of a checkpoint). A comment's id is
// <session>.<message id> (a thought or tool call: .thought, .tool<N> after it), so a message
// written again, or repeated by a checkpoint, is the same comment.

// GeminiReport says what an import of Gemini CLI session files read and wrote: the counts of a
// Claude Code import (a resume's stub of two lines beside the real file counts as read, and holds
// nothing).
type GeminiReport struct {
	ClaudeReport
}

// geminiFile is one session file to read.
type geminiFile = codexFile

// DefaultGeminiPaths is what `space import --from gemini` reads when given nothing: every
// project's sessions under ~/.gemini/tmp.
func DefaultGeminiPaths() ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, errs.Invalidf("cannot tell the home directory, where Gemini CLI keeps ~/.gemini/tmp: %v; name a folder", err)
	}
	return []string{filepath.Join(home, ".gemini", "tmp")}, nil
}

// findGemini lists the session files under paths: a .jsonl file is itself; a folder
// (~/.gemini/tmp, a project's folder or its chats/) is walked for session-*.jsonl files.
func findGemini(paths []string) ([]geminiFile, error) {
	return findSessionFiles(paths, "session-", "a Gemini CLI session file (want a session-*.jsonl file or a folder such as ~/.gemini/tmp)")
}

// GeminiSpaceID is the space of the sessions of a project: gemini/ and the project's path spelt
// as a folder name (as CodexSpaceID spells a working directory).
func GeminiSpaceID(project string) ID {
	return ID(SourceGemini + "/" + strings.TrimPrefix(string(CodexSpaceID(project)), codexSpacePrefix))
}

// geminiProject is the project a session file belongs to: the absolute path Gemini CLI keeps in
// <tmp>/<short name>/.project_root, else the path ~/.gemini/projects.json maps to that short
// name, else the short name itself.
func geminiProject(path string) string {
	chats := filepath.Dir(path)
	dir := filepath.Dir(chats)
	if filepath.Base(chats) != "chats" {
		dir = chats
	}
	short := filepath.Base(dir)
	if data, err := readSmall(filepath.Join(dir, ".project_root")); err == nil {
		if p := strings.TrimSpace(string(data)); filepath.IsAbs(p) {
			return p
		}
	}
	if data, err := readSmall(filepath.Join(filepath.Dir(filepath.Dir(dir)), "projects.json")); err == nil {
		var pj struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(data, &pj) == nil {
			var found []string
			for p, s := range pj.Projects {
				if s == short {
					found = append(found, p)
				}
			}
			if len(found) == 1 {
				return found[0]
			}
		}
	}
	return short
}

// readSmall reads a file of at most 64 KiB.
func readSmall(path string) ([]byte, error) {
	f, err := workspace.OpenRegular(path, "transcript")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<10+1))
	if err == nil && len(data) > 64<<10 {
		return nil, fmt.Errorf("%s is over 64 KiB", path)
	}
	return data, err
}

// geminiHeader is a session file's first line.
type geminiHeader struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	Kind        string `json:"kind"`
}

// geminiMessage is a message line, or a message of a checkpoint.
type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	ToolCalls []struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCalls"`
	Set *struct {
		Messages []geminiMessage `json:"messages"`
	} `json:"$set"`
}

// geminiPart is one part of a content list.
type geminiPart struct {
	Text string `json:"text"`
}

// geminiText is the text of a content: a string, or the text parts of a list.
func geminiText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	var parts []geminiPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if t := strings.TrimSpace(p.Text); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n\n")
}

// withoutHookContext drops the <hook_context>...</hook_context> blocks hooks added to a prompt.
func withoutHookContext(s string) string {
	for {
		i := strings.Index(s, "<hook_context>")
		if i < 0 {
			return strings.TrimSpace(s)
		}
		j := strings.Index(s[i:], "</hook_context>")
		if j < 0 {
			return strings.TrimSpace(s[:i])
		}
		s = s[:i] + s[i+j+len("</hook_context>"):]
	}
}

// geminiComments are the comments of one message (of a message line, or with inCheckpoint of a
// checkpoint, where only a compression's summary is new).
func geminiComments(session string, m *geminiMessage, inCheckpoint bool) []Comment {
	if m.ID == "" {
		return nil
	}
	base := session + "." + m.ID
	text := geminiText(m.Content)
	switch {
	case inCheckpoint:
		if m.Type == "user" && strings.HasPrefix(text, "<state_snapshot>") {
			return []Comment{{ID: ID(base), Kind: "progress", ProgressType: "summary", Author: claudecode.AuthorAgent, CreatedAt: m.Timestamp, Body: text}}
		}
		return nil
	case m.Type == "user":
		if strings.HasPrefix(text, "<session_context>") {
			return nil
		}
		if text = withoutHookContext(text); text == "" {
			return nil // a tool's answer (functionResponse parts), or hook context alone
		}
		return []Comment{{ID: ID(base), Kind: "request", Author: claudecode.AuthorUser, CreatedAt: m.Timestamp, Body: text}}
	case m.Type == "gemini":
		var out []Comment
		var thoughts []string
		for _, t := range m.Thoughts {
			th := strings.TrimSpace(strings.TrimSpace(t.Subject) + "\n" + strings.TrimSpace(t.Description))
			if th != "" {
				thoughts = append(thoughts, th)
			}
		}
		if len(thoughts) > 0 {
			out = append(out, Comment{ID: ID(base + ".thought"), Kind: "progress", ProgressType: "thinking", Author: claudecode.AuthorAgent, CreatedAt: m.Timestamp, Body: strings.Join(thoughts, "\n\n")})
		}
		if strings.TrimSpace(text) != "" {
			out = append(out, Comment{ID: ID(base), Kind: "result", Author: claudecode.AuthorAgent, CreatedAt: m.Timestamp, Body: strings.TrimSpace(text)})
		}
		for i, c := range m.ToolCalls {
			if c.Name == "" {
				continue
			}
			out = append(out, Comment{ID: ID(fmt.Sprintf("%s.tool%d", base, i+1)), Kind: "progress", ProgressType: "tool", ToolName: c.Name,
				Author: claudecode.AuthorAgent, CreatedAt: m.Timestamp, Body: clipBytes(string(c.Args), claudecode.MaxToolBody)})
		}
		return out
	}
	return nil // info, error, warning: Gemini CLI's own notices
}

// geminiInfo is what a read learned besides the comments.
type geminiInfo struct {
	Lines       int
	Offset      int64
	FirstPrompt string
	CreatedAt   string
	Comments    int
	Bad         []claudecode.BadLine
}

// readGemini reads session lines from r (at byte offset start, line startLine) and calls emit for
// each comment; a torn last line is left for the next read.
func readGemini(r io.Reader, start int64, startLine, maxLine int, session string, emit func(Comment) error) (geminiInfo, error) {
	info := geminiInfo{Offset: start, Lines: startLine, Bad: []claudecode.BadLine{}}
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, n, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return info, fmt.Errorf("read line %d: %w", info.Lines+1, err)
		}
		if n == 0 {
			break
		}
		complete := err == nil
		if raw == nil {
			if !complete {
				break
			}
			info.Lines++
			info.Offset += n
			info.Bad = append(info.Bad, claudecode.BadLine{Line: info.Lines, Message: fmt.Sprintf("longer than %s, the most a line may hold; skipped unparsed", byteSize(maxLine))})
			continue
		}
		data := bytes.TrimSpace(raw)
		var m geminiMessage
		if len(data) > 0 {
			if jerr := json.Unmarshal(data, &m); jerr != nil {
				if !complete {
					break // torn: the next read starts here
				}
				info.Lines++
				info.Offset += n
				info.Bad = append(info.Bad, claudecode.BadLine{Line: info.Lines, Message: "not a JSON object: " + strings.TrimPrefix(jerr.Error(), "json: ")})
				continue
			}
		}
		info.Lines++
		info.Offset += n
		var cs []Comment
		if m.Set != nil {
			for i := range m.Set.Messages {
				cs = append(cs, geminiComments(session, &m.Set.Messages[i], true)...)
			}
		} else {
			cs = geminiComments(session, &m, false)
		}
		for _, c := range cs {
			at, good := codexTime(c.CreatedAt)
			if !good {
				info.Bad = append(info.Bad, claudecode.BadLine{Line: info.Lines, Message: fmt.Sprintf("message %s: timestamp %q is not an RFC 3339 time", clipBytes(string(c.ID), 80), c.CreatedAt)})
				continue
			}
			c.CreatedAt = at
			if info.CreatedAt == "" {
				info.CreatedAt = at
			}
			if info.FirstPrompt == "" && c.Kind == "request" {
				info.FirstPrompt = codexFirstLine(c.Body)
			}
			info.Comments++
			if err := emit(c); err != nil {
				return info, err
			}
		}
		if !complete {
			break
		}
	}
	return info, nil
}

// ImportGemini imports Gemini CLI session files (files, or folders walked for session-*.jsonl;
// DefaultGeminiPaths when none is given) as ImportCodex imports rollouts: one space per project
// (owned by LocalAccount, source gemini), one task per session (id: the session id), one comment
// per prompt, answer, thought and tool call and per compression summary. The two files a resume
// can leave for one session are one task; a file holding no message (a resume's stub) makes
// none. A file unchanged since the last import is not opened; one that grew is read from where
// the last import stopped.
func (s *Store) ImportGemini(ctx context.Context, paths []string, progress Progress) (rep GeminiReport, err error) {
	const what = "space import --from gemini"
	defer func() { err = errs.IfStopped(ctx, err, what) }()
	rep = GeminiReport{ClaudeReport: ClaudeReport{BadLines: []ClaudeBadLine{}}}
	if len(paths) == 0 {
		if paths, err = DefaultGeminiPaths(); err != nil {
			return rep, err
		}
	}
	files, err := findGemini(paths)
	if err != nil {
		return rep, errs.Wrap(errs.Invalid, err, what)
	}
	rep.Files = len(files)
	states, err := s.claudeStates(ctx)
	if err != nil {
		return rep, err
	}
	var todo []geminiFile
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
	im := claudeImport{s: s, ctx: ctx, rep: &rep.ClaudeReport, spaces: map[string]bool{}, total: total, progress: progress, source: SourceGemini}
	for _, f := range todo {
		if err := errs.Stopped(ctx, what); err != nil {
			return rep, err
		}
		st, ok, err := s.fullState(ctx, states, f.Path)
		if err != nil {
			return rep, err
		}
		if err := im.geminiFile(f, st, ok); err != nil {
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

// geminiFile reads one new or changed session file into the batch.
func (im *claudeImport) geminiFile(f geminiFile, st claudeState, known bool) error {
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
	task := ID(st.task)
	if known && f.Size >= st.offset && st.offset > 0 && st.task != "" {
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
	if start > 0 {
		im.rep.Resumed++
	} else {
		im.rep.Read++
		st = claudeState{}
		line, _, err := readLine(bufio.NewReaderSize(fh, 64<<10), im.s.maxLine)
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		var h geminiHeader
		if json.Unmarshal(bytes.TrimSpace(line), &h) != nil || h.SessionID == "" || h.ProjectHash == "" {
			bad(0, "skipped: the first line is not a Gemini CLI session header (sessionId, projectHash)")
			return nil
		}
		task = ID(h.SessionID)
		space = GeminiSpaceID(geminiProject(f.Path))
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
	flushed := false
	info, err := readGemini(fh, start, lines, im.s.maxLine, string(task), func(c Comment) error {
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
			flushed = true
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
	im.rep.Lines += info.Lines - lines
	im.rep.Bytes += info.Offset - start
	im.done += f.Size - start
	head, err := headHash(fh, info.Offset)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Path, err)
	}
	if im.states == nil {
		im.states = map[string]claudeState{}
	}
	next := claudeState{size: f.Size, modNS: f.ModNS, offset: info.Offset, lines: info.Lines, head: head, task: string(task), createdAt: st.createdAt, title: st.title}
	if info.Offset != f.Size {
		next.size = -1 // a torn last line, or the file grew while it was read
	}
	if start == 0 && info.Comments == 0 && !flushed {
		// a resume's stub (a header and a checkpoint of the session context): no task of its own,
		// so it renames nothing of the real file's task
		im.batch = im.batch[:taskAt]
		next.task = ""
		im.states[f.Path] = next
		return nil
	}
	im.rep.Tasks++
	if next.createdAt == "" {
		next.createdAt = info.CreatedAt
	}
	if next.title == "" && info.FirstPrompt != "" {
		next.title = claudecode.Title(im.s.rd().Text(DropPrivate(info.FirstPrompt)))
	}
	title := next.title
	if title == "" {
		title = "session " + string(task)
	}
	tr := taskRec{ID: task, Space: space, Title: title, CreatedAt: next.createdAt}
	if taskAt < len(im.batch) && im.batch[taskAt].kind == "task" && im.batch[taskAt].task.ID == task {
		im.batch[taskAt].task = tr
	} else {
		im.batch = append(im.batch, record{kind: "task", task: tr})
	}
	if start == 0 {
		im.batch = append(im.batch, record{kind: "space", space: spaceRec{ID: space, Name: geminiProject(f.Path), Owner: LocalAccount}})
	}
	im.spaces[string(space)] = true
	im.states[f.Path] = next
	if im.progress != nil {
		im.progress(im.done, im.total)
	}
	return nil
}
