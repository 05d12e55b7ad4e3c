package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

func codexOpts(t *testing.T, scope string) CodexOptions {
	t.Helper()
	dir := t.TempDir()
	proj := filepath.Join(dir, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return CodexOptions{Scope: scope, ProjectDir: proj, Home: filepath.Join(dir, "home"), Command: "/opt/cairn/bin/cairn"}
}

func runCodex(t *testing.T, o CodexOptions) []*Change {
	t.Helper()
	cs, err := PlanCodex(o)
	if err != nil {
		t.Fatalf("PlanCodex: %v", err)
	}
	if err := Apply(cs, time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return cs
}

// Real-looking config.toml files: every byte the user wrote must survive, and the only
// difference is cairn's table (appended, or its command/args rewritten in place).
func TestCodexConfigKeepsEveryByte(t *testing.T) {
	const cairnTable = "[mcp_servers.cairn]\ncommand = \"/opt/cairn/bin/cairn\"\nargs = [\"mcp\"]\n"
	cases := []struct{ name, before, after string }{
		{"empty", "", cairnTable},
		{"comments and arrays", `# Codex config, mine
model = "gpt-5.5"   # the default
approval_policy = "on-request"
notify = ["notify-send", "Codex"]
project_doc_fallback_filenames = [
  "CLAUDE.md", # for the old repos
  'AGENTS.txt',
]

[tools.update_plan]
enabled = true

[mcp_servers.github]
command = "gh-mcp"
args = ["--read-only"]
env = { GH_TOKEN = "x", "Quoted Key" = 'lit' }
# trailing comment, no newline after it`,
			`# Codex config, mine
model = "gpt-5.5"   # the default
approval_policy = "on-request"
notify = ["notify-send", "Codex"]
project_doc_fallback_filenames = [
  "CLAUDE.md", # for the old repos
  'AGENTS.txt',
]

[tools.update_plan]
enabled = true

[mcp_servers.github]
command = "gh-mcp"
args = ["--read-only"]
env = { GH_TOKEN = "x", "Quoted Key" = 'lit' }
# trailing comment, no newline after it
` + "\n" + cairnTable},
		{"multi-line strings that look like tables", `developer_instructions = """
Never edit generated files.
[mcp_servers.cairn]
command = "not a real table"
"""
compact_prompt = '''
keep # this
'''
when = 1979-05-27 07:32:00Z # a date-time with a space
ratio = nan

[profiles.fast]
model = "gpt-5.6-luna"
`, `developer_instructions = """
Never edit generated files.
[mcp_servers.cairn]
command = "not a real table"
"""
compact_prompt = '''
keep # this
'''
when = 1979-05-27 07:32:00Z # a date-time with a space
ratio = nan

[profiles.fast]
model = "gpt-5.6-luna"

` + cairnTable},
		{"existing table rewritten in place", `[mcp_servers.cairn]   # registered by hand
# the old build
command = '/home/me/go/bin/cairn' # moved since
args = [
  "mcp",
  "--verbose",
]
cwd = "/home/me/proj"
startup_timeout_sec = 20

[mcp_servers.cairn.env]
CAIRN_USER = "ann"

[mcp_servers.other]
command = "x"
`, `[mcp_servers.cairn]   # registered by hand
# the old build
command = "/opt/cairn/bin/cairn" # moved since
args = ["mcp"]
cwd = "/home/me/proj"
startup_timeout_sec = 20

[mcp_servers.cairn.env]
CAIRN_USER = "ann"

[mcp_servers.other]
command = "x"
`},
		{"existing table without command, CRLF", "[mcp_servers.cairn]\r\nenabled = true\r\n\r\n[tui]\r\nnotifications = true\r\n",
			"[mcp_servers.cairn]\r\ncommand = \"/opt/cairn/bin/cairn\"\r\nargs = [\"mcp\"]\r\nenabled = true\r\n\r\n[tui]\r\nnotifications = true\r\n"},
		{"quoted header, args before command", "[ mcp_servers . \"cairn\" ]\nargs = [\"mcp\"]\ncommand = \"cairn\"", "[ mcp_servers . \"cairn\" ]\nargs = [\"mcp\"]\ncommand = \"/opt/cairn/bin/cairn\""},
		{"header last, no newline", "model = \"o3\"\n[mcp_servers.cairn]", "model = \"o3\"\n[mcp_servers.cairn]\ncommand = \"/opt/cairn/bin/cairn\"\nargs = [\"mcp\"]"},
		{"only a sub-table of cairn", "[mcp_servers.cairn.env]\nA = \"1\"\n", "[mcp_servers.cairn.env]\nA = \"1\"\n\n" + cairnTable},
		{"other servers as dotted keys", "mcp_servers.other.command = \"x\"\n", "mcp_servers.other.command = \"x\"\n\n" + cairnTable},
		{"inline server of another name", "[mcp_servers]\nother = { command = \"x\" }\n", "[mcp_servers]\nother = { command = \"x\" }\n\n" + cairnTable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := codexOpts(t, "project")
			cfg := filepath.Join(o.ProjectDir, ".codex", "config.toml")
			if tc.before != "" {
				write(t, cfg, tc.before)
			}
			cs := runCodex(t, o)
			if got := read(t, cfg); got != tc.after {
				t.Fatalf("config.toml:\n%s\nwant:\n%s", got, tc.after)
			}
			if tc.before != "" && (cs[0].Status != "updated" || read(t, cs[0].Backup) != tc.before) {
				t.Errorf("status %s, backup %q", cs[0].Status, cs[0].Backup)
			}
			again := runCodex(t, o)
			if again[0].Status != "unchanged" || again[1].Status != "unchanged" {
				t.Errorf("second run: %s %s\n%s", again[0].Status, again[1].Status, again[0].Diff)
			}
		})
	}
}

func TestCodexConfigRefusals(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"invalid":         {"model = \"o3\"\n[tools\n", "not valid TOML (line 3: expected"},
		"duplicate table": {"[mcp_servers.cairn]\ncommand = \"a\"\n[mcp_servers.cairn]\n", "not valid TOML"},
		"dotted":          {"mcp_servers.cairn.command = \"cairn\"\n", "line 1 defines mcp_servers.cairn with dotted keys or an inline table"},
		"dotted in table": {"[mcp_servers]\ncairn.command = \"cairn\"\n", "line 2 defines mcp_servers.cairn with dotted keys"},
		"inline server":   {"[mcp_servers]\ncairn = { command = \"cairn\", args = [] }\n", "line 2 defines mcp_servers.cairn"},
		"inline servers":  {"mcp_servers = { other = { command = \"x\" } }\n", "line 1 writes mcp_servers as an inline table"},
		"inline nested":   {"mcp_servers = { cairn = { command = \"x\" } }\n", "line 1 writes mcp_servers as an inline table"},
		"array of tables": {"[[mcp_servers.cairn]]\ncommand = \"x\"\n", "array of tables"},
		"servers kind":    {"mcp_servers = 3\n", "mcp_servers is an integer, not a table"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := codexOpts(t, "project")
			cfg := filepath.Join(o.ProjectDir, ".codex", "config.toml")
			write(t, cfg, tc.content)
			_, err := PlanCodex(o)
			if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), cfg) ||
				!strings.Contains(err.Error(), "changed no file") {
				t.Fatalf("error %v; want INVALID_INPUT naming %s and %q", err, cfg, tc.want)
			}
			if read(t, cfg) != tc.content {
				t.Error("the refused file changed")
			}
			if _, err := os.Stat(filepath.Join(o.ProjectDir, ".codex", "hooks.json")); !os.IsNotExist(err) {
				t.Error("hooks.json written although config.toml was refused")
			}
		})
	}
}

