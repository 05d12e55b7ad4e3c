package commands_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/commands"
)

// badValues are the kinds of input every flag and argument must survive with a clear answer.
var badValues = map[string]string{
	"empty":     "",
	"long":      strings.Repeat("長い", 20000),
	"non-utf8":  "\xff\xfe\xfd",
	"negative":  "-1",
	"huge":      "99999999999999999999999",
	"injection": `'; DROP TABLE comments; -- " OR 1=1 NEAR( * `,
	"traversal": "../../../../etc/passwd",
	"control":   "a\x01b\x1b[31m",
}

// leafCommands walks the command tree and returns each runnable command's path and value flags.
func leafCommands(cmds []*cli.Command, prefix []string) (out []struct {
	path  []string
	flags []string
}) {
	for _, c := range cmds {
		p := append(append([]string{}, prefix...), c.Name)
		if len(c.Subcommands) > 0 {
			out = append(out, leafCommands(c.Subcommands, p)...)
			continue
		}
		var flags []string
		for _, f := range c.Flags {
			if dg, ok := f.(cli.DocGenerationFlag); ok && dg.TakesValue() {
				flags = append(flags, f.Names()[0])
			}
		}
		out = append(out, struct {
			path  []string
			flags []string
		}{p, flags})
	}
	return out
}

// Every command, every flag, every bad value: a clear error or a clean answer, never a panic,
// never a stack trace, never an INTERNAL exit for what is only bad input.
func TestBadInputSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	scratch := t.TempDir() // commands like init create what they are given: never in the source tree
	tree := commands.Commands()
	skip := map[string]bool{"serve": true, "mcp": true, "completion": true}
	runs := 0
	for _, leaf := range leafCommands(tree, nil) {
		if skip[leaf.path[0]] {
			continue
		}
		var cases [][]string
		for name, v := range badValues {
			cases = append(cases, append(append([]string{}, leaf.path...), v, "--json"))
			for _, f := range leaf.flags {
				cases = append(cases, append(append([]string{}, leaf.path...), "x", "--"+f+"="+v))
			}
			_ = name
		}
		for _, args := range cases {
			runs++
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			cmd := exec.CommandContext(ctx, bin, append([]string{"-C", ws, "--wait", "2s"}, args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Stdin = strings.NewReader("")
			cmd.Dir = scratch
			err := cmd.Run()
			cancel()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Errorf("%q: %v", args, err)
				continue
			}
			desc := fmt.Sprintf("cairn %s", strings.Join(quoteAll(args), " "))
			if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "panic:") {
				t.Errorf("%s: panicked:\n%s", desc, clip(stderr.String()))
			}
			if code == 1 || code > 5 || code < 0 {
				t.Errorf("%s: exit %d (want 0 or 2-5): %s", desc, code, clip(stdout.String()+stderr.String()))
			}
		}
	}
	t.Logf("%d runs", runs)
}

func clip(s string) string {
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:40] + "…"
		}
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}
