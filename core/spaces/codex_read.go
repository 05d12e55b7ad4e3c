package spaces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/core/claudecode"
)

// A Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl, as Codex 0.171.0
// writes it; scripts/codex-harness/README.md) is one record a line:
// {"timestamp", "ordinal", "type", "payload"} (and "metadata" beside a response item). What is read:
// session_meta (the session id and working directory), response_item (messages, reasoning, tool
// calls) and compacted (the summary). The other known types carry nothing to search; an unknown
// type is skipped and counted.

// codexLine is the part of a rollout line this file reads.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	Metadata  *struct {
		CompactionOutput bool `json:"compaction_output"`
	} `json:"metadata"`
}

// codexMeta is a session_meta payload.
type codexMeta struct {
	ID           string `json:"id"`
	SessionID    string `json:"session_id"`
	CWD          string `json:"cwd"`
	CLIVersion   string `json:"cli_version"`
	Originator   string `json:"originator"`
	ForkedFromID string `json:"forked_from_id"`
	HistoryBase  *struct {
		ThreadID string `json:"thread_id"`
	} `json:"history_base"`
}

// id is the session's id: the record's id, else its session_id.
func (m codexMeta) id() string {
	if m.ID != "" {
		return m.ID
	}
	return m.SessionID
}

// codexItem is a response_item payload: a Responses API item.
type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Action    json.RawMessage `json:"action"`
	Summary   []codexPart     `json:"summary"`
	Passthru  *struct {
		ContentItemKinds []string `json:"content_item_kinds"`
	} `json:"internal_chat_message_metadata_passthrough"`
}

// codexPart is one content item of a message, or one part of a reasoning item.
type codexPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// codexCompacted is a compacted payload.
type codexCompacted struct {
	Message string `json:"message"`
}

// codexSkipped are the record types that carry nothing to search (events repeat the response
// items; the others are settings, state and usage).
var codexSkipped = map[string]bool{
	"event_msg": true, "turn_context": true, "world_state": true, "token_usage_record": true,
	"inter_agent_communication": true, "security_risk_score": true,
}

// codexSkippedItems are the response item types that carry nothing to search: tool results (as
// the Claude Code import, never stored) and Codex's own bookkeeping.
var codexSkippedItems = map[string]bool{
	"function_call_output": true, "custom_tool_call_output": true, "tool_search_output": true,
	"compaction": true, "compaction_summary": true, "ghost_snapshot": true, "other": true,
}

// codexSummaryPrefix starts the summary Codex gives the model after a compaction; the summary
// proper follows it.
const codexSummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process."

// codexInjected start the user text Codex writes itself (an older rollout has no
// content_item_kinds to say so): context, instructions, the compaction prompt and summary.
var codexInjected = []string{
	"<environment_context>", "<user_instructions>", "<skills_instructions>", "<permissions instructions>",
	"<collaboration_mode>", "<developer_instructions>", "<turn_aborted>", "<user_shell_command>",
	"<subagent_notification>", "# AGENTS.md instructions for ", "<INSTRUCTIONS>",
	"You are performing a CONTEXT CHECKPOINT COMPACTION", codexSummaryPrefix,
}

// codexInfo is what a read learned besides the comments: a session read's, and the records of
// types this build does not read, by type.
type codexInfo struct {
	lineInfo
	Unknown map[string]int
}

// readCodexMeta reads the session_meta record a rollout opens with; a zero codexMeta when the
// first line is something else (the caller names the session after its file).
func readCodexMeta(r io.Reader, maxLine int) (codexMeta, error) {
	var m codexMeta
	line, _, err := readLine(bufio.NewReaderSize(r, 64<<10), maxLine)
	if err != nil && err != io.EOF {
		return m, err
	}
	var l codexLine
	if json.Unmarshal(bytes.TrimSpace(line), &l) != nil || l.Type != "session_meta" {
		return m, nil
	}
	if json.Unmarshal(l.Payload, &m) != nil {
		return codexMeta{}, nil
	}
	return m, nil
}

