package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// The seventh blind corpus (core/redact/testdata/public/blind7.jsonl): a tenth held-out corpus, of
// kinds that are in none of the earlier corpus files nor their generators, written blind: by a
// helper session that had not read core/redact (not its code, tests or testdata) nor
// docs/redaction.md nor the redaction figures of docs/benchmarks.md, that read of this program
// only how a corpus is wired and the earlier generators' kind names (to keep clear of them), and
// that never ran the detector on it. Its kinds are written from tables, each a setting crossed
// with a shape, in the groups:
//
//   - encoded: encodings blind6 did not use — ROT47, reversed text, HTML decimal and hex
//     entities, double percent-encoding, Go, Rust, Java and Swift byte arrays, NATO spelling,
//     hex with colons or spaces, base64 in data: URLs, shell $'\ooo' octal, printf '\x..',
//     base58, ascii85 — each in a chat message, an agent transcript, a config and a log;
//   - keymat: private keys and key bodies in containers blind6 did not use (Helm values,
//     Ansible vars, keytool dumps, JSON arrays of lines, Terraform outputs, Markdown tables,
//     chat messages split in parts, base64 of a PEM in YAML);
//   - cli: credentials as arguments of tools no earlier corpus covered;
//   - chat: messages in some twenty languages and scripts;
//   - agent: tool calls (JSON in JSON), file reads and shell output;
//   - wrapped: containers people paste;
//   - nokeyword: passwords and tokens said with no key word;
//   - provider: tokens of services no earlier corpus named, by a shape written here.
//
// Every body is random from a fixed source; no text is third-party. Each sample's secret is the
// exact string in its text (for encoded kinds, the encoded form). blind7-negatives.txt, written by
// the same run and checked to share no line with the earlier negatives files, holds ordinary lines
// that look risky and hold no secret.

// blind7Seed is the second word of every blind7 kind's random source, other than the others'.
const blind7Seed = 7312049

func b7t(group, name, source string, body func(*gen) string, texts ...string) b3Kind {
	return templateKind("blind7", group, name, source, body, texts...)
}

func generateBlind7() []Sample { return generateB3Kinds("blind7", blind7Kinds(), blind7Seed) }

func blind7Kinds() []b3Kind {
	var ks []b3Kind
	ks = append(ks, b7Encoded()...)
	ks = append(ks, b7KeyMat()...)
	ks = append(ks, b7CLI()...)
	ks = append(ks, b7Chat()...)
	ks = append(ks, b7Agent()...)
	ks = append(ks, b7Wrapped()...)
	ks = append(ks, b7NoKeyword()...)
	ks = append(ks, b7Providers()...)
	return ks
}

func b7pw(g *gen) string {
	switch g.rng.IntN(4) {
	case 0:
		return g.s(alnum, 14+g.rng.IntN(5))
	case 1:
		return b6cap(g.pick(b6Words...)) + g.s(b6Dig, 4) + g.s("!#@%", 1) + g.s(b6Lo, 3)
	case 2:
		return b6strong(g)
	default:
		return g.s(b6Up, 3) + g.s(b6Lo, 6) + g.s(b6Dig, 5)
	}
}

func b7rot47(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 33 && c <= 126 {
			b[i] = 33 + (c-33+47)%94
		}
	}
	return string(b)
}

func b7join(s, f, sep string) string {
	var p []string
	for _, c := range []byte(s) {
		p = append(p, fmt.Sprintf(f, c))
	}
	return strings.Join(p, sep)
}

var b7nato = map[byte]string{'a': "alfa", 'b': "bravo", 'c': "charlie", 'd': "delta", 'e': "echo", 'f': "foxtrot", 'g': "golf",
	'h': "hotel", 'i': "india", 'j': "juliett", 'k': "kilo", 'l': "lima", 'm': "mike", 'n': "november", 'o': "oscar", 'p': "papa",
	'q': "quebec", 'r': "romeo", 's': "sierra", 't': "tango", 'u': "uniform", 'v': "victor", 'w': "whiskey", 'x': "xray", 'y': "yankee", 'z': "zulu",
	'0': "zero", '1': "one", '2': "two", '3': "three", '4': "four", '5': "five", '6': "six", '7': "seven", '8': "eight", '9': "niner"}

func b7natoOf(s string) string {
	var p []string
	for _, c := range []byte(s) {
		lc := c | 0x20
		w := b7nato[lc]
		if c >= 'A' && c <= 'Z' {
			w = strings.ToUpper(w)
		}
		if w == "" {
			w = string(c)
		}
		p = append(p, w)
	}
	return strings.Join(p, " ")
}

type b7enc struct {
	name string
	f    func(string) string
}

