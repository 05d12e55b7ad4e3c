package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/spaces"
)

// Sample is one labelled secret: the text a person would write, the exact secret substring it
// holds, its kind and group, and where it came from.
type Sample struct {
	Kind    string `json:"kind"`
	Group   string `json:"group"`
	Text    string `json:"text"`
	Secret  string `json:"secret"`
	Source  string `json:"source"`
	Licence string `json:"licence"`
}

// tuneShare is the share of kinds, out of 100, that go to the tune split.
const tuneShare = 60

// splitOf is the split a kind belongs to: a hash of its name, so a kind is wholly in one split
// and the split never depends on which other kinds exist.
func splitOf(kind string) string {
	h := fnv.New32a()
	h.Write([]byte(kind))
	if h.Sum32()%100 < tuneShare {
		return "tune"
	}
	return "heldout"
}

func readSamples(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func writeSamples(path string, samples []Sample) error {
	var b strings.Builder
	for _, s := range samples {
		line, err := json.Marshal(s)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// stored is the comment as the space import stores it: its display text (white space collapsed,
// secrets redacted) and its index text (the display text folded), what an excerpt shows and what
// a query matches.
func stored(r *redact.Redactor, text string) (display, index string) {
	display, index, _ = spaces.Texts(r, "request", "", "", text, nil)
	return display, index
}

// collapse turns every run of white space into one space, as the space store does.
func collapse(s string) string { return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ") }

// fragments are the pieces of the secret, white space collapsed, that a search could look for:
// every window of 8 bytes (widened to whole characters) and of 8 characters; a secret shorter than
// that is one fragment, itself.
func fragments(secret string) []string {
	s := collapse(secret)
	if utf8.RuneCountInString(s) <= 8 || len(s) <= 8 {
		return []string{s}
	}
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	starts := []int{}
	for i := range s {
		starts = append(starts, i)
	}
	starts = append(starts, len(s))
	for k, i := range starts[:len(starts)-1] {
		// 8 bytes from i, to the next character boundary
		for _, j := range starts[k+1:] {
			if j-i >= 8 {
				add(s[i:j])
				break
			}
		}
		// 8 characters from i
		if k+8 < len(starts) {
			add(s[i:starts[k+8]])
		}
	}
	return out
}

// leaked lists the fragments of the sample's secret that survive in the stored comment, readable
// in the display text or findable in the index text, leaving out those the text around the secret
// holds anyway.
func leaked(r *redact.Redactor, s Sample) (display string, leaks []string) {
	display, index := stored(r, s.Text)
	around := spaces.Normalize(strings.Replace(s.Text, s.Secret, " ", 1))
	for _, f := range fragments(s.Secret) {
		nf := spaces.Normalize(f)
		if nf == "" || strings.Contains(around, nf) {
			continue
		}
		if strings.Contains(display, f) || strings.Contains(index, nf) {
			leaks = append(leaks, f)
		}
	}
	return display, leaks
}
