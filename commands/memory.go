package commands

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/memory"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

func memoryCommand(env *Env) *cli.Command {
	return family("memory", "project memory: summary, decisions, requests (MemorySearch, MemoryRead, MemoryWrite, MemoryEdit)",
		leaf("memory search", "find a literal text in memory/summary.md, memory/decisions/ and memory/requests/ (MemorySearch)", "QUERY", func(c *cli.Context) error {
			ws, in, err := env.searchInput(c)
			if err != nil {
				return err
			}
			res, err := memory.MemorySearch(c.Context, ws, in)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				needle := textmatch.NewNeedle(strings.TrimSpace(in.Query))
				for i, h := range res.Hits {
					header := env.Bold(termName(h.Path)+":"+strconv.Itoa(h.Line)) + "  " + env.Dim(termName(memory.Ref{Kind: h.Kind, Slug: h.Slug}.String()))
					env.writeHit(w, i, header, h.Excerpt, h.Lines, needle)
				}
				n := len(res.Hits)
				if res.AgentHits != nil {
					for i, h := range *res.AgentHits {
						project := h.Project
						if project == "" {
							project = "every project"
						}
						header := env.Bold(termName(h.Path)+":"+strconv.Itoa(h.Line)) + "  " + env.Dim(runtimeName(h.Runtime)+" memory of "+sanitizeLine(project))
						env.writeHit(w, i, header, h.Excerpt, h.Lines, needle)
					}
					n = len(*res.AgentHits)
				}
				env.searchNotes(in.Query, n, res.Truncated, res.Skipped, res.SkippedWhy)
				return nil
			})
		}),
		leaf("memory read", "print one entry (MemoryRead); --json adds its path and sha256", "KIND [SLUG] | decision:SLUG | '#SLUG'", func(c *cli.Context) error {
			ws, ref, err := env.entryArgs(c, "read")
			if err != nil {
				return err
			}
			res, err := memory.MemoryRead(c.Context, ws, memory.ReadInput{Kind: string(ref.Kind), Slug: ref.Slug})
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				if env.StderrTTY {
					fmt.Fprintln(env.Stderr, env.Dim(termName(res.Path)+"  sha256 "+res.SHA256))
				}
				_, err := io.WriteString(w, res.Content)
				return err
			})
		},
			completes(env.completeEntry)),
		leaf("memory write", "create or replace one entry atomically from --file or standard input (MemoryWrite)", "KIND [SLUG] | decision:SLUG", func(c *cli.Context) error {
			ws, ref, err := env.entryArgs(c, "write")
			if err != nil {
				return err
			}
			src := c.String("file")
			if src == "" {
				src = "-"
			}
			if f, ok := env.Stdin.(*os.File); ok && src == "-" && isTerminal(f) {
				fmt.Fprintln(env.Stderr, "reading the entry from standard input; end it with Ctrl-D")
			}
			data, err := env.readInputLimited(c.Context, src, memory.MaxFileSize, "--file")
			if err != nil {
				return err
			}
			res, err := memory.MemoryWrite(c.Context, ws, memory.WriteInput{Kind: string(ref.Kind), Slug: ref.Slug, Content: string(data), ExpectSHA256: c.String("expect-sha256")})
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				verb := "replaced"
				if res.Created {
					verb = "created"
				}
				fmt.Fprintf(w, "%s %s (%d bytes)\n", verb, termName(res.Path), res.Bytes)
				return nil
			})
		},
			completes(env.completeEntry)),
		leaf("memory edit", "replace exact text in one entry (MemoryEdit); --old must occur once unless --all", "KIND [SLUG] | decision:SLUG | '#SLUG'", func(c *cli.Context) error {
			if err := requireFlags(c, "old", "new"); err != nil {
				return err
			}
			ws, ref, err := env.entryArgs(c, "edit")
			if err != nil {
				return err
			}
			in := memory.EditInput{Kind: string(ref.Kind), Slug: ref.Slug}
			bind(c, "memory edit", &in)
			res, err := memory.MemoryEdit(c.Context, ws, in)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				plural := "s"
				if res.Replacements == 1 {
					plural = ""
				}
				fmt.Fprintf(w, "edited %s (%d replacement%s)\n", termName(res.Path), res.Replacements, plural)
				return nil
			})
		},
			completes(env.completeEntry)),
	)
}

func knowledgeCommand(env *Env) *cli.Command {
	return family("knowledge", "project knowledge under knowledge/ (KnowledgeSearch); read entries with 'cairn memory read knowledge SLUG'",
		leaf("knowledge search", "find a literal text in knowledge/*.md, frontmatter included (KnowledgeSearch)", "QUERY", func(c *cli.Context) error {
			ws, in, err := env.searchInput(c)
			if err != nil {
				return err
			}
			kin := memory.KnowledgeSearchInput{Query: in.Query}
			bind(c, "knowledge search", &kin)
			res, err := memory.KnowledgeSearch(c.Context, ws, kin)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				needle := textmatch.NewNeedle(strings.TrimSpace(in.Query))
				for i, h := range res.Hits {
					header := env.Bold(termName(h.Path)+":"+strconv.Itoa(h.Line)) + "  " + env.Dim(termName(memory.Ref{Kind: memory.KindKnowledge, Slug: h.Slug}.String()))
					if k, ok := h.Kind.(string); ok && k != "" {
						header += "  " + env.Dim("["+sanitizeLine(k)+"]")
					}
					if d, ok := h.Description.(string); ok && d != "" {
						header += "  " + sanitizeLine(d)
					}
					env.writeHit(w, i, header, h.Excerpt, h.Lines, needle)
				}
				env.searchNotes(in.Query, len(res.Hits), res.Truncated, res.Skipped, res.SkippedWhy)
				return nil
			})
		}),
	)
}

