// Package errs gives core errors a kind, so the CLI can map every failure to one exit code.
package errs

import (
	"context"
	"errors"
)

// Code classifies a failure; the CLI turns it into an exit code and an error name
// (docs/tour.md, "Exit codes and errors").
type Code int

const (
	// Internal is an unexpected failure.
	Internal Code = iota
	// Invalid is bad input: usage, flags, values out of range, a bad manifest.
	Invalid
	// NotFound is an unknown task id, slug, comment ref or project.
	NotFound
	// Busy is a lock or database that could not be had in time.
	Busy
	// Forbidden is an identity that lacks access.
	Forbidden
	// Cancelled is work its caller stopped (Ctrl-C, a client that left, an MCP cancel), so it is
	// told apart from a failure; nothing it was writing is kept.
	Cancelled
)

// Name is the stable name scripts match on in JSON errors.
func (c Code) Name() string {
	name, _ := c.info()
	return name
}

// ExitCode is the process exit status, the same for every command so scripts can branch on it.
func (c Code) ExitCode() int {
	_, exit := c.info()
	return exit
}

// info is the code's name and exit status, side by side so they cannot drift apart.
func (c Code) info() (string, int) {
	switch c {
	case Invalid:
		return "INVALID_INPUT", 2
	case NotFound:
		return "NOT_FOUND", 3
	case Busy:
		return "STORAGE_BUSY", 4
	case Forbidden:
		return "FORBIDDEN", 5
	case Cancelled:
		return "CANCELLED", 130 // 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C
	default:
		return "INTERNAL", 1
	}
}

// Error carries a Code with a message meant for the user, and optionally the cause.
type Error struct {
	Code Code
	Msg  string
	Err  error
	// Field is the JSON name of the input field the error is about, "" when it is about none.
	Field string
	// format and args keep a message that names inputs (Input), so Message can write them again.
	format string
	args   []any
}

func (e *Error) Error() string {
	if e.Err != nil && e.Msg == "" {
		return e.Err.Error()
	}
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// New makes a coded error with a formatted message.
func New(code Code, format string, args ...any) error {
	return newError(code, format, args)
}

// Wrap attaches a code and context to a cause; a nil cause stays nil.
func Wrap(code Code, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	e := newError(code, format, args)
	e.Err = err
	return e
}

// Invalidf is shorthand for New(Invalid, ...), the most common failure.
func Invalidf(format string, args ...any) error { return New(Invalid, format, args...) }

// NotFoundf is shorthand for New(NotFound, ...).
func NotFoundf(format string, args ...any) error { return New(NotFound, format, args...) }

// CodeOf finds the outermost coded error in err's chain; uncoded errors are Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) && e.Code != Internal {
		return e.Code
	}
	if systemHint(err) != "" {
		return Invalid // a full disk or a read-only file system is the user's to fix
	}
	return Internal
}

// Stopped is nil while ctx is live and a Cancelled error naming what was stopped once it is done;
// long loops call it once per step: if err := errs.Stopped(ctx, "import"); err != nil { return err }.
func Stopped(ctx context.Context, what string) error {
	if ctx.Err() == nil {
		return nil
	}
	return &Error{Code: Cancelled, Msg: what + " cancelled", Err: stopCause{context.Cause(ctx)}}
}

// stopCause says in plain words why work stopped ("context canceled" means nothing to a
// person); errors.Is still finds the context's own error through it.
type stopCause struct{ cause error }

func (s stopCause) Unwrap() error { return s.cause }

func (s stopCause) Error() string {
	switch {
	case s.cause == nil, errors.Is(s.cause, context.Canceled):
		return "stopped before it finished"
	case errors.Is(s.cause, context.DeadlineExceeded):
		return "stopped: its time limit ran out"
	}
	return "stopped: " + s.cause.Error()
}

// IfStopped turns a failure into the Cancelled error of what when ctx is done (a query
// interrupted by a cancel fails with the driver's own error, which says less), and returns err
// unchanged otherwise.
func IfStopped(ctx context.Context, err error, what string) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	return Stopped(ctx, what)
}