func b7Encoded() []b3Kind {
	encs := []b7enc{
		{"rot47", b7rot47},
		{"reversed", b3reverse},
		{"html-decimal-entities", func(s string) string { return b7join(s, "&#%d;", "") }},
		{"html-hex-entities", func(s string) string { return b7join(s, "&#x%x;", "") }},
		{"double-percent", func(s string) string { return b7join(s, "%%25%02X", "") }},
		{"go-byte-slice", func(s string) string { return "[]byte{" + b7join(s, "0x%02x", ", ") + "}" }},
		{"rust-byte-array", func(s string) string { return "[" + b7join(s, "%du8", ", ") + "]" }},
		{"java-byte-array", func(s string) string { return "new byte[]{" + b7join(s, "%d", ", ") + "}" }},
		{"swift-uint8-array", func(s string) string { return "[UInt8]([" + b7join(s, "0x%02X", ",") + "])" }},
		{"nato-spelling", b7natoOf},
		{"hex-colon", func(s string) string { return b7join(s, "%02x", ":") }},
		{"hex-spaced-upper", func(s string) string { return b7join(s, "%02X", " ") }},
		{"data-url-base64", func(s string) string {
			return "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(s))
		}},
		{"shell-octal-ansi-c", func(s string) string { return "$'" + b7join(s, "\\%03o", "") + "'" }},
		{"printf-hex-escapes", func(s string) string { return "'" + b7join(s, "\\x%02x", "") + "'" }},
		{"base58-password", func(s string) string { return b3b58([]byte(s)) }},
		{"ascii85-adobe", func(s string) string { return "<~" + b3a85([]byte(s)) + "~>" }},
		{"hex-of-reversed", func(s string) string { return hex.EncodeToString([]byte(b3reverse(s))) }},
		{"urlsafe-b64-nopad", func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }},
		{"query-escaped-twice", func(s string) string { return url.QueryEscape(url.QueryEscape(s)) }},
	}
	settings := []struct {
		name  string
		texts []string
	}{
		{"chat", []string{
			"the db password, encoded so the bot doesn't grab it: {S} (decode it yourself)",
			"ok here is the root pw but obfuscated lol {S}",
			"new vpn password (encoded): {S}",
		}},
		{"agent", []string{
			"● Read(notes/creds.txt)\n  ⎿  admin password (encoded): {S}",
			"{\"type\":\"tool_result\",\"content\":\"PASS_ENC={S}\"}",
			"Assistant: I found the encoded password in config: {S}. Decoding it gives the admin login.",
		}},
		{"config", []string{
			"# password kept encoded\nsmtp_password_enc = {S}",
			"database:\n  user: app\n  password_encoded: \"{S}\"",
			"[auth]\nsecret_obfuscated={S}",
		}},
		{"log", []string{
			"2026-11-30T08:12:44Z WARN login failed for admin, pw(encoded)={S}",
			"DEBUG auth: decoded token from header, raw={S}",
			"audit: user=ops set password to {S} (encoded form)",
		}},
	}
	var ks []b3Kind
	for _, e := range encs {
		for _, st := range settings {
			f := e.f
			ks = append(ks, b7t("encoded", "b7-"+e.name+"-in-"+st.name, "password under "+e.name+" ("+st.name+")",
				func(g *gen) string { return f(b7pw(g)) }, st.texts...))
		}
	}
	return ks
}

func b7pem(label string, n int) func(*gen) string {
	return func(g *gen) string {
		b := g.b64(n)
		var lines []string
		for len(b) > 64 {
			lines = append(lines, b[:64])
			b = b[64:]
		}
		lines = append(lines, b)
		return "-----BEGIN " + label + "-----\n" + strings.Join(lines, "\n") + "\n-----END " + label + "-----"
	}
}