// completeEntry completes KIND, then the slugs of that kind, for read, write and edit.
func (e *Env) completeEntry(c *cli.Context) {
	switch c.NArg() {
	case 0:
		for _, k := range []string{"summary", "decision", "request", "knowledge"} {
			fmt.Fprintln(e.Stdout, k)
		}
	case 1:
		k, err := memory.ParseKind(c.Args().First())
		if err != nil || k == memory.KindSummary {
			return
		}
		ws, err := e.Workspace()
		if err != nil {
			return
		}
		for _, s := range memory.Slugs(ws, k) {
			fmt.Fprintln(e.Stdout, s)
		}
	}
}

// searchInput opens the workspace and reads the query (all positional arguments, joined by
// spaces) and the overrides.
func (e *Env) searchInput(c *cli.Context) (*workspace.Workspace, memory.SearchInput, error) {
	if c.NArg() == 0 {
		return nil, memory.SearchInput{}, errs.Invalidf("%s needs a QUERY", c.Command.FullName())
	}
	in := memory.SearchInput{Query: strings.Join(c.Args().Slice(), " ")}
	bind(c, "memory search", &in)
	ws, err := e.Workspace()
	return ws, in, err
}

// entryArgs opens the workspace and reads KIND [SLUG] or one ref (decision:SLUG, #SLUG, summary)
// from the arguments.
func (e *Env) entryArgs(c *cli.Context, verb string) (*workspace.Workspace, memory.Ref, error) {
	ws, err := e.Workspace()
	if err != nil {
		return nil, memory.Ref{}, err
	}
	args := c.Args().Slice()
	switch len(args) {
	case 0:
		return ws, memory.Ref{}, errs.Invalidf("memory %s needs KIND [SLUG] or a ref such as decision:SLUG or '#SLUG' (kinds: summary, decision, request, knowledge)", verb)
	case 1:
		if k, err := memory.ParseKind(args[0]); err == nil {
			k, slug, _, err := memory.Address(string(k), "")
			return ws, memory.Ref{Kind: k, Slug: slug}, err
		}
		root, err := memory.OpenRoot(ws)
		if err != nil {
			return ws, memory.Ref{}, err
		}
		defer root.Close()
		ref, err := memory.ResolveRef(root, args[0])
		return ws, ref, err
	case 2:
		k, slug, _, err := memory.Address(args[0], args[1])
		return ws, memory.Ref{Kind: k, Slug: slug}, err
	}
	return ws, memory.Ref{}, errs.Invalidf("memory %s takes KIND [SLUG] or one ref, got %d arguments", verb, len(args))
}

// writeHit prints one search hit for a person: a path:line header, then the excerpt with line
// numbers, matching lines marked with ':' (context with '-', as grep does) and the match highlighted.
func (e *Env) writeHit(w io.Writer, i int, header, excerpt string, lines memory.Lines, needle textmatch.Needle) {
	if i > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, header)
	text := strings.Split(excerpt, "\n")
	width := len(strconv.Itoa(lines.From + len(text) - 1))
	matches := map[int]bool{}
	for _, m := range lines.Matches {
		matches[m] = true
	}
	for k, l := range text {
		n := lines.From + k
		if !matches[n] {
			if l == "" {
				fmt.Fprintln(w, e.Dim(fmt.Sprintf("%*d-", width, n)))
			} else {
				fmt.Fprintf(w, "%s  %s\n", e.Dim(fmt.Sprintf("%*d-", width, n)), sanitizeLine(l))
			}
			continue
		}
		var b strings.Builder
		last := 0
		for _, s := range needle.Spans(l) {
			b.WriteString(sanitizeLine(l[last:s[0]]))
			b.WriteString(e.Mark(sanitizeLine(l[s[0]:s[1]])))
			last = s[1]
		}
		b.WriteString(sanitizeLine(l[last:]))
		fmt.Fprintf(w, "%s  %s\n", fmt.Sprintf("%*d:", width, n), b.String())
	}
}

// searchNotes tells the person on stderr what the hits do not show: that there are none, a cut
// at the limit, skipped files. Standard output stays empty without hits, as grep's does.
func (e *Env) searchNotes(query string, hits int, truncated bool, skipped []string, why map[string]string) {
	if hits == 0 {
		fmt.Fprintf(e.Stderr, "no line matches %q\n", sanitizeLine(strings.TrimSpace(query)))
	}
	if truncated {
		plural := "s"
		if hits == 1 {
			plural = ""
		}
		fmt.Fprintf(e.Stderr, "note: showing the first %d hit%s; more exist (raise --limit, at most %d)\n", hits, plural, workspace.MaxSearchHits)
	}
	for _, p := range skipped {
		reason := why[p]
		if reason == "" {
			reason = "over 8 MiB, unreadable, not a regular file, not a valid slug, or a symlink leaving the workspace"
		}
		fmt.Fprintf(e.Stderr, "note: skipped %s (%s)\n", termName(p), reason)
	}
}

// sanitizeLine makes file text safe to print on a terminal: invalid UTF-8 becomes U+FFFD and
// control characters other than tab become U+FFFD, so file content cannot drive the terminal.
func sanitizeLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r != '\t' && unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}
