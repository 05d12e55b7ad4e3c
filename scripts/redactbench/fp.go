package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/core/redact"
)

// The false-positive corpus is ordinary prose and code read where it is: this repository (its Go
// sources, docs and fixtures, tests, core/redact and this program left out as fp_test.go does: they plant
// secrets on purpose) and the Go module cache (public Go code, docs and READMEs of the modules
// this project uses; tests and testdata left out for the same reason). Each line is a comment as
// the space import stores it; a word (white-space separated) counts as a false positive when
// redaction changes it.

// plantedSecrets are the secrets this repository's docs and demo data hold on purpose (the list of
// core/redact/fp_test.go); a line holding one is not ordinary text.
var plantedSecrets = []string{"pg-s3cret-2026", "hunter2redis", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Sup3rS3cret!",
	"AKIAIOSFODNN7EXAMPLE", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "?token=56c2c2703ac309f3927e58c09367b78c60e847cd999a741ce502ea058064d8e8",
	"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij", "password=hunter2 "}

// identifiers are code that names secrets without holding one: redaction must leave them alone.
var identifiers = []string{
	"ClientSecret: c.ClientSecret,",
	"cfg.Password = os.Getenv(\"DB_PASSWORD\")",
	"token, err := auth.NewToken(ctx, clientID, clientSecret)",
	"secretKey := []byte(cfg.SecretKey)",
	"if req.Password != user.PasswordHash {",
	"apiKey: process.env.OPENAI_API_KEY,",
	"password: ${{ secrets.DB_PASSWORD }}",
	"AccessToken string `json:\"access_token\"`",
	"func (c *Client) SetAuthToken(token string) { c.authToken = token }",
	"self.api_key = api_key or os.environ[\"API_KEY\"]",
	"private_key = load_pem_private_key(data, password=None)",
	"--password-file /run/secrets/db_password",
	"client_secret = var.client_secret",
	"PasswordAuthentication no",
	"token_type_hint=refresh_token",
	"const maxTokenLength = 4096",
	"export GITHUB_TOKEN=$(gh auth token)",
	"secret: {{ .Values.secretName }}",
	"password := strings.TrimSpace(string(passwordBytes))",
	"KeyID: aws.String(keyID), SecretAccessKey: creds.SecretAccessKey",
}

// ordinaryFiles lists the files of the corpus: this repository whole, then the module cache in
// path order until maxWords words have been read from it.
func ordinaryFiles() (repo []string, modcache string, err error) {
	root := "."
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != "." || p == filepath.Join("core", "redact") || p == filepath.Join("scripts", "redactbench") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if ordinaryName(p) || strings.HasPrefix(p, "fixtures"+string(filepath.Separator)) && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
			repo = append(repo, p)
		}
		return nil
	})
	out, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	return repo, strings.TrimSpace(string(out)), err
}

func ordinaryName(p string) bool {
	base := strings.ToLower(filepath.Base(p))
	if strings.HasSuffix(base, "_test.go") {
		return false
	}
	return strings.HasSuffix(base, ".go") || strings.HasSuffix(base, ".md") || strings.HasPrefix(base, "readme")
}

type fpCounter struct {
	r              *redact.Redactor
	words, changed int
	lines, files   int
	examples       []string
	max            int
}

func (c *fpCounter) file(name, text string) {
	c.files++
	// invalid UTF-8 would come back as U+FFFD from the store, which is not redaction
	for i, line := range strings.Split(strings.ToValidUTF8(text, "\uFFFD"), "\n") {
		in := collapse(line)
		if in == "" {
			continue
		}
		c.lines++
		words := strings.Fields(in)
		c.words += len(words)
		out, _ := stored(c.r, line)
		if out == in {
			continue
		}
		planted := false
		for _, p := range plantedSecrets {
			planted = planted || strings.Contains(line, p)
		}
		if planted {
			c.words -= len(words)
			continue
		}
		n := changedWords(words, strings.Fields(out))
		c.changed += n
		if len(c.examples) < c.max {
			c.examples = append(c.examples, fmt.Sprintf("%s:%d: %q -> %q", name, i+1, clip(in, 200), clip(out, 200)))
		}
	}
}

