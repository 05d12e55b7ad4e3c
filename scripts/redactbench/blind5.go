package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/url"
	"strings"
)

// The fifth blind corpus (core/redact/testdata/public/blind5.jsonl): an eighth held-out corpus, of
// kinds that are in none of the earlier corpus files nor their generators, written by a helper
// session that had not read core/redact (not its code, tests or testdata) nor docs/redaction.md,
// that read of this program only how a corpus is wired and the earlier generators' kind names (to
// keep clear of them), and that never ran the detector on it but once, for the figures. Its goal
// is the issue's: a secret of a kind nobody listed is still hidden. It holds chat messages in
// sixteen languages, most of them little used by the earlier corpora (`chat`); passwords said with
// no keyword at all (`nokeyword`); tokens of services no earlier corpus named, by a shape written
// here after the services' own (`provider`); config files of tools no earlier corpus covered
// (`toolconf`); stack traces, logs, CI output and history files of tools and languages not yet
// covered (`trace`); and secrets under wrappings: hex, base64 in JSON in a log, a line wrap in an
// email, quoted-printable soft breaks, URL fragments, data: URIs, table cells of several markups,
// diff hunks, byte dumps (`wrapped`). Every body is random from a fixed source; no text is
// third-party. blind5-negatives.txt, written by the same run, holds ordinary lines that look
// risky and hold no secret.

// blind5Seed is the second word of every blind5 kind's random source (the first is the FNV-1a
// 64-bit hash of the kind's name), other than those of the other generators.
const blind5Seed = 5318008

// b5t is a kind whose sample i is texts[i] with a fresh body where {S} is.
func b5t(group, name, source string, body func(*gen) string, texts ...string) b3Kind {
	return templateKind("blind5", group, name, source, body, texts...)
}

// templateKind is a kind whose sample i is texts[i] with a fresh body where {S} is; label names
// the corpus in the panic of a text without one {S}.
func templateKind(label, group, name, source string, body func(*gen) string, texts ...string) b3Kind {
	return b3Kind{group, name, source, len(texts), func(g *gen, i int) (string, string) {
		if strings.Count(texts[i], "{S}") != 1 {
			panic(label + ": " + group + "/" + name + ": a text without one {S}")
		}
		s := body(g)
		return strings.Replace(texts[i], "{S}", s, 1), s
	}}
}

// b5e is a kind whose secret is enc of a fresh plain body: the text holds the encoded form only,
// and that is what must be hidden.
func b5e(group, name, source string, plain func(*gen) string, enc func(*gen, string) string, texts ...string) b3Kind {
	return b5t(group, name, source, func(g *gen) string { return enc(g, plain(g)) }, texts...)
}

// b5f is a kind written by a function of the sample's index.
func b5f(group, name, source string, n int, f func(g *gen, i int) (string, string)) b3Kind {
	return b3Kind{group, name, source, n, f}
}

// generateBlind5 writes every blind5 kind's samples with its fixed random source; it panics if a
// secret is not in its text, is shorter than 8 characters, or if two kinds share a name.
func generateBlind5() []Sample { return generateB3Kinds("blind5", blind5Kinds(), blind5Seed) }

func blind5Kinds() []b3Kind {
	var ks []b3Kind
	ks = append(ks, b5Chat()...)
	ks = append(ks, b5NoKeyword()...)
	ks = append(ks, b5Providers()...)
	ks = append(ks, b5ToolConf()...)
	ks = append(ks, b5Trace()...)
	ks = append(ks, b5Wrapped()...)
	return ks
}

// --- bodies ---

const (
	b5Dig = "0123456789"
	b5Lo  = "abcdefghijklmnopqrstuvwxyz"
	b5Up  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b5UpD = b5Up + b5Dig
	b5LoD = b5Lo + b5Dig
	b5Sym = "!#$%&*+-=?@^_~"
)

var b5Words = []string{"basalt", "cormorant", "dulcimer", "ember", "foxglove", "garnet", "heron", "isthmus",
	"juniper", "kelp", "larkspur", "marlin", "nettle", "obsidian", "pelican", "quince", "rosemary", "sorrel",
	"tamarind", "umber", "vellum", "wisteria", "yucca", "zephyr"}

