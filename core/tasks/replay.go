package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/sessionlog"
	"github.com/cairn-dev/cairn/core/strictjson"
)

// Kind says what a replay event does to the store.
type Kind int

const (
	// Create is a TaskCreate call.
	Create Kind = iota
	// Update is a TaskUpdate call.
	Update
	// Snapshot is a compaction: the store becomes exactly its tasks.
	Snapshot
)

// Event is one store change read from a log, whatever its format (cairn JSONL, Claude transcript).
type Event struct {
	Line   int
	At     string
	CallID string
	Kind   Kind
	// Args are the call's arguments, already unwrapped from a JSON string when needed.
	Args  json.RawMessage
	Tasks []Task
	// TaskID, on a Create, is the id the runtime answered (Claude Code's "Task #N created");
	// zero means the store numbers the task.
	TaskID int
}

// Skip is a log line replay could not use, with the reason; `cairn session check` lists them.
type Skip struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// FieldChange is one field's old and new value in a task's history.
type FieldChange struct {
	From any `json:"from"`
	To   any `json:"to"`
}

// Change is one event's effect on one task, for `cairn task history`.
type Change struct {
	Line   int    `json:"line"`
	At     string `json:"at"`
	CallID string `json:"call_id"`
	Op     string `json:"op"`
	// Log names the parent log a change was inherited from (a fork); empty for this log's own.
	Log     string                 `json:"log,omitempty"`
	TaskID  int                    `json:"-"`
	Changes map[string]FieldChange `json:"changes"`
}

// Replayer folds events into a store.
type Replayer struct {
	Store *Store
	Skips []Skip
	// Notes are lines replay used but wants known (a task numbered by replay, not by its answer).
	Notes []Skip
	// MCPPrefix is how the runtime named cairn's MCP tools in a transcript (mcp__cairn__), or "".
	MCPPrefix string
	// Also are replayers for a transcript's other lists, filled in the same pass.
	Also map[string]*Replayer
	// OnChange, when set, receives every effective change (history).
	OnChange func(Change)
	// Dir is the folder of the log replayed, where a fork entry's parent log is found ("" when
	// the log has no folder, as from standard input); Wait is the parent's lock wait.
	Dir  string
	Wait time.Duration
	// Fork is the fork entry the log started with, if any.
	Fork *ForkPoint
	// Want is the list a runtime transcript is replayed for ("" picks the one it used: ListAuto);
	// List is the list replayed and Lists counts the calls of every list the transcript holds.
	Want  string
	List  string
	Lists map[string]int
	// Origin is where a runtime transcript says its session was forked from (Codex's
	// session_meta.forked_from_id), if it says.
	Origin *ForkOrigin
	depth  int
	// cutAt stops a Codex parent's replay at the fork (forked_from_ordinal_exclusive); plan is
	// the last update_plan's steps with their ids.
	cutAt int
	plan  *planState
}

// NewReplayer starts from an empty store.
func NewReplayer() *Replayer { return &Replayer{Store: NewStore()} }

func (r *Replayer) skip(line int, format string, args ...any) {
	r.Skips = append(r.Skips, Skip{Line: line, Reason: fmt.Sprintf(format, args...)})
}

func (r *Replayer) note(line int, format string, args ...any) {
	r.Notes = append(r.Notes, Skip{Line: line, Reason: fmt.Sprintf(format, args...)})
}

// exactKeys refuses an object key that matches a known one only when case is ignored (Go's JSON
// decoding would take "TaskID" or "Subject" for the field; the live tools refuse them). With
// strict, any other unknown key is refused too.
func exactKeys(obj map[string]json.RawMessage, known []string, strict bool) error {
	for k := range obj {
		exact, folded := false, ""
		for _, want := range known {
			if k == want {
				exact = true
				break
			}
			if strings.EqualFold(k, want) {
				folded = want
			}
		}
		switch {
		case exact:
		case folded != "":
			return fmt.Errorf("key %q is not spelt as the schema spells it (%q)", k, folded)
		case strict:
			return fmt.Errorf("unknown key %q; valid: %s", k, strings.Join(known, ", "))
		}
	}
	return nil
}

