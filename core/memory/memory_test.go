package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// fixtureWorkspace copies fixtures/memory into a temporary directory and opens it.
func fixtureWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "fixtures", "memory"))); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dst, dst)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func writeFile(t *testing.T, ws *workspace.Workspace, rel, content string) {
	t.Helper()
	p := ws.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ptr(n int) *int { return &n }

func wantCode(t *testing.T, err error, code errs.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code.Name())
	}
	if got := errs.CodeOf(err); got != code {
		t.Fatalf("want %s, got %s: %v", code.Name(), got.Name(), err)
	}
}

func TestValidateSlug(t *testing.T) {
	bad := []string{"", "../x", "..", ".", "a/b", "/abs", `a\b`, ".hidden", "tab\there", "nul\x00", "del\x7f", "c1\u0085", "\xff\xfe", strings.Repeat("a", 201)}
	for _, s := range bad {
		err := ValidateSlug(s)
		wantCode(t, err, errs.Invalid)
	}
	good := []string{"auth-flow", "認証トークンの保存", "数据库迁移指南", "a.b", "with space", "x:y", strings.Repeat("a", 200), strings.Repeat("あ", 66)}
	for _, s := range good {
		if err := ValidateSlug(s); err != nil {
			t.Errorf("ValidateSlug(%q) = %v", s, err)
		}
	}
}

func TestAddress(t *testing.T) {
	cases := []struct{ kind, slug, path string }{
		{"summary", "", "memory/summary.md"},
		{"summary", "summary", "memory/summary.md"},
		{"decision", "auth-flow", "memory/decisions/auth-flow.md"},
		{"request", "login-ui", "memory/requests/login-ui.md"},
		{"knowledge", "検索のコツ", "knowledge/検索のコツ.md"},
	}
	for _, c := range cases {
		_, _, rel, err := Address(c.kind, c.slug)
		if err != nil || rel != c.path {
			t.Errorf("Address(%q, %q) = %q, %v; want %q", c.kind, c.slug, rel, err, c.path)
		}
	}
	for _, c := range [][2]string{{"decisions", "x"}, {"summary", "other"}, {"decision", ""}, {"knowledge", "../cairn"}, {"", "x"}} {
		_, _, _, err := Address(c[0], c[1])
		wantCode(t, err, errs.Invalid)
	}
}

func TestResolveRef(t *testing.T) {
	ws := fixtureWorkspace(t)
	root, err := OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for ref, want := range map[string]Ref{
		"decision:auth-flow": {KindDecision, "auth-flow"},
		"#auth-flow":         {KindDecision, "auth-flow"},
		"#検索のコツ":             {KindKnowledge, "検索のコツ"},
		"summary":            {KindSummary, "summary"},
		"#summary":           {KindSummary, "summary"},
		"knowledge:x:y":      {KindKnowledge, "x:y"},
	} {
		got, err := ResolveRef(root, ref)
		if err != nil || got != want {
			t.Errorf("ResolveRef(%q) = %v, %v; want %v", ref, got, err, want)
		}
	}
	_, err = ResolveRef(root, "#auth-flw")
	wantCode(t, err, errs.NotFound)
	if !strings.Contains(err.Error(), "decision:auth-flow") {
		t.Errorf("no suggestion in %v", err)
	}
	writeFile(t, ws, "knowledge/auth-flow.md", "# same slug, other kind\n")
	_, err = ResolveRef(root, "#auth-flow")
	wantCode(t, err, errs.Invalid)
	if !strings.Contains(err.Error(), "decision:auth-flow, knowledge:auth-flow") {
		t.Errorf("ambiguity not listed: %v", err)
	}
	for _, ref := range []string{"#../x", "#", "decision:../x", "nope", "decision:"} {
		_, err := ResolveRef(root, ref)
		wantCode(t, err, errs.Invalid)
	}
}

