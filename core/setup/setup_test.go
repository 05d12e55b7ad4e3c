package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

func opts(t *testing.T, scope string) Options {
	t.Helper()
	dir := t.TempDir()
	proj := filepath.Join(dir, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return Options{Scope: scope, ProjectDir: proj, Home: filepath.Join(dir, "home"), Command: "/opt/cairn/bin/cairn"}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func run(t *testing.T, o Options) []*Change {
	t.Helper()
	cs, err := Plan(o)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if err := Apply(cs, time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return cs
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v in:\n%s", err, s)
	}
	return m
}

// dig follows keys through nested objects and arrays (numeric keys index arrays).
func dig(t *testing.T, v any, keys ...any) any {
	t.Helper()
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("not an object at %q: %v", k, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("no item %d in %v", k, v)
			}
			v = a[k]
		}
	}
	return v
}

func TestProjectScopeMergesAndKeepsUserKeys(t *testing.T) {
	o := opts(t, "project")
	mcp := filepath.Join(o.ProjectDir, ".mcp.json")
	settings := filepath.Join(o.ProjectDir, ".claude", "settings.json")
	write(t, mcp, `{
  "mcpServers": {
    "github": {"command": "gh-mcp", "args": [], "env": {"TOKEN": "x"}}
  },
  "zzz": 1.50
}`)
	write(t, settings, `{"permissions": {"allow": ["Bash(go test:*)"]}, "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}], "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}, "model": "opus"}`)

	cs := run(t, o)
	if cs[0].Status != "updated" || cs[1].Status != "updated" {
		t.Fatalf("statuses %s, %s; want updated twice", cs[0].Status, cs[1].Status)
	}
	got := read(t, mcp)
	m := decode(t, got)
	if dig(t, m, "mcpServers", "github", "env", "TOKEN") != "x" || dig(t, m, "zzz") != 1.5 {
		t.Errorf("user keys lost:\n%s", got)
	}
	if !strings.Contains(got, `"zzz": 1.50`) {
		t.Errorf("number not kept as written:\n%s", got)
	}
	if strings.Index(got, `"github"`) > strings.Index(got, `"cairn"`) || strings.Index(got, `"cairn"`) > strings.Index(got, `"zzz"`) {
		t.Errorf("key order changed:\n%s", got)
	}
	if dig(t, m, "mcpServers", "cairn", "command") != o.Command || dig(t, m, "mcpServers", "cairn", "args", 0) != "mcp" ||
		dig(t, m, "mcpServers", "cairn", "type") != "stdio" {
		t.Errorf("cairn server wrong:\n%s", got)
	}

	s := decode(t, read(t, settings))
	if dig(t, s, "model") != "opus" || dig(t, s, "permissions", "allow", 0) != "Bash(go test:*)" ||
		dig(t, s, "hooks", "Stop", 0, "hooks", 0, "command") != "notify" {
		t.Errorf("settings keys lost: %v", s)
	}
	if dig(t, s, "hooks", "SessionStart", 0, "hooks", 0, "command") != "echo hi" {
		t.Errorf("the user's SessionStart hook is gone: %v", s)
	}
	if dig(t, s, "hooks", "SessionStart", 1, "matcher") != HookMatcher ||
		dig(t, s, "hooks", "SessionStart", 1, "hooks", 0, "command") != "/opt/cairn/bin/cairn hook claude-code" {
		t.Errorf("cairn SessionStart hook missing: %v", dig(t, s, "hooks", "SessionStart"))
	}
	for _, ev := range []string{"PreCompact", "SessionEnd"} {
		pc := dig(t, s, "hooks", ev, 0).(map[string]any)
		if _, ok := pc["matcher"]; ok || dig(t, pc, "hooks", 0, "command") != "/opt/cairn/bin/cairn hook claude-code" {
			t.Errorf("%s hook wrong: %v", ev, pc)
		}
	}

	// backups hold the files as they were
	for i, c := range cs {
		if c.Backup == "" || !strings.HasSuffix(c.Backup, ".cairn-backup-20261201T060000Z") {
			t.Fatalf("file %d: backup %q", i, c.Backup)
		}
	}
	if b := read(t, cs[0].Backup); !strings.Contains(b, `"zzz": 1.50`) || strings.Contains(b, "cairn") {
		t.Errorf("backup is not the old .mcp.json:\n%s", b)
	}
}

