package commands

import (
	"fmt"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// examples are a command's typical uses, shown in its --help and the man page. A test parses
// each one, so an example can never name a flag or command that does not exist.
var examples = map[string][]string{
	// a family's help shows the first steps with its commands
	"task":      {"cairn task create 'Write the migration'", "cairn task list"},
	"session":   {"cairn session brief", "cairn session check"},
	"memory":    {"cairn memory search token", "cairn memory read summary"},
	"knowledge": {"cairn knowledge search oauth"},
	"space":     {"cairn space import space.jsonl", "cairn --user alice --task 7 space search 認証"},
	"board":     {"cairn board import board.json", "cairn board search 'rate limit'"},
	"tools":     {"cairn tools list", `cairn tools call TaskList '{}'`},
	"setup":     {"cairn setup claude-code --dry-run", "cairn setup codex --dry-run"},
	"hook":      {`echo '{"hook_event_name":"SessionStart","source":"compact","session_id":"abc","cwd":"."}' | cairn hook claude-code`},
	// a command's help shows its typical uses
	"init":                    {"cairn init", "cairn init ~/work/demo"},
	"task create":             {"cairn task create 'Write the migration' -d 'users table first'", "cairn --json task create 'Review the PR'"},
	"task list":               {"cairn task list", "cairn task list --status pending,inprogress", "cairn task list --as-of 120"},
	"task get":                {"cairn task get 3", "cairn --json task get 3"},
	"task update":             {"cairn task update 3 --status inprogress", "cairn task update 3 -s completed"},
	"task history":            {"cairn task history 3"},
	"session compact":         {"cairn session compact --summary 'schema done; migration next'"},
	"session compact-context": {"cairn session compact-context"},
	"session brief":           {"cairn session brief"},
	"session check":           {"cairn session check", "cairn --json session check"},
	"memory search":           {"cairn memory search token", "cairn memory search 'device flow' -n 5 -c 2"},
	"memory read":             {"cairn memory read summary", "cairn memory read decision auth-flow", "cairn memory read knowledge oauth-errors"},
	"memory write":            {"cairn memory write decision cache-policy -f notes.md", "echo '- keep it short' | cairn memory write summary"},
	"memory edit":             {"cairn memory edit summary --old 'v1' --new 'v2'", "cairn memory edit decision auth-flow --old draft --new accepted --all"},
	"knowledge search":        {"cairn knowledge search oauth", "cairn knowledge search retry --kind howto"},
	"space import":            {"cairn space import space.jsonl", "cat space.jsonl | cairn space import -", "cairn space import --from claude-code ~/.claude/projects/PROJECT", "cairn space import --from codex ~/.codex/sessions", "cairn space import --schema"},
	"space export":            {"cairn space export --output space.jsonl", "cairn space export > backup.jsonl"},
	"space add-comment":       {"cairn --user alice --task 7 space add-comment 'switched the UI only'", "cairn --user alice --task 7 space add-comment --kind result -"},
	"space reindex":           {"cairn space reindex"},
	"space search":            {"cairn --user alice --task 7 space search 認証 migration", "cairn --user alice --task 7 space search --around comment:42 --context 3"},
	"board import":            {"cairn board import board.json", "gh issue list --state all --json number,title,body,labels,state,comments,createdAt,updatedAt,closedAt,milestone,assignees,url | cairn board import --from github -", "cairn board import --from beads .beads/issues.jsonl", "cairn board import --from backlog-md backlog", "cairn board import --schema"},
	"board export":            {"cairn board export --output board.json"},
	"board search":            {"cairn board search 'rate limit' #backend", "cairn board search migration --project p1 --sources card,note --limit 5"},
	"tools list":              {"cairn tools list", "cairn --json tools list"},
	"tools call":              {`cairn tools call TaskCreate '{"subject":"Write the tests"}'`, `echo '{"query":"token"}' | cairn tools call MemorySearch -`},
	"mcp":                     {"claude mcp add cairn -- cairn --workspace /path/to/ws mcp"},
	"serve":                   {"cairn serve", "cairn serve --addr 127.0.0.1:0"},
	"completion":              {"source <(cairn completion bash)", "cairn completion fish | source"},
	"version":                 {"cairn version", "cairn --json version"},
	"setup claude-code":       {"cairn setup claude-code --dry-run", "cairn setup claude-code --scope project", "cairn setup claude-code --plugin ./cairn-plugin"},
	"setup codex":             {"cairn setup codex --dry-run", "cairn setup codex", "cairn setup codex --scope project --json"},
	"hook claude-code":        {`echo '{"hook_event_name":"SessionStart","source":"compact","session_id":"abc","cwd":"."}' | cairn hook claude-code`},
	"hook codex":              {`echo '{"hook_event_name":"SessionStart","source":"resume","session_id":"abc","cwd":"."}' | cairn hook codex`},
}

// exitStatus is the exit status table every command's help ends with.
var exitStatus = []string{
	"0  success, also when nothing matched",
	"1  an unexpected failure",
	"2  invalid input: a bad flag, value or path (the message says what is valid)",
	"3  not found: no such task, slug, comment or project",
	"4  busy: a lock, database or port held by another process (see --wait)",
	"5  forbidden: the identity may not read that space",
	"130  cancelled: stopped by Ctrl-C or SIGTERM before it finished (nothing half-written is kept)",
}

// hookExitStatus is the one exception: a hook must never break the agent's session.
var hookExitStatus = []string{"0  always; a failure is reported in one line on stderr"}

// addHelp appends a command's examples and the exit statuses to its description, so --help and
// the man page show them; path is the command line without "cairn" ("task create").
func addHelp(c *cli.Command, path string) {
	var b strings.Builder
	ex := examples[path]
	size := len(c.Description) + len(statusBlocks()[0]) + 16
	for _, e := range ex {
		size += len(e) + 3
	}
	b.Grow(size) // one allocation: every run of cairn builds the help of all its commands
	b.WriteString(strings.TrimRight(c.Description, "\n"))
	if len(ex) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Examples:\n")
		for _, e := range ex {
			b.WriteString("  ")
			b.WriteString(e)
			b.WriteString("\n")
		}
	}
	if len(c.Subcommands) == 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		blocks := statusBlocks()
		if strings.HasPrefix(path, "hook ") {
			b.WriteString(blocks[1])
		} else {
			b.WriteString(blocks[0])
		}
	}
	c.Description = strings.TrimRight(b.String(), "\n")
}

