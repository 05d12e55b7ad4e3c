package commands

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/importers"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// boardSearchMemoryLimit is where the garbage collector resumes during a board search (see above).
const boardSearchMemoryLimit = 1 << 30

func boardCommand(env *Env) *cli.Command {
	return family("board", "the kanban board of agent work: import it, search it (search.query, flowly_search)",
		boardImportCommand(env),
		boardExportCommand(env),
		boardSearchCommand(env),
	)
}

func boardImportCommand(env *Env) *cli.Command {
	return leaf("board import", "replace the board with a board document (the format: docs/formats.md; - for standard input), or one project with --from", "FILE.json | --from "+strings.Join(importers.Formats(), "|")+" SOURCE... | --schema", func(c *cli.Context) error {
		if c.Bool("schema") {
			if c.NArg() != 0 || c.IsSet("from") {
				return errs.Invalidf("board import --schema takes no FILE and no --from")
			}
			return env.printSchema(formats.BoardSchema)
		}
		if from := c.String("from"); c.IsSet("from") {
			return boardImportFrom(env, c, from)
		}
		if c.IsSet("project") {
			return errs.Invalidf("--project names the source of --from; a board document names its own projects")
		}
		if c.NArg() != 1 {
			return errs.Invalidf("board import needs exactly one FILE.json (or - for standard input), got %d arguments", c.NArg())
		}
		name := c.Args().First()
		in := workspace.TextOnly(env.Stdin, "standard input")
		if name != "-" {
			f, err := workspace.OpenRegular(name, "board document")
			if err != nil {
				return workspace.FSErrorInput(err, "board import")
			}
			defer f.Close()
			in = f
		}
		ws, err := env.Workspace()
		if err != nil {
			return err
		}
		res, err := board.Import(c.Context, ws, in)
		if err != nil {
			return err
		}
		return env.Render(res, func(w io.Writer) error {
			rev := fmt.Sprint(res.Revision)
			if res.DocumentRevision != res.Revision {
				// a re-import: the stored revision moves past the board it replaced
				rev = fmt.Sprintf("%d (the document says %d: the revision only moves forward)", res.Revision, res.DocumentRevision)
			}
			fmt.Fprintf(w, "imported board revision %s: %s, %s, %s, %s, %s, %s, summaries of %s, %s\n",
				rev, count(res.Projects, "project", "projects"), count(res.Cards, "card", "cards"), count(res.Events, "event", "events"),
				count(res.Workpads, "workpad item", "workpad items"), count(res.Ideas, "idea", "ideas"), count(res.Artifacts, "artifact", "artifacts"),
				count(res.Summaries, "card", "cards"), count(res.Memory, "memory entry", "memory entries"))
			return nil
		})
	},
		described("Without --from, FILE.json (or - for standard input) replaces the whole board.\n"+
			"With --from, SOURCE is one project of another tracker, which replaces that project only\n"+
			"(every other project is kept as it was; importing it again never duplicates cards):\n"+
			formatLines()+
			"--project names the source where its own name is missing or wrong.\n"+
			"The fields each --from reads, and the board document: docs/formats.md."))
}

func boardExportCommand(env *Env) *cli.Command {
	return leaf("board export", "write the board as one board document (docs/formats.md), the input of board import: the backup and migration path", "",
		exportAction(env, "board export", board.Export, func(w io.Writer, res *board.ExportResult, out string) {
			fmt.Fprintf(w, "exported board revision %d: %s, %s, %s, %s, %s, %s, summaries of %s, %s to %s\n",
				res.Revision, count(res.Projects, "project", "projects"), count(res.Cards, "card", "cards"), count(res.Events, "event", "events"),
				count(res.Workpads, "workpad item", "workpad items"), count(res.Ideas, "idea", "ideas"), count(res.Artifacts, "artifact", "artifacts"),
				count(res.Summaries, "card", "cards"), count(res.Memory, "memory entry", "memory entries"), termName(out))
		}),
		described("The output imports into a fresh workspace with cairn board import and answers every search the same.\n"+
			"Order: records in the order they were imported, summaries by card id, memory entries in their file's order."))
}

// formatLines are the --from formats of help, one per line with what each reads, in columns.
func formatLines() string {
	width := 0
	for _, f := range importers.Table {
		width = max(width, len(f.Name))
	}
	var b strings.Builder
	for _, f := range importers.Table {
		for i, line := range strings.Split(f.Doc, "\n") {
			name := f.Name
			if i > 0 {
				name = ""
			}
			fmt.Fprintf(&b, "  %-*s  %s\n", width, name, line)
		}
	}
	return b.String()
}

