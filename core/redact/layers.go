package redact

import (
	"slices"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// The layers of the detector, each measured on its own (scripts/redactbench, docs/benchmarks.md):
// what hides a secret tells which layer caught it.
const (
	// LayerContext: a word or a syntax says what follows is secret (password=, パスワードは,
	// --token X, user:PW@host), whatever the value looks like.
	LayerContext = "context"
	// LayerShape: the value looks random (length, alphabet, entropy), whatever its kind.
	LayerShape = "shape"
	// LayerStructure: decoded and looked at again, or made of random parts (JWT, PASETO, key
	// bodies, seed phrases).
	LayerStructure = "structure"
	// LayerProvider: a provider's known prefix and body (the rule table's fast path).
	LayerProvider = "provider"
)

// contextRules are the rules keyed by a word or a syntax around the value.
var contextRules = map[string]bool{
	"context": true, "assignment": true, "command_line": true, "hostport_credentials": true,
	"url_credentials": true, "escaped_url_credentials": true, "authorization": true, "bearer_token": true,
	"netrc_password": true, "pgpass_password": true, "aws_secret_key": true, "key_data": true,
	"kaggle_key": true, "sidekiq_credentials": true, "contribsys_credentials": true, "url_code": true,
	"protocol_password": true, "spaced_directive": true, "subcommand_password": true, "signin_code": true, "slashed_credentials": true,
}

var structureRuleNames = map[string]bool{
	"decode_escapes": true, "decode_base64": true, "decode_byte_list": true, "decode_ascii85": true, "decode_spaced": true, "decode_rotated": true, "decode_uuencoded": true, "decode_invisible": true, "decode_byte_groups": true, "decode_char_list": true, "decode_char_calls": true, "decode_emphasis": true, "decode_spoken": true, "decode_base85": true, "decode_reversed": true, "decode_reversed_base64": true, "decode_hex_words": true, "decode_base45": true, "decode_escape_runs": true, "decode_data_url": true, "han_seed_phrase": true, "pem_any_dashes": true, "dotted_token": true,
	"paseto": true, "fernet": true, "seed_phrase": true, "foreign_seed_phrase": true, "digit_groups": true, "base64_credentials": true,
	"discord_bot_token": true, "base64_secret_file": true, "byte_array_key": true, "colon_hex_key": true, "decode_interleaved": true, "decode_morse": true, "decode_grouped_base64": true,
}

// LayerOf names the layer a rule belongs to.
func LayerOf(rule string) string {
	switch {
	case rule == "shape" || rule == "password_shape" || rule == "split_token":
		return LayerShape
	case structureRuleNames[rule]:
		return LayerStructure
	case contextRules[rule]:
		return LayerContext
	}
	for _, a := range argumentRules {
		if a.name == rule {
			return LayerContext
		}
	}
	return LayerProvider
}

// Span is a byte range of a text that Text replaces, with the rule and layer that found it.
type Span struct {
	Start, End int
	Rule       string
	Layer      string
}

// Spans reports what each rule finds in s on Text's first pass, ordered by start and rule: the
// same ranges Text replaces there, told apart by who found them. For measuring, not for
// redacting: Text is the one way to hide.
func (r *Redactor) Spans(s string) []Span {
	hinted, screened := r.screen(s)
	f := textmatch.FoldMap(s)
	if !screened {
		hinted = r.hints.rules(f.Text)
	}
	var out []Span
	var st Stats
	for i, rule := range r.rules {
		if !hinted.has(i) {
			continue
		}
		one := bit(i)
		add := func(start, end int) {
			if end > start {
				out = append(out, Span{Start: start, End: end, Rule: rule.Name, Layer: LayerOf(rule.Name)})
			}
		}
		r.find(s, one, add, &st)
		if !isASCII(s) {
			r.find(f.Text, one, func(start, end int) { add(f.Span(start, end)) }, &st)
		}
	}
	slices.SortStableFunc(out, func(a, b Span) int { return a.Start - b.Start })
	return out
}
