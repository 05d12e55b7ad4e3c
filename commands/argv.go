package commands

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is urfave/cli's hidden flag; it only works as the very last argument.
const completionFlag = "--generate-bash-completion"

// normalizeArgs rewrites argv into the order urfave/cli v2 understands (it stops at the first
// positional argument): global flags first, then the command path, then the command's flags, then
// the positional arguments, after a "--" when one of them looks like a flag. This gives the
// git-style rules: flags after positionals, global flags anywhere, "--" ends flags.
func normalizeArgs(app *cli.App, args []string) []string { return parseArgs(app, args).args }

// parsedArgs is argv in urfave/cli's order, and what a shell completion request asks for.
type parsedArgs struct {
	args []string
	// complete: the last word was completionFlag. Then args end with it and hold no "--", so
	// urfave/cli completes and never runs the command, whatever the words before it were.
	complete bool
	// valueOf names the flag (without dashes) whose value is being completed: the word before
	// completionFlag was a flag that needs a value. args are then not for running at all.
	valueOf string
	// flagPrefix is the word being completed when it starts with a dash: flags are offered.
	flagPrefix string
	// unknownFlag is the first flag (without dashes) that neither the command nor the app
	// defines; flags are the ones that were valid there, for a suggestion.
	unknownFlag string
	flags       []cli.Flag
	// command is the deepest command named, nil for the app itself.
	command *cli.Command
}

func parseArgs(app *cli.App, args []string) parsedArgs {
	if len(args) == 0 {
		return parsedArgs{args: args}
	}
	rest := args[1:]
	var p parsedArgs
	if n := len(rest); n > 0 && rest[n-1] == completionFlag {
		// Only a last completionFlag asks for completion (as urfave/cli reads it), and then it is
		// never a flag's value or an argument: a TAB must not run the command it completes.
		p.complete, rest = true, rest[:n-1]
	}
	globalSpec := flagSpec(app.Flags)
	if !app.HideVersion {
		globalSpec["version"], globalSpec["v"] = false, false // urfave/cli adds the flag in Run
	}
	var localSpec map[string]bool
	var localFlags []cli.Flag
	var unknown []string // flags no spec knew when they were read; checked again at the end
	commands := app.Commands
	var globals, path, local, positionals []string
	// dangling is a last argument that is a flag needing a value it does not have; danglingGlobal
	// says whether it is a global flag.
	dangling, danglingGlobal := "", false
	help := false // the first command word was "help"
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" && p.complete && i+1 == len(rest) {
			// "cairn task list --<TAB>": the flags, not the end of them (and, as ever, no "--"
			// stays before the completion flag)
			p.flagPrefix = a
			break
		}
		if a == "--" {
			positionals = append(positionals, rest[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, hasValue := splitFlag(a)
			dest := &local
			takesValue, known := localSpec[name]
			if !known {
				if tv, ok := globalSpec[name]; ok {
					takesValue, known, dest = tv, true, &globals
				} else if localSpec == nil {
					dest = &globals
				}
			}
			if !known && !(p.complete && i+1 == len(rest)) {
				unknown = append(unknown, name)
			}
			if p.complete && i+1 == len(rest) && !(known && takesValue && !hasValue) {
				// a TAB after a dash completes the flag's name; the word stays, so normalizing
				// the arguments again gives the same
				p.flagPrefix = a
				*dest = append(*dest, a)
				continue
			}
			if known && takesValue && !hasValue && i+1 == len(rest) {
				// Moving anything after it would hand it a value (update 1 -s would read as
				// update -s 1): it goes last, so the parser says it needs one.
				dangling, danglingGlobal = a, dest == &globals
				continue
			}
			*dest = append(*dest, a)
			if known && takesValue && !hasValue {
				*dest = append(*dest, rest[i+1])
				i++
			}
			continue
		}
		if len(positionals) == 0 {
			if cmd := findCommand(commands, a); cmd != nil {
				path = append(path, a)
				commands = cmd.Subcommands
				localSpec = flagSpec(cmd.Flags)
				localFlags = cmd.Flags
				p.command = cmd
				continue
			}
			if len(path) == 0 && a == "help" && !help {
				// "cairn help task create" is "cairn task create --help": the command words
				// that follow still name the command whose help is shown.
				help = true
				continue
			}
		}
		positionals = append(positionals, a)
	}
	// A command's flags may come before its last command word, so a flag is unknown only if the
	// command finally named does not define it either.
	for _, name := range unknown {
		if _, ok := localSpec[name]; !ok {
			if _, ok := globalSpec[name]; !ok {
				p.unknownFlag = name
				p.flags = append(append([]cli.Flag(nil), localFlags...), app.Flags...)
				break
			}
		}
	}
	if help {
		local = append(local, "--help")
	}
	out := append(make([]string, 0, len(args)+2), args[0])
	out = append(out, globals...)
	if p.complete {
		// The words of the command as they stand, with no "--" (urfave/cli turns completion off
		// after one); flag parse errors do not matter while completing.
		if dangling != "" {
			p.valueOf, _ = splitFlag(dangling)
		}
		out = append(append(append(out, path...), local...), positionals...)
		p.args = append(out, completionFlag)
		return p
	}
	// A dangling flag makes the command line wrong whatever else it holds: end it with the flag,
	// where the parser of its level (the app's, for a global flag) says it needs a value.
	if dangling != "" && danglingGlobal {
		p.args = append(out, dangling)
		return p
	}
	out = append(out, path...)
	out = append(out, local...)
	if dangling != "" {
		p.args = append(out, dangling)
		return p
	}
	// Help asked for anywhere is help for the command: words after it are not subcommands.
	for _, f := range local {
		if f == "--help" || f == "-h" {
			p.args = out
			return p
		}
	}
	if len(positionals) > 0 {
		for _, a := range positionals {
			if strings.HasPrefix(a, "-") && a != "-" {
				out = append(out, "--")
				break
			}
		}
		out = append(out, positionals...)
	}
	p.args = out
	return p
}

// flagSpec maps every name and alias of flags to whether the flag takes a value.
func flagSpec(flags []cli.Flag) map[string]bool {
	spec := map[string]bool{}
	for _, f := range flags {
		takesValue := true
		if dg, ok := f.(cli.DocGenerationFlag); ok {
			takesValue = dg.TakesValue()
		}
		for _, n := range f.Names() {
			spec[n] = takesValue
		}
	}
	spec["help"], spec["h"] = false, false
	return spec
}

// splitFlag returns a flag's name without dashes and whether it carries its value after "=".
func splitFlag(a string) (string, bool) {
	name := strings.TrimLeft(a, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		return name[:i], true
	}
	return name, false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// jsonRequested reports whether normalized argv asks for --json among its global flags, so an
// error the app-level parser finds (before --json takes effect) is still a JSON document.
func jsonRequested(app *cli.App, args []string) bool {
	spec := flagSpec(app.Flags)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" || strings.HasPrefix(a, "---") {
			return false // the end of the flags, or one the flag package refuses ("bad flag syntax")
		}
		name, hasValue := splitFlag(a)
		if name == "json" {
			if !hasValue {
				return true
			}
			on, err := strconv.ParseBool(a[strings.IndexByte(a, '=')+1:]) // as the flag package reads it
			return err == nil && on
		}
		if spec[name] && !hasValue {
			i++ // its value
		}
	}
	return false
}
