package commands

import (
	"os"
	"path/filepath"
)

// Tests run the real binary with this process's environment. Run from inside Claude Code, it
// holds CLAUDE_CODE_SESSION_ID, which would move every test's task list to sessions/<id>.jsonl.
// The test binary re-executed as `cairn` by a script keeps the environment the script gave it.
func init() {
	if filepath.Base(os.Args[0]) != "cairn" {
		os.Unsetenv("CLAUDE_CODE_SESSION_ID")
		os.Unsetenv("CLAUDE_CONFIG_DIR")
	}
}
