package board

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// fixturePath is fixtures/board/board.json, the board every test here starts from.
func fixturePath(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", "board", "board.json")
}

// newBoard makes a workspace and imports doc (the fixture when doc is empty).
func newBoard(t testing.TB, doc []byte) *workspace.Workspace {
	t.Helper()
	ws := workspacetest.New(t)
	if doc == nil {
		var err error
		if doc, err = os.ReadFile(fixturePath(t)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Import(context.Background(), ws, strings.NewReader(string(doc))); err != nil {
		t.Fatal(err)
	}
	return ws
}

func load(t testing.TB, ws *workspace.Workspace) *Index {
	t.Helper()
	ix, err := Load(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func search(t testing.TB, ix *Index, query string, mod ...func(*SearchInput)) *Result {
	t.Helper()
	in := SearchInput{Query: query}
	for _, m := range mod {
		m(&in)
	}
	res, err := ix.Search(context.Background(), workspace.DefaultConfig().Board, in)
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	return res
}

func inProject(id string) func(*SearchInput) { return func(in *SearchInput) { in.ProjectID = &id } }
func limit(n int) func(*SearchInput)         { return func(in *SearchInput) { in.Limit = &n } }
func sources(s ...Source) func(*SearchInput) {
	return func(in *SearchInput) { in.Sources = s }
}

func cardIDs(res *Result) []string {
	ids := []string{}
	for _, c := range res.Cards {
		ids = append(ids, c.TaskID)
	}
	return ids
}

func memIDs(res *Result) []string {
	ids := []string{}
	for _, m := range res.Memory {
		ids = append(ids, m.ID)
	}
	return ids
}

func hitKeys(c CardResult) []string {
	var out []string
	for _, h := range c.Hits {
		k := string(h.Source) + "." + h.Field
		if h.RefID != "" {
			k += "#" + h.RefID
		}
		out = append(out, k)
	}
	return out
}

// Acceptance 1: every source hits its own fields; what is never searched never appears.
func TestAcceptance1SourcesAndExclusions(t *testing.T) {
	ix := load(t, newBoard(t, nil))
	cases := []struct{ query, card, hit string }{
		{"ログイン画面", "c2", "card.title"},
		{"module/auth", "c2", "card.tags"},
		{"認証フロー", "c2", "card.description"},
		{"research", "c3", "card.type"},
		{"迁移进行中", "c1", "summary.state"},
		{"全部表迁移完", "c1", "summary.target"},
		{"测试通过", "c1", "summary.recap"},
		{"切换读路径", "c1", "summary.next"},
		{`"schema review"`, "c1", "note.note#e2"},
		{`"storage tests"`, "c1", "workpad.description#wp1"},
		{"./core/board", "c1", "workpad.command#wp1"},
		{"WALCHECK", "c1", "workpad.evidence#wp1"},
		{"迁移后数据一致", "c1", "workpad.description#wp2"},
		{`"cache cold"`, "c4", "workpad.description#wp3"},
		{"trigram", "c1", "idea.title#i1"},
		{`"Index the notes"`, "c1", "idea.detail#i1"},
		{"Two-character", "c1", "idea.rationale#i1"},
		{`"PR #12"`, "c1", "artifact.title#a1"},
		{`"merged after"`, "c1", "artifact.note#a1"},
		{"pull/12", "c1", "artifact.target#a1"},
		{"TL-12", "c1", "artifact.externalKey#a1"},
	}
	for _, tc := range cases {
		res := search(t, ix, tc.query)
		found := false
		for _, c := range res.Cards {
			if c.TaskID == tc.card && strings.Contains(strings.Join(hitKeys(c), " "), tc.hit) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: want %s hit %s, got %v", tc.query, tc.card, tc.hit, res.Cards)
		}
	}
	if res := search(t, ix, "trigram"); res.Cards[0].Hits[0].Status != "dismissed" {
		t.Errorf("idea hit status = %q, want dismissed", res.Cards[0].Hits[0].Status)
	}
	if res := search(t, ix, `"WAL 模式"`); !reflect.DeepEqual(memIDs(res), []string{"m1"}) {
		t.Errorf("memory body: %v", memIDs(res))
	}
	if res := search(t, ix, "auth", sources(SourceMemory)); !reflect.DeepEqual(memIDs(res), []string{"m6"}) {
		t.Errorf("memory keyword: %v", memIDs(res))
	}
	// Archived cards are searched (and marked).
	if res := search(t, ix, "prototype"); len(res.Cards) != 1 || !res.Cards[0].Archived {
		t.Errorf("archived card: %+v", res.Cards)
	}
	// Older summary versions, system events, receipts, non-active memory, memory of a project
	// with memory off, archived projects and their memory never appear.
	for _, q := range []string{"OLDSUMMARYWORD", "SYSTEMEVENTWORD", "RECEIPTWORD", "CANDIDATEWORD", "ARCHIVEDMEMORYWORD", "MEMORYOFFWORD", "ARCHIVEDPROJECTWORD", "widget"} {
		if res := search(t, ix, q); len(res.Cards)+len(res.Memory) != 0 {
			t.Errorf("%q must find nothing, got %v %v", q, cardIDs(res), memIDs(res))
		}
	}
	// The [board] switches.
	cfg := workspace.DefaultConfig().Board
	cfg.Ideas, cfg.Artifacts, cfg.Memory = false, false, false
	for _, q := range []string{"trigram", "TL-12", "WAL 模式"} {
		res, err := ix.Search(context.Background(), cfg, SearchInput{Query: q})
		if err != nil || len(res.Cards)+len(res.Memory) != 0 {
			t.Errorf("switched off: %q found %v %v (%v)", q, cardIDs(res), memIDs(res), err)
		}
	}
}

// Acceptance 2: terms spread over sources, a missing term, phrases, #tags.
func TestAcceptance2TermsPhrasesTags(t *testing.T) {
	ix := load(t, newBoard(t, nil))
	check := func(q string, want ...string) {
		t.Helper()
		if want == nil {
			want = []string{}
		}
		if got := cardIDs(search(t, ix, q, inProject("p1"))); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, want %v", q, got, want)
		}
	}
	check("WALCHECK TL-12 trigram 切换读路径", "c1") // workpad, artifact, idea, summary
	check("WALCHECK nosuchword")
	check(`"schema review"`, "c1")
	check(`"review schema"`)
	check(`review schema`, "c1")
	check("#perf", "c1")
	check("#PERF", "c1")
	check("#module/storage", "c8", "c1")
	check("#mod")
	check("#module/ ログイン", "c2")
	check("#module 迁移", "c1", "c8")
	check("#ux", "c6")
	check("#module/auth ログイン", "c2")
	check("#perf #module/auth")
	if res := search(t, ix, "#module/auth"); !reflect.DeepEqual(memIDs(res), []string{"m6"}) {
		t.Errorf("memory by its own tags: %v", memIDs(res))
	}
	// A tag-only query shows the tags field with the tag marked.
	res := search(t, ix, "#perf")
	if h := res.Cards[0].Hits; len(h) != 1 || h[0].Field != "tags" || !reflect.DeepEqual(h[0].Ranges, []Range{{15, 19}}) {
		t.Errorf("tag-only hit: %+v", h)
	}
}

// Acceptance 3: case, full/half width, one- and two-character Chinese words.
func TestAcceptance3Folding(t *testing.T) {
	ix := load(t, newBoard(t, nil))
	base := cardIDs(search(t, ix, "sqlite"))
	for _, q := range []string{"SQLITE", "ＳＱＬｉｔｅ", "SqLiTe"} {
		if got := cardIDs(search(t, ix, q)); !reflect.DeepEqual(got, base) {
			t.Errorf("%q: %v, want %v", q, got, base)
		}
	}
	res := search(t, ix, "full width login")
	if len(res.Cards) != 1 || res.Cards[0].TaskID != "c6" {
		t.Fatalf("full-width title: %v", cardIDs(res))
	}
	h := res.Cards[0].Hits[0]
	if h.Snippet != "ＦＵＬＬ ｗｉｄｔｈ Ｌｏｇｉｎ form" || !reflect.DeepEqual(h.Ranges, []Range{{0, 4}, {5, 10}, {11, 16}}) {
		t.Errorf("full-width ranges: %q %v", h.Snippet, h.Ranges)
	}
	for _, q := range []string{"kelvin", "strasse", "迁", "搜索"} {
		if len(search(t, ix, q).Cards) == 0 {
			t.Errorf("%q found nothing", q)
		}
	}
	res = search(t, ix, "strasse")
	if h := res.Cards[0].Hits[0]; !strings.Contains(h.Snippet, "Straße") || len(h.Ranges) != 1 || h.Ranges[0][1]-h.Ranges[0][0] != 6 {
		t.Errorf("ß maps back to the original: %q %v", h.Snippet, h.Ranges)
	}
}

// utf16Slice returns s[a:b] in UTF-16 units, as a browser would.
func utf16Slice(s string, a, b int) string {
	var out []rune
	u := 0
	for _, r := range s {
		if u >= a && u < b {
			out = append(out, r)
		}
		u += textmatch.RuneUTF16Len(r)
	}
	return string(out)
}

// Acceptance 4: snippets ≤ 160 characters, ranges on the terms, at most three hits.
func TestAcceptance4SnippetsRangesHits(t *testing.T) {
	ws := newBoard(t, nil)
	ix := load(t, ws)
	res := search(t, ix, "launch")
	h := res.Cards[0].Hits[0]
	if h.Snippet != "😀😀 rocket 🚀 launch day notes" || !reflect.DeepEqual(h.Ranges, []Range{{15, 21}}) {
		t.Errorf("emoji snippet %q ranges %v, want [[15 21]]", h.Snippet, h.Ranges)
	}
	if got := utf16Slice(h.Snippet, 15, 21); got != "launch" {
		t.Errorf("UTF-16 range selects %q", got)
	}
	res = search(t, ix, "laborum lorem", inProject("p2"))
	for _, h := range res.Cards[0].Hits {
		if n := utf8.RuneCountInString(h.Snippet); n > 160 {
			t.Errorf("snippet of %d characters", n)
		}
		for _, r := range h.Ranges {
			if got := textmatch.Fold(utf16Slice(h.Snippet, r[0], r[1])); got != "laborum" && got != "lorem" {
				t.Errorf("range %v selects %q in %q", r, got, h.Snippet)
			}
		}
		if !strings.HasPrefix(h.Snippet, "…") {
			t.Errorf("a cut start needs …: %q", h.Snippet)
		}
	}
	// "cache" is in c4's title, tags, description, type, summary, note, workpad, idea, artifact.
	q, _ := ParseQuery("cache")
	matches, _ := ix.matchCards(context.Background(), q, []int32{ix.projByID["p1"]}, 0xff, -1, 10)
	if len(matches) != 1 || len(matches[0].hits) < 6 {
		t.Fatalf("c4 should match in at least six fields: %+v", matches)
	}
	res = search(t, ix, "cache")
	if got := hitKeys(res.Cards[0]); !reflect.DeepEqual(got, []string{"card.title", "card.tags", "summary.state"}) {
		t.Errorf("three best hits by weight then time: %v", got)
	}
	// Newlines become spaces.
	res = search(t, ix, "WAL mode")
	for _, h := range res.Cards[0].Hits {
		if strings.ContainsAny(h.Snippet, "\n\r") {
			t.Errorf("newline in snippet %q", h.Snippet)
		}
	}
}

// Acceptance 5: weight, then open / finished / archived, then latest activity; memory after cards.
func TestAcceptance5Ranking(t *testing.T) {
	ix := load(t, newBoard(t, nil))
	res := search(t, ix, "搜索")
	want := []string{"c41", "c40", "c7", "c3", "c9", "c1"}
	if got := cardIDs(res); !reflect.DeepEqual(got, want) {
		t.Errorf("ranking: got %v, want %v", got, want)
	}
	res = search(t, ix, "迁移")
	if got := memIDs(res); !reflect.DeepEqual(got, []string{"m1", "m6"}) {
		t.Errorf("memory by confirmed time: %v", got)
	}
	data, _ := json.Marshal(res)
	if i, j := strings.Index(string(data), `"cards"`), strings.Index(string(data), `"memory"`); i > j {
		t.Errorf("memory must follow cards: %s", data)
	}
}

// Acceptance 6: limit and truncated, all projects, unknown/archived projects, invalid input.
func TestAcceptance6LimitsScopeErrors(t *testing.T) {
	ix := load(t, newBoard(t, nil))
	res := search(t, ix, "迁移", limit(1))
	if len(res.Cards) != 1 || !res.Truncated {
		t.Errorf("limit 1: %v truncated=%v", cardIDs(res), res.Truncated)
	}
	if res := search(t, ix, "迁移", limit(50)); res.Truncated {
		t.Errorf("not truncated at 50")
	}
	all := cardIDs(search(t, ix, "迁移"))
	if !reflect.DeepEqual(all, []string{"c1", "c20", "c8"}) {
		t.Errorf("all projects (archived project excluded): %v", all)
	}
	if got := cardIDs(search(t, ix, "迁移", inProject("p2"))); !reflect.DeepEqual(got, []string{"c20"}) {
		t.Errorf("project p2: %v", got)
	}
	empty := search(t, ix, "  \u3000 ")
	if data, _ := json.Marshal(empty); string(data) != `{"cards":[],"memory":[],"truncated":false,"total":0,"partial":[]}` {
		t.Errorf("empty query: %s", data)
	}
	bad := []struct {
		in   SearchInput
		code errs.Code
		msg  string
	}{
		{SearchInput{Query: "x", ProjectID: strPtr("p3")}, errs.NotFound, `Project not found. Project "p3" is archived`},
		{SearchInput{Query: "x", ProjectID: strPtr("nope")}, errs.NotFound, `Project not found. No project "nope" is on the board; the projects searched: `},
		{SearchInput{Query: "x", Limit: intPtr(0)}, errs.Invalid, "limit 0 is out of range 1..50"},
		{SearchInput{Query: "x", Limit: intPtr(51)}, errs.Invalid, "limit 51"},
		{SearchInput{Query: "x", Sources: []Source{"cards"}}, errs.Invalid, `unknown source "cards" (valid: card, summary, note, workpad, idea, artifact, memory)`},
		{SearchInput{Query: strings.Repeat("搜", 201)}, errs.Invalid, "query is 201 characters; at most 200"},
	}
	for _, b := range bad {
		_, err := ix.Search(context.Background(), workspace.DefaultConfig().Board, b.in)
		if err == nil || errs.CodeOf(err) != b.code || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%+v: got %v", b.in, err)
		}
	}
	if _, err := ix.Search(context.Background(), workspace.DefaultConfig().Board, SearchInput{Query: strings.Repeat("搜", 200)}); err != nil {
		t.Errorf("200 characters are allowed: %v", err)
	}
}

// Memory stops at ten entries; truncated speaks of cards only.
func TestMemoryLimit(t *testing.T) {
	var doc map[string]any
	data, _ := os.ReadFile(fixturePath(t))
	json.Unmarshal(data, &doc)
	var mem []any
	for i := 0; i < 12; i++ {
		mem = append(mem, map[string]any{"id": "mm" + string(rune('a'+i)), "project": "p1", "kind": "fact", "title": "zebra fact", "body": "", "keywords": []string{}, "tags": []string{}, "status": "active", "confirmed_at": "2026-10-01T00:00:0" + string(rune('0'+i%10)) + "Z"})
	}
	doc["memory"] = mem
	data, _ = json.Marshal(doc)
	ix := load(t, newBoard(t, data))
	res := search(t, ix, "zebra")
	if len(res.Memory) != 10 || res.Truncated {
		t.Errorf("memory: %d entries, truncated %v", len(res.Memory), res.Truncated)
	}
}

func strPtr(s string) *string { return &s }
func intPtr(n int) *int       { return &n }

// Acceptance 7: an unreadable summaries or memory file leaves the rest and says so in partial.
func TestAcceptance7Partial(t *testing.T) {
	ws := newBoard(t, nil)
	if err := os.WriteFile(ws.Path(SummariesPath), []byte(`{"c1": [{"state": `), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := load(t, ws)
	res := search(t, ix, "迁移")
	if !reflect.DeepEqual(res.Partial, []string{"summaries"}) || len(res.Cards) == 0 || len(res.Memory) == 0 {
		t.Errorf("corrupt summaries: partial %v cards %v memory %v", res.Partial, cardIDs(res), memIDs(res))
	}
	if res := search(t, ix, "切换读路径"); len(res.Cards) != 0 {
		t.Errorf("summary text cannot be found when the file is unreadable")
	}
	if res := search(t, ix, "迁移", sources(SourceCard)); len(res.Partial) != 0 {
		t.Errorf("partial names only files the search needed: %v", res.Partial)
	}
	if err := os.WriteFile(ws.Path(MemoryPath), []byte(`[{"id": 5}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	res = search(t, load(t, ws), "迁移")
	if !reflect.DeepEqual(res.Partial, []string{"summaries", "memory"}) || len(res.Memory) != 0 || len(res.Cards) == 0 {
		t.Errorf("both corrupt: partial %v", res.Partial)
	}
}

// Acceptance 8: the agent view.
func TestAcceptance8Agent(t *testing.T) {
	ix := load(t, newBoard(t, nil))
	cfg := workspace.DefaultConfig().Board
	res, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c8", Query: "迁移"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cards) != 1 || res.Cards[0].TaskID != "c1" {
		t.Fatalf("own project only, own card excluded: %+v", res.Cards)
	}
	c := res.Cards[0]
	if c.Summary != "迁移进行中\n脚本写完了，测试通过。" || !reflect.DeepEqual(c.Tags, []string{"module/storage", "perf"}) {
		t.Errorf("summary %q tags %v", c.Summary, c.Tags)
	}
	data, _ := json.Marshal(res)
	if strings.Contains(string(data), "memory") || strings.Contains(string(data), "ranges") {
		t.Errorf("agent output has no memory and no ranges: %s", data)
	}
	res, err = ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c1", Query: "AGENTRECAP"})
	if err != nil || len(res.Cards) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if n := utf8.RuneCountInString(res.Cards[0].Summary); n != 400 || !strings.HasSuffix(res.Cards[0].Summary, "…") {
		t.Errorf("summary of %d characters: %q", n, res.Cards[0].Summary)
	}
	res, _ = ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c1", Query: "cache", Limit: intPtr(1)})
	if len(res.Cards) != 1 || res.Truncated {
		t.Errorf("limit 1: %+v", res)
	}
	if res, _ := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c9", Query: "Tinylink"}); len(res.Cards) != 0 {
		t.Errorf("project memory and other projects are never searched: %+v", res.Cards)
	}
	for _, in := range []AgentInput{
		{Card: "c8", Query: ""},
		{Card: "c8", Query: "x", Limit: intPtr(21)},
		{Card: "c8", Query: "x", Limit: intPtr(0)},
		{Card: "c8", Query: "x", Sources: []Source{SourceMemory}},
	} {
		if _, err := ix.AgentSearch(context.Background(), cfg, in); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("%+v: %v", in, err)
		}
	}
	// white space alone is within 1..200 characters and, as the query rules say, an empty result
	for _, q := range []string{"   ", "\u3000", " \t "} {
		res, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c8", Query: q})
		if err != nil || len(res.Cards) != 0 || res.Truncated {
			t.Errorf("query %q: %+v %v, want an empty result", q, res, err)
		}
	}
	if _, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "zz", Query: "  "}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("an empty query still checks the card: %v", err)
	}
	if _, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c30", Query: "x"}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("card of an archived project: %v", err)
	}
	if _, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "zz", Query: "x"}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("unknown card: %v", err)
	}
}

func TestParseQuery(t *testing.T) {
	cases := []struct {
		in          string
		terms, tags []string
	}{
		{"  迁移\u3000脚本  ", []string{"迁移", "脚本"}, nil},
		{`"带 空格 的短语" x`, []string{"带 空格 的短语", "x"}, nil},
		{`#Module/Storage SQLite sqlite`, []string{"sqlite"}, []string{"module/storage"}},
		{`# lone`, []string{"#", "lone"}, nil},
		{`tag:Backend rate #backend tag: "tag:x"`, []string{"rate", "tag:", "tag:x"}, []string{"backend"}},
		{`"unclosed phrase`, []string{"unclosed phrase"}, nil},
		{`"" a"b"`, []string{"a", "b"}, nil},
		{"ＳＱＬ", []string{"sql"}, nil},
	}
	for _, tc := range cases {
		q, err := ParseQuery(tc.in)
		if err != nil || !reflect.DeepEqual(q.Terms, tc.terms) || !reflect.DeepEqual(q.Tags, tc.tags) {
			t.Errorf("ParseQuery(%q) = %q %q %v", tc.in, q.Terms, q.Tags, err)
		}
	}
}

func TestImportValidation(t *testing.T) {
	ws := newBoard(t, nil)
	before, _ := os.ReadFile(ws.Path(SummariesPath))
	cases := map[string]string{
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"id":"c1","project":"p9","title":"t","status":"Todo","updated_at":"2026-10-20T08:00:00Z"}]}`: `cards[0] (id "c1"): project "p9" is not in projects`,
		`{"projects":[{"id":"p1","title":"x","colour":"red"}]}`:                                                                                                                                                      `projects[0]: unknown field "colour" (valid fields: id, title, archived, memory) (the format: docs/formats.md)`,
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"id":"c1","project":"p1","title":"t","status":"Todo","updated_at":"yesterday"}]}`:                                                                           `updated_at "yesterday" is not an RFC 3339 time`,
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"id":"c1","project":"p1","title":"t","status":"Todo","updated_at":"2026-10-20T08:00:00Z"}],"ideas":[{"id":"i1","card":"c1","title":"t","status":"maybe"}]}`: `ideas[0] (id "i1"): status "maybe" is not one of open, accepted, dismissed`,
		`{"memory":[{"id":"m1","project":"p1","status":"active"}]}`:                                                                                                                                                  `memory[0] (id "m1"): project "p1" is not in projects`,
		`{"summaries":{"c9":[]}}`:              `summaries["c9"]: card "c9" is not in cards`,
		`[1,2]`:                                `not the JSON object described in docs/formats.md: got an array, want an object`,
		`{"projects":[{"id":"p1","title":7}]}`: `projects[0]: title: got a number, want a string`,
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"id":"c1","project":"p1","projectId":"p1","title":"t","status":"Todo","updated_at":"2026-10-20T08:00:00Z"}]}`: `cards[0]: both "project" and "projectId" are given`,
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"taskId":"c1","id":"c1","project":"p1","title":"t","status":"Todo","updated_at":"2026-10-20T08:00:00Z"}]}`:    `both "id" and "taskId" are given`,
		`{"projects":[{"id":"p1","title":"x"}],"memory":[{"id":"m1","project":"p1","projectId":"p1","status":"active"}]}`:                                              `memory[0]: both "project" and "projectId" are given`,
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"id":"c1","projectId":"p2","title":"t","status":"Todo","updatedAt":"2026-10-20T08:00:00Z"}]}`:                 `cards[0] (id "c1"): project "p2" is not in projects`,
		`{"projects":[{"id":"p1","title":"x"}],"cards":[{"id":"c1","project":"p1","title":"t","status":"Todo","updated_at":"2026-10-20T08:00:00Z","colour":1}]}`:       `unknown field "colour" (valid fields: id, taskId, project, projectId, title, description, tags, type, status, archived, updated_at, updatedAt, workspace_id, workspaceId)`,
	}
	for doc, want := range cases {
		_, err := Import(context.Background(), ws, strings.NewReader(doc))
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s", doc, err, want)
		}
		// every refusal points at the page that describes the format
		if err != nil && !strings.Contains(err.Error(), formats.Doc) {
			t.Errorf("%s: %v does not name %s", doc, err, formats.Doc)
		}
	}
	after, _ := os.ReadFile(ws.Path(SummariesPath))
	if string(before) != string(after) {
		t.Errorf("a refused import changed summaries.json")
	}
	if res := search(t, load(t, ws), "迁移"); len(res.Cards) == 0 {
		t.Errorf("a refused import changed the board")
	}
}

