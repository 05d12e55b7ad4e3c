package commands

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/tools"
)

// cliFaces names the CLI command of every agent tool: a tool without a command, or a command
// listed here without a registered tool (and so without a schema), fails the test.
var cliFaces = map[string]string{
	"TaskCreate":           "task create",
	"TaskList":             "task list",
	"TaskGet":              "task get",
	"TaskUpdate":           "task update",
	"MemorySearch":         "memory search",
	"KnowledgeSearch":      "knowledge search",
	"MemoryRead":           "memory read",
	"MemoryWrite":          "memory write",
	"MemoryEdit":           "memory edit",
	"SearchWorkspaceTasks": "space search",
	"flowly_search":        "board search",
}

func TestToolsCoverTheCLI(t *testing.T) {
	app := NewApp(newEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	var registered []string
	for _, tool := range tools.New().List() {
		registered = append(registered, tool.Name)
		if _, ok := cliFaces[tool.Name]; !ok {
			t.Errorf("tool %s has no CLI command in cliFaces", tool.Name)
		}
	}
	var faces []string
	for name, path := range cliFaces {
		faces = append(faces, name)
		words := strings.Fields(path)
		cmd := findCommand(app.Commands, words[0])
		for _, w := range words[1:] {
			if cmd == nil {
				break
			}
			cmd = findCommand(cmd.Subcommands, w)
		}
		if cmd == nil {
			t.Errorf("tool %s: no command `cairn %s`", name, path)
		}
	}
	sort.Strings(registered)
	sort.Strings(faces)
	if strings.Join(registered, ",") != strings.Join(faces, ",") {
		t.Errorf("registered tools %v differ from CLI faces %v", registered, faces)
	}
}