func b5cap(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// b5pw is a password a person picks, 10 characters or more.
func b5pw(g *gen) string {
	switch g.rng.IntN(7) {
	case 0:
		return g.s(alnum+b5Sym, 12+g.rng.IntN(5))
	case 1:
		return b5cap(g.pick(b5Words...)) + g.s(b5Dig, 2) + g.s("!?#$*%&", 1) + b5cap(g.pick(b5Words...))
	case 2:
		return g.pick(b5Words...) + "." + g.pick(b5Words...) + "." + g.pick(b5Words...) + g.s(b5Dig, 2)
	case 3:
		return g.s(alnum, 14+g.rng.IntN(4))
	case 4:
		return g.s(b5Up, 1) + g.s(b5Lo, 6) + g.s("#@!", 1) + g.s(b5Dig, 4)
	case 5:
		return b5leet(b5cap(g.pick(b5Words...))) + g.s(b5Dig, 4) + g.s("!$%", 1)
	default:
		return g.s(b5LoD, 5) + g.s("=+^~_", 1) + g.s(alnum, 9)
	}
}

func b5leet(s string) string {
	return strings.NewReplacer("a", "4", "e", "3", "i", "1", "o", "0", "s", "5").Replace(s)
}

// b5strong is a random password as a generator makes it, every class present.
func b5strong(g *gen) string {
	n := 12 + g.rng.IntN(6)
	b := []byte(g.s(alnum, n))
	b[g.rng.IntN(n)] = g.s(b5Up, 1)[0]
	b[g.rng.IntN(n)] = g.s(b5Lo, 1)[0]
	b[g.rng.IntN(n)] = g.s(b5Dig, 1)[0]
	b[1+g.rng.IntN(n-2)] = g.s("!#%&*@$?^+", 1)[0]
	return string(b)
}

// b5native is a password of native words and digits.
func b5native(words ...string) func(*gen) string {
	return func(g *gen) string {
		switch g.rng.IntN(3) {
		case 0:
			return g.pick(words...) + g.s(b5Dig, 4) + g.s("!#*@%", 1)
		case 1:
			return g.pick(words...) + g.s("-_.", 1) + g.pick(words...) + g.s(b5Dig, 2)
		default:
			return b5pw(g)
		}
	}
}

// b5apikey is an unprefixed API key of one of the common alphabets.
func b5apikey(g *gen) string {
	switch g.rng.IntN(4) {
	case 0:
		return g.s(hexlc, 32)
	case 1:
		return g.s(alnum, 40)
	case 2:
		return g.s(b64url, 43)
	default:
		return g.s(b5LoD, 8) + "-" + g.s(b5LoD, 8) + "-" + g.s(b5LoD, 8) + "-" + g.s(b5LoD, 8)
	}
}

func b5pre(prefix, alphabet string, n int) func(*gen) string {
	return func(g *gen) string { return prefix + g.s(alphabet, n) }
}

func b5hex(n int) func(*gen) string    { return func(g *gen) string { return g.s(hexlc, n) } }
func b5alnum(n int) func(*gen) string  { return func(g *gen) string { return g.s(alnum, n) } }
func b5b64url(n int) func(*gen) string { return func(g *gen) string { return g.s(b64url, n) } }
func b5uuid(g *gen) string             { return b3uuid(g) }

// b5jwt is a JWT with a real header and claims and a random signature.
func b5jwt(alg, claims string) func(*gen) string {
	return func(g *gen) string {
		e := base64.RawURLEncoding.EncodeToString
		return e([]byte(`{"alg":"`+alg+`","typ":"JWT"}`)) + "." + e([]byte(claims)) + "." + g.b64url(32+g.rng.IntN(2)*32)
	}
}

func b5jwtClaims(alg string, claims func(g *gen) string) func(*gen) string {
	return func(g *gen) string { return b5jwt(alg, claims(g))(g) }
}

func b5b64(s string) string     { return base64.StdEncoding.EncodeToString([]byte(s)) }
func b5hexOf(s string) string   { return hex.EncodeToString([]byte(s)) }
func b5pathEsc(s string) string { return url.PathEscape(s) }

// b5qpSoft is quoted-printable with a soft line break (=\n) put in the middle of the value, and
// = written =3D, as a mail client wraps a long line.
func b5qpSoft(g *gen, s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c == '=' || c > 126 || c < 33 {
			fmt.Fprintf(&b, "=%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	q := b.String()
	cut := len(q)/2 + g.rng.IntN(3) - 1
	for cut > 0 && (q[cut-1] == '=' || (cut > 1 && q[cut-2] == '=')) {
		cut--
	}
	return q[:cut] + "=\n" + q[cut:]
}

// b5split cuts s in two at about its middle with sep between, as a wrapped line does.
func b5split(g *gen, s, sep string) string {
	cut := len(s)/2 + g.rng.IntN(5) - 2
	return s[:cut] + sep + s[cut:]
}

// --- chat: messages and mails in sixteen languages ---

func b5Chat() []b3Kind {
	c := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b5t("chat", name, source, body, texts...)
	}
	pw, key := b5pw, b5apikey
	return []b3Kind{
		// Italian
		c("it-whatsapp-wifi-ospiti", "Italian chat messages giving a home wifi password (text written here)", b5native("Girasole", "Tramonto", "Limoncello", "Gabbiano", "Castagna"),
			"Ciao Giulia! La rete è \"Casa-Ospiti\" e la chiave è {S} 😊 fammi sapere se va",
			"ecco la pass del wifi: {S} (occhio alle maiuscole!)",
			"[18:42] Marco: la password del router l'ho cambiata, ora è {S}\n[18:43] Sara: grazie mille"),
		c("it-ticket-credenziali-gestionale", "an Italian helpdesk mail or ticket giving provisional credentials (text written here)", pw,
			"Buongiorno dott.ssa Ferri,\nle credenziali provvisorie per il gestionale sono:\nutente: a.ferri\npassword: {S}\nAl primo accesso le verrà chiesto di modificarla.\nCordiali saluti,\nUfficio IT",
			"Ticket #48213 – risolto. Ho reimpostato l'accesso a SAP: nuova password temporanea {S}, scade tra 24 ore.",
			"Gentile cliente, per accedere all'area riservata usi il codice utente 77120 e la parola d'ordine {S}."),
		c("it-slack-token-deploy", "Italian team chat sharing an API token (text written here)", key,
			"ragazzi ho rigenerato il token per il deploy, è questo: {S} — non committatelo 🙏",
			"@luca mi mandi la chiave API di staging? ah no, trovata: {S}",
			"Per la pipeline serve il token nuovo → {S} (l'altro è stato revocato stamattina)"),
		// Dutch
		c("nl-whatsapp-wifi-gasten", "Dutch chat messages giving a wifi password (text written here)", b5native("Fietsbel", "Molenwiek", "Stroopwafel", "Klompen", "Tulpenveld"),
			"Hoi! Het wifi-wachtwoord is {S} 🙂 netwerk heet Thuis-Gast",
			"wachtwoord van de router is veranderd naar {S}, even opnieuw verbinden",
			"[20:15] Eva: wat was de wifi code ook alweer?\n[20:16] Bram: {S}"),
		c("nl-servicedesk-tijdelijk-wachtwoord", "a Dutch service desk mail with a temporary password (text written here)", pw,
			"Beste Johan,\n\nJe account is ontgrendeld. Je tijdelijke wachtwoord is: {S}\nWijzig dit direct na het inloggen.\n\nMet vriendelijke groet,\nServicedesk",
			"Inloggegevens portaal: gebruikersnaam j.devries, ww {S}",
			"Melding 20931: wachtwoord gereset naar {S}, graag binnen een dag aanpassen."),
		c("nl-slack-api-sleutel", "Dutch team chat sharing an API key (text written here)", key,
			"Hier is de API-sleutel voor de testomgeving: {S} — niet in git zetten aub",
			"ik heb een nieuwe token aangemaakt: {S}, de oude werkt niet meer",
			"kun je deze sleutel even in de CI-variabelen zetten? {S}"),
		// Polish
		c("pl-messenger-haslo-router", "Polish chat messages giving a wifi password (text written here)", b5native("Kormoran", "Bursztyn", "Kasztan", "Wrzos", "Jantar"),
			"Hej, hasło do wifi to {S} 😉",
			"zmieniłem hasło na routerze, teraz jest: {S}",
			"[21:03] Kasia: jakie jest hasło do sieci?\n[21:04] Tomek: {S} (wielkie litery ważne)"),
		c("pl-mail-dostep-panel", "a Polish mail giving access to a panel or a file (text written here)", pw,
			"Dzień dobry,\n\nprzesyłam dane dostępowe do panelu klienta:\nlogin: biuro@firma.pl\nhasło: {S}\n\nPozdrawiam,\nDział IT",
			"Dane do logowania na serwer testowy: użytkownik deploy, hasło {S}. Proszę nie przekazywać dalej.",
			"W załączniku umowa, a hasło do pliku PDF to {S}."),
		c("pl-slack-klucz-api", "Polish team chat sharing an API key (text written here)", key,
			"wrzucam klucz API do stagingu: {S} — nie commitujcie go",
			"nowy token do webhooka: {S}",
			"@ania możesz dodać ten klucz do sekretów w CI? {S}"),
		// Turkish
		c("tr-whatsapp-modem-sifresi", "Turkish chat messages giving a modem password (text written here)", b5native("Lale", "Bogaz", "Simit", "Kapadokya", "Galata"),
			"Modem şifresi {S} 👍",
			"wifi şifresini değiştirdim, yenisi: {S}",
			"[19:20] Ayşe: internet şifresi neydi?\n[19:21] Mehmet: {S}"),
		c("tr-eposta-gecici-parola", "a Turkish IT mail with a temporary parola (text written here)", pw,
			"Merhaba Elif Hanım,\n\nSistem hesabınız oluşturuldu.\nKullanıcı adı: elif.yilmaz\nGeçici parola: {S}\n\nİlk girişte parolanızı değiştirmeniz gerekmektedir.\n\nSaygılarımızla,\nBilgi İşlem",
			"VPN erişimi için kullanıcı adınız: ayilmaz, parolanız: {S}",
			"Talep #5521 çözüldü: parola {S} olarak sıfırlandı."),
		c("tr-slack-api-anahtari", "Turkish team chat sharing an API key (text written here)", key,
			"test ortamı için API anahtarı: {S} — repoya koymayın lütfen",
			"yeni token oluşturdum: {S}, eskisi iptal",
			"bu anahtarı CI değişkenlerine ekler misin? {S}"),
		// Vietnamese
		c("vi-zalo-wifi-quan", "Vietnamese chat messages giving a wifi password (text written here)", b5native("Hoasen", "Phoco", "Banhmi", "Halong", "Sapa"),
			"Mật khẩu wifi quán là {S} nha 😄",
			"pass wifi mới: {S}",
			"[08:12] Lan: wifi nhà mình pass gì vậy?\n[08:13] Minh: {S}"),
		c("vi-email-tai-khoan-vpn", "a Vietnamese IT mail giving a VPN account (text written here)", pw,
			"Chào anh Tuấn,\n\nTài khoản VPN của anh đã được tạo:\nTên đăng nhập: tuan.nguyen\nMật khẩu: {S}\n\nVui lòng đổi mật khẩu sau lần đăng nhập đầu tiên.\n\nTrân trọng,\nPhòng IT",
			"Thông tin đăng nhập server test: user deploy / mk {S}",
			"Em gửi lại mật khẩu tạm thời: {S} (hết hạn sau 24h)"),
		c("vi-slack-khoa-api", "Vietnamese team chat sharing an API key (text written here)", key,
			"khóa API cho môi trường staging: {S} — đừng commit lên git nhé",
			"em vừa tạo token mới: {S}, token cũ hết hiệu lực rồi",
			"anh thêm key này vào biến CI giúp em: {S}"),
		// Indonesian
		c("id-wa-wifi-kos", "Indonesian chat messages giving a wifi password (text written here)", b5native("Rendang", "Merapi", "Komodo", "Sambal", "Bromo"),
			"Password wifi kos: {S} ya kak 🙏",
			"sandi wifi udah diganti jadi {S}",
			"[20:01] Dewi: wifinya apa ya?\n[20:02] Budi: {S}"),
		c("id-email-akun-cpanel", "an Indonesian hosting mail giving cPanel or FTP access (text written here)", pw,
			"Selamat siang Pak Andi,\n\nBerikut akses cPanel untuk domain tokosaya.co.id:\nUsername: tokosaya\nPassword: {S}\n\nMohon segera diganti setelah login.\n\nSalam,\nTim Hosting",
			"Akun FTP sudah dibuat: user ftp_andi, kata sandi {S}",
			"Ini kata sandi sementara untuk aplikasi absensi: {S}"),
		c("id-slack-token-api", "Indonesian team chat sharing an API key (text written here)", key,
			"ini API key buat staging: {S}, jangan di-commit ya",
			"token baru udah aku generate: {S}",
			"tolong masukin key ini ke secret CI: {S}"),
		// Thai
		c("th-line-rahat-wifi", "Thai chat messages giving a wifi password (text written here)", b5native("Somtam", "Chiangmai", "Tuktuk", "Mamuang", "Siam"),
			"รหัสไวไฟร้านคือ {S} ค่ะ 😊",
			"เปลี่ยนรหัส wifi แล้วนะ อันใหม่ {S}",
			"[19:45] ฝน: รหัสเน็ตบ้านอะไรนะ\n[19:46] ต้น: {S}"),
		c("th-email-banchee-tester", "a Thai IT mail giving a test account (text written here)", pw,
			"เรียน คุณสมชาย\n\nบัญชีสำหรับทดสอบระบบได้สร้างเรียบร้อยแล้ว\nชื่อผู้ใช้: tester01\nรหัสผ่าน: {S}\n\nกรุณาเปลี่ยนรหัสผ่านเมื่อเข้าสู่ระบบครั้งแรก\n\nขอแสดงความนับถือ\nฝ่ายไอที",
			"ข้อมูลเข้าระบบ server ทดสอบ: user deploy รหัส {S}",
			"รหัสผ่านชั่วคราวของคุณคือ {S} ใช้ได้ภายใน 24 ชั่วโมง"),
		c("th-slack-khiy-api", "Thai team chat sharing an API key (text written here)", key,
			"คีย์ API สำหรับ staging: {S} อย่า commit ขึ้น git นะ",
			"สร้าง token ใหม่แล้ว: {S} อันเก่าใช้ไม่ได้แล้ว",
			"ช่วยใส่คีย์นี้ใน CI secret หน่อย {S}"),
		// Hindi
		c("hi-whatsapp-hinglish-wifi", "Hinglish chat messages giving a wifi password (text written here)", b5native("Chai", "Masala", "Ganga", "Diwali", "Jalebi"),
			"bhai wifi ka password {S} hai 😅",
			"router ka pass badal diya, naya wala {S}",
			"[21:10] Priya: wifi password kya hai?\n[21:11] Rahul: {S}"),
		c("hi-devanagari-office-email", "a Hindi (Devanagari) IT mail giving an account (text written here)", pw,
			"नमस्ते रमेश जी,\n\nआपका सिस्टम खाता बन गया है।\nयूज़रनेम: ramesh.k\nपासवर्ड: {S}\n\nकृपया पहली बार लॉगिन करने के बाद पासवर्ड बदल लें।\n\nधन्यवाद,\nआईटी विभाग",
			"सर्वर का लॉगिन: यूज़र deploy, पासवर्ड {S}",
			"आपका अस्थायी पासवर्ड {S} है, यह 24 घंटे में समाप्त हो जाएगा।"),
		c("hi-slack-api-kunji", "Hindi and Hinglish team chat sharing an API key (text written here)", key,
			"staging की API कुंजी: {S} — इसे git में मत डालना",
			"naya token bana diya hai: {S}, purana band hai",
			"ye key CI secrets mein daal do please: {S}"),
		// Arabic
		c("ar-whatsapp-egyptian-wifi", "Egyptian Arabic chat messages giving a wifi password (text written here)", b5native("Nile", "Koshary", "Sahara", "Fanoos", "Karkade"),
			"باسورد الواي فاي {S} 😊",
			"غيرت باسورد الراوتر، الجديد {S}",
			"[٩:١٥] منى: باسورد النت ايه؟\n[٩:١٦] أحمد: {S}"),
		c("ar-email-fusha-account", "a Modern Standard Arabic IT mail giving an account (text written here)", pw,
			"السيد خالد المحترم،\n\nتم إنشاء حسابك في النظام.\nاسم المستخدم: khalid.a\nكلمة المرور: {S}\n\nيرجى تغيير كلمة المرور عند تسجيل الدخول لأول مرة.\n\nمع التحية،\nقسم تقنية المعلومات",
			"بيانات الدخول إلى الخادم التجريبي: المستخدم deploy وكلمة السر {S}",
			"كلمة المرور المؤقتة الخاصة بك هي {S} وتنتهي صلاحيتها خلال ٢٤ ساعة."),
		c("ar-slack-miftah-api", "Arabic team chat sharing an API key (text written here)", key,
			"مفتاح الـ API لبيئة الاختبار: {S} لا ترفعه على git",
			"أنشأت توكن جديد: {S} والقديم تم إلغاؤه",
			"ممكن تضيف هذا المفتاح في أسرار الـ CI؟ {S}"),
		// Hebrew
		c("he-whatsapp-wifi-sisma", "Hebrew chat messages giving a wifi password (text written here)", b5native("Falafel", "Hummus", "Sabra", "Tapuz", "Kineret"),
			"הסיסמה לוויפי היא {S} 🙂",
			"החלפתי סיסמה בראוטר, החדשה: {S}",
			"[20:30] נועה: מה הסיסמה של האינטרנט?\n[20:31] יוסי: {S}"),
		c("he-email-gisha-zmanit", "a Hebrew IT mail giving a temporary password (text written here)", pw,
			"שלום דני,\n\nנפתח עבורך חשבון במערכת.\nשם משתמש: dani.c\nסיסמה זמנית: {S}\n\nיש להחליף את הסיסמה בכניסה הראשונה.\n\nבברכה,\nמחלקת מחשוב",
			"פרטי גישה לשרת הבדיקות: משתמש deploy, סיסמה {S}",
			"הקוד הזמני שלך לכניסה: {S} (בתוקף 24 שעות)"),
		c("he-slack-mafteach-api", "Hebrew team chat sharing an API key (text written here)", key,
			"מפתח ה-API לסביבת staging: {S} אל תעלו לגיט",
			"יצרתי טוקן חדש: {S}, הישן בוטל",
			"תוסיף את המפתח הזה ל-secrets של ה-CI? {S}"),
		// Ukrainian
		c("uk-telegram-wifi-parol", "Ukrainian chat messages giving a wifi password (text written here)", b5native("Kalyna", "Вишня", "Dnipro", "Борщ", "Карпати"),
			"Пароль від вайфаю: {S} 😉",
			"змінив пароль на роутері, новий {S}",
			"[22:05] Оля: який пароль від інтернету?\n[22:06] Андрій: {S}"),
		c("uk-email-tymchasovyi-dostup", "a Ukrainian IT mail giving temporary access (text written here)", pw,
			"Добрий день, Олено!\n\nДля вас створено обліковий запис.\nЛогін: o.shevchenko\nТимчасовий пароль: {S}\n\nБудь ласка, змініть пароль під час першого входу.\n\nЗ повагою,\nІТ-відділ",
			"Доступ до тестового сервера: користувач deploy, пароль {S}",
			"Ваш одноразовий код доступу: {S} (дійсний 24 години)"),
		c("uk-slack-kliuch-api", "Ukrainian team chat sharing an API key (text written here)", key,
			"API-ключ для стейджингу: {S} — не комітьте його",
			"згенерував новий токен: {S}, старий відкликано",
			"додай, будь ласка, цей ключ у секрети CI: {S}"),
		// Czech
		c("cs-whatsapp-wifi-heslo", "Czech chat messages giving a wifi password (text written here)", b5native("Knedlik", "Vltava", "Becherovka", "Krtek", "Sumava"),
			"Heslo na wifinu je {S} 🙂",
			"změnil jsem heslo na routeru, nové je {S}",
			"[19:02] Petra: jaký je heslo k wifi?\n[19:03] Jakub: {S}"),
		c("cs-email-docasny-pristup", "a Czech IT mail giving temporary access (text written here)", pw,
			"Dobrý den, pane Nováku,\n\nbyl Vám vytvořen účet.\nUživatelské jméno: jnovak\nDočasné heslo: {S}\n\nPři prvním přihlášení si prosím heslo změňte.\n\nS pozdravem\nIT oddělení",
			"Přístup na testovací server: uživatel deploy, heslo {S}",
			"Vaše jednorázové heslo je {S}, platí 24 hodin."),
		c("cs-slack-api-klic", "Czech team chat sharing an API key (text written here)", key,
			"API klíč pro staging: {S} — necommitujte ho prosím",
			"vygeneroval jsem nový token: {S}, starý je zrušený",
			"můžeš přidat tenhle klíč do CI secrets? {S}"),
		// Swedish
		c("sv-sms-wifi-losen", "Swedish text messages giving a wifi password (text written here)", b5native("Kanelbulle", "Midsommar", "Lingon", "Fika", "Smorgas"),
			"Wifi-lösenordet är {S} 😊",
			"bytte lösen på routern, nya är {S}",
			"[18:55] Elin: vad är lösenordet till nätet?\n[18:56] Oskar: {S}"),
		c("sv-email-tillfalligt-konto", "a Swedish IT mail giving a temporary account (text written here)", pw,
			"Hej Anna,\n\nDitt konto har skapats.\nAnvändarnamn: anna.l\nTillfälligt lösenord: {S}\n\nByt lösenord vid första inloggningen.\n\nMed vänliga hälsningar\nIT-support",
			"Inlogg till testservern: användare deploy, lösen {S}",
			"Din engångskod är {S} och gäller i 24 timmar."),
		c("sv-slack-api-nyckel", "Swedish team chat sharing an API key (text written here)", key,
			"API-nyckeln för staging: {S} — checka inte in den",
			"har skapat en ny token: {S}, den gamla är spärrad",
			"kan du lägga in den här nyckeln i CI-hemligheterna? {S}"),
		// Japanese
		c("ja-slack-teinei-apikey", "Japanese team chat, polite register, sharing an API key (text written here)", key,
			"お疲れ様です。検証環境のAPIキーを共有します：{S}\nリポジトリにはコミットしないようお願いします。",
			"新しいトークンを発行しました→ {S}（旧トークンは失効済みです）",
			"@tanaka さん、このキーをCIのシークレットに登録していただけますか？ {S}"),
		c("ja-chatwork-vpn-login", "Japanese Chatwork messages with login details (text written here)", pw,
			"[info][title]VPN接続情報[/title]ユーザー名：yamada\nパスワード：{S}[/info]",
			"踏み台サーバーのログイン情報です。ユーザー ops、パスは {S} です。",
			"[To:1234]佐藤さん\n共有フォルダのパスワードは「{S}」になります。"),
		c("ja-email-shokai-password", "a Japanese business mail giving an initial password (text written here)", pw,
			"山田 太郎 様\n\nいつもお世話になっております。\n管理画面のアカウントを発行いたしました。\n\nログインID：yamada@example.co.jp\n初期パスワード：{S}\n\n初回ログイン後、パスワードの変更をお願いいたします。",
			"添付ファイルのパスワードを別送いたします。\nパスワード：{S}",
			"仮パスワード {S} を発行しました。24時間以内にログインしてください。"),
		// Chinese
		c("zh-dingtalk-server-login", "Chinese DingTalk messages with server logins (text written here)", pw,
			"服务器登录信息：IP 10.20.3.15，用户 root，密码 {S}，用完请改掉",
			"@王工 测试库的密码改成 {S} 了",
			"【通知】运维平台临时密码：{S}，24小时内有效。"),
		c("zh-feishu-api-miyao", "Chinese Feishu messages sharing an API key (text written here)", key,
			"测试环境的 API 密钥：{S}，不要提交到仓库哦",
			"新 token 已生成：{S}，旧的已经作废",
			"麻烦把这个 key 加到 CI 的 secret 里：{S}"),
		c("zh-qq-group-ftp-account", "Chinese group chat sharing an FTP, archive or shared account (text written here)", pw,
			"群文件太大了，放 FTP 上了：ftp://10.1.1.8 账号 share 密码 {S}",
			"网盘链接: https://pan.example.cn/s/1aBcD 解压密码 {S}",
			"共享账号给大家：账号 team2024，口令 {S}"),
		// Korean
		c("ko-jandi-server-access", "Korean work messenger messages with server access (text written here)", pw,
			"서버 접속 정보 공유드립니다. IP 10.0.7.21 / 계정 deploy / 비밀번호 {S}",
			"@김대리 DB 비번 {S} 로 바꿨어요",
			"[공지] 임시 비밀번호: {S} (24시간 후 만료)"),
		c("ko-slack-api-ki", "Korean team chat sharing an API key (text written here)", key,
			"스테이징 API 키 공유합니다: {S} 커밋하지 마세요!",
			"토큰 새로 발급했어요 → {S} 예전 건 폐기됨",
			"이 키 CI 시크릿에 등록 부탁드려요: {S}"),
		c("ko-email-imsi-bimilbeonho", "a Korean IT mail giving a temporary password (text written here)", pw,
			"안녕하세요, 박지훈 님.\n\n관리자 계정이 생성되었습니다.\n아이디: jihoon.park\n임시 비밀번호: {S}\n\n최초 로그인 시 비밀번호를 변경해 주세요.\n\n감사합니다.\nIT지원팀",
			"첨부 파일 암호는 {S} 입니다.",
			"와이파이 이름 Office-5G, 암호 {S}"),
	}
}

// --- nokeyword: a password said with no word for it ---

func b5NoKeyword() []b3Kind {
	n := func(name, source string, texts ...string) b3Kind {
		return b5t("nokeyword", name, source, b5strong, texts...)
	}
	return []b3Kind{
		n("use-to-log-in", "a password given as what to log in with, no keyword (text written here)",
			"use {S} to log in", "you can log in with {S} now", "ok it works, log in as admin with {S}", "sign in as deploy and {S}, then change it"),
		n("its-short-reply", "a password given as a short reply, no keyword (text written here)",
			"it's {S}", "it is {S} (capital at the start)", "it's {S} for both boxes", "it's still {S} afaik"),
		n("here-you-go", "a password handed over with here you go, no keyword (text written here)",
			"here you go: {S}", "here you go → {S}", "there you go {S}", "here: {S} 👍"),
		n("reply-under-quote", "a password as the answer under a quoted question (text written here)",
			"> what's the one for the NAS?\n{S}", "> can you resend it?\nsure, {S}", "Q: which one for staging?\nA: {S}", "> and the root one?\n{S} — same as the iLO"),
		n("try-this", "a password suggested with try (text written here)",
			"try {S}", "try {S} instead, I changed it yesterday", "did you try {S}?", "hmm try {S} with the capital"),
		n("changed-it-to", "a password told as what something was changed to (text written here)",
			"changed it to {S}", "I reset it, now {S}", "new one is {S}", "updated → {S}"),
		n("handover-bare-lines", "host, user and password on bare lines of a handover (text written here)",
			"staging-db-02\nroot\n{S}", "host: 10.4.2.9\nuser: ubuntu\n{S}", "jump box ops@bastion.example.test then {S}", "printer admin panel\nadmin\n{S}\n(don't change it, the vendor needs it)"),
		n("emoji-pointer", "a password after a pointing or key emoji (text written here)",
			"👉 {S}", "🔑 {S}", "{S} 👈 that one", "✅ {S}"),
		n("after-user-arrow", "a password after a user name and an arrow or slash (text written here)",
			"admin → {S}", "deploy ⇒ {S}", "sa / {S}", "ops: {S}"),
		n("european-try-phrases", "a password suggested in Italian, French, German or Dutch with no keyword (text written here)",
			"prova con {S}", "essaie avec {S}", "versuch's mal mit {S}", "probeer {S} eens"),
		n("cjk-no-keyword", "a password handed over in Japanese, Chinese or Korean with no keyword (text written here)",
			"これで入れるはず：{S}", "用这个试试：{S}", "이걸로 해보세요: {S}", "これです→{S}"),
		n("parens-after-host", "a password in brackets after a host (text written here)",
			"ssh ops@10.2.3.4 ({S})", "the NAS (nas.local, {S})", "router at 192.168.1.1 [{S}]", "iDRAC 10.0.0.40 / root / ({S})"),
		n("copy-exactly", "a password given with how to type it (text written here)",
			"copy this exactly, no spaces: {S}", "type it exactly: {S}", "careful with the 0 vs O: {S}", "all one word: {S}"),
		n("same-for-all", "a password said to be the same for several things (text written here)",
			"same as wifi: {S}", "same for all three: {S}", "{S} works for the VPN and the mail", "both accounts use {S}"),
		n("delete-after-reading", "a password with a request to delete the message (text written here)",
			"{S} — delete this message after you copy it", "{S} (removing this in 5 min)", "sending it here once: {S}, pls don't forward", "{S}\n^ delete when done"),
		n("mid-sentence", "a password in the middle of an ordinary sentence (text written here)",
			"I set {S} on the printer and the scanner", "put {S} in the box and hit enter", "the safe opens with {S}, don't ask me why", "we agreed on {S} for the shared laptop"),
	}
}

// --- provider: tokens of services no earlier corpus named ---

// b5prov is a service's token: its name for the kind, the service's display name, the variable
// people keep it in, its API host and the shape of its body (written here after the service's
// documented or commonly seen shape).
type b5prov struct {
	name, svc, env, host string
	body                 func(*gen) string
	extra                []string
}

// b5provTexts are the settings a provider token is pasted in; each kind takes four of them.
var b5provTexts = []string{
	"export {ENV}={S}",
	"# .env.local\n{ENV}=\"{S}\"\nNODE_ENV=development",
	"hey, here's the {SVC} key for staging: {S}",
	"curl -s https://{HOST}/v1/me -H \"Authorization: Bearer {S}\"",
	"client = {ID}Client(api_key=\"{S}\", timeout=30)",
	"DEBUG http.client send: b'GET /v1/status HTTP/1.1\\r\\nHost: {HOST}\\r\\nAuthorization: Bearer {S}\\r\\n'",
	"{LC}:\n  enabled: true\n  api_key: \"{S}\"",
	"I keep getting 401 from {SVC} even though my key is {S} — any idea what's wrong?",
	"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {LC}-credentials\nstringData:\n  {ENV}: {S}",
	"docker run --rm -e {ENV}={S} ghcr.io/acme/worker:2.3.1",
	"{\"{LC}\": {\"token\": \"{S}\", \"region\": \"eu\"}}",
	"const client = new {ID}({ apiKey: '{S}' });",
	"$ heroku config:set {ENV}={S} -a acme-api",
	"[{LC}]\ntoken = {S}",
}

func b5provKind(p b5prov) b3Kind {
	h := fnv.New32a()
	h.Write([]byte(p.name))
	start := int(h.Sum32() % uint32(len(b5provTexts)))
	lc := strings.ToLower(strings.NewReplacer(" ", "_", ".", "_", "-", "_").Replace(p.svc))
	id := strings.NewReplacer(" ", "", ".", "", "-", "").Replace(p.svc)
	var texts []string
	for i := range 4 {
		texts = append(texts, b5provTexts[(start+5*i)%len(b5provTexts)])
	}
	texts = append(texts, p.extra...)
	r := strings.NewReplacer("{ENV}", p.env, "{SVC}", p.svc, "{HOST}", p.host, "{LC}", lc, "{ID}", id)
	for i := range texts {
		texts[i] = r.Replace(texts[i])
	}
	return b5t("provider", p.name, p.svc+" token in an env line, config, chat, request or code (shape written here after the service's)", p.body, texts...)
}

func b5Providers() []b3Kind {
	cat := func(fs ...func(*gen) string) func(*gen) string {
		return func(g *gen) string {
			var b strings.Builder
			for _, f := range fs {
				b.WriteString(f(g))
			}
			return b.String()
		}
	}
	lit := func(s string) func(*gen) string { return func(*gen) string { return s } }
	s := func(alphabet string, n int) func(*gen) string { return func(g *gen) string { return g.s(alphabet, n) } }
	ps := []b5prov{
		{"honeybadger-personal-token", "Honeybadger", "HONEYBADGER_PERSONAL_AUTH_TOKEN", "app.honeybadger.io", b5pre("hbp_", alnum, 36), nil},
		{"coralogix-send-data-key", "Coralogix", "CORALOGIX_PRIVATE_KEY", "ingress.coralogix.com", b5pre("cxtp_", alnum, 30), nil},
		{"lightstep-access-token", "Lightstep", "LS_ACCESS_TOKEN", "ingest.lightstep.com", s(b64std, 84), nil},
		{"mezmo-ingestion-key", "Mezmo", "MZ_INGESTION_KEY", "logs.mezmo.com", b5hex(32), nil},
		{"papertrail-api-token", "Papertrail", "PAPERTRAIL_API_TOKEN", "papertrailapp.com", b5alnum(20), nil},
		{"codecov-upload-token", "Codecov", "CODECOV_TOKEN", "codecov.io", b5uuid, nil},
		{"deepsource-dsn-key", "DeepSource", "DEEPSOURCE_DSN", "app.deepsource.com", b5pre("dsp_", hexlc, 40), nil},
		{"socket-security-api-key", "Socket", "SOCKET_SECURITY_API_KEY", "api.socket.dev", cat(lit("sktsec_"), s(alnum, 42), lit("_api")), nil},
		{"depot-org-token", "Depot", "DEPOT_TOKEN", "api.depot.dev", b5pre("depot_org_", hexlc, 64), nil},
		{"coder-session-token", "Coder", "CODER_SESSION_TOKEN", "coder.example.test", cat(s(alnum, 10), lit("-"), s(alnum, 22)), nil},
		{"koyeb-api-token", "Koyeb", "KOYEB_TOKEN", "app.koyeb.com", s(b5LoD, 64), nil},
		{"bunny-net-access-key", "Bunny", "BUNNY_API_KEY", "api.bunny.net", cat(b5uuid, b5uuid), nil},
		{"gcore-permanent-token", "Gcore", "GCORE_PERMANENT_TOKEN", "api.gcore.com", cat(s(b5Dig, 4), lit("$"), s(hexlc, 128)), nil},
		{"turso-database-token", "Turso", "TURSO_AUTH_TOKEN", "db-acme.turso.io", b5jwtClaims("EdDSA", func(g *gen) string {
			return fmt.Sprintf(`{"a":"rw","iat":%d,"id":"%s"}`, 1710000000+g.rng.IntN(9e6), b5uuid(g))
		}), nil},
		{"cockroach-cloud-api-key", "CockroachCloud", "COCKROACH_API_KEY", "cockroachlabs.cloud", cat(lit("CCDB1_"), s(alnum, 22), lit("_"), s(alnum, 40)), nil},
		{"mongodb-atlas-private-api-key", "MongoDB Atlas", "MONGODB_ATLAS_PRIVATE_KEY", "cloud.mongodb.com", b5uuid,
			[]string{"atlas config set private_api_key {S}\natlas config set public_api_key " + "qzvmkrta"}},
		{"fauna-secret", "Fauna", "FAUNA_SECRET", "db.fauna.com", b5pre("fnA", b64url, 37), nil},
		{"fireworks-ai-key", "Fireworks", "FIREWORKS_API_KEY", "api.fireworks.ai", b5pre("fw_", alnum, 24), nil},
		{"anyscale-endpoints-key", "Anyscale", "ANYSCALE_API_KEY", "api.endpoints.anyscale.com", b5pre("esecret_", b5LoD, 26), nil},
		{"baseten-api-key", "Baseten", "BASETEN_API_KEY", "api.baseten.co", cat(s(alnum, 8), lit("."), s(alnum, 32)), nil},
		{"runpod-api-key", "RunPod", "RUNPOD_API_KEY", "api.runpod.io", b5pre("rpa_", b5UpD, 44), nil},
		{"fal-ai-key", "Fal", "FAL_KEY", "fal.run", cat(b5uuid, lit(":"), s(hexlc, 32)), nil},
		{"azure-openai-resource-key", "Azure OpenAI", "AZURE_OPENAI_API_KEY", "acme-eastus.openai.azure.com", b5hex(32),
			[]string{"curl https://acme-eastus.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01 -H \"api-key: {S}\" -d @req.json"}},
		{"weaviate-cloud-key", "Weaviate", "WEAVIATE_API_KEY", "acme.weaviate.cloud", b5alnum(48), nil},
		{"qdrant-cloud-key", "Qdrant", "QDRANT_API_KEY", "xyz.eu-central.aws.cloud.qdrant.io", cat(b5uuid, lit("|"), s(alnum+"_-", 46)), nil},
		{"helicone-gateway-key", "Helicone", "HELICONE_API_KEY", "oai.helicone.ai", cat(lit("sk-helicone-"), s(b5LoD, 7), lit("-"), s(b5LoD, 7), lit("-"), s(b5LoD, 7), lit("-"), s(b5LoD, 7)), nil},
		{"jina-ai-key", "Jina", "JINA_API_KEY", "api.jina.ai", cat(lit("jina_"), s(hexlc, 32), s(alnum, 28)), nil},
		{"serpapi-key", "SerpApi", "SERPAPI_API_KEY", "serpapi.com", b5hex(64),
			[]string{"GET https://serpapi.com/search.json?engine=google&q=coffee&api_key={S}"}},
		{"brave-search-key", "Brave Search", "BRAVE_API_KEY", "api.search.brave.com", cat(lit("BSA"), s(alnum+"-_", 28)),
			[]string{"curl -s \"https://api.search.brave.com/res/v1/web/search?q=go+generics\" -H \"X-Subscription-Token: {S}\""}},
		{"scrapingbee-key", "ScrapingBee", "SCRAPINGBEE_API_KEY", "app.scrapingbee.com", s(b5UpD, 80), nil},
		{"twocaptcha-key", "2Captcha", "TWOCAPTCHA_API_KEY", "2captcha.com", b5hex(32), nil},
		{"paypal-rest-client-secret", "PayPal", "PAYPAL_CLIENT_SECRET", "api-m.sandbox.paypal.com", cat(lit("E"), s(alnum+"-_", 79)),
			[]string{"curl -v https://api-m.paypal.com/v1/oauth2/token -u \"AZDxjDScFpQtjWTOUtWKbyN_bDt4OgqaF4eYXlewfBP4-8aqX3PiV8e1GWU6liB2CUXlkA59kJXE7M6R:{S}\" -d grant_type=client_credentials"}},
		{"adyen-api-key", "Adyen", "ADYEN_API_KEY", "checkout-test.adyen.com", cat(lit("AQE"), s(alnum, 30), lit("+"), s(b64std, 60), lit("=-"), s(alnum, 40)),
			[]string{"curl https://checkout-test.adyen.com/v71/paymentMethods -H \"x-API-key: {S}\" -H \"content-type: application/json\""}},
		{"authorize-net-transaction-key", "Authorize.Net", "AUTHNET_TRANSACTION_KEY", "apitest.authorize.net", b5alnum(16),
			[]string{"{\"merchantAuthentication\": {\"name\": \"5KP3u95bQpv\", \"transactionKey\": \"{S}\"}}"}},
		{"paddle-billing-key", "Paddle", "PADDLE_API_KEY", "api.paddle.com", cat(lit("pdl_live_apikey_"), s(b5LoD, 26), lit("_"), s(alnum, 22), lit("_"), s(alnum, 3)), nil},
		{"lemonsqueezy-api-key", "Lemon Squeezy", "LEMONSQUEEZY_API_KEY", "api.lemonsqueezy.com", b5jwtClaims("RS256", func(g *gen) string {
			return fmt.Sprintf(`{"aud":"94d59cef-dbb8-4ea5-b178-d2540fcd6919","jti":"%s","iat":%d,"nbf":%d,"sub":"%d","scopes":[]}`, g.s(hexlc, 80), 1700000000+g.rng.IntN(9e7), 1700000000+g.rng.IntN(9e7), g.rng.IntN(900000)+100000)
		}), nil},
		{"chargebee-site-key", "Chargebee", "CHARGEBEE_API_KEY", "acme.chargebee.com", b5pre("live_", alnum, 34), nil},
		{"recurly-private-key", "Recurly", "RECURLY_API_KEY", "v3.recurly.com", b5hex(32), nil},
		{"coinbase-commerce-key", "Coinbase Commerce", "COINBASE_COMMERCE_API_KEY", "api.commerce.coinbase.com", b5uuid,
			[]string{"curl https://api.commerce.coinbase.com/charges -H \"X-CC-Api-Key: {S}\" -H \"X-CC-Version: 2018-03-22\""}},
		{"sinch-sms-api-token", "Sinch", "SINCH_API_TOKEN", "us.sms.api.sinch.com", b5hex(32), nil},
		{"infobip-api-key", "Infobip", "INFOBIP_API_KEY", "xyz123.api.infobip.com", cat(s(hexlc, 32), lit("-"), b5uuid),
			[]string{"curl https://xyz123.api.infobip.com/sms/2/text/advanced -H \"Authorization: App {S}\""}},
		{"mailersend-api-token", "MailerSend", "MAILERSEND_API_KEY", "api.mailersend.com", b5pre("mlsn.", hexlc, 64), nil},
		{"loops-api-key", "Loops", "LOOPS_API_KEY", "app.loops.so", b5hex(32), nil},
		{"kit-convertkit-api-secret", "ConvertKit", "CONVERTKIT_API_SECRET", "api.convertkit.com", b5b64url(43), nil},
		{"knock-secret-key", "Knock", "KNOCK_SECRET_API_KEY", "api.knock.app", b5pre("sk_", b64url, 43), nil},
		{"novu-api-key", "Novu", "NOVU_API_KEY", "api.novu.co", b5hex(32),
			[]string{"curl -X POST https://api.novu.co/v1/events/trigger -H \"Authorization: ApiKey {S}\""}},
		{"getstream-api-secret", "Stream", "STREAM_API_SECRET", "chat.stream-io-api.com", s(b5LoD, 64), nil},
		{"sendbird-api-token", "Sendbird", "SENDBIRD_API_TOKEN", "api-5C2B1A.sendbird.com", b5hex(40),
			[]string{"curl https://api-5C2B1A.sendbird.com/v3/users -H \"Api-Token: {S}\""}},
		{"livekit-api-secret", "LiveKit", "LIVEKIT_API_SECRET", "acme.livekit.cloud", b5alnum(43),
			[]string{"livekit-cli create-room --url wss://acme.livekit.cloud --api-key APIz8Ktq3mW7dPx --api-secret {S} --name standup"}},
		{"flagsmith-server-key", "Flagsmith", "FLAGSMITH_ENVIRONMENT_KEY", "edge.api.flagsmith.com", b5pre("ser.", alnum, 22), nil},
		{"growthbook-admin-secret", "GrowthBook", "GROWTHBOOK_SECRET_KEY", "api.growthbook.io", b5pre("secret_admin_", alnum, 43), nil},
		{"statsig-server-secret", "Statsig", "STATSIG_SERVER_SECRET", "api.statsig.com", b5pre("secret-", alnum, 43), nil},
		{"unleash-backend-token", "Unleash", "UNLEASH_API_TOKEN", "unleash.example.test", func(g *gen) string {
			return g.pick("*:production.", "default:development.", "payments:staging.") + g.s(hexlc, 56)
		}, nil},
		{"configcat-sdk-key", "ConfigCat", "CONFIGCAT_SDK_KEY", "cdn-global.configcat.com", cat(lit("configcat-sdk-1/"), s(b64url, 22), lit("/"), s(b64url, 22)), nil},
		{"workos-secret-key", "WorkOS", "WORKOS_API_KEY", "api.workos.com", func(g *gen) string {
			return "sk_" + base64.RawStdEncoding.EncodeToString([]byte("key_01"+g.s(b5UpD, 24)+","+g.s(alnum, 30)))
		}, nil},
		{"descope-management-key", "Descope", "DESCOPE_MANAGEMENT_KEY", "api.descope.com", b5pre("K2", alnum, 62), nil},
		{"fusionauth-api-key", "FusionAuth", "FUSIONAUTH_API_KEY", "auth.example.test", b5b64url(64), nil},
		{"kinde-client-secret", "Kinde", "KINDE_CLIENT_SECRET", "acme.kinde.com", b5alnum(46), nil},
		{"zitadel-service-pat", "Zitadel", "ZITADEL_PAT", "acme-x1y2z3.zitadel.cloud", b5b64url(72), nil},
		{"ory-network-pat", "Ory", "ORY_PROJECT_API_KEY", "acme.projects.oryapis.com", b5pre("ory_pat_", alnum, 32), nil},
		{"authentik-api-token", "authentik", "AUTHENTIK_TOKEN", "sso.example.test", b5alnum(60), nil},
		{"here-platform-api-key", "HERE", "HERE_API_KEY", "geocode.search.hereapi.com", b5b64url(43),
			[]string{"https://geocode.search.hereapi.com/v1/geocode?q=Invalidenstr+117+Berlin&apiKey={S}"}},
		{"maptiler-api-key", "MapTiler", "MAPTILER_KEY", "api.maptiler.com", b5alnum(20),
			[]string{"style: 'https://api.maptiler.com/maps/streets-v2/style.json?key={S}',"}},
		{"locationiq-access-token", "LocationIQ", "LOCATIONIQ_TOKEN", "us1.locationiq.com", b5pre("pk.", hexlc, 32), nil},
		{"opencage-geocoder-key", "OpenCage", "OPENCAGE_API_KEY", "api.opencagedata.com", b5hex(32), nil},
		{"monday-api-token", "monday.com", "MONDAY_API_TOKEN", "api.monday.com", b5jwtClaims("HS256", func(g *gen) string {
			return fmt.Sprintf(`{"tid":%d,"aai":11,"uid":%d,"iad":"2024-03-11T09:12:44.000Z","per":"me:write","actid":%d,"rgn":"euc1"}`, 300000000+g.rng.IntN(9e7), 40000000+g.rng.IntN(9e6), 10000000+g.rng.IntN(9e6))
		}), nil},
		{"coda-api-token", "Coda", "CODA_API_TOKEN", "coda.io", b5uuid, nil},
		{"cal-com-api-key", "Cal.com", "CAL_API_KEY", "api.cal.com", b5pre("cal_live_", hexlc, 32), nil},
		{"bitrise-pat", "Bitrise", "BITRISE_TOKEN", "api.bitrise.io", b5b64url(86), nil},
		{"appveyor-api-token", "AppVeyor", "APPVEYOR_TOKEN", "ci.appveyor.com", b5pre("v2.", b5LoD, 20), nil},
		{"teamcity-access-token", "TeamCity", "TEAMCITY_TOKEN", "teamcity.example.test", cat(lit("eyJ0eXAiOiAiVENWMiJ9."), s(b64url, 36), lit("."), s(b64url, 48)), nil},
		{"gerrit-http-password", "Gerrit", "GERRIT_HTTP_PASSWORD", "review.example.test", s(b64std, 42),
			[]string{"git clone https://jdoe:{S}@review.example.test/a/platform/core"}},
		{"sourcehut-access-token", "SourceHut", "SRHT_TOKEN", "meta.sr.ht", s(b64std, 120), nil},
		{"quay-robot-token", "Quay", "QUAY_ROBOT_TOKEN", "quay.io", s(b5UpD, 64),
			[]string{"docker login -u=\"acme+ci_pusher\" -p=\"{S}\" quay.io"}},
		{"gemfury-push-token", "Gemfury", "FURY_TOKEN", "push.fury.io", b5b64url(20),
			[]string{"curl -F package=@dist/acme-1.2.0.tar.gz https://{S}@push.fury.io/acme/"}},
		{"sonatype-central-token", "Sonatype Central", "CENTRAL_TOKEN_PASSWORD", "central.sonatype.com", s(b64std, 44), nil},
		{"anaconda-org-token", "Anaconda", "ANACONDA_API_TOKEN", "api.anaconda.org", cat(s(b5Lo, 2), lit("-"), s(alnum, 36)), nil},
		{"cocoapods-trunk-session", "CocoaPods", "COCOAPODS_TRUNK_TOKEN", "trunk.cocoapods.org", b5hex(32), nil},
		{"civo-api-key", "Civo", "CIVO_TOKEN", "api.civo.com", b5alnum(50), nil},
		{"equinix-metal-token", "Equinix Metal", "METAL_AUTH_TOKEN", "api.equinix.com", b5alnum(32), nil},
		{"oci-auth-token", "Oracle Cloud", "OCI_AUTH_TOKEN", "objectstorage.eu-frankfurt-1.oraclecloud.com", s(alnum+"()[]{};:<>.#+-_", 20),
			[]string{"docker login fra.ocir.io -u 'frxyz1abc2/oracleidentitycloudservice/jdoe@example.com' -p '{S}'"}},
		{"storj-access-grant", "Storj", "STORJ_ACCESS", "gateway.storjshare.io", func(g *gen) string { return "1" + b3b58(g.bytes(190)) }, nil},
		{"quicknode-endpoint-token", "QuickNode", "QUICKNODE_TOKEN", "api.quicknode.com", b5hex(40),
			[]string{"RPC_URL=https://withered-silent-meadow.quiknode.pro/{S}/"}},
		{"blockcypher-token", "BlockCypher", "BLOCKCYPHER_TOKEN", "api.blockcypher.com", b5hex(32), nil},
		{"instana-agent-key", "Instana", "INSTANA_AGENT_KEY", "ingress-red-saas.instana.io", b5b64url(22), nil},
		{"signalfx-access-token", "Splunk Observability", "SFX_ACCESS_TOKEN", "ingest.us1.signalfx.com", b5b64url(22),
			[]string{"curl -X POST https://ingest.us1.signalfx.com/v2/datapoint -H \"X-SF-Token: {S}\" -d '{\"gauge\":[]}'"}},
		{"cronitor-api-key", "Cronitor", "CRONITOR_API_KEY", "cronitor.io", b5hex(32), nil},
		{"healthchecks-ping-uuid", "Healthchecks", "HC_PING_URL", "hc-ping.com", b5uuid,
			[]string{"0 3 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 https://hc-ping.com/{S}"}},
		{"zabbix-api-token", "Zabbix", "ZABBIX_API_TOKEN", "zabbix.example.test", b5hex(64), nil},
		{"censys-api-secret", "Censys", "CENSYS_API_SECRET", "search.censys.io", b5alnum(32), nil},
		{"securitytrails-api-key", "SecurityTrails", "SECURITYTRAILS_API_KEY", "api.securitytrails.com", b5alnum(32),
			[]string{"curl https://api.securitytrails.com/v1/domain/example.com -H \"APIKEY: {S}\""}},
		{"greynoise-api-key", "GreyNoise", "GREYNOISE_API_KEY", "api.greynoise.io", b5alnum(64), nil},
		{"hibp-api-key", "Have I Been Pwned", "HIBP_API_KEY", "haveibeenpwned.com", b5hex(32),
			[]string{"curl https://haveibeenpwned.com/api/v3/breachedaccount/jdoe%40example.com -H \"hibp-api-key: {S}\""}},
		{"wpscan-api-token", "WPScan", "WPSCAN_API_TOKEN", "wpscan.com", b5alnum(43),
			[]string{"wpscan --url https://blog.example.test --api-token {S} --enumerate vp"}},
		{"tenable-io-secret-key", "Tenable", "TENABLE_SECRET_KEY", "cloud.tenable.com", b5hex(64),
			[]string{"X-ApiKeys: accessKey=a3c9e1d7b5f2046e8c1a9d3b7e5f20468c1a9d3b7e5f20468c1a9d3b7e5f2046; secretKey={S}"}},
		{"crowdstrike-falcon-secret", "CrowdStrike", "FALCON_CLIENT_SECRET", "api.crowdstrike.com", b5alnum(40), nil},
		{"reddit-app-secret", "Reddit", "REDDIT_CLIENT_SECRET", "oauth.reddit.com", b5b64url(30), nil},
		{"linkedin-app-client-secret", "LinkedIn", "LINKEDIN_CLIENT_SECRET", "api.linkedin.com", cat(lit("WPL_AP1."), s(alnum, 16), lit("."), s(alnum, 8), lit("==")), nil},
		{"spotify-client-secret", "Spotify", "SPOTIFY_CLIENT_SECRET", "accounts.spotify.com", b5hex(32), nil},
		{"vk-id-access-token", "VK", "VK_ACCESS_TOKEN", "api.vk.com", cat(lit("vk1.a."), s(b64url, 200)),
			[]string{"https://api.vk.com/method/users.get?user_ids=1&v=5.199&access_token={S}"}},
		{"mastodon-app-token", "Mastodon", "MASTODON_ACCESS_TOKEN", "mastodon.social", b5b64url(43), nil},
		{"bigcommerce-api-account-token", "BigCommerce", "BIGCOMMERCE_ACCESS_TOKEN", "api.bigcommerce.com", s(b5LoD, 31),
			[]string{"curl https://api.bigcommerce.com/stores/abc123/v3/catalog/products -H \"X-Auth-Token: {S}\""}},
		{"ebay-cert-id", "eBay", "EBAY_CERT_ID", "api.ebay.com", cat(lit("PRD-"), s(hexlc, 12), lit("-"), s(hexlc, 4), lit("-"), s(hexlc, 4), lit("-"), s(hexlc, 4), lit("-"), s(hexlc, 4)), nil},
		{"amazon-lwa-refresh-token", "Amazon SP-API", "SP_API_REFRESH_TOKEN", "sellingpartnerapi-eu.amazon.com", cat(lit("Atzr|"), s(b64url, 300)), nil},
		{"etsy-keystring", "Etsy", "ETSY_API_KEY", "openapi.etsy.com", s(b5LoD, 24),
			[]string{"curl https://openapi.etsy.com/v3/application/openapi-ping -H \"x-api-key: {S}\""}},
		{"meilisearch-master-key", "Meilisearch", "MEILI_MASTER_KEY", "search.example.test", b5b64url(32), nil},
		{"typesense-admin-key", "Typesense", "TYPESENSE_API_KEY", "xyz.a1.typesense.net", b5alnum(32),
			[]string{"curl https://xyz.a1.typesense.net/collections -H \"X-TYPESENSE-API-KEY: {S}\""}},
		{"matomo-token-auth", "Matomo", "MATOMO_TOKEN_AUTH", "analytics.example.test", b5hex(32),
			[]string{"https://analytics.example.test/index.php?module=API&method=VisitsSummary.get&idSite=1&period=day&date=today&format=JSON&token_auth={S}"}},
		{"plausible-stats-key", "Plausible", "PLAUSIBLE_API_KEY", "plausible.io", b5b64url(64), nil},
		{"prismic-access-token", "Prismic", "PRISMIC_ACCESS_TOKEN", "acme.cdn.prismic.io", b5pre("MC5", b64url, 80), nil},
		{"datocms-api-token", "DatoCMS", "DATOCMS_API_TOKEN", "graphql.datocms.com", b5hex(30), nil},
		{"contentstack-management-token", "Contentstack", "CONTENTSTACK_MANAGEMENT_TOKEN", "api.contentstack.io", b5pre("cs", hexlc, 32), nil},
		{"builder-io-private-key", "Builder", "BUILDER_PRIVATE_KEY", "builder.io", b5pre("bpk-", hexlc, 32), nil},
		{"intercom-access-token", "Intercom", "INTERCOM_ACCESS_TOKEN", "api.intercom.io", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte("tok:" + g.s(hexlc, 8) + "_" + g.s(hexlc, 4) + "_" + g.s(hexlc, 4) + "_" + g.s(hexlc, 4) + "_" + g.s(hexlc, 12) + ":1:0"))
		}, nil},
		{"front-app-api-token", "Front", "FRONT_API_TOKEN", "api2.frontapp.com", b5jwtClaims("HS256", func(g *gen) string {
			return fmt.Sprintf(`{"scopes":["shared:*","private:*"],"iat":%d,"iss":"front","sub":"%s","jti":"%s"}`, 1700000000+g.rng.IntN(9e7), g.s(hexlc, 20), g.s(hexlc, 16))
		}), nil},
		{"mercury-bank-api-token", "Mercury", "MERCURY_API_TOKEN", "api.mercury.com", cat(lit("secret-token:mercury_production_"), s(b5Lo, 3), lit("_"), s(alnum, 40)), nil},
		{"neverbounce-api-key", "NeverBounce", "NEVERBOUNCE_API_KEY", "api.neverbounce.com", b5pre("private_", hexlc, 32), nil},
		{"zerobounce-api-key", "ZeroBounce", "ZEROBOUNCE_API_KEY", "api.zerobounce.net", b5hex(32), nil},
		{"deepl-auth-key", "DeepL", "DEEPL_AUTH_KEY", "api-free.deepl.com", cat(b5uuid, lit(":fx")),
			[]string{"curl -X POST https://api-free.deepl.com/v2/translate -H \"Authorization: DeepL-Auth-Key {S}\" -d \"text=Hallo Welt&target_lang=EN\""}},
		{"transifex-api-token", "Transifex", "TX_TOKEN", "rest.api.transifex.com", b5pre("1/", hexlc, 40), nil},
		{"weblate-user-key", "Weblate", "WEBLATE_API_KEY", "hosted.weblate.org", b5pre("wlu_", alnum, 40),
			[]string{"curl -H \"Authorization: Token {S}\" https://hosted.weblate.org/api/projects/"}},
		{"phrase-strings-token", "Phrase", "PHRASE_ACCESS_TOKEN", "api.phrase.com", b5hex(64), nil},
		{"vimeo-access-token", "Vimeo", "VIMEO_ACCESS_TOKEN", "api.vimeo.com", b5hex(32), nil},
		{"filestack-api-key", "Filestack", "FILESTACK_API_KEY", "www.filestackapi.com", b5pre("A", alnum, 21), nil},
		{"transloadit-auth-secret", "Transloadit", "TRANSLOADIT_SECRET", "api2.transloadit.com", b5hex(40), nil},
		{"weatherapi-key", "WeatherAPI", "WEATHERAPI_KEY", "api.weatherapi.com", b5hex(31),
			[]string{"http://api.weatherapi.com/v1/current.json?key={S}&q=London"}},
		{"newsapi-key", "NewsAPI", "NEWS_API_KEY", "newsapi.org", b5hex(32),
			[]string{"https://newsapi.org/v2/top-headlines?country=de&apiKey={S}"}},
		{"alpha-vantage-key", "Alpha Vantage", "ALPHAVANTAGE_API_KEY", "www.alphavantage.co", s(b5UpD, 16),
			[]string{"https://www.alphavantage.co/query?function=TIME_SERIES_DAILY&symbol=IBM&apikey={S}"}},
		{"polygon-io-key", "Polygon", "POLYGON_API_KEY", "api.polygon.io", s(alnum+"_", 32), nil},
		{"iex-cloud-secret", "IEX Cloud", "IEX_SECRET_TOKEN", "cloud.iexapis.com", b5pre("sk_", hexlc, 32), nil},
		{"coinmarketcap-pro-key", "CoinMarketCap", "CMC_PRO_API_KEY", "pro-api.coinmarketcap.com", b5uuid,
			[]string{"curl -H \"X-CMC_PRO_API_KEY: {S}\" https://pro-api.coinmarketcap.com/v1/cryptocurrency/listings/latest"}},
		{"binance-api-secret", "Binance", "BINANCE_API_SECRET", "api.binance.com", b5alnum(64), nil},
		{"bybit-api-secret", "Bybit", "BYBIT_API_SECRET", "api.bybit.com", b5alnum(36), nil},
		{"roblox-open-cloud-key", "Roblox", "ROBLOX_API_KEY", "apis.roblox.com", s(b64std, 48),
			[]string{"curl -X POST https://apis.roblox.com/messaging-service/v1/universes/123456/topics/news -H \"x-api-key: {S}\""}},
		{"playfab-title-secret", "PlayFab", "PLAYFAB_SECRET_KEY", "A1B2C.playfabapi.com", s(b5UpD, 54),
			[]string{"curl -X POST https://A1B2C.playfabapi.com/Server/GetUserData -H \"X-SecretKey: {S}\""}},
		{"particle-access-token", "Particle", "PARTICLE_ACCESS_TOKEN", "api.particle.io", b5hex(40), nil},
		{"blynk-auth-token", "Blynk", "BLYNK_AUTH_TOKEN", "blynk.cloud", b5b64url(32),
			[]string{"#define BLYNK_TEMPLATE_ID \"TMPL4xYz\"\n#define BLYNK_AUTH_TOKEN \"{S}\""}},
		{"thingspeak-write-key", "ThingSpeak", "THINGSPEAK_WRITE_KEY", "api.thingspeak.com", s(b5UpD, 16),
			[]string{"https://api.thingspeak.com/update?api_key={S}&field1=21.4"}},
		{"balena-api-key", "balena", "BALENA_API_KEY", "api.balena-cloud.com", b5alnum(32), nil},
		{"home-assistant-long-lived-token", "Home Assistant", "HASS_TOKEN", "homeassistant.local:8123", b5jwtClaims("HS256", func(g *gen) string {
			return fmt.Sprintf(`{"iss":"%s","iat":%d,"exp":%d}`, g.s(hexlc, 32), 1700000000+g.rng.IntN(9e7), 2000000000+g.rng.IntN(9e7))
		}), nil},
		{"fastmail-api-token", "Fastmail", "FASTMAIL_API_TOKEN", "api.fastmail.com", cat(lit("fmu1-"), s(hexlc, 8), lit("-"), s(hexlc, 32), lit("-0-"), s(hexlc, 32)), nil},
		{"proton-bridge-password", "Proton Mail Bridge", "PROTON_BRIDGE_PASSWORD", "127.0.0.1:1143", b5b64url(22), nil},
		{"icloud-app-specific-password", "iCloud", "ICLOUD_APP_PASSWORD", "imap.mail.me.com", func(g *gen) string {
			return g.s(b5Lo, 4) + "-" + g.s(b5Lo, 4) + "-" + g.s(b5Lo, 4) + "-" + g.s(b5Lo, 4)
		}, []string{"xcrun notarytool submit App.zip --apple-id dev@example.com --team-id 7XK2P9Q4RM --password {S}"}},
		{"akeyless-access-key", "Akeyless", "AKEYLESS_ACCESS_KEY", "api.akeyless.io", s(b64std, 44), nil},
		{"hcp-service-principal-secret", "HCP", "HCP_CLIENT_SECRET", "api.cloud.hashicorp.com", b5b64url(64), nil},
		{"conjur-api-key", "Conjur", "CONJUR_AUTHN_API_KEY", "conjur.example.test", s(b5LoD, 55), nil},
		{"surge-sh-token", "Surge", "SURGE_TOKEN", "surge.sh", b5hex(32), nil},
		{"airbrake-project-key", "Airbrake", "AIRBRAKE_PROJECT_KEY", "api.airbrake.io", b5hex(32), nil},
		{"raygun-api-key", "Raygun", "RAYGUN_API_KEY", "api.raygun.com", b5alnum(22), nil},
		{"mullvad-account-number", "Mullvad", "MULLVAD_ACCOUNT", "api.mullvad.net", func(g *gen) string {
			return g.s(b5Dig, 4) + " " + g.s(b5Dig, 4) + " " + g.s(b5Dig, 4) + " " + g.s(b5Dig, 4)
		}, []string{"mullvad account login {S}"}},
		{"jellyfin-api-key", "Jellyfin", "JELLYFIN_API_KEY", "media.home.arpa:8096", b5hex(32),
			[]string{"http://media.home.arpa:8096/Items?api_key={S}&Recursive=true"}},
		{"sonarr-radarr-api-key", "Sonarr", "SONARR_API_KEY", "sonarr.home.arpa:8989", b5hex(32),
			[]string{"<Config>\n  <Port>8989</Port>\n  <ApiKey>{S}</ApiKey>\n  <AuthenticationMethod>Forms</AuthenticationMethod>\n</Config>"}},
		{"gotify-app-token", "Gotify", "GOTIFY_TOKEN", "push.example.test", b5pre("A", alnum+".-_", 14),
			[]string{"curl \"https://push.example.test/message?token={S}\" -F \"title=backup\" -F \"message=done\""}},
		{"rocketchat-personal-token", "Rocket.Chat", "ROCKETCHAT_AUTH_TOKEN", "chat.example.test", b5b64url(43),
			[]string{"curl -H \"X-Auth-Token: {S}\" -H \"X-User-Id: aobEdbYhXfu5hkeqG\" https://chat.example.test/api/v1/me"}},
		{"mattermost-personal-token", "Mattermost", "MM_ACCESS_TOKEN", "mm.example.test", s(b5LoD, 26), nil},
		{"discourse-api-key", "Discourse", "DISCOURSE_API_KEY", "forum.example.test", b5hex(64),
			[]string{"curl https://forum.example.test/posts.json -H \"Api-Key: {S}\" -H \"Api-Username: system\""}},
		{"nextcloud-app-password", "Nextcloud", "NEXTCLOUD_APP_PASSWORD", "cloud.example.test", func(g *gen) string {
			return g.s(alnum, 5) + "-" + g.s(alnum, 5) + "-" + g.s(alnum, 5) + "-" + g.s(alnum, 5) + "-" + g.s(alnum, 5)
		}, []string{"rclone config create nc webdav url https://cloud.example.test/remote.php/dav/files/jdoe vendor nextcloud user jdoe pass {S}"}},
		{"joomla-api-token", "Joomla", "JOOMLA_API_TOKEN", "www.example.test", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("sha256:%d:%s", g.rng.IntN(900)+100, g.s(hexlc, 64))))
		}, []string{"curl https://www.example.test/api/index.php/v1/content/articles -H \"X-Joomla-Token: {S}\""}},
		{"moodle-webservice-token", "Moodle", "MOODLE_WSTOKEN", "lms.example.test", b5hex(32),
			[]string{"https://lms.example.test/webservice/rest/server.php?wstoken={S}&wsfunction=core_course_get_courses&moodlewsrestformat=json"}},
		{"canvas-lms-access-token", "Canvas", "CANVAS_API_TOKEN", "canvas.example.edu", cat(s(b5Dig, 4), lit("~"), s(alnum, 64)), nil},
		{"close-crm-api-key", "Close", "CLOSE_API_KEY", "api.close.com", cat(lit("api_"), s(alnum, 22), lit("."), s(alnum, 22)), nil},
		{"dropbox-sign-api-key", "Dropbox Sign", "HELLOSIGN_API_KEY", "api.hellosign.com", b5hex(64), nil},
		{"surveymonkey-access-token", "SurveyMonkey", "SURVEYMONKEY_ACCESS_TOKEN", "api.surveymonkey.com", s(alnum+"-.", 60), nil},
		{"eventbrite-private-token", "Eventbrite", "EVENTBRITE_TOKEN", "www.eventbriteapi.com", s(b5UpD, 20), nil},
		{"xero-client-secret", "Xero", "XERO_CLIENT_SECRET", "identity.xero.com", b5b64url(48), nil},
		{"quickbooks-client-secret", "QuickBooks", "QBO_CLIENT_SECRET", "oauth.platform.intuit.com", b5alnum(40), nil},
		{"shipstation-api-secret", "ShipStation", "SHIPSTATION_API_SECRET", "ssapi.shipstation.com", b5hex(32), nil},
		{"aftership-api-key", "AfterShip", "AFTERSHIP_API_KEY", "api.aftership.com", b5pre("asat_", hexlc, 32),
			[]string{"curl https://api.aftership.com/tracking/2024-04/trackings -H \"as-api-key: {S}\""}},
	}
	var out []b3Kind
	for _, p := range ps {
		out = append(out, b5provKind(p))
	}
	return out
}

