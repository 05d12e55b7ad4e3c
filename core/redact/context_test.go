package redact

import (
	"fmt"
	"strings"
	"testing"
)

// contextSecrets are passwords and keys written in sentences, in the languages people write
// here: no shape gives them away, only the words before them. The values are random.
func contextSecrets(f *faker) []secretCase {
	pw := func() string { return f.s(alnum, 6) + "#" + f.s(alnum, 8) }
	return []secretCase{
		{"password in an English sentence", "context", "the staging DB password is %s, rotate it monthly", pw()},
		{"password for X is", "context", "The password for the prod replica is %s.", pw()},
		{"api key in English", "context", "Our API key: %s", f.s(alnum, 24)},
		{"passphrase with em dash", "context", "passphrase — %s", f.s(lalnum, 10) + "-" + f.s(lalnum, 10)},
		{"password in a Japanese sentence", "context", "本番DBのパスワードは %s です", pw()},
		{"password after a full-width colon", "context", "パスワード：%s", pw()},
		{"Japanese api key ga", "context", "APIキーが%sになりました", f.s(alnum, 20)},
		{"Chinese database password", "context", "数据库密码：%s", pw()},
		{"Chinese api key shi", "context", "测试环境的API密钥是%s", f.s(alnum, 24)},
		{"traditional Chinese password", "context", "管理員密碼為 %s", pw()},
		{"Korean password", "context", "비밀번호: %s", pw()},
		{"Korean password particle", "context", "서버 비밀번호는 %s 입니다", pw()},
		{"Spanish password", "context", "contraseña: %s", pw()},
		{"Spanish es", "context", "La contraseña es %s", pw()},
		{"French password", "context", "mot de passe : %s", pw()},
		{"French est", "context", "le mot de passe est %s", pw()},
		{"German Kennwort", "context", "Kennwort: %s", pw()},
		{"German Passwort ist", "context", "Das Passwort ist %s", pw()},
		{"Portuguese senha", "context", "senha=%s", pw()},
		{"Portuguese senha e", "context", "A senha é %s", pw()},
		{"Russian password", "context", "пароль: %s", pw()},
		{"Russian capital", "context", "Пароль от сервера: %s", pw()},
		{"Russian token", "context", "токен: %s", f.s(alnum, 32)},
		{"quoted password", "context", `the password is "%s"`, f.s(alnum, 6) + " " + f.s(alnum, 6)},
		{"Japanese bracketed", "context", "暗証番号は「%s」です", f.s("0123456789", 6) + f.s(alnum, 2)},
	}
}

func TestContextSecrets(t *testing.T) {
	r := New()
	one := newRedactor([]Rule{{Name: "context", Hints: contextHints(), scan: scanContext}})
	for seed := range uint64(20) {
		for _, c := range contextSecrets(newFaker(seed + 100)) {
			if l := leaks(r, c.text, c.secret); len(l) > 0 {
				t.Errorf("%s: fragments %q of %q survive in %q", c.kind, l, c.secret, r.Text(fmt.Sprintf(c.text, c.secret)))
			}
			if l := leaks(one, c.text, c.secret); len(l) > 0 {
				t.Errorf("%s: the context rule alone leaves %q in %q", c.kind, l, one.Text(fmt.Sprintf(c.text, c.secret)))
			}
		}
	}
}

// The words around a secret are kept, and sentences that only speak of one are left alone.
func TestContextKeepsProse(t *testing.T) {
	r := New()
	for _, s := range []string{
		"the password is incorrect",
		"the password is stored in the vault",
		"パスワードを変更しました",
		"パスワードは変更済みです",
		"数据库密码已经更新",
		"비밀번호를 잊어버렸어요",
		"la contraseña es incorrecta",
		"le mot de passe est expiré",
		"Das Passwort ist abgelaufen",
		"пароль неверный",
		"ClientSecret: c.ClientSecret",
		"var hasAVX2 = cpu.X86.HasAVX2",
		"fd := os.Stdout.Fd()",
		"password: string",
		"Password: cfg.Password",
		"apiKey := os.Getenv(\"API_KEY\")",
		"the api key: see the vault",
		"passwords in URLs (`redis://`) and `password=`-style assignments",
		"1 MB of `token=` in 0.12 s",
		"API key は [REDACTED] です",
		"Windows パス C:\\data\\links.json も対応",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("%q -> %q", s, got)
		}
	}
	// only the value goes: the words stay
	got := r.Text("本番DBのパスワードは Xy9#kq2Lm です")
	if got != "本番DBのパスワードは [REDACTED] です" {
		t.Errorf("got %q", got)
	}
	if again := r.Text(got); again != got {
		t.Errorf("not idempotent: %q", again)
	}
}

