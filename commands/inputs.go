package commands

import (
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/core/errs"
)

// cliInput is how the command line gives an input a core message names: its flag, the form of
// its value and its environment variable.
type cliInput struct{ flag, value, env, alias string }

// callerForms are the forms of the caller inputs' values that messages ask for.
var callerForms = map[string]string{"task": "ID"}

// globalInputs are the caller's inputs as the global flags give them, by field: a flag's name,
// its first alias and its environment variable.
var globalInputs = sync.OnceValue(func() map[string]cliInput {
	out := map[string]cliInput{}
	for _, f := range globalFlags() {
		names := f.Names()
		in := cliInput{flag: names[0], value: callerForms[strings.ReplaceAll(names[0], "-", "_")]}
		if len(names) > 1 {
			in.alias = names[1]
		}
		if ev, ok := f.(interface{ GetEnvVars() []string }); ok && len(ev.GetEnvVars()) > 0 {
			in.env = ev.GetEnvVars()[0]
		}
		out[strings.ReplaceAll(names[0], "-", "_")] = in
	}
	return out
})

// inputOf is how the command line gives the input field: a caller's global flag, or the flag of
// an operation bound to it (the registry's options), else the field in kebab case.
func inputOf(field string) cliInput {
	if in, ok := globalInputs()[field]; ok {
		return in
	}
	if in, ok := operationInputs()[field]; ok {
		return in
	}
	return cliInput{flag: strings.ReplaceAll(field, "_", "-")}
}

// forCLI writes an input named in a core message as a person at the command line gives it.
func forCLI(in errs.Input) string {
	flags := make([]string, len(in.Fields))
	for i, f := range in.Fields {
		flags[i] = "--" + inputOf(f).flag
	}
	first, field := cliInput{}, ""
	if len(in.Fields) > 0 {
		first, field = inputOf(in.Fields[0]), in.Fields[0]
	}
	if in.Value != "" {
		first.value = in.Value
	}
	flag := "--" + first.flag
	switch in.Use {
	case errs.Name:
		if first.alias != "" {
			return flag + " (-" + first.alias + ")"
		}
		return flag
	case errs.Also:
		return field + " (" + flag + ")"
	case errs.Example:
		return field + " (" + strings.TrimSpace(flag+" "+first.value) + ")"
	case errs.Switch:
		return "pass " + flag
	case errs.Give:
		return ": pass " + flag + " " + first.value + " or set " + first.env
	case errs.Source:
		return ", from " + flag + " or " + first.env
	case errs.With:
		return " with " + flag + " or " + first.env
	case errs.Retry:
		return "raise it with " + flag
	case errs.CairnLog:
		return "use a cairn log with " + flag
	case errs.Flags:
		return " (" + strings.Join(flags, ", ") + ")"
	case errs.Alternatives:
		return errs.OrList(flags)
	case errs.Pass:
		return "pass " + strings.TrimSpace(flag+" "+first.value)
	}
	return flag
}
