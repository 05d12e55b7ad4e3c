package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/importers"
	"github.com/cairn-dev/cairn/core/memory"
	"github.com/cairn-dev/cairn/core/setup"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

var memoryKinds = []string{"summary", "decision", "request", "knowledge"}

// expectOption is the optimistic-concurrency flag of memory write and edit.
var expectOption = Option{Flag: "expect-sha256", Field: "expect_sha256", Usage: "refuse (exit 2, nothing written) unless the entry still has this sha256, as 'memory read --json' printed it"}

// searchOptions are the flags of memory search and knowledge search.
func searchOptions() []Option {
	return []Option{
		{Flag: "limit", Aliases: []string{"n"}, Field: "limit", Kind: Int, Usage: fmt.Sprintf("at most this many hits, 1..%d", workspace.MaxSearchHits), DefaultText: "search_hit_limit of cairn.toml"},
		{Flag: "context", Aliases: []string{"c"}, Field: "context", Kind: Int, Usage: fmt.Sprintf("lines before and after each match, 0..%d", workspace.MaxExcerptLines), DefaultText: "search_excerpt_lines of cairn.toml"},
	}
}

func memoryOperations() []*Operation {
	searchBounds := all(bounds("limit", 1, workspace.MaxSearchHits), bounds("context", 0, workspace.MaxExcerptLines))
	return []*Operation{
		tool(parallel(define("MemorySearch", "memory search",
			"Search this project's memory (the summary, decisions and requests) for one literal string and get hits with "+
				"slug, kind, path, line and an excerpt of the lines around the match. Use it before deciding something that "+
				"may already have been decided or requested. Read MemoryRead with a hit's kind and slug for the whole entry. "+
				"With agent_memory it searches the agent runtimes' own memory files instead (Claude Code's and Codex's, this "+
				"project's, or every project's with scope all): agent_hits, each with its runtime, project, path and line. Read-only.",
			true, all(searchBounds, enum("scope", memory.AgentScopes...)), func(ctx context.Context, c Context, in memory.SearchInput) (*memory.MemorySearchResult, error) {
				return memory.MemorySearch(ctx, c.Workspace, in)
			})),
			ex("cairn memory search token", "cairn memory search 'device flow' -n 5 -c 2", "cairn memory search --agent-memory pnpm", "cairn memory search --agent-memory --scope all 'rate limit'"),
			append(searchOptions(),
				Option{Flag: "agent-memory", Field: "agent_memory", Kind: Bool, Usage: "search the agent runtimes' own memory files instead, read-only: Claude Code's ~/.claude/projects/<project>/memory/ and Codex's ~/.codex/memories/ (each hit names its runtime and project)"},
				Option{Flag: "scope", Field: "scope", Usage: "with --agent-memory: " + strings.Join(memory.AgentScopes, " or ") + " (this project's memory files, the default, or every project's)", Enum: memory.AgentScopes})...),
		tool(parallel(define("KnowledgeSearch", "knowledge search",
			"Search the project's knowledge files for one literal string; each hit carries the file's frontmatter kind, "+
				"description and model_invokation (null when missing). Use it to find how-tos and reference notes. "+
				"A hit's kind is the file's own frontmatter kind: to read the whole file, call MemoryRead with kind \"knowledge\" "+
				"and the hit's slug. Read-only.",
			true, searchBounds, func(ctx context.Context, c Context, in memory.KnowledgeSearchInput) (*memory.KnowledgeSearchResult, error) {
				return memory.KnowledgeSearch(ctx, c.Workspace, in)
			})),
			ex("cairn knowledge search oauth", "cairn knowledge search retry --kind howto"),
			append(searchOptions(), Option{Flag: "kind", Aliases: []string{"k"}, Field: "kind", Usage: "only files whose frontmatter kind is exactly this"})...),
		tool(define("MemoryRead", "memory read",
			"Read one memory or knowledge entry by kind and slug and get its content and sha256. The kind is summary, decision "+
				"or request as MemorySearch returns it, or knowledge for any knowledge file whatever its frontmatter kind. "+
				"An unknown slug is an error that suggests close slugs. Read-only.",
			true, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memory.ReadInput) (*memory.ReadResult, error) {
				return memory.MemoryRead(ctx, c.Workspace, in)
			}),
			ex("cairn memory read summary", "cairn memory read decision auth-flow", "cairn memory read knowledge oauth-errors")),
		tool(define("MemoryWrite", "memory write",
			"Create or replace a whole memory or knowledge entry atomically. Pass expect_sha256 from MemoryRead so a "+
				"concurrent change is never overwritten. Prefer MemoryEdit for a small change.",
			false, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memory.WriteInput) (*memory.WriteResult, error) {
				return memory.MemoryWrite(ctx, c.Workspace, in)
			}),
			ex("cairn memory write decision cache-policy -f notes.md", "echo '- keep it short' | cairn memory write summary"),
			Option{Flag: "file", Aliases: []string{"f"}, Usage: "read the content from this file (- or absent: standard input)"},
			expectOption),
		tool(define("MemoryEdit", "memory edit",
			"Replace an exact string in a memory or knowledge entry, atomically; old must occur exactly once unless all "+
				"is true (otherwise nothing changes and the count is reported). Never reformats the rest of the file.",
			false, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memory.EditInput) (*memory.EditResult, error) {
				return memory.MemoryEdit(ctx, c.Workspace, in)
			}),
			ex("cairn memory edit summary --old 'v1' --new 'v2'", "cairn memory edit decision auth-flow --old draft --new accepted --all"),
			Option{Flag: "old", Field: "old", Usage: "the exact text to replace (whitespace and line ends included; required)"},
			Option{Flag: "new", Field: "new", Usage: "the replacement text (required; may be empty)"},
			Option{Flag: "all", Field: "all", Kind: Bool, Usage: "replace every occurrence instead of requiring exactly one"},
			expectOption),
	}
}

