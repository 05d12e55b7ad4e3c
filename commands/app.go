// Package commands is cairn's command line: flags in, one core call, text or JSON out.
package commands

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
)

// Release is this source's version, bumped with each release in CHANGELOG.md.
const Release = "0.1.0"

// Version is stamped by the build (-ldflags "-X .../commands.Version=v1.2.3"); otherwise it is
// Release, with the VCS revision Go records in the binary when there is one.
var Version = ""

// version is Version, or Release with the build's revision as SemVer build metadata
// (0.1.0+1a2b3c4d5e6f, .dirty when the tree had changes); a build without VCS stamp
// (-buildvcs=false) is still the release it was built from.
func version() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Release
	}
	return versionOf(info.Main.Version, info.Settings)
}

// versionOf is the version a build reports from its stamped module version and VCS settings.
func versionOf(mainVersion string, settings []debug.BuildSetting) string {
	rev, dirty := "", false
	if v := mainVersion; v != "" && v != "(devel)" {
		// An untagged tree is stamped v0.0.0-<time>-<revision>[+dirty]: the release in the
		// source says more than 0.0.0.
		pseudo, ok := strings.CutPrefix(v, "v0.0.0-")
		if !ok {
			return strings.TrimPrefix(v, "v")
		}
		pseudo, dirty = strings.CutSuffix(pseudo, "+dirty")
		rev = pseudo[strings.LastIndexByte(pseudo, '-')+1:]
	}
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = dirty || s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return Release
	case dirty:
		return Release + "+" + rev + ".dirty"
	}
	return Release + "+" + rev
}

// versionCommand prints the version, as --version does, so 'cairn version' just works.
func versionCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print cairn's version",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return errs.Invalidf("version takes no arguments; got %q", c.Args().First())
			}
			return env.Render(map[string]string{"version": version()}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "cairn version %s\n", version())
				return err
			})
		},
	}
}

// Main runs cairn with the process's arguments and streams and returns the exit code.
func Main() int {
	return Run(os.Args, os.Stdin, os.Stdout, os.Stderr)
}

// Run is Main with explicit streams, so tests can drive the whole CLI in-process.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newEnv(stdin, stdout, stderr).run(args)
}

// run is Run on an Env a test may have adjusted (a terminal it pretends to have).
func (e *Env) run(args []string) int {
	app := NewApp(e)
	p := parseArgs(app, args)
	if p.complete && p.valueOf != "" {
		e.completeFlagValue(app, p.command, p.valueOf)
		return 0
	}
	if p.complete && p.flagPrefix != "" {
		e.completeFlagName(p.command, app.Flags, p.flagPrefix)
		return 0
	}
	e.JSON = jsonRequested(app, p.args)
	if p.unknownFlag != "" && !p.complete {
		return e.fail(unknownFlag(p.unknownFlag, p.flags))
	}
	// Ctrl-C and SIGTERM cancel the command's context (c.Context), so core work stops between
	// steps and leaves nothing half-written; a second signal kills the process as usual. The
	// signals are watched from the root's Before hook, which runs before every command's action
	// but not for --version or --help: watching them starts a thread blocked on signal delivery,
	// about a tenth of the CPU time of cairn --version.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopWatching := func() {}
	defer func() { stopWatching() }()
	configure := app.Before
	watching := false
	app.Before = func(c *cli.Context) error {
		if !watching {
			watching, stopWatching = true, watchSignals(cancel)
		}
		return configure(c)
	}
	err := app.RunContext(ctx, p.args)
	if err == nil {
		return 0
	}
	return e.fail(err)
}

