// Package redact replaces secrets in text with a placeholder, so search indexes and excerpts never
// carry credentials that a body happened to contain (SPEC §5.2).
package redact

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// Placeholder is what every secret becomes; it is stable so re-redacting a text changes nothing.
const Placeholder = "[REDACTED]"

// Rule is one kind of secret: a pattern and, when only part of a match is the secret (the value of
// password=..., the password in a URL), the capture group to replace.
type Rule struct {
	// Name identifies the rule in tests and diagnostics.
	Name string
	// Pattern finds candidate secrets; patterns are case-insensitive where folded text must still match.
	Pattern *regexp.Regexp
	// Group is the submatch replaced by Placeholder; 0 replaces the whole match.
	Group int
	// Hints are lower-case literals of which every match contains at least one; a text without
	// any is skipped without running the pattern, which keeps bulk imports fast.
	Hints []string
}

// Redactor applies a rule table in order; it holds no mutable state and is safe for concurrent use.
type Redactor struct {
	rules []Rule
}

// New builds the default rule table. The order matters: whole blocks (PEM keys) go first so that
// later, narrower rules never leave a fragment of them behind.
func New() *Redactor {
	r := func(name, pattern string, group int, hints ...string) Rule {
		return Rule{Name: name, Pattern: regexp.MustCompile(pattern), Group: group, Hints: hints}
	}
	return &Redactor{rules: []Rule{
		r("pem_private_key", `(?is)-----begin[a-z0-9 ]*private key-----.*?(?:-----end[a-z0-9 ]*private key-----|\z)`, 0, "private key"),
		r("aws_access_key", `(?i)\b(?:akia|asia|abia|acca|agpa|aida|aroa|aipa|anpa|anva|apka)[0-9a-z]{16}\b`, 0, "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"),
		r("aws_secret_key", `(?i)\baws_?secret(?:_?access)?_?key["']?\s*[:=]\s*["']?([a-z0-9/+=]{40})\b`, 1, "secret"),
		r("github_token", `(?i)\b(?:ghp|gho|ghu|ghs|ghr)_[a-z0-9]{36,}\b`, 0, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		r("github_pat", `(?i)\bgithub_pat_[a-z0-9_]{22,}\b`, 0, "github_pat_"),
		r("slack_token", `(?i)\bxox[abposre]-[a-z0-9-]{10,}`, 0, "xox"),
		r("anthropic_key", `(?i)\bsk-ant-[a-z0-9_-]{20,}`, 0, "sk-ant-"),
		r("openai_key", `(?i)\bsk-(?:proj-|svcacct-|admin-)?[a-z0-9_-]{20,}`, 0, "sk-"),
		r("google_api_key", `(?i)\baiza[0-9a-z_-]{35}`, 0, "aiza"),
		r("stripe_key", `(?i)\b(?:sk|rk)_(?:live|test)_[0-9a-z]{16,}\b|\bwhsec_[0-9a-z]{24,}\b`, 0, "_live_", "_test_", "whsec_"),
		r("jwt", `(?i)\beyj[a-z0-9_-]{8,}\.eyj[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}`, 0, "eyj"),
		r("bearer_token", `(?i)\bbearer\s+([a-z0-9._~+/-]{16,}=*)`, 1, "bearer"),
		r("url_credentials", `(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s/@]+)@`, 1, "://"),
		r("assignment", `(?i)\b(?:password|passwd|pwd|pass|secret|client_secret|token|access_token|auth_token|refresh_token|api_key|apikey|api-key|private_key)["']?\s*[:=]\s*("[^"]*"|'[^']*'|[^\s,;&"']+)`, 1, "pass", "pwd", "secret", "token", "key"),
	}}
}

// Rules returns a copy of the rule table, for tests and documentation.
func (r *Redactor) Rules() []Rule {
	return append([]Rule(nil), r.rules...)
}

// Text returns s with every secret replaced by Placeholder. Applying it twice gives the same text.
func (r *Redactor) Text(s string) string {
	lower := textmatch.Fold(s)
	for _, rule := range r.rules {
		if !hinted(lower, rule.Hints) {
			continue
		}
		if out := apply(rule, s); out != s {
			s = out
			lower = textmatch.Fold(s)
		}
	}
	return s
}

// hinted reports whether the folded text holds one of the hints (no hints: always). Folding maps
// every character that (?i) treats as a letter's case variant (ſ, K) to that letter, like the patterns.
func hinted(lower string, hints []string) bool {
	if len(hints) == 0 {
		return true
	}
	for _, h := range hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// apply replaces rule's group in every match of s. For a rule that keeps a prefix (password=...),
// a value that is itself the start of another match ("token: token: abc") is not taken as the
// value: scanning resumes there, so the real value behind it is the one replaced.
func apply(rule Rule, s string) string {
	var b strings.Builder
	last, pos := 0, 0
	for pos <= len(s) {
		loc := rule.Pattern.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		start, end := loc[2*rule.Group], loc[2*rule.Group+1]
		if start < 0 {
			pos += max(loc[1], 1)
			continue
		}
		start, end = start+pos, end+pos
		if rule.Group > 0 {
			if next := rule.Pattern.FindStringIndex(s[start:]); next != nil && next[0] == 0 {
				pos = start
				continue
			}
		}
		if s[start:end] != Placeholder {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:start])
			b.WriteString(Placeholder)
			last = end
		}
		pos = max(loc[1]+pos, end)
		if loc[1] == loc[0] {
			pos++
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
