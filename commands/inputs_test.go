package commands

import (
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

// The command line writes the inputs core messages name as flags and variables, the words the
// messages used before they named fields.
func TestCLINamesInputs(t *testing.T) {
	for _, c := range []struct {
		in   errs.Input
		want string
	}{
		{errs.Fields(errs.Flags, "status", "subject", "description"), " (--status, --subject, --description)"},
		{errs.Field("around_ref", errs.Example), "around_ref (--around comment:<id>)"},
		{errs.Field("around_ref", errs.Also), "around_ref (--around)"},
		{errs.Field("all", errs.Switch), "pass --all"},
		{errs.Field("task", errs.Give), ": pass --task ID or set CAIRN_TASK"},
		{errs.Field("task", errs.Source), ", from --task or CAIRN_TASK"},
		{errs.Field("session", errs.CairnLog), "use a cairn log with --session"},
		{errs.Field("session", errs.With), " with --session or CAIRN_SESSION"},
		{errs.Field("wait", errs.Retry), "raise it with --wait"},
		{errs.Field("session_format", errs.Name), "--session-format"},
		{errs.Field("workspace", errs.Name), "--workspace (-C)"},
		{errs.Field("new_log", errs.Name), "--new-log"},
		{errs.Fields(errs.Alternatives, "task_id", "kind", "author"), "--task-id, --kind or --author"},
		{errs.Field("project", errs.Pass), "pass --project NAME"},
		{errs.FieldValue("project", errs.Pass, "OWNER/REPO"), "pass --project OWNER/REPO"},
	} {
		if got := forCLI(c.in); got != c.want {
			t.Errorf("forCLI(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
