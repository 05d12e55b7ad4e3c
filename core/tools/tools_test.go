package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

var wantNames = []string{"TaskCreate", "TaskList", "TaskGet", "TaskUpdate", "MemorySearch", "KnowledgeSearch",
	"MemoryRead", "MemoryWrite", "MemoryEdit", "SearchWorkspaceTasks", "flowly_search"}

func newContext(t *testing.T) Context {
	t.Helper()
	ws := workspacetest.New(t)
	return Context{Workspace: ws}
}

func TestRegistryHasEveryToolWithASchema(t *testing.T) {
	reg := New()
	var names []string
	for _, tool := range reg.List() {
		names = append(names, tool.Name)
		if tool.Schema == nil || tool.Schema.Type != "object" {
			t.Errorf("%s: input schema is not an object schema", tool.Name)
		}
		if tool.Schema.AdditionalProperties == nil {
			t.Errorf("%s: schema allows unknown fields", tool.Name)
		}
		if len(tool.Description) < 80 {
			t.Errorf("%s: description too short to tell a model when to use it", tool.Name)
		}
		for name, p := range tool.Schema.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
		data, err := json.Marshal(tool.Definition())
		if err != nil || !strings.Contains(string(data), `"input_schema":{`) {
			t.Errorf("%s: definition does not marshal: %v %s", tool.Name, err, data)
		}
	}
	if !reflect.DeepEqual(names, wantNames) {
		t.Fatalf("tools = %v, want %v", names, wantNames)
	}
	if _, err := reg.Get("taskcreate"); errs.CodeOf(err) != errs.Invalid {
		t.Fatalf("names are exact: %v", err)
	}
}

func TestInputValidation(t *testing.T) {
	c := newContext(t)
	reg := New()
	cases := []struct{ tool, input, want string }{
		{"TaskGet", `{"taskid":1,"id":1}`, "unknown field id; valid fields: taskid"},
		{"TaskGet", `{}`, "TaskGet input: taskid: nothing given, an integer is needed"},
		{"TaskGet", `{"taskid":"1"}`, `TaskGet input: taskid: "1" given, an integer is needed`},
		{"TaskGet", `{"taskid":1.5}`, `TaskGet input: taskid: 1.5 given, an integer is needed`},
		{"TaskGet", `{"taskid":0}`, "TaskGet input: taskid: 0 is less than the minimum 1"},
		{"TaskUpdate", `{"taskid":1,"status":"done"}`, `status: "done" is not one of pending, inprogress, completed, deleted`},
		{"TaskUpdate", `{"taskid":1,"status":5}`, `TaskUpdate input: status: 5 given, a string is needed`},
		{"TaskUpdate", `{"taskid":1,"status":null}`, "nothing to update: give status, subject or description"},
		{"TaskCreate", `{"subject":null}`, "TaskCreate input: subject: null given, a string is needed"},
		{"SearchWorkspaceTasks", `{"query":"x","kind":"interjection_ack"}`, `kind: "interjection_ack" is not one of request, comment,`},
		{"SearchWorkspaceTasks", `{"query":"x","task_id":true}`, `task_id: true given, a string or an integer is needed`},
		{"SearchWorkspaceTasks", `{"query":"x","task_id":99999999999999999999}`, `SearchWorkspaceTasks input: task_id: 99999999999999999999 given, a string or an integer of at most 19 digits is needed`},
		{"TaskGet", `{"taskid":1e400}`, `TaskGet input: number 1e400 is too large`},
		{"TaskCreate", `[]`, "TaskCreate input must be a JSON object, not an array"},
		{"TaskCreate", `{"subject":"x","activeForm":["a",-2e999]}`, `TaskCreate input: number -2e999 is too large`},
		{"TaskGet", `{"taskid":"1e999"}`, `TaskGet input: taskid: "1e999" given, an integer is needed`},
		{"TaskGet", `{"\u0074askid":0}`, "TaskGet input: taskid: 0 is less than the minimum 1"},
		{"TaskGet", `{"taskid":1,"taskid":"1"}`, `TaskGet input: taskid: "1" given, an integer is needed`},
		{"TaskCreate", `{"subject":`, "not valid JSON"},
		{"MemorySearch", `{"query":"x","limit":501}`, "MemorySearch input: limit: 501 is more than the maximum 500"},
		{"MemoryRead", `{"kind":"secret"}`, `kind: "secret" is not one of summary, decision, request, knowledge`},
		{"MemoryEdit", `{"kind":"decision","slug":"a","old":"x","new":"y","all":"yes"}`, `all: "yes" given, true or false is needed`},
		{"SearchWorkspaceTasks", `{"query":"x","context":6}`, "SearchWorkspaceTasks input: context: 6 is more than the maximum 5"},
		{"flowly_search", `{"query":"x","sources":["memory"]}`, `flowly_search input: sources: "memory" is not one of card, summary, note, workpad, idea, artifact`},
		{"flowly_search", `{"query":"x","sources":"card"}`, `flowly_search input: sources: "card" given, an array of some of card,`},
		{"flowly_search", `{"query":"x","limit":21}`, "flowly_search input: limit: 21 is more than the maximum 20"},
	}
	for _, tc := range cases {
		tool, err := reg.Get(tc.tool)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tool.Call(context.Background(), c, json.RawMessage(tc.input))
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want INVALID_INPUT mentioning %q", tc.tool, tc.input, err, tc.want)
		}
		for _, internal := range []string{"reflect", "validating", "/properties", "Go ", "%!", ".000000", "/1 is"} {
			if err != nil && strings.Contains(err.Error(), internal) {
				t.Errorf("%s %s: %q names internals", tc.tool, tc.input, err)
			}
		}
	}
	if _, err := os.Stat(c.Workspace.SessionLog("")); !os.IsNotExist(err) {
		t.Fatal("invalid input wrote to the session log")
	}
}

