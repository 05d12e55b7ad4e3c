package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The blind corpus (core/redact/testdata/public/blind.jsonl): a fourth held-out corpus, of kinds
// that are in none of tune.jsonl, heldout.jsonl and fresh.jsonl, written without reading
// core/redact at all and without measuring the detector on it while it was written. Its kinds are
// what people paste into chats, tickets, agent transcripts and config files: passwords, PINs,
// keys and recovery codes said in sentences in 33 languages and in casual chat; provider keys of
// less famous services by the prefix, length and alphabet their documentation gives (with no
// prefix, next to the provider's name or variable); key material of other tools; session tokens,
// signed URLs and TOTP seeds; secrets encoded, escaped or split; config files of many tools;
// command lines; and secrets in log lines, stack traces, links and dumps. Every body is random.
//
// blind-negatives.txt, written by the same run, is its companion: ordinary lines that look risky
// (placeholders, variable references, checksums, ids, sentences about passwords) and hold no
// secret.

// blindSeed is the second word of every blind kind's random source (the first is a hash of the
// kind's name), other than those of -gen and -gen-fresh.
const blindSeed = 424242

const (
	blB62   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	blLow36 = "abcdefghijklmnopqrstuvwxyz0123456789"
	blUp36  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	blHex   = "0123456789abcdef"
	blHexUp = "0123456789ABCDEF"
	blB64U  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	blB32   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	blB32L  = "abcdefghijklmnopqrstuvwxyz234567"
	blDig   = "0123456789"
	blBech  = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// --- secrets ---

var blWords = []string{"correct", "horse", "battery", "staple", "falcon", "willow", "granite", "pepper", "lantern",
	"harbor", "violet", "cactus", "nebula", "otter", "tiger", "marble", "copper", "summit", "river", "velvet",
	"quartz", "bamboo", "crimson", "meadow", "ember", "walnut", "zephyr", "anchor", "saturn", "puzzle"}

func (g *gen) blWord() string { return blWords[g.rng.IntN(len(blWords))] }

func blTitle(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func blLeet(s string) string {
	return strings.NewReplacer("o", "0", "a", "4", "e", "3", "i", "1").Replace(s)
}

// blPw is a strong password of the shapes people pick: a word with digits swapped in and symbols
// (Tr0ub4dor&3x!), a season and a year (Summer2026!Dx), words joined by dashes with a digit
// (correcthorse-battery-9), a pet's name and a year, a keyboard-ish run, or a manager's random
// string. It holds no quote, backslash, back-quote, space, '%', ';', ',', '<', '>', '|', '{' or
// '}', so it stands as it is in the texts below, quoted or not.
func (g *gen) blPw() string {
	sym := func() string { return g.pick("!", "#", "$", "&", "*", "?", "@", "+", "=", "^", "~", ".", "-", "_") }
	switch g.rng.IntN(8) {
	case 0:
		return blTitle(blLeet(g.blWord()+g.blWord())) + sym() + g.s(blDig, 1) + g.s("abcdefghijkmnpqrstuvwxyz", 2) + sym()
	case 1:
		return g.pick("Summer", "Winter", "Autumn", "Spring", "Janvier", "Sommer", "Verano", "Inverno") +
			g.pick("2024", "2025", "2026", "2027") + sym() + g.s("ABCDEFGHJKLMNPQRSTUVWXYZ", 1) + g.s("abcdefghijkmnpqrstuvwxyz", 1) + g.s(blDig, 1)
	case 2:
		return g.blWord() + g.blWord() + "-" + g.blWord() + "-" + g.s(blDig, 1+g.rng.IntN(2))
	case 3:
		return blTitle(g.blWord()) + g.pick("@", "#", "!") + g.pick("1987", "1991", "1999", "2003", "2011") + g.pick("#", "!", "$") + g.s(blB62, 2)
	case 4:
		return g.s("ABCDEFGHJKLMNPQRSTUVWXYZ", 1) + g.s("abcdefghijkmnpqrstuvwxyz23456789", 7) + sym() + g.s(blDig, 2) + g.s(blB62, 3)
	case 5:
		return blTitle(g.blWord()) + "." + blTitle(g.blWord()) + "." + g.s(blDig, 3) + sym()
	case 6:
		return g.s(blB62+"!#$&*+-.=?@^_~", 16+g.rng.IntN(9))
	default:
		return g.s("abcdefghijkmnpqrstuvwxyz", 1) + g.s(blB62, 5) + "-" + g.s(blB62, 6) + "-" + g.s(blB62, 6)
	}
}

// blUpw is a password that stands in a URL's userinfo or a key=value list as it is.
func (g *gen) blUpw() string {
	switch g.rng.IntN(3) {
	case 0:
		return blTitle(g.blWord()) + g.s(blDig, 4) + g.pick("-", "_", ".", "~") + g.s(blB62, 5)
	case 1:
		return g.s(blB62, 20+g.rng.IntN(8))
	default:
		return g.blWord() + "-" + g.blWord() + "-" + g.s(blB62, 6)
	}
}

// blShpw is a password that stands unquoted in a shell command line.
func (g *gen) blShpw() string {
	switch g.rng.IntN(3) {
	case 0:
		return blTitle(blLeet(g.blWord())) + g.s(blDig, 3) + g.pick("_", "-", ".", "+", "@") + g.s(blB62, 4)
	case 1:
		return g.s(blB62, 14+g.rng.IntN(8))
	default:
		return blTitle(g.blWord()) + g.pick("_", "-", ".") + blTitle(g.blWord()) + g.s(blDig, 2)
	}
}

// blPhrase is a passphrase with spaces, as password managers and people make them.
func (g *gen) blPhrase() string {
	return g.blWord() + " " + g.blWord() + " " + g.blWord() + " " + g.blWord() + " " + g.s(blDig, 2)
}

func (g *gen) blUUID() string {
	h := g.s(blHex, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + g.pick("8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

func (g *gen) blB64(n int) string  { return base64.StdEncoding.EncodeToString(g.bytes(n)) }
func (g *gen) blB64u(n int) string { return base64.RawURLEncoding.EncodeToString(g.bytes(n)) }

// blKey is an opaque API key of no documented shape: 32 or 40 hex, or 24 to 48 base62.
func (g *gen) blKey() string {
	switch g.rng.IntN(3) {
	case 0:
		return g.s(blHex, 32+8*g.rng.IntN(2))
	default:
		return g.s(blB62, 24+g.rng.IntN(25))
	}
}

// blRecovery is one recovery code of a common shape: xxxxx-xxxxx, XXXX-XXXX-XXXX or 8+4 digits.
func (g *gen) blRecovery() string {
	switch g.rng.IntN(3) {
	case 0:
		return g.s("abcdefghijkmnpqrstuvwxyz0123456789", 5) + "-" + g.s("abcdefghijkmnpqrstuvwxyz0123456789", 5)
	case 1:
		return g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 4) + "-" + g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 4) + "-" + g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 4)
	default:
		return g.s(blDig, 4) + "-" + g.s(blDig, 4) + "-" + g.s(blDig, 4)
	}
}

// blAnySecret is what a sentence says: a password (most often), a passphrase, an API key, a PUK or
// long PIN, a recovery code or a Wi-Fi key.
func (g *gen) blAnySecret() string {
	switch g.rng.IntN(10) {
	case 0:
		return g.blKey()
	case 1:
		return g.blRecovery()
	case 2:
		return g.s(blDig, 8)
	default:
		return g.blPw()
	}
}

// --- texts ---

// blFill writes a text: {S} is the secret, the other marks are ordinary values.
func (g *gen) blFill(t, secret string) string {
	user := g.pick("alice", "bob", "jdoe", "admin", "deploy", "svc_backup", "mkowalski", "tanaka", "li.wei", "oracle")
	host := g.pick("db01.internal", "10.0.3.17", "pg-prod.cluster.local", "staging.example.com", "192.168.1.20", "nas.lan", "api.acme.io", "mq.example.net")
	r := strings.NewReplacer("{S}", secret, "{U}", user, "{H}", host,
		"{E}", user+"@"+g.pick("example.com", "acme.io", "corp.example.org"),
		"{D}", fmt.Sprintf("2026-%02d-%02d", 1+g.rng.IntN(12), 1+g.rng.IntN(28)),
		"{T}", fmt.Sprintf("%02d:%02d:%02d", g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60)),
		"{N}", fmt.Sprint(1000+g.rng.IntN(9000)),
		"{APP}", g.pick("billing", "checkout", "orders", "reporting", "crm", "wiki", "ledger"))
	return r.Replace(t)
}

// blJSONSafe says whether a text can be put in a JSON or YAML string as it is.
func blJSONSafe(s string) bool { return !strings.ContainsAny(s, "\"\\\n\t<>&") }

// blPlace puts a text where people write it: as it is, quoted in Markdown, in a code fence, after
// a chat handle or an emoji, in a log line, in parentheses, in a JSON or YAML message field.
func (g *gen) blPlace(group, text string) string {
	oneLine := !strings.Contains(text, "\n")
	switch group {
	case "sentence", "fields", "token", "provider", "encoded":
		switch g.rng.IntN(14) {
		case 0:
			return "> " + strings.ReplaceAll(text, "\n", "\n> ")
		case 1:
			return g.pick("@sam ", "@here ", "@ops-oncall ", "<@U04AB12CD> ") + text
		case 2:
			return g.pick("🔑 ", "👉 ", "⚠️ ", "✅ ", "🙏 ") + text
		case 3:
			if oneLine {
				return "[" + g.blFill("{D} {T}", "") + "] " + g.pick("alice", "bob", "Kenji", "María") + ": " + text
			}
		case 4:
			if oneLine {
				return "(" + text + ")"
			}
		case 5:
			if oneLine && blJSONSafe(text) {
				return `{"channel": "#` + g.pick("ops", "dev", "support", "infra") + `", "text": "` + text + `"}`
			}
		case 6:
			if oneLine && blJSONSafe(text) {
				return "- comment: \"" + text + "\"\n  author: " + g.pick("alice", "bob", "chen")
			}
		case 7:
			return text + g.pick(" 🙂", " thx!", "\n\nthanks", " — will rotate after the demo", " 👍")
		case 8:
			return g.pick("Ticket #", "INC-", "SUP-") + fmt.Sprint(1000+g.rng.IntN(90000)) + "\n\n" + text
		case 9:
			return g.pick("User: ", "Human: ", "user> ") + text
		}
	case "config", "keymaterial":
		switch g.rng.IntN(7) {
		case 0:
			return "```\n" + text + "\n```"
		case 1:
			return g.pick("here's my config:\n\n", "this is what I have, it still fails:\n", "current file below\n---\n", "Contents of the file:\n") + text
		case 2:
			return text + g.pick("\n\nany idea why it does not load?", "\n\n(copied from the prod box)", "\n")
		}
	case "command":
		switch g.rng.IntN(8) {
		case 0:
			return "$ " + text
		case 1:
			return g.pick("root@", "ubuntu@", "deploy@") + g.pick("web-1", "ip-10-0-1-23", "bastion") + ":~# " + text
		case 2:
			return "```bash\n" + text + "\n```"
		case 3:
			if oneLine && !strings.Contains(text, "`") {
				return g.pick("I ran `", "tried `", "running `") + text + g.pick("` and it hangs", "` but got access denied", "` — works now")
			}
		case 4:
			if strings.ContainsAny(text, "\\$") || strings.Contains(text, ".exe") || strings.Contains(text, "Invoke-") {
				return "PS C:\\Users\\" + g.pick("admin", "jdoe", "build") + "> " + text
			}
		}
	}
	return text
}

// blPut places a text and keeps it as it was when the placing would change the secret (a
// Markdown quote of a secret of several lines).
func (g *gen) blPut(group, text, secret string) string {
	if placed := g.blPlace(group, text); strings.Contains(placed, secret) {
		return placed
	}
	return text
}

// bk is a blind kind whose secret is made by secret and put in one of texts ({S} marks it).
func bk(group, name, format string, secret func(g *gen) string, texts ...string) kindGen {
	return kindGen{group, name, format, func(g *gen) (string, string) {
		s := secret(g)
		return g.blPut(group, g.blFill(texts[g.rng.IntN(len(texts))], s), s), s
	}}
}

// bkm is a blind kind that writes its own text and secret.
func bkm(group, name, format string, mk func(g *gen) (string, string)) kindGen {
	return kindGen{group, name, format, func(g *gen) (string, string) {
		text, s := mk(g)
		return g.blPut(group, g.blFill(text, s), s), s
	}}
}

func blHexS(n int) func(g *gen) string  { return func(g *gen) string { return g.s(blHex, n) } }
func blAlnum(n int) func(g *gen) string { return func(g *gen) string { return g.s(blB62, n) } }
func blPre(p, alpha string, n int) func(g *gen) string {
	return func(g *gen) string { return p + g.s(alpha, n) }
}

// --- sentences ---

func blindSentences() []kindGen {
	langs := []struct {
		code  string
		texts []string
	}{
		{"ja", []string{"お疲れ様です。検証環境の管理者パスワードは {S} です。", "初期パスワード：{S}（初回ログイン後に変更してください）", "APIキー発行しました。{S} をヘッダーに入れてください", "会議室のWi-Fiパスワードは「{S}」です", "2段階認証のリカバリーコード {S} を控えておいてください", "{U}さん、VPNのパスワードを {S} にリセットしました"}},
		{"zh-hans", []string{"测试环境数据库密码是 {S}，用完记得改一下", "【重要】生产服务器root密码：{S}", "API 密钥：{S}（请勿外传）", "公司WiFi密码：{S}", "我把后台管理员密码重置成 {S} 了", "令牌给你：{S}，明天过期"}},
		{"zh-hant", []string{"測試機的登入密碼是 {S}，請勿外流", "VPN 帳號 {U}，密碼 {S}", "API 金鑰已更新為 {S}", "辦公室 Wi-Fi 密碼：{S}", "備援碼：{S}（每組只能用一次）"}},
		{"ko", []string{"서버 접속 비밀번호는 {S} 입니다", "관리자 계정: admin / 비밀번호: {S}", "API 키 공유드립니다: {S}", "와이파이 비번 {S} 이에요", "복구 코드 {S} 꼭 보관하세요", "초기 비밀번호를 {S} 으로 설정했습니다"}},
		{"es", []string{"La contraseña del servidor de pruebas es {S}", "Te paso las credenciales: usuario {U}, clave {S}", "La clave de la API es {S}, no la subas al repo", "contraseña del wifi: {S}", "Cambié la contraseña a {S}, avísame si no funciona", "código de recuperación: {S}"}},
		{"fr", []string{"Le mot de passe du compte admin est {S}", "Identifiants : {U} / {S}", "Voici la clé d'API : {S} (ne la partage pas)", "mdp wifi : {S}", "J'ai changé le mot de passe en {S} ce matin", "Code de récupération : {S}"}},
		{"de", []string{"Das Passwort für den Testserver lautet {S}", "Zugangsdaten: Benutzer {U}, Kennwort {S}", "Der API-Schlüssel ist {S}, bitte nicht weitergeben", "WLAN-Schlüssel: {S}", "Ich habe das Passwort auf {S} geändert", "Wiederherstellungscode: {S}"}},
		{"pt-br", []string{"A senha do banco é {S}", "Segue o acesso: usuário {U} e senha {S}", "chave da API: {S}, não compartilha por favor", "a senha do wi-fi é {S}", "troquei a senha pra {S}, vê se entra", "Código de recuperação: {S}"}},
		{"pt-pt", []string{"A palavra-passe do servidor é {S}", "Credenciais: utilizador {U}, palavra-passe {S}", "A chave da API é {S}, não a partilhes", "palavra-passe da rede wi-fi: {S}", "Alterei a palavra-passe para {S}"}},
		{"ru", []string{"Пароль от тестового сервера: {S}", "Доступы: логин {U}, пароль {S}", "API-ключ: {S}, никому не передавай", "пароль от вайфая {S}", "Сменил пароль на {S}, проверь", "Код восстановления: {S}"}},
		{"it", []string{"La password del server di test è {S}", "Credenziali: utente {U}, password {S}", "La chiave API è {S}, non condividerla", "password del wifi: {S}", "Ho reimpostato la password a {S}"}},
		{"nl", []string{"Het wachtwoord van de testomgeving is {S}", "Inloggegevens: gebruiker {U}, wachtwoord {S}", "De API-sleutel is {S}, niet doorsturen aub", "wifi-wachtwoord: {S}", "Ik heb het wachtwoord veranderd in {S}", "herstelcode: {S}"}},
		{"pl", []string{"Hasło do serwera testowego to {S}", "Dane logowania: login {U}, hasło {S}", "Klucz API: {S}, nie udostępniaj dalej", "hasło do wifi: {S}", "Zmieniłem hasło na {S}, sprawdź czy działa", "Kod odzyskiwania: {S}"}},
		{"tr", []string{"Test sunucusunun şifresi {S}", "Giriş bilgileri: kullanıcı {U}, parola {S}", "API anahtarı {S}, kimseyle paylaşma lütfen", "wifi şifresi: {S}", "Şifreyi {S} olarak değiştirdim", "Kurtarma kodu: {S}"}},
		{"vi", []string{"Mật khẩu server test là {S}", "Tài khoản: {U}, mật khẩu: {S}", "API key đây: {S}, đừng share nhé", "pass wifi: {S}", "Em đã đổi mật khẩu thành {S}", "Mã khôi phục: {S}"}},
		{"id", []string{"Password server testing: {S}", "Akses login: user {U}, kata sandi {S}", "API key-nya {S}, jangan disebar ya", "password wifi kantor {S}", "Kata sandi sudah saya ganti jadi {S}", "Kode pemulihan: {S}"}},
		{"ar", []string{"كلمة المرور لخادم الاختبار هي {S}", "بيانات الدخول: المستخدم {U} وكلمة السر {S}", "مفتاح API هو {S}، لا تشاركه مع أحد", "كلمة سر الواي فاي: {S}", "غيّرت كلمة المرور إلى {S}", "رمز الاسترداد: {S}"}},
		{"hi", []string{"टेस्ट सर्वर का पासवर्ड {S} है", "लॉगिन: यूज़र {U}, पासवर्ड {S}", "API की: {S}, किसी के साथ शेयर मत करना", "वाईफाई पासवर्ड {S} है", "मैंने पासवर्ड बदलकर {S} कर दिया है", "रिकवरी कोड: {S}"}},
		{"uk", []string{"Пароль до тестового сервера: {S}", "Доступи: логін {U}, пароль {S}", "API-ключ {S}, нікому не передавай", "пароль від wifi {S}", "Змінив пароль на {S}", "Код відновлення: {S}"}},
		{"sv", []string{"Lösenordet till testservern är {S}", "Inloggning: användare {U}, lösenord {S}", "API-nyckeln är {S}, dela den inte", "wifi-lösenord: {S}", "Jag bytte lösenordet till {S}", "Återställningskod: {S}"}},
		{"no", []string{"Passordet til testserveren er {S}", "Innlogging: bruker {U}, passord {S}", "API-nøkkelen er {S}, ikke del den", "wifi-passord: {S}", "Jeg endret passordet til {S}", "Gjenopprettingskode: {S}"}},
		{"da", []string{"Adgangskoden til testserveren er {S}", "Login: bruger {U}, kodeord {S}", "API-nøglen er {S}, del den ikke", "wifi-kode: {S}", "Jeg har ændret adgangskoden til {S}", "Gendannelseskode: {S}"}},
		{"fi", []string{"Testipalvelimen salasana on {S}", "Tunnukset: käyttäjä {U}, salasana {S}", "API-avain on {S}, älä jaa sitä", "wifin salasana: {S}", "Vaihdoin salasanaksi {S}", "Palautuskoodi: {S}"}},
		{"el", []string{"Ο κωδικός του δοκιμαστικού server είναι {S}", "Στοιχεία σύνδεσης: χρήστης {U}, κωδικός {S}", "Το κλειδί API είναι {S}, μην το μοιραστείς", "κωδικός wifi: {S}", "Άλλαξα τον κωδικό πρόσβασης σε {S}", "Κωδικός ανάκτησης: {S}"}},
		{"cs", []string{"Heslo k testovacímu serveru je {S}", "Přihlašovací údaje: uživatel {U}, heslo {S}", "API klíč je {S}, nikomu ho neposílej", "heslo na wifi: {S}", "Změnil jsem heslo na {S}", "Obnovovací kód: {S}"}},
		{"hu", []string{"A tesztszerver jelszava {S}", "Belépés: felhasználó {U}, jelszó {S}", "Az API kulcs {S}, ne oszd meg senkivel", "wifi jelszó: {S}", "Megváltoztattam a jelszót erre: {S}", "Helyreállítási kód: {S}"}},
		{"ro", []string{"Parola serverului de test este {S}", "Date de autentificare: utilizator {U}, parolă {S}", "Cheia API este {S}, nu o trimite nimănui", "parola de la wifi: {S}", "Am schimbat parola în {S}", "Cod de recuperare: {S}"}},
		{"th", []string{"รหัสผ่านเซิร์ฟเวอร์ทดสอบคือ {S}", "ข้อมูลเข้าระบบ: ผู้ใช้ {U} รหัสผ่าน {S}", "คีย์ API คือ {S} อย่าแชร์ให้ใครนะ", "รหัสwifiคือ{S}", "เปลี่ยนรหัสผ่านเป็น {S} แล้วครับ", "รหัสกู้คืน: {S}"}},
		{"he", []string{"הסיסמה לשרת הבדיקות היא {S}", "פרטי התחברות: משתמש {U}, סיסמה {S}", "מפתח ה-API הוא {S}, אל תשתף אותו", "סיסמת וויפיי: {S}", "שיניתי את הסיסמה ל-{S}", "קוד שחזור: {S}"}},
		{"fa", []string{"رمز عبور سرور تست {S} است", "اطلاعات ورود: کاربر {U}، رمز {S}", "کلید API این است: {S}، با کسی به اشتراک نگذار", "رمز وای‌فای: {S}", "رمز عبور را به {S} تغییر دادم", "کد بازیابی: {S}"}},
		{"ms", []string{"Kata laluan pelayan ujian ialah {S}", "Maklumat log masuk: pengguna {U}, kata laluan {S}", "Kunci API ialah {S}, jangan kongsi", "kata laluan wifi: {S}", "Saya dah tukar kata laluan kepada {S}", "Kod pemulihan: {S}"}},
		{"tl", []string{"Ang password ng test server ay {S}", "Login: user {U}, password {S}", "Eto yung API key: {S}, wag mong ishare ha", "password ng wifi: {S}", "Pinalitan ko na yung password, {S} na siya ngayon", "Recovery code: {S}"}},
		{"bn", []string{"টেস্ট সার্ভারের পাসওয়ার্ড হলো {S}", "লগইন: ইউজার {U}, পাসওয়ার্ড {S}", "API কী: {S}, কারো সাথে শেয়ার করো না", "ওয়াইফাই পাসওয়ার্ড {S}", "পাসওয়ার্ড বদলে {S} করেছি", "রিকভারি কোড: {S}"}},
	}
	var out []kindGen
	// Every language's third text names an API key; its recovery-code text is the sixth, or the
	// fifth in Japanese, Korean and Traditional Chinese (Italian and European Portuguese have none,
	// Simplified Chinese's sixth is a token). The other texts name a password.
	recovery := map[string]int{"ja": 4, "ko": 4, "zh-hant": 4, "zh-hans": -1, "it": -1, "pt-pt": -1}
	for _, l := range langs {
		texts, rec := l.texts, 5
		if r, ok := recovery[l.code]; ok {
			rec = r
		}
		out = append(out, bkm("sentence", l.code+"-credentials", "a password, API key or recovery code said in a sentence", func(g *gen) (string, string) {
			i := g.rng.IntN(len(texts))
			switch {
			case i == 2 || (l.code == "zh-hans" && i == 5):
				return texts[i], g.blKey()
			case i == rec:
				return texts[i], g.blRecovery()
			}
			return texts[i], g.blPw()
		}))
	}
	pw := (*gen).blPw
	out = append(out,
		bk("sentence", "ru-cyrillic-password", "a password of Cyrillic letters said in Russian", func(g *gen) string {
			return g.pick("Медведь", "Сибирь", "Ласточка", "Зима", "Берёза") + g.s(blDig, 4) + g.pick("!", "#", "$", "?") + g.pick("Кот", "Лес", "Ёж", "Мир")
		}, "пароль: {S}", "Новый пароль — {S}, раскладку не перепутай", "вход на сервер: {U} / {S}", "пароль от почты {S}"),
		bk("sentence", "de-umlaut-password", "a password with umlauts said in German", func(g *gen) string {
			return g.pick("Bärenhöhle", "Grüße", "Straßenbahn", "Mädchen", "Frühling") + g.s(blDig, 3) + g.pick("!", "#", "?", "&") + g.pick("Öl", "Üx", "Äpfel")
		}, "Passwort: {S}", "Das neue Kennwort ist {S} (mit Umlauten!)", "Zugang {U} / {S}", "WLAN-Passwort lautet {S}"),
		bk("sentence", "pl-diacritic-password", "a password with Polish letters said in Polish", func(g *gen) string {
			return g.pick("Żółw", "Gęśla", "Źdźbło", "Łąka", "Jeż") + g.pick("_", "-", ".") + g.s(blDig, 4) + g.pick("!", "#", "?") + g.pick("Ćma", "Sól", "Łoś")
		}, "hasło: {S}", "Nowe hasło to {S}, uważaj na polskie znaki", "login {U}, hasło {S}"),
		bk("sentence", "ja-fullwidth-nospace", "a password in Japanese with full-width punctuation and no spaces", pw,
			"パスワード：{S}（社外秘）", "【共有】本番ＤＢのパスは「{S}」です。", "ＩＤ：admin　ＰＷ：{S}", "ログイン情報→ユーザー名：{U}、パスワード：{S}。", "パスは{S}です。よろしくお願いします"),
		bk("sentence", "zh-hans-fullwidth-nospace", "a password in Simplified Chinese with full-width punctuation and no spaces", pw,
			"账号：{U}，密码：{S}。", "服务器密码“{S}”，别外传！", "（密码：{S}）", "密钥【{S}】已经更新", "登录密码为{S}，请尽快修改"),
		bk("sentence", "zh-hant-fullwidth-nospace", "a password in Traditional Chinese with full-width punctuation and no spaces", pw,
			"帳號：{U}；密碼：{S}。", "密碼「{S}」請保密！", "（金鑰：{S}）", "新密碼是{S}喔"),
		bk("sentence", "ko-particle-attached", "a password in Korean with the particle written against it", pw,
			"비밀번호는{S}입니다", "비번은 {S}이고 아이디는 {U}예요", "{S}로 로그인하세요", "관리자 암호: {S}(변경 필요)"),
		bk("sentence", "ja-particle-attached", "a password in Japanese with the particle written against it", pw,
			"パスは{S}です", "{S}で入れます", "キーは{S}なので、よろしく", "管理画面は{U}／{S}でログイン"),
		bk("sentence", "en-pw-is", "a password after 'pw'", pw, "pw is {S}", "pw: {S}", "the pw is {S} btw", "PW = {S}", "user {U} pw {S}"),
		bk("sentence", "en-use-as-pass", "a password someone is told to use", pw, "use {S} as the pass", "just use {S} as password for now", "put {S} in as the password", "try {S} as the passphrase, that's what IT set"),
		bk("sentence", "en-creds-slash", "a user and password joined by a slash or colon", pw, "creds: {U} / {S}", "login {U}/{S}", "{U} / {S} (staging)", "creds are {U}:{S}", "Credentials — {U} / {S}"),
		bk("sentence", "en-wifi-key", "a Wi-Fi key said in a sentence", pw, "the wifi key is {S}", "Guest wifi: AcmeGuest / {S}", "WiFi: SSID Office-5G, key {S}", "wifi pass for the offsite is {S}"),
		bk("sentence", "en-login-admin-pass", "'login admin pass …' as people write it", pw, "login admin pass {S}", "login: admin pass: {S}", "admin/{S} on the router", "login admin, pass {S}, port 8443"),
		bk("sentence", "en-new-password-arrow", "a new password after an arrow", pw, "new password → {S}", "new pw -> {S}", "old one expired → new: {S}", "password ⇒ {S}"),
		bk("sentence", "en-password-changed-to", "'password changed to …'", pw, "password changed to {S}", "I changed the password to {S} yesterday", "Changed root pw to {S}, update the vault entry", "password has been changed to {S} for {U}"),
		bk("sentence", "en-dont-share", "a secret followed by a plea not to share it", (*gen).blAnySecret, "it's {S}, don't share", "{S} — please don't share this one", "here: {S} (don't forward)", "it's {S} but keep it between us"),
		bk("sentence", "en-helpdesk-reset", "a helpdesk message with a temporary password", pw, "Hi {U}, I've reset your password to {S}. You'll be asked to change it at first login.", "Your temporary password is: {S}", "Temp password: {S} (expires in 24h)", "As requested, the new password for {E} is {S}"),
		bk("sentence", "en-onboarding-email", "an onboarding e-mail with a first password", pw, "Welcome aboard!\n\nUsername: {U}\nTemporary password: {S}\nPortal: https://portal.acme.io", "Your account has been created.\nLogin: {E}\nPassword: {S}\n\nPlease change it within 7 days.", "Hi {U},\nyour Jira login is {E} and the initial password is {S}\nCheers, IT"),
		bk("sentence", "en-passphrase-spaces", "a passphrase of words with spaces", (*gen).blPhrase, "the passphrase is \"{S}\"", "passphrase: {S}", "unlock phrase is '{S}'", "use the phrase {S} to decrypt the backup"),
		bk("sentence", "en-recovery-code", "one recovery code said in a sentence", (*gen).blRecovery, "my backup code is {S}", "here's one of the recovery codes: {S}", "use recovery code {S} if the authenticator is gone", "2FA backup: {S}"),
		bk("sentence", "en-puk-code", "an 8-digit SIM PUK or long PIN", func(g *gen) string { return g.s(blDig, 8) }, "the PUK for the work SIM is {S}", "PUK: {S}", "SIM locked, puk code is {S}", "alarm code for the server room is {S}", "phone passcode is {S}, it's the test device"),
		bk("sentence", "en-api-key-chat", "an opaque API key said in chat", (*gen).blKey, "here's the api key {S}", "api key for the {APP} service: {S}", "key is {S}, scoped to read only", "can you try with this key? {S}"),
		bk("sentence", "en-token-chat", "an opaque token said in chat", func(g *gen) string { return g.s(blB64U, 32+g.rng.IntN(24)) }, "token: {S}", "the token's {S} — expires friday", "I generated a new access token {S}, swap it in", "use this bearer {S}"),
		bk("sentence", "en-agent-transcript", "a password in an agent's transcript", pw, "Assistant: I've set the database password to {S} in the .env file.", "I'll log in with the password {S} you gave me and run the migration.", "Tool output: created user {U} with password {S}", "> Running: login --user {U}\n< Password accepted ({S})"),
		bk("sentence", "en-spoiler-tags", "a password in Discord spoiler bars", pw, "pass is ||{S}||", "||{S}|| <- wifi", "server pw: ||{S}|| (click to reveal)"),
		bk("sentence", "typographic-quotes", "a password in curly quotes or guillemets", pw, "password “{S}”", "the key is ‘{S}’", "mot de passe « {S} »", "Passwort „{S}“", "пароль «{S}»"),
	)
	return out
}

// --- providers ---

// bp is a provider's key: its body, the variable people keep it in, the provider's name as people
// write it, and texts of its own; the generic texts name the variable or the provider.
func bp(name, format string, body func(g *gen) string, env, label string, texts ...string) kindGen {
	lower := strings.ToLower(env)
	generic := []string{
		env + "={S}",
		"export " + env + "='{S}'",
		"docker run -d -e " + env + "={S} {APP}:latest",
		"        - name: " + env + "\n          value: \"{S}\"",
		env + ": {S}",
		"os.environ.setdefault(\"" + env + "\", \"{S}\")",
		"here is the " + label + " key: {S}",
		label + " key for prod is {S}, please rotate it after the migration",
		"{\n  \"" + lower + "\": \"{S}\"\n}",
		"const " + lower + " = process.env." + env + " || \"{S}\";",
	}
	return kindGen{"provider", name, format, func(g *gen) (string, string) {
		s := body(g)
		var t string
		if len(texts) > 0 && g.rng.IntN(2) == 0 {
			t = texts[g.rng.IntN(len(texts))]
		} else {
			t = generic[g.rng.IntN(len(generic))]
		}
		return g.blPut("provider", g.blFill(t, s), s), s
	}}
}

func blindProviders() []kindGen {
	uuid := (*gen).blUUID
	return []kindGen{
		bp("postmark-server-token", "a UUID next to 'postmark' (X-Postmark-Server-Token)", uuid, "POSTMARK_SERVER_TOKEN", "Postmark",
			"curl https://api.postmarkapp.com/email -H \"X-Postmark-Server-Token: {S}\" -d @mail.json", "config.action_mailer.postmark_settings = { api_token: \"{S}\" }"),
		bp("sparkpost-api-key", "40 hex next to 'sparkpost'", blHexS(40), "SPARKPOST_API_KEY", "SparkPost",
			"curl -H \"Authorization: {S}\" https://api.sparkpost.com/api/v1/transmissions"),
		bp("mandrill-api-key", "22 base64url characters next to 'mandrill'", func(g *gen) string { return g.s(blB64U, 22) }, "MANDRILL_APIKEY", "Mandrill",
			"mandrill_client = mandrill.Mandrill('{S}')", "{\"key\": \"{S}\", \"message\": {\"to\": [{\"email\": \"{E}\"}]}}"),
		bp("mailjet-secret-key", "32 hex, Mailjet's API secret key", blHexS(32), "MJ_APIKEY_PRIVATE", "Mailjet",
			"curl -u \""+"3f1c9e0a7b2d4c6e8f0a1b2c3d4e5f60"+":{S}\" https://api.mailjet.com/v3.1/send"),
		bp("pagerduty-rest-key", "'u+' and 18 characters (PagerDuty user API key)", func(g *gen) string { return "u+" + g.s(blB64U, 18) }, "PAGERDUTY_TOKEN", "PagerDuty",
			"curl -H \"Authorization: Token token={S}\" https://api.pagerduty.com/incidents"),
		bp("opsgenie-api-key", "a UUID after 'GenieKey'", uuid, "OPSGENIE_API_KEY", "Opsgenie",
			"curl -X POST https://api.opsgenie.com/v2/alerts -H \"Authorization: GenieKey {S}\""),
		bp("honeycomb-api-key", "22 base62 or 32 hex next to 'honeycomb'", func(g *gen) string {
			if g.rng.IntN(2) == 0 {
				return g.s(blB62, 22)
			}
			return g.s(blHex, 32)
		}, "HONEYCOMB_API_KEY", "Honeycomb", "OTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team={S}\"", "  headers:\n    x-honeycomb-team: {S}"),
		bp("rollbar-access-token", "32 hex, a Rollbar project access token", blHexS(32), "ROLLBAR_ACCESS_TOKEN", "Rollbar",
			"Rollbar.configure do |config|\n  config.access_token = '{S}'\nend", "curl -H 'X-Rollbar-Access-Token: {S}' https://api.rollbar.com/api/1/items"),
		bp("bugsnag-api-key", "32 hex, a Bugsnag notifier key", blHexS(32), "BUGSNAG_API_KEY", "Bugsnag",
			"Bugsnag.start({ apiKey: '{S}' })"),
		bp("sumologic-access-key", "64 base62 after an access id 'su' + 12", blAlnum(64), "SUMO_ACCESS_KEY", "Sumo Logic",
			"curl -u \"su"+"Q3kd8LmZp2Xv"+":{S}\" https://api.eu.sumologic.com/api/v1/collectors"),
		bp("newrelic-license-key", "36 hex and 'NRAL' (New Relic ingest licence key)", func(g *gen) string { return g.s(blHex, 36) + "NRAL" }, "NEW_RELIC_LICENSE_KEY", "New Relic",
			"license_key: '{S}'", "newrelic-admin run-program gunicorn app:app  # NEW_RELIC_LICENSE_KEY={S}"),
		bp("mixpanel-api-secret", "32 hex, a Mixpanel project secret", blHexS(32), "MIXPANEL_API_SECRET", "Mixpanel"),
		bp("typeform-token", "44 base62 next to 'typeform'", blAlnum(44), "TYPEFORM_TOKEN", "Typeform",
			"curl -H \"Authorization: bearer {S}\" https://api.typeform.com/forms"),
		bp("todoist-api-token", "40 hex next to 'todoist'", blHexS(40), "TODOIST_API_TOKEN", "Todoist"),
		bp("pipedrive-api-token", "40 hex as Pipedrive's api_token", blHexS(40), "PIPEDRIVE_API_TOKEN", "Pipedrive",
			"GET https://acme.pipedrive.com/api/v1/deals?api_token={S}"),
		bp("shippo-live-token", "'shippo_live_' and 40 hex", blPre("shippo_live_", blHex, 40), "SHIPPO_API_TOKEN", "Shippo",
			"curl https://api.goshippo.com/shipments/ -H \"Authorization: ShippoToken {S}\""),
		bp("lob-live-key", "'live_' and 35 hex (Lob)", blPre("live_", blHex, 35), "LOB_API_KEY", "Lob",
			"curl https://api.lob.com/v1/postcards -u {S}:"),
		bp("fastly-api-token", "32 base64url characters next to 'fastly'", func(g *gen) string { return g.s(blB64U, 32) }, "FASTLY_API_TOKEN", "Fastly",
			"curl -X POST -H \"Fastly-Key: {S}\" https://api.fastly.com/service/SU1Z0isxPaozGVKXdv0eY/purge_all"),
		bp("scaleway-secret-key", "a UUID, Scaleway's secret key (the access key is SCW and 17)", uuid, "SCW_SECRET_KEY", "Scaleway",
			"[default]\naccess_key = SCW"+"Q7Z2M9KXW4R1T8B3C"+"\nsecret_key = {S}"),
		bp("vultr-api-key", "36 upper-case base36 next to 'vultr'", func(g *gen) string { return g.s(blUp36, 36) }, "VULTR_API_KEY", "Vultr",
			"curl \"https://api.vultr.com/v2/instances\" -H \"Authorization: Bearer {S}\""),
		bp("sourcegraph-access-token", "'sgp_', 16 hex, '_' and 40 hex", func(g *gen) string { return "sgp_" + g.s(blHex, 16) + "_" + g.s(blHex, 40) }, "SRC_ACCESS_TOKEN", "Sourcegraph"),
		bp("harness-pat", "'pat.', 22 characters, 24 hex and 20 base62 joined by dots", func(g *gen) string {
			return "pat." + g.s(blB62, 22) + "." + g.s(blHex, 24) + "." + g.s(blB62, 20)
		}, "HARNESS_PLATFORM_API_KEY", "Harness", "curl -H 'x-api-key: {S}' https://app.harness.io/ng/api/projects"),
		bp("travis-ci-token", "22 base62 next to 'travis'", blAlnum(22), "TRAVIS_TOKEN", "Travis CI",
			"travis login --pro --github-token xxx && travis env set API_TOKEN {S}", "curl -H \"Authorization: token {S}\" -H \"Travis-API-Version: 3\" https://api.travis-ci.com/repos"),
		bp("browserstack-access-key", "20 base62 next to 'browserstack'", blAlnum(20), "BROWSERSTACK_ACCESS_KEY", "BrowserStack",
			"driver = webdriver.Remote(command_executor='https://{U}:{S}@hub-cloud.browserstack.com/wd/hub')"),
		bp("saucelabs-access-key", "a UUID next to 'sauce'", uuid, "SAUCE_ACCESS_KEY", "Sauce Labs",
			"https://oauth-{U}-1a2b3:{S}@ondemand.eu-central-1.saucelabs.com:443/wd/hub"),
		bp("tomtom-api-key", "32 base62 next to 'tomtom'", blAlnum(32), "TOMTOM_API_KEY", "TomTom",
			"https://api.tomtom.com/routing/1/calculateRoute/52.50931,13.42936:52.50274,13.43872/json?key={S}"),
		bp("openweathermap-appid", "32 hex as OpenWeatherMap's appid", blHexS(32), "OWM_API_KEY", "OpenWeatherMap",
			"https://api.openweathermap.org/data/2.5/weather?q=Berlin&appid={S}&units=metric"),
		bp("finnhub-token", "20 lower-case base36 next to 'finnhub'", func(g *gen) string { return g.s(blLow36, 20) }, "FINNHUB_API_KEY", "Finnhub",
			"https://finnhub.io/api/v1/quote?symbol=AAPL&token={S}"),
		bp("etherscan-api-key", "34 upper-case base36 next to 'etherscan'", func(g *gen) string { return g.s(blUp36, 34) }, "ETHERSCAN_API_KEY", "Etherscan",
			"etherscan: {\n    apiKey: \"{S}\"\n  },", "https://api.etherscan.io/api?module=account&action=balance&address=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae&apikey={S}"),
		bp("infura-project-secret", "32 hex next to 'infura'", blHexS(32), "INFURA_API_SECRET", "Infura",
			"https://mainnet.infura.io/v3/{S}"),
		bp("gocardless-live-token", "'live_' and 40 base64url (GoCardless access token)", blPre("live_", blB64U, 40), "GOCARDLESS_ACCESS_TOKEN", "GoCardless"),
		bp("checkout-secret-key", "'sk_' or 'sk_sbox_' and a UUID-shaped or 26-character body (Checkout.com)", func(g *gen) string {
			if g.rng.IntN(2) == 0 {
				return "sk_" + g.blUUID()
			}
			return "sk_sbox_" + g.s(blLow36, 26)
		}, "CKO_SECRET_KEY", "Checkout.com"),
		bp("klaviyo-private-key", "'pk_' and 34 hex (Klaviyo private API key)", blPre("pk_", blHex, 34), "KLAVIYO_PRIVATE_KEY", "Klaviyo",
			"curl https://a.klaviyo.com/api/profiles/ -H \"Authorization: Klaviyo-API-Key {S}\""),
		bp("onesignal-rest-key", "48 base64 characters next to 'onesignal'", func(g *gen) string { return g.s(blB62, 48) }, "ONESIGNAL_REST_API_KEY", "OneSignal",
			"curl https://onesignal.com/api/v1/notifications -H \"Authorization: Basic {S}\""),
		bp("agora-app-certificate", "32 hex, an Agora app certificate", blHexS(32), "AGORA_APP_CERTIFICATE", "Agora",
			"token = RtcTokenBuilder.buildTokenWithUid(appId, \"{S}\", channel, uid, role, expire)"),
		bp("vonage-api-secret", "16 base62, a Vonage (Nexmo) API secret", blAlnum(16), "VONAGE_API_SECRET", "Vonage",
			"curl -X POST https://rest.nexmo.com/sms/json -d api_key=a1b2c3d4 -d api_secret={S} -d to=447700900000"),
		bp("plivo-auth-token", "40 base62, a Plivo auth token (the auth id is 20 capitals)", blAlnum(40), "PLIVO_AUTH_TOKEN", "Plivo",
			"client = plivo.RestClient(auth_id='MAZDQ1ZJIYMDA2YWIXNJ', auth_token='{S}')"),
		bp("messagebird-access-key", "25 base62 next to 'messagebird'", blAlnum(25), "MESSAGEBIRD_ACCESS_KEY", "MessageBird",
			"curl -H 'Authorization: AccessKey {S}' https://rest.messagebird.com/balance"),
		bp("assemblyai-api-key", "32 hex next to 'assemblyai'", blHexS(32), "ASSEMBLYAI_API_KEY", "AssemblyAI",
			"aai.settings.api_key = \"{S}\""),
		bp("deepgram-api-key", "40 hex after 'Token' (Deepgram)", blHexS(40), "DEEPGRAM_API_KEY", "Deepgram",
			"curl -H \"Authorization: Token {S}\" -H 'Content-Type: audio/wav' --data-binary @call.wav https://api.deepgram.com/v1/listen"),
		bp("langfuse-secret-key", "'sk-lf-' and a UUID", func(g *gen) string { return "sk-lf-" + g.blUUID() }, "LANGFUSE_SECRET_KEY", "Langfuse",
			"langfuse = Langfuse(public_key=\"pk-lf-00000000-0000-0000-0000-000000000000\", secret_key=\"{S}\")"),
		bp("posthog-personal-key", "'phx_' and 43 to 47 characters", func(g *gen) string { return "phx_" + g.s(blB62, 43+g.rng.IntN(5)) }, "POSTHOG_PERSONAL_API_KEY", "PostHog"),
		bp("mux-token-secret", "75 base64 characters, a Mux token secret", func(g *gen) string { return g.s(blB62+"+/", 75) }, "MUX_TOKEN_SECRET", "Mux",
			"curl https://api.mux.com/video/v1/assets -u 8c5e2f31-6e0b-4b41-9f3a-1c2d3e4f5a6b:{S}"),
		bp("sanity-api-token", "'sk' and 79 base62 (Sanity)", blPre("sk", blB62, 79), "SANITY_API_TOKEN", "Sanity",
			"const client = createClient({ projectId: 'x1y2z3', dataset: 'production', token: '{S}' })"),
		bp("zerotier-api-token", "32 base62 next to 'zerotier'", blAlnum(32), "ZEROTIER_API_TOKEN", "ZeroTier",
			"curl -H \"Authorization: token {S}\" https://api.zerotier.com/api/v1/network"),
		bp("ibm-cloud-api-key", "44 base64url characters next to 'ibm'", func(g *gen) string { return g.s(blB64U, 44) }, "IBMCLOUD_API_KEY", "IBM Cloud",
			"ibmcloud login --apikey {S} -r eu-de"),
		bp("azure-cosmosdb-key", "86 base64 and '==' (Cosmos DB account key)", func(g *gen) string { return g.s(blB62, 86) + "==" }, "COSMOS_KEY", "Cosmos DB",
			"AccountEndpoint=https://acme-orders.documents.azure.com:443/;AccountKey={S};"),
		bp("azure-acr-password", "42 base64, '+ACR' and 6 base62 (container registry password)", func(g *gen) string { return g.s(blB62+"+/", 42) + "+ACR" + g.s(blB62, 6) }, "ACR_PASSWORD", "ACR",
			"docker login acmeprod.azurecr.io -u acmeprod -p '{S}'"),
		bp("azure-app-config-secret", "the Secret of an App Configuration connection string (44 base64)", func(g *gen) string { return g.blB64(32) }, "AZURE_APPCONFIG_SECRET", "App Configuration",
			"Endpoint=https://acme-cfg.azconfig.io;Id=Jq2N-l0-s0:3kLmP9qRsT1uVw2x;Secret={S}"),
		bp("nvidia-api-key", "'nvapi-' and 64 base64url", blPre("nvapi-", blB64U, 64), "NVIDIA_API_KEY", "NVIDIA"),
		bp("ramp-client-secret", "'ramp_sec_' and 48 base62", blPre("ramp_sec_", blB62, 48), "RAMP_CLIENT_SECRET", "Ramp"),
		bp("pagarme-live-key", "'ak_live_' and 30 base62", blPre("ak_live_", blB62, 30), "PAGARME_API_KEY", "Pagar.me"),
		bp("rootly-api-key", "'rootly_' and 64 hex", blPre("rootly_", blHex, 64), "ROOTLY_API_TOKEN", "Rootly"),
		bp("prefect-api-key", "'pnu_' and 36 base62", blPre("pnu_", blB62, 36), "PREFECT_API_KEY", "Prefect",
			"prefect cloud login --key {S} --workspace acme/prod"),
		bp("deno-deploy-token", "'ddp_' and 36 base62", blPre("ddp_", blB62, 36), "DENO_DEPLOY_TOKEN", "Deno Deploy",
			"deployctl deploy --project=acme-edge --token={S} main.ts"),
		bp("nightfall-api-key", "'NF-' and 32 base62", blPre("NF-", blB62, 32), "NIGHTFALL_API_KEY", "Nightfall"),
		bp("vagrant-cloud-token", "14 base62, '.atlasv1.' and 67 base62", func(g *gen) string { return g.s(blB62, 14) + ".atlasv1." + g.s(blB62, 67) }, "VAGRANT_CLOUD_TOKEN", "Vagrant Cloud",
			"vagrant cloud auth login --token {S}"),
		bp("nuget-api-key", "'oy2' and 43 lower-case base36 (46 in all)", blPre("oy2", "abcdefghijklmnopqrstuvwxyz0123456789", 43), "NUGET_API_KEY", "NuGet",
			"dotnet nuget push bin/Release/Acme.Core.2.1.0.nupkg --api-key {S} --source https://api.nuget.org/v3/index.json"),
		bp("maxmind-license-key", "16 base62, or 37 characters ending '_mmk'", func(g *gen) string {
			if g.rng.IntN(2) == 0 {
				return g.s(blB62, 16)
			}
			return g.s(blB62, 6) + "_" + g.s(blB62, 29) + "_mmk"
		}, "MAXMIND_LICENSE_KEY", "MaxMind", "AccountID 412345\nLicenseKey {S}\nEditionIDs GeoLite2-City GeoLite2-Country"),
		bp("shodan-api-key", "32 base62 next to 'shodan'", blAlnum(32), "SHODAN_API_KEY", "Shodan", "shodan init {S}"),
		bp("virustotal-api-key", "64 hex after 'x-apikey'", blHexS(64), "VT_API_KEY", "VirusTotal",
			"curl --request GET --url https://www.virustotal.com/api/v3/files/44d88612fea8a8f36de82e1278abb02f --header 'x-apikey: {S}'"),
		bp("crowdin-token", "80 base62 next to 'crowdin'", blAlnum(80), "CROWDIN_PERSONAL_TOKEN", "Crowdin",
			"api_token: \"{S}\"\nproject_id: \"512345\""),
		bp("cloudsmith-api-key", "40 hex next to 'cloudsmith'", blHexS(40), "CLOUDSMITH_API_KEY", "Cloudsmith",
			"pip install acme-core --index-url https://token:{S}@dl.cloudsmith.io/basic/acme/python/simple/"),
		bp("packagecloud-token", "48 hex as a packagecloud read token", blHexS(48), "PACKAGECLOUD_TOKEN", "packagecloud",
			"deb https://{S}:@packagecloud.io/acme/prod/ubuntu/ jammy main"),
		bp("backblaze-b2-application-key", "'K00' and 28 base64 (B2 application key; key id 25 hex)", func(g *gen) string { return "K00" + g.s("0123456789", 1) + g.s(blB62+"/+", 27) }, "B2_APPLICATION_KEY", "Backblaze B2",
			"b2 account authorize 0052a5c1e3f4d6b0000000007 {S}", "B2_APPLICATION_KEY_ID=0052a5c1e3f4d6b0000000007\nB2_APPLICATION_KEY={S}"),
		bp("trello-token", "64 hex, or 'ATTA' with 64 hex and 8 hex", func(g *gen) string {
			if g.rng.IntN(2) == 0 {
				return g.s(blHex, 64)
			}
			return "ATTA" + g.s(blHex, 64) + g.s(blHexUp, 8)
		}, "TRELLO_TOKEN", "Trello", "https://api.trello.com/1/members/me/boards?key=5f1a2b3c4d5e6f708192a3b4c5d6e7f8&token={S}"),
		bp("uptimerobot-api-key", "'u' or 'ur' and digits, '-' and 24 hex", func(g *gen) string { return "ur" + g.s(blDig, 7) + "-" + g.s(blHex, 24) }, "UPTIMEROBOT_API_KEY", "UptimeRobot",
			"curl -X POST https://api.uptimerobot.com/v2/getMonitors -d 'api_key={S}&format=json'"),
		bp("infisical-service-token", "'st.', 24 hex, 32 hex and 32 hex joined by dots", func(g *gen) string {
			return "st." + g.s(blHex, 24) + "." + g.s(blHex, 32) + "." + g.s(blHex, 32)
		}, "INFISICAL_TOKEN", "Infisical", "infisical run --token {S} -- npm start"),
		bp("axiom-api-token", "'xaat-' or 'xapt-' and a UUID", func(g *gen) string { return g.pick("xaat-", "xapt-") + g.blUUID() }, "AXIOM_TOKEN", "Axiom",
			"curl -X POST https://api.axiom.co/v1/datasets/logs/ingest -H 'Authorization: Bearer {S}' -d '[{\"msg\":\"hi\"}]'"),
		bp("portainer-access-token", "'ptr_' and 44 base64", func(g *gen) string { return "ptr_" + g.s(blB62+"+/", 43) + "=" }, "PORTAINER_TOKEN", "Portainer",
			"curl -H \"X-API-Key: {S}\" https://portainer.lan:9443/api/endpoints"),
		bp("storyblok-pat", "22 base62, 'tt-', 6 digits, '-' and 20 characters", func(g *gen) string {
			return g.s(blB62, 22) + "tt-" + g.s(blDig, 6) + "-" + g.s(blB64U, 20)
		}, "STORYBLOK_PERSONAL_TOKEN", "Storyblok"),
		bp("salad-cloud-api-key", "'salad_cloud_', a short id, '_' and a long body", func(g *gen) string {
			return "salad_cloud_" + g.s(blB62, 6) + "_" + g.s(blB62, 40)
		}, "SALAD_API_KEY", "SaladCloud"),
		// webhook URLs and DSNs with the secret in their path or user part
		bkm("provider", "slack-incoming-webhook-path", "the T…/B…/24-character path of a Slack incoming webhook", func(g *gen) (string, string) {
			s := "T" + g.s(blUp36, 10) + "/B" + g.s(blUp36, 10) + "/" + g.s(blB62, 24)
			return g.pick("SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{S}",
				"curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' https://hooks.slack.com/services/{S}",
				"alertmanager:\n  receivers:\n  - name: slack\n    slack_configs:\n    - api_url: https://hooks.slack.com/services/{S}",
				"the webhook is https://hooks.slack.com/services/{S} — post there"), s
		}),
		bkm("provider", "teams-webhook-path", "the path after webhookb2/ of a Teams incoming webhook", func(g *gen) (string, string) {
			s := g.blUUID() + "@" + g.blUUID() + "/IncomingWebhook/" + g.s(blHex, 32) + "/" + g.blUUID() + "/V2" + g.s(blB64U, 43)
			return g.pick("TEAMS_WEBHOOK=https://acme.webhook.office.com/webhookb2/{S}",
				"Invoke-RestMethod -Method Post -ContentType 'application/json' -Body $json -Uri \"https://acme.webhook.office.com/webhookb2/{S}\"",
				"teams:\n  url: https://acme.webhook.office.com/webhookb2/{S}"), s
		}),
		bkm("provider", "mattermost-webhook-key", "the 26-character key of a Mattermost incoming webhook", func(g *gen) (string, string) {
			s := g.s("abcdefghijklmnopqrstuvwxyz0123456789", 26)
			return g.pick("curl -i -X POST -H 'Content-Type: application/json' -d '{\"text\": \"build failed\"}' https://chat.acme.io/hooks/{S}",
				"MATTERMOST_HOOK=https://mm.example.org/hooks/{S}", "webhook_url: \"https://chat.acme.io/hooks/{S}\""), s
		}),
		bkm("provider", "dingtalk-robot-token", "the 64-hex access_token of a DingTalk robot webhook", func(g *gen) (string, string) {
			s := g.s(blHex, 64)
			return g.pick("https://oapi.dingtalk.com/robot/send?access_token={S}",
				"钉钉机器人地址：https://oapi.dingtalk.com/robot/send?access_token={S}",
				"DINGTALK_WEBHOOK=\"https://oapi.dingtalk.com/robot/send?access_token={S}\""), s
		}),
		bkm("provider", "wecom-bot-key", "the UUID key of a WeCom (企业微信) group robot webhook", func(g *gen) (string, string) {
			s := g.blUUID()
			return g.pick("https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={S}",
				"企业微信机器人 webhook: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={S}",
				"curl 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={S}' -H 'Content-Type: application/json' -d '{\"msgtype\":\"text\",\"text\":{\"content\":\"hello\"}}'"), s
		}),
		bkm("provider", "feishu-bot-hook", "the UUID of a Feishu/Lark custom bot webhook", func(g *gen) (string, string) {
			s := g.blUUID()
			return g.pick("https://open.feishu.cn/open-apis/bot/v2/hook/{S}", "飞书机器人：https://open.feishu.cn/open-apis/bot/v2/hook/{S}",
				"LARK_WEBHOOK=https://open.larksuite.com/open-apis/bot/v2/hook/{S}"), s
		}),
		bkm("provider", "tines-webhook-secret", "the 32/32 path of a Tines webhook", func(g *gen) (string, string) {
			s := g.s(blLow36, 32) + "/" + g.s(blLow36, 32)
			return g.pick("https://acme.tines.com/webhook/{S}", "send the alert to https://fancy-river-1234.tines.com/webhook/{S}"), s
		}),
		bkm("provider", "ifttt-maker-key", "the 22-character key of an IFTTT Maker webhook", func(g *gen) (string, string) {
			s := g.s(blB64U, 22)
			return g.pick("https://maker.ifttt.com/trigger/door_open/with/key/{S}", "curl -X POST https://maker.ifttt.com/trigger/backup_done/json/with/key/{S}",
				"IFTTT_KEY={S}"), s
		}),
		bkm("provider", "google-chat-webhook-token", "the token of a Google Chat space webhook", func(g *gen) (string, string) {
			s := g.s(blB64U, 43) + "%3D"
			return g.pick("https://chat.googleapis.com/v1/spaces/AAAA"+"x1Yz2Wq/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={S}",
				"GCHAT_WEBHOOK='https://chat.googleapis.com/v1/spaces/AAAAb3cD4eF/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={S}'"), s
		}),
		bkm("provider", "rocketchat-webhook-token", "the id/token path of a Rocket.Chat integration", func(g *gen) (string, string) {
			s := g.s(blB62, 17) + "/" + g.s(blB62, 48)
			return g.pick("https://chat.acme.io/hooks/{S}", "ROCKETCHAT_URL=https://rc.example.org/hooks/{S}"), s
		}),
		bkm("provider", "sentry-legacy-dsn-secret", "the secret key in a legacy Sentry DSN (public:secret@host)", func(g *gen) (string, string) {
			s := g.s(blHex, 32)
			return g.pick("SENTRY_DSN=https://"+"4f2b8c1d9e0a7b6c5d4e3f2a1b0c9d8e"+":{S}@sentry.acme.io/12",
				"raven.Client('https://1e2d3c4b5a69788796a5b4c3d2e1f0a9:{S}@o123456.ingest.sentry.io/654321')",
				"dsn: \"https://0a1b2c3d4e5f60718293a4b5c6d7e8f9:{S}@sentry.internal/3\""), s
		}),
		bkm("provider", "zapier-catch-hook", "the account and hook id of a Zapier catch hook", func(g *gen) (string, string) {
			s := g.s(blDig, 7) + "/" + g.s(blLow36, 7)
			return g.pick("https://hooks.zapier.com/hooks/catch/{S}/", "ZAPIER_HOOK=https://hooks.zapier.com/hooks/catch/{S}/",
				"post the form to https://hooks.zapier.com/hooks/catch/{S}/ and it creates the lead"), s
		}),
	}
}

// --- key material ---

func blWrap(s string, n int, indent string) string {
	var lines []string
	for len(s) > n {
		lines = append(lines, s[:n])
		s = s[n:]
	}
	lines = append(lines, s)
	return strings.Join(lines, "\n"+indent)
}

// blDER is a DER SEQUENCE of n random content bytes after the given leading content bytes.
func (g *gen) blDER(lead []byte, n int) []byte {
	body := append(append([]byte{}, lead...), g.bytes(n)...)
	l := len(body)
	return append([]byte{0x30, 0x82, byte(l >> 8), byte(l)}, body...)
}

func blindKeyMaterial() []kindGen {
	return []kindGen{
		bkm("keymaterial", "age-keys-txt", "an age identity file: comments, then AGE-SECRET-KEY-1 and 58 bech32 capitals", func(g *gen) (string, string) {
			s := "AGE-SECRET-KEY-1" + g.s(blBech, 58)
			pub := "age1" + strings.ToLower(g.s(blBech, 58))
			return g.pick("# created: {D}T{T}+02:00\n# public key: "+pub+"\n{S}",
				"$ cat ~/.config/sops/age/keys.txt\n# created: {D}T{T}Z\n# public key: "+pub+"\n{S}",
				"SOPS_AGE_KEY={S}"), s
		}),
		bkm("keymaterial", "wireguard-preshared-key", "a WireGuard PresharedKey (32 bytes, base64)", func(g *gen) (string, string) {
			s := g.blB64(32)
			return g.pick("[Peer]\nPublicKey = "+g.blB64(32)+"\nPresharedKey = {S}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.acme.io:51820",
				"wg set wg0 peer "+g.blB64(32)+" preshared-key <(echo {S})",
				"presharedKey: \"{S}\""), s
		}),
		bkm("keymaterial", "wireguard-nmconnection", "the private-key of a NetworkManager WireGuard profile", func(g *gen) (string, string) {
			s := g.blB64(32)
			return g.pick("[connection]\nid=wg-office\ntype=wireguard\ninterface-name=wg0\n\n[wireguard]\nprivate-key={S}\n\n[wireguard-peer."+g.blB64(32)+"]\nendpoint=203.0.113.5:51820\nallowed-ips=10.0.0.0/8;",
				"nmcli connection modify wg-office wireguard.private-key '{S}'"), s
		}),
		bkm("keymaterial", "tor-hs-ed25519-secret-base64", "a Tor v3 onion service hs_ed25519_secret_key file, base64", func(g *gen) (string, string) {
			raw := append([]byte("== ed25519v1-secret: type0 ==\x00\x00\x00"), g.bytes(64)...)
			s := base64.StdEncoding.EncodeToString(raw)
			return g.pick("$ base64 -w0 /var/lib/tor/hidden_service/hs_ed25519_secret_key\n{S}",
				"HS_SECRET_KEY_B64={S}", "restore the onion address with: echo '{S}' | base64 -d > hs_ed25519_secret_key"), s
		}),
		bkm("keymaterial", "tor-client-auth-private", "an onion client-auth .auth_private line (x25519 key, base32)", func(g *gen) (string, string) {
			s := g.s(blB32, 52)
			return g.pick(g.s(blB32L, 56)+":descriptor:x25519:{S}",
				"$ cat /var/lib/tor/onion_auth/alice.auth_private\n"+g.s(blB32L, 56)+":descriptor:x25519:{S}"), s
		}),
		bkm("keymaterial", "openssh-key-with-cert", "an OpenSSH private key pasted with its certificate", func(g *gen) (string, string) {
			raw := append([]byte("openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x33\x00\x00\x00\x0bssh-ed25519"), g.bytes(180)...)
			s := blWrap(base64.StdEncoding.EncodeToString(raw), 70, "")
			return "id_ed25519-cert.pub:\nssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29t" + g.s(blB62, 60) + " {U}@laptop\n\nid_ed25519:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{S}\n-----END OPENSSH PRIVATE KEY-----", s
		}),
		bkm("keymaterial", "jwk-ec-private-d", "the d member of an EC P-256 JWK (32 bytes, base64url)", func(g *gen) (string, string) {
			s := g.blB64u(32)
			return g.pick(`{"kty":"EC","crv":"P-256","x":"`+g.blB64u(32)+`","y":"`+g.blB64u(32)+`","d":"{S}","use":"sig","kid":"k1"}`,
				"{\n  \"kty\": \"EC\",\n  \"crv\": \"P-256\",\n  \"kid\": \"{APP}-2026\",\n  \"d\": \"{S}\",\n  \"x\": \""+g.blB64u(32)+"\",\n  \"y\": \""+g.blB64u(32)+"\"\n}"), s
		}),
		bkm("keymaterial", "jwk-rsa-private-d", "the d member of an RSA JWK (256 bytes, base64url)", func(g *gen) (string, string) {
			s := g.blB64u(256)
			return g.pick(`{"keys":[{"kty":"RSA","kid":"rsa1","n":"`+g.blB64u(256)+`","e":"AQAB","d":"{S}"}]}`,
				"JWKS_PRIVATE='{\"kty\":\"RSA\",\"e\":\"AQAB\",\"d\":\"{S}\",\"n\":\""+g.blB64u(256)+"\"}'"), s
		}),
		bkm("keymaterial", "jwk-okp-ed25519-d", "the d member of an Ed25519 OKP JWK", func(g *gen) (string, string) {
			s := g.blB64u(32)
			return g.pick(`{"kty":"OKP","crv":"Ed25519","d":"{S}","x":"`+g.blB64u(32)+`"}`,
				"signing_jwk:\n  kty: OKP\n  crv: Ed25519\n  x: "+g.blB64u(32)+"\n  d: {S}"), s
		}),
		bkm("keymaterial", "jwk-oct-k", "the k member of a symmetric (oct) JWK", func(g *gen) (string, string) {
			s := g.blB64u(32 + 32*g.rng.IntN(2))
			return g.pick(`{"kty":"oct","alg":"HS256","k":"{S}"}`, "JWT_JWK={\"kty\":\"oct\",\"kid\":\"hmac-1\",\"k\":\"{S}\"}",
				"const key = await jose.importJWK({ kty: 'oct', k: '{S}' }, 'HS512')"), s
		}),
		bkm("keymaterial", "pkcs12-base64", "a PKCS#12 file as base64 (MII…, version 3)", func(g *gen) (string, string) {
			der := g.blDER([]byte{0x02, 0x01, 0x03, 0x30, 0x82, 0x09, 0x00, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01}, 700)
			b := base64.StdEncoding.EncodeToString(der)
			if g.rng.IntN(2) == 0 {
				return g.pick("SIGNING_CERT_P12_BASE64: {S}", "echo \"{S}\" | base64 -d > cert.p12", "\"certificateData\": \"{S}\","), b
			}
			s := blWrap(b, 76, "")
			return "$ base64 client.p12\n{S}", s
		}),
		bkm("keymaterial", "gpg-armored-with-comment", "an armored PGP secret key block with Comment and Version headers", func(g *gen) (string, string) {
			raw := append([]byte{0x95, 0x03, 0xc6, 0x04}, g.bytes(420)...)
			s := blWrap(base64.StdEncoding.EncodeToString(raw), 64, "")
			return "-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: " + g.pick("signing key for apt repo", "Alice (work) <alice@acme.io>", "backup 2026") + "\nVersion: GnuPG v2\n\n{S}\n=" + g.s(blB62, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----", s
		}),
		bkm("keymaterial", "k8s-secret-data-base64", "a password base64'd in a Kubernetes Secret's data", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString([]byte(g.blPw()))
			return g.pick("apiVersion: v1\nkind: Secret\nmetadata:\n  name: {APP}-db\ntype: Opaque\ndata:\n  username: YXBw\n  password: {S}",
				"$ kubectl get secret {APP}-db -o jsonpath='{.data.password}'\n{S}",
				"{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"DB_PASSWORD\": \"{S}\"\n    },\n    \"kind\": \"Secret\"\n}"), s
		}),
		bkm("keymaterial", "k8s-tls-secret-key", "the tls.key of a kubernetes.io/tls Secret (base64 of a PEM key)", func(g *gen) (string, string) {
			pem := "-----BEGIN PRIVATE KEY-----\n" + blWrap(base64.StdEncoding.EncodeToString(g.blDER([]byte{0x02, 0x01, 0x00}, 110)), 64, "") + "\n-----END PRIVATE KEY-----\n"
			s := base64.StdEncoding.EncodeToString([]byte(pem))
			return "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: {APP}-tls\ndata:\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUI=\n  tls.key: {S}", s
		}),
		bk("keymaterial", "spring-ssl-keystore-password", "a keystore password in Spring Boot properties", (*gen).blPw,
			"server.ssl.key-store=classpath:keystore.p12\nserver.ssl.key-store-password={S}\nserver.ssl.key-store-type=PKCS12",
			"server:\n  ssl:\n    key-store: /etc/ssl/app.jks\n    key-store-password: \"{S}\"\n    key-alias: tomcat",
			"javax.net.ssl.trustStorePassword={S}"),
		bk("keymaterial", "tomcat-keystorepass", "keystorePass in Tomcat's server.xml Connector", (*gen).blPw,
			"<Connector port=\"8443\" protocol=\"org.apache.coyote.http11.Http11NioProtocol\" SSLEnabled=\"true\"\n           keystoreFile=\"conf/.keystore\" keystorePass=\"{S}\" />",
			"<Certificate certificateKeystoreFile=\"conf/localhost.jks\" certificateKeystorePassword=\"{S}\" type=\"RSA\" />"),
		bkm("keymaterial", "java-keystore-base64", "a JKS keystore as base64 (magic FEEDFEED → /u3+7Q)", func(g *gen) (string, string) {
			raw := append([]byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1}, g.bytes(600)...)
			s := base64.StdEncoding.EncodeToString(raw)
			return g.pick("ANDROID_KEYSTORE_BASE64: {S}", "echo $KEYSTORE | base64 --decode > release.jks   # KEYSTORE={S}", "release keystore (base64): {S}"), s
		}),
		bkm("keymaterial", "libp2p-private-key", "an IPFS/libp2p PrivKey (protobuf, base64 CAESQ…)", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(append([]byte{0x08, 0x01, 0x12, 0x40}, g.bytes(64)...))
			return g.pick("\"Identity\": {\n    \"PeerID\": \"12D3KooW"+g.s(b58, 44)+"\",\n    \"PrivKey\": \"{S}\"\n  },", "IPFS_PRIVKEY={S}"), s
		}),
		bkm("keymaterial", "yggdrasil-private-key", "a Yggdrasil PrivateKey (128 hex)", func(g *gen) (string, string) {
			s := g.s(blHex, 128)
			return g.pick("{\n  Peers: [\"tls://ygg.example.net:443\"]\n  PrivateKey: {S}\n  IfName: auto\n}", "PrivateKey: {S}"), s
		}),
		bkm("keymaterial", "zerotier-identity-secret", "the secret half of a ZeroTier identity.secret", func(g *gen) (string, string) {
			s := g.s(blHex, 128)
			return g.pick(g.s(blHex, 10)+":0:"+g.s(blHex, 128)+":{S}", "$ sudo cat /var/lib/zerotier-one/identity.secret\n"+g.s(blHex, 10)+":0:"+g.s(blHex, 128)+":{S}"), s
		}),
		bkm("keymaterial", "signify-secret-key", "an OpenBSD signify secret key (untrusted comment, then RWRCSw…)", func(g *gen) (string, string) {
			raw := append([]byte("EdBK\x00\x00\x00\x2a"), g.bytes(96)...)
			s := base64.StdEncoding.EncodeToString(raw)
			return "untrusted comment: signify secret key\n{S}", s
		}),
		bkm("keymaterial", "cosign-encrypted-key", "a cosign (sigstore) encrypted private key body and its password", func(g *gen) (string, string) {
			js := `{"kdf":{"name":"scrypt","params":{"N":32768,"r":8,"p":1},"salt":"` + g.blB64(32) + `"},"cipher":{"name":"nacl/secretbox","nonce":"` + g.blB64(24) + `"},"ciphertext":"` + g.blB64(140) + `"}`
			s := blWrap(base64.StdEncoding.EncodeToString([]byte(js)), 64, "")
			return "$ cat cosign.key\n-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n{S}\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----", s
		}),
		bkm("keymaterial", "pem-in-yaml-literal", "an RSA private key PEM body indented in a YAML block scalar", func(g *gen) (string, string) {
			s := blWrap(base64.StdEncoding.EncodeToString(g.blDER([]byte{0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00}, 900)), 64, "    ")
			return g.pick("tls:\n  key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    {S}\n    -----END RSA PRIVATE KEY-----\n  cert: /etc/ssl/app.crt",
				"dkim:\n  selector: s1\n  private_key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    {S}\n    -----END RSA PRIVATE KEY-----"), s
		}),
		bkm("keymaterial", "ed25519-seed-base64-env", "a 64-byte Ed25519 secret key (libsodium layout) in base64", func(g *gen) (string, string) {
			s := g.blB64(64)
			return g.pick("ED25519_SIGNING_KEY={S}", "signing_key = \"{S}\"  # nacl.signing.SigningKey", "\"privateKey\": \"{S}\""), s
		}),
	}
}

