package spaces

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// ExportReport says what an export wrote.
type ExportReport struct {
	Spaces   int `json:"spaces"`
	Members  int `json:"members"`
	Tasks    int `json:"tasks"`
	Comments int `json:"comments"`
	Lines    int `json:"lines"`
}

// The export lines, with their fields in the order docs/formats.md lists them.
type (
	exportSpace struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Name  string `json:"name"`
		Owner string `json:"owner"`
	}
	exportMember struct {
		Type  string `json:"type"`
		Space string `json:"space"`
		User  string `json:"user"`
	}
	exportTask struct {
		Type      string  `json:"type"`
		ID        string  `json:"id"`
		Space     string  `json:"space"`
		Title     string  `json:"title"`
		Status    string  `json:"status"`
		Parent    *string `json:"parent"`
		CreatedAt string  `json:"created_at,omitempty"`
	}
	exportComment struct {
		Type         string   `json:"type"`
		ID           string   `json:"id"`
		Task         string   `json:"task"`
		Kind         string   `json:"kind"`
		ProgressType string   `json:"progress_type,omitempty"`
		ToolName     string   `json:"tool_name,omitempty"`
		Author       string   `json:"author"`
		CreatedAt    string   `json:"created_at"`
		Body         string   `json:"body"`
		Attachments  []string `json:"attachments"`
	}
)

// Export writes the workspace's whole space store to w as JSON Lines of the import format
// (docs/formats.md): raw titles and bodies, no redaction (it is the owner's own data, the
// backup and migration path), so importing the output into a fresh workspace answers every
// search the same. The order is fixed: spaces by id, members by space then user, tasks by id,
// comments by id (integer ids by value, before other ids, which sort bytewise). A workspace
// without a space store is NOT_FOUND; ctx ending stops it between rows (CANCELLED).
func Export(ctx context.Context, ws *workspace.Workspace, w io.Writer) (ExportReport, error) {
	var rep ExportReport
	st, err := OpenRead(ctx, ws)
	if errors.Is(err, os.ErrNotExist) {
		return rep, errs.NotFoundf("no spaces to export: %s does not exist (cairn space import creates it)", FileName)
	}
	if err != nil {
		return rep, err
	}
	defer st.Close()
	rep, err = st.export(ctx, w)
	return rep, errs.IfStopped(ctx, err, "space export")
}

func (s *Store) export(ctx context.Context, w io.Writer) (ExportReport, error) {
	var rep ExportReport
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rep, s.dbErr(err, "begin export")
	}
	defer tx.Rollback()
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	put := func(v any) error {
		rep.Lines++
		return enc.Encode(v)
	}
	scan := func(what, query string, each func(*sql.Rows) error) error {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return s.dbErr(err, "export "+what)
		}
		defer rows.Close()
		for rows.Next() {
			if err := errs.Stopped(ctx, "space export"); err != nil {
				return err
			}
			if err := each(rows); err != nil {
				return err
			}
		}
		return s.dbErr(rows.Err(), "export "+what)
	}
	// Spaces and tasks have no stored sort key: they are few next to comments, sorted here.
	var spaceRows []exportSpace
	err = scan("spaces", `SELECT id, name, owner FROM spaces`, func(r *sql.Rows) error {
		sp := exportSpace{Type: "space"}
		err := r.Scan(&sp.ID, &sp.Name, &sp.Owner)
		spaceRows = append(spaceRows, sp)
		return s.dbErr(err, "export spaces")
	})
	if err != nil {
		return rep, err
	}
	slices.SortFunc(spaceRows, func(a, b exportSpace) int { return strings.Compare(idKey(ID(a.ID)), idKey(ID(b.ID))) })
	for _, sp := range spaceRows {
		if err := put(sp); err != nil {
			return rep, fmt.Errorf("write export: %w", err)
		}
		rep.Spaces++
	}
	var memberRows []exportMember
	err = scan("members", `SELECT space, user FROM members`, func(r *sql.Rows) error {
		m := exportMember{Type: "member"}
		err := r.Scan(&m.Space, &m.User)
		memberRows = append(memberRows, m)
		return s.dbErr(err, "export members")
	})
	if err != nil {
		return rep, err
	}
	slices.SortFunc(memberRows, func(a, b exportMember) int {
		if c := strings.Compare(idKey(ID(a.Space)), idKey(ID(b.Space))); c != 0 {
			return c
		}
		return strings.Compare(a.User, b.User)
	})
	for _, m := range memberRows {
		if err := put(m); err != nil {
			return rep, fmt.Errorf("write export: %w", err)
		}
		rep.Members++
	}
	var taskRows []exportTask
	err = scan("tasks", `SELECT id, space, title, status, parent, created_at FROM tasks`, func(r *sql.Rows) error {
		t := exportTask{Type: "task"}
		var parent sql.NullString
		err := r.Scan(&t.ID, &t.Space, &t.Title, &t.Status, &parent, &t.CreatedAt)
		if parent.Valid && parent.String != "" {
			t.Parent = &parent.String
		}
		taskRows = append(taskRows, t)
		return s.dbErr(err, "export tasks")
	})
	if err != nil {
		return rep, err
	}
	slices.SortFunc(taskRows, func(a, b exportTask) int { return strings.Compare(idKey(ID(a.ID)), idKey(ID(b.ID))) })
	for _, t := range taskRows {
		if err := put(t); err != nil {
			return rep, fmt.Errorf("write export: %w", err)
		}
		rep.Tasks++
	}
	err = scan("comments", `SELECT id, task, kind, progress_type, tool_name, author, created_at, body, attachments
		FROM comments ORDER BY idkey`, func(r *sql.Rows) error {
		c := exportComment{Type: "comment"}
		var att string
		if err := r.Scan(&c.ID, &c.Task, &c.Kind, &c.ProgressType, &c.ToolName, &c.Author, &c.CreatedAt, &c.Body, &att); err != nil {
			return s.dbErr(err, "export comments")
		}
		if err := json.Unmarshal([]byte(att), &c.Attachments); err != nil || c.Attachments == nil {
			c.Attachments = []string{}
		}
		rep.Comments++
		if err := put(c); err != nil {
			return fmt.Errorf("write export: %w", err)
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	if err := bw.Flush(); err != nil {
		return rep, fmt.Errorf("write export: %w", err)
	}
	return rep, nil
}