func TestMemorySearchFixture(t *testing.T) {
	ws := fixtureWorkspace(t)
	res, err := MemorySearch(context.Background(), ws, SearchInput{Query: "oauth"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, fmt.Sprintf("%s %s %s:%d fm=%t", h.Kind, h.Slug, h.Path, h.Line, h.InFrontmatter))
	}
	want := []string{
		"decision auth-flow memory/decisions/auth-flow.md:6 fm=false",
		"decision auth-flow memory/decisions/auth-flow.md:15 fm=false",
		"decision 認証トークンの保存 memory/decisions/認証トークンの保存.md:11 fm=false",
		"request login-ui memory/requests/login-ui.md:16 fm=false",
		"summary summary memory/summary.md:8 fm=false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Truncated || len(res.Skipped) != 0 {
		t.Errorf("truncated=%t skipped=%v", res.Truncated, res.Skipped)
	}
	// Excerpt: three lines either side, clipped at the end of the file.
	last := res.Hits[3]
	if want := "\n## メモ\n\nＯＡｕｔｈ の画面文言は英語と日本語の両方を用意する。"; last.Excerpt != want {
		t.Errorf("excerpt %q, want %q", last.Excerpt, want)
	}
	if last.Lines.From != 13 || !reflect.DeepEqual(last.Lines.Matches, []int{16}) {
		t.Errorf("lines %+v", last.Lines)
	}
	for _, marker := range []string{"secret-workflow-marker", "secret-staging-marker", "hidden draft", "txt file"} {
		res, err := MemorySearch(context.Background(), ws, SearchInput{Query: marker})
		if err != nil || len(res.Hits) != 0 {
			t.Errorf("%q found in an excluded file: %+v %v", marker, res, err)
		}
	}
	// Frontmatter is searched and flagged.
	res, err = MemorySearch(context.Background(), ws, SearchInput{Query: "status: accepted"})
	if err != nil || len(res.Hits) != 3 || !res.Hits[0].InFrontmatter {
		t.Errorf("frontmatter hits %+v %v", res, err)
	}
}

func TestMemorySearchUnreadableExcludedDirs(t *testing.T) {
	ws := fixtureWorkspace(t)
	// Even unreadable, the excluded directories must not disturb search: they are never opened.
	for _, d := range []string{"memory/workflow", "memory/_staging"} {
		if err := os.Chmod(ws.Path(d), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ws.Path(d), 0o755) })
	}
	res, err := MemorySearch(context.Background(), ws, SearchInput{Query: "oauth"})
	if err != nil || len(res.Hits) != 5 || len(res.Skipped) != 0 {
		t.Errorf("%+v %v", res, err)
	}
}

func TestKnowledgeSearchFrontmatter(t *testing.T) {
	ws := fixtureWorkspace(t)
	res, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "kind:", Context: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Slug       string
		Kind, MI   any
		Line       int
		InFM       bool
		HasDescrip bool
	}
	var got []row
	for _, h := range res.Hits {
		got = append(got, row{h.Slug, h.Kind, h.ModelInvokation, h.Line, h.InFrontmatter, h.Description != nil})
	}
	want := []row{
		{"broken-frontmatter", nil, nil, 2, true, false},
		{"crlf-note", "windows", false, 2, true, true},
		{"deploy-runbook", "runbook", "on request", 2, true, true},
		{"go-testing", "howto", true, 2, true, true},
		{"oauth-errors", "reference", false, 2, true, true},
		{"数据库迁移指南", "howto", true, 2, true, true},
		{"検索のコツ", "tips", "auto", 2, true, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Broken frontmatter: fields null, body still searched.
	res, err = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "UNICORN-marker"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Kind != nil || res.Hits[0].InFrontmatter {
		t.Errorf("broken frontmatter: %+v %v", res, err)
	}
	// --kind keeps exact frontmatter kinds only.
	res, err = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "#", Kind: "howto"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Kind != "howto" {
			t.Errorf("kind filter let through %+v", h)
		}
	}
	if len(res.Hits) != 2 {
		t.Errorf("want 2 howto hits, got %+v", res.Hits)
	}
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "#", Kind: "HowTo"})
	if len(res.Hits) != 0 {
		t.Errorf("kind filter is not exact: %+v", res.Hits)
	}
	// CRLF lines come back without the carriage return; invalid UTF-8 is searched as bytes.
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "carriage", Context: ptr(1)})
	if len(res.Hits) != 1 || strings.Contains(res.Hits[0].Excerpt, "\r") {
		t.Errorf("crlf: %+v", res.Hits)
	}
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "legacy-marker"})
	if len(res.Hits) != 1 || res.Hits[0].Line != 3 {
		t.Errorf("latin1: %+v", res.Hits)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("invalid UTF-8 excerpt does not encode: %v", err)
	}
	// Full-width query against half-width text and the other way round.
	for _, q := range []string{"ＳＱＬＩＴＥ", "sqlite"} {
		res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: q, Context: ptr(0)})
		if len(res.Hits) != 3 {
			t.Errorf("%q: %d hits: %+v", q, len(res.Hits), res.Hits)
		}
	}
}