// changedWords is how many words of in are not kept in out: in's length less the longest common
// subsequence of the two (a prefix and suffix match on long lines).
func changedWords(in, out []string) int {
	p := 0
	for p < len(in) && p < len(out) && in[p] == out[p] {
		p++
	}
	in, out = in[p:], out[p:]
	for len(in) > 0 && len(out) > 0 && in[len(in)-1] == out[len(out)-1] {
		in, out = in[:len(in)-1], out[:len(out)-1]
	}
	if len(in)*len(out) > 1_000_000 {
		return len(in)
	}
	prev := make([]int, len(out)+1)
	cur := make([]int, len(out)+1)
	for i := range in {
		for j := range out {
			if in[i] == out[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return len(in) - prev[len(out)]
}

func falsePositives(maxWords, examples int) error {
	repo, modcache, err := ordinaryFiles()
	if err != nil {
		return err
	}
	r := redact.New()
	own := &fpCounter{r: r, max: examples}
	for _, p := range repo {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		own.file(p, string(b))
	}
	mod := &fpCounter{r: r, max: examples}
	if modcache != "" {
		var files []string
		filepath.WalkDir(modcache, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p == filepath.Join(modcache, "cache") || d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") && p != modcache {
					return filepath.SkipDir
				}
				return nil
			}
			if ordinaryName(p) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		for _, p := range files {
			if mod.words >= maxWords {
				break
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 1<<20 {
				continue
			}
			rel, _ := filepath.Rel(modcache, p)
			mod.file("$GOMODCACHE/"+rel, string(b))
		}
	}
	kept := 0
	var changed []string
	for _, s := range identifiers {
		if out, _ := stored(r, s); out == collapse(s) {
			kept++
		} else {
			changed = append(changed, fmt.Sprintf("%q -> %q", s, out))
		}
	}
	fmt.Println("| corpus | files | lines | words | words changed | rate |\n|---|--:|--:|--:|--:|--:|")
	row := func(name string, c *fpCounter) {
		fmt.Printf("| %s | %d | %d | %d | %d | %.4f %% |\n", name, c.files, c.lines, c.words, c.changed, 100*float64(c.changed)/float64(max(c.words, 1)))
	}
	row("this repository (tests and core/redact left out)", own)
	row("Go module cache (tests and testdata left out)", mod)
	total := &fpCounter{files: own.files + mod.files, lines: own.lines + mod.lines, words: own.words + mod.words, changed: own.changed + mod.changed}
	row("both", total)
	fmt.Printf("\nidentifiers that name a secret left alone: %d of %d\n", kept, len(identifiers))
	for _, c := range changed {
		fmt.Println("  changed:", c)
	}
	// risky-looking lines that hold no secret (placeholders, lookups, docs about passwords in
	// many languages, labelled hashes), written with the blind corpora
	for _, negatives := range []string{"blind-negatives.txt", "blind3-negatives.txt", "blind4-negatives.txt", "blind5-negatives.txt", "blind6-negatives.txt", "blind7-negatives.txt"} {
		data, err := os.ReadFile(filepath.Join("core/redact/testdata/public", negatives))
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var bad []string
		for _, l := range lines {
			if out, _ := stored(r, l); out != collapse(l) {
				bad = append(bad, fmt.Sprintf("%q -> %q", l, out))
			}
		}
		fmt.Printf("risky-looking lines with no secret (%s) left alone: %d of %d\n", negatives, len(lines)-len(bad), len(lines))
		for i, b := range bad {
			if i == examples {
				break
			}
			fmt.Println("  changed:", b)
		}
	}
	ex := append(own.examples, mod.examples...)
	fmt.Printf("\nfirst %d false positives:\n", min(examples, len(ex)))
	for i, e := range ex {
		if i == examples {
			break
		}
		fmt.Println("  " + e)
	}
	return nil
}