// A hostile text of key words and separators costs linear work.
func TestContextLinear(t *testing.T) {
	r := New()
	small := strings.Repeat("password is password is パスワード: ", 200)
	big := strings.Repeat("password is password is パスワード: ", 2000)
	_, a := r.TextStats(small)
	_, b := r.TextStats(big)
	if b.Bytes > 12*a.Bytes {
		t.Fatalf("work grew from %d to %d bytes for 10x the text", a.Bytes, b.Bytes)
	}
}

// More languages and the shapes of chat: each value is hidden and the words stay.
func TestContextMoreLanguages(t *testing.T) {
	r := New()
	f := newFaker(7)
	for _, tmpl := range []string{
		"la password è %s", "het wachtwoord is %s", "hasło do bazy: %s", "şifre: %s", "mật khẩu là %s",
		"kata sandi: %s", "كلمة المرور: %s", "पासवर्ड: %s", "секретний ключ: %s", "| password | %s |",
		"password (%s)", "password - %s", "set the password to %s", "DBの管理者ぱすわーど: %s",
	} {
		secret := f.s(alnum, 6) + "#" + f.s(alnum, 6)
		text := fmt.Sprintf(tmpl, secret)
		if got := r.Text(text); strings.Contains(got, secret[:8]) || strings.Contains(got, secret[len(secret)-8:]) {
			t.Errorf("%q -> %q", text, got)
		}
	}
}

// A value written before its key word: "X is the password", "Xがパスワードです".
func TestContextValueBefore(t *testing.T) {
	r := New()
	f := newFaker(9)
	for _, tmpl := range []string{"%s is the wifi password", "use %s as the password", "%sがパスワードです", "%s是密码", "%s is my new password"} {
		secret := f.s(alnum, 5) + "#" + f.s(alnum, 5) + "9"
		text := fmt.Sprintf(tmpl, secret)
		if got := r.Text(text); strings.Contains(got, secret[:8]) {
			t.Errorf("%q -> %q", text, got)
		}
	}
	for _, s := range []string{"this is the password prompt", "v1.2.3 is the password-less release", "Go1.26 is the password manager's version"} {
		if got := r.Text(s); got != s {
			t.Errorf("%q -> %q", s, got)
		}
	}
}

func TestContextShortWords(t *testing.T) {
	r := New()
	for text, secret := range map[string]string{"my PIN is 482913": "482913", "wifi pw: Kx7#mQ2pLz": "Kx7#mQ2pLz", "the secret is Tz4$wN8qRv1p": "Tz4$wN8qRv1p", "creds: deploy/Hq5!vLm2Xs9k": "Hq5!vLm2Xs9k"} {
		if got := r.Text(text); strings.Contains(got, secret) {
			t.Errorf("%q -> %q", text, got)
		}
	}
	for _, s := range []string{"GPIO pin 18 is high", "the pin is loose", "Pass expect_sha256 from MemoryRead", "run pwd to see the folder"} {
		if got := r.Text(s); got != s {
			t.Errorf("%q -> %q", s, got)
		}
	}
}

// TestNamespacedXMLElement: an element named like a secret keeps its name after a namespace's
// prefix (<wsse:Password>, <ns1:ApiToken>); a namespaced element named otherwise is no key.
func TestNamespacedXMLElement(t *testing.T) {
	r := New()
	if got := r.Text("<wsse:Password>Qe7vLm29xPwa4Tz</wsse:Password>"); strings.Contains(got, "Qe7vLm29") {
		t.Errorf("Text = %q, want the password hidden", got)
	}
	if s := "<wsse:Username>operator</wsse:Username>"; r.Text(s) != s {
		t.Errorf("Text(%q) = %q, want it unchanged", s, r.Text(s))
	}
}

