package web

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, as core/board uses it

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The page needs two things the search index does not hold: the list of projects for the scope
// chooser and a card's full records for the side panel. core/board exports no reader for them
// yet, so they are read here, read-only, under the same shared board lock a search load takes.
// (When core/board grows Index.Projects and a card reader, this file should call those instead.)

// boardLock is core/board's lock name (.cairn/board.lock): import holds it exclusively.
const boardLock = "board"

// projectsResult answers the "projects" action.
type projectsResult struct {
	Projects []projectInfo `json:"projects"`
	// Current is the page's default "This project": the project of the daemon's --card, else the
	// one with the latest card activity; null when there is no project.
	Current *string `json:"current"`
}

type projectInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Cards int    `json:"cards"`
	// UpdatedAt is the latest updated_at of the project's cards ("" without cards).
	UpdatedAt string `json:"updatedAt"`
}

type cardInput struct {
	TaskID string `json:"taskId"`
}

// cardResult answers the "card" action: everything the side panel shows.
type cardResult struct {
	Card      cardInfo         `json:"card"`
	Summary   *board.Summary   `json:"summary"`
	Notes     []board.Event    `json:"notes"`
	Workpads  []board.Workpad  `json:"workpads"`
	Ideas     []board.Idea     `json:"ideas"`
	Artifacts []board.Artifact `json:"artifacts"`
	// Partial names "summaries" when board/summaries.json could not be read.
	Partial []string `json:"partial"`
}

type cardInfo struct {
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

// withBoardDB opens board.db read-only under the shared board lock and runs fn.
func withBoardDB(ws *workspace.Workspace, fn func(*sql.DB) error) error {
	lock, err := ws.LockNamed(boardLock, false)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	path := ws.Path(board.DBPath)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errs.NotFoundf("no board in this workspace (%s is missing)", board.DBPath)
		}
		return fmt.Errorf("stat %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", ws.Wait.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+q.Encode())
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return fn(db)
}