// --- tokens ---

func (g *gen) blJWT(claims string) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","kid":"` + g.s(blB64U, 12) + `","typ":"JWT"}`))
	p := base64.RawURLEncoding.EncodeToString([]byte(claims))
	return h + "." + p + "." + g.blB64u(256)
}

func blindTokens() []kindGen {
	opaque := func(g *gen) string { return g.s(blB64U, 40+g.rng.IntN(30)) }
	return []kindGen{
		bk("token", "http-request-bearer", "a bearer token in a raw HTTP request", opaque,
			"GET /v1/accounts/me HTTP/1.1\nHost: api.acme.io\nAuthorization: Bearer {S}\nAccept: application/json",
			"POST /graphql HTTP/2\nhost: api.example.com\ncontent-type: application/json\nauthorization: Bearer {S}\nuser-agent: okhttp/4.12.0",
			"> GET /api/v2/orders HTTP/1.1\n> Host: {H}\n> Authorization: Bearer {S}\n>\n< HTTP/1.1 401 Unauthorized"),
		bk("token", "x-api-key-header", "an API key in an X-Api-Key style header", (*gen).blKey,
			"X-Api-Key: {S}", "curl -s https://api.acme.io/v1/reports -H 'x-api-key: {S}'", "headers = {\"X-API-KEY\": \"{S}\", \"Accept\": \"application/json\"}",
			"Request headers:\n  x-api-key: {S}\n  content-type: application/json"),
		bk("token", "cookie-session-header", "a session id in a Cookie header", func(g *gen) string { return g.s(blB64U, 32+g.rng.IntN(20)) },
			"Cookie: session={S}; theme=dark; lang=en", "curl 'https://app.acme.io/dashboard' -H 'cookie: _ga=GA1.2.1234.5678; session_id={S}'",
			"fetch(\"https://app.acme.io/api/me\", {\"headers\": {\"cookie\": \"sid={S}\"}})"),
		bk("token", "set-cookie-response", "a session id in a Set-Cookie header", func(g *gen) string { return g.s(blB64U, 40) },
			"HTTP/1.1 302 Found\nLocation: /home\nSet-Cookie: sessionid={S}; Path=/; HttpOnly; Secure; SameSite=Lax",
			"< set-cookie: __Host-session={S}; path=/; secure; httponly"),
		bkm("token", "s3-presigned-signature", "X-Amz-Signature (64 hex) of an S3 presigned URL", func(g *gen) (string, string) {
			s := g.s(blHex, 64)
			return g.pick("https://acme-exports.s3.eu-west-1.amazonaws.com/reports/q3.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260301%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260301T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={S}",
				"download link (valid 7 days): https://s3.amazonaws.com/acme-backups/db.sql.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260412T080000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={S}"), s
		}),
		bkm("token", "gcs-signed-url-v4", "X-Goog-Signature (512 hex) of a GCS V4 signed URL", func(g *gen) (string, string) {
			s := g.s(blHex, 512)
			return "https://storage.googleapis.com/acme-media/video.mp4?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=uploader%40acme.iam.gserviceaccount.com%2F20260301%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260301T120000Z&X-Goog-Expires=3600&X-Goog-SignedHeaders=host&X-Goog-Signature={S}", s
		}),
		bkm("token", "azure-blob-sas-url", "the URL-encoded sig of an Azure Blob SAS URL", func(g *gen) (string, string) {
			s := url.QueryEscape(g.blB64(32))
			return g.pick("https://acmestore.blob.core.windows.net/uploads/report.pdf?sp=r&st=2026-03-01T10:00:00Z&se=2026-03-08T18:00:00Z&spr=https&sv=2022-11-02&sr=b&sig={S}",
				"azcopy copy ./dist 'https://acmestatic.blob.core.windows.net/$web?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T00:00:00Z&sig={S}' --recursive"), s
		}),
		bkm("token", "cloudfront-signed-url", "the Signature of a CloudFront signed URL", func(g *gen) (string, string) {
			s := strings.NewReplacer("+", "-", "=", "_", "/", "~").Replace(g.blB64(128))
			return "https://d111111abcdef8.cloudfront.net/private/course.mp4?Expires=1767225600&Signature={S}&Key-Pair-Id=K2JCJMDEHXQW5F", s
		}),
		bkm("token", "oauth-refresh-token-json", "the refresh_token of an OAuth token response", func(g *gen) (string, string) {
			s := g.s(blB64U, 64+g.rng.IntN(40))
			return "{\n  \"access_token\": \"" + g.s(blB64U, 40) + "\",\n  \"token_type\": \"Bearer\",\n  \"expires_in\": 3600,\n  \"refresh_token\": \"{S}\",\n  \"scope\": \"read write\"\n}", s
		}),
		bkm("token", "oauth-access-token-form", "an access token in an OAuth form-encoded response or request", func(g *gen) (string, string) {
			s := g.s(blB64U, 48)
			return g.pick("access_token={S}&token_type=bearer&expires_in=7200", "curl -X POST https://auth.acme.io/oauth/revoke -d 'token={S}&token_type_hint=access_token'"), s
		}),
		bk("token", "magic-link-token", "the token of a passwordless sign-in link", func(g *gen) string { return g.s(blB64U, 43) },
			"Click to sign in: https://app.acme.io/auth/magic?token={S}&redirect=%2Fdashboard",
			"here's the login link they emailed me https://acme.io/login/callback?email={E}&token={S}",
			"Your sign-in link: https://notes.example.com/m/{S} (expires in 15 minutes)"),
		bk("token", "password-reset-link", "the token of a password reset link", func(g *gen) string { return g.s(blLow36, 6) + "-" + g.s(blHex, 32) },
			"Reset your password: https://app.acme.io/accounts/reset/MTIz/{S}/",
			"https://shop.example.com/password/reset?token={S}&email={E}",
			"the reset link doesn't work: https://portal.acme.io/reset-password/{S}"),
		bk("token", "invite-link-token", "the code of an invitation link", func(g *gen) string { return g.s(blB62, 32) },
			"join the workspace: https://app.acme.io/invite/{S}", "Invitation: https://wiki.example.org/signup?invite_code={S}"),
		bkm("token", "otpauth-uri-secret", "the base32 secret of an otpauth:// TOTP URI", func(g *gen) (string, string) {
			s := g.s(blB32, 32)
			return g.pick("otpauth://totp/Acme:{E}?secret={S}&issuer=Acme&algorithm=SHA1&digits=6&period=30",
				"the QR code decodes to otpauth://totp/GitLab:{U}?secret={S}&issuer=GitLab", "totp_uri: \"otpauth://totp/AWS:{U}?secret={S}\""), s
		}),
		bkm("token", "totp-setup-key-spaced", "a TOTP setup key in groups of four, as apps show it", func(g *gen) (string, string) {
			var parts []string
			for range 8 {
				parts = append(parts, strings.ToLower(g.s(blB32, 4)))
			}
			s := strings.Join(parts, " ")
			return g.pick("Can't scan? Enter this key: {S}", "2FA setup key for the shared admin account: {S}", "Authenticator secret — {S} (time based)"), s
		}),
		bkm("token", "totp-seed-env", "a base32 TOTP seed in a config", func(g *gen) (string, string) {
			s := g.s(blB32, 16+16*g.rng.IntN(2))
			return g.pick("TOTP_SECRET={S}", "mfa:\n  seed: {S}", "pyotp.TOTP('{S}').now()", "oathtool --totp -b {S}"), s
		}),
		bkm("token", "recovery-codes-list", "a list of 2FA recovery codes, as a service shows them", func(g *gen) (string, string) {
			var codes []string
			for range 10 {
				codes = append(codes, g.s("abcdef0123456789", 5)+"-"+g.s("abcdef0123456789", 5))
			}
			s := strings.Join(codes, "\n")
			return g.pick("github-recovery-codes.txt:\n{S}", "Recovery codes for {E}:\n\n{S}\n\nKeep these somewhere safe.", "```\n{S}\n```"), s
		}),
		bkm("token", "backup-codes-grid", "Google-style 8-digit backup codes in pairs", func(g *gen) (string, string) {
			var codes []string
			for range 5 {
				codes = append(codes, g.s(blDig, 4)+" "+g.s(blDig, 4)+"    "+g.s(blDig, 4)+" "+g.s(blDig, 4))
			}
			s := strings.Join(codes, "\n")
			return "BACKUP VERIFICATION CODES\n{E}\n\n{S}\n\nEach code can be used once.", s
		}),
		bk("token", "jsessionid-in-url", "a JSESSIONID in a URL path parameter", func(g *gen) string { return g.s(blHexUp, 32) },
			"https://intranet.acme.io/portal/home.do;jsessionid={S}?tab=2", "Referer: https://shop.example.com/cart;jsessionid={S}"),
		bk("token", "phpsessid-cookie", "a PHPSESSID cookie value", func(g *gen) string { return g.s("abcdefghijklmnopqrstuv0123456789", 26) },
			"Cookie: PHPSESSID={S}", "document.cookie = \"PHPSESSID={S}; path=/\"", "curl -b 'PHPSESSID={S}' https://{H}/admin/index.php"),
		bk("token", "express-connect-sid", "an express-session connect.sid cookie (s%3A…, URL-encoded)", func(g *gen) string {
			return "s%3A" + g.s(blB64U, 32) + "." + url.QueryEscape(g.blB64(32)[:43])
		}, "Cookie: connect.sid={S}", "set-cookie: connect.sid={S}; Path=/; HttpOnly"),
		bk("token", "aspnetcore-auth-cookie", "an ASP.NET Core auth cookie (CfDJ8…)", func(g *gen) string { return "CfDJ8" + g.s(blB64U, 300+g.rng.IntN(100)) },
			"Cookie: .AspNetCore.Cookies={S}", ".AspNetCore.Identity.Application={S}"),
		bk("token", "rails-session-cookie", "a Rails encrypted session cookie (data--iv--tag)", func(g *gen) string {
			return url.QueryEscape(g.blB64(96)) + "--" + url.QueryEscape(g.blB64(12)) + "--" + url.QueryEscape(g.blB64(16))
		}, "Cookie: _acme_session={S}", "set-cookie: _myapp_session={S}; path=/; secure; HttpOnly; SameSite=Lax"),
		bk("token", "websocket-token-query", "a token in a WebSocket URL's query", opaque,
			"wss://realtime.acme.io/socket/websocket?token={S}&vsn=2.0.0", "new WebSocket(`wss://api.example.com/ws?access_token={S}`)",
			"websocat 'wss://stream.acme.io/v1/events?auth={S}'"),
		bk("token", "api-key-query-param", "an API key in a URL's query string", (*gen).blKey,
			"GET /api/v2/items?api_key={S}&page=2", "https://maps.example.com/geocode?address=Berlin&key={S}", "requests.get(f\"https://api.acme.io/data?apikey={S}&q=test\")"),
		bk("token", "basic-auth-header", "the base64 of user:password in an Authorization: Basic header", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(g.pick("admin", "deploy", "api", "jenkins") + ":" + g.blPw()))
		}, "Authorization: Basic {S}", "curl -H 'Authorization: Basic {S}' https://{H}/api/health", "\"headers\": {\"Authorization\": \"Basic {S}\"}"),
		bk("token", "proxy-authorization-header", "Proxy-Authorization: Basic …", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(g.pick("proxyuser", "corp\\jdoe", "squid") + ":" + g.blPw()))
		}, "Proxy-Authorization: Basic {S}", "CONNECT github.com:443 HTTP/1.1\nHost: github.com:443\nProxy-Authorization: Basic {S}"),
		bk("token", "grpc-metadata-bearer", "a bearer token in gRPC metadata", opaque,
			"grpcurl -H 'authorization: Bearer {S}' api.acme.io:443 acme.v1.Orders/List",
			"metadata = [('authorization', 'Bearer {S}')]\nstub.GetUser(req, metadata=metadata)"),
		bk("token", "har-header-entry", "a token in a HAR file's request headers", opaque,
			"{\n  \"name\": \"authorization\",\n  \"value\": \"Bearer {S}\"\n},", "\"headers\": [{\"name\": \"X-Auth-Token\", \"value\": \"{S}\"}, {\"name\": \"Accept\", \"value\": \"*/*\"}]"),
		bk("token", "k8s-service-account-jwt", "a Kubernetes service account token (JWT)", func(g *gen) string {
			return g.blJWT(`{"aud":["https://kubernetes.default.svc"],"exp":1767225600,"iss":"https://kubernetes.default.svc","kubernetes.io":{"namespace":"prod","serviceaccount":{"name":"deployer"}},"sub":"system:serviceaccount:prod:deployer"}`)
		}, "$ kubectl create token deployer -n prod\n{S}", "users:\n- name: deployer\n  user:\n    token: {S}", "kubectl --server=https://10.0.0.1:6443 --token={S} get pods -A"),
		bk("token", "firebase-refresh-token", "a Firebase/Identity Toolkit refresh token (AMf-vB…)", func(g *gen) string { return "AMf-vB" + g.s(blB64U, 240) },
			"{\"kind\":\"identitytoolkit#VerifyPasswordResponse\",\"refreshToken\":\"{S}\",\"expiresIn\":\"3600\"}", "localStorage firebase:authUser … \"refreshToken\":\"{S}\""),
		bk("token", "session-token-in-log", "a session token in an application log line", opaque,
			"{D} {T} INFO auth: session created user_id=4711 session_token={S} ip=10.0.4.2",
			"{D}T{T}Z DEBUG middleware: validating token \"{S}\" for /api/me"),
		bk("token", "csrf-and-auth-pair", "an auth token printed with a harmless CSRF token", opaque,
			"csrf_token="+"not-a-secret-"+"x\nauth_token={S}", "X-CSRF-Token: 7b1f\nX-Auth-Token: {S}"),
	}
}

