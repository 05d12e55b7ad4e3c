package tasks

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"

	"github.com/cairn-dev/cairn/core/sessionlog"
)

// Session log formats.
const (
	FormatAuto   = "auto"
	FormatCairn  = "cairn"
	FormatClaude = "claude"
)

// DetectFormat looks at the first lines of a log: Claude Code transcript lines carry
// "parentUuid"/"sessionId"; anything else is read as a cairn log.
func DetectFormat(r io.Reader) string {
	sc := sessionlog.NewScanner(r)
	for n := 0; n < 20 && sc.Next(); n++ {
		d := sc.Line().Data
		if len(bytes.TrimSpace(d)) == 0 {
			continue
		}
		var probe struct {
			ParentUUID *json.RawMessage `json:"parentUuid"`
			SessionID  *string          `json:"sessionId"`
			UUID       *string          `json:"uuid"`
			LeafUUID   *string          `json:"leafUuid"`
		}
		if json.Unmarshal(d, &probe) != nil {
			continue
		}
		if probe.ParentUUID != nil || probe.SessionID != nil || probe.LeafUUID != nil {
			return FormatClaude
		}
		return FormatCairn
	}
	return FormatCairn
}

// claudeLine is the part of a Claude Code transcript line that replay reads.
type claudeLine struct {
	Type              string  `json:"type"`
	Subtype           string  `json:"subtype"`
	UUID              string  `json:"uuid"`
	ParentUUID        *string `json:"parentUuid"`
	LogicalParentUUID *string `json:"logicalParentUuid"`
	Timestamp         string  `json:"timestamp"`
	Message           *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

// claudeInput is the TaskCreate/TaskUpdate input Claude Code writes; extra fields (activeForm,
// blocks, owner, ...) are not part of cairn's task model and are dropped.
type claudeInput struct {
	Subject     *string          `json:"subject"`
	Description *string          `json:"description"`
	TaskID      *json.RawMessage `json:"taskId"`
	Status      *string          `json:"status"`
}

type claudeNode struct {
	parent string
	line   int
}

type claudeCall struct {
	uuid string
	ev   Event
}

// ReplayClaude replays a Claude Code transcript: TaskCreate/TaskUpdate tool_use blocks on the live
// branch (the parentUuid chain ending at the newest line, crossing compact_boundary through
// logicalParentUuid), minus calls whose tool_result is an error. It never writes to the file.
func ReplayClaude(log io.Reader, r *Replayer, stop Stop, counts *Counts) error {
	nodes := map[string]claudeNode{}
	var calls []claudeCall
	failed := map[string]bool{}
	newest := ""
	all := func([]byte) bool { return true }
	err := sessionlog.Filter(log, all, func(ln sessionlog.Line) bool {
		var l claudeLine
		use, end := r.decodeLine(ln, stop, counts, &l)
		if !use {
			return !end
		}
		if counts != nil {
			counts.ByType[l.Type]++
		}
		if l.UUID == "" {
			return true // summaries and other metadata lines are not part of the conversation tree
		}
		if stop.afterTime(l.Timestamp) {
			return false
		}
		parent := ""
		if l.ParentUUID != nil {
			parent = *l.ParentUUID
		}
		if parent == "" && l.Subtype == "compact_boundary" && l.LogicalParentUUID != nil {
			parent = *l.LogicalParentUUID
		}
		nodes[l.UUID] = claudeNode{parent: parent, line: ln.No}
		newest = l.UUID
		if l.Message == nil || len(l.Message.Content) == 0 || l.Message.Content[0] != '[' {
			return true
		}
		var blocks []claudeBlock
		if json.Unmarshal(l.Message.Content, &blocks) != nil {
			return true
		}
		for _, b := range blocks {
			switch {
			case b.Type == "tool_use" && (b.Name == "TaskCreate" || b.Name == "TaskUpdate"):
				ev, err := claudeEvent(b)
				if err != nil {
					r.skip(ln.No, "%s input: %v", b.Name, err)
					continue
				}
				ev.Line, ev.At = ln.No, l.Timestamp
				calls = append(calls, claudeCall{uuid: l.UUID, ev: ev})
			case b.Type == "tool_result" && b.IsError:
				failed[b.ToolUseID] = true
			}
		}
		return true
	})
	live := map[string]bool{}
	for id := newest; id != "" && !live[id]; id = nodes[id].parent {
		if _, ok := nodes[id]; !ok {
			break
		}
		live[id] = true
	}
	for _, c := range calls {
		switch {
		case !live[c.uuid]:
			r.skip(c.ev.Line, "call %s is on an abandoned branch (rewound or forked)", c.ev.CallID)
		case failed[c.ev.CallID]:
			r.skip(c.ev.Line, "call %s failed (its tool_result has is_error)", c.ev.CallID)
		default:
			r.Apply(c.ev)
		}
	}
	sort.SliceStable(r.Skips, func(i, j int) bool { return r.Skips[i].Line < r.Skips[j].Line })
	return err
}

// claudeEvent converts a tool_use block into cairn's arguments: taskId (a string) becomes taskid,
// in_progress becomes inprogress.
func claudeEvent(b claudeBlock) (Event, error) {
	var in claudeInput
	if err := json.Unmarshal(b.Input, &in); err != nil {
		return Event{}, err
	}
	if in.Status != nil && *in.Status == "in_progress" {
		v := InProgress
		in.Status = &v
	}
	if b.Name == "TaskCreate" {
		args, _ := json.Marshal(createArgs{Subject: in.Subject, Description: in.Description})
		return Event{CallID: b.ID, Kind: Create, Args: args}, nil
	}
	a := updateArgs{Status: in.Status, Subject: in.Subject, Description: in.Description}
	if in.TaskID != nil {
		var id int
		var s string
		switch {
		case json.Unmarshal(*in.TaskID, &id) == nil:
		case json.Unmarshal(*in.TaskID, &s) == nil:
			if err := json.Unmarshal([]byte(s), &id); err != nil {
				return Event{}, err
			}
		default:
			return Event{}, errBadTaskID
		}
		a.TaskID = &id
	}
	args, _ := json.Marshal(struct {
		TaskID      *int    `json:"taskid"`
		Status      *string `json:"status,omitempty"`
		Subject     *string `json:"subject,omitempty"`
		Description *string `json:"description,omitempty"`
	}{a.TaskID, a.Status, a.Subject, a.Description})
	return Event{CallID: b.ID, Kind: Update, Args: args}, nil
}

type stringError string

func (e stringError) Error() string { return string(e) }

const errBadTaskID = stringError("taskId is neither a number nor a string holding one")