func TestCodexHooks(t *testing.T) {
	o := codexOpts(t, "user")
	hooks := filepath.Join(o.Home, ".codex", "hooks.json")
	write(t, hooks, `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]},
  {"matcher": "compact|resume", "hooks": [{"type": "command", "command": "/old/cairn hook codex"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "notify", "timeout": 5}]}]}, "note": "mine"}`)
	cs := runCodex(t, o)
	if cs[0].Path != filepath.Join(o.Home, ".codex", "config.toml") || cs[0].Status != "created" || cs[1].Status != "updated" {
		t.Fatalf("%s %s, %s %s", cs[0].Path, cs[0].Status, cs[1].Path, cs[1].Status)
	}
	if st, _ := os.Stat(cs[0].Path); st.Mode().Perm() != 0o600 {
		t.Errorf("user config.toml mode %v", st.Mode().Perm())
	}
	h := decode(t, read(t, hooks))
	if dig(t, h, "note") != "mine" || dig(t, h, "hooks", "Stop", 0, "hooks", 0, "command") != "notify" {
		t.Errorf("other keys lost: %v", h)
	}
	starts := dig(t, h, "hooks", "SessionStart").([]any)
	if len(starts) != 2 || dig(t, starts[0], "hooks", 0, "command") != "echo hi" ||
		dig(t, starts[1], "matcher") != "startup|resume|clear|compact|fork" ||
		dig(t, starts[1], "hooks", 0, "command") != "/opt/cairn/bin/cairn hook codex" || dig(t, starts[1], "hooks", 0, "timeout") != 10.0 {
		t.Errorf("SessionStart: %v", starts)
	}
	for ev, timeout := range map[string]float64{"PreCompact": 10, "PostCompact": 10, "SessionEnd": 3} {
		g := dig(t, h, "hooks", ev, 0).(map[string]any)
		if _, ok := g["matcher"]; ok || dig(t, g, "hooks", 0, "type") != "command" || dig(t, g, "hooks", 0, "timeout") != timeout ||
			dig(t, g, "hooks", 0, "command") != "/opt/cairn/bin/cairn hook codex" {
			t.Errorf("%s: %v", ev, g)
		}
	}
	// a claude-code hook in the same file is not cairn's Codex hook
	o.Workspace = "/srv/my ws"
	cs = runCodex(t, o)
	h = decode(t, read(t, hooks))
	if got := dig(t, h, "hooks", "SessionEnd", 0, "hooks", 0, "command"); got != "/opt/cairn/bin/cairn --workspace '/srv/my ws' hook codex" ||
		len(dig(t, h, "hooks", "SessionEnd").([]any)) != 1 {
		t.Errorf("workspace pin: %v", dig(t, h, "hooks", "SessionEnd"))
	}
	if !strings.Contains(read(t, cs[0].Path), `args = ["--workspace", "/srv/my ws", "mcp"]`) {
		t.Errorf("config.toml:\n%s", read(t, cs[0].Path))
	}
}