// statusBlocks are the "Exit status:" blocks that end a command's help, for every command and
// for the hook, made once: every run of cairn builds the help of all its commands.
var statusBlocks = sync.OnceValue(func() [2]string {
	return [2]string{statusBlock(exitStatus), statusBlock(hookExitStatus)}
})

// statusBlock is the "Exit status:" block of statuses, codes right-aligned so 0 and 130 start
// their text in one column.
func statusBlock(statuses []string) string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, s := range statuses {
		code, text, _ := strings.Cut(s, "  ")
		fmt.Fprintf(&b, "  %3s  %s\n", code, text)
	}
	return b.String()
}

// quietSwitches drops urfave's "(default: false)" from switches: a switch is off unless given,
// and the text would contradict a usage such as "(the default)".
func quietSwitches(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			b.DisableDefaultText = true
		}
	}
}

// environment lists the variables cairn reads besides the global flags' own.
var environment = [][2]string{
	{"NO_COLOR", "when set, text output has no colour (colour is only ever used on a terminal)"},
	{"CLAUDE_CODE_SESSION_ID", "set by Claude Code in its hooks and tools: the session log is sessions/<id>.jsonl, one task list per Claude Code session (--session and CAIRN_SESSION win)"},
	{"CODEX_SESSION_ID", "set by Codex in its shell tool: the session log is sessions/<id>.jsonl, as for Claude Code (CLAUDE_CODE_SESSION_ID wins when both are set)"},
	{"CLAUDE_CONFIG_DIR", "where Claude Code keeps its state (default ~/.claude): setup claude-code edits its .claude.json and settings.json there, and session check compares a transcript with its task store"},
	{"CODEX_HOME", "where Codex keeps its state (default ~/.codex): setup codex --scope user edits its config.toml and hooks.json there"},
}

// workspaceFiles is the workspace layout, for the man page's FILES section.
var workspaceFiles = [][2]string{
	{"cairn.toml", "the manifest; marks the workspace root"},
	{"sessions/default.jsonl", "the default session log, replayed for the task list"},
	{"memory/summary.md, memory/decisions/*.md, memory/requests/*.md", "project memory"},
	{"knowledge/*.md", "knowledge files, with frontmatter"},
	{"spaces.db", "space conversations and their search index (SQLite)"},
	{"board/", "the board (SQLite and JSON), imported with cairn board import"},
	{".cairn/", "lock files and the daemon token; never searched"},
}