// boardImportFrom converts one source of another tracker into a project and puts it on the board.
func boardImportFrom(env *Env, c *cli.Context, from string) error {
	format, unknown := importers.Lookup(from)
	if c.NArg() != 1 && !(format.Many && c.NArg() > 1) {
		return errs.Invalidf("board import --from %s needs exactly one SOURCE, got %d arguments", from, c.NArg())
	}
	if unknown != nil {
		return unknown
	}
	pb, err := format.Read(importers.Source{Paths: c.Args().Slice(), Name: c.String("project"),
		ReadFile: func(path string) ([]byte, string, error) { return readSource(c.Context, env, path) }})
	if err != nil {
		return err
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	res, err := board.ImportProject(c.Context, ws, pb)
	if err != nil {
		return err
	}
	return env.Render(res, func(w io.Writer) error {
		verb := "added"
		if res.Replaced {
			verb = "replaced"
		}
		cards := count(res.Cards, "card", "cards")
		if n := len(res.Removed); n > 0 {
			cards += fmt.Sprintf(" (%d removed: %s)", n, listSome(res.Removed, 5))
		}
		fmt.Fprintf(w, "%s project %s (%s): %s, %s, %s, %s, %s; board revision %d, %s\n",
			verb, res.Project, res.Title, cards, count(res.Events, "note", "notes"), count(res.Workpads, "workpad item", "workpad items"),
			count(res.Artifacts, "artifact", "artifacts"), count(res.Memory, "memory entry", "memory entries"), res.Revision, count(res.Projects, "project", "projects"))
		return nil
	})
}

// listSome joins the first max names, and says how many more there are.
func listSome(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// readSource reads a source file, or standard input for -, bounded like a board document, by
// workspace's rule for a file cairn reads (a regular file only, the cap enforced while reading).
func readSource(ctx context.Context, env *Env, src string) ([]byte, string, error) {
	const max = 1 << 30
	if src == "-" {
		data, err := workspace.ReadCapped(ctx, workspace.TextOnly(env.Stdin, "standard input"), max, "standard input")
		return data, "standard input", err
	}
	data, err := workspace.ReadRegular(ctx, src, max, "source")
	return data, src, err
}

func boardSearchCommand(env *Env) *cli.Command {
	return leaf("board search", "search cards, summaries, notes, workpads, ideas, deliverables and project memory", "QUERY...", func(c *cli.Context) error {
		in := board.SearchInput{Query: strings.Join(c.Args().Slice(), " ")}
		bind(c, "board search", &in)
		if c.IsSet("project") && c.Bool("all-projects") {
			return errs.Invalidf("--project and --all-projects exclude each other")
		}
		ws, err := env.Workspace()
		if err != nil {
			return err
		}
		// A search is one short process whose allocations are nearly all the loaded board,
		// which stays live to the end: collecting garbage only near a generous memory limit
		// saves several GC cycles on a fresh start. The settings are restored on return.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(boardSearchMemoryLimit))
		card := env.Caller.Card
		switch {
		case card != "" && (c.IsSet("project") || c.Bool("all-projects")):
			return errs.Invalidf("--card searches that card's own project; drop --project/--all-projects")
		case card == "" && c.IsSet("project"):
			p := c.String("project")
			in.ProjectID = &p
		}
		ix, err := board.Load(c.Context, ws)
		if err != nil {
			return err
		}
		if card != "" {
			res, err := ix.AgentSearch(c.Context, ws.Config.Board, board.AgentInput{Card: card, Query: in.Query, Sources: in.Sources, Limit: in.Limit})
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error { return env.writeAgentResult(w, res) })
		}
		res, err := ix.Search(c.Context, ws.Config.Board, in)
		if err != nil {
			return err
		}
		if !env.JSON { // with --json, "partial" says it
			for _, p := range res.Partial {
				fmt.Fprintf(env.Stderr, "cairn: %s could not be read; results are missing them\n", boardFileLabel(p))
			}
		}
		return env.Render(res, func(w io.Writer) error { return env.writeSearchResult(w, res, in.ProjectID == nil) })
	},
		described("Every word must occur somewhere in a card (any source); \"quoted phrases\" count as one word;\n"+
			"#tag keeps cards with that tag or a tag under it (#module matches module/storage); quote it in a\n"+
			"shell ('#backend'), where an unquoted # starts a comment, or write tag:backend, which needs no quotes.\n"+
			"With --card (or CAIRN_CARD) it is the agent view flowly_search: that card's project only,\n"+
			"the card itself excluded, no memory, each card with its tags and latest summary."))
}

// showingFirst is the truncation notice of the Search page.
func showingFirst(n int) string {
	if n == 1 {
		return "Showing the first card"
	}
	return fmt.Sprintf("Showing the first %d cards", n)
}

// boardFileLabel names a partial file as the Search page does.
func boardFileLabel(p string) string {
	switch p {
	case "summaries":
		return "Summaries"
	case "memory":
		return "Memory"
	}
	return p
}

// boardSourceLabel is a hit's source as the Search page labels it.
func boardSourceLabel(s board.Source) string {
	switch s {
	case board.SourceCard:
		return "Card"
	case board.SourceSummary:
		return "Summary"
	case board.SourceNote:
		return "Note"
	case board.SourceWorkpad:
		return "Workpad"
	case board.SourceIdea:
		return "Idea"
	case board.SourceArtifact:
		return "Deliverable"
	case board.SourceMemory:
		return "Memory"
	}
	return string(s)
}

// writeSearchResult prints one line per card (lane, type, project in all-projects mode, Archived),
// then its hits with the matched terms marked; the card title's own hit marks the card line.
func (e *Env) writeSearchResult(w io.Writer, res *board.Result, allProjects bool) error {
	if len(res.Cards) == 0 && len(res.Memory) == 0 {
		fmt.Fprintln(w, "No results")
		return nil
	}
	for _, c := range res.Cards {
		title := c.Title
		var hits []board.Hit
		for _, h := range c.Hits {
			if h.Source == board.SourceCard && h.Field == "title" && h.Snippet == c.Title {
				title = e.markRanges(h.Snippet, h.Ranges)
				continue
			}
			hits = append(hits, h)
		}
		meta := []string{c.Status}
		if c.Type != "" {
			meta = append(meta, c.Type)
		}
		if allProjects {
			meta = append(meta, c.ProjectTitle)
		}
		if c.Archived {
			meta = append(meta, "Archived")
		}
		fmt.Fprintf(w, "%s  %s  %s\n", e.Bold(c.TaskID), title, e.Dim(strings.Join(meta, " · ")))
		for _, h := range hits {
			label := boardSourceLabel(h.Source)
			if h.Field != string(h.Source) {
				label += " " + h.Field
			}
			if h.Status != "" {
				label += " (" + h.Status + ")"
			}
			fmt.Fprintf(w, "    %s  %s\n", e.Dim(label+":"), e.markRanges(h.Snippet, h.Ranges))
		}
	}
	if res.Truncated {
		fmt.Fprintln(w, showingFirst(len(res.Cards)))
	}
	if len(res.Memory) > 0 {
		fmt.Fprintln(w, e.Bold("Memory"))
		for _, m := range res.Memory {
			fmt.Fprintf(w, "%s  %s  %s\n", e.Bold(m.ID), m.Title, e.Dim(m.Kind+" · "+m.ProjectID))
			fmt.Fprintf(w, "    %s\n", e.markRanges(m.Snippet, m.Ranges))
		}
	}
	return nil
}

// writeAgentResult prints the agent view: card line, tags, latest summary, then the hits.
func (e *Env) writeAgentResult(w io.Writer, res *board.AgentResult) error {
	if len(res.Cards) == 0 {
		fmt.Fprintln(w, "No results")
		return nil
	}
	for _, c := range res.Cards {
		meta := []string{c.Status}
		if c.Type != "" {
			meta = append(meta, c.Type)
		}
		if c.Archived {
			meta = append(meta, "Archived")
		}
		fmt.Fprintf(w, "%s  %s  %s\n", e.Bold(c.TaskID), c.Title, e.Dim(strings.Join(meta, " · ")))
		if len(c.Tags) > 0 {
			fmt.Fprintf(w, "    %s  %s\n", e.Dim("tags:"), strings.Join(c.Tags, ", "))
		}
		if c.Summary != "" {
			fmt.Fprintf(w, "    %s  %s\n", e.Dim("summary:"), strings.ReplaceAll(c.Summary, "\n", " / "))
		}
		for _, h := range c.Hits {
			fmt.Fprintf(w, "    %s  %s\n", e.Dim(boardSourceLabel(h.Source)+":"), h.Snippet)
		}
	}
	if res.Truncated {
		fmt.Fprintln(w, showingFirst(len(res.Cards)))
	}
	return nil
}

// markRanges highlights the UTF-16 ranges of a snippet with env.Mark (a no-op off a terminal).
func (e *Env) markRanges(s string, ranges []board.Range) string {
	if len(ranges) == 0 || !e.Color {
		return s
	}
	var b strings.Builder
	unit, last, k := 0, 0, 0
	open := -1
	for i := 0; i <= len(s) && k < len(ranges); {
		if open < 0 && unit == ranges[k][0] {
			b.WriteString(s[last:i])
			open, last = i, i
		}
		if open >= 0 && unit == ranges[k][1] {
			b.WriteString(e.Mark(s[open:i]))
			open, last = -1, i
			k++
			continue
		}
		if i == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		unit += textmatch.RuneUTF16Len(r)
		i += size
	}
	if open >= 0 {
		b.WriteString(e.Mark(s[open:]))
	} else {
		b.WriteString(s[last:])
	}
	return b.String()
}
