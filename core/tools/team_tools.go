package tools

import (
	"context"

	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/team"
)

// SpaceServer answers SearchWorkspaceTasks from a team server instead of spaces.db: the faces
// set it when cairn.toml has [space] server (team.Client), with the member's token.
type SpaceServer interface {
	Search(ctx context.Context, task string, in spaces.SearchInput) (spaces.Answer, error)
}

// searchSpace is SearchWorkspaceTasks through the caller's stores, or its team server.
func searchSpace(ctx context.Context, c Context, in spaces.SearchInput) (spaces.Answer, error) {
	if c.SpaceServer != nil {
		if c.Caller.Subtask {
			return spaces.Answer{Unavailable: &spaces.Unavailable{Message: spaces.UnavailableMessage}}, nil
		}
		return c.SpaceServer.Search(ctx, c.Caller.Task, in)
	}
	return spaces.SearchThrough(ctx, c.Workspace, c.Caller, in, c.stores().Spaces)
}

// teamOperations are the team server's commands (cairn serve member ...) and the client's
// (space push, space redactions): a person runs them, never a model through a tool.
func teamOperations() []*Operation {
	return []*Operation{
		command[struct{}, team.Member]("serve member add", false,
			ex("cairn serve member add alice --space tinylink", "cairn serve member add bob --space tinylink --space infra"),
			Option{Flag: "space", Kind: Strings, Form: "ID", Usage: "a team space the member may search and push to (repeatable)"},
			Option{Flag: "store", Usage: "the team store: sqlite (default: [serve] store, else this workspace) or postgres://..."}),
		command[struct{}, []team.Member]("serve member list", true, ex("cairn serve member list", "cairn --json serve member list"),
			Option{Flag: "store", Usage: "the team store: sqlite (default: [serve] store, else this workspace) or postgres://..."}),
		command[struct{}, map[string]any]("serve member remove", false, ex("cairn serve member remove bob"),
			Option{Flag: "store", Usage: "the team store: sqlite (default: [serve] store, else this workspace) or postgres://..."}),
		command[struct{}, team.PushReport]("space push", false,
			ex("cairn space push --dry-run", "cairn space push", "cairn space push --space tinylink"),
			Option{Flag: "space", Form: "ID", Usage: "the team space to push to (default: [space] team, else your only one)"},
			Option{Flag: "dry-run", Aliases: []string{"n"}, Kind: Bool, Usage: "print what would leave this machine (per space, redactions by rule, what is excluded) and send nothing"}),
		command[struct{}, map[string]any]("space redactions", true, ex("cairn space redactions", "cairn --json space redactions")),
	}
}
