//go:build !urfave_cli_no_docs

// The man page is generated from the command tree by scripts/genman, never by cairn itself: a
// cairn built with -tags urfave_cli_no_docs (as the README installs it) leaves out urfave/cli's
// Markdown and roff writers and the Markdown parser they load at every start (about 0.2 ms of a
// fresh process), and this file with them.

package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"
)

// ManPage renders cairn(1) from the command definitions, so the page never drifts from the flags:
// the commands with their examples, then EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES sections
// generated from the same tables as the help.
func ManPage() (string, error) {
	app := NewApp(newEnv(nil, io.Discard, io.Discard))
	forMan(app.Commands)
	// the start-here lines as a preformatted block, aligned as on the terminal
	app.Description = "\n    " + strings.ReplaceAll(app.Description, "\n", "\n    ")
	for _, f := range app.Flags {
		escapeFlagUsage(f)
	}
	md, err := app.ToMarkdown()
	if err != nil {
		return "", err
	}
	md = "% cairn 1\n\n" + md + manSections(app)
	return string(md2man.Render([]byte(md))), nil
}

// forMan readies command texts for Markdown: placeholders such as <id> escaped (Markdown would
// take them for HTML and drop them), the description and examples as a preformatted block, and
// the exit statuses left to the page's own section.
func forMan(cmds []*cli.Command) {
	for _, c := range cmds {
		desc := c.Description
		if i := strings.Index(desc, "Exit status:\n"); i >= 0 {
			desc = strings.TrimRight(desc[:i], "\n")
		}
		if c.UsageText == "" {
			c.UsageText = desc // the page shows it as a preformatted block, under the command's name
		}
		c.Usage = escapeMarkdown(c.Usage)
		c.ArgsUsage = escapeMarkdown(c.ArgsUsage)
		for _, f := range c.Flags {
			escapeFlagUsage(f)
		}
		forMan(c.Subcommands)
	}
}

// escapeMarkdown escapes the angle brackets of placeholders such as comment:<id>.
func escapeMarkdown(s string) string {
	return strings.NewReplacer("<", `\<`, ">", `\>`, "*", `\*`).Replace(s)
}

func escapeFlagUsage(f cli.Flag) {
	switch f := f.(type) {
	case *cli.StringFlag:
		f.Usage = escapeMarkdown(f.Usage)
	case *cli.IntFlag:
		f.Usage = escapeMarkdown(f.Usage)
	case *cli.BoolFlag:
		f.Usage = escapeMarkdown(f.Usage)
	case *cli.StringSliceFlag:
		f.Usage = escapeMarkdown(f.Usage)
	case *cli.DurationFlag:
		f.Usage = escapeMarkdown(f.Usage)
	}
}

// manSections writes the EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES sections of the man page.
func manSections(app *cli.App) string {
	var b strings.Builder
	b.WriteString("\n# EXIT STATUS\n\n")
	for _, s := range exitStatus {
		code, text, _ := strings.Cut(s, "  ")
		fmt.Fprintf(&b, "**%s**\n: %s\n\n", code, escapeMarkdown(text))
	}
	b.WriteString("**cairn hook** commands always exit 0: a hook must never break the agent's session.\n")
	b.WriteString("\n# ENVIRONMENT\n\n")
	for _, f := range app.Flags {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		for _, v := range df.GetEnvVars() {
			fmt.Fprintf(&b, "**%s**\n: as --%s: %s\n\n", v, f.Names()[0], escapeMarkdown(df.GetUsage()))
		}
	}
	for _, e := range environment {
		fmt.Fprintf(&b, "**%s**\n: %s\n\n", e[0], escapeMarkdown(e[1]))
	}
	b.WriteString("# FILES\n\nPaths are relative to the workspace, the nearest directory at or above the current one that holds cairn.toml.\n\n")
	for _, f := range workspaceFiles {
		fmt.Fprintf(&b, "*%s*\n: %s\n\n", escapeMarkdown(f[0]), escapeMarkdown(f[1]))
	}
	b.WriteString("# EXAMPLES\n\n")
	for _, path := range []string{"init", "task create", "task list", "memory search", "space search", "board search", "tools call"} {
		for _, e := range examplesOf(path) {
			fmt.Fprintf(&b, "    %s\n", e)
		}
	}
	b.WriteString("\nEvery command shows its own examples and flags with --help.\n")
	return b.String()
}
