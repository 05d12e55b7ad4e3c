// Command benchreport turns the rows scripts/bench.sh records into docs/benchmarks.md and an SVG
// bar chart: go run ./scripts/benchreport -in results.tsv -md docs/benchmarks.md -svg docs/benchmarks.svg
//
// Each input row is tab-separated: benchmark, cairn label, cairn ms, peer label, peer ms, cairn peak MiB, target.
//
// With -growth it writes only the "How cost grows" section at the end of -md (the rest of the file is
// kept) and a log-log chart per family to -growth-svg: go run ./scripts/benchreport -growth growth.tsv
// (rows of scripts/bench.d/growth.sh). The main report keeps an existing growth section.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"html"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

type row struct {
	bench, cairnLabel, peerLabel, target string
	cairnMS, peerMS, peakMiB             float64
}

func main() {
	in := flag.String("in", "results.tsv", "rows recorded by scripts/bench.sh")
	md := flag.String("md", "docs/benchmarks.md", "Markdown table to write")
	svg := flag.String("svg", "docs/benchmarks.svg", "chart to write")
	machine := flag.String("machine", "", "a line describing the machine")
	growth := flag.String("growth", "", "growth rows recorded by scripts/bench.d/growth.sh: write only the growth section of -md and -growth-svg")
	growthSVG := flag.String("growth-svg", "docs/benchmarks-growth.svg", "growth chart to write (with -growth)")
	notes := flag.String("notes", "scripts/benchreport/growth-notes.tsv", "the reading of each growth family, family<TAB>text (with -growth)")
	date := flag.String("date", "", "the day the growth rows were measured (with -growth)")
	dist := flag.String("dist", "", "Markdown written by a distribution bench (scripts/bench.d/search-dist.sh, board-dist.sh, memory-dist.sh): replace only its section of -md")
	distName := flag.String("dist-name", "search-dist", "with -dist: the section, one of "+strings.Join(distNames, ", "))
	teamMD := flag.String("team", "", "Markdown written by scripts/bench.d/team.sh: replace only the team space section of -md")
	flag.Parse()
	var err error
	if *dist != "" {
		if !slices.Contains(distNames, *distName) {
			fmt.Fprintln(os.Stderr, "benchreport: -dist-name must be one of", strings.Join(distNames, ", "))
			os.Exit(2)
		}
		err = writeDist(*dist, *distName, *md)
	} else if *teamMD != "" {
		err = teamSec.write(*teamMD, *md)
	} else if *growth != "" {
		err = writeGrowth(*growth, *md, *growthSVG, *notes, *machine, *date)
	} else {
		err = writeMain(*in, *md, *svg, *machine)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

// writeMain writes the main table and bar chart, keeping the distribution, team space and growth
// sections of md as they are.
func writeMain(in, md, svg, machine string) error {
	rows, err := read(in)
	if err != nil {
		return err
	}
	doc := markdown(rows, machine, svg)
	if old, err := os.ReadFile(md); err == nil {
		doc = keepDist(doc, string(old))
		if g := growthSection(string(old)); g != "" {
			doc = mergeGrowth(doc, g)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	if err := os.WriteFile(md, []byte(doc), 0o644); err != nil {
		return err
	}
	return os.WriteFile(svg, []byte(chart(rows)), 0o644)
}

// writeGrowth replaces the growth section of md (appending it when there is none) and writes the
// growth chart; the rest of md is kept byte for byte.
func writeGrowth(in, md, svg, notesPath, machine, date string) error {
	rows, err := readGrowth(in)
	if err != nil {
		return err
	}
	notes, err := readNotes(notesPath)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := mergeGrowth(string(old), growthMarkdown(rows, notes, machine, date, svg))
	if err := os.WriteFile(md, []byte(doc), 0o644); err != nil {
		return err
	}
	return os.WriteFile(svg, []byte(growthChart(rows)), 0o644)
}

func read(path string) ([]row, error) {
	var rows []row
	err := readTSV(path, 7, func(_ int, p []string) error {
		rows = append(rows, row{bench: p[0], cairnLabel: p[1], cairnMS: num(p[2]), peerLabel: p[3], peerMS: num(p[4]), peakMiB: num(p[5]), target: p[6]})
		return nil
	})
	return rows, err
}

// readTSV calls fn with each non-blank line of path split at tabs, after checking it has the
// number of fields bench.sh writes.
func readTSV(path string, fields int, fn func(line int, p []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		p := strings.Split(sc.Text(), "\t")
		if len(p) != fields {
			return fmt.Errorf("%s:%d: want %d tab-separated fields, got %d", path, n, fields, len(p))
		}
		if err := fn(n, p); err != nil {
			return err
		}
	}
	return sc.Err()
}

// num reads a figure; anything else (a "-" for a figure that does not apply) is NaN.
func num(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

func fmtMS(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func markdown(rows []row, machine, svg string) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `scripts/bench.sh` on %s. Each figure is the median of several runs, the peer's\n", time.Now().UTC().Format("2006-01-02"))
	b.WriteString("figure comes from the same run on the same data, and peak memory is the largest resident set of\n")
	b.WriteString("the cairn process. Regenerate with `scripts/bench.sh`.\n\n")
	b.WriteString("Fresh-process figures time a whole process as a shell runs one (the harness forks, execs and\n")
	b.WriteString("waits), so both sides carry the cost of starting a process: the row \"a process that does nothing\"\n")
	b.WriteString("gives it. The `cairn mcp` rows \"vs the plainest go-sdk server\" compare cairn with a server that\n")
	b.WriteString("only sends the same answer: the difference is what cairn's own work adds, and the peer's figure\n")
	b.WriteString("is the floor for an answer of that size through that client.\n\n")
	if machine != "" {
		fmt.Fprintf(&b, "Machine: %s\n\n", machine)
	}
	b.WriteString("| benchmark | cairn | ms | peer | ms | cairn / peer | cairn peak MiB | target |\n")
	b.WriteString("|---|---|--:|---|--:|--:|--:|---|\n")
	for _, r := range rows {
		ratio := "–"
		if !math.IsNaN(r.peerMS) && r.peerMS > 0 && !math.IsNaN(r.cairnMS) {
			ratio = strconv.FormatFloat(r.cairnMS/r.peerMS, 'f', 2, 64)
		}
		peak := "–"
		if !math.IsNaN(r.peakMiB) {
			peak = strconv.FormatFloat(r.peakMiB, 'f', 1, 64)
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | `%s` | %s | %s | %s | %s |\n", r.bench, r.cairnLabel, fmtMS(r.cairnMS), r.peerLabel, fmtMS(r.peerMS), ratio, peak, r.target)
	}
	fmt.Fprintf(&b, "\n![cairn and its peers, milliseconds](%s)\n", strings.TrimPrefix(svg, "docs/"))
	return b.String()
}

// chart draws, per benchmark, its name on a line of its own and below it a bar for cairn and one
// for the peer, on a log scale, so 1 ms and 1 s both stay readable.
func chart(rows []row) string {
	const left, barH, labelH, gap, width = 16, 16, 18, 10, 1000
	height := 70
	for _, r := range rows {
		height += labelH + barH + gap
		if !math.IsNaN(r.peerMS) {
			height += barH
		}
	}
	maxMS := 1.0
	for _, r := range rows {
		for _, v := range []float64{r.cairnMS, r.peerMS} {
			if !math.IsNaN(v) && v > maxMS {
				maxMS = v
			}
		}
	}
	scale := func(v float64) float64 {
		if math.IsNaN(v) || v <= 0 {
			return 0
		}
		lo, hi := math.Log10(0.1), math.Log10(maxMS*1.5)
		return (math.Log10(math.Max(v, 0.1)) - lo) / (hi - lo) * float64(width-left-330)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/><text x="16" y="24" font-size="15" font-weight="600">cairn and its peers, milliseconds (log scale; shorter is faster)</text>`+"\n")
	fmt.Fprintf(&b, `<rect x="16" y="36" width="12" height="12" fill="#2f6fdf"/><text x="34" y="46">cairn</text><rect x="90" y="36" width="12" height="12" fill="#b0b7c3"/><text x="108" y="46">peer, same run, same data</text>`+"\n")
	y := 62
	for _, r := range rows {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="600">%s</text>`+"\n", left, y+12, html.EscapeString(r.bench))
		y += labelH
		bars := []struct {
			v            float64
			color, label string
		}{{r.cairnMS, "#2f6fdf", r.cairnLabel}, {r.peerMS, "#b0b7c3", r.peerLabel}}
		for _, bar := range bars {
			if math.IsNaN(bar.v) {
				continue
			}
			w := scale(bar.v)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, left, y, w, barH-3, bar.color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#333">%s ms  <tspan fill="#777">%s</tspan></text>`+"\n", float64(left)+w+6, y+barH-5, fmtMS(bar.v), html.EscapeString(bar.label))
			y += barH
		}
		y += gap
	}
	b.WriteString("</svg>\n")
	return b.String()
}
