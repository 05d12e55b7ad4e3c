package commands

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
)

// suggest returns the candidates closest to typed, within the distance a typo can plausibly
// explain: 2 edits, or 1 for names of four letters or fewer (so "show" never becomes "h").
// Closest first, then alphabetical, so the same typo always gets the same answer.
func suggest(typed string, candidates []string) []string {
	type scored struct {
		name string
		d    int
	}
	var near []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || c == typed {
			continue
		}
		seen[c] = true
		limit := 2
		if len([]rune(c)) <= 4 || len([]rune(typed)) <= 4 {
			limit = 1
		}
		if d := editDistance(strings.ToLower(typed), strings.ToLower(c)); d <= limit {
			near = append(near, scored{c, d})
		}
	}
	sort.Slice(near, func(i, j int) bool {
		if near[i].d != near[j].d {
			return near[i].d < near[j].d
		}
		return near[i].name < near[j].name
	})
	out := make([]string, len(near))
	for i, s := range near {
		out[i] = s.name
	}
	return out
}

// editDistance is the optimal-string-alignment distance: insertions, deletions, substitutions and
// swaps of two neighbouring letters ("stauts" is one edit from "status") each cost one.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// commandNames lists the names and aliases a user can type at one level, help excluded.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		names = append(names, c.Names()...)
	}
	return names
}

// unknownCommand is the error for a word that names no command at its level, with the nearest
// names when a typo explains it. where is the command line so far ("cairn", "cairn task").
func unknownCommand(where, typed string, cmds []*cli.Command) error {
	hint := ""
	if near := suggest(typed, commandNames(cmds)); len(near) > 0 {
		hint = fmt.Sprintf("; did you mean %q?", near[0])
	}
	return errs.Invalidf("unknown command %q%s (see '%s --help')", typed, hint, where)
}

// missingCommand is the error for a family command run without one of its commands, when the
// caller wants JSON rather than the help text.
func missingCommand(where string, cmds []*cli.Command) error {
	return errs.Invalidf("%s needs a command: %s (see '%s --help')", where, strings.Join(visibleNames(cmds), ", "), where)
}

// visibleNames lists the first name of each command a user can type at one level.
func visibleNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	return names
}

// familyAction is the Action of a command that only groups others (and of the app itself): a
// word that names none of them is an unknown command, with a suggestion; no word at all shows the
// help, or, with --json, an INVALID_INPUT document naming the commands.
func (e *Env) familyAction(where string, cmds func() []*cli.Command) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Args().Present() {
			return unknownCommand(where, c.Args().First(), cmds())
		}
		if e.JSON {
			return missingCommand(where, cmds())
		}
		if c.Command != nil && c.Command.Name != "" && where != "cairn" {
			return cli.ShowSubcommandHelp(c)
		}
		return cli.ShowAppHelp(c)
	}
}

// unknownFlag is the error for a flag a command does not define, with the nearest flag names.
func unknownFlag(typed string, flags []cli.Flag) error {
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	hint := ""
	if near := suggest(typed, names); len(near) > 0 {
		hint = fmt.Sprintf("; did you mean %s?", dashed(near[0]))
	}
	return errs.Invalidf("unknown flag %s%s", dashed(typed), hint)
}

// requireFlags is INVALID_INPUT naming the flags of names that were not given ("--old is
// required", "--old and --new are required").
func requireFlags(c *cli.Context, names ...string) error {
	var missing []string
	for _, n := range names {
		if !c.IsSet(n) {
			missing = append(missing, dashed(n))
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return errs.Invalidf("%s is required", missing[0])
	}
	return errs.Invalidf("%s and %s are required", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
}
