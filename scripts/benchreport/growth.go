package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"strconv"
	"strings"
)

// growthMarker opens the growth section of docs/benchmarks.md; everything from it to the end of
// the file is that section, written by -growth and kept as it is by the main report.
const growthMarker = "<!-- growth section: scripts/bench.sh growth writes from here to the end -->"

// growthRow is one point of the growth section: one family at one size, cairn and its peer.
type growthRow struct {
	family, sizeLabel, point, cairnLabel, peerLabel string
	size, cairnMS, peerMS, cairnMiB, peerMiB, load  float64
	runs                                            int
}

// family is the points of one family in size order, as they were recorded.
type family struct {
	name, cairnLabel, peerLabel string
	rows                        []growthRow
}

// readGrowth reads the rows growth_record writes: family, size, size label, point, cairn label,
// cairn ms, peer label, peer ms, cairn peak MiB, peer peak MiB, load average, runs.
func readGrowth(path string) ([]growthRow, error) {
	var rows []growthRow
	err := readTSV(path, 12, func(n int, p []string) error {
		size, err := strconv.ParseFloat(strings.TrimSpace(p[1]), 64)
		if err != nil || size <= 0 {
			return fmt.Errorf("%s:%d: size %q is not a positive number", path, n, p[1])
		}
		runs, _ := strconv.Atoi(strings.TrimSpace(p[11]))
		rows = append(rows, growthRow{family: p[0], size: size, sizeLabel: p[2], point: p[3], cairnLabel: p[4], cairnMS: num(p[5]),
			peerLabel: p[6], peerMS: num(p[7]), cairnMiB: num(p[8]), peerMiB: num(p[9]), load: num(p[10]), runs: runs})
		return nil
	})
	return rows, err
}

// readNotes reads the hand-written reading of each family (family, tab, text); a missing file
// gives none, so the figures still render before anyone has read them.
func readNotes(path string) (map[string]string, error) {
	notes := map[string]string{}
	if path == "" {
		return notes, nil
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return notes, nil
	}
	if err != nil {
		return nil, err
	}
	for n, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, text, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want family<TAB>reading", path, n+1)
		}
		notes[name] = strings.TrimSpace(text)
	}
	return notes, nil
}

// families groups rows by family in the order the families first appear, each sorted by size.
func families(rows []growthRow) []family {
	var out []family
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.family]
		if !ok {
			i = len(out)
			at[r.family] = i
			out = append(out, family{name: r.family, cairnLabel: r.cairnLabel, peerLabel: r.peerLabel})
		}
		out[i].rows = append(out[i].rows, r)
	}
	for i := range out {
		rs := out[i].rows
		for a := 1; a < len(rs); a++ { // insertion sort: stable, and a family has a handful of points
			for b := a; b > 0 && rs[b].size < rs[b-1].size; b-- {
				rs[b], rs[b-1] = rs[b-1], rs[b]
			}
		}
	}
	return out
}

// factors says how a figure grows from one size to the next: "×1.1, ×9.8".
func factors(rs []growthRow, get func(growthRow) float64) string {
	var parts []string
	for i := 1; i < len(rs); i++ {
		a, b := get(rs[i-1]), get(rs[i])
		if math.IsNaN(a) || math.IsNaN(b) || a <= 0 {
			parts = append(parts, "–")
			continue
		}
		parts = append(parts, "×"+strconv.FormatFloat(b/a, 'f', 1, 64))
	}
	return strings.Join(parts, ", ")
}

// sizeSteps names the steps between sizes: "×10, ×10".
func sizeSteps(rs []growthRow) string {
	return factors(rs, func(r growthRow) float64 { return r.size })
}

