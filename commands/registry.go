package commands

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/tools"
)

// registry is the list of operations the command tree is built from: every domain command's
// flags, examples and value completions come from its operation (the tools' schemas, which only
// a call needs, are left out).
var registry = sync.OnceValue(tools.Commands)

// operation is the registry's operation of a command path ("task create"); a path that has
// none is a programming error the tests catch.
func operation(path string) *tools.Operation {
	op := registry().Operation(path)
	if op == nil {
		panic("no operation " + path + " in the registry")
	}
	return op
}

// family is a command of subcommands ("task", "memory"), which does nothing itself.
func family(name, usage string, subs ...*cli.Command) *cli.Command {
	return &cli.Command{Name: name, Usage: usage, Subcommands: subs}
}

// leaf is the command of the registry's operation at path ("task create"): named by the path's
// last word, with args as its usage line's arguments and the operation's options as its flags;
// with sets what else it has (a description, completion).
func leaf(path, usage, args string, action cli.ActionFunc, with ...func(*cli.Command)) *cli.Command {
	cmd := &cli.Command{Name: path[strings.LastIndexByte(path, ' ')+1:], Usage: usage, ArgsUsage: args, Action: action}
	if flags := flagsOf(path); len(flags) > 0 {
		cmd.Flags = flags
	}
	for _, w := range with {
		w(cmd)
	}
	return cmd
}

// described gives a command its description.
func described(text string) func(*cli.Command) { return func(c *cli.Command) { c.Description = text } }

// completes gives a command its shell completion.
func completes(f cli.BashCompleteFunc) func(*cli.Command) {
	return func(c *cli.Command) { c.BashComplete = f }
}

// flagsOf builds the flags of a command from its operation's options.
func flagsOf(path string) []cli.Flag {
	op := operation(path)
	flags := make([]cli.Flag, 0, len(op.Options))
	for _, o := range op.Options {
		flags = append(flags, cliFlag(o))
	}
	return flags
}

// cliFlag is the urfave/cli flag of an option.
func cliFlag(o tools.Option) cli.Flag {
	switch o.Kind {
	case tools.Int:
		return &cli.IntFlag{Name: o.Flag, Aliases: o.Aliases, Usage: o.Usage, DefaultText: o.DefaultText}
	case tools.Bool:
		return &cli.BoolFlag{Name: o.Flag, Aliases: o.Aliases, Usage: o.Usage}
	case tools.Strings:
		return &cli.StringSliceFlag{Name: o.Flag, Aliases: o.Aliases, Usage: o.Usage}
	}
	return &cli.StringFlag{Name: o.Flag, Aliases: o.Aliases, Usage: o.Usage, Value: o.Default, DefaultText: o.DefaultText}
}

// bind sets the fields of in, a pointer to the operation's input, from the flags bound to them
// that were given, and from the defaults of those that have one: a flag's field is the one of
// its JSON name (embedded structs included); a pointer field is set only when its flag is given,
// so nil still means "not given"; a list field bound to a text flag takes its comma-separated
// values (blank ones left out).
func bind(c *cli.Context, path string, in any) {
	v := reflect.ValueOf(in).Elem()
	for _, o := range operation(path).Options {
		if o.Field == "" || !c.IsSet(o.Flag) && o.Default == "" {
			continue
		}
		f, ok := fieldByJSON(v, o.Field)
		if !ok {
			panic(fmt.Sprintf("%s: --%s sets %s, which %s does not have", path, o.Flag, o.Field, v.Type()))
		}
		var val any
		switch o.Kind {
		case tools.Int:
			val = c.Int(o.Flag)
		case tools.Bool:
			val = c.Bool(o.Flag)
		case tools.Strings:
			val = c.StringSlice(o.Flag)
		default:
			val = c.String(o.Flag)
		}
		rv := reflect.ValueOf(val)
		if s, ok := val.(string); ok && f.Kind() == reflect.Slice {
			f.Set(reflect.Zero(f.Type()))
			for _, item := range strings.Split(s, ",") {
				if item = strings.TrimSpace(item); item != "" {
					f.Set(reflect.Append(f, reflect.ValueOf(item).Convert(f.Type().Elem())))
				}
			}
			continue
		}
		if f.Kind() == reflect.Pointer {
			p := reflect.New(f.Type().Elem())
			p.Elem().Set(rv.Convert(f.Type().Elem()))
			f.Set(p)
			continue
		}
		f.Set(rv.Convert(f.Type()))
	}
}

// fieldByJSON finds the field of struct v whose JSON name is name.
func fieldByJSON(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			if f, ok := fieldByJSON(v.Field(i), name); ok {
				return f, true
			}
			continue
		}
		if tag, _, _ := strings.Cut(sf.Tag.Get("json"), ","); tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// operationInputs are the flags of the registry's operations by the field each sets, so a core
// message naming a field is written with its flag.
var operationInputs = sync.OnceValue(func() map[string]cliInput {
	out := map[string]cliInput{}
	for _, op := range registry().Operations() {
		for _, o := range op.Options {
			if _, seen := out[o.Field]; o.Field != "" && !seen {
				out[o.Field] = cliInput{flag: o.Flag, value: o.Form}
			}
		}
	}
	return out
})

// commandPath is the path of cmd in the tree of app ("task create"), "" when it is not there.
func commandPath(cmds []*cli.Command, cmd *cli.Command) string {
	for _, c := range cmds {
		if c == cmd {
			return c.Name
		}
		if p := commandPath(c.Subcommands, cmd); p != "" {
			return c.Name + " " + p
		}
	}
	return ""
}
