package team

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

// What leaves a machine (docs/team.md): for each task of a space that [space] exclude does not
// exclude, its title and its comments, each with private regions dropped and secrets redacted
// (redact.Text, the same detector as the index): body, author and attachment names. A tool
// call's body (its arguments) never leaves; its tool name does. Nothing else is read: not the
// index texts, not the transcripts, not the workspace's other files.

// Plan is what a push would send, computed from spaces.db alone.
type Plan struct {
	// Spaces are the local spaces, in id order, each with what of it leaves.
	Spaces []SpacePlan `json:"spaces"`
	// Redactions count what redaction hid in the outgoing text, by rule.
	Redactions []RuleCount `json:"redactions"`
	// PrivateRegions counts the <private> regions dropped from it.
	PrivateRegions int `json:"private_regions"`
	// Exclude are the entries of [space] exclude: never imported, never pushed.
	Exclude []string `json:"exclude"`
	items   []item
	// spool holds the records' lines, one after another (item.off, item.n): a push of two
	// million comments would otherwise hold about a gigabyte of them in memory. It is an
	// unlinked temporary file in spoolDir, gone when closed (Close) or when the process ends.
	spool    *os.File
	spoolDir string
	w        *bufio.Writer
	size     int64
}

// Close releases the plan's spooled lines.
func (p *Plan) Close() error {
	if p.spool == nil {
		return nil
	}
	err := p.spool.Close()
	p.spool, p.w = nil, nil
	return err
}

// keep spools one record's line.
func (p *Plan) keep(it item, line []byte) error {
	if p.spool == nil {
		f, err := os.CreateTemp(p.spoolDir, "push-spool-*")
		if err != nil {
			return fmt.Errorf("spool the push: %w", err)
		}
		os.Remove(f.Name()) // open until closed, never seen by another process
		p.spool, p.w = f, bufio.NewWriterSize(f, 256<<10)
	}
	if _, err := p.w.Write(line); err != nil {
		return fmt.Errorf("spool the push: %w", err)
	}
	it.off, it.n = p.size, int32(len(line))
	p.size += int64(len(line))
	p.items = append(p.items, it)
	return nil
}

// line reads a spooled record's line into buf (reused when large enough).
func (p *Plan) line(it item, buf []byte) ([]byte, error) {
	if cap(buf) < int(it.n) {
		buf = make([]byte, it.n, max(int(it.n), 64<<10))
	}
	buf = buf[:it.n]
	if _, err := p.spool.ReadAt(buf, it.off); err != nil {
		return nil, fmt.Errorf("read the push spool: %w", err)
	}
	return buf, nil
}

// SpacePlan is one local space in a plan.
type SpacePlan struct {
	Space    string `json:"space"`
	Name     string `json:"name"`
	Tasks    int    `json:"tasks"`
	Comments int    `json:"comments"`
	// Excluded is why nothing of it leaves ("" when it is pushed): the space, or some sessions.
	Excluded      string `json:"excluded,omitempty"`
	ExcludedTasks int    `json:"excluded_tasks,omitempty"`
}

// RuleCount is how many secrets one rule hid.
type RuleCount struct {
	Rule  string `json:"rule"`
	Layer string `json:"layer"`
	Count int    `json:"count"`
}

// item is one outgoing record: its key in the push state, its hash, and where its line is in
// the plan's spool.
type item struct {
	key, hash, task string
	comment         bool
	n               int32
	off             int64
}

// Redaction is one secret hidden, and where: never the secret itself.
type Redaction struct {
	Space   string `json:"space"`
	Task    string `json:"task"`
	Comment string `json:"comment,omitempty"`
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Layer   string `json:"layer"`
}

// Redactions walks spaces.db and reports every secret that redaction hides in what a push would
// send (and in what search excerpts show), with where it is, and the private regions dropped.
func Redactions(ctx context.Context, st *spaces.Store, ex spaces.Exclude, r *redact.Redactor) (list []Redaction, private int, err error) {
	list = []Redaction{}
	err = st.Walk(ctx, func(sp spaces.SpaceInfo, t spaces.BatchTask, cs []spaces.Comment) error {
		if ex.Space(sp.ID, sp.Name) || ex.Task(t.ID) {
			return nil
		}
		where := func(comment, field, text string) {
			private += spaces.PrivateRegions(text)
			end := -1
			for _, s := range r.Spans(spaces.DropPrivate(text)) {
				if s.Start < end {
					continue // the same secret, found by another rule too: counted once
				}
				end = s.End
				list = append(list, Redaction{Space: string(sp.ID), Task: string(t.ID), Comment: comment, Field: field, Rule: s.Rule, Layer: s.Layer})
			}
		}
		where("", "title", t.Title)
		for _, c := range cs {
			ref := "comment:" + string(c.ID)
			if !toolCall(c) {
				where(ref, "body", c.Body)
			}
			where(ref, "author", c.Author)
			for _, a := range c.Attachments {
				where(ref, "attachment", a)
			}
		}
		return nil
	})
	return list, private, err
}

