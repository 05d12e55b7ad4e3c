package importers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// blList is a YAML value Backlog.md writes either as one string or as a list of strings
// (assignee: "@alice" or assignee: ["@alice", "@bob"]).
type blList []string

func (l *blList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value != "" {
			*l = blList{n.Value}
		}
		return nil
	case yaml.SequenceNode:
		var s []string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*l = s
		return nil
	}
	return fmt.Errorf("line %d: expected a string or a list of strings", n.Line)
}

// blTask is the YAML frontmatter of a Backlog.md task, decision or document file.
type blTask struct {
	ID           string `yaml:"id"`
	Title        string `yaml:"title"`
	Status       string `yaml:"status"`
	Assignee     blList `yaml:"assignee"`
	CreatedDate  string `yaml:"created_date"`
	UpdatedDate  string `yaml:"updated_date"`
	Date         string `yaml:"date"` // decisions
	Labels       blList `yaml:"labels"`
	Dependencies blList `yaml:"dependencies"`
	Priority     string `yaml:"priority"`
	Milestone    string `yaml:"milestone"`
	Parent       string `yaml:"parent_task_id"`
	Type         string `yaml:"type"` // documents
	Tags         blList `yaml:"tags"` // documents
}

type blConfig struct {
	ProjectName   string   `yaml:"project_name"`
	DefaultStatus string   `yaml:"default_status"`
	Statuses      []string `yaml:"statuses"`
}