func fmtNum(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// growthMarkdown renders the "How cost grows" section: one table of every point, and per family
// a reading: how cairn's time, the peer's time and cairn's peak memory grow from size to size,
// then the hand-written reason from notes.
func growthMarkdown(rows []growthRow, notes map[string]string, machine, date, svg string) string {
	var b strings.Builder
	b.WriteString(growthMarker + "\n\n## How cost grows\n\n")
	b.WriteString("Each family at about 0.1×, 1× and 10× of its size in the table above, cairn next to its peer on\n")
	b.WriteString("the same data in the same run (median wall time of the runs given, a fresh process each; peak\n")
	b.WriteString("memory is the largest resident set). Load is the 1-minute load average when the point was\n")
	b.WriteString("taken: the machine is shared, so read the slopes more than the last digit. Regenerate with\n")
	b.WriteString("`scripts/bench.sh growth` (or `GROWTH=1 scripts/bench.sh`); it rewrites only this section.\n\n")
	if date != "" || machine != "" {
		fmt.Fprintf(&b, "Written on %s. Machine: %s\n\n", orDash(date), orDash(machine))
	}
	fams := families(rows)
	b.WriteString("| family | size | cairn ms | peer ms | cairn / peer | cairn peak MiB | peer peak MiB | runs | load |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, f := range fams {
		for _, r := range f.rows {
			ratio := "–"
			if !math.IsNaN(r.peerMS) && r.peerMS > 0 && !math.IsNaN(r.cairnMS) {
				ratio = fmtNum(r.cairnMS/r.peerMS, 2)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %s |\n", f.name, r.sizeLabel, fmtMS(r.cairnMS), fmtMS(r.peerMS), ratio,
				fmtNum(r.cairnMiB, 1), fmtNum(r.peerMiB, 1), r.runs, fmtNum(r.load, 2))
		}
	}
	b.WriteString("\nPeers: ")
	for i, f := range fams {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: `%s` vs `%s`", f.name, f.cairnLabel, f.peerLabel)
	}
	b.WriteString(".\n\nReading, size step by step (time and memory grow by the factors given):\n\n")
	for _, f := range fams {
		fmt.Fprintf(&b, "- **%s** (size %s): cairn time %s, peer time %s, cairn peak %s.", f.name, sizeSteps(f.rows),
			factors(f.rows, func(r growthRow) float64 { return r.cairnMS }),
			factors(f.rows, func(r growthRow) float64 { return r.peerMS }),
			factors(f.rows, func(r growthRow) float64 { return r.cairnMiB }))
		if n := notes[f.name]; n != "" {
			b.WriteString(" " + n)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n![how cost grows: cairn and its peer, milliseconds against size, log-log](%s)\n", strings.TrimPrefix(svg, "docs/"))
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// mergeGrowth replaces the growth section of doc (from growthMarker to the end) with section, or
// appends section after a blank line when doc has none.
func mergeGrowth(doc, section string) string {
	if i := strings.Index(doc, growthMarker); i >= 0 {
		return strings.TrimRight(doc[:i], "\n") + "\n\n" + section
	}
	if strings.TrimSpace(doc) == "" {
		return section
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + section
}

// growthSection returns the growth section of doc, from growthMarker to the end, or "".
func growthSection(doc string) string {
	if i := strings.Index(doc, growthMarker); i >= 0 {
		return doc[i:]
	}
	return ""
}

// growthChart draws one log-log panel per family, two panels a row: cairn's time and the peer's
// against size, each point labelled, and a dashed line proportional to size from cairn's first
// point, so a curve that bends away from it shows where cost stops growing linearly.
func growthChart(rows []growthRow) string {
	const cols, panelW, panelH, top, padL, padR, padT, padB = 2, 490, 280, 64, 62, 18, 38, 44
	fams := families(rows)
	nrows := (len(fams) + cols - 1) / cols
	width, height := cols*panelW+10, top+nrows*panelH+10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="11">`+"\n", width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="#fff"/><text x="16" y="24" font-size="15" font-weight="600">How cost grows: milliseconds against size (log-log; lower is faster)</text>` + "\n")
	b.WriteString(`<line x1="16" y1="42" x2="40" y2="42" stroke="#2f6fdf" stroke-width="2.5"/><text x="46" y="46">cairn</text>`)
	b.WriteString(`<line x1="96" y1="42" x2="120" y2="42" stroke="#8a93a3" stroke-width="2.5"/><text x="126" y="46">peer, same run, same data</text>`)
	b.WriteString(`<line x1="290" y1="42" x2="314" y2="42" stroke="#2f6fdf" stroke-width="1" stroke-dasharray="4 3"/><text x="320" y="46">proportional to size, from cairn's first point</text>` + "\n")
	for i, f := range fams {
		x0, y0 := (i%cols)*panelW+10, top+(i/cols)*panelH
		panel(&b, f, float64(x0), float64(y0), panelW-20, panelH-10, padL, padR, padT, padB)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// panel draws one family's log-log chart in the box at x0, y0 of w by h.
func panel(b *strings.Builder, f family, x0, y0 float64, w, h, padL, padR, padT, padB int) {
	rs := f.rows
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" font-size="12.5" font-weight="600">%s</text>`+"\n", x0, y0+14, html.EscapeString(f.name))
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" fill="#777">%s vs %s</text>`+"\n", x0, y0+27, html.EscapeString(f.cairnLabel), html.EscapeString(f.peerLabel))
	if len(rs) == 0 {
		return
	}
	// linear reference from cairn's first point
	ref := func(size float64) float64 { return rs[0].cairnMS * size / rs[0].size }
	minX, maxX := rs[0].size, rs[len(rs)-1].size
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		for _, v := range []float64{r.cairnMS, r.peerMS, ref(r.size)} {
			if !math.IsNaN(v) && v > 0 {
				minY, maxY = math.Min(minY, v), math.Max(maxY, v)
			}
		}
	}
	if math.IsInf(minY, 0) {
		minY, maxY = 1, 10
	}
	// a decade grid with room above and below the points for their labels
	loY, hiY := math.Floor(math.Log10(minY)-0.15), math.Ceil(math.Log10(maxY)+0.1)
	if hiY <= loY {
		hiY = loY + 1
	}
	loX, hiX := math.Log10(minX)-0.25, math.Log10(maxX)+0.25
	if hiX-loX < 0.6 {
		loX, hiX = loX-0.3, hiX+0.3
	}
	px := func(size float64) float64 {
		return x0 + float64(padL) + (math.Log10(size)-loX)/(hiX-loX)*float64(w-padL-padR)
	}
	py := func(ms float64) float64 {
		return y0 + float64(h-padB) - (math.Log10(ms)-loY)/(hiY-loY)*float64(h-padT-padB)
	}
	left, right, bottom, topY := x0+float64(padL), x0+float64(w-padR), y0+float64(h-padB), y0+float64(padT)
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#ccc"/>`+"\n", left, topY, right-left, bottom-topY)
	for d := loY; d <= hiY; d++ {
		y := py(math.Pow(10, d))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n",
			left, y, right, y, left-5, y+4, msTick(d))
	}
	for _, r := range rs {
		x := px(r.size)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>`+"\n",
			x, topY, x, bottom, x, bottom+15, html.EscapeString(r.sizeLabel))
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="#2f6fdf" stroke-width="1" stroke-dasharray="4 3" points="%s"/>`+"\n",
		points(rs, func(r growthRow) float64 { return ref(r.size) }, px, py))
	series := []struct {
		get   func(growthRow) float64
		color string
		cairn bool
	}{
		{func(r growthRow) float64 { return r.peerMS }, "#8a93a3", false},
		{func(r growthRow) float64 { return r.cairnMS }, "#2f6fdf", true},
	}
	for _, s := range series {
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2.5" points="%s"/>`+"\n", s.color, points(rs, s.get, px, py))
		for _, r := range rs {
			v := s.get(r)
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			// the higher of the two points is labelled above, the lower below
			above := r.cairnMS >= r.peerMS || math.IsNaN(r.peerMS)
			if !s.cairn {
				above = !above
			}
			dy := 15.0
			if above {
				dy = -7
			}
			x, y := px(r.size), py(v)
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/><text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>`+"\n",
				x, y, s.color, x, y+dy, s.color, pointLabel(v))
		}
	}
}

// points renders the (size, value) pairs of rs as polyline points, skipping missing values.
func points(rs []growthRow, get func(growthRow) float64, px, py func(float64) float64) string {
	var parts []string
	for _, r := range rs {
		if v := get(r); !math.IsNaN(v) && v > 0 {
			parts = append(parts, fmt.Sprintf("%.1f,%.1f", px(r.size), py(v)))
		}
	}
	return strings.Join(parts, " ")
}

// pointLabel names a point's time: milliseconds below a second, else seconds ("8.3 s", "173 s").
func pointLabel(ms float64) string {
	switch {
	case ms >= 10000:
		return strconv.FormatFloat(ms/1000, 'f', 0, 64) + " s"
	case ms >= 1000:
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
	return fmtMS(ms) + " ms"
}

// msTick names the decade 10^d milliseconds: "0.1 ms", "1 ms", "100 ms", "1 s", "10 s".
func msTick(d float64) string {
	switch ms := math.Pow(10, d); {
	case ms >= 1000:
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
	default:
		return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
	}
}