func TestNoBoard(t *testing.T) {
	dir := t.TempDir()
	workspace.Init(dir)
	ws, _ := workspace.Open(dir, dir)
	if _, err := Load(context.Background(), ws); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("no board: %v", err)
	}
}

// A board held by an import (the exclusive lock) is STORAGE_BUSY once the wait runs out.
func TestBusyBoard(t *testing.T) {
	ws := newBoard(t, nil)
	lock, err := ws.LockNamed(context.Background(), lockName, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	other := *ws
	other.Wait = 50 * time.Millisecond
	if _, err := Load(context.Background(), &other); errs.CodeOf(err) != errs.Busy {
		t.Errorf("load under an import: %v", err)
	}
	if _, err := Import(context.Background(), &other, strings.NewReader(`{}`)); errs.CodeOf(err) != errs.Busy {
		t.Errorf("import under an import: %v", err)
	}
}

// A project without a "memory" key keeps its memory searchable; only "memory": false turns it off.
func TestProjectMemorySwitchDefaultsOn(t *testing.T) {
	doc := func(memory string) []byte {
		return []byte(`{"revision": 1,
			"projects": [{"id": "p1", "title": "Tinylink"` + memory + `}],
			"memory": [{"id": "m1", "project": "p1", "kind": "decision", "title": "迁移 uses WAL", "body": "b",
				"keywords": [], "tags": [], "status": "active", "confirmed_at": "2026-10-01T00:00:00Z"}]}`)
	}
	for memory, want := range map[string][]string{
		``:                  {"m1"},
		`, "memory": true`:  {"m1"},
		`, "memory": false`: {},
	} {
		got := memIDs(search(t, load(t, newBoard(t, doc(memory))), "迁移"))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("project%s: memory hits %v, want %v", memory, got, want)
		}
	}
}

