// Command redactbench measures core/redact on a labelled corpus of secrets and on ordinary text.
//
//	go run ./scripts/redactbench                 recall on the tune split
//	go run ./scripts/redactbench -split heldout  recall on the held-out split: figures only
//	go run ./scripts/redactbench -split fresh    recall on the fresh corpus (kinds of neither split): figures only
//	go run ./scripts/redactbench -fp             false positives in ordinary prose and code
//	go run ./scripts/redactbench -gen            rewrite the generated corpus files
//	go run ./scripts/redactbench -gen-fresh      rewrite the fresh corpus file
//	go run ./scripts/redactbench -split blind    recall on the blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind      rewrite the blind corpus file and its negatives
//	go run ./scripts/redactbench -split blind2   recall on the second blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind2     rewrite the second blind corpus file
//	go run ./scripts/redactbench -split blind3   recall on the third blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind3     rewrite the third blind corpus file and its negatives
//	go run ./scripts/redactbench -split blind4   recall on the fourth blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind4     rewrite the fourth blind corpus file and its negatives
//	go run ./scripts/redactbench -split blind5   recall on the fifth blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind5     rewrite the fifth blind corpus file and its negatives
//	go run ./scripts/redactbench -split blind6   recall on the sixth blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind6     rewrite the sixth blind corpus file and its negatives
//	go run ./scripts/redactbench -split blind7   recall on the seventh blind corpus (written without reading the detector): figures only
//	go run ./scripts/redactbench -gen-blind7     rewrite the seventh blind corpus file and its negatives
//
// Each sample's text is stored as the space import stores a comment (spaces.Texts with the
// default redactor: white space collapsed, secrets redacted, then folded for the index), and the
// secret counts as leaked when any fragment of 8 bytes or 8 characters of it can still be read in
// the display text or found in the index text. Samples come from core/redact/testdata/public (made
// by this program's generator) and, when they are fetched onto this machine, from gitleaks' and
// detect-secrets' tests, read where they are (see external.go). Kinds are split 60/40 into tune
// and heldout by a hash of their name; the held-out split's kinds are never listed unless -reveal
// is given, which people tuning the detector must not do. The fresh corpus (fresh.jsonl, kinds of
// neither split, written by generators that were made without reading the detector) is held out
// the same way, and so are the blind corpora (blind.jsonl, blind2.jsonl, blind3.jsonl, blind4.jsonl,
// blind5.jsonl, blind6.jsonl, blind7.jsonl), written by people who had not read the detector; blind3's halves are
// -split blind3-tune and blind3-held, blind4's -split blind4-tune and blind4-held, blind5's -split
// blind5-tune and blind5-held, blind6's -split blind6-tune and blind6-held, blind7's -split blind7-tune and blind7-held. Every split's figures include a per-layer table (Redactor.Spans): which layers'
// spans cover each hidden secret, and how many secrets each layer would hide alone.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/redact"
)

