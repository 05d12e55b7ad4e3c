package redact

import (
	"strings"
	"testing"
)

// hostile are inputs that made redaction quadratic: a rule re-scanned the rest of the text after
// every match and the hints were folded again after every replacement.
var hostile = []struct {
	name string
	unit string
}{
	{"token=", "token="},
	{"token: ", "token: "},
	{`password="`, `password="`},
	{"key=value", "api_key=abcdef12345 "},
	{"://", "://"},
	{"a://a:", "a://a:"},
	{"a@", "a@"},
	{"url", "https://u:p@h/ "},
	{"base64", "QWxhZGRpbjpvcGVuIHNlc2FtZQ"},
	{"-----BEGIN ", "-----BEGIN "},
	{"begin private key", "-----BEGIN RSA PRIVATE KEY-----\n"},
	{"sk-", "sk-"},
	{"eyJ", "eyJhbGciOiJIUzI1NiJ9."},
	{"bearer", "Bearer "},
	{"authorization", "Authorization: "},
	{"aaaa", "a"},
	{"ghp_", "ghp_0123456789"},
	{"full-width", "ｐａｓｓｗｏｒｄ＝"},
	{"--token", "--token "},
	{"mysql", "mysql -u "},
	{"netrc", "machine h login u password "},
	{"?code=", "?code="},
	{"discord dots", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ."},
	{"discord run", "MTk4NjIyNDgzNDcxOTI1MjQ4.aaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
	{"pgpass", "h:1:d:u:"},
	{"xml element", "<password>"},
	{"xml element with text", "<password>a"},
	{"xml element closed", "<token>a</token>"},
	{"vso setvariable", "##vso[task.setvariable variable=PASS;"},
	{"set-output", "::set-output name=token:"},
	{"od -c dump", "od -c a b "},
	{"letter quads", "qbzt-wkvh-xdjr-pmgf "},
	{"xml cdata", `<add key="ApiSecret"><value><![CDATA[a`},
	{"xml element cdata", "<password><![CDATA[abcd"},
	{"xml namespaced element", "<wsse:Password>a</wsse:Password>"},
	{"xml namespace colons", "<a:b:c:Password>"},
	{"hex groups after fingerprint", "fingerprint 9A1F 33C0 "},
	{"digit groups after account", "account=4406 9464 4958 0859 "},
	{"named value", `name="password" value=`},
	{"named value yaml", "- name: API_TOKEN\n  value: "},
	{"cookie", "session="},
	{"signature", "X-Amz-Signature=a"},
	{"login -p", "docker login -p "},
	{"redis-cli -a", "redis-cli -a "},
	{"requirepass", "requirepass "},
	{"sqlcmd -P", "sqlcmd -P"},
	{"ldap -w", "ldapsearch -w "},
	{"-storepass", " -storepass "},
	{"sqlplus", "sqlplus a/"},
	{"jdbc oracle", "jdbc:oracle:thin:a/"},
	{"sasl_passwd", "[h]:1 u:"},
	{"smbclient", "smbclient -U a%"},
	{"htpasswd -b", "htpasswd -b f u "},
	{"authorization scheme", "Authorization: Scheme "},
	{"sentry dsn", "https://0123456789abcdef0123456789abcdef@"},
	{"slack workflow", "https://hooks.slack.com/workflows/T1/A1/"},
	{"sk_", "sk_0123456789abcdef"},
	{"sk_sbox_", "sk_sbox_"},
	{"nvapi-", "nvapi-"},
	{"tvly-", "tvly-dev-"},
	{"fc-", "fc-0123"},
	{"e2b_", "e2b_0123"},
	{"csk-", "csk-ab"},
	{"jina_", "jina_ab"},
	{"pat-na1-", "pat-na1-0123abcd-"},
	{"pk_", "pk_12345678_"},
	{"atta", "atta0123"},
	{"asana", "1/1234567890123456:"},
	{"hcaik_", "hcaik_"},
	{"phx_", "phx_"},
	{"mlsn.", "mlsn.0a"},
	{"ngrok", "ngrok 2abcdefghijklmnopqrstuvwxyz_"},
	{"api- uuid", "api-01234567-0123-"},
	{"apify_api_", "apify_api_"},
	{"ddp_", "ddp_"},
	{"zapier", "hooks.zapier.com/hooks/catch/1/"},
	{"live_", "live_"},
	{"scw", "scw0"},
	{"k00", "K005"},
	{"0.", "0.01234567-0123-0123-0123-0123456789ab."},
	{"secret-live-", "secret-live-"},
	{"nral", "0123456789abcdef0123456789abcdef0123NRAL"},
	{"sk-or-v1-", "sk-or-v1-"},
	{"bcrypt", "$2y$10$"},
	{"sha-crypt", "$6$rounds=5000$"},
	{"{SHA}", "{SHA}"},
	{"argon2", "$argon2id$v=19$m=1,t=1,p=1$a$"},
	{"base64 pem", "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS"},
	{"base64 docker config", "eyJhdXRocyI6"},
	{"a85", "a85 aB3xK9pQ7mZ2wL5v!#"},
	{"b85 glued", "b85decode(b'aB3xK9pQ7mZ2wL5v!#"},
	{"reversed", "reversed =aB3xK9pQ7mZ2wL5vR8tY "},
	{"reversed base64", "=aB3xK9pQ7mZ2wL5vR8tYQ "},
	{"word number symbol", "Cobalt🐙7657🔥$"},
	{"split halves", "aB3xK9pQ7mZ2 "},
	{"split hex", "a1b2c3d4e5f6a7 "},
	{"hex words", "5061 "},
	{"base36", "k29amv0beyilkx57 "},
	{"spaced directive", "auth_token "},
	{"han phrase", "国 "},
	{"base45", "base45 2ECJ$D3.D/$E7+8 "},
	{"short random", "K9qKs5jsW5g "},
	{"wrapped hex", "a1b2c3d4e5f6a7b8 "},
	{"wrapped hex of text", "70617373776f7264 "},
	{"bits run", "0111000001100001 "},
	{"decimal bytes", "112 97 115 "},
	{"dashed hex bytes", "70-61-73-"},
	{"octal escapes", `\160\141`},
	{"char calls", "chr(112)+"},
	{"char calls unclosed", "[char]112+chr("},
	{"emphasis", "**pw:** `a"},
	{"emphasis marks", "*:_"},
	{"od letters", "od -c a b C d "},
	{"builder appends", `sb.append("Xk29fjQlPz08"); `},
	{"colon hex key", "priv: 0a:1b:"},
	{"colon hex block", "0a:\n    "},
	{"interleaved", "a.1."},
	{"css escapes", `\38 `},
	{"brace escapes", `\u{75}`},
	{"subcommand password", "a b:password c "},
	{"creds flag", "--dest-creds a:"},
	{"grouped base64", "MIIC eAIB "},
	{"morse", "...-- -. "},
	{"morse run", "......."},
	{"key flag", " --certificate-key "},
	{"sign in", "login "},
	{"slashed credentials", "with a/"},
	{"sign in code", "sign in Q7X2K9M4 "},
}

func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n/len(unit)*len(unit)]
}

