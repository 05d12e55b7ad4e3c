// Package importers converts the data of other trackers into board projects (board.ProjectBoard):
// GitHub issues and pull requests as `gh issue list --json` / `gh pr list --json` print them, a
// beads .beads/issues.jsonl file, and a Backlog.md backlog/ folder. Each source is one project,
// its id derived from the source's name; card ids are stable ids of the source under that project
// id, so importing the same source again replaces the project without duplicates.
package importers

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
)

// slug lowercases a name and turns every run of other characters than letters and digits into
// one '-', so "Owner/My Repo" becomes "owner-my-repo".
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// at names a place in the input for an error: the file, and its line when known.
func at(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// badf is an INVALID_INPUT error naming the file, line and what was wrong, and the page that says
// what each --from reads.
func badf(file string, line int, format string, args ...any) error {
	args = append(append([]any{at(file, line)}, args...), errs.Field("from", errs.Name), formats.Doc)
	return errs.Invalidf("%s: "+format+" (nothing was changed; what %s reads: %s)", args...)
}

// normTime turns a time of the source into RFC 3339 UTC; "" stays "". Besides RFC 3339 it takes
// the "2006-01-02 15:04" and "2006-01-02" forms Backlog.md writes (read as UTC).
func normTime(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			if t.IsZero() {
				return "", nil // gh prints the zero time for "never"
			}
			if y := t.UTC().Year(); y < 1900 || y > 2200 {
				return "", fmt.Errorf("%q is outside the years 1900..2200", s)
			}
			return t.UTC().Format(time.RFC3339), nil
		}
	}
	return "", fmt.Errorf("%q is not a time such as 2026-10-20T08:00:00Z or 2026-10-20 08:00", s)
}

// validText refuses invalid UTF-8 early so the error names the source line.
func validText(vals ...string) bool {
	for _, v := range vals {
		if !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

// firstNonEmpty returns the first argument that is not empty.
func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