func TestSecondRunChangesNothing(t *testing.T) {
	for _, scope := range Scopes {
		t.Run(scope, func(t *testing.T) {
			o := opts(t, scope)
			first := run(t, o)
			var before []string
			for _, c := range first {
				if c.Status != "created" {
					t.Fatalf("%s: %s, want created", c.Path, c.Status)
				}
				before = append(before, read(t, c.Path))
			}
			st, _ := os.Stat(first[0].Path)
			second := run(t, o)
			for i, c := range second {
				if c.Status != "unchanged" || c.Backup != "" || c.Diff != "" {
					t.Errorf("%s: second run %s backup %q diff %q", c.Path, c.Status, c.Backup, c.Diff)
				}
				if read(t, c.Path) != before[i] {
					t.Errorf("%s changed on the second run", c.Path)
				}
			}
			if st2, _ := os.Stat(first[0].Path); !st2.ModTime().Equal(st.ModTime()) {
				t.Errorf("%s rewritten on the second run", first[0].Path)
			}
			backups, _ := filepath.Glob(filepath.Join(filepath.Dir(first[0].Path), "*.cairn-backup-*"))
			if len(backups) != 0 {
				t.Errorf("backups made by a run that changed nothing: %v", backups)
			}
		})
	}
}

func TestScopeFiles(t *testing.T) {
	o := opts(t, "local")
	cs := run(t, o)
	if want := filepath.Join(o.Home, ".claude.json"); cs[0].Path != want {
		t.Errorf("local MCP file %s, want %s", cs[0].Path, want)
	}
	if want := filepath.Join(o.ProjectDir, ".claude", "settings.local.json"); cs[1].Path != want {
		t.Errorf("local settings %s, want %s", cs[1].Path, want)
	}
	m := decode(t, read(t, cs[0].Path))
	if dig(t, m, "projects", o.ProjectDir, "mcpServers", "cairn", "command") != o.Command {
		t.Errorf("local server not under the project's entry: %v", m)
	}
	if st, _ := os.Stat(cs[0].Path); st.Mode().Perm() != 0o600 {
		t.Errorf(".claude.json created with mode %v, want 0600", st.Mode().Perm())
	}

	u := opts(t, "user")
	u.ConfigDir = filepath.Join(u.Home, "cfg")
	cs = run(t, u)
	if cs[0].Path != filepath.Join(u.ConfigDir, ".claude.json") || cs[1].Path != filepath.Join(u.ConfigDir, "settings.json") {
		t.Errorf("user scope with CLAUDE_CONFIG_DIR: %s, %s", cs[0].Path, cs[1].Path)
	}
	if dig(t, decode(t, read(t, cs[0].Path)), "mcpServers", "cairn", "command") != u.Command {
		t.Errorf("user server not at the top level")
	}
	u.ConfigDir = ""
	f, _ := ScopeFiles(u)
	if f.MCP != filepath.Join(u.Home, ".claude.json") || f.Settings != filepath.Join(u.Home, ".claude", "settings.json") {
		t.Errorf("user scope files %+v", f)
	}
	if _, err := ScopeFiles(Options{Scope: "global"}); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "project") {
		t.Errorf("bad scope: %v", err)
	}
}

func TestLocalScopeKeepsOtherProjects(t *testing.T) {
	o := opts(t, "local")
	global := filepath.Join(o.Home, ".claude.json")
	write(t, global, `{"numStartups": 3, "projects": {"/else": {"allowedTools": [], "mcpServers": {"x": {"command": "x"}}}, "`+o.ProjectDir+`": {"history": [{"display": "hi"}]}}, "userID": "abc"}`)
	run(t, o)
	m := decode(t, read(t, global))
	if dig(t, m, "numStartups") != 3.0 || dig(t, m, "userID") != "abc" || dig(t, m, "projects", "/else", "mcpServers", "x", "command") != "x" ||
		dig(t, m, "projects", o.ProjectDir, "history", 0, "display") != "hi" || dig(t, m, "projects", o.ProjectDir, "mcpServers", "cairn", "args", 0) != "mcp" {
		t.Errorf("merge into ~/.claude.json lost something: %v", m)
	}
}