// --- toolconf: config files of tools no earlier corpus covered ---

func b5ToolConf() []b3Kind {
	c := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b5t("toolconf", name, source, body, texts...)
	}
	pw, key := b5pw, b5apikey
	b64k := func(n int) func(*gen) string { return func(g *gen) string { return g.b64(n) } }
	return []b3Kind{
		c("oauth2-proxy-cookie-secret", "oauth2-proxy config and Helm values with the cookie and client secrets (text written here)", b64k(32),
			"# oauth2-proxy.cfg\nprovider = \"oidc\"\nclient_id = \"grafana-proxy\"\ncookie_secret = \"{S}\"\nemail_domains = [\"example.test\"]",
			"config:\n  clientID: oauth2-proxy\n  cookieSecret: \"{S}\"\n  configFile: |-\n    upstreams = [ \"http://grafana:3000\" ]",
			"OAUTH2_PROXY_COOKIE_SECRET={S}\nOAUTH2_PROXY_PROVIDER=github"),
		c("ansible-vault-view-output", "ansible-vault view and decrypt output of a vars file (text written here)", pw,
			"$ ansible-vault view group_vars/prod/vault.yml\nVault password: \n---\nvault_db_user: app\nvault_db_password: \"{S}\"\nvault_smtp_relay: smtp.example.test",
			"$ ansible-vault decrypt --output - host_vars/db01/vault.yml\nvault_postgres_superuser_password: {S}\nDecryption successful",
			"TASK [debug] ******\nok: [db01] => {\n    \"vault_mysql_root_password\": \"{S}\"\n}"),
		c("systemd-setcredential-unit", "a systemd unit passing a secret with SetCredential= or LoadCredential= notes (text written here)", pw,
			"[Service]\nExecStart=/usr/bin/app --config /etc/app.toml\nSetCredential=db-password:{S}\nDynamicUser=yes",
			"# /etc/systemd/system/backup.service.d/override.conf\n[Service]\nSetCredential=restic-pass:{S}",
			"$ systemctl cat grafana-sync.service\n[Service]\nType=oneshot\nSetCredential=api-token:{S}\nExecStart=/opt/sync/bin/sync"),
		c("davfs2-secrets-file", "davfs2's secrets file or a WebDAV mount with credentials (text written here)", pw,
			"# /etc/davfs2/secrets\nhttps://dav.example.test/remote.php/dav/files/jdoe jdoe {S}",
			"$ cat ~/.davfs2/secrets\n/mnt/webdav backup \"{S}\"",
			"sudo mount -t davfs https://dav.example.test/backup /mnt/dav <<< $'backup\\n{S}'"),
		c("nginx-map-bearer-allowlist", "an nginx config that checks a bearer token with map or if (text written here)", key,
			"map $http_authorization $api_ok {\n    default 0;\n    \"Bearer {S}\" 1;\n}\nserver {\n    if ($api_ok = 0) { return 401; }\n}",
			"location /metrics {\n    if ($http_x_metrics_token != \"{S}\") { return 403; }\n    proxy_pass http://127.0.0.1:9100;\n}",
			"location /hook/ {\n    proxy_set_header X-Hook-Secret \"{S}\";\n    proxy_pass http://hooks:8080;\n}"),
		c("squid-cache-peer-login", "squid.conf cache_peer with login= credentials (text written here)", pw,
			"cache_peer proxy.upstream.example.test parent 3128 0 no-query default login=corpuser:{S}",
			"# squid.conf\nhttp_port 3128\ncache_peer 10.9.0.1 parent 8080 0 no-query login=svc_proxy:{S} name=upstream",
			"never_direct allow all\ncache_peer gw.example.test parent 3129 0 login=build:{S}"),
		c("caddyfile-header-up-authorization", "a Caddyfile that adds an upstream Authorization header (text written here)", key,
			"api.example.test {\n\treverse_proxy backend:8080 {\n\t\theader_up Authorization \"Bearer {S}\"\n\t}\n}",
			"reverse_proxy /search/* opensearch:9200 {\n\theader_up X-Api-Key {S}\n}",
			":8443 {\n\treverse_proxy https://upstream.example.test {\n\t\theader_up X-Upstream-Token \"{S}\"\n\t}\n}"),
		c("traefik-dns-challenge-env", "Traefik's ACME DNS challenge provider variables in compose or static config (text written here)", b5b64url(40),
			"services:\n  traefik:\n    image: traefik:v3.1\n    environment:\n      - DESEC_TOKEN={S}\n    command:\n      - --certificatesresolvers.le.acme.dnschallenge.provider=desec",
			"environment:\n  GANDIV5_PERSONAL_ACCESS_TOKEN: \"{S}\"",
			"[Service]\nEnvironment=\"HETZNER_API_KEY={S}\"\nExecStart=/usr/local/bin/traefik --configFile=/etc/traefik/traefik.yml"),
		c("certbot-dns-credentials-ini", "a certbot DNS plugin credentials file (text written here)", b5b64url(40),
			"# /etc/letsencrypt/desec.ini\ndns_desec_token = {S}",
			"# porkbun.ini\ndns_porkbun_key = pk1_4f1e2d3c\ndns_porkbun_secret = {S}",
			"$ cat ~/.secrets/certbot/ovh.ini\ndns_ovh_endpoint = ovh-eu\ndns_ovh_application_key = Xk2pQ9rT4vW8yZ1b\ndns_ovh_application_secret = {S}"),
		c("acme-sh-account-conf", "acme.sh account.conf with saved DNS API keys (text written here)", b5hex(37),
			"$ cat ~/.acme.sh/account.conf\nACCOUNT_EMAIL='ops@example.test'\nSAVED_CF_Key='{S}'\nSAVED_CF_Email='ops@example.test'",
			"SAVED_GD_Key='dLP4kB2x9z_5Tn8QvR3'\nSAVED_GD_Secret='{S}'",
			"export Ali_Secret=\"{S}\"\nacme.sh --issue --dns dns_ali -d example.test"),
		c("ddclient-conf-password", "ddclient.conf with a dynamic DNS password (text written here)", pw,
			"# /etc/ddclient.conf\nprotocol=dyndns2\nuse=web\nserver=domains.google.com\nlogin=k2J9xQ\npassword='{S}'\nhome.example.test",
			"protocol=namecheap\nserver=dynamicdns.park-your-domain.com\nlogin=example.test\npassword={S}\n@",
			"daemon=300\nprotocol=cloudflare\nzone=example.test\nlogin=token\npassword={S}\nvpn.example.test"),
		c("transmission-rpc-password", "Transmission settings.json or its command line with an RPC password (text written here)", pw,
			"{\n    \"rpc-authentication-required\": true,\n    \"rpc-enabled\": true,\n    \"rpc-password\": \"{S}\",\n    \"rpc-port\": 9091,\n    \"rpc-username\": \"admin\"\n}",
			"transmission-remote 192.168.1.5:9091 --auth admin:{S} -l",
			"environment:\n  - USER=seedbox\n  - PASS={S}\nimage: lscr.io/linuxserver/transmission"),
		c("syncthing-config-apikey", "Syncthing config.xml or REST calls with the GUI API key (text written here)", b5alnum(32),
			"<gui enabled=\"true\" tls=\"false\">\n    <address>127.0.0.1:8384</address>\n    <apikey>{S}</apikey>\n    <theme>default</theme>\n</gui>",
			"curl -H \"X-API-Key: {S}\" http://127.0.0.1:8384/rest/system/status",
			"syncthing cli --gui-apikey={S} show system"),
		c("act-runner-registration-file", "a Gitea or Forgejo act_runner .runner file or register command (text written here)", b5hex(40),
			"{\n  \"WARNING\": \"This file is automatically generated by act-runner. Do not edit it manually unless you know what you are doing.\",\n  \"id\": 3,\n  \"uuid\": \"6b1f0e2a-8c7d-4a3b-9e5f-1d2c3b4a5e6f\",\n  \"name\": \"build-01\",\n  \"token\": \"{S}\",\n  \"address\": \"https://git.example.test\"\n}",
			"./act_runner register --no-interactive --instance https://git.example.test --token {S} --name build-02",
			"GITEA_RUNNER_REGISTRATION_TOKEN={S}"),
		c("woodpecker-drone-agent-secret", "Woodpecker or Drone server and agent shared secrets (text written here)", b5hex(32),
			"WOODPECKER_AGENT_SECRET={S}\nWOODPECKER_SERVER=woodpecker-server:9000",
			"environment:\n  - DRONE_RPC_SECRET={S}\n  - DRONE_RPC_HOST=drone.example.test\n  - DRONE_RUNNER_CAPACITY=2",
			"docker run -d -e DRONE_RPC_PROTO=https -e DRONE_RPC_HOST=ci.example.test -e DRONE_RPC_SECRET={S} drone/drone-runner-docker:1"),
		c("argocd-cli-local-config", "the argocd CLI's ~/.config/argocd/config with a session token (text written here)", b5jwtClaims("HS256", func(g *gen) string {
			return fmt.Sprintf(`{"iss":"argocd","sub":"admin:login","exp":%d,"nbf":%d,"iat":%d,"jti":"%s"}`, 1800000000+g.rng.IntN(9e7), 1710000000+g.rng.IntN(9e6), 1710000000+g.rng.IntN(9e6), b5uuid(g))
		}),
			"contexts:\n- name: argocd.example.test\n  server: argocd.example.test\n  user: argocd.example.test\ncurrent-context: argocd.example.test\nservers:\n- grpc-web-root-path: \"\"\n  server: argocd.example.test\nusers:\n- auth-token: {S}\n  name: argocd.example.test",
			"$ argocd app list --auth-token {S} --server argocd.example.test",
			"ARGOCD_AUTH_TOKEN={S}"),
		c("cert-manager-acme-eab-hmac", "a cert-manager Issuer's external account binding and its HMAC key Secret (text written here)", b5b64url(86),
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: zerossl-eab\n  namespace: cert-manager\nstringData:\n  secret: {S}",
			"certbot register --eab-kid kid_Nd9sT2 --eab-hmac-key {S} --server https://acme.zerossl.com/v2/DV90",
			"acme.sh --register-account --server google --eab-kid 8f2a7c --eab-hmac-key {S}"),
		c("minio-mc-config-json", "MinIO client ~/.mc/config.json with an alias's secret key (text written here)", b5alnum(40),
			"{\n\t\"version\": \"10\",\n\t\"aliases\": {\n\t\t\"backup\": {\n\t\t\t\"url\": \"https://s3.backup.example.test\",\n\t\t\t\"accessKey\": \"mc-backup\",\n\t\t\t\"secretKey\": \"{S}\",\n\t\t\t\"api\": \"s3v4\",\n\t\t\t\"path\": \"auto\"\n\t\t}\n\t}\n}",
			"MC_HOST_minio=https://admin:{S}@minio.example.test mc ls minio/",
			"\"local\": {\"url\": \"http://localhost:9000\", \"accessKey\": \"minioadmin\", \"secretKey\": \"{S}\", \"api\": \"S3v4\"}"),
		c("otel-collector-exporter-headers", "an OpenTelemetry Collector config with exporter auth headers (text written here)", key,
			"exporters:\n  otlphttp:\n    endpoint: https://otlp.vendor.example.test\n    headers:\n      api-key: {S}",
			"exporters:\n  otlp/honey:\n    endpoint: api.example.test:443\n    headers:\n      \"x-team-key\": \"{S}\"",
			"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20{S}"),
		c("grafana-alloy-basic-auth", "a Grafana Alloy (River) or Agent config with basic_auth to a self-hosted backend (text written here)", pw,
			"prometheus.remote_write \"cloud\" {\n  endpoint {\n    url = \"https://mimir.example.test/api/v1/push\"\n    basic_auth {\n      username = \"alloy\"\n      password = \"{S}\"\n    }\n  }\n}",
			"loki.write \"default\" {\n  endpoint {\n    url = \"https://loki.example.test/loki/api/v1/push\"\n    basic_auth {\n      username = \"promtail\"\n      password = \"{S}\"\n    }\n  }\n}",
			"REMOTE_WRITE_PASSWORD={S} alloy run /etc/alloy/config.alloy"),
		c("vector-toml-sink-auth", "a Vector config with a sink's auth (text written here)", pw,
			"[sinks.es]\ntype = \"elasticsearch\"\nendpoints = [\"https://es.example.test:9200\"]\nauth.strategy = \"basic\"\nauth.user = \"vector\"\nauth.password = \"{S}\"",
			"sinks:\n  loki:\n    type: loki\n    endpoint: https://loki.example.test\n    auth:\n      strategy: basic\n      user: vector\n      password: {S}",
			"[sinks.dd]\ntype = \"datadog_logs\"\ndefault_api_key = \"{S}\""),
		c("filebeat-output-password", "filebeat.yml or metricbeat.yml output credentials (text written here)", pw,
			"output.elasticsearch:\n  hosts: [\"https://es01:9200\"]\n  username: \"beats_writer\"\n  password: \"{S}\"\n  ssl.certificate_authorities: [\"/etc/ca.crt\"]",
			"output.logstash:\n  hosts: [\"ls:5044\"]\ncloud.id: \"prod:ZXUtd2VzdC0xLmF3cy5mb3VuZC5pbyQ=\"\ncloud.auth: \"elastic:{S}\"",
			"filebeat -e -E output.elasticsearch.password={S} -E output.elasticsearch.username=elastic"),
		c("fastlane-match-env", "fastlane .env or Fastfile with match and Apple ID passwords (text written here)", pw,
			"# fastlane/.env.default\nMATCH_PASSWORD={S}\nMATCH_GIT_URL=git@github.com:acme/certs.git",
			"FASTLANE_USER=ios@example.com\nFASTLANE_PASSWORD={S}\nFASTLANE_SESSION=",
			"lane :beta do\n  match(type: \"appstore\", readonly: true, keychain_password: \"{S}\")\n  build_app(scheme: \"Acme\")\nend"),
		c("leiningen-profiles-repo-creds", "Leiningen profiles.clj or project.clj repository credentials (text written here)", pw,
			"{:auth {:repository-auth {#\"https://repo.example.test/.*\" {:username \"deploy\" :password \"{S}\"}}}}",
			":deploy-repositories [[\"releases\" {:url \"https://nexus.example.test/repository/clj\" :username \"ci\" :password \"{S}\" :sign-releases false}]]",
			"{:user {:signing {:gpg-key \"A1B2C3D4\"}} :repositories [[\"private\" {:url \"s3p://acme-maven/releases/\" :username \"AKIAEXAMPLEXYZ12\" :passphrase \"{S}\"}]]}"),
		c("cabal-hackage-credentials", "cabal's config with a Hackage password or token (text written here)", pw,
			"repository hackage.haskell.org\n  url: http://hackage.haskell.org/\n\nusername: jdoe\npassword: {S}",
			"$ cabal upload --username=jdoe --password={S} dist-newstyle/sdist/acme-0.3.1.tar.gz",
			"-- ~/.config/cabal/config\nusername: acme-bot\npassword-command: echo {S}"),
		c("dart-pub-tokens-json", "Dart pub-tokens.json or dart pub token add for a private package repository (text written here)", b5b64url(48),
			"{\"version\":1,\"hosted\":[{\"url\":\"https://dart.pkg.example.test\",\"token\":\"{S}\"}]}",
			"$ cat ~/.config/dart/pub-tokens.json\n{\"version\": 1, \"hosted\": [{\"url\": \"https://pub.internal.example.test\", \"token\": \"{S}\"}]}",
			"echo {S} | dart pub token add https://dart.pkg.example.test"),
		c("mix-hex-api-key", "Elixir Hex's api key in hex.config, an env line or mix hex.publish (text written here)", b5hex(32),
			"{'$write_key', <<\"{S}\">>}.",
			"HEX_API_KEY={S} mix hex.publish --yes",
			"$ mix hex.config\napi_key: {S}\napi_url: \"https://hex.pm/api\""),
		c("goproxy-url-credentials", "GOPROXY or GOFLAGS with a private module proxy's credentials (text written here)", pw,
			"$ go env GOPROXY\nhttps://gobuild:{S}@athens.corp.example.test,https://proxy.golang.org,direct",
			"ENV GOPROXY=https://ci:{S}@artifactory.example.test/api/go/go-virtual\nENV GONOSUMDB=corp.example.test",
			"export GOPROXY=\"https://token:{S}@goproxy.internal.example.test\""),
		c("conan-remote-login", "Conan remote login commands and env credentials (text written here)", pw,
			"conan remote login artifactory ci-user -p {S}",
			"export CONAN_LOGIN_USERNAME_ARTIFACTORY=ci-user\nexport CONAN_PASSWORD_ARTIFACTORY={S}",
			"conan user -p {S} -r conan-center-mirror builder"),
		c("bunfig-toml-registry-token", "bun's bunfig.toml with a scoped private registry token or password (text written here)", key,
			"[install.scopes]\n\"@acme\" = { token = \"{S}\", url = \"https://npm.pkg.example.test/\" }",
			"[install]\nregistry = { url = \"https://registry.npmjs.org\", token = \"{S}\" }",
			"# bunfig.toml\n[install.scopes]\nmyorg = { username = \"ci\", password = \"{S}\", url = \"https://registry.myorg.example.test/\" }"),
		c("uv-index-credentials", "uv's index credentials in environment variables or uv.toml (text written here)", pw,
			"export UV_INDEX_PRIVATE_REGISTRY_USERNAME=ci\nexport UV_INDEX_PRIVATE_REGISTRY_PASSWORD={S}",
			"[[tool.uv.index]]\nname = \"internal\"\nurl = \"https://ci:{S}@pypi.internal.example.test/simple\"",
			"uv publish --publish-url https://pypi.internal.example.test/legacy/ --username ci --password {S}"),
		c("pdm-hatch-publish-config", "PDM or Hatch config with a private repository's password (text written here)", pw,
			"$ pdm config repository.private.password {S}",
			"# ~/.config/hatch/config.toml\n[publish.index]\nuser = \"ci\"\nauth = \"{S}\"\nurl = \"https://pypi.internal.example.test/legacy/\"",
			"[repository.private]\nurl = \"https://pypi.internal.example.test/legacy/\"\nusername = \"ci\"\npassword = \"{S}\""),
		c("maven-settings-security-master", "Maven settings-security.xml master password and an encrypted server password (text written here)", func(g *gen) string { return "{" + g.b64(32) + "}" },
			"<settingsSecurity>\n  <master>{S}</master>\n</settingsSecurity>",
			"$ mvn --encrypt-master-password\nMaster password: \n{S}",
			"<server>\n  <id>releases</id>\n  <username>deployer</username>\n  <password>{S}</password>\n</server>"),
		c("kubeconfig-oidc-auth-provider", "a kubeconfig user with the oidc auth-provider's refresh token or client secret (text written here)", b5b64url(64),
			"users:\n- name: jdoe@example.test\n  user:\n    auth-provider:\n      config:\n        client-id: kubernetes\n        idp-issuer-url: https://sso.example.test/realms/k8s\n        refresh-token: {S}\n      name: oidc",
			"    auth-provider:\n      config:\n        client-id: kube\n        client-secret: {S}\n        id-token: eyJhbGciOiJSUzI1NiJ9.e30.c2ln\n      name: oidc",
			"kubectl config set-credentials jdoe --auth-provider=oidc --auth-provider-arg=client-secret={S}"),
		c("vault-approle-secret-id", "Vault AppRole secret_id output and login (text written here)", b5uuid,
			"$ vault write -f auth/approle/role/ci/secret-id\nKey                   Value\n---                   -----\nsecret_id             {S}\nsecret_id_accessor    84896a0c-1347-aa90-a4f6-aca8b7558780\nsecret_id_ttl         0s",
			"vault write auth/approle/login role_id=675a50e7-cfe0-be76-e35f-49ec009731ea secret_id={S}",
			"VAULT_SECRET_ID={S}"),
		c("consul-gossip-encrypt-key", "a Consul or Nomad gossip encryption key in config or keygen output (text written here)", b64k(32),
			"# /etc/consul.d/consul.hcl\ndatacenter = \"dc1\"\nencrypt = \"{S}\"\nretry_join = [\"10.0.0.10\"]",
			"$ consul keygen\n{S}",
			"server {\n  enabled = true\n  bootstrap_expect = 3\n  encrypt = \"{S}\"\n}"),
		c("nomad-acl-bootstrap-output", "nomad acl bootstrap or token create output (text written here)", b5uuid,
			"$ nomad acl bootstrap\nAccessor ID  = 5b7fd453-d3f7-6814-81dc-fcfe6daedea5\nSecret ID    = {S}\nName         = Bootstrap Token\nType         = management\nGlobal       = true",
			"export NOMAD_TOKEN={S}\nnomad job run web.nomad.hcl",
			"Secret ID    = {S}\nPolicies     = [deploy]"),
		c("pulumi-config-passphrase", "PULUMI_CONFIG_PASSPHRASE in env lines and CI (text written here)", pw,
			"export PULUMI_CONFIG_PASSPHRASE='{S}'\npulumi up --stack dev",
			"env:\n  PULUMI_CONFIG_PASSPHRASE: {S}\n  PULUMI_BACKEND_URL: s3://acme-pulumi-state",
			"PULUMI_CONFIG_PASSPHRASE={S} pulumi stack output --show-secrets"),
		c("doppler-secrets-download", "doppler secrets download or doppler run output (text written here)", pw,
			"$ doppler secrets download --no-file --format json\n{\"DB_PASSWORD\":\"{S}\",\"DOPPLER_CONFIG\":\"dev\",\"DOPPLER_ENVIRONMENT\":\"dev\",\"DOPPLER_PROJECT\":\"api\"}",
			"$ doppler secrets get STRIPE_WEBHOOK --plain\n{S}",
			"┌─────────────┬──────────────────────┐\n│ NAME        │ VALUE                │\n├─────────────┼──────────────────────┤\n│ REDIS_PASS  │ {S} │\n└─────────────┴──────────────────────┘"),
		c("op-cli-read-output", "1Password CLI op read, op item get and op inject output (text written here)", pw,
			"$ op read \"op://Engineering/Prod DB/password\"\n{S}",
			"$ op item get \"SMTP relay\" --fields label=password --reveal\n{S}",
			"$ op item get Staging --format json | jq '.fields[] | select(.id==\"password\")'\n{\n  \"id\": \"password\",\n  \"type\": \"CONCEALED\",\n  \"label\": \"password\",\n  \"value\": \"{S}\"\n}"),
		c("bw-session-key", "a Bitwarden CLI BW_SESSION key from bw unlock (text written here)", func(g *gen) string { return g.b64(64) },
			"$ bw unlock\n? Master password: [hidden]\nYour vault is now unlocked!\n\nTo unlock your vault, set your session key to the `BW_SESSION` environment variable. ex:\n$ export BW_SESSION=\"{S}\"",
			"export BW_SESSION=\"{S}\"\nbw get password github.com",
			"bw list items --session {S} | jq length"),
		c("patroni-yml-superuser", "patroni.yml with the superuser and replication passwords (text written here)", pw,
			"postgresql:\n  listen: 0.0.0.0:5432\n  authentication:\n    superuser:\n      username: postgres\n      password: {S}\n    replication:\n      username: replicator",
			"    replication:\n      username: replicator\n      password: '{S}'",
			"PATRONI_SUPERUSER_PASSWORD={S}\nPATRONI_SCOPE=pg-main"),
		c("mongod-keyfile-content", "a MongoDB replica set keyfile's content (text written here)", func(g *gen) string { return g.b64(756) },
			"$ openssl rand -base64 756 > /etc/mongo/keyfile && cat /etc/mongo/keyfile\n{S}",
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: mongo-keyfile\nstringData:\n  keyfile: {S}",
			"security:\n  keyFile: /etc/mongo/keyfile\n# keyfile contents for the other nodes:\n# {S}"),
		c("liquibase-flyway-conf", "liquibase.properties or flyway.conf with a database password (text written here)", pw,
			"changeLogFile: db/changelog/master.xml\nurl: jdbc:postgresql://db:5432/app\nusername: liquibase\npassword: {S}",
			"flyway.url=jdbc:mysql://db:3306/shop\nflyway.user=flyway\nflyway.password={S}\nflyway.locations=filesystem:sql",
			"$ flyway -url=jdbc:postgresql://localhost/app -user=app -password={S} migrate"),
		c("jetbrains-http-client-private-env", "JetBrains HTTP Client http-client.private.env.json (text written here)", key,
			"{\n  \"dev\": {\n    \"token\": \"{S}\"\n  },\n  \"prod\": {\n    \"token\": \"\"\n  }\n}",
			"{\"staging\": {\"password\": \"{S}\", \"username\": \"qa\"}}",
			"### Get orders\nGET https://api.example.test/orders\nAuthorization: Bearer {S}"),
		c("vscode-rest-client-env", "VS Code REST Client environment variables in settings.json (text written here)", key,
			"\"rest-client.environmentVariables\": {\n  \"local\": {\n    \"host\": \"localhost:8080\",\n    \"token\": \"{S}\"\n  }\n}",
			"@baseUrl = https://api.example.test\n@apiKey = {S}\n\nGET {{baseUrl}}/v1/items\nX-Api-Key: {{apiKey}}",
			"\"$shared\": {\"secret\": \"{S}\"}"),
		c("bruno-environment-file", "a Bruno .bru environment or request file (text written here)", key,
			"vars {\n  baseUrl: https://api.example.test\n  apiToken: {S}\n}\nvars:secret [\n  password\n]",
			"auth:bearer {\n  token: {S}\n}",
			"headers {\n  x-api-key: {S}\n}"),
		c("hoppscotch-environment-export", "a Hoppscotch or Insomnia-like environment export JSON (text written here)", key,
			"[{\"name\":\"Staging\",\"variables\":[{\"key\":\"BASE\",\"value\":\"https://staging.example.test\"},{\"key\":\"TOKEN\",\"value\":\"{S}\",\"secret\":false}]}]",
			"{\"v\":1,\"name\":\"prod\",\"variables\":[{\"key\":\"apiKey\",\"initialValue\":\"{S}\",\"currentValue\":\"\"}]}",
			"{\"_type\":\"environment\",\"data\":{\"base_url\":\"https://api.example.test\",\"access_token\":\"{S}\"}}"),
		c("offlineimap-mbsync-getmail", "offlineimaprc, mbsyncrc or getmailrc with an IMAP password (text written here)", pw,
			"[Repository Remote]\ntype = IMAP\nremotehost = imap.example.test\nremoteuser = jdoe@example.test\nremotepass = {S}\nssl = yes",
			"IMAPAccount work\nHost imap.example.test\nUser jdoe\nPass {S}\nSSLType IMAPS",
			"[retriever]\ntype = SimpleIMAPSSLRetriever\nserver = imap.example.test\nusername = jdoe\npassword = {S}"),
		c("aerc-accounts-conf", "aerc accounts.conf with credentials in the source and outgoing URLs (text written here)", pw,
			"[Work]\nsource   = imaps://jdoe%40example.test:{S}@imap.example.test\noutgoing = smtps+plain://jdoe%40example.test@smtp.example.test\ndefault  = INBOX\nfrom     = Jane Doe <jdoe@example.test>",
			"[Personal]\nsource = imaps://me:{S}@mail.example.net:993",
			"outgoing = smtp+login://alerts:{S}@smtp.example.test:587"),
		c("exim-opensmtpd-client-secrets", "exim passwd.client or an OpenSMTPD secrets table (text written here)", pw,
			"# /etc/exim4/passwd.client\n*.example-relay.test:relayuser:{S}",
			"# /etc/mail/secrets\nrelay relayuser:{S}",
			"table secrets file:/etc/mail/secrets\n# relay  mailer@example.test:{S}\naction \"relay\" relay host smtp+tls://relay@smtp.example.test:587 auth <secrets>"),
		c("weechat-irssi-sasl-password", "WeeChat or irssi server config with a SASL or server password (text written here)", pw,
			"/set irc.server.libera.sasl_username \"jdoe\"\n/set irc.server.libera.sasl_password \"{S}\"",
			"servers = (\n  { address = \"irc.libera.chat\"; chatnet = \"liberachat\"; port = \"6697\"; use_tls = \"yes\"; password = \"jdoe:{S}\"; }\n);",
			"[server]\nlibera.sasl_password = \"{S}\"\nlibera.sasl_mechanism = plain"),
		c("teamspeak-serverquery-login", "TeamSpeak ServerQuery login lines and first-start output (text written here)", b5alnum(8),
			"------------------------------------------------------------------\n                      I M P O R T A N T\n------------------------------------------------------------------\n      Server Query Admin Account created\n      loginname= \"serveradmin\", password= \"{S}\"",
			"login serveradmin {S}\nuse sid=1",
			"TS3SERVER_SERVERADMIN_PASSWORD={S}"),
		c("minecraft-rcon-password", "Minecraft server.properties or an RCON client line (text written here)", pw,
			"enable-rcon=true\nrcon.port=25575\nrcon.password={S}\nmotd=A Minecraft Server",
			"mcrcon -H 127.0.0.1 -P 25575 -p '{S}' \"say restarting in 5 minutes\"",
			"environment:\n  EULA: \"TRUE\"\n  RCON_PASSWORD: \"{S}\""),
		c("node-red-credential-secret", "Node-RED settings.js credentialSecret or flows_cred decryption key (text written here)", pw,
			"module.exports = {\n    flowFile: 'flows.json',\n    credentialSecret: \"{S}\",\n    uiPort: process.env.PORT || 1880,\n}",
			"NODE_RED_CREDENTIAL_SECRET={S}",
			"adminAuth: {\n    type: \"credentials\",\n    users: [{ username: \"admin\", password: \"$2b$08$placeholderhashvalue\", permissions: \"*\" }]\n},\ncredentialSecret: '{S}'"),
		c("zigbee2mqtt-network-key", "zigbee2mqtt configuration.yaml with the network key and MQTT password (text written here)", func(g *gen) string {
			var p []string
			for range 16 {
				p = append(p, fmt.Sprint(g.rng.IntN(256)))
			}
			return "[" + strings.Join(p, ", ") + "]"
		},
			"advanced:\n  network_key: {S}\n  pan_id: 6754\n  channel: 15",
			"mqtt:\n  server: mqtt://localhost\n  user: z2m\nadvanced:\n  log_level: info\n  network_key: {S}",
			"# backup of the coordinator settings\nnetwork_key: {S}"),
		c("octoprint-config-api-key", "OctoPrint config.yaml or a client config with the API key (text written here)", b5hex(32),
			"api:\n  key: {S}\nserver:\n  firstRun: false",
			"curl -H \"X-Api-Key: {S}\" http://octopi.local/api/job",
			"octoprint:\n  host: octopi.local\n  api_key: {S}"),
		c("pihole-admin-password", "Pi-hole web password in compose, pihole.toml or setpassword (text written here)", pw,
			"environment:\n  TZ: 'Europe/Berlin'\n  FTLCONF_webserver_api_password: '{S}'",
			"$ pihole setpassword '{S}'\n  [✓] New password set",
			"WEBPASSWORD={S}\nDNSMASQ_LISTENING=all"),
		c("headscale-preauthkey", "headscale preauthkeys create output and tailscale up with it (text written here)", b5hex(48),
			"$ headscale preauthkeys create --user ops --reusable --expiration 24h\n{S}",
			"tailscale up --login-server https://hs.example.test --authkey {S}",
			"ID | Key                                              | Reusable | Ephemeral | Used\n1  | {S} | true     | false     | false"),
		c("swanctl-conf-secrets", "strongSwan swanctl.conf secrets block (text written here)", pw,
			"secrets {\n   eap-carol {\n      id = carol@example.test\n      secret = \"{S}\"\n   }\n}",
			"secrets {\n   ike-site-b {\n      id-1 = gw-a.example.test\n      id-2 = gw-b.example.test\n      secret = {S}\n   }\n}",
			"   xauth-jdoe {\n      id = jdoe\n      secret = \"{S}\"\n   }"),
		c("oci-cli-config-pass-phrase", "the OCI CLI's ~/.oci/config with a key pass_phrase (text written here)", pw,
			"[DEFAULT]\nuser=ocid1.user.oc1..aaaaaaaa7x2k\nfingerprint=3b:1f:9c:aa:02:7d:5e:61:c0:88:4a:2f:1d:0e:93:b7\nkey_file=~/.oci/oci_api_key.pem\npass_phrase={S}\ntenancy=ocid1.tenancy.oc1..aaaaaaaa4q9z\nregion=eu-frankfurt-1",
			"[ADMIN]\nkey_file=/home/ops/.oci/admin.pem\npass_phrase = {S}",
			"export OCI_CLI_PASSPHRASE='{S}'"),
		c("kustomize-secret-generator", "kustomization.yaml secretGenerator literals (text written here)", pw,
			"secretGenerator:\n- name: db-credentials\n  literals:\n  - username=app\n  - password={S}",
			"secretGenerator:\n  - name: smtp\n    literals:\n      - SMTP_PASS={S}\n    type: Opaque",
			"kustomize edit add secret api --from-literal=API_TOKEN={S}"),
		c("openshift-template-param-value", "an OpenShift template's parameter values or oc process -p (text written here)", pw,
			"parameters:\n- name: DATABASE_PASSWORD\n  description: Password for the database user\n  value: {S}\n  required: true",
			"oc process -f postgresql-persistent.yaml -p POSTGRESQL_USER=app -p POSTGRESQL_PASSWORD={S} | oc apply -f -",
			"oc new-app mariadb-ephemeral -p MYSQL_ROOT_PASSWORD={S}"),
		c("terragrunt-inputs-secret", "terragrunt.hcl inputs with a plain secret (text written here)", pw,
			"inputs = {\n  db_username = \"admin\"\n  db_password = \"{S}\"\n  instance_class = \"db.t4g.medium\"\n}",
			"terraform {\n  source = \"../modules/rds\"\n}\ninputs = {\n  master_password = \"{S}\"\n}",
			"TG_VAR_admin_password={S} terragrunt apply"),
		c("kodi-advancedsettings-mysql", "Kodi advancedsettings.xml with the shared MySQL library login (text written here)", pw,
			"<advancedsettings>\n  <videodatabase>\n    <type>mysql</type>\n    <host>192.168.1.10</host>\n    <port>3306</port>\n    <user>kodi</user>\n    <pass>{S}</pass>\n  </videodatabase>\n</advancedsettings>",
			"  <musicdatabase>\n    <type>mysql</type>\n    <user>kodi</user>\n    <pass>{S}</pass>\n  </musicdatabase>",
			"<webserverpassword>{S}</webserverpassword>"),
		c("chrony-ntp-keys-file", "chrony.keys or ntp.keys symmetric keys (text written here)", func(g *gen) string { return "HEX:" + g.s(b5HexU5, 40) },
			"# /etc/chrony/chrony.keys\n1 SHA1 {S}",
			"$ chronyc keygen 7 SHA1 160\n7 SHA1 {S}",
			"keyfile /etc/chrony.keys\nserver ntp1.example.test key 7 iburst\n# key 7 is: 7 SHA1 {S}"),
		c("keepalived-vrrp-auth-pass", "keepalived.conf vrrp_instance authentication (text written here)", b5alnum(8),
			"vrrp_instance VI_1 {\n    state MASTER\n    interface eth0\n    virtual_router_id 51\n    authentication {\n        auth_type PASS\n        auth_pass {S}\n    }\n}",
			"    authentication {\n        auth_type AH\n        auth_pass {S}\n    }",
			"auth_pass {S}   # same on both nodes"),
		c("bird-bgp-neighbor-password", "BIRD, OpenBGPD or GoBGP neighbor passwords (text written here)", pw,
			"protocol bgp upstream1 {\n  local as 65010;\n  neighbor 203.0.113.1 as 64500;\n  password \"{S}\";\n}",
			"# /etc/bgpd.conf (OpenBGPD)\nneighbor 198.51.100.7 {\n\tremote-as 64501\n\ttcp md5sig password {S}\n}",
			"[[neighbors]]\n  [neighbors.config]\n    neighbor-address = \"10.255.0.2\"\n    peer-as = 65020\n    auth-password = \"{S}\""),
		c("tinyproxy-rsyncd-monit-creds", "tinyproxy BasicAuth, rsyncd.secrets or monit's allow line (text written here)", pw,
			"# /etc/tinyproxy/tinyproxy.conf\nPort 8888\nBasicAuth proxyuser {S}",
			"# /etc/rsyncd.secrets\nbackup:{S}",
			"set httpd port 2812 and\n    use address 0.0.0.0\n    allow admin:{S}"),
		c("php-fpm-pool-env", "a php-fpm pool config passing env values (text written here)", pw,
			"[www]\nuser = www-data\nlisten = /run/php/php8.3-fpm.sock\nenv[DB_HOST] = 127.0.0.1\nenv[DB_PASSWORD] = {S}",
			"php_admin_value[session.save_path] = \"tcp://redis:6379?auth={S}\"",
			"env[MAIL_PASSWORD] = \"{S}\"\nclear_env = no"),
		c("java-appserver-password-files", "GlassFish asadmin password files, WebLogic boot.properties or Tomcat context.xml (text written here)", pw,
			"# /tmp/pwdfile\nAS_ADMIN_PASSWORD={S}\nAS_ADMIN_MASTERPASSWORD=changeit",
			"# servers/AdminServer/security/boot.properties\nusername=weblogic\npassword={S}",
			"<Context>\n  <Resource name=\"jdbc/AppDS\" auth=\"Container\" type=\"javax.sql.DataSource\"\n            username=\"app\" password=\"{S}\"\n            driverClassName=\"org.postgresql.Driver\" url=\"jdbc:postgresql://db:5432/app\"/>\n</Context>"),
	}
}

