package board

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The readers here answer what the search index does not hold — the project list of a scope
// chooser and one card's full records — straight from the files, under the shared board lock.

// ProjectList is the projects a search can be scoped to, with the one to offer first.
type ProjectList struct {
	Projects []ProjectInfo `json:"projects"`
	// Current is the default "This project": the project of the given card when it is live, else
	// the one with the latest card activity; null when there is no project.
	Current *string `json:"current"`
}

// ProjectInfo is one project that is not archived, so a chooser can show its size and activity.
type ProjectInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Cards counts every card of the project, archived cards included.
	Cards int `json:"cards"`
	// UpdatedAt is the latest updated_at of the project's cards ("" without cards).
	UpdatedAt string `json:"updatedAt"`
}

// CardDetail is one card with every record a reader of the card wants to see next to it.
type CardDetail struct {
	Card CardInfo `json:"card"`
	// Summary is the card's latest summary version; null without one.
	Summary   *Summary   `json:"summary"`
	Notes     []Event    `json:"notes"`
	Workpads  []Workpad  `json:"workpads"`
	Ideas     []Idea     `json:"ideas"`
	Artifacts []Artifact `json:"artifacts"`
	// Partial names "summaries" when board/summaries.json could not be read.
	Partial []string `json:"partial"`
}

