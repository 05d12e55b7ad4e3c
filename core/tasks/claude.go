package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/core/jsonscan"
	"github.com/cairn-dev/cairn/core/sessionlog"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Session log formats.
const (
	FormatAuto   = "auto"
	FormatCairn  = "cairn"
	FormatClaude = "claude"
)

// Formats lists the session log formats, for validation messages.
var Formats = []string{FormatAuto, FormatCairn, FormatClaude, FormatCodex, FormatGemini}

// claudeKeys are top-level keys only Claude Code transcript records carry.
var claudeKeys = map[string]bool{
	"sessionId": true, "parentUuid": true, "uuid": true, "leafUuid": true, "isSidechain": true,
	"logicalParentUuid": true,
}

// claudeTypes are record types Claude Code writes and cairn never does; "system" is shared, so
// it is told apart by the keys above.
var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "summary": true, "file-history-snapshot": true,
	"queue-operation": true, "attachment": true, "permission-mode": true, "last-prompt": true,
	"custom-title": true, "ai-title": true, "agent-name": true, "tag": true, "mode": true,
	"cost-state": true, "progress": true, "pr-link": true, "worktree-state": true,
	"content-replacement": true,
}

// cairnTypes are the entry types of a cairn log.
var cairnTypes = map[string]bool{
	sessionlog.TypeToolCall: true, sessionlog.TypeToolResult: true, sessionlog.TypeCompact: true,
	sessionlog.TypeSystem: true, sessionlog.TypeMessage: true,
}

const (
	lineOther = iota
	lineCairn
	lineClaude
	lineCodex
	lineGemini
)

// classify says whether a line is a Claude Code record, a cairn entry, or neither (blank,
// invalid, or a type no format claims).
func classify(data []byte) int {
	typ := ""
	claude, gemini, sessionID := false, false, false
	if !scanTop(data, func(k, v []byte) bool {
		key := string(k)
		if isGeminiKey(key) {
			gemini = true
			return false
		}
		if key == "sessionId" {
			sessionID = true // a Claude Code key, unless the line is a Gemini CLI session's header
			return true
		}
		if claudeKeys[key] {
			claude = true
			return false
		}
		if key == "type" {
			typ = rawString(v)
		}
		return true
	}) {
		return lineOther
	}
	switch {
	case gemini, typ == "gemini":
		return lineGemini
	case claude, sessionID, claudeTypes[typ], strings.HasPrefix(typ, "api-request"):
		return lineClaude
	case cairnTypes[typ]:
		return lineCairn
	case codexTypes[typ] && isCodexLine(data):
		return lineCodex
	}
	return lineOther
}

// DetectFormat reads a log until a line decides: the first Claude Code record (a line with
// uuid/parentUuid/sessionId/leafUuid, or a type such as file-history-snapshot, queue-operation,
// user, assistant) makes it a transcript, the first cairn entry a cairn log. Lines neither format
// claims (blank, invalid, housekeeping of other tools) are passed over, however many lead the file.
func DetectFormat(r io.Reader) string {
	sc := sessionlog.NewScanner(r)
	for sc.Next() {
		switch classify(sc.Line().Data) {
		case lineClaude:
			return FormatClaude
		case lineCairn:
			return FormatCairn
		case lineCodex:
			return FormatCodex
		case lineGemini:
			return FormatGemini
		}
	}
	return FormatCairn
}

// markClaudeKeys are the bytes one of which every Claude Code record holds, so HoldsTranscript
// classifies only the lines that may be one.
var markClaudeKeys = [][]byte{[]byte(`"sessionId"`), []byte(`"uuid"`), []byte(`"parentUuid"`), []byte(`"leafUuid"`), []byte(`"isSidechain"`), []byte(`"type"`)}

var cairnTypePrefixes = [][]byte{[]byte(`tool_call"`), []byte(`tool_result"`), []byte(`compact"`), []byte(`message"`), []byte(`system","lane"`)}

// HoldsTranscript reports whether any line of r is a Claude Code record: cairn never writes to
// such a file, whatever its first lines are.
func HoldsTranscript(r io.Reader) (bool, error) {
	found := false
	err := sessionlog.Filter(r, func(data []byte) bool {
		if rest, ok := bytes.CutPrefix(data, typePrefix); ok {
			for _, t := range cairnTypePrefixes {
				if bytes.HasPrefix(rest, t) {
					return false // cairn's own entries, written type first; Claude Code never writes these types
				}
			}
		}
		for _, m := range markClaudeKeys {
			if bytes.Contains(data, m) {
				return classify(data) == lineClaude
			}
		}
		return false
	}, func(ln sessionlog.Line) bool {
		if ln.Torn && classify(ln.Data) != lineClaude {
			return true // Filter hands over a torn final line whatever the pre-filter says
		}
		found = true
		return false
	})
	return found, err
}

