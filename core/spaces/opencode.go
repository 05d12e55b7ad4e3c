package spaces

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/opencode"
)

// SourceOpenCode marks a space imported from OpenCode's database (spaces.source).
const SourceOpenCode = "opencode"

// OpenCodeReport says what an import of OpenCode sessions read and wrote: a Claude Code import's
// counts, with Files the sessions found and Databases the databases given.
type OpenCodeReport struct {
	ClaudeReport
	Databases int `json:"databases"`
}

// OpenCodeSpaceID is the space of the sessions run in a project directory: opencode/ and the
// directory spelt as CodexSpaceID spells it.
func OpenCodeSpaceID(dir string) ID {
	return ID(SourceOpenCode + "/" + strings.TrimPrefix(string(CodexSpaceID(dir)), codexSpacePrefix))
}

// dbVersion is how a database stood when it was last imported: its size and modification time
// with its -wal's (an import reads through the WAL), as one state row keyed by the path.
func dbVersion(path string) (size, modNS int64) {
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
			modNS = max(modNS, st.ModTime().UnixNano())
		}
	}
	return size, modNS
}

// ImportOpenCode imports the sessions of OpenCode databases (opencode.DefaultDB when paths is
// empty) as ImportCodex imports rollouts: one space per project directory (owned by
// LocalAccount, source opencode), one task per session (id: the session id, ses_…, which names
// the resume command `opencode --session ID`), one comment per text part of a user message
// (request), an assistant message (result) or a compaction's summary (progress, summary), keyed
// by the part id. OpenCode's synthetic text (the auto-compaction's "Continue if you have next
// steps") is not stored, nor tool calls. A fork holds copies of its parent's messages (their
// time_created before the fork's own creation): when the parent is in the database they stay
// in the parent's task, once. A database whose size and modification time (with its -wal) are
// unchanged since the last import is not opened; in one that changed, a session whose
// time_updated is unchanged is not read. The database is opened read-only (opencode.Open).
func (s *Store) ImportOpenCode(ctx context.Context, paths []string, progress Progress) (rep OpenCodeReport, err error) {
	const what = "space import --from opencode"
	defer func() { err = errs.IfStopped(ctx, err, what) }()
	rep = OpenCodeReport{ClaudeReport: ClaudeReport{BadLines: []ClaudeBadLine{}}}
	if len(paths) == 0 {
		paths = []string{opencode.DefaultDB()}
	}
	states, err := s.claudeStates(ctx)
	if err != nil {
		return rep, err
	}
	im := claudeImport{s: s, ctx: ctx, rep: &rep.ClaudeReport, spaces: map[string]bool{}, progress: progress, source: SourceOpenCode}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return rep, errs.Wrap(errs.Invalid, err, what)
		}
		rep.Databases++
		size, modNS := dbVersion(abs)
		if st, ok := states[abs]; ok && st.size == size && st.modNS == modNS {
			// nothing new: count the sessions it held without opening it
			rep.Files += st.lines
			rep.Unchanged += st.lines
			continue
		}
		n, err := im.openCodeDB(abs, states)
		if err != nil {
			return rep, err
		}
		im.keep(abs, claudeState{size: size, modNS: modNS, lines: n})
	}
	if err := im.flush(); err != nil {
		return rep, err
	}
	rep.Spaces = len(im.spaces)
	return rep, nil
}

// openCodeDB reads the changed sessions of one database into the batch; it answers how many
// sessions the database holds.
func (im *claudeImport) openCodeDB(path string, states map[string]claudeState) (int, error) {
	db, err := opencode.Open(im.ctx, path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	sessions, err := db.Sessions(im.ctx)
	if err != nil {
		return 0, err
	}
	im.rep.Files += len(sessions)
	for _, ses := range sessions {
		if err := errs.Stopped(im.ctx, "space import --from opencode"); err != nil {
			return 0, err
		}
		key := path + "#" + ses.ID
		if st, ok := states[key]; ok && st.size == ses.Updated {
			im.rep.Unchanged++
			continue
		}
		if err := im.openCodeSession(db, ses, key); err != nil {
			return 0, err
		}
	}
	return len(sessions), nil
}

// openCodeSession reads one session's text parts into the batch.
func (im *claudeImport) openCodeSession(db *opencode.DB, ses opencode.Session, key string) error {
	bad := im.badFor(key)
	task, space := ID(ses.ID), OpenCodeSpaceID(ses.Directory)
	if err := checkIDs(space, task); err != nil {
		bad(0, "skipped: its %v", err)
		return nil
	}
	parent, _, err := db.ForkParent(im.ctx, ses)
	if err != nil {
		return err
	}
	im.rep.Read++
	created := time.UnixMilli(ses.Created).UTC().Format(time.RFC3339Nano)
	first := ""
	parts := 0
	taskAt := len(im.batch)
	im.batch = append(im.batch, record{kind: "task", task: taskRec{ID: task, Space: space}})
	err = db.Parts(im.ctx, ses.ID, opencode.TextParts, func(p opencode.Part) error {
		if err := im.ctx.Err(); err != nil {
			return err
		}
		parts++
		if parent != "" && p.MessageTime < ses.Created {
			return nil // a copy of the parent's message: it is in the parent's task
		}
		var d struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Synthetic bool   `json:"synthetic"`
			Ignored   bool   `json:"ignored"`
		}
		if json.Unmarshal(p.Data, &d) != nil || d.Type != "text" || d.Synthetic || d.Ignored || strings.TrimSpace(d.Text) == "" {
			return nil
		}
		c := Comment{ID: ID(p.ID), Task: task, CreatedAt: time.UnixMilli(max(p.Created, p.MessageTime)).UTC().Format(time.RFC3339Nano), Body: strings.TrimSpace(d.Text)}
		switch {
		case p.Role == "user":
			c.Kind, c.Author = "request", claudecode.AuthorUser
			if first == "" {
				first = c.Body
			}
		case p.Summary:
			c.Kind, c.ProgressType, c.Author = "progress", "summary", claudecode.AuthorAgent
		case p.Role == "assistant":
			c.Kind, c.Author = "result", claudecode.AuthorAgent
		default:
			return nil
		}
		return im.addComment(c, bad)
	})
	if err != nil {
		return err
	}
	im.rep.Lines += parts
	im.rep.Tasks++
	title := ""
	if first != "" {
		title = claudecode.Title(im.s.rd().Text(DropPrivate(first)))
	}
	if title == "" {
		title = "session " + ses.ID
		if parent != "" {
			title = "fork of session " + parent
		}
	}
	im.settleTask(taskAt, taskRec{ID: task, Space: space, Title: title, CreatedAt: created})
	name := ses.Directory
	if name == "" {
		name = "(no project directory recorded)"
	}
	im.batch = append(im.batch, record{kind: "space", space: spaceRec{ID: space, Name: name, Owner: LocalAccount}})
	im.spaces[string(space)] = true
	im.keep(key, claudeState{size: ses.Updated, task: string(task), title: title, createdAt: created})
	return nil
}
