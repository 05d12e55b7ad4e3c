package spaces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/textmatch"
)

// Kinds are the comment kinds (docs/formats.md), in the order messages list them.
var Kinds = []string{"request", "comment", "interjection", "interjection_ack", "result", "ask", "progress", "handoff"}

// FilterKinds are the values a search's kind filter takes: every kind but
// interjection_ack, which is never indexed and so could never be a hit.
var FilterKinds = []string{"request", "comment", "interjection", "result", "ask", "progress", "handoff"}

// IsKind reports whether k is one of Kinds.
func IsKind(k string) bool {
	for _, v := range Kinds {
		if v == k {
			return true
		}
	}
	return false
}

// ID is a record id as the space import format (docs/formats.md) writes it: a JSON string or integer, kept as its decimal text.
type ID string

// UnmarshalJSON accepts "abc" and 12 (not 1.5, not null).
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ID(s)
		return nil
	}
	if bytes.Equal(b, []byte("null")) {
		*id = ""
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return &badIDError{value: string(b)}
	}
	*id = ID(strconv.FormatInt(n, 10))
	return nil
}

// badIDError is an id that is neither a string nor an integer; parseLine names its field.
type badIDError struct{ field, value string }

func (e *badIDError) Error() string {
	if e.field != "" {
		return fmt.Sprintf("%s: an id is a string or an integer, not %s", e.field, e.value)
	}
	return fmt.Sprintf("an id is a string or an integer, not %s", e.value)
}

// checkID refuses empty ids and ids a ref could not carry (white space, control characters).
func checkID(field string, id ID) error {
	if id == "" {
		return fmt.Errorf("%s is required", field)
	}
	if !utf8.ValidString(string(id)) || len(id) > 200 {
		return fmt.Errorf("%s %q is not a valid id (at most 200 bytes of UTF-8)", field, id)
	}
	for _, r := range string(id) {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == ':' {
			return fmt.Errorf("%s %q contains white space, a control character or ':'", field, id)
		}
	}
	return nil
}

// idKey orders ids totally and naturally: integers by value, before any other string.
func idKey(id ID) string {
	s := string(id)
	if n, err := strconv.ParseUint(s, 10, 64); err == nil && strconv.FormatUint(n, 10) == s {
		return fmt.Sprintf("n%020d", n)
	}
	return "s" + s
}

// parseRef accepts "prefix:ID" or a bare ID.
func parseRef(prefix, ref string) (ID, error) {
	ref = strings.TrimSpace(ref)
	s := strings.TrimPrefix(ref, prefix+":")
	if err := checkID(prefix, ID(s)); err != nil {
		return "", errs.Invalidf("%q is not a %s ref (want %s:<id>)", ref, prefix, prefix)
	}
	return ID(s), nil
}

// parseTime reads an RFC 3339 time; the store keeps it in UTC and orders by nanoseconds.
func parseTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not an RFC 3339 time (like 2026-06-20T10:00:00Z)", field, s)
	}
	if t.Year() < 1678 || t.Year() > 2261 {
		return time.Time{}, fmt.Errorf("%s %q is out of range (years 1678..2261)", field, s)
	}
	return t.UTC(), nil
}

// formatTime is how created_at is stored and shown.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Comment is one comment as imported or added.
type Comment struct {
	ID           ID       `json:"id"`
	Task         ID       `json:"task"`
	Kind         string   `json:"kind"`
	ProgressType string   `json:"progress_type"`
	ToolName     string   `json:"tool_name"`
	Author       string   `json:"author"`
	CreatedAt    string   `json:"created_at"`
	Body         string   `json:"body"`
	Attachments  []string `json:"attachments"`
}

// validate checks a comment and returns its time.
func (c *Comment) validate() (time.Time, error) {
	if err := checkID("id", c.ID); err != nil {
		return time.Time{}, err
	}
	if err := checkID("task", c.Task); err != nil {
		return time.Time{}, err
	}
	if !IsKind(c.Kind) {
		return time.Time{}, fmt.Errorf("kind %q is not one of %s", c.Kind, strings.Join(Kinds, ", "))
	}
	if c.CreatedAt == "" {
		return time.Time{}, fmt.Errorf("created_at is required")
	}
	for _, a := range c.Attachments {
		if strings.TrimSpace(a) == "" {
			return time.Time{}, fmt.Errorf("attachments holds an empty file name")
		}
	}
	return parseTime("created_at", c.CreatedAt)
}

// Indexed reports whether a comment of this kind and progress type is searchable.
func Indexed(kind, progressType string) bool {
	switch kind {
	case "request", "interjection", "result", "ask", "handoff":
		return true
	case "progress":
		switch progressType {
		case "thinking", "summary", "tool":
			return true
		}
	}
	return false
}

// Texts are the two stored forms of a comment. The source is the body (for a tool
// call only "tool: <Name>", never its arguments) with attachment names appended. The display
// text is the source with white space collapsed and secrets redacted, in its original case and
// width: what an excerpt shows. The index text is the display text normalised (Normalize): what
// queries match. ok is false for kinds that are never indexed.
func Texts(r *redact.Redactor, kind, progressType, toolName, body string, attachments []string) (display, index string, ok bool) {
	if !Indexed(kind, progressType) {
		return "", "", false
	}
	src := body
	if kind == "progress" && progressType == "tool" {
		src = "tool: " + toolName
	}
	if len(attachments) > 0 {
		src += " " + strings.Join(attachments, " ")
	}
	display = r.Text(collapseSpace(src))
	return display, Normalize(display), true
}

// IndexText is the index text of a comment (see Texts).
func IndexText(r *redact.Redactor, kind, progressType, toolName, body string, attachments []string) (text string, ok bool) {
	_, text, ok = Texts(r, kind, progressType, toolName, body, attachments)
	return text, ok
}

// TitleText is a task title as results show it: secrets redacted.
func TitleText(r *redact.Redactor, title string) string { return r.Text(title) }

// Normalize folds s (textmatch.Fold) and collapses every run of white space to one space, the
// normal form shared by the index text and every query term.
func Normalize(s string) string { return collapseSpace(textmatch.Fold(s)) }

// collapseSpace turns every run of white space into one space and drops it at both ends.
func collapseSpace(f string) string {
	if collapsed(f) {
		return f // most texts: no copy
	}
	return collapseSpaceCopy(f)
}

// collapseSpaceCopy is collapseSpace without its shortcut for texts already collapsed: it always
// builds the text again (the tests' reference for the shortcut).
func collapseSpaceCopy(f string) string {
	var b strings.Builder
	b.Grow(len(f))
	space := false
	for _, r := range f {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// collapsed reports whether collapseSpace would give f back unchanged: valid UTF-8 whose only
// white space is single ' ' between other characters.
func collapsed(f string) bool {
	prevSpace := true // a space at the start is dropped
	for i := 0; i < len(f); {
		c := f[i]
		if c < utf8.RuneSelf {
			if c == ' ' {
				if prevSpace {
					return false
				}
				prevSpace = true
			} else if asciiSpace(c) {
				return false
			} else {
				prevSpace = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(f[i:])
		if r == utf8.RuneError && size == 1 || unicode.IsSpace(r) {
			return false // collapseSpace spells a bad byte U+FFFD, and turns this space into ' '
		}
		prevSpace = false
		i += size
	}
	return !prevSpace || f == ""
}

// asciiSpace reports whether the ASCII byte c is white space other than ' ' (unicode.IsSpace).
func asciiSpace(c byte) bool { return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