// TestImportAliases: the spellings a search answer prints (projectId, taskId, updatedAt,
// workspaceId) import as the fields they name, and give the same board.
func TestImportAliases(t *testing.T) {
	plain := `{"projects":[{"id":"p1","title":"Tinylink"}],
		"cards":[{"id":"c1","project":"p1","title":"Storage migration","status":"Todo","updated_at":"2026-10-20T08:00:00Z","workspace_id":"w1"}],
		"memory":[{"id":"m1","project":"p1","title":"Use SQLite","status":"active"}]}`
	aliased := `{"projects":[{"id":"p1","title":"Tinylink"}],
		"cards":[{"taskId":"c1","projectId":"p1","title":"Storage migration","status":"Todo","updatedAt":"2026-10-20T08:00:00Z","workspaceId":"w1"}],
		"memory":[{"id":"m1","projectId":"p1","title":"Use SQLite","status":"active"}]}`
	a, err := parseDocument(context.Background(), []byte(plain), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseDocument(context.Background(), []byte(aliased), nil)
	if err != nil {
		t.Fatalf("aliases refused: %v", err)
	}
	if !reflect.DeepEqual(a.cards, b.cards) || b.cards[0].WorkspaceID != "w1" || b.cards[0].Project != "p1" {
		t.Errorf("aliased cards %+v, want %+v", b.cards, a.cards)
	}
	var mem []MemoryEntry
	if err := json.Unmarshal(b.memory, &mem); err != nil || len(mem) != 1 || mem[0].Project != "p1" {
		t.Errorf("aliased memory is stored as %s (%v), want the project field", b.memory, err)
	}
}
