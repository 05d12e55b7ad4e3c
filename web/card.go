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

// projectsAnswer is the "projects" answer: the live projects, and for each of them (and "" for
// all projects) up to two example queries from its own cards for the empty Search page.
type projectsAnswer struct {
	*board.ProjectList
	Examples map[string][]string `json:"examples"`
}

// listProjects answers the "projects" action; card is the daemon's --card, the default scope.
func listProjects(ws *workspace.Workspace, card string, ix *board.Index) (*projectsAnswer, error) {
	list, err := board.ListProjects(ws, card)
	if err != nil {
		return nil, err
	}
	ans := &projectsAnswer{ProjectList: list, Examples: map[string][]string{"": nonNil(ix.Examples(""))}}
	for _, p := range list.Projects {
		ans.Examples[p.ID] = nonNil(ix.Examples(p.ID))
	}
	return ans, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// readCard answers the "card" action: everything the side panel shows.
func readCard(ws *workspace.Workspace, id string) (*board.CardDetail, error) {
	return board.ReadCard(ws, id)
}
