package redact

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ordinaryText is the text of this repository that holds no secret: its Go sources (tests and
// this package left out, they plant secrets on purpose), its docs, and the demo's Japanese,
// Chinese and English text in fixtures/.
func ordinaryText(t *testing.T) map[string]string {
	root := filepath.Join("..", "..")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			// core/redact and scripts/redactbench plant secrets on purpose, as tests do
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == filepath.Join("core", "redact") || rel == filepath.Join("scripts", "redactbench") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, "_test.go"):
			return nil
		case strings.HasSuffix(p, ".go"), strings.HasSuffix(p, ".md"), strings.HasPrefix(rel, "fixtures"+string(filepath.Separator)) && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// plantedSecrets are the secrets the demo data and docs hold on purpose, to show redaction.
var plantedSecrets = []string{"pg-s3cret-2026", "hunter2redis", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Sup3rS3cret!",
	"AKIAIOSFODNN7EXAMPLE", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "?token=56c2c2703ac309f3927e58c09367b78c60e847cd999a741ce502ea058064d8e8",
	"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij", "password=hunter2 "}

// TestFalsePositives counts what the rules hide in ordinary text, line by line as comments
// would carry it. Each replacement that is not a planted secret is a false positive.
func TestFalsePositives(t *testing.T) {
	r := New()
	files := ordinaryText(t)
	var lines, bytes, fp int
	for name, text := range files {
		for i, line := range strings.Split(text, "\n") {
			lines++
			bytes += len(line)
			got := r.Text(line)
			if got == line {
				continue
			}
			planted := false
			for _, p := range plantedSecrets {
				planted = planted || strings.Contains(line, p)
			}
			if planted {
				continue
			}
			n := strings.Count(got, Placeholder) - strings.Count(line, Placeholder)
			fp += n
			t.Logf("false positive %s:%d: %q -> %q", name, i+1, strings.TrimSpace(line), strings.TrimSpace(got))
		}
	}
	if len(files) < 50 || lines < 10000 {
		t.Fatalf("only %d files, %d lines of ordinary text found", len(files), lines)
	}
	t.Logf("%d false positives in %d lines (%d bytes) of %d files", fp, lines, bytes, len(files))
	if fp > 1 {
		t.Errorf("%d false positives, want at most 1", fp)
	}
}

// TestOrdinaryTextKept: words next to a key word are not taken for secrets.
func TestOrdinaryTextKept(t *testing.T) {
	r := New()
	for _, s := range []string{
		"tests pass: 42",
		"all 318 tests pass: 42 skipped",
		"NotificationServiceFactory.create.DefaultNotificationServiceImpl is wired in main",
		"meeting at 10:30:45:00 in room b",
		"Authorization:\nAuthorization: is the header to set",
		"pip install sk-learn-classifier-model-v2-final",
		"model sk-learn-classifier-model-v2-final scored 0.93",
		"max_token: 4096",
		`{"_meta":{"progressToken":4}}`,
		"CODEX_SESSION_ID=01a233be-b144-7d91-8c8b-20f5e297f5da",
		`"output":"CLAUDE_CODE_CHILD_SESSION=1\nCLAUDE_CODE_SESSION_ID=4cfcee45-be95-43a3-949c-b74f066121fe\n"`,
		"token: send the header",
		"author: alice",
		"compass: north",
		"the password: <your password here>",
		"DB_PASSWORD=${DB_PASSWORD}",
		"TOKEN=$(cat .cairn/serve.token)",
		"token := r.Header.Get(\"X-Token\")",
		"fmt.Errorf(\"write token: %w\", err)",
		"basic authentication is enough",
		"the bearer of bad news",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"see https://example.com:8443/path@v2",
		"git@github.com:cairn-dev/cairn.git",
		"TestHintIndexMatchesContains and ExcerptKeepsOriginalCase",
		"run mysql -u root -p shop and type the password when asked",
		"pass --token $GITHUB_TOKEN, or --password <your password>",
		"docker login --password-stdin reads it from standard input",
		"the live_reload flag and sandbox_mode stay off",
		"re_match and re_search are different functions",
		"see RFC 6749 about ?code= in the redirect",
		"the machine room password policy changed",
		"vault login -method=oidc",
		"vault login -method=oidc worked after the VPN reconnect",
		"vault login worked",
		"curl -u admin https://api.example.com asks for the password",
		"the pattern of path_pattern: glob",
		"the Aaaa record and akid are not keys",
		"one pass: a one-byte anchor, and the second pass: the rest",
		"give a password on the command line (`--password X`, `mysql -pX`, `curl -u user:X`)",
		"def test_user_can_login_with_valid_credentials(self):",
		"info.SessionID = l.SessionID",
		`{"type": "thinking", "signature": "EqQBCkYIBxgCKkBmZjY3NzQ4"}`,
		`{"sessionId": "3b2f1c9e-7a4d-4e21-9c6b-5d8e0f1a2b3c"}`,
		`const subscriptionKey = "io.modelcontextprotocol/subscriptionId"`,
		`send "Authorization: Bearer <token>" with the token in .cairn/serve.token`,
		"the <password> element holds the password, and <secret> marks a secret",
		"- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}",
		"- name: DB_PASSWORD\n  valueFrom: {secretKeyRef: {name: db}}\n- name: LOG_LEVEL\n  value: debug-verbose",
		"docker login -u ci --password-stdin < token.txt",
		"redis-cli -a and requirepass are described in redis.conf",
		"keytool -storepass $STOREPASS -list",
		"upgrade from 0.4.1 to 0.5.0, then 1/2 of the runs pass",
		"the attachment and the attack surface; SCW region fr-par",
		"bcrypt hashes start with $2b$ and a cost such as $2b$12$",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestPlaceholdersLeftAlone: the values manuals show where a secret goes, names of secrets,
// shell expansions, file paths, prose after a key word and versions are no secrets.
func TestPlaceholdersLeftAlone(t *testing.T) {
	r := New()
	for _, s := range []string{
		"DB_PASSWORD=${DB_PASSWORD:?must be set}",
		"PASSWORD=changeme  # replace before deploying",
		"gcloud secrets versions access latest --secret=db-password",
		"amqp://guest:guest@localhost:5672/",
		"func (c *Client) SetPassword(p string) { c.password = p }",
		"SECRET_KEY=replace-me-in-production",
		"kubectl create secret generic db --from-file=password=./password.txt",
		"passwd: all authentication tokens updated successfully.",
		"v2.09.4-rc.5+build.f2aac50",
		"# requirepass foobared",
		`ClientSecret: "idp-client-secret",`,
		"STRIPE_SECRET_KEY=sk_test_...",
		"REDIS_URL=redis://:<password>@localhost:6379/0",
		`"password": "[FILTERED]"`,
		"Passwort: siehe KeePass-Datei",
		"ED25519 key fingerprint is SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU.",
		`Error: secret "db-creds" not found`,
		`user := User{Name: "alice", Password: "password123"}`,
		`token = "0000000000000000000000000000000000000000"`,
		"vault kv put secret/app password=@password.txt",
		"Password123 is a terrible password, please don't use it as an example",
		"25211a768e4938e8213c725e39682325  ./dist/style.css  (md5 checksum)",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestWidenToToken: what is glued to a hidden secret and would still give it away (an id
// before its secret, a cookie's user and expiry) is hidden with it; a user name, a host and a
// port stay.
func TestWidenToToken(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, want string }{
		{"ghost-cli --admin-key 319b27160b9b2a407ff82691:83e54754bb840346829b83fb87c696b7dbdc796ff6a3dbf8f33ecade335603d2 publish", "ghost-cli --admin-key [REDACTED] publish"},
		{"curl -u 5b22b509:5b45d9f3 https://enterprise.contribsys.com/", "curl -u [REDACTED] https://enterprise.contribsys.com/"},
		{"postgres://admin:Zq8vLm2xRt5w@10.0.0.12:5432/app", "postgres://admin:[REDACTED]@10.0.0.12:5432/app"},
	} {
		if got := r.Text(c.text); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestCodesOfDigits: a word for a door, safe or locker code names the number after it, in any
// language; Claude Code, code pages, exit codes and source code name no secret.
func TestCodesOfDigits(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"Ukse kood on 05679276542", "05679276542"},
		{"Seifo kodas: 32079894", "32079894"},
		{"Re: access Keypad for the DC cage: 36369683*", "36369683"},
		{"alarm disarm code 063026970", "063026970"},
		{"sticky note reads: pw 5255658556661", "5255658556661"},
		{"ਟੈਸਟ ਸਰਵਰ ਦਾ ਪਾਸਵਰਡ walrus-zinnia-mango-fjord ਹੈ", "walrus-zinnia-mango-fjord"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{
		"Claude Code session 9e8f7a6b-1111-4222-8333-444455556666; resume: claude --resume 9e8f7a6b-1111-4222-8333-444455556666",
		"// CodePage860 is the IBM Code Page 860 encoding.",
		`Process exited with code 0\nOriginal token count: 72`,
		"the process exited with code 1 after 3 retries",
		"in the record shapes Claude Code writes: file-history-snapshot, summary,",
		"if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CANTOPEN {",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestHarmlessShapesKept: a key shown as a prefix and filler, cmd.exe's %VAR%, a module's h1:
// hash, an npm integrity, yarn's resolved archive and checksum, a cipher suite's name and an
// OpenPGP fingerprint are no secrets; the secrets beside them still are.
func TestHarmlessShapesKept(t *testing.T) {
	r := New()
	for _, s := range []string{
		"STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxx",
		"GITHUB_TOKEN=ghp_************************",
		"set MYSQL_PWD=%MYSQL_PWD%",
		"example.org/mod v1.2.0 h1:Qm3dW9kRr+Tz8bYp0a/XcN5vLq2sJf7hGu4eKo1iMwA=",
		"example.org/mod v1.2.0/go.mod h1:Zr8e+Kq1/Lm3pWv9tN0aYc5xJ2bH7dGf4uSo6iEkQwM=",
		`"integrity": "sha512-Ab3dE+fG9hK1/mN0pQ2rS4tU6vW8xY0zAb2cD4eF6gH8iJ0kL2mN4oP6qR8sT0uV2wX4yZ6aB8cD0eF2gH4iJ6kL8w==",`,
		`  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3f10e1c64b8c1d9d9e0a7f1c2b3a4d5e6f70"`,
		"ssl_ciphers TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256",
		"Key fingerprint = 9A1F 33C0 7E2B 5D48 C6A1  0F9E 2B7C 44D1 8E03 A5B6",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
	for _, s := range []string{
		"set MYSQL_PWD=Tr0ub4dor&3x",
		"STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"recovery key: 9A1F-33C0-7E2B-5D48 Q7x!mR2@",
	} {
		if got := r.Text(s); !strings.Contains(got, Placeholder) {
			t.Errorf("Text(%q) = %q, want a secret hidden", s, got)
		}
	}
}