// CountRules sums redactions by rule, the most frequent first, then by name.
func CountRules(list []Redaction) []RuleCount {
	n := map[string]*RuleCount{}
	for _, x := range list {
		if n[x.Rule] == nil {
			n[x.Rule] = &RuleCount{Rule: x.Rule, Layer: x.Layer}
		}
		n[x.Rule].Count++
	}
	out := []RuleCount{}
	for _, c := range n {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// toolCall reports whether a comment is a tool call, whose body (the arguments) never leaves.
func toolCall(c spaces.Comment) bool { return c.Kind == "progress" && c.ProgressType == "tool" }

// NewPlan reads every local space and prepares what leaves for the team space target, its lines
// spooled to a file in spoolDir ("": the system's temporary folder; a push gives the
// workspace's .cairn, which a tmpfs /tmp would keep in memory); Close releases it.
func NewPlan(ctx context.Context, st *spaces.Store, ex spaces.Exclude, r *redact.Redactor, target, spoolDir string) (_ *Plan, err error) {
	p := &Plan{Spaces: []SpacePlan{}, spoolDir: spoolDir}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	byID := map[string]int{}
	err = st.Walk(ctx, func(sp spaces.SpaceInfo, t spaces.BatchTask, cs []spaces.Comment) error {
		i, ok := byID[string(sp.ID)]
		if !ok {
			i = len(p.Spaces)
			byID[string(sp.ID)] = i
			p.Spaces = append(p.Spaces, SpacePlan{Space: string(sp.ID), Name: sp.Name})
			if ex.Space(sp.ID, sp.Name) {
				p.Spaces[i].Excluded = "space"
			}
		}
		spl := &p.Spaces[i]
		if spl.Excluded == "space" {
			spl.ExcludedTasks++
			return nil
		}
		if ex.Task(t.ID) {
			spl.Excluded = "sessions"
			spl.ExcludedTasks++
			return nil
		}
		p.PrivateRegions += spaces.PrivateRegions(t.Title)
		title := r.Text(spaces.DropPrivate(t.Title))
		parent := t.Parent
		if parent != "" && ex.Task(parent) {
			parent = ""
		}
		tl, err := json.Marshal(map[string]any{"type": "task", "id": t.ID, "space": target, "title": title, "status": t.Status,
			"parent": nullable(string(parent)), "created_at": nullable(t.CreatedAt)})
		if err != nil {
			return err
		}
		if err := p.keep(item{key: "task:" + string(t.ID), hash: hash(tl), task: string(t.ID)}, tl); err != nil {
			return err
		}
		spl.Tasks++
		for _, c := range cs {
			p.PrivateRegions += spaces.PrivateRegions(c.Body)
			body := ""
			if !toolCall(c) {
				body = r.Text(spaces.DropPrivate(c.Body))
			}
			att := make([]string, len(c.Attachments))
			for j, a := range c.Attachments {
				att[j] = r.Text(spaces.DropPrivate(a))
			}
			cl, err := json.Marshal(map[string]any{"type": "comment", "id": c.ID, "task": c.Task, "kind": c.Kind,
				"progress_type": c.ProgressType, "tool_name": c.ToolName, "author": r.Text(c.Author),
				"created_at": c.CreatedAt, "body": body, "attachments": att})
			if err != nil {
				return err
			}
			if err := p.keep(item{key: "comment:" + string(c.ID), hash: hash(cl), task: string(t.ID), comment: true}, cl); err != nil {
				return err
			}
			spl.Comments++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.w != nil {
		if err := p.w.Flush(); err != nil {
			return nil, fmt.Errorf("spool the push: %w", err)
		}
	}
	list, _, err := Redactions(ctx, st, ex, r)
	if err != nil {
		return nil, err
	}
	p.Redactions = CountRules(list)
	return p, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// PushReport says what a push sent.
type PushReport struct {
	Server string `json:"server"`
	Space  string `json:"space"`
	DryRun bool   `json:"dry_run"`
	// Tasks and Comments are what this push sent (or, dry, would send); Unchanged what an earlier
	// push already sent as it is now.
	Tasks     int `json:"tasks"`
	Comments  int `json:"comments"`
	Unchanged int `json:"unchanged"`
	Batches   int `json:"batches"`
	// Retries counts batches sent again after a dropped connection or a busy server.
	Retries int   `json:"retries"`
	Plan    *Plan `json:"plan"`
}

// PushOptions tune a push.
type PushOptions struct {
	DryRun bool
	// BatchRecords is the most records a batch holds (default 500).
	BatchRecords int
	// Attempts is how often a batch is tried before the push gives up (default 5), with a pause
	// that doubles from RetryPause (default 200 ms).
	Attempts   int
	RetryPause time.Duration
	Progress   func(done, total int64)
}

// maxBatchBytes is where a batch is cut, well under what the server takes (web.MaxImportBody).
const maxBatchBytes = 8 << 20

// StatePath is where a push to one team space remembers what it sent: the records' keys and
// hashes, appended after each batch the server took, so a push killed or cut off resumes with
// what it had not sent yet.
func StatePath(ws *workspace.Workspace, server, space string) (string, error) {
	dir, err := ws.StateDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(server + "\n" + space))
	return filepath.Join(dir, "push", hex.EncodeToString(sum[:8])+".jsonl"), nil
}

// loadState reads a push state: the last hash of each key.
func loadState(path string) (map[string]string, error) {
	sent := map[string]string{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return sent, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read push state: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e struct{ K, H string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.K != "" {
			sent[e.K] = e.H // a torn last line (a kill mid-write) is skipped: sent again
		}
	}
	return sent, nil
}

// Push sends plan's records that the state says were not sent as they are now, in batches, each
// acknowledged before the next; a batch that fails to arrive is tried again, and whatever a
// push sent is remembered, so a later push sends only the rest. A dry run reads the state and
// sends nothing.
func Push(ctx context.Context, ws *workspace.Workspace, c *Client, space string, plan *Plan, opt PushOptions) (*PushReport, error) {
	rep := &PushReport{Server: c.URL, Space: space, DryRun: opt.DryRun, Plan: plan}
	if opt.BatchRecords <= 0 {
		opt.BatchRecords = 500
	}
	if opt.Attempts <= 0 {
		opt.Attempts = 5
	}
	if opt.RetryPause <= 0 {
		opt.RetryPause = 200 * time.Millisecond
	}
	statePath, err := StatePath(ws, c.URL, space)
	if err != nil {
		return nil, err
	}
	var lock *workspace.Lock
	if !opt.DryRun {
		if lock, err = ws.LockNamed(ctx, "push", true); err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	sent, err := loadState(statePath)
	if err != nil {
		return nil, err
	}
	// what is new or changed (indexes into plan.items); a task goes again before any new
	// comment of it, so every batch carries the tasks of its comments
	var todo []int
	taskItem := map[string]int{}
	for i, it := range plan.items {
		if !it.comment {
			taskItem[it.task] = i
		}
		if sent[it.key] == it.hash {
			rep.Unchanged++
			continue
		}
		todo = append(todo, i)
		if it.comment {
			rep.Comments++
		} else {
			rep.Tasks++
		}
	}
	sent = nil // what is sent from now on is written to the state file
	if opt.DryRun || len(todo) == 0 {
		return rep, nil
	}
	if err := workspace.MkdirAll(filepath.Dir(statePath), 0o700); err != nil {
		return nil, fmt.Errorf("create push state: %w", err)
	}
	state, err := os.OpenFile(statePath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open push state: %w", err)
	}
	defer state.Close()
	done := int64(0)
	total := int64(len(todo))
	var buf []byte
	for start := 0; start < len(todo); {
		if err := errs.Stopped(ctx, "space push"); err != nil {
			return rep, err
		}
		end := start
		var body, log bytes.Buffer
		inBatch := map[string]bool{}
		for end < len(todo) && end-start < opt.BatchRecords && (end == start || body.Len() < maxBatchBytes) {
			it := plan.items[todo[end]]
			if !inBatch[it.task] {
				if t, ok := taskItem[it.task]; ok && it.comment {
					if buf, err = plan.line(plan.items[t], buf); err != nil {
						return rep, err
					}
					body.Write(buf)
					body.WriteByte('\n')
				}
				inBatch[it.task] = true
			}
			if buf, err = plan.line(it, buf); err != nil {
				return rep, err
			}
			body.Write(buf)
			body.WriteByte('\n')
			line, _ := json.Marshal(struct{ K, H string }{it.key, it.hash})
			log.Write(line)
			log.WriteByte('\n')
			end++
		}
		if err := sendBatch(ctx, c, space, body.Bytes(), opt, rep); err != nil {
			return rep, err
		}
		// acknowledged: remember it (fsynced, so a kill after this line never sends it again)
		if _, err := state.Write(log.Bytes()); err != nil {
			return rep, fmt.Errorf("write push state: %w", err)
		}
		if err := state.Sync(); err != nil {
			return rep, fmt.Errorf("write push state: %w", err)
		}
		rep.Batches++
		done += int64(end - start)
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
		start = end
	}
	return rep, nil
}

// sendBatch sends one batch, trying again while the server cannot be reached or is busy.
func sendBatch(ctx context.Context, c *Client, space string, body []byte, opt PushOptions, rep *PushReport) error {
	pause := opt.RetryPause
	var err error
	for attempt := 1; attempt <= opt.Attempts; attempt++ {
		if _, err = c.Import(ctx, space, body); err == nil || !retryable(err) {
			return err
		}
		if attempt == opt.Attempts {
			break
		}
		rep.Retries++
		select {
		case <-ctx.Done():
			return errs.Stopped(ctx, "space push")
		case <-time.After(pause):
		}
		pause *= 2
	}
	return errs.Wrap(errs.Busy, err, "space push stopped after %d tries; what was sent is remembered: run it again to send the rest", opt.Attempts)
}
