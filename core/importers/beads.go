package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
)

// bdIssue is one line of a beads .beads/issues.jsonl file (the Issue record of beads, with its
// labels, dependencies and comments). Fields beads writes that are not used here are ignored.
type bdIssue struct {
	ID                 string   `json:"id"`
	Title              string   `json:"title"`
	Description        string   `json:"description"`
	Design             string   `json:"design"`
	AcceptanceCriteria string   `json:"acceptance_criteria"`
	Notes              string   `json:"notes"`
	Status             string   `json:"status"`
	Priority           *int     `json:"priority"`
	IssueType          string   `json:"issue_type"`
	Assignee           string   `json:"assignee"`
	Labels             []string `json:"labels"`
	ExternalRef        *string  `json:"external_ref"`
	CreatedAt          string   `json:"created_at"`
	UpdatedAt          string   `json:"updated_at"`
	ClosedAt           *string  `json:"closed_at"`
	CloseReason        string   `json:"close_reason"`
	Dependencies       []struct {
		IssueID     string `json:"issue_id"`
		DependsOnID string `json:"depends_on_id"`
		Type        string `json:"type"`
	} `json:"dependencies"`
	Comments []struct {
		ID        json.RawMessage `json:"id"`
		Author    string          `json:"author"`
		Text      string          `json:"text"`
		CreatedAt string          `json:"created_at"`
	} `json:"comments"`
}

// beadsLanes maps a beads status to the board lane; tombstones (deleted issues) are left out.
var beadsLanes = map[string]string{
	"open":        "Todo",
	"in_progress": "In Progress",
	"hooked":      "In Progress",
	"blocked":     "Blocked",
	"deferred":    "Deferred",
	"pinned":      "Pinned",
	"closed":      "Done",
}