func TestSearchLimitsAndContext(t *testing.T) {
	ws := fixtureWorkspace(t)
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d needle\nfiller\nfiller\nfiller\nfiller\nfiller\nfiller\nfiller\n", i)
	}
	writeFile(t, ws, "knowledge/many.md", b.String())
	res, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "NEEDLE"})
	if err != nil || len(res.Hits) != 20 || !res.Truncated {
		t.Fatalf("default limit: %d hits, truncated=%t, %v", len(res.Hits), res.Truncated, err)
	}
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "needle", Limit: ptr(30)})
	if len(res.Hits) != 30 || res.Truncated {
		t.Errorf("limit 30: %d hits, truncated=%t", len(res.Hits), res.Truncated)
	}
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "needle", Limit: ptr(500), Context: ptr(4)})
	if len(res.Hits) != 1 || res.Truncated {
		t.Errorf("context 4 joins every match (8 lines apart): %d hits", len(res.Hits))
	}
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "needle", Limit: ptr(5), Context: ptr(0)})
	if len(res.Hits) != 5 || res.Hits[0].Excerpt != "line 1 needle" {
		t.Errorf("context 0: %+v", res.Hits)
	}
	ws.Config.Memory.SearchHitLimit = 2
	ws.Config.Memory.SearchExcerptLines = 1
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "needle"})
	if len(res.Hits) != 2 || !res.Truncated || res.Hits[0].Excerpt != "line 1 needle\nfiller" {
		t.Errorf("manifest limits: %+v", res)
	}
	for _, in := range []KnowledgeSearchInput{{Query: "  "}, {Query: ""}, {Query: "x", Limit: ptr(0)}, {Query: "x", Limit: ptr(501)}, {Query: "x", Context: ptr(21)}, {Query: "x", Context: ptr(-1)}, {Query: "a\nb"}} {
		_, err := KnowledgeSearch(context.Background(), ws, in)
		wantCode(t, err, errs.Invalid)
	}
	_, err = MemorySearch(context.Background(), ws, SearchInput{Query: "x", Kind: "howto"})
	wantCode(t, err, errs.Invalid)
}

