package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/cairn-dev/cairn/core/errs"
)

// Face is a way cairn is used; an operation lists the faces it appears on.
type Face uint8

const (
	// AgentTool is a tool a model calls: MCP, `cairn tools call`, and POST /api by its name.
	AgentTool Face = 1 << iota
	// CLI is a command of the command line.
	CLI
	// HTTP is an action of POST /api that is no agent tool (the Search page's).
	HTTP
)

// Kind is the type of a command-line option's value.
type Kind uint8

const (
	// String takes one text value.
	String Kind = iota
	// Int takes a whole number.
	Int
	// Bool is a switch.
	Bool
	// Strings takes a value that may be repeated or comma-separated.
	Strings
)

// Option is one flag of an operation's command, bound to a field of its input: the command line
// builds the flag from it, sets the field from it, completes its values and names it in errors.
type Option struct {
	Flag    string
	Aliases []string
	// Field is the JSON name of the input field the flag sets; "" for a flag the command line
	// reads itself (a file to read a value from, --schema).
	Field string
	Kind  Kind
	Usage string
	// Default is a string flag's value when it is not given; DefaultText is what help says of
	// the default when it is not the value itself.
	Default     string
	DefaultText string
	// Form is the form of the value as a message asks for it ("comment:<id>", "NAME").
	Form string
	// Enum are the values the flag takes, offered by completion.
	Enum []string
}

// Operation is one thing cairn does, described once: the faces it appears on, its command
// line, its input and output types, whether it writes, its examples and its flags. Every face is
// built from (and checked against) the list of them.
type Operation struct {
	// Command is the path of its CLI command ("task create", "space import --from codex"); ""
	// for an operation with no command.
	Command string
	// Name is the agent tool's or HTTP action's name; "" for a command-line-only operation.
	Name  string
	Faces Face
	// ReadOnly operations never change the workspace.
	ReadOnly bool
	// Input and Output are the types of its input (the wire format and schema of a tool) and
	// of its answer; nil Input takes positional arguments only.
	Input, Output reflect.Type
	// Examples are typical command lines, shown by --help and the man page.
	Examples []string
	// Options are its command's flags, in help order.
	Options []Option
	// Tool is the agent tool; nil for the other operations.
	Tool *Tool
	// action answers an HTTP action: the input decoded strictly, then check, then the handler.
	action func(ctx context.Context, c Context, raw json.RawMessage) (any, error)
	check  func(fields map[string]json.RawMessage) error
}

// On says whether the operation appears on face f.
func (op *Operation) On(f Face) bool { return op.Faces&f != 0 }

// Option finds the operation's option of a flag name or alias.
func (op *Operation) Option(flag string) (Option, bool) {
	for _, o := range op.Options {
		if o.Flag == flag {
			return o, true
		}
		for _, a := range o.Aliases {
			if a == flag {
				return o, true
			}
		}
	}
	return Option{}, false
}

// Call runs the operation from JSON input: an agent tool checked against its schema, an HTTP
// action decoded strictly (missing or null input is {}).
func (op *Operation) Call(ctx context.Context, c Context, input json.RawMessage) (any, error) {
	if op.Tool != nil {
		return op.Tool.Call(ctx, c, input)
	}
	if op.action == nil {
		return nil, errs.Invalidf("%s is a command of the command line, not an action", op.Command)
	}
	return op.action(ctx, c, input)
}

// typeOf is the reflect.Type of T, for the operations' Input and Output.
func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// action builds an HTTP action whose input is decoded strictly into In.
func action[In, Out any](name string, readOnly bool, fn func(context.Context, Context, In) (Out, error)) *Operation {
	op := &Operation{Name: name, Faces: HTTP, ReadOnly: readOnly, Input: typeOf[In](), Output: typeOf[Out]()}
	op.action = func(ctx context.Context, c Context, raw json.RawMessage) (any, error) {
		var in In
		if err := decodeStrict(raw, &in); err != nil {
			return nil, errs.Invalidf("%s input: %s", name, DecodeProblem(err))
		}
		if op.check != nil {
			if err := op.check(objectMembers(bytes.TrimSpace(raw))); err != nil {
				return nil, err
			}
		}
		return fn(ctx, c, in)
	}
	return op
}

// decodeStrict decodes an action's input refusing unknown fields; missing or null input is {}.
func decodeStrict(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// command is an operation of the command line only.
func command[In, Out any](path string, readOnly bool, examples []string, options ...Option) *Operation {
	op := &Operation{Command: path, Faces: CLI, ReadOnly: readOnly, Output: typeOf[Out](), Examples: examples, Options: options}
	if t := typeOf[In](); t != typeOf[struct{}]() {
		op.Input = t
	}
	return op
}

// tool is an agent tool with its command line: the command of the same operation.
func tool(t *Tool, examples []string, options ...Option) *Operation {
	faces := AgentTool
	if t.Command != "" {
		faces |= CLI
	}
	return &Operation{Command: t.Command, Name: t.Name, Faces: faces, ReadOnly: t.ReadOnly, Input: t.input, Output: t.output,
		Examples: examples, Options: options, Tool: t}
}

// ex lists examples.
func ex(lines ...string) []string { return lines }

// Operation finds the operation of a command path ("task create"); nil when none.
func (r *Registry) Operation(command string) *Operation { return r.byCommand[command] }

// Action finds the operation POST /api answers for an action name: an agent tool or an HTTP
// action; nil when none.
func (r *Registry) Action(name string) *Operation { return r.byAction[name] }

// Actions are the names of the HTTP actions that are no agent tool, in registry order.
func (r *Registry) Actions() []string {
	var names []string
	for _, op := range r.ops {
		if op.Tool == nil && op.On(HTTP) {
			names = append(names, op.Name)
		}
	}
	return names
}
