// Package redact replaces secrets in text with a placeholder, so search indexes and excerpts never
// carry credentials that a body happened to contain (SPEC §5.2).
package redact

import (
	"regexp"
	"strconv"
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
	hints hintIndex
}

// New builds the default rule table. The order matters: whole blocks (PEM keys) go first so that
// later, narrower rules never leave a fragment of them behind, and provider tokens with a fixed
// prefix come before the looser sk-, bearer and assignment rules. Hints must cover every match:
// Twilio's sk+32 hex has one hint per hex digit, so "task" or "ask" alone never runs its pattern.
func New() *Redactor {
	r := func(name, pattern string, group int, hints ...string) Rule {
		return Rule{Name: name, Pattern: regexp.MustCompile(pattern), Group: group, Hints: hints}
	}
	return newRedactor([]Rule{
		r("pem_private_key", `(?is)-----begin[a-z0-9 ]*private key-----.*?(?:-----end[a-z0-9 ]*private key-----|\z)`, 0, "private key"),
		r("aws_access_key", `(?i)\b(?:akia|asia|abia|acca|agpa|aida|aroa|aipa|anpa|anva|apka)[0-9a-z]{16}\b`, 0, "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"),
		r("aws_secret_key", `(?i)\baws_?secret(?:_?access)?_?key["']?\s*[:=]\s*["']?([a-z0-9/+=]{40})\b`, 1, "secret"),
		r("github_token", `(?i)\b(?:ghp|gho|ghu|ghs|ghr)_[a-z0-9]{36,}\b`, 0, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		r("github_pat", `(?i)\bgithub_pat_[a-z0-9_]{22,}\b`, 0, "github_pat_"),
		r("gitlab_token", `(?i)\bgl(?:pat|oas|dt|rt|ptt|soat|cbt)-[0-9a-z_-]{20,}`, 0, "glpat-", "gloas-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-"),
		r("npm_token", `(?i)\bnpm_[0-9a-z]{36}\b`, 0, "npm_"),
		r("digitalocean_token", `(?i)\bdo[opr]_v1_[0-9a-f]{64}\b`, 0, "_v1_"),
		r("sendgrid_key", `(?i)\bsg\.[0-9a-z_-]{22}\.[0-9a-z_-]{43}`, 0, "sg."),
		r("huggingface_token", `(?i)\bhf_[0-9a-z]{34,}\b`, 0, "hf_"),
		r("pypi_token", `(?i)\bpypi-(?:ageichlwas5vcmc|agendgvzdc5wexbplm9yzw)[0-9a-z_-]{50,}`, 0, "pypi-ag"),
		r("slack_webhook", `(?i)\bhttps?://hooks\.slack\.com/services/(t[0-9a-z]+/b[0-9a-z]+/[0-9a-z]+)`, 1, "hooks.slack.com"),
		r("twilio_key", `(?i)\bsk[0-9a-f]{32}\b`, 0, "sk0", "sk1", "sk2", "sk3", "sk4", "sk5", "sk6", "sk7", "sk8", "sk9", "ska", "skb", "skc", "skd", "ske", "skf"),
		r("mailgun_key", `(?i)\bkey-[0-9a-z]{32}\b`, 0, "key-"),
		r("shopify_token", `(?i)\bshp(?:at|ss|ca|pa)_[0-9a-f]{32}\b`, 0, "shpat_", "shpss_", "shpca_", "shppa_"),
		r("atlassian_token", `(?i)\batatt3[0-9a-z_=-]{180,}`, 0, "atatt3"),
		r("databricks_token", `(?i)\bdapi[0-9a-f]{32}(?:-[0-9])?\b`, 0, "dapi"),
		r("slack_token", `(?i)\bxox[abposre]-[a-z0-9-]{10,}`, 0, "xox"),
		r("anthropic_key", `(?i)\bsk-ant-[a-z0-9_-]{20,}`, 0, "sk-ant-"),
		r("openai_key", `(?i)\bsk-(?:proj-|svcacct-|admin-)?[a-z0-9_-]{20,}`, 0, "sk-"),
		r("google_api_key", `(?i)\baiza[0-9a-z_-]{35}`, 0, "aiza"),
		r("stripe_key", `(?i)\b(?:sk|rk)_(?:live|test)_[0-9a-z]{16,}\b|\bwhsec_[0-9a-z]{24,}\b`, 0, "_live_", "_test_", "whsec_"),
		r("jwt", `(?i)\beyj[a-z0-9_-]{8,}\.eyj[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}`, 0, "eyj"),
		r("bearer_token", `(?i)\bbearer\s+([a-z0-9._~+/-]{16,}=*)`, 1, "bearer"),
		r("url_credentials", `(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s/@]+)@`, 1, "://"),
		r("assignment", `(?i)\b(?:password|passwd|pwd|pass|secret|client_secret|token|access_token|auth_token|refresh_token|api_key|apikey|api-key|private_key)["']?\s*[:=]\s*("[^"]*"|'[^']*'|[^\s,;&"']+)`, 1, "pass", "pwd", "secret", "token", "key"),
	})
}

// newRedactor indexes the hints of rules once, so Text finds the rules to run in one pass.
func newRedactor(rules []Rule) *Redactor {
	return &Redactor{rules: rules, hints: newHintIndex(rules)}
}

// Rules returns a copy of the rule table, for tests and documentation.
func (r *Redactor) Rules() []Rule {
	return append([]Rule(nil), r.rules...)
}

// Text returns s with every secret replaced by Placeholder. Applying it twice gives the same text.
func (r *Redactor) Text(s string) string {
	hinted := r.hints.rules(textmatch.Fold(s))
	for i, rule := range r.rules {
		if hinted&(1<<i) == 0 {
			continue
		}
		if out := apply(rule, s); out != s {
			s = out
			hinted = r.hints.rules(textmatch.Fold(s))
		}
	}
	return s
}

// ruleSet is a set of rule indexes, one bit per rule.
type ruleSet uint64

// hintIndex finds in one pass over a folded text the rules whose hints it holds, which is what
// checking every hint of every rule with strings.Contains would give, without a pass per hint.
// Folding maps every character that (?i) treats as a letter's case variant (ſ, K) to that letter,
// like the patterns, so the hints see what the patterns see.
type hintIndex struct {
	always ruleSet      // rules without hints: run on every text
	all    ruleSet      // every rule
	pair   []uint16     // by the first two bytes of a hint: 1 + its index in groups, or 0
	groups [][]hintRule // hints sharing their first two bytes
}

type hintRule struct {
	hint  string
	rules ruleSet
}

func newHintIndex(rules []Rule) hintIndex {
	if len(rules) > 64 {
		panic("redact: more than 64 rules; widen ruleSet")
	}
	x := hintIndex{pair: make([]uint16, 1<<16)}
	for i, rule := range rules {
		bit := ruleSet(1) << i
		x.all |= bit
		if len(rule.Hints) == 0 {
			x.always |= bit
		}
		for _, h := range rule.Hints {
			if len(h) < 2 || h != strings.ToLower(h) {
				panic("redact: hint " + strconv.Quote(h) + " of " + rule.Name + " is not lower case of at least 2 bytes")
			}
			k := uint16(h[0])<<8 | uint16(h[1])
			if x.pair[k] == 0 {
				x.groups = append(x.groups, nil)
				x.pair[k] = uint16(len(x.groups))
			}
			g := &x.groups[x.pair[k]-1]
			found := false
			for j := range *g {
				if (*g)[j].hint == h {
					(*g)[j].rules |= bit
					found = true
				}
			}
			if !found {
				*g = append(*g, hintRule{hint: h, rules: bit})
			}
		}
	}
	return x
}

// rules returns the rules to run on a text whose folded form is lower: those without hints and
// those with a hint that lower contains.
func (x *hintIndex) rules(lower string) ruleSet {
	set := x.always
	for i := 0; i+1 < len(lower) && set != x.all; i++ {
		g := x.pair[uint16(lower[i])<<8|uint16(lower[i+1])]
		if g == 0 {
			continue
		}
		for _, h := range x.groups[g-1] {
			if h.rules&^set != 0 && strings.HasPrefix(lower[i:], h.hint) {
				set |= h.rules
			}
		}
	}
	return set
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
