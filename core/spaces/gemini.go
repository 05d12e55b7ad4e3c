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

// readGemini reads session lines from r (at byte offset start, line startLine) and calls emit for
// each comment; a torn last line is left for the next read.
func readGemini(r io.Reader, start int64, startLine, maxLine int, session string, emit func(Comment) error) (lineInfo, error) {
	info := lineInfo{Offset: start, Lines: startLine, Bad: []claudecode.BadLine{}}
	err := readJSONLines(r, &info, maxLine, nil, func(m *geminiMessage) error {
		var cs []Comment
		if m.Set != nil {
			for i := range m.Set.Messages {
				cs = append(cs, geminiComments(session, &m.Set.Messages[i], true)...)
			}
		} else {
			cs = geminiComments(session, m, false)
		}
		for _, c := range cs {
			at, good := codexTime(c.CreatedAt)
			if !good {
				info.bad(fmt.Sprintf("message %s: timestamp %q is not an RFC 3339 time", clipBytes(string(c.ID), 80), c.CreatedAt))
				continue
			}
			c.CreatedAt = at
			if err := info.emit(c, emit); err != nil {
				return err
			}
		}
		return nil
	})
	return info, err
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
	im := claudeImport{s: s, ctx: ctx, rep: &rep.ClaudeReport, spaces: map[string]bool{}, progress: progress, source: SourceGemini}
	err = importFiles(&im, what, files, geminiFile.stat, func(f geminiFile, st claudeState, known bool) error {
		return im.readSession(f, st, known, geminiSessions)
	})
	return rep, err
}

// geminiSessions are Gemini CLI's session files for readSession: a header line names the
// session (the project, from the file's folder, names the space), and a resume's stub makes no
// task.
var geminiSessions = sessionKind{
	begin: func(im *claudeImport, fh *os.File, path string) (sessionBegin, string, error) {
		line, _, err := readLine(bufio.NewReaderSize(fh, 64<<10), im.s.maxLine)
		if err != nil && err != io.EOF {
			return sessionBegin{}, "", fmt.Errorf("read %s: %w", path, err)
		}
		var h geminiHeader
		if json.Unmarshal(bytes.TrimSpace(line), &h) != nil || h.SessionID == "" || h.ProjectHash == "" {
			return sessionBegin{}, "the first line is not a Gemini CLI session header (sessionId, projectHash)", nil
		}
		return sessionBegin{task: ID(h.SessionID), space: GeminiSpaceID(geminiProject(path)), name: geminiProject(path)}, "", nil
	},
	read: func(im *claudeImport, fh *os.File, start int64, lines int, task ID, emit func(Comment) error) (lineInfo, error) {
		return readGemini(fh, start, lines, im.s.maxLine, string(task), emit)
	},
	stubs: true,
}
