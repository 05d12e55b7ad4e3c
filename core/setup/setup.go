// Package setup registers cairn with Claude Code: `cairn mcp` as an MCP server and
// `cairn hook claude-code` as the SessionStart (every source), PreCompact and SessionEnd hook,
// merged into Claude Code's own settings files for a scope, or written as a plugin folder.
//
// Merging keeps every key it does not own, in its place; a second run changes nothing; a file
// that is not plain JSON is refused before anything is written.
package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// Scopes are Claude Code's configuration scopes, in the order they are documented.
var Scopes = []string{"project", "local", "user"}

// ServerName is the MCP server's name, so its tools are mcp__cairn__<Tool>.
const ServerName = "cairn"

// HookMatcher is the SessionStart matcher: every source Claude Code starts a session with. The hook
// restores the list after a compaction or resume, starts a forked session's list from its
// parent's and a cleared one's empty.
const HookMatcher = "startup|resume|clear|compact|fork"

// Tool is what the plugin's skill says about one cairn tool.
type Tool struct {
	Name        string
	Description string
	ReadOnly    bool
}

// Options say what to register and where.
type Options struct {
	// Scope is project, local or user (ignored with Plugin).
	Scope string
	// ProjectDir is the absolute directory Claude Code is started in (project and local scope).
	ProjectDir string
	// Home is the user's home directory; ConfigDir is $CLAUDE_CONFIG_DIR when set.
	Home      string
	ConfigDir string
	// Command is the cairn binary to run: an absolute path, or "cairn" (found on PATH; the
	// default of project scope, whose files are shared).
	Command string
	// Workspace, when set, is passed as --workspace to every command registered.
	Workspace string
	// Plugin, when set, is the plugin folder to write instead of settings files.
	Plugin string
	// Tools and Version describe cairn in the plugin.
	Tools   []Tool
	Version string
}

// Change is one file setup creates, updates or leaves alone.
type Change struct {
	Path   string `json:"path"`
	Status string `json:"status"` // created, updated or unchanged
	// What is the part of the file cairn owns, for the summary.
	What   string `json:"what"`
	Backup string `json:"backup,omitempty"`
	Diff   string `json:"diff,omitempty"`

	before, after []byte
	existed       bool
	noBackup      bool // lines are only added: no backup (a .gitignore)
	mode          fs.FileMode
}

// Files is where a scope keeps its MCP servers and its hooks.
type Files struct {
	MCP      string   // the JSON file holding mcpServers
	MCPPath  []string // object keys leading to mcpServers' parent ({} = the top level)
	Settings string   // the settings file holding hooks
}

// ScopeFiles resolves the files of a scope as Claude Code documents them: project scope shares
// .mcp.json and .claude/settings.json with the project; local scope keeps the server under the
// project's entry of ~/.claude.json and the hooks in .claude/settings.local.json; user scope uses
// the top level of ~/.claude.json and ~/.claude/settings.json. CLAUDE_CONFIG_DIR moves both
// .claude.json and settings.json into that directory.
func ScopeFiles(o Options) (Files, error) {
	cfgDir := o.ConfigDir
	global := filepath.Join(o.Home, ".claude.json")
	if cfgDir != "" {
		global = filepath.Join(cfgDir, ".claude.json")
	} else {
		cfgDir = filepath.Join(o.Home, ".claude")
	}
	switch o.Scope {
	case "project":
		return Files{MCP: filepath.Join(o.ProjectDir, ".mcp.json"), Settings: filepath.Join(o.ProjectDir, ".claude", "settings.json")}, nil
	case "local":
		return Files{MCP: global, MCPPath: []string{"projects", o.ProjectDir}, Settings: filepath.Join(o.ProjectDir, ".claude", "settings.local.json")}, nil
	case "user":
		return Files{MCP: global, Settings: filepath.Join(cfgDir, "settings.json")}, nil
	}
	return Files{}, errs.Invalidf("%s %q is not a scope; use project (shared .mcp.json and .claude/settings.json), local (just you, this project) or user (just you, every project)", errs.Field("scope", errs.Name), o.Scope)
}

// ServerArgs are the arguments of the registered MCP server.
func ServerArgs(o Options) []string { return serverArgs(o.Workspace) }

// serverArgs are the arguments of cairn's MCP server: [--workspace W] mcp.
func serverArgs(workspace string) []string {
	if workspace != "" {
		return []string{"--workspace", workspace, "mcp"}
	}
	return []string{"mcp"}
}

// HookCommand is the shell command line of the registered hook.
func HookCommand(o Options) string { return hookCommand(o.Command, o.Workspace, "claude-code") }