func stringOrInteger(prop string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		p.Type, p.Types = "", []string{"string", "integer"}
	}
}

// outputOption is the --output of the exports.
var outputOption = Option{Flag: "output", Aliases: []string{"o"}, Usage: "write to this file (atomically: a failed export leaves it as it was) instead of standard output"}

func spaceOperations() []*Operation {
	var formats []string
	for _, f := range spaces.ImportFormats {
		formats = append(formats, f.Name)
	}
	importOps := []*Operation{
		command[struct{}, spaces.ImportReport]("space import", false,
			ex("cairn space import space.jsonl", "cat space.jsonl | cairn space import -", "cairn space import --from claude-code ~/.claude/projects/PROJECT", "cairn space import --from codex ~/.codex/sessions", "cairn space import --all", "cairn space import --schema"),
			Option{Flag: "from", Default: spaces.ImportFormats[0].Name, Usage: "what the input is: " + spaces.FormatUsage(), Enum: formats},
			Option{Flag: "schema", Kind: Bool, Usage: "print the JSON Schema of one line of the cairn format and import nothing"},
			Option{Flag: "all", Kind: Bool, Usage: "import the past sessions of every agent runtime found on this machine, each from where it keeps them (" + spaces.RuntimeLocations + "); incremental: what is unchanged is not read again"}),
		command[struct{}, spaces.AllReport]("space import --all", false, nil),
	}
	for _, f := range spaces.ImportFormats[1:] {
		importOps = append(importOps, command[struct{}, any]("space import --from "+f.Name, false, nil))
	}
	return append(importOps,
		command[struct{}, spaces.ExportReport]("space export", true, ex("cairn space export --output space.jsonl", "cairn space export > backup.jsonl"), outputOption),
		command[spaces.Comment, spaces.AddedComment]("space add-comment", false,
			ex("cairn --user alice --task 7 space add-comment 'switched the UI only'", "cairn --user alice --task 7 space add-comment --kind result -"),
			Option{Flag: "id", Field: "id", Usage: "comment id (default: one more than the highest integer id)"},
			Option{Flag: "kind", Field: "kind", Default: "comment", Usage: "one of " + strings.Join(spaces.Kinds, ", "), Enum: spaces.Kinds},
			Option{Flag: "progress-type", Field: "progress_type", Usage: "for --kind progress: thinking, summary, tool, ..."},
			Option{Flag: "tool-name", Field: "tool_name", Usage: "for a tool progress comment: the tool's name"},
			Option{Flag: "author", Field: "author", Usage: "who wrote it (default: --user)"},
			Option{Flag: "at", Field: "created_at", Usage: "RFC 3339 time (default: now)"},
			Option{Flag: "attach", Field: "attachments", Kind: Strings, Usage: "an attachment file name (repeatable)"}),
		command[struct{}, spaces.ReindexReport]("space reindex", false, ex("cairn space reindex")),
		tool(define("SearchWorkspaceTasks", "space search",
			"Search the conversations of the other tasks in your space (requests, results, questions, handoffs, "+
				"thinking and summaries) to recall what was asked before and how it was done. Returns hits with short "+
				"redacted excerpts, newest first, never whole conversations; pass a hit's ref as around_ref to read the "+
				"raw neighbouring comments. Never searches other spaces or your own task. With no signed-in user it "+
				"searches your past Claude Code, Codex, OpenCode and Gemini CLI sessions (imported with cairn space import --all) "+
				"except this one; each such hit names its runtime, project, session_id and the command that resumes it, and "+
				"runtime keeps one runtime's. Read-only.",
			true, all(bounds("context", 0, spaces.MaxContext), bounds("limit", 1, spaces.MaxLimit), defaults("limit", spaces.DefaultLimit), enum("kind", spaces.FilterKinds...), enum("runtime", spaces.RuntimeSources...), stringOrInteger("task_id")),
			func(ctx context.Context, c Context, in spaces.SearchInput) (any, error) {
				ans, err := searchSpace(ctx, c, in)
				if err != nil {
					return nil, err
				}
				return ans.Value(), nil
			}),
			ex("cairn --user alice --task 7 space search 認証 migration", "cairn --user alice --task 7 space search --around comment:42 --context 3", "cairn space search 'rate limit' --runtime codex"),
			Option{Flag: "around", Field: "around_ref", Form: "comment:<id>", Usage: "read comment:<id> and its neighbours instead of searching (around_ref)"},
			Option{Flag: "context", Field: "context", Kind: Int, Usage: fmt.Sprintf("neighbouring comments per hit, or each side of --around (0..%d)", spaces.MaxContext)},
			Option{Flag: "limit", Field: "limit", Kind: Int, Usage: fmt.Sprintf("most hits, 1..%d (query only)", spaces.MaxLimit), DefaultText: fmt.Sprint(spaces.DefaultLimit)},
			Option{Flag: "kind", Field: "kind", Usage: "only comments of this kind: " + strings.Join(spaces.FilterKinds, ", "), Enum: spaces.FilterKinds},
			Option{Flag: "author", Field: "author", Usage: "only comments by this author"},
			Option{Flag: "task-id", Field: "task_id", Usage: "only this task (task:<id> or <id>)"},
			Option{Flag: "runtime", Field: "runtime", Usage: "only past sessions of this agent runtime: " + strings.Join(spaces.RuntimeSources, ", "), Enum: spaces.RuntimeSources}),
	)
}

