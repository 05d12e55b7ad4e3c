package web

import (
	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The page needs two things the search index does not hold: the list of projects for the scope
// chooser and a card's full records for the side panel. core/board reads both from the board
// files; these adapters only bind them to the API's actions.

type cardInput struct {
	TaskID string `json:"taskId"`
}

// listProjects answers the "projects" action; card is the daemon's --card, the default scope.
func listProjects(ws *workspace.Workspace, card string) (*board.ProjectList, error) {
	return board.ListProjects(ws, card)
}

// readCard answers the "card" action: everything the side panel shows.
func readCard(ws *workspace.Workspace, id string) (*board.CardDetail, error) {
	return board.ReadCard(ws, id)
}