// hookCommand is the shell command line of a runtime's hook: command [--workspace W] hook RUNTIME.
func hookCommand(command, workspace, runtime string) string {
	cmd := shellQuote(command)
	if workspace != "" {
		cmd += " --workspace " + shellQuote(workspace)
	}
	return cmd + " hook " + runtime
}

// checkCommand refuses a cairn to register that is neither cairn (found on PATH) nor absolute.
func checkCommand(command string) error {
	if command != "cairn" && !filepath.IsAbs(command) {
		return errs.Invalidf("the cairn command to register must be cairn (found on PATH) or an absolute path, got %q", command)
	}
	return nil
}

// Plan works out every change without writing anything. It fails, naming the file, when a file
// cannot be read or is not a JSON object where one is needed.
func Plan(o Options) ([]*Change, error) {
	if err := checkCommand(o.Command); err != nil {
		return nil, err
	}
	if o.Plugin != "" {
		return planPlugin(o)
	}
	f, err := ScopeFiles(o)
	if err != nil {
		return nil, err
	}
	var out []*Change
	mcpMode := fs.FileMode(0o644)
	if filepath.Base(f.MCP) == ".claude.json" {
		mcpMode = 0o600 // it holds the user's account and history
	}
	c, err := planJSON(f.MCP, mcpMode, "mcpServers."+ServerName, claudeCode, func(root *node) (bool, error) {
		return setServer(root, f.MCPPath, o)
	})
	if err != nil {
		return nil, err
	}
	out = append(out, c)
	c, err = planJSON(f.Settings, 0o644, HooksWhat, claudeCode, func(root *node) (bool, error) {
		return setHooks(root, claudeHookEvents, HookCommand(o), "claude-code")
	})
	if err != nil {
		return nil, err
	}
	return append(out, c), nil
}

// claudeCode names Claude Code in messages about its files.
const claudeCode = "Claude Code"

// planJSON reads path (missing = empty), lets edit change the document and records the result;
// app names the program whose file it is, for messages.
func planJSON(path string, mode fs.FileMode, what, app string, edit func(*node) (bool, error)) (*Change, error) {
	return planEdit(path, mode, what, func(data []byte, existed bool) ([]byte, bool, error) {
		root, err := parseDoc(data, app)
		if err != nil {
			return nil, false, err
		}
		if root.kind != 'o' {
			return nil, false, notObject(root.kindName())
		}
		changed, err := edit(root)
		if err != nil {
			return nil, false, err
		}
		after := root.bytes()
		if existed && !bytes.HasSuffix(data, []byte("\n")) {
			after = bytes.TrimSuffix(after, []byte("\n"))
		}
		return after, changed, nil
	})
}

// notObject refuses a JSON file that holds another kind of value than an object.
type notObject string

func (k notObject) Error() string { return "holds " + string(k) + ", not a JSON object" }

// planEdit reads path (missing = empty) and lets edit change its text, told whether the file
// exists; a refused edit names the file and says that nothing changed.
func planEdit(path string, mode fs.FileMode, what string, edit func(data []byte, existed bool) ([]byte, bool, error)) (*Change, error) {
	c := &Change{Path: path, What: what, mode: mode}
	data, existed, mode, err := readExisting(path)
	if err != nil {
		return nil, err
	}
	if existed {
		c.existed, c.before, c.mode = true, data, mode
	}
	after, changed, err := edit(data, existed)
	var whole notObject
	switch {
	case errors.As(err, &whole):
		return nil, errs.Invalidf("%s %v; cairn setup changed no file", path, err)
	case err != nil:
		return nil, errs.Invalidf("%s: %v; cairn setup changed no file", path, err)
	}
	if !changed && c.existed {
		c.Status = "unchanged"
		c.after = c.before
		return c, nil
	}
	c.after = after
	c.finish()
	return c, nil
}

// finish sets the status and the diff from before and after.
func (c *Change) finish() {
	switch {
	case !c.existed:
		c.Status = "created"
	case bytes.Equal(c.before, c.after):
		c.Status = "unchanged"
		return
	default:
		c.Status = "updated"
	}
	c.Diff = unifiedDiff(c.Path, c.before, c.after, c.existed)
}

// object returns the object under key, creating it when missing; a value of another kind is an error.
func object(parent *node, key, where string) (*node, error) {
	v := parent.get(key)
	if v == nil {
		v = newObject()
		parent.set(key, v)
		return v, nil
	}
	if v.kind != 'o' {
		return nil, fmt.Errorf("%s is %s, not an object", where+key, v.kindName())
	}
	return v, nil
}

