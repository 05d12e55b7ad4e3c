package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/memory"
	"github.com/cairn-dev/cairn/core/spaces"
)

var memoryKinds = []string{"summary", "decision", "request", "knowledge"}

func memoryTools() []*Tool {
	searchBounds := all(bounds("limit", 1, 500), bounds("context", 0, 20))
	return []*Tool{
		parallel(define("MemorySearch", "memory search",
			"Search this project's memory (the summary, decisions and requests) for one literal string and get hits with "+
				"slug, kind, path, line and an excerpt of the lines around the match. Use it before deciding something that "+
				"may already have been decided or requested. Read MemoryRead with a hit's kind and slug for the whole entry. Read-only.",
			true, searchBounds, func(ctx context.Context, c Context, in memory.SearchInput) (any, error) {
				return memory.MemorySearch(ctx, c.Workspace, in)
			})),
		parallel(define("KnowledgeSearch", "knowledge search",
			"Search the project's knowledge files for one literal string; each hit carries the file's frontmatter kind, "+
				"description and model_invokation (null when missing). Use it to find how-tos and reference notes. "+
				"A hit's kind is the file's own frontmatter kind: to read the whole file, call MemoryRead with kind \"knowledge\" "+
				"and the hit's slug. Read-only.",
			true, searchBounds, func(ctx context.Context, c Context, in memory.KnowledgeSearchInput) (any, error) {
				return memory.KnowledgeSearch(ctx, c.Workspace, in)
			})),
		define("MemoryRead", "memory read",
			"Read one memory or knowledge entry by kind and slug and get its content and sha256. The kind is summary, decision "+
				"or request as MemorySearch returns it, or knowledge for any knowledge file whatever its frontmatter kind. "+
				"An unknown slug is an error that suggests close slugs. Read-only.",
			true, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memory.ReadInput) (any, error) {
				return memory.MemoryRead(ctx, c.Workspace, in)
			}),
		define("MemoryWrite", "memory write",
			"Create or replace a whole memory or knowledge entry atomically. Pass expect_sha256 from MemoryRead so a "+
				"concurrent change is never overwritten. Prefer MemoryEdit for a small change.",
			false, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memory.WriteInput) (any, error) {
				return memory.MemoryWrite(ctx, c.Workspace, in)
			}),
		define("MemoryEdit", "memory edit",
			"Replace an exact string in a memory or knowledge entry, atomically; old must occur exactly once unless all "+
				"is true (otherwise nothing changes and the count is reported). Never reformats the rest of the file.",
			false, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memory.EditInput) (any, error) {
				return memory.MemoryEdit(ctx, c.Workspace, in)
			}),
	}
}

func stringOrInteger(prop string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		p.Type, p.Types = "", []string{"string", "integer"}
	}
}

func spaceTools() []*Tool {
	return []*Tool{
		define("SearchWorkspaceTasks", "space search",
			"Search the conversations of the other tasks in your space (requests, results, questions, handoffs, "+
				"thinking and summaries) to recall what was asked before and how it was done. Returns hits with short "+
				"redacted excerpts, newest first, never whole conversations; pass a hit's ref as around_ref to read the "+
				"raw neighbouring comments. Never searches other spaces or your own task. With no signed-in user it "+
				"searches your past Claude Code and Codex sessions (imported with cairn space import --from claude-code or --from codex) "+
				"except this one; each such hit names its runtime, session_id and the command that resumes it. Read-only.",
			true, all(bounds("context", 0, 5), bounds("limit", 1, 30), enum("kind", spaces.FilterKinds...), stringOrInteger("task_id")),
			func(ctx context.Context, c Context, in spaces.SearchInput) (any, error) {
				search := spaces.SearchWorkspaceTasks
				if c.Cache != nil {
					search = c.Cache.spaces.SearchWorkspaceTasks
				}
				ans, err := search(ctx, c.Workspace, c.Caller, in)
				if err != nil {
					return nil, err
				}
				return ans.Value(), nil
			}),
	}
}

func boardTools() []*Tool {
	var agentSources []string
	for _, s := range board.AllSources() {
		if s != board.SourceMemory {
			agentSources = append(agentSources, string(s))
		}
	}
	return []*Tool{
		define("flowly_search", "board search",
			"Search earlier cards in this project: their titles, descriptions, summaries, progress notes, workpads, ideas "+
				"and deliverables (PR links, Jira keys, file paths). Use it when you start on an area to find related or "+
				"duplicate work and how it was verified. Project memory is not included; use flowly_recall for it. "+
				"Read-only; no request needed.",
			true, all(bounds("limit", 1, 20), func(s *jsonschema.Schema) {
				items := s.Properties["sources"].Items
				for _, v := range agentSources {
					items.Enum = append(items.Enum, v)
				}
			}),
			func(ctx context.Context, c Context, in board.AgentInput) (any, error) {
				if c.Card == "" {
					return nil, errs.Invalidf("flowly_search needs the caller's card, and this session was started without one")
				}
				var ix *board.Index
				var err error
				switch {
				case c.Board != nil:
					ix, err = c.Board()
				case c.Cache != nil:
					ix, err = c.Cache.boardIndex(ctx, c.Workspace)
				default:
					ix, err = board.Load(ctx, c.Workspace)
				}
				if err != nil {
					return nil, err
				}
				in.Card = c.Card
				return ix.AgentSearch(ctx, c.Workspace.Config.Board, in)
			}),
	}
}
