package main

import (
	"os"
	"strings"
)

// A hand-written section of docs/benchmarks.md that one bench section writes whole: between its
// marker and its end marker, before the growth section. Its bench section replaces it, and the
// main report and the growth section keep it as it is.
type section struct{ marker, end string }

// The query-distribution sections (scripts/bench.d/search-dist.sh, board-dist.sh,
// memory-dist.sh: -dist with -dist-name) and the team space section (scripts/bench.d/team.sh,
// -team), in the order they stand in the file.
var (
	distNames = []string{"search-dist", "board-dist", "memory-dist"}
	distSec   = sectionNamed("search-dist")
	teamSec   = sectionNamed("team")
	// sections are the kept sections in the order they stand in the file
	sections = []section{distSec, sectionNamed("board-dist"), sectionNamed("memory-dist"), teamSec}
)

const (
	distMarker = "<!-- search-dist section: scripts/bench.sh search-dist writes from here to its end marker -->"
	distEnd    = "<!-- end of the search-dist section -->"
)

// sectionNamed is the section `scripts/bench.sh NAME` writes.
func sectionNamed(name string) section {
	b, e := distMarkers(name)
	return section{b, e}
}

// distMarkers returns the markers of the section called name.
func distMarkers(name string) (begin, end string) {
	return "<!-- " + name + " section: scripts/bench.sh " + name + " writes from here to its end marker -->",
		"<!-- end of the " + name + " section -->"
}

// find returns the section in doc, markers included, or "".
func (s section) find(doc string) string {
	i := strings.Index(doc, s.marker)
	if i < 0 {
		return ""
	}
	j := strings.Index(doc[i:], s.end)
	if j < 0 {
		return ""
	}
	return doc[i : i+j+len(s.end)]
}

// merge replaces the section in doc with text (markers included), or puts it after the kept
// sections that come before it, else before those that come after it, else before the growth
// section, else at the end.
func (s section) merge(doc, text string) string {
	if old := s.find(doc); old != "" {
		return strings.Replace(doc, old, text, 1)
	}
	var before, after string
	seen := false
	for _, o := range sections {
		if o == s {
			seen = true
			continue
		}
		if f := o.find(doc); f != "" && !seen {
			before = f
		} else if f != "" && after == "" {
			after = f
		}
	}
	if before != "" {
		i := strings.Index(doc, before) + len(before)
		return doc[:i] + "\n\n" + text + doc[i:]
	}
	if after != "" {
		i := strings.Index(doc, after)
		return doc[:i] + text + "\n\n" + doc[i:]
	}
	if i := strings.Index(doc, growthMarker); i >= 0 {
		return strings.TrimRight(doc[:i], "\n") + "\n\n" + text + "\n\n" + doc[i:]
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + text + "\n"
}

// write puts the Markdown of file body between the section's markers in md; the rest of md is
// kept byte for byte.
func (s section) write(body, md string) error {
	b, err := os.ReadFile(body)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := s.marker + "\n\n" + strings.TrimSpace(string(b)) + "\n\n" + s.end
	return os.WriteFile(md, []byte(s.merge(string(old), text)), 0o644)
}

// distSection returns the distribution section of doc, markers included, or "".
func distSection(doc string) string { return distSec.find(doc) }

// mergeDist replaces the distribution section of doc with section (markers included), or puts it
// before the growth section (at the end when there is none).
func mergeDist(doc, text string) string { return distSec.merge(doc, text) }

// namedDistSection returns the section called name, markers included, or "".
func namedDistSection(doc, name string) string { return sectionNamed(name).find(doc) }

// mergeNamedDist replaces the section called name, or puts it where sections orders it.
func mergeNamedDist(doc, name, text string) string { return sectionNamed(name).merge(doc, text) }

// keepDist copies every kept section of old into doc.
func keepDist(doc, old string) string {
	for _, sec := range sections {
		if d := sec.find(old); d != "" {
			doc = sec.merge(doc, d)
		}
	}
	return doc
}

// writeDist puts the Markdown of file body between the markers of the section called name in md.
func writeDist(body, name, md string) error { return sectionNamed(name).write(body, md) }