type claudeNode struct {
	parent    string
	line      int
	sidechain bool
}

// Tool families a transcript records.
const (
	toolNative = iota // Claude Code's own TaskCreate/TaskUpdate (taskId, in_progress)
	toolMCP           // cairn's tools through `cairn mcp` (mcp__<server>__TaskCreate): cairn's schema
	toolTodo          // TodoWrite: the whole list each call
)

type claudeCall struct {
	uuid   string
	toolID string
	family int
	name   string
	input  json.RawMessage
	line   int
	at     string
	// sub is the subagent transcript the call is in, subLine its line there.
	sub     *SubagentLog
	subLine int
}

// familyList names the list each tool family writes: lists never merge across families.
var familyList = [...]string{toolNative: ListTasks, toolMCP: ListCairn, toolTodo: ListTodos}

// claudeAnswer is what a call's tool_result says: failure, or the id a TaskCreate got.
type claudeAnswer struct {
	failed bool
	id     int
}

// taskTool recognises a task tool by the name a transcript records.
func taskTool(name string) (family int, base string, ok bool) {
	switch name {
	case "TaskCreate", "TaskUpdate":
		return toolNative, name, true
	case "TodoWrite":
		return toolTodo, name, true
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if i := strings.LastIndex(rest, "__"); i > 0 {
			switch base := rest[i+2:]; base {
			case "TaskCreate", "TaskUpdate":
				return toolMCP, base, true
			}
		}
	}
	return 0, "", false
}

var (
	reCreatedAnswer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*Task #([0-9]+) created successfully`) })
)

// lineFields are the top-level fields of a transcript record that replay reads, and the blocks
// of its message, read in one structural pass over the line.
type lineFields struct {
	typ, subtype, uuid, parent, logical, at, session string
	// requestSessionId, on records a fork copied from its parent: the parent's session id
	requestSession                      string
	sidechain                           bool
	blocks                              []blockInfo
	toolUseResult, mcpMeta, compactMeta []byte
}

// blockInfo is one content block: its small fields, and the raw input or content.
type blockInfo struct {
	typ, name, id, toolUseID string
	isError                  bool
	input, content           []byte
}

func readFields(data []byte, f *lineFields) bool {
	blocks := f.blocks[:0]
	*f = lineFields{blocks: blocks}
	i := jsonscan.SkipWS(data, 0)
	n := jsonscan.Object(data[i:], func(k, rest []byte) int {
		switch string(k) {
		case "message":
			if len(rest) > 0 && rest[0] == '{' {
				return jsonscan.Object(rest, func(k, rest []byte) int {
					if string(k) == "content" && len(rest) > 0 && rest[0] == '[' {
						return scanBlocks(rest, f)
					}
					return jsonscan.ValueEnd(rest, 0)
				})
			}
			return jsonscan.ValueEnd(rest, 0)
		}
		end := jsonscan.ValueEnd(rest, 0)
		if end < 0 {
			return end
		}
		v := rest[:end]
		switch string(k) {
		case "type":
			f.typ = rawString(v)
		case "subtype":
			f.subtype = rawString(v)
		case "uuid":
			f.uuid = rawString(v)
		case "parentUuid":
			f.parent = rawString(v)
		case "logicalParentUuid":
			f.logical = rawString(v)
		case "timestamp":
			f.at = rawString(v)
		case "sessionId":
			f.session = rawString(v)
		case "requestSessionId":
			f.requestSession = rawString(v)
		case "isSidechain":
			f.sidechain = string(v) == "true"
		case "toolUseResult":
			f.toolUseResult = v
		case "mcpMeta":
			f.mcpMeta = v
		case "compactMetadata":
			f.compactMeta = v
		}
		return end
	})
	return n > 0 && len(bytes.TrimSpace(data[i+n:])) == 0
}

