// Package claudecode reads Claude Code transcripts (~/.claude/projects/<project>/<session>.jsonl
// and <session>/subagents/agent-<id>.jsonl) into the comments of a space conversation: user
// prompts, assistant text, thinking and tool calls (by name). It depends on no other cairn package;
// core/spaces stores what it reads.
package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Authors of the comments read from a transcript.
const (
	AuthorUser  = "user"
	AuthorAgent = "agent"
)

// MaxToolBody bounds the stored body of a tool call (its input as JSON): the body is never indexed,
// only shown raw by a drill-down, and a Write or Edit input can be a whole file.
const MaxToolBody = 2000

// TitleRunes bounds a session title taken from its first prompt (see Title).
const TitleRunes = 80

// TitleLineBytes bounds the first line a title is taken from, before it is redacted and cut to
// TitleRunes: far more than a title needs, so a secret that a TitleRunes cut would break is whole.
const TitleLineBytes = 4096

// Title cuts a title line to TitleRunes runes, marking the cut with "…". Call it on a redacted
// line: a secret cut first would no longer look like one and a fragment of it would remain.
func Title(line string) string { return clip(line, TitleRunes*4, TitleRunes) }

// Comment is one comment of a session, in the comment kinds of a space (docs/formats.md).
type Comment struct {
	ID           string
	Kind         string // request, result, progress
	ProgressType string // thinking, summary, tool (progress only)
	ToolName     string
	Author       string
	CreatedAt    string // RFC 3339, as the transcript wrote it
	Body         string
	Attachments  []string
}

// BadLine is a transcript line that could not be read; the others still are.
type BadLine struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Info is what a read learned about the session besides its comments.
type Info struct {
	// Lines is how many lines were read, Offset the byte offset just after the last one used
	// (a torn last line, still being written, is left for the next read).
	Lines  int
	Offset int64
	// FirstPrompt is the first user prompt of the part read (its first line, at most
	// TitleLineBytes, not yet cut to a title); Summary the first summary line's text (the same);
	// CreatedAt the first timestamp; CWD the first working directory a line names.
	FirstPrompt string
	Summary     string
	CreatedAt   string
	CWD         string
	SessionID   string
	Skipped     int // lines read that carry nothing searchable (metadata, tool results, noise)
	Bad         []BadLine
}

// line is the part of a transcript line this package reads.
type line struct {
	Type             string          `json:"type"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	CWD              string          `json:"cwd"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Summary          string          `json:"summary"`
	Message          *message        `json:"message"`
	Content          json.RawMessage `json:"content"`
}

type message struct {
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
	Title    string          `json:"title"`
	Source   *struct {
		MediaType string `json:"media_type"`
	} `json:"source"`
}

