package formats_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/importers"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The schemas are validated with github.com/google/jsonschema-go, already a dependency of cairn
// (the agent tools' input schemas): it implements draft 2020-12, which the schemas declare.

func resolve(t *testing.T, data []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema does not resolve: %v", err)
	}
	return rs
}

func instance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

func repo(p string) string { return filepath.Join("..", "..", p) }

func newWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	if _, err := workspace.Init(dir); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// spaceFixtures are every space import file under fixtures/.
func spaceFixtures(t *testing.T) []string {
	files, _ := filepath.Glob(repo("fixtures/*/space.jsonl"))
	more, _ := filepath.Glob(repo("fixtures/*/*/space.jsonl"))
	files = append(files, more...)
	if len(files) < 2 {
		t.Fatalf("found %d space fixtures, want fixtures/spaces and fixtures/demo", len(files))
	}
	return files
}

func boardFixtures(t *testing.T) []string {
	files, _ := filepath.Glob(repo("fixtures/*/board.json"))
	more, _ := filepath.Glob(repo("fixtures/*/*/board.json"))
	files = append(files, more...)
	if len(files) < 2 {
		t.Fatalf("found %d board fixtures, want fixtures/board and fixtures/demo", len(files))
	}
	return files
}

func validateLines(t *testing.T, rs *jsonschema.Resolved, name string, data []byte) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := rs.Validate(instance(t, line)); err != nil {
			t.Errorf("%s line %d does not match the space schema: %v\n%s", name, n, err, line)
		}
	}
}

