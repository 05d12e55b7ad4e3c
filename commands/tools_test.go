package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/mcp"
	"github.com/cairn-dev/cairn/web"
)

const facesToken = "0123456789abcdef0123456789abcdef"

// facesCaller is the identity every face of these tests runs with.
var facesCaller = workspace.Caller{User: "bob", Task: "30", Card: "tl-18"}

// faces drives one workspace through the three faces of the tool registry: `cairn tools call`
// in-process, an MCP client in memory, and POST /api on a test server.
type faces struct {
	t    *testing.T
	root string
	mcp  *sdk.ClientSession
	http *httptest.Server
}

// newFaces copies the demo workspace, imports its space and board, and opens the MCP and HTTP
// faces on it with facesCaller.
func newFaces(t *testing.T) *faces {
	t.Helper()
	for _, k := range []string{"CAIRN_WORKSPACE", "CAIRN_SESSION", "CAIRN_SESSION_FORMAT", "CAIRN_USER", "CAIRN_TASK", "CAIRN_SUBTASK", "CAIRN_CARD", "CLAUDE_CODE_SESSION_ID"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	f := &faces{t: t, root: t.TempDir()}
	if out, err := exec.Command("cp", "-r", "../fixtures/demo/.", f.root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	for _, args := range [][]string{{"space", "import", filepath.Join(f.root, "space.jsonl")}, {"board", "import", filepath.Join(f.root, "board.json")}} {
		if code, out := f.cli(append([]string{"-C", f.root}, args...)...); code != 0 {
			t.Fatalf("cairn %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	ws, err := workspace.Open(f.root, f.root)
	if err != nil {
		t.Fatal(err)
	}
	tc := tools.Context{Workspace: ws, Caller: facesCaller}

	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := mcp.NewServer(tools.New(), "test", tc).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "faces", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.mcp = cs

	ix, err := board.Load(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.New(web.Options{Workspace: ws, Index: ix, Tools: tc, Token: facesToken})
	if err != nil {
		t.Fatal(err)
	}
	f.http = httptest.NewServer(h)
	t.Cleanup(f.http.Close)
	return f
}

// cli runs cairn in-process and returns its exit status and standard output.
func (f *faces) cli(args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"cairn"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String() + stderr.String()
}

// viaCLI is `cairn tools call NAME INPUT` with the caller's flags.
func (f *faces) viaCLI(name, input string) any {
	f.t.Helper()
	_, out := f.cli("-C", f.root, "--user", facesCaller.User, "--task", facesCaller.Task, "--card", facesCaller.Card, "tools", "call", name, input)
	return f.decode("tools call "+name, []byte(out))
}

// viaMCP is tools/call over MCP; a tool error is its body, as the other faces print it.
func (f *faces) viaMCP(name, input string) any {
	f.t.Helper()
	res, err := f.mcp.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(input)})
	if err != nil {
		f.t.Fatalf("MCP %s: %v", name, err)
	}
	return f.decode("MCP "+name, []byte(res.Content[0].(*sdk.TextContent).Text))
}

// viaHTTP is POST /api with the tool's name as the action.
func (f *faces) viaHTTP(name, input string) any {
	f.t.Helper()
	body, _ := json.Marshal(map[string]any{"action": name, "input": json.RawMessage(input)})
	req, _ := http.NewRequest(http.MethodPost, f.http.URL+"/api", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+facesToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatalf("HTTP %s: %v", name, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.decode("HTTP "+name, data)
}

func (f *faces) decode(what string, data []byte) any {
	f.t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		f.t.Fatalf("%s answered no JSON document: %v\n%s", what, err, data)
	}
	return v
}

// commandOf finds `cairn <command>` in the command tree. A word starting with -- names a flag
// the command must have; the word after it is the flag's value and is not looked up.
func commandOf(env *Env, command string) (found bool, problem string) {
	words := strings.Fields(command)
	cmds := NewApp(env).Commands
	var cmd *cli.Command
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "--") {
			if cmd == nil || !hasFlag(cmd, strings.TrimPrefix(w, "--")) {
				return false, "no flag " + w
			}
			i++
			continue
		}
		if cmd = findCommand(cmds, w); cmd == nil {
			return false, "no command word " + w
		}
		cmds = cmd.Subcommands
	}
	return cmd != nil, ""
}

func hasFlag(cmd *cli.Command, name string) bool {
	for _, fl := range cmd.Flags {
		for _, n := range fl.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// faceless are the commands that are no domain operation: they list, serve or complete the others.
var faceless = map[string]bool{"tools list": true, "tools call": true, "mcp": true, "serve": true, "completion": true, "version": true}

// Every operation of the registry has its CLI command, built from it (its flags are its options);
// every agent tool is listed over MCP and is an action of the HTTP API, as is every HTTP action;
// nothing is listed that the registry does not hold, and every domain command is an operation.
func TestRegistryCoversEveryFace(t *testing.T) {
	f := newFaces(t)
	env := newEnv(strings.NewReader(""), io.Discard, io.Discard)
	list, err := f.mcp.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range list.Tools {
		listed[tool.Name] = true
	}
	reg := tools.New()
	cliOnly, httpOnly := 0, 0
	for _, op := range reg.Operations() {
		if op.On(tools.CLI) {
			if ok, problem := commandOf(env, op.Command); !ok {
				t.Errorf("operation %q has no CLI command `cairn %s`: %s", op.Command, op.Command, problem)
			}
		}
		checkOptions(t, op)
		if op.Tool == nil && op.On(tools.HTTP) {
			httpOnly++
			ans, _ := f.viaHTTP(op.Name, "{}").(map[string]any)
			if e, _ := ans["error"].(map[string]any); e != nil && strings.HasPrefix(e["message"].(string), "unknown action") {
				t.Errorf("HTTP operation %s is no action of the HTTP API: %v", op.Name, e)
			}
			continue
		}
		if op.Tool == nil {
			cliOnly++
			continue
		}
		if !listed[op.Tool.Name] {
			t.Errorf("tool %s is not listed over MCP", op.Tool.Name)
		}
		delete(listed, op.Tool.Name)
		ans, _ := f.viaHTTP(op.Tool.Name, "{}").(map[string]any)
		if e, _ := ans["error"].(map[string]any); e != nil && strings.HasPrefix(e["message"].(string), "unknown action") {
			t.Errorf("tool %s is no action of the HTTP API: %v", op.Tool.Name, e)
		}
	}
	for name := range listed {
		t.Errorf("MCP lists %s, which the registry does not hold", name)
	}
	if len(reg.Operations()) != len(reg.List())+cliOnly+httpOnly {
		t.Errorf("%d operations, %d tools, %d CLI-only and %d HTTP-only ones", len(reg.Operations()), len(reg.List()), cliOnly, httpOnly)
	}
	if cliOnly == 0 || httpOnly == 0 {
		t.Error("the CLI-only and HTTP-only operations are not in the registry")
	}
	// Every command of the tree that does something is an operation, with its flags from it.
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.Name)
			if len(c.Subcommands) > 0 {
				walk(path, c.Subcommands)
				continue
			}
			if faceless[path] {
				continue
			}
			op := reg.Operation(path)
			if op == nil {
				t.Errorf("cairn %s is in no operation of the registry", path)
				continue
			}
			var names []string
			for _, fl := range c.Flags {
				names = append(names, fl.Names()[0])
			}
			var want []string
			for _, o := range op.Options {
				want = append(want, o.Flag)
			}
			if !reflect.DeepEqual(names, want) {
				t.Errorf("cairn %s has flags %v, its operation's options are %v", path, names, want)
			}
		}
	}
	walk("", NewApp(env).Commands)
	// The walk itself fails on a command that does not exist.
	for _, bad := range []string{"task frobnicate", "space import --nope x", "nosuch"} {
		if ok, _ := commandOf(env, bad); ok {
			t.Errorf("the walk finds `cairn %s`", bad)
		}
	}
}

// checkOptions fails for an option bound to a field its operation's input does not have.
func checkOptions(t *testing.T, op *tools.Operation) {
	t.Helper()
	for _, o := range op.Options {
		if o.Field == "" {
			continue
		}
		if op.Input == nil {
			t.Errorf("%s: --%s sets %s, but the operation has no input type", op.Command, o.Flag, o.Field)
			continue
		}
		if _, ok := fieldByJSON(reflect.New(op.Input).Elem(), o.Field); !ok {
			t.Errorf("%s: --%s sets %s, which %s does not have", op.Command, o.Flag, o.Field, op.Input)
		}
	}
}

// readOnlyInputs is one input per read-only tool, each one that finds something in the demo
// workspace; a read-only tool missing here fails TestFacesAnswerAlike.
var readOnlyInputs = map[string][]string{
	"TaskList":             {`{}`},
	"TaskGet":              {`{"taskid":1}`, `{"taskid":99}`},
	"MemorySearch":         {`{"query":"sqlite","limit":2}`, `{"query":""}`},
	"KnowledgeSearch":      {`{"query":"release","context":1}`},
	"MemoryRead":           {`{"kind":"decision","slug":"sqlite-storage"}`, `{"kind":"decision","slug":"sqlite"}`},
	"SearchWorkspaceTasks": {`{"query":"login","context":1}`, `{"around_ref":"comment:95"}`, `{"query":"login","task_id":12}`},
	"flowly_search":        {`{"query":"link","sources":["card","summary"]}`, `{"query":"x","limit":21}`},
}

// The three faces give the same answer, errors included, to the same input of every read-only
// tool, and to a write on scratch copies of one workspace.
func TestFacesAnswerAlike(t *testing.T) {
	f := newFaces(t)
	for _, tool := range tools.New().List() {
		if !tool.ReadOnly {
			continue
		}
		inputs, ok := readOnlyInputs[tool.Name]
		if !ok {
			t.Errorf("read-only tool %s has no input in readOnlyInputs", tool.Name)
			continue
		}
		for _, in := range inputs {
			cli, viaMCP, viaHTTP := f.viaCLI(tool.Name, in), f.viaMCP(tool.Name, in), f.viaHTTP(tool.Name, in)
			if !reflect.DeepEqual(cli, viaMCP) || !reflect.DeepEqual(cli, viaHTTP) {
				t.Errorf("%s %s answers differ:\ntools call: %v\nMCP:        %v\nHTTP:       %v", tool.Name, in, cli, viaMCP, viaHTTP)
			}
			if m, _ := cli.(map[string]any); len(m) == 0 {
				t.Errorf("%s %s answered nothing: %v", tool.Name, in, cli)
			}
		}
		// The first input of each finds something: the faces agree on an answer, not on a refusal.
		first, _ := f.viaCLI(tool.Name, inputs[0]).(map[string]any)
		if first["error"] != nil || first["available"] == false {
			t.Errorf("%s %s found nothing: %v", tool.Name, inputs[0], first)
		}
	}

	writes := []struct{ name, input, file string }{
		{"TaskCreate", `{"subject":"the same on every face","description":"d"}`, "sessions/default.jsonl"},
		{"MemoryWrite", `{"kind":"decision","slug":"faces","content":"---\ntitle: Faces\n---\nSame.\n"}`, "memory/decisions/faces.md"},
		{"MemoryEdit", `{"kind":"decision","slug":"sqlite-storage","old":"SQLite","new":"SQLite 3","all":true}`, "memory/decisions/sqlite-storage.md"},
	}
	for _, w := range writes {
		var answers []any
		var files []string
		for _, call := range []func(*faces) any{
			func(g *faces) any { return g.viaCLI(w.name, w.input) },
			func(g *faces) any { return g.viaMCP(w.name, w.input) },
			func(g *faces) any { return g.viaHTTP(w.name, w.input) },
		} {
			g := newFaces(t) // a scratch copy per face
			answers = append(answers, call(g))
			data, err := os.ReadFile(filepath.Join(g.root, w.file))
			if err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			files = append(files, string(data))
		}
		if e, _ := answers[0].(map[string]any)["error"]; e != nil {
			t.Errorf("%s failed: %v", w.name, e)
		}
		if !reflect.DeepEqual(answers[0], answers[1]) || !reflect.DeepEqual(answers[0], answers[2]) {
			t.Errorf("%s answers differ:\ntools call: %v\nMCP:        %v\nHTTP:       %v", w.name, answers[0], answers[1], answers[2])
		}
		for i, file := range files {
			// A log line carries its time and call id: the task log holds the same subject instead.
			if w.name == "TaskCreate" && !strings.Contains(file, "the same on every face") || w.name != "TaskCreate" && file != files[0] {
				t.Errorf("%s left a different file through face %d:\n%q\n%q", w.name, i, files[0], file)
			}
		}
	}
}

// positional are the input fields a tool's command takes as arguments, in order; every other
// field is a flag of the command, found through the registry's options.
var positional = map[string][]string{
	"TaskGet": {"taskid"}, "MemorySearch": {"query"}, "KnowledgeSearch": {"query"},
	"MemoryRead": {"kind", "slug"}, "SearchWorkspaceTasks": {"query"}, "flowly_search": {"query"},
}

// cliArgs turns a tool's JSON input into its command line: the positional fields as arguments,
// every other field as the flag bound to it (a list comma-separated).
func cliArgs(t *testing.T, op *tools.Operation, input string) []string {
	t.Helper()
	var fields map[string]any
	if err := json.Unmarshal([]byte(input), &fields); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(op.Command)
	for _, name := range positional[op.Name] {
		if v, ok := fields[name]; ok {
			args = append(args, fmt.Sprint(v))
			delete(fields, name)
		}
	}
	for name, v := range fields {
		var flag string
		for _, o := range op.Options {
			if o.Field == name {
				flag = o.Flag
			}
		}
		if flag == "" {
			t.Fatalf("%s: no option sets %s", op.Command, name)
		}
		value := fmt.Sprint(v)
		if list, ok := v.([]any); ok {
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = fmt.Sprint(x)
			}
			value = strings.Join(parts, ",")
		}
		args = append(args, "--"+flag, value)
	}
	return args
}

// The command of every read-only tool, its flags built from the registry, answers --json with
// the tool's own answer to the same input.
func TestCommandsAnswerLikeTools(t *testing.T) {
	f := newFaces(t)
	reg := tools.New()
	compared := map[string]bool{}
	for _, tool := range reg.List() {
		if !tool.ReadOnly {
			continue
		}
		op := reg.Operation(tool.Command)
		for _, in := range readOnlyInputs[tool.Name] {
			viaTool, _ := f.viaCLI(tool.Name, in).(map[string]any)
			if viaTool["error"] != nil {
				continue // a refusal is worded for its reader; the answers are what must agree
			}
			args := append([]string{"-C", f.root, "--user", facesCaller.User, "--task", facesCaller.Task, "--card", facesCaller.Card, "--json"}, cliArgs(t, op, in)...)
			code, out := f.cli(args...)
			if code != 0 {
				t.Errorf("cairn %s: exit %d\n%s", strings.Join(args, " "), code, out)
				continue
			}
			compared[tool.Name] = true
			if viaCommand := f.decode("cairn "+op.Command, []byte(out)); !reflect.DeepEqual(viaCommand, any(viaTool)) {
				t.Errorf("cairn %s answers differently from %s %s:\ncommand: %v\ntool:    %v", strings.Join(args, " "), tool.Name, in, viaCommand, viaTool)
			}
		}
		if !compared[tool.Name] {
			t.Errorf("%s: no input of readOnlyInputs was answered, so its command was never compared", tool.Name)
		}
	}
	// The Search page's search is board search without a card.
	viaHTTP := f.viaHTTP("search", `{"query":"link","sources":["card","summary"],"limit":5}`)
	code, out := f.cli("-C", f.root, "--json", "board", "search", "link", "--sources", "card,summary", "--limit", "5")
	if viaCommand := f.decode("cairn board search", []byte(out)); code != 0 || !reflect.DeepEqual(viaCommand, viaHTTP) {
		t.Errorf("cairn board search answers differently from the search action:\ncommand: %v\naction:  %v", viaCommand, viaHTTP)
	}
	if m, _ := viaHTTP.(map[string]any); len(m["cards"].([]any)) == 0 {
		t.Errorf("the search action found nothing: %v", viaHTTP)
	}
}
