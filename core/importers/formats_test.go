package importers

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/formats.md describes exactly the formats of the table, in its order, under "What --from
// reads": a format added to the table without its page (or the other way round) fails here.
func TestTableMatchesFormatsDoc(t *testing.T) {
	data, err := os.ReadFile("../../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## What `--from` reads\n")
	if !ok {
		t.Fatal("docs/formats.md has no section \"What `--from` reads\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\*\\*`([a-z-]+)`\\*\\*:").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	if !slices.Equal(documented, Formats()) {
		t.Errorf("docs/formats.md documents %v, the table holds %v", documented, Formats())
	}
	for _, f := range Table {
		if f.Doc == "" || f.Read == nil || f.Project == "" {
			t.Errorf("format %s has no doc line, no reader or no --project text", f.Name)
		}
	}
	if got := ProjectUsage(); got != "github: OWNER/REPO; beads, backlog-md: the folder name to use" {
		t.Errorf("ProjectUsage = %q", got)
	}
	if _, err := Lookup("jira"); err == nil || !strings.Contains(err.Error(), strings.Join(Formats(), ", ")) {
		t.Errorf("Lookup of an unknown format: %v", err)
	}
}
