package redact

import (
	"strings"
	"testing"
)

// ruleCases holds, for every rule, a text it must redact (with the secret that must disappear)
// and a near miss it must leave alone.
var ruleCases = []struct {
	rule     string
	positive string
	secret   string
	negative string
}{
	{"pem_private_key",
		"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----\nend",
		"MIIEowIBAAKCAQEA7bq",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B\n-----END PUBLIC KEY-----"},
	{"aws_access_key", "id AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "id AKIAIOSFODNN7EXAMPL here"},
	{"aws_secret_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"aws_region = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"github_token", "use ghp_abcdefghijklmnopqrstuvwxyz0123456789 now", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "use ghp_abcdef for short"},
	{"github_token", "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "ghx_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
	{"github_token", "ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "myghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
	{"github_pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_short"},
	{"slack_token", "xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF", "xoxz-123456789012-abcdefABCDEF"},
	{"anthropic_key", "ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "use sk-ant-short please"},
	{"openai_key", "key sk-proj-abcdefghijklmnopqrstuvwxyz012345", "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "pip install sk-learn"},
	{"google_api_key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890"},
	{"stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "pk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"stripe_key", "whsec_abcdefghijklmnopqrstuvwxyz01", "whsec_abcdefghijklmnopqrstuvwxyz01", "whsec_abc"},
	{"jwt", "tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U x",
		"eyJzdWIiOiIxMjM0NTY3ODkwIn0", "eyJhbGciOiJIUzI1NiJ9.notajwt"},
	{"bearer_token", "Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef", "the bearer of bad news"},
	{"url_credentials", "clone https://alice:hunter2pass@git.example.com/r.git", "hunter2pass", "see https://example.com:8443/path@v2"},
	{"assignment", "DB password=correct-horse-battery", "correct-horse-battery", "reset your password in settings"},
	{"assignment", "passwd: Tr0ub4dor", "Tr0ub4dor", "passwords are hashed"},
	{"assignment", `secret="s3cr3t value"`, "s3cr3t value", "secretary=alice"},
	{"assignment", "token: abc123xyz", "abc123xyz", "max_token: 4096"},
	{"assignment", "api_key=0123456789abcdef", "0123456789abcdef", "api_keys are rotated"},
}

func TestRules(t *testing.T) {
	r := New()
	names := map[string]bool{}
	for _, rule := range r.Rules() {
		names[rule.Name] = false
	}
	for _, c := range ruleCases {
		if _, ok := names[c.rule]; !ok {
			t.Fatalf("case for unknown rule %q", c.rule)
		}
		names[c.rule] = true
		got := r.Text(c.positive)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Placeholder) {
			t.Errorf("%s: Text(%q) = %q, want %q redacted", c.rule, c.positive, got, c.secret)
		}
		if got := r.Text(c.negative); got != c.negative {
			t.Errorf("%s: near miss Text(%q) = %q, want unchanged", c.rule, c.negative, got)
		}
		// each rule works alone too: the positive is caught by its own rule
		var own Rule
		for _, rule := range r.Rules() {
			if rule.Name == c.rule {
				own = rule
			}
		}
		if apply(own, c.positive) == c.positive {
			t.Errorf("%s: the rule itself does not match %q", c.rule, c.positive)
		}
	}
	for name, tested := range names {
		if !tested {
			t.Errorf("rule %s has no test case", name)
		}
	}
}

func TestFoldedTextStillRedacted(t *testing.T) {
	// The space index redacts text after case folding, so lower-cased secrets must still match.
	r := New()
	for _, c := range ruleCases {
		low := strings.ToLower(c.positive)
		if got := r.Text(low); strings.Contains(got, strings.ToLower(c.secret)) {
			t.Errorf("%s: folded %q not redacted: %q", c.rule, low, got)
		}
	}
}

func TestIdempotent(t *testing.T) {
	r := New()
	for _, c := range ruleCases {
		once := r.Text(c.positive)
		if twice := r.Text(once); twice != once {
			t.Errorf("%s: Text not idempotent: %q then %q", c.rule, once, twice)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("prefix", "suffix", uint8(0))
	f.Add("token:", "", uint8(3))
	f.Add("-----BEGIN", "@host", uint8(7))
	f.Add("https://u:", "password=", uint8(12))
	r := New()
	f.Fuzz(func(t *testing.T, prefix, suffix string, pick uint8) {
		c := ruleCases[int(pick)%len(ruleCases)]
		out := r.Text(prefix)
		_ = out
		s := prefix + "\n" + c.positive + "\n" + suffix
		got := r.Text(s)
		if strings.Contains(got, c.secret) && !strings.Contains(prefix+suffix, c.secret) {
			t.Fatalf("secret %q survives in %q", c.secret, got)
		}
		if again := r.Text(got); again != got {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
	})
}

func TestHintsFollowCaseFolding(t *testing.T) {
	// (?i) matches ſ as s and the Kelvin sign as k; the hint check must not skip such text.
	r := New()
	if got := r.Text("paſſword=hunter22xyz"); strings.Contains(got, "hunter22xyz") {
		t.Errorf("long s defeated the hint: %q", got)
	}
	if got := r.Text("api_\u212aey=0123456789abcdef"); strings.Contains(got, "0123456789abcdef") {
		t.Errorf("Kelvin sign defeated the hint: %q", got)
	}
}