// --- encoded, escaped, split ---

func blUTF16B64(s string) string {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// blSymPw is a password with the characters that need escaping: quotes, ampersands, angle
// brackets, backslashes, colons, at signs, slashes, percents.
func (g *gen) blSymPw() string {
	return blTitle(g.blWord()) + g.pick("&", "<", ">", "\"", "'", "\\", ":", "@", "/", "%", "#", "=") + g.s(blB62, 4) +
		g.pick("&", "<", ">", "\"", "'", "\\", ":", "@", "/", "%", "#", "?") + g.s(blDig, 3) + g.s(blB62, 3)
}

func blindEncoded() []kindGen {
	up := (*gen).blUpw
	return []kindGen{
		bk("encoded", "base64-password-sentence", "a password base64'd in a sentence", func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(g.blPw())) },
			"the password base64'd: {S}", "decode this for the db pass: {S}", "pw (b64) {S}", "echo {S} | base64 -d   # that's the admin password"),
		bk("encoded", "hex-encoded-api-key", "an API key hex-encoded", func(g *gen) string { return hex.EncodeToString([]byte(g.s(blB62, 24))) },
			"API_KEY_HEX={S}", "key (hex): {S}", "bytes.fromhex('{S}').decode()  # the vendor key"),
		bkm("encoded", "form-urlencoded-password", "a password URL-encoded in a form body", func(g *gen) (string, string) {
			s := url.QueryEscape(g.blSymPw())
			return g.pick("POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nusername={U}&password={S}&remember=1",
				"curl -d 'user={U}&pass={S}' https://{H}/auth", "body: grant_type=password&username={E}&password={S}&client_id=web"), s
		}),
		bkm("encoded", "json-unicode-escaped", "a password in JSON with \\u escapes for & < > and quotes", func(g *gen) (string, string) {
			p := g.blPw()
			r := strings.NewReplacer("&", `\u0026`, "<", `\u003c`, ">", `\u003e`)
			s := r.Replace(p[:len(p)/2]) + g.pick(`\u0026`, `\u003c`, `\"`, `\\`) + r.Replace(p[len(p)/2:])
			return g.pick(`{"username":"{U}","password":"{S}"}`, `{"smtp": {"pass": "{S}", "host": "smtp.acme.io"}}`), s
		}),
		bk("encoded", "go-string-literal", "a password in a Go string literal", (*gen).blPw,
			"const dbPassword = \"{S}\"", "cfg := Config{User: \"{U}\", Password: \"{S}\", Host: \"{H}\"}", "os.Setenv(\"API_SECRET\", \"{S}\")", "var apiKey = `{S}`"),
		bk("encoded", "python-string-literal", "a password in a Python string literal", (*gen).blPw,
			"password = '{S}'", "conn = psycopg2.connect(host='{H}', user='{U}', password=r'{S}')", "client = Client(api_key=\"\"\"{S}\"\"\")", "auth=('{U}', '{S}')"),
		bk("encoded", "js-literal", "a secret in a JavaScript string or template literal", (*gen).blPw,
			"const password = '{S}';", "headers: { Authorization: `Bearer {S}` },", "module.exports = { db: { user: '{U}', pass: \"{S}\" } };", "let key = \"{S}\" // TODO move to env"),
		bkm("encoded", "split-concat-literals", "a key split across concatenated string literals (the secret spans the join)", func(g *gen) (string, string) {
			a, b := g.s(blB62, 12+g.rng.IntN(6)), g.s(blB62, 12+g.rng.IntN(6))
			switch g.rng.IntN(4) {
			case 0:
				s := a + `" + "` + b
				return `const key = "{S}";`, s
			case 1:
				s := a + `"` + "\n    \"" + b
				return "api_key = (\"{S}\")", s
			case 2:
				s := a + `' . '` + b
				return "$secret = '{S}';", s
			default:
				s := a + `" +` + "\n\t\"" + b
				return "token := \"{S}\"", s
			}
		}),
		bk("encoded", "docker-build-arg", "a token passed with docker build --build-arg", func(g *gen) string { return g.s(blB62, 36) },
			"docker build --build-arg NPM_TOKEN={S} -t acme/web:latest .", "docker build -t api . --build-arg PIP_INDEX_PASSWORD='{S}' --no-cache",
			"- run: docker build --build-arg GITHUB_TOKEN={S} --build-arg VERSION=1.4.2 ."),
		bk("encoded", "netrc-machine-line", "a password in a .netrc machine line", up,
			"machine api.acme.io login {U} password {S}", "machine github.com\n  login {U}\n  password {S}", "default login anonymous password {S}",
			"$ cat ~/.netrc\nmachine nexus.corp.example.org login deploy password {S}"),
		bk("encoded", "git-remote-token-url", "a token in a git remote URL", func(g *gen) string { return g.s(blHex, 40) },
			"git remote set-url origin https://oauth2:{S}@gitea.acme.io/platform/api.git",
			"[remote \"origin\"]\n\turl = https://{U}:{S}@git.example.org/team/site.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*",
			"origin\thttps://x-access-token:{S}@codeberg.org/acme/tools.git (fetch)"),
		bk("encoded", "odbc-connection-string", "Pwd= in an ODBC connection string", (*gen).blUpw,
			"Driver={ODBC Driver 18 for SQL Server};Server=tcp:{H},1433;Database=sales;Uid={U};Pwd={S};Encrypt=yes;",
			"DRIVER={PostgreSQL Unicode};SERVER={H};PORT=5432;DATABASE=app;UID={U};PWD={S}",
			"conn = pyodbc.connect('DSN=warehouse;UID={U};PWD={S}')"),
		bk("encoded", "jdbc-password-param", "password= in a JDBC URL's query", up,
			"jdbc:postgresql://{H}:5432/app?user={U}&password={S}&sslmode=require",
			"jdbc:mysql://{H}:3306/shop?user=root&password={S}&useSSL=false",
			"spring.datasource.url=jdbc:mariadb://{H}/erp?user=erp&password={S}"),
		bk("encoded", "jdbc-sqlserver-semicolon", "password= in a semicolon-separated JDBC SQL Server URL", up,
			"jdbc:sqlserver://{H}:1433;databaseName=crm;user=sa;password={S};encrypt=true;trustServerCertificate=true",
			"url: \"jdbc:sqlserver://{H};database=dw;user={U};password={S}\""),
		bk("encoded", "jdbc-oracle-thin", "user/password@ in an Oracle thin JDBC URL", up,
			"jdbc:oracle:thin:scott/{S}@//{H}:1521/ORCLPDB1", "db.url=jdbc:oracle:thin:{U}/{S}@{H}:1521:XE"),
		bk("encoded", "adonet-password", "Password= in an ADO.NET connection string", (*gen).blUpw,
			"Server={H};Database=Orders;User Id={U};Password={S};TrustServerCertificate=True;",
			"\"DefaultConnection\": \"Host={H};Port=5432;Database=app;Username={U};Password={S}\"",
			"Data Source={H};Initial Catalog=HR;User ID=sa;Password={S}"),
		bk("encoded", "mongodb-srv-uri", "a password in a mongodb+srv:// URI", up,
			"mongodb+srv://{U}:{S}@cluster0.x1y2z.mongodb.net/?retryWrites=true&w=majority",
			"MONGO_URL=\"mongodb+srv://app:{S}@prod.ab12c.mongodb.net/shop\"", "client = MongoClient('mongodb+srv://admin:{S}@atlas-7f3k.mongodb.net/test')"),
		bk("encoded", "amqp-url", "a password in an AMQP URL", up,
			"amqps://{U}:{S}@b-3f1c2d.mq.eu-west-1.amazonaws.com:5671", "CELERY_BROKER_URL=amqp://celery:{S}@rabbit:5672/prod", "spring.rabbitmq.addresses=amqp://app:{S}@{H}:5672"),
		bk("encoded", "redis-url", "a password in a redis:// or rediss:// URL", up,
			"REDIS_URL=redis://:{S}@{H}:6379/0", "rediss://default:{S}@eu1-sweet-gull-31337.upstash.io:6379", "cache: redis://cache:{S}@redis-master.prod.svc:6379/2"),
		bk("encoded", "smtp-url", "a password in an smtp:// URL", up,
			"MAILER_DSN=smtp://{U}%40acme.io:{S}@smtp.office365.com:587", "EMAIL_URL=smtps://apikey:{S}@smtp.sendgrid.net:465", "smtp://postmaster:{S}@mail.example.org:25"),
		bk("encoded", "ftp-url", "a password in an ftp:// or sftp:// URL", up,
			"ftp://{U}:{S}@ftp.example.org/incoming/", "curl -T dump.sql sftp://backup:{S}@{H}/backups/", "lftp sftp://deploy:{S}@{H}"),
		bk("encoded", "sqlalchemy-url", "a password in a SQLAlchemy URL", up,
			"SQLALCHEMY_DATABASE_URI = 'postgresql+psycopg2://{U}:{S}@{H}:5432/app'", "engine = create_engine(\"mysql+pymysql://root:{S}@{H}/inventory?charset=utf8mb4\")", "sql_alchemy_conn = postgresql+psycopg2://airflow:{S}@postgres/airflow"),
		bk("encoded", "clickhouse-nats-url", "a password in a ClickHouse, NATS or Kafka URL", up,
			"clickhouse://default:{S}@{H}:9000/analytics", "nats://{U}:{S}@nats.prod:4222", "CLICKHOUSE_URL=https://default:{S}@ab12cd.eu-central-1.aws.clickhouse.cloud:8443"),
		bkm("encoded", "powershell-encodedcommand", "a script with a password run as powershell -EncodedCommand (UTF-16LE base64)", func(g *gen) (string, string) {
			script := "$p = ConvertTo-SecureString '" + g.blShpw() + "' -AsPlainText -Force; New-PSDrive -Name S -PSProvider FileSystem -Root \\\\fs01\\share -Credential (New-Object PSCredential('ACME\\svc', $p))"
			s := blUTF16B64(script)
			return g.pick("powershell.exe -NoProfile -EncodedCommand {S}", "schtasks /create /tn map /tr \"powershell -enc {S}\" /sc onlogon"), s
		}),
		bkm("encoded", "url-double-encoded", "a password URL-encoded twice (%25XX)", func(g *gen) (string, string) {
			s := url.QueryEscape(url.QueryEscape(g.blSymPw()))
			return g.pick("https://{H}/callback?next=%2Flogin%3Fuser%3D{U}%26password%3D{S}", "redirect_uri=https%3A%2F%2Fapp%2F%3Fpw%3D{S}"), s
		}),
		bkm("encoded", "shell-escaped-quote", "a password with a quote written the shell's way ('\\'')", func(g *gen) (string, string) {
			a, b := blTitle(g.blWord())+g.s(blDig, 2), g.s(blB62, 6)+g.pick("!", "#", "")
			s := a + `'\''` + b
			return g.pick("mysql -u{U} -p'{S}' prod", "export DB_PASS='{S}'", "sshpass -p '{S}' ssh {U}@{H}"), s
		}),
		bkm("encoded", "xml-entity-escaped", "a password with XML entities in an attribute or element", func(g *gen) (string, string) {
			p := g.blPw()
			s := p[:len(p)/2] + g.pick("&amp;", "&lt;", "&gt;", "&quot;", "&#39;") + p[len(p)/2:]
			return g.pick("<add key=\"SmtpPassword\" value=\"{S}\" />", "<password>{S}</password>", "<entry key=\"db.password\">{S}</entry>"), s
		}),
		bkm("encoded", "yaml-escaped-double-quoted", "a password with escapes in a YAML double-quoted scalar", func(g *gen) (string, string) {
			p := g.blPw()
			s := p[:len(p)/2] + g.pick(`\"`, `\\`, `\t`) + p[len(p)/2:]
			return g.pick("password: \"{S}\"", "db:\n  pass: \"{S}\"\n  host: {H}"), s
		}),
		bkm("encoded", "properties-escaped", "a password with \\= \\: escapes in a .properties file", func(g *gen) (string, string) {
			s := blTitle(g.blWord()) + `\=` + g.s(blB62, 5) + `\:` + g.s(blDig, 3) + g.s(blB62, 2)
			return g.pick("db.password={S}", "mail.smtp.password = {S}"), s
		}),
		bkm("encoded", "hex-escaped-bytes", "a password as \\x escapes in a C or Python literal", func(g *gen) (string, string) {
			var b strings.Builder
			for _, c := range []byte(g.blShpw()) {
				fmt.Fprintf(&b, "\\x%02x", c)
			}
			s := b.String()
			return g.pick("char pw[] = \"{S}\";", "PASSWORD = b\"{S}\""), s
		}),
		bk("encoded", "docker-inspect-env", "a password in docker inspect's Env array", (*gen).blUpw,
			"\"Env\": [\n    \"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\",\n    \"POSTGRES_PASSWORD={S}\",\n    \"PGDATA=/var/lib/postgresql/data\"\n],",
			"\"Env\":[\"MARIADB_ROOT_PASSWORD={S}\",\"MARIADB_DATABASE=wp\"]"),
	}
}

