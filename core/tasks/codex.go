package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/core/workspace"
)

// FormatCodex is a Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl):
// one {"timestamp","type","payload"} record a line, the first a session_meta.
const FormatCodex = "codex"

// codexTypes are the record types of a rollout (0.171.0); a line of one of them with a payload
// makes the file a rollout. Unknown types are skipped.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "token_usage_record": true,
}

// codexRecord is the part of a rollout record replay reads.
type codexRecord struct {
	Type    string `json:"type"`
	At      string `json:"timestamp"`
	Ordinal *int   `json:"ordinal"`
	Payload struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		SessionID string `json:"session_id"`
		// session_meta of a fork
		ForkedFrom   string `json:"forked_from_id"`
		ForkedBefore *int   `json:"forked_from_ordinal_exclusive"`
		HistoryBase  *struct {
			ThreadID   string `json:"thread_id"`
			EndOrdinal *int   `json:"end_ordinal_exclusive"`
		} `json:"history_base"`
		// function_call / function_call_output
		Name      string          `json:"name"`
		Namespace string          `json:"namespace"`
		Arguments json.RawMessage `json:"arguments"`
		CallID    string          `json:"call_id"`
		Output    json.RawMessage `json:"output"`
	} `json:"payload"`
}

// codexCall is one task call a rollout records.
type codexCall struct {
	list, name, callID, at string
	line                   int
	args                   json.RawMessage
}

// ForkOrigin is where a runtime says a forked session came from: the parent session and, for a
// rollout, the first of its records the fork did not take.
type ForkOrigin struct {
	Session string
	Before  int
}

// isCodexLine reports whether a line is a rollout record.
func isCodexLine(data []byte) bool {
	if !bytes.Contains(data, []byte(`"payload"`)) {
		return false
	}
	typ, payload := "", false
	scanTop(data, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = rawString(v)
		case "payload":
			payload = len(v) > 0 && v[0] == '{'
		}
		return true
	})
	return payload && codexTypes[typ]
}

// codexOutput is a function_call_output's text: a string, or the text items of a list.
func codexOutput(raw json.RawMessage) string { return contentText(raw, false) }

