package commands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/commands"
)

// badValues are the kinds of input every flag and argument must survive with a clear answer.
var badValues = map[string]string{
	"empty":     "",
	"long":      strings.Repeat("長い", 20000),
	"non-utf8":  "\xff\xfe\xfd",
	"negative":  "-1",
	"huge":      "99999999999999999999999",
	"injection": `'; DROP TABLE comments; -- " OR 1=1 NEAR( * `,
	"traversal": "../../../../etc/passwd",
	"control":   "a\x01b\x1b[31m",
}

// leafCommands walks the command tree and returns each runnable command's path and value flags.
func leafCommands(cmds []*cli.Command, prefix []string) (out []struct {
	path  []string
	flags []string
}) {
	for _, c := range cmds {
		p := append(append([]string{}, prefix...), c.Name)
		if len(c.Subcommands) > 0 {
			out = append(out, leafCommands(c.Subcommands, p)...)
			continue
		}
		var flags []string
		for _, f := range c.Flags {
			if dg, ok := f.(cli.DocGenerationFlag); ok && dg.TakesValue() {
				flags = append(flags, f.Names()[0])
			}
		}
		out = append(out, struct {
			path  []string
			flags []string
		}{p, flags})
	}
	return out
}

// Every command, every flag, every bad value: a clear error or a clean answer, never a panic,
// never a stack trace, never an INTERNAL exit for what is only bad input.
func TestBadInputSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	scratch := t.TempDir() // commands like init create what they are given: never in the source tree
	tree := commands.Commands()
	skip := map[string]bool{"serve": true, "mcp": true, "completion": true}
	runs := 0
	for _, leaf := range leafCommands(tree, nil) {
		if skip[leaf.path[0]] {
			continue
		}
		var cases [][]string
		for name, v := range badValues {
			cases = append(cases, append(append([]string{}, leaf.path...), v, "--json"))
			for _, f := range leaf.flags {
				cases = append(cases, append(append([]string{}, leaf.path...), "x", "--"+f+"="+v))
			}
			_ = name
		}
		for _, args := range cases {
			runs++
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			cmd := exec.CommandContext(ctx, bin, append([]string{"-C", ws, "--wait", "2s"}, args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Stdin = strings.NewReader("")
			cmd.Dir = scratch
			err := cmd.Run()
			cancel()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Errorf("%q: %v", args, err)
				continue
			}
			desc := fmt.Sprintf("cairn %s", strings.Join(quoteAll(args), " "))
			if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "panic:") {
				t.Errorf("%s: panicked:\n%s", desc, clip(stderr.String()))
			}
			if code == 1 || code > 5 || code < 0 {
				t.Errorf("%s: exit %d (want 0 or 2-5): %s", desc, code, clip(stdout.String()+stderr.String()))
			}
		}
	}
	t.Logf("%d runs", runs)
}

func clip(s string) string {
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:40] + "…"
		}
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}

// specialKinds are the files no path of cairn may block on, read without bound or replace: a
// FIFO with no writer, /dev/zero and /dev/urandom (endless), a character device node of
// /dev/null's numbers (made here, so a broken rename could never replace the machine's own),
// and a dangling symlink.
var specialKinds = []string{"fifo", "zero", "urandom", "null", "dangling"}

// sweepBudget and sweepMemory are what every run must stay within.
const (
	sweepBudget = 10 * time.Second
	sweepMemory = 256 << 20
)