// Beads converts a beads issues.jsonl file into the project named name (the folder that holds
// .beads/); the project id is "beads-" and its slug, card ids that id, "/" and the beads id.
// Statuses become lanes (open Todo, in_progress In Progress, blocked Blocked, deferred Deferred,
// closed Done, a custom status a lane of its own name), labels and the priority (priority/P0..P4)
// tags, acceptance criteria workpad acceptance items (one per line), notes and comments notes,
// the close reason a status note, dependencies and the design part of the description, an
// external_ref an artifact.
func Beads(file string, data []byte, name string) (*board.ProjectBoard, error) {
	if slug(name) == "" || !validText(name) {
		return nil, badf(file, 0, "cannot name the project from %q; %s", name, errs.Field("project", errs.Pass))
	}
	pid := "beads-" + slug(name)
	pb := &board.ProjectBoard{Project: board.Project{ID: pid, Title: name, Memory: true}}
	seen := map[string]int{}
	for n, raw := range bytes.Split(data, []byte("\n")) {
		line := n + 1
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var is bdIssue
		if err := json.Unmarshal(raw, &is); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				if te.Field == "" {
					return nil, badf(file, line, "a JSON %s where beads writes an issue, one JSON object a line", te.Value)
				}
				return nil, badf(file, line, "field %s: a JSON %s where beads writes %s", te.Field, te.Value, formats.TypeName(te.Type))
			}
			return nil, badf(file, line, "not a beads issue (one JSON object per line): %s", formats.Message(err, nil))
		}
		if is.ID == "" {
			return nil, badf(file, line, "field id is missing")
		}
		if prev, dup := seen[is.ID]; dup {
			return nil, badf(file, line, "id %q is also on line %d", is.ID, prev)
		}
		seen[is.ID] = line
		if is.Status == "" {
			is.Status = "open"
		}
		if is.Status == "tombstone" {
			continue
		}
		lane, ok := beadsLanes[is.Status]
		if !ok {
			// beads takes custom statuses (bd config set status.custom "review,qa"): each is a
			// lane of its own name.
			if !customStatus(is.Status) {
				return nil, badf(file, line, "issue %s: field status: %q is not one of open, in_progress, blocked, deferred, closed, pinned, hooked, tombstone, nor a custom status (up to 100 bytes of text without control characters or white space at either end)", is.ID, is.Status)
			}
			lane = is.Status
		}
		if strings.TrimSpace(is.Title) == "" {
			return nil, badf(file, line, "issue %s: field title is missing", is.ID)
		}
		var closedAt string
		if is.ClosedAt != nil {
			closedAt = *is.ClosedAt
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"created_at", &is.CreatedAt}, {"updated_at", &is.UpdatedAt}, {"closed_at", &closedAt}} {
			t, err := normTime(*f.v)
			if err != nil {
				return nil, badf(file, line, "issue %s: field %s: %v", is.ID, f.name, err)
			}
			*f.v = t
		}
		updated := firstNonEmpty(is.UpdatedAt, closedAt, is.CreatedAt)
		if updated == "" {
			return nil, badf(file, line, "issue %s: field updated_at is missing (and created_at too)", is.ID)
		}
		if !validText(is.ID, is.Title, is.Description, is.Design, is.AcceptanceCriteria, is.Notes, is.CloseReason, is.Assignee) {
			return nil, badf(file, line, "issue %s: text is not valid UTF-8", is.ID)
		}
		card := board.Card{ID: pid + "/" + is.ID, Project: pid, Title: is.Title, Type: is.IssueType, Status: lane, UpdatedAt: updated}
		desc := []string{strings.TrimSpace(is.Description)}
		if d := strings.TrimSpace(is.Design); d != "" {
			desc = append(desc, "Design:\n"+d)
		}
		for _, d := range is.Dependencies {
			if d.DependsOnID != "" && d.DependsOnID != is.ID {
				desc = append(desc, fmt.Sprintf("Depends on %s (%s)", d.DependsOnID, firstNonEmpty(d.Type, "blocks")))
			}
		}
		card.Description = strings.TrimSpace(strings.Join(desc, "\n\n"))
		for _, l := range is.Labels {
			if l = strings.TrimSpace(l); l != "" {
				card.Tags = append(card.Tags, l)
			}
		}
		if is.Priority != nil {
			if *is.Priority < 0 || *is.Priority > 4 {
				return nil, badf(file, line, "issue %s: field priority: %d is not 0..4", is.ID, *is.Priority)
			}
			card.Tags = append(card.Tags, fmt.Sprintf("priority/P%d", *is.Priority))
		}
		if is.Assignee != "" {
			card.Tags = append(card.Tags, "assignee/"+is.Assignee)
		}
		pb.Cards = append(pb.Cards, card)
		k := 0
		for _, ac := range strings.Split(is.AcceptanceCriteria, "\n") {
			if ac = checkItem(ac); ac != "" {
				k++
				pb.Workpads = append(pb.Workpads, board.Workpad{ID: fmt.Sprintf("%s/ac-%d", card.ID, k), Card: card.ID, Kind: "acceptance", Description: ac})
			}
		}
		if nt := strings.TrimSpace(is.Notes); nt != "" {
			pb.Events = append(pb.Events, board.Event{ID: card.ID + "/notes", Card: card.ID, Type: "progress_reported", Note: nt, Actor: is.Assignee, At: updated})
		}
		for j, c := range is.Comments {
			t, err := normTime(c.CreatedAt)
			if err != nil {
				return nil, badf(file, line, "issue %s: comments[%d]: field created_at: %v", is.ID, j, err)
			}
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			if !validText(c.Text, c.Author) {
				return nil, badf(file, line, "issue %s: comments[%d]: text is not valid UTF-8", is.ID, j)
			}
			pb.Events = append(pb.Events, board.Event{ID: fmt.Sprintf("%s/comment-%d", card.ID, j+1), Card: card.ID, Type: "progress_reported", Note: c.Text, Actor: c.Author, At: firstNonEmpty(t, updated)})
		}
		if is.Status == "closed" {
			pb.Events = append(pb.Events, board.Event{ID: card.ID + "/closed", Card: card.ID, Type: "status_changed", Note: strings.TrimSpace(is.CloseReason), At: firstNonEmpty(closedAt, updated)})
		}
		if is.ExternalRef != nil && strings.TrimSpace(*is.ExternalRef) != "" {
			ref := strings.TrimSpace(*is.ExternalRef)
			a := board.Artifact{ID: card.ID + "/external", Card: card.ID, Title: ref, ExternalKey: ref, At: updated}
			if strings.Contains(ref, "://") {
				a.Target = ref
			}
			pb.Artifacts = append(pb.Artifacts, a)
		}
	}
	return pb, nil
}

// customStatus reports whether s can be a custom beads status and so a lane name: valid UTF-8 of
// at most 100 bytes, no control characters, no white space at either end.
func customStatus(s string) bool {
	return len(s) <= 100 && validText(s) && strings.TrimSpace(s) == s && !strings.ContainsFunc(s, unicode.IsControl)
}

// listNumber matches the number of a numbered list item ("1. ", "2) ").
var listNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{1,4}[.)]\s+`) })

// checkItem is the text of one criterion line: bullets, numbers and [ ]/[x] boxes removed, a
// checked box kept as "[x] " so the state is not lost.
func checkItem(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"- ", "* ", "+ "} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	s = strings.TrimSpace(listNumber().ReplaceAllString(s, ""))
	done := false
	switch {
	case strings.HasPrefix(s, "[x]"), strings.HasPrefix(s, "[X]"):
		done, s = true, strings.TrimSpace(s[3:])
	case strings.HasPrefix(s, "[ ]"):
		s = strings.TrimSpace(s[3:])
	}
	s = strings.TrimSpace(listNumber().ReplaceAllString(s, ""))
	if s == "" {
		return ""
	}
	if done {
		return "[x] " + s
	}
	return s
}