// TestCDATASecret: a value named a secret is hidden inside a CDATA section too.
func TestCDATASecret(t *testing.T) {
	r := New()
	for _, s := range []string{
		`<setting name="SmtpPassword"><value><![CDATA[Wq9!tr55mZ]]></value></setting>`,
		`<db:password><![CDATA[Wq9!tr55mZ]]></db:password>`,
	} {
		if got := r.Text(s); strings.Contains(got, "Wq9!tr55") {
			t.Errorf("Text(%q) = %q, want the value hidden", s, got)
		}
	}
	if s := `<setting name="Title"><value><![CDATA[Quarterly report]]></value></setting>`; r.Text(s) != s {
		t.Errorf("Text(%q) = %q, want it unchanged", s, r.Text(s))
	}
}

// TestCISetVariable: a CI logging command that sets a variable named for a secret gives its
// value; one setting another variable does not.
func TestCISetVariable(t *testing.T) {
	r := New()
	for _, s := range []string{
		"##vso[task.setvariable variable=API_TOKEN]Zp4-qL9xW2",
		"echo \"::set-output name=db_password::Zp4-qL9xW2\"",
	} {
		if got := r.Text(s); strings.Contains(got, "Zp4-qL9x") {
			t.Errorf("Text(%q) = %q, want the value hidden", s, got)
		}
	}
	if s := "##vso[task.setvariable variable=BUILD_FLAVOR]release"; r.Text(s) != s {
		t.Errorf("Text(%q) = %q, want it unchanged", s, r.Text(s))
	}
}

// The seventh corpus's sentences: a qualifier in an unspaced script or with vowel signs before
// the colon, an Ethiopic colon, a Greek or Tagalog copula, a comma before a strong value, a
// Turkish possessive, and the tools that take -u USER -p X.
func TestContextSeventhShapes(t *testing.T) {
	r := New()
	f := newFaker(11)
	for _, tmpl := range []string{
		"የሰርቨሩ የይለፍ ቃል፦ %s", "የይለፍ ቃሉን ወደ %s ቀየርኩት", "ο νέος κωδικός είναι %s",
		"मैंने पासवर्ड बदल दिया: %s", "pinalitan ko na ang password, %s na", "ang password ay %s",
		"รหัสผ่านเซิร์ฟเวอร์: %s", "veritabanı parolası: %s", "twine upload -u __token__ -p %s dist/*",
		"docker login -u ci -p %s registry.example.com", "vsce publish -p %s",
		`proxy_set_header Authorization "Bearer %s";`,
	} {
		secret := f.s(alnum, 6) + "%" + f.s(alnum, 6)
		text := fmt.Sprintf(tmpl, secret)
		if got := r.Text(text); strings.Contains(got, secret[:8]) || strings.Contains(got, secret[len(secret)-8:]) {
			t.Errorf("%q -> %q", text, got)
		}
	}
	// letters of both cases at random after a comma, but never a name or a key's second argument
	if got := r.Text("ang password, QHiVscfRCnGhiZCB na"); strings.Contains(got, "QHiVscfR") {
		t.Errorf("random letters after a comma kept: %q", got)
	}
	for _, s := range []string{
		"return rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, h.Sum(nil))",
		"fsconfigCommon(fd, FSCONFIG_SET_BINARY, key, &value[0], len(value))",
		"the password, as before, lives in the vault",
		"ClientSecret: b7cfg.ClientSecret, // read from the keyring at start",
		`log.Printf("loaded LicenseKey (len=%d)", len(b7LicenseKey))`,
		"git push -u origin -p main",
		"Without its encodings (ROT47, HTML entities, double percent-encoding, byte arrays of Go,",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("%q -> %q", s, got)
		}
	}
	// a password that holds what looks like a verb is still a password
	if got := r.Text("ldapmodify -D cn=root -w 'WEzeNWZOEu%91eAu' -f add.ldif"); strings.Contains(got, "WEzeNWZO") {
		t.Errorf("kept: %q", got)
	}
}
