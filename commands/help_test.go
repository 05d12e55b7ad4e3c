package commands

import (
	"io"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every example in the help names a real command and only flags that command takes.
func TestExamplesParse(t *testing.T) {
	app := NewApp(newEnv(nil, io.Discard, io.Discard))
	paths := map[string]bool{}
	for path := range examples {
		paths[path] = true
	}
	for _, op := range registry().Operations() {
		if len(op.Examples) > 0 {
			paths[op.Command] = true
		}
	}
	for path := range paths {
		for _, ex := range examplesOf(path) {
			i := strings.LastIndex(ex, "cairn ")
			if i < 0 {
				t.Errorf("%s: example %q does not run cairn", path, ex)
				continue
			}
			words := shellWords(ex[i:])
			if j := indexOf(words, "|"); j >= 0 {
				words = words[:j]
			}
			p := parseArgs(app, words)
			if p.unknownFlag != "" {
				t.Errorf("%s: example %q uses unknown flag --%s", path, ex, p.unknownFlag)
			}
			if p.command == nil || !strings.HasSuffix(" "+path, " "+p.command.Name) && !isSubcommand(app, path, p.command) {
				t.Errorf("example %q is listed for %q but runs %v", ex, path, p.command)
			}
		}
	}
	// and every command has examples, a family (cairn task) as well as its commands
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if len(examplesOf(prefix+c.Name)) == 0 {
				t.Errorf("cairn %s%s has no examples", prefix, c.Name)
			}
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
}

// isSubcommand tells whether cmd is one of the commands of the family at path ("task").
func isSubcommand(app *cli.App, path string, cmd *cli.Command) bool {
	cmds := app.Commands
	var family *cli.Command
	for _, name := range strings.Fields(path) {
		family = nil
		for _, c := range cmds {
			if c.Name == name {
				family = c
			}
		}
		if family == nil {
			return false
		}
		cmds = family.Subcommands
	}
	for _, c := range cmds {
		if c == cmd {
			return true
		}
	}
	return false
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w {
			return i
		}
	}
	return -1
}

// shellWords splits a command line as a shell would for the quoting the examples use.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

func TestHelpShowsExamplesExitStatusAndOneDefault(t *testing.T) {
	for _, args := range [][]string{{"cairn", "board", "search", "--help"}, {"cairn", "space", "search", "--help"}, {"cairn", "task", "create", "--help"}} {
		var out strings.Builder
		if code := Run(args, strings.NewReader(""), &out, io.Discard); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		help := out.String()
		for _, want := range []string{"Examples:", "Exit status:", "2  invalid input"} {
			if !strings.Contains(help, want) {
				t.Errorf("%v: help lacks %q:\n%s", args, want, help)
			}
		}
		// the exit statuses' texts start in one column, whatever the width of the code
		col := -1
		for _, line := range strings.Split(help, "\n") {
			if m := regexp.MustCompile(`^\s+\d+  \S`).FindString(line); m != "" {
				if col >= 0 && len(m) != col {
					t.Errorf("%v: exit status text not aligned: %q", args, line)
				}
				col = len(m)
			}
		}
		// a flag line never states two defaults, nor "(default: false)" for a switch
		for _, line := range strings.Split(help, "\n") {
			if strings.Count(line, "default") > 1 && regexp.MustCompile(`\(default: `).MatchString(line) && regexp.MustCompile(`default \d`).MatchString(line) && !strings.Contains(line, "with --card") {
				t.Errorf("%v: contradictory defaults: %s", args, line)
			}
			if strings.Contains(line, "(default: false)") {
				t.Errorf("%v: meaningless default: %s", args, line)
			}
		}
	}
}

func TestVersionOf(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "2264c81c3f75aaaabbbb"}, {Key: "vcs.modified", Value: "false"}}
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "1.2.3"},
		{"(devel)", nil, Release},
		{"", rev, Release + "+2264c81c3f75"},
		{"v0.0.0-20261201120924-2264c81c3f75", nil, Release + "+2264c81c3f75"},
		{"v0.0.0-20261201120924-2264c81c3f75+dirty", nil, Release + "+2264c81c3f75.dirty"},
		{"(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, Release + "+abc.dirty"},
	} {
		if got := versionOf(c.main, c.settings); got != c.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", c.main, c.settings, got, c.want)
		}
	}
}
