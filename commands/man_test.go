//go:build !urfave_cli_no_docs

package commands

import (
	"os"
	"strings"
	"testing"
)

// The committed man page must match the command definitions; regenerate with `go run ./scripts/genman`.
func TestManPageIsFresh(t *testing.T) {
	want, err := ManPage()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../man/cairn.1")
	if err != nil {
		t.Fatalf("read man page: %v (generate it with: go run ./scripts/genman)", err)
	}
	if string(got) != want {
		t.Fatal("man/cairn.1 is stale; regenerate it with: go run ./scripts/genman")
	}
}

func TestManPageSectionsAndPlaceholders(t *testing.T) {
	page, err := ManPage()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page, ".nh\n.TH cairn 1") {
		t.Errorf("man page title is not cairn(1): %q", page[:min(len(page), 40)])
	}
	for _, want := range []string{".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", "CAIRN_WORKSPACE", "NO_COLOR", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CONFIG_DIR", "comment:<id> and its neighbours", "task:<id> or <id>", `memory/decisions/*\&.md`, "cairn board search"} {
		if !strings.Contains(page, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
}
