package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// growthTSV has two families, the second recorded out of size order, and one missing peer figure.
const growthTSV = "search\t20000\t20000 comments\t0.1x\tcairn search\t10.0\tsqlite3\t4.0\t15.0\t4.0\t1.50\t5\n" +
	"search\t200000\t200000 comments\t1x\tcairn search\t10.0\tsqlite3\t40.0\t15.0\t4.0\t2.00\t5\n" +
	"search\t2000000\t2000000 comments\t10x\tcairn search\t20.0\tsqlite3\t400.0\t30.0\t4.0\t3.25\t3\n" +
	"replay\t10000000\t10000000 lines\t10x\tcairn task list\t2300\tgrep -c\t-\t28.0\t2.0\t4.00\t3\n" +
	"replay\t100000\t100000 lines\t0.1x\tcairn task list\t23\tgrep -c\t1.4\t20.0\t2.0\t4.00\t5\n" +
	"replay\t1000000\t1000000 lines\t1x\tcairn task list\t230\tgrep -c\t14\t28.0\t2.0\t4.00\t5\n"

func growthRows(t *testing.T) []growthRow {
	t.Helper()
	path := filepath.Join(t.TempDir(), "growth.tsv")
	if err := os.WriteFile(path, []byte(growthTSV), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := readGrowth(path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestGrowthMarkdownTableAndReadings(t *testing.T) {
	md := growthMarkdown(growthRows(t), map[string]string{"search": "The index bounds it."}, "2 cores", "2026-12-01", "docs/benchmarks-growth.svg")
	for _, want := range []string{
		growthMarker + "\n\n## How cost grows\n",
		"Written on 2026-12-01. Machine: 2 cores\n",
		"| search | 20000 comments | 10 | 4.00 | 2.50 | 15.0 | 4.0 | 5 | 1.50 |\n",
		"| search | 2000000 comments | 20 | 400 | 0.05 | 30.0 | 4.0 | 3 | 3.25 |\n",
		"| replay | 10000000 lines | 2300 | – | – | 28.0 | 2.0 | 3 | 4.00 |\n",
		"search: `cairn search` vs `sqlite3`; replay: `cairn task list` vs `grep -c`.",
		"- **search** (size ×10.0, ×10.0): cairn time ×1.0, ×2.0, peer time ×10.0, ×10.0, cairn peak ×1.0, ×2.0. The index bounds it.\n",
		"- **replay** (size ×10.0, ×10.0): cairn time ×10.0, ×10.0, peer time ×10.0, –, cairn peak ×1.4, ×1.0.\n",
		"](benchmarks-growth.svg)\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("growth section lacks %q:\n%s", want, md)
		}
	}
	// rows of a family in size order, families in the order they were recorded
	order := []string{"| search | 20000 ", "| search | 200000 ", "| search | 2000000 ", "| replay | 100000 ", "| replay | 1000000 ", "| replay | 10000000 "}
	last := -1
	for _, o := range order {
		i := strings.Index(md, o)
		if i <= last {
			t.Fatalf("row %q out of order in:\n%s", o, md)
		}
		last = i
	}
	if again := growthMarkdown(growthRows(t), map[string]string{"search": "The index bounds it."}, "2 cores", "2026-12-01", "docs/benchmarks-growth.svg"); again != md {
		t.Error("the growth section is not the same for the same rows")
	}
}

func TestGrowthChartPanels(t *testing.T) {
	svg := growthChart(growthRows(t))
	if svg != growthChart(growthRows(t)) {
		t.Fatal("the growth chart is not the same for the same rows")
	}
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Fatalf("chart has a NaN or Inf coordinate:\n%s", svg)
	}
	for _, title := range []string{">search</text>", ">replay</text>"} {
		if strings.Count(svg, title) != 1 {
			t.Errorf("want one panel titled %q", title)
		}
	}
	for _, label := range []string{">10 ms</text>", ">400 ms</text>", ">2.3 s</text>", ">1.40 ms</text>"} {
		if !strings.Contains(svg, label) {
			t.Errorf("chart lacks the point label %q", label)
		}
	}
	// per family: the dashed reference, the peer line, the cairn line; replay's peer line skips its missing point
	lines := regexp.MustCompile(`<polyline [^>]*points="([^"]*)"`).FindAllStringSubmatch(svg, -1)
	if len(lines) != 6 {
		t.Fatalf("want 6 polylines, got %d", len(lines))
	}
	wantPoints := []int{3, 3, 3, 3, 2, 3}
	for i, l := range lines {
		pts := strings.Fields(l[1])
		if len(pts) != wantPoints[i] {
			t.Errorf("polyline %d: want %d points, got %q", i, wantPoints[i], l[1])
		}
		prevX := -1.0
		for _, p := range pts {
			x, _ := strconv.ParseFloat(strings.Split(p, ",")[0], 64)
			if x <= prevX {
				t.Errorf("polyline %d: x does not grow with size: %q", i, l[1])
			}
			prevX = x
		}
	}
	// log-log: search's peer grows ×10 per step, so its three points are evenly spaced in y
	var ys []float64
	for _, p := range strings.Fields(lines[1][1]) {
		y, _ := strconv.ParseFloat(strings.Split(p, ",")[1], 64)
		ys = append(ys, y)
	}
	if d1, d2 := ys[0]-ys[1], ys[1]-ys[2]; d1 <= 0 || d1-d2 > 0.2 || d2-d1 > 0.2 {
		t.Errorf("peer points of a ×10 per ×10 series are not evenly spaced upwards: %v", ys)
	}
}

func TestMergeGrowthKeepsTheRest(t *testing.T) {
	main := "# Benchmarks\n\n| a | b |\n"
	first := mergeGrowth(main, growthMarker+"\n\nold\n")
	if first != main+"\n"+growthMarker+"\n\nold\n" {
		t.Fatalf("appended section: %q", first)
	}
	second := mergeGrowth(first, growthMarker+"\n\nnew\n")
	if second != main+"\n"+growthMarker+"\n\nnew\n" {
		t.Fatalf("replaced section: %q", second)
	}
	if growthSection(second) != growthMarker+"\n\nnew\n" || growthSection(main) != "" {
		t.Fatalf("growthSection of %q", second)
	}
}

func TestWriteMainKeepsGrowthSection(t *testing.T) {
	dir := t.TempDir()
	in, md, svg := filepath.Join(dir, "results.tsv"), filepath.Join(dir, "benchmarks.md"), filepath.Join(dir, "benchmarks.svg")
	if err := os.WriteFile(in, []byte("bench\tcairn x\t12\tpeer y\t24\t10.0\t<= 1 s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	growth := growthMarker + "\n\n## How cost grows\n\nkept\n"
	if err := os.WriteFile(md, []byte("# Benchmarks\n\nold table\n\n"+growth), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMain(in, md, svg, "2 cores"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(md)
	if !strings.HasSuffix(string(got), "\n\n"+growth) || strings.Contains(string(got), "old table") || !strings.Contains(string(got), "| bench | `cairn x` | 12 |") {
		t.Fatalf("main report did not replace the table and keep the growth section:\n%s", got)
	}
}

func TestWriteGrowthKeepsMainTable(t *testing.T) {
	dir := t.TempDir()
	in, md, svg, notes := filepath.Join(dir, "growth.tsv"), filepath.Join(dir, "benchmarks.md"), filepath.Join(dir, "g.svg"), filepath.Join(dir, "notes.tsv")
	if err := os.WriteFile(in, []byte(growthTSV), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("# family<TAB>reading\nreplay\tLinear: every line is read.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := "# Benchmarks\n\n| noisy | table |\n\n![x](benchmarks.svg)\n"
	if err := os.WriteFile(md, []byte(head+"\n"+growthMarker+"\n\nstale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeGrowth(in, md, svg, notes, "2 cores", "2026-12-01"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(md)
	if !strings.HasPrefix(string(got), head+"\n"+growthMarker+"\n") || strings.Contains(string(got), "stale") ||
		!strings.Contains(string(got), "Linear: every line is read.") {
		t.Fatalf("growth report did not keep the table and replace its section:\n%s", got)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg ") {
		t.Fatalf("growth chart not written: %v", err)
	}
}

func TestReadGrowthRejectsShortRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "growth.tsv")
	if err := os.WriteFile(path, []byte("search\t20000\t20000 comments\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readGrowth(path); err == nil || !strings.Contains(err.Error(), ":1: want 12") {
		t.Fatalf("want a line-numbered field-count error, got %v", err)
	}
}

func TestDistSectionKept(t *testing.T) {
	doc := "# Benchmarks\n\ntable\n\n" + growthMarker + "\n\ngrowth\n"
	withDist := mergeDist(doc, distMarker+"\n\none\n\n"+distEnd)
	if !strings.Contains(withDist, "table\n\n"+distMarker+"\n\none\n\n"+distEnd+"\n\n"+growthMarker) {
		t.Fatalf("section not before the growth section:\n%s", withDist)
	}
	again := mergeDist(withDist, distMarker+"\n\ntwo\n\n"+distEnd)
	if strings.Contains(again, "one") || !strings.Contains(again, "two") || strings.Count(again, distMarker) != 1 {
		t.Fatalf("section not replaced:\n%s", again)
	}
	if got := mergeDist(mergeGrowth(again, growthMarker+"\n\nnew\n"), distSection(again)); distSection(got) != distSection(again) {
		t.Fatalf("growth lost the section:\n%s", got)
	}
}

func TestTeamSectionKept(t *testing.T) {
	doc := "# Benchmarks\n\ntable\n\n" + growthMarker + "\n\ngrowth\n"
	team := teamSec.marker + "\n\nteam\n\n" + teamSec.end
	dist := distMarker + "\n\ndist\n\n" + distEnd
	// alone, then with the search-dist section put in after it: the team section stays after it
	got := mergeDist(teamSec.merge(doc, team), dist)
	if want := "table\n\n" + dist + "\n\n" + team + "\n\n" + growthMarker; !strings.Contains(got, want) {
		t.Fatalf("sections out of order:\n%s", got)
	}
	again := teamSec.merge(got, teamSec.marker+"\n\nnew\n\n"+teamSec.end)
	if strings.Contains(again, "\nteam\n") || !strings.Contains(again, "\nnew\n") || distSection(again) != dist {
		t.Fatalf("team section not replaced alone:\n%s", again)
	}
}

func TestNamedDistSections(t *testing.T) {
	section := func(name, body string) string {
		b, e := distMarkers(name)
		return b + "\n\n" + body + "\n\n" + e
	}
	doc := "# Benchmarks\n\ntable\n\n" + growthMarker + "\n\ngrowth\n"
	// memory-dist first, then search-dist and board-dist: they end up in distNames' order
	doc = mergeNamedDist(doc, "memory-dist", section("memory-dist", "m1"))
	doc = mergeNamedDist(doc, "search-dist", section("search-dist", "s1"))
	doc = mergeNamedDist(doc, "board-dist", section("board-dist", "b1"))
	want := "table\n\n" + section("search-dist", "s1") + "\n\n" + section("board-dist", "b1") + "\n\n" + section("memory-dist", "m1") + "\n\n" + growthMarker
	if !strings.Contains(doc, want) {
		t.Fatalf("sections out of order:\n%s", doc)
	}
	again := mergeNamedDist(doc, "board-dist", section("board-dist", "b2"))
	if strings.Contains(again, "b1") || !strings.Contains(again, "b2") || !strings.Contains(again, "s1") || !strings.Contains(again, "m1") {
		t.Fatalf("board-dist not replaced alone:\n%s", again)
	}
	// the main report keeps all three
	kept := keepDist("# Benchmarks\n\nnew table\n", again)
	for _, n := range distNames {
		if namedDistSection(kept, n) != namedDistSection(again, n) {
			t.Fatalf("%s lost by the main report:\n%s", n, kept)
		}
	}
}