// Read reads transcript lines from r (positioned at byte offset start of the file, at line number
// startLine) and calls emit for every comment, in file order. It stops at the first error emit
// returns. A line that is not JSON is reported in Info.Bad and skipped, except a torn last line
// without its newline, which is left unread (Info.Offset stops before it).
func Read(r io.Reader, start int64, startLine int, emit func(Comment) error) (Info, error) {
	info := Info{Offset: start, Lines: startLine, Bad: []BadLine{}}
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return info, fmt.Errorf("read line %d: %w", info.Lines+1, err)
		}
		if len(raw) == 0 {
			break
		}
		complete := raw[len(raw)-1] == '\n'
		data := bytes.TrimSpace(raw)
		if len(data) == 0 {
			info.Lines++
			info.Offset += int64(len(raw))
			if err == io.EOF {
				break
			}
			continue
		}
		if t, ok := topType(data); ok && complete && (t != "user" && t != "assistant" && t != "summary" || t == "user" && onlyToolResults(data)) {
			// housekeeping (attachment, system, file-history-snapshot, api-request, ...) or tool
			// results: nothing to index (scan.go)
			info.Lines++
			info.Offset += int64(len(raw))
			info.Skipped++
			if err == io.EOF {
				break
			}
			continue
		}
		var l line
		if jerr := json.Unmarshal(data, &l); jerr != nil {
			if !complete {
				break // being written: the next read starts here
			}
			info.Lines++
			info.Offset += int64(len(raw))
			info.Bad = append(info.Bad, BadLine{Line: info.Lines, Message: "not a JSON object: " + strings.TrimPrefix(jerr.Error(), "json: ")})
			continue
		}
		info.Lines++
		info.Offset += int64(len(raw))
		cs, bad := comments(&l)
		if bad != "" {
			info.Bad = append(info.Bad, BadLine{Line: info.Lines, Message: bad})
		}
		if info.SessionID == "" && l.SessionID != "" {
			info.SessionID = l.SessionID
		}
		if info.CWD == "" && l.CWD != "" {
			info.CWD = l.CWD
		}
		if info.CreatedAt == "" && len(cs) > 0 {
			info.CreatedAt = cs[0].CreatedAt
		}
		if l.Type == "summary" && info.Summary == "" {
			info.Summary = firstLine(l.Summary)
		}
		if len(cs) == 0 {
			info.Skipped++
		}
		for _, c := range cs {
			if info.FirstPrompt == "" && c.Kind == "request" {
				info.FirstPrompt = firstLine(c.Body)
			}
			if err := emit(c); err != nil {
				return info, err
			}
		}
		if err == io.EOF {
			break
		}
	}
	return info, nil
}

// comments maps one line to its comments: nothing for metadata (summary, file-history-snapshot,
// system records such as compact_boundary, isMeta lines), command noise and tool results; bad is
// set when a conversation line cannot be used.
func comments(l *line) (cs []Comment, bad string) {
	cs, bad = blockComments(l)
	if len(cs) == 0 {
		return nil, bad
	}
	// only a line that would give comments needs an id and a time
	if l.UUID == "" {
		return nil, l.Type + " line without a uuid"
	}
	at, ok := timestamp(l.Timestamp)
	if !ok {
		return nil, fmt.Sprintf("%s line %s: timestamp %q is not an RFC 3339 time", l.Type, l.UUID, l.Timestamp)
	}
	for i := range cs {
		cs[i].CreatedAt = at
	}
	return cs, ""
}

// blockComments maps the content of a user or assistant line to comments, without their time.
func blockComments(l *line) (cs []Comment, bad string) {
	if l.IsMeta || (l.Type != "user" && l.Type != "assistant") || l.Message == nil {
		return nil, ""
	}
	if l.Type == "assistant" && l.Message.Model == "<synthetic>" {
		return nil, "" // Claude Code's own stand-ins (API errors, "No response requested.")
	}
	author := AuthorUser
	if l.Type == "assistant" || l.IsSidechain {
		author = AuthorAgent // a subagent's prompt is written by the agent that started it
	}
	id := func(i int) string {
		if i == 0 {
			return l.UUID
		}
		return l.UUID + "." + strconv.Itoa(i)
	}
	content := bytes.TrimSpace(l.Message.Content)
	var blocks []block
	switch {
	case len(content) > 0 && content[0] == '"':
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return nil, "message content: " + err.Error()
		}
		blocks = []block{{Type: "text", Text: s}}
	case len(content) > 0 && content[0] == '[':
		if err := json.Unmarshal(content, &blocks); err != nil {
			return nil, "message content: " + strings.TrimPrefix(err.Error(), "json: ")
		}
	default:
		return nil, ""
	}
	if l.Type == "user" {
		// one request per user line: its text blocks joined, images and documents as attachments
		var texts, att []string
		images := 0
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if t := promptText(b.Text); t != "" {
					texts = append(texts, t)
				}
			case "image":
				images++
				att = append(att, fmt.Sprintf("image-%d.%s", images, imageExt(b)))
			case "document":
				name := strings.TrimSpace(b.Title)
				if name == "" {
					name = "document.pdf"
				}
				att = append(att, name)
			}
		}
		if len(texts) == 0 && len(att) == 0 {
			return nil, ""
		}
		c := Comment{ID: id(0), Kind: "request", Author: author, Body: strings.Join(texts, "\n\n"), Attachments: att}
		if l.IsCompactSummary {
			c.Kind, c.ProgressType, c.Author, c.Attachments = "progress", "summary", AuthorAgent, nil
		}
		return []Comment{c}, ""
	}
	for i, b := range blocks {
		c := Comment{ID: id(i), Author: author}
		switch b.Type {
		case "text":
			t := strings.TrimSpace(b.Text)
			if t == "" || t == "No response requested." {
				continue
			}
			c.Kind, c.Body = "result", b.Text
		case "thinking":
			if strings.TrimSpace(b.Thinking) == "" {
				continue
			}
			c.Kind, c.ProgressType, c.Body = "progress", "thinking", b.Thinking
		case "tool_use", "server_tool_use":
			if b.Name == "" {
				continue
			}
			c.Kind, c.ProgressType, c.ToolName, c.Body = "progress", "tool", b.Name, clip(string(b.Input), MaxToolBody)
		default:
			continue // redacted_thinking, tool results of server tools, unknown blocks
		}
		cs = append(cs, c)
	}
	return cs, ""
}