// dbErr marks a busy database STORAGE_BUSY, as core/board does.
func dbErr(err error, what string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") {
		return errs.Wrap(errs.Busy, err, "%s", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// listProjects returns the projects that are not archived, by title then id, with their card
// counts, and the project of card (the daemon's --card) when there is one.
func listProjects(ws *workspace.Workspace, card string) (*projectsResult, error) {
	res := &projectsResult{Projects: []projectInfo{}}
	err := withBoardDB(ws, func(db *sql.DB) error {
		rows, err := db.Query(`SELECT p.id, p.title, count(t.id), coalesce(max(t.updated_at), '')
			FROM projects p LEFT JOIN tasks t ON t.project = p.id WHERE p.archived = 0 GROUP BY p.id`)
		if err != nil {
			return dbErr(err, "read projects")
		}
		defer rows.Close()
		for rows.Next() {
			var p projectInfo
			if err := rows.Scan(&p.ID, &p.Title, &p.Cards, &p.UpdatedAt); err != nil {
				return dbErr(err, "read projects")
			}
			res.Projects = append(res.Projects, p)
		}
		if err := rows.Err(); err != nil {
			return dbErr(err, "read projects")
		}
		if card == "" {
			return nil
		}
		var pid string
		err = db.QueryRow(`SELECT t.project FROM tasks t JOIN projects p ON p.id = t.project WHERE t.id = ? AND p.archived = 0`, card).Scan(&pid)
		if err == nil {
			res.Current = &pid
			return nil
		}
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return dbErr(err, "read the card's project")
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(res.Projects, func(a, b projectInfo) int {
		return cmp.Or(strings.Compare(a.Title, b.Title), strings.Compare(a.ID, b.ID))
	})
	if res.Current == nil && len(res.Projects) > 0 {
		best := res.Projects[0]
		for _, p := range res.Projects[1:] {
			if summaryTime(p.UpdatedAt).After(summaryTime(best.UpdatedAt)) || (p.UpdatedAt == best.UpdatedAt && p.ID < best.ID) {
				best = p
			}
		}
		id := best.ID
		res.Current = &id
	}
	return res, nil
}

// readCard returns one card of a project that is not archived with every record the side panel
// shows; notes are the searched events (status changes and progress reports with a note).
func readCard(ws *workspace.Workspace, id string) (*cardResult, error) {
	if strings.TrimSpace(id) == "" {
		return nil, errs.Invalidf("card input needs a taskId")
	}
	res := &cardResult{Notes: []board.Event{}, Workpads: []board.Workpad{}, Ideas: []board.Idea{}, Artifacts: []board.Artifact{}, Partial: []string{}}
	err := withBoardDB(ws, func(db *sql.DB) error {
		c := &res.Card
		var tags string
		var projArchived bool
		err := db.QueryRow(`SELECT t.id, t.project, p.title, p.archived, t.workspace_id, t.title, t.description, t.tags, t.type, t.status, t.archived, t.updated_at
			FROM tasks t JOIN projects p ON p.id = t.project WHERE t.id = ?`, id).
			Scan(&c.TaskID, &c.ProjectID, &c.ProjectTitle, &projArchived, &c.WorkspaceID, &c.Title, &c.Description, &tags, &c.Type, &c.Status, &c.Archived, &c.UpdatedAt)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && projArchived) {
			return errs.NotFoundf("Card not found.")
		}
		if err != nil {
			return dbErr(err, "read card")
		}
		c.Tags = []string{}
		if err := json.Unmarshal([]byte(tags), &c.Tags); err != nil {
			return fmt.Errorf("card %s: tags: %w", id, err)
		}
		if err := scanAll(db, `SELECT id, card, type, note, actor, at FROM events
			WHERE card = ? AND type IN ('status_changed', 'progress_reported') AND trim(note) <> '' ORDER BY at DESC, id DESC`, id,
			func(r *sql.Rows) error {
				var e board.Event
				err := r.Scan(&e.ID, &e.Card, &e.Type, &e.Note, &e.Actor, &e.At)
				res.Notes = append(res.Notes, e)
				return err
			}); err != nil {
			return err
		}
		if err := scanAll(db, `SELECT id, card, kind, description, command, evidence, at FROM workpads WHERE card = ? ORDER BY at, id`, id,
			func(r *sql.Rows) error {
				var w board.Workpad
				err := r.Scan(&w.ID, &w.Card, &w.Kind, &w.Description, &w.Command, &w.Evidence, &w.At)
				res.Workpads = append(res.Workpads, w)
				return err
			}); err != nil {
			return err
		}
		if err := scanAll(db, `SELECT id, card, title, detail, rationale, context, status, at FROM ideas WHERE card = ? ORDER BY at DESC, id`, id,
			func(r *sql.Rows) error {
				var d board.Idea
				err := r.Scan(&d.ID, &d.Card, &d.Title, &d.Detail, &d.Rationale, &d.Context, &d.Status, &d.At)
				res.Ideas = append(res.Ideas, d)
				return err
			}); err != nil {
			return err
		}
		return scanAll(db, `SELECT id, card, title, note, target, external_key, at FROM artifacts WHERE card = ? ORDER BY at DESC, id`, id,
			func(r *sql.Rows) error {
				var a board.Artifact
				err := r.Scan(&a.ID, &a.Card, &a.Title, &a.Note, &a.Target, &a.ExternalKey, &a.At)
				res.Artifacts = append(res.Artifacts, a)
				return err
			})
	})
	if err != nil {
		return nil, err
	}
	sum, err := latestSummary(ws, id)
	if err != nil {
		res.Partial = append(res.Partial, "summaries")
	}
	res.Summary = sum
	return res, nil
}

func scanAll(db *sql.DB, query string, arg any, each func(*sql.Rows) error) error {
	rows, err := db.Query(query, arg)
	if err != nil {
		return dbErr(err, "read card records")
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return dbErr(err, "read card records")
		}
	}
	return dbErr(rows.Err(), "read card records")
}

// latestSummary reads the card's newest summary version from board/summaries.json (newest by
// time, the later one in the file among equal times, as the search does).
func latestSummary(ws *workspace.Workspace, id string) (*board.Summary, error) {
	path := ws.Path(board.SummariesPath)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var all map[string][]board.Summary
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	versions := all[id]
	if len(versions) == 0 {
		return nil, nil
	}
	best, bestAt := 0, summaryTime(versions[0].At)
	for i := 1; i < len(versions); i++ {
		if at := summaryTime(versions[i].At); !at.Before(bestAt) {
			best, bestAt = i, at
		}
	}
	s := versions[best]
	return &s, nil
}

// summaryTime parses a version's time; a missing or bad time sorts first.
func summaryTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
