package main

import (
	"os"
	"strings"
)

// The query-distribution section of docs/benchmarks.md (scripts/bench.d/search-dist.sh): between
// distMarker and distEnd, before the growth section. `scripts/bench.sh search-dist` replaces it
// (-dist), and the main report and the growth section keep it as it is.
const (
	distMarker = "<!-- search-dist section: scripts/bench.sh search-dist writes from here to its end marker -->"
	distEnd    = "<!-- end of the search-dist section -->"
)

// distSection returns the distribution section of doc, markers included, or "".
func distSection(doc string) string {
	i := strings.Index(doc, distMarker)
	j := strings.Index(doc, distEnd)
	if i < 0 || j < i {
		return ""
	}
	return doc[i : j+len(distEnd)]
}

// mergeDist replaces the distribution section of doc with section (markers included), or puts it
// before the growth section (at the end when there is none).
func mergeDist(doc, section string) string {
	if old := distSection(doc); old != "" {
		return strings.Replace(doc, old, section, 1)
	}
	if i := strings.Index(doc, growthMarker); i >= 0 {
		return strings.TrimRight(doc[:i], "\n") + "\n\n" + section + "\n\n" + doc[i:]
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
}

// writeDist puts the Markdown of file body between the section's markers in md; the rest of md
// is kept byte for byte.
func writeDist(body, md string) error {
	b, err := os.ReadFile(body)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	section := distMarker + "\n\n" + strings.TrimSpace(string(b)) + "\n\n" + distEnd
	return os.WriteFile(md, []byte(mergeDist(string(old), section)), 0o644)
}
