package setup

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/core/errs"
)

// `cairn setup codex` registers cairn with OpenAI's Codex CLI (0.171.0), in the folder Codex
// reads its configuration layers from: ~/.codex (or $CODEX_HOME) for the user, <project>/.codex
// for a project. Two files there:
//
//   - config.toml: `[mcp_servers.cairn]` with command and args (Codex's MCP server table; it
//     refuses unknown keys, so cairn writes no others). Edited as text, see tomledit.go.
//   - hooks.json: `{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command",
//     "command": ..., "timeout": SECONDS}]}]}}`, the same shape as Claude Code's settings.
//     SessionStart takes a matcher on its source; PreCompact, PostCompact and SessionEnd
//     ignore matchers. Codex clamps a SessionEnd hook's timeout to 3 s (with a warning on every
//     start when more is asked), so 3 is registered.

// CodexScopes are where `cairn setup codex` can register, the default first.
var CodexScopes = []string{"user", "project"}

// CodexOptions say what to register with Codex and where.
type CodexOptions struct {
	// Scope is user (CodexHome, else Home/.codex) or project (ProjectDir/.codex).
	Scope      string
	ProjectDir string
	Home       string
	// CodexHome is $CODEX_HOME when set; Codex refuses one that does not exist.
	CodexHome string
	// Command is the cairn binary: an absolute path, or "cairn" from PATH (project scope's
	// default, a folder that may be committed); Workspace, when set, is passed as --workspace.
	Command   string
	Workspace string
}

// codexHookEvents are the Codex events cairn's hook answers.
var codexHookEvents = []hookEvent{
	{"SessionStart", HookMatcher, 10},
	{"PreCompact", "", 10},
	{"PostCompact", "", 10},
	{"SessionEnd", "", 3},
}

// CodexHooksWhat names the hooks cairn owns in hooks.json, for the summary.
const CodexHooksWhat = "hooks SessionStart, PreCompact, PostCompact, SessionEnd"

// CodexDir is the folder of the scope's config.toml and hooks.json.
func CodexDir(o CodexOptions) (string, error) {
	switch o.Scope {
	case "user":
		if o.CodexHome != "" {
			st, err := os.Stat(o.CodexHome)
			if err != nil || !st.IsDir() {
				return "", errs.Invalidf("CODEX_HOME is %s, which is not an existing folder (Codex refuses to start with it too): create it, or unset CODEX_HOME for ~/.codex", o.CodexHome)
			}
			return filepath.Clean(o.CodexHome), nil
		}
		return filepath.Join(o.Home, ".codex"), nil
	case "project":
		return filepath.Join(o.ProjectDir, ".codex"), nil
	}
	return "", errs.Invalidf("%s %q is not a Codex scope; use user (~/.codex, or $CODEX_HOME: just you, every project) or project (.codex in the project, which Codex reads only once you trust the project)", errs.Field("scope", errs.Name), o.Scope)
}

// CodexServerArgs are the arguments of the registered MCP server.
func CodexServerArgs(o CodexOptions) []string { return serverArgs(o.Workspace) }

// CodexHookCommand is the shell command line of the registered hook.
func CodexHookCommand(o CodexOptions) string { return hookCommand(o.Command, o.Workspace, "codex") }

// PlanCodex works out both changes without writing anything. Either file failing to read or
// parse, or config.toml not being safely editable, fails the whole plan, naming the file.
func PlanCodex(o CodexOptions) ([]*Change, error) {
	if err := checkCommand(o.Command); err != nil {
		return nil, err
	}
	dir, err := CodexDir(o)
	if err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o644)
	if o.Scope == "user" {
		mode = 0o600 // config.toml may hold tokens and the user's trust decisions
	}
	cfg, err := planTOML(filepath.Join(dir, "config.toml"), mode, "mcp_servers."+ServerName, func(src []byte) ([]byte, bool, error) {
		return setTOMLServer(src, ServerName, o.Command, CodexServerArgs(o))
	})
	if err != nil {
		return nil, err
	}
	hooks, err := planJSON(filepath.Join(dir, "hooks.json"), 0o644, CodexHooksWhat, "Codex", func(root *node) (bool, error) {
		return setHooks(root, codexHookEvents, CodexHookCommand(o), "codex")
	})
	if err != nil {
		return nil, err
	}
	return []*Change{cfg, hooks}, nil
}

// planTOML reads path (missing = empty) and lets edit change its text.
func planTOML(path string, mode fs.FileMode, what string, edit func([]byte) ([]byte, bool, error)) (*Change, error) {
	return planEdit(path, mode, what, func(data []byte, _ bool) ([]byte, bool, error) { return edit(data) })
}