func TestRefusesWhatIsNotPlainJSON(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"line comment":  {"{\n  // my servers\n  \"mcpServers\": {}\n}", "comments"},
		"block comment": {"{ /* x */ }", "comments"},
		"trailing":      {`{"a": 1,}`, "line 1, column"},
		"truncated":     {`{"hooks": {`, "not valid JSON"},
		"array":         {`[1, 2]`, "not a JSON object"},
		"servers kind":  {`{"mcpServers": []}`, "mcpServers is an array, not an object"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := opts(t, "project")
			settings := filepath.Join(o.ProjectDir, ".claude", "settings.json")
			mcp := filepath.Join(o.ProjectDir, ".mcp.json")
			write(t, mcp, tc.content)
			_, err := Plan(o)
			if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), mcp) || !strings.Contains(err.Error(), "changed no file") {
				t.Fatalf("error %v; want INVALID_INPUT naming %s and %q", err, mcp, tc.want)
			}
			if read(t, mcp) != tc.content {
				t.Error("the refused file changed")
			}
			if _, err := os.Stat(settings); !os.IsNotExist(err) {
				t.Error("settings written although .mcp.json was refused")
			}
		})
	}
	// a string holding // is not a comment
	o := opts(t, "project")
	write(t, filepath.Join(o.ProjectDir, ".mcp.json"), `{"mcpServers": {"w": {"url": "https://x/y", "note": "a \"q\" //"}}}`)
	if _, err := Plan(o); err != nil {
		t.Errorf("URL in a string taken for a comment: %v", err)
	}
	// hooks of the wrong kind in settings
	o = opts(t, "project")
	write(t, filepath.Join(o.ProjectDir, ".claude", "settings.json"), `{"hooks": {"PreCompact": {"hooks": []}}}`)
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), "hooks.PreCompact is an object, not an array") {
		t.Errorf("hooks.PreCompact object: %v", err)
	}
}

func TestWhitespaceFileIsEmpty(t *testing.T) {
	o := opts(t, "project")
	write(t, filepath.Join(o.ProjectDir, ".mcp.json"), "\n")
	cs := run(t, o)
	if cs[0].Status != "updated" || dig(t, decode(t, read(t, cs[0].Path)), "mcpServers", "cairn", "command") != o.Command {
		t.Errorf("empty .mcp.json: %s", cs[0].Status)
	}
}

func TestMovedBinaryReplacesOldHookAndServer(t *testing.T) {
	o := opts(t, "project")
	run(t, o)
	o.Command = "/usr/local/bin/cairn"
	o.Workspace = "/srv/my ws"
	cs := run(t, o)
	if cs[0].Status != "updated" || cs[1].Status != "updated" {
		t.Fatalf("statuses %s %s", cs[0].Status, cs[1].Status)
	}
	s := decode(t, read(t, cs[1].Path))
	for _, ev := range []string{"SessionStart", "PreCompact", "SessionEnd"} {
		groups := dig(t, s, "hooks", ev).([]any)
		if len(groups) != 1 {
			t.Fatalf("%s: %d groups, want the old cairn hook replaced: %v", ev, len(groups), groups)
		}
		if got := dig(t, groups[0], "hooks", 0, "command"); got != "/usr/local/bin/cairn --workspace '/srv/my ws' hook claude-code" {
			t.Errorf("%s command %q", ev, got)
		}
	}
	m := decode(t, read(t, cs[0].Path))
	args := dig(t, m, "mcpServers", "cairn", "args").([]any)
	if len(args) != 3 || args[0] != "--workspace" || args[1] != "/srv/my ws" || args[2] != "mcp" {
		t.Errorf("args %v", args)
	}
}

