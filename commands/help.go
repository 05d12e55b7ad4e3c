package commands

import (
	"fmt"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// examples are the typical uses of a family and of the commands that are no operation (tools,
// mcp, serve, ...), shown in its --help and the man page; an operation's are in the registry. A
// test parses each one, so an example can never name a flag or command that does not exist.
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
	// the commands that are no operation of the registry (which holds the others' examples)
	"tools list":   {"cairn tools list", "cairn --json tools list"},
	"tools call":   {`cairn tools call TaskCreate '{"subject":"Write the tests"}'`, `echo '{"query":"token"}' | cairn tools call MemorySearch -`},
	"mcp":          {"claude mcp add cairn -- cairn --workspace /path/to/ws mcp"},
	"serve":        {"cairn serve", "cairn serve --addr 127.0.0.1:0", "cairn serve --addr 0.0.0.0:7777 --tls-cert cert.pem --tls-key key.pem"},
	"serve member": {"cairn serve member add alice --space tinylink", "cairn serve member list", "cairn serve member remove alice"},
	"completion":   {"source <(cairn completion bash)", "cairn completion fish | source"},
	"version":      {"cairn version", "cairn --json version"},
}

// examplesOf are the examples of a command path ("task create"): its operation's, else those of
// the examples map.
func examplesOf(path string) []string {
	if op := registry().Operation(path); op != nil {
		return op.Examples
	}
	return examples[path]
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
	ex := examplesOf(path)
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