// noisePrefixes start user text that Claude Code writes itself: local command output, bash mode,
// interruptions, reminders and hook output.
var noisePrefixes = []string{
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "<system-reminder>",
	"<user-prompt-submit-hook>", "[Request interrupted by user",
}

// promptText is the searchable part of a user text block: "" for noise; a slash command as
// "/name args" (or nothing when it has no arguments: /clear, /compact and the like).
func promptText(s string) string {
	t := strings.TrimSpace(stripReminders(s))
	if strings.HasPrefix(t, "<command-name>") || strings.HasPrefix(t, "<command-message>") {
		name := strings.TrimSpace(between(t, "<command-name>", "</command-name>"))
		args := strings.TrimSpace(between(t, "<command-args>", "</command-args>"))
		if args == "" {
			return ""
		}
		return strings.TrimSpace(name + " " + args)
	}
	for _, p := range noisePrefixes {
		if strings.HasPrefix(t, p) {
			return ""
		}
	}
	return t
}

// stripReminders removes the <system-reminder>...</system-reminder> spans Claude Code adds to user
// text (a compaction summary lists the tools used before it in one).
func stripReminders(s string) string {
	const open, close = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], close)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(close):]
	}
}

func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, close); j >= 0 {
		return s[:j]
	}
	return s
}

func imageExt(b block) string {
	if b.Source != nil {
		if _, sub, ok := strings.Cut(b.Source.MediaType, "/"); ok && sub != "" && len(sub) <= 10 && !strings.ContainsAny(sub, " /\\") {
			return sub
		}
	}
	return "png"
}

// timestamp checks an RFC 3339 time and gives it back in UTC.
func timestamp(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 1678 || t.Year() > 2261 {
		return "", false
	}
	return t.UTC().Format(time.RFC3339Nano), true
}

// firstLine is the first non-empty line of s, at most TitleLineBytes.
func firstLine(s string) string {
	for _, ln := range strings.Split(s, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			return clip(ln, TitleLineBytes)
		}
	}
	return ""
}

// clip cuts s to at most maxBytes bytes (and maxRunes runes when given) on a rune boundary,
// marking a cut with "…".
func clip(s string, maxBytes int, maxRunes ...int) string {
	cut := false
	if len(maxRunes) > 0 && utf8.RuneCountInString(s) > maxRunes[0] {
		n := 0
		for i := range s {
			if n == maxRunes[0] {
				s, cut = s[:i], true
				break
			}
			n++
		}
	}
	if len(s) > maxBytes {
		i := maxBytes
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	if cut {
		return s + "…"
	}
	return s
}