func TestSchemasMatchFixturesAndExports(t *testing.T) {
	spaceRS := resolve(t, formats.SpaceSchema)
	boardRS := resolve(t, formats.BoardSchema)
	for _, f := range spaceFixtures(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		validateLines(t, spaceRS, f, data)
		ws := newWorkspace(t)
		st, err := spaces.Open(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Import(context.Background(), bytes.NewReader(data), 0, nil); err != nil {
			t.Fatal(err)
		}
		st.Close()
		var out bytes.Buffer
		if _, err := spaces.Export(context.Background(), ws, &out); err != nil {
			t.Fatalf("export of %s: %v", f, err)
		}
		validateLines(t, spaceRS, "export of "+f, out.Bytes())
	}
	for _, f := range boardFixtures(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := boardRS.Validate(instance(t, data)); err != nil {
			t.Errorf("%s does not match the board schema: %v", f, err)
		}
		ws := newWorkspace(t)
		if _, err := board.Import(context.Background(), ws, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := board.Export(context.Background(), ws, &out); err != nil {
			t.Fatalf("export of %s: %v", f, err)
		}
		if err := boardRS.Validate(instance(t, out.Bytes())); err != nil {
			t.Errorf("export of %s does not match the board schema: %v", f, err)
		}
	}
}

// TestSchemaMatchesImportedTrackers: a board holding the projects of every --from fixture exports
// a document the board schema accepts (their empty lists, null keywords and converted times too).
func TestSchemaMatchesImportedTrackers(t *testing.T) {
	rs := resolve(t, formats.BoardSchema)
	ws := newWorkspace(t)
	ctx := context.Background()
	gh := append(readFile(t, repo("fixtures/importers/github/issues.json")), readFile(t, repo("fixtures/importers/github/prs.json"))...)
	var pbs []*board.ProjectBoard
	pb, err := importers.GitHub("gh.json", gh, "")
	if err != nil {
		t.Fatal(err)
	}
	pbs = append(pbs, pb)
	if pb, err = importers.Beads("issues.jsonl", readFile(t, repo("fixtures/importers/beads/tinylink/.beads/issues.jsonl")), "tinylink"); err != nil {
		t.Fatal(err)
	}
	pbs = append(pbs, pb)
	if pb, err = importers.BacklogMD(repo("fixtures/importers/backlog-md/tinylink"), ""); err != nil {
		t.Fatal(err)
	}
	pbs = append(pbs, pb)
	cards := 0
	for _, pb := range pbs {
		if _, err := board.ImportProject(ctx, ws, pb); err != nil {
			t.Fatal(err)
		}
		cards += len(pb.Cards)
	}
	var out bytes.Buffer
	if _, err := board.Export(context.Background(), ws, &out); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out.Bytes(), []byte(`"updated_at"`)); n != cards {
		t.Fatalf("the export holds %d cards, the imports %d", n, cards)
	}
	if err := rs.Validate(instance(t, out.Bytes())); err != nil {
		t.Errorf("the export of the imported trackers does not match the board schema: %v", err)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSpaceSchemaAgreesWithImport: a line the importer refuses is refused by the schema too, and a
// line it takes is valid.
func TestSpaceSchemaAgreesWithImport(t *testing.T) {
	rs := resolve(t, formats.SpaceSchema)
	lines := map[string]bool{ // line → the importer takes it
		`{"type":"space","id":"sp1","name":"Tinylink","owner":"alice"}`:                                                            true,
		`{"type":"space","id":"sp1","name":"Tinylink"}`:                                                                            false,
		`{"type":"space","id":"s p","owner":"alice"}`:                                                                              false,
		`{"type":"space","id":"a:b","owner":"alice"}`:                                                                              false,
		`{"type":"space","id":"` + strings.Repeat("x", 201) + `","owner":"alice"}`:                                                 false,
		`{"type":"member","space":"sp1","user":"bob"}`:                                                                             true,
		`{"type":"member","space":"sp1","user":"  "}`:                                                                              false,
		`{"type":"task","id":12,"space":"sp1","title":"t","status":"completed","parent":null,"created_at":"2026-06-20T09:50:00Z"}`: true,
		`{"type":"task","id":12,"space":"sp1","task_title":"t"}`:                                                                   true,
		`{"type":"task","id":12,"space":"sp1","title":"t","task_title":"t"}`:                                                       false,
		`{"type":"task","id":12,"space":"sp1","created_at":"yesterday"}`:                                                           false,
		`{"type":"task","id":1.5,"space":"sp1"}`:                                                                                   false,
		`{"type":"comment","id":1,"task":12,"kind":"request","author":"u","created_at":"2026-06-20T10:00:00Z","body":"b"}`:         true,
		`{"type":"comment","id":1,"task":12,"kind":"request","created_at":"2026-06-20T10:00:00+09:00","attachments":["a.png"]}`:    true,
		`{"type":"comment","id":1,"task":12,"kind":"note","created_at":"2026-06-20T10:00:00Z"}`:                                    false,
		`{"type":"comment","id":1,"task":12,"kind":"request"}`:                                                                     false,
		`{"type":"comment","id":1,"task":12,"kind":"request","created_at":"2026-06-20T10:00:00Z","attachments":[""]}`:              false,
		`{"type":"comment","id":1,"task":12,"kind":"request","created_at":"2026-06-20T10:00:00Z","body":7}`:                        false,
		`{"type":"board","id":1}`: false,
		`{"id":1}`:                false,
	}
	for line, ok := range lines {
		ws := newWorkspace(t)
		st, err := spaces.Open(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := st.Import(context.Background(), strings.NewReader(line+"\n"), 0, nil)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if took := len(rep.BadLines) == 0; took != ok {
			t.Fatalf("import of %s: took %v (%v), the test says %v", line, took, rep.BadLines, ok)
		}
		if verr := rs.Validate(instance(t, []byte(line))); (verr == nil) != ok {
			t.Errorf("schema on %s: %v, want valid=%v", line, verr, ok)
		}
	}
}

// TestBoardSchemaAgreesWithImport is the same for board documents.
func TestBoardSchemaAgreesWithImport(t *testing.T) {
	rs := resolve(t, formats.BoardSchema)
	const p = `"projects":[{"id":"p1","title":"Tinylink"}]`
	card := func(fields string) string {
		return `{` + p + `,"cards":[{` + fields + `}]}`
	}
	const okCard = `"id":"c1","project":"p1","title":"t","status":"Todo","updated_at":"2026-10-20T08:00:00Z"`
	docs := map[string]bool{
		`{}`:              true,
		`{"revision":-1}`: false,
		`{"colour":1}`:    false,
		`[]`:              false,
		`{` + p + `}`:     true,
		card(okCard):      true,
		card(`"taskId":"c1","projectId":"p1","title":"t","status":"Todo","updatedAt":"2026-10-20T08:00:00Z","workspaceId":"w"`): true,
		card(okCard + `,"projectId":"p1"`):                     false,
		card(okCard + `,"taskId":"c1"`):                        false,
		card(okCard + `,"workspace_id":"w","workspaceId":"w"`): false,
		card(okCard + `,"colour":"red"`):                       false,
		card(okCard + `,"tags":["a",""]`):                      false,
		card(okCard + `,"tags":["a","b"]`):                     true,
		card(`"id":"c1","project":"p1","title":" ","status":"Todo","updated_at":"2026-10-20T08:00:00Z"`):                                false,
		card(`"id":"c1","project":"p1","title":"t","updated_at":"2026-10-20T08:00:00Z"`):                                                false,
		card(`"id":"c1","project":"p1","title":"t","status":"Todo","updated_at":"soon"`):                                                false,
		card(`"id":"c1","project":"p1","title":"t","status":"Todo"`):                                                                    false,
		`{` + p + `,"cards":[{` + okCard + `}],"workpads":[{"id":"w1","card":"c1","kind":"check","command":"go test"}]}`:                true,
		`{` + p + `,"cards":[{` + okCard + `}],"workpads":[{"id":"w1","card":"c1","kind":"question","command":"go test"}]}`:             false,
		`{` + p + `,"cards":[{` + okCard + `}],"workpads":[{"id":"w1","card":"c1","kind":"todo"}]}`:                                     false,
		`{` + p + `,"cards":[{` + okCard + `}],"ideas":[{"id":"i1","card":"c1","status":"maybe"}]}`:                                     false,
		`{` + p + `,"cards":[{` + okCard + `}],"ideas":[{"id":"i1","card":"c1","status":"open","at":""}]}`:                              true,
		`{` + p + `,"cards":[{` + okCard + `}],"events":[{"id":"e1","card":"c1","type":"status_changed","at":"2026-10-20T08:00:00Z"}]}`: true,
		`{` + p + `,"cards":[{` + okCard + `}],"events":[{"id":"e1","card":"c1","type":"status_changed"}]}`:                             false,
		`{` + p + `,"cards":[{` + okCard + `}],"summaries":{"c1":[{"recap":"r","at":"2026-10-20T08:00:00Z"}]}}`:                         true,
		`{` + p + `,"cards":[{` + okCard + `}],"summaries":{"c1":[{"recap":"r"}]}}`:                                                     false,
		`{` + p + `,"memory":[{"id":"m1","projectId":"p1","status":"active"}]}`:                                                         true,
		`{` + p + `,"memory":[{"id":"m1","project":"p1","projectId":"p1","status":"active"}]}`:                                          false,
		`{` + p + `,"memory":[{"id":"m1","project":"p1","status":"maybe"}]}`:                                                            false,
	}
	for doc, ok := range docs {
		ws := newWorkspace(t)
		_, err := board.Import(context.Background(), ws, strings.NewReader(doc))
		if (err == nil) != ok {
			t.Fatalf("import of %s: %v, the test says valid=%v", doc, err, ok)
		}
		if verr := rs.Validate(instance(t, []byte(doc))); (verr == nil) != ok {
			t.Errorf("schema on %s: %v, want valid=%v", doc, verr, ok)
		}
	}
}

func TestRename(t *testing.T) {
	al := []formats.Alias{{Field: "project", Alias: "projectId"}}
	out, err := formats.Rename([]byte(`{"id":"c1","projectId":"p1"}`), al)
	if err != nil || string(out) != `{"id":"c1","project":"p1"}` {
		t.Errorf("Rename = %s, %v", out, err)
	}
	in := []byte(`{"id":"c1","project":"p1"}`)
	if out, err := formats.Rename(in, al); err != nil || &out[0] != &in[0] {
		t.Errorf("Rename without an alias copied or failed: %s, %v", out, err)
	}
	if _, err := formats.Rename([]byte(`{"project":"p1","projectId":"p1"}`), al); err == nil || !strings.Contains(err.Error(), `both "project" and "projectId"`) {
		t.Errorf("both spellings: %v", err)
	}
}

// FuzzRename: any input either is refused for naming a field twice, or comes back unchanged, or
// comes back as an object without the alias that holds what the alias held.
func FuzzRename(f *testing.F) {
	for _, s := range []string{`{"projectId":"p1"}`, `{"project":"p","projectId":"q"}`, `["projectId"]`, `{"a":{"projectId":1}}`, `"projectId"`, `{`} {
		f.Add(s)
	}
	al := []formats.Alias{{Field: "project", Alias: "projectId"}}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := formats.Rename([]byte(s), al)
		if err != nil {
			if !strings.Contains(err.Error(), `both "project" and "projectId"`) {
				t.Fatalf("Rename(%q): %v", s, err)
			}
			return
		}
		if string(out) == s {
			return
		}
		var in, got map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &in) != nil || json.Unmarshal(out, &got) != nil {
			t.Fatalf("Rename(%q) = %q from or to something not an object", s, out)
		}
		if _, ok := got["projectId"]; ok {
			t.Fatalf("Rename(%q) = %q keeps the alias", s, out)
		}
		var a, b any
		json.Unmarshal(in["projectId"], &a)
		json.Unmarshal(got["project"], &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Rename(%q) = %q: project is not what projectId was", s, out)
		}
	})
}

// TestTypeName checks the JSON names of Go types that every decoding message uses.
func TestTypeName(t *testing.T) {
	type rec struct{ A int }
	for _, c := range []struct {
		t    reflect.Type
		want string
	}{
		{nil, "another type"},
		{reflect.TypeFor[string](), "a string"},
		{reflect.TypeFor[*string](), "a string"},
		{reflect.TypeFor[bool](), "true or false"},
		{reflect.TypeFor[int64](), "an integer"},
		{reflect.TypeFor[**uint8](), "an integer"},
		{reflect.TypeFor[float64](), "a number"},
		{reflect.TypeFor[rec](), "an object"},
		{reflect.TypeFor[*rec](), "an object"},
		{reflect.TypeFor[map[string]int](), "an object"},
		{reflect.TypeFor[[]string](), "a list of strings"},
		{reflect.TypeFor[[2]int](), "a list of integers"},
		{reflect.TypeFor[[]rec](), "a list of objects"},
		{reflect.TypeFor[[]json.RawMessage](), "a list of objects"},
		{reflect.TypeFor[[]bool](), "a list of true or false values"},
		{reflect.TypeFor[[][]string](), "a list of lists"},
		{reflect.TypeFor[[]any](), "a list"},
		{reflect.TypeFor[any](), "another type"},
	} {
		if got := formats.TypeName(c.t); got != c.want {
			t.Errorf("TypeName(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}

func TestMessageInPlacesSyntaxErrors(t *testing.T) {
	data := []byte("{\n  \"projects\": [\n    {\"id\": \"p1\", \"title\": x}\n  ]\n}")
	var v any
	err := json.Unmarshal(data, &v)
	got := formats.MessageIn(err, nil, data)
	if !strings.HasPrefix(got, "not valid JSON at line 3, column 27 (byte ") || !strings.Contains(got, "invalid character 'x'") {
		t.Errorf("MessageIn: %s", got)
	}
	if l, c := formats.Position([]byte("ab\ncdé"), 7); l != 2 || c != 4 {
		t.Errorf("Position = %d, %d", l, c)
	}
}
