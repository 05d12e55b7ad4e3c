package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
)

// The second blind corpus (core/redact/testdata/public/blind2.jsonl): a fifth held-out corpus, of
// kinds that are in none of tune.jsonl, heldout.jsonl, fresh.jsonl and blind.jsonl nor in their
// generators, written by someone who had not read core/redact (only the format section of the
// testdata README) and who never ran the detector on it. It was written as an attacker would:
// looking for what a detector's author forgets. Its kinds are secrets said in 39 more languages
// and in chat slang, spelled out in voice transcripts or split over two messages; keys of less
// known providers by the shape trufflehog's detectors and the providers' pages give them (with no
// prefix, next to the provider's name, in SDK calls, env files and curl headers); key material and
// recovery keys of other tools; session cookies of web frameworks and signed links of other
// clouds; secrets encoded in ways people forget (base32, base58, rot13, reversed, HTML entities,
// language literals, gzip); config files and command lines of tools not covered before; and
// secrets in dumps, traces and logs. Every body is random; no text is third-party.

// blind2Seed is the second word of every blind2 kind's random source (the first is a hash of the
// kind's name), other than those of -gen (2026), -gen-fresh (7331) and -gen-blind (424242).
const blind2Seed = 90210

const (
	b2B62   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b2Low36 = "abcdefghijklmnopqrstuvwxyz0123456789"
	b2Up36  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b2Hex   = "0123456789abcdef"
	b2HexUp = "0123456789ABCDEF"
	b2B64U  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b2Dig   = "0123456789"
	b2B58   = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	b2Lower = "abcdefghijklmnopqrstuvwxyz"
)

var b2Words = []string{"thunder", "pickle", "saffron", "glacier", "mango", "orchid", "tundra", "biscuit", "cobalt",
	"juniper", "pixel", "walrus", "lagoon", "sprocket", "fjord", "papaya", "quill", "raven", "tofu", "yonder",
	"zinnia", "kettle", "basil", "comet", "drizzle", "hazel", "mosaic", "nugget", "parsnip", "wombat"}

// b2Foreign are words of other languages, with their accents, that people build passwords from.
var b2Foreign = []string{"Café", "Größe", "Niño", "Ślęża", "Þórr", "Čaj", "Ōsaka", "Fjäll", "Açaí", "Žmogus",
	"Łódź", "Ñandú", "Crème", "Bærum", "Gödöllő", "Şeker", "Ağaç", "Kõrv", "Ūdens", "Dzień"}

var b2Emoji = []string{"🐶", "🔥", "🚀", "🌵", "🍕", "🦄", "🎸", "🌙", "⚡", "🐙", "🍀", "🎃"}

func (g *gen) b2Word() string { return b2Words[g.rng.IntN(len(b2Words))] }

func b2Cap(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func b2Leet(s string) string {
	return strings.NewReplacer("a", "@", "e", "3", "i", "!", "o", "0", "s", "$", "t", "7").Replace(s)
}

// b2Pw is a password of the shapes people pick: random from a manager, words with digits and
// symbols, leetspeak, a phrase of 4 to 6 words joined by spaces or hyphens, a long digit PIN, a
// word of another language with its accents, or one with an emoji in it.
func (g *gen) b2Pw() string {
	sym := func() string {
		return g.pick("!", "#", "$", "&", "*", "?", "@", "+", "=", "%", "^", "~", "-", "_", ".")
	}
	switch g.rng.IntN(10) {
	case 0:
		return g.s(b2B62+"!#$%&*+-=?@^_~", 18+g.rng.IntN(10))
	case 1:
		return b2Cap(g.b2Word()) + g.s(b2Dig, 2+g.rng.IntN(3)) + sym() + b2Cap(g.b2Word())
	case 2:
		return b2Cap(b2Leet(g.b2Word()+g.b2Word())) + g.s(b2Dig, 2) + sym()
	case 3:
		n := 4 + g.rng.IntN(3)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = g.b2Word()
		}
		return strings.Join(ws, g.pick("-", "-", ".", "_"))
	case 4:
		return g.s(b2Dig, 10+g.rng.IntN(6))
	case 5:
		return b2Foreign[g.rng.IntN(len(b2Foreign))] + sym() + g.s(b2Dig, 4) + b2Foreign[g.rng.IntN(len(b2Foreign))]
	case 6:
		return b2Cap(g.b2Word()) + b2Emoji[g.rng.IntN(len(b2Emoji))] + g.s(b2Dig, 4) + b2Emoji[g.rng.IntN(len(b2Emoji))] + sym()
	case 7:
		return g.pick("Iloveyou", "Letmein", "Welcome", "Qwerty", "Dragon", "Monkey") + g.s(b2Dig, 3) + sym() + g.s(b2B62, 4)
	case 8:
		return g.s("ABCDEFGHJKLMNPQRSTUVWXYZ", 1) + g.s("abcdefghijkmnpqrstuvwxyz", 5) + g.s(b2Dig, 4) + sym() + g.s(b2B62, 3)
	default:
		return g.s(b2Low36, 6) + "-" + g.s(b2Low36, 6) + "-" + g.s(b2Low36, 6)
	}
}

// b2Phrase is a passphrase with spaces.
func (g *gen) b2Phrase() string {
	n := 4 + g.rng.IntN(3)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.b2Word()
	}
	return strings.Join(ws, " ")
}

// b2UPw stands in a URL's userinfo, a key=value list or a shell word as it is.
func (g *gen) b2UPw() string {
	switch g.rng.IntN(4) {
	case 0:
		return b2Cap(g.b2Word()) + g.s(b2Dig, 4) + g.pick("-", "_", ".", "~") + g.s(b2B62, 6)
	case 1:
		return g.s(b2B62, 18+g.rng.IntN(10))
	case 2:
		return g.b2Word() + "." + g.b2Word() + "." + g.s(b2Dig, 3) + g.s(b2B62, 2)
	default:
		return g.s(b2B62, 8) + "_" + g.s(b2B62, 8)
	}
}

func (g *gen) b2UUID() string {
	h := g.s(b2Hex, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + g.pick("8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

// b2Key is an opaque key of no documented shape.
func (g *gen) b2Key() string {
	switch g.rng.IntN(4) {
	case 0:
		return g.s(b2Hex, 32+8*g.rng.IntN(4))
	case 1:
		return g.s(b2B64U, 30+g.rng.IntN(20))
	default:
		return g.s(b2B62, 26+g.rng.IntN(20))
	}
}

// b2Secret is what a sentence says: mostly a password, sometimes a key, a PIN or a recovery code.
func (g *gen) b2Secret() string {
	switch g.rng.IntN(10) {
	case 0:
		return g.b2Key()
	case 1:
		return g.s(b2Dig, 8+g.rng.IntN(5))
	case 2:
		return g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 5) + "-" + g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 5) + "-" + g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 5)
	default:
		return g.b2Pw()
	}
}

func b2s(alpha string, n int) func(g *gen) string {
	return func(g *gen) string { return g.s(alpha, n) }
}
func b2pre(p, alpha string, n int) func(g *gen) string {
	return func(g *gen) string { return p + g.s(alpha, n) }
}
func b2b64(n int) func(g *gen) string {
	return func(g *gen) string { return base64.StdEncoding.EncodeToString(g.bytes(n)) }
}

// --- texts ---

// b2Fill writes a text: {S} is the secret, the other marks ordinary values.
func (g *gen) b2Fill(t, secret string) string {
	user := g.pick("amara", "kofi", "svc-etl", "root", "ops", "nguyen.t", "p.novak", "sato", "wei.zhang", "ci-bot", "dbadmin")
	host := g.pick("db-eu-2.internal", "10.20.0.5", "mysql.prod.svc", "edge-03.example.net", "172.16.4.9", "vault.corp.example", "broker.lan", "app.example.org")
	r := strings.NewReplacer("{S}", secret, "{U}", user, "{H}", host,
		"{E}", user+"@"+g.pick("example.org", "example.net", "mail.example.com"),
		"{D}", fmt.Sprintf("2026-%02d-%02d", 1+g.rng.IntN(12), 1+g.rng.IntN(28)),
		"{T}", fmt.Sprintf("%02d:%02d:%02d", g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60)),
		"{N}", fmt.Sprint(100+g.rng.IntN(9900)),
		"{APP}", g.pick("payments", "inventory", "search", "notifier", "portal", "analytics", "gateway"))
	return r.Replace(t)
}

func b2JSONSafe(s string) bool { return !strings.ContainsAny(s, "\"\\\n\t<>&") }

// b2Place puts a text where people write it.
func (g *gen) b2Place(group, text string) string {
	one := !strings.Contains(text, "\n")
	switch group {
	case "sentence", "provider", "token", "encoded", "fields":
		switch g.rng.IntN(20) {
		case 0:
			return "> " + strings.ReplaceAll(text, "\n", "\n> ")
		case 1:
			if one {
				return g.b2Fill("{D}T{T}Z INFO  [{APP}] msg=", "") + "\"" + text + "\""
			}
		case 2:
			if one && b2JSONSafe(text) {
				return `{"role":"user","content":"` + text + `"}`
			}
		case 3:
			if one && !strings.Contains(text, "|") {
				return "| date | note |\n|---|---|\n| " + g.b2Fill("{D}", "") + " | " + text + " |"
			}
		case 4:
			return g.pick("请看：", "参考：", "メモ：", "참고: ") + text + g.pick("。谢谢！", "（以上）", " 감사합니다")
		case 5:
			return "\u200f" + g.pick("מצורף: ", "مرفق: ", "یادداشت: ") + text
		case 6:
			return g.pick("🔐 ", "🚨 ", "📌 ", "🤫 ", "💀 ") + text + g.pick(" 🙈", " 🔥🔥", "", " 😅")
		case 7:
			return g.pick("Ticket ", "Case #", "JIRA OPS-") + g.b2Fill("{N}", "") + g.pick(" — comment from support:\n\n", "\nReporter notes:\n") + text
		case 8:
			if one {
				return g.pick("Thought: the user shared credentials.\nObservation: ", "I ran the setup and noted: ", "Agent step 3/7 — ") + text
			}
		case 9:
			if one {
				return "[" + g.b2Fill("{T}", "") + "] <" + g.pick("kofi", "amara", "Ren", "Zoë") + "> " + text
			}
		case 10:
			if one && b2JSONSafe(text) {
				return "note: \"" + text + "\"\nseverity: low"
			}
		case 11:
			return text + g.pick("\n\n-- \nsent from my phone", " (edited)", "\n\n+1, works for me", " — rotate Monday pls")
		case 12:
			return g.pick("Re: access\n\n", "FW: staging\n\n", "Subject: handover\n\n") + text
		}
	case "config", "keymaterial":
		switch g.rng.IntN(8) {
		case 0:
			return "```" + g.pick("yaml", "ini", "toml", "json", "xml", "text", "") + "\n" + text + "\n```"
		case 1:
			return g.pick("$ cat ", "# cat ", "PS> Get-Content ") + g.pick("config", "settings.conf", "./conf/app.cfg", "values.yaml") + "\n" + text
		case 2:
			return "cat > " + g.pick("/etc/app/conf", "./secrets.cfg", "$HOME/.config/tool.conf") + " <<'EOF'\n" + text + "\nEOF"
		case 3:
			return "{code}\n" + text + "\n{code}"
		case 4:
			return g.pick("Deployed with this, still 401:\n\n", "Diff of the change:\n", "copied from the wiki:\n") + text
		}
	case "command":
		switch g.rng.IntN(9) {
		case 0:
			return "$ " + text
		case 1:
			return g.pick("admin@", "ec2-user@", "pi@") + g.pick("jump01", "raspberrypi", "db-replica") + ":~$ " + text
		case 2:
			if one && !strings.Contains(text, "`") {
				return g.pick("I ran `", "Then I executed `", "the agent ran `") + text + g.pick("` and it worked", "` — exit code 1", "` (see output below)")
			}
		case 3:
			if one && b2JSONSafe(text) {
				return `{"tool":"shell","input":{"command":"` + text + `"}}`
			}
		case 4:
			if one {
				return "RUN " + text
			}
		case 5:
			if one {
				return "0 3 * * * " + text
			}
		case 6:
			return "```sh\n" + text + "\n```"
		}
	}
	return text
}

func (g *gen) b2Put(group, text, secret string) string {
	if placed := g.b2Place(group, text); strings.Contains(placed, secret) {
		return placed
	}
	return text
}

// b2 is a kind whose secret is made by secret and put in one of texts ({S} marks it).
func b2(group, name, format string, secret func(g *gen) string, texts ...string) kindGen {
	return kindGen{group, name, format, func(g *gen) (string, string) {
		s := secret(g)
		return g.b2Put(group, g.b2Fill(texts[g.rng.IntN(len(texts))], s), s), s
	}}
}

// b2m is a kind that writes its own text and secret.
func b2m(group, name, format string, mk func(g *gen) (string, string)) kindGen {
	return kindGen{group, name, format, func(g *gen) (string, string) {
		text, s := mk(g)
		return g.b2Put(group, g.b2Fill(text, s), s), s
	}}
}

// --- sentences ---