func b7KeyMat() []b3Kind {
	keys := []struct {
		name string
		body func(*gen) string
	}{
		{"rsa-pem", b7pem("RSA PRIVATE KEY", 600)},
		{"pkcs8-pem", b7pem("PRIVATE KEY", 120)},
		{"ec-pem", b7pem("EC PRIVATE KEY", 118)},
		{"openssh-body", func(g *gen) string { return "b3BlbnNzaC1rZXktdjEAAAAA" + g.b64(180) }},
		{"age-secret", func(g *gen) string { return "AGE-SECRET-KEY-1" + g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58) }},
		{"wireguard-private", func(g *gen) string { return g.b64(32) }},
	}
	boxes := []struct {
		name  string
		texts []string
	}{
		{"helm-values", []string{"tls:\n  enabled: true\n  key: |\n    {S}", "ingress:\n  tlsKey: {S}", "# values-prod.yaml\nsigning:\n  privateKey: \"{S}\""}},
		{"ansible-vars", []string{"# group_vars/all.yml\nssh_private_key: |\n  {S}", "vpn_privkey: \"{S}\"", "- name: deploy key\n  copy:\n    content: \"{S}\"\n    dest: /root/.ssh/id"}},
		{"terraform-output", []string{"Outputs:\n\nprivate_key = <<EOT\n{S}\nEOT", "$ terraform output -raw node_key\n{S}", "output \"key\" {\n  value = \"{S}\"\n}"}},
		{"markdown-table", []string{"| host | key |\n|---|---|\n| edge-1 | `{S}` |", "| env | private key |\n|--|--|\n| prod | {S} |", "key for box 3 in the table below\n\n| box | key |\n|-|-|\n| 3 | {S} |"}},
		{"chat-message", []string{"here's the private key for the build box:\n{S}", "can you check this key works? {S}", "pasting the key from my laptop\n{S}\nlet me know"}},
		{"agent-read", []string{"● Read(~/.config/keys/node.key)\n  ⎿  {S}", "{\"tool\":\"read_file\",\"result\":\"{S}\"}", "Here is the private key I found in deploy/keys: {S}"}},
	}
	var ks []b3Kind
	for _, k := range keys {
		for _, b := range boxes {
			texts := b.texts
			if !strings.Contains(k.name, "pem") {
				texts = append([]string{}, texts...)
				texts[0] = strings.ReplaceAll(texts[0], "|\n    {S}", "{S}")
				texts[0] = strings.ReplaceAll(texts[0], "|\n  {S}", "{S}")
			}
			ks = append(ks, b7t("keymat", "b7-"+k.name+"-in-"+b.name, k.name+" in "+b.name, k.body, texts...))
		}
	}
	// base64 of a PEM in YAML, JSON array of lines
	ks = append(ks, b7t("keymat", "b7-base64-pem-in-k8s-yaml", "a PEM key base64 in a Secret's data",
		func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(b7pem("PRIVATE KEY", 90)(g))) },
		"apiVersion: v1\nkind: Secret\ndata:\n  tls.key: {S}", "signing_key_b64: {S}", "echo {S} | base64 -d > key.pem"))
	ks = append(ks, b3Kind{"keymat", "b7-pem-as-json-line-array", "a PEM key as a JSON array of its lines", 3, func(g *gen, i int) (string, string) {
		p := strings.Split(b7pem("PRIVATE KEY", 100)(g), "\n")
		s := "[\"" + strings.Join(p, "\", \"") + "\"]"
		return []string{"{\"key_lines\": " + s + "}", "lines = " + s, "\"privateKey\": " + s + ","}[i], s
	}})
	return ks
}

func b7CLI() []b3Kind {
	tools := []struct{ name, tmpl string }{
		{"rclone-obscure", "rclone config create s3x s3 access_key_id AKX secret_access_key {S}"},
		{"restic-password", "RESTIC_PASSWORD={S} restic -r sftp:backup:/srv/restic snapshots"},
		{"borg-passphrase", "BORG_PASSPHRASE='{S}' borg create ::daily /home"},
		{"duplicity-passphrase", "PASSPHRASE={S} duplicity /etc file:///mnt/bk"},
		{"lftp-login", "lftp -u deploy,{S} sftp://files.internal"},
		{"smbclient-user", "smbclient //nas/share -U backup%{S}"},
		{"mount-cifs", "mount -t cifs //nas/media /mnt -o username=media,password={S}"},
		{"ldapsearch-bind", "ldapsearch -x -D cn=admin,dc=corp -w {S} -b dc=corp"},
		{"sqlcmd-password", "sqlcmd -S db01 -U sa -P {S} -Q \"select 1\""},
		{"bcp-password", "bcp dbo.orders out o.dat -S db01 -U etl -P {S} -c"},
		{"clickhouse-client", "clickhouse-client --host ch1 --user default --password {S}"},
		{"influx-token", "influx query 'buckets()' --token {S} --org acme"},
		{"vault-login-userpass", "vault login -method=userpass username=ops password={S}"},
		{"nmcli-wifi", "nmcli dev wifi connect HomeNet password {S}"},
		{"wpa-passphrase", "wpa_passphrase HomeNet {S} >> /etc/wpa_supplicant.conf"},
		{"openconnect-passwd", "echo {S} | openconnect --user=ops --passwd-on-stdin vpn.corp"},
		{"sshpass-p", "sshpass -p {S} ssh root@10.0.4.9"},
		{"xfreerdp-p", "xfreerdp /v:10.0.0.5 /u:admin /p:{S}"},
		{"rdesktop-p", "rdesktop -u Administrator -p {S} win01"},
		{"ipmitool-p", "ipmitool -I lanplus -H bmc1 -U ADMIN -P {S} power status"},
		{"snmpwalk-auth", "snmpwalk -v3 -u mon -l authPriv -a SHA -A {S} -x AES -X privpass1 sw1"},
		{"rabbitmqctl-adduser", "rabbitmqctl add_user svc {S}"},
		{"keytool-storepass", "keytool -list -keystore app.jks -storepass {S}"},
		{"openssl-passin", "openssl rsa -in key.pem -passin pass:{S} -out plain.pem"},
		{"zip-password", "zip -P {S} backup.zip dump.sql"},
		{"7z-password", "7z a -p{S} secrets.7z ./vault"},
		{"gpg-passphrase", "gpg --batch --passphrase {S} -d secrets.gpg"},
		{"htpasswd-batch", "htpasswd -b -c .htpasswd admin {S}"},
		{"mc-alias-set", "mc alias set minio http://minio:9000 admin {S}"},
		{"argocd-login", "argocd login argocd.corp --username admin --password {S}"},
		{"helm-repo-add", "helm repo add corp https://charts.corp --username ci --password {S}"},
		{"skopeo-creds", "skopeo copy --dest-creds ci:{S} docker://a docker://b"},
		{"twine-upload", "twine upload -u __token__ -p {S} dist/*"},
		{"gem-push-key", "GEM_HOST_API_KEY={S} gem push pkg.gem"},
		{"cargo-login", "cargo login {S}"},
		{"vsce-publish", "vsce publish -p {S}"},
		{"ovftool-url", "ovftool vm.ovf vi://root:{S}@esxi01/"},
		{"ansible-become", "ansible-playbook site.yml -e ansible_become_password={S}"},
		{"kcadm-password", "kcadm.sh config credentials --server http://kc --realm master --user admin --password {S}"},
		{"pg-basebackup-env", "PGPASSWORD={S} pg_basebackup -h primary -U repl -D /data"},
	}
	var ks []b3Kind
	for _, t := range tools {
		ks = append(ks, b7t("cli", "b7-cli-"+t.name, "credential as an argument of "+t.name, b7pw,
			"$ "+t.tmpl, "● Bash("+t.tmpl+")\n  ⎿  done", "ran this and it worked:\n```\n"+t.tmpl+"\n```"))
	}
	return ks
}

