package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/setup"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace"
)

func setupCommand(env *Env) *cli.Command {
	return family("setup", "register cairn with an agent runtime",
		leaf("setup claude-code", "register `cairn mcp` and the `cairn hook claude-code` hooks in Claude Code's settings (or write a plugin)", "", func(c *cli.Context) error { return setupClaudeCode(env, c) },
			described("Merges into Claude Code's own files for the scope, keeping every other key, with a backup\n"+
				"(FILE.cairn-backup-TIME) of each file it changes; running it again changes nothing.\n"+
				"The project is the git work tree's root, or the current folder outside git.\n"+
				"  project: .mcp.json and .claude/settings.json (shared; each user approves the server once)\n"+
				"  local:   this project's entry in ~/.claude.json and .claude/settings.local.json (default)\n"+
				"  user:    ~/.claude.json and ~/.claude/settings.json (every project)\n"+
				"CLAUDE_CONFIG_DIR, when set, holds .claude.json and settings.json instead of ~.\n"+
				"Project scope registers `cairn` from PATH, so the shared files work on every teammate's machine;\n"+
				"local and user scope register this binary's absolute path, because Claude Code starts servers and\n"+
				"hooks with the PATH it was launched with, where a bare `cairn` is often missing (--command sets\n"+
				"either). In a git work tree, the project's .gitignore gets *.cairn-backup-* and, for local scope,\n"+
				"/.claude/settings.local.json (this machine's paths). The workspace is found from the project\n"+
				"folder, where Claude Code starts them; --workspace (or CAIRN_WORKSPACE) given here is registered\n"+
				"outright.")),
		leaf("setup codex", "register `cairn mcp` in Codex's config.toml and the `cairn hook codex` hooks in its hooks.json", "", func(c *cli.Context) error { return setupCodex(env, c) },
			described("Adds [mcp_servers.cairn] to config.toml and cairn's hooks (SessionStart for every source,\n"+
				"PreCompact, PostCompact, SessionEnd) to hooks.json, with a backup (FILE.cairn-backup-TIME) of each file it\n"+
				"changes; every other line of config.toml, comments included, stays byte for byte, and running it again\n"+
				"changes nothing. A file it cannot edit safely is refused and no file changes.\n"+
				"  user:    ~/.codex, or $CODEX_HOME (default: just you, every project; Codex reads it at once)\n"+
				"  project: .codex in the project, the git work tree's root (Codex reads it only once you trust the project)\n"+
				"Codex runs the hooks only after you trust them (/hooks in Codex). The command registered is this\n"+
				"binary's absolute path in user scope and `cairn` from PATH in project scope, whose folder may be\n"+
				"committed (--command sets either; in a git work tree *.cairn-backup-* goes into .gitignore);\n"+
				"--workspace (or CAIRN_WORKSPACE) given here is registered outright.")),
		leaf("setup opencode", "register `cairn mcp` in OpenCode's opencode.json and cairn's plugin (session tags, `cairn hook opencode` at compaction and resume)", "", func(c *cli.Context) error { return setupOpenCode(env, c) },
			described("Sets mcp.cairn in opencode.json, keeping every other key (a backup FILE.cairn-backup-TIME of a file\n"+
				"it changes), and writes the plugin file cairn.js; running it again changes nothing.\n"+
				"  project: opencode.json and .opencode/plugin/cairn.js in the project, the git work tree's root\n"+
				"           (default; runs `cairn` from PATH, so the files may be committed)\n"+
				"  user:    $XDG_CONFIG_HOME/opencode (~/.config/opencode): just you, every project; this binary's\n"+
				"           absolute path\n"+
				"The plugin tags every cairn tool call with its OpenCode session (cairn_session), so each session\n"+
				"has its own list, and puts the lists into the compaction prompt and, after a compaction or on\n"+
				"resume, into the system prompt. Restart OpenCode to load it.")),
		setupGeminiCommand(env),
	)
}

// Codex 0.171.0's two requirements that setup cannot meet for the user.
const (
	codexTrustNote = "Codex runs hooks only once you trust them: start codex and review them with /hooks (it asks when hooks are new or changed); until then cairn's hooks do not run"
	codexPlanNote  = "Codex offers its own update_plan tool to a model outside its catalog (one that is not OpenAI's) only with `[tools.update_plan]` `enabled = true` in config.toml; cairn's TaskCreate and TaskList work without it"
)

// setupBase is what a runtime's setup with a scope starts from (setupStart).
type setupBase struct {
	scope, command, project, home string
	homeVar                       string // the value of the runtime's own home variable
	wsPin                         string // the workspace to register
}

