package setup

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/workspace"
)

// Gitignore lines setup adds to the project's .gitignore (in a git work tree) beside the files
// it writes there: the backups it makes of them, and Claude Code's local-scope settings, which
// hold this machine's paths.
var (
	BackupIgnore        = workspace.Ignore{Pattern: "*.cairn-backup-*", Why: "the backups cairn setup makes of a file it changes"}
	LocalSettingsIgnore = workspace.Ignore{Pattern: "/.claude/settings.local.json", Why: "Claude Code's local scope: this machine's paths, just you"}
)

// gitignoreHeader is the comment above the lines setup adds.
const gitignoreHeader = "# cairn setup: the backups it makes, and settings that hold this machine's paths"

// PlanGitignore is the change that makes dir/.gitignore list every pattern of ignores: created
// when missing, every line already there kept; unchanged when all are there. It is not backed
// up when applied (lines are only added).
func PlanGitignore(dir string, ignores []workspace.Ignore) (*Change, error) {
	before, exists, err := workspace.ReadGitignore(dir)
	if err != nil {
		return nil, err
	}
	after, added := workspace.GitignoreEdit(before, gitignoreHeader, workspace.IgnorePatterns(ignores))
	c := &Change{Path: filepath.Join(dir, workspace.GitignoreName), mode: 0o644, existed: exists, before: before, after: after, noBackup: true}
	if st, err := os.Stat(c.Path); err == nil {
		c.mode = st.Mode().Perm()
	}
	c.What = "kept out of git: " + strings.Join(workspace.IgnorePatterns(ignores), " ")
	if len(added) == 0 {
		c.Status = "unchanged"
		return c, nil
	}
	c.finish()
	return c, nil
}