// decodeArgs decodes call arguments with exact-case keys and no unknown field; bit i of given is
// set when known[i] is given a value other than null (as the last of its keys, if repeated).
func decodeArgs(args json.RawMessage, known []string, v any) (given uint64, err error) {
	if err := strictjson.Decode(args, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			field := te.Field[strings.LastIndexByte(te.Field, '.')+1:] // the arguments are flat: no embedded struct's name (UpdateFields.status)
			return 0, fmt.Errorf("%s: %s given, %s is needed", field, formats.GivenKind(te.Value), formats.TypeName(te.Type))
		}
		return 0, err
	}
	// strictjson refuses unknown keys but, like encoding/json, matches known ones in any case
	var bad error
	mark := func(i int, val []byte) {
		if bytes.Equal(val, null) {
			given &^= 1 << i
		} else {
			given |= 1 << i
		}
	}
	scanTop(args, func(k, val []byte) bool {
		for i, want := range known {
			if string(k) == want {
				mark(i, val)
				return true
			}
		}
		for _, want := range known {
			if strings.EqualFold(string(k), want) {
				bad = fmt.Errorf("key %q is not spelt as the schema spells it (%q)", k, want)
				return false
			}
		}
		if bytes.IndexByte(k, '\\') >= 0 { // an escaped key, which encoding/json matched unescaped
			var name string
			json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &name)
			for i, want := range known {
				if strings.EqualFold(name, want) {
					mark(i, val)
					break
				}
			}
		}
		return true
	})
	return given, bad
}

var null = []byte("null")

// Apply re-applies one event with today's validation; an event that does not fit is skipped.
func (r *Replayer) Apply(ev Event) {
	switch ev.Kind {
	case Create:
		var in CreateInput
		given, err := decodeArgs(ev.Args, createKeys, &in)
		if err != nil {
			r.skip(ev.Line, "TaskCreate arguments do not fit the schema: %v", err)
			return
		}
		for i, f := range createFields {
			if f.required && given&(1<<i) == 0 {
				r.skip(ev.Line, "TaskCreate without %s", f.name)
				return
			}
		}
		t, err := in.task()
		if err != nil {
			r.skip(ev.Line, "TaskCreate: %v", err)
			return
		}
		if ev.TaskID > 0 {
			if old, ok := r.Store.Get(ev.TaskID); ok {
				r.note(ev.Line, "task %d (%q) replaced by a new task the runtime numbered %d (its store was cleared)", old.TaskID, old.Subject, ev.TaskID)
			}
			t = r.Store.createAt(ev.TaskID, t)
		} else {
			t = r.Store.create(t)
		}
		if r.OnChange != nil {
			r.OnChange(Change{Line: ev.Line, At: ev.At, CallID: ev.CallID, Op: "create", TaskID: t.TaskID, Changes: createChanges(&t)})
		}
	case Update:
		var in UpdateInput
		given, err := decodeArgs(ev.Args, updateKeys, &in)
		if err != nil {
			r.skip(ev.Line, "TaskUpdate arguments do not fit the schema: %v", err)
			return
		}
		if given&1 == 0 { // updateKeys[0] is taskid
			r.skip(ev.Line, "TaskUpdate without taskid")
			return
		}
		old, ok := r.Store.Get(in.TaskID)
		if !ok {
			r.skip(ev.Line, "TaskUpdate of unknown task %d", in.TaskID)
			return
		}
		t, err := in.UpdateFields.apply(old)
		if err != nil {
			r.skip(ev.Line, "TaskUpdate: %v", err)
			return
		}
		r.Store.put(t)
		if r.OnChange != nil {
			r.OnChange(Change{Line: ev.Line, At: ev.At, CallID: ev.CallID, Op: "update", TaskID: t.TaskID, Changes: diff(old, t)})
		}
	case Snapshot:
		before := r.Store.Tasks()
		r.Store.reset(ev.Tasks)
		if r.OnChange != nil {
			r.reportSnapshot(ev, before)
		}
	}
}

func (r *Replayer) reportSnapshot(ev Event, before []Task) {
	old := map[int]Task{}
	for _, t := range before {
		old[t.TaskID] = t
	}
	for _, t := range r.Store.tasks {
		prev, existed := old[t.TaskID]
		var ch map[string]FieldChange
		if !existed {
			ch = diff(Task{}, t)
			for k, v := range ch {
				ch[k] = FieldChange{nil, v.To}
			}
		} else {
			ch = diff(prev, t)
		}
		delete(old, t.TaskID)
		if len(ch) > 0 {
			r.OnChange(Change{Line: ev.Line, At: ev.At, Op: "compact", TaskID: t.TaskID, Changes: ch})
		}
	}
	for id := range old {
		r.OnChange(Change{Line: ev.Line, At: ev.At, Op: "compact", TaskID: id, Changes: map[string]FieldChange{"removed": {true, nil}}})
	}
}

// Stop bounds a replay for `--as-of`: after line Line (when > 0), or before the first entry
// stamped after Time (when non-zero).
type Stop struct {
	Line int
	Time time.Time
}

func (s Stop) afterLine(n int) bool { return s.Line > 0 && n > s.Line }

func (s Stop) afterTime(at string) bool {
	if s.Time.IsZero() || at == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	return err == nil && t.After(s.Time)
}

// Counts is what a full scan found, for `cairn session check`.
type Counts struct {
	Lines  int
	ByType map[string]int
	// SessionID is the sessionId of a transcript's main conversation.
	SessionID string
}