// watchSignals calls cancel at the first SIGINT or SIGTERM, after which the next one kills the
// process as usual; stop ends the watch. The watch starts beside the command, not before it: the
// first signal.Notify of a process waits for the runtime to start a thread of its own for signal
// masks, about 0.2 ms, a tenth of a fresh search's own work.
func watchSignals(cancel context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		select {
		case <-sig:
			cancel()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// NewApp builds the command tree; the man page and completion are generated from it.
func NewApp(env *Env) *cli.App {
	app := &cli.App{
		Name:  "cairn",
		Usage: "keep your place in long work: session tasks, memory, space and board search",
		Description: "Start here:\n" +
			"  cairn init                               make this folder a workspace (cairn.toml)\n" +
			"  cairn task create 'Write the migration'  add a task; 'cairn task list' shows them all\n" +
			"  cairn memory search WORD                 search the project's memory files\n" +
			"  cairn setup claude-code                  use cairn from Claude Code (MCP server and hooks)\n" +
			"Every command has examples: cairn COMMAND --help. The tour: docs/tour.md.",
		Version:              version(),
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Suggest:              true,
		Flags:                globalFlags(),
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		Reader:               env.Stdin,
		ExitErrHandler:       func(*cli.Context, error) {},
		Before:               func(c *cli.Context) error { return env.configure(c) },
		Commands: []*cli.Command{
			initCommand(env),
			taskCommand(env),
			sessionCommand(env),
			memoryCommand(env),
			knowledgeCommand(env),
			spaceCommand(env),
			boardCommand(env),
			toolsCommand(env),
			mcpCommand(env),
			setupCommand(env),
			serveCommand(env),
			hookCommand(env),
			completionCommand(env),
			versionCommand(env),
		},
	}
	app.Action = env.familyAction("cairn", func() []*cli.Command { return app.Commands })
	configureCommands(env, "cairn", app.Commands)
	quietSwitches(app.Flags)
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return flagUsageError(err, app.Flags) }
	return app
}

// configureCommands gives every command cairn's rules: flag errors are INVALID_INPUT (exit 2)
// instead of urfave's default, no "help" subcommand (help is --help, or 'cairn help CMD'), and a
// command that only groups others answers an unknown or missing command word itself.
func configureCommands(env *Env, where string, cmds []*cli.Command) {
	for _, c := range cmds {
		flags := c.Flags
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return flagUsageError(err, flags) }
		c.HideHelpCommand = true
		addHelp(c, strings.TrimPrefix(where+" "+c.Name, "cairn "))
		quietSwitches(c.Flags)
		if len(c.Subcommands) > 0 && c.Action == nil {
			subs := c.Subcommands
			c.Action = env.familyAction(where+" "+c.Name, func() []*cli.Command { return subs })
		}
		configureCommands(env, where+" "+c.Name, c.Subcommands)
	}
}

// fail prints err as SPEC §8 says (text on stderr, or a JSON error document on stdout) and returns
// the exit code. Command-line errors arrive typed (INVALID_INPUT) from the usage hooks and the
// family actions, so an error without a code is INTERNAL.
func (e *Env) fail(err error) int {
	code := errs.CodeOf(err)
	msg := errs.Message(err, forCLI)
	if e.JSON {
		e.writeJSON(e.Stdout, map[string]any{"error": map[string]string{"code": code.Name(), "message": msg}})
	} else {
		fmt.Fprintf(e.Stderr, "cairn: %s\n", termText(msg))
	}
	return code.ExitCode()
}

// flagUsageError is what urfave/cli's OnUsageError hooks return for a flag the flag package could
// not parse: INVALID_INPUT in cairn's words, with flags written as they are typed (--wait, -s), the
// nearest flag for an unknown one, and what the flag takes for a value of the wrong form. The
// flag package's errors are untyped, so its three message forms are read here and nowhere else.
func flagUsageError(err error, flags []cli.Flag) error {
	msg := err.Error()
	if b := boolErrorRE().FindStringSubmatch(msg); b != nil {
		return errs.Invalidf("invalid value %s for %s: expected true or false", b[1], dashed(b[2]))
	}
	m := flagErrorRE().FindStringSubmatch(msg)
	switch {
	case m == nil:
		return errs.Invalidf("%s", msg)
	case m[1] != "":
		return errs.Invalidf("%s needs a value", dashed(m[1]))
	case m[2] != "":
		return unknownFlag(m[2], flags)
	case m[5] != "parse error":
		return errs.Invalidf("invalid value %s for %s: %s", m[3], dashed(m[4]), m[5])
	}
	want := "a value of another form"
	for _, f := range flags {
		if !slices.Contains(f.Names(), m[4]) {
			continue
		}
		switch f.(type) {
		case *cli.DurationFlag:
			want = "a duration such as 5s, 500ms or 1m"
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag:
			want = "a whole number"
		case *cli.BoolFlag:
			want = "true or false"
		}
	}
	return errs.Invalidf("invalid value %s for %s: expected %s", m[3], dashed(m[4]), want)
}

var (
	flagErrorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:flag needs an argument: -+(\S+)|flag provided but not defined: -+(\S+)|invalid value ("(?:[^"\\]|\\.)*") for flag -+(\S+): (.*))$`)
	})
	boolErrorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid boolean value ("(?:[^"\\]|\\.)*") for -+(\S+): `)
	})
)

// dashed writes a flag name as it is typed: -s for one letter, --name otherwise.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Commands is the command tree, for tests and generators that walk every command and flag.
func Commands() []*cli.Command {
	return NewApp(newEnv(nil, io.Discard, io.Discard)).Commands
}

// termText makes a message safe to print on a terminal: control characters (ESC, CR, C1 codes
// such as CSI, ...) are written as Go escapes (\x1b, \r, \u009b) and bytes that are not UTF-8
// as \xNN, so a file name or value in it can neither drive the terminal nor hide; printable
// text, Japanese included, stays as it is. Line breaks and tabs stay: messages use them.
func termText(s string) string { return escapeControls(s, true) }

// termName is termText for one file name or path on a line of its own: a line break in it is
// escaped too.
func termName(s string) string { return escapeControls(s, false) }

func escapeControls(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\t' && (r != '\n' || !keepLines)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) && r != '\t' && (r != '\n' || !keepLines):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