func boardOperations() []*Operation {
	var agentSources, allSources []string
	for _, s := range board.AllSources() {
		allSources = append(allSources, string(s))
		if s != board.SourceMemory {
			agentSources = append(agentSources, string(s))
		}
	}
	var formats []string
	for _, f := range importers.Table {
		formats = append(formats, f.Name)
	}
	ops := []*Operation{
		command[importers.Source, board.ImportResult]("board import", false,
			ex("cairn board import board.json", "gh issue list --state all --json number,title,body,labels,state,comments,createdAt,updatedAt,closedAt,milestone,assignees,url | cairn board import --from github -", "cairn board import --from beads .beads/issues.jsonl", "cairn board import --from backlog-md backlog", "cairn board import --schema"),
			Option{Flag: "schema", Kind: Bool, Usage: "print the JSON Schema of the board document and import nothing"},
			Option{Flag: "from", Usage: "import one project from another tracker: " + strings.Join(formats, ", "), Enum: formats},
			Option{Flag: "project", Field: "project", Form: "NAME", Usage: "with --from: the source's name (" + importers.ProjectUsage() + ")"}),
	}
	for _, f := range importers.Table {
		ops = append(ops, command[struct{}, board.ProjectImportResult]("board import --from "+f.Name, false, nil))
	}
	return append(ops,
		command[struct{}, board.ExportResult]("board export", true, ex("cairn board export --output board.json"), outputOption),
		tool(define("flowly_search", "board search",
			"Search earlier cards in this project: their titles, descriptions, summaries, progress notes, workpads, ideas "+
				"and deliverables (PR links, Jira keys, file paths). Use it when you start on an area to find related or "+
				"duplicate work and how it was verified. Project memory is not included; use flowly_recall for it. "+
				"Read-only; no request needed.",
			true, all(bounds("limit", 1, board.MaxAgentLimit), defaults("limit", board.DefaultAgentLimit), func(s *jsonschema.Schema) {
				items := s.Properties["sources"].Items
				for _, v := range agentSources {
					items.Enum = append(items.Enum, v)
				}
			}),
			func(ctx context.Context, c Context, in board.AgentInput) (*board.AgentResult, error) {
				if c.Card == "" {
					return nil, errs.Invalidf("flowly_search needs the caller's card, and this session was started without one")
				}
				ix, err := c.stores().Board(ctx)
				if err != nil {
					return nil, err
				}
				in.Card = c.Card
				return ix.AgentSearch(ctx, c.Workspace.Config.Board, in)
			}),
			ex("cairn board search 'rate limit' '#backend'", "cairn board search 'rate limit' tag:backend", "cairn board search migration --project p1 --sources card,note --limit 5"),
			Option{Flag: "project", Usage: "search this project only (default: every project that is not archived)"},
			Option{Flag: "all-projects", Kind: Bool, Usage: "search every project that is not archived (the default)"},
			Option{Flag: "sources", Field: "sources", Usage: "comma-separated sources to search: " + strings.Join(allSources, ",") + " (default: all)", Enum: allSources},
			Option{Flag: "limit", Field: "limit", Kind: Int, Usage: fmt.Sprintf("most cards, 1..%d (with --card: 1..%d, default %d)", board.MaxCardLimit, board.MaxAgentLimit, board.DefaultAgentLimit), DefaultText: fmt.Sprint(board.DefaultCardLimit)}),
	)
}