// BacklogMD converts a Backlog.md folder into a project. dir is the backlog/ folder or the folder
// that holds it; name, when not empty, replaces the folder's name. The project id is "backlog-"
// and the slug of the name of the folder that holds backlog/ (backlog-tinylink); its title is
// config.yml's project_name. Tasks in tasks/ keep their status as the lane (config.yml lists
// them), completed/ tasks are Done, drafts/ are in the Draft lane, archive/tasks/ are archived
// cards; card ids are the project id, "/" and the task id. Labels, priority and milestone are
// tags; the Description section is the description; acceptance criteria are workpad acceptance
// items and Definition of Done items checks; the implementation plan, notes and final summary are
// notes. Decisions (decisions/) and documents (docs/) become project memory entries of kind
// decision and doc, their labels or tags as tags: accepted decisions and documents are active,
// proposed ones candidates, rejected ones rejected, superseded ones archived.
func BacklogMD(dir, name string) (*board.ProjectBoard, error) {
	root := dir
	if fi, err := os.Stat(filepath.Join(dir, "backlog")); err == nil && fi.IsDir() {
		root = filepath.Join(dir, "backlog")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, badf(dir, 0, "%v", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, badf(dir, 0, "is not a Backlog.md folder (backlog/ with config.yml and tasks/)")
	}
	var cfg blConfig
	cfgPath := filepath.Join(root, "config.yml")
	data, err := workspace.ReadSmall(cfgPath, 1<<20, "")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(filepath.Join(root, "tasks")); err != nil {
			return nil, badf(dir, 0, "is not a Backlog.md folder: neither config.yml nor tasks/ is in %s", root)
		}
	case err != nil:
		return nil, badf(cfgPath, 0, "%v", err)
	default:
		if err := yaml.Unmarshal(data, &cfg); err != nil {
			return nil, badf(cfgPath, 0, "%v", err)
		}
	}
	if name == "" {
		name = filepath.Base(abs)
		if name == "backlog" || name == ".backlog" {
			name = filepath.Base(filepath.Dir(abs))
		}
	}
	if slug(name) == "" || !validText(name) {
		return nil, badf(dir, 0, "cannot name the project from %q; %s", name, errs.Field("project", errs.Pass))
	}
	pid := "backlog-" + slug(name)
	title := firstNonEmpty(strings.TrimSpace(cfg.ProjectName), name)
	if !validText(title) {
		return nil, badf(cfgPath, 0, "field project_name: text is not valid UTF-8")
	}
	pb := &board.ProjectBoard{Project: board.Project{ID: pid, Title: title, Memory: true}}
	defaultStatus := firstNonEmpty(cfg.DefaultStatus, first(cfg.Statuses), "To Do")
	seen := map[string]string{}
	for _, folder := range []struct {
		rel, lane string
		archived  bool
	}{{"tasks", "", false}, {"drafts", "Draft", false}, {"completed", "Done", false}, {"archive/tasks", "", true}} {
		err := eachEntry(filepath.Join(root, folder.rel), false, "task", seen, func(f string, fm *blTask, body, id string) error {
			if strings.TrimSpace(fm.Title) == "" {
				return badf(f, 2, "field title is missing")
			}
			created, err := normTime(fm.CreatedDate)
			if err != nil {
				return badf(f, 0, "field created_date: %v", err)
			}
			updated, err := normTime(fm.UpdatedDate)
			if err != nil {
				return badf(f, 0, "field updated_date: %v", err)
			}
			updated = firstNonEmpty(updated, created)
			if updated == "" {
				return badf(f, 0, "field created_date is missing (a date such as 2026-10-20 08:00)")
			}
			lane := firstNonEmpty(folder.lane, strings.TrimSpace(fm.Status), defaultStatus)
			secs := sections(body)
			card := board.Card{
				ID: pid + "/" + id, Project: pid, Title: fm.Title, Type: "task", Status: lane,
				Archived: folder.archived, UpdatedAt: updated,
			}
			desc := []string{secs.get("Description")}
			if len(fm.Dependencies) > 0 {
				desc = append(desc, "Depends on "+strings.Join(fm.Dependencies, ", "))
			}
			if fm.Parent != "" {
				desc = append(desc, "Subtask of "+fm.Parent)
			}
			card.Description = strings.TrimSpace(strings.Join(desc, "\n\n"))
			for _, l := range fm.Labels {
				if l = strings.TrimSpace(l); l != "" {
					card.Tags = append(card.Tags, l)
				}
			}
			if p := strings.TrimSpace(fm.Priority); p != "" {
				card.Tags = append(card.Tags, "priority/"+p)
			}
			if m := strings.TrimSpace(fm.Milestone); m != "" {
				card.Tags = append(card.Tags, "milestone/"+m)
			}
			for _, a := range fm.Assignee {
				if a = strings.TrimPrefix(strings.TrimSpace(a), "@"); a != "" {
					card.Tags = append(card.Tags, "assignee/"+a)
				}
			}
			if !validText(append([]string{id, card.Title, card.Description, lane}, card.Tags...)...) {
				return badf(f, 0, "text is not valid UTF-8")
			}
			pb.Cards = append(pb.Cards, card)
			for _, wp := range []struct{ kind, sec, id string }{{"acceptance", "Acceptance Criteria", "ac"}, {"check", "Definition of Done", "dod"}} {
				for k, item := range listItems(secs.get(wp.sec)) {
					pb.Workpads = append(pb.Workpads, board.Workpad{
						ID:   fmt.Sprintf("%s/%s-%d", card.ID, wp.id, k+1),
						Card: card.ID, Kind: wp.kind, Description: item, At: updated,
					})
				}
			}
			for _, n := range []struct{ sec, id string }{{"Implementation Plan", "plan"}, {"Implementation Notes", "notes"}, {"Final Summary", "summary"}} {
				if text := secs.get(n.sec); text != "" {
					pb.Events = append(pb.Events, board.Event{ID: card.ID + "/" + n.id, Card: card.ID, Type: "progress_reported", Note: n.sec + ":\n" + text, Actor: first(fm.Assignee), At: updated})
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, folder := range []struct{ rel, kind string }{{"decisions", "decision"}, {"docs", "doc"}} {
		err := eachEntry(filepath.Join(root, folder.rel), folder.kind == "doc", folder.kind, seen, func(f string, fm *blTask, body, id string) error {
			when, err := normTime(firstNonEmpty(fm.Date, fm.UpdatedDate, fm.CreatedDate))
			if err != nil {
				return badf(f, 0, "field date: %v", err)
			}
			status := "active"
			switch strings.ToLower(strings.TrimSpace(fm.Status)) {
			case "proposed":
				status = "candidate"
			case "rejected":
				status = "rejected"
			case "superseded", "deprecated":
				status = "archived"
			}
			t := firstNonEmpty(strings.TrimSpace(fm.Title), titleFromName(f))
			var tags []string
			for _, l := range append(fm.Labels, fm.Tags...) {
				if l = strings.TrimSpace(l); l != "" {
					tags = append(tags, l)
				}
			}
			if !validText(append([]string{t, body}, tags...)...) {
				return badf(f, 0, "text is not valid UTF-8")
			}
			pb.Memory = append(pb.Memory, board.MemoryEntry{
				ID: pid + "/" + id, Project: pid, Kind: folder.kind, Title: t, Body: cleanBody(body),
				Tags: tags, Status: status, ConfirmedAt: when,
			})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return pb, nil
}

// eachEntry calls fn with every Markdown file of dir (and its subfolders when deep): its path,
// frontmatter, body and id, from the frontmatter or the file name (kind-N - Title.md). An id
// already in seen, in any case, is refused: ids are unique across the backlog.
func eachEntry(dir string, deep bool, kind string, seen map[string]string, fn func(f string, fm *blTask, body, id string) error) error {
	files, err := mdFiles(dir, deep)
	if err != nil {
		return err
	}
	for _, f := range files {
		fm, body, err := readMD(f)
		if err != nil {
			return err
		}
		id := firstNonEmpty(strings.TrimSpace(fm.ID), idFromName(f))
		if id == "" {
			return badf(f, 0, "field id is missing and the file name is not \"%s-N - Title.md\"", kind)
		}
		if prev, dup := seen[strings.ToLower(id)]; dup {
			what := "id"
			if kind == "task" {
				what = "task id"
			}
			return badf(f, 0, "%s %q is also in %s", what, id, prev)
		}
		seen[strings.ToLower(id)] = f
		if err := fn(f, fm, body, id); err != nil {
			return err
		}
	}
	return nil
}

func first(s []string) string {
	if len(s) > 0 {
		return s[0]
	}
	return ""
}

// mdFiles lists the Markdown files of a folder (and its subfolders when deep), sorted; a missing
// folder has none.
func mdFiles(dir string, deep bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			if p != dir && !deep {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") && d.Type().IsRegular() && !strings.EqualFold(d.Name(), "readme.md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, badf(dir, 0, "%v", err)
	}
	sort.Strings(out)
	return out, nil
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+):?`) })

// readMD splits a Markdown file into its YAML frontmatter (between the first two "---" lines) and
// its body. A YAML error names the line of the file.
func readMD(path string) (*blTask, string, error) {
	data, err := workspace.ReadSmall(path, 16<<20, "")
	if err != nil {
		return nil, "", badf(path, 0, "%v", err)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var fm blTask
	if !strings.HasPrefix(text, "---\n") {
		return &fm, text, nil
	}
	end := strings.Index(text[4:], "\n---")
	if end < 0 {
		return nil, "", badf(path, 1, "the frontmatter that starts with --- has no closing --- line")
	}
	head, body := text[4:4+end+1], text[4+end+4:]
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		// yaml counts lines from the frontmatter's first line, the file's second.
		line := 0
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
		msg = yamlLine().ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(strings.TrimSuffix(m[5:], ":"))
			if line == 0 {
				line = n + 1
				return ""
			}
			return fmt.Sprintf("line %d", n+1)
		})
		msg = strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimSpace(msg), ": ")), " ")
		return nil, "", badf(path, line, "frontmatter: %s", msg)
	}
	return &fm, strings.TrimLeft(body, "\n"), nil
}

var nameID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z]+-[0-9][0-9.]*)(?: - (.*))?\.md$`) })

// idFromName is the id in a "task-7 - Title.md" file name ("" when it has none).
func idFromName(path string) string {
	if m := nameID().FindStringSubmatch(filepath.Base(path)); m != nil {
		return m[1]
	}
	return ""
}

func titleFromName(path string) string {
	if m := nameID().FindStringSubmatch(filepath.Base(path)); m != nil && m[2] != "" {
		return m[2]
	}
	return strings.TrimSuffix(filepath.Base(path), ".md")
}

type mdSections map[string]string

func (s mdSections) get(name string) string { return s[strings.ToLower(name)] }

// sections splits a body on its "## Heading" lines; a heading's "(Optional)" is dropped. HTML
// comment markers (<!-- AC:BEGIN --> and the like) are removed.
func sections(body string) mdSections {
	out := mdSections{}
	cur := "description"
	var buf []string
	flush := func() {
		if text := strings.TrimSpace(strings.Join(buf, "\n")); text != "" {
			if prev := out[cur]; prev != "" {
				text = prev + "\n\n" + text
			}
			out[cur] = text
		}
		buf = nil
	}
	for _, line := range strings.Split(cleanBody(body), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			h = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(h), "(Optional)"))
			cur = strings.ToLower(h)
			continue
		}
		buf = append(buf, line)
	}
	flush()
	return out
}

var htmlComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })

func cleanBody(s string) string {
	s = htmlComment().ReplaceAllString(s, "")
	var out []string
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

var acNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\d+\s+`) })

// listItems are the checkbox or bullet items of a section, "#1 " numbers removed, a checked box
// kept as "[x] ".
func listItems(sec string) []string {
	var out []string
	for _, l := range strings.Split(sec, "\n") {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
			continue
		}
		item := checkItem(t)
		done := strings.HasPrefix(item, "[x] ")
		item = acNumber().ReplaceAllString(strings.TrimPrefix(item, "[x] "), "")
		if item == "" {
			continue
		}
		if done {
			item = "[x] " + item
		}
		out = append(out, item)
	}
	return out
}