// A setup made when cairn's SessionStart matcher was compact|resume (and had no SessionEnd hook)
// is upgraded in place: the old group goes, the user's own hooks stay, a third run changes nothing.
func TestOldMatcherUpgraded(t *testing.T) {
	o := opts(t, "project")
	settings := filepath.Join(o.ProjectDir, ".claude", "settings.json")
	write(t, settings, `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [{"type": "command", "command": "echo hi"}]
      },
      {
        "matcher": "compact|resume",
        "hooks": [{"type": "command", "command": "/opt/cairn/bin/cairn hook claude-code"}]
      }
    ],
    "PreCompact": [
      {"hooks": [{"type": "command", "command": "/opt/cairn/bin/cairn hook claude-code"}]}
    ]
  }
}
`)
	cs := run(t, o)
	if cs[1].Status != "updated" || !strings.Contains(cs[1].Diff, `-        "matcher": "compact|resume",`) {
		t.Fatalf("status %s, diff:\n%s", cs[1].Status, cs[1].Diff)
	}
	s := decode(t, read(t, settings))
	starts := dig(t, s, "hooks", "SessionStart").([]any)
	if len(starts) != 2 || dig(t, starts[0], "hooks", 0, "command") != "echo hi" ||
		dig(t, starts[1], "matcher") != "startup|resume|clear|compact|fork" ||
		dig(t, starts[1], "hooks", 0, "command") != "/opt/cairn/bin/cairn hook claude-code" {
		t.Errorf("SessionStart after the upgrade: %v", starts)
	}
	for _, ev := range []string{"PreCompact", "SessionEnd"} {
		if groups := dig(t, s, "hooks", ev).([]any); len(groups) != 1 || dig(t, groups[0], "hooks", 0, "command") != "/opt/cairn/bin/cairn hook claude-code" {
			t.Errorf("%s after the upgrade: %v", ev, groups)
		}
	}
	if cs := run(t, o); cs[1].Status != "unchanged" {
		t.Errorf("run after the upgrade: %s\n%s", cs[1].Status, cs[1].Diff)
	}
}

func TestKeepsServerEnvAndSiblingHooks(t *testing.T) {
	o := opts(t, "project")
	write(t, filepath.Join(o.ProjectDir, ".mcp.json"), `{"mcpServers": {"cairn": {"command": "cairn", "args": ["mcp"], "env": {"CAIRN_USER": "ann"}}}}`)
	write(t, filepath.Join(o.ProjectDir, ".claude", "settings.json"), `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "cairn hook claude-code"}, {"type": "command", "command": "backup.sh"}]}]}}`)
	cs := run(t, o)
	m := decode(t, read(t, cs[0].Path))
	if dig(t, m, "mcpServers", "cairn", "env", "CAIRN_USER") != "ann" || dig(t, m, "mcpServers", "cairn", "command") != o.Command {
		t.Errorf("server entry: %v", m)
	}
	s := decode(t, read(t, cs[1].Path))
	groups := dig(t, s, "hooks", "PreCompact").([]any)
	if len(groups) != 2 || dig(t, groups[0], "hooks", 0, "command") != "backup.sh" || len(dig(t, groups[0], "hooks").([]any)) != 1 ||
		dig(t, groups[1], "hooks", 0, "command") != "/opt/cairn/bin/cairn hook claude-code" {
		t.Errorf("PreCompact groups: %v", groups)
	}
}

func TestPlanWritesNothing(t *testing.T) {
	o := opts(t, "local")
	cs, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Status != "created" || !strings.HasPrefix(c.Diff, "--- /dev/null\n+++ "+c.Path+"\n@@ -0,0 +1,") {
			t.Errorf("%s: %s, diff:\n%s", c.Path, c.Status, c.Diff)
		}
		if _, err := os.Stat(c.Path); !os.IsNotExist(err) {
			t.Errorf("Plan created %s", c.Path)
		}
	}
	if _, err := os.Stat(o.Home); !os.IsNotExist(err) {
		t.Error("Plan created the home folder")
	}
}