// CardInfo is a card's own fields with its project's title, so the card can be shown alone.
type CardInfo struct {
	TaskID       string   `json:"taskId"`
	ProjectID    string   `json:"projectId"`
	ProjectTitle string   `json:"projectTitle"`
	WorkspaceID  string   `json:"workspaceId"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Tags         []string `json:"tags"`
	Type         string   `json:"type"`
	Status       string   `json:"status"`
	Archived     bool     `json:"archived"`
	UpdatedAt    string   `json:"updatedAt"`
}

// ListProjects returns the projects that are not archived, by title then id, with their card
// counts, so a search page can offer them as scopes; card (may be "") picks Current when its
// project is live. ctx ends the wait for the board lock and interrupts the read (CANCELLED).
func ListProjects(ctx context.Context, ws *workspace.Workspace, card string) (*ProjectList, error) {
	res := &ProjectList{Projects: []ProjectInfo{}}
	err := withReadTx(ctx, ws, func(tx *sql.Tx, s *scrubber) error {
		const what = "read projects from %s"
		rows, err := tx.QueryContext(ctx, `SELECT p.id, p.title, count(t.id), coalesce(max(t.updated_at), '')
			FROM projects p LEFT JOIN tasks t ON t.project = p.id WHERE p.archived = 0 GROUP BY p.id`)
		if err != nil {
			return storageErr(err, what, DBPath)
		}
		defer rows.Close()
		for rows.Next() {
			var p ProjectInfo
			if err := rows.Scan(&p.ID, &p.Title, &p.Cards, &p.UpdatedAt); err != nil {
				return storageErr(err, what, DBPath)
			}
			if s != nil {
				s.str(&p.Title)
			}
			res.Projects = append(res.Projects, p)
		}
		if err := rows.Err(); err != nil {
			return storageErr(err, what, DBPath)
		}
		if card == "" {
			return nil
		}
		var pid string
		err = tx.QueryRowContext(ctx, `SELECT t.project FROM tasks t JOIN projects p ON p.id = t.project
			WHERE t.id = ? AND p.archived = 0`, card).Scan(&pid)
		switch {
		case err == nil:
			res.Current = &pid
			return nil
		case errors.Is(err, sql.ErrNoRows):
			return nil
		}
		return storageErr(err, "read the project of card %s from %s", card, DBPath)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(res.Projects, func(a, b ProjectInfo) int {
		return cmp.Or(strings.Compare(a.Title, b.Title), strings.Compare(a.ID, b.ID))
	})
	if res.Current == nil && len(res.Projects) > 0 {
		best := res.Projects[0]
		for _, p := range res.Projects[1:] {
			if parseTime(p.UpdatedAt) > parseTime(best.UpdatedAt) || (p.UpdatedAt == best.UpdatedAt && p.ID < best.ID) {
				best = p
			}
		}
		id := best.ID
		res.Current = &id
	}
	return res, nil
}

// ReadCard returns one card of a project that is not archived with all its records, so a card
// can be shown whole; notes are the searched events (status changes and progress reports with a
// note), and an unreadable summaries file is no error but named in Partial. ctx ends the wait for
// the board lock and interrupts the read (CANCELLED).
func ReadCard(ctx context.Context, ws *workspace.Workspace, id string) (*CardDetail, error) {
	if strings.TrimSpace(id) == "" {
		return nil, errs.Invalidf("card input needs a taskId")
	}
	res := &CardDetail{Notes: []Event{}, Workpads: []Workpad{}, Ideas: []Idea{}, Artifacts: []Artifact{}, Partial: []string{}}
	err := withReadTx(ctx, ws, func(tx *sql.Tx, s *scrubber) error {
		c := &res.Card
		var tags string
		var projArchived bool
		err := tx.QueryRowContext(ctx, `SELECT t.id, t.project, p.title, p.archived, t.workspace_id, t.title, t.description,
			t.tags, t.type, t.status, t.archived, t.updated_at
			FROM tasks t JOIN projects p ON p.id = t.project WHERE t.id = ?`, id).
			Scan(&c.TaskID, &c.ProjectID, &c.ProjectTitle, &projArchived, &c.WorkspaceID, &c.Title, &c.Description,
				&tags, &c.Type, &c.Status, &c.Archived, &c.UpdatedAt)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && projArchived) {
			return errs.NotFoundf("Card not found.")
		}
		if err != nil {
			return storageErr(err, "read card %s from %s", id, DBPath)
		}
		c.Tags = []string{}
		if err := json.Unmarshal([]byte(tags), &c.Tags); err != nil {
			return fmt.Errorf("card %s: tags: %w", id, err)
		}
		s.cardInfo(c)
		err = eachCardRow(ctx, tx, id, `SELECT id, card, type, note, actor, at FROM events
			WHERE card = ? AND type IN ('status_changed', 'progress_reported') AND trim(note) <> ''
			ORDER BY at DESC, id DESC`,
			func(r *sql.Rows) error { return appendRow(r, &res.Notes, scanEvent) })
		if err != nil {
			return err
		}
		err = eachCardRow(ctx, tx, id, `SELECT id, card, kind, description, command, evidence, at FROM workpads
			WHERE card = ? ORDER BY at, id`,
			func(r *sql.Rows) error { return appendRow(r, &res.Workpads, scanWorkpad) })
		if err != nil {
			return err
		}
		err = eachCardRow(ctx, tx, id, `SELECT id, card, title, detail, rationale, context, status, at FROM ideas
			WHERE card = ? ORDER BY at DESC, id`,
			func(r *sql.Rows) error { return appendRow(r, &res.Ideas, scanIdea) })
		if err != nil {
			return err
		}
		err = eachCardRow(ctx, tx, id, `SELECT id, card, title, note, target, external_key, at FROM artifacts
			WHERE card = ? ORDER BY at DESC, id`,
			func(r *sql.Rows) error { return appendRow(r, &res.Artifacts, scanArtifact) })
		if err != nil {
			return err
		}
		scrubAll(s, res.Notes, (*scrubber).event)
		scrubAll(s, res.Workpads, (*scrubber).workpad)
		scrubAll(s, res.Ideas, (*scrubber).idea)
		scrubAll(s, res.Artifacts, (*scrubber).artifact)
		// Still under the lock, so the summary belongs to the same import as the rows.
		var all map[string][]Summary
		if err := readJSON(ws.Path(SummariesPath), &all); err != nil {
			res.Partial = append(res.Partial, "summaries")
			return nil
		}
		if v, ok := latestSummary(all[id]); ok {
			s.summary(&v)
			res.Summary = &v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// scrubAll redacts every record of a list with one of a scrubber's methods; a nil scrubber
// leaves them.
func scrubAll[T any](s *scrubber, list []T, each func(*scrubber, *T)) {
	if s == nil {
		return
	}
	for i := range list {
		each(s, &list[i])
	}
}

// withReadTx runs fn in one read transaction on board.db under the shared board lock, as Load
// reads it: a missing board is NOT_FOUND, a locked one STORAGE_BUSY. An earlier build's board,
// whose texts are not redacted, is upgraded first (redaction.go); when that fails fn gets a
// scrubber to redact what it reads, else nil. ctx ending is CANCELLED, in the lock's wait or
// the read.
func withReadTx(ctx context.Context, ws *workspace.Workspace, fn func(*sql.Tx, *scrubber) error) error {
	for tried := false; ; tried = true {
		redacted, err := readTx(ctx, ws, func(tx *sql.Tx, redacted bool) error {
			switch {
			case redacted:
				return fn(tx, nil)
			case tried:
				return fn(tx, newScrubber())
			}
			return nil // upgrade first
		})
		if err != nil || redacted || tried {
			return errs.IfStopped(ctx, err, "board read")
		}
		if err := upgradeOnce(ctx, ws); err != nil {
			return err
		}
	}
}

// readTx runs fn in one read transaction under the shared board lock, with whether the board's
// texts are redacted.
func readTx(ctx context.Context, ws *workspace.Workspace, fn func(*sql.Tx, bool) error) (bool, error) {
	ok, err := dbExists(ws)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, errNoBoard()
	}
	lock, err := ws.LockNamed(ctx, lockName, false)
	if err != nil {
		return false, err
	}
	defer lock.Unlock()
	db, err := openDB(ws.Path(DBPath), ws.Wait, true)
	if err != nil {
		return false, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, storageErr(err, "read %s", DBPath)
	}
	defer tx.Rollback()
	redacted, err := readRedaction(tx)
	if err != nil {
		return false, err
	}
	return redacted, fn(tx, redacted)
}

// eachCardRow runs a query over one card's records and calls each for every row.
func eachCardRow(ctx context.Context, tx *sql.Tx, id, query string, each func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, id)
	if err != nil {
		return storageErr(err, "read the records of card %s from %s", id, DBPath)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return storageErr(err, "read the records of card %s from %s", id, DBPath)
		}
	}
	return storageErr(rows.Err(), "read the records of card %s from %s", id, DBPath)
}