func call(t *testing.T, c Context, name, input string) any {
	t.Helper()
	tool, err := New().Get(name)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(context.Background(), c, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s %s: %v", name, input, err)
	}
	return out
}

func TestToolsCallTheCore(t *testing.T) {
	c := newContext(t)
	call(t, c, "TaskCreate", `{"subject":"plan the migration","description":"sqlite"}`)
	call(t, c, "TaskUpdate", `{"taskid":1,"status":"inprogress"}`)
	// null is "not given", as the schema's ["null","string"] says: the status stays
	call(t, c, "TaskUpdate", `{"taskid":1,"status":null,"subject":"plan the move"}`)
	data, _ := json.Marshal(call(t, c, "TaskList", ``))
	if !strings.Contains(string(data), `"status":"inprogress","subject":"plan the move"`) || !strings.Contains(string(data), `"total":1`) {
		t.Fatalf("TaskList = %s", data)
	}
	if _, err := New().byName["TaskGet"].Call(context.Background(), c, json.RawMessage(`{"taskid":7}`)); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("TaskGet 7: %v", err)
	}
	call(t, c, "MemoryWrite", `{"kind":"decision","slug":"storage","content":"# Storage\nUse SQLite in WAL mode.\n"}`)
	data, _ = json.Marshal(call(t, c, "MemorySearch", `{"query":"wal MODE"}`))
	if !strings.Contains(string(data), `"slug":"storage"`) {
		t.Fatalf("MemorySearch = %s", data)
	}
	call(t, c, "MemoryEdit", `{"kind":"decision","slug":"storage","old":"WAL","new":"rollback journal"}`)
	data, _ = json.Marshal(call(t, c, "MemoryRead", `{"kind":"decision","slug":"storage"}`))
	if !strings.Contains(string(data), "rollback journal") {
		t.Fatalf("MemoryRead = %s", data)
	}
	data, _ = json.Marshal(call(t, c, "SearchWorkspaceTasks", `{"query":"anything"}`))
	if !strings.Contains(string(data), `"available":false`) {
		t.Fatalf("no-auth SearchWorkspaceTasks = %s", data)
	}
	if _, err := New().byName["flowly_search"].Call(context.Background(), c, json.RawMessage(`{"query":"x"}`)); errs.CodeOf(err) != errs.Invalid {
		t.Fatalf("flowly_search without a card: %v", err)
	}
}