const b5HexU5 = "0123456789ABCDEF"

// --- trace: stack traces, logs, CI output and history files ---

func b5Trace() []b3Kind {
	t := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b5t("trace", name, source, body, texts...)
	}
	pw, key := b5pw, b5apikey
	b64pw := func(g *gen) string { return b5b64(b5pw(g)) }
	return []b3Kind{
		// stack traces and dumps of languages not yet covered
		t("php-stack-trace-pdo-args", "a PHP stack trace that prints the PDO constructor's arguments (text written here)", pw,
			"PHP Fatal error:  Uncaught PDOException: SQLSTATE[HY000] [1045] Access denied for user 'shop'@'10.0.0.7' (using password: YES) in /var/www/app/src/Db.php:14\nStack trace:\n#0 /var/www/app/src/Db.php(14): PDO->__construct('mysql:host=db;dbn...', 'shop', '{S}')\n#1 /var/www/app/index.php(8): App\\Db::connect()\n#2 {main}",
			"Next Illuminate\\Database\\QueryException: could not find driver\n#0 [internal function]: Doctrine\\DBAL\\Driver\\PDO\\Connection->__construct('pgsql:host=pg;port...', 'forge', '{S}', Array)",
			"#3 /srv/www/vendor/phpmailer/phpmailer/src/SMTP.php(471): PHPMailer\\PHPMailer\\SMTP->authenticate('noreply@example...', '{S}', 'LOGIN', NULL)"),
		t("dotnet-exception-connection-string", "a .NET exception or log that prints a connection string (text written here)", pw,
			"Unhandled exception. System.ArgumentException: Keyword not supported: 'trustservercertificate '.\n   at Microsoft.Data.SqlClient.SqlConnectionString..ctor(String connectionString)\n   Connection string: Server=sql01;Database=Erp;User Id=erp_app;Password={S};TrustServerCertificate =True",
			"fail: Microsoft.EntityFrameworkCore.Database.Connection[20004]\n      An error occurred using the connection to database 'Billing' on server 'tcp:billing.database.windows.net,1433'. ConnectionString: Server=tcp:billing.database.windows.net;User ID=billing;Password={S};Encrypt=True",
			"Npgsql.NpgsqlException (0x80004005): Failed to connect to 10.1.0.4:5432\n ---> Host=10.1.0.4;Username=orders;Password={S};Database=orders"),
		t("ruby-struct-inspect", "a Ruby inspect of a Struct or object with a password (text written here)", pw,
			"#<struct Settings host=\"db.internal\", user=\"rails\", password=\"{S}\", pool=5>",
			"ArgumentError: invalid credentials\n  /app/lib/ftp_sync.rb:22:in `login'\n  args: #<Net::FTP::Config @host=\"ftp.partner.test\", @user=\"acme\", @passwd=\"{S}\">",
			"[1] pry(main)> Rails.application.credentials.smtp\n=> {:user_name=>\"postmaster@example.test\", :password=>\"{S}\"}"),
		t("elixir-genserver-state", "an Elixir GenServer crash report that prints its state (text written here)", pw,
			"** (EXIT) an exception was raised:\n[error] GenServer MyApp.Mailer terminating\n** (RuntimeError) auth failed\nLast message: :connect\nState: %{relay: \"smtp.example.test\", username: \"mailer\", password: \"{S}\", port: 587}",
			"iex(1)> Application.get_env(:my_app, MyApp.Repo)\n[username: \"postgres\", password: \"{S}\", hostname: \"localhost\", database: \"my_app_dev\"]",
			"[error] Postgrex.Protocol (#PID<0.312.0>) failed to connect: ** (Postgrex.Error) FATAL 28P01 (invalid_password) password authentication failed for user \"app\"\nopts: [hostname: \"pg\", username: \"app\", password: \"{S}\"]"),
		t("swift-dump-output", "a Swift dump() or print of a struct with a secret (text written here)", key,
			"▿ Config\n  - baseURL: https://api.example.test\n  - apiKey: \"{S}\"\n  - timeout: 30.0",
			"Fatal error: Unexpectedly found nil while unwrapping an Optional value\nCredentials(user: \"ios-ci\", token: \"{S}\")",
			"(lldb) po session.configuration.httpAdditionalHeaders\n▿ Optional<Dictionary<AnyHashable, Any>>\n  ▿ some : 1 element\n    ▿ 0 : 2 elements\n      - key : \"Authorization\"\n      - value : Bearer {S}"),
		t("perl-data-dumper", "a Perl Data::Dumper or die message with a password (text written here)", pw,
			"$VAR1 = {\n          'dsn' => 'DBI:mysql:database=crm;host=db',\n          'user' => 'crm',\n          'pass' => '{S}'\n        };",
			"DBI connect('dbname=crm;host=db','crm','{S}') failed: Access denied at /opt/crm/lib/Db.pm line 31.",
			"Net::SMTP: auth failed for relay@example.test with password '{S}' at ./notify.pl line 57."),
		t("haskell-show-record", "a Haskell show of a config record (text written here)", pw,
			"AppConfig {cfgDbHost = \"db\", cfgDbUser = \"app\", cfgDbPassword = \"{S}\", cfgPort = 8080}",
			"*** Exception: SqlError {sqlState = \"28P01\", sqlErrorMsg = \"password authentication failed\"}\nConnectInfo {connectHost = \"pg\", connectPort = 5432, connectUser = \"svc\", connectPassword = \"{S}\", connectDatabase = \"svc\"}",
			"ghci> settings\nSettings {smtpUser = \"alerts\", smtpPass = \"{S}\"}"),
		t("clojure-ex-info-map", "a Clojure ex-info map or REPL value with a secret (text written here)", pw,
			"Execution error (ExceptionInfo) at app.db/connect (db.clj:18).\nconnect failed\n{:dbtype \"postgresql\", :dbname \"app\", :user \"app\", :password \"{S}\", :host \"pg\"}",
			"user=> (:mail config)\n{:host \"smtp.example.test\", :user \"bot\", :pass \"{S}\", :tls true}",
			"clojure.lang.ExceptionInfo: auth failed {:api-key \"{S}\", :status 401}"),
		t("gdb-backtrace-char-args", "a gdb backtrace whose frames show char* arguments (text written here)", pw,
			"#0  0x00007ffff7a4e2f1 in __strlen_avx2 () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x0000555555555a3c in db_connect (host=0x55555555a2a0 \"db.internal\", user=0x55555555a2c0 \"billing\", pass=0x55555555a2e0 \"{S}\") at src/db.c:48\n#2  0x0000555555555c10 in main (argc=1, argv=0x7fffffffe3a8) at src/main.c:21",
			"(gdb) p cfg->smtp_password\n$1 = 0x5555555596b0 \"{S}\"",
			"(gdb) info locals\nbuf = \"AUTH PLAIN\\000\"\npassword = \"{S}\""),
		t("celery-sidekiq-job-args", "a Celery or Sidekiq log that prints a job's arguments (text written here)", pw,
			"[2024-05-02 10:01:02,345: INFO/MainProcess] Task accounts.tasks.create_mailbox[6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0] received\n[2024-05-02 10:01:02,346: DEBUG/MainProcess] args=('jdoe@example.test', '{S}') kwargs={}",
			"2024-05-02T10:01:02.345Z pid=12 tid=2xq class=ProvisionFtpUserJob jid=9b8f7e6d5c4b3a2918273645 INFO: start {\"args\":[\"partner42\",\"{S}\"]}",
			"WARNING: Retrying job SyncCrmJob with args [\"crm-bot\", \"{S}\"] in 32s"),
		t("csharp-record-tostring", "a C# record's ToString in a log (text written here)", pw,
			"info: Startup[0]\n      Loaded SmtpOptions { Host = smtp.example.test, Port = 587, User = alerts, Password = {S} }",
			"DbOptions { Server = sql01, Database = Erp, User = erp, Password = {S}, Pooling = True }",
			"System.InvalidOperationException: Unable to connect: FtpCredentials { Host = ftp.example.test, UserName = acme, Secret = {S} }"),
		// logs that print what they should not
		t("sshd-invalid-user-was-password", "sshd and su logs where a password was typed as the user name (text written here)", b5strong,
			"May  2 10:01:02 web01 sshd[23114]: Invalid user deploy from 10.0.4.15 port 51230\nMay  2 10:01:04 web01 sshd[23114]: Failed password for invalid user {S} from 10.0.4.15 port 51234 ssh2",
			"Failed password for invalid user {S} from 192.168.1.50 port 40022 ssh2",
			"sshd[4412]: Connection closed by invalid user {S} 10.8.0.3 port 55010 [preauth]"),
		t("windows-4625-account-name-password", "a Windows 4625 logon failure whose account name is a password (text written here)", b5strong,
			"An account failed to log on.\n\nSubject:\n\tSecurity ID:\t\tNULL SID\n\nAccount For Which Logon Failed:\n\tSecurity ID:\t\tNULL SID\n\tAccount Name:\t\t{S}\n\tAccount Domain:\t\tCORP\n\nFailure Information:\n\tFailure Reason:\t\tUnknown user name or bad password.",
			"EventID=4625 TargetUserName=\"{S}\" TargetDomainName=\"CORP\" Status=0xc000006d SubStatus=0xc0000064 IpAddress=10.2.3.4",
			"<Data Name=\"TargetUserName\">{S}</Data><Data Name=\"TargetDomainName\">WS-0412</Data>"),
		t("spring-actuator-env-json", "a Spring Boot actuator /env or /configprops response with values shown (text written here)", pw,
			"{\"activeProfiles\":[\"prod\"],\"propertySources\":[{\"name\":\"systemEnvironment\",\"properties\":{\"SPRING_DATASOURCE_PASSWORD\":{\"value\":\"{S}\",\"origin\":\"System Environment Property \\\"SPRING_DATASOURCE_PASSWORD\\\"\"}}}]}",
			"$ curl -s http://10.0.3.4:8081/actuator/env/spring.mail.password\n{\"property\":{\"source\":\"applicationConfig: [classpath:/application-prod.yml]\",\"value\":\"{S}\"}}",
			"\"spring.rabbitmq-org.springframework.boot.autoconfigure.amqp.RabbitProperties\":{\"prefix\":\"spring.rabbitmq\",\"properties\":{\"host\":\"mq\",\"username\":\"app\",\"password\":\"{S}\"}}"),
		t("django-debug-settings-page", "a Django debug page's settings or request META section (text written here)", pw,
			"Settings\nUsing settings module config.settings.staging\nSetting\tValue\nDATABASES\t{'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': 'pg', 'NAME': 'shop', 'PASSWORD': '{S}', 'USER': 'shop'}}",
			"EMAIL_HOST_PASSWORD\t'{S}'\nEMAIL_HOST_USER\t'noreply@example.test'",
			"META\nVariable\tValue\nDJANGO_DB_PASS\t'{S}'\nHOSTNAME\t'web-5f6c'"),
		t("phpinfo-environment-table", "phpinfo() output's Environment or PHP Variables table (text written here)", pw,
			"Environment\nVariable => Value\nHOSTNAME => 7c1e2f3a4b5d\nMYSQL_PASSWORD => {S}\nPHP_VERSION => 8.3.6",
			"$_SERVER['DB_PASSWORD'] => {S}\n$_SERVER['APP_ENV'] => production",
			"<tr><td class=\"e\">SMTP_PASS </td><td class=\"v\">{S} </td></tr>"),
		t("kafka-client-config-values-log", "a Kafka client's config values dump at start-up (text written here)", pw,
			"[main] INFO org.apache.kafka.clients.producer.ProducerConfig - ProducerConfig values:\n\tacks = -1\n\tbootstrap.servers = [broker-1:9093]\n\tsasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username=\"orders\" password=\"{S}\";\n\tsasl.mechanism = PLAIN",
			"\tssl.truststore.password = {S}\n\tssl.truststore.type = JKS",
			"%7|1714644000.123|CONF|rdkafka#producer-1| [thrd:app]: Client configuration:\n%7|1714644000.123|CONF|rdkafka#producer-1| [thrd:app]:   sasl.password = {S}"),
		t("keycloak-admin-event-representation", "a Keycloak admin event whose representation holds a credential (text written here)", pw,
			"2024-05-02 10:01:02,345 DEBUG [org.keycloak.events] (executor-thread-3) operationType=ACTION, realmId=acme, resourcePath=users/5f1e.../reset-password, representation={\"type\":\"password\",\"value\":\"{S}\",\"temporary\":true}",
			"{\"time\":1714644062345,\"operationType\":\"CREATE\",\"resourceType\":\"USER\",\"representation\":\"{\\\"username\\\":\\\"jdoe\\\",\\\"credentials\\\":[{\\\"type\\\":\\\"password\\\",\\\"value\\\":\\\"{S}\\\"}]}\"}",
			"kcadm.sh set-password -r acme --username jdoe --new-password {S} --temporary"),
		t("mongodb-log-command-filter", "a MongoDB slow query or profiler log with a plaintext password in the filter (text written here)", pw,
			"{\"t\":{\"$date\":\"2024-05-02T10:01:02.345+00:00\"},\"s\":\"I\",\"c\":\"COMMAND\",\"id\":51803,\"ctx\":\"conn42\",\"msg\":\"Slow query\",\"attr\":{\"type\":\"command\",\"ns\":\"app.users\",\"command\":{\"find\":\"users\",\"filter\":{\"email\":\"jdoe@example.test\",\"password\":\"{S}\"}},\"durationMillis\":312}}",
			"db.system.profile: { op: 'update', ns: 'crm.integrations', command: { q: { _id: 7 }, u: { $set: { apiSecret: '{S}' } } } }",
			"mongosh> db.users.find({username: 'admin', pass: '{S}'})"),
		t("mqtt-client-debug-connect", "an MQTT client's debug log of its CONNECT (text written here)", pw,
			"DEBUG:paho.mqtt.client:Sending CONNECT (u1, p1, wr0, wq0, wf0, c1, k60) client_id=b'sensor-07' username=b'sensor' password=b'{S}'",
			"mqtt.js: connect options { clientId: 'dash_4f1a', username: 'dashboard', password: '{S}', keepalive: 60 }",
			"[MQTT] connecting to tcp://broker.example.test:1883 as 'telegraf' / '{S}'"),
		t("websocket-frame-auth-message", "a WebSocket frame log of an auth message (text written here)", key,
			"⬆ {\"op\":\"auth\",\"args\":[\"k8Yz2\",\"{S}\"]}\n⬇ {\"event\":\"auth\",\"success\":true}",
			"[ws] > {\"type\":\"connection_init\",\"payload\":{\"authToken\":\"{S}\"}}",
			"socket.io send 42[\"authenticate\",{\"token\":\"{S}\"}]"),
		t("graphql-login-variables-log", "a GraphQL request log with the login mutation's variables (text written here)", pw,
			"POST /graphql {\"operationName\":\"Login\",\"variables\":{\"email\":\"jdoe@example.test\",\"password\":\"{S}\"},\"query\":\"mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { token } }\"}",
			"apollo-server: [Login] variables={ email: 'qa@example.test', password: '{S}' } duration=42ms",
			"query: mutation { createServiceAccount(name: \"ci\", secret: \"{S}\") { id } }"),
		t("soap-wsse-username-token", "a SOAP request with a WS-Security UsernameToken in PasswordText (text written here)", pw,
			"<soapenv:Header>\n  <wsse:Security xmlns:wsse=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd\">\n    <wsse:UsernameToken>\n      <wsse:Username>erp_gateway</wsse:Username>\n      <wsse:Password Type=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">{S}</wsse:Password>\n    </wsse:UsernameToken>\n  </wsse:Security>\n</soapenv:Header>",
			"DEBUG org.apache.cxf: Outbound Message\n---------------------------\nPayload: <soap:Envelope><soap:Header><wsse:Security><wsse:UsernameToken><wsse:Username>ws</wsse:Username><wsse:Password>{S}</wsse:Password></wsse:UsernameToken></wsse:Security></soap:Header>",
			"<ns1:Login><ns1:user>integration</ns1:user><ns1:pass>{S}</ns1:pass></ns1:Login>"),
		t("smtp-auth-login-exchange", "an SMTP AUTH LOGIN dialogue with the base64 password line (text written here)", b64pw,
			"C: EHLO client.example.test\nS: 250-smtp.example.test\nS: 250 AUTH LOGIN PLAIN\nC: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: bm9yZXBseUBleGFtcGxlLnRlc3Q=\nS: 334 UGFzc3dvcmQ6\nC: {S}\nS: 235 2.7.0 Authentication successful",
			"swaks --auth LOGIN --server smtp.example.test -au alerts\n<~  334 UGFzc3dvcmQ6\n ~> {S}\n<~  235 Authentication succeeded",
			"openssl s_client -starttls smtp -connect smtp.example.test:587\n...\n334 UGFzc3dvcmQ6\n{S}\n235 2.7.0 Accepted"),
		t("pop3-imap-plaintext-dialogue", "a POP3 or IMAP session transcript with the password command (text written here)", pw,
			"+OK POP3 server ready\nUSER jdoe\n+OK\nPASS {S}\n+OK Logged in.\nSTAT\n+OK 3 4812",
			"* OK [CAPABILITY IMAP4rev1] Dovecot ready.\na1 LOGIN jdoe \"{S}\"\na1 OK Logged in",
			"telnet mail.example.test 110\nUSER backup\n+OK\nPASS {S}\n-ERR [AUTH] Authentication failed."),
		t("irc-nickserv-identify", "an IRC client log or config with NickServ IDENTIFY (text written here)", pw,
			"[10:01] -!- Irssi: Connection to irc.libera.chat established\n[10:01] /msg NickServ IDENTIFY jdoe {S}\n[10:01] -NickServ- You are now identified for jdoe.",
			"/msg nickserv identify {S}",
			"perform = PRIVMSG NickServ :IDENTIFY {S}"),
		// CI output
		t("azure-pipelines-setvariable-log", "an Azure Pipelines log with a ##vso setvariable that is not secret (text written here)", pw,
			"##[section]Starting: Fetch credentials\n##[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/3f1e.sh\n##vso[task.setvariable variable=DB_PASS]{S}\n##[section]Finishing: Fetch credentials",
			"echo \"##vso[task.setvariable variable=apiToken;isOutput=true]{S}\"",
			"2024-05-02T10:01:02.3456789Z ##vso[task.setvariable variable=SQL_SA_PASSWORD;issecret=false]{S}"),
		t("github-actions-set-output-log", "a GitHub Actions log with the old ::set-output or GITHUB_OUTPUT lines (text written here)", key,
			"Run echo \"::set-output name=token::{S}\"\n##[debug]steps.creds.outputs.token set",
			"2024-05-02T10:01:02.3456789Z + echo 'registry_password={S}' >> /home/runner/work/_temp/_runner_file_commands/set_output_2b1f",
			"Warning: The `set-output` command is deprecated and will be disabled soon.\n##[debug]Set output api_key = {S}"),
		t("teamcity-service-message-param", "a TeamCity build log with a ##teamcity setParameter service message (text written here)", pw,
			"[10:01:02] : [Step 2/4] ##teamcity[setParameter name='env.DEPLOY_PASSWORD' value='{S}']",
			"##teamcity[setParameter name='system.nexus.password' value='{S}']",
			"[Step 1/3] Setting parameter env.SIGNING_KEY_PASS = {S}"),
		t("github-env-file-append-echo", "a CI log echoing a secret into GITHUB_ENV or a dotenv artifact (text written here)", pw,
			"Run echo \"PGPASSWORD={S}\" >> \"$GITHUB_ENV\"\nshell: /usr/bin/bash -e {0}",
			"$ echo \"DEPLOY_TOKEN={S}\" >> deploy.env\nUploading artifacts...\ndeploy.env: found 1 matching artifact files and directories",
			"+ echo 'SMTP_PASS={S}'\n+ tee -a .env"),
		t("mvn-debug-settings-dump", "Maven -X debug output that prints servers and proxy passwords (text written here)", pw,
			"[DEBUG] Reading user settings from /home/ci/.m2/settings.xml\n[DEBUG] Using mirror nexus (https://nexus.example.test/repository/maven-public/) for central\n[DEBUG] Repository releases: authentication: username=deployer, password={S}",
			"[DEBUG] Configuring mojo org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy\n[DEBUG]   (f) proxyPassword = {S}",
			"[DEBUG] -Dsonar.login=squ_4f1a... -Dsonar.password={S}"),
		t("tf-log-trace-http-authorization", "TF_LOG=TRACE output with a provider's HTTP request headers (text written here)", key,
			"2024-05-02T10:01:02.345Z [DEBUG] provider.terraform-provider-acme_v1.4.0: HTTP Request Begin: tf_http_op_type=request tf_http_req_method=GET tf_http_req_uri=/v1/projects Authorization=\"Bearer {S}\" User-Agent=terraform-provider-acme/1.4.0",
			"---[ REQUEST ]---------------------------------------\nGET /api/v2/zones HTTP/1.1\nHost: dns.example.test\nX-Auth-Key: {S}\nAccept-Encoding: gzip",
			"[TRACE] provider.stdio: received data from plugin: data=\"\\\"api_token\\\": \\\"{S}\\\"\""),
		t("kubectl-v9-curl-bearer", "kubectl -v=8 or -v=9 output with the request's bearer token (text written here)", func(g *gen) string {
			return b5jwt("RS256", fmt.Sprintf(`{"aud":["https://kubernetes.default.svc"],"exp":%d,"iss":"https://kubernetes.default.svc","kubernetes.io":{"namespace":"ci","serviceaccount":{"name":"deployer"}},"sub":"system:serviceaccount:ci:deployer"}`, 1800000000+g.rng.IntN(9e7)))(g)
		},
			"I0502 10:01:02.345678   41233 round_trippers.go:466] curl -v -XGET  -H \"Accept: application/json\" -H \"Authorization: Bearer {S}\" 'https://10.0.0.1:6443/api/v1/namespaces/ci/pods?limit=500'",
			"I0502 10:01:02.345678   41233 round_trippers.go:473]     Authorization: Bearer {S}",
			"helm --debug upgrade api ./chart\nI0502 10:01:02 request.go:1212] Request Headers:\n    Authorization: Bearer {S}"),
		// history files
		t("zsh-extended-history", "a zsh extended history file (text written here)", pw,
			": 1714644000:0;mysql -h db.internal -u admin -p'{S}' shop\n: 1714644021:0;exit",
			": 1714644100:3;export DB_PASSWORD={S}\n: 1714644110:0;npm run migrate",
			"$ tail -3 ~/.zsh_history\n: 1714644200:0;git pull\n: 1714644210:0;sshpass -p '{S}' ssh ops@10.0.4.2\n: 1714644300:0;ls"),
		t("fish-history-yaml", "a fish shell history file (text written here)", pw,
			"- cmd: psql \"postgresql://app:{S}@pg.internal/app\"\n  when: 1714644000\n- cmd: exit\n  when: 1714644040",
			"- cmd: set -gx API_TOKEN {S}\n  when: 1714644100",
			"- cmd: curl -u admin:{S} https://jenkins.example.test/api/json\n  when: 1714644200\n  paths:\n    - /tmp"),
		t("psreadline-history-file", "PowerShell's ConsoleHost_history.txt (text written here)", pw,
			"cd C:\\deploy\n$pw = ConvertTo-SecureString '{S}' -AsPlainText -Force\nNew-LocalUser -Name svc_backup -Password $pw",
			"Invoke-Sqlcmd -ServerInstance sql01 -Username sa -Password '{S}' -Query 'select 1'",
			"$cred = New-Object PSCredential('CORP\\svc_deploy', (ConvertTo-SecureString \"{S}\" -AsPlainText -Force))\nEnter-PSSession -ComputerName web02 -Credential $cred"),
		t("mysql-history-octal-spaces", "~/.mysql_history, which writes a space as \\040 (text written here)", func(g *gen) string { return g.s(alnum+"!#%@", 14) },
			"_HiStOrY_V2_\nshow\\040databases;\nCREATE\\040USER\\040'report'@'%'\\040IDENTIFIED\\040BY\\040'{S}';\nexit",
			"ALTER\\040USER\\040'root'@'localhost'\\040IDENTIFIED\\040BY\\040'{S}';",
			"SET\\040PASSWORD\\040FOR\\040'app'@'%'\\040=\\040'{S}';\nflush\\040privileges;"),
		t("repl-history-files", "Python, Node or redis-cli REPL history files (text written here)", pw,
			"$ cat ~/.python_history\nimport requests\ns = requests.Session()\ns.auth = ('api', '{S}')\ns.get('https://api.example.test/health')",
			"$ cat ~/.rediscli_history\nAUTH {S}\nKEYS session:*\nTTL session:4f1e",
			"$ tail ~/.node_repl_history\nconst c = new Client({ password: '{S}' })\nawait c.connect()"),
		t("viminfo-yank-register", "a .viminfo file's registers holding yanked text (text written here)", key,
			"# Registers:\n\"0\tLINE\t0\n\tAPI_TOKEN={S}",
			"\"1\tLINE\t0\n\t  password: {S}",
			"# Registers:\n\"\"-\tCHAR\t0\n\t{S}"),
		t("clipboard-manager-history", "a clipboard manager's history export (text written here)", b5strong,
			"[{\"text\":\"https://example.test/docs\",\"time\":1714644000},{\"text\":\"{S}\",\"time\":1714644060,\"app\":\"1Password\"}]",
			"CopyQ item 3: {S}",
			"#2 — 10:01 — Slack\n{S}"),
	}
}