// readCodex reads rollout lines from r (positioned at byte offset start of the file, at line
// number startLine) and calls emit for every comment, in file order, with its id
// (<session>.<line number>), kind, author, time and body; the caller sets its task. A line that is
// not JSON, or a record that cannot be used, is reported in Bad and skipped, except a torn last
// line without its newline, which is left unread.
func readCodex(r io.Reader, start int64, startLine, maxLine int, session string, emit func(Comment) error) (codexInfo, error) {
	info := codexInfo{lineInfo: lineInfo{Offset: start, Lines: startLine, Bad: []claudecode.BadLine{}}, Unknown: map[string]int{}}
	skip := func(data []byte) bool { t, ok := lineType(data); return ok && codexSkipped[t] }
	err := readJSONLines(r, &info.lineInfo, maxLine, skip, func(l *codexLine) error {
		c, ok, bad := codexComment(l, &info)
		if bad != "" {
			info.bad(bad)
		}
		if ok {
			at, good := codexTime(l.Timestamp)
			if !good {
				info.bad(fmt.Sprintf("%s record: timestamp %q is not an RFC 3339 time", l.Type, l.Timestamp))
				ok = false
			}
			c.CreatedAt = at
		}
		if !ok {
			return nil
		}
		c.ID = ID(fmt.Sprintf("%s.%08d", session, info.Lines))
		return info.emit(c, emit)
	})
	return info, err
}

// codexComment maps one record to its comment: ok is false when it carries nothing to search; bad
// is set when a record of a known type cannot be used. An unknown type is counted in info.
func codexComment(l *codexLine, info *codexInfo) (c Comment, ok bool, bad string) {
	switch l.Type {
	case "session_meta":
		return c, false, ""
	case "compacted":
		var p codexCompacted
		if err := json.Unmarshal(l.Payload, &p); err != nil {
			return c, false, "compacted record: " + strings.TrimPrefix(err.Error(), "json: ")
		}
		text := p.Message
		if strings.HasPrefix(text, codexSummaryPrefix) {
			// Codex's preamble ends with a colon and a line break; the summary follows
			if i := strings.Index(text, ":\n"); i >= 0 {
				text = text[i+2:]
			} else {
				text = ""
			}
		}
		if strings.TrimSpace(text) == "" {
			return c, false, ""
		}
		return Comment{Kind: "progress", ProgressType: "summary", Author: claudecode.AuthorAgent, Body: strings.TrimSpace(text)}, true, ""
	case "response_item":
	default:
		if codexSkipped[l.Type] {
			return c, false, ""
		}
		info.Unknown[codexTypeName(l.Type)]++
		return c, false, ""
	}
	var it codexItem
	if err := json.Unmarshal(l.Payload, &it); err != nil {
		return c, false, "response_item record: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	switch it.Type {
	case "message":
		return codexMessage(l, &it)
	case "reasoning":
		var texts []string
		for _, p := range it.Summary {
			if t := strings.TrimSpace(p.Text); t != "" {
				texts = append(texts, t)
			}
		}
		if len(texts) == 0 {
			var content []codexPart
			if json.Unmarshal(it.Content, &content) == nil {
				for _, p := range content {
					if t := strings.TrimSpace(p.Text); t != "" {
						texts = append(texts, t)
					}
				}
			}
		}
		if len(texts) == 0 {
			return c, false, "" // encrypted reasoning only
		}
		return Comment{Kind: "progress", ProgressType: "thinking", Author: claudecode.AuthorAgent, Body: strings.Join(texts, "\n\n")}, true, ""
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		name := it.Name
		body := it.Arguments
		switch it.Type {
		case "custom_tool_call":
			body = it.Input
		case "local_shell_call", "web_search_call", "tool_search_call":
			if name == "" {
				name = strings.TrimSuffix(it.Type, "_call")
			}
			body = string(it.Action)
		}
		if name == "" {
			return c, false, it.Type + " without a name"
		}
		if it.Namespace != "" {
			name = it.Namespace + "__" + name // mcp__<server>__<tool>, as Claude Code names MCP tools
		}
		return Comment{Kind: "progress", ProgressType: "tool", ToolName: name, Author: claudecode.AuthorAgent,
			Body: clipBytes(body, claudecode.MaxToolBody)}, true, ""
	default:
		if codexSkippedItems[it.Type] {
			return c, false, ""
		}
		info.Unknown[codexTypeName("response_item/"+it.Type)]++
		return c, false, ""
	}
}