// Tool answers never name CLI flags or environment variables: a model cannot pass them. Each
// case reaches a core message that names one on the command line.
func TestToolErrorsNameNoFlags(t *testing.T) {
	c := newContext(t)
	call(t, c, "MemoryWrite", `{"kind":"decision","slug":"twice","content":"a a\n"}`)
	transcript := filepath.Join(t.TempDir(), "claude.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`+"\n"), 0o644)
	claude := c
	claude.Session, claude.SessionFormat = transcript, "claude"
	withUser := c
	withUser.User = "u1"
	busy := c
	busy.Workspace.Wait = 50 * time.Millisecond
	lock, err := workspace.LockFile(context.Background(), c.Workspace.SessionLog("")+".lock", true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	cases := []struct {
		c           Context
		tool, input string
		want        string
	}{
		{c, "TaskUpdate", `{"taskid":1}`, "give status, subject or description"},
		{c, "SearchWorkspaceTasks", `{"query":"x","around_ref":"comment:1"}`, "give a query or around_ref (comment:<id> from a hit's ref), not both"},
		{c, "SearchWorkspaceTasks", `{"query":"  "}`, "give a query or around_ref"},
		{c, "SearchWorkspaceTasks", `{"around_ref":"comment:1","limit":3}`, "limit only narrows a query; around_ref reads"},
		{withUser, "SearchWorkspaceTasks", `{"query":"x"}`, "needs the current task, and this session was started without one"},
		{c, "MemoryEdit", `{"kind":"decision","slug":"twice","old":"a","new":"b"}`, "or set all to true to replace every one"},
		{c, "flowly_search", `{"query":"x"}`, "needs the caller's card, and this session was started without one"},
		{claude, "TaskCreate", `{"subject":"x"}`, "this session must be started with a cairn log"},
		{busy, "TaskCreate", `{"subject":"x"}`, "try again"},
	}
	for _, tc := range cases {
		tool, _ := New().Get(tc.tool)
		_, err := tool.Call(context.Background(), tc.c, json.RawMessage(tc.input))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want %q", tc.tool, tc.input, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "--") || strings.Contains(err.Error(), "CAIRN_") {
			t.Errorf("%s %s: %q names a flag", tc.tool, tc.input, err)
		}
	}
}

// The schemas a model registers are the contract of every face: testdata/tools.json is
// `cairn tools list --json` as released, and any change to a tool's name, description, field,
// bound or enum shows up here first.
func TestDefinitionsMatchGolden(t *testing.T) {
	var defs []Definition
	for _, tool := range New().List() {
		defs = append(defs, tool.Definition())
	}
	got, err := json.MarshalIndent(map[string]any{"tools": defs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(bytes.TrimSpace(got)) != string(bytes.TrimSpace(want)) {
		t.Fatalf("tool definitions differ from testdata/tools.json:\n%s", got)
	}
}

// Call checks tool input by hand, without a general JSON Schema validator: a schema using a
// keyword that checking does not know is refused when its tool is defined.
func TestSchemasUseOnlyCheckedKeywords(t *testing.T) {
	for _, tool := range New().List() {
		if err := checkable(tool.Schema); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
	type in struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}
	for message, fix := range map[string]func(*jsonschema.Schema){
		`property name uses "pattern"`: func(s *jsonschema.Schema) { s.Properties["name"].Pattern = "^a" },
		`the items of tags uses "minLength"`: func(s *jsonschema.Schema) {
			n := 1
			s.Properties["tags"].Items.MinLength = &n
		},
		`the schema uses "minProperties"`: func(s *jsonschema.Schema) {
			n := 1
			s.MinProperties = &n
		},
		"unknown fields must be refused": func(s *jsonschema.Schema) { s.AdditionalProperties = nil },
	} {
		func() {
			defer func() {
				if r := fmt.Sprint(recover()); !strings.Contains(r, message) {
					t.Errorf("define with %s: panic %q", message, r)
				}
			}()
			define("Probe", "probe", "", true, fix, func(context.Context, Context, in) (any, error) { return nil, nil }).prepare()
		}()
	}
}
