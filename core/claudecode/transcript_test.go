package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func fixtures(t testing.TB, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", name)
}

const tinylink = "-home-me-src-tinylink"
const mainSession = "5d0c1a2e-7f3b-4c55-9a10-2b1e8c4d9f01"

func readAll(t *testing.T, path string, start int64, startLine int) ([]Comment, Info) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(start, 0); err != nil {
		t.Fatal(err)
	}
	var cs []Comment
	info, err := Read(f, start, startLine, func(c Comment) error { cs = append(cs, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return cs, info
}

// TestReadMapsKinds checks the mapping of every record shape of the hand-written transcript.
func TestReadMapsKinds(t *testing.T) {
	path := filepath.Join(fixtures(t, "claude-projects"), tinylink, mainSession+".jsonl")
	cs, info := readAll(t, path, 0, 0)
	type row struct{ id, kind, pt, tool, author string }
	var got []row
	for _, c := range cs {
		got = append(got, row{c.ID, c.Kind, c.ProgressType, c.ToolName, c.Author})
	}
	want := []row{
		{"11111111-0000-4000-8000-000000000004", "request", "", "", "user"},
		{"22222222-0000-4000-8000-000000000001", "progress", "thinking", "", "agent"},
		{"22222222-0000-4000-8000-000000000002", "progress", "tool", "Read", "agent"},
		{"22222222-0000-4000-8000-000000000003", "progress", "tool", "Bash", "agent"},
		{"11111111-0000-4000-8000-000000000007", "request", "", "", "user"},
		{"22222222-0000-4000-8000-000000000004", "progress", "tool", "Task", "agent"},
		{"11111111-0000-4000-8000-000000000009", "progress", "summary", "", "agent"},
		{"22222222-0000-4000-8000-000000000005", "result", "", "", "agent"},
		{"11111111-0000-4000-8000-000000000010", "request", "", "", "user"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("comments:\n got %v\nwant %v", got, want)
	}
	byID := map[string]Comment{}
	for _, c := range cs {
		byID[c.ID] = c
	}
	if b := byID["11111111-0000-4000-8000-000000000010"].Body; b != "/review the login diff" {
		t.Errorf("slash command with arguments: body %q", b)
	}
	img := byID["11111111-0000-4000-8000-000000000007"]
	if img.Body != "このモックの通りにしてください" || !reflect.DeepEqual(img.Attachments, []string{"image-1.jpeg"}) {
		t.Errorf("prompt with an image: %q %v", img.Body, img.Attachments)
	}
	if b := byID["22222222-0000-4000-8000-000000000002"].Body; b != `{"file_path":"/home/me/src/tinylink/web/login.tsx"}` {
		t.Errorf("tool call body is its input: %q", b)
	}
	for _, c := range cs {
		for _, noise := range []string{"hunter2", "No such file", "Set model", "Caveat", "API Error", "interrupted", "/init", "Conversation compacted"} {
			if strings.Contains(c.Body, noise) {
				t.Errorf("comment %s carries %q, which is a tool result, metadata or noise: %q", c.ID, noise, c.Body)
			}
		}
		if c.CreatedAt == "" || !strings.HasSuffix(c.CreatedAt, "Z") {
			t.Errorf("comment %s: created_at %q", c.ID, c.CreatedAt)
		}
	}
	if info.FirstPrompt != "ログイン画面の改修をお願いします。" {
		t.Errorf("first prompt %q", info.FirstPrompt)
	}
	if info.Summary != "Login screen rework without touching auth" || info.CWD != "/home/me/src/tinylink" || info.SessionID != mainSession {
		t.Errorf("info %+v", info)
	}
	if info.CreatedAt != "2026-06-20T10:00:00Z" {
		t.Errorf("created_at %q", info.CreatedAt)
	}
	data, _ := os.ReadFile(path)
	if info.Offset != int64(len(data)) || info.Lines != bytes.Count(data, []byte("\n")) || len(info.Bad) != 0 {
		t.Errorf("offset %d of %d, lines %d, bad %v", info.Offset, len(data), info.Lines, info.Bad)
	}
}

// TestReadRealTranscripts reads transcripts Claude Code wrote: every prompt and every tool call
// (counted here from the raw JSON) becomes a comment, and no tool result text does.
func TestReadRealTranscripts(t *testing.T) {
	files, err := Find([]string{fixtures(t, "claude-code-real")})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found %d transcripts", len(files))
	}
	agents := 0
	for _, f := range files {
		if f.Agent != "" {
			agents++
		}
		cs, info := readAll(t, f.Path, 0, 0)
		if len(info.Bad) != 0 {
			t.Errorf("%s: bad lines %v", f.Path, info.Bad)
		}
		var prompts, tools []string
		var results []string
		raw, _ := os.ReadFile(f.Path)
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var l map[string]any
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			msg, _ := l["message"].(map[string]any)
			if msg == nil || l["isMeta"] == true {
				continue
			}
			switch content := msg["content"].(type) {
			case string:
				if l["type"] == "user" && !strings.HasPrefix(strings.TrimSpace(content), "<") && l["isCompactSummary"] != true {
					prompts = append(prompts, content)
				}
			case []any:
				for _, b := range content {
					bm := b.(map[string]any)
					switch bm["type"] {
					case "tool_use":
						tools = append(tools, bm["name"].(string))
					case "tool_result":
						if s, ok := bm["content"].(string); ok && len(s) > 12 {
							results = append(results, s)
						}
					}
				}
			}
		}
		var gotPrompts, gotTools []string
		for _, c := range cs {
			switch {
			case c.Kind == "request":
				gotPrompts = append(gotPrompts, c.Body)
			case c.ProgressType == "tool":
				gotTools = append(gotTools, c.ToolName)
			}
			for _, r := range results {
				if strings.Contains(c.Body, r) {
					t.Errorf("%s: comment %s holds a tool result %q", f.Path, c.ID, r)
				}
			}
		}
		if !reflect.DeepEqual(gotPrompts, prompts) || !reflect.DeepEqual(gotTools, tools) {
			t.Errorf("%s:\nprompts %q, want %q\ntools %q, want %q", f.Path, gotPrompts, prompts, gotTools, tools)
		}
		if len(prompts) == 0 || info.FirstPrompt != firstLine(prompts[0]) {
			t.Errorf("%s: first prompt %q of %q", f.Path, info.FirstPrompt, prompts)
		}
	}
	if agents == 0 {
		t.Errorf("no subagent transcript among %v", files)
	}
}

// TestReadTornLine: a last line without its newline that is not yet JSON is left for the next
// read, which resumes at Info.Offset and numbers lines on.
func TestReadTornLine(t *testing.T) {
	l1 := `{"type":"user","uuid":"a","timestamp":"2026-06-20T10:00:00Z","message":{"content":"first prompt"}}` + "\n"
	l2 := `{"type":"assistant","uuid":"b","timestamp":"2026-06-20T10:00:01Z","message":{"model":"m","content":[{"type":"text","text":"an answer"}]}}` + "\n"
	torn := l2[:40]
	var cs []Comment
	emit := func(c Comment) error { cs = append(cs, c); return nil }
	info, err := Read(strings.NewReader(l1+torn), 0, 0, emit)
	if err != nil {
		t.Fatal(err)
	}
	if info.Offset != int64(len(l1)) || info.Lines != 1 || len(cs) != 1 || len(info.Bad) != 0 {
		t.Fatalf("torn read: %+v, %d comments", info, len(cs))
	}
	info, err = Read(strings.NewReader(l2+"not json\n"), info.Offset, info.Lines, emit)
	if err != nil {
		t.Fatal(err)
	}
	if info.Offset != int64(len(l1)+len(l2)+len("not json\n")) || info.Lines != 3 || len(cs) != 2 || cs[1].Kind != "result" {
		t.Fatalf("resumed read: %+v, %+v", info, cs)
	}
	if len(info.Bad) != 1 || info.Bad[0].Line != 3 {
		t.Fatalf("a complete line that is not JSON is reported by number: %+v", info.Bad)
	}
}

func TestFindClassifies(t *testing.T) {
	root := fixtures(t, "claude-projects")
	files, err := Find([]string{root, filepath.Join(root, tinylink, mainSession+".jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Project+" "+f.Session+" "+f.Agent)
	}
	want := []string{
		tinylink + " " + mainSession + " ",
		tinylink + " " + mainSession + " a1b2c3d4",
		tinylink + " 9e8f7a6b-1111-4222-8333-444455556666 ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if _, err := Find([]string{filepath.Join(root, "nope")}); err == nil {
		t.Error("a missing path is an error")
	}
	if _, err := Find([]string{filepath.Join(fixtures(t, "claude-code-real"), "-home-user-project", "bfb4ebbb-e144-4b73-9d51-dcfffd0a60b3", "subagents", "agent-ac4a63fdc7fe3cacb.meta.json")}); err == nil || !strings.Contains(err.Error(), "not a Claude Code transcript") {
		t.Errorf("a file that is not .jsonl: %v", err)
	}
}

func TestAgentDescription(t *testing.T) {
	dir := filepath.Join(fixtures(t, "claude-code-real"), "-home-user-project", "bfb4ebbb-e144-4b73-9d51-dcfffd0a60b3", "subagents")
	if d := AgentDescription(filepath.Join(dir, "agent-ac4a63fdc7fe3cacb.jsonl")); d != "Research task storage" {
		t.Errorf("description %q", d)
	}
	if d := AgentDescription(filepath.Join(dir, "agent-none.jsonl")); d != "" {
		t.Errorf("no meta file: %q", d)
	}
}

// FuzzRead: any input reads without panicking; the offset stays within the input and ends on a
// line boundary (or the end); every comment has an id, a kind and a UTC time.
func FuzzRead(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(fixtures(f, "claude-projects"), tinylink, mainSession+".jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"user","uuid":"u","timestamp":"2026-01-01T00:00:00+09:00","message":{"content":[{"type":"image"},{"type":"text","text":"<command-name>/x</command-name><command-args>y"}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		info, err := Read(bytes.NewReader(in), 0, 0, func(c Comment) error {
			if c.ID == "" || c.Kind == "" || !strings.HasSuffix(c.CreatedAt, "Z") {
				t.Fatalf("comment %+v", c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if info.Offset < 0 || info.Offset > int64(len(in)) || (info.Offset > 0 && info.Offset < int64(len(in)) && in[info.Offset-1] != '\n') {
			t.Fatalf("offset %d of %d", info.Offset, len(in))
		}
	})
}

// TestFindThroughLink: a folder given through a symbolic link is walked.
func TestFindThroughLink(t *testing.T) {
	link := filepath.Join(t.TempDir(), "projects")
	if err := os.Symlink(fixtures(t, "claude-projects"), link); err != nil {
		t.Skip(err)
	}
	files, err := Find([]string{link})
	if err != nil || len(files) != 3 {
		t.Fatalf("%d files, %v", len(files), err)
	}
}

// FuzzTopType: the quick scan agrees with encoding/json whenever it answers.
func FuzzTopType(f *testing.F) {
	for _, dir := range []string{"claude-projects", "claude-code-real"} {
		files, err := Find([]string{fixtures(f, dir)})
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, _ := os.ReadFile(file.Path)
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(l) > 0 {
					f.Add(l)
				}
			}
		}
	}
	f.Add([]byte(`{"a":[1,{"type":"x"}],"type":"attachment"}`))
	f.Add([]byte(`{"t\"ype":"x","type":"y"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		typ, ok := topType(in)
		if !ok {
			return
		}
		var v map[string]any
		if err := json.Unmarshal(in, &v); err != nil {
			return // not JSON: the line is then decoded in full and reported, or skipped as housekeeping
		}
		if got, _ := v["type"].(string); got != typ {
			t.Fatalf("topType %q, encoding/json %q", typ, got)
		}
	})
}

// FuzzOnlyToolResults: a line the quick scan passes over as tool results only would give no
// comment if it were decoded in full.
func FuzzOnlyToolResults(f *testing.F) {
	for _, dir := range []string{"claude-projects", "claude-code-real"} {
		files, err := Find([]string{fixtures(f, dir)})
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, _ := os.ReadFile(file.Path)
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(l) > 0 {
					f.Add(l)
				}
			}
		}
	}
	f.Add([]byte(`{"type":"user","uuid":"u","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_result","content":"x"},{"type":"text","text":"kept"}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !onlyToolResults(in) {
			return
		}
		var l line
		if json.Unmarshal(in, &l) != nil {
			return
		}
		if l.Type == "user" {
			if cs, _ := comments(&l); len(cs) > 0 {
				t.Fatalf("passed over a line with comments %+v", cs)
			}
		}
	})
}

func TestQuickScan(t *testing.T) {
	for _, c := range []struct {
		in   string
		typ  string
		only bool
	}{
		{`{"type":"attachment","attachment":{"type":"date"}}`, "attachment", false},
		{`{"a":[1,{"type":"x"}],"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"t"}]}]}}`, "user", true},
		{`{"type":"user","message":{"content":[{"type":"tool_result"},{"type":"text","text":"an interjection"}]}}`, "user", false},
		{`{"type":"user","message":{"content":"a prompt"}}`, "user", false},
		{`{"type":"user","message":{"content":[]}}`, "user", false},
		{`{"type":"a","type":"b"}`, "", false},
		{`{"t\"ype":"x"}`, "", false},
		{`{"type":"x"} trailing`, "", false},
		{`{"type":"x",}`, "", false},
	} {
		typ, _ := topType([]byte(c.in))
		if typ != c.typ || onlyToolResults([]byte(c.in)) != c.only {
			t.Errorf("%s: type %q, only tool results %v", c.in, typ, onlyToolResults([]byte(c.in)))
		}
	}
}

func TestPromptText(t *testing.T) {
	for in, want := range map[string]string{
		"fix the login":                        "fix the login",
		"<system-reminder>x</system-reminder>": "",
		"Summary:\n<system-reminder>\ntools\n</system-reminder>\nDone.": "Summary:\n\nDone.",
		"before <system-reminder>never closed":                          "before",
		"<command-name>/clear</command-name>":                           "",
		"<command-message>r</command-message>\n<command-name>/review</command-name>\n<command-args>PR 12</command-args>": "/review PR 12",
		"<local-command-stdout>ok</local-command-stdout>":                                                                "",
		"[Request interrupted by user]":                                                                                  "",
	} {
		if got := promptText(in); got != want {
			t.Errorf("promptText(%q) = %q, want %q", in, got, want)
		}
	}
}
