// Command redactbench measures core/redact on a labelled corpus of secrets and on ordinary text.
//
//	go run ./scripts/redactbench                 recall on the tune split
//	go run ./scripts/redactbench -split heldout  recall on the held-out split: figures only
//	go run ./scripts/redactbench -fp             false positives in ordinary prose and code
//	go run ./scripts/redactbench -gen            rewrite the generated corpus files
//
// Each sample's text is stored as the space import stores a comment (spaces.Texts with the
// default redactor: white space collapsed, secrets redacted, then folded for the index), and the
// secret counts as leaked when any fragment of 8 bytes or 8 characters of it can still be read in
// the display text or found in the index text. Samples come from core/redact/testdata/public (made
// by this program's generator) and, when they are fetched onto this machine, from gitleaks' and
// detect-secrets' tests, read where they are (see external.go). Kinds are split 60/40 into tune
// and heldout by a hash of their name; the held-out split's kinds are never listed unless -reveal
// is given, which people tuning the detector must not do.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/redact"
)

func main() {
	split := flag.String("split", "tune", "tune, heldout or all")
	fp := flag.Bool("fp", false, "measure false positives on ordinary text instead of recall")
	genFiles := flag.Bool("gen", false, "rewrite tune.jsonl and heldout.jsonl from the generator")
	data := flag.String("data", "core/redact/testdata/public", "folder of tune.jsonl and heldout.jsonl")
	mirrors := flag.String("mirrors", "/work/.mirror", "folder of fetched repositories (owner+name/repo git directories) to read external samples from; empty for none")
	fpWords := flag.Int("fpwords", 3_000_000, "words of the module cache to read for -fp (this repository is read whole)")
	reveal := flag.Bool("reveal", false, "list the held-out split's leaked kinds too (not for people tuning the detector)")
	examples := flag.Int("examples", 50, "examples of leaks or false positives to print")
	flag.Parse()

	if *genFiles {
		if err := writeGenerated(*data); err != nil {
			fatal(err)
		}
		return
	}
	header()
	if *fp {
		if err := falsePositives(*fpWords, *examples); err != nil {
			fatal(err)
		}
		return
	}
	samples, notes, err := load(*data, *mirrors, *split)
	if err != nil {
		fatal(err)
	}
	for _, n := range notes {
		fmt.Println("note:", n)
	}
	recall(samples, *split, *reveal || *split == "tune", *examples)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "redactbench:", err)
	os.Exit(1)
}

func header() {
	fmt.Printf("command: go run ./scripts/redactbench %s\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("date: %s, %s\n\n", time.Now().UTC().Format("2006-01-02"), runtime.Version())
}

// writeGenerated writes the generator's samples into the two split files, sorted by kind.
func writeGenerated(dir string) error {
	bySplit := map[string][]Sample{}
	for _, s := range generate(6) {
		if !strings.Contains(s.Text, s.Secret) {
			return fmt.Errorf("%s: the secret %q is not in its text", s.Kind, s.Secret)
		}
		bySplit[splitOf(s.Kind)] = append(bySplit[splitOf(s.Kind)], s)
	}
	for _, name := range []string{"tune", "heldout"} {
		if err := writeSamples(filepath.Join(dir, name+".jsonl"), bySplit[name]); err != nil {
			return err
		}
		fmt.Printf("%s.jsonl: %d samples\n", name, len(bySplit[name]))
	}
	return nil
}

// load reads the split's file (both for all) and the external samples of the same split.
func load(dir, mirrors, split string) ([]Sample, []string, error) {
	names := []string{split}
	switch split {
	case "all":
		names = []string{"tune", "heldout"}
	case "tune", "heldout":
	default:
		return nil, nil, fmt.Errorf("-split %q: want tune, heldout or all", split)
	}
	var out []Sample
	for _, n := range names {
		s, err := readSamples(filepath.Join(dir, n+".jsonl"))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, s...)
	}
	var notes []string
	if mirrors != "" {
		for _, s := range external(mirrors, func(n string) { notes = append(notes, n) }) {
			if split == "all" || splitOf(s.Kind) == split {
				out = append(out, s)
			}
		}
	}
	for _, s := range out {
		if !strings.Contains(s.Text, s.Secret) {
			return nil, nil, fmt.Errorf("%s (%s): the secret %q is not in its text", s.Kind, s.Source, s.Secret)
		}
	}
	return out, notes, nil
}

type tally struct{ samples, hidden int }

func (t tally) pct() float64 { return 100 * float64(t.hidden) / float64(max(t.samples, 1)) }