// scanBlocks reads the array of content blocks at the start of data into f.blocks and returns
// the array's length, or -1.
func scanBlocks(data []byte, f *lineFields) int {
	return jsonscan.Array(data, func(elem []byte) int {
		if elem[0] != '{' {
			return jsonscan.ValueEnd(elem, 0)
		}
		var b blockInfo
		n := jsonscan.Object(elem, func(k, rest []byte) int {
			end := jsonscan.ValueEnd(rest, 0)
			if end < 0 {
				return end
			}
			v := rest[:end]
			switch string(k) {
			case "type":
				b.typ = rawString(v)
			case "name":
				b.name = rawString(v)
			case "id":
				b.id = rawString(v)
			case "tool_use_id":
				b.toolUseID = rawString(v)
			case "is_error":
				b.isError = string(v) == "true"
			case "input":
				b.input = v
			case "content":
				b.content = v
			}
			return end
		})
		if n > 0 {
			f.blocks = append(f.blocks, b)
		}
		return n
	})
}

// ReplayClaude replays a Claude Code transcript. The live branch is the parentUuid chain that
// ends at the newest record of the main conversation: subagent (sidechain) records and
// tool_result records (a side leaf when one reply holds several tool_use blocks) never choose it.
// A compact_boundary continues through logicalParentUuid, or, when that names no record (as
// Claude Code 2.1 writes it), through compactMetadata.preservedSegment.tailUuid, else the record
// that was the leaf when the compaction happened.
// Task calls on that branch and in subagents (sidechain records, and the subagent transcripts
// replayClaude is given, merged in time order) are applied, minus calls whose tool_result has
// is_error; a TaskCreate takes the id Claude Code answered ("Task #N created
// successfully", toolUseResult.task.id, or cairn's JSON through MCP) and is renumbered only
// when no answer is found. A live TodoWrite replaces the list. It never writes to the file.
func ReplayClaude(log io.Reader, r *Replayer, stop Stop, counts *Counts) error {
	return replayClaude(log, nil, r, stop, counts)
}

// SubagentLog is the transcript of a subagent Claude Code wrote beside the session's
// (<session-id>/subagents/agent-<id>.jsonl). A subagent shares the session's task list; its
// calls count when the Agent tool_use that started it is live.
type SubagentLog struct {
	Path string
	// ToolUseID is the Agent tool_use that started it (from agent-<id>.meta.json), if known.
	ToolUseID string
}

// SubagentLogs lists the subagent transcripts beside a session transcript, sorted by name.
func SubagentLogs(transcript string) []SubagentLog {
	dir := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents")
	paths, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	sort.Strings(paths)
	out := make([]SubagentLog, 0, len(paths))
	for _, p := range paths {
		sl := SubagentLog{Path: p}
		if data, err := workspace.ReadSmall(strings.TrimSuffix(p, ".jsonl")+".meta.json", 1<<20, ""); err == nil {
			var meta struct {
				ToolUseID string `json:"toolUseId"`
			}
			if json.Unmarshal(data, &meta) == nil {
				sl.ToolUseID = meta.ToolUseID
			}
		}
		out = append(out, sl)
	}
	return out
}

// claudeScan is what the scan of a transcript (and its subagents) collects.
type claudeScan struct {
	nodes   map[string]claudeNode
	calls   []claudeCall
	answers map[string]claudeAnswer
	asked   map[string]bool
	agents  map[string]string // Agent tool_use id -> the record that holds it
	leaf    string
	f       lineFields
}