func TestCodexInvalidHooksRefusedBeforeAnyWrite(t *testing.T) {
	for name, content := range map[string]string{"comment": "{ // x\n}", "broken": `{"hooks": {`, "kind": `{"hooks": {"SessionEnd": {}}}`} {
		t.Run(name, func(t *testing.T) {
			o := codexOpts(t, "project")
			cfg := filepath.Join(o.ProjectDir, ".codex", "config.toml")
			hooks := filepath.Join(o.ProjectDir, ".codex", "hooks.json")
			write(t, cfg, "model = \"o3\"\n")
			write(t, hooks, content)
			_, err := PlanCodex(o)
			if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), hooks) || !strings.Contains(err.Error(), "changed no file") {
				t.Fatalf("error %v", err)
			}
			if name == "comment" && !strings.Contains(err.Error(), "which Codex's JSON settings files do not allow") {
				t.Errorf("message: %v", err)
			}
			if read(t, cfg) != "model = \"o3\"\n" || read(t, hooks) != content {
				t.Error("a file changed")
			}
		})
	}
}

func TestCodexPlanWritesNothing(t *testing.T) {
	o := codexOpts(t, "user")
	cs, err := PlanCodex(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Status != "created" || !strings.HasPrefix(c.Diff, "--- /dev/null\n+++ "+c.Path+"\n") {
			t.Errorf("%s %s\n%s", c.Path, c.Status, c.Diff)
		}
	}
	if _, err := os.Stat(o.Home); !os.IsNotExist(err) {
		t.Error("PlanCodex created the home folder")
	}
}

func TestCodexDir(t *testing.T) {
	o := codexOpts(t, "user")
	if d, _ := CodexDir(o); d != filepath.Join(o.Home, ".codex") {
		t.Errorf("user dir %s", d)
	}
	o.CodexHome = filepath.Join(t.TempDir(), "ch")
	if _, err := CodexDir(o); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not an existing folder") {
		t.Errorf("missing CODEX_HOME: %v", err)
	}
	if err := os.Mkdir(o.CodexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := runCodex(t, o)
	if filepath.Dir(cs[0].Path) != o.CodexHome || filepath.Dir(cs[1].Path) != o.CodexHome {
		t.Errorf("CODEX_HOME not honoured: %s %s", cs[0].Path, cs[1].Path)
	}
	o.Scope = "project"
	if d, _ := CodexDir(o); d != filepath.Join(o.ProjectDir, ".codex") {
		t.Errorf("project dir %s", d)
	}
	o.Scope = "local"
	if _, err := CodexDir(o); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "use user") {
		t.Errorf("bad scope: %v", err)
	}
}

func TestScanTOMLItems(t *testing.T) {
	src := "a = 1\n[t] # c\nb = [\n 1, # x\n 2]\nc = \"\"\"\nx\n\"\"\"\n"
	items, err := scanTOML([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, string(it.kind)+":"+strings.Join(it.path, ".")+":"+src[it.start:it.end])
	}
	want := []string{"k:a:a = 1\n", "h:t:[t] # c\n", "k:b:b = [\n 1, # x\n 2]\n", "k:c:c = \"\"\"\nx\n\"\"\"\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("items %q", got)
	}
}

// FuzzSetTOMLServer: on any input setTOMLServer either refuses or gives a document that parses,
// runs cairn, and keeps every other key (it checks that itself); it never panics, and a second
// edit of its own output changes nothing.
func FuzzSetTOMLServer(f *testing.F) {
	for _, s := range []string{"", "a = 1\n", "[mcp_servers.cairn]\ncommand = 'x'\n", "s = \"\"\"\n[x]\n\"\"\"\n", "[mcp_servers]\ncairn = {}\n",
		"t = 1979-05-27 07:32:00Z\n[mcp_servers.cairn.env]\nA = \"\"\"a\\\n b\"\"\"", "mcp_servers.x.command = \"y\"\r\n[a]\r\nb = [\r\n1,#c\r\n]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, changed, err := setTOMLServer([]byte(src), "cairn", "/opt/cairn", []string{"mcp"})
		if err != nil {
			return
		}
		if _, again, err := setTOMLServer(out, "cairn", "/opt/cairn", []string{"mcp"}); err != nil || again {
			t.Fatalf("second edit: changed %v, err %v (first changed %v)\n%s", again, err, changed, out)
		}
	})
}
