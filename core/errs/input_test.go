package errs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shout writes every input in capitals, so a test sees which parts a namer wrote.
func shout(in Input) string {
	return strings.ToUpper(strings.Join(in.Fields, "+")) + fmt.Sprint(in.Use)
}

func TestMessageWritesInputsForEachReader(t *testing.T) {
	err := Invalidf("give a query or %s, not both", Field("around_ref", Example))
	if got, want := err.Error(), "give a query or around_ref, not both"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := Message(err, shout), "give a query or AROUND_REF2, not both"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if FieldOf(err) != "around_ref" || CodeOf(err) != Invalid {
		t.Errorf("field %q, code %v", FieldOf(err), CodeOf(err))
	}
	// Causes and fmt wrappers around them are written again too; a plain error stays as it is.
	wrapped := fmt.Errorf("gave up: %w", Wrap(Busy, New(Busy, "locked (%s)", Field("wait", Retry)), "open"))
	if got, want := Message(wrapped, shout), "gave up: open: locked (WAIT6)"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if got := Message(context.Canceled, shout); got != context.Canceled.Error() {
		t.Errorf("Message of a plain error = %q", got)
	}
	re := Reworded(wrapped, shout)
	if CodeOf(re) != Busy || re.Error() != "gave up: open: locked (WAIT6)" || FieldOf(re) != "wait" {
		t.Errorf("Reworded = %v (%v, %q)", re, CodeOf(re), FieldOf(re))
	}
	if plain := Invalidf("x"); Reworded(plain, shout) != plain {
		t.Error("Reworded changed an error that names no input")
	}
	if e := InvalidField("limit", "limit %d is out of range", 31); FieldOf(e) != "limit" || e.Error() != "limit 31 is out of range" {
		t.Errorf("InvalidField = %v, field %q", e, FieldOf(e))
	}
}

func TestJSONNames(t *testing.T) {
	for in, want := range map[*Input]string{
		{Fields: []string{"all"}, Use: Switch}:                             "set all to true",
		{Fields: []string{"task"}, Use: Give}:                              "",
		{Fields: []string{"task_id", "kind", "author"}, Use: Alternatives}: "task_id, kind or author",
		{Fields: []string{"project"}, Use: Pass}:                           "give project",
	} {
		if got := JSONNames(*in); got != want {
			t.Errorf("JSONNames(%v) = %q, want %q", *in, got, want)
		}
	}
}

// No message of core names a flag or a CAIRN_* variable: the faces write inputs for their
// readers (Input). Named exceptions: gh's own --json, command paths used as the name of a job,
// the sentinel that no workspace was found, and the importers' table, whose doc lines are the
// help of board import.
func TestCoreMessagesNameNoFlag(t *testing.T) {
	literal := regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	flag := regexp.MustCompile(`(^|[^a-z-])--[a-z][a-z-]*|CAIRN_[A-Z]`)
	allowed := regexp.MustCompile(`gh (issue|pr) list --json|--json fields|prints with --json|space import --from (claude-code|codex|opencode|gemini)|space import --all|CAIRN_FAULT_|CAIRN_OPENCODE_DB"|opencode --session |or --project OWNER/REPO"|claude --resume|gemini --resume|cairn task update ID --status S|pass --workspace"`)
	files, _ := filepath.Glob("../*/*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "/redact/") || strings.Contains(f, "/tools/") || strings.Contains(f, "/setup/") {
			continue // setup writes command lines; tools describe the CLI in prose for a model
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "//") {
				continue
			}
			for _, lit := range literal.FindAllString(line, -1) {
				if flag.MatchString(lit) && !allowed.MatchString(lit) {
					t.Errorf("%s:%d names a flag or variable: %s", f, i+1, lit)
				}
			}
		}
	}
}

// A stopped operation says so in plain words, and is still the context's error underneath.
func TestStoppedInPlainWords(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Stopped(ctx, "board import")
	if err.Error() != "board import cancelled: stopped before it finished" || !errors.Is(err, context.Canceled) || CodeOf(err) != Cancelled {
		t.Errorf("Stopped: %q", err)
	}
	if m := Message(err, JSONNames); m != "board import cancelled: stopped before it finished" {
		t.Errorf("Message: %q", m)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 0)
	defer dcancel()
	<-dctx.Done()
	if err := Stopped(dctx, "search"); err.Error() != "search cancelled: stopped: its time limit ran out" {
		t.Errorf("deadline: %q", err)
	}
}