// --- config files ---

func blindConfigs() []kindGen {
	pw, up := (*gen).blPw, (*gen).blUpw
	key := (*gen).blKey
	c := func(name, format string, secret func(g *gen) string, texts ...string) kindGen {
		return bk("config", name, format, secret, texts...)
	}
	return []kindGen{
		c("env-db-passwd", "DB_PASSWD= and its cousins in a .env file", pw, "DB_HOST={H}\nDB_USER={U}\nDB_PASSWD={S}\nDB_NAME={APP}", "DATABASE_PASS={S}", "PG_PASSWD=\"{S}\"", "DB_PWD='{S}'"),
		c("env-mysql-pwd", "MYSQL_PWD= in an environment", pw, "MYSQL_PWD={S}", "export MYSQL_PWD='{S}'\nmysql -h {H} -u {U} -e 'select 1'", "environment:\n  MYSQL_PWD: \"{S}\""),
		c("env-smtp-pass", "SMTP_PASS= and MAIL_PASSWORD= in a .env file", pw, "SMTP_HOST=smtp.acme.io\nSMTP_PORT=587\nSMTP_USER={E}\nSMTP_PASS={S}", "MAIL_PASSWORD={S}", "EMAIL_HOST_PASSWORD='{S}'"),
		c("env-signing-key", "SIGNING_KEY= (64 hex or base64) in a .env file", func(g *gen) string {
			if g.rng.IntN(2) == 0 {
				return g.s(blHex, 64)
			}
			return g.blB64(32)
		}, "SIGNING_KEY={S}", "WEBHOOK_SIGNING_SECRET={S}", "JWT_SIGNING_KEY=\"{S}\"", "COOKIE_SIGNING_KEY={S}"),
		c("env-encryption-key", "ENCRYPTION_KEY= (32 bytes, base64 or hex)", func(g *gen) string { return g.pick("", "base64:") + g.blB64(32) }, "ENCRYPTION_KEY={S}", "DATA_ENCRYPTION_KEY={S}", "FIELD_ENCRYPTION_KEY='{S}'", "N8N_ENCRYPTION_KEY={S}"),
		c("env-master-key", "MASTER_KEY= style keys (Meilisearch, Parse, …)", func(g *gen) string { return g.s(blB64U, 32+g.rng.IntN(16)) }, "MEILI_MASTER_KEY={S}", "PARSE_SERVER_MASTER_KEY={S}", "MASTER_KEY=\"{S}\"", "docker run -e MEILI_MASTER_KEY='{S}' -p 7700:7700 getmeili/meilisearch"),
		c("laravel-database-php-default", "a default password in Laravel's config/database.php", pw, "'password' => env('DB_PASSWORD', '{S}'),", "'mysql' => [\n    'driver' => 'mysql',\n    'host' => env('DB_HOST', '127.0.0.1'),\n    'username' => env('DB_USERNAME', 'forge'),\n    'password' => env('DB_PASSWORD', '{S}'),\n],"),
		c("jenkins-credentials-xml", "an encrypted secret in Jenkins' credentials.xml ({AQAAAB…})", func(g *gen) string { return "{AQAAABAAAAAQ" + g.blB64(48) + "}" },
			"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n  <scope>GLOBAL</scope>\n  <id>nexus-deploy</id>\n  <username>deploy</username>\n  <password>{S}</password>\n</com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>",
			"<org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl>\n  <id>slack-token</id>\n  <secret>{S}</secret>\n</org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl>"),
		c("maven-settings-xml", "<password> of a server in Maven's settings.xml", pw, "<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>deploy</username>\n    <password>{S}</password>\n  </server>\n</servers>", "<server><id>github</id><username>{U}</username><password>{S}</password></server>"),
		c("nuget-config-cleartext", "ClearTextPassword in NuGet.config", key, "<packageSourceCredentials>\n  <AcmeFeed>\n    <add key=\"Username\" value=\"{U}\" />\n    <add key=\"ClearTextPassword\" value=\"{S}\" />\n  </AcmeFeed>\n</packageSourceCredentials>", "dotnet nuget add source https://pkgs.acme.io/nuget/v3/index.json -n acme -u {U} -p {S} --store-password-in-clear-text"),
		c("pip-conf-index-url", "credentials in pip.conf's index-url", up, "[global]\nindex-url = https://{U}:{S}@pypi.acme.io/simple\ntrusted-host = pypi.acme.io", "[global]\nextra-index-url = https://__token__:{S}@gitlab.acme.io/api/v4/projects/42/packages/pypi/simple"),
		c("yarnrc-npm-auth-token", "npmAuthToken in .yarnrc.yml", func(g *gen) string { return g.s(blB62, 36) }, "npmScopes:\n  acme:\n    npmRegistryServer: \"https://npm.acme.io\"\n    npmAuthToken: \"{S}\"", "npmRegistryServer: \"https://registry.yarnpkg.com\"\nnpmAuthToken: {S}"),
		c("composer-auth-json", "a password or token in Composer's auth.json", up, "{\n    \"http-basic\": {\n        \"repo.packagist.com\": {\n            \"username\": \"token\",\n            \"password\": \"{S}\"\n        }\n    }\n}", "{\"bitbucket-oauth\": {\"bitbucket.org\": {\"consumer-key\": \"k3yAbc\", \"consumer-secret\": \"{S}\"}}}"),
		c("cargo-credentials-toml", "a registry token in Cargo's credentials.toml", func(g *gen) string { return g.s(blB62, 32) }, "[registries.acme]\ntoken = \"{S}\"", "[registry]\ntoken = \"Bearer {S}\""),
		c("rclone-s3-secret", "secret_access_key of an rclone S3 remote", func(g *gen) string { return g.s(blB62+"/+", 40) }, "[wasabi]\ntype = s3\nprovider = Wasabi\naccess_key_id = "+"WX7Q2LMB9TZ4KD1PAV3N"+"\nsecret_access_key = {S}\nendpoint = s3.eu-central-1.wasabisys.com"),
		c("s3cfg", "secret_key in ~/.s3cfg", func(g *gen) string { return g.s(blB62+"/+", 40) }, "[default]\naccess_key = DO00"+"ABCD1234EFGH5678"+"\nsecret_key = {S}\nhost_base = fra1.digitaloceanspaces.com", "secret_key = {S}"),
		c("boto-config", "aws_secret_access_key in a boto config", func(g *gen) string { return g.s(blB62+"/+", 40) }, "[Credentials]\naws_access_key_id = AKIA"+"Q2W3E4R5T6Y7U8I9"+"\naws_secret_access_key = {S}", "[Credentials]\ngs_secret_access_key = {S}"),
		c("wp-config-db-password", "DB_PASSWORD in wp-config.php", pw, "define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '{S}' );\ndefine( 'DB_HOST', 'localhost' );", "define('DB_PASSWORD', \"{S}\");"),
		c("rails-secret-key-base", "secret_key_base (128 hex) in Rails config", blHexS(128), "production:\n  secret_key_base: {S}", "SECRET_KEY_BASE={S}", "config.secret_key_base = \"{S}\""),
		c("django-databases-password", "a PASSWORD in Django's DATABASES", pw, "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': 'app',\n        'USER': '{U}',\n        'PASSWORD': '{S}',\n        'HOST': '{H}',\n    }\n}"),
		c("flask-secret-key", "SECRET_KEY of a Flask app", func(g *gen) string { return g.s(blHex, 48) }, "app.config['SECRET_KEY'] = '{S}'", "app.secret_key = b'{S}'", "SECRET_KEY = \"{S}\"  # config.py"),
		c("symfony-app-secret", "APP_SECRET (32 hex) in a Symfony .env", blHexS(32), "APP_ENV=prod\nAPP_SECRET={S}", "framework:\n    secret: '{S}'"),
		c("ghost-config-mail", "the mail password in Ghost's config.production.json", pw, "\"mail\": {\n  \"transport\": \"SMTP\",\n  \"options\": {\n    \"service\": \"Mailgun\",\n    \"auth\": {\n      \"user\": \"postmaster@mg.acme.io\",\n      \"pass\": \"{S}\"\n    }\n  }\n}"),
		c("keycloak-client-secret", "a client secret in a Keycloak realm export", blAlnum(32), "{\n  \"clientId\": \"{APP}-backend\",\n  \"enabled\": true,\n  \"clientAuthenticatorType\": \"client-secret\",\n  \"secret\": \"{S}\",\n  \"redirectUris\": [\"https://{APP}.acme.io/*\"]\n}", "KC_CLIENT_SECRET={S}", "spring.security.oauth2.client.registration.keycloak.client-secret={S}"),
		c("grafana-admin-password-env", "GF_SECURITY_ADMIN_PASSWORD", pw, "GF_SECURITY_ADMIN_PASSWORD={S}", "grafana:\n  environment:\n    - GF_SECURITY_ADMIN_USER=admin\n    - GF_SECURITY_ADMIN_PASSWORD={S}", "adminPassword: {S}"),
		c("jupyter-server-token", "the token of a Jupyter server config", blHexS(48), "c.ServerApp.token = '{S}'", "c.NotebookApp.token = u'{S}'", "jupyter lab --ip=0.0.0.0 --ServerApp.token={S}", "http://127.0.0.1:8888/lab?token={S}"),
		c("gitlab-rb-root-password", "initial_root_password in gitlab.rb", pw, "gitlab_rails['initial_root_password'] = \"{S}\"", "GITLAB_ROOT_PASSWORD={S}", "gitlab_rails['smtp_password'] = \"{S}\""),
		c("airflow-cfg-secrets", "secret_key and fernet_key in airflow.cfg", func(g *gen) string { return g.blB64u(32) + "=" }, "[core]\nfernet_key = {S}\n\n[webserver]\nbase_url = http://localhost:8080", "AIRFLOW__CORE__FERNET_KEY={S}", "[webserver]\nsecret_key = {S}"),
		c("nextcloud-config-php", "dbpassword or secret in Nextcloud's config.php", pw, "  'dbtype' => 'mysql',\n  'dbname' => 'nextcloud',\n  'dbhost' => 'localhost',\n  'dbuser' => 'ncuser',\n  'dbpassword' => '{S}',", "  'secret' => '{S}',\n  'passwordsalt' => 'x'"),
		c("mattermost-config-json", "AtRestEncryptKey or a SQL DataSource password in Mattermost's config.json", up, "\"SqlSettings\": {\n    \"DriverName\": \"postgres\",\n    \"DataSource\": \"postgres://mmuser:{S}@localhost:5432/mattermost?sslmode=disable\",\n    \"AtRestEncryptKey\": \"\"\n}", "\"AtRestEncryptKey\": \"{S}\","),
		c("home-assistant-secrets-yaml", "a password in Home Assistant's secrets.yaml", pw, "# secrets.yaml\nmqtt_password: {S}\nlatitude: 52.52", "wifi_password: \"{S}\"\nhttp_password: x", "router_password: {S}"),
		c("haproxy-stats-auth", "stats auth user:password in haproxy.cfg", up, "listen stats\n    bind *:8404\n    stats enable\n    stats uri /stats\n    stats auth admin:{S}", "userlist ops\n    user admin insecure-password {S}"),
		c("postfix-sasl-passwd", "a relay password in Postfix's sasl_passwd", up, "[smtp.gmail.com]:587 {E}:{S}", "# /etc/postfix/sasl_passwd\n[email-smtp.eu-west-1.amazonaws.com]:587 AKIAIOSFODNN7EXAMPLE:{S}"),
		c("fetchmailrc", "a password in .fetchmailrc", pw, "poll imap.acme.io protocol IMAP\n  user '{E}' there with password '{S}' is '{U}' here\n  ssl"),
		c("muttrc-imap-pass", "imap_pass / smtp_pass in .muttrc", pw, "set imap_user = \"{E}\"\nset imap_pass = \"{S}\"\nset folder = \"imaps://imap.acme.io:993\"", "set smtp_url = \"smtps://{U}@smtp.acme.io:465\"\nset smtp_pass = '{S}'"),
		c("rabbitmq-conf-default-pass", "default_pass in rabbitmq.conf", pw, "default_user = admin\ndefault_pass = {S}", "RABBITMQ_DEFAULT_PASS={S}"),
		c("redis-conf-requirepass", "requirepass / masterauth in redis.conf", pw, "bind 0.0.0.0\nport 6379\nrequirepass {S}", "masterauth {S}\nreplicaof 10.0.0.5 6379", "sentinel auth-pass mymaster {S}"),
		c("kibana-yml-password", "elasticsearch.password in kibana.yml", pw, "elasticsearch.hosts: [\"https://es01:9200\"]\nelasticsearch.username: \"kibana_system\"\nelasticsearch.password: \"{S}\"", "xpack.encryptedSavedObjects.encryptionKey: \"{S}\""),
		c("logstash-output-password", "password => in a Logstash pipeline", pw, "output {\n  elasticsearch {\n    hosts => [\"https://es:9200\"]\n    user => \"logstash_writer\"\n    password => \"{S}\"\n  }\n}"),
		c("fluent-bit-http-passwd", "HTTP_Passwd in a Fluent Bit output", pw, "[OUTPUT]\n    Name        es\n    Match       *\n    Host        es.acme.io\n    HTTP_User   fluent\n    HTTP_Passwd {S}"),
		c("telegraf-password", "password = in telegraf.conf", pw, "[[outputs.influxdb]]\n  urls = [\"http://influx:8086\"]\n  database = \"telegraf\"\n  username = \"telegraf\"\n  password = \"{S}\"", "[[inputs.mysql]]\n  servers = [\"monitor:{S}@tcp(127.0.0.1:3306)/\"]"),
		c("alertmanager-smtp-password", "smtp_auth_password in alertmanager.yml", pw, "global:\n  smtp_smarthost: 'smtp.acme.io:587'\n  smtp_from: 'alerts@acme.io'\n  smtp_auth_username: 'alerts@acme.io'\n  smtp_auth_password: '{S}'"),
		c("zabbix-dbpassword", "DBPassword= in zabbix_server.conf", pw, "DBHost=localhost\nDBName=zabbix\nDBUser=zabbix\nDBPassword={S}"),
		c("nagios-resource-cfg", "a $USERn$ macro holding a password in Nagios' resource.cfg", pw, "$USER1$=/usr/lib/nagios/plugins\n$USER3$={S}", "# SNMP community and db password\n$USER5$=public\n$USER7$={S}"),
		c("slapd-rootpw", "a plaintext rootpw in slapd.conf or olcRootPW", pw, "database mdb\nsuffix \"dc=acme,dc=io\"\nrootdn \"cn=admin,dc=acme,dc=io\"\nrootpw {S}", "olcRootPW: {S}"),
		c("sssd-ldap-authtok", "ldap_default_authtok in sssd.conf", pw, "[domain/acme.io]\nid_provider = ldap\nldap_default_bind_dn = cn=sssd,ou=svc,dc=acme,dc=io\nldap_default_authtok = {S}"),
		c("freeradius-client-secret", "a shared secret in FreeRADIUS clients.conf", pw, "client office-ap {\n    ipaddr = 10.0.20.0/24\n    secret = {S}\n}"),
		c("ipsec-secrets-psk", "a pre-shared key in ipsec.secrets", pw, ": PSK \"{S}\"", "203.0.113.10 198.51.100.7 : PSK \"{S}\"", "vpn-office : EAP \"{S}\""),
		c("asterisk-sip-secret", "secret= of a SIP peer in sip.conf / pjsip.conf", pw, "[1001]\ntype=friend\nhost=dynamic\nsecret={S}\ncontext=internal", "[1002-auth]\ntype=auth\nauth_type=userpass\nusername=1002\npassword={S}"),
		c("hostapd-wpa-passphrase", "wpa_passphrase in hostapd.conf", pw, "interface=wlan0\nssid=AcmeLab\nwpa=2\nwpa_key_mgmt=WPA-PSK\nwpa_passphrase={S}"),
		c("nmconnection-psk", "psk= in a NetworkManager Wi-Fi profile", pw, "[wifi]\nmode=infrastructure\nssid=Office-5G\n\n[wifi-security]\nkey-mgmt=wpa-psk\npsk={S}"),
		c("netplan-wifi-password", "a Wi-Fi password in a netplan file", pw, "network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n        \"HomeNet\":\n          password: \"{S}\""),
		c("unattend-xml-admin-password", "a plain-text AdministratorPassword in unattend.xml", pw, "<UserAccounts>\n  <AdministratorPassword>\n    <Value>{S}</Value>\n    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>", "<AutoLogon>\n  <Password><Value>{S}</Value><PlainText>true</PlainText></Password>\n  <Username>Administrator</Username>\n</AutoLogon>"),
		c("cloud-init-password", "a password in cloud-init user-data", pw, "#cloud-config\nchpasswd:\n  list: |\n    root:{S}\n  expire: false", "#cloud-config\nusers:\n  - name: {U}\n    plain_text_passwd: '{S}'\n    lock_passwd: false", "#cloud-config\npassword: {S}\nssh_pwauth: true"),
		c("kickstart-rootpw", "rootpw --plaintext in a kickstart file", pw, "lang en_US.UTF-8\nkeyboard us\nrootpw --plaintext {S}\nuser --name={U} --password={S} --plaintext"),
		c("preseed-root-password", "the root password in a Debian preseed", pw, "d-i passwd/root-password password {S}\nd-i passwd/root-password-again password {S}", "d-i passwd/user-password password {S}"),
		c("vagrantfile-ssh-password", "config.ssh.password in a Vagrantfile", pw, "Vagrant.configure(\"2\") do |config|\n  config.vm.box = \"generic/ubuntu2204\"\n  config.ssh.username = \"{U}\"\n  config.ssh.password = \"{S}\"\nend"),
		c("packer-ssh-password", "ssh_password / winrm_password in a Packer template", pw, "source \"vsphere-iso\" \"win\" {\n  communicator   = \"winrm\"\n  winrm_username = \"Administrator\"\n  winrm_password = \"{S}\"\n}", "\"ssh_password\": \"{S}\","),
		c("gitconfig-extraheader", "a basic auth header in git's http.extraheader", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte("x-access-token:" + g.s(blB62, 36)))
		},
			"[http \"https://git.acme.io/\"]\n\textraheader = AUTHORIZATION: basic {S}", "git -c http.extraheader=\"AUTHORIZATION: basic {S}\" clone https://git.acme.io/app.git"),
		c("apt-auth-conf", "a password in /etc/apt/auth.conf.d", up, "machine apt.acme.io\nlogin deploy\npassword {S}", "machine repo.example.org/debian login {U} password {S}"),
		c("yum-repo-password", "password= in a yum/dnf .repo file", up, "[acme-internal]\nname=Acme internal\nbaseurl=https://rpm.acme.io/el9/$basearch\nusername={U}\npassword={S}\ngpgcheck=1"),
		c("condarc-channel-token", "a channel token in .condarc", func(g *gen) string { return g.s(blLow36, 2) + "-" + g.blUUID() }, "channels:\n  - https://conda.anaconda.org/t/{S}/acme\n  - defaults", "conda config --add channels https://repo.anaconda.cloud/t/{S}/main"),
		c("sbt-credentials-file", "password= in an sbt .credentials file", up, "realm=Sonatype Nexus Repository Manager\nhost=nexus.acme.io\nuser=deploy\npassword={S}"),
		c("pypirc-password", "password in .pypirc for a private index", pw, "[distutils]\nindex-servers = acme\n\n[acme]\nrepository = https://pypi.acme.io/\nusername = {U}\npassword = {S}"),
		c("poetry-auth-toml", "a password in Poetry's auth.toml", pw, "[http-basic.acme]\nusername = \"{U}\"\npassword = \"{S}\"", "poetry config http-basic.acme {U} {S}"),
		c("postman-environment-secret", "a secret value in a Postman environment export", key, "{\n  \"name\": \"prod\",\n  \"values\": [\n    {\"key\": \"baseUrl\", \"value\": \"https://api.acme.io\", \"enabled\": true},\n    {\"key\": \"apiKey\", \"value\": \"{S}\", \"type\": \"secret\", \"enabled\": true}\n  ]\n}"),
		c("vscode-sqltools-password", "a connection password in VS Code settings.json", pw, "\"sqltools.connections\": [\n  {\n    \"name\": \"prod-pg\",\n    \"driver\": \"PostgreSQL\",\n    \"server\": \"{H}\",\n    \"username\": \"{U}\",\n    \"password\": \"{S}\"\n  }\n]"),
		c("filezilla-sitemanager", "a base64 <Pass> in FileZilla's sitemanager.xml", func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(g.blPw())) }, "<Server>\n  <Host>{H}</Host>\n  <Port>21</Port>\n  <User>{U}</User>\n  <Pass encoding=\"base64\">{S}</Pass>\n</Server>"),
		c("winscp-ini-password", "an obfuscated Password= in WinSCP.ini", func(g *gen) string { return "A35C" + g.s(blHexUp, 60) }, "[Sessions\\prod-sftp]\nHostName={H}\nUserName={U}\nPassword={S}"),
		c("nginx-proxy-basic-header", "a Basic header set in an nginx proxy block", func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte("svc:" + g.blUpw())) }, "location /api/ {\n    proxy_pass http://backend;\n    proxy_set_header Authorization \"Basic {S}\";\n}"),
		c("ci-variables-literal", "a literal secret in CI variables (GitLab, CircleCI, GitHub Actions)", key, "variables:\n  DEPLOY_TOKEN: \"{S}\"\n  DOCKER_DRIVER: overlay2", "jobs:\n  deploy:\n    docker:\n      - image: cimg/node:20.11\n    environment:\n      API_TOKEN: {S}", "      - uses: acme/deploy-action@v2\n        with:\n          api-key: {S}"),
		c("ansible-inventory-pass", "ansible_ssh_pass / ansible_become_pass in an INI inventory", pw, "[web]\n10.0.1.11 ansible_user=deploy ansible_ssh_pass={S}\n10.0.1.12", "[all:vars]\nansible_become_pass='{S}'"),
		c("configmap-with-password", "a password misplaced in a Kubernetes ConfigMap", pw, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {APP}-config\ndata:\n  DB_HOST: {H}\n  DB_PASSWORD: \"{S}\""),
		c("spring-datasource-properties", "spring.datasource.password in application.properties", pw, "spring.datasource.url=jdbc:postgresql://{H}:5432/app\nspring.datasource.username={U}\nspring.datasource.password={S}", "spring.mail.password={S}"),
		c("hibernate-cfg-xml", "hibernate.connection.password in hibernate.cfg.xml", pw, "<property name=\"hibernate.connection.username\">{U}</property>\n<property name=\"hibernate.connection.password\">{S}</property>"),
		c("tomcat-users-xml", "a user's password in tomcat-users.xml", pw, "<tomcat-users>\n  <role rolename=\"manager-gui\"/>\n  <user username=\"admin\" password=\"{S}\" roles=\"manager-gui,admin-gui\"/>\n</tomcat-users>"),
		c("appsettings-json-smtp", "a password in an ASP.NET appsettings.json", pw, "{\n  \"Smtp\": {\n    \"Host\": \"smtp.acme.io\",\n    \"Port\": 587,\n    \"User\": \"{E}\",\n    \"Password\": \"{S}\"\n  }\n}", "\"ApiSettings\": { \"ClientSecret\": \"{S}\" }"),
		c("supervisord-http-password", "password= of supervisord's inet_http_server", pw, "[inet_http_server]\nport = 0.0.0.0:9001\nusername = admin\npassword = {S}"),
		c("odbc-ini-password", "Password = in odbc.ini", pw, "[warehouse]\nDriver = PostgreSQL Unicode\nServername = {H}\nDatabase = dw\nUsername = {U}\nPassword = {S}"),
		c("minio-root-password", "MINIO_ROOT_PASSWORD / MINIO_SECRET_KEY", pw, "MINIO_ROOT_USER=admin\nMINIO_ROOT_PASSWORD={S}", "docker run -p 9000:9000 -e MINIO_ROOT_USER=minio -e MINIO_ROOT_PASSWORD={S} quay.io/minio/minio server /data"),
		c("elastic-password-env", "ELASTIC_PASSWORD in a compose file or .env", pw, "  es01:\n    image: docker.elastic.co/elasticsearch/elasticsearch:8.13.0\n    environment:\n      - ELASTIC_PASSWORD={S}\n      - discovery.type=single-node", "ELASTIC_PASSWORD={S}\nKIBANA_PASSWORD=${KIBANA_PASSWORD}"),
	}
}