func TestSearchSkipsOversizeAndSymlinks(t *testing.T) {
	ws := fixtureWorkspace(t)
	big := strings.Repeat("OAuth big file line\n", MaxSearchFileSize/20+1)
	writeFile(t, ws, "knowledge/huge.md", big)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("OAuth outside-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join(outside, "secret.md"), ws.Path("knowledge/outside.md"))
	mustSymlink(t, "../../../secret.md", ws.Path("knowledge/outside-rel.md"))
	mustSymlink(t, "../memory/workflow/retro-notes.md", ws.Path("knowledge/into-workflow.md"))
	mustSymlink(t, "oauth-errors.md", ws.Path("knowledge/alias.md"))
	mustSymlink(t, "missing.md", ws.Path("knowledge/dangling.md"))
	res, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "oauth", Context: ptr(0), Limit: ptr(500)})
	if err != nil {
		t.Fatal(err)
	}
	wantSkipped := []string{"knowledge/huge.md", "knowledge/into-workflow.md", "knowledge/outside-rel.md", "knowledge/outside.md"}
	if !reflect.DeepEqual(res.Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", res.Skipped, wantSkipped)
	}
	seenAlias := false
	for _, h := range res.Hits {
		if strings.Contains(h.Excerpt, "outside-secret") || strings.Contains(h.Excerpt, "secret-workflow") {
			t.Errorf("read through a symlink it must not follow: %+v", h)
		}
		seenAlias = seenAlias || h.Slug == "alias"
	}
	if !seenAlias {
		t.Errorf("a symlink inside the workspace should be searched")
	}
	// When the hit limit cuts the scan short, files after the cut are not reported.
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "oauth", Limit: ptr(1)})
	if !res.Truncated || len(res.Skipped) != 0 {
		t.Errorf("truncated=%t skipped=%v", res.Truncated, res.Skipped)
	}
	res, _ = KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "oauth", Limit: ptr(3), Context: ptr(0)})
	if !res.Truncated || !reflect.DeepEqual(res.Skipped, wantSkipped[:2]) {
		t.Errorf("truncated=%t skipped=%v", res.Truncated, res.Skipped)
	}

	_, err = MemoryRead(context.Background(), ws, ReadInput{Kind: "knowledge", Slug: "outside"})
	wantCode(t, err, errs.Invalid)
	_, err = MemoryRead(context.Background(), ws, ReadInput{Kind: "knowledge", Slug: "into-workflow"})
	wantCode(t, err, errs.Invalid)
	if r, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "knowledge", Slug: "alias"}); err != nil || !strings.Contains(r.Content, "device flow") {
		t.Errorf("read through inner symlink: %v", err)
	}
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "knowledge", Slug: "outside", Content: "pwned"})
	wantCode(t, err, errs.Invalid)
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "knowledge", Slug: "outside", Old: "OAuth", New: "pwned"})
	wantCode(t, err, errs.Invalid)
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(data) != "OAuth outside-secret\n" {
		t.Errorf("file outside the workspace changed: %q", data)
	}
}

func TestDirectorySymlinkOutside(t *testing.T) {
	ws := fixtureWorkspace(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.md"), []byte("OAuth outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(ws.Path("memory/requests")); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, outside, ws.Path("memory/requests"))
	res, err := MemorySearch(context.Background(), ws, SearchInput{Query: "oauth outside"})
	if err != nil || len(res.Hits) != 0 || !reflect.DeepEqual(res.Skipped, []string{"memory/requests/"}) {
		t.Errorf("%+v %v", res, err)
	}
	_, err = MemoryRead(context.Background(), ws, ReadInput{Kind: "request", Slug: "x"})
	wantCode(t, err, errs.Invalid)
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "request", Slug: "new", Content: "x"})
	if err == nil {
		t.Errorf("write through a directory symlink leaving the workspace succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.md")); err == nil {
		t.Errorf("wrote outside the workspace")
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestSearchHitsReadBack(t *testing.T) {
	ws := fixtureWorkspace(t)
	for _, q := range []string{"#", "の", "OAuth", "迁移"} {
		mres, err := MemorySearch(context.Background(), ws, SearchInput{Query: q, Limit: ptr(500)})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range mres.Hits {
			r, err := MemoryRead(context.Background(), ws, ReadInput{Kind: string(h.Kind), Slug: h.Slug})
			if err != nil || r.Path != h.Path {
				t.Errorf("hit %s:%s does not read back: %v", h.Kind, h.Slug, err)
			}
		}
		kres, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: q, Limit: ptr(500)})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range kres.Hits {
			if _, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "knowledge", Slug: h.Slug}); err != nil {
				t.Errorf("knowledge hit %s does not read back: %v", h.Slug, err)
			}
		}
	}
}

