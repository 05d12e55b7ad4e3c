package commands

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// spaceAroundHint ends a query answer with hits: how to read around one, in the command's flags
// (the agent tools name their field, around_ref, in their description).
const spaceAroundHint = `To read the conversation around a hit: cairn space search --around comment:<id> --context N`

func spaceCommand(env *Env) *cli.Command {
	return family("space", "conversations of the other tasks of a shared space (SearchWorkspaceTasks), in spaces.db",
		spaceImportCommand(env),
		spaceExportCommand(env),
		spaceAddCommentCommand(env),
		spaceReindexCommand(env),
		spaceSearchCommand(env),
		spacePushCommand(env),
		spaceRedactionsCommand(env),
	)
}

// openSpaces opens the workspace's spaces.db for one command; the caller closes it.
func (e *Env) openSpaces(c *cli.Context) (*spaces.Store, error) {
	ws, err := e.Workspace()
	if err != nil {
		return nil, err
	}
	st, err := spaces.Open(c.Context, ws)
	if err == nil {
		st.SetExclude(exclude(ws)) // [space] exclude: never imported
	}
	return st, err
}

// progressDelay is how long a job runs before its progress bar appears.
const progressDelay = 400 * time.Millisecond

// spaceProgress draws a progress bar on stderr when it is a terminal; otherwise it draws nothing.
func (e *Env) spaceProgress(total int64, bytes bool, what string) (spaces.Progress, func()) {
	if !e.StderrTTY {
		return nil, func() {}
	}
	if total <= 0 {
		total = -1
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(e.Stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(bytes),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	// The bar's clock starts now, with the job, not at its first frame: otherwise the first
	// frame divides the bytes already done by the microseconds since that frame began.
	bar.StartWithoutRender()
	start := time.Now()
	indexing := false
	return func(done, max int64) {
			// Nothing is drawn before progressDelay: a short job shows no bar, and the first frame's
			// rate is over a real interval.
			if indexing || time.Since(start) < progressDelay {
				return
			}
			if max > 0 && max != bar.GetMax64() {
				bar.ChangeMax64(max)
			}
			if bytes && max > 0 && done >= max {
				// Everything is read; a first import builds both search indexes and commits now,
				// which can take longer than the reading did: say so rather than leave a blank line.
				indexing = true
				bar.Finish()
				fmt.Fprintf(e.Stderr, "%s: all %s read; building the search index…", what, humanBytes(max))
				return
			}
			bar.Set64(done)
		}, func() {
			if indexing {
				fmt.Fprint(e.Stderr, "\r\x1b[K")
				return
			}
			bar.Finish()
		}
}

// humanBytes writes n bytes in the units the progress bar uses.
func humanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func spaceImportCommand(env *Env) *cli.Command {
	return leaf("space import", "load spaces, members, tasks and comments from JSON Lines (the format: docs/formats.md; upsert by id; - for standard input), Claude Code transcripts (--from claude-code), Codex rollouts (--from codex), OpenCode's database (--from opencode) or Gemini CLI session files (--from gemini)", "FILE.jsonl | --from claude-code PATH... | --from codex PATH... | --from opencode [DB...] | --from gemini [PATH...] | --all | --schema", func(c *cli.Context) error {
		if c.Bool("all") {
			if c.NArg() != 0 || c.IsSet("from") || c.Bool("schema") {
				return errs.Invalidf("space import --all finds every runtime's sessions itself: it takes no FILE, no --from and no --schema")
			}
			return env.spaceImportAll(c)
		}
		if c.Bool("schema") {
			if c.NArg() != 0 || c.IsSet("from") {
				return errs.Invalidf("space import --schema takes no FILE and no --from")
			}
			return env.printSchema(formats.SpaceSchema)
		}
		format, err := spaces.LookupImportFormat(c.String("from"))
		if err != nil {
			return err
		}
		if format.Paths {
			return env.spaceImportPaths(c, format)
		}
		if c.NArg() != 1 {
			return errs.Invalidf("space import needs exactly one FILE.jsonl (or - for standard input), got %d arguments", c.NArg())
		}
		name := c.Args().First()
		in := workspace.TextOnly(env.Stdin, "standard input")
		var size int64
		if name != "-" {
			f, err := workspace.OpenRegular(name, "JSON Lines file")
			if err != nil {
				return workspace.FSErrorInput(err, "space import")
			}
			defer f.Close()
			if st, err := f.Stat(); err == nil {
				size = st.Size()
			}
			in = f
		}
		st, err := env.openSpaces(c)
		if err != nil {
			return err
		}
		defer st.Close()
		progress, finish := env.spaceProgress(size, true, "importing")
		rep, err := st.Import(c.Context, in, size, progress)
		finish()
		if err != nil {
			return err
		}
		if !env.JSON || len(rep.BadLines) == 0 {
			err = env.Render(rep, func(w io.Writer) error {
				fmt.Fprintf(w, "imported %s: %s, %s, %s, %s (%s)\n",
					termName(name), count(rep.Spaces, "space", "spaces"), count(rep.Members, "member", "members"), count(rep.Tasks, "task", "tasks"),
					count(rep.Comments, "comment", "comments"), count(rep.Lines, "line", "lines"))
				if rep.OrphanComments > 0 {
					fmt.Fprintf(w, "%d comments belong to tasks not imported yet; they are found once their task is imported\n", rep.OrphanComments)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if len(rep.BadLines) > 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d bad line(s) skipped, the other records were loaded:", name, len(rep.BadLines))
			for _, bl := range rep.BadLines {
				fmt.Fprintf(&b, "\n  line %d: %s", bl.Line, bl.Message)
			}
			fmt.Fprintf(&b, "\nthe format of a line: %s (cairn space import --schema prints its JSON Schema)", formats.Doc)
			return errs.Invalidf("%s", b.String())
		}
		return nil
	})
}

func spaceExportCommand(env *Env) *cli.Command {
	return leaf("space export", "write every space, member, task and comment as JSON Lines of the import format (docs/formats.md): raw, not redacted; the backup and migration path", "",
		exportAction(env, "space export", spaces.Export, func(w io.Writer, rep spaces.ExportReport, out string) {
			fmt.Fprintf(w, "exported %s, %s, %s, %s to %s\n", count(rep.Spaces, "space", "spaces"), count(rep.Members, "member", "members"),
				count(rep.Tasks, "task", "tasks"), count(rep.Comments, "comment", "comments"), termName(out))
		}),
		described("The output imports into a fresh workspace with cairn space import and answers every search the same.\n"+
			"Order: spaces by id, members by space then user, tasks by id, comments by id (integer ids by value first).\n"+
			"Titles and bodies are written as imported, secrets included: it is the workspace owner's data, and no --user is needed."))
}

// spaceImportPaths is space import of a format that reads files and folders: the runtimes'
// transcripts, each into one space per project.
func (e *Env) spaceImportPaths(c *cli.Context, format spaces.ImportFormat) error {
	if c.NArg() == 0 && !format.Optional {
		return errs.Invalidf("space import --from %s needs at least one %s", format.Name, format.Needs)
	}
	for _, p := range c.Args().Slice() {
		if p == "-" {
			return errs.Invalidf("space import --from %s reads files and folders, not standard input", format.Name)
		}
	}
	st, err := e.openSpaces(c)
	if err != nil {
		return err
	}
	defer st.Close()
	progress, finish := e.spaceProgress(0, true, "importing")
	rep, err := format.Import(st, c.Context, c.Args().Slice(), progress)
	finish()
	if err != nil {
		return err
	}
	return e.Render(rep, func(w io.Writer) error {
		if err := writeTranscriptReport(w, rep); err != nil {
			return err
		}
		if n := st.Excluded(); n > 0 {
			fmt.Fprintf(w, "left out by [space] exclude: %d records (never stored)\n", n)
		}
		return nil
	})
}

// spaceImportAll is space import --all: every runtime's past sessions from where it keeps them,
// each reported on its own.
func (e *Env) spaceImportAll(c *cli.Context) error {
	st, err := e.openSpaces(c)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, ierr := st.ImportAll(c.Context, func(runtime string) (spaces.Progress, func()) {
		return e.spaceProgress(0, true, "importing "+runtime)
	})
	if errs.CodeOf(ierr) == errs.Cancelled {
		return ierr
	}
	if err := e.Render(rep, func(w io.Writer) error { return writeAllReport(w, rep) }); err != nil {
		return err
	}
	return ierr
}

// writeAllReport is the text of space import --all: per runtime, where it looked and what it imported.
func writeAllReport(w io.Writer, rep spaces.AllReport) error {
	found := 0
	for _, r := range rep.Runtimes {
		where := make([]string, len(r.Paths))
		for i, p := range r.Paths {
			where[i] = termName(p)
		}
		loc := strings.Join(where, ", ")
		if loc == "" {
			loc = "(no location: the home directory is unknown)"
		}
		switch {
		case !r.Found && r.Error == "":
			fmt.Fprintf(w, "%s: none at %s\n", runtimeName(r.Runtime), loc)
			continue
		case r.Error != "":
			fmt.Fprintf(w, "%s: %s\n  failed: %s\n", runtimeName(r.Runtime), loc, sanitizeLine(r.Error))
			continue
		}
		found++
		fmt.Fprintf(w, "%s: %s\n", runtimeName(r.Runtime), loc)
		var b strings.Builder
		if err := writeTranscriptReport(&b, r.Report); err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if found == 0 {
		fmt.Fprintln(w, "no agent runtime's sessions were found on this machine")
	}
	return nil
}

// writeTranscriptReport is the text of a transcript import: the counts, then what was skipped.
func writeTranscriptReport(w io.Writer, rep any) error {
	var bad []spaces.ClaudeBadLine
	switch r := rep.(type) {
	case spaces.ClaudeReport:
		fmt.Fprintf(w, "imported %s: %d read, %d resumed, %d unchanged; %s, %s, %s (%s)\n",
			count(r.Files, "Claude Code transcript", "Claude Code transcripts"), r.Read, r.Resumed, r.Unchanged,
			count(r.Spaces, "space", "spaces"), count(r.Tasks, "task", "tasks"), count(r.Comments, "comment", "comments"), count(r.Lines, "line", "lines"))
		bad = r.BadLines
	case spaces.OpenCodeReport:
		fmt.Fprintf(w, "imported %s of %s: %d read, %d unchanged; %s, %s, %s\n",
			count(r.Files, "OpenCode session", "OpenCode sessions"), count(r.Databases, "database", "databases"), r.Read, r.Unchanged,
			count(r.Spaces, "space", "spaces"), count(r.Tasks, "task", "tasks"), count(r.Comments, "comment", "comments"))
		if r.Read == 0 && r.Files > 0 {
			fmt.Fprintln(w, "nothing new since the last import")
		}
		bad = r.BadLines
	case spaces.CodexReport:
		fmt.Fprintf(w, "imported %s: %d read, %d resumed, %d unchanged; %s, %s, %s (%s)\n",
			count(r.Files, "Codex rollout", "Codex rollouts"), r.Read, r.Resumed, r.Unchanged,
			count(r.Spaces, "space", "spaces"), count(r.Tasks, "task", "tasks"), count(r.Comments, "comment", "comments"), count(r.Lines, "line", "lines"))
		if r.Read+r.Resumed == 0 && r.Files > 0 {
			fmt.Fprintln(w, "nothing new since the last import")
		}
		types := make([]string, 0, len(r.Unknown))
		for t := range r.Unknown {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			fmt.Fprintf(w, "  skipped %s of type %s, which this cairn does not read (a newer Codex?)\n", count(r.Unknown[t], "record", "records"), sanitizeLine(t))
		}
		bad = r.BadLines
	case spaces.GeminiReport:
		fmt.Fprintf(w, "imported %s: %d read, %d resumed, %d unchanged; %s, %s, %s (%s)\n",
			count(r.Files, "Gemini CLI session file", "Gemini CLI session files"), r.Read, r.Resumed, r.Unchanged,
			count(r.Spaces, "space", "spaces"), count(r.Tasks, "task", "tasks"), count(r.Comments, "comment", "comments"), count(r.Lines, "line", "lines"))
		bad = r.BadLines
	}
	for _, bl := range bad {
		if bl.Line > 0 {
			fmt.Fprintf(w, "  skipped %s line %d: %s\n", bl.File, bl.Line, bl.Message)
		} else {
			fmt.Fprintf(w, "  skipped %s: %s\n", bl.File, bl.Message)
		}
	}
	return nil
}

func spaceAddCommentCommand(env *Env) *cli.Command {
	return leaf("space add-comment", "add one comment to the current task (--task / CAIRN_TASK); upsert by --id", "BODY|-", func(c *cli.Context) error {
		if c.NArg() != 1 {
			return errs.Invalidf("space add-comment needs exactly one BODY (or - for standard input), got %d arguments", c.NArg())
		}
		body := c.Args().First()
		if body == "-" {
			data, err := env.readInput(c.Context, "-")
			if err != nil {
				return err
			}
			body = string(data)
		}
		task := strings.TrimPrefix(env.Caller.Task, "task:")
		if task == "" {
			return errs.Invalidf("space add-comment adds to the current task: pass --task ID or set CAIRN_TASK")
		}
		in := spaces.Comment{Task: spaces.ID(task), Body: body, Attachments: []string{}}
		bind(c, "space add-comment", &in)
		in.ID = spaces.ID(strings.TrimPrefix(string(in.ID), "comment:"))
		if in.Author == "" {
			in.Author = env.Caller.User
		}
		if in.Author == "" {
			return errs.Invalidf("space add-comment needs --author (or --user / CAIRN_USER)")
		}
		if in.CreatedAt == "" {
			in.CreatedAt = time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
		}
		st, err := env.openSpaces(c)
		if err != nil {
			return err
		}
		defer st.Close()
		added, err := st.AddComment(c.Context, in)
		if err != nil {
			return err
		}
		return env.Render(map[string]any{"comment": added}, func(w io.Writer) error {
			verb, idx := "added", "indexed"
			if added.Replaced {
				verb = "replaced"
			}
			if !added.Indexed {
				idx = "not indexed"
			}
			fmt.Fprintf(w, "%s %s in %s (%s/%s %s, %s)\n", verb, added.Ref, added.Task, added.Author, added.Kind, added.CreatedAt, idx)
			return nil
		})
	})
}

func spaceReindexCommand(env *Env) *cli.Command {
	return leaf("space reindex", "rebuild every comment's index text and the search index (after the redaction rules change)", "", func(c *cli.Context) error {
		if c.NArg() != 0 {
			return errs.Invalidf("space reindex takes no arguments, got %d", c.NArg())
		}
		st, err := env.openSpaces(c)
		if err != nil {
			return err
		}
		defer st.Close()
		progress, finish := env.spaceProgress(0, false, "reindexing")
		rep, err := st.Reindex(c.Context, progress)
		finish()
		if err != nil {
			return err
		}
		return env.Render(rep, func(w io.Writer) error {
			fmt.Fprintf(w, "reindexed %d comments: %d indexed, %d index texts changed\n", rep.Comments, rep.Indexed, rep.Changed)
			return nil
		})
	})
}

func spaceSearchCommand(env *Env) *cli.Command {
	return leaf("space search", "search the other tasks of the current task's space (SearchWorkspaceTasks); with no --user, the Claude Code and Codex sessions imported with --from claude-code or --from codex", "[QUERY...]", func(c *cli.Context) error {
		in := spaces.SearchInput{Query: strings.Join(c.Args().Slice(), " ")}
		bind(c, "space search", &in)
		if c.IsSet("limit") && in.Limit == 0 {
			return errs.Invalidf("--limit 0 is out of range 1..%d", spaces.MaxLimit)
		}
		if c.IsSet("around") && in.Around == "" {
			return errs.Invalidf("--around needs comment:<id>")
		}
		ws, err := env.Workspace()
		if err != nil {
			return err
		}
		var ans spaces.Answer
		if client, cerr := env.teamClient(ws); cerr != nil {
			return cerr
		} else if client != nil && env.Caller.Subtask {
			ans = spaces.Answer{Unavailable: &spaces.Unavailable{Message: spaces.UnavailableMessage}}
		} else if client != nil {
			// [space] server: the team server answers, for the member its token names
			ans, err = client.Search(c.Context, env.Caller.Task, in)
		} else {
			ans, err = spaces.SearchWorkspaceTasks(c.Context, ws, env.Caller, in)
		}
		if err != nil {
			return err
		}
		if err := env.Render(ans.Value(), func(w io.Writer) error { return env.writeSpaceAnswer(w, ans) }); err != nil {
			return err
		}
		env.spaceHint(ans)
		return nil
	})
}

// spaceHint tells the person at the command line why a search was not available: which
// identity is missing and how to give it, on stderr. The answer on stdout stays the seed's one
// line, which the agent tools (tools call, MCP, HTTP) give alone, and --json prints only it.
func (e *Env) spaceHint(a spaces.Answer) {
	if a.Unavailable == nil || e.JSON {
		return
	}
	id := e.Caller
	var hint string
	switch {
	case id.User == "":
		hint = "no user given: pass --user ID and --task ID (or set CAIRN_USER and CAIRN_TASK) to search a shared space; Claude Code sessions imported with 'cairn space import --from claude-code' need neither"
	case id.Task == "":
		hint = "no task given: pass --task ID (or set CAIRN_TASK), the space task you work in"
	case id.Subtask:
		hint = "a subtask (--subtask, CAIRN_SUBTASK) does not search the space; its parent task does"
	default:
		hint = "the task given with --task is not in a space that --user may read, or the space has no search index yet"
	}
	fmt.Fprintf(e.Stderr, "hint: %s\n", hint)
}

// writeSpaceAnswer renders an answer as the Markdown agents read.
func (e *Env) writeSpaceAnswer(w io.Writer, a spaces.Answer) error {
	switch {
	case a.Unavailable != nil:
		fmt.Fprintln(w, a.Unavailable.Message)
	case a.Around != nil:
		r := a.Around
		fmt.Fprintf(w, "## Workspace Task Search — %s %s (%s, %d before and after)\n\n", r.Task, quoted(r.TaskTitle), r.Target, r.Context)
		if r.Runtime != "" {
			fmt.Fprintf(w, "%s\n\n", sessionLine(r.Session))
		}
		for _, c := range r.Comments {
			mark := ""
			if c.Target {
				mark = " ←"
			}
			fmt.Fprintf(w, "- %s %s%s\n", e.Bold(c.Ref), e.Dim(c.Author+"/"+c.Kind+" "+c.CreatedAt), mark)
			writeSpaceBody(w, "  ", c.Body)
		}
	default:
		r := a.Search
		fmt.Fprintf(w, "## Workspace Task Search Results (query: %s, %d hit(s))\n\n", quoted(r.Query), len(r.Hits))
		if len(r.Hits) == 0 {
			fmt.Fprintf(w, "No comment in the other tasks of this space matches every term.\n\n")
		}
		for _, h := range r.Hits {
			fmt.Fprintf(w, "- %s %s / %s %s\n", h.Task, quoted(h.TaskTitle), e.Bold(h.Ref), e.Dim(h.Author+"/"+h.Kind+" "+h.CreatedAt))
			fmt.Fprintf(w, "  %s\n", e.spaceHighlight(h.Excerpt, h.Terms))
			if h.Runtime != "" {
				fmt.Fprintf(w, "  %s\n", e.Dim(sessionLine(h.Session)))
			}
			if h.Before != nil {
				for _, n := range *h.Before {
					fmt.Fprintf(w, "  - %s %s (before)\n", n.Ref, e.Dim(n.Author+"/"+n.Kind+" "+n.CreatedAt))
					writeSpaceBody(w, "    ", n.Body)
				}
				for _, n := range *h.After {
					fmt.Fprintf(w, "  - %s %s (after)\n", n.Ref, e.Dim(n.Author+"/"+n.Kind+" "+n.CreatedAt))
					writeSpaceBody(w, "    ", n.Body)
				}
			}
			fmt.Fprintln(w)
		}
		if r.Truncated {
			fmt.Fprintf(w, "More comments match; add terms or raise --limit (at most %d).\n", spaces.MaxLimit)
		}
		if len(r.Hits) > 0 {
			fmt.Fprintln(w, spaceAroundHint)
		}
	}
	return nil
}

// sessionLine names a past session of an agent runtime, its project and how to resume it.
func sessionLine(s spaces.Session) string {
	in := ""
	if s.Project != "" {
		in = " in " + sanitizeLine(s.Project)
	}
	return fmt.Sprintf("%s session %s%s; resume: %s", runtimeName(s.Runtime), sanitizeLine(s.SessionID), in, sanitizeLine(s.Resume))
}

// runtimeName is an agent runtime as people call it.
func runtimeName(runtime string) string {
	switch runtime {
	case spaces.SourceClaudeCode:
		return "Claude Code"
	case spaces.SourceCodex:
		return "Codex"
	case spaces.SourceOpenCode:
		return "OpenCode"
	case spaces.SourceGemini:
		return "Gemini CLI"
	}
	return sanitizeLine(runtime)
}

// writeSpaceBody writes a raw body, every line indented, so multi-line comments stay inside their item.
func writeSpaceBody(w io.Writer, indent, body string) {
	body = strings.TrimRight(body, "\n")
	if body == "" {
		fmt.Fprintf(w, "%s(empty)\n", indent)
		return
	}
	for _, line := range strings.Split(body, "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, strings.TrimRight(line, "\r"))
	}
}

// spaceHighlight marks every occurrence of the (folded) terms in an excerpt; a no-op without colour.
func (e *Env) spaceHighlight(s string, terms []string) string {
	if !e.Color || len(terms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range textmatch.FoldMap(s).Occurrences(terms) {
		b.WriteString(s[last:sp[0]])
		b.WriteString(e.Mark(s[sp[0]:sp[1]]))
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// quoted puts s in double quotes as the Markdown answer shows it: text as written (a U+3000 or a
// kana stays itself, where %q would escape it), with quotes escaped and control characters and
// invalid UTF-8 made harmless for a terminal.
func quoted(s string) string {
	return `"` + strings.ReplaceAll(sanitizeLine(s), `"`, `\"`) + `"`
}