// --- command lines ---

func blindCommands() []kindGen {
	sh, pw, up := (*gen).blShpw, (*gen).blPw, (*gen).blUpw
	c := func(name, format string, secret func(g *gen) string, texts ...string) kindGen {
		return bk("command", name, format, secret, texts...)
	}
	return []kindGen{
		c("mysqldump-p-attached-cron", "mysqldump -pSECRET in a cron line or script", sh, "0 3 * * * mysqldump -u root -p{S} --single-transaction shop | gzip > /backup/shop.sql.gz", "mysqldump -h {H} -u{U} -p{S} --routines app > app.sql", "for db in a b c; do mysqldump -uroot -p\"{S}\" $db > $db.sql; done"),
		c("mariadb-p-quoted", "mariadb/mysql -p'…' with the password quoted", pw, "mariadb -u {U} -p'{S}' -h {H} app", "mysql --user=root -p\"{S}\" --execute=\"SHOW PROCESSLIST\"", "mysqladmin -u root -p'{S}' status"),
		c("mysqladmin-password-change", "mysqladmin … password NEW", pw, "mysqladmin -u root password '{S}'", "mysqladmin -u root -p password \"{S}\""),
		c("psql-uri-argument", "psql with a postgres:// URI argument", up, "psql \"postgresql://{U}:{S}@{H}:5432/app?sslmode=require\"", "psql postgres://postgres:{S}@localhost/postgres -c '\\l'", "pg_dump \"postgres://app:{S}@{H}/app\" -Fc -f app.dump"),
		c("sqlplus-user-pass-at", "sqlplus user/PASS@db", up, "sqlplus system/{S}@ORCLPDB1", "sqlplus -s {U}/{S}@//{H}:1521/XEPDB1 @report.sql", "rman target sys/{S}@prod"),
		c("mongosh-uri-argument", "mongosh or mongo with a mongodb:// URI", up, "mongosh \"mongodb://{U}:{S}@{H}:27017/admin?authSource=admin\"", "mongo mongodb://root:{S}@mongo-0.mongo:27017/test", "mongorestore --uri=\"mongodb://restore:{S}@{H}:27017\" dump/"),
		c("redis-cli-uri", "redis-cli -u redis://user:pass@host", up, "redis-cli -u redis://default:{S}@{H}:6379 PING", "redis-cli --tls -u rediss://admin:{S}@cache.acme.io:6380 INFO"),
		c("curl-header-authorization", "curl -H 'Authorization: token|Bearer …'", func(g *gen) string { return g.s(blB62, 40) }, "curl -H 'Authorization: token {S}' https://git.acme.io/api/v1/user", "curl -sS -X POST -H \"Authorization: Bearer {S}\" -d '{\"q\":1}' https://{H}/api", "curl --header \"PRIVATE-TOKEN: {S}\" https://gitlab.acme.io/api/v4/projects"),
		c("curl-form-password", "curl -F or --data-urlencode with a password", pw, "curl -F 'username={U}' -F 'password={S}' https://{H}/login", "curl --data-urlencode 'password={S}' --data-urlencode 'user={U}' https://{H}/api/session"),
		c("curl-u-token-colon", "curl -u TOKEN: or -u user:TOKEN for an API", func(g *gen) string { return g.s(blB62, 32) }, "curl -u {S}: https://api.acme.io/v1/charges", "curl -u 'api:{S}' https://api.mailprovider.io/v3/domains", "curl --user {U}:{S} https://{H}/api/v2/jobs"),
		c("wget-ftp-password", "wget --ftp-password / --http-passwd", sh, "wget --ftp-user={U} --ftp-password={S} ftp://{H}/pub/dump.tar.gz", "wget --http-user=admin --http-passwd={S} https://{H}/reports/q1.pdf"),
		c("htpasswd-nbb", "htpasswd -nbB user PASS", sh, "htpasswd -nbB admin {S}", "htpasswd -bc /etc/nginx/.htpasswd {U} {S}", "docker run --rm httpd:2.4 htpasswd -Bbn registry {S} > auth/htpasswd"),
		c("smbclient-password-flag", "smbclient --password= or the password as an argument", sh, "smbclient //fs01/share -U {U} --password={S}", "smbclient '//{H}/backup' '{S}' -U ACME/{U} -c 'ls'"),
		c("rdesktop-p", "rdesktop -p PASS", sh, "rdesktop -u Administrator -p {S} -g 1920x1080 {H}", "rdesktop -d ACME -u {U} -p '{S}' ts01.acme.io"),
		c("openssl-passout", "openssl … -passout pass: / -passin pass:", sh, "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{S}", "openssl rsa -in enc.key -out plain.key -passin pass:'{S}'", "openssl req -new -key server.key -out server.csr -passin pass:{S} -subj '/CN=acme.io'"),
		c("keytool-importkeystore", "keytool -importkeystore -srcstorepass/-deststorepass", sh, "keytool -importkeystore -srckeystore bundle.p12 -srcstoretype PKCS12 -srcstorepass {S} -destkeystore app.jks -deststorepass changeit", "keytool -genkeypair -alias app -keyalg RSA -keystore app.jks -storepass {S} -keypass {S} -dname CN=app"),
		c("zip-P", "zip -P PASS", sh, "zip -P {S} -r export.zip reports/", "zip -e -P '{S}' secrets.zip .env"),
		c("7z-p-attached", "7z a -pPASS", sh, "7z a -p{S} -mhe=on backup.7z /srv/data", "7z x archive.7z -p\"{S}\" -o/tmp/out"),
		c("unrar-p-attached", "unrar x -pPASS", sh, "unrar x -p{S} delivery.rar", "rar a -hp{S} logs.rar /var/log/app"),
		c("gpg-passphrase-batch", "gpg --batch --passphrase", pw, "gpg --batch --yes --passphrase '{S}' -d backup.tar.gpg | tar x", "gpg --pinentry-mode loopback --passphrase \"{S}\" --sign release.tar.gz", "echo '{S}' | gpg --batch --passphrase-fd 0 -c notes.txt"),
		c("docker-login-password-stdin", "echo PASS | docker login --password-stdin", pw, "echo '{S}' | docker login registry.acme.io -u {U} --password-stdin", "echo \"{S}\" | podman login quay.io --username acme+ci --password-stdin"),
		c("helm-repo-add-password", "helm repo add --password", sh, "helm repo add acme https://charts.acme.io --username {U} --password {S}", "helm registry login registry.acme.io -u robot -p {S}"),
		c("git-push-url-token", "a token in a git push or clone URL", func(g *gen) string { return g.s(blB62, 40) }, "git push https://{U}:{S}@git.acme.io/team/app.git main", "git clone https://oauth2:{S}@gitlab.example.org/infra/terraform.git", "git submodule add https://ci:{S}@bitbucket.example.org/scm/lib/core.git"),
		c("az-login-u-p", "az login -u … -p …", sh, "az login -u {E} -p {S}", "az login --username {E} --password '{S}' --allow-no-subscriptions"),
		c("gcloud-sql-set-password", "gcloud sql users set-password --password", sh, "gcloud sql users set-password root --host=% --instance=prod-db --password={S}", "gcloud sql users create app --instance=prod-db --password='{S}'"),
		c("ipmitool-user-set-password", "ipmitool user set password", sh, "ipmitool user set password 2 {S}", "ipmitool -I lanplus -H 10.10.0.31 -U ADMIN -P {S} user list"),
		c("snmp-community-and-v3", "an SNMP community string or v3 auth/priv passphrases", sh, "snmpwalk -v2c -c {S} 10.0.0.1 system", "snmpget -v3 -l authPriv -u monitor -a SHA -A {S} -x AES -X \"$SNMP_PRIV\" {H} sysUpTime.0", "snmpset -v2c -c {S} switch01 sysContact.0 s ops"),
		c("plink-pw", "plink/pscp -pw PASS", sh, "plink -ssh {U}@{H} -pw {S} \"sudo systemctl restart app\"", "pscp -pw {S} report.csv {U}@{H}:/tmp/"),
		c("vault-login-token-arg", "vault login with a token argument", func(g *gen) string { return "s." + g.s(blB62, 24) }, "vault login {S}", "VAULT_ADDR=https://vault.acme.io vault login -method=token token={S}", "vault token revoke {S}"),
		c("iwctl-passphrase", "iwctl --passphrase", pw, "iwctl --passphrase '{S}' station wlan0 connect HomeNet", "iwctl --passphrase={S} station wlan0 connect Office-5G"),
		c("wpa-passphrase-cmd", "wpa_passphrase SSID PASS", pw, "wpa_passphrase HomeNet '{S}' >> /etc/wpa_supplicant/wpa_supplicant.conf", "wpa_passphrase \"Office WiFi\" {S}"),
		c("useradd-p-openssl", "useradd -p $(openssl passwd …) with the password", sh, "useradd -m -s /bin/bash -p \"$(openssl passwd -6 '{S}')\" {U}", "usermod --password $(echo {S} | openssl passwd -1 -stdin) {U}"),
		c("sudo-S-echo", "echo PASS | sudo -S", pw, "echo '{S}' | sudo -S apt-get update", "echo \"{S}\" | sudo -S systemctl restart nginx", "sshpass -p x ssh {U}@{H} \"echo '{S}' | sudo -S reboot\""),
		c("powershell-invoke-rest-headers", "PowerShell Invoke-RestMethod with an Authorization header", func(g *gen) string { return g.s(blB62, 40) }, "Invoke-RestMethod -Uri https://api.acme.io/v1/users -Headers @{Authorization = \"Bearer {S}\"}", "$headers = @{ 'X-Api-Key' = '{S}' }\nInvoke-WebRequest -Uri $url -Headers $headers"),
		c("powershell-networkcredential", "[NetworkCredential]::new(user, pass) in PowerShell", pw, "$cred = [System.Net.NetworkCredential]::new('{U}', '{S}')", "$c = New-Object System.Net.NetworkCredential(\"svc_sql\", \"{S}\", \"ACME\")"),
		c("invoke-sqlcmd-password", "Invoke-Sqlcmd -Password", pw, "Invoke-Sqlcmd -ServerInstance {H} -Database HR -Username sa -Password '{S}' -Query 'SELECT 1'"),
		c("psexec-u-p", "psexec -u … -p …", sh, "psexec \\\\{H} -u ACME\\{U} -p {S} cmd /c ipconfig", "PsExec64.exe -accepteula \\\\srv02 -u Administrator -p \"{S}\" -s powershell"),
		c("cmdkey-pass", "cmdkey /pass:", sh, "cmdkey /generic:TERMSRV/{H} /user:ACME\\{U} /pass:{S}", "cmdkey /add:fs01.acme.io /user:{U} /pass:\"{S}\""),
		c("schtasks-rp", "schtasks /create … /RP PASS", sh, "schtasks /create /tn \"Nightly Backup\" /tr C:\\scripts\\backup.cmd /sc daily /st 02:00 /ru ACME\\svc_backup /rp {S}", "schtasks /change /tn Sync /ru svc_sync /rp \"{S}\""),
		c("sc-config-password", "sc config … password=", sh, "sc config AcmeAgent obj= \".\\svc_agent\" password= \"{S}\"", "sc.exe create Worker binPath= C:\\app\\worker.exe obj= ACME\\svc password= {S}"),
		c("wmic-password", "wmic /user: /password:", sh, "wmic /node:{H} /user:ACME\\{U} /password:{S} process call create \"cmd /c whoami\""),
		c("ldappasswd-s", "ldappasswd -w ADMIN -s NEW", sh, "ldappasswd -x -D \"cn=admin,dc=acme,dc=io\" -w adminpw -s {S} \"uid={U},ou=people,dc=acme,dc=io\"", "ldapadd -x -D cn=admin,dc=acme,dc=io -w {S} -f users.ldif"),
		c("rabbitmqctl-add-user", "rabbitmqctl add_user / change_password", sh, "rabbitmqctl add_user {U} {S}", "rabbitmqctl change_password admin '{S}'"),
		c("mongo-createuser", "db.createUser with pwd", pw, "db.createUser({user: \"{U}\", pwd: \"{S}\", roles: [{role: \"readWrite\", db: \"app\"}]})", "use admin\ndb.changeUserPassword(\"root\", \"{S}\")"),
		c("kubectl-docker-registry-secret", "kubectl create secret docker-registry --docker-password", sh, "kubectl create secret docker-registry regcred --docker-server=registry.acme.io --docker-username={U} --docker-password={S} -n prod"),
		c("paas-secret-set", "heroku config:set / fly secrets set / wrangler with a literal", func(g *gen) string { return g.s(blB62, 32) }, "heroku config:set STRIPE_KEY={S} -a acme-prod", "fly secrets set DATABASE_PASSWORD={S} --app acme-api", "echo '{S}' | npx wrangler secret put API_KEY", "echo -n {S} | vercel env add API_SECRET production"),
		c("cloud-secret-store-put", "a literal value put into a cloud secret store", pw, "aws ssm put-parameter --name /prod/db/password --value '{S}' --type SecureString --overwrite", "az keyvault secret set --vault-name acme-kv --name db-password --value '{S}'", "echo -n \"{S}\" | gcloud secrets create db-password --data-file=-"),
		c("rclone-obscure-inline", "a password passed through rclone obscure", sh, "rclone config create nas sftp host {H} user {U} pass $(rclone obscure {S})", "rclone obscure '{S}'"),
		c("backup-tool-passphrase-env", "RESTIC_PASSWORD= / BORG_PASSPHRASE= before a backup command", pw, "RESTIC_PASSWORD='{S}' restic -r s3:s3.amazonaws.com/acme-backup backup /srv", "export BORG_PASSPHRASE='{S}'\nborg create ::'{now}' /home", "KOPIA_PASSWORD={S} kopia snapshot create /data"),
		c("openssl-enc-k", "openssl enc -k PASS / -pass pass:", sh, "openssl enc -aes-256-cbc -salt -pbkdf2 -k {S} -in dump.sql -out dump.sql.enc", "openssl enc -d -aes-256-cbc -pass pass:{S} -in secrets.enc"),
		c("cryptsetup-echo", "a LUKS passphrase piped to cryptsetup", pw, "echo -n '{S}' | cryptsetup luksOpen /dev/sdb1 data -", "printf '%s' '{S}' | cryptsetup luksFormat /dev/nvme1n1 -"),
		c("veracrypt-password", "veracrypt --password=", sh, "veracrypt --text --mount /data/vault.hc /mnt/vault --password={S} --pim=0 --non-interactive"),
		c("ncftpput-p", "ncftpput -u … -p …", sh, "ncftpput -u {U} -p {S} {H} /incoming report.csv"),
		c("mosquitto-pub-P", "mosquitto_pub/sub -P PASS", sh, "mosquitto_pub -h {H} -u sensor -P {S} -t home/temp -m 21.5", "mosquitto_sub -h broker.acme.io -p 8883 -u {U} -P '{S}' -t '#' -v"),
		c("pip-install-index-token", "pip install with credentials in --index-url", up, "pip install --index-url https://{U}:{S}@pypi.acme.io/simple acme-core", "pip install acme-sdk --extra-index-url https://__token__:{S}@gitlab.acme.io/api/v4/groups/7/-/packages/pypi/simple"),
		c("npm-config-set-authtoken", "npm config set …:_authToken", func(g *gen) string { return g.s(blB62, 36) }, "npm config set //npm.acme.io/:_authToken {S}", "npm config set //registry.npmjs.org/:_authToken=\"{S}\""),
		c("ssh-keygen-change-passphrase", "ssh-keygen -p -P OLD -N NEW", sh, "ssh-keygen -p -f ~/.ssh/id_ed25519 -P '' -N '{S}'", "ssh-keygen -p -P {S} -N '' -f deploy_key"),
		c("kinit-echo", "a Kerberos password piped to kinit", pw, "echo '{S}' | kinit {U}@ACME.IO", "echo \"{S}\" | kinit -f svc_hadoop@CORP.EXAMPLE.ORG"),
		c("mount-smbfs-macos", "mount_smbfs //user:pass@host/share", up, "mount_smbfs //{U}:{S}@fs01.acme.io/Projects ~/mnt/projects", "open 'smb://{U}:{S}@nas.lan/Media'"),
		c("bcp-isql-password", "bcp -P / isql DSN user PASS", sh, "bcp HR.dbo.Employees out emp.dat -S {H} -U sa -P {S} -c", "isql -v warehouse {U} {S}"),
		c("db-cli-password-flag", "clickhouse-client / cqlsh / cypher-shell / etcdctl passwords", sh, "clickhouse-client --host {H} --user default --password {S} --query 'SELECT 1'", "cqlsh {H} -u cassandra -p {S}", "cypher-shell -a bolt://{H}:7687 -u neo4j -p {S}", "etcdctl --endpoints=https://10.0.0.5:2379 --user root:{S} get / --prefix --keys-only"),
		c("kubeadm-join-token", "a kubeadm bootstrap token (6.16)", func(g *gen) string {
			return g.s("abcdefghijklmnopqrstuvwxyz0123456789", 6) + "." + g.s("abcdefghijklmnopqrstuvwxyz0123456789", 16)
		}, "kubeadm join 10.0.0.10:6443 --token {S} --discovery-token-ca-cert-hash sha256:"+strings.Repeat("ab", 32), "kubeadm token create {S} --ttl 2h"),
		c("k3s-node-token", "a K3S_TOKEN (K10…::server:…)", func(g *gen) string { return "K10" + g.s(blHex, 64) + "::server:" + g.s(blHex, 32) }, "curl -sfL https://get.k3s.io | K3S_URL=https://10.0.0.10:6443 K3S_TOKEN={S} sh -", "$ sudo cat /var/lib/rancher/k3s/server/node-token\n{S}"),
		c("docker-swarm-join-token", "a Swarm join token (SWMTKN-1-…)", func(g *gen) string { return "SWMTKN-1-" + g.s(blLow36, 50) + "-" + g.s(blLow36, 25) }, "docker swarm join --token {S} 10.0.0.10:2377"),
		c("az-storage-account-key", "az storage … --account-key", func(g *gen) string { return g.blB64(64) }, "az storage blob upload --account-name acmestore --account-key {S} -c backups -f db.bak -n db.bak", "az storage container list --account-name acmelogs --account-key \"{S}\""),
		c("aws-inline-env-secret", "AWS_SECRET_ACCESS_KEY=… before an aws command", func(g *gen) string { return g.s(blB62+"/+", 40) }, "AWS_ACCESS_KEY_ID=AKIA"+"5XQ2Y7W3M9K1P4TZ"+" AWS_SECRET_ACCESS_KEY={S} aws s3 ls s3://acme-logs", "env AWS_SECRET_ACCESS_KEY='{S}' terraform plan"),
		c("minio-mc-alias-set", "mc alias set ALIAS URL ACCESS SECRET", func(g *gen) string { return g.s(blB62, 32) }, "mc alias set myminio http://{H}:9000 admin {S}", "mc config host add s3 https://s3.amazonaws.com AKIA"+"Z9Y8X7W6V5U4T3S2"+" {S}"),
		c("httpie-auth", "HTTPie -a user:pass or a header", up, "http -a {U}:{S} GET https://{H}/api/status", "http POST https://api.acme.io/v1/jobs 'Authorization:Bearer {S}' name=nightly", "ab -n 1000 -c 20 -A admin:{S} https://{H}/"),
	}
}