func recall(samples []Sample, split string, listKinds bool, examples int) {
	r := redact.New()
	bySource := map[string]*tally{}
	byGroup := map[string]*tally{}
	byKind := map[string]*tally{}
	var all tally
	type leak struct {
		s       Sample
		display string
		frags   []string
	}
	var leaks []leak
	layers := newLayerReport(r)
	for _, s := range samples {
		display, frags := leaked(r, s)
		src := sourceName(s)
		for key, m := range map[string]map[string]*tally{src: bySource, s.Group: byGroup, s.Kind: byKind} {
			if m[key] == nil {
				m[key] = &tally{}
			}
			m[key].samples++
		}
		all.samples++
		hidden := len(frags) == 0
		if hidden {
			all.hidden++
			bySource[src].hidden++
			byGroup[s.Group].hidden++
			byKind[s.Kind].hidden++
		} else {
			leaks = append(leaks, leak{s, display, frags})
		}
		layers.add(s, hidden)
	}
	kinds := len(byKind)
	kindsHidden := 0
	for _, t := range byKind {
		if t.hidden == t.samples {
			kindsHidden++
		}
	}
	fmt.Printf("split %s: %d samples of %d kinds; %d hidden with no 8-byte or 8-character fragment left: %.1f %%; kinds wholly hidden: %d of %d\n\n",
		split, all.samples, kinds, all.hidden, all.pct(), kindsHidden, kinds)
	table := func(title string, m map[string]*tally) {
		fmt.Printf("| %s | samples | hidden | recall |\n|---|--:|--:|--:|\n", title)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("| %s | %d | %d | %.1f %% |\n", k, m[k].samples, m[k].hidden, m[k].pct())
		}
		fmt.Println()
	}
	table("source", bySource)
	table("group", byGroup)
	if !listKinds {
		fmt.Println("(held-out split: kinds and examples are not listed; -reveal lists them)")
		return
	}
	fmt.Println("leaked kinds (leaked samples of the kind's samples):")
	keys := make([]string, 0)
	for k, t := range byKind {
		if t.hidden < t.samples {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  %-55s %d/%d\n", k, byKind[k].samples-byKind[k].hidden, byKind[k].samples)
	}
	fmt.Println()
	layers.print()
	fmt.Printf("first %d leaks:\n", min(examples, len(leaks)))
	for i, l := range leaks {
		if i == examples {
			break
		}
		fmt.Printf("  %s [%s]\n    secret  %q\n    stored  %q\n    left    %q\n", l.s.Kind, l.s.Source, l.s.Secret, clip(l.display, 300), l.frags[0])
	}
}

func sourceName(s Sample) string {
	switch {
	case strings.HasPrefix(s.Source, "generated:"):
		return "generated here (formats providers document)"
	case strings.Contains(s.Source, "gitleaks"):
		return "gitleaks tests (MIT)"
	case strings.Contains(s.Source, "detect-secrets"):
		return "detect-secrets tests (Apache-2.0)"
	}
	return s.Source
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// --- which rule hid a secret ---

// layerReport attributes each hidden secret to the rules that hid it. With a Redactor method
//
//	func (r *Redactor) Spans(s string) []Span // type Span struct { Start, End int; Rule string }
//
// (byte ranges of s that Text replaces, each with the Name of the rule that found it; a Layer
// string field is read too when there is one) it is exact, called through reflection so that this
// program builds before the method exists. Without it only the rules with a Pattern can be run
// alone; a secret that none of them covers is put down to the scanners together.
type layerReport struct {
	r        *redact.Redactor
	spans    reflect.Value
	patterns []redact.Rule
	hidden   map[string]int
	missed   map[string]int
}

func newLayerReport(r *redact.Redactor) *layerReport {
	l := &layerReport{r: r, hidden: map[string]int{}, missed: map[string]int{}}
	if m := reflect.ValueOf(r).MethodByName("Spans"); m.IsValid() && m.Type().NumIn() == 1 && m.Type().In(0).Kind() == reflect.String &&
		m.Type().NumOut() == 1 && m.Type().Out(0).Kind() == reflect.Slice {
		l.spans = m
	}
	for _, rule := range r.Rules() {
		if rule.Pattern != nil {
			l.patterns = append(l.patterns, rule)
		}
	}
	return l
}

type namedSpan struct {
	start, end  int
	rule, layer string
}

func (l *layerReport) find(s string) (spans []namedSpan, exact bool) {
	if l.spans.IsValid() {
		out := l.spans.Call([]reflect.Value{reflect.ValueOf(s)})[0]
		for i := range out.Len() {
			v := reflect.Indirect(out.Index(i))
			sp := namedSpan{start: int(v.FieldByName("Start").Int()), end: int(v.FieldByName("End").Int()), rule: v.FieldByName("Rule").String()}
			if f := v.FieldByName("Layer"); f.IsValid() {
				sp.layer = f.String()
			}
			spans = append(spans, sp)
		}
		return spans, true
	}
	for _, rule := range l.patterns {
		for _, m := range rule.Pattern.FindAllStringSubmatchIndex(s, -1) {
			g := rule.Group
			if g == redact.FirstGroup {
				for g = 1; 2*g+1 < len(m) && m[2*g] < 0; g++ {
				}
				if 2*g+1 >= len(m) {
					g = 0
				}
			}
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				spans = append(spans, namedSpan{start: m[2*g], end: m[2*g+1], rule: rule.Name})
			}
		}
	}
	return spans, false
}

func (l *layerReport) add(s Sample, hidden bool) {
	text, secret := collapse(s.Text), collapse(s.Secret)
	at := strings.Index(text, secret)
	spans, exact := l.find(text)
	names := map[string]bool{}
	for _, sp := range spans {
		if at >= 0 && sp.start < at+len(secret) && sp.end > at {
			name := sp.rule
			if sp.layer != "" {
				name = sp.layer + ": " + sp.rule
			}
			names[name] = true
		}
	}
	if len(names) == 0 && !exact {
		names["(a scanner: assignment, command_line, base64_credentials, ...)"] = true
	}
	for n := range names {
		if hidden {
			l.hidden[n]++
		} else {
			l.missed[n]++
		}
	}
}

func (l *layerReport) print() {
	if l.spans.IsValid() {
		fmt.Println("by rule (Redactor.Spans): samples whose secret a rule's span covers, hidden whole / leaked all the same")
	} else {
		fmt.Println("by rule (no Redactor.Spans yet: pattern rules run alone, scanners together): samples whose secret a rule covers, hidden whole / leaked all the same")
	}
	keys := map[string]bool{}
	for k := range l.hidden {
		keys[k] = true
	}
	for k := range l.missed {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		fmt.Printf("  %-70s %5d / %d\n", k, l.hidden[k], l.missed[k])
	}
	fmt.Println()
}