func TestWritesThroughSymlink(t *testing.T) {
	o := opts(t, "user")
	real := filepath.Join(t.TempDir(), "dotfiles", "claude.json")
	write(t, real, `{"theme": "dark"}`)
	if err := os.MkdirAll(o.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(o.Home, ".claude.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	run(t, o)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	if m := decode(t, read(t, real)); dig(t, m, "theme") != "dark" || dig(t, m, "mcpServers", "cairn", "command") != o.Command {
		t.Errorf("target: %v", m)
	}
}

func TestUnifiedDiff(t *testing.T) {
	// 7 unchanged lines between the changes: two hunks (6 would join them, as diff -u does)
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	after := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := "--- f\n+++ f\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n@@ -9,3 +9,4 @@\n i\n j\n k\n+l\n"
	if got := unifiedDiff("f", []byte(before), []byte(after), true); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := unifiedDiff("f", []byte(before), []byte(before), true); got != "" {
		t.Errorf("equal files diff %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/cairn":   "/usr/bin/cairn",
		"/My Tools/cairn":  "'/My Tools/cairn'",
		"/it's/cairn":      `'/it'\''s/cairn'`,
		"/a/$HOME/`x`/b":   "'/a/$HOME/`x`/b'",
		"C:/Program/cairn": "C:/Program/cairn",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPlugin(t *testing.T) {
	o := opts(t, "")
	o.Plugin = filepath.Join(t.TempDir(), "cairn-plugin")
	o.Version = "v1.4.0"
	o.Tools = []Tool{{Name: "TaskCreate", Description: "Add a task. Use it to plan.", ReadOnly: false}, {Name: "TaskList", Description: "List them.", ReadOnly: true}}
	cs := run(t, o)
	if len(cs) != len(PluginFiles) {
		t.Fatalf("%d files", len(cs))
	}
	for i, c := range cs {
		if c.Path != filepath.Join(o.Plugin, filepath.FromSlash(PluginFiles[i])) || c.Status != "created" {
			t.Errorf("%s %s", c.Path, c.Status)
		}
	}
	p := decode(t, read(t, cs[0].Path))
	if p["name"] != "cairn" || p["version"] != "1.4.0" {
		t.Errorf("plugin.json %v", p)
	}
	if dig(t, decode(t, read(t, cs[1].Path)), "mcpServers", "cairn", "command") != o.Command {
		t.Error("plugin .mcp.json")
	}
	if dig(t, decode(t, read(t, cs[2].Path)), "hooks", "SessionStart", 0, "matcher") != HookMatcher {
		t.Error("plugin hooks.json")
	}
	skill := read(t, cs[3].Path)
	for _, want := range []string{"---\nname: cairn\ndescription: ", "- `mcp__plugin_cairn_cairn__TaskCreate` (writes): Add a task. Use it to plan.", "- `mcp__plugin_cairn_cairn__TaskList` (read-only): List them."} {
		if !strings.Contains(skill, want) {
			t.Errorf("SKILL.md lacks %q:\n%s", want, skill)
		}
	}
	for _, c := range run(t, o) {
		if c.Status != "unchanged" {
			t.Errorf("second plugin run: %s %s", c.Path, c.Status)
		}
	}
	o.Tools = o.Tools[:1]
	cs = run(t, o)
	if cs[3].Status != "updated" || cs[3].Backup == "" || !strings.Contains(read(t, cs[3].Backup), "TaskList") {
		t.Errorf("changed skill: %s backup %q", cs[3].Status, cs[3].Backup)
	}

	// a dev build's version becomes a semver pre-release
	o2 := opts(t, "")
	o2.Plugin = filepath.Join(t.TempDir(), "p")
	o2.Version = "dev-abc123-dirty"
	cs = run(t, o2)
	if v := decode(t, read(t, cs[0].Path))["version"]; v != "0.0.0-dev-abc123-dirty" {
		t.Errorf("dev version written as %v", v)
	}
	for in, want := range map[string]string{"v2.0.1": "2.0.1", "1.2.3-rc.1": "1.2.3-rc.1", "": "0.0.0-dev", "dev+x/y": "0.0.0-dev-x-y"} {
		if got := pluginVersion(in); got != want {
			t.Errorf("pluginVersion(%q) = %q, want %q", in, got, want)
		}
	}
	f := filepath.Join(t.TempDir(), "file")
	write(t, f, "x")
	o2.Plugin = f
	if _, err := Plan(o2); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("plugin over a file: %v", err)
	}
}

func TestRelativeCommandRefused(t *testing.T) {
	o := opts(t, "user")
	o.Command = "bin/cairn" // "cairn" alone is cairn from PATH
	if _, err := Plan(o); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative command: %v", err)
	}
}
