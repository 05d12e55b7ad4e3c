package commands_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateTour = flag.Bool("update-tour", false, "rewrite the outputs in docs/tour.md with what cairn prints now")

// tourCommand is one "$ ..." line of a console block in docs/tour.md and the output shown under it.
type tourCommand struct {
	cmd        string
	want       string
	start, end int // the output's lines in the file: [start, end)
}

// parseTour reads every console block of the tour that is checked: a block right after a line
// "<!-- not checked: reason -->" is left out (a daemon that keeps running, say).
func parseTour(lines []string) []tourCommand {
	var cmds []tourCommand
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```console" {
			continue
		}
		skip := i > 0 && strings.HasPrefix(lines[i-1], "<!-- not checked")
		var cur *tourCommand
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			l := lines[i]
			if strings.HasPrefix(l, "$ ") {
				if cur != nil && !skip {
					cmds = append(cmds, *cur)
				}
				cmd := strings.TrimPrefix(l, "$ ")
				for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
					i++
					cmd += "\n" + lines[i]
				}
				cur = &tourCommand{cmd: cmd, start: i + 1, end: i + 1}
				continue
			}
			if cur != nil {
				cur.want += l + "\n"
				cur.end = i + 1
			}
		}
		if cur != nil && !skip {
			cmds = append(cmds, *cur)
		}
	}
	return cmds
}

// TestTour runs every command of docs/tour.md, in order, in one shell, as a reader would from a
// clone (HOME is a scratch directory, the clone is $HOME/cairn), and checks that each prints what
// the tour shows. Times with fractions of a second and call ids are compared by their shape.
// go test ./commands -run TestTour -update-tour rewrites the outputs after a deliberate change.
func TestTour(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn and runs the tour")
	}
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, doc := range []string{"../README.md", "../docs/tour.md"} {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			t.Parallel()
			checkTour(t, doc, 4)
		})
	}
}

// checkTour runs the console blocks of one document; it must have at least min checked commands.
func checkTour(t *testing.T, doc string, min int) {
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	cmds := parseTour(lines)
	if len(cmds) < min {
		t.Fatalf("%s has %d checked commands; the parser lost some", doc, len(cmds))
	}
	bin := buildCairn(t)
	home := t.TempDir()
	clone := filepath.Join(home, "cairn")
	if err := os.MkdirAll(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", "../fixtures", clone).CombinedOutput(); err != nil {
		t.Fatalf("copy fixtures: %v %s", err, out)
	}
	var script strings.Builder
	for i, c := range cmds {
		fmt.Fprintf(&script, "echo '@@tour %d@@'\n%s 2>&1\n", i, c.cmd)
	}
	sh := exec.Command("bash", "--norc", "--noprofile")
	sh.Dir = clone
	sh.Stdin = strings.NewReader(script.String())
	sh.Env = []string{"HOME=" + home, "PATH=" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "NO_COLOR=1", "TZ=UTC"}
	var out bytes.Buffer
	sh.Stdout, sh.Stderr = &out, &out
	_ = sh.Run() // a command of the tour may fail on purpose; its output says so
	got := splitTourOutput(out.String(), len(cmds))
	norm := tourNormalizer(home)
	failed := 0
	for i, c := range cmds {
		g := norm(got[i])
		if g == norm(c.want) {
			continue
		}
		if *updateTour {
			continue
		}
		failed++
		t.Errorf("%s:%d: $ %s\n--- the tour shows\n%s--- cairn prints\n%s", doc, c.start, c.cmd, c.want, g)
	}
	if *updateTour {
		for i := len(cmds) - 1; i >= 0; i-- {
			if norm(got[i]) == norm(cmds[i].want) {
				continue // keep the text as the tour has it (its times and ids)
			}
			g := strings.TrimSuffix(tourPaths(home)(got[i]), "\n")
			repl := []string{}
			if g != "" {
				repl = strings.Split(g, "\n")
			}
			lines = append(lines[:cmds[i].start], append(repl, lines[cmds[i].end:]...)...)
		}
		if err := os.WriteFile(doc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if failed > 0 {
		t.Logf("%d of %d commands of %s differ; after a deliberate change: go test ./commands -run TestTour -update-tour", failed, len(cmds), doc)
	}
}

// splitTourOutput cuts the shell's output at the markers echoed before each command.
func splitTourOutput(out string, n int) []string {
	got := make([]string, n)
	parts := regexp.MustCompile(`(?m)^@@tour (\d+)@@\n`).FindAllStringSubmatchIndex(out, -1)
	for k, p := range parts {
		var i int
		fmt.Sscan(out[p[2]:p[3]], &i)
		end := len(out)
		if k+1 < len(parts) {
			end = parts[k+1][0]
		}
		if i < n {
			got[i] = out[p[1]:end]
		}
	}
	return got
}

// tourPaths writes the scratch home as the tour's /home/me.
func tourPaths(home string) func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, home, "/home/me") }
}

var (
	tourFracTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z`)
	tourCallID   = regexp.MustCompile(`call_[0-9a-f]{16}`)
	tourToken    = regexp.MustCompile(`[0-9a-f]{64}`)
	tourDuration = regexp.MustCompile(`in \d+(\.\d+)?(ms|µs|s)\b`)
)

func tourNormalizer(home string) func(string) string {
	paths := tourPaths(home)
	return func(s string) string {
		s = paths(s)
		s = tourFracTime.ReplaceAllString(s, "TIME")
		s = tourCallID.ReplaceAllString(s, "call_ID")
		s = tourToken.ReplaceAllString(s, "TOKEN")
		s = tourDuration.ReplaceAllString(s, "in DURATION")
		return s
	}
}