// Markers that any line replay cares about must contain; other lines are skipped undecoded.
var (
	markTask    = []byte(`"Task`)
	markCompact = []byte(`"compact"`)
	markIsError = []byte(`"is_error"`)
	markFork    = []byte(`"fork"`)
)

// envelope decodes the union of the entry fields replay reads.
type envelope struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	At        string          `json:"at"`
	CallID    string          `json:"call_id"`
	IsError   bool            `json:"is_error"`
	Tasks     json.RawMessage `json:"tasks"`
	// a fork entry's
	Parent      string `json:"parent"`
	ParentLines int    `json:"parent_lines"`
}

// ReplayCairn streams a cairn JSONL log into r. Task calls are held until the next compaction or
// the end, so a later error result can cancel them; memory grows with task calls, not log size.
// With counts set, every line is classified (slower; for `session check`). ctx bounds the wait for
// a fork's parent log (its lock) and that log's read; the caller bounds the read of log.
func ReplayCairn(ctx context.Context, log io.Reader, r *Replayer, stop Stop, counts *Counts) error {
	type pending struct {
		ev     Event
		failed bool
	}
	var queue []pending
	last := map[string]int{} // a call id's latest call in queue: an error result cancels that one
	flush := func() {
		for _, p := range queue {
			if !p.failed {
				r.Apply(p.ev)
			}
		}
		queue = queue[:0]
		clear(last)
	}
	first := true // a fork entry counts only as the log's first entry
	var ferr error
	keep := mayMatter
	if counts != nil {
		keep = func([]byte) bool { return true }
	}
	err := sessionlog.Filter(log, keep, func(ln sessionlog.Line) bool {
		var e envelope
		use, end := r.decodeLine(ln, stop, counts, &e)
		if !use {
			return !end
		}
		data := ln.Data
		if counts != nil {
			t := e.Type
			if t == "" {
				t = "(no type)"
			}
			counts.ByType[t]++
			if !mayMatter(data) {
				return true
			}
		}
		if stop.afterTime(e.At) {
			return false
		}
		wasFirst := first
		first = false
		switch e.Type {
		case TypeFork:
			if !wasFirst {
				r.skip(ln.No, "fork entry that is not the log's first entry: a fork is where a log starts")
				return true
			}
			if err := r.replayParent(ctx, ln.No, ForkPoint{Parent: e.Parent, ParentLines: e.ParentLines}, stop); err != nil {
				ferr = err
				return false
			}
		case sessionlog.TypeToolCall:
			var kind Kind
			switch e.Name {
			case "TaskCreate":
				kind = Create
			case "TaskUpdate":
				kind = Update
			default:
				return true
			}
			args, err := unwrapArgs(e.Arguments)
			if err != nil {
				r.skip(ln.No, "%s arguments: %v", e.Name, err)
				return true
			}
			if e.ID != "" {
				last[e.ID] = len(queue)
			}
			queue = append(queue, pending{ev: Event{Line: ln.No, At: e.At, CallID: e.ID, Kind: kind, Args: args}})
		case sessionlog.TypeToolResult:
			if !e.IsError {
				return true
			}
			if i, ok := last[e.CallID]; ok && e.CallID != "" {
				queue[i].failed = true
				r.skip(queue[i].ev.Line, "call %s failed (tool_result on line %d has is_error)", e.CallID, ln.No)
			}
		case sessionlog.TypeCompact:
			var snap []Task
			if err := json.Unmarshal(e.Tasks, &snap); err != nil || e.Tasks == nil {
				r.skip(ln.No, "compact entry without a valid tasks snapshot")
				return true
			}
			if err := checkSnapshot(snap); err != nil {
				r.skip(ln.No, "compact snapshot: %v", err)
				return true
			}
			flush()
			r.Apply(Event{Line: ln.No, At: e.At, Kind: Snapshot, Tasks: snap})
		}
		return true
	})
	flush()
	sort.SliceStable(r.Skips, func(i, j int) bool { return r.Skips[i].Line < r.Skips[j].Line })
	if err == nil {
		err = ferr
	}
	return err
}

// mayMatter is the cheap pre-filter: can this line be a task call, an error result or a compaction?
// Lines that start with their type (as cairn and most runtimes write them) need at most one scan.
func mayMatter(data []byte) bool {
	if rest, ok := bytes.CutPrefix(data, typePrefix); ok {
		switch {
		case bytes.HasPrefix(rest, []byte(`message"`)), bytes.HasPrefix(rest, []byte(`system"`)):
			return false
		case bytes.HasPrefix(rest, []byte(`tool_call"`)):
			return bytes.Contains(rest, markTask)
		case bytes.HasPrefix(rest, []byte(`tool_result"`)):
			return hasErrorFlag(rest)
		case bytes.HasPrefix(rest, []byte(`compact"`)), bytes.HasPrefix(rest, []byte(`fork"`)):
			return true
		}
	}
	return bytes.Contains(data, markTask) || bytes.Contains(data, markCompact) || bytes.Contains(data, markFork) || hasErrorFlag(data)
}

