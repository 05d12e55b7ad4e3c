package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/workspace"
)

// maxHookInput bounds what a hook reads from standard input; Claude Code's hook input is a few
// hundred bytes.
const maxHookInput = 1 << 20

// hookBudget bounds a hook's work: Claude Code waits for it (up to 60 s by default) before it
// compacts or resumes, and a 100 MB transcript takes about 0.1 s, so past this the transcript is
// not one worth waiting for (a device, a file still growing without end) and the hook answers
// nothing.
const hookBudget = 5 * time.Second

func hookCommand(env *Env) *cli.Command {
	return family("hook", "answer an agent runtime's hooks (always exits 0; a failure is one line on stderr)",
		hookSubcommand(env, "claude-code", tasks.ClaudeCode, "CLAUDE_PID",
			"Claude Code hook: reads the hook JSON on stdin; SessionStart binds the session's task list (a fork inherits its parent's, "+
				"a /clear starts a new one) and, after a compaction, on resume or fork, adds the lists as context; PreCompact prints them "+
				"for the compaction; SessionEnd of a /clear hands the list over"),
		hookSubcommand(env, "codex", tasks.Codex, "",
			"Codex CLI hook: reads the hook JSON on stdin; SessionStart binds the session's task list (a fork inherits its parent's) "+
				"and, after a compaction, on resume or fork, adds the lists (cairn's and the update_plan plan) as context"),
		hookSubcommand(env, "gemini", tasks.Gemini, "", "Gemini CLI hook: reads the hook JSON on stdin; SessionStart and BeforeAgent record the session the Gemini CLI process runs (for cairn mcp), and the first prompt after a resume or a compression gets the lists (cairn's and the write_todos list) as BeforeAgent context"),
		hookSubcommand(env, "opencode", tasks.OpenCode, "", "OpenCode hook, run by cairn's OpenCode plugin: reads its event JSON on stdin and prints the session's lists (cairn's and todowrite's) as plain text for the compaction prompt or the system prompt after a compaction, a resume or a fork"),
	)
}

// hookSubcommand is the hook of one runtime; processEnv names the variable that identifies the
// runtime process the hook runs under ("" when it has none).
func hookSubcommand(env *Env, name string, rt tasks.HookRuntime, processEnv, usage string) *cli.Command {
	return &cli.Command{
		Name: name,
		// flags become arguments, refused in one stderr line: a hook never exits non-zero
		SkipFlagParsing: true,
		Usage:           usage,
		Action: func(c *cli.Context) error {
			report := func(msg string) {
				fmt.Fprintf(env.Stderr, "cairn hook %s: %s\n", name, strings.Join(strings.Fields(msg), " "))
			}
			defer func() {
				if v := recover(); v != nil {
					report(fmt.Sprintf("internal error: %v", v))
				}
			}()
			process := ""
			if processEnv != "" {
				process = os.Getenv(processEnv)
			}
			if err := runHook(env, c, rt, process); err != nil {
				report(errs.Message(err, forCLI))
			}
			return nil
		},
	}
}

func runHook(env *Env, c *cli.Context, rt tasks.HookRuntime, process string) error {
	if a := c.Args().First(); c.NArg() == 1 && (a == "--help" || a == "-h") {
		return cli.ShowSubcommandHelp(c) // a person asking; flags are otherwise arguments here
	}
	if c.NArg() > 0 {
		return errs.Invalidf("takes no arguments, got %q; it reads the hook JSON on standard input", c.Args().First())
	}
	// the budget covers the read of standard input too: a runtime that never closes it (or a
	// device on it) must not stall the session past the budget
	ctx, cancel := context.WithTimeout(c.Context, hookBudget)
	defer cancel()
	input, err := workspace.ReadCapped(ctx, env.Stdin, maxHookInput, "the hook input on standard input")
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %s waiting for the hook input on standard input, so the session goes on without the task list", hookBudget)
		}
		return err
	}
	out, err := tasks.Hook(ctx, rt, input, env.wsFlag, env.wait, tasks.HookEnv{Now: time.Now(), Process: process})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %s, so the session goes on without the task list: %w", hookBudget, err)
		}
		return err
	}
	_, err = io.WriteString(env.Stdout, out)
	return err
}