func TestReadWriteEdit(t *testing.T) {
	ws := fixtureWorkspace(t)
	w, err := MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "キャッシュ方針", Content: "---\nkind:  odd   spacing\n---\nTTL is 5 minutes.\nTTL again.\n"})
	if err != nil || !w.Created || w.Bytes != 58 || w.Path != "memory/decisions/キャッシュ方針.md" {
		t.Fatalf("write: %+v %v", w, err)
	}
	r, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "decision", Slug: "キャッシュ方針"})
	if err != nil || r.SHA256 != SHA256([]byte(r.Content)) {
		t.Fatalf("read: %+v %v", r, err)
	}
	// Ambiguous edit: refused with the count, file untouched.
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "キャッシュ方針", Old: "TTL", New: "Lifetime"})
	wantCode(t, err, errs.Invalid)
	if !strings.Contains(err.Error(), "2 times") {
		t.Errorf("count missing: %v", err)
	}
	if after, _ := os.ReadFile(ws.Path(w.Path)); string(after) != r.Content {
		t.Errorf("ambiguous edit changed the file")
	}
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "キャッシュ方針", Old: "absent", New: "x"})
	wantCode(t, err, errs.Invalid)
	e, err := MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "キャッシュ方針", Old: "5 minutes", New: "10 minutes", ExpectSHA256: strings.ToUpper(r.SHA256)})
	if err != nil || e.Replacements != 1 {
		t.Fatalf("edit: %+v %v", e, err)
	}
	after, _ := os.ReadFile(ws.Path(w.Path))
	if string(after) != "---\nkind:  odd   spacing\n---\nTTL is 10 minutes.\nTTL again.\n" {
		t.Errorf("edit reformatted the file: %q", after)
	}
	// Stale sha: refused, nothing written.
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "キャッシュ方針", Old: "again", New: "stale", ExpectSHA256: r.SHA256})
	wantCode(t, err, errs.Invalid)
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "キャッシュ方針", Content: "stale", ExpectSHA256: r.SHA256})
	wantCode(t, err, errs.Invalid)
	if now, _ := os.ReadFile(ws.Path(w.Path)); string(now) != string(after) {
		t.Errorf("stale write changed the file")
	}
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "キャッシュ方針", Content: "x", ExpectSHA256: "xyz"})
	wantCode(t, err, errs.Invalid)
	e, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "キャッシュ方針", Old: "TTL", New: "Lifetime", All: true})
	if err != nil || e.Replacements != 2 {
		t.Fatalf("edit --all: %+v %v", e, err)
	}
	w, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "キャッシュ方針", Content: "replaced\n", ExpectSHA256: SHA256(mustRead(t, ws, w.Path))})
	if err != nil || w.Created {
		t.Fatalf("replace: %+v %v", w, err)
	}
	// The summary and new directories.
	if err := os.RemoveAll(ws.Path("memory/requests")); err != nil {
		t.Fatal(err)
	}
	if w, err := MemoryWrite(context.Background(), ws, WriteInput{Kind: "request", Slug: "new-one", Content: "hi\n"}); err != nil || !w.Created {
		t.Errorf("write creates the directory: %+v %v", w, err)
	}
	if r, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "summary"}); err != nil || r.Slug != "summary" || r.Path != "memory/summary.md" {
		t.Errorf("summary: %+v %v", r, err)
	}
	// No temp files are left behind.
	ents, _ := os.ReadDir(ws.Path("memory/decisions"))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func mustRead(t *testing.T, ws *workspace.Workspace, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(ws.Path(rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestNotFoundSuggestions(t *testing.T) {
	ws := fixtureWorkspace(t)
	_, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "decision", Slug: "auth"})
	wantCode(t, err, errs.NotFound)
	if !strings.Contains(err.Error(), "did you mean auth-flow?") {
		t.Errorf("suggestion: %v", err)
	}
	_, err = MemoryRead(context.Background(), ws, ReadInput{Kind: "knowledge", Slug: "oauth"})
	if !strings.Contains(err.Error(), "oauth-errors") {
		t.Errorf("suggestion: %v", err)
	}
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "request", Slug: "login", Old: "a", New: "b"})
	wantCode(t, err, errs.NotFound)
	if !strings.Contains(err.Error(), "login-ui") {
		t.Errorf("suggestion: %v", err)
	}
	for _, slug := range []string{"../x", "..", "a/b", "/abs", ".hidden", "a\x01b"} {
		_, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "decision", Slug: slug})
		wantCode(t, err, errs.Invalid)
		_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: slug, Content: "x"})
		wantCode(t, err, errs.Invalid)
	}
}