func blind2Sentences() []kindGen {
	// Every language's first texts name a password, the third an API key, the fourth a Wi-Fi key,
	// the fifth (when there is one) a door or safe code.
	langs := []struct {
		code  string
		texts []string
	}{
		{"sw", []string{"Nenosiri la seva ya majaribio ni {S}", "Jina la mtumiaji: {U}, nenosiri: {S}", "Ufunguo wa API ni {S}, usiushiriki na mtu yeyote", "Nenosiri la wifi ni {S}", "Namba ya siri ya mlango wa ofisi ni {S}"}},
		{"am", []string{"የሙከራ ሰርቨሩ የይለፍ ቃል {S} ነው።", "ተጠቃሚ፦ {U}፣ የይለፍ ቃል፦ {S}", "የAPI ቁልፉ {S} ነው፤ ለማንም አታጋራ።", "የዋይፋይ የይለፍ ቃል፦ {S}"}},
		{"ta", []string{"சோதனை சர்வரின் கடவுச்சொல் {S}", "பயனர்: {U}, கடவுச்சொல்: {S}", "API சாவி {S}, யாருக்கும் பகிர வேண்டாம்", "வைஃபை கடவுச்சொல் {S}", "அலுவலக கதவு குறியீடு {S}"}},
		{"te", []string{"టెస్ట్ సర్వర్ పాస్‌వర్డ్ {S}", "యూజర్: {U}, పాస్‌వర్డ్: {S}", "API కీ {S}, ఎవరితోనూ షేర్ చేయకండి", "వైఫై పాస్‌వర్డ్ {S}"}},
		{"mr", []string{"टेस्ट सर्व्हरचा पासवर्ड {S} आहे", "युजर: {U}, पासवर्ड: {S}", "API की {S} आहे, कोणालाही देऊ नकोस", "वायफायचा पासवर्ड {S}", "तिजोरीचा कोड {S} आहे"}},
		{"ur", []string{"ٹیسٹ سرور کا پاس ورڈ {S} ہے", "صارف: {U}، پاس ورڈ: {S}", "API کلید {S} ہے، کسی کو مت بتانا", "وائی فائی کا پاس ورڈ {S} ہے"}},
		{"pa", []string{"ਟੈਸਟ ਸਰਵਰ ਦਾ ਪਾਸਵਰਡ {S} ਹੈ", "ਯੂਜ਼ਰ: {U}, ਪਾਸਵਰਡ: {S}", "API ਕੁੰਜੀ {S} ਹੈ, ਕਿਸੇ ਨੂੰ ਨਾ ਦੱਸਣਾ", "ਵਾਈਫਾਈ ਪਾਸਵਰਡ {S}"}},
		{"kk", []string{"Тест серверінің құпия сөзі: {S}", "Пайдаланушы: {U}, құпиясөз: {S}", "API кілті {S}, ешкімге берме", "Wi-Fi құпия сөзі {S}"}},
		{"uz", []string{"Test serverining paroli {S}", "Foydalanuvchi: {U}, parol: {S}", "API kaliti {S}, hech kimga bermang", "wifi paroli: {S}", "Eshik kodi {S}"}},
		{"az", []string{"Test serverinin şifrəsi: {S}", "İstifadəçi: {U}, parol: {S}", "API açarı {S}, heç kimlə paylaşma", "wifi şifrəsi: {S}"}},
		{"ka", []string{"სატესტო სერვერის პაროლია {S}", "მომხმარებელი: {U}, პაროლი: {S}", "API გასაღები: {S}, არავის გაუზიარო", "ვაიფაის პაროლი {S}"}},
		{"hy", []string{"Թեստային սերվերի գաղտնաբառն է՝ {S}", "Օգտատեր՝ {U}, գաղտնաբառ՝ {S}", "API բանալին {S} է, ոչ մեկին մի տուր", "Wi-Fi-ի գաղտնաբառը՝ {S}"}},
		{"lt", []string{"Testinio serverio slaptažodis yra {S}", "Vartotojas: {U}, slaptažodis: {S}", "API raktas {S}, niekam neduok", "wifi slaptažodis: {S}", "Seifo kodas: {S}"}},
		{"lv", []string{"Testa servera parole ir {S}", "Lietotājs: {U}, parole: {S}", "API atslēga ir {S}, nevienam nedod", "wifi parole: {S}"}},
		{"et", []string{"Testserveri parool on {S}", "Kasutaja: {U}, salasõna: {S}", "API võti on {S}, ära jaga kellegagi", "wifi parool: {S}", "Ukse kood on {S}"}},
		{"sl", []string{"Geslo za testni strežnik je {S}", "Uporabnik: {U}, geslo: {S}", "API ključ je {S}, ne deli ga", "geslo za wifi: {S}"}},
		{"hr", []string{"Lozinka za testni poslužitelj je {S}", "Korisnik: {U}, lozinka: {S}", "API ključ je {S}, nemoj ga nikome slati", "lozinka za wifi: {S}", "Šifra sefa je {S}"}},
		{"sr-cyrl", []string{"Лозинка за тест сервер је {S}", "Корисник: {U}, лозинка: {S}", "API кључ је {S}, немој га делити", "шифра за вајфај: {S}"}},
		{"sr-latn", []string{"Lozinka za test server je {S}", "Korisnik: {U}, šifra: {S}", "API ključ je {S}, nemoj ga deliti", "šifra za wifi: {S}"}},
		{"bg", []string{"Паролата за тестовия сървър е {S}", "Потребител: {U}, парола: {S}", "API ключът е {S}, не го споделяй", "паролата за wifi е {S}", "Кодът на сейфа е {S}"}},
		{"sk", []string{"Heslo k testovaciemu serveru je {S}", "Používateľ: {U}, heslo: {S}", "API kľúč je {S}, nikomu ho neposielaj", "heslo na wifi: {S}"}},
		{"is", []string{"Lykilorðið að prófunarþjóninum er {S}", "Notandi: {U}, lykilorð: {S}", "API-lykillinn er {S}, ekki deila honum", "wifi lykilorð: {S}"}},
		{"ga", []string{"Is é {S} pasfhocal an fhreastalaí tástála", "Úsáideoir: {U}, pasfhocal: {S}", "Is í {S} an eochair API, ná roinn í", "pasfhocal an wifi: {S}"}},
		{"cy", []string{"Cyfrinair y gweinydd prawf yw {S}", "Defnyddiwr: {U}, cyfrinair: {S}", "Yr allwedd API yw {S}, paid â'i rhannu", "cyfrinair y wifi: {S}"}},
		{"eu", []string{"Proba zerbitzariaren pasahitza {S} da", "Erabiltzailea: {U}, pasahitza: {S}", "API gakoa {S} da, ez partekatu inorekin", "wifiaren pasahitza: {S}"}},
		{"ca", []string{"La contrasenya del servidor de proves és {S}", "Usuari: {U}, contrasenya: {S}", "La clau de l'API és {S}, no la comparteixis", "contrasenya del wifi: {S}", "El codi de la porta és {S}"}},
		{"gl", []string{"O contrasinal do servidor de probas é {S}", "Usuario: {U}, contrasinal: {S}", "A chave da API é {S}, non a compartas", "contrasinal da wifi: {S}"}},
		{"km", []string{"ពាក្យសម្ងាត់ម៉ាស៊ីនមេសាកល្បងគឺ{S}", "អ្នកប្រើ៖{U} ពាក្យសម្ងាត់៖{S}", "កូនសោAPIគឺ{S}កុំចែករំលែក", "ពាក្យសម្ងាត់វ៉ាយហ្វាយ៖{S}"}},
		{"lo", []string{"ລະຫັດຜ່ານເຊີບເວີທົດສອບແມ່ນ{S}", "ຜູ້ໃຊ້: {U} ລະຫັດຜ່ານ: {S}", "ກະແຈAPIແມ່ນ{S}ຢ່າແບ່ງປັນ", "ລະຫັດວາຍຟາຍ{S}"}},
		{"my", []string{"စမ်းသပ်ဆာဗာရဲ့စကားဝှက်က{S}ပါ", "အသုံးပြုသူ - {U}၊ စကားဝှက် - {S}", "APIကီးက{S}ပါ၊ ဘယ်သူ့ကိုမှမပေးပါနဲ့", "ဝိုင်ဖိုင်စကားဝှက်{S}"}},
		{"mn", []string{"Туршилтын серверийн нууц үг {S}", "Хэрэглэгч: {U}, нууц үг: {S}", "API түлхүүр {S}, хэнд ч бүү өг", "wifi-н нууц үг: {S}"}},
		{"ne", []string{"टेस्ट सर्भरको पासवर्ड {S} हो", "प्रयोगकर्ता: {U}, पासवर्ड: {S}", "API साँचो {S} हो, कसैलाई नदिनु", "वाइफाइको पासवर्ड {S}"}},
		{"si", []string{"පරීක්ෂණ සේවාදායකයේ මුරපදය {S}", "පරිශීලක: {U}, මුරපදය: {S}", "API යතුර {S}, කාටවත් දෙන්න එපා", "වයිෆයි මුරපදය {S}"}},
		{"yue", []string{"個server密碼係{S}呀，唔好話俾人知", "login：{U}，密碼：{S}", "API key俾你：{S}，唔好亂傳", "wifi密碼係「{S}」"}},
		{"zu", []string{"Iphasiwedi yeseva yokuhlola ngu-{S}", "Umsebenzisi: {U}, iphasiwedi: {S}", "Ukhiye we-API ngu-{S}, ungawabelani nomuntu", "Iphasiwedi ye-wifi: {S}"}},
		{"ha", []string{"Kalmar sirri ta uwar garken gwaji ita ce {S}", "Mai amfani: {U}, kalmar sirri: {S}", "Makullin API shine {S}, kada ka raba shi", "kalmar sirrin wifi: {S}"}},
		{"ps", []string{"د ازموینې سرور پټنوم {S} دی", "کارن: {U}، پټنوم: {S}", "د API کیلي {S} ده، له چا سره یې مه شریکوه", "د وای فای پټنوم: {S}"}},
		{"hi-latn", []string{"bhai server ka password {S} hai, kisi ko mat batana", "login {U} aur password {S} hai", "API key ye rahi {S}, share mat karna", "wifi ka password {S} hai yaar", "locker ka code {S} hai"}},
		{"ar-latn", []string{"el password beta3 el server {S} ya 3am", "user {U} w el pass {S}", "el API key {S}, matba3ethash l 7ad", "el wifi pass {S} 5alas"}},
	}
	var out []kindGen
	for _, l := range langs {
		texts := l.texts
		out = append(out, b2m("sentence", l.code+"-secrets", "a password, API key, Wi-Fi key or door code said in a sentence", func(g *gen) (string, string) {
			i := g.rng.IntN(len(texts))
			switch i {
			case 2:
				return texts[i], g.b2Key()
			case 4:
				return texts[i], g.s(b2Dig, 8+g.rng.IntN(4))
			}
			return texts[i], g.b2Pw()
		}))
	}
	pw := (*gen).b2Pw
	spell := map[byte]string{'0': "zero", '1': "one", '2': "two", '3': "three", '4': "four", '5': "five", '6': "six", '7': "seven", '8': "eight", '9': "nine",
		'!': "exclamation mark", '#': "hash", '@': "at sign", '-': "dash", '_': "underscore", '.': "dot", '$': "dollar sign"}
	nato := strings.Fields("alfa bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
	out = append(out,
		b2m("sentence", "en-voice-spelled-out", "a password spelled out in a voice-to-text transcript (the spoken words are the secret)", func(g *gen) (string, string) {
			w := b2Cap(g.b2Word()) + g.s(b2Dig, 2) + g.pick("!", "#", "@", "-")
			var parts []string
			for i := 0; i < len(w); i++ {
				c := w[i]
				switch {
				case c >= 'A' && c <= 'Z':
					parts = append(parts, "capital "+string(c))
				case c >= 'a' && c <= 'z':
					parts = append(parts, string(c))
				default:
					parts = append(parts, spell[c])
				}
			}
			s := strings.Join(parts, " ")
			return g.pick("[transcript 00:0{N}] okay so the password is {S} got it",
				"Voicemail from {U}: hi it's me the new wifi password is {S} call me back",
				"Speaker 2: yeah just type {S} and hit enter", "(auto-transcribed) pin for the portal is {S} thanks bye"), s
		}),
		b2m("sentence", "en-voice-nato-spelled", "a password read out in the NATO alphabet in a call transcript", func(g *gen) (string, string) {
			n := 8 + g.rng.IntN(5)
			ws := make([]string, n)
			for i := range ws {
				if g.rng.IntN(4) == 0 {
					ws[i] = spell[b2Dig[g.rng.IntN(10)]]
				} else {
					ws[i] = nato[g.rng.IntN(len(nato))]
				}
			}
			s := strings.Join(ws, " ")
			return g.pick("Caller: the root password is {S}, all lower case", "Agent: could you read it back? Caller: {S}", "[call notes] customer spelled the key as {S}"), s
		}),
		b2m("sentence", "en-split-two-messages", "a password sent in two chat messages (the second half is the secret)", func(g *gen) (string, string) {
			a, b := g.s(b2B62, 5), g.s(b2B62+"!#$%&*", 9+g.rng.IntN(5))
			return g.pick("[{T}] kofi: pw is "+a+"\n[{T}] kofi: {S}\n[{T}] kofi: ^ no space between",
				"amara: first half "+a+"\namara: second half {S}",
				"> "+a+"…\n> (hit enter too soon) …{S}"), b
		}),
		b2("sentence", "en-password-quoted-with-spaces", "a password with spaces, in quotes", (*gen).b2Phrase,
			"the password is \"{S}\" with the spaces", "pass: '{S}' (yes, spaces)", "it's literally “{S}” lol", "Password (include spaces): `{S}`"),
		b2("sentence", "en-safe-combination", "a safe combination or alarm code of many digits", func(g *gen) string {
			return g.s(b2Dig, 2) + "-" + g.s(b2Dig, 2) + "-" + g.s(b2Dig, 2) + "-" + g.s(b2Dig, 2)
		}, "safe combo is {S}", "the combination for the server-room safe: {S}", "Combo: {S} (turn left first)", "gun safe {S} don't tell anyone"),
		b2("sentence", "en-door-keypad-code", "a long keypad or gate code", func(g *gen) string { return g.s(b2Dig, 8+g.rng.IntN(4)) + g.pick("#", "*", "") },
			"door code is {S}", "gate: {S}, then press the bell", "alarm disarm code {S}", "Keypad for the DC cage: {S}"),
		b2("sentence", "en-emoji-password", "a password with emoji in it", func(g *gen) string {
			return b2Emoji[g.rng.IntN(len(b2Emoji))] + b2Cap(g.b2Word()) + g.s(b2Dig, 4) + b2Emoji[g.rng.IntN(len(b2Emoji))] + g.pick("!", "?", "#")
		}, "the pw has emoji: {S}", "password = {S} (copy paste it)", "new passcode {S} — yes the emoji are part of it"),
		b2("sentence", "en-genz-chat", "a password in casual English chat slang", pw, "ngl the pw is {S} lmao", "fr fr its {S} dont leak it", "ok bestie pass = {S} 💅", "lowkey just use {S} for now", "no cap the admin pw is {S}"),
		b2("sentence", "es-whatsapp-slang", "a password in Spanish chat slang", pw, "q onda, la contra es {S} xfa no la pases", "wey la clave del wifi es {S}", "tío la contraseña es {S} jajaja", "pásale {S} pa entrar al panel"),
		b2("sentence", "de-chat-slang", "a password in German chat slang", pw, "pw is {S} lol, nich weitersagen", "kennwort: {S} thx digga", "passwort wär {S}, aber psst", "hier das pw {S} ;)"),
		b2("sentence", "fr-sms-slang", "a password in French SMS slang", pw, "g chang le mdp c {S} stp le partage pa", "mdp: {S} tkt", "le code c {S} jte jure", "slt, mdp du wifi {S} bisous"),
		b2("sentence", "ja-line-kaomoji", "a password in Japanese LINE chat with kaomoji", pw, "パスこれ→{S}(´・ω・`)", "ぱすわーど{S}だよ〜(๑•̀ㅂ•́)و✧", "例のやつ{S}ね！！よろ", "wifiのパス{S}w"),
		b2("sentence", "zh-pinyin-mm-abbrev", "a password after 'mm' (密码 abbreviated) in Chinese chat", pw, "mm是{S}", "wifi mm：{S}", "账号{U} mm {S} 别外传哈", "后台mm改成{S}了"),
		b2("sentence", "ko-chat-jamo", "a password in Korean chat with jamo laughter", pw, "ㅇㅇ 비번 {S} ㅋㅋ", "비번 {S} ㄱㄱ", "와파 비번 {S}임 ㅎㅎ", "ㅠㅠ 비번 바꿈 {S}"),
		b2("sentence", "es-enye-password", "a password with ñ and accents said in Spanish", func(g *gen) string {
			return g.pick("Añoranza", "Cañón", "Pingüino", "Corazón", "Mañana") + g.s(b2Dig, 4) + g.pick("!", "¡", "¿", "#") + g.pick("Ñu", "Sí", "Té")
		}, "la contraseña es {S} (con eñe)", "clave: {S}", "usuario {U}, contraseña {S}"),
		b2("sentence", "fr-accent-password", "a password with French accents said in French", func(g *gen) string {
			return g.pick("Crème", "Brûlée", "Forêt", "Été", "Noël", "Garçon") + g.pick("-", "_", ".") + g.s(b2Dig, 4) + g.pick("!", "€", "§") + g.pick("Où", "Çà", "Île")
		}, "le mot de passe est {S} (avec les accents)", "mdp : {S}", "Identifiant {U} / mot de passe {S}"),
		b2("sentence", "vi-tone-password", "a password with Vietnamese tone marks", func(g *gen) string {
			return g.pick("Trường", "Hạnhphúc", "Đàlạt", "Nướcmắm", "Phởbò") + g.s(b2Dig, 4) + g.pick("@", "!", "#") + g.pick("Việt", "Huế", "Mỹ")
		}, "mật khẩu mới là {S} nha", "pass: {S} (có dấu)", "tài khoản {U}, mk {S}"),
		b2("sentence", "el-greek-letters-password", "a password of Greek letters", func(g *gen) string {
			return g.pick("Θάλασσα", "Ελιά", "Ήλιος", "Φεγγάρι") + g.s(b2Dig, 4) + g.pick("!", "#", ";") + g.pick("Ωμέγα", "Ψ", "Δέλτα")
		}, "ο κωδικός είναι {S} (με ελληνικά)", "κωδ.: {S}", "χρήστης {U}, κωδικός {S}"),
		b2("sentence", "en-sticky-note-ocr", "a password in the OCR text of a photographed sticky note", pw,
			"OCR result (IMG_{N}.jpg): WIFI PASSWORD {S}", "Text found in image: \"admin / {S}\"", "[photo of monitor] sticky note reads: pw {S}"),
		b2("sentence", "en-password-hint-is-password", "a 'hint' that is the password itself", pw,
			"password hint: it's {S}", "Hint: {S} (same as the old one but with the year)", "security question answer: {S}"),
		b2("sentence", "en-leet-passphrase", "a leetspeak passphrase", func(g *gen) string {
			return b2Leet(g.b2Word()) + "-" + b2Leet(g.b2Word()) + "-" + b2Leet(g.b2Word()) + g.s(b2Dig, 2)
		}, "passphrase is {S}", "pw {S} (all lowercase)", "Our shared pass: {S}"),
	)
	return out
}

// --- providers ---

// b2p is a provider's key: its body, the variable people keep it in, the provider's name as people
// write it and the client class an SDK would have; the generic texts put it in env files, SDK
// init code, curl headers and chat, with or without the provider's name next to it.
func b2p(name, format string, body func(g *gen) string, env, label, class string, texts ...string) kindGen {
	lower := strings.ToLower(env)
	generic := []string{
		env + "={S}",
		env + "=\"{S}\"  # " + label,
		"new " + class + "({ apiKey: \"{S}\" })",
		"const client = new " + class + "({\n  apiKey: '{S}',\n  timeout: 5000,\n});",
		"client = " + class + "(api_key=\"{S}\")",
		"c := " + strings.ToLower(class[:1]) + class[1:] + ".NewClient(\"{S}\")",
		"var client = new " + class + "Client(\"{S}\");",
		class + ".api_key = '{S}'",
		"$client = new \\" + class + "\\Client('{S}');",
		"curl -H \"Authorization: Bearer {S}\" https://api." + strings.ToLower(class) + ".com/v1/me",
		"curl -s -H 'X-API-Key: {S}' https://api." + strings.ToLower(class) + ".io/",
		"our " + label + " key is {S}",
		label + ": {S}",
		"[" + strings.ToLower(class) + "]\napi_key = \"{S}\"",
		strings.ToLower(class) + ":\n  api_key: {S}\n  region: eu",
		"provider \"" + strings.ToLower(class) + "\" {\n  api_key = \"{S}\"\n}",
		"env:\n  " + env + ": {S}",
		"{\"" + lower + "\": \"{S}\"}",
		"I put {S} in the " + label + " settings and it still says unauthorized",
	}
	return kindGen{"provider", name, format, func(g *gen) (string, string) {
		s := body(g)
		var t string
		if len(texts) > 0 && g.rng.IntN(3) == 0 {
			t = texts[g.rng.IntN(len(texts))]
		} else {
			t = generic[g.rng.IntN(len(generic))]
		}
		return g.b2Put("provider", g.b2Fill(t, s), s), s
	}}
}

func blind2Providers() []kindGen {
	uuid := (*gen).b2UUID
	th := "trufflehog detector's key shape: "
	return []kindGen{
		b2p("abuseipdb-api-key", th+"80 lower-case letters and digits next to 'abuseipdb'", b2s(b2Low36, 80), "ABUSEIPDB_API_KEY", "AbuseIPDB", "AbuseIPDB",
			"curl -G https://api.abuseipdb.com/api/v2/check --data-urlencode ipAddress=1.2.3.4 -H \"Key: {S}\""),
		b2p("adafruit-io-key", th+"aio_ and 28 letters and digits", b2pre("aio_", b2B62, 28), "ADAFRUIT_IO_KEY", "Adafruit IO", "Adafruit",
			"aio = Client('{U}', '{S}')", "mosquitto_sub -h io.adafruit.com -u {U} -P {S} -t {U}/feeds/temp"),
		b2p("aiven-token", th+"372 base64 characters next to 'aiven'", b2b64(279), "AIVEN_TOKEN", "Aiven", "Aiven",
			"curl -H \"Authorization: aivenv1 {S}\" https://api.aiven.io/v1/project"),
		b2p("alchemy-api-key", th+"32 letters, digits and underscores, in an Alchemy RPC URL", b2s(b2B62+"_", 32), "ALCHEMY_API_KEY", "Alchemy", "Alchemy",
			"RPC_URL=https://eth-mainnet.g.alchemy.com/v2/{S}", "const provider = new ethers.JsonRpcProvider(\"https://polygon-mainnet.g.alchemy.com/v2/{S}\");"),
		b2p("alchemy-alcht-token", th+"alcht_ and 30 letters and digits", b2pre("alcht_", b2B62, 30), "ALCHEMY_AUTH_TOKEN", "Alchemy", "Alchemy"),
		b2p("amplitude-secret-key", th+"32 hex next to 'amplitude'", b2s(b2Hex, 32), "AMPLITUDE_SECRET_KEY", "Amplitude", "Amplitude",
			"curl -u {U}_apikey:{S} https://amplitude.com/api/2/export"),
		b2p("apify-api-token", th+"apify_api_ and 36 letters and digits", b2pre("apify_api_", b2B62, 36), "APIFY_TOKEN", "Apify", "ApifyClient"),
		b2p("jfrog-reference-token", th+"cmVmdGtu and 56 letters and digits", b2pre("cmVmdGtu", b2B62, 56), "JFROG_ACCESS_TOKEN", "JFrog", "Artifactory",
			"jf c add --url https://acme.jfrog.io --access-token {S}"),
		b2p("betterstack-api-token", th+"24 letters and digits next to 'betterstack'", b2s(b2B62, 24), "BETTERSTACK_API_TOKEN", "Better Stack", "Betterstack",
			"curl -H \"Authorization: Bearer {S}\" https://uptime.betterstack.com/api/v2/monitors"),
		b2p("box-developer-token", th+"32 letters and digits next to 'box'", b2s(b2B62, 32), "BOX_DEVELOPER_TOKEN", "Box", "BoxClient"),
		b2p("budibase-api-key", th+"32 hex, a dash and 78 hex", func(g *gen) string { return g.s(b2Hex, 32) + "-" + g.s(b2Hex, 78) }, "BUDIBASE_API_KEY", "Budibase", "Budibase",
			"curl -H \"x-budibase-api-key: {S}\" https://budibase.app/api/public/v1/applications/search"),
		b2p("buttercms-api-token", th+"40 lower-case letters and digits", b2s(b2Low36, 40), "BUTTER_CMS_API_KEY", "ButterCMS", "Butter",
			"const butter = Butter('{S}');"),
		b2p("checkly-api-key", th+"32 lower-case letters and digits", b2s(b2Low36, 32), "CHECKLY_API_KEY", "Checkly", "Checkly"),
		b2p("clarifai-pat", th+"32 letters and digits", b2s(b2Hex, 32), "CLARIFAI_PAT", "Clarifai", "Clarifai",
			"curl -H \"Authorization: Key {S}\" https://api.clarifai.com/v2/models"),
		b2p("clockify-api-key", th+"48 letters and digits", b2s(b2B62, 48), "CLOCKIFY_API_KEY", "Clockify", "Clockify",
			"curl -H \"X-Api-Key: {S}\" https://api.clockify.me/api/v1/user"),
		b2p("codacy-api-token", th+"20 letters and digits", b2s(b2B62, 20), "CODACY_API_TOKEN", "Codacy", "Codacy",
			"bash <(curl -Ls https://coverage.codacy.com/get.sh) report --project-token {S}"),
		b2p("codeclimate-api-token", th+"40 hex", b2s(b2Hex, 40), "CODECLIMATE_API_TOKEN", "Code Climate", "CodeClimate",
			"curl -H \"Authorization: Token token={S}\" https://api.codeclimate.com/v1/user"),
		b2p("column-api-key", th+"live_ or test_ and 27 letters and digits", func(g *gen) string { return g.pick("live_", "test_") + g.s(b2B62, 27) }, "COLUMN_API_KEY", "Column", "Column",
			"curl https://api.column.com/entities -u :{S}"),
		b2p("courier-auth-token", th+"pk_, an environment, _ and 28 letters and digits", func(g *gen) string { return "pk_" + g.pick("prod", "test") + "_" + g.s(b2Up36, 28) }, "COURIER_AUTH_TOKEN", "Courier", "CourierClient"),
		b2p("coveralls-repo-token", th+"37 letters, digits and dashes", b2s(b2B62+"-", 37), "COVERALLS_REPO_TOKEN", "Coveralls", "Coveralls",
			"repo_token: {S}\nservice_name: github-actions"),
		b2p("customerio-track-key", th+"20 hex next to the site id", b2s(b2Hex, 20), "CUSTOMERIO_API_KEY", "Customer.io", "CustomerIO",
			"cio = CustomerIO(site_id=\"{N}a1b2\", api_key=\"{S}\")"),
		b2p("daily-co-api-key", th+"64 hex next to 'daily'", b2s(b2Hex, 64), "DAILY_API_KEY", "Daily", "Daily"),
		b2p("delighted-api-key", th+"32 letters and digits", b2s(b2B62, 32), "DELIGHTED_API_KEY", "Delighted", "Delighted",
			"curl https://api.delighted.com/v1/people.json -u {S}:"),
		b2p("docusign-client-secret", th+"a UUID next to 'docusign' and 'secret'", uuid, "DOCUSIGN_CLIENT_SECRET", "DocuSign", "DocuSign"),
		b2p("dwolla-secret", th+"50 letters and digits", b2s(b2B62, 50), "DWOLLA_SECRET", "Dwolla", "Dwolla",
			"dwolla = Client(key=\"{N}\", secret=\"{S}\", environment=\"production\")"),
		b2p("edenai-api-key", th+"a JWT of HS256 with a 92-character payload", func(g *gen) string {
			return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + base64.RawURLEncoding.EncodeToString(g.bytes(69)) + "." + base64.RawURLEncoding.EncodeToString(g.bytes(32))
		}, "EDENAI_API_KEY", "Eden AI", "EdenAI"),
		b2p("elasticemail-api-key", th+"96 characters; the service issues upper-case hex", b2s(b2HexUp, 96), "ELASTICEMAIL_API_KEY", "Elastic Email", "ElasticEmail",
			"curl -H \"X-ElasticEmail-ApiKey: {S}\" https://api.elasticemail.com/v4/emails"),
		b2p("fibery-token", th+"8 hex, a dot and 35 hex", func(g *gen) string { return g.s(b2Hex, 8) + "." + g.s(b2Hex, 35) }, "FIBERY_TOKEN", "Fibery", "Fibery",
			"curl -H \"Authorization: Token {S}\" https://acme.fibery.io/api/commands"),
		b2p("freshdesk-api-key", th+"20 letters and digits, used as the basic-auth user", b2s(b2B62, 20), "FRESHDESK_API_KEY", "Freshdesk", "Freshdesk",
			"curl -u {S}:X https://acme.freshdesk.com/api/v2/tickets"),
		b2p("gumroad-access-token", th+"43 letters, digits and dashes", b2s(b2B62+"-", 43), "GUMROAD_ACCESS_TOKEN", "Gumroad", "Gumroad"),
		b2p("harvest-pat", "Harvest personal access token: account digits, .pt. and a base64url body (97 characters)", func(g *gen) string {
			return g.s(b2Dig, 7) + ".pt." + g.s(b2B64U, 86)
		}, "HARVEST_ACCESS_TOKEN", "Harvest", "Harvest",
			"curl -H \"Harvest-Account-Id: {N}\" -H \"Authorization: Bearer {S}\" https://api.harvestapp.com/v2/users/me"),
		b2p("hunter-api-key", th+"40 hex", b2s(b2Hex, 40), "HUNTER_API_KEY", "Hunter", "Hunter",
			"https://api.hunter.io/v2/domain-search?domain=example.org&api_key={S}"),
		b2p("imagekit-private-key", "ImageKit private key: private_, 27 base64 characters and =", func(g *gen) string { return "private_" + g.s(b2B62+"+/", 27) + "=" }, "IMAGEKIT_PRIVATE_KEY", "ImageKit", "ImageKit",
			"const imagekit = new ImageKit({ publicKey: \"public_x\", privateKey: \"{S}\", urlEndpoint: \"https://ik.imagekit.io/acme\" });"),
		b2p("ipinfo-token", th+"14 hex", b2s(b2Hex, 14), "IPINFO_TOKEN", "ipinfo", "IPinfo", "curl ipinfo.io/8.8.8.8?token={S}"),
		b2p("jotform-api-key", th+"32 lower-case letters and digits", b2s(b2Low36, 32), "JOTFORM_API_KEY", "Jotform", "JotForm",
			"https://api.jotform.com/user/forms?apiKey={S}"),
		b2p("jumpcloud-api-key", th+"40 letters and digits", b2s(b2B62, 40), "JUMPCLOUD_API_KEY", "JumpCloud", "JumpCloud",
			"curl -H \"x-api-key: {S}\" https://console.jumpcloud.com/api/systemusers"),
		b2p("keen-master-key", th+"64 upper-case hex", b2s(b2HexUp, 64), "KEEN_MASTER_KEY", "Keen", "KeenClient"),
		b2p("lokalise-api-token", th+"40 hex", b2s(b2Hex, 40), "LOKALISE_API_TOKEN", "Lokalise", "LokaliseApi",
			"lokalise2 file download --token {S} --project-id {N}.abc --format json"),
		b2p("loggly-customer-token", th+"a UUID, in a Loggly input URL", uuid, "LOGGLY_TOKEN", "Loggly", "Loggly",
			"curl -d 'hello' https://logs-01.loggly.com/inputs/{S}/tag/http/"),
		b2p("logzio-shipping-token", th+"a UUID-shaped token next to 'logz'", func(g *gen) string {
			return g.s(b2Low36, 8) + "-" + g.s(b2Low36, 4) + "-" + g.s(b2Low36, 4) + "-" + g.s(b2Low36, 4) + "-" + g.s(b2Low36, 12)
		}, "LOGZIO_TOKEN", "Logz.io", "Logzio",
			"<match **>\n  @type logzio_buffered\n  endpoint_url https://listener.logz.io:8071?token={S}&type=app\n</match>"),
		b2p("magicbell-api-secret", th+"40 letters and digits", b2s(b2B62, 40), "MAGICBELL_API_SECRET", "MagicBell", "MagicBell"),
		b2p("meraki-api-key", th+"40 hex", b2s(b2Hex, 40), "MERAKI_DASHBOARD_API_KEY", "Meraki", "Meraki",
			"curl -H \"X-Cisco-Meraki-API-Key: {S}\" https://api.meraki.com/api/v1/organizations", "dashboard = meraki.DashboardAPI(\"{S}\")"),
		b2p("miro-access-token", th+"27 letters and digits", b2s(b2B62, 27), "MIRO_ACCESS_TOKEN", "Miro", "Miro"),
		b2p("moralis-api-key", th+"64 letters and digits", b2s(b2B62, 64), "MORALIS_API_KEY", "Moralis", "Moralis",
			"await Moralis.start({ apiKey: \"{S}\" });"),
		b2p("nylas-api-key", th+"30 letters and digits", b2s(b2B62, 30), "NYLAS_API_KEY", "Nylas", "Nylas"),
		b2p("onelogin-client-secret", th+"64 lower-case letters and digits next to 'secret'", b2s(b2Low36, 64), "ONELOGIN_CLIENT_SECRET", "OneLogin", "OneLogin"),
		b2p("optimizely-pat", th+"2: and 52 letters, digits and dashes", func(g *gen) string { return "2:" + g.s(b2B62+"-", 52) }, "OPTIMIZELY_API_TOKEN", "Optimizely", "Optimizely"),
		b2p("pandadoc-api-key", th+"40 hex", b2s(b2Hex, 40), "PANDADOC_API_KEY", "PandaDoc", "PandaDoc",
			"curl -H \"Authorization: API-Key {S}\" https://api.pandadoc.com/public/v1/documents"),
		b2p("percy-token", th+"64 hex after PERCY_TOKEN", b2s(b2Hex, 64), "PERCY_TOKEN", "Percy", "Percy", "PERCY_TOKEN={S} npx percy exec -- cypress run"),
		b2p("pinata-secret-api-key", th+"64 hex", b2s(b2Hex, 64), "PINATA_SECRET_API_KEY", "Pinata", "PinataSDK",
			"curl -H \"pinata_api_key: {N}abc\" -H \"pinata_secret_api_key: {S}\" https://api.pinata.cloud/data/testAuthentication"),
		b2p("pipedream-api-key", th+"32 lower-case letters and digits", b2s(b2Low36, 32), "PIPEDREAM_API_KEY", "Pipedream", "Pipedream"),
		b2p("pivotaltracker-token", th+"32 hex, in X-TrackerToken", b2s(b2Hex, 32), "PIVOTAL_TRACKER_TOKEN", "Pivotal Tracker", "Tracker",
			"curl -H \"X-TrackerToken: {S}\" https://www.pivotaltracker.com/services/v5/me"),
		b2p("railway-token", th+"a UUID next to 'railway'", uuid, "RAILWAY_TOKEN", "Railway", "Railway", "RAILWAY_TOKEN={S} railway up"),
		b2p("rapidapi-key", "RapidAPI key: 50 characters with msh and jsn inside, in X-RapidAPI-Key", func(g *gen) string {
			return g.s(b2Low36, 10) + "msh" + g.s(b2B62, 15) + "p1" + g.s(b2B62, 6) + "jsn" + g.s(b2B62, 11)
		}, "RAPIDAPI_KEY", "RapidAPI", "RapidAPI",
			"headers = {\"X-RapidAPI-Key\": \"{S}\", \"X-RapidAPI-Host\": \"weatherapi-com.p.rapidapi.com\"}"),
		b2p("readme-api-key", th+"rdme_ and 70 lower-case letters and digits", b2pre("rdme_", b2Low36, 70), "README_API_KEY", "ReadMe", "Readme",
			"rdme openapi openapi.yaml --key={S}"),
		b2p("rebrandly-api-key", th+"32 characters", b2s(b2Hex, 32), "REBRANDLY_API_KEY", "Rebrandly", "Rebrandly",
			"curl -H \"apikey: {S}\" https://api.rebrandly.com/v1/links"),
		b2p("scraperapi-key", th+"32 lower-case letters and digits, in the query", b2s(b2Low36, 32), "SCRAPERAPI_KEY", "ScraperAPI", "ScraperAPI",
			"curl \"http://api.scraperapi.com?api_key={S}&url=https://example.org\""),
		b2p("segment-public-api-token", th+"two 43-character base64url parts joined by a dot", func(g *gen) string { return g.s(b2B64U, 43) + "." + g.s(b2B64U, 43) }, "SEGMENT_PUBLIC_API_TOKEN", "Segment", "Segment"),
		b2p("semaphoreci-api-token", th+"32 lower-case letters and digits next to semaphore", b2s(b2Low36, 32), "SEMAPHORE_API_TOKEN", "Semaphore", "Semaphore",
			"sem connect acme.semaphoreci.com {S}"),
		b2p("shortcut-api-token", th+"a UUID, in Shortcut-Token", uuid, "SHORTCUT_API_TOKEN", "Shortcut", "Shortcut",
			"curl -H \"Shortcut-Token: {S}\" https://api.app.shortcut.com/api/v3/member"),
		b2p("signalwire-api-token", "SignalWire API token: PT and 48 hex", b2pre("PT", b2Hex, 48), "SIGNALWIRE_TOKEN", "SignalWire", "SignalWire",
			"client = signalwire_client(\"{U}-proj\", \"{S}\", signalwire_space_url=\"acme.signalwire.com\")"),
		b2p("smartsheet-access-token", th+"37 letters and digits", b2s(b2B62, 37), "SMARTSHEET_ACCESS_TOKEN", "Smartsheet", "Smartsheet"),
		b2p("snyk-token", th+"a UUID next to 'snyk'", uuid, "SNYK_TOKEN", "Snyk", "Snyk", "snyk auth {S}", "snyk config set api={S}"),
		b2p("statuspage-api-key", th+"a UUID-shaped key", uuid, "STATUSPAGE_API_KEY", "Statuspage", "Statuspage",
			"curl -H \"Authorization: OAuth {S}\" https://api.statuspage.io/v1/pages"),
		b2p("stytch-secret", "Stytch secret: secret-live- or secret-test-, 35 base64url characters and =", func(g *gen) string {
			return g.pick("secret-live-", "secret-test-") + g.s(b2B64U, 35) + "="
		}, "STYTCH_SECRET", "Stytch", "Stytch"),
		b2p("testingbot-secret", th+"32 lower-case letters and digits", b2s(b2Low36, 32), "TESTINGBOT_SECRET", "TestingBot", "TestingBot",
			"driver = webdriver.Remote(\"https://key:{S}@hub.testingbot.com/wd/hub\")"),
		b2p("thousandeyes-token", th+"32 letters and digits", b2s(b2B62, 32), "THOUSANDEYES_TOKEN", "ThousandEyes", "ThousandEyes"),
		b2p("tiingo-api-token", th+"40 hex", b2s(b2Hex, 40), "TIINGO_API_KEY", "Tiingo", "TiingoClient",
			"https://api.tiingo.com/tiingo/daily/aapl/prices?token={S}"),
		b2p("toggl-api-token", th+"32 hex, as the basic-auth user with api_token", b2s(b2Hex, 32), "TOGGL_API_TOKEN", "Toggl", "Toggl",
			"curl -u {S}:api_token https://api.track.toggl.com/api/v9/me"),
		b2p("wise-api-token", th+"a UUID next to 'transferwise'", uuid, "TRANSFERWISE_API_TOKEN", "Wise", "Wise"),
		b2p("typetalk-token", th+"64 letters and digits", b2s(b2B62, 64), "TYPETALK_TOKEN", "Typetalk", "Typetalk",
			"curl -H \"X-TYPETALK-TOKEN: {S}\" https://typetalk.com/api/v1/topics"),
		b2p("unsplash-access-key", th+"43 letters, digits, - and _", b2s(b2B64U, 43), "UNSPLASH_ACCESS_KEY", "Unsplash", "Unsplash",
			"curl -H \"Authorization: Client-ID {S}\" https://api.unsplash.com/photos"),
		b2p("uploadcare-secret-key", th+"20 lower-case letters and digits", b2s(b2Low36, 20), "UPLOADCARE_SECRET_KEY", "Uploadcare", "Uploadcare",
			"curl -H \"Authorization: Uploadcare.Simple demopublickey:{S}\" https://api.uploadcare.com/files/"),
		b2p("urlscan-api-key", th+"a UUID, in API-Key", uuid, "URLSCAN_API_KEY", "urlscan.io", "Urlscan",
			"curl -H \"API-Key: {S}\" -d '{\"url\":\"https://example.org\"}' https://urlscan.io/api/v1/scan/"),
		b2p("voiceflow-api-key", th+"VF.DM., 24 hex, a dot and 16 letters and digits", func(g *gen) string { return "VF.DM." + g.s(b2Hex, 24) + "." + g.s(b2B62, 16) }, "VOICEFLOW_API_KEY", "Voiceflow", "Voiceflow"),
		b2p("webex-bot-token", "Webex access token: 64 letters and digits, _, 4 letters, _ and a UUID", func(g *gen) string {
			return g.s(b2B62, 64) + "_" + g.s(b2Up36, 4) + "_" + g.b2UUID()
		}, "WEBEX_BOT_TOKEN", "Webex", "Webex"),
		b2p("webflow-api-token", th+"64 hex", b2s(b2Hex, 64), "WEBFLOW_API_TOKEN", "Webflow", "Webflow"),
		b2p("wistia-api-token", th+"64 hex", b2s(b2Hex, 64), "WISTIA_API_TOKEN", "Wistia", "Wistia",
			"curl \"https://api.wistia.com/v1/medias.json?api_password={S}\""),
		b2p("ynab-pat", th+"64 hex next to 'youneedabudget'", b2s(b2Hex, 64), "YNAB_ACCESS_TOKEN", "YNAB", "YNAB",
			"curl -H \"Authorization: Bearer {S}\" https://api.youneedabudget.com/v1/budgets"),
		b2p("zendesk-api-token", th+"40 characters, after email/token in basic auth", b2s(b2B62, 40), "ZENDESK_API_TOKEN", "Zendesk", "Zendesk",
			"curl https://acme.zendesk.com/api/v2/tickets.json -u {E}/token:{S}"),
		b2p("zulip-api-key", th+"32 letters and digits, in a zuliprc", b2s(b2B62, 32), "ZULIP_API_KEY", "Zulip", "Zulip",
			"[api]\nemail={U}-bot@acme.zulipchat.com\nkey={S}\nsite=https://acme.zulipchat.com"),
		b2p("endorlabs-api-key", th+"endr+ and 16 letters, digits and dashes", b2pre("endr+", b2B62+"-", 16), "ENDOR_API_CREDENTIALS_KEY", "Endor Labs", "Endor"),
		b2p("braintrust-api-key", th+"sk- and 48 letters and digits next to 'braintrust'", b2pre("sk-", b2B62, 48), "BRAINTRUST_API_KEY", "Braintrust", "Braintrust"),
		b2p("photoroom-api-key", th+"sk_pr_, a name, _ and 40 hex", func(g *gen) string { return "sk_pr_" + g.pick("default", "acme", "prod") + "_" + g.s(b2Hex, 40) }, "PHOTOROOM_API_KEY", "Photoroom", "Photoroom",
			"curl -H \"x-api-key: {S}\" -F image_file=@shoe.jpg https://sdk.photoroom.com/v1/segment"),
		b2p("pubnub-secret-key", "PubNub secret key: sec-c- and a base64 body (publish and subscribe keys are not secret)", func(g *gen) string { return "sec-c-" + g.s(b2B62, 48) }, "PUBNUB_SECRET_KEY", "PubNub", "PubNub",
			"pnconfig.publish_key = \"pub-c-0000\"\npnconfig.subscribe_key = \"sub-c-0000\"\npnconfig.secret_key = \"{S}\""),
		b2p("duffel-access-token", th+"duffel_live_ and 43 base64url characters", func(g *gen) string { return "duffel_" + g.pick("live", "test") + "_" + g.s(b2B64U, 43) }, "DUFFEL_ACCESS_TOKEN", "Duffel", "Duffel"),
		b2p("flexport-api-key", th+"shltm_ and 40 base64url characters", b2pre("shltm_", b2B64U, 40), "FLEXPORT_API_KEY", "Flexport", "Flexport"),
		b2p("mailmodo-api-key", th+"four groups of 7 capitals and digits", func(g *gen) string {
			return g.s(b2Up36, 7) + "-" + g.s(b2Up36, 7) + "-" + g.s(b2Up36, 7) + "-" + g.s(b2Up36, 7)
		}, "MAILMODO_API_KEY", "Mailmodo", "Mailmodo"),
		b2p("ayrshare-api-key", th+"four groups of 8 capitals and digits", func(g *gen) string {
			return g.s(b2Up36, 8) + "-" + g.s(b2Up36, 8) + "-" + g.s(b2Up36, 8) + "-" + g.s(b2Up36, 8)
		}, "AYRSHARE_API_KEY", "Ayrshare", "SocialPost"),
		b2p("bannerbear-project-key", th+"bb_pr_ and 30 hex", b2pre("bb_pr_", b2Hex, 30), "BANNERBEAR_API_KEY", "Bannerbear", "Bannerbear"),
		b2p("tableau-pat-secret", th+"22 base64, ==: and 32 letters and digits", func(g *gen) string { return g.s(b2B62+"+/", 22) + "==:" + g.s(b2B62, 32) }, "TABLEAU_PAT_SECRET", "Tableau", "TableauAuth",
			"tableau_auth = TSC.PersonalAccessTokenAuth('ci-token', '{S}', site_id='acme')"),
		b2p("kraken-private-key", th+"88 base64 characters next to 'kraken'", b2b64(64), "KRAKEN_PRIVATE_KEY", "Kraken", "Kraken",
			"exchange = ccxt.kraken({'apiKey': '{N}', 'secret': '{S}'})"),
		b2p("statuscake-api-key", th+"20 letters and digits", b2s(b2B62, 20), "STATUSCAKE_API_KEY", "StatusCake", "StatusCake"),
		b2p("pushbullet-access-token", "Pushbullet access token: o. and 32 letters and digits", b2pre("o.", b2B62, 32), "PUSHBULLET_TOKEN", "Pushbullet", "Pushbullet",
			"curl -H 'Access-Token: {S}' https://api.pushbullet.com/v2/users/me"),
		b2p("bitly-access-token", th+"40 hex", b2s(b2Hex, 40), "BITLY_ACCESS_TOKEN", "Bitly", "Bitly"),
		b2p("openai-admin-key", th+"sk-admin-, 58 characters, T3BlbkFJ and 58 more", func(g *gen) string {
			return "sk-admin-" + g.s(b2B64U, 58) + "T3BlbkFJ" + g.s(b2B64U, 58)
		}, "OPENAI_ADMIN_KEY", "OpenAI admin", "OpenAI"),
	}
}

// --- key material ---

func b2Lines(s string, n int) string {
	var lines []string
	for len(s) > n {
		lines = append(lines, s[:n])
		s = s[n:]
	}
	return strings.Join(append(lines, s), "\n")
}

func blind2KeyMaterial() []kindGen {
	km := func(name, format string, mk func(g *gen) (string, string)) kindGen {
		return b2m("keymaterial", name, format, mk)
	}
	return []kindGen{
		km("ssh-host-key-sudo-cat", "an OpenSSH host private key printed by sudo cat (the body is the secret)", func(g *gen) (string, string) {
			body := b2Lines("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"+base64.StdEncoding.EncodeToString(g.bytes(300)), 70)
			return "$ sudo cat /etc/ssh/ssh_host_" + g.pick("ed25519", "ecdsa", "rsa") + "_key\n-----BEGIN OPENSSH PRIVATE KEY-----\n{S}\n-----END OPENSSH PRIVATE KEY-----\n$ ", body
		}),
		km("x25519-raw-hex-named", "a raw X25519 private key in hex next to its name", func(g *gen) (string, string) {
			s := hex.EncodeToString(g.bytes(32))
			return g.pick("x25519 private: {S}\nx25519 public: "+hex.EncodeToString(g.bytes(32)), "static_private_key = \"{S}\"", "const serverPriv = \"{S}\" // curve25519", "NOISE_STATIC_SK={S}"), s
		}),
		km("ed25519-seed-go-literal", "a raw Ed25519 seed in base64 in Go code", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(g.bytes(32))
			return g.pick("priv := ed25519.NewKeyFromSeed(mustB64(\"{S}\"))", "var signingSeed, _ = base64.StdEncoding.DecodeString(\"{S}\")", "seed := \"{S}\" // ed25519, do not commit"), s
		}),
		km("jwk-rsa-prime-p", "the p prime factor of an RSA JWK (not only d is secret)", func(g *gen) (string, string) {
			s := base64.RawURLEncoding.EncodeToString(g.bytes(128))
			return "{\"kty\":\"RSA\",\"kid\":\"k{N}\",\"n\":\"" + base64.RawURLEncoding.EncodeToString(g.bytes(40)) + "…\",\"e\":\"AQAB\",\"p\":\"{S}\"}", s
		}),
		km("dotnet-pfx-password-literal", "the password of a .pfx file in C# code", func(g *gen) (string, string) {
			s := g.b2UPw()
			return g.pick("var cert = new X509Certificate2(\"server.pfx\", \"{S}\");", "options.Certificate = X509CertificateLoader.LoadPkcs12FromFile(\"api.pfx\", \"{S}\");", "\"Kestrel\": { \"Certificates\": { \"Default\": { \"Path\": \"cert.pfx\", \"Password\": \"{S}\" } } }"), s
		}),
		km("gpg-preset-passphrase", "a GPG passphrase given to gpg-preset-passphrase or in a pinentry loopback file", func(g *gen) (string, string) {
			s := g.b2UPw()
			return g.pick("/usr/lib/gnupg/gpg-preset-passphrase --preset -P {S} "+g.s(b2HexUp, 40), "echo 'passphrase {S}' >> ~/.gnupg/gpg-agent-pass", "GPG_PASSPHRASE={S} make release"), s
		}),
		km("sops-recipient-and-identity", "an age recipient (public) next to its identity (the secret) for SOPS", func(g *gen) (string, string) {
			s := "AGE-SECRET-KEY-1" + g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
			rec := "age1" + g.s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
			return g.pick("# .sops.yaml\ncreation_rules:\n  - age: "+rec+"\n\n# CI secret SOPS_AGE_KEY:\n{S}",
				"export SOPS_AGE_RECIPIENTS="+rec+"\nexport SOPS_AGE_KEY={S}"), s
		}),
		km("vault-unseal-key-init-output", "a Vault unseal key in the output of vault operator init", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(g.bytes(33))
			return "Unseal Key 1: " + base64.StdEncoding.EncodeToString(g.bytes(33)) + "\nUnseal Key 2: {S}\n\nInitial Root Token: hvs.REDACTED\n\nVault initialized with 5 key shares and a key threshold of 3.", s
		}),
		km("vault-init-json-unseal-b64", "a Vault unseal key in vault operator init -format=json", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(g.bytes(33))
			return "{\n  \"unseal_keys_b64\": [\n    \"{S}\"\n  ],\n  \"unseal_shares\": 1,\n  \"unseal_threshold\": 1\n}", s
		}),
		km("k8s-bootstrap-token-secret", "a kubeadm bootstrap token's secret half in its Secret manifest", func(g *gen) (string, string) {
			s := g.s("abcdefghijklmnopqrstuvwxyz0123456789", 16)
			return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-" + g.s(b2Low36, 6) + "\n  namespace: kube-system\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: " + g.s(b2Low36, 6) + "\n  token-secret: {S}\n  usage-bootstrap-authentication: \"true\"", s
		}),
		km("terraform-state-db-password", "a database password in a terraform.tfstate resource", func(g *gen) (string, string) {
			s := g.b2UPw()
			return "{\n  \"type\": \"aws_db_instance\",\n  \"name\": \"main\",\n  \"instances\": [{\n    \"attributes\": {\n      \"username\": \"{U}\",\n      \"password\": \"{S}\",\n      \"engine\": \"postgres\"\n    }\n  }]\n}", s
		}),
		km("terraform-state-tls-private-key", "a tls_private_key's PEM body in terraform.tfstate, newlines escaped", func(g *gen) (string, string) {
			b := base64.StdEncoding.EncodeToString(g.bytes(180))
			s := strings.ReplaceAll(b2Lines(b, 64), "\n", "\\n")
			return "\"type\": \"tls_private_key\",\n\"attributes\": {\n  \"algorithm\": \"RSA\",\n  \"private_key_pem\": \"-----BEGIN RSA PRIVATE KEY-----\\n{S}\\n-----END RSA PRIVATE KEY-----\\n\"\n}", s
		}),
		km("docker-config-identitytoken", "an identitytoken (a registry refresh token) in ~/.docker/config.json", func(g *gen) (string, string) {
			s := g.s(b2B64U, 40) + "." + g.s(b2B64U, 60)
			return "{\n  \"auths\": {\n    \"" + g.pick("acme.azurecr.io", "registry.example.org", "ghcr.io") + "\": {\n      \"auth\": \"MDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwOg==\",\n      \"identitytoken\": \"{S}\"\n    }\n  }\n}", s
		}),
		km("tls-session-ticket-key", "an nginx ssl_session_ticket_key file's 80 bytes in base64", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(g.bytes(80))
			return g.pick("$ openssl rand 80 | base64 -w0\n{S}\n$ # -> /etc/nginx/ticket.key", "ticket_key_b64: {S}\nssl_session_ticket_key /etc/nginx/ticket.key;"), s
		}),
		km("dnssec-private-key-file", "a BIND K*.private DNSSEC key's PrivateKey field", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(g.bytes(32))
			return "Private-key-format: v1.3\nAlgorithm: 13 (ECDSAP256SHA256)\nPrivateKey: {S}\nCreated: 20260101000000\nPublish: 20260101000000", s
		}),
		km("bind-tsig-secret", "a TSIG key's secret in named.conf", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString(g.bytes(32))
			return g.pick("key \"xfer-key\" {\n    algorithm hmac-sha256;\n    secret \"{S}\";\n};", "nsupdate -y hmac-sha256:ddns-key:{S} <<EOF\nupdate add host.example.org 300 A 10.0.0.5\nsend\nEOF"), s
		}),
		km("matrix-security-key", "a Matrix Security Key: 12 groups of 4 base58 characters", func(g *gen) (string, string) {
			var gs []string
			for range 12 {
				gs = append(gs, g.s(b2B58, 4))
			}
			s := "Es" + strings.Join(gs, " ")[2:]
			return g.pick("Element Security Key: {S}", "my matrix recovery key is {S}, saving it here", "Security Key\n\n{S}\n\nStore it somewhere safe"), s
		}),
		km("onepassword-emergency-secret-key", "a 1Password Secret Key from an Emergency Kit", func(g *gen) (string, string) {
			a := b2Up36
			s := "A3-" + g.s(a, 6) + "-" + g.s(a, 6) + "-" + g.s(a, 5) + "-" + g.s(a, 5) + "-" + g.s(a, 5) + "-" + g.s(a, 5)
			return g.pick("Emergency Kit\nSign-in address: acme.1password.com\nEmail: {E}\nSecret Key: {S}", "1P secret key {S} (master pw on paper)"), s
		}),
		km("bitlocker-recovery-key", "a BitLocker recovery key: 8 groups of 6 digits", func(g *gen) (string, string) {
			var gs []string
			for range 8 {
				gs = append(gs, g.s(b2Dig, 6))
			}
			s := strings.Join(gs, "-")
			return g.pick("BitLocker recovery key for {U}'s laptop: {S}", "Recovery Key ID: "+g.s(b2HexUp, 8)+"\nRecovery Key: {S}", "manage-bde -unlock C: -RecoveryPassword {S}"), s
		}),
		km("filevault-recovery-key", "a FileVault personal recovery key: 6 groups of 4", func(g *gen) (string, string) {
			var gs []string
			for range 6 {
				gs = append(gs, g.s("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", 4))
			}
			s := strings.Join(gs, "-")
			return g.pick("FileVault recovery key: {S}", "Mac mini recovery key {S} (serial C02{N})", "fdesetup output:\nNew personal recovery key = '{S}'"), s
		}),
	}
}