// cairnAnswerOf finds cairn's JSON answer in the output Codex recorded for an MCP call ("Wall
// time: ...\nOutput:\n{...}"), or nil when the call did not answer a task (it failed).
func cairnAnswerOf(out string) *Task {
	if i := strings.Index(out, "Output:\n"); i >= 0 {
		out = out[i+len("Output:\n"):]
	}
	var ans struct {
		Task *Task `json:"task"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(out)), &ans) != nil || ans.Task == nil || ans.Task.TaskID < 1 {
		return nil
	}
	return ans.Task
}

// ReplayCodex replays a Codex rollout. Two lists are in it: the plan (update_plan, the whole
// plan each call; its steps get ids that stay across calls, planIDs) and cairn's tools called
// through MCP (namespace mcp__<server>, answered with cairn's JSON). A call whose output says it
// failed is not replayed: update_plan answers "Plan updated" when it applied the plan, cairn's
// tools answer a task. A fork's plan starts as its parent's at the fork: the parent rollout is
// found beside it (same sessions/ tree) and replayed up to forked_from_ordinal_exclusive. It
// never writes to the file.
func ReplayCodex(log io.Reader, r *Replayer, stop Stop, counts *Counts) error {
	return replayCodex(log, "", r, stop, counts)
}

func replayCodex(log io.Reader, path string, r *Replayer, stop Stop, counts *Counts) error {
	var calls []codexCall
	outputs := map[string]string{}
	var origin *ForkOrigin
	var scanErr error
	for ln := range r.usedLines(log, stop, counts, &scanErr) {
		var rec codexRecord
		if err := json.Unmarshal(ln.Data, &rec); err != nil {
			r.skip(ln.No, "not valid JSON: %v", err)
			continue
		}
		if counts != nil {
			t := rec.Type
			if t == "" {
				t = "(no type)"
			}
			counts.ByType[t]++
		}
		if stop.afterTime(rec.At) {
			break
		}
		if r.cutAt > 0 && rec.Ordinal != nil && *rec.Ordinal >= r.cutAt {
			break // a parent replayed for its fork: only what the fork took
		}
		p := &rec.Payload
		switch rec.Type {
		case "session_meta":
			id := p.ID
			if id == "" {
				id = p.SessionID
			}
			if counts != nil && counts.SessionID == "" {
				counts.SessionID = id
			}
			from, before := p.ForkedFrom, p.ForkedBefore
			if from == "" && p.HistoryBase != nil {
				from, before = p.HistoryBase.ThreadID, p.HistoryBase.EndOrdinal
			}
			if from != "" && origin == nil && safeSegment(from) {
				origin = &ForkOrigin{Session: from}
				if before != nil {
					origin.Before = *before
				} else if p.HistoryBase != nil && p.HistoryBase.EndOrdinal != nil {
					origin.Before = *p.HistoryBase.EndOrdinal
				}
			}
		case "response_item":
			switch p.Type {
			case "function_call":
				c := codexCall{name: p.Name, callID: p.CallID, at: rec.At, line: ln.No}
				switch {
				case p.Name == "update_plan":
					c.list = ListPlan
				case strings.HasPrefix(p.Namespace, "mcp__") && (p.Name == "TaskCreate" || p.Name == "TaskUpdate"):
					c.list = ListCairn
					r.MCPPrefix = p.Namespace + "__"
				default:
					continue
				}
				args, err := unwrapArgs(p.Arguments)
				if err != nil {
					r.skip(ln.No, "%s arguments: %v", p.Name, err)
					continue
				}
				c.args = args
				calls = append(calls, c)
			case "function_call_output":
				if p.CallID != "" {
					outputs[p.CallID] = codexOutput(p.Output)
				}
			}
		}
	}
	if scanErr != nil {
		return scanErr
	}
	r.Origin = origin
	targets := route(r, calls, func(c codexCall) string { return c.list })
	// a fork's plan starts where its parent's was when it forked
	if p := targets[ListPlan]; p != nil && origin != nil && path != "" {
		if err := inheritCodexPlan(path, origin, p, stop); err != nil {
			return err
		}
	}
	for _, c := range calls {
		t := targets[c.list]
		if t == nil {
			continue
		}
		out, answered := outputs[c.callID]
		switch c.list {
		case ListPlan:
			if answered && !strings.HasPrefix(strings.TrimSpace(out), "Plan updated") {
				t.skip(c.line, "call %s: update_plan was refused (%q)", c.callID, firstLine(out))
				continue
			}
			plan, err := decodePlan(c.args)
			if err != nil {
				t.skip(c.line, "update_plan arguments: %v", err)
				continue
			}
			t.applyPlan(c, plan)
		case ListCairn:
			t.applyCairnCall(Event{Line: c.line, At: c.at, CallID: c.callID, Args: c.args}, c.name, out, answered)
		}
	}
	sortSkips(targets)
	return nil
}

// applyCairnCall replays a call of cairn's own tools through MCP: one whose answer holds no task
// failed and is skipped; a TaskCreate takes the id its answer gave (none while unanswered).
func (r *Replayer) applyCairnCall(ev Event, name, output string, answered bool) {
	var ans *Task
	if answered {
		if ans = cairnAnswerOf(output); ans == nil {
			r.skip(ev.Line, "call %s: %s answered no task (%q): it failed", ev.CallID, name, firstLine(output))
			return
		}
	}
	ev.Kind = Update
	if name == "TaskCreate" {
		ev.Kind = Create
		if ans != nil {
			ev.TaskID = ans.TaskID
		}
	}
	r.Apply(ev)
}

// sortSkips orders each list's skipped lines by line, as the calls were read out of order.
func sortSkips(targets map[string]*Replayer) {
	for _, t := range targets {
		sort.SliceStable(t.Skips, func(i, j int) bool { return t.Skips[i].Line < t.Skips[j].Line })
	}
}

// inheritCodexPlan replays the plan of a fork's parent rollout, up to the fork, into r.
func inheritCodexPlan(path string, origin *ForkOrigin, r *Replayer, stop Stop) error {
	if r.depth >= maxLineage {
		return nil
	}
	parent := findRollout(path, origin.Session)
	if parent == "" {
		r.note(1, "forked from Codex session %s, whose rollout is not beside this one: the plan starts empty", origin.Session)
		return nil
	}
	f, err := workspace.OpenRegular(parent, "transcript")
	if err != nil {
		return nil
	}
	defer f.Close()
	sub := &Replayer{Store: r.Store, Want: ListPlan, depth: r.depth + 1, cutAt: origin.Before, plan: r.plan}
	if err := replayCodex(f, parent, sub, stop, nil); err != nil {
		return fmt.Errorf("replay the parent rollout %s: %w", parent, err)
	}
	r.plan = sub.plan
	return nil
}

// findRollout finds session id's rollout in the sessions/ tree a rollout is in
// (sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl).
func findRollout(path, id string) string {
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path))))
	for _, pattern := range []string{
		filepath.Join(filepath.Dir(path), "rollout-*-"+id+".jsonl"),
		filepath.Join(root, "*", "*", "*", "rollout-*-"+id+".jsonl"),
	} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			sort.Strings(m)
			return m[0]
		}
	}
	return ""
}

// planStep is one item of an update_plan call.
type planStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
	// subject and desc are the task a step becomes (applySteps)
	subject, desc string
}

func decodePlan(args json.RawMessage) ([]planStep, error) {
	var in struct {
		Explanation *string    `json:"explanation"`
		Plan        []planStep `json:"plan"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	if in.Plan == nil {
		return nil, stringError("no plan list")
	}
	for i, s := range in.Plan {
		if _, err := CheckSubject(s.Step); err != nil {
			return nil, fmt.Errorf("step %d: %v", i+1, err)
		}
		switch s.Status {
		case "pending", "in_progress", "completed":
		default:
			return nil, fmt.Errorf("step %d: unknown status %q; valid: pending, in_progress, completed", i+1, s.Status)
		}
	}
	return in.Plan, nil
}

// planState is the plan as the last call left it, in plan order, with each step's id.
type planState struct {
	ids  []int
	text []string
}

// applyPlan turns one update_plan call into a snapshot with stable ids (planIDs) and applies it.
func (r *Replayer) applyPlan(c codexCall, plan []planStep) {
	steps := make([]planStep, len(plan))
	for i, s := range plan {
		steps[i] = s
		if s.Status == "in_progress" {
			steps[i].Status = InProgress
		}
		steps[i].subject, _ = CheckSubject(s.Step)
	}
	r.applySteps(c.line, c.at, c.callID, steps)
}

// applySteps applies a whole list given anew (statuses in cairn's words, each step's subject
// and description set): a snapshot whose steps keep their ids across calls (planIDs); a step the
// new list dropped stays listed, withdrawn.
func (r *Replayer) applySteps(line int, at, callID string, plan []planStep) {
	ids := planIDs(r.plan, plan, r.Store)
	before := map[int]Task{}
	for _, t := range r.Store.Tasks() {
		before[t.TaskID] = t
	}
	snap := make([]Task, 0, len(before)+len(plan))
	kept := map[int]bool{}
	for i, s := range plan {
		snap = append(snap, Task{TaskID: ids[i], Status: s.Status, Subject: s.subject, Description: s.desc})
		kept[ids[i]] = true
	}
	for id, t := range before {
		if !kept[id] {
			t.Status = Deleted // a step the new plan dropped stays listed, withdrawn
			snap = append(snap, t)
		}
	}
	sort.Slice(snap, func(i, j int) bool { return snap[i].TaskID < snap[j].TaskID })
	r.Apply(Event{Line: line, At: at, CallID: callID, Kind: Snapshot, Tasks: snap})
	r.plan = &planState{ids: ids, text: make([]string, len(plan))}
	for i, s := range plan {
		r.plan.text[i] = strings.TrimSpace(s.Step)
	}
}

// planIDs gives the steps of a new plan their ids. update_plan replaces the whole plan and its
// steps carry no id, so a step is known by its text: a step whose text the last plan had keeps
// that step's id (wherever it moved); one whose text is new takes the id of the last plan's step
// at the same position if that step's text is gone (the step was reworded); any other is a new
// step, numbered after the highest id. A dropped step's text coming back revives its id.
func planIDs(prev *planState, plan []planStep, st *Store) []int {
	ids := make([]int, len(plan))
	used := map[int]bool{}
	byText := map[string][]int{}
	inPrev := map[int]bool{}
	if prev != nil {
		for i, t := range prev.text {
			byText[t] = append(byText[t], prev.ids[i])
			inPrev[prev.ids[i]] = true
		}
	}
	for _, t := range st.tasks {
		if t.Status == Deleted && !inPrev[t.TaskID] {
			byText[t.Subject] = append(byText[t.Subject], t.TaskID)
		}
	}
	texts := make(map[string]bool, len(plan))
	for i, s := range plan {
		text := strings.TrimSpace(s.Step)
		texts[text] = true
		if cands := byText[text]; len(cands) > 0 {
			// each id is taken once, in order: the list shrinks as it is used (linear however
			// many steps share a text)
			ids[i], used[cands[0]] = cands[0], true
			byText[text] = cands[1:]
		}
	}
	if prev != nil {
		for i := range plan {
			if ids[i] == 0 && i < len(prev.ids) && !used[prev.ids[i]] && !texts[prev.text[i]] {
				ids[i], used[prev.ids[i]] = prev.ids[i], true
			}
		}
	}
	next := st.NextID()
	for i := range plan {
		if ids[i] == 0 {
			ids[i] = next
			next++
		}
	}
	return ids
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
