// Package errs gives core errors a kind, so the CLI can map every failure to one exit code.
package errs

import (
	"errors"
	"fmt"
)

// Code classifies a failure; the CLI turns it into an exit code and an error name (SPEC §8).
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
)

// Name is the stable name scripts match on in JSON errors.
func (c Code) Name() string {
	switch c {
	case Invalid:
		return "INVALID_INPUT"
	case NotFound:
		return "NOT_FOUND"
	case Busy:
		return "STORAGE_BUSY"
	case Forbidden:
		return "FORBIDDEN"
	default:
		return "INTERNAL"
	}
}

// ExitCode is the process exit status documented in SPEC §8.
func (c Code) ExitCode() int {
	switch c {
	case Invalid:
		return 2
	case NotFound:
		return 3
	case Busy:
		return 4
	case Forbidden:
		return 5
	default:
		return 1
	}
}

// Error carries a Code with a message meant for the user, and optionally the cause.
type Error struct {
	Code Code
	Msg  string
	Err  error
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
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Wrap attaches a code and context to a cause; a nil cause stays nil.
func Wrap(code Code, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// Invalidf is shorthand for New(Invalid, ...), the most common failure.
func Invalidf(format string, args ...any) error { return New(Invalid, format, args...) }

// NotFoundf is shorthand for New(NotFound, ...).
func NotFoundf(format string, args ...any) error { return New(NotFound, format, args...) }

// CodeOf finds the outermost coded error in err's chain; uncoded errors are Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}