// makeSpecial creates a special file of kind at path. /dev/zero and /dev/urandom are reached
// through a symlink (a rename over it would replace the link, never the device); "null" is a
// device node of its own where mknod is allowed (root), else a link to /dev/null.
func makeSpecial(t *testing.T, kind, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch kind {
	case "fifo":
		err = syscall.Mkfifo(path, 0o644)
	case "zero", "urandom":
		err = os.Symlink("/dev/"+kind, path)
	case "null":
		if syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3) != nil {
			err = os.Symlink("/dev/null", path)
		}
	case "dangling":
		err = os.Symlink(path+".nowhere", path)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// fileState is what "untouched" compares: the type, a link's target, a device's numbers.
func fileState(path string) string {
	st, err := os.Lstat(path)
	if err != nil {
		return "missing: " + err.Error()
	}
	s := st.Mode().Type().String()
	if st.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		s += " -> " + target
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && st.Mode()&os.ModeDevice != 0 {
		s += fmt.Sprintf(" rdev %d", sys.Rdev)
	}
	return s
}

// sweepCase is one run: its arguments, the special files it must leave as they are, its
// standard input, where it runs, and the exit statuses it may answer with.
type sweepCase struct {
	name    string
	args    []string
	watch   []string
	stdin   string // a file to give as standard input, "" for an empty one
	input   []byte // standard input's content when stdin is ""
	dir     string
	home    string
	allowed []int
}

// Every command, with each special file in every path it takes (arguments, flags, the session
// log, the manifest and the log it names, a hook input's transcript_path, standard input, the
// files setup edits): an answer within 10 s, under 256 MB, the documented exit status, and the
// special file as it was (a FIFO still a FIFO, a device still that device, a link still that link).
func TestSpecialFileSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	// something to update and export, so each command reaches the path it is given
	fixtures := filepath.Join("..", "fixtures")
	for _, args := range [][]string{
		{"task", "create", "first"},
		{"board", "import", filepath.Join(fixtures, "board", "board.json")},
		{"space", "import", filepath.Join(fixtures, "spaces", "space.jsonl")},
	} {
		if out, err := exec.Command(bin, append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}
	sp := t.TempDir()
	special := map[string]string{}
	for _, k := range specialKinds {
		special[k] = filepath.Join(sp, k)
		makeSpecial(t, k, special[k])
	}
	home := t.TempDir() // no run sees the real HOME
	usage := []int{0, 2, 3, 4, 5}
	refused := []int{2}
	var cases []sweepCase
	add := func(c sweepCase) {
		if c.dir == "" {
			c.dir = ws
		}
		if c.home == "" {
			c.home = home
		}
		if c.allowed == nil {
			c.allowed = refused
		}
		cases = append(cases, c)
	}
	for _, k := range specialKinds {
		p := special[k]
		w := []string{p}
		// file arguments and flags: refused as what they are (2), never read or replaced
		for _, args := range [][]string{
			{"task", "create", "x", "--description-file", p},
			{"task", "update", "1", "--description-file", p},
			{"session", "compact", "--summary-file", p},
			{"session", "compact", "--new-log", p},
			{"memory", "write", "decision", "sweep", "--file", p},
			{"space", "import", p},
			{"space", "export", "--output", p},
			{"board", "import", p},
			{"board", "export", "--output", p},
			{"board", "import", "--from", "github", p},
			{"board", "import", "--from", "beads", p},
			{"board", "import", "--from", "backlog-md", p},
			{"--session", p, "task", "create", "x"},
		} {
			add(sweepCase{name: k + "/" + strings.Join(args, "_"), args: args, watch: w})
		}
		// reading a session log: a dangling link is a log not written yet (empty), the rest refused
		for _, args := range [][]string{
			{"--session", p, "task", "list"},
			{"--session", p, "session", "check"},
			{"--session", p, "session", "brief"},
			{"--session", p, "tools", "call", "TaskList"},
		} {
			allowed := refused
			if k == "dangling" {
				allowed = []int{0}
			}
			add(sweepCase{name: k + "/" + strings.Join(args, "_"), args: args, watch: w, allowed: allowed})
		}
		// a path where a command may also take it as something else (a folder to import
		// transcripts from, a plugin folder): any documented answer, the file untouched
		for _, args := range [][]string{
			{"space", "import", "--from", "claude-code", p},
			{"space", "import", "--from", "codex", p},
			{"space", "import", "--from", "gemini", p},
			{"space", "import", "--from", "opencode", p},
			{"setup", "claude-code", "--plugin", p},
			{"init", p},
		} {
			add(sweepCase{name: k + "/" + strings.Join(args, "_"), args: args, watch: w, allowed: usage})
		}
		// a hook's transcript_path: always exit 0, within its budget
		for _, rt := range []string{"claude-code", "codex", "gemini", "opencode"} {
			in, _ := json.Marshal(map[string]any{"session_id": "sweep-" + k, "transcript_path": p, "cwd": ws,
				"hook_event_name": "SessionStart", "source": "resume", "event": "session.compacted", "sessionID": "sweep-" + k})
			add(sweepCase{name: k + "/hook_" + rt, args: []string{"hook", rt}, input: in, watch: w, allowed: []int{0}})
		}
		// the manifest, and the session log the manifest names
		mdir := filepath.Join(t.TempDir(), "ws")
		makeSpecial(t, k, filepath.Join(mdir, "cairn.toml"))
		add(sweepCase{name: k + "/manifest", args: []string{"-C", mdir, "task", "list"}, watch: []string{filepath.Join(mdir, "cairn.toml")}})
		ldir := newWorkspace(t, bin)
		os.WriteFile(filepath.Join(ldir, "cairn.toml"), []byte("[session]\nlog = \"sessions/special.jsonl\"\n"), 0o644)
		lpath := filepath.Join(ldir, "sessions", "special.jsonl")
		makeSpecial(t, k, lpath)
		for _, args := range [][]string{{"task", "list"}, {"task", "create", "x"}, {"session", "check"}} {
			add(sweepCase{name: k + "/manifest_log_" + strings.Join(args, "_"), args: append([]string{"-C", ldir}, args...), watch: []string{lpath}})
		}
		// the files setup edits, with --dry-run and without: refused, nothing written
		for _, s := range []struct {
			args []string
			file string // under HOME
		}{
			{[]string{"setup", "claude-code", "--scope", "user"}, ".claude.json"},
			{[]string{"setup", "claude-code", "--scope", "user"}, ".claude/settings.json"},
			{[]string{"setup", "codex", "--scope", "user"}, ".codex/config.toml"},
			{[]string{"setup", "codex", "--scope", "user"}, ".codex/hooks.json"},
			{[]string{"setup", "opencode", "--scope", "user"}, ".config/opencode/opencode.json"},
			{[]string{"setup", "gemini", "--scope", "user"}, ".gemini/settings.json"},
		} {
			for _, dry := range []bool{true, false} {
				h := t.TempDir()
				f := filepath.Join(h, s.file)
				makeSpecial(t, k, f)
				args := append([]string{"-C", ws}, s.args...)
				if dry {
					args = append(args, "--dry-run")
				}
				add(sweepCase{name: fmt.Sprintf("%s/%s_%s_dry=%v", k, strings.Join(s.args[:2], "_"), strings.ReplaceAll(s.file, "/", "_"), dry),
					args: args, home: h, watch: []string{f}})
			}
		}
		// the project's files of setup claude-code --scope project
		for _, file := range []string{".mcp.json", ".claude/settings.json"} {
			pdir := newWorkspace(t, bin)
			f := filepath.Join(pdir, file)
			makeSpecial(t, k, f)
			add(sweepCase{name: k + "/setup_project_" + strings.ReplaceAll(file, "/", "_"), args: []string{"setup", "claude-code", "--scope", "project"},
				dir: pdir, watch: []string{f}})
		}
	}
	// standard input that never ends (or is a device): stopped at the cap
	for _, dev := range []string{"/dev/zero", "/dev/urandom", "/dev/null"} {
		name := filepath.Base(dev)
		add(sweepCase{name: "stdin_" + name + "/tools_call", args: []string{"tools", "call", "TaskCreate", "-"}, stdin: dev, allowed: []int{2}})
		add(sweepCase{name: "stdin_" + name + "/memory_write", args: []string{"memory", "write", "decision", "stdin"}, stdin: dev, allowed: []int{0, 2}})
		add(sweepCase{name: "stdin_" + name + "/board_import", args: []string{"board", "import", "-"}, stdin: dev, allowed: []int{2}})
		add(sweepCase{name: "stdin_" + name + "/space_import", args: []string{"space", "import", "-"}, stdin: dev, allowed: []int{0, 2}})
		for _, rt := range []string{"claude-code", "codex", "gemini", "opencode"} {
			add(sweepCase{name: "stdin_" + name + "/hook_" + rt, args: []string{"hook", rt}, stdin: dev, allowed: []int{0}})
		}
	}
	start := time.Now()
	var mu sync.Mutex
	var slowest time.Duration
	var peak int64
	t.Run("runs", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				before := map[string]string{}
				for _, p := range c.watch {
					before[p] = fileState(p)
				}
				took, rss, code, out := runBounded(t, bin, c)
				mu.Lock()
				slowest, peak = max(slowest, took), max(peak, rss)
				mu.Unlock()
				desc := "cairn " + strings.Join(quoteAll(c.args), " ")
				if took > sweepBudget {
					t.Errorf("%s: took %s (budget %s)", desc, took.Round(time.Millisecond), sweepBudget)
				}
				if rss > sweepMemory {
					t.Errorf("%s: peak RSS %d MiB (limit %d)", desc, rss>>20, sweepMemory>>20)
				}
				ok := false
				for _, a := range c.allowed {
					ok = ok || a == code
				}
				if !ok {
					t.Errorf("%s: exit %d, want one of %v: %s", desc, code, c.allowed, clip(out))
				}
				if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
					t.Errorf("%s: panicked: %s", desc, clip(out))
				}
				for _, p := range c.watch {
					if now := fileState(p); now != before[p] {
						t.Errorf("%s: %s changed: %s, was %s", desc, p, now, before[p])
					}
				}
			})
		}
	})
	t.Logf("%d runs in %s; slowest %s, peak RSS %.1f MiB", len(cases), time.Since(start).Round(time.Millisecond), slowest.Round(time.Millisecond), float64(peak)/(1<<20))
}

// runBounded runs one case, killing it at twice the budget, and returns its time, peak RSS,
// exit status (-1 when killed) and output.
func runBounded(t *testing.T, bin string, c sweepCase) (time.Duration, int64, int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*sweepBudget)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--wait", "2s"}, c.args...)...)
	cmd.Dir = c.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "NO_COLOR=1"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if c.stdin != "" {
		f, err := os.Open(c.stdin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	} else {
		cmd.Stdin = bytes.NewReader(c.input)
	}
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%q: %v", c.args, err)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) << 10 // KiB on Linux
	}
	return took, rss, code, out.String()
}