// scan reads one transcript. In the main one (sub == nil) it builds the tree; in a subagent's
// it only collects calls and answers, each call tied to the Agent call that started it.
func (st *claudeScan) scan(log io.Reader, sub *SubagentLog, r *Replayer, stop Stop, counts *Counts) error {
	f := &st.f
	sc := sessionlog.NewScanner(log)
	for sc.Next() {
		ln := sc.Line()
		if sub == nil && stop.afterLine(ln.No) {
			break
		}
		if sub == nil && counts != nil {
			counts.Lines = ln.No
		}
		if ln.Torn {
			if sub == nil {
				r.skip(ln.No, "torn final line (no newline): an unfinished write")
			}
			continue
		}
		data := ln.Data
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if !readFields(data, f) {
			if sub == nil {
				r.skip(ln.No, "not valid JSON")
			}
			continue
		}
		if sub == nil && counts != nil {
			t := f.typ
			if t == "" {
				t = "(no type)"
			}
			counts.ByType[t]++
			if counts.SessionID == "" && !f.sidechain && f.session != "" {
				counts.SessionID = f.session
			}
		}
		if sub == nil && !f.sidechain && f.requestSession != "" && f.requestSession != f.session && r.Origin == nil && safeSegment(f.requestSession) {
			r.Origin = &ForkOrigin{Session: f.requestSession} // the first copied record names the parent
		}
		if f.uuid == "" {
			continue // summaries, snapshots and housekeeping records are not part of the tree
		}
		if stop.afterTime(f.at) {
			break
		}
		if sub == nil {
			parent := f.parent
			if parent == "" && f.subtype == "compact_boundary" {
				parent = st.leaf
				if _, ok := st.nodes[f.logical]; ok && f.logical != "" {
					parent = f.logical
				} else if tail := preservedTail(f.compactMeta); tail != "" {
					if _, ok := st.nodes[tail]; ok {
						parent = tail
					}
				}
			}
			st.nodes[f.uuid] = claudeNode{parent: parent, line: ln.No, sidechain: f.sidechain}
		}
		results := len(f.blocks) > 0
		for _, b := range f.blocks {
			switch b.typ {
			case "tool_use":
				results = false
				if sub == nil && (b.name == "Agent" || b.name == "Task") {
					st.agents[b.id] = f.uuid
				}
				family, base, ok := taskTool(b.name)
				if !ok {
					continue
				}
				c := claudeCall{uuid: f.uuid, toolID: b.id, family: family, name: base,
					input: append(json.RawMessage(nil), b.input...), line: ln.No, at: f.at}
				if sub != nil {
					c.sub, c.subLine = sub, ln.No
				}
				st.calls = append(st.calls, c)
				st.asked[b.id] = true
				if family == toolMCP {
					r.MCPPrefix = strings.TrimSuffix(b.name, base)
				}
			case "tool_result":
				if !b.isError && !st.asked[b.toolUseID] {
					continue // the answer of a call replay does not care about
				}
				a := st.answers[b.toolUseID]
				a.failed = a.failed || b.isError || refused(b.content, f, len(f.blocks) == 1)
				if id := answeredID(b.content, f, len(f.blocks) == 1); id > 0 {
					a.id = id
				}
				st.answers[b.toolUseID] = a
			default:
				results = false
			}
		}
		if sub == nil && !f.sidechain && !results {
			st.leaf = f.uuid
		}
	}
	return sc.Err()
}

func replayClaude(log io.Reader, subs []SubagentLog, r *Replayer, stop Stop, counts *Counts) error {
	st := &claudeScan{nodes: map[string]claudeNode{}, answers: map[string]claudeAnswer{}, asked: map[string]bool{}, agents: map[string]string{}}
	if err := st.scan(log, nil, r, stop, counts); err != nil {
		return err
	}
	live := map[string]bool{}
	for id := st.leaf; id != "" && !live[id]; id = st.nodes[id].parent {
		if _, ok := st.nodes[id]; !ok {
			break
		}
		live[id] = true
	}
	main := len(st.calls)
	for i := range subs {
		sub := &subs[i]
		anchor, known := st.agents[sub.ToolUseID]
		if sub.ToolUseID != "" && !known {
			continue // started by a call this replay never reached (--as-of) or does not have
		}
		f, err := workspace.OpenRegular(sub.Path, "transcript")
		if err != nil {
			continue // a subagent that cannot be read leaves the session's own calls intact
		}
		before := len(st.calls)
		err = st.scan(f, sub, r, stop, nil)
		f.Close()
		if err != nil {
			return fmt.Errorf("read subagent transcript %s: %w", sub.Path, err)
		}
		for j := before; j < len(st.calls); j++ {
			c := &st.calls[j]
			c.uuid, c.line = anchor, st.nodes[anchor].line
		}
	}
	calls := st.calls
	if len(calls) > main {
		// subagent calls happened between the Agent call and its answer: order all by time
		sort.SliceStable(calls, func(i, j int) bool { return calls[i].at < calls[j].at })
	}
	r.Lists = map[string]int{}
	for _, c := range calls {
		r.Lists[familyList[c.family]]++
	}
	r.List = r.Want
	if r.List == "" || r.List == ListAuto {
		r.List = pickList(r.Lists)
	}
	for _, c := range calls {
		r := r
		if l := familyList[c.family]; l != r.List {
			if r = r.Also[l]; r == nil {
				continue // another tool family's list: replayed on its own
			}
		}
		ans := st.answers[c.toolID]
		where := ""
		if c.sub != nil {
			where = fmt.Sprintf(" (subagent %s line %d)", filepath.Base(c.sub.Path), c.subLine)
		}
		switch {
		case c.uuid != "" && !live[c.uuid] && !st.nodes[c.uuid].sidechain:
			r.skip(c.line, "call %s%s is on an abandoned branch (rewound or forked)", c.toolID, where)
		case ans.failed:
			r.skip(c.line, "call %s%s failed (its tool_result has is_error)", c.toolID, where)
		default:
			ev, err := claudeEvent(c, ans)
			var u unmodelled
			switch {
			case errors.As(err, &u):
				r.note(c.line, "call %s%s changes only fields cairn's task model does not have (%s)", c.toolID, where, string(u))
				continue
			case err != nil:
				r.skip(c.line, "%s input%s: %v", c.name, where, err)
				continue
			}
			if ev.Kind == Create && ev.TaskID == 0 {
				r.note(c.line, "call %s%s: no \"Task #N created\" answer found, so the task was numbered by replay (%d)", c.toolID, where, r.Store.NextID())
			}
			skips := len(r.Skips)
			r.Apply(ev)
			for i := skips; i < len(r.Skips) && where != ""; i++ {
				r.Skips[i].Reason += where // what replay refused of a subagent's call: say where it is
			}
		}
	}
	for l, o := range r.Also {
		o.List, o.Lists = l, r.Lists
		sort.SliceStable(o.Skips, func(i, j int) bool { return o.Skips[i].Line < o.Skips[j].Line })
	}
	sort.SliceStable(r.Skips, func(i, j int) bool { return r.Skips[i].Line < r.Skips[j].Line })
	return nil
}

