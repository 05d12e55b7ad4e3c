package setup

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// `cairn setup opencode` registers cairn with OpenCode (1.18.33): in opencode.json, `mcp.cairn =
// {type: "local", command: [cairn, "mcp"], enabled: true}` (OpenCode names its tools cairn_*),
// and a plugin file beside it (plugin/cairn.js) that tags every cairn call with its session and
// runs `cairn hook opencode` at compaction and when a session comes back. Project scope writes
// <project>/opencode.json and <project>/.opencode/plugin/cairn.js and runs `cairn` from PATH (a
// folder you may commit); user scope writes $XDG_CONFIG_HOME/opencode/ (~/.config/opencode/)
// with this binary's absolute path.

// OpenCodeScopes are where `cairn setup opencode` can register, the default first.
var OpenCodeScopes = []string{"project", "user"}

// OpenCodeOptions say what to register with OpenCode and where.
type OpenCodeOptions struct {
	Scope      string
	ProjectDir string
	Home       string
	// ConfigHome is $XDG_CONFIG_HOME when set.
	ConfigHome string
	// Command is the absolute path of the cairn binary (user scope); Workspace, when set, is
	// passed as --workspace.
	Command   string
	Workspace string
	// CommandSet says Command was given outright: project scope registers it too.
	CommandSet bool
}

//go:embed opencode/cairn.js
var openCodePlugin string

// OpenCodeFiles are the scope's opencode.json and plugin file.
func OpenCodeFiles(o OpenCodeOptions) (config, plugin string, err error) {
	switch o.Scope {
	case "project":
		return filepath.Join(o.ProjectDir, "opencode.json"), filepath.Join(o.ProjectDir, ".opencode", "plugin", "cairn.js"), nil
	case "user":
		dir := filepath.Join(o.Home, ".config", "opencode")
		if o.ConfigHome != "" && filepath.IsAbs(o.ConfigHome) {
			dir = filepath.Join(o.ConfigHome, "opencode")
		}
		return filepath.Join(dir, "opencode.json"), filepath.Join(dir, "plugin", "cairn.js"), nil
	}
	return "", "", errs.Invalidf("%s %q is not an OpenCode scope; use project (opencode.json and .opencode/ in the project, cairn from PATH) or user (~/.config/opencode: just you, every project)", errs.Field("scope", errs.Name), o.Scope)
}

// OpenCodeCommand is the argv prefix of every cairn command registered: cairn from PATH in
// project scope, the absolute binary in user scope, then --workspace when given.
func OpenCodeCommand(o OpenCodeOptions) []string {
	cmd := []string{"cairn"}
	if o.Scope == "user" || o.CommandSet {
		cmd = []string{o.Command}
	}
	if o.Workspace != "" {
		cmd = append(cmd, "--workspace", o.Workspace)
	}
	return cmd
}

// OpenCodePlugin is the plugin file's text for a command.
func OpenCodePlugin(command []string) string {
	argv, _ := json.Marshal(command)
	return strings.Replace(openCodePlugin, "__CAIRN_COMMAND__", string(argv), 1)
}

// PlanOpenCode works out both changes without writing anything.
func PlanOpenCode(o OpenCodeOptions) ([]*Change, error) {
	if (o.Scope == "user" || o.CommandSet) && !filepath.IsAbs(o.Command) {
		return nil, errs.Invalidf("the cairn command to register must be an absolute path, got %q", o.Command)
	}
	cfgPath, pluginPath, err := OpenCodeFiles(o)
	if err != nil {
		return nil, err
	}
	command := OpenCodeCommand(o)
	cfg, err := planJSON(cfgPath, 0o644, "mcp."+ServerName, "OpenCode", func(root *node) (bool, error) {
		return setOpenCodeServer(root, append(append([]string{}, command...), "mcp"))
	})
	if err != nil {
		return nil, err
	}
	plugin, err := planText(pluginPath, "plugin (session tags, compaction and resume hooks)", []byte(OpenCodePlugin(command)))
	if err != nil {
		return nil, err
	}
	return []*Change{cfg, plugin}, nil
}

// setOpenCodeServer makes mcp.cairn run cairn; other keys of the entry (environment, timeout) stay.
func setOpenCodeServer(root *node, argv []string) (bool, error) {
	if root.get("$schema") == nil && len(root.keys) == 0 {
		root.set("$schema", scalar("https://opencode.ai/config.json"))
	}
	servers, err := object(root, "mcp", "")
	if err != nil {
		return false, err
	}
	return setEntry(servers, []keyVal{{"type", scalar("local")}, {"command", stringArray(argv)}, {"enabled", scalar(true)}}), nil
}
