package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/core/errs"
)

// PluginFiles are the files of the plugin folder, relative to it, in Claude Code's plugin layout.
var PluginFiles = []string{
	".claude-plugin/plugin.json",
	".mcp.json",
	"hooks/hooks.json",
	"skills/cairn/SKILL.md",
}

// PluginToolPrefix is how Claude Code names the tools of a plugin's MCP server:
// mcp__plugin_<plugin>_<server>__<tool>.
const PluginToolPrefix = "mcp__plugin_cairn_" + ServerName + "__"

const pluginDescription = "cairn: a session task list that survives compaction, project memory and knowledge, and search over earlier work"

var semver = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$`) })

func planPlugin(o Options) ([]*Change, error) {
	dir := o.Plugin
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, errs.Invalidf("%s %s is a file; give a folder (it is created when missing)", errs.Field("plugin", errs.Name), dir)
	}
	var out []*Change
	add := func(c *Change, err error) error {
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	err := add(planJSON(p(PluginFiles[0]), 0o644, "name, description, version", claudeCode, func(root *node) (bool, error) {
		changed := false
		set := func(k string, v any) {
			if cur := root.get(k); cur == nil || !cur.equal(scalar(v)) {
				root.set(k, scalar(v))
				changed = true
			}
		}
		set("name", "cairn")
		set("description", pluginDescription)
		set("version", pluginVersion(o.Version))
		return changed, nil
	}))
	if err == nil {
		err = add(planJSON(p(PluginFiles[1]), 0o644, "mcpServers."+ServerName, claudeCode, func(root *node) (bool, error) {
			return setServer(root, nil, o)
		}))
	}
	if err == nil {
		err = add(planJSON(p(PluginFiles[2]), 0o644, HooksWhat, claudeCode, func(root *node) (bool, error) {
			changed := false
			if root.get("description") == nil {
				root.set("description", scalar("cairn keeps the session task list across compaction, resume, fork and clear"))
				changed = true
			}
			hc, err := setHooks(root, claudeHookEvents, HookCommand(o), "claude-code")
			return changed || hc, err
		}))
	}
	if err == nil {
		err = add(planText(p(PluginFiles[3]), "the cairn skill", []byte(Skill(o.Tools))))
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pluginVersion is cairn's version as the semver Claude Code asks plugins for; a development
// build (dev-<revision>) becomes a 0.0.0 pre-release.
func pluginVersion(v string) string {
	if m := semver().FindStringSubmatch(v); m != nil {
		return m[1]
	}
	clean := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, v)
	clean = strings.Trim(strings.ReplaceAll(clean, "..", "."), ".-")
	if clean == "" {
		clean = "dev"
	}
	return "0.0.0-" + clean
}

// planText replaces a whole file cairn owns.
func planText(path, what string, content []byte) (*Change, error) {
	c := &Change{Path: path, What: what, mode: 0o644, after: content}
	data, existed, _, err := readExisting(path)
	if err != nil {
		return nil, err
	}
	c.existed, c.before = existed, data
	c.finish()
	return c, nil
}

// Skill is the SKILL.md that tells the model when to reach for each cairn tool; the tool list
// comes from the registry (`cairn tools list --json`), so it never drifts from the server.
func Skill(tools []Tool) string {
	var sb strings.Builder
	sb.WriteString(`---
name: cairn
description: Use the cairn MCP tools (` + PluginToolPrefix + `*) to plan multi-step work as a task list that survives context compaction and resume, to check project memory and knowledge before deciding or redoing something, and to search earlier tasks and board cards for how similar work was done.
---

# cairn

cairn keeps this project's working state outside the context window. Its tools are served by the
plugin's ` + "`cairn`" + ` MCP server, so their full names are ` + "`" + PluginToolPrefix + "<Tool>`" + `.

When to use them:

- **Starting work with more than one step**: create one task per concrete step with TaskCreate
  before you begin, mark each inprogress when you start it and completed as soon as it is done
  (TaskUpdate). Do not record work you did not plan.
- **After a compaction, a resume, or whenever you lose track**: call TaskList first and carry on
  from the open tasks instead of re-planning.
- **Before deciding something or repeating a request**: search the project memory
  (MemorySearch) and knowledge (KnowledgeSearch), then read the entry you need (MemoryRead).
  Record a new decision with MemoryWrite, or change part of an entry with MemoryEdit.
- **Starting on an unfamiliar area**: look for earlier work (SearchWorkspaceTasks for the other
  tasks of your space, flowly_search for earlier board cards) to reuse what was done and how it
  was verified.

## Tools

`)
	for _, t := range tools {
		mode := "writes"
		if t.ReadOnly {
			mode = "read-only"
		}
		fmt.Fprintf(&sb, "- `%s%s` (%s): %s\n", PluginToolPrefix, t.Name, mode, strings.TrimSpace(t.Description))
	}
	return sb.String()
}