// codexMessage maps a message item: a user prompt to a request (images as attachment names), an
// assistant message to a result; developer and system messages, and the text Codex injects as
// user messages, to nothing.
func codexMessage(l *codexLine, it *codexItem) (c Comment, ok bool, bad string) {
	if it.Role != "user" && it.Role != "assistant" {
		return c, false, ""
	}
	if it.Role == "assistant" && l.Metadata != nil && l.Metadata.CompactionOutput {
		return c, false, "" // the compaction's answer: kept once, from the compacted record
	}
	var parts []codexPart
	content := bytes.TrimSpace(it.Content)
	switch {
	case len(content) > 0 && content[0] == '"':
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return c, false, "message content: " + err.Error()
		}
		parts = []codexPart{{Type: "input_text", Text: s}}
		if it.Role == "assistant" {
			parts[0].Type = "output_text"
		}
	case len(content) > 0 && content[0] == '[':
		if err := json.Unmarshal(content, &parts); err != nil {
			return c, false, "message content: " + strings.TrimPrefix(err.Error(), "json: ")
		}
	default:
		return c, false, ""
	}
	var kinds []string
	if it.Passthru != nil {
		kinds = it.Passthru.ContentItemKinds
	}
	var texts, att []string
	images := 0
	for i, p := range parts {
		if it.Role == "user" && i < len(kinds) && len(kinds) == len(parts) && !strings.HasPrefix(kinds[i], "user.") {
			continue // environment context, hook context, instructions: written by Codex
		}
		switch p.Type {
		case "input_text", "output_text", "text":
			t := strings.TrimSpace(p.Text)
			if t == "" || it.Role == "user" && codexIsInjected(t) {
				continue
			}
			texts = append(texts, t)
		case "input_image":
			if it.Role == "user" {
				images++
				att = append(att, fmt.Sprintf("image-%d.%s", images, codexImageExt(p.ImageURL)))
			}
		}
	}
	if len(texts) == 0 && len(att) == 0 {
		return c, false, ""
	}
	if it.Role == "assistant" {
		return Comment{Kind: "result", Author: claudecode.AuthorAgent, Body: strings.Join(texts, "\n\n")}, true, ""
	}
	return Comment{Kind: "request", Author: claudecode.AuthorUser, Body: strings.Join(texts, "\n\n"), Attachments: att}, true, ""
}

// codexIsInjected reports whether a user text is one Codex writes itself.
func codexIsInjected(t string) bool {
	for _, p := range codexInjected {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// codexImageExt is the file extension of an image given as a data: URL, else png.
func codexImageExt(url string) string {
	if rest, ok := strings.CutPrefix(url, "data:image/"); ok {
		if sub, _, ok := strings.Cut(rest, ";"); ok && sub != "" && len(sub) <= 10 && !strings.ContainsAny(sub, " /\\,") {
			return sub
		}
	}
	return "png"
}

// codexTypeName bounds an unknown type's name for the report.
func codexTypeName(t string) string {
	if t == "" {
		return "(no type)"
	}
	return clipBytes(t, 64)
}

// codexTime checks an RFC 3339 time and gives it back in UTC.
func codexTime(s string) (string, bool) {
	t, err := parseTime("timestamp", s)
	if err != nil {
		return "", false
	}
	return formatTime(t), true
}

// codexFirstLine is the first non-empty line of s, at most claudecode.TitleLineBytes.
func codexFirstLine(s string) string {
	for _, ln := range strings.Split(s, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			return clipBytes(ln, claudecode.TitleLineBytes)
		}
	}
	return ""
}

// clipBytes cuts s to at most max bytes on a rune boundary, marking a cut with "…".
func clipBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
