package setup

import (
	"path/filepath"

	"github.com/cairn-dev/cairn/core/errs"
)

// `cairn setup gemini` registers cairn with Google's Gemini CLI (0.61.0;
// scripts/gemini-harness/README.md) in one file, settings.json: ~/.gemini/settings.json for the
// user, <project>/.gemini/settings.json for a project. Two keys there:
//
//   - mcpServers.cairn: {"command", "args"} (other keys of the entry, such as env, cwd,
//     timeout or trust, stay); Gemini CLI offers its tools as mcp_cairn_<Tool>.
//   - hooks: {EVENT: [{"matcher": "*", "hooks": [{"type": "command", "command": ...,
//     "timeout": MILLISECONDS}]}]} for SessionStart, BeforeAgent and PreCompress, the events
//     `cairn hook gemini` answers.

// GeminiScopes are where `cairn setup gemini` can register, the default first.
var GeminiScopes = []string{"project", "user"}

// GeminiOptions say what to register with Gemini CLI and where.
type GeminiOptions struct {
	// Scope is project (ProjectDir/.gemini) or user (Home/.gemini).
	Scope      string
	ProjectDir string
	Home       string
	// Command is the cairn binary: "cairn" (found on PATH, as a file shared with a project
	// should say) or an absolute path; Workspace, when set, is passed as --workspace.
	Command   string
	Workspace string
}

// geminiHookEvents are the Gemini CLI events cairn's hook answers, with their timeout in
// milliseconds (Gemini CLI's unit).
var geminiHookEvents = []hookEvent{
	{"SessionStart", "*", 10000},
	{"BeforeAgent", "*", 10000},
	{"PreCompress", "*", 10000},
}

// GeminiHooksWhat names what cairn owns in settings.json, for the summary.
const GeminiHooksWhat = "mcpServers." + ServerName + ", hooks SessionStart, BeforeAgent, PreCompress"

// GeminiSettings is the scope's settings.json.
func GeminiSettings(o GeminiOptions) (string, error) {
	switch o.Scope {
	case "project":
		return filepath.Join(o.ProjectDir, ".gemini", "settings.json"), nil
	case "user":
		return filepath.Join(o.Home, ".gemini", "settings.json"), nil
	}
	return "", errs.Invalidf("%s %q is not a Gemini CLI scope; use project (.gemini/settings.json in the project) or user (~/.gemini/settings.json: just you, every project)", errs.Field("scope", errs.Name), o.Scope)
}

// GeminiServerArgs are the arguments of the registered MCP server.
func GeminiServerArgs(o GeminiOptions) []string { return serverArgs(o.Workspace) }

// GeminiHookCommand is the shell command line of the registered hook.
func GeminiHookCommand(o GeminiOptions) string { return hookCommand(o.Command, o.Workspace, "gemini") }

// PlanGemini works out the change to settings.json without writing anything.
func PlanGemini(o GeminiOptions) ([]*Change, error) {
	if err := checkCommand(o.Command); err != nil {
		return nil, err
	}
	path, err := GeminiSettings(o)
	if err != nil {
		return nil, err
	}
	c, err := planJSON(path, 0o644, GeminiHooksWhat, "Gemini CLI", func(root *node) (bool, error) {
		a, err := setGeminiServer(root, o)
		if err != nil {
			return false, err
		}
		b, err := setHooks(root, geminiHookEvents, GeminiHookCommand(o), "gemini")
		return a || b, err
	})
	if err != nil {
		return nil, err
	}
	return []*Change{c}, nil
}

// setGeminiServer makes mcpServers.cairn run this cairn with command and args; the entry's other
// keys stay.
func setGeminiServer(root *node, o GeminiOptions) (bool, error) {
	servers, err := object(root, "mcpServers", "")
	if err != nil {
		return false, err
	}
	return setEntry(servers, []keyVal{{"command", scalar(o.Command)}, {"args", stringArray(GeminiServerArgs(o))}}), nil
}