func b7Chat() []b3Kind {
	langs := []struct{ name, a, b, c string }{
		{"vietnamese", "mật khẩu wifi mới là {S} nhé", "anh ơi, mật khẩu tài khoản ngân hàng: {S}", "đổi mật khẩu rồi: {S}"},
		{"indonesian", "kata sandi server baru: {S}", "ini password emailnya ya {S}", "sandi VPN sudah diganti jadi {S}"},
		{"turkish", "yeni şifre {S} haberin olsun", "veritabanı parolası: {S}", "şifreyi değiştirdim, artık {S}"},
		{"polish", "nowe hasło do serwera to {S}", "hasło do konta: {S} nie udostępniaj", "zmieniłem hasło na {S}"},
		{"hebrew", "הסיסמה החדשה היא {S}", "סיסמה לשרת: {S}", "שיניתי את הסיסמה ל-{S}"},
		{"persian", "رمز عبور جدید: {S}", "رمز وای‌فای {S} است", "پسورد سرور رو عوض کردم: {S}"},
		{"hindi", "नया पासवर्ड {S} है", "सर्वर का पासवर्ड: {S}", "मैंने पासवर्ड बदल दिया: {S}"},
		{"bengali", "নতুন পাসওয়ার্ড {S}", "সার্ভারের পাসওয়ার্ড: {S}", "পাসওয়ার্ড বদলে দিয়েছি: {S}"},
		{"tamil", "புதிய கடவுச்சொல் {S}", "சர்வர் கடவுச்சொல்: {S}", "கடவுச்சொல்லை மாற்றினேன்: {S}"},
		{"ukrainian", "новий пароль: {S}", "пароль до бази {S}, не кажи нікому", "змінив пароль на {S}"},
		{"greek", "ο νέος κωδικός είναι {S}", "κωδικός πρόσβασης server: {S}", "άλλαξα τον κωδικό σε {S}"},
		{"swahili", "nenosiri jipya ni {S}", "nenosiri la seva: {S}", "nimebadilisha nenosiri kuwa {S}"},
		{"tagalog", "bagong password: {S} wag mong ipagsabi", "ang password ng server ay {S}", "pinalitan ko na ang password, {S} na"},
		{"thai", "รหัสผ่านใหม่คือ {S}", "รหัสผ่านเซิร์ฟเวอร์: {S}", "เปลี่ยนรหัสผ่านเป็น {S} แล้ว"},
		{"korean", "새 비밀번호는 {S} 입니다", "서버 비번: {S}", "비밀번호 {S} 로 바꿨어요"},
		{"japanese", "新しいパスワードは{S}です", "サーバーのパスワード：{S}", "パスワードを{S}に変更しました"},
		{"czech", "nové heslo je {S}", "heslo k serveru: {S}", "změnil jsem heslo na {S}"},
		{"romanian", "parola nouă este {S}", "parola serverului: {S}", "am schimbat parola în {S}"},
		{"hungarian", "az új jelszó: {S}", "szerver jelszó {S}", "átírtam a jelszót erre: {S}"},
		{"malay", "kata laluan baharu ialah {S}", "kata laluan pelayan: {S}", "saya tukar kata laluan kepada {S}"},
		{"urdu", "نیا پاس ورڈ {S} ہے", "سرور کا پاس ورڈ: {S}", "پاس ورڈ بدل دیا: {S}"},
		{"amharic", "አዲሱ የይለፍ ቃል {S} ነው", "የሰርቨሩ የይለፍ ቃል፦ {S}", "የይለፍ ቃሉን ወደ {S} ቀየርኩት"},
	}
	where := []struct{ name, pre string }{{"dm", ""}, {"thread-reply", "> earlier msg\n"}, {"forwarded", "Forwarded message:\n"}}
	var ks []b3Kind
	for _, l := range langs {
		for _, w := range where {
			ks = append(ks, b7t("chat", "b7-chat-"+l.name+"-"+w.name, "password in a "+l.name+" chat message ("+w.name+")", b7pw,
				w.pre+l.a, w.pre+l.b, w.pre+l.c))
		}
	}
	return ks
}