// --- wrapped: secrets under encodings, wrappings and markups ---

func b5Wrapped() []b3Kind {
	w := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b5t("wrapped", name, source, body, texts...)
	}
	we := func(name, source string, plain func(*gen) string, enc func(*gen, string) string, texts ...string) b3Kind {
		return b5e("wrapped", name, source, plain, enc, texts...)
	}
	pw, key := b5pw, b5apikey
	apptok := func(g *gen) string { return g.pick("live_", "tok_", "prod-", "svc.") + g.s(alnum, 32) }
	longtok := func(g *gen) string { return g.s(alnum, 24) + g.s(b64url, 40) }
	hexEnc := func(_ *gen, s string) string { return b5hexOf(s) }
	b64Enc := func(_ *gen, s string) string { return b5b64(s) }
	credJSON := func(g *gen) string {
		return fmt.Sprintf(`{"user":"%s","password":"%s"}`, g.pick("svc_sync", "etl", "reporting", "partner"), b5pw(g))
	}
	return []b3Kind{
		b5f("wrapped", "hex-token-in-sql-blob-output", "a token stored as a blob and printed as hex by psql (bytea), MySQL HEX() or sqlite .dump (text written here)", 3, func(g *gen, i int) (string, string) {
			h := b5hexOf(apptok(g))
			switch i {
			case 0:
				return "app=# select id, token from api_tokens where id = 7;\n id |                                   token\n----+---------------------------------------------------------------------------\n  7 | \\x" + h + "\n(1 row)", h
			case 1:
				h = strings.ToUpper(h)
				return "mysql> SELECT HEX(secret) FROM integrations WHERE name='partner';\n+------------------+\n| HEX(secret)      |\n+------------------+\n| " + h + " |\n+------------------+\n1 row in set (0.00 sec)", h
			}
			return "sqlite> .dump tokens\nCREATE TABLE tokens(id INTEGER PRIMARY KEY, value BLOB);\nINSERT INTO tokens VALUES(1,X'" + h + "');", h
		}),
		we("base64-json-in-json-log", "base64 of a JSON credential inside a JSON log line or an API gateway event (text written here)", credJSON, b64Enc,
			"{\"level\":\"debug\",\"ts\":\"2024-05-02T10:01:02Z\",\"msg\":\"forwarding\",\"headers\":{\"x-upstream-auth\":\"{S}\"}}",
			"START RequestId: 1f2e3d4c Version: $LATEST\nEVENT {\"httpMethod\":\"POST\",\"path\":\"/sync\",\"isBase64Encoded\":true,\"body\":\"{S}\"}",
			"{\"@timestamp\":\"2024-05-02T10:01:02.345Z\",\"message\":\"job queued\",\"job\":{\"payload\":\"{S}\",\"queue\":\"sync\"}}"),
		b5f("wrapped", "email-hard-wrapped-token", "a long token broken by a mail client's line wrap (text written here)", 3, func(g *gen, i int) (string, string) {
			s := b5split(g, longtok(g), "\n")
			return []string{
				"Hi Sam,\n\nas discussed, the integration token for the partner portal is " + s + "\n\nplease store it in the vault and delete this mail.\n\nBest,\nRita",
				"Subject: access for the reporting job\n\nHere it is:\n" + s + "\n\n-- \nOps team",
				"> can you send me the key again?\n\nSure, here it is:\n" + s + "\nThanks",
			}[i], s
		}),
		b5f("wrapped", "email-quoted-reply-wrapped-token", "a token wrapped inside a quoted reply, the second half after the quote marker (text written here)", 3, func(g *gen, i int) (string, string) {
			s := b5split(g, longtok(g), "\n> ")
			return []string{
				"On Thu, May 2, 2024 at 10:01 AM Rita <rita@example.test> wrote:\n> the token for the partner portal is " + s + "\n> regards\n\nGot it, thanks!",
				"> > here's the deploy key: " + s + "\n> works, thanks\nok closing the ticket",
				"----- Original Message -----\n> API key (prod): " + s + "\n> Please rotate after the migration.",
			}[i], s
		}),
		we("qp-soft-break-password", "quoted-printable mail whose soft line break falls inside the password (text written here)", func(g *gen) string { return b5pw(g) + "=" + g.s(alnum, 4) }, b5qpSoft,
			"Content-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: quoted-printable\n\nYour temporary password is {S}\n\nPlease change it after the first login.",
			"MIME-Version: 1.0\nContent-Transfer-Encoding: quoted-printable\n\nLogin: jdoe=0APassword: {S}=0A",
			"Content-Transfer-Encoding: quoted-printable\n\nHallo, das neue Passwort lautet {S} =E2=80=93 bitte =C3=A4ndern."),
		w("url-fragment-spa-route-key", "a key in a single-page app's hash route (text written here)", key,
			"https://dash.example.test/#/connect?key={S}&region=eu",
			"open this to pair the device: https://pair.example.test/#code={S}",
			"Share link: https://notes.example.test/n/8f3a2c#{S}"),
		w("data-uri-text-plain-token", "a token in a data:text/plain URI (text written here)", apptok,
			"<a href=\"data:text/plain;charset=utf-8,{S}\" download=\"token.txt\">download your token</a>",
			"window.open('data:text/plain,{S}')",
			"saved as data:text/plain;charset=utf-8,{S}"),
		w("html-table-td-credentials", "credentials in an HTML table of an email or wiki export (text written here)", pw,
			"<table><tr><th>System</th><th>User</th><th>Password</th></tr><tr><td>ERP</td><td>f.bianchi</td><td>{S}</td></tr></table>",
			"<tr>\n  <td>staging DB</td>\n  <td>app</td>\n  <td><code>{S}</code></td>\n</tr>",
			"<td class=\"confluenceTd\">VPN</td><td class=\"confluenceTd\">{S}</td>"),
		w("confluence-wiki-table-markup", "a Confluence or Jira wiki markup table with a secret cell (text written here)", pw,
			"||Environment||User||Password||\n|prod|admin|{S}|\n|staging|admin|see vault|",
			"||Service||Token||\n|Grafana|{noformat}{S}{noformat}|",
			"|*SFTP*|partner42|{S}|"),
		b5f("wrapped", "org-asciidoc-rst-table-cell", "a secret in an Org, AsciiDoc or reStructuredText table (text written here)", 3, func(g *gen, i int) (string, string) {
			s := b5pw(g)
			return []string{
				"| host      | user | pass |\n|-----------+------+------|\n| nas.local | root | " + s + " |",
				"[cols=\"1,1,2\"]\n|===\n|System |User |Password\n\n|Jenkins\n|admin\n|" + s + "\n|===",
				"+---------+-------+----------------------+\n| Service | User  | Password             |\n+=========+=======+======================+\n| MQ      | app   | " + s + " |\n+---------+-------+----------------------+",
			}[i], s
		}),
		w("diff-hunk-added-line", "a diff hunk whose added line holds a secret (text written here)", pw,
			"diff --git a/.env.staging b/.env.staging\nindex 3f1e2d4..8a7b6c5 100644\n--- a/.env.staging\n+++ b/.env.staging\n@@ -3,4 +3,5 @@ APP_ENV=staging\n DB_HOST=pg.staging\n DB_USER=app\n+DB_PASSWORD={S}\n LOG_LEVEL=info",
			"@@ -12,6 +12,7 @@ smtp:\n   host: smtp.example.test\n   port: 587\n+  password: \"{S}\"\n   user: alerts",
			"+    client.login(\"svc_report\", \"{S}\")\n     client.fetch_all()"),
		w("diff-hunk-removed-line", "a diff hunk whose removed line holds the secret being taken out (text written here)", key,
			"diff --git a/config/settings.py b/config/settings.py\n--- a/config/settings.py\n+++ b/config/settings.py\n@@ -40,7 +40,7 @@\n-MAPS_API_KEY = \"{S}\"\n+MAPS_API_KEY = os.environ[\"MAPS_API_KEY\"]",
			"@@ -1,3 +1,3 @@\n-token: {S}\n+token: ${TOKEN}\n endpoint: https://api.example.test",
			"-  \"apiKey\": \"{S}\",\n+  \"apiKey\": process.env.API_KEY,"),
		w("git-format-patch-email", "a git format-patch mail that adds a secret (text written here)", pw,
			"From 4f1e2d3c5b6a79881726354433221100ffeeddcc Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.test>\nDate: Thu, 2 May 2024 10:01:02 +0200\nSubject: [PATCH] add ftp upload\n\n---\n upload.sh | 2 ++\n 1 file changed, 2 insertions(+)\n\ndiff --git a/upload.sh b/upload.sh\n--- a/upload.sh\n+++ b/upload.sh\n@@ -1,2 +1,4 @@\n #!/bin/sh\n+lftp -u partner,{S} sftp://ftp.partner.test\n+# TODO move to vault",
			"Subject: [PATCH v2 3/7] ci: log in to the registry\n\n+  - docker login -u ci -p {S} registry.example.test",
			"Subject: [PATCH] tests: fixture account\n\n+TEST_ADMIN_PASSWORD = '{S}'"),
		w("diff-side-by-side", "diff -y side-by-side output with a changed secret (text written here)", pw,
			"DB_USER=app\t\t\t\t\t\t\tDB_USER=app\nDB_PASSWORD=old\t\t\t\t\t\t      |\tDB_PASSWORD={S}\nDB_HOST=pg\t\t\t\t\t\t\tDB_HOST=pg",
			"password: changeme\t\t\t\t\t      |\tpassword: {S}",
			"  token = \"\"\t\t\t\t\t\t      |\t  token = \"{S}\""),
		w("ansi-escape-wrapped-token", "a token between terminal colour escapes in captured output (text written here)", apptok,
			"\x1b[32m✔\x1b[0m Token created: \x1b[1m{S}\x1b[0m\n\x1b[33mStore it now, it will not be shown again.\x1b[0m",
			"\x1b[0;36mINFO\x1b[0m  new api key \x1b[1;37m{S}\x1b[0m",
			"Your key: \u001b[7m{S}\u001b[27m"),
		we("auditd-execve-hex-arg", "an auditd EXECVE record, which writes arguments with special characters as hex (text written here)", func(g *gen) string {
			return g.pick("--password=", "-p", "PGPASSWORD=") + b5pw(g) + g.pick("!", "$", " x")
		}, hexEnc,
			"type=EXECVE msg=audit(1714644062.345:8812): argc=5 a0=\"mysql\" a1=\"-u\" a2=\"root\" a3={S} a4=\"shop\"",
			"type=EXECVE msg=audit(1714644100.001:9001): argc=3 a0=\"/usr/bin/env\" a1={S} a2=\"psql\"",
			"node=web01 type=EXECVE msg=audit(1714644200.777:9100): argc=4 a0=\"sqlcmd\" a1=\"-U\" a2=\"sa\" a3={S}"),
		we("php-serialize-password", "PHP serialize() output with a password string (text written here)", pw, func(_ *gen, s string) string {
			return fmt.Sprintf("s:%d:\"%s\";", len(s), s)
		},
			"a:3:{s:4:\"host\";s:9:\"localhost\";s:4:\"user\";s:4:\"root\";s:8:\"password\";{S}}",
			"O:8:\"stdClass\":2:{s:5:\"login\";s:5:\"admin\";s:6:\"secret\";{S}}",
			"wp_options row 1412: option_name=smtp_settings option_value=a:2:{s:4:\"user\";s:6:\"mailer\";s:4:\"pass\";{S}}"),
		we("go-byte-slice-decimal", "a Go []byte printed with %v, the secret's bytes as decimal numbers (text written here)", pw, func(_ *gen, s string) string {
			return strings.Trim(fmt.Sprint([]byte(s)), "[]")
		},
			"2024/05/02 10:01:02 debug: password bytes: [{S}]",
			"config.Secret = [{S}]",
			"(dlv) p cfg.Key\n[]uint8 len: 16, cap: 16, [{S}]"),
		we("node-buffer-inspect", "a Node.js Buffer printed by console.log (text written here)", pw, func(_ *gen, s string) string {
			return b3codes(s, " ", "%02x")
		},
			"> Buffer.from(process.env.DB_PASS)\n<Buffer {S}>",
			"console.log({ secret }) -> { secret: <Buffer {S}> }",
			"debug: signing key <Buffer {S}>"),
		we("ldif-userpassword-base64", "an LDIF entry with userPassword:: as base64 of a clear password (text written here)", pw, b64Enc,
			"dn: uid=jdoe,ou=people,dc=example,dc=test\nobjectClass: inetOrgPerson\nuid: jdoe\ncn: Jane Doe\nuserPassword:: {S}",
			"$ ldapsearch -x -b dc=example,dc=test uid=svc_wiki userPassword\n# svc_wiki, services, example.test\ndn: uid=svc_wiki,ou=services,dc=example,dc=test\nuserPassword:: {S}",
			"changetype: modify\nreplace: userPassword\nuserPassword:: {S}"),
		b5f("wrapped", "od-c-char-dump", "od -c output of a file holding a password, one character every four columns (text written here)", 3, func(g *gen, i int) (string, string) {
			p := g.s(alnum+"!#%", 12+g.rng.IntN(4))
			s := strings.Join(strings.Split(p, ""), "   ")
			return []string{
				"$ od -c /run/secrets/db_password\n0000000   " + s + "  \\n\n00000" + fmt.Sprintf("%02o", len(p)+1),
				"$ od -An -c .pgpass-line\n   " + s,
				"od -c token.txt\n0000000   " + s,
			}[i], s
		}),
		w("gron-assignment", "gron output of a JSON config (text written here)", pw,
			"$ gron config.json\njson = {};\njson.database = {};\njson.database.host = \"pg\";\njson.database.password = \"{S}\";",
			"json.services[2].auth.token = \"{S}\";",
			"json[\"smtp\"][\"pass\"] = \"{S}\";"),
		w("sql-copy-stdin-row", "a pg_dump COPY block whose tab-separated rows hold a plaintext password (text written here)", pw,
			"COPY public.integrations (id, name, username, password) FROM stdin;\n1\tftp-partner\tpartner42\t{S}\n\\.",
			"COPY public.smtp_accounts (id, host, login, secret) FROM stdin;\n3\tsmtp.example.test\talerts\t{S}\n\\.",
			"COPY settings (key, value) FROM stdin;\nmail.password\t{S}\n\\."),
		we("csv-doubled-quote-field", "a CSV export whose quoted field doubles a quote inside the password (text written here)", func(g *gen) string {
			p := b5pw(g)
			at := 2 + g.rng.IntN(len(p)-3)
			return p[:at] + "\"" + p[at:]
		}, func(_ *gen, s string) string { return strings.ReplaceAll(s, "\"", "\"\"") },
			"name,url,username,password\n\"Router\",\"http://192.168.1.1\",\"admin\",\"{S}\"",
			"\"title\";\"login\";\"pass\"\n\"NAS\";\"root\";\"{S}\"",
			"id,system,user,password,notes\n7,erp,f.bianchi,\"{S}\",\"temporary\""),
		w("xml-cdata-password", "a password inside an XML CDATA section (text written here)", pw,
			"<datasource>\n  <user>app</user>\n  <password><![CDATA[{S}]]></password>\n</datasource>",
			"<credential name=\"smtp\"><![CDATA[{S}]]></credential>",
			"<add key=\"ApiSecret\"><value><![CDATA[{S}]]></value></add>"),
		w("protobuf-text-format", "a protobuf text-format config with a secret field (text written here)", key,
			"credentials {\n  client_id: \"sync-worker\"\n  client_secret: \"{S}\"\n}",
			"auth { api_key: \"{S}\" scopes: \"read\" }",
			"# proto-file: config.proto\n# proto-message: Config\nupstream { url: \"https://api.example.test\" token: \"{S}\" }"),
		b5f("wrapped", "toml-backslash-continued-string", "a TOML multi-line string whose line-ending backslash splits a token (text written here)", 3, func(g *gen, i int) (string, string) {
			s := b5split(g, longtok(g), "\\\n    ")
			return []string{
				"[auth]\ntoken = \"\"\"\n    " + s + "\"\"\"",
				"[service.upstream]\napi_key = \"\"\"" + s + "\"\"\"",
				"secret = \"\"\"\\\n    " + s + "\\\n    \"\"\"",
			}[i], s
		}),
		b5f("wrapped", "shell-backslash-newline-split", "a shell command whose backslash-newline cuts a secret in two (text written here)", 3, func(g *gen, i int) (string, string) {
			s := b5split(g, longtok(g), "\\\n")
			return []string{
				"export API_TOKEN=" + s + "\n./deploy.sh",
				"curl -s https://api.example.test/v1/jobs \\\n  -H \"Authorization: Bearer " + s + "\"",
				"docker run -e SECRET=" + s + " acme/worker",
			}[i], s
		}),
		we("base64-of-hex-key", "base64 of the hex form of a random key (text written here)", func(g *gen) string { return g.s(hexlc, 32) }, b64Enc,
			"ENCRYPTION_KEY_B64={S}",
			"\"signingKey\": \"{S}\"",
			"kubectl create secret generic enc --from-literal=key={S}"),
		we("mime-base64-body-email", "an email whose base64 body is a short message holding a password (text written here)", func(g *gen) string {
			return g.pick("Your temporary password: ", "Passwort: ", "Mot de passe : ", "Password nuova: ") + b5pw(g) + "\n"
		}, b64Enc,
			"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n{S}",
			"--b1_4f1e2d3c\nContent-Type: text/plain; charset=\"UTF-8\"\nContent-Transfer-Encoding: base64\n\n{S}\n--b1_4f1e2d3c--",
			"Content-Transfer-Encoding: BASE64\n\n{S}"),
		w("html-input-value-attribute", "a password in an HTML input's value attribute (text written here)", pw,
			"<input type=\"password\" name=\"pass\" value=\"{S}\" autocomplete=\"off\">",
			"<form action=\"/login\" method=\"post\"><input name=\"user\" value=\"admin\"><input name=\"pwd\" type=\"hidden\" value=\"{S}\"></form>",
			"document.querySelector('#password').value = '{S}';"),
		w("rtf-latex-document-password", "a password in an RTF or LaTeX document's source (text written here)", pw,
			"{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Calibri;}}\\f0\\fs22 Zugang Kundenportal\\par Benutzer: kunde77\\par Passwort: {S}\\par}",
			"\\section*{Zugangsdaten}\nBenutzer: \\texttt{admin}\\\\\nKennwort: \\texttt{{S}}",
			"{\\rtf1 VPN\\tab jdoe\\tab {S}\\par}"),
		w("html-details-collapsed", "a secret hidden in a collapsed details block of a README or issue (text written here)", key,
			"<details><summary>credentials (click)</summary>\n\n`{S}`\n\n</details>",
			"<details>\n<summary>staging token</summary>\n{S}\n</details>",
			"<!-- token for CI: {S} -->"),
	}
}

