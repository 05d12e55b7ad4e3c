package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/memory"
	"github.com/cairn-dev/cairn/core/spaces"
)

var memoryKinds = []string{"summary", "decision", "request", "knowledge"}

type memorySearchInput struct {
	Query   string `json:"query" jsonschema:"one literal string matched case-insensitively (full-width equals half-width) against every line, frontmatter included; not split into words"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"most hits to return (1-500); default search_hit_limit of cairn.toml"`
	Context *int   `json:"context,omitempty" jsonschema:"lines of excerpt before and after a match (0-20); default search_excerpt_lines of cairn.toml"`
}

type knowledgeSearchInput struct {
	Query   string `json:"query" jsonschema:"one literal string matched case-insensitively against every line, frontmatter included"`
	Kind    string `json:"kind,omitempty" jsonschema:"keep only files whose frontmatter kind equals this exactly"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"most hits to return (1-500)"`
	Context *int   `json:"context,omitempty" jsonschema:"lines of excerpt before and after a match (0-20)"`
}

type memoryReadInput struct {
	Kind string `json:"kind" jsonschema:"summary, decision, request or knowledge"`
	Slug string `json:"slug,omitempty" jsonschema:"the file name without .md, as search returns it; not needed for summary"`
}

type memoryWriteInput struct {
	Kind         string `json:"kind" jsonschema:"summary, decision, request or knowledge"`
	Slug         string `json:"slug,omitempty" jsonschema:"file name without .md: one path segment, no / or leading dot; not needed for summary"`
	Content      string `json:"content" jsonschema:"the whole new content of the entry (Markdown, frontmatter included)"`
	ExpectSHA256 string `json:"expect_sha256,omitempty" jsonschema:"sha256 from MemoryRead; refuse if the entry changed since"`
}

type memoryEditInput struct {
	Kind         string `json:"kind" jsonschema:"summary, decision, request or knowledge"`
	Slug         string `json:"slug,omitempty" jsonschema:"file name without .md; not needed for summary"`
	Old          string `json:"old" jsonschema:"exact text to replace; must occur exactly once unless all is true"`
	New          string `json:"new" jsonschema:"replacement text"`
	All          bool   `json:"all,omitempty" jsonschema:"replace every occurrence"`
	ExpectSHA256 string `json:"expect_sha256,omitempty" jsonschema:"sha256 from MemoryRead; refuse if the entry changed since"`
}

func memoryTools() []*Tool {
	searchBounds := all(bounds("limit", 1, 500), bounds("context", 0, 20))
	return []*Tool{
		define("MemorySearch",
			"Search this project's memory (the summary, decisions and requests) for one literal string and get hits with "+
				"slug, kind, path, line and an excerpt of the lines around the match. Use it before deciding something that "+
				"may already have been decided or requested. Read MemoryRead with a hit's kind and slug for the whole entry. Read-only.",
			true, searchBounds, func(ctx context.Context, c Context, in memorySearchInput) (any, error) {
				return memory.MemorySearch(ctx, c.Workspace, memory.SearchInput{Query: in.Query, Limit: in.Limit, Context: in.Context})
			}),
		define("KnowledgeSearch",
			"Search the project's knowledge files for one literal string; each hit carries the file's frontmatter kind, "+
				"description and model_invokation (null when missing). Use it to find how-tos and reference notes. "+
				"A hit's kind is the file's own frontmatter kind: to read the whole file, call MemoryRead with kind \"knowledge\" "+
				"and the hit's slug. Read-only.",
			true, searchBounds, func(ctx context.Context, c Context, in knowledgeSearchInput) (any, error) {
				return memory.KnowledgeSearch(ctx, c.Workspace, memory.SearchInput{Query: in.Query, Kind: in.Kind, Limit: in.Limit, Context: in.Context})
			}),
		define("MemoryRead",
			"Read one memory or knowledge entry by kind and slug and get its content and sha256. The kind is summary, decision "+
				"or request as MemorySearch returns it, or knowledge for any knowledge file whatever its frontmatter kind. "+
				"An unknown slug is an error that suggests close slugs. Read-only.",
			true, enum("kind", memoryKinds...), func(_ context.Context, c Context, in memoryReadInput) (any, error) {
				return memory.MemoryRead(c.Workspace, memory.ReadInput{Kind: in.Kind, Slug: in.Slug})
			}),
		define("MemoryWrite",
			"Create or replace a whole memory or knowledge entry atomically. Pass expect_sha256 from MemoryRead so a "+
				"concurrent change is never overwritten. Prefer MemoryEdit for a small change.",
			false, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memoryWriteInput) (any, error) {
				return memory.MemoryWrite(ctx, c.Workspace, memory.WriteInput{Kind: in.Kind, Slug: in.Slug, Content: in.Content, ExpectSHA256: in.ExpectSHA256})
			}),
		define("MemoryEdit",
			"Replace an exact string in a memory or knowledge entry, atomically; old must occur exactly once unless all "+
				"is true (otherwise nothing changes and the count is reported). Never reformats the rest of the file.",
			false, enum("kind", memoryKinds...), func(ctx context.Context, c Context, in memoryEditInput) (any, error) {
				return memory.MemoryEdit(ctx, c.Workspace, memory.EditInput{Kind: in.Kind, Slug: in.Slug, Old: in.Old, New: in.New, All: in.All, ExpectSHA256: in.ExpectSHA256})
			}),
	}
}