func b7Agent() []b3Kind {
	frames := []struct{ name, a, b, c string }{
		{"tool-call-json", "{\"name\":\"bash\",\"input\":\"{\\\"command\\\":\\\"curl -H 'Authorization: Bearer {S}' https://api.corp/v1\\\"}\"}",
			"{\"tool_use\":{\"name\":\"http\",\"arguments\":\"{\\\"token\\\":\\\"{S}\\\"}\"}}", "{\"function_call\":{\"name\":\"login\",\"arguments\":\"{\\\"password\\\":\\\"{S}\\\"}\"}}"},
		{"file-read", "● Read(.env.production)\n  ⎿  APP_KEY={S}\n     DEBUG=false", "<file path=\"config/secrets.yml\">\nprod:\n  key: {S}\n</file>", "cat ~/.netrc\nmachine api.corp login bot password {S}"},
		{"shell-output", "$ printenv | grep -i key\nSERVICE_KEY={S}", "⎿  export DEPLOY_TOKEN=\"{S}\"", "Output:\nToken created: {S}\nExpires in 30 days"},
		{"plan-step", "Plan:\n1. set API key {S} in .env\n2. run tests", "Next I'll authenticate with the token {S} and retry.", "TODO: replace hardcoded token {S} with env var"},
		{"memory-file", "# MEMORY.md\n- staging admin password: {S}", "## Notes for next session\nuse key {S} for the sandbox", "remember: deploy token is {S}"},
		{"diff-edit", "● Edit(app/config.ts)\n-  token: process.env.TOKEN,\n+  token: \"{S}\",", "@@ -3 +3 @@\n-API_KEY=\n+API_KEY={S}", "Update(settings.json)\n  \"apiKey\": \"{S}\""},
		{"search-result", "● Grep(\"secret\")\n  ⎿  src/dev.go:12: const devSecret = \"{S}\"", "found 1 match: lib/client.rb:4 TOKEN = '{S}'", "rg output:\nscripts/seed.sh:7:ADMIN_PW={S}"},
	}
	bodies := []struct {
		name string
		f    func(*gen) string
	}{
		{"token", b6token}, {"password", b7pw}, {"hex-key", func(g *gen) string { return g.s(hexlc, 48) }},
		{"jwt", b6jwt("HS256", func(g *gen) string { return `{"sub":"` + g.s(b6Dig, 6) + `","exp":1795000000}` })},
		{"uuid-key", func(g *gen) string { return b3uuid(g) + b3uuid(g)[:8] }},
		{"b64-key", func(g *gen) string { return g.b64(33) }},
		{"strong-password", b6strong},
		{"upper-token", func(g *gen) string { return g.s(b6UpD, 28) }},
	}
	var ks []b3Kind
	for _, f := range frames {
		for _, b := range bodies {
			ks = append(ks, b7t("agent", "b7-agent-"+f.name+"-"+b.name, b.name+" in an agent "+f.name, b.f, f.a, f.b, f.c))
		}
	}
	return ks
}

