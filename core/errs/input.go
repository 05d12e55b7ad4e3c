package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Input names an input of a call inside a message (a field of the operation's input, or of its
// caller: task, session, wait, session_format), so the message never spells a face's word for
// it: the command line writes a flag or variable (--around comment:<id>, --task ID or
// CAIRN_TASK), a model and the HTTP API the JSON name. Pass it as a %s argument.
type Input struct {
	// Fields are JSON names; most messages name one, a few a list of alternatives.
	Fields []string
	// Use is what the sentence does with the input; each face words every use its own way.
	Use Use
	// Value is the form of the value ("OWNER/REPO") where the message knows it better than the
	// face does; "" leaves it to the face.
	Value string
}

// Use is how a message uses an input.
type Use uint8

const (
	// Name is the input itself: "--session-format" on the command line, "session_format" else.
	Name Use = iota
	// Also is the field name followed by what the reader types for it where that differs:
	// "around_ref (--around)" on the command line, "around_ref" else.
	Also
	// Example is Also with the form of the value: "around_ref (--around comment:<id>)".
	Example
	// Switch turns a boolean on: "pass --all", "set all to true".
	Switch
	// Give says how to give a missing caller input, after "needs the current task":
	// ": pass --task ID or set CAIRN_TASK" on the command line; nothing by default.
	Give
	// Source says where a caller input's value came from, after "the current task":
	// ", from --task or CAIRN_TASK" on the command line; nothing by default.
	Source
	// Retry says how to have a lock waited for longer: "raise it with --wait", "try again".
	Retry
	// CairnLog says how to write to a session: "use a cairn log with --session".
	CairnLog
	// Flags lists the fields as the command line types them, in parentheses after the sentence
	// that names them by field: " (--status, --subject, --description)"; nothing elsewhere.
	Flags
	// Alternatives lists the fields as "a, b or c": "--task-id, --kind or --author".
	Alternatives
	// Pass asks for the input with its value: "pass --project NAME", "give project".
	Pass
	// With says how a caller input is given, after "give a log elsewhere":
	// " with --session or CAIRN_SESSION" on the command line; nothing by default.
	With
)

// Field names one input field in a message, in the given use.
func Field(field string, use Use) Input { return Input{Fields: []string{field}, Use: use} }

// FieldValue is Field with the form of the value the message asks for (Input.Value).
func FieldValue(field string, use Use, value string) Input {
	return Input{Fields: []string{field}, Use: use, Value: value}
}

// Fields names several fields in one use (Flags, Alternatives).
func Fields(use Use, fields ...string) Input { return Input{Fields: fields, Use: use} }

// Namer writes an input for one face's reader.
type Namer func(Input) string

// String is the input as the HTTP API and any face without its own words write it: JSON names.
func (in Input) String() string { return JSONNames(in) }

// JSONNames writes in by its JSON names, the wording of the HTTP API and the default of a
// message printed without a face.
func JSONNames(in Input) string {
	name := ""
	if len(in.Fields) > 0 {
		name = in.Fields[0]
	}
	switch in.Use {
	case Switch:
		return "set " + name + " to true"
	case Give, Source, Flags, With:
		return ""
	case Retry:
		return "try again"
	case CairnLog:
		return "use a cairn log"
	case Alternatives:
		return OrList(in.Fields)
	case Pass:
		return "give " + name
	}
	return name
}

// OrList joins words as "a", "a or b", "a, b or c".
func OrList(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// InvalidField is Invalidf about one field of the input: the error carries the field's JSON name
// (Error.Field), so a face can point at it.
func InvalidField(field, format string, args ...any) error {
	e := newError(Invalid, format, args)
	e.Field = field
	return e
}

// newError builds a coded error; a message naming inputs keeps its format and arguments, so a
// face can write them for its reader (Message).
func newError(code Code, format string, args []any) *Error {
	e := &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if in, ok := a.(Input); ok {
			e.format, e.args = format, args
			if e.Field == "" && len(in.Fields) > 0 {
				e.Field = in.Fields[0]
			}
		}
	}
	return e
}

// Message is err's text with the inputs it names written by n: the message of every coded error
// of the chain is written again, down to the first cause that is not one.
func Message(err error, n Namer) string {
	msg := message(err, n)
	if hint := systemHint(err); hint != "" && !strings.Contains(msg, hint[:len("the file system is ")+4]) {
		msg += " (" + hint + ")"
	}
	return msg
}

func message(err error, n Namer) string {
	e, ok := err.(*Error)
	if !ok {
		// A wrapper that ends with its cause's text (fmt.Errorf("...: %w")) is written around
		// the cause written again.
		if inner := errors.Unwrap(err); inner != nil {
			if prefix, ok := strings.CutSuffix(err.Error(), inner.Error()); ok {
				return prefix + message(inner, n)
			}
		}
		return err.Error()
	}
	msg := e.Msg
	if e.format != "" {
		args := make([]any, len(e.args))
		for i, a := range e.args {
			if in, ok := a.(Input); ok {
				a = n(in)
			}
			args[i] = a
		}
		msg = fmt.Sprintf(e.format, args...)
	}
	switch {
	case e.Err != nil && msg == "":
		return message(e.Err, n)
	case e.Err != nil:
		return msg + ": " + message(e.Err, n)
	}
	return msg
}

// Reworded is err with its message written by n, its code and field kept; a nil err stays nil.
func Reworded(err error, n Namer) error {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) || !e.namesInputs() {
		return err
	}
	return &Error{Code: CodeOf(err), Msg: Message(err, n), Field: FieldOf(err)}
}

// namesInputs says whether a message of the chain names an input.
func (e *Error) namesInputs() bool {
	for ; e != nil; e, _ = e.Err.(*Error) {
		if e.format != "" {
			return true
		}
	}
	return false
}

// FieldOf is the input field err is about: the first coded error of its chain that names one
// ("" when none does).
func FieldOf(err error) string {
	for ; err != nil; err = errors.Unwrap(err) {
		if e, ok := err.(*Error); ok && e.Field != "" {
			return e.Field
		}
	}
	return ""
}
