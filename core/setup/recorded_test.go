package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// The cairn-setup recordings (fixtures/opencode/cairn-setup/, fixtures/gemini/cairn-setup/) ran
// `cairn setup opencode|gemini --scope project` twice in a project whose config already had
// other keys, then the real OpenCode 1.18.33 / Gemini CLI 0.61.0 on what it wrote (setup.txt:
// the second run said unchanged, the diff between the runs is empty). Replayed here on the
// recorded "before" file: today's setup writes what was recorded, keeps every key that was there,
// and a second run changes nothing.

const recorded = "../../fixtures"

func fixture(t *testing.T, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{recorded}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// keptKeys fails unless every key of before is in after with the same value, in the same
// order, but for the objects at owned paths (dot-separated), where cairn's own entries may be
// added among the others.
func keptKeys(t *testing.T, before, after []byte, owned ...string) {
	t.Helper()
	var b, a map[string]any
	if err := json.Unmarshal(before, &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(after, &a); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, b, a map[string]any)
	walk = func(path string, b, a map[string]any) {
		for k, bv := range b {
			p := k
			if path != "" {
				p = path + "." + k
			}
			av, ok := a[k]
			if !ok {
				t.Errorf("%s: dropped", p)
				continue
			}
			bo, isObj := bv.(map[string]any)
			ao, _ := av.(map[string]any)
			owner := false
			for _, o := range owned {
				owner = owner || o == p
			}
			switch {
			case owner && isObj && ao != nil:
				walk(p, bo, ao)
			case owner:
				// an owned list (hooks of an event): every entry that was there stays, in order
				bl, _ := bv.([]any)
				al, _ := av.([]any)
				if len(al) < len(bl) || !reflect.DeepEqual(al[:len(bl)], bl) {
					t.Errorf("%s: was %v, now %v", p, bv, av)
				}
			case !reflect.DeepEqual(bv, av):
				t.Errorf("%s: was %v, now %v", p, bv, av)
			}
		}
	}
	walk("", b, a)
}

// apply runs a plan twice on a project folder: the first run's files, and the second's statuses.
func apply(t *testing.T, plan func() ([]*Change, error)) []string {
	t.Helper()
	changes, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes, time.Now()); err != nil {
		t.Fatal(err)
	}
	again, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, c := range again {
		statuses = append(statuses, c.Status)
		if c.Status != "unchanged" || c.Diff != "" {
			t.Errorf("second run: %s %s\n%s", c.Status, c.Path, c.Diff)
		}
	}
	return statuses
}

func TestRecordedOpenCodeSetupKeepsKeys(t *testing.T) {
	before := fixture(t, "opencode", "cairn-setup", "project-opencode.before.json")
	after := fixture(t, "opencode", "cairn-setup", "project-opencode.json")
	keptKeys(t, before, after, "mcp")
	proj := t.TempDir()
	write(t, filepath.Join(proj, "opencode.json"), string(before))
	o := OpenCodeOptions{Scope: "project", ProjectDir: proj, Home: t.TempDir()}
	apply(t, func() ([]*Change, error) { return PlanOpenCode(o) })
	if got := read(t, filepath.Join(proj, "opencode.json")); got != string(after) {
		t.Errorf("setup writes\n%s\nthe recording has\n%s", got, after)
	}
	// the plugin OpenCode ran in the recording is the one setup writes today (re-record with
	// scripts/opencode-harness, scenario cairn-setup, when it changes)
	if got, want := read(t, filepath.Join(proj, ".opencode", "plugin", "cairn.js")), string(fixture(t, "opencode", "cairn-setup", "project-plugin-cairn.js")); got != want {
		t.Errorf("the plugin differs from the recorded one")
	}
	var cfg struct {
		MCP map[string]map[string]any `json:"mcp"`
	}
	json.Unmarshal(after, &cfg)
	if c := cfg.MCP["cairn"]; !reflect.DeepEqual(c, map[string]any{"type": "local", "command": []any{"cairn", "mcp"}, "enabled": true}) || len(cfg.MCP) != 2 {
		t.Errorf("mcp: %v", cfg.MCP)
	}
}

func TestRecordedGeminiSetupKeepsKeys(t *testing.T) {
	before := fixture(t, "gemini", "cairn-setup", "project-settings.before.json")
	after := fixture(t, "gemini", "cairn-setup", "project-settings.json")
	keptKeys(t, before, after, "hooks", "hooks.SessionStart", "hooks.BeforeAgent", "hooks.PreCompress")
	proj := t.TempDir()
	write(t, filepath.Join(proj, ".gemini", "settings.json"), string(before))
	o := GeminiOptions{Scope: "project", ProjectDir: proj, Home: t.TempDir(), Command: "cairn"}
	apply(t, func() ([]*Change, error) { return PlanGemini(o) })
	if got := read(t, filepath.Join(proj, ".gemini", "settings.json")); got != string(after) {
		t.Errorf("setup writes\n%s\nthe recording has\n%s", got, after)
	}
	var cfg struct {
		Hooks      map[string][]map[string]any `json:"hooks"`
		MCPServers map[string]map[string]any   `json:"mcpServers"`
	}
	json.Unmarshal(after, &cfg)
	for _, ev := range []string{"SessionStart", "BeforeAgent", "PreCompress"} {
		groups := cfg.Hooks[ev]
		if len(groups) != 2 || !reflect.DeepEqual(groups[1]["hooks"], []any{map[string]any{"type": "command", "command": "cairn hook gemini", "timeout": float64(10000)}}) {
			t.Errorf("hooks.%s: %v", ev, groups)
		}
	}
	if len(cfg.Hooks) != 11 || !reflect.DeepEqual(cfg.MCPServers, map[string]map[string]any{"cairn": {"command": "cairn", "args": []any{"mcp"}}}) {
		t.Errorf("%d hook events, mcpServers %v", len(cfg.Hooks), cfg.MCPServers)
	}
}
