package commands

import (
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/setup"
)

func setupGeminiCommand(env *Env) *cli.Command {
	return leaf("setup gemini", "register `cairn mcp` and the `cairn hook gemini` hooks in Gemini CLI's settings.json", "", func(c *cli.Context) error { return setupGemini(env, c) },
		described("Merges mcpServers.cairn and cairn's hooks (SessionStart, BeforeAgent, PreCompress) into settings.json,\n"+
			"keeping every other key and hook, with a backup (settings.json.cairn-backup-TIME) when it changes the file;\n"+
			"running it again changes nothing.\n"+
			"  project: .gemini/settings.json in the project, the git work tree's root (default; registers `cairn`\n"+
			"           found on PATH, so the file can be shared; Gemini CLI reads it in a trusted folder)\n"+
			"  user:    ~/.gemini/settings.json (just you, every project; registers this binary's absolute path)\n"+
			"--command registers another binary; --workspace (or CAIRN_WORKSPACE) given here is registered outright."))
}

// geminiNotes are what setup says about Gemini CLI 0.61.0 that it cannot do for the user.
const (
	geminiTrustNote = "Gemini CLI asks before each call of an MCP tool unless the server is trusted: add \"trust\": true to mcpServers.cairn in settings.json to call cairn's task tools without asking"
	geminiHookNote  = "cairn hook gemini gives the task lists back on the first prompt after a resume or a compression (BeforeAgent), and tells cairn mcp which session its Gemini CLI process runs"
)

func setupGemini(env *Env, c *cli.Context) error {
	b, err := setupStart(env, c, func(scope string) error {
		if scope != "user" && scope != "project" {
			return errs.Invalidf("--scope %q is not a Gemini CLI scope; use project (.gemini/settings.json in the project) or user (~/.gemini/settings.json: just you, every project)", scope)
		}
		return nil
	}, func(scope string) (string, error) {
		if scope == "user" || c.IsSet("command") {
			return setupBinary(c.String("command"), c.IsSet("command"))
		}
		return "cairn", nil
	}, "", "Gemini CLI keeps ~/.gemini")
	if err != nil {
		return err
	}
	scope, command, project, wsPin := b.scope, b.command, b.project, b.wsPin
	opts := setup.GeminiOptions{Scope: scope, ProjectDir: project, Home: b.home, Command: command, Workspace: wsPin}
	changes, err := setup.PlanGemini(opts)
	if err != nil {
		return err
	}
	notes := []string{geminiHookNote, geminiTrustNote, b.lastNote(
		"Gemini CLI reads "+filepath.Join(project, ".gemini", "settings.json")+" only in a trusted folder (headless, `--skip-trust` is not enough: set GEMINI_CLI_TRUST_WORKSPACE=true or trust the folder once); cairn must be on the PATH Gemini CLI is started with",
		"cairn mcp finds the workspace in the folder Gemini CLI starts in: run cairn init in each project", "check with: gemini mcp list")}
	return finishSetup(env, c, scope, project, changes, notes, map[string]any{
		"command": command, "mcp_args": setup.GeminiServerArgs(opts), "hook_command": setup.GeminiHookCommand(opts),
	})
}
