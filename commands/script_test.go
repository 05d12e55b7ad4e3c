package commands_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/commands"
	"github.com/cairn-dev/cairn/core/opencode/opencodetest"
)

// TestMain runs the tests, or cairn itself when a script executes this binary as cairn.
func TestMain(m *testing.M) {
	testscript.Main(withBinDir{m}, map[string]func(){
		"cairn": func() { os.Exit(commands.Main()) },
	})
}

// TestScripts runs the end-to-end transcripts in testdata/script against the real binary.
func TestScripts(t *testing.T) {
	t.Parallel() // beside the process tests: each script has a work directory of its own
	_, file, _, _ := runtime.Caller(0)
	fixtures := filepath.Join(filepath.Dir(file), "..", "fixtures")
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exitcode": cmdExitcode,
		// opencode-db SCENARIO PATH [OLD NEW]: OpenCode's database of a recording
		// (fixtures/opencode/SCENARIO), with OLD replaced by NEW in the text of its parts
		"opencode-db": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || (len(args) != 2 && len(args) != 4) {
				ts.Fatalf("usage: opencode-db SCENARIO PATH [OLD NEW]")
			}
			var keep func(string, map[string]any) bool
			if len(args) == 4 {
				keep = func(table string, row map[string]any) bool {
					if d, ok := row["data"].(map[string]any); ok && table == "part" {
						if text, ok := d["text"].(string); ok {
							d["text"] = strings.ReplaceAll(text, args[2], args[3])
						}
					}
					return true
				}
			}
			opencodetest.Build(ts, args[0], ts.MkAbs(args[1]), keep)
		},
	}
	for name, cmd := range teamScriptCmds {
		cmds[name] = cmd
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("FIXTURES", fixtures)
			e.Setenv("REPO", filepath.Join(filepath.Dir(file), ".."))
			e.Setenv("NO_COLOR", "")
			for _, k := range []string{"CAIRN_WORKSPACE", "CAIRN_SESSION", "CAIRN_USER", "CAIRN_TASK", "CAIRN_SUBTASK", "CAIRN_CARD", "CAIRN_SESSION_FORMAT", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CONFIG_DIR", "CAIRN_OPENCODE_DB", "CAIRN_TOKEN", "CAIRN_TOKEN_FILE"} {
				e.Setenv(k, "")
			}
			return nil
		},
		Cmds: cmds,
	})
}

// cmdExitcode runs cairn and asserts its exact exit status: exitcode N cairn args...
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command args...")
	}
	err := ts.Exec(args[1], args[2:]...)
	want := args[0]
	got := "0"
	if err != nil {
		got = "?"
		if ee, ok := err.(interface{ ExitCode() int }); ok {
			got = strconv.Itoa(ee.ExitCode())
		} else {
			ts.Logf("exec error: %v", err)
		}
	}
	if got != want {
		ts.Fatalf("exit code %s, want %s", got, want)
	}
}
