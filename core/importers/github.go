package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
)

// ghItem is one element of the JSON array that `gh issue list --json ...` or `gh pr list --json
// ...` prints (field names as gh exports them). Fields gh can export that are not used here are
// ignored; every field is optional but number and title.
type ghItem struct {
	Number      *int    `json:"number"`
	Title       string  `json:"title"`
	Body        string  `json:"body"`
	URL         string  `json:"url"`
	State       string  `json:"state"`       // OPEN, CLOSED; MERGED for pull requests
	StateReason string  `json:"stateReason"` // COMPLETED, NOT_PLANNED, DUPLICATE, REOPENED
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
	ClosedAt    *string `json:"closedAt"`
	MergedAt    *string `json:"mergedAt"`
	IsDraft     *bool   `json:"isDraft"`
	HeadRefName string  `json:"headRefName"`
	BaseRefName string  `json:"baseRefName"`
	Author      *ghUser `json:"author"`
	Labels      []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Assignees []ghUser `json:"assignees"`
	Milestone *struct {
		Title string `json:"title"`
	} `json:"milestone"`
	Comments []struct {
		ID        string  `json:"id"`
		Author    *ghUser `json:"author"`
		Body      string  `json:"body"`
		CreatedAt string  `json:"createdAt"`
		URL       string  `json:"url"`
	} `json:"comments"`
}

type ghUser struct {
	Login string `json:"login"`
}

// GitHub converts the output of `gh issue list --json ...` and/or `gh pr list --json ...` (one or
// more JSON arrays, one after the other) into the project of one repository. The repository comes
// from the items' url (https://github.com/OWNER/REPO/issues/N or /pull/N); repo ("OWNER/REPO")
// names it when the items have no url, and must agree with the urls when they have one. The
// project id is "gh-" and the slug of OWNER/REPO (gh-cli-cli); card ids are that id, "/#" and the
// number, which issues and pull requests of a repository share.
func GitHub(file string, data []byte, repo string) (*board.ProjectBoard, error) {
	return GitHubFiles([]File{{Name: file, Data: data}}, repo)
}

// File is one input of a converter: its name for messages and its bytes.
type File struct {
	Name string
	Data []byte
}

