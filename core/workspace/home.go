package workspace

import (
	"os"
	"path/filepath"
)

// RuntimeHome is where an agent runtime keeps its state: the folder its own variable names
// ($CLAUDE_CONFIG_DIR, $CODEX_HOME, which the runtime itself honours), else dot in the home
// folder (~/.claude, ~/.codex); "" when neither can be told.
func RuntimeHome(variable, dot string) string {
	if d := os.Getenv(variable); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, dot)
	}
	return ""
}