func main() {
	split := flag.String("split", "tune", "tune, heldout, fresh, blind, blind-tune, blind-held, blind2, blind2-tune, blind2-held, blind3, blind3-tune, blind3-held, blind4, blind4-tune, blind4-held, blind5, blind5-tune, blind5-held, blind6, blind6-tune, blind6-held, blind7, blind7-tune, blind7-held or all (tune and heldout)")
	fp := flag.Bool("fp", false, "measure false positives on ordinary text instead of recall")
	genFiles := flag.Bool("gen", false, "rewrite tune.jsonl and heldout.jsonl from the generator")
	genFresh := flag.Bool("gen-fresh", false, "rewrite fresh.jsonl from the fresh generators")
	genBlind := flag.Bool("gen-blind", false, "rewrite blind.jsonl and blind-negatives.txt from the blind generators")
	genBlind2 := flag.Bool("gen-blind2", false, "rewrite blind2.jsonl from the second blind generators")
	genBlind3 := flag.Bool("gen-blind3", false, "rewrite blind3.jsonl and blind3-negatives.txt from the third blind generators")
	genBlind4 := flag.Bool("gen-blind4", false, "rewrite blind4.jsonl and blind4-negatives.txt from the fourth blind generators")
	genBlind5 := flag.Bool("gen-blind5", false, "rewrite blind5.jsonl and blind5-negatives.txt from the fifth blind generators")
	genBlind6 := flag.Bool("gen-blind6", false, "rewrite blind6.jsonl and blind6-negatives.txt from the sixth blind generators")
	genBlind7 := flag.Bool("gen-blind7", false, "rewrite blind7.jsonl and blind7-negatives.txt from the seventh blind generators")
	data := flag.String("data", "core/redact/testdata/public", "folder of tune.jsonl, heldout.jsonl and fresh.jsonl")
	mirrors := flag.String("mirrors", "/work/.mirror", "folder of fetched repositories (owner+name/repo git directories) to read external samples from; empty for none")
	fpWords := flag.Int("fpwords", 3_000_000, "words of the module cache to read for -fp (this repository is read whole)")
	reveal := flag.Bool("reveal", false, "list the leaked kinds of the held-out and fresh splits too (not for people tuning the detector)")
	examples := flag.Int("examples", 50, "examples of leaks or false positives to print")
	flag.Parse()

	if *genFiles {
		if err := writeGenerated(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genFresh {
		if err := writeFresh(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind {
		if err := writeBlind(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind2 {
		if err := writeBlind2(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind3 {
		if err := writeBlind3(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind4 {
		if err := writeBlind4(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind5 {
		if err := writeBlind5(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind6 {
		if err := writeBlind6(*data); err != nil {
			fatal(err)
		}
		return
	}
	if *genBlind7 {
		if err := writeBlind7(*data); err != nil {
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
	recall(samples, *split, *reveal || *split == "tune" || *split == "blind-tune" || *split == "blind2-tune" || *split == "blind3-tune" || *split == "blind4-tune" || *split == "blind5-tune" || *split == "blind6-tune" || *split == "blind7-tune", *examples)
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

// writeFresh writes the fresh generators' samples into fresh.jsonl, after checking that no fresh
// kind is a kind of tune.jsonl or heldout.jsonl.
func writeFresh(dir string) error {
	old := map[string]bool{}
	for _, name := range []string{"tune", "heldout"} {
		s, err := readSamples(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			return err
		}
		for _, x := range s {
			old[x.Kind] = true
		}
	}
	for _, k := range kinds() {
		old[k.group+"/"+k.name] = true
	}
	samples := generateFresh(6)
	kindsSeen := map[string]bool{}
	for _, s := range samples {
		if old[s.Kind] {
			return fmt.Errorf("%s: the kind is in tune.jsonl or heldout.jsonl already", s.Kind)
		}
		if !strings.Contains(s.Text, s.Secret) {
			return fmt.Errorf("%s: the secret %q is not in its text", s.Kind, s.Secret)
		}
		kindsSeen[s.Kind] = true
	}
	if err := writeSamples(filepath.Join(dir, "fresh.jsonl"), samples); err != nil {
		return err
	}
	fmt.Printf("fresh.jsonl: %d samples of %d kinds\n", len(samples), len(kindsSeen))
	return nil
}

// writeBlind writes the blind generators' samples into blind.jsonl and their negatives into
// blind-negatives.txt, after checking that no blind kind is a kind of tune.jsonl, heldout.jsonl,
// fresh.jsonl or their generators.
func writeBlind(dir string) error {
	old := map[string]bool{}
	for _, name := range []string{"tune", "heldout", "fresh"} {
		s, err := readSamples(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			return err
		}
		for _, x := range s {
			old[x.Kind] = true
		}
	}
	for _, k := range append(kinds(), freshKinds()...) {
		old[k.group+"/"+k.name] = true
	}
	samples := generateBlind(5)
	kindsSeen := map[string]bool{}
	for _, s := range samples {
		if old[s.Kind] {
			return fmt.Errorf("%s: the kind is in tune.jsonl, heldout.jsonl or fresh.jsonl already", s.Kind)
		}
		kindsSeen[s.Kind] = true
	}
	if err := writeSamples(filepath.Join(dir, "blind.jsonl"), samples); err != nil {
		return err
	}
	neg := blindNegatives()
	if err := os.WriteFile(filepath.Join(dir, "blind-negatives.txt"), []byte(strings.Join(neg, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Printf("blind.jsonl: %d samples of %d kinds; blind-negatives.txt: %d lines\n", len(samples), len(kindsSeen), len(neg))
	return nil
}

// writeBlind2 writes the second blind generators' samples into blind2.jsonl, after checking that
// no blind2 kind is a kind of tune.jsonl, heldout.jsonl, fresh.jsonl, blind.jsonl or their
// generators.
func writeBlind2(dir string) error {
	return writeBlindCorpus(dir, "blind2", []string{"tune", "heldout", "fresh", "blind"},
		kindNames(kinds(), freshKinds(), blindKinds()), generateBlind2(5), nil)
}

// writeBlind3 writes the third blind generators' samples into blind3.jsonl and their negatives
// into blind3-negatives.txt, checked like blind2's against every earlier corpus.
func writeBlind3(dir string) error {
	return writeBlindCorpus(dir, "blind3", []string{"tune", "heldout", "fresh", "blind", "blind2"},
		kindNames(kinds(), freshKinds(), blindKinds(), blind2Kinds()), generateBlind3(), blind3Negatives())
}

// writeBlind4 writes the fourth blind generators' samples into blind4.jsonl and their negatives
// into blind4-negatives.txt, checked like blind2's against every earlier corpus.
func writeBlind4(dir string) error {
	return writeBlindCorpus(dir, "blind4", []string{"tune", "heldout", "fresh", "blind", "blind2", "blind3"},
		append(kindNames(kinds(), freshKinds(), blindKinds(), blind2Kinds()), b3KindNames(blind3Kinds())...), generateBlind4(), blind4Negatives())
}

// writeBlind5 writes the fifth blind generators' samples into blind5.jsonl and their negatives
// into blind5-negatives.txt, checked like blind2's against every earlier corpus.
func writeBlind5(dir string) error {
	return writeBlindCorpus(dir, "blind5", []string{"tune", "heldout", "fresh", "blind", "blind2", "blind3", "blind4"},
		append(kindNames(kinds(), freshKinds(), blindKinds(), blind2Kinds()), b3KindNames(append(blind3Kinds(), blind4Kinds()...))...), generateBlind5(), blind5Negatives())
}

// writeBlind6 writes the sixth blind generators' samples into blind6.jsonl and their negatives
// into blind6-negatives.txt, checked like blind2's against every earlier corpus (and the negatives
// against the earlier negatives files), then prints each group's kinds and samples.
func writeBlind6(dir string) error {
	samples, negatives := generateBlind6(), blind6Negatives()
	if err := b6CheckNegatives(dir, negatives); err != nil {
		return err
	}
	if err := writeBlindCorpus(dir, "blind6", []string{"tune", "heldout", "fresh", "blind", "blind2", "blind3", "blind4", "blind5"},
		append(kindNames(kinds(), freshKinds(), blindKinds(), blind2Kinds()), b3KindNames(append(append(blind3Kinds(), blind4Kinds()...), blind5Kinds()...))...), samples, negatives); err != nil {
		return err
	}
	b6Summary(samples)
	return nil
}

// writeBlindCorpus writes a blind corpus NAME.jsonl (and NAME-negatives.txt when there are
// negatives) after checking that none of its kinds is a kind of the earlier corpus files or
// their generators: a blind corpus holds only kinds nobody tuned for.
func writeBlindCorpus(dir, name string, earlier, generated []string, samples []Sample, negatives []string) error {
	old := map[string]bool{}
	for _, e := range earlier {
		s, err := readSamples(filepath.Join(dir, e+".jsonl"))
		if err != nil {
			return err
		}
		for _, x := range s {
			old[x.Kind] = true
		}
	}
	for _, k := range generated {
		old[k] = true
	}
	kindsSeen := map[string]bool{}
	var clash []string
	for _, s := range samples {
		if old[s.Kind] && !kindsSeen[s.Kind] {
			clash = append(clash, s.Kind)
		}
		kindsSeen[s.Kind] = true
	}
	if len(clash) > 0 {
		return fmt.Errorf("%s: the kinds are in %s.jsonl or their generators already", strings.Join(clash, ", "), strings.Join(earlier, ".jsonl, "))
	}
	if err := writeSamples(filepath.Join(dir, name+".jsonl"), samples); err != nil {
		return err
	}
	report := fmt.Sprintf("%s.jsonl: %d samples of %d kinds", name, len(samples), len(kindsSeen))
	if negatives != nil {
		if err := os.WriteFile(filepath.Join(dir, name+"-negatives.txt"), []byte(strings.Join(negatives, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		report += fmt.Sprintf("; %s-negatives.txt: %d lines", name, len(negatives))
	}
	fmt.Println(report)
	return nil
}

// kindNames are the group/name of the generators' kinds.
func kindNames(groups ...[]kindGen) []string {
	var out []string
	for _, g := range groups {
		for _, k := range g {
			out = append(out, k.group+"/"+k.name)
		}
	}
	return out
}

// b3KindNames are the group/name of the third, fourth, fifth and sixth blind generators' kinds.
func b3KindNames(ks []b3Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.group + "/" + k.name
	}
	return out
}

// load reads the split's file (both for all) and the external samples of the same split.
func load(dir, mirrors, split string) ([]Sample, []string, error) {
	names := []string{split}
	switch split {
	case "all":
		names = []string{"tune", "heldout"}
	case "tune", "heldout", "fresh", "blind", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7":
	case "blind2-tune", "blind2-held", "blind3-tune", "blind3-held", "blind4-tune", "blind4-held", "blind5-tune", "blind5-held", "blind6-tune", "blind6-held", "blind7-tune", "blind7-held":
		// the second blind corpus halved the same way, once its whole figure was read (84.8 %);
		// the third, fourth, fifth and sixth are halved by the same rule
		corpus := strings.SplitN(split, "-", 2)[0]
		s, err := readSamples(filepath.Join(dir, corpus+".jsonl"))
		if err != nil {
			return nil, nil, err
		}
		var out []Sample
		for _, x := range s {
			if corpus+"-"+strings.TrimPrefix(blindHalf(x.Kind), "blind-") == split {
				out = append(out, x)
			}
		}
		return out, nil, nil
	case "blind-tune", "blind-held":
		// the blind corpus halved by kind, once its whole figure was read (docs/redaction.md):
		// tune on one half, and read the other's figure once
		s, err := readSamples(filepath.Join(dir, "blind.jsonl"))
		if err != nil {
			return nil, nil, err
		}
		var out []Sample
		for _, x := range s {
			if blindHalf(x.Kind) == split {
				out = append(out, x)
			}
		}
		return out, nil, nil
	default:
		return nil, nil, fmt.Errorf("-split %q: want tune, heldout, fresh, blind, blind-tune, blind-held, blind2, blind2-tune, blind2-held, blind3, blind3-tune, blind3-held, blind4, blind4-tune, blind4-held, blind5, blind5-tune, blind5-held, blind6, blind6-tune, blind6-held, blind7, blind7-tune, blind7-held or all", split)
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
	if mirrors != "" && split != "fresh" && split != "blind" && split != "blind2" && split != "blind3" && split != "blind4" && split != "blind5" && split != "blind6" && split != "blind7" {
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
	layers.printLayers()
	if !listKinds {
		fmt.Printf("(%s split: kinds, rules and examples are not listed; -reveal lists them)\n", split)
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
	layers.printRules()
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

// --- which layer and rule hid a secret ---

// layerReport attributes each secret to the layers and rules whose spans (Redactor.Spans: the
// byte ranges Text replaces, each with its rule and layer) cover it. A sample counts for every
// layer that covers part of its secret; a layer "alone" hides the secret when that layer's spans
// cover all of it, with no help from the others.
type layerReport struct {
	r                    *redact.Redactor
	samples, hiddenCount int
	touched              map[string]int // hidden samples a layer's spans cover part of
	alone                map[string]int // samples a layer's spans cover whole
	sole                 map[string]int // hidden samples no other layer covers any of
	leakTouched          map[string]int // leaked samples a layer's spans cover part of
	noSpan               int            // hidden samples no span covers (hidden by the folding or the fragment rule)
	ruleHidden           map[string]int
	ruleMissed           map[string]int
}

// layerNames are the detector's layers in the order they are printed.
var layerNames = []string{redact.LayerContext, redact.LayerShape, redact.LayerStructure, redact.LayerProvider}

func newLayerReport(r *redact.Redactor) *layerReport {
	return &layerReport{r: r, touched: map[string]int{}, alone: map[string]int{}, sole: map[string]int{},
		leakTouched: map[string]int{}, ruleHidden: map[string]int{}, ruleMissed: map[string]int{}}
}

func (l *layerReport) add(s Sample, hidden bool) {
	l.samples++
	if hidden {
		l.hiddenCount++
	}
	text, secret := collapse(s.Text), collapse(s.Secret)
	at := strings.Index(text, secret)
	if at < 0 || secret == "" {
		if hidden {
			l.noSpan++
		}
		return
	}
	end := at + len(secret)
	covered := map[string][]bool{}
	rules := map[string]bool{}
	for _, sp := range l.r.Spans(text) {
		lo, hi := max(sp.Start, at), min(sp.End, end)
		if lo >= hi {
			continue
		}
		layer := sp.Layer
		if layer == "" {
			layer = redact.LayerOf(sp.Rule)
		}
		if covered[layer] == nil {
			covered[layer] = make([]bool, len(secret))
		}
		for i := lo; i < hi; i++ {
			covered[layer][i-at] = true
		}
		rules[layer+": "+sp.Rule] = true
	}
	for layer, c := range covered {
		whole := true
		for _, b := range c {
			whole = whole && b
		}
		if whole {
			l.alone[layer]++
		}
		if hidden {
			l.touched[layer]++
			if len(covered) == 1 {
				l.sole[layer]++
			}
		} else {
			l.leakTouched[layer]++
		}
	}
	if hidden && len(covered) == 0 {
		l.noSpan++
	}
	for n := range rules {
		if hidden {
			l.ruleHidden[n]++
		} else {
			l.ruleMissed[n]++
		}
	}
}

// printLayers prints the per-layer table: figures only, no kind or sample.
func (l *layerReport) printLayers() {
	fmt.Printf("by layer (Redactor.Spans, %d samples, %d hidden; a hidden sample counts for every layer that covers part of its secret):\n\n", l.samples, l.hiddenCount)
	fmt.Println("| layer | hidden samples it covers | of them, no other layer | samples it alone would hide (covers the whole secret) | alone, share of all samples | leaked samples it covers part of |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	names := append([]string{}, layerNames...)
	for k := range l.touched {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	for k := range l.alone {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	for _, k := range names {
		fmt.Printf("| %s | %d | %d | %d | %.1f %% | %d |\n", k, l.touched[k], l.sole[k], l.alone[k], 100*float64(l.alone[k])/float64(max(l.samples, 1)), l.leakTouched[k])
	}
	fmt.Printf("| (no span: hidden all the same) | %d | | | | |\n\n", l.noSpan)
}

// printRules prints, for the splits whose kinds may be listed, how many secrets each rule covers.
func (l *layerReport) printRules() {
	fmt.Println("by rule (Redactor.Spans): samples whose secret a rule's span covers, hidden whole / leaked all the same")
	keys := map[string]bool{}
	for k := range l.ruleHidden {
		keys[k] = true
	}
	for k := range l.ruleMissed {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		fmt.Printf("  %-70s %5d / %d\n", k, l.ruleHidden[k], l.ruleMissed[k])
	}
	fmt.Println()
}

// blindHalf puts a blind kind in blind-tune or blind-held by the FNV-1a hash of its name, as
// splitOf does for the generated corpus, so a whole kind is on one side.
func blindHalf(kind string) string {
	h := fnv.New32a()
	h.Write([]byte(kind))
	if h.Sum32()%2 == 0 {
		return "blind-tune"
	}
	return "blind-held"
}