// --- negatives: risky-looking lines with no secret ---

// blind5Negatives are ordinary lines that look risky and hold no secret: commit ids in commit
// context, UUIDs, content hashes named as such, lockfile checksums, image digests, base64 of
// ordinary text in docs, long identifiers, URLs without credentials, paths, versions,
// cryptographic parameter names, CSS colours, placeholders, and sentences in the corpus's
// languages about passwords that give none.
func blind5Negatives() []string {
	out := []string{
		// placeholders and references
		"export API_KEY=<your-token>",
		"Authorization: Bearer <access_token>",
		"OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx",
		"password: ${DB_PASSWORD}",
		"token: \"${{ secrets.DEPLOY_TOKEN }}\"",
		"DB_PASSWORD=changeme",
		"admin_password: \"CHANGE_ME\"",
		"api_key = \"YOUR_API_KEY_HERE\"",
		"secret: {{ .Values.auth.existingSecret }}",
		"password = %(DB_PASSWORD)s",
		"set PGPASSWORD=%PGPASSWORD%",
		"token=$(cat /run/secrets/registry_token)",
		"password: !vault |",
		"\"password\": \"********\"",
		"Password: [REDACTED]",
		"client_secret: <redacted>",
		"API_TOKEN=REPLACE_ME",
		"apiKey: process.env.MAPS_API_KEY ?? \"\"",
		"auth_token = os.environ.get(\"AUTH_TOKEN\", \"\")",
		"Token: (stored in 1Password, item \"CI registry\")",
		"password_file: /etc/app/db_password",
		"--password-stdin < ~/.registry-pass",
		"vault kv get -field=password secret/prod/db",
		"op read \"op://Engineering/Prod DB/password\"",
		"bw get password github.com",
		"doppler secrets get STRIPE_KEY --plain",
		"SetCredential= and LoadCredential= are documented in systemd.exec(5).",
		"key: xxxx-xxxx-xxxx-xxxx",
		"license key: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX",
		"PIN: ****",
		"passphrase: \"\"",
		"password=",
		"token: null",
		"secret: ~",
		"api_key: TODO",
		// cryptographic parameter names, algorithms, no values
		"cipher: AES-256-GCM, nonce size 96 bits, tag size 128 bits",
		"KDF: PBKDF2-HMAC-SHA256, iterations=600000, salt length 16 bytes",
		"token_endpoint_auth_method: client_secret_basic",
		"grant_type=refresh_token&client_id=cli",
		"Signature algorithm: ecdsa-with-SHA256",
		"Public-Key: (2048 bit)",
		"ssh-keygen -t ed25519 -a 100 -f ~/.ssh/id_deploy",
		"openssl genpkey -algorithm X25519 -out x25519.pem",
		"-----BEGIN CERTIFICATE REQUEST----- blocks are public, send them to the CA",
		"kty, crv, x and y are the public members of an EC JWK; d is the private one",
		"HMAC-SHA256(key, message) is computed over the canonical request",
		"argon2id m=65536, t=3, p=4",
		"bcrypt cost factor 12",
		"scrypt N=32768 r=8 p=1",
		"The secret_id_ttl of the AppRole is 24h and the token_ttl 1h.",
		"encrypt = true in consul.hcl turns on gossip encryption",
		"ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;",
		"TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256",
		"auth_type PASS is deprecated in keepalived; use AH or nothing",
		// URLs without credentials, paths, versions
		"https://docs.example.com/guides/authentication#api-keys",
		"https://github.com/acme/platform/blob/main/docs/secrets.md",
		"https://accounts.example.test/oauth/authorize?response_type=code&client_id=web&redirect_uri=https%3A%2F%2Fapp.example.test%2Fcallback&scope=openid",
		"https://api.example.test/v2/users?page=3&per_page=100&sort=created_at",
		"git@github.com:acme/infra.git",
		"postgres://localhost:5432/app_test",
		"redis://cache:6379/0",
		"ws://localhost:3000/socket?room=lobby",
		"/etc/ssl/private/",
		"~/.config/gh/hosts.yml",
		"C:\\Users\\build\\AppData\\Roaming\\NuGet\\NuGet.Config",
		"/var/lib/kubelet/pods/3f1e2d4c/volumes/kubernetes.io~secret/",
		"~/.docker/config.json holds auths; use a credential helper instead",
		"/home/dev/.local/share/keyrings/login.keyring",
		"v1.28.4-eks-8cb36c9",
		"v2.14.0-rc.3+build.20240502",
		"go1.22.3 linux/amd64",
		"node v20.12.2 (npm v10.5.0)",
		"Python 3.12.3 (main, Apr 10 2024, 05:33:47) [GCC 13.2.0]",
		"openjdk 21.0.3 2024-04-16 LTS",
		"terraform v1.8.2 on linux_amd64",
		"ansible [core 2.16.6]",
		"Docker version 26.1.1, build 4cf5afa",
		// long identifiers
		"getUserPasswordResetTokenExpiry(userId)",
		"max_refresh_token_lifetime_seconds = 2592000",
		"AbstractSecretKeyProviderFactoryBean",
		"ERR_INVALID_CLIENT_SECRET_FORMAT",
		"useOAuthDeviceAuthorizationGrantFlow",
		"test_password_reset_email_contains_link_not_password",
		"TokenBucketRateLimiterConfigurationBuilder",
		"kubernetesServiceAccountTokenVolumeProjection",
		"spring.security.oauth2.client.registration.github.client-secret",
		"should_rotate_api_key_when_compromised",
		// CSS
		"color: #1a2b3c; background: #f0e1d2;",
		"--brand-primary: #3a86ff; --brand-secondary: #8338ec;",
		"border: 1px solid #deadbe;",
		".btn-danger { background-color: #dc3545; }",
		"box-shadow: 0 0 0 3px rgba(13, 110, 253, 0.25);",
		// base64 of ordinary text in docs
		"`aGVsbG8gd29ybGQ=` is the base64 of \"hello world\".",
		"echo 'Zm9vYmFy' | base64 -d prints foobar",
		"The header value is base64(\"user:pass\") — see RFC 7617 for the scheme.",
		"data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7",
		"The JWT header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 decodes to {\"alg\":\"HS256\",\"typ\":\"JWT\"}.",
		"Q29uZmlnIHJlbG9hZGVk decodes to \"Config reloaded\".",
		// sentences about passwords without a value, many languages
		"Reset your password in Settings → Security.",
		"Never share your API key in chat, use the vault instead.",
		"The token was rotated yesterday; the new one is in the vault.",
		"If you forgot your password, click \"Forgot password\" on the sign-in page.",
		"Passwords must be at least 14 characters long.",
		"Ask Maria for access to the shared vault, I can't send it here.",
		"La password è nel gestore delle password, chiedi a Luca l'accesso.",
		"Reimposta la password dalle impostazioni del tuo profilo.",
		"Het wachtwoord staat in de kluis; vraag toegang aan de beheerder.",
		"Wijzig je wachtwoord via Instellingen > Beveiliging.",
		"Hasło zostało wysłane osobnym SMS-em.",
		"Zmień hasło w ustawieniach konta.",
		"Şifrenizi kimseyle paylaşmayın.",
		"Parolanızı ayarlar sayfasından sıfırlayabilirsiniz.",
		"Vui lòng đổi mật khẩu trong phần cài đặt.",
		"Mật khẩu đã được gửi qua email riêng.",
		"Silakan ubah kata sandi Anda di menu pengaturan.",
		"Kata sandi ada di brankas tim, minta akses ke admin.",
		"กรุณาเปลี่ยนรหัสผ่านในหน้าการตั้งค่า",
		"รหัสผ่านอยู่ในตู้เซฟของทีม ขอสิทธิ์จากผู้ดูแล",
		"कृपया सेटिंग्स में जाकर अपना पासवर्ड बदलें।",
		"पासवर्ड टीम वॉल्ट में है, एक्सेस के लिए एडमिन से पूछें।",
		"يرجى تغيير كلمة المرور من صفحة الإعدادات.",
		"كلمة المرور محفوظة في الخزنة، اطلب الصلاحية من المسؤول.",
		"אפשר לאפס את הסיסמה בהגדרות החשבון.",
		"הסיסמה נמצאת בכספת של הצוות.",
		"Змініть пароль у налаштуваннях профілю.",
		"Пароль надіслано окремим повідомленням.",
		"Heslo si změňte v nastavení účtu.",
		"Heslo je v trezoru týmu, o přístup požádejte správce.",
		"Byt ditt lösenord under Inställningar.",
		"Lösenordet finns i teamets valv, be om åtkomst.",
		"パスワードを変更してください。",
		"パスワードは別途お送りします。",
		"APIキーはリポジトリにコミットしないでください。",
		"请在设置中修改您的密码。",
		"密码已通过短信单独发送。",
		"비밀번호는 설정 메뉴에서 변경하세요.",
		"비밀번호는 별도로 보내드리겠습니다.",
		"Bitte ändern Sie Ihr Passwort nach der ersten Anmeldung.",
		"Le mot de passe vous sera communiqué par téléphone.",
		"La contraseña se envía en un correo aparte.",
		// logs with no secret
		"Failed password for invalid user admin from 10.0.4.15 port 51234 ssh2",
		"Accepted publickey for deploy from 10.0.4.15 port 51240 ssh2: ED25519 SHA256:Zq9cP0s3kXbYw1mTt5r4e2a8LnJdHhGfVvUuOoIiKk",
		"pam_unix(sudo:auth): authentication failure; logname=dev uid=1000 euid=0 tty=/dev/pts/0 ruser=dev rhost=  user=dev",
		"level=warn msg=\"token expired\" sub=user:48213 exp=1714644000",
		"Login Succeeded",
		"WARNING! Your password will be stored unencrypted in /root/.docker/config.json.",
		"[INFO] BUILD SUCCESS",
		"##[section]Finishing: Fetch credentials",
		"::add-mask::***",
		"Masking supported pattern matches of $PASSWORD",
		"kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d",
		"Secret ID    = <hidden>",
		"Your vault is now unlocked!",
		"Vault password:",
		"Enter passphrase for key '/home/dev/.ssh/id_ed25519':",
		"Password for 'https://git.example.test':",
		"Enter PEM pass phrase:",
		"+ PGPASSWORD=*** psql -h db -U app -c 'select 1'",
		"Authentication failed for user 'ci' (using password: YES)",
		"401 Unauthorized: invalid api key",
		"FATAL:  password authentication failed for user \"report\"",
		"type=USER_AUTH msg=audit(1714644062.345:8812): pid=4123 uid=0 auid=1000 ses=3 msg='op=PAM:authentication grantors=pam_unix acct=\"dev\" exe=\"/usr/bin/sudo\" res=success'",
		"diff --git a/.env.example b/.env.example",
		"+DB_PASSWORD=",
		"-API_KEY=<your key>",
		"+API_KEY=${API_KEY}",
		"@@ -1,4 +1,4 @@ APP_ENV=staging",
	}
	g := &gen{rand.New(rand.NewPCG(0xb15d5, blind5Seed))}
	msgs := []string{"fix: do not log the password on login failure", "chore(deps): bump golang.org/x/crypto", "docs: how to rotate the API key",
		"refactor: move token parsing to internal/auth", "test: fixtures for expired sessions", "feat: read SMTP password from a file"}
	for range 20 {
		out = append(out, fmt.Sprintf("commit %s\nAuthor: Dev <dev@example.test>\nDate:   Thu May 2 10:01:02 2024 +0200\n\n    %s", g.s(hexlc, 40), g.pick(msgs...)))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("%s %s", g.s(hexlc, 7), g.pick(msgs...)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("(cherry picked from commit %s)", g.s(hexlc, 40)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("Merge: %s %s", g.s(hexlc, 7), g.s(hexlc, 7)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("This reverts commit %s.", g.s(hexlc, 40)))
	}
	for range 12 {
		out = append(out, fmt.Sprintf("request_id=%s tenant_id=%s status=%s", b5uuid(g), b5uuid(g), g.pick("200", "201", "204", "404")))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("Correlation ID: %s", b5uuid(g)))
	}
	mods := []string{"golang.org/x/net", "golang.org/x/sys", "github.com/spf13/cobra", "google.golang.org/grpc", "github.com/stretchr/testify"}
	for range 12 {
		out = append(out, fmt.Sprintf("%s v0.%d.%d h1:%s=", g.pick(mods...), g.rng.IntN(30), g.rng.IntN(9), g.b64(32)[:43]))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("%s v1.%d.0/go.mod h1:%s=", g.pick(mods...), g.rng.IntN(20), g.b64(32)[:43]))
	}
	for range 12 {
		out = append(out, fmt.Sprintf("\"integrity\": \"sha512-%s\",", g.b64(64)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("  resolved \"https://registry.yarnpkg.com/%s/-/%s-%d.%d.%d.tgz#%s\"", g.pick("lodash", "react", "debug", "ms"), g.pick("lodash", "react", "debug", "ms"), g.rng.IntN(9), g.rng.IntN(20), g.rng.IntN(9), g.s(hexlc, 40)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("checksum = \"%s\"", g.s(hexlc, 64)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("requests==2.31.0 --hash=sha256:%s", g.s(hexlc, 64)))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("image: %s@sha256:%s", g.pick("nginx", "redis", "ghcr.io/acme/api", "postgres"), g.s(hexlc, 64)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("Digest: sha256:%s", g.s(hexlc, 64)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("SHA256 (%s) = %s", g.pick("release.tar.gz", "app.dmg", "setup.exe", "checksums.txt"), g.s(hexlc, 64)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("ETag: \"%s\"", g.s(hexlc, 32)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("content hash: %s (blake3)", g.s(hexlc, 64)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("Key fingerprint = %s %s %s %s %s  %s %s %s %s %s", g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4), g.s(b5HexU5, 4)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("color: #%s;", g.s(hexlc, 6)))
	}
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], "\n", " ")
	}
	return out
}