// TestConcurrentEdits runs 40 editors at once on one file; each takes the real flock (a separate
// open file description per editor), so none may lose another's update.
func TestConcurrentEdits(t *testing.T) {
	ws := fixtureWorkspace(t)
	ws.Wait = 30 * time.Second
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "slot %02d: todo\n", i)
	}
	writeFile(t, ws, "memory/decisions/counter.md", b.String())
	var wg sync.WaitGroup
	errc := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "counter", Old: fmt.Sprintf("slot %02d: todo", i), New: fmt.Sprintf("slot %02d: done", i)})
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Error(err)
		}
	}
	data := string(mustRead(t, ws, "memory/decisions/counter.md"))
	if n := strings.Count(data, ": done"); n != 40 || strings.Contains(data, "todo") {
		t.Errorf("lost updates: %d done\n%s", n, data)
	}
}

func TestParseFrontmatter(t *testing.T) {
	cases := []struct {
		in       string
		kind, mi any
		end      int
	}{
		{"---\nkind: howto\nmodel_invokation: true\n---\nbody", "howto", true, 4},
		{"---\nkind: howto\nmodel_invocation: true\n---\nbody", "howto", true, 4},
		{"---\nkind: howto\nmodel_invocation: false\nmodel_invokation: true\n---\nbody", "howto", true, 5},
		{"\xef\xbb\xbf---\r\nkind: a\r\n---\r\n", "a", nil, 3},
		{"---\nkind: [broken\n---\n", nil, nil, 3},
		{"---\nkind: x\n", nil, nil, 0},
		{"no frontmatter\n---\nkind: x\n---\n", nil, nil, 0},
		{"---\n---\n", nil, nil, 2},
		{"---\n- a list\n---\n", nil, nil, 3},
		{"---\nkind: 3\nmodel_invokation: {when: always}\n---", json.Number("3"), map[string]any{"when": "always"}, 4},
		{"---\nmodel_invokation: .inf\n---", nil, ".inf", 3},
		{"---\nkind: first\nkind: second\n---", "first", nil, 4},
		// scalars as written: no date or number reformatting
		{"---\nkind: 2026-01-01\nmodel_invokation: 1.0\n---", "2026-01-01", json.Number("1.0"), 4},
		{"---\nkind: 2026-01-01T10:00:00+09:00\nmodel_invokation: [1.50, 0x1F, 007, yes, true, ~]\n---", "2026-01-01T10:00:00+09:00",
			[]any{json.Number("1.50"), "0x1F", "007", "yes", true, nil}, 4},
		{"---\nkind: \"1.0\"\nmodel_invokation: {a: 1e3, b: !!binary aGk=}\n---", "1.0", map[string]any{"a": json.Number("1e3"), "b": "aGk="}, 4},
		{"---\nkind: ~\nmodel_invokation: &m {x: 2.0}\ndescription: {<<: *m, y: 1}\n---", nil, map[string]any{"x": json.Number("2.0")}, 5},
	}
	for _, c := range cases {
		fm := ParseFrontmatter([]byte(c.in))
		if !reflect.DeepEqual(fm.Kind, c.kind) || !reflect.DeepEqual(fm.ModelInvokation, c.mi) || fm.EndLine != c.end {
			t.Errorf("ParseFrontmatter(%q) = %+v", c.in, fm)
		}
	}
	fm := ParseFrontmatter([]byte("---\nkind: ~\nmodel_invokation: &m {x: 2.0, y: 3}\ndescription: {<<: *m, y: 1}\n---"))
	if want := map[string]any{"x": json.Number("2.0"), "y": json.Number("1")}; !reflect.DeepEqual(fm.Description, want) {
		t.Errorf("merge key: %+v, want %+v", fm.Description, want)
	}
	bomb := "---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\nkind: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n---"
	if fm := ParseFrontmatter([]byte(bomb)); fm.Kind != nil || fm.EndLine != 7 {
		t.Errorf("alias bomb: %+v", fm.EndLine)
	}
	data, _ := json.Marshal(ParseFrontmatter([]byte("---\nkind: 2026-01-01\nmodel_invokation: 1.0\n---")))
	if !strings.Contains(string(data), `"Kind":"2026-01-01"`) || !strings.Contains(string(data), `"ModelInvokation":1.0`) {
		t.Errorf("JSON of the fields: %s", data)
	}
}