// pickList is the list a transcript is shown as when none is asked for: cairn's when its tools
// were called, else the runtime's own.
func pickList(lists map[string]int) string {
	for _, l := range Lists[1:] { // cairn's first, then the runtimes' in their order
		if lists[l] > 0 {
			return l
		}
	}
	return ListCairn
}

// refused reports whether a tool_result without is_error still says the runtime refused the call:
// Claude Code answers a built-in task tool it could not apply with toolUseResult.success false
// ("Task not found"), and wraps errors in <tool_use_error>.
func refused(content []byte, f *lineFields, sole bool) bool {
	if sole && len(f.toolUseResult) > 0 && f.toolUseResult[0] == '{' {
		var tur struct {
			Success *bool `json:"success"`
		}
		if json.Unmarshal(f.toolUseResult, &tur) == nil && tur.Success != nil && !*tur.Success {
			return true
		}
	}
	return strings.HasPrefix(strings.TrimSpace(resultText(content)), "<tool_use_error>")
}

// preservedTail is compactMetadata.preservedSegment.tailUuid: the last record before the
// compaction, as Claude Code 2.1 names it.
func preservedTail(meta []byte) string {
	var m struct {
		PreservedSegment struct {
			TailUUID string `json:"tailUuid"`
		} `json:"preservedSegment"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return ""
	}
	return m.PreservedSegment.TailUUID
}

// answeredID finds the id a TaskCreate got in its tool_result: Claude Code's text answer, its
// structured toolUseResult, or cairn's JSON answer (as text, or as MCP structuredContent).
func answeredID(content []byte, f *lineFields, sole bool) int {
	text := resultText(content)
	if m := reCreatedAnswer().FindStringSubmatch(text); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 && n <= MaxID {
			return n
		}
	}
	if sole && len(f.toolUseResult) > 0 {
		var tur struct {
			Task *struct {
				ID json.RawMessage `json:"id"`
			} `json:"task"`
		}
		if json.Unmarshal(f.toolUseResult, &tur) == nil && tur.Task != nil {
			if n := idValue(tur.Task.ID); n > 0 {
				return n
			}
		}
	}
	var cairnAnswer struct {
		Task *struct {
			TaskID int `json:"taskid"`
		} `json:"task"`
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &cairnAnswer) == nil && cairnAnswer.Task != nil && cairnAnswer.Task.TaskID > 0 {
		return cairnAnswer.Task.TaskID
	}
	if sole && len(f.mcpMeta) > 0 {
		var meta struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(f.mcpMeta, &meta) == nil && json.Unmarshal(meta.StructuredContent, &cairnAnswer) == nil && cairnAnswer.Task != nil && cairnAnswer.Task.TaskID > 0 {
			return cairnAnswer.Task.TaskID
		}
	}
	return 0
}

// resultText is a tool_result's content as text: a string, or the text blocks of an array.
func resultText(content []byte) string { return contentText(content, true) }

// contentText is a tool's answer as a transcript records it, as text: a string, or the text of
// an array's items (with typed, only those of type "text").
func contentText(raw []byte, typed bool) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range items {
		if !typed || it.Type == "text" {
			b.WriteString(it.Text)
		}
	}
	return b.String()
}

// idValue reads a task id written as a number or as a string holding one.
func idValue(raw json.RawMessage) int {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	return 0
}

// nativeKeys are the input keys of Claude Code's task tools that cairn's model has, spelt as
// Claude Code spells them; other keys (activeForm, owner, blocks, metadata...) are dropped.
var nativeKeys = []string{"subject", "description", "taskId", "status"}

// claudeEvent converts a call into cairn's event. Claude Code's own tools: taskId (a string)
// becomes taskid, in_progress becomes inprogress. Through MCP the input already is cairn's.
// TodoWrite becomes a snapshot of its list, numbered 1..n.
func claudeEvent(c claudeCall, ans claudeAnswer) (Event, error) {
	ev := Event{Line: c.line, At: c.at, CallID: c.toolID}
	switch c.family {
	case toolMCP:
		args, err := unwrapArgs(c.input)
		if err != nil {
			return ev, err
		}
		ev.Args = args
		ev.Kind = Update
		if c.name == "TaskCreate" {
			ev.Kind, ev.TaskID = Create, ans.id
		}
		return ev, nil
	case toolTodo:
		return todoEvent(c, ev)
	}
	in := map[string]json.RawMessage{}
	if err := json.Unmarshal(c.input, &in); err != nil {
		return ev, err
	}
	if err := exactKeys(in, nativeKeys, false); err != nil {
		return ev, err
	}
	str := func(key string) (*string, error) {
		raw, ok := in[key]
		if !ok {
			return nil, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, stringError(key + " is not a string")
		}
		return &s, nil
	}
	subject, err := str("subject")
	if err != nil {
		return ev, err
	}
	desc, err := str("description")
	if err != nil {
		return ev, err
	}
	status, err := str("status")
	if err != nil {
		return ev, err
	}
	if status != nil && *status == "in_progress" {
		v := InProgress
		status = &v
	}
	if c.name == "TaskCreate" {
		ev.Kind, ev.TaskID = Create, ans.id
		ev.Args, _ = json.Marshal(map[string]*string{"subject": subject, "description": desc})
		return ev, nil
	}
	if status == nil && subject == nil && desc == nil {
		var other []string
		for k := range in {
			if k != "taskId" {
				other = append(other, k)
			}
		}
		sort.Strings(other)
		return ev, unmodelled(strings.Join(other, ", "))
	}
	var id *int
	if raw, ok := in["taskId"]; ok {
		n := idValue(raw)
		if n <= 0 {
			return ev, errBadTaskID
		}
		id = &n
	}
	ev.Kind = Update
	ev.Args, _ = json.Marshal(struct {
		TaskID      *int    `json:"taskid"`
		Status      *string `json:"status,omitempty"`
		Subject     *string `json:"subject,omitempty"`
		Description *string `json:"description,omitempty"`
	}{id, status, subject, desc})
	return ev, nil
}

// todoEvent turns a TodoWrite call into a snapshot: items numbered 1..n in list order, content
// as subject, in_progress as inprogress.
func todoEvent(c claudeCall, ev Event) (Event, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(c.input, &in); err != nil {
		return ev, err
	}
	raw, ok := in["todos"]
	if !ok {
		return ev, stringError("no todos list")
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return ev, stringError("todos is not a list of objects")
	}
	snap := make([]Task, 0, len(items))
	for i, it := range items {
		if err := exactKeys(it, []string{"content", "status"}, false); err != nil {
			return ev, err
		}
		var content, status string
		if json.Unmarshal(it["content"], &content) != nil || json.Unmarshal(it["status"], &status) != nil {
			return ev, stringError("todo " + strconv.Itoa(i+1) + " lacks a content or status string")
		}
		subject, err := CheckSubject(content)
		if err != nil {
			return ev, err
		}
		if status == "in_progress" {
			status = InProgress
		}
		if err := CheckStatus(status); err != nil {
			return ev, err
		}
		snap = append(snap, Task{TaskID: i + 1, Status: status, Subject: subject})
	}
	ev.Kind, ev.Tasks = Snapshot, snap
	return ev, nil
}

// unmodelled is a TaskUpdate that only sets fields such as addBlockedBy or owner.
type unmodelled string

func (u unmodelled) Error() string { return "only fields outside cairn's task model: " + string(u) }

type stringError string

func (e stringError) Error() string { return string(e) }

const errBadTaskID = stringError("taskId is neither a positive number nor a string holding one")