// GitHubFiles is GitHub over several files, read as one list (the issues of one file and the
// pull requests of another, say): one repository, each number once.
func GitHubFiles(files []File, repo string) (*board.ProjectBoard, error) {
	var items []ghItem
	var where []ghPlace
	for _, f := range files {
		its, lines, err := ghItems(f.Name, f.Data)
		if err != nil {
			return nil, err
		}
		for i := range its {
			items = append(items, its[i])
			where = append(where, ghPlace{f.Name, lines[i], i})
		}
	}
	file := files[0].Name
	if repo != "" {
		if r, ok := repoOf(repo); ok && !strings.Contains(repo, "://") && validText(repo) {
			repo = r
		} else {
			return nil, badf(file, 0, "%s %q is not OWNER/REPO", errs.Field("project", errs.Name), repo)
		}
	}
	kinds := make([]string, len(items))
	for i, it := range items {
		if it.URL == "" {
			continue
		}
		r, kind, ok := ghURL(it.URL)
		w := where[i]
		if !ok {
			return nil, badf(w.file, w.line, "item %d: field url: %q is not the url of an issue or pull request (https://HOST/OWNER/REPO/issues/N or /pull/N)", w.item, it.URL)
		}
		kinds[i] = kind
		switch {
		case repo == "":
			repo = r
		case !strings.EqualFold(repo, r):
			return nil, badf(w.file, w.line, "item %d: field url: repository %s, but the other items (or %s) are from %s; import one repository at a time", w.item, r, errs.Field("project", errs.Name), repo)
		}
	}
	if repo == "" {
		return nil, badf(file, 0, "the items have no url to tell their repository; add url to the --json fields or %s", errs.FieldValue("project", errs.Pass, "OWNER/REPO"))
	}
	pid := "gh-" + slug(repo)
	pb := &board.ProjectBoard{Project: board.Project{ID: pid, Title: repo, Memory: true}}
	seen := map[int]ghPlace{}
	for k, it := range items {
		w := where[k]
		file, line, i := w.file, w.line, w.item
		if it.Number == nil {
			return nil, badf(file, line, "item %d: field number is missing (add number to the --json fields)", i)
		}
		n := *it.Number
		if prev, dup := seen[n]; dup {
			return nil, badf(file, line, "item %d: number %d is also item %d of %s; each issue or pull request once", i, n, prev.item, prev.file)
		}
		seen[n] = w
		if strings.TrimSpace(it.Title) == "" {
			return nil, badf(file, line, "item %d (#%d): field title is missing (add title to the --json fields)", i, n)
		}
		isPR := kinds[k] == "pull" || it.IsDraft != nil || it.MergedAt != nil || it.HeadRefName != "" || it.State == "MERGED"
		card := board.Card{ID: fmt.Sprintf("%s/#%d", pid, n), Project: pid, Title: it.Title, Description: it.Body, Type: "issue"}
		if isPR {
			card.Type = "pull request"
		}
		times := map[string]*string{"createdAt": &it.CreatedAt, "updatedAt": &it.UpdatedAt}
		var closedAt, mergedAt string
		if it.ClosedAt != nil {
			closedAt = *it.ClosedAt
			times["closedAt"] = &closedAt
		}
		if it.MergedAt != nil {
			mergedAt = *it.MergedAt
			times["mergedAt"] = &mergedAt
		}
		for _, f := range []string{"createdAt", "updatedAt", "closedAt", "mergedAt"} {
			p := times[f]
			if p == nil {
				continue
			}
			t, err := normTime(*p)
			if err != nil {
				return nil, badf(file, line, "item %d (#%d): field %s: %v", i, n, f, err)
			}
			*p = t
		}
		card.UpdatedAt = firstNonEmpty(it.UpdatedAt, closedAt, mergedAt, it.CreatedAt)
		if card.UpdatedAt == "" {
			return nil, badf(file, line, "item %d (#%d): no updatedAt or createdAt (add updatedAt to the --json fields)", i, n)
		}
		switch strings.ToUpper(it.State) {
		case "", "OPEN":
			card.Status = "Todo"
			if isPR {
				card.Status = "In Review"
				if it.IsDraft != nil && *it.IsDraft {
					card.Status = "In Progress"
				}
			}
		case "MERGED":
			card.Status = "Done"
		case "CLOSED":
			card.Status = "Done"
			if (isPR && mergedAt == "") || strings.EqualFold(it.StateReason, "NOT_PLANNED") || strings.EqualFold(it.StateReason, "DUPLICATE") {
				card.Status = "Cancelled"
			}
		default:
			return nil, badf(file, line, "item %d (#%d): field state: %q is not OPEN, CLOSED or MERGED", i, n, it.State)
		}
		for _, l := range it.Labels {
			if l.Name = strings.TrimSpace(l.Name); l.Name != "" {
				card.Tags = append(card.Tags, l.Name)
			}
		}
		if it.Milestone != nil && strings.TrimSpace(it.Milestone.Title) != "" {
			card.Tags = append(card.Tags, "milestone/"+strings.TrimSpace(it.Milestone.Title))
		}
		for _, a := range it.Assignees {
			if a.Login != "" {
				card.Tags = append(card.Tags, "assignee/"+a.Login)
			}
		}
		if it.IsDraft != nil && *it.IsDraft {
			card.Tags = append(card.Tags, "draft")
		}
		if !validText(append([]string{it.Title, it.Body, it.HeadRefName, it.BaseRefName}, card.Tags...)...) {
			return nil, badf(file, line, "item %d (#%d): text is not valid UTF-8", i, n)
		}
		pb.Cards = append(pb.Cards, card)
		for j, c := range it.Comments {
			t, err := normTime(c.CreatedAt)
			if err != nil {
				return nil, badf(file, line, "item %d (#%d): comments[%d]: field createdAt: %v", i, n, j, err)
			}
			if strings.TrimSpace(c.Body) == "" {
				continue
			}
			if !validText(c.Body) {
				return nil, badf(file, line, "item %d (#%d): comments[%d]: text is not valid UTF-8", i, n, j)
			}
			actor := ""
			if c.Author != nil {
				actor = c.Author.Login
			}
			pb.Events = append(pb.Events, board.Event{
				ID: fmt.Sprintf("%s/comment-%d", card.ID, j+1), Card: card.ID, Type: "progress_reported",
				Note: c.Body, Actor: actor, At: firstNonEmpty(t, card.UpdatedAt),
			})
		}
		if isPR {
			note := ""
			if it.HeadRefName != "" {
				note = "branch " + it.HeadRefName
				if it.BaseRefName != "" {
					note += " into " + it.BaseRefName
				}
			}
			pb.Artifacts = append(pb.Artifacts, board.Artifact{
				ID: card.ID + "/pr", Card: card.ID, Title: fmt.Sprintf("PR #%d", n), Note: note,
				Target: it.URL, ExternalKey: fmt.Sprintf("%s#%d", repo, n), At: firstNonEmpty(mergedAt, card.UpdatedAt),
			})
		}
	}
	return pb, nil
}