// setupStart is how a runtime's setup with a scope starts: no arguments; its --scope, refused by
// badScope (nil: the plan checks it); the cairn to register, by command; the project and the
// home folder, which user scope needs unless homeVar is set (else "cannot tell the home
// directory, where keeps"); the workspace to register.
func setupStart(env *Env, c *cli.Context, badScope func(string) error, command func(scope string) (string, error), homeVar, keeps string) (b setupBase, err error) {
	if err := noArgs(c); err != nil {
		return b, err
	}
	b.scope = c.String("scope")
	if badScope != nil {
		if err := badScope(b.scope); err != nil {
			return b, err
		}
	}
	if b.command, err = command(b.scope); err != nil {
		return b, err
	}
	if b.project, b.home, _, err = setupPlace(); err != nil {
		return b, err
	}
	if homeVar != "" {
		b.homeVar = os.Getenv(homeVar)
	}
	if b.home == "" && b.scope == "user" && b.homeVar == "" {
		return b, errs.Invalidf("cannot tell the home directory, where %s", keeps)
	}
	b.wsPin, err = setupWorkspace(env, b.scope == "user")
	return b, err
}

// lastNote is the last note of a setup with a scope, which ends with check (how to see the
// server registered): before it what project scope needs, or what a setup that registers no
// workspace needs (unpinned).
func (b setupBase) lastNote(project, unpinned, check string) string {
	switch {
	case b.scope == "project":
		return project + "; " + check
	case b.wsPin == "":
		return unpinned + "; " + check
	}
	return check
}

func setupCodex(env *Env, c *cli.Context) error {
	// Codex's project root marker is .git by default, as setupPlace's
	b, err := setupStart(env, c, func(scope string) error {
		if scope != "user" && scope != "project" {
			return errs.Invalidf("--scope %q is not a Codex scope; use user (~/.codex, or $CODEX_HOME: just you, every project) or project (.codex in the project, which Codex reads only once you trust the project)", scope)
		}
		return nil
	}, func(scope string) (string, error) { return setupCommandFor(scope == "project", c) }, "CODEX_HOME", "Codex keeps ~/.codex")
	if err != nil {
		return err
	}
	scope, command, project, wsPin := b.scope, b.command, b.project, b.wsPin
	opts := setup.CodexOptions{Scope: scope, ProjectDir: project, Home: b.home, CodexHome: b.homeVar, Command: command, Workspace: wsPin}
	changes, err := setup.PlanCodex(opts)
	if err != nil {
		return err
	}
	notes := []string{codexTrustNote, codexPlanNote}
	if scope == "project" && command == "cairn" {
		notes = append(notes, pathNote("Codex"))
	}
	notes = append(notes, b.lastNote("Codex reads "+filepath.Join(project, ".codex")+" only once you trust the project (its prompt at start, or codex exec --trust)",
		"cairn mcp finds the workspace in the folder Codex starts in: run cairn init in each project (elsewhere the cairn server fails to start)", "check with: codex mcp list"))
	return finishSetup(env, c, scope, project, changes, notes, map[string]any{
		"command": command, "mcp_args": setup.CodexServerArgs(opts), "hook_command": setup.CodexHookCommand(opts),
	})
}

func setupOpenCode(env *Env, c *cli.Context) error {
	b, err := setupStart(env, c, nil, func(string) (string, error) { return setupBinary(c.String("command"), c.IsSet("command")) },
		"XDG_CONFIG_HOME", "OpenCode keeps ~/.config/opencode")
	if err != nil {
		return err
	}
	scope, project, wsPin := b.scope, b.project, b.wsPin
	opts := setup.OpenCodeOptions{Scope: scope, ProjectDir: project, Home: b.home, ConfigHome: b.homeVar, Command: b.command, Workspace: wsPin, CommandSet: c.IsSet("command")}
	changes, err := setup.PlanOpenCode(opts)
	if err != nil {
		return err
	}
	notes := []string{"restart OpenCode to load the plugin; check with: opencode mcp list"}
	if scope == "project" {
		notes = append(notes, "the project's files run `cairn` from PATH: OpenCode must find it there")
	} else if wsPin == "" {
		notes = append(notes, "cairn mcp finds the workspace in the folder OpenCode starts in: run cairn init in each project")
	}
	argv := setup.OpenCodeCommand(opts)
	return finishSetup(env, c, scope, project, changes, notes, map[string]any{
		"command": argv[0], "mcp_command": append(append([]string{}, argv...), "mcp"),
	})
}