// setServer makes mcpServers.cairn run this cairn; other keys of the entry (env, ...) stay.
func setServer(root *node, path []string, o Options) (bool, error) {
	parent, where := root, ""
	for _, k := range path {
		var err error
		if parent, err = object(parent, k, where); err != nil {
			return false, err
		}
		where += k + "."
	}
	servers, err := object(parent, "mcpServers", where)
	if err != nil {
		return false, err
	}
	return setEntry(servers, []keyVal{{"type", scalar("stdio")}, {"command", scalar(o.Command)}, {"args", stringArray(ServerArgs(o))}},
		keyVal{"env", newObject()}), nil
}

// keyVal is a key of a JSON object and the value cairn gives it.
type keyVal struct {
	key string
	val *node
}

// setEntry makes the cairn entry of servers hold vals, its other keys kept; an entry that is
// missing (or no object) is made, with fresh after vals. It reports whether anything changed.
func setEntry(servers *node, vals []keyVal, fresh ...keyVal) bool {
	entry := servers.get(ServerName)
	if entry == nil || entry.kind != 'o' {
		entry = newObject()
		vals = append(vals, fresh...)
		servers.set(ServerName, entry)
	}
	changed := false
	for _, kv := range vals {
		if cur := entry.get(kv.key); cur == nil || !cur.equal(kv.val) {
			entry.set(kv.key, kv.val)
			changed = true
		}
	}
	return changed
}

// hookEvent is an event cairn's hook answers, with its matcher ("" = every occasion) and the
// timeout to register in seconds (0 = none, the runtime's default).
type hookEvent struct {
	event, matcher string
	timeout        int
}

// claudeHookEvents are Claude Code's. SessionEnd lets the hook link a cleared session to the
// one that follows it.
var claudeHookEvents = []hookEvent{
	{"SessionStart", HookMatcher, 0},
	{"PreCompact", "", 0},
	{"SessionEnd", "", 0},
}

// HooksWhat names the hooks cairn owns in a settings file, for the summary.
const HooksWhat = "hooks SessionStart, PreCompact, SessionEnd"

// isCairnHook recognises a hook this or another cairn binary registered for runtime
// (claude-code, codex).
func isCairnHook(cmd, runtime string) bool {
	return strings.HasSuffix(strings.TrimSpace(cmd), " hook "+runtime) && strings.Contains(cmd, "cairn")
}

// setHooks makes each event run command once, in a group of its own with cairn's matcher. A
// cairn hook for runtime registered before (another binary path, matcher or timeout) is
// replaced; other hooks stay.
func setHooks(root *node, events []hookEvent, command, runtime string) (bool, error) {
	hooks, err := object(root, "hooks", "")
	if err != nil {
		return false, err
	}
	changed := false
	for _, he := range events {
		list := hooks.get(he.event)
		if list == nil {
			list = &node{kind: 'a'}
			hooks.set(he.event, list)
		}
		if list.kind != 'a' {
			return false, fmt.Errorf("hooks.%s is %s, not an array", he.event, list.kindName())
		}
		want := hookGroup(he.matcher, command, he.timeout)
		found := false
		var kept []*node
		for _, g := range list.items {
			if g.equal(want) && !found {
				found = true
				kept = append(kept, g)
				continue
			}
			g2, dropped := withoutCairnHooks(g, runtime)
			if dropped {
				changed = true
				if g2 == nil {
					continue
				}
			}
			kept = append(kept, g2)
		}
		if !found {
			kept = append(kept, want)
			changed = true
		}
		list.items = kept
	}
	return changed, nil
}

func hookGroup(matcher, command string, timeout int) *node {
	g := newObject()
	if matcher != "" {
		g.set("matcher", scalar(matcher))
	}
	h := newObject()
	h.set("type", scalar("command"))
	h.set("command", scalar(command))
	if timeout > 0 {
		h.set("timeout", scalar(timeout))
	}
	g.set("hooks", &node{kind: 'a', items: []*node{h}})
	return g
}

// withoutCairnHooks drops cairn's hooks from a group; nil when the group held only those.
func withoutCairnHooks(g *node, runtime string) (*node, bool) {
	if g.kind != 'o' {
		return g, false
	}
	hs := g.get("hooks")
	if hs == nil || hs.kind != 'a' {
		return g, false
	}
	var rest []*node
	for _, h := range hs.items {
		if h.kind == 'o' {
			if cmd, ok := h.get("command").str(); ok && isCairnHook(cmd, runtime) {
				continue
			}
		}
		rest = append(rest, h)
	}
	if len(rest) == len(hs.items) {
		return g, false
	}
	if len(rest) == 0 {
		return nil, true
	}
	ng := &node{kind: 'o', keys: append([]string(nil), g.keys...), vals: append([]*node(nil), g.vals...)}
	ng.set("hooks", &node{kind: 'a', items: rest})
	return ng, true
}

// shellQuote quotes s for the POSIX shell Claude Code runs hook commands with.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' || r == '=' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
