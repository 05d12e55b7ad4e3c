package board

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// BoardCounts is a board's revision and how many records of each kind it holds: what an
// import wrote, or an export read.
type BoardCounts struct {
	Revision  int64 `json:"revision"`
	Projects  int   `json:"projects"`
	Cards     int   `json:"cards"`
	Events    int   `json:"events"`
	Workpads  int   `json:"workpads"`
	Ideas     int   `json:"ideas"`
	Artifacts int   `json:"artifacts"`
	Summaries int   `json:"summaries"`
	Memory    int   `json:"memory"`
}

// ExportResult says what an export wrote.
type ExportResult = BoardCounts

// Export writes the workspace's board to w as one board document (docs/formats.md), the input of
// Import: every record of board.db in the order it was imported (the order of the document that
// made the board), the summaries by card id, and the memory entries in their file's order. The
// board is read under the shared board lock, so an import running at the same time is either
// wholly in the output or not at all. Importing the output into a fresh workspace answers every
// search the same; it is the backup and migration path. ctx ends the wait for the board lock and
// interrupts the read (CANCELLED).
func Export(ctx context.Context, ws *workspace.Workspace, w io.Writer) (*ExportResult, error) {
	res := &ExportResult{}
	bw := bufio.NewWriterSize(w, 1<<20)
	err := withReadTx(ctx, ws, func(tx *sql.Tx, s *scrubber) error {
		var rev string
		if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'revision'`).Scan(&rev); err != nil {
			return storageErr(err, "read the revision from %s", DBPath)
		}
		if _, err := fmt.Sscan(rev, &res.Revision); err != nil {
			return errs.Invalidf("%s: revision %q is not a number (re-import the board)", DBPath, rev)
		}
		fmt.Fprintf(bw, "{\n  \"revision\": %d", res.Revision)
		list := func(name, query string, n *int, row func(*sql.Rows) (any, error)) error {
			rows, err := tx.QueryContext(ctx, query)
			if err != nil {
				return storageErr(err, "read %s from %s", name, DBPath)
			}
			defer rows.Close()
			fmt.Fprintf(bw, ",\n  %q: [", name)
			for rows.Next() {
				v, err := row(rows)
				if err != nil {
					return storageErr(err, "read %s from %s", name, DBPath)
				}
				if err := writeItem(bw, *n, v); err != nil {
					return err
				}
				*n++
			}
			if err := rows.Err(); err != nil {
				return storageErr(err, "read %s from %s", name, DBPath)
			}
			return closeList(bw, *n)
		}
		return inOrder(
			func() error {
				return list("projects", `SELECT id, title, archived, memory FROM projects ORDER BY rowid`, &res.Projects, asRow(scrubbed(s, scanProject, (*scrubber).project)))
			},
			func() error {
				return list("cards", `SELECT id, project, title, description, tags, type, status, archived, updated_at, workspace_id FROM tasks ORDER BY rowid`, &res.Cards, asRow(func(r *sql.Rows, c *Card) error {
					err := scanCard(r, c)
					if c.Tags == nil {
						c.Tags = []string{}
					}
					s.card(c)
					return err
				}))
			},
			func() error {
				return list("events", `SELECT id, card, type, note, actor, at FROM events ORDER BY rowid`, &res.Events, asRow(scrubbed(s, scanEvent, (*scrubber).event)))
			},
			func() error {
				return list("workpads", `SELECT id, card, kind, description, command, evidence, at FROM workpads ORDER BY rowid`, &res.Workpads, asRow(scrubbed(s, scanWorkpad, (*scrubber).workpad)))
			},
			func() error {
				return list("ideas", `SELECT id, card, title, detail, rationale, context, status, at FROM ideas ORDER BY rowid`, &res.Ideas, asRow(scrubbed(s, scanIdea, (*scrubber).idea)))
			},
			func() error {
				return list("artifacts", `SELECT id, card, title, note, target, external_key, at FROM artifacts ORDER BY rowid`, &res.Artifacts, asRow(scrubbed(s, scanArtifact, (*scrubber).artifact)))
			},
			func() error { return exportSummaries(ws, bw, res, s) },
			func() error { return exportMemory(ws, bw, res, s) },
		)
	})
	if err != nil {
		return nil, err
	}
	if _, err := bw.WriteString("\n}\n"); err != nil {
		return nil, fmt.Errorf("write export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("write export: %w", err)
	}
	return res, nil
}

// scrubbed is a row scan that redacts the record with each when s is not nil.
func scrubbed[T any](s *scrubber, scan func(*sql.Rows, *T) error, each func(*scrubber, *T)) func(*sql.Rows, *T) error {
	if s == nil {
		return scan
	}
	return func(r *sql.Rows, v *T) error {
		err := scan(r, v)
		each(s, v)
		return err
	}
}

// writeItem writes the i-th item of a list on a line of its own.
func writeItem(w *bufio.Writer, i int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode export: %w", err)
	}
	if i > 0 {
		w.WriteByte(',')
	}
	w.WriteString("\n    ")
	_, err := w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return err
}

func closeList(w *bufio.Writer, n int) error {
	var err error
	if n > 0 {
		_, err = w.WriteString("\n  ]")
	} else {
		_, err = w.WriteString("]")
	}
	return err
}

// exportSummaries writes board/summaries.json as the document's summaries, one card a line by id.
func exportSummaries(ws *workspace.Workspace, w *bufio.Writer, res *ExportResult, s *scrubber) error {
	data, err := os.ReadFile(ws.Path(SummariesPath))
	if err != nil {
		return workspace.FSError(err, "read %s", SummariesPath)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return errs.Invalidf("%s is damaged (%v); re-import the board", SummariesPath, err)
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	w.WriteString(",\n  \"summaries\": {")
	for i, id := range ids {
		raw := m[id]
		if s != nil {
			var err error
			if raw, err = s.summaryVersions(raw); err != nil {
				return errs.Invalidf("%s is damaged (%v); re-import the board", SummariesPath, err)
			}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return errs.Invalidf("%s is damaged (%v); re-import the board", SummariesPath, err)
		}
		key, _ := json.Marshal(id)
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n    %s: %s", key, buf.Bytes())
	}
	res.Summaries = len(ids)
	if len(ids) > 0 {
		w.WriteString("\n  }")
	} else {
		w.WriteString("}")
	}
	return nil
}

// exportMemory writes board/memory.json as the document's memory, one entry a line in file order.
func exportMemory(ws *workspace.Workspace, w *bufio.Writer, res *ExportResult, s *scrubber) error {
	data, err := os.ReadFile(ws.Path(MemoryPath))
	if err != nil {
		return workspace.FSError(err, "read %s", MemoryPath)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return errs.Invalidf("%s is damaged (%v); re-import the board", MemoryPath, err)
	}
	w.WriteString(",\n  \"memory\": [")
	for i, raw := range list {
		if s != nil {
			var err error
			if raw, err = s.memoryEntry(raw); err != nil {
				return errs.Invalidf("%s is damaged (%v); re-import the board", MemoryPath, err)
			}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return errs.Invalidf("%s is damaged (%v); re-import the board", MemoryPath, err)
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		w.Write(buf.Bytes())
	}
	res.Memory = len(list)
	return closeList(w, len(list))
}