// --kind matches the kind as written in the file, whatever YAML type it has.
func TestKnowledgeSearchKindAsWritten(t *testing.T) {
	ws := fixtureWorkspace(t)
	for name, kind := range map[string]string{"dated": "2026-01-01", "versioned": "1.0", "flag": "true", "text": "howto", "quoted": `"2026-01-01"`} {
		writeFile(t, ws, "knowledge/zz-"+name+".md", "---\nkind: "+kind+"\n---\nbody zz-marker\n")
	}
	for kind, want := range map[string]string{"2026-01-01": "zz-dated,zz-quoted", "1.0": "zz-versioned", "1": "", "true": "zz-flag", "howto": "zz-text", "2026-01-01T00:00:00Z": ""} {
		res, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "zz-marker", Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Slug)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("--kind %s: %v, want %s", kind, got, want)
		}
	}
	res, _ := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "zz-marker", Kind: "1.0"})
	if data, _ := json.Marshal(res.Hits); !strings.Contains(string(data), `"kind":1.0`) {
		t.Errorf("kind 1.0 not returned as written: %s", data)
	}
}

func FuzzFrontmatter(f *testing.F) {
	f.Add("---\nkind: howto\ndescription: x\nmodel_invokation: true\n---\nbody")
	f.Add("---\nkind: &a [*a]\n---\n")
	f.Add("---\nmodel_invokation: {? [a]: b}\n---\n")
	f.Add("---\r\nkind: !!binary aGVsbG8=\r\n---")
	f.Fuzz(func(t *testing.T, s string) {
		fm := ParseFrontmatter([]byte(s))
		if _, err := json.Marshal([]any{fm.Kind, fm.Description, fm.ModelInvokation}); err != nil {
			t.Fatalf("fields do not encode as JSON: %v (%+v)", err, fm)
		}
		if fm.EndLine < 0 || fm.EndLine == 1 || fm.EndLine > strings.Count(s, "\n")+1 {
			t.Fatalf("end line %d out of range", fm.EndLine)
		}
	})
}

func TestDidYouMeanTypos(t *testing.T) {
	cands := []string{"link-expiry", "link-stats", "auth-flow", "認証トークンの保存"}
	for slug, want := range map[string]string{
		"link-expire":  "link-expiry",
		"auth":         "auth-flow",
		"認証トークン保存":     "認証トークンの保存",
		"completely-x": "",
	} {
		got := didYouMean(slug, cands, false)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("didYouMean(%q) = %q, want %q", slug, got, want)
		}
	}
	if got := didYouMean("link", cands, false); got != "; did you mean link-stats, link-expiry?" {
		t.Errorf("ranking: %q", got)
	}
}

func TestWriteWaitsForTheLock(t *testing.T) {
	ws := fixtureWorkspace(t)
	held, err := ws.LockNamed(context.Background(), "memory", true)
	if err != nil {
		t.Fatal(err)
	}
	ws.Wait = 50 * time.Millisecond
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "blocked", Content: "x"})
	wantCode(t, err, errs.Busy)
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "auth-flow", Old: "OAuth 2.0", New: "OAuth 2.1"})
	wantCode(t, err, errs.Busy)
	if _, err := os.Stat(ws.Path("memory/decisions/blocked.md")); err == nil {
		t.Errorf("wrote without the lock")
	}
	held.Unlock()
	if _, err := MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "blocked", Content: "x"}); err != nil {
		t.Errorf("after unlock: %v", err)
	}
}