func b7Wrapped() []b3Kind {
	boxes := []struct{ name, a, b, c string }{
		{"insomnia-export", "{\"_type\":\"request\",\"headers\":[{\"name\":\"Authorization\",\"value\":\"Bearer {S}\"}]}", "{\"_type\":\"environment\",\"data\":{\"api_token\":\"{S}\"}}", "{\"authentication\":{\"type\":\"bearer\",\"token\":\"{S}\"}}"},
		{"bruno-file", "auth:bearer {\n  token: {S}\n}", "vars {\n  apiKey: {S}\n}", "headers {\n  x-api-key: {S}\n}"},
		{"devcontainer", "{\"containerEnv\":{\"API_TOKEN\":\"{S}\"}}", "{\"remoteEnv\":{\"DB_PASSWORD\":\"{S}\"}}", "\"runArgs\": [\"-e\", \"SECRET={S}\"]"},
		{"justfile", "deploy:\n    TOKEN={S} ./deploy.sh", "export API_KEY := \"{S}\"", "release:\n    curl -u ci:{S} https://nexus"},
		{"tiltfile", "k8s_yaml(secret_from_dict('app', inputs={'token': '{S}'}))", "local_resource('seed', 'PW={S} ./seed')", "os.putenv('APP_SECRET', '{S}')"},
		{"systemd-unit", "[Service]\nEnvironment=API_TOKEN={S}", "Environment=\"DB_PASS={S}\"", "ExecStart=/usr/bin/app --token {S}"},
		{"crontab", "0 3 * * * PGPASSWORD={S} pg_dump app > /bk/app.sql", "*/5 * * * * curl -s -H 'X-Token: {S}' http://local/ping", "@daily TOKEN={S} /opt/sync"},
		{"nginx-conf", "proxy_set_header Authorization \"Bearer {S}\";", "set $api_key \"{S}\";", "proxy_set_header X-Api-Key {S};"},
		{"supervisord", "[program:worker]\nenvironment=SECRET_KEY=\"{S}\"", "command=/app/run --password {S}", "environment=API_TOKEN={S},LOG=info"},
		{"jenkins-console", "[Pipeline] sh\n+ curl -H 'Authorization: token {S}' https://git", "+ docker login -u ci -p {S}", "Started by user admin\n+ export TOKEN={S}"},
		{"sql-result", " id | name  | api_key\n----+-------+---------\n  1 | acme  | {S}", "INSERT INTO creds VALUES (1, 'svc', '{S}');", "UPDATE users SET api_token='{S}' WHERE id=7;"},
		{"email-paste", "From: it@corp\nSubject: your account\n\nTemporary password: {S}", "Hi, your login is ops and the password is {S}", "-- forwarded --\nAccess key for the portal: {S}"},
		{"stack-trace", "AuthError: invalid credentials for user=svc password={S}\n  at login (auth.js:12)", "requests.exceptions.HTTPError: 401 for url: https://api/x?token={S}", "panic: dial: pq: password authentication failed (pass {S})"},
		{"toml-config", "[server]\ntoken = \"{S}\"", "[database]\npassword = '{S}'", "[[services]]\nkey = \"{S}\""},
		{"ini-registry", "[HKEY_LOCAL_MACHINE\\Software\\Acme]\n\"Password\"=\"{S}\"", "\"ApiKey\"=\"{S}\"", "[Settings]\nLicenseSecret={S}"},
	}
	bodies := []struct {
		name string
		f    func(*gen) string
	}{{"password", b7pw}, {"token", b6token}, {"long-hex", func(g *gen) string { return g.s(hexlc, 64) }}}
	var ks []b3Kind
	for _, b := range boxes {
		for _, x := range bodies {
			ks = append(ks, b7t("wrapped", "b7-"+b.name+"-"+x.name, x.name+" in "+b.name, x.f, b.a, b.b, b.c))
		}
	}
	return ks
}

func b7NoKeyword() []b3Kind {
	texts := [][3]string{
		{"use {S} for now", "try {S} and tell me", "it's {S} (case sensitive)"},
		{"{S} ← that's it", "log in with ops / {S}", "ops:{S}"},
		{"admin\n{S}", "user: ops\n{S}", "ops {S} 10.0.0.4"},
		{"the new one is {S}", "copy this: {S}", "{S} — don't lose it"},
		{"sorry wrong one, correct is {S}", "typo, it's {S} not the old", "updated: {S}"},
		{"for the NAS: {S}", "router → {S}", "printer web ui {S}"},
	}
	bodies := []struct {
		name string
		f    func(*gen) string
	}{{"strong", b6strong}, {"alnum", func(g *gen) string { return g.s(alnum, 20) }},
		{"words-digits", func(g *gen) string {
			return b6cap(g.pick(b6Words...)) + g.s(b6Dig, 4) + "!" + b6cap(g.pick(b6Words...))
		}},
		{"b64url", func(g *gen) string { return g.b64url(24) }}, {"mixed-sym", func(g *gen) string { return g.s(alnum+"!#%@^", 18) }}}
	var ks []b3Kind
	for i, t := range texts {
		for _, b := range bodies {
			ks = append(ks, b7t("nokeyword", fmt.Sprintf("b7-nokw-%d-%s", i+1, b.name), "secret with no key word", b.f, t[0], t[1], t[2]))
		}
	}
	return ks
}