// TestLinearWork counts the bytes every rule and scanner is handed: for each hostile shape, eight
// times the text costs at most about eight times the work, and the work per byte is bounded by
// the number of rules (no rule re-reads the text after a match).
func TestLinearWork(t *testing.T) {
	r := New()
	bound := 4 * (2*len(r.Rules()) + 8) // passes × (rules on the text and its fold + folding + scanners)
	for _, h := range hostile {
		// the large text is the small one eight times, so a pattern that consumes several units a
		// match leaves the same remainder in both
		small := repeatTo(h.unit, 16<<10)
		large := strings.Repeat(small, 8)
		_, s1 := r.TextStats(small)
		_, s8 := r.TextStats(large)
		if perByte := s8.Bytes / len(large); perByte > bound {
			t.Errorf("%s: %d bytes of work per byte of text, want at most %d (%+v)", h.name, perByte, bound, s8)
		}
		if ratio := float64(s8.Bytes) / float64(s1.Bytes); ratio > 8.5 {
			t.Errorf("%s: 8× the text costs %.1f× the work (%+v, then %+v)", h.name, ratio, s1, s8)
		}
	}
}

// BenchmarkHostile measures throughput on 1 MB of each hostile shape.
func BenchmarkHostile(b *testing.B) {
	r := New()
	for _, h := range hostile {
		s := repeatTo(h.unit, 1<<20)
		b.Run(h.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				r.Text(s)
			}
		})
	}
}