// --- tokens ---

func blind2Tokens() []kindGen {
	tk := func(name, format string, mk func(g *gen) (string, string)) kindGen {
		return b2m("token", name, format, mk)
	}
	return []kindGen{
		tk("rails-session-id-cookie", "a Rails _session_id cookie of a session store", func(g *gen) (string, string) {
			s := g.s(b2Hex, 32)
			return g.pick("Cookie: _session_id={S}; path=/", "curl -b '_session_id={S}' https://app.example.org/admin", "Set-Cookie: _session_id={S}; path=/; HttpOnly"), s
		}),
		tk("django-sessionid-cookie", "a Django sessionid cookie (32 lower-case letters and digits)", func(g *gen) (string, string) {
			s := g.s(b2Low36, 32)
			return g.pick("Cookie: csrftoken="+g.s(b2B62, 32)+"; sessionid={S}", "requests.get(url, cookies={\"sessionid\": \"{S}\"})", "sessionid={S} (from devtools, logged in as staff)"), s
		}),
		tk("laravel-session-cookie", "a laravel_session cookie: URL-encoded base64 of an encrypted payload", func(g *gen) (string, string) {
			raw := base64.StdEncoding.EncodeToString([]byte(`{"iv":"` + base64.StdEncoding.EncodeToString(g.bytes(16)) + `","value":"` + base64.StdEncoding.EncodeToString(g.bytes(48)) + `","mac":"` + g.s(b2Hex, 64) + `","tag":""}`))
			s := strings.ReplaceAll(raw, "=", "%3D")
			return g.pick("Cookie: XSRF-TOKEN=abc; laravel_session={S}", "laravel_session={S}; expires=Fri, 01-Jan-2027 00:00:00 GMT; path=/; httponly"), s
		}),
		tk("aspnet-sessionid-cookie", "an ASP.NET_SessionId cookie (24 lower-case letters and digits)", func(g *gen) (string, string) {
			s := g.s("abcdefghijklmnopqrstuvwxyz012345", 24)
			return g.pick("Cookie: ASP.NET_SessionId={S}", "Set-Cookie: ASP.NET_SessionId={S}; path=/; HttpOnly; SameSite=Lax"), s
		}),
		tk("flask-signed-session-cookie", "a Flask session cookie: base64url payload, timestamp and signature", func(g *gen) (string, string) {
			s := "eyJ1c2VyX2lkIjo" + g.s(b2B64U, 20) + "." + g.s(b2B64U, 6) + "." + g.s(b2B64U, 27)
			return g.pick("Cookie: session={S}", "flask-unsign --decode --cookie '{S}'", "session cookie = {S}"), s
		}),
		tk("nextauth-session-token", "a next-auth.session-token cookie (a JWE)", func(g *gen) (string, string) {
			s := "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0.." + g.s(b2B64U, 16) + "." + g.s(b2B64U, 120) + "." + g.s(b2B64U, 22)
			return g.pick("Cookie: next-auth.session-token={S}", "__Secure-next-auth.session-token={S}"), s
		}),
		tk("supabase-auth-cookie", "a Supabase sb-…-auth-token cookie value", func(g *gen) (string, string) {
			s := "base64-" + base64.RawStdEncoding.EncodeToString(g.bytes(90))
			return "Cookie: sb-" + g.s(b2Lower, 20) + "-auth-token={S}", s
		}),
		tk("wordpress-logged-in-cookie", "a wordpress_logged_in cookie: user, expiry, token and HMAC", func(g *gen) (string, string) {
			s := "admin%7C17" + g.s(b2Dig, 8) + "%7C" + g.s(b2B62, 43) + "%7C" + g.s(b2Hex, 64)
			return "Cookie: wordpress_logged_in_" + g.s(b2Hex, 32) + "={S}", s
		}),
		tk("oauth-code-in-redirect", "an OAuth authorization code in a redirect URL", func(g *gen) (string, string) {
			s := g.s(b2B64U, 40+g.rng.IntN(20))
			return g.pick("redirected to https://app.example.org/callback?code={S}&state=xyz123", "GET /oauth2/callback?state=af0ifjsldkj&code={S} HTTP/1.1", "the callback URL was http://localhost:8080/?code={S}&scope=read"), s
		}),
		tk("oauth-implicit-fragment-token", "an access token in an implicit-flow URL fragment", func(g *gen) (string, string) {
			s := g.s(b2B64U, 48)
			return g.pick("https://app.example.org/#access_token={S}&token_type=Bearer&expires_in=3600", "landed on http://localhost:3000/auth#state=1&access_token={S}"), s
		}),
		tk("email-verification-link", "an e-mail verification link's token", func(g *gen) (string, string) {
			s := g.s(b2B64U, 43)
			return g.pick("Confirm your address: https://app.example.org/verify-email?token={S}", "click https://example.net/account/confirm/{S} to verify"), s
		}),
		tk("one-time-login-link", "a one-time login link's token", func(g *gen) (string, string) {
			s := g.s(b2Hex, 48)
			return g.pick("Your sign-in link: https://portal.example.org/auth/otl/{S} (expires in 15 minutes)", "drupal one-time login: https://example.org/user/reset/1/17"+g.s(b2Dig, 8)+"/{S}/login"), s
		}),
		tk("django-password-reset-path", "a Django password-reset link: uid and token in the path", func(g *gen) (string, string) {
			s := g.s(b2Low36, 6) + "-" + g.s(b2Hex, 32)
			return "https://example.org/reset/MQ/{S}/", s
		}),
		tk("firebase-rest-auth-param", "a Firebase ID token in a REST call's ?auth=", func(g *gen) (string, string) {
			s := "eyJhbGciOiJSUzI1NiIsImtpZCI6Ij" + g.s(b2B64U, 30) + "." + g.s(b2B64U, 150) + "." + g.s(b2B64U, 86)
			return "curl 'https://acme-default-rtdb.firebaseio.com/users.json?auth={S}'", s
		}),
		tk("backblaze-b2-download-auth", "a Backblaze B2 download authorization in ?Authorization=", func(g *gen) (string, string) {
			s := "3_" + g.s(b2Dig, 14) + "_" + g.s(b2Hex, 24) + "_" + g.s(b2Hex, 8) + "_acct_" + g.s(b2B62, 27) + "="
			return "https://f002.backblazeb2.com/file/acme-media/video.mp4?Authorization={S}", s
		}),
		tk("do-spaces-presigned-signature", "the signature of a DigitalOcean Spaces presigned URL", func(g *gen) (string, string) {
			s := g.s(b2Hex, 64)
			return "https://acme.fra1.digitaloceanspaces.com/backup.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=DO00" + g.s(b2Up36, 16) + "%2F20260101%2Ffra1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={S}", s
		}),
		tk("r2-presigned-signature", "the signature of a Cloudflare R2 presigned URL", func(g *gen) (string, string) {
			s := g.s(b2Hex, 64)
			return "https://" + g.s(b2Hex, 32) + ".r2.cloudflarestorage.com/assets/build.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature={S}&X-Amz-SignedHeaders=host", s
		}),
		tk("alibaba-oss-signed-url", "the Signature of an Alibaba Cloud OSS signed URL", func(g *gen) (string, string) {
			s := url.QueryEscape(base64.StdEncoding.EncodeToString(g.bytes(20)))
			return "https://acme.oss-cn-hangzhou.aliyuncs.com/report.pdf?OSSAccessKeyId=LTAI" + g.s(b2B62, 20) + "&Expires=17" + g.s(b2Dig, 8) + "&Signature={S}", s
		}),
		tk("tencent-cos-signature", "the q-signature of a Tencent Cloud COS signed URL", func(g *gen) (string, string) {
			s := g.s(b2Hex, 40)
			return "https://acme-125" + g.s(b2Dig, 7) + ".cos.ap-guangzhou.myqcloud.com/a.png?q-sign-algorithm=sha1&q-ak=AKID" + g.s(b2B62, 32) + "&q-sign-time=1700000000%3B1700003600&q-header-list=host&q-url-param-list=&q-signature={S}", s
		}),
		tk("zoom-join-link-pwd", "the pwd of a Zoom meeting link", func(g *gen) (string, string) {
			s := g.s(b2B62, 32)
			return g.pick("Join: https://us02web.zoom.us/j/8"+g.s(b2Dig, 10)+"?pwd={S}", "standup link https://acme.zoom.us/j/9"+g.s(b2Dig, 9)+"?pwd={S}.1"), s
		}),
		tk("google-calendar-private-ics", "the private address of a Google Calendar (private-<hex>)", func(g *gen) (string, string) {
			s := "private-" + g.s(b2Hex, 32)
			return "https://calendar.google.com/calendar/ical/{E}/{S}/basic.ics", s
		}),
		tk("github-raw-url-token", "a token in a raw.githubusercontent.com URL", func(g *gen) (string, string) {
			s := "GHSAT0AAAAAAC" + g.s(b2Up36, 40)
			return "curl https://raw.githubusercontent.com/acme/private/main/install.sh?token={S} | sh", s
		}),
		tk("slack-file-pub-secret", "the pub_secret of a Slack public file link", func(g *gen) (string, string) {
			s := g.s(b2Hex, 10)
			return "https://slack-files.com/T0" + g.s(b2Up36, 8) + "-F0" + g.s(b2Up36, 8) + "-{S}", s
		}),
	}
}

