package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The Search page of `cairn serve` has three actions of its own: the search of the whole board,
// the list of projects for the scope chooser and a card's full records for the side panel.
// core/board answers all three; these adapters bind them to the API's actions.

func httpOperations() []*Operation {
	return []*Operation{
		required(action("search", true, func(ctx context.Context, c Context, in board.SearchInput) (*board.Result, error) {
			ix, err := c.stores().Board(ctx)
			if err != nil {
				return nil, err
			}
			if c.Queue != nil {
				release, err := c.Queue(ctx)
				if err != nil {
					return nil, err
				}
				defer release()
			}
			return ix.Search(ctx, c.Workspace.Config.Board, in)
		}), "query", fmt.Sprintf("a string of at most %d characters (an empty one finds nothing)", board.MaxQueryChars)),
		action("projects", true, func(ctx context.Context, c Context, _ struct{}) (*ProjectsAnswer, error) {
			ix, err := c.stores().Board(ctx)
			if err != nil {
				return nil, err
			}
			return listProjects(ctx, c.Workspace, c.Card, ix)
		}),
		action("card", true, func(ctx context.Context, c Context, in CardInput) (*CardAnswer, error) {
			return readCard(ctx, c.Workspace, in)
		}),
	}
}

// required makes an action refuse input without field (missing or null), saying what it takes.
func required(op *Operation, field, takes string) *Operation {
	op.check = func(fields map[string]json.RawMessage) error {
		if v := fields[field]; v == nil || string(v) == "null" {
			return errs.InvalidField(field, "%s input needs %s: %s", op.Name, field, takes)
		}
		return nil
	}
	return op
}

// CardInput is the input of the "card" action.
type CardInput struct {
	TaskID string `json:"taskId"`
	// Query is the search the card was opened from (optional): its terms are what the answer's
	// highlights mark, found by the same rules as the search.
	Query string `json:"query"`
}

// CardAnswer is the "card" answer: the card's records and where the query's terms occur in them.
type CardAnswer struct {
	*board.CardDetail
	// Highlights lists, for each text field of the answer that holds a term of the query, the
	// ranges to mark; empty without a query.
	Highlights []Highlight `json:"highlights"`
}

// Highlight is where a query's terms occur in one text field of a card answer, computed by the
// server so the page marks exactly what the search matched (folding rules and all) without
// folding text itself.
type Highlight struct {
	// Source, RefID and Field name the field as a search hit names it: source "card" (fields
	// title, description, tags, type), "summary" (state, target, recap, next), "note" (note),
	// "workpad" (description, command, evidence), "idea" (title, detail, rationale, context) or
	// "artifact" (title, note, target, externalKey); RefID is the record's id for the last four.
	Source string `json:"source"`
	RefID  string `json:"refId,omitempty"`
	Field  string `json:"field"`
	// Index is the position of the tag in card.tags, for the field "tags" only.
	Index *int `json:"index,omitempty"`
	// Ranges are [start, end) offsets in UTF-16 code units of the field's text, sorted and not
	// overlapping; a character of the text is never split.
	Ranges []board.Range `json:"ranges"`
}

// ProjectsAnswer is the "projects" answer: the live projects, and for each of them (and "" for
// all projects) up to two example queries from its own cards for the empty Search page.
type ProjectsAnswer struct {
	*board.ProjectList
	Examples map[string][]string `json:"examples"`
}

// listProjects answers the "projects" action; card is the daemon's --card, the default scope.
func listProjects(ctx context.Context, ws *workspace.Workspace, card string, ix *board.Index) (*ProjectsAnswer, error) {
	list, err := board.ListProjects(ctx, ws, card)
	if err != nil {
		return nil, err
	}
	ans := &ProjectsAnswer{ProjectList: list, Examples: map[string][]string{"": nonNil(ix.Examples(""))}}
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

// readCard answers the "card" action: everything the side panel shows, with the highlights of
// the query's terms (the tags when the query has only #tags, as search snippets mark them).
func readCard(ctx context.Context, ws *workspace.Workspace, in CardInput) (*CardAnswer, error) {
	q, err := board.ParseQuery(in.Query)
	if err != nil {
		return nil, fmt.Errorf("card input query: %w", err)
	}
	d, err := board.ReadCard(ctx, ws, in.TaskID)
	if err != nil {
		return nil, err
	}
	return &CardAnswer{CardDetail: d, Highlights: cardHighlights(d, q.HighlightTerms())}, nil
}

// cardHighlights finds the terms in every text field the side panel shows.
func cardHighlights(d *board.CardDetail, terms []string) []Highlight {
	out := []Highlight{}
	if len(terms) == 0 {
		return out
	}
	add := func(source, ref, field string, index *int, text string) {
		if text == "" {
			return
		}
		spans := textmatch.FoldMap(text).Occurrences(terms)
		if len(spans) == 0 {
			return
		}
		h := Highlight{Source: source, RefID: ref, Field: field, Index: index}
		for _, r := range textmatch.UTF16Ranges(text, spans) {
			h.Ranges = append(h.Ranges, board.Range(r))
		}
		out = append(out, h)
	}
	c := &d.Card
	add("card", "", "title", nil, c.Title)
	add("card", "", "description", nil, c.Description)
	for i, tag := range c.Tags {
		add("card", "", "tags", &i, tag)
	}
	add("card", "", "type", nil, c.Type)
	if s := d.Summary; s != nil {
		add("summary", "", "state", nil, s.State)
		add("summary", "", "target", nil, s.Target)
		add("summary", "", "recap", nil, s.Recap)
		add("summary", "", "next", nil, s.Next)
	}
	for _, n := range d.Notes {
		add("note", n.ID, "note", nil, n.Note)
	}
	for _, w := range d.Workpads {
		add("workpad", w.ID, "description", nil, w.Description)
		add("workpad", w.ID, "command", nil, w.Command)
		add("workpad", w.ID, "evidence", nil, w.Evidence)
	}
	for _, i := range d.Ideas {
		add("idea", i.ID, "title", nil, i.Title)
		add("idea", i.ID, "detail", nil, i.Detail)
		add("idea", i.ID, "rationale", nil, i.Rationale)
		add("idea", i.ID, "context", nil, i.Context)
	}
	for _, a := range d.Artifacts {
		add("artifact", a.ID, "title", nil, a.Title)
		add("artifact", a.ID, "note", nil, a.Note)
		add("artifact", a.ID, "target", nil, a.Target)
		add("artifact", a.ID, "externalKey", nil, a.ExternalKey)
	}
	return out
}