// --- secrets in other fields: logs, traces, links, dumps ---

func blindFields() []kindGen {
	pw, up := (*gen).blPw, (*gen).blUpw
	f := func(name, format string, secret func(g *gen) string, texts ...string) kindGen {
		return bk("fields", name, format, secret, texts...)
	}
	sha := func(g *gen) string { return g.s(blHex, 40) }
	return []kindGen{
		bkm("fields", "git-log-message-password", "a password in a commit message, as git log shows it", func(g *gen) (string, string) {
			s := g.blPw()
			return "commit " + sha(g) + "\nAuthor: {U} <{E}>\nDate:   Tue Mar 3 14:12:09 2026 +0100\n\n    " +
				g.pick("temp: hardcode db password {S} until vault is wired", "fix login for staging (pw is {S})", "revert: remove SMTP password {S} from settings"), s
		}),
		bkm("fields", "branch-name-with-token", "a token pasted into a branch name", func(g *gen) (string, string) {
			s := g.s(blB62, 32)
			return g.pick("git checkout -b fix/rotate-{S}", "remote: Create a pull request for 'hotfix/token-{S}' on GitHub by visiting:", "* feature/api-key-{S}\n  main"), s
		}),
		f("log-kv-password", "password= in a key=value log line", pw, "{D}T{T}Z level=debug msg=\"login attempt\" user={U} password={S} ip=10.0.4.7",
			"{D} {T},512 DEBUG [auth] user=alice password={S} result=ok", "time=\"{D}T{T}Z\" level=info msg=connect dsn_user={U} dsn_password={S}"),
		f("log-json-password", "a password in a JSON log line", pw, "{\"ts\":\"{D}T{T}Z\",\"level\":\"debug\",\"msg\":\"request body\",\"body\":{\"email\":\"{E}\",\"password\":\"{S}\"}}",
			"{\"level\":\"error\",\"event\":\"smtp auth failed\",\"user\":\"{E}\",\"pass\":\"{S}\"}"),
		f("stack-trace-dsn", "a DSN with its password in an exception", up,
			"Traceback (most recent call last):\n  File \"/app/db.py\", line 12, in connect\n    engine = create_engine(url)\nsqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect to server\n(Background on this error at: https://sqlalche.me/e/20/e3q8) url=postgresql://app:{S}@db:5432/app",
			"org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection; nested exception is java.sql.SQLException: Access denied for url jdbc:mysql://{H}:3306/shop?user=shop&password={S}\n\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:83)",
			"panic: dial tcp: lookup redis: no such host (redis://:{S}@redis:6379/0)\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:42 +0x1d4"),
		f("markdown-link-token", "a token in the URL of a Markdown link", func(g *gen) string { return g.s(blB64U, 40) },
			"see [the dashboard](https://grafana.acme.io/d/x1?orgId=1&auth_token={S})", "[Download report](https://files.acme.io/share/{S}) — link expires friday",
			"| name | link |\n|---|---|\n| export | [csv](https://api.acme.io/export?key={S}) |"),
		f("csv-export-row", "a password column in a CSV export", pw, "email,name,password,role\n{E},Alice,{S},admin\nbob@acme.io,Bob,,viewer", "\"username\";\"password\"\n\"{U}\";\"{S}\""),
		f("sql-insert-plaintext", "a plaintext password in an SQL INSERT", pw, "INSERT INTO users (email, password, is_admin) VALUES ('{E}', '{S}', true);", "UPDATE accounts SET password = '{S}' WHERE username = '{U}';"),
		f("access-log-query-password", "a password in a query string in an access log", (*gen).blShpw,
			"10.0.4.7 - - [03/Mar/2026:14:12:09 +0000] \"GET /login?user={U}&pass={S} HTTP/1.1\" 302 0 \"-\" \"curl/8.5.0\"",
			"{D} {T} 10.1.2.3 GET /api/v1/auth username={U}&password={S} 443 - 200"),
		f("error-message-url-key", "an API key in a URL inside an error message", (*gen).blKey,
			"requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://api.acme.io/v2/search?q=test&api_key={S}",
			"Error: getaddrinfo ENOTFOUND api.vendor.io at https://api.vendor.io/data?apikey={S}"),
		f("ci-env-dump", "a secret among ordinary variables in printenv output", func(g *gen) string { return g.s(blB62, 32) },
			"$ printenv | sort\nCI=true\nDEPLOY_KEY={S}\nHOME=/home/runner\nNODE_VERSION=20.11.1\nPATH=/usr/local/bin:/usr/bin",
			"+ env\nHOSTNAME=runner-7f9c\nREGISTRY_PASSWORD={S}\nSHLVL=1"),
		f("ps-aux-password", "a password in a process list", (*gen).blShpw,
			"$ ps aux | grep java\napp  2231  3.1 12.4 5123456 812344 ? Sl 09:12 4:31 java -Ddb.password={S} -jar app.jar",
			"root  812  0.0  0.1  12345 2345 ?  S  10:01  0:00 /usr/bin/mysql -u root -p{S} -e select"),
		f("bash-history", "a password in ~/.bash_history", (*gen).blShpw,
			"$ tail ~/.bash_history\ncd /srv/app\ngit pull\nexport DB_PASS={S}\n./manage.py migrate",
			"  501  ssh {U}@{H}\n  502  sshpass -p {S} scp dump.sql {U}@{H}:/tmp\n  503  history | grep ssh"),
		f("kubectl-describe-env", "an env value in kubectl describe output", pw,
			"Containers:\n  api:\n    Image:  acme/api:1.8.2\n    Environment:\n      DB_HOST:      postgres\n      DB_PASSWORD:  {S}\n    Mounts:\n      /tmp from tmp (rw)"),
		f("issue-template-filled", "a secret in a filled-in issue template", (*gen).blKey,
			"### Environment\n- OS: Ubuntu 24.04\n- Version: 3.2.1\n- API key: {S}\n\n### Steps to reproduce\n1. run the sync",
			"**Describe the bug**\nThe webhook fails.\n\n**Config**\n```\nendpoint: https://hooks.acme.io\nsecret: {S}\n```"),
		f("email-forward-credentials", "credentials in a forwarded e-mail", pw,
			"---------- Forwarded message ---------\nFrom: IT Support <it@acme.io>\nSubject: Your VPN account\n\nUser: {U}\nPassword: {S}\n\nRegards",
			"-----Original Message-----\nFrom: vendor@example.com\nSent: Monday\nSubject: SFTP access\n\nhost: sftp.example.com\nuser: acme\npass: {S}"),
		f("screenshot-alt-text", "a password transcribed from a screenshot", pw,
			"[image: terminal showing `Password for admin: {S}`]", "(screenshot) Wi-Fi settings → Network: Office → Password: {S}"),
		f("yaml-front-matter", "a secret in Markdown front matter", (*gen).blKey,
			"---\ntitle: Deploy notes\napi_key: {S}\ntags: [ops]\n---\n\n# Notes"),
	}
}