// --- encoded ---

func b2Rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

func b2Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// b2APw is an ASCII password with symbols, for the encodings below.
func (g *gen) b2APw() string {
	return b2Cap(g.b2Word()) + g.pick("!", "#", "$", "%", "&", "*", "+", "?", "@") + g.s(b2Dig, 4) + g.s(b2B62, 4)
}

func blind2Encoded() []kindGen {
	en := func(name, format string, mk func(g *gen) (string, string)) kindGen {
		return b2m("encoded", name, format, mk)
	}
	return []kindGen{
		en("base32-password", "a password in base32", func(g *gen) (string, string) {
			s := base32.StdEncoding.EncodeToString([]byte(g.b2APw()))
			return g.pick("password (base32): {S}", "DB_PASS_B32={S}", "decode with base32 -d: {S}"), s
		}),
		en("base58-api-key", "an API key in base58", func(g *gen) (string, string) {
			s := base58(g.bytes(32), b2B58)
			return g.pick("api_key_b58 = \"{S}\"", "key (base58): {S}", "SERVICE_KEY={S}"), s
		}),
		en("base64url-nopad-password", "a password in base64url with no padding", func(g *gen) (string, string) {
			s := base64.RawURLEncoding.EncodeToString([]byte(g.b2APw() + "?>~"))
			return g.pick("pwd_b64url: {S}", "?creds={S}", "\"secret\": \"{S}\" // base64url"), s
		}),
		en("rot13-password", "a password in rot13", func(g *gen) (string, string) {
			s := b2Rot13(g.b2APw())
			return g.pick("pw (rot13 so the bots don't see it): {S}", "rot13: {S}", "echo '{S}' | tr 'A-Za-z' 'N-ZA-Mn-za-m'"), s
		}),
		en("reversed-password", "a password written backwards", func(g *gen) (string, string) {
			s := b2Reverse(g.b2APw())
			return g.pick("password reversed: {S}", "read it backwards: {S}", "echo {S} | rev"), s
		}),
		en("url-encoded-thrice", "a password URL-encoded three times", func(g *gen) (string, string) {
			s := url.QueryEscape(url.QueryEscape(url.QueryEscape(g.b2APw() + "/=")))
			return "GET /login?next=%2F&p={S} HTTP/1.1", s
		}),
		en("html-hex-entities", "a password as HTML hex entities", func(g *gen) (string, string) {
			var b strings.Builder
			for _, c := range g.b2APw() {
				fmt.Fprintf(&b, "&#x%X;", c)
			}
			s := b.String()
			return g.pick("<input type=\"password\" value=\"{S}\">", "<p>Your password: {S}</p>", "<td>{S}</td>"), s
		}),
		en("html-decimal-entities", "a password as HTML decimal entities", func(g *gen) (string, string) {
			var b strings.Builder
			for _, c := range g.b2APw() {
				fmt.Fprintf(&b, "&#%d;", c)
			}
			s := b.String()
			return g.pick("<span class=\"pw\">{S}</span>", "mailto body: password={S}"), s
		}),
		en("percent-every-byte", "a password with every byte percent-encoded", func(g *gen) (string, string) {
			var b strings.Builder
			for _, c := range []byte(g.b2APw()) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
			s := b.String()
			return g.pick("https://{U}:{S}@{H}/", "password={S}&remember=1"), s
		}),
		en("csharp-verbatim-string", "a connection password in a C# verbatim string", func(g *gen) (string, string) {
			s := g.b2APw() + "\"\"q"
			return "var cs = @\"Server={H};User Id={U};Password={S};\";", s
		}),
		en("kotlin-raw-string", "a password in a Kotlin raw string", func(g *gen) (string, string) {
			s := g.b2APw() + "\\n$"
			return "val pw = \"\"\"{S}\"\"\"\nval ds = HikariDataSource().apply { password = pw }", s
		}),
		en("swift-string-literal", "an API key in a Swift string literal", func(g *gen) (string, string) {
			s := g.s(b2B62, 40)
			return g.pick("let apiKey = \"{S}\"", "static let secret: String = #\"{S}\"#", "private let token = \"{S}\" // TODO: keychain"), s
		}),
		en("rust-raw-string", "a password in a Rust raw string", func(g *gen) (string, string) {
			s := g.b2APw() + "\"#q"
			return "const DB_PASSWORD: &str = r##\"{S}\"##;", s
		}),
		en("go-raw-string-backtick", "a password in a Go raw string", func(g *gen) (string, string) {
			s := g.b2APw() + "\\\""
			return "db, err := sql.Open(\"mysql\", `{U}:{S}@tcp({H}:3306)/app`)", s
		}),
		en("sql-concat-password", "a password built by SQL string concatenation", func(g *gen) (string, string) {
			a, b := g.b2APw(), g.s(b2B62, 9)
			s := a + "' || '" + b
			return "ALTER USER {U} WITH PASSWORD '{S}';", s
		}),
		en("shell-ansi-c-quoted", "a password in a shell $'…' string with escapes", func(g *gen) (string, string) {
			s := b2Cap(g.b2Word()) + "\\x21" + g.s(b2Dig, 4) + "\\'" + g.s(b2B62, 5)
			return g.pick("export DB_PASS=$'{S}'", "mysql -u{U} -p$'{S}' app"), s
		}),
		en("powershell-here-string", "a password in a PowerShell here-string", func(g *gen) (string, string) {
			s := g.b2APw()
			return "$pw = @'\n{S}\n'@\n$sec = ConvertTo-SecureString $pw -AsPlainText -Force", s
		}),
		en("gzip-base64-credentials", "a gzip of a credentials file, in base64", func(g *gen) (string, string) {
			var buf bytes.Buffer
			w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			w.Write([]byte("[default]\naws_access_key_id = AKIA" + g.s(b2Up36, 16) + "\naws_secret_access_key = " + g.s(b2B62+"+/", 40) + "\n"))
			w.Close()
			b := buf.Bytes()
			b[4], b[5], b[6], b[7] = 0, 0, 0, 0
			s := base64.StdEncoding.EncodeToString(b)
			return g.pick("echo {S} | base64 -d | gunzip > ~/.aws/credentials", "CREDS_GZ_B64={S}", "credentials.gz.b64:\n{S}"), s
		}),
		en("base64-of-base64", "a password base64-encoded twice", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(g.b2APw()))))
			return g.pick("secret: {S} (decode twice)", "data:\n  password: {S}"), s
		}),
		en("ascii85-blob", "an API key in Ascii85", func(g *gen) (string, string) {
			s := b2Ascii85(g.bytes(24))
			return g.pick("key (a85): <~{S}~>", "python -c \"import base64;print(base64.a85decode(b'{S}'))\""), s
		}),
		en("quoted-printable-email", "a password in a quoted-printable e-mail body", func(g *gen) (string, string) {
			p := g.b2APw()
			s := strings.ReplaceAll(p, "=", "=3D") + "=3D=3D"
			return "Content-Transfer-Encoding: quoted-printable\n\nYour new password is: {S}\nPlease change it.", s
		}),
		en("yaml-binary-tag", "a secret in a YAML !!binary value", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString([]byte("pw=" + g.b2APw()))
			return "db:\n  password: !!binary |\n    {S}", s
		}),
		en("java-char-array", "a password as a Java char array", func(g *gen) (string, string) {
			var parts []string
			for _, c := range g.b2APw() {
				parts = append(parts, "'"+string(c)+"'")
			}
			s := strings.Join(parts, ", ")
			return "char[] password = new char[]{ {S} };", s
		}),
		en("python-bytes-decimal", "a password as a list of byte values in Python", func(g *gen) (string, string) {
			var parts []string
			for _, c := range []byte(g.b2APw()) {
				parts = append(parts, fmt.Sprint(c))
			}
			s := strings.Join(parts, ", ")
			return "PASSWORD = bytes([{S}]).decode()", s
		}),
		en("c-hex-byte-array", "a key as a C array of hex bytes", func(g *gen) (string, string) {
			var parts []string
			for _, c := range g.bytes(16) {
				parts = append(parts, fmt.Sprintf("0x%02x", c))
			}
			s := strings.Join(parts, ", ")
			return "static const uint8_t aes_key[16] = { {S} };", s
		}),
		en("xxd-hexdump-password", "a password in an xxd dump", func(g *gen) (string, string) {
			p := []byte(g.b2APw())[:12]
			var parts []string
			for i := 0; i+1 < len(p); i += 2 {
				parts = append(parts, hex.EncodeToString(p[i:i+2]))
			}
			s := strings.Join(parts, " ")
			return "$ xxd .pgpass.bak | head -1\n00000000: {S}  ............", s
		}),
	}
}