// setupPlace is where a setup works: the project of this folder (symlinks resolved: runtimes key
// projects by the physical path) and the home directory ("" with homeErr when it cannot be told).
func setupPlace() (project, home string, homeErr, err error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", "", nil, fmt.Errorf("current directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	home, homeErr = os.UserHomeDir()
	return projectRoot(cwd), home, homeErr, nil
}

// finishSetup is what a runtime's setup with a scope does after its plan (Codex, OpenCode,
// Gemini CLI): in project scope the backups ignored in the project's .gitignore, and the answer
// with the scope, the project (but in user scope) and the notes.
func finishSetup(env *Env, c *cli.Context, scope, project string, changes []*setup.Change, notes []string, result map[string]any) error {
	var ignores []workspace.Ignore
	if scope == "project" {
		ignores = []workspace.Ignore{setup.BackupIgnore}
	}
	result["scope"], result["notes"] = scope, notes
	if scope != "user" {
		result["project"] = project
	}
	return applySetup(env, c, project, changes, ignores, notes, result)
}

// applySetup is what every runtime's setup does after its plan: ignores added to the project's
// .gitignore (in a git work tree), the changes written unless --dry-run, and the answer (result
// with the files) in text or JSON, the notes after the files.
func applySetup(env *Env, c *cli.Context, project string, changes []*setup.Change, ignores []workspace.Ignore, notes []string, result map[string]any) error {
	if len(ignores) > 0 {
		var err error
		if changes, err = setupIgnores(changes, project, ignores...); err != nil {
			return err
		}
	}
	dry := c.Bool("dry-run")
	if !dry {
		if err := setup.Apply(changes, time.Now()); err != nil {
			return err
		}
	}
	result["dry_run"], result["files"] = dry, changes
	return env.Render(result, func(w io.Writer) error {
		if err := writeChanges(w, changes, dry); err != nil || dry {
			return err
		}
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
		return nil
	})
}

// writeChanges prints what setup did to each file, or with dryRun the diffs and a count.
func writeChanges(w io.Writer, changes []*setup.Change, dryRun bool) error {
	n := 0
	for _, ch := range changes {
		if dryRun {
			if ch.Diff != "" {
				io.WriteString(w, ch.Diff)
			}
			if ch.Status != "unchanged" {
				n++
			}
			continue
		}
		switch ch.Status {
		case "unchanged":
			fmt.Fprintf(w, "unchanged %s (%s already set)\n", ch.Path, ch.What)
		case "created":
			fmt.Fprintf(w, "created   %s (%s)\n", ch.Path, ch.What)
		case "updated":
			if ch.Backup == "" {
				fmt.Fprintf(w, "updated   %s (%s)\n", ch.Path, ch.What)
			} else {
				fmt.Fprintf(w, "updated   %s (%s; backup %s)\n", ch.Path, ch.What, ch.Backup)
			}
		}
	}
	if dryRun {
		fmt.Fprintf(w, "dry run: %d of %d files would change; nothing written\n", n, len(changes))
	}
	return nil
}

func setupClaudeCode(env *Env, c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	plugin := c.String("plugin")
	if c.IsSet("plugin") && plugin == "" {
		return errs.Invalidf("--plugin needs a folder")
	}
	if plugin != "" && c.IsSet("scope") {
		return errs.Invalidf("give either --plugin DIR or --scope, not both: a plugin is enabled in Claude Code, not written into a scope")
	}
	scope := c.String("scope")
	if plugin == "" && !validScope(scope) {
		return errs.Invalidf("--scope %q is not a scope; use project (shared .mcp.json and .claude/settings.json), local (just you, this project) or user (just you, every project)", scope)
	}
	command, err := setupCommandFor(plugin == "" && scope == "project", c)
	if err != nil {
		return err
	}
	project, home, homeErr, err := setupPlace()
	if err != nil {
		return err
	}
	if homeErr != nil && (plugin == "" && scope != "project") {
		return errs.Invalidf("cannot tell the home directory, where Claude Code keeps ~/.claude.json: %v", homeErr)
	}
	wsPin, err := setupWorkspace(env, plugin != "" || scope == "user")
	if err != nil {
		return err
	}
	if plugin != "" {
		if plugin, err = filepath.Abs(plugin); err != nil {
			return errs.Wrap(errs.Invalid, err, "--plugin %s", c.String("plugin"))
		}
	}
	var defs []setup.Tool
	for _, t := range tools.New().List() {
		d := t.Definition()
		defs = append(defs, setup.Tool{Name: d.Name, Description: d.Description, ReadOnly: d.ReadOnly})
	}
	opts := setup.Options{
		Scope: scope, ProjectDir: project, Home: home, ConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"),
		Command: command, Workspace: wsPin, Plugin: plugin, Tools: defs, Version: version(),
	}
	changes, err := setup.Plan(opts)
	if err != nil {
		return err
	}
	var ignores []workspace.Ignore
	switch {
	case plugin != "" || scope == "user":
	case scope == "local":
		ignores = []workspace.Ignore{setup.BackupIgnore, setup.LocalSettingsIgnore}
	default:
		ignores = []workspace.Ignore{setup.BackupIgnore}
	}
	var notes []string
	switch {
	case plugin != "":
		notes = []string{"try it: claude --plugin-dir " + plugin}
	case scope == "project":
		if command == "cairn" {
			notes = append(notes, pathNote("Claude Code"))
		}
		notes = append(notes, "Claude Code asks each user to approve the cairn server of .mcp.json once; check with: claude mcp list")
	case scope == "user" && wsPin == "":
		notes = []string{"cairn mcp finds the workspace in the project Claude Code starts in: run cairn init in each project (elsewhere claude mcp list shows cairn as failed); check with: claude mcp list"}
	default:
		notes = []string{"check with: claude mcp list"}
	}
	result := map[string]any{"command": command, "mcp_args": setup.ServerArgs(opts), "hook_command": setup.HookCommand(opts)}
	if plugin != "" {
		result["plugin"] = plugin
	} else {
		result["scope"], result["project"] = scope, project
	}
	return applySetup(env, c, project, changes, ignores, notes, result)
}