// flexID accepts an id written as a string or as an integer (the task_id field).
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		*f = flexID(strconv.FormatInt(n, 10))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("task_id: %s given, a string or an integer of at most 19 digits is needed", b)
	}
	*f = flexID(s)
	return nil
}

func stringOrInteger(prop string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		p.Type, p.Types = "", []string{"string", "integer"}
	}
}

type spaceSearchInput struct {
	Query     string `json:"query,omitempty" jsonschema:"words to find (all of them, in any order); exclusive with around_ref"`
	AroundRef string `json:"around_ref,omitempty" jsonschema:"comment:<id> from a hit: read that comment and its neighbours in full; exclusive with query"`
	Context   int    `json:"context,omitempty" jsonschema:"neighbouring comments to attach to each hit, or to show each side of around_ref (0-5, default 0)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most hits (1-30, default 10; query mode only)"`
	Kind      string `json:"kind,omitempty" jsonschema:"only comments of this kind"`
	Author    string `json:"author,omitempty" jsonschema:"only comments by this author"`
	TaskID    flexID `json:"task_id,omitempty" jsonschema:"only comments of this task of the space"`
}

func spaceTools() []*Tool {
	return []*Tool{
		define("SearchWorkspaceTasks",
			"Search the conversations of the other tasks in your space (requests, results, questions, handoffs, "+
				"thinking and summaries) to recall what was asked before and how it was done. Returns hits with short "+
				"redacted excerpts, newest first, never whole conversations; pass a hit's ref as around_ref to read the "+
				"raw neighbouring comments. Never searches other spaces or your own task. With no signed-in user it "+
				"searches your past Claude Code sessions (imported with cairn space import --from claude-code) except this one. Read-only.",
			true, all(bounds("context", 0, 5), bounds("limit", 1, 30), enum("kind", spaces.FilterKinds...), stringOrInteger("task_id")),
			func(ctx context.Context, c Context, in spaceSearchInput) (any, error) {
				search := spaces.SearchWorkspaceTasks
				if c.Cache != nil {
					search = c.Cache.spaces.SearchWorkspaceTasks
				}
				ans, err := search(ctx, c.Workspace, spaces.Caller{User: c.User, Task: c.Task, Subtask: c.Subtask, Session: c.ClaudeSession},
					spaces.SearchInput{Query: in.Query, Around: in.AroundRef, Context: in.Context, Limit: in.Limit, Kind: in.Kind, Author: in.Author, TaskID: string(in.TaskID)})
				if err != nil {
					return nil, err
				}
				return ans.Value(), nil
			}),
	}
}

type flowlySearchInput struct {
	Query   string         `json:"query" jsonschema:"1-200 characters: words (all must match), \"quoted phrases\", #tag filters"`
	Sources []board.Source `json:"sources,omitempty" jsonschema:"limit to these sources: card, summary, note, workpad, idea, artifact"`
	Limit   *int           `json:"limit,omitempty" jsonschema:"most cards (1-20, default 10)"`
}

func boardTools() []*Tool {
	var agentSources []string
	for _, s := range board.AllSources() {
		if s != board.SourceMemory {
			agentSources = append(agentSources, string(s))
		}
	}
	return []*Tool{
		define("flowly_search",
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
			func(ctx context.Context, c Context, in flowlySearchInput) (any, error) {
				if c.Card == "" {
					return nil, errs.Invalidf("flowly_search needs the caller's card, and this session was started without one")
				}
				load := c.Board
				if load == nil && c.Cache != nil {
					load = func() (*board.Index, error) { return c.Cache.boardIndex(ctx, c.Workspace) }
				}
				if load == nil {
					load = func() (*board.Index, error) { return board.Load(ctx, c.Workspace) }
				}
				ix, err := load()
				if err != nil {
					return nil, err
				}
				return ix.AgentSearch(c.Workspace.Config.Board, board.AgentInput{Card: c.Card, Query: in.Query, Sources: in.Sources, Limit: in.Limit})
			}),
	}
}
