// Package commands is cairn's command line: flags in, one core call, text or JSON out.
package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
)

// Version is stamped by the build (-ldflags "-X .../commands.Version=v1.2.3"); otherwise it comes
// from the module version or the VCS revision Go records in the binary.
var Version = ""

// version is Version, or what the Go toolchain recorded about this build.
func version() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "dev"
	case dirty:
		return "dev-" + rev + "-dirty"
	}
	return "dev-" + rev
}

// Main runs cairn with the process's arguments and streams and returns the exit code.
func Main() int {
	return Run(os.Args, os.Stdin, os.Stdout, os.Stderr)
}

// Run is Main with explicit streams, so tests can drive the whole CLI in-process.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := newEnv(stdin, stdout, stderr)
	app := NewApp(env)
	p := parseArgs(app, args)
	if p.complete && p.valueOf != "" {
		env.completeFlagValue(p.valueOf)
		return 0
	}
	env.JSON = jsonRequested(app, p.args)
	err := app.Run(p.args)
	if err == nil {
		return 0
	}
	return env.fail(err)
}

// NewApp builds the command tree; the man page and completion are generated from it.
func NewApp(env *Env) *cli.App {
	app := &cli.App{
		Name:                 "cairn",
		Usage:                "keep your place in long work: session tasks, memory, space and board search",
		Version:              version(),
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Suggest:              true,
		Flags:                globalFlags(),
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		Reader:               env.Stdin,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return errs.Invalidf("%s", err.Error())
		},
		Before: func(c *cli.Context) error { return env.configure(c) },
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
			completionCommand(env),
		},
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes every command's flag errors INVALID_INPUT (exit 2) instead of urfave's default.
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return errs.Invalidf("%s", err.Error())
		}
		setUsageErrors(c.Subcommands)
	}
}

// fail prints err as SPEC §8 says (text on stderr, or a JSON error document on stdout) and returns the exit code.
func (e *Env) fail(err error) int {
	code := errs.CodeOf(err)
	var exitErr cli.ExitCoder
	if errors.As(err, &exitErr) && errs.CodeOf(err) == errs.Internal {
		// urfave's own usage errors ("Required flag ... not set", unknown command)
		code = errs.Invalid
	}
	if isUsageError(err) {
		code = errs.Invalid
	}
	msg := usageMessage(err.Error())
	if e.JSON {
		e.writeJSON(e.Stdout, map[string]any{"error": map[string]string{"code": code.Name(), "message": msg}})
	} else {
		fmt.Fprintf(e.Stderr, "cairn: %s\n", msg)
	}
	return code.ExitCode()
}

// isUsageError recognises the plain errors urfave/cli returns for bad command lines.
func isUsageError(err error) bool {
	var coded *errs.Error
	if errors.As(err, &coded) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"Required flag", "Required flags", "flag provided but not defined", "invalid value", "No help topic", "command not found"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// usageMessage rewords the command-line errors of urfave/cli and Go's flag package in cairn's
// terms: flags with the dashes they are typed with (--wait, -s), and an unknown command as one
// (urfave's "No help topic for 'x'" reads as if help had been asked for).
func usageMessage(msg string) string {
	if m := flagErrorRE.FindStringSubmatch(msg); m != nil {
		switch {
		case m[1] != "":
			return dashed(m[1]) + " needs a value"
		case m[2] != "":
			return "unknown flag " + dashed(m[2])
		default:
			return fmt.Sprintf("invalid value %s for %s: %s", m[3], dashed(m[4]), m[5])
		}
	}
	if m := requiredRE.FindStringSubmatch(msg); m != nil {
		names := strings.Split(m[1], ", ")
		for i, n := range names {
			names[i] = dashed(n)
		}
		if len(names) == 1 {
			return names[0] + " is required"
		}
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are required"
	}
	rest, ok := strings.CutPrefix(msg, "No help topic for '")
	if !ok {
		return msg
	}
	name, hint, _ := strings.Cut(rest, "'")
	if hint = strings.TrimPrefix(hint, ". "); strings.Contains(hint, `""`) {
		hint = "" // nothing close enough
	} else if hint != "" {
		hint = "; " + strings.ToLower(hint[:1]) + hint[1:]
	}
	return fmt.Sprintf("unknown command %q%s (see 'cairn --help')", name, hint)
}

var (
	flagErrorRE = regexp.MustCompile(`^(?:flag needs an argument: -+(\S+)|flag provided but not defined: -+(\S+)|invalid value ("(?:[^"\\]|\\.)*") for flag -+(\S+): (.*))$`)
	requiredRE  = regexp.MustCompile(`^Required flags? "([^"]+)" not set$`)
)

// dashed writes a flag name as it is typed: -s for one letter, --name otherwise.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// ManPage renders cairn(1) from the command definitions, so the page never drifts from the flags.
func ManPage() (string, error) {
	return NewApp(newEnv(nil, io.Discard, io.Discard)).ToManWithSection(1)
}

// Commands is the command tree, for tests and generators that walk every command and flag.
func Commands() []*cli.Command {
	return NewApp(newEnv(nil, io.Discard, io.Discard)).Commands
}