func b7Providers() []b3Kind {
	ps := []struct {
		name, svc, env string
		body           func(*gen) string
	}{
		{"sevalla", "Sevalla", "SEVALLA_API_KEY", b6pre("sev_", alnum, 40)},
		{"zeabur", "Zeabur", "ZEABUR_TOKEN", b6pre("zbr_", b6LoD, 36)},
		{"koyeb", "Koyeb", "KOYEB_TOKEN", b6s(b6LoD, 64)},
		{"northflank", "Northflank", "NF_API_TOKEN", b6pre("nf-", alnum, 48)},
		{"porter", "Porter", "PORTER_TOKEN", b6jwt("HS256", func(g *gen) string { return `{"sub":"` + g.s(b6Dig, 5) + `"}` })},
		{"coolify", "Coolify", "COOLIFY_TOKEN", b6cat(b6s(b6Dig, 2), b6lit("|"), b6s(alnum, 40))},
		{"dokploy", "Dokploy", "DOKPLOY_API_KEY", b6s(alnum, 48)},
		{"unkey-root", "Unkey", "UNKEY_ROOT_KEY", b6pre("unkey_", alnum, 28)},
		{"trigger-dev", "Trigger.dev", "TRIGGER_SECRET_KEY", b6pre("tr_prod_", alnum, 20)},
		{"inngest-signing", "Inngest", "INNGEST_SIGNING_KEY", b6pre("signkey-prod-", hexlc, 64)},
		{"resend", "Resend", "RESEND_API_KEY", b6pre("re_", alnum+"_", 32)},
		{"loops", "Loops", "LOOPS_API_KEY", b6s(hexlc, 32)},
		{"plunk", "Plunk", "PLUNK_SECRET", b6pre("sk_", hexlc, 48)},
		{"knock", "Knock", "KNOCK_SECRET_API_KEY", b6pre("sk_", b64url, 40)},
		{"novu", "Novu", "NOVU_SECRET_KEY", b6s(hexlc, 32)},
		{"stytch", "Stytch", "STYTCH_SECRET", b6pre("secret-live-", b64url, 36)},
		{"descope", "Descope", "DESCOPE_MANAGEMENT_KEY", b6pre("K2", b6UpD, 46)},
		{"workos", "WorkOS", "WORKOS_API_KEY", b6pre("sk_live_", alnum, 40)},
		{"propelauth", "PropelAuth", "PROPELAUTH_API_KEY", b6s(hexlc, 96)},
		{"hanko", "Hanko", "HANKO_API_KEY", b6s(b64url, 44)},
		{"axiom", "Axiom", "AXIOM_TOKEN", b6cat(b6lit("xaat-"), b3uuid)},
		{"betterstack", "Better Stack", "LOGTAIL_SOURCE_TOKEN", b6s(alnum, 24)},
		{"highlight", "Highlight", "HIGHLIGHT_API_KEY", b6s(b6LoD, 32)},
		{"checkly", "Checkly", "CHECKLY_API_KEY", b6pre("cu_", hexlc, 32)},
		{"openstatus", "OpenStatus", "OPENSTATUS_KEY", b6pre("os_", alnum, 32)},
		{"tinybird", "Tinybird", "TB_TOKEN", b6cat(b6lit("p."), b6s(b64url, 150))},
		{"turso", "Turso", "TURSO_AUTH_TOKEN", b6jwt("EdDSA", func(g *gen) string { return `{"a":"rw","id":"` + b3uuid(g) + `"}` })},
		{"xata", "Xata", "XATA_API_KEY", b6pre("xau_", alnum, 40)},
		{"neon", "Neon", "NEON_API_KEY", b6pre("napi_", b6LoD, 64)},
		{"convex-deploy", "Convex", "CONVEX_DEPLOY_KEY", b6cat(b6lit("prod:"), b6s(b6Lo, 12), b6lit("|"), b6s(b64url, 60))},
		{"upstash-qstash", "QStash", "QSTASH_TOKEN", b6s(b64url+"=", 80)},
		{"modal", "Modal", "MODAL_TOKEN_SECRET", b6pre("as-", alnum, 22)},
		{"replicate", "Replicate", "REPLICATE_API_TOKEN", b6pre("r8_", alnum, 37)},
		{"together", "Together AI", "TOGETHER_API_KEY", b6s(hexlc, 64)},
		{"fireworks", "Fireworks", "FIREWORKS_API_KEY", b6pre("fw_", alnum, 24)},
		{"groq", "Groq", "GROQ_API_KEY", b6pre("gsk_", alnum, 52)},
		{"deepinfra", "DeepInfra", "DEEPINFRA_TOKEN", b6s(alnum, 32)},
		{"cerebras", "Cerebras", "CEREBRAS_API_KEY", b6pre("csk-", b6LoD, 48)},
		{"mistral", "Mistral", "MISTRAL_API_KEY", b6s(alnum, 32)},
		{"voyage", "Voyage AI", "VOYAGE_API_KEY", b6pre("pa-", b64url, 43)},
		{"jina", "Jina", "JINA_API_KEY", b6pre("jina_", hexlc+"ABCDEFGHIJ", 60)},
		{"exa", "Exa", "EXA_API_KEY", b3uuid},
		{"tavily", "Tavily", "TAVILY_API_KEY", b6pre("tvly-", alnum, 32)},
		{"firecrawl", "Firecrawl", "FIRECRAWL_API_KEY", b6pre("fc-", hexlc, 32)},
		{"browserbase", "Browserbase", "BROWSERBASE_API_KEY", b6pre("bb_live_", b64url, 27)},
		{"e2b", "E2B", "E2B_API_KEY", b6pre("e2b_", hexlc, 40)},
		{"langfuse", "Langfuse", "LANGFUSE_SECRET_KEY", b6cat(b6lit("sk-lf-"), b3uuid)},
		{"braintrust", "Braintrust", "BRAINTRUST_API_KEY", b6pre("sk-", alnum, 48)},
		{"helicone", "Helicone", "HELICONE_API_KEY", b6pre("sk-helicone-", b6LoD, 40)},
		{"portkey", "Portkey", "PORTKEY_API_KEY", b6s(alnum+"+/", 32)},
	}
	texts := []string{
		"● Bash(export {ENV}={S} && ./run.sh)\n  ⎿  ok",
		"{SVC} key for staging: {S}",
		"# .env.local\n{ENV}={S}",
	}
	var ks []b3Kind
	for _, p := range ps {
		r := strings.NewReplacer("{ENV}", p.env, "{SVC}", p.svc)
		var t []string
		for _, x := range texts {
			t = append(t, r.Replace(x))
		}
		ks = append(ks, b7t("provider", "b7-"+p.name+"-token", p.svc+" token (shape written here)", p.body, t...))
	}
	return ks
}