// projectRoot is the folder Claude Code treats as the project when started in dir: the root of
// the git work tree dir is in (it keys ~/.claude.json's projects by it, finds .mcp.json up to it
// and reads .claude/settings*.json there even when started in a subfolder), else dir itself.
func projectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

func validScope(s string) bool {
	for _, v := range setup.Scopes {
		if s == v {
			return true
		}
	}
	return false
}

// setupBinary is the cairn to register: --command, or this very binary. A binary that `go run`
// or `go test` built lives in a temporary folder that is gone tomorrow, so it is refused.
func setupBinary(flag string, set bool) (string, error) {
	if set {
		if !filepath.IsAbs(flag) {
			return "", errs.Invalidf("--command must be an absolute path to the cairn binary, got %q", flag)
		}
		return filepath.Clean(flag), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "cannot tell where this cairn binary is; pass --command /absolute/path/to/cairn")
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", errs.Invalidf("this cairn was built by 'go run' or 'go test' in a temporary folder (%s); install it (go install) and run that, or pass --command /absolute/path/to/cairn", exe)
	}
	return exe, nil
}

// setupCommandFor is the cairn to register: --command when given, else "cairn" from PATH for
// files a project shares (an absolute path is this machine's only), else this binary.
func setupCommandFor(shared bool, c *cli.Context) (string, error) {
	if shared && !c.IsSet("command") {
		return "cairn", nil
	}
	return setupBinary(c.String("command"), c.IsSet("command"))
}

// pathNote says that a project's shared files run cairn from PATH, and whether it is on this one.
func pathNote(runtime string) string {
	n := "the project's files run `cairn` from PATH, so they work on every machine where " + runtime + " finds it there"
	if _, err := exec.LookPath("cairn"); err != nil {
		n += "; it is not on this PATH: put $(go env GOPATH)/bin on it, or pass --command /absolute/path/to/cairn"
	}
	return n
}

// setupIgnores adds, when project is a git work tree's root, the change that keeps ignores out
// of git in its .gitignore.
func setupIgnores(changes []*setup.Change, project string, ignores ...workspace.Ignore) ([]*setup.Change, error) {
	if _, err := os.Lstat(filepath.Join(project, ".git")); err != nil {
		return changes, nil
	}
	ch, err := setup.PlanGitignore(project, ignores)
	if err != nil {
		return nil, err
	}
	return append(changes, ch), nil
}

// setupWorkspace is the --workspace to register: the workspace named outright (flag or
// CAIRN_WORKSPACE), absolute. One found from the current folder is not registered: Claude Code
// starts servers and hooks in the project folder, where cairn finds it again. Without a
// workspace, project and local scope fail; user scope and plugins, which serve every project,
// register none and let each project find its own.
func setupWorkspace(env *Env, optional bool) (string, error) {
	ws, err := env.Workspace()
	if err != nil {
		if optional && env.wsFlag == "" && errors.Is(err, workspace.ErrNoWorkspace) {
			return "", nil
		}
		return "", err
	}
	root := ws.Root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if env.wsFlag != "" {
		return root, nil
	}
	return "", nil // found from the current folder, so `cairn` started there finds it too
}