var typePrefix = []byte(`{"type":"`)

// hasErrorFlag reports whether a line holds `"is_error": true`, so successful results, the
// common case, are skipped without a decode.
func hasErrorFlag(data []byte) bool {
	for {
		i := bytes.Index(data, markIsError)
		if i < 0 {
			return false
		}
		rest := bytes.TrimLeft(data[i+len(markIsError):], " \t")
		if len(rest) > 0 && rest[0] == ':' {
			if bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t"), []byte("true")) {
				return true
			}
		}
		data = data[i+len(markIsError):]
	}
}

// lineData is where every replay of a runtime's transcript starts with a line: it ends the
// scan past --as-of (end), counts it, and skips an over-long, torn or blank line (recording
// why); data is the line without its surrounding blanks.
func (r *Replayer) lineData(ln sessionlog.Line, stop Stop, counts *Counts) (data []byte, use, end bool) {
	if stop.afterLine(ln.No) {
		return nil, false, true
	}
	if counts != nil {
		counts.Lines = ln.No
	}
	if ln.TooLong {
		r.skip(ln.No, "line of %d bytes, over the %d-byte limit for a log line: read through, not replayed", ln.Size, sessionlog.MaxLineBytes)
		return nil, false, false
	}
	if ln.Torn {
		r.skip(ln.No, "torn final line (no newline): an unfinished write")
		return nil, false, false
	}
	data = bytes.TrimSpace(ln.Data)
	return data, len(data) > 0, false
}

// usedLines are the lines of a runtime's transcript that lineData lets a replay use, up to
// --as-of; *err is the scan's error once the loop is over.
func (r *Replayer) usedLines(log io.Reader, stop Stop, counts *Counts, err *error) iter.Seq[sessionlog.Line] {
	return func(yield func(sessionlog.Line) bool) {
		sc := sessionlog.NewScanner(log)
		defer func() { *err = sc.Err() }()
		for sc.Next() {
			ln := sc.Line()
			_, use, end := r.lineData(ln, stop, counts)
			if end || use && !yield(ln) {
				return
			}
		}
	}
}

// route counts the calls of each list (Lists), picks the list asked for or, for auto, the one
// pickList chooses (List), and returns the replayer each list's calls go to: r for the picked
// list, r.Also's for the others it names.
func route[C any](r *Replayer, calls []C, list func(C) string) map[string]*Replayer {
	r.Lists = map[string]int{}
	for _, c := range calls {
		r.Lists[list(c)]++
	}
	r.List = r.Want
	if r.List == "" || r.List == ListAuto {
		r.List = pickList(r.Lists)
	}
	targets := map[string]*Replayer{r.List: r}
	for l, o := range r.Also {
		if l != r.List {
			targets[l] = o
			o.List, o.Lists = l, r.Lists
		}
	}
	return targets
}

// decodeLine is where both replays start with a line: it ends the scan past --as-of (end), counts
// it, skips a torn, blank or invalid line (recording why), and decodes the rest into v (use).
func (r *Replayer) decodeLine(ln sessionlog.Line, stop Stop, counts *Counts, v any) (use, end bool) {
	if _, use, end := r.lineData(ln, stop, counts); !use || end {
		return false, end
	}
	if bytes.HasSuffix(bytes.TrimRight(ln.Data, "\r"), []byte(sessionlog.TornMark)) {
		r.skip(ln.No, "torn write, isolated by a later append")
		return false, false
	}
	if len(bytes.TrimSpace(ln.Data)) == 0 {
		return false, false
	}
	if err := json.Unmarshal(ln.Data, v); err != nil {
		r.skip(ln.No, "not valid JSON: %v", err)
		return false, false
	}
	return true, false
}

// unwrapArgs accepts an arguments object, or a string holding one (OpenAI style).
func unwrapArgs(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("missing")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	return append(json.RawMessage(nil), raw...), nil
}

// checkSnapshot refuses snapshots with duplicate or non-positive ids or invalid statuses.
func checkSnapshot(snap []Task) error {
	seen := map[int]bool{}
	for _, t := range snap {
		if t.TaskID < 1 {
			return fmt.Errorf("taskid %d is not positive", t.TaskID)
		}
		if seen[t.TaskID] {
			return fmt.Errorf("taskid %d appears twice", t.TaskID)
		}
		seen[t.TaskID] = true
		if err := CheckStatus(t.Status); err != nil {
			return err
		}
	}
	return nil
}
