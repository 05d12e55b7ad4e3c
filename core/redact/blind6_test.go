package redact

import (
	"strings"
	"testing"
)

// Rules added after the sixth blind corpus: each case a secret of a family no rule named, and a
// harmless text of the same shape.

func init() {
	ruleCases = append(ruleCases,
		struct{ rule, positive, secret, negative string }{"decode_interleaved", "pw without the dots: Q.7.x.m.2.K.p.9.v.L.w.4", "Q.7.x.m.2.K", "IP 10.2.3.4, version 1.2.3.4.5.6.7.8.9.10, a-b-c-d-e-f-g-h-i-j-k"},
		struct{ rule, positive, secret, negative string }{"subcommand_password", "$ drush user:password admin 9vQ#rk2Lm=Tx", "9vQ#rk2Lm=Tx", "the user password reset link was sent to v2.1 users"},
		struct{ rule, positive, secret, negative string }{"creds_flag_password", "skopeo copy a b --src-creds bot:Wq8,+zLp4+Rk", "Wq8,+zLp4+Rk", "skopeo copy --src-creds \"$CREDS\" a b"},
		struct{ rule, positive, secret, negative string }{"decode_grouped_base64", "key, read out: MC4C AQAw BQYD K2Vw BCIE IL/z BrXR H941 c3UI dVN2 cTJZ pPgB syoR zR9K Saj6 9f32", "BrXR H941 c3UI", "a DER key starts MIIC eAIB ADAN in base64"},
		struct{ rule, positive, secret, negative string }{"decode_morse", "pw in morse: --.- --... -..- -- ..--- -.- .--. ----. ...- .-..", "--.- --... -..- -- ..---", "SOS is ... --- ... and a rule is --- --- --- --- --- --- --- ---"},
		struct{ rule, positive, secret, negative string }{"signin_code", "Your Globex verification code: Q7X2K9M4TR (expires in 5 min)", "Q7X2K9M4TR", "Sign in with SSO; see ticket JIRA1234 and ISO8601 dates"},
		struct{ rule, positive, secret, negative string }{"slashed_credentials", "then sign in to Jenkins with ops/harbor-quartz-velvet-41 and run the job", "harbor-quartz-velvet-41", "log in, then build it with cmd/cairn-server-2026/main.go and docs/getting-started"},
		struct{ rule, positive, secret, negative string }{"colon_hex_key", "Private-Key: (256 bit)\npriv:\n    1d:9a:44:e0:7c:3b:52:aa:08:f1:6e:29:b4:c7:05:\n    d3:88:2f:61:9e:0b:47:fa:33:c8:14:5d:a6:e2:70:\n    be:19\npub:\n    04:aa:...", "1d:9a:44:e0:7c", "SHA256 Fingerprint=1D:9A:44:E0:7C:3B:52:AA:08:F1:6E:29:B4:C7:05:D3:88:2F:61:9E"},
	)
}

// TestBlind6Negatives: lines that look risky and hold no secret stay as they are.
func TestBlind6Negatives(t *testing.T) {
	r := New()
	for _, line := range []string{
		"pubkey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHk4Qm2Zr9Tx5Wn7Ls2Hd9Fj4Bc6Pg0Ye3Ku8Ma1Nq5W ops@host",
		"IBAN: GB00 0000 0000 0000 0000 00 (placeholder)",
		"hash prefix: $argon2i$v=19$m=4096,t=3,p=1$",
		"db_password: !vault-secret",
		"pod/web-7d9fq2kx8p-x2x4b   1/1   Running   0   5d",
		"Object key: images/2025/03/0d3c9e1a-41c2-49a3-8388-d150d4c92bd5.png",
		"preview (image/png, base64): iVBOafinDtvviZwgfvHrqcw1Hh0MAY9gcd0ET1Cr6R0R",
		"ULID 7JXRVXSBM35FSTR1RJASRF6QVT",
		"x-amzn-trace-id: Root=1-5f84c7a1-9b2d4e6f8a0c1e3f5a7b9d1c",
		"if not token: raise RuntimeError(\"token is required\")",
		"--password-file=/run/secrets/password",
		"ASIAXXXXXXXXXXXXXXXX",
		`"apiKey": "{{ env \"GEO_KEY\" }}"`,
		"the token is in Bitwarden, ask me",
	} {
		if got := r.Text(line); got != line {
			t.Errorf("Text(%q) = %q, want it unchanged", line, got)
		}
	}
}

// TestBlind6Secrets: secrets of the families the rules above generalise to.
func TestBlind6Secrets(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"coefficient:\n    3a:91:0c:ee:47:b2:18:d5:6f:a0:29:c3:7e:54:81:fd:\n    02:bb", "3a:91:0c:ee:47:b2"},
		{"> priv:\n>     1d:9a:44:e0:7c:3b:52:aa:08:f1:6e:29:b4:c7:05:\n>     d3:88:2f:61:9e:0b:47:fa:33:c8:14:5d", "d3:88:2f:61:9e"},
		{`.k::after { content: "\4b \39 \71 \58 \37 \6d \32 \52 \77 \4c \38 \7a "; }`, `\4b \39 \71`},
		{"fetch(u, { headers: { 'X-Key': `\\u{4b}\\u{39}\\u{71}\\u{58}\\u{37}\\u{6d}\\u{32}\\u{52}\\u{77}\\u{4c}\\u{38}\\u{7a}` } })", `\\u{4b}\\u{39}`},
		{`UPDATE users SET pw = '\x4b3971583723524c387a21'::bytea;`, "4b397158"},
		{"| Acme | prod | `9d2f6b0c4e8a1735-b1c9e04d7a3f6822-5e0a9c3b71d4f806` |", "9d2f6b0c4e8a1735"},
		{"> **Acme** — ak2_4e9b1d07c3f85a26e0d9b4c71a3f5e8209c6d2b7a14e3f90 >", "4e9b1d07c3f8"},
		{"export DEPLOY_TOKEN := 7KQ2ZP4XW9RM3TNV8LCD", "7KQ2ZP4XW9RM"},
		{"acceso al banco: Heron-7731-qWzaT", "Heron-7731-qWzaT"},
		{"Far, koden til banken er 7qa3@4R8xmbvwTZ", "7qa3@4R8xmbvwTZ"},
		{"sha256sum a.iso: ok; vault operator unseal --unseal-key 9c0b7e2a4d6f81359e0a2c4b6d8f0123a5c7e9b1d3f5072846a8c0e2b4d6f819", "9c0b7e2a4d6f8135"},
		{`{"log":"{\"msg\":\"{\\\"password\\\":\\\"vB2q\\\\\\\"Lm8\\\\\\\\xK4p\\\"}\"}"}`, "xK4p"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
}