// b2Ascii85 is Ascii85 (btoa) of b, whose length is a multiple of 4.
func b2Ascii85(b []byte) string {
	var out strings.Builder
	for i := 0; i+4 <= len(b); i += 4 {
		v := uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])
		if v == 0 {
			out.WriteByte('z')
			continue
		}
		var d [5]byte
		for j := 4; j >= 0; j-- {
			d[j] = byte(v%85) + '!'
			v /= 85
		}
		out.Write(d[:])
	}
	return out.String()
}

// --- configs ---

func blind2Configs() []kindGen {
	c := func(name, format string, secret func(g *gen) string, texts ...string) kindGen {
		return b2("config", name, format, secret, texts...)
	}
	pw, upw, key := (*gen).b2Pw, (*gen).b2UPw, (*gen).b2Key
	hex32 := b2s(b2Hex, 32)
	return []kindGen{
		c("fluentd-forward-shared-key", "a Fluentd forward plugin's shared_key", upw,
			"<match **>\n  @type forward\n  <security>\n    self_hostname client\n    shared_key {S}\n  </security>\n  <server>\n    host {H}\n  </server>\n</match>"),
		c("alertmanager-pagerduty-routing-key", "an Alertmanager PagerDuty receiver's routing_key", hex32,
			"receivers:\n- name: oncall\n  pagerduty_configs:\n  - routing_key: {S}\n    severity: critical", "receivers:\n  - name: pd\n    pagerduty_configs:\n      - service_key: '{S}'"),
		c("alertmanager-opsgenie-api-key", "an Alertmanager Opsgenie receiver's api_key", (*gen).b2UUID,
			"global:\n  opsgenie_api_key: {S}\nroute:\n  receiver: og", "receivers:\n- name: og\n  opsgenie_configs:\n  - api_key: {S}\n    priority: P2"),
		c("grafana-datasource-securejsondata", "a Grafana provisioned data source's secureJsonData password", upw,
			"apiVersion: 1\ndatasources:\n  - name: Postgres\n    type: postgres\n    url: {H}:5432\n    user: grafana\n    secureJsonData:\n      password: '{S}'",
			"datasources:\n- name: Loki\n  basicAuth: true\n  basicAuthUser: {U}\n  secureJsonData:\n    basicAuthPassword: {S}"),
		c("airflow-conn-env-uri", "an Airflow connection URI in AIRFLOW_CONN_*", upw,
			"AIRFLOW_CONN_WAREHOUSE=postgres://{U}:{S}@{H}:5432/dwh", "environment:\n  AIRFLOW_CONN_MY_SFTP: 'sftp://{U}:{S}@{H}:22'",
			"airflow connections add 'mssql_default' --conn-uri 'mssql://{U}:{S}@{H}:1433/db'"),
		c("dbt-profiles-password", "a password in dbt's profiles.yml", upw,
			"analytics:\n  target: prod\n  outputs:\n    prod:\n      type: postgres\n      host: {H}\n      user: {U}\n      password: {S}\n      dbname: analytics\n      schema: dbt",
			"snowflake_prod:\n  outputs:\n    default:\n      type: snowflake\n      account: xy12345\n      user: DBT\n      password: \"{S}\""),
		c("superset-config-secret-key", "Superset's SECRET_KEY in superset_config.py", b2b64(42),
			"SECRET_KEY = '{S}'\nSQLALCHEMY_DATABASE_URI = 'sqlite:////app/superset.db'", "SUPERSET_SECRET_KEY={S}"),
		c("metabase-db-pass-env", "Metabase's MB_DB_PASS or MB_ENCRYPTION_SECRET_KEY", upw,
			"MB_DB_TYPE=postgres\nMB_DB_HOST={H}\nMB_DB_USER=metabase\nMB_DB_PASS={S}", "      MB_ENCRYPTION_SECRET_KEY: \"{S}\""),
		c("sentry-relay-credentials", "a Sentry Relay credentials.json secret_key", b2s(b2B64U, 43),
			"{\n  \"secret_key\": \"{S}\",\n  \"public_key\": \""+"pk"+"\",\n  \"id\": \"a8a3c6e4-0000-4000-8000-000000000000\"\n}"),
		c("jenkins-casc-password", "a plaintext password in Jenkins Configuration as Code", upw,
			"jenkins:\n  securityRealm:\n    local:\n      users:\n        - id: admin\n          password: {S}",
			"credentials:\n  system:\n    domainCredentials:\n      - credentials:\n          - usernamePassword:\n              id: nexus\n              username: {U}\n              password: \"{S}\""),
		c("argocd-repo-secret", "an Argo CD repository Secret's password", upw,
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: private-repo\n  labels:\n    argocd.argoproj.io/secret-type: repository\nstringData:\n  type: git\n  url: https://git.example.org/acme/deploy.git\n  username: {U}\n  password: {S}",
			"argocd repo add https://git.example.org/acme/app.git --username {U} --password {S}"),
		c("helmfile-inline-values-password", "a password in a helmfile.yaml release's values", upw,
			"releases:\n  - name: db\n    chart: bitnami/postgresql\n    values:\n      - auth:\n          postgresPassword: {S}",
			"releases:\n- name: redis\n  set:\n  - name: auth.password\n    value: {S}"),
		c("salt-pillar-password", "a password in a Salt pillar", upw,
			"# /srv/pillar/mysql.sls\nmysql:\n  server:\n    root_password: '{S}'", "users:\n  deploy:\n    password: {S}\n    shell: /bin/bash"),
		c("chef-data-bag-item", "a password in a Chef data bag item (unencrypted)", upw,
			"{\n  \"id\": \"postgres\",\n  \"admin_user\": \"{U}\",\n  \"admin_password\": \"{S}\"\n}"),
		c("puppet-hiera-plain-password", "a plaintext password in Puppet Hiera data", upw,
			"---\nprofile::db::password: '{S}'\nprofile::db::user: '{U}'", "mysql::server::root_password: \"{S}\""),
		c("packer-winrm-password", "a WinRM password in a Packer HCL template", upw,
			"source \"azure-arm\" \"win\" {\n  communicator   = \"winrm\"\n  winrm_username = \"packer\"\n  winrm_password = \"{S}\"\n}", "variable \"winrm_password\" {\n  default = \"{S}\"\n}"),
		c("serverless-yml-env", "a secret in serverless.yml's provider environment", key,
			"provider:\n  name: aws\n  runtime: nodejs20.x\n  environment:\n    STRIPE_SECRET: {S}\n    STAGE: ${sls:stage}"),
		c("sam-template-parameter-default", "a secret as a SAM/CloudFormation parameter's Default", upw,
			"Parameters:\n  DbPassword:\n    Type: String\n    NoEcho: true\n    Default: {S}"),
		c("supabase-service-role-env", "a Supabase service_role key (a JWT) in an env file", func(g *gen) string {
			return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"supabase","ref":"`+g.s(b2Lower, 20)+`","role":"service_role","iat":1700000000,"exp":2015000000}`)) + "." + g.s(b2B64U, 43)
		}, "SUPABASE_URL=https://xyz.supabase.co\nSUPABASE_SERVICE_ROLE_KEY={S}", "const supabase = createClient(url, \"{S}\")"),
		c("hasura-admin-secret-env", "Hasura's HASURA_GRAPHQL_ADMIN_SECRET", upw,
			"HASURA_GRAPHQL_ADMIN_SECRET={S}", "      HASURA_GRAPHQL_ADMIN_SECRET: {S}\n      HASURA_GRAPHQL_ENABLE_CONSOLE: \"true\"",
			"curl -H 'x-hasura-admin-secret: {S}' https://acme.hasura.app/v1/graphql"),
		c("strapi-env-secrets", "Strapi's APP_KEYS, JWT_SECRET or ADMIN_JWT_SECRET", b2b64(16),
			"HOST=0.0.0.0\nPORT=1337\nAPP_KEYS=\"toBeModified1,toBeModified2\"\nADMIN_JWT_SECRET={S}", "JWT_SECRET={S}\nAPI_TOKEN_SALT=tobemodified"),
		c("directus-env-secrets", "Directus's SECRET or ADMIN_PASSWORD", upw,
			"SECRET=\"{S}\"\nDB_CLIENT=\"pg\"", "ADMIN_EMAIL=\"{E}\"\nADMIN_PASSWORD=\"{S}\""),
		c("keycloak-realm-export-user-credential", "a user's plaintext credential in a Keycloak realm export", upw,
			"\"users\": [{\n  \"username\": \"{U}\",\n  \"enabled\": true,\n  \"credentials\": [{ \"type\": \"password\", \"value\": \"{S}\", \"temporary\": false }]\n}]"),
		c("authelia-configuration-secrets", "an Authelia jwt_secret, session secret or storage encryption_key", b2s(b2B62, 64),
			"identity_validation:\n  reset_password:\n    jwt_secret: '{S}'", "session:\n  secret: {S}\n  cookies:\n    - domain: example.org", "storage:\n  encryption_key: {S}\n  local:\n    path: /config/db.sqlite3"),
		c("dovecot-plain-passdb", "a {PLAIN} password in a Dovecot passwd-file", upw,
			"{U}:{PLAIN}{S}:1000:1000::/home/{U}", "# /etc/dovecot/users\n{E}:{PLAIN}{S}"),
		c("asterisk-pjsip-auth-password", "an Asterisk pjsip.conf auth section's password", upw,
			"[6001]\ntype=auth\nauth_type=userpass\nusername=6001\npassword={S}"),
		c("asterisk-manager-secret", "an Asterisk manager.conf (AMI) secret", upw,
			"[admin]\nsecret = {S}\ndeny=0.0.0.0/0.0.0.0\npermit=127.0.0.1/255.255.255.0\nread = all"),
		c("mosquitto-bridge-remote-password", "a Mosquitto bridge's remote_password", upw,
			"connection cloud-bridge\naddress {H}:8883\nremote_username {U}\nremote_password {S}\ntopic sensors/# out 1"),
		c("rabbitmq-definitions-password", "a plaintext password in a RabbitMQ definitions.json", upw,
			"{\"users\": [{\"name\": \"{U}\", \"password\": \"{S}\", \"tags\": \"administrator\"}], \"vhosts\": [{\"name\": \"/\"}]}"),
		c("cqlshrc-password", "a password in cqlshrc", upw, "[authentication]\nusername = cassandra\npassword = {S}\n\n[connection]\nhostname = {H}"),
		c("neo4j-auth-env", "NEO4J_AUTH's user/password", upw, "NEO4J_AUTH=neo4j/{S}", "    environment:\n      - NEO4J_AUTH=neo4j/{S}"),
		c("influx-cli-configs-token", "a token in the influx CLI's configs file", func(g *gen) string { return base64.URLEncoding.EncodeToString(g.bytes(64)) },
			"[default]\n  url = \"http://{H}:8086\"\n  token = \"{S}\"\n  org = \"acme\"\n  active = true"),
		c("clickhouse-users-xml-password", "a plaintext password in ClickHouse users.xml", upw,
			"<clickhouse>\n  <users>\n    <{U}>\n      <password>{S}</password>\n      <networks><ip>::/0</ip></networks>\n    </{U}>\n  </users>\n</clickhouse>"),
		c("redis-sentinel-auth-pass", "sentinel auth-pass in sentinel.conf", upw,
			"sentinel monitor mymaster {H} 6379 2\nsentinel auth-pass mymaster {S}\nsentinel down-after-milliseconds mymaster 5000"),
		c("haproxy-userlist-insecure-password", "an insecure-password in an HAProxy userlist", upw,
			"userlist admins\n  user {U} insecure-password {S}\n\nfrontend stats\n  bind :8404"),
		c("nut-upsd-users-password", "a password in NUT's upsd.users", upw, "[monuser]\n  password = {S}\n  upsmon master"),
		c("icinga2-api-user-password", "an ApiUser's password in Icinga 2", upw,
			"object ApiUser \"root\" {\n  password = \"{S}\"\n  permissions = [ \"*\" ]\n}"),
		c("gitea-app-ini-secrets", "INTERNAL_TOKEN or SECRET_KEY in Gitea's app.ini", func(g *gen) string {
			return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + g.s(b2B64U, 24) + "." + g.s(b2B64U, 43)
		}, "[security]\nINSTALL_LOCK = true\nINTERNAL_TOKEN = {S}", "[oauth2]\nJWT_SECRET = {S}"),
		c("synapse-registration-shared-secret", "registration_shared_secret or macaroon_secret_key in a Synapse homeserver.yaml", b2s(b2B62+"=~.;:", 50),
			"server_name: \"example.org\"\nregistration_shared_secret: \"{S}\"", "macaroon_secret_key: \"{S}\"\nform_secret: \"x\""),
		c("loki-storage-secret-access-key", "an object-store secret in a Loki or Thanos config", b2s(b2B62+"+/", 40),
			"storage_config:\n  aws:\n    s3: s3://eu-west-1/loki\n    access_key_id: AKIA00000000EXAMPLE0\n    secret_access_key: {S}",
			"type: S3\nconfig:\n  bucket: thanos\n  endpoint: {H}:9000\n  access_key: thanos\n  secret_key: {S}"),
		c("mastodon-env-production", "SECRET_KEY_BASE or OTP_SECRET in Mastodon's .env.production", b2s(b2Hex, 128),
			"LOCAL_DOMAIN=example.org\nSECRET_KEY_BASE={S}", "OTP_SECRET={S}\nVAPID_PUBLIC_KEY=BP0000"),
		c("spamassassin-sql-password", "user_scores_sql_password in SpamAssassin local.cf", upw,
			"user_scores_dsn DBI:mysql:spamassassin:{H}\nuser_scores_sql_username sa\nuser_scores_sql_password {S}"),
		c("discourse-app-yml-db-password", "DISCOURSE_DB_PASSWORD in containers/app.yml", upw,
			"env:\n  DISCOURSE_HOSTNAME: forum.example.org\n  DISCOURSE_DB_PASSWORD: {S}\n  DISCOURSE_SMTP_PORT: 587"),
		c("pgadmin-default-password-env", "PGADMIN_DEFAULT_PASSWORD in compose", pw,
			"  pgadmin:\n    image: dpage/pgadmin4\n    environment:\n      PGADMIN_DEFAULT_EMAIL: {E}\n      PGADMIN_DEFAULT_PASSWORD: \"{S}\""),
	}
}

// --- commands ---

func blind2Commands() []kindGen {
	c := func(name, format string, secret func(g *gen) string, texts ...string) kindGen {
		return b2("command", name, format, secret, texts...)
	}
	sh := (*gen).b2UPw
	return []kindGen{
		c("pg-dump-conn-uri", "a password in a pg_dump/pg_restore connection URI", sh,
			"pg_dump \"postgresql://{U}:{S}@{H}:5432/app?sslmode=require\" -Fc -f app.dump", "pg_restore -d 'postgres://{U}:{S}@{H}/app' app.dump"),
		c("echo-into-vault-password-file", "an Ansible Vault password echoed into its file", sh,
			"echo '{S}' > ~/.vault_pass.txt && ansible-playbook site.yml --vault-password-file ~/.vault_pass.txt", "printf %s {S} > .vault-pass"),
		c("gh-auth-with-token-herestring", "a GitHub token fed to gh auth login by a here-string", func(g *gen) string { return "ghp_" + g.s(b2B62, 36) },
			"gh auth login --with-token <<< {S}", "echo {S} | gh auth login --with-token"),
		c("s3cmd-secret-key-flag", "s3cmd's --secret_key", b2s(b2B62+"+/", 40),
			"s3cmd --access_key=AKIA"+"0000EXAMPLE00000"+" --secret_key={S} ls s3://backups"),
		c("etcdctl-user-colon-password", "etcdctl --user user:password", sh,
			"etcdctl --endpoints={H}:2379 --user root:{S} get / --prefix --keys-only", "ETCDCTL_API=3 etcdctl --user=root --password={S} member list"),
		c("vault-kv-put", "vault kv put with a password", sh, "vault kv put secret/{APP}/db password={S} user={U}", "vault kv put -mount=kv prod/api token={S}"),
		c("consul-kv-put", "consul kv put of a secret", sh, "consul kv put config/{APP}/db_password {S}", "consul kv put -token=anon service/{APP}/api_key {S}"),
		c("mongo-eval-db-auth", "mongo --eval with db.auth", sh,
			"mongo admin --eval 'db.auth(\"{U}\", \"{S}\"); printjson(db.serverStatus().ok)'", "mongosh --quiet --eval 'db.getSiblingDB(\"admin\").auth(\"root\", \"{S}\")'"),
		c("hydra-single-password", "hydra with a single -p password", sh, "hydra -l admin -p {S} ssh://{H}", "hydra -L users.txt -p {S} {H} http-post-form \"/login:u=^USER^&p=^PASS^:F=invalid\""),
		c("medusa-single-password", "medusa with a single -p password", sh, "medusa -h {H} -u {U} -p {S} -M ssh"),
		c("elasticsearch-keystore-echo", "a secret echoed into elasticsearch-keystore add", b2s(b2B62+"+/", 40),
			"echo \"{S}\" | bin/elasticsearch-keystore add --stdin s3.client.default.secret_key", "printf '{S}' | ./bin/kibana-keystore add elasticsearch.password --stdin"),
		c("kafka-configs-scram", "a SCRAM password in kafka-configs --add-config", sh,
			"kafka-configs.sh --bootstrap-server {H}:9092 --alter --add-config 'SCRAM-SHA-512=[password={S}]' --entity-type users --entity-name {U}"),
		c("zkcli-addauth-digest", "addauth digest in zkCli", sh, "zkCli.sh -server {H}:2181\n[zk: {H}:2181(CONNECTED) 0] addauth digest {U}:{S}"),
		c("cqlsh-u-p", "cqlsh -u … -p …", sh, "cqlsh {H} 9042 -u cassandra -p {S}", "cqlsh --ssl -u {U} -p '{S}' -e 'DESCRIBE KEYSPACES'"),
		c("neo4j-admin-initial-password", "neo4j-admin set-initial-password", sh, "neo4j-admin dbms set-initial-password {S}", "cypher-shell -u neo4j -p {S} 'MATCH (n) RETURN count(n)'"),
		c("clickhouse-client-password", "clickhouse-client --password", sh, "clickhouse-client --host {H} --user {U} --password {S} --query 'SELECT 1'"),
		c("jarsigner-storepass", "jarsigner -storepass/-keypass", sh, "jarsigner -keystore release.jks -storepass {S} -keypass {S} app-release.apk upload", "apksigner sign --ks release.jks --ks-pass pass:{S} app.apk"),
		c("tmux-send-keys-password", "a password typed into a pane by tmux send-keys", sh, "tmux send-keys -t db:0 '{S}' Enter", "screen -S vpn -X stuff '{S}\\n'"),
		c("xdotool-type-password", "a password typed by xdotool", sh, "xdotool type --delay 50 '{S}' && xdotool key Return"),
		c("passwd-echo-stdin", "passwd fed by echo", sh, "echo -e '{S}\\n{S}' | passwd {U}", "echo '{S}' | passwd --stdin {U}"),
		c("smbpasswd-printf", "smbpasswd -a -s fed by printf", sh, "(echo {S}; echo {S}) | smbpasswd -a -s {U}", "printf '%s\\n%s\\n' '{S}' '{S}' | smbpasswd -s -a {U}"),
		c("wpa-cli-set-network-psk", "wpa_cli set_network psk", sh, "wpa_cli -i wlan0 set_network 0 psk '\"{S}\"'"),
		c("netsh-wlan-key-clear-output", "the Key Content line of netsh wlan show profile key=clear", (*gen).b2Pw,
			"C:\\> netsh wlan show profile name=\"Office\" key=clear\n...\nSecurity settings\n-----------------\n    Authentication         : WPA2-Personal\n    Key Content            : {S}\n"),
		c("macos-security-find-password-output", "the output of security find-generic-password -w", (*gen).b2Pw,
			"$ security find-generic-password -s 'github-deploy' -w\n{S}\n$", "% security find-internet-password -s example.org -a {U} -w\n{S}"),
		c("firebase-functions-config-set", "firebase functions:config:set of a key", func(g *gen) string { return "sk_live_" + g.s(b2B62, 24) },
			"firebase functions:config:set stripe.secret=\"{S}\"", "firebase functions:secrets:set STRIPE_KEY --data-file <(echo {S})"),
		c("doctl-auth-init-token", "doctl auth init -t", func(g *gen) string { return "dop_v1_" + g.s(b2Hex, 64) }, "doctl auth init --context prod -t {S}"),
		c("bitwarden-cli-login-password", "the Bitwarden CLI's positional password", sh, "bw login {E} {S} --raw", "bw unlock {S} --raw > ~/.bw_session"),
		c("pulumi-config-set-plaintext", "pulumi config set --plaintext of a secret", sh, "pulumi config set --plaintext dbPassword {S}", "pulumi config set aws:secretKey {S} --plaintext"),
		c("sqlcipher-pragma-key", "an SQLCipher PRAGMA key", sh, "sqlite3 app.db \"PRAGMA key = '{S}'; SELECT count(*) FROM users;\"", "sqlcipher vault.db\nsqlite> PRAGMA key = \"x'{S}'\";"),
		c("gocryptfs-extpass", "a password given by -extpass echo", sh, "gocryptfs -extpass 'echo {S}' ~/cipher ~/plain", "encfs --extpass='echo {S}' ~/.crypt ~/Private"),
		c("zfs-load-key-echo", "a ZFS passphrase echoed into zfs load-key", sh, "echo '{S}' | zfs load-key tank/secure", "echo {S} | sudo zpool import -l tank"),
		c("dsadd-user-pwd", "dsadd user -pwd", sh, "dsadd user \"CN={U},OU=Staff,DC=corp,DC=example,DC=org\" -pwd {S} -mustchpwd yes"),
		c("sqlmap-auth-cred", "sqlmap --auth-cred", sh, "sqlmap -u 'https://{H}/item?id=1' --auth-type=Basic --auth-cred='admin:{S}' --batch"),
		c("crackmapexec-p", "crackmapexec/netexec -u … -p …", sh, "crackmapexec smb 10.0.0.0/24 -u administrator -p '{S}' --shares", "nxc winrm {H} -u {U} -p {S}"),
		c("evil-winrm-p", "evil-winrm -p", sh, "evil-winrm -i {H} -u Administrator -p '{S}'"),
		c("impacket-user-pass-at-host", "an impacket target domain/user:password@host", sh, "psexec.py CORP/{U}:{S}@{H}", "secretsdump.py 'corp.local/administrator:{S}@10.0.0.10'"),
		c("aws-sts-assume-role-output", "the SecretAccessKey in aws sts assume-role output", b2s(b2B62+"+/", 40),
			"$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name ci\n{\n    \"Credentials\": {\n        \"AccessKeyId\": \"ASIA0000EXAMPLE00000\",\n        \"SecretAccessKey\": \"{S}\",\n        \"Expiration\": \"2026-01-01T01:00:00Z\"\n    }\n}"),
		c("az-sp-create-for-rbac-output", "the password in az ad sp create-for-rbac output", func(g *gen) string { return g.s(b2B62, 3) + "8Q~" + g.s(b2B62+"~._-", 34) },
			"$ az ad sp create-for-rbac --name ci-deployer --role contributor\n{\n  \"appId\": \"00000000-0000-4000-8000-000000000000\",\n  \"displayName\": \"ci-deployer\",\n  \"password\": \"{S}\",\n  \"tenant\": \"11111111-1111-4111-8111-111111111111\"\n}"),
		c("influx-auth-create-output", "the token column of influx auth create", func(g *gen) string { return base64.URLEncoding.EncodeToString(g.bytes(64)) },
			"$ influx auth create --org acme --all-access\nID\t\t\tDescription\tToken\t\t\tUser Name\tUser ID\n0c7a{N}\t\t\t{S}\t{U}\t0a0b"),
		c("elasticsearch-reset-password-output", "the new password printed by elasticsearch-reset-password", b2s(b2B62+"*_=+-", 20),
			"$ bin/elasticsearch-reset-password -u elastic -a -b\nPassword for the [elastic] user successfully reset.\nNew value: {S}"),
	}
}

// --- fields ---

func blind2Fields() []kindGen {
	f := func(name, format string, secret func(g *gen) string, texts ...string) kindGen {
		return b2("fields", name, format, secret, texts...)
	}
	upw, key := (*gen).b2UPw, (*gen).b2Key
	return []kindGen{
		f("git-config-remote-output", "a token in a remote URL printed from .git/config", func(g *gen) string { return "glpat-" + g.s(b2B64U, 20) },
			"$ cat .git/config\n[remote \"origin\"]\n\turl = https://oauth2:{S}@gitlab.example.org/acme/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*",
			"$ git remote -v\norigin\thttps://ci:{S}@gitlab.example.org/acme/app.git (fetch)"),
		f("jupyter-output-cell", "a secret printed in a Jupyter notebook's output cell", key,
			"{\n \"cell_type\": \"code\",\n \"source\": [\"print(os.environ['OPENWEATHER_KEY'])\"],\n \"outputs\": [{\"name\": \"stdout\", \"output_type\": \"stream\", \"text\": [\"{S}\\n\"]}]\n}"),
		f("crash-report-environ", "a secret in a crash report's environment section", upw,
			"Crash report {APP} 2.3.1\nSignal: SIGSEGV\n--- Environment ---\nHOME=/home/{U}\nPATH=/usr/bin:/bin\nDATABASE_PASSWORD={S}\nLANG=en_US.UTF-8"),
		f("printenv-output", "a secret in pasted printenv output", key,
			"$ printenv | sort\nHOSTNAME=web-7c9f\nMAILGUN_SIGNING_KEY={S}\nNODE_ENV=production\nPWD=/app"),
		f("docker-compose-config-output", "a resolved secret in docker compose config output", upw,
			"$ docker compose config\nservices:\n  db:\n    environment:\n      POSTGRES_PASSWORD: {S}\n      POSTGRES_USER: app\n    image: postgres:16"),
		f("kubectl-secret-decoded-output", "a Secret's value decoded from kubectl output", upw,
			"$ kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d\n{S}$ ", "$ kubectl view-secret db-creds password\n{S}"),
		f("postman-collection-bearer", "a bearer token in a Postman collection's auth block", key,
			"\"auth\": {\n  \"type\": \"bearer\",\n  \"bearer\": [{ \"key\": \"token\", \"value\": \"{S}\", \"type\": \"string\" }]\n}"),
		f("insomnia-export-basic-auth", "a basic-auth password in an Insomnia export", upw,
			"{\"_type\": \"request\", \"url\": \"https://{H}/api\", \"authentication\": {\"type\": \"basic\", \"username\": \"{U}\", \"password\": \"{S}\"}}"),
		f("devtools-copy-as-fetch", "a token in devtools' Copy as fetch", key,
			"fetch(\"https://api.example.org/v2/me\", {\n  \"headers\": {\n    \"accept\": \"application/json\",\n    \"authorization\": \"Bearer {S}\"\n  },\n  \"method\": \"GET\"\n});"),
		f("devtools-copy-as-powershell", "a session cookie in devtools' Copy as PowerShell", func(g *gen) string { return g.s(b2B64U, 40) },
			"$session = New-Object Microsoft.PowerShell.Commands.WebRequestSession\n$session.Cookies.Add((New-Object System.Net.Cookie(\"session\", \"{S}\", \"/\", \"app.example.org\")))\nInvoke-WebRequest -UseBasicParsing -Uri \"https://app.example.org/\" -WebSession $session"),
		f("ci-log-set-x-trace", "a secret in a CI log's set -x trace that masking missed", upw,
			"2026-01-01T00:00:01.0000000Z + curl -fsSL -u deploy:{S} https://nexus.example.org/repository/raw/app.tgz",
			"[build] ++ echo 'PGPASSWORD={S}'\n[build] PGPASSWORD=***"),
		f("commit-message-oops-removed", "a key quoted in a commit message that removes it", key,
			"commit 3f2a9c1\nAuthor: {U} <{E}>\n\n    oops, removed the key {S} from config.js", "fix: remove hardcoded token ({S}) — will rotate"),
		f("python-traceback-locals", "a password among a traceback's local variables", upw,
			"Traceback (most recent call last):\n  File \"app/db.py\", line 42, in connect\n    conn = psycopg2.connect(host=host, user=user, password=password)\n    host = '{H}'\n    user = '{U}'\n    password = '{S}'\npsycopg2.OperationalError: connection refused"),
		f("go-struct-dump", "a password in a Go %+v dump", upw, "config loaded: &{Host:{H} Port:5432 User:{U} Password:{S} SSLMode:require}"),
		f("java-tostring-dump", "a password in a Java toString dump", upw, "DEBUG c.a.DataSourceConfig - DataSourceConfig{url='jdbc:postgresql://{H}/app', username='{U}', password='{S}'}"),
		f("rails-log-parameters", "a password in a Rails log's Parameters line", upw,
			"Started POST \"/users/sign_in\" for 10.0.0.5\nProcessing by Devise::SessionsController#create as HTML\n  Parameters: {\"user\"=>{\"email\"=>\"{E}\", \"password\"=>\"{S}\"}, \"commit\"=>\"Log in\"}"),
		f("syslog-sudo-command", "a password on a sudo COMMAND= line in auth.log", upw,
			"Jan  1 03:14:07 db01 sudo:   {U} : TTY=pts/0 ; PWD=/home/{U} ; USER=root ; COMMAND=/usr/bin/mysql -uroot -p{S}"),
		f("windows-4688-cmdline", "a password in a Windows 4688 event's process command line", upw,
			"EventID: 4688\nNew Process Name: C:\\Windows\\System32\\net.exe\nProcess Command Line: net use \\\\fs01\\share /user:CORP\\{U} {S}"),
		f("terraform-plan-output", "a non-sensitive password in terraform plan output", upw,
			"  # aws_db_instance.main will be created\n  + resource \"aws_db_instance\" \"main\" {\n      + engine   = \"mysql\"\n      + password = \"{S}\"\n      + username = \"{U}\"\n    }"),
		f("ansible-vvv-output", "ansible_password in ansible -vvv output", upw,
			"<{H}> ESTABLISH WINRM CONNECTION FOR USER: {U}\nok: [win01] => {\"ansible_facts\": {}, \"ansible_password\": \"{S}\", \"changed\": false}"),
		f("strace-write-output", "a password in strace output of a write or sendto", upw,
			"sendto(3, \"POST /login HTTP/1.1\\r\\nHost: {H}\\r\\n\\r\\nuser={U}&pass={S}\", 96, MSG_NOSIGNAL, NULL, 0) = 96"),
		f("tcpdump-ascii-post", "a password in tcpdump -A output of an HTTP POST", upw,
			"14:02:11.123 IP 10.0.0.5.51234 > {H}.80: Flags [P.], length 120: HTTP: POST /api/login HTTP/1.1\nE..@..@.@...\nContent-Type: application/x-www-form-urlencoded\n\nusername={U}&password={S}"),
		f("redis-monitor-auth", "an AUTH password in redis-cli MONITOR output", upw,
			"1700000000.123456 [0 10.0.0.7:53122] \"AUTH\" \"{U}\" \"{S}\"\n1700000000.124001 [0 10.0.0.7:53122] \"PING\""),
	}
}

// --- the second blind corpus ---

func blind2Kinds() []kindGen {
	return sortedKinds(blind2Sentences(), blind2Providers(), blind2KeyMaterial(), blind2Tokens(), blind2Encoded(), blind2Configs(), blind2Commands(), blind2Fields())
}

// generateBlind2 writes n samples of every blind2 kind (generateKinds), in its own stream.
func generateBlind2(n int) []Sample { return generateKinds("blind2", blind2Kinds(), blind2Seed, n) }
