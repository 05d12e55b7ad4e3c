package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/opencode"
	"github.com/cairn-dev/cairn/core/redact"
)

// OpenCode is the OpenCode runtime as the hook sees it. OpenCode has no shell hooks: cairn's
// plugin (`cairn setup opencode`) runs `cairn hook opencode` with an OpenCodeHookInput on stdin
// and gives OpenCode the text it prints.
var OpenCode = HookRuntime{Name: "opencode", Title: "OpenCode", Format: FormatOpenCode}

// The events cairn's plugin sends, named after the OpenCode plugin hooks they come from.
const (
	// OpenCodeCompacting is experimental.session.compacting: the answer goes into the compaction
	// prompt (output.context).
	OpenCodeCompacting = "experimental.session.compacting"
	// OpenCodeSystem is experimental.chat.system.transform on a session's first request in an
	// OpenCode process (a resume, a fork, or a new session) and after a compaction: the answer
	// goes into the system prompt (output.system).
	OpenCodeSystem = "experimental.chat.system.transform"
)

// OpenCodeHookInput is what cairn's plugin sends.
type OpenCodeHookInput struct {
	Event     string `json:"event"`
	SessionID string `json:"session_id"`
	// Directory is the project folder (the plugin context's directory): the workspace is found from it.
	Directory string `json:"directory"`
	// Compacted says a compaction of the session ended in this process (session.compacted).
	Compacted bool `json:"compacted,omitempty"`
	// Database is OpenCode's database, when not the default (opencode.DefaultDB).
	Database string `json:"database,omitempty"`
}

// openCodeHook answers one event of cairn's OpenCode plugin with plain text (nothing when the
// session has no tasks): the session's lists — cairn's log for the session (sessions/ses_….jsonl,
// its handoffs followed), else cairn's calls as OpenCode recorded them, and todowrite's list from
// the database. The first request of a fork (a session whose first messages are copies of
// another's, opencode.ForkParent) starts the fork's cairn log from its parent's.
func openCodeHook(ctx context.Context, input []byte, wsFlag string, wait time.Duration, env HookEnv) (string, error) {
	var in OpenCodeHookInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", errs.Invalidf("hook input is not the JSON of cairn's OpenCode plugin: %v", err)
	}
	switch in.Event {
	case OpenCodeCompacting, OpenCodeSystem:
	case "":
		return "", errs.Invalidf("hook input has no event")
	default:
		return "", nil
	}
	if !opencode.ValidSessionID(in.SessionID) {
		return "", errs.Invalidf("the hook input's session_id %q is not an OpenCode session id (ses_…)", in.SessionID)
	}
	dbPath := in.Database
	if dbPath == "" {
		dbPath = opencode.DefaultDB()
	}
	hin := HookInput{Event: in.Event, SessionID: in.SessionID, Cwd: in.Directory}
	ws, err := hookWorkspace(hin, wsFlag)
	if err != nil {
		return "", err
	}
	parent := ""
	if in.Event == OpenCodeSystem && ws != nil {
		if db, err := opencode.Open(ctx, dbPath); err == nil {
			if s, err := db.Session(ctx, in.SessionID); err == nil {
				parent, _, _ = db.ForkParent(ctx, s)
			}
			db.Close()
		}
	}
	forked := false
	if parent != "" && safeSegment(parent) {
		if forked, err = StartFork(ctx, ws, OpenCode.Name, parent, in.SessionID, env.Now.UTC().Format(TimeFormat)); err != nil {
			return "", err
		}
	}
	t := NewReplayer()
	t.Want = ListCairn
	t.Also = map[string]*Replayer{ListTodowrite: NewReplayer()}
	if err := replayOpenCode(ctx, dbPath, in.SessionID, t, Stop{}, nil); err != nil {
		if errs.CodeOf(err) != errs.NotFound {
			return "", err
		}
		t = nil // a session OpenCode has not stored yet, or no database: cairn's log alone
	}
	l, err := lists(ctx, ws, hin, t, wait)
	if err != nil {
		return "", err
	}
	if l.prefix == "" {
		l.prefix = "cairn_" // how setup registers cairn with OpenCode
	}
	text := renderLists(l)
	if text == "" {
		return "", nil
	}
	text = redact.New().Text(text)
	if in.Event == OpenCodeCompacting {
		return "The session's task lists, kept by cairn across this compaction (read-only here): carry the open tasks and their ids into the summary.\n" + text, nil
	}
	head := "cairn restored this session's task list on resume."
	switch {
	case in.Compacted:
		head = "cairn restored this session's task list after a compaction."
	case parent != "" && l.cairn != nil && l.cairn.Fork != nil && forked:
		head = "This session is a fork of OpenCode session " + parent + ": cairn started its task list as that session's list at the fork; from here the two lists are separate."
	case parent != "":
		head = "This session is a fork of OpenCode session " + parent + "; its lists as they stand:"
	}
	return head + "\n" + strings.TrimRight(text, "\n") + "\n", nil
}