// --- the blind corpus ---

func blindKinds() []kindGen {
	return sortedKinds(blindSentences(), blindProviders(), blindKeyMaterial(), blindTokens(), blindEncoded(), blindConfigs(), blindCommands(), blindFields())
}

// sortedKinds joins the groups' kinds in the order of their names.
func sortedKinds(parts ...[]kindGen) []kindGen {
	var ks []kindGen
	for _, part := range parts {
		ks = append(ks, part...)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].group+"/"+ks[i].name < ks[j].group+"/"+ks[j].name })
	return ks
}

// generateBlind writes n samples of every blind kind (generateKinds).
func generateBlind(n int) []Sample { return generateKinds("blind", blindKinds(), blindSeed, n) }

// generateKinds writes n samples of every kind with a fixed seed per kind (its name's hash and
// the corpus's stream). It panics when a kind comes twice or a secret is not in its text or is
// shorter than 8 characters: the generators are wrong then.
func generateKinds(corpus string, kinds []kindGen, stream uint64, n int) []Sample {
	var out []Sample
	seen := map[string]bool{}
	for _, k := range kinds {
		kind := k.group + "/" + k.name
		if seen[kind] {
			panic(corpus + ": kind " + kind + " twice")
		}
		seen[kind] = true
		h := fnv.New64a()
		h.Write([]byte(kind))
		g := &gen{rand.New(rand.NewPCG(h.Sum64(), stream))}
		for range n {
			text, secret := k.make(g)
			if !strings.Contains(text, secret) {
				panic(fmt.Sprintf("%s: %s: the secret %q is not in its text %q", corpus, kind, secret, text))
			}
			if utf8.RuneCountInString(secret) < 8 {
				panic(fmt.Sprintf("%s: %s: the secret %q is shorter than 8 characters", corpus, kind, secret))
			}
			out = append(out, Sample{Kind: kind, Group: k.group, Text: text, Secret: secret,
				Source: "generated:" + k.format, Licence: "generated here (no third-party text)"})
		}
	}
	return out
}

