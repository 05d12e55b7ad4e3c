package importers

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
)

func fixture(t *testing.T, rel ...string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(append([]string{filepath.Dir(file), "..", "..", "fixtures", "importers"}, rel...)...)
}

func read(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func cardByID(t *testing.T, pb *board.ProjectBoard, id string) board.Card {
	t.Helper()
	for _, c := range pb.Cards {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no card %s among %d", id, len(pb.Cards))
	return board.Card{}
}

// valid checks the project board the way an import does.
func valid(t *testing.T, pb *board.ProjectBoard) {
	t.Helper()
	if _, err := board.ImportProjectCheck(context.Background(), pb); err != nil {
		t.Fatalf("converted project is not a valid board project: %v", err)
	}
}

func wantInvalid(t *testing.T, err error, parts ...string) {
	t.Helper()
	if errs.CodeOf(err) != errs.Invalid {
		t.Fatalf("want INVALID_INPUT, got %v", err)
	}
	msg := errs.Message(err, asFlags)
	for _, p := range append(parts, formats.Doc) {
		if !strings.Contains(msg, p) {
			t.Fatalf("error %q does not say %q", msg, p)
		}
	}
}

// asFlags writes the inputs a message names as the command line does (--project NAME), so the
// checks here read as what a person sees; the messages themselves name fields only.
func asFlags(in errs.Input) string {
	flag := "--" + in.Fields[0]
	value := in.Value
	if value == "" {
		value = "NAME"
	}
	if in.Use == errs.Pass {
		return "pass " + flag + " " + value
	}
	return flag
}

func TestGitHubIssuesAndPullRequests(t *testing.T) {
	data := append(read(t, fixture(t, "github", "issues.json")), read(t, fixture(t, "github", "prs.json"))...)
	pb, err := GitHub("gh.json", data, "")
	if err != nil {
		t.Fatal(err)
	}
	valid(t, pb)
	if pb.Project.ID != "gh-tinylink-tinylink" || pb.Project.Title != "tinylink/tinylink" || len(pb.Cards) != 5 {
		t.Fatalf("project %+v with %d cards", pb.Project, len(pb.Cards))
	}
	for id, want := range map[string]string{"#41": "Todo", "#38": "Done", "#39": "Cancelled", "#42": "Done", "#43": "In Progress"} {
		if got := cardByID(t, pb, "gh-tinylink-tinylink/"+id).Status; got != want {
			t.Errorf("%s: status %q, want %q", id, got, want)
		}
	}
	c := cardByID(t, pb, "gh-tinylink-tinylink/#41")
	if strings.Join(c.Tags, ",") != "enhancement,area/redirect,milestone/v1.2,assignee/mona" || c.Type != "issue" {
		t.Errorf("#41: tags %v type %q", c.Tags, c.Type)
	}
	if len(pb.Events) != 1 || pb.Events[0].Actor != "hubot" || pb.Events[0].Card != c.ID {
		t.Errorf("comments as notes: %+v", pb.Events)
	}
	if len(pb.Artifacts) != 2 || pb.Artifacts[0].Target != "https://github.com/tinylink/tinylink/pull/42" || pb.Artifacts[0].ExternalKey != "tinylink/tinylink#42" {
		t.Errorf("PR artifacts: %+v", pb.Artifacts)
	}
}

func TestGitHubRepositoryFromFlagAndErrors(t *testing.T) {
	noURL := []byte(`[{"number": 3, "title": "t", "updatedAt": "2026-10-01T00:00:00Z"}]`)
	pb, err := GitHub("x.json", noURL, "Owner/Repo")
	if err != nil {
		t.Fatal(err)
	}
	if pb.Project.ID != "gh-owner-repo" || pb.Cards[0].ID != "gh-owner-repo/#3" {
		t.Fatalf("%+v %+v", pb.Project, pb.Cards)
	}
	_, err = GitHub("x.json", noURL, "")
	wantInvalid(t, err, "x.json", "--project OWNER/REPO")
	_, err = GitHub("x.json", []byte(`[{"number":1,"title":"t","updatedAt":"2026-10-01T00:00:00Z","url":"https://github.com/a/b/issues/1"}]`), "c/d")
	wantInvalid(t, err, "x.json:1", "field url", "a/b", "c/d")
	_, err = GitHub("x.json", []byte("[\n{\"number\":1,\"title\":\"t\"},\n{\"number\":\"2\",\"title\":\"t\"}]"), "o/r")
	wantInvalid(t, err, "x.json:3", "item 1", "field number")
	_, err = GitHub("x.json", []byte(`[{"number":1,"title":"t","updatedAt":"2026-10-01T00:00:00Z"},{"number":1,"title":"u","updatedAt":"2026-10-01T00:00:00Z"}]`), "o/r")
	wantInvalid(t, err, "number 1 is also item 0")
	_, err = GitHub("x.json", []byte("[\n{\"number\":1,"), "o/r")
	wantInvalid(t, err, "x.json:2", "item 0", "the JSON ends too early", "a JSON array of objects")
	_, err = GitHub("x.json", []byte("[{\"number\":1,\"title\":\"t\"},\n7]"), "o/r")
	wantInvalid(t, err, "x.json:2", "item 1: a JSON number where gh prints an issue or pull request, a JSON object")
	_, err = GitHub("x.json", []byte(`{"number":1}`), "o/r")
	wantInvalid(t, err, "expected the JSON array")
	_, err = GitHub("x.json", []byte(`[{"number":1,"title":"t"}]`), "o/r")
	wantInvalid(t, err, "no updatedAt or createdAt")
	_, err = GitHub("x.json", []byte(`[{"number":1,"title":"t","updatedAt":"3001-01-01T00:00:00Z"}]`), "o/r")
	wantInvalid(t, err, "3001-01-01", "1900..2200")
	pb, err = GitHub("x.json", []byte(`[{"number":1,"title":"t","updatedAt":"2026-10-01T00:00:00Z","closedAt":"0001-01-01T00:00:00Z"}]`), "o/r")
	if err != nil || pb.Cards[0].UpdatedAt != "2026-10-01T00:00:00Z" {
		t.Fatalf("gh's zero time means never: %v", err)
	}
}

func TestBeads(t *testing.T) {
	pb, err := Beads("issues.jsonl", read(t, fixture(t, "beads", "tinylink", ".beads", "issues.jsonl")), "tinylink")
	if err != nil {
		t.Fatal(err)
	}
	valid(t, pb)
	if pb.Project.ID != "beads-tinylink" || len(pb.Cards) != 4 {
		t.Fatalf("project %+v with %d cards (the tombstone is left out)", pb.Project, len(pb.Cards))
	}
	for id, want := range map[string]string{"tl-a1f": "In Progress", "tl-9c2": "Done", "tl-b77": "Blocked", "tl-d10": "Todo"} {
		if got := cardByID(t, pb, "beads-tinylink/"+id).Status; got != want {
			t.Errorf("%s: status %q, want %q", id, got, want)
		}
	}
	c := cardByID(t, pb, "beads-tinylink/tl-a1f")
	if !strings.Contains(c.Description, "Token bucket") || !strings.Contains(c.Description, "Depends on tl-9c2 (blocks)") {
		t.Errorf("description: %q", c.Description)
	}
	if strings.Join(c.Tags, ",") != "api,abuse,priority/P1,assignee/claude" || c.UpdatedAt != "2026-10-12T12:30:00Z" {
		t.Errorf("tags %v updated %q", c.Tags, c.UpdatedAt)
	}
	if len(pb.Workpads) != 2 || pb.Workpads[0].Description != "429 with Retry-After past the limit" || pb.Workpads[0].Kind != "acceptance" {
		t.Errorf("workpads %+v", pb.Workpads)
	}
	var notes []string
	for _, e := range pb.Events {
		notes = append(notes, e.Type+":"+e.Note)
	}
	joined := strings.Join(notes, "|")
	for _, want := range []string{"progress_reported:Redis INCR", "progress_reported:Keep the free tier", "status_changed:Counters now live in Redis"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes %q lack %q", joined, want)
		}
	}
	if len(pb.Artifacts) != 1 || pb.Artifacts[0].ExternalKey != "gh-57" {
		t.Errorf("artifacts %+v", pb.Artifacts)
	}
}

func TestBeadsErrorsNameTheLine(t *testing.T) {
	ok := `{"id":"a","title":"t","created_at":"2026-01-01T00:00:00Z"}`
	for in, want := range map[string][]string{
		ok + "\n" + `{"id":"b","title":"t","status":" done","created_at":"2026-01-01T00:00:00Z"}`:      {"f.jsonl:2", "field status", `" done"`, "in_progress", "custom status"},
		ok + "\n" + `{"id":"b","title":"t","status":"do\u0007ne","created_at":"2026-01-01T00:00:00Z"}`: {"f.jsonl:2", "field status", "in_progress"},
		ok + "\n\n" + `{"id":"a","title":"t","created_at":"2026-01-01T00:00:00Z"}`:                     {"f.jsonl:3", `id "a" is also on line 1`},
		`{"id":"a","title":"t","created_at":"yesterday"}`:                                              {"f.jsonl:1", "field created_at"},
		`{"id":"a","title":"t","priority":9,"created_at":"2026-01-01T00:00:00Z"}`:                      {"f.jsonl:1", "field priority: 9"},
		`{"id":"a","title":"t","labels":"x","created_at":"2026-01-01T00:00:00Z"}`:                      {"f.jsonl:1", "field labels"},
		`{"title":"t"}`:     {"f.jsonl:1", "field id is missing"},
		`not json`:          {"f.jsonl:1", "not a beads issue"},
		ok + "\n" + `["a"]`: {"f.jsonl:2", "a JSON array where beads writes an issue"},
	} {
		_, err := Beads("f.jsonl", []byte(in), "x")
		wantInvalid(t, err, want...)
	}
}

func TestBacklogMD(t *testing.T) {
	for _, dir := range []string{fixture(t, "backlog-md", "tinylink"), fixture(t, "backlog-md", "tinylink", "backlog")} {
		pb, err := BacklogMD(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		valid(t, pb)
		if pb.Project.ID != "backlog-tinylink" || pb.Project.Title != "Tinylink" || len(pb.Cards) != 4 {
			t.Fatalf("project %+v with %d cards", pb.Project, len(pb.Cards))
		}
		for id, want := range map[string]string{"task-7": "In Progress", "task-8": "To Do", "task-5": "Done", "task-9": "Draft"} {
			if got := cardByID(t, pb, "backlog-tinylink/"+id).Status; got != want {
				t.Errorf("%s: status %q, want %q", id, got, want)
			}
		}
		c := cardByID(t, pb, "backlog-tinylink/task-7")
		if c.Description != "Links can carry an expiry time; an expired link answers 410 Gone instead of redirecting.\n\nDepends on task-5" {
			t.Errorf("description %q", c.Description)
		}
		if strings.Join(c.Tags, ",") != "links,api,priority/high,assignee/claude" || c.UpdatedAt != "2026-10-15T16:20:00Z" {
			t.Errorf("tags %v updated %q", c.Tags, c.UpdatedAt)
		}
		var ac []string
		for _, w := range pb.Workpads {
			if w.Card == c.ID {
				ac = append(ac, w.Description)
			}
		}
		if strings.Join(ac, "|") != "[x] POST /links accepts expires_at|An expired link answers 410 Gone|Expired links are swept nightly" {
			t.Errorf("acceptance %q", ac)
		}
		kinds := map[string]string{}
		for _, m := range pb.Memory {
			kinds[m.ID] = m.Kind + "/" + m.Status
		}
		if kinds["backlog-tinylink/decision-1"] != "decision/active" || kinds["backlog-tinylink/decision-2"] != "decision/candidate" || kinds["backlog-tinylink/doc-1"] != "doc/active" {
			t.Errorf("memory %v", kinds)
		}
	}
}

func TestBacklogMDErrors(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "app", "backlog", "tasks")
	if err := os.MkdirAll(tasks, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(tasks, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("task-1 - A.md", "---\nid: task-1\ntitle: A\nlabels: {x: 1}\n---\n")
	_, err := BacklogMD(filepath.Join(dir, "app"), "")
	wantInvalid(t, err, "task-1 - A.md:4", "frontmatter")
	write("task-1 - A.md", "---\nid: task-1\ntitle: A\ncreated_date: someday\n---\n")
	_, err = BacklogMD(filepath.Join(dir, "app"), "")
	wantInvalid(t, err, "task-1 - A.md", "field created_date")
	write("task-1 - A.md", "---\nid: task-1\ntitle: A\ncreated_date: 2026-10-01\n---\n")
	write("task-2 - B.md", "---\nid: task-1\ntitle: B\ncreated_date: 2026-10-01\n---\n")
	_, err = BacklogMD(filepath.Join(dir, "app"), "")
	wantInvalid(t, err, "task-2 - B.md", `task id "task-1" is also in`)
	_, err = BacklogMD(filepath.Join(dir, "missing"), "")
	wantInvalid(t, err, "is not a Backlog.md folder")
	os.Remove(filepath.Join(tasks, "task-2 - B.md"))
	write("task-1 - A.md", "---\nid: task-1\ntitle: A\ncreated_date: 2026-10-01\n---\n\n## Acceptance Criteria\n"+
		"<!-- AC:BEGIN -->\n- [ ] #1 one\n- [ ] #2 two\n- [ ] #3 three\n- [ ] #4 four\n- [ ] #5 five\n- [ ] #6 six\n- [ ] #7 seven\n- [ ] #8 eight\n- [ ] #9 nine\n- [x] #10 ten\n<!-- AC:END -->\n\n"+
		"## Definition of Done\n<!-- DOD:BEGIN -->\n- [ ] #1 tests pass\n<!-- DOD:END -->\n")
	pb, err := BacklogMD(filepath.Join(dir, "app"), "Other Name")
	if err != nil {
		t.Fatal(err)
	}
	if pb.Project.ID != "backlog-other-name" || pb.Cards[0].Status != "To Do" || pb.Cards[0].UpdatedAt != "2026-10-01T00:00:00Z" {
		t.Fatalf("%+v %+v", pb.Project, pb.Cards[0])
	}
	var items []string
	for _, w := range pb.Workpads {
		items = append(items, w.Kind+":"+w.Description)
	}
	want := "acceptance:one|acceptance:two|acceptance:three|acceptance:four|acceptance:five|acceptance:six|acceptance:seven|acceptance:eight|acceptance:nine|acceptance:[x] ten|check:tests pass"
	if got := strings.Join(items, "|"); got != want {
		t.Fatalf("workpad items in file order:\n got %s\nwant %s", got, want)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Owner/My Repo": "owner-my-repo", "  --x--  ": "x", "迁移/app": "迁移-app", "": ""} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamesOfInvalidUTF8AreRefused(t *testing.T) {
	_, err := GitHub("f.json", []byte(`[{"number":1,"title":"t","updatedAt":"2026-10-01T00:00:00Z"}]`), "o/\xff")
	wantInvalid(t, err, "--project")
	_, err = Beads("f.jsonl", []byte(`{"id":"a","title":"t","created_at":"2026-01-01T00:00:00Z"}`), "a\xff")
	wantInvalid(t, err, "--project NAME")
}

func TestGitHubFilesReadAsOneList(t *testing.T) {
	issues, prs := read(t, fixture(t, "github", "issues.json")), read(t, fixture(t, "github", "prs.json"))
	pb, err := GitHubFiles([]File{{"issues.json", issues}, {"prs.json", prs}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(pb.Cards) != 5 || len(pb.Artifacts) != 2 {
		t.Fatalf("%d cards, %d artifacts", len(pb.Cards), len(pb.Artifacts))
	}
	if c := cardByID(t, pb, "gh-tinylink-tinylink/#43"); c.Type != "pull request" || c.Status != "In Progress" {
		t.Fatalf("#43 of the second file: %+v", c)
	}
	_, err = GitHubFiles([]File{{"prs.json", prs}, {"again.json", prs}}, "")
	wantInvalid(t, err, "again.json:2", "number 42 is also item 0 of prs.json")
	_, err = GitHubFiles([]File{{"prs.json", prs}, {"other.json", []byte(`[{"number":9,"title":"t","updatedAt":"2026-10-01T00:00:00Z","url":"https://github.com/x/y/issues/9"}]`)}}, "")
	wantInvalid(t, err, "other.json:1", "repository x/y", "tinylink/tinylink")
}

// Backlog.md writes a Final Summary section when a task is finished, and a document's tags under
// "tags" (decisions and tasks use "labels"): both are searched like the rest of the task.
func TestBacklogMDFinalSummaryAndDocumentTags(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "kumo", "backlog")
	for _, sub := range []string{"tasks", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"tasks/task-3 - Login.md": "---\nid: task-3\ntitle: Login\nstatus: Done\ncreated_date: '2026-05-01 10:00'\n---\n\n" +
			"## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nNew login screen.\n<!-- SECTION:DESCRIPTION:END -->\n\n" +
			"## Final Summary\n\n<!-- SECTION:FINAL_SUMMARY:BEGIN -->\nShipped with Google OAuth; magic links stay behind a flag.\n<!-- SECTION:FINAL_SUMMARY:END -->\n",
		"docs/doc-1 - Runbook.md": "---\nid: doc-1\ntitle: Runbook\ntype: guide\ncreated_date: '2026-04-05 09:00'\ntags: [ops, oncall]\n---\n\nRestart with systemctl.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pb, err := BacklogMD(filepath.Join(dir, "kumo"), "")
	if err != nil {
		t.Fatal(err)
	}
	valid(t, pb)
	var notes []string
	for _, e := range pb.Events {
		notes = append(notes, e.ID+"="+e.Note)
	}
	if want := "backlog-kumo/task-3/summary=Final Summary:\nShipped with Google OAuth; magic links stay behind a flag."; strings.Join(notes, "|") != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if len(pb.Memory) != 1 || strings.Join(pb.Memory[0].Tags, ",") != "ops,oncall" {
		t.Errorf("document tags: %+v", pb.Memory)
	}
}

// GitHub closes an issue as completed, not planned or a duplicate; a duplicate is not work done.
func TestGitHubClosedAsDuplicateIsCancelled(t *testing.T) {
	pb, err := GitHub("x.json", []byte(`[
{"number":1,"title":"a","state":"CLOSED","stateReason":"DUPLICATE","updatedAt":"2026-10-01T00:00:00Z"},
{"number":2,"title":"b","state":"CLOSED","stateReason":"COMPLETED","updatedAt":"2026-10-01T00:00:00Z"},
{"number":3,"title":"c","state":"CLOSED","stateReason":"NOT_PLANNED","updatedAt":"2026-10-01T00:00:00Z"}]`), "o/r")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"#1": "Cancelled", "#2": "Done", "#3": "Cancelled"} {
		if got := cardByID(t, pb, "gh-o-r/"+id).Status; got != want {
			t.Errorf("%s: status %q, want %q", id, got, want)
		}
	}
}

// beads accepts custom statuses (bd config set status.custom "review,qa"); each is a lane of its
// own name, so a file that uses them imports.
func TestBeadsCustomStatusIsALane(t *testing.T) {
	pb, err := Beads("f.jsonl", []byte(`{"id":"a","title":"t","status":"review","created_at":"2026-01-01T00:00:00Z"}
{"id":"b","title":"u","status":"QA 検証","created_at":"2026-01-01T00:00:00Z"}`), "x")
	if err != nil {
		t.Fatal(err)
	}
	valid(t, pb)
	if a, b := cardByID(t, pb, "beads-x/a").Status, cardByID(t, pb, "beads-x/b").Status; a != "review" || b != "QA 検証" {
		t.Errorf("custom statuses became lanes %q and %q", a, b)
	}
}

// Acceptance criteria written as a numbered list lose their numbers like bullets lose theirs.
func TestBeadsNumberedAcceptanceCriteria(t *testing.T) {
	pb, err := Beads("f.jsonl", []byte(`{"id":"a","title":"t","acceptance_criteria":"1. backoff doubles\n2) gives up after 5 tries\n- [x] 3. logged\n2026 is the year","created_at":"2026-01-01T00:00:00Z"}`), "x")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range pb.Workpads {
		got = append(got, w.Description)
	}
	if want := "backoff doubles|gives up after 5 tries|[x] logged|2026 is the year"; strings.Join(got, "|") != want {
		t.Errorf("criteria %q, want %q", got, want)
	}
}