// runtimeOperations are the commands that set up and feed an agent runtime: a person or the
// runtime's hooks run them, never a model through a tool.
func runtimeOperations() []*Operation {
	dryRun := Option{Flag: "dry-run", Aliases: []string{"n"}, Kind: Bool, Usage: "print the changes as a diff and write nothing"}
	binary := Option{Flag: "command", Usage: "the cairn binary to register, as an absolute `PATH` (default: this binary)"}
	return []*Operation{
		command[struct{}, any]("setup claude-code", false, ex("cairn setup claude-code --dry-run", "cairn setup claude-code --scope project", "cairn setup claude-code --plugin ./cairn-plugin"),
			Option{Flag: "scope", Default: "local", Usage: "where to register: " + errs.OrList(setup.Scopes), Enum: setup.Scopes},
			dryRun,
			Option{Flag: "plugin", Usage: "write a Claude Code plugin folder `DIR` (plugin.json, .mcp.json, hooks, skill) instead of settings"},
			binary),
		command[struct{}, any]("setup codex", false, ex("cairn setup codex --dry-run", "cairn setup codex", "cairn setup codex --scope project --json"),
			Option{Flag: "scope", Default: "user", Usage: "where to register: " + errs.OrList(setup.CodexScopes), Enum: setup.CodexScopes},
			dryRun, binary),
		command[struct{}, any]("setup opencode", false, ex("cairn setup opencode --dry-run", "cairn setup opencode", "cairn setup opencode --scope user"),
			Option{Flag: "scope", Default: "project", Usage: "where to register: " + errs.OrList(setup.OpenCodeScopes), Enum: setup.OpenCodeScopes},
			dryRun, binary),
		command[struct{}, any]("setup gemini", false, ex("cairn setup gemini --dry-run", "cairn setup gemini", "cairn setup gemini --scope user"),
			Option{Flag: "scope", Default: "project", Usage: "where to register: " + errs.OrList(setup.GeminiScopes), Enum: setup.GeminiScopes},
			dryRun, Option{Flag: "command", Usage: "the cairn binary to register, as an absolute `PATH` (default: cairn, found on PATH, in project scope; this binary in user scope)"}),
		command[struct{}, any]("hook claude-code", false, ex(`echo '{"hook_event_name":"SessionStart","source":"compact","session_id":"abc","cwd":"."}' | cairn hook claude-code`)),
		command[struct{}, any]("hook codex", false, ex(`echo '{"hook_event_name":"SessionStart","source":"resume","session_id":"abc","cwd":"."}' | cairn hook codex`)),
		command[struct{}, any]("hook opencode", false, ex(`echo '{"event":"experimental.chat.system.transform","session_id":"ses_abc","directory":"."}' | cairn hook opencode`)),
		command[struct{}, any]("hook gemini", false, ex(`echo '{"hook_event_name":"BeforeAgent","session_id":"abc","cwd":".","prompt":"go on"}' | cairn hook gemini`)),
	}
}