// --- negatives: risky-looking lines with no secret ---

var blNegLines = []string{
	"ClientSecret: c.ClientSecret,",
	"password: ${DB_PASSWORD}",
	"token: <your-token>",
	"api_key = os.environ[\"API_KEY\"]",
	"DB_PASSWORD=${DB_PASSWORD:?must be set}",
	"export GITHUB_TOKEN=$(gh auth token)",
	"Authorization: Bearer $TOKEN",
	"Authorization: Bearer <token>",
	"curl -H \"Authorization: Bearer ${API_TOKEN}\" https://api.example.com/v1/me",
	"password = getpass.getpass(\"Password: \")",
	"secret := os.Getenv(\"WEBHOOK_SECRET\")",
	"const apiKey = process.env.API_KEY;",
	"apiKey: process.env.STRIPE_SECRET_KEY!,",
	"password: {{ .Values.db.password }}",
	"password: \"{{ vault_db_password }}\"",
	"password: !vault |",
	"PGPASSWORD=\"$PGPASSWORD\" psql -h \"$PGHOST\" -U \"$PGUSER\"",
	"mysql -u root -p",
	"mysql -u \"$DB_USER\" -p\"$DB_PASS\" \"$DB_NAME\"",
	"docker login -u \"$REGISTRY_USER\" --password-stdin <<< \"$REGISTRY_PASSWORD\"",
	"echo \"$CI_REGISTRY_PASSWORD\" | docker login -u \"$CI_REGISTRY_USER\" --password-stdin \"$CI_REGISTRY\"",
	"token: ${{ secrets.GITHUB_TOKEN }}",
	"api-key: ${{ secrets.DEPLOY_API_KEY }}",
	"NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
	"//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
	"spring.datasource.password=${SPRING_DATASOURCE_PASSWORD}",
	"'password' => env('DB_PASSWORD'),",
	"define( 'DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD') );",
	"SECRET_KEY = os.environ.get(\"DJANGO_SECRET_KEY\")",
	"config.secret_key_base = ENV.fetch(\"SECRET_KEY_BASE\")",
	"password: <REDACTED>",
	"password: ********",
	"password=••••••••",
	"api_key: xxxxxxxxxxxxxxxxxxxxxxxx",
	"AWS_SECRET_ACCESS_KEY=<your secret access key>",
	"PASSWORD=changeme  # replace before deploying",
	"REPLACE_WITH_YOUR_KEY",
	"sk_test_... (use your own test key here)",
	"token = \"\"  # filled in by CI",
	"password = None",
	"password: \"\"",
	"if password == \"\" { return ErrEmptyPassword }",
	"func (c *Client) SetToken(token string) { c.token = token }",
	"type Credentials struct { Username, Password string }",
	"req.Header.Set(\"Authorization\", \"Bearer \"+token)",
	"req.SetBasicAuth(cfg.User, cfg.Password)",
	"hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)",
	"if err := bcrypt.CompareHashAndPassword(hash, []byte(pw)); err != nil {",
	"def check_password(self, raw_password):",
	"user.set_password(form.cleaned_data[\"password1\"])",
	"const { token } = await res.json();",
	"localStorage.removeItem('accessToken');",
	"passwordInput.type = showPassword ? 'text' : 'password';",
	"<input type=\"password\" name=\"password\" autocomplete=\"current-password\" required>",
	"<label for=\"password\">Password</label>",
	"password_hash = Column(String(128), nullable=False)",
	"ALTER TABLE users ADD COLUMN password_reset_token VARCHAR(64);",
	"CREATE INDEX idx_sessions_token ON sessions (token);",
	"SELECT id, email FROM users WHERE reset_token IS NOT NULL;",
	"grep -r \"password\" ./config",
	"git log -S password --oneline",
	"kubectl get secret db-credentials -o yaml",
	"kubectl create secret generic db-credentials --from-env-file=.env.production",
	"vault kv get -field=password secret/prod/db",
	"aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
	"gcloud secrets versions access latest --secret=db-password",
	"az keyvault secret show --vault-name acme-kv --name db-password --query value -o tsv",
	"op read \"op://Private/Prod DB/password\"",
	"The password must be at least 12 characters long.",
	"Enter your password to continue.",
	"Forgot your password? We'll send you a reset link.",
	"Your password has been changed. If this wasn't you, contact support.",
	"Passwords must contain a number, a capital letter and a symbol.",
	"Never share your API key with anyone, including support staff.",
	"Rotate API keys every 90 days.",
	"The token expires after one hour; request a new one with the refresh token.",
	"Store the client secret in a vault, not in the repository.",
	"We rotated the leaked key last night; the old one is revoked.",
	"Please reset your password via the self-service portal.",
	"I forgot my wifi password again, can someone remind me where it's posted?",
	"The admin password is in 1Password under 'Prod DB'.",
	"ask Sam for the staging credentials, they are in the vault",
	"the password is the one we agreed on the phone",
	"use your SSO login, there is no separate password",
	"Tokens are shown only once, right after you create them.",
	"Recovery codes can each be used once.",
	"Scan the QR code with your authenticator app.",
	"Two-factor authentication is now required for all admins.",
	"pw reset done, check your email",
	"password changed successfully",
	"login failed: invalid username or password",
	"401 Unauthorized: missing or invalid bearer token",
	"error: authentication required (no API key provided)",
	"WARN token is about to expire in 5 minutes",
	"{\"error\":\"invalid_grant\",\"error_description\":\"Refresh token expired\"}",
	"{\"password\": null, \"username\": \"alice\"}",
	"{\"type\": \"password\", \"required\": true, \"minLength\": 12}",
	"\"password\": { \"type\": \"string\", \"format\": \"password\", \"writeOnly\": true }",
	"passwordPolicy: { minLength: 12, requireSymbols: true }",
	"token_endpoint: https://auth.example.com/oauth/token",
	"authorization_endpoint: https://auth.example.com/oauth/authorize",
	"grant_type=client_credentials&client_id=$CLIENT_ID&client_secret=$CLIENT_SECRET",
	"ssh-keygen -t ed25519 -C \"alice@example.com\"",
	"ssh-copy-id -i ~/.ssh/id_ed25519.pub deploy@server",
	"-----BEGIN PUBLIC KEY-----",
	"-----BEGIN CERTIFICATE-----",
	"IdentityFile ~/.ssh/id_ed25519",
	"PrivateKey = <contents of /etc/wireguard/private.key>",
	"wg genkey | tee privatekey | wg pubkey > publickey",
	"age-keygen -o key.txt",
	"openssl rand -hex 32",
	"python -c 'import secrets; print(secrets.token_urlsafe(32))'",
	"head -c 32 /dev/urandom | base64",
	"パスワードを忘れた場合は管理者に連絡してください。",
	"パスワードは12文字以上で設定してください。",
	"APIキーは環境変数 API_KEY から読み込みます。",
	"密码长度至少为 8 位，需包含字母和数字。",
	"请输入密码",
	"忘记密码？请点击“重置密码”。",
	"請勿將 API 金鑰提交到版本庫。",
	"비밀번호를 입력하세요.",
	"비밀번호는 8자 이상이어야 합니다.",
	"La contraseña debe tener al menos 12 caracteres.",
	"Introduce tu contraseña para continuar.",
	"Le mot de passe doit contenir au moins 12 caractères.",
	"Mot de passe oublié ? Cliquez ici.",
	"Das Passwort muss mindestens 12 Zeichen lang sein.",
	"Bitte geben Sie Ihr Passwort ein.",
	"A senha deve ter pelo menos 8 caracteres.",
	"Esqueceu a palavra-passe? Contacte o suporte.",
	"Пароль должен содержать не менее 12 символов.",
	"Введите пароль",
	"La password deve contenere almeno un numero.",
	"Het wachtwoord moet minstens 12 tekens bevatten.",
	"Hasło musi mieć co najmniej 12 znaków.",
	"Şifreniz en az 8 karakter olmalıdır.",
	"Mật khẩu phải có ít nhất 8 ký tự.",
	"Kata sandi minimal 8 karakter.",
	"يجب أن تتكون كلمة المرور من 8 أحرف على الأقل.",
	"पासवर्ड कम से कम 8 अक्षरों का होना चाहिए।",
	"Пароль має містити щонайменше 8 символів.",
	"Lösenordet måste vara minst 12 tecken.",
	"Salasanan on oltava vähintään 12 merkkiä pitkä.",
	"Ο κωδικός πρέπει να έχει τουλάχιστον 8 χαρακτήρες.",
	"Heslo musí mít alespoň 8 znaků.",
	"A jelszónak legalább 8 karakterből kell állnia.",
	"Parola trebuie să aibă cel puțin 8 caractere.",
	"รหัสผ่านต้องมีอย่างน้อย 8 ตัวอักษร",
	"הסיסמה חייבת להכיל לפחות 8 תווים.",
	"رمز عبور باید حداقل ۸ کاراکتر باشد.",
	"| Variable | Description |\n",
	"| `DB_PASSWORD` | password of the database user (required) |",
	"| `API_TOKEN` | a token with the `read:org` scope |",
	"- `SECRET_KEY`: a random string used to sign sessions",
	"See docs/secrets.md for how to set ENCRYPTION_KEY.",
	"TODO: move the password to the secret store",
	"FIXME: do not log the token",
	"// the token is validated in middleware/auth.go",
	"# password is read from ~/.pgpass",
	"passfile=/home/app/.pgpass",
	"auth_user_file = /etc/pgbouncer/userlist.txt",
	"ssl_key_file = '/etc/ssl/private/server.key'",
	"key_file = /etc/nginx/certs/privkey.pem",
	"ssl_certificate_key /etc/letsencrypt/live/example.com/privkey.pem;",
	"credentials_file = ~/.aws/credentials",
	"GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json",
	"KUBECONFIG=~/.kube/config",
	"password_file: /run/secrets/db_password",
	"MYSQL_ROOT_PASSWORD_FILE=/run/secrets/mysql_root",
	"secrets:\n",
	"  db_password:\n",
	"    file: ./secrets/db_password.txt",
	"The field `password` is write-only and is never returned by the API.",
	"Set `token` to the value shown on the integrations page.",
	"password reset emails are sent from no-reply@example.com",
	"the session cookie is HttpOnly and Secure",
	"Set-Cookie: theme=dark; Path=/; Max-Age=31536000",
	"Cookie: _ga=GA1.2.1234567890.1700000000; lang=en",
	"X-Request-Id: req_01HQ3Z8K9M2N4P6R8T0V2X4Z6",
	"X-Api-Version: 2026-01-01",
	"Content-Security-Policy: default-src 'self'",
	"user=alice action=login result=success duration_ms=132",
	"level=info msg=\"password changed\" user=bob",
	"level=warn msg=\"invalid token\" path=/api/me status=401",
	"INFO  [auth] token refreshed for user 4711",
	"Password: (hidden)",
	"password for alice@example.com: ",
	"[sudo] password for deploy:",
	"Enter passphrase for key '/home/alice/.ssh/id_ed25519':",
	"Enter PEM pass phrase:",
	"Enter keystore password:",
	"Verifying - Enter PEM pass phrase:",
	"Permission denied (publickey,password).",
	"fatal: Authentication failed for 'https://github.com/acme/app.git/'",
	"remote: Invalid username or password.",
	"Error response from daemon: Get \"https://registry.example.com/v2/\": unauthorized: authentication required",
	"npm ERR! code E401 Unable to authenticate, need: Basic realm=\"Artifactory Realm\"",
	"psql: error: FATAL:  password authentication failed for user \"app\"",
	"ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
	"redis.exceptions.AuthenticationError: invalid username-password pair",
	"The provided API key is invalid. Check the key and try again.",
	"golang.org/x/crypto v0.31.0 h1:ihbySMvVjLAeSH1IbfcRTkD/iNscyz8rGzjF/E5hV6U=",
	"github.com/stretchr/testify v1.9.0/go.mod h1:r2ic/lqez/lEtzL7wO/rwa5dbSLXVDPFyf8C91i36aY=",
	"integrity sha512-7mR7Ld1v7h2w8kG3UoF9r8bV+3DqZ9dYqXhj5tB0kzB4qkXvEq8Uu1c0V6wq2wqDh0dJcQ==",
	"\"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\"",
	"Merge pull request #4821 from acme/fix/token-refresh",
	"Fixes #1234: handle expired refresh tokens",
	"chore(deps): bump jsonwebtoken from 8.5.1 to 9.0.2",
	"docs: explain how to rotate the signing key",
	"feat(auth): add password strength meter",
	"test: password reset flow",
	"Reviewed-by: Alice <alice@example.com>",
	"Signed-off-by: Bob Builder <bob@example.com>",
	"Change-Id: I8f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a",
	"https://example.com/reset-password?token=",
	"https://docs.example.com/api/authentication#api-keys",
	"https://github.com/settings/tokens",
	"https://console.cloud.google.com/apis/credentials",
	"https://dashboard.stripe.com/apikeys",
	"[Generate a token](https://gitlab.com/-/user_settings/personal_access_tokens)",
	"http://localhost:8080/login",
	"postgres://localhost:5432/app",
	"postgresql://app@localhost/app?sslmode=disable",
	"redis://localhost:6379/0",
	"mongodb://mongo:27017/test",
	"amqp://guest:guest@localhost:5672/",
	"jdbc:postgresql://localhost:5432/app",
	"Server=localhost;Database=app;Trusted_Connection=True;",
	"Data Source=app.db",
	"mysql://user:password@localhost/db   # example from the docs",
	"https://user:pass@example.com is the syntax, don't put real values there",
	"SMTP_PASSWORD=   # leave empty to disable mail",
	"password_min_length = 12",
	"max_password_age = 90d",
	"token_ttl = 3600",
	"session_timeout: 30m",
	"PasswordAuthentication no",
	"PermitRootLogin prohibit-password",
	"auth required pam_unix.so",
	"requirepass \"\"",
	"# requirepass foobared",
	"pg_hba.conf: host all all 0.0.0.0/0 scram-sha-256",
	"mkpasswd --method=sha-512",
	"useradd -m -s /bin/bash deploy",
	"passwd alice",
	"chage -M 90 alice",
}

// blindNegatives is the companion file's lines: the fixed ones above, and lines with ids,
// checksums, hashes and base64 of ordinary text, each labelled as what it is.
func blindNegatives() []string {
	g := &gen{rand.New(rand.NewPCG(0x6e6567, blindSeed))}
	var out []string
	for _, l := range blNegLines {
		if l = strings.TrimRight(l, "\n"); l != "" {
			out = append(out, l)
		}
	}
	ordinary := []string{"hello world", "the quick brown fox jumps over the lazy dog", "release notes for 2.4", "{\"alg\":\"none\"}",
		"Lorem ipsum dolor sit amet", "user=alice", "meeting at 10am", "build succeeded"}
	for range 5 {
		sha := g.s(blHex, 40)
		out = append(out,
			"commit "+sha,
			"Merge: "+sha[:7]+" "+g.s(blHex, 7),
			"git cherry-pick "+g.s(blHex, 40),
			"fixed in "+g.s(blHex, 12)+", see the PR",
			"sha256  "+g.s(blHex, 64)+"  cairn_linux_amd64.tar.gz",
			"SHA256 checksum: "+g.s(blHex, 64),
			"request_id="+g.blUUID()+" status=200 duration=41ms",
			"trace_id: "+g.s(blHex, 32)+" span_id: "+g.s(blHex, 16),
			"image: ghcr.io/acme/api@sha256:"+g.s(blHex, 64),
			"uuid: "+g.blUUID(),
			"md5 of the upload: "+g.s(blHex, 32),
			"echo "+base64.StdEncoding.EncodeToString([]byte(ordinary[g.rng.IntN(len(ordinary))]))+" | base64 -d",
			"etag: \"W/"+g.s(blHex, 16)+"\"",
			"order "+fmt.Sprint(100000+g.rng.IntN(900000))+" shipped, tracking 1Z"+g.s(blUp36, 16),
			"Transaction ID: "+g.s(blUp36, 8)+"-"+g.s(blDig, 6),
			"ETag: "+g.s(blHex, 32),
		)
	}
	return out
}