// ghPlace is where an item was read: its file, the line it starts on, its index in the file.
type ghPlace struct {
	file string
	line int
	item int
}

// ghItems reads one or more JSON arrays of items and the line each item starts on.
func ghItems(file string, data []byte) ([]ghItem, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var items []ghItem
	var lines []int
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, badf(file, lineAt(data, int(dec.InputOffset())), "not the JSON array gh prints with --json: %s", formats.Message(err, nil))
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, nil, badf(file, lineAt(data, int(dec.InputOffset())), "expected the JSON array (a list of issues or pull requests) that gh prints with --json, found %v", tok)
		}
		for dec.More() {
			line := lineAt(data, skipSep(data, int(dec.InputOffset())))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, badf(file, line, "item %d: %s (gh prints a JSON array of objects)", len(items), formats.Message(err, nil))
			}
			var it ghItem
			if err := json.Unmarshal(raw, &it); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					if te.Field == "" {
						return nil, nil, badf(file, line, "item %d: a JSON %s where gh prints an issue or pull request, a JSON object", len(items), te.Value)
					}
					return nil, nil, badf(file, line, "item %d: field %s: a JSON %s where gh prints %s", len(items), te.Field, te.Value, formats.TypeName(te.Type))
				}
				return nil, nil, badf(file, line, "item %d: %v", len(items), err)
			}
			items = append(items, it)
			lines = append(lines, line)
		}
		if _, err := dec.Token(); err != nil {
			return nil, nil, badf(file, lineAt(data, int(dec.InputOffset())), "%s (gh prints a JSON array of objects)", formats.Message(err, nil))
		}
	}
	if items == nil && len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, badf(file, 0, "is empty; expected the JSON array that gh issue list --json or gh pr list --json prints")
	}
	return items, lines, nil
}

// skipSep moves past white space and a comma to where the next value starts.
func skipSep(data []byte, off int) int {
	for off < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[off])) {
		off++
	}
	return off
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// ghURL splits https://HOST/OWNER/REPO/issues/N (or /pull/N) into OWNER/REPO and the kind.
func ghURL(s string) (repo, kind string, ok bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", "", false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || (parts[2] != "issues" && parts[2] != "pull") {
		return "", "", false
	}
	return parts[0] + "/" + parts[1], parts[2], true
}

// repoOf checks an OWNER/REPO name.
func repoOf(s string) (string, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" || strings.ContainsAny(s, " \t\n") {
		return "", false
	}
	return s, true
}
