package main

import (
	"os"
	"slices"
	"strings"
)

// The query-distribution sections of docs/benchmarks.md (scripts/bench.d/search-dist.sh,
// board-dist.sh, memory-dist.sh): each between its marker and its end marker, before the growth
// section. `scripts/bench.sh NAME` replaces its own (-dist with -dist-name NAME), and the main
// report and the growth section keep every one as it is.
const (
	distMarker = "<!-- search-dist section: scripts/bench.sh search-dist writes from here to its end marker -->"
	distEnd    = "<!-- end of the search-dist section -->"
)

// distNames are the distribution sections, in the order they stand in the document.
var distNames = []string{"search-dist", "board-dist", "memory-dist"}

// distMarkers returns the markers of the section called name.
func distMarkers(name string) (begin, end string) {
	return "<!-- " + name + " section: scripts/bench.sh " + name + " writes from here to its end marker -->",
		"<!-- end of the " + name + " section -->"
}

// distSection returns the search-dist section of doc, markers included, or "".
func distSection(doc string) string { return namedDistSection(doc, "search-dist") }

// namedDistSection returns the distribution section called name, markers included, or "".
func namedDistSection(doc, name string) string {
	begin, end := distMarkers(name)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return ""
	}
	return doc[i : j+len(end)]
}

// mergeDist replaces the search-dist section of doc with section (markers included), or puts it
// before the growth section (at the end when there is none).
func mergeDist(doc, section string) string { return mergeNamedDist(doc, "search-dist", section) }

// mergeNamedDist replaces the section called name, or puts it where distNames orders it among
// the sections doc has, before the growth section (at the end when there is none).
func mergeNamedDist(doc, name, section string) string {
	if old := namedDistSection(doc, name); old != "" {
		return strings.Replace(doc, old, section, 1)
	}
	// after the last section of those listed before name that the document has
	at := -1
	for _, n := range distNames {
		if n == name {
			break
		}
		if s := namedDistSection(doc, n); s != "" {
			at = strings.Index(doc, s) + len(s)
		}
	}
	if at >= 0 {
		return doc[:at] + "\n\n" + section + doc[at:]
	}
	// before the first of those listed after name that the document has
	for _, n := range distNames[slices.Index(distNames, name)+1:] {
		if s := namedDistSection(doc, n); s != "" {
			i := strings.Index(doc, s)
			return doc[:i] + section + "\n\n" + doc[i:]
		}
	}
	if i := strings.Index(doc, growthMarker); i >= 0 {
		return strings.TrimRight(doc[:i], "\n") + "\n\n" + section + "\n\n" + doc[i:]
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
}

// keepDist copies every distribution section of old into doc.
func keepDist(doc, old string) string {
	for _, n := range distNames {
		if s := namedDistSection(old, n); s != "" {
			doc = mergeNamedDist(doc, n, s)
		}
	}
	return doc
}

// writeDist puts the Markdown of file body between the markers of the section called name in
// md; the rest of md is kept byte for byte.
func writeDist(body, name, md string) error {
	b, err := os.ReadFile(body)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	begin, end := distMarkers(name)
	section := begin + "\n\n" + strings.TrimSpace(string(b)) + "\n\n" + end
	return os.WriteFile(md, []byte(mergeNamedDist(string(old), name, section)), 0o644)
}