// blind7Negatives are risky-looking lines that hold no secret.
func blind7Negatives() []string {
	fields := []string{"ClientSecret", "ApiToken", "SigningKey", "DbPassword", "WebhookSecret", "RefreshToken", "PrivateKeyPath",
		"SmtpPassword", "LicenseKey", "SessionSecret", "MasterKeyRef", "VaultToken", "BindPassword", "EncryptionKeyID", "OauthSecret"}
	tmpls := []string{
		"%s: b7cfg.%s, // read from the keyring at start",
		"if b7opts.%s == \"\" { return errMissing%s }",
		"# %s is set by the operator; see runbook section 7 (%s)",
		"log.Printf(\"loaded %s (len=%%d)\", len(b7%s))",
		"%s = os.getenv(\"B7_%s\")",
		"<%s>${env.B7_%s}</%s>",
		"the %s field was renamed to %s in v7 of the schema",
	}
	var out []string
	for _, f := range fields {
		up := strings.ToUpper(f)
		for i, t := range tmpls {
			switch i {
			case 4:
				out = append(out, fmt.Sprintf(t, strings.ToLower(f), up))
			case 5:
				out = append(out, fmt.Sprintf(t, f, up, f))
			case 6:
				out = append(out, fmt.Sprintf(t, f, f+"V7"))
			default:
				out = append(out, fmt.Sprintf(t, f, f))
			}
		}
	}
	g := &gen{rand.New(rand.NewPCG(0xb7, blind7Seed))}
	for i := range 120 {
		out = append(out, fmt.Sprintf("sha256 of release b7-%d: %s", i, g.s(hexlc, 64)))
	}
	for i := range 30 {
		out = append(out, fmt.Sprintf("request id %s (trace %d)", b3uuid(g), i))
	}
	for i := range 30 {
		out = append(out, fmt.Sprintf("Merge commit %s into release/7.%d", g.s(hexlc, 40), i))
	}
	for _, w := range []string{"Passwörter", "contraseñas", "パスワード", "пароли", "mật khẩu", "kata sandi", "şifreler", "hasła", "סיסמאות", "گذرواژه‌ها"} {
		out = append(out, "Docs: never put "+w+" in chat; use the vault (blind7 note)")
		out = append(out, "Placeholder: password=<your "+w+" here> (blind7 example)")
	}
	return out
}

// b7CheckNegatives fails when a negative is in an earlier negatives file.
func b7CheckNegatives(dir string, negatives []string) error {
	old := map[string]bool{}
	for _, name := range []string{"blind-negatives.txt", "blind3-negatives.txt", "blind4-negatives.txt", "blind5-negatives.txt", "blind6-negatives.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(data), "\n") {
			old[strings.TrimSpace(l)] = true
		}
	}
	seen := map[string]bool{}
	for _, l := range negatives {
		if strings.ContainsAny(l, "\n\r") || old[strings.TrimSpace(l)] || seen[l] {
			return fmt.Errorf("blind7 negative %q not new or has a line break", l)
		}
		seen[l] = true
	}
	return nil
}

// writeBlind7 writes blind7.jsonl and blind7-negatives.txt, checked against every earlier corpus.
func writeBlind7(dir string) error {
	samples, negatives := generateBlind7(), blind7Negatives()
	if err := b7CheckNegatives(dir, negatives); err != nil {
		return err
	}
	if err := writeBlindCorpus(dir, "blind7", []string{"tune", "heldout", "fresh", "blind", "blind2", "blind3", "blind4", "blind5", "blind6"},
		append(kindNames(kinds(), freshKinds(), blindKinds(), blind2Kinds()), b3KindNames(append(append(append(blind3Kinds(), blind4Kinds()...), blind5Kinds()...), blind6Kinds()...))...), samples, negatives); err != nil {
		return err
	}
	b6Summary(samples)
	return nil
}
