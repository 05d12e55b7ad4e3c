package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"mime/quotedprintable"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// The third blind corpus (core/redact/testdata/public/blind3.jsonl): a sixth held-out corpus, of
// kinds that are in none of tune.jsonl, heldout.jsonl, fresh.jsonl, blind.jsonl and blind2.jsonl
// nor in their generators, written by a helper session that had not read core/redact (only the
// format section of the testdata README), nor docs/redaction.md, nor the texts of the earlier
// corpora (only their kind names, to keep clear of them), and that never ran the detector on it.
// It was written as an attacker would, looking for what a detector's author forgets: passwords
// said in 49 languages and scripts, in chat slang, with typos, with no keyword at all, split over
// two sentences; keys of less known providers (payment gateways of South-East Asia, Latin America,
// Africa and Korea, AI and developer platforms) by the shapes their documentation and gitleaks'
// rules give, in env files, SDK calls, curl, docker run, Kubernetes Secrets, GitHub Actions and
// chat, with and without their prefix; key material of other tools and wallets; secrets under
// encodings people forget (Ascii85, Z85, base45, base58, uuencode, UTF-16 base64, quoted-printable,
// homoglyphs, zero-width characters, char-code arrays); config files and command lines of tools
// not covered before; and secrets in HTTP dumps, HAR files, logs, traces and SQL dumps. Every body
// is random; no text is third-party.

// blind3Seed is the second word of every blind3 kind's random source (the first is the FNV-1a
// 64-bit hash of the kind's name), other than those of the other generators.
const blind3Seed = 31337

// b3Kind is one blind3 kind: sample i of n is written by make(g, i), so that each sample of a
// kind is in a different context.
type b3Kind struct {
	group, name, source string
	n                   int
	make                func(g *gen, i int) (text, secret string)
}

// b3t is a kind whose sample i is texts[i] with a fresh body where %s is.
func b3t(group, name, source string, body func(*gen) string, texts ...string) b3Kind {
	return b3Kind{group, name, source, len(texts), func(g *gen, i int) (string, string) {
		s := body(g)
		return strings.Replace(texts[i], "%s", s, 1), s
	}}
}

// b3f is a kind written by a function of the sample's index.
func b3f(group, name, source string, n int, f func(g *gen, i int) (string, string)) b3Kind {
	return b3Kind{group, name, source, n, f}
}

const (
	b3Dig   = "0123456789"
	b3Lo    = "abcdefghijklmnopqrstuvwxyz"
	b3Up    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b3HexUp = "0123456789ABCDEF"
	b3B58   = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	b3Sym   = "!#$%&*+-.=?@^_~"
)

var b3Words = []string{"tundra", "saffron", "glacier", "mosaic", "pumice", "walrus", "juniper", "cobalt",
	"lagoon", "ember", "thistle", "marlin", "quill", "basalt", "orchid", "falafel", "kayak", "nougat",
	"raven", "sequoia", "tamarind", "umber", "vortex", "wasabi", "yonder", "zephyr", "bramble", "cinder"}

// b3pw is a password a person picks, always 10 characters or more.
func b3pw(g *gen) string {
	cap1 := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	switch g.rng.IntN(6) {
	case 0:
		return g.s(symb, 12+g.rng.IntN(5))
	case 1:
		return cap1(g.pick(b3Words...)) + g.s(b3Dig, 3) + g.s("!?#$*", 1) + cap1(g.pick(b3Words...))
	case 2:
		return g.pick(b3Words...) + "." + g.pick(b3Words...) + "." + g.pick(b3Words...) + g.s(b3Dig, 2)
	case 3:
		return g.s(alnum, 14+g.rng.IntN(4))
	case 4:
		return g.s(b3Up, 2) + g.s(b3Lo, 4) + g.s(b3Dig, 4) + g.s("@%&+=", 1) + g.s(alnum, 3)
	default:
		return cap1(g.pick(b3Words...)) + "_" + g.s(b3Dig, 4) + "_" + g.s(alnum, 5)
	}
}

// b3pwL is a password built of native words (any script) and digits.
func b3pwL(words ...string) func(*gen) string {
	return func(g *gen) string {
		return g.pick(words...) + g.s(b3Dig, 3) + g.s("!#*@", 1) + g.pick(words...) + g.s(b3Dig, 2)
	}
}

func b3uuid(g *gen) string {
	return g.s(hexlc, 8) + "-" + g.s(hexlc, 4) + "-4" + g.s(hexlc, 3) + "-" + g.s("89ab", 1) + g.s(hexlc, 3) + "-" + g.s(hexlc, 12)
}

func b3pre(prefix, alphabet string, n int) func(*gen) string {
	return func(g *gen) string { return prefix + g.s(alphabet, n) }
}

// encoders people forget

func b3rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

func b3reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// b3a85 is Ascii85 as Adobe writes it (without the <~ ~> frame; z for zero groups).
func b3a85(b []byte) string {
	var out strings.Builder
	for i := 0; i < len(b); i += 4 {
		var chunk [4]byte
		n := copy(chunk[:], b[i:])
		v := uint32(chunk[0])<<24 | uint32(chunk[1])<<16 | uint32(chunk[2])<<8 | uint32(chunk[3])
		if v == 0 && n == 4 {
			out.WriteByte('z')
			continue
		}
		var d [5]byte
		for k := 4; k >= 0; k-- {
			d[k] = byte(v%85) + '!'
			v /= 85
		}
		out.Write(d[:n+1])
	}
	return out.String()
}

// b3z85 is ZeroMQ's Z85 (the input padded to 4 bytes).
func b3z85(b []byte) string {
	const alpha = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	var out strings.Builder
	for i := 0; i < len(b); i += 4 {
		v := uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])
		var d [5]byte
		for k := 4; k >= 0; k-- {
			d[k] = alpha[v%85]
			v /= 85
		}
		out.Write(d[:])
	}
	return out.String()
}

// b3b45 is base45 (RFC 9285).
func b3b45(b []byte) string {
	const alpha = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
	var out strings.Builder
	for i := 0; i+1 < len(b); i += 2 {
		n := int(b[i])*256 + int(b[i+1])
		out.WriteByte(alpha[n%45])
		out.WriteByte(alpha[n/45%45])
		out.WriteByte(alpha[n/45/45])
	}
	if len(b)%2 == 1 {
		n := int(b[len(b)-1])
		out.WriteByte(alpha[n%45])
		out.WriteByte(alpha[n/45])
	}
	return out.String()
}

func b3b58(b []byte) string {
	n := new(big.Int).SetBytes(b)
	var out []byte
	zero, rad, mod := big.NewInt(0), big.NewInt(58), new(big.Int)
	for n.Cmp(zero) > 0 {
		n.DivMod(n, rad, mod)
		out = append(out, b3B58[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	return b3reverse(string(out))
}

// b3uu is the body line of uuencode for up to 45 bytes.
func b3uu(b []byte) string {
	enc := func(c byte) byte {
		if c == 0 {
			return '`'
		}
		return c + 32
	}
	var out strings.Builder
	out.WriteByte(enc(byte(len(b))))
	for i := 0; i < len(b); i += 3 {
		var c [3]byte
		copy(c[:], b[i:])
		out.WriteByte(enc(c[0] >> 2))
		out.WriteByte(enc((c[0]<<4 | c[1]>>4) & 63))
		out.WriteByte(enc((c[1]<<2 | c[2]>>6) & 63))
		out.WriteByte(enc(c[2] & 63))
	}
	return out.String()
}

func b3utf16b64(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func b3gzb64(s string) string {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(s))
	w.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func b3qp(s string) string {
	var buf bytes.Buffer
	w := quotedprintable.NewWriter(&buf)
	w.Write([]byte(s))
	w.Close()
	return buf.String()
}

func b3codes(s, sep string, format string) string {
	var p []string
	for _, c := range []byte(s) {
		p = append(p, fmt.Sprintf(format, c))
	}
	return strings.Join(p, sep)
}

// b3homoglyph puts Cyrillic letters in the place of some Latin ones.
func b3homoglyph(s string) string {
	m := map[rune]rune{'a': 'а', 'e': 'е', 'o': 'о', 'p': 'р', 'c': 'с', 'x': 'х', 'A': 'А', 'E': 'Е', 'O': 'О', 'P': 'Р', 'C': 'С', 'T': 'Т', 'H': 'Н', 'K': 'К', 'M': 'М', 'B': 'В'}
	return strings.Map(func(r rune) rune {
		if h, ok := m[r]; ok {
			return h
		}
		return r
	}, s)
}

// b3pwHG is a password with letters that have Cyrillic look-alikes.
func b3pwHG(g *gen) string {
	return g.pick("Paceko", "Komet", "Hexapod", "Capybara", "Macaroon", "Pharaoh", "Tempo") + g.s(b3Dig, 4) + g.pick("apex", "croc", "epoch", "oboe") + g.s("!#*", 1)
}

// generateBlind3 writes every blind3 kind's samples with its fixed random source; it panics if a
// secret is not in its text, is shorter than 8 characters, or if two kinds share a name.
func generateBlind3() []Sample { return generateB3Kinds("blind3", blind3Kinds(), blind3Seed) }

// generateB3Kinds writes every kind's samples, in the order of their names, each kind with its
// own random source (the FNV-1a 64-bit hash of its name and seed); it panics if a secret is not
// in its text, is shorter than 8 characters, or if two kinds share a name. label names the corpus
// in the panic.
func generateB3Kinds(label string, ks []b3Kind, seed uint64) []Sample {
	sort.Slice(ks, func(i, j int) bool { return ks[i].group+"/"+ks[i].name < ks[j].group+"/"+ks[j].name })
	var out []Sample
	seen := map[string]bool{}
	for _, k := range ks {
		kind := k.group + "/" + k.name
		if seen[kind] {
			panic(label + ": two kinds named " + kind)
		}
		seen[kind] = true
		h := fnv.New64a()
		h.Write([]byte(kind))
		g := &gen{rand.New(rand.NewPCG(h.Sum64(), seed))}
		for i := range k.n {
			text, secret := k.make(g, i)
			if !strings.Contains(text, secret) || utf8.RuneCountInString(secret) < 8 {
				panic(fmt.Sprintf("%s: %s sample %d: secret %q not in its text or too short", label, kind, i, secret))
			}
			out = append(out, Sample{Kind: kind, Group: k.group, Text: text, Secret: secret,
				Source: "generated:" + k.source, Licence: "generated here (no third-party text)"})
		}
	}
	return out
}

func blind3Kinds() []b3Kind {
	var ks []b3Kind
	ks = append(ks, b3Sentences()...)
	ks = append(ks, b3Providers()...)
	ks = append(ks, b3KeyMaterial()...)
	ks = append(ks, b3Encoded()...)
	ks = append(ks, b3Configs()...)
	ks = append(ks, b3Fields()...)
	return ks
}

var (
	_ = base32.StdEncoding
	_ = hex.EncodeToString
	_ = url.QueryEscape
)

// b3lang is a password said in a language: one sample per text, each a different register.
func b3lang(name, lang string, body func(*gen) string, texts ...string) b3Kind {
	return b3t("sentence", name, "a password said in "+lang+" (texts written here)", body, texts...)
}

func b3Sentences() []b3Kind {
	pw := b3pw
	ks := []b3Kind{
		b3lang("vietnamese-mat-khau-chat", "Vietnamese", pw,
			"Mật khẩu wifi mới là %s nhé, đừng gửi cho ai.",
			"anh ơi pass admin: %s",
			"Tài khoản: ketoan02, mật khẩu %s (đổi sau khi đăng nhập lần đầu)",
			"mk của e là %s á, a vào thử xem"),
		b3lang("indonesian-kata-sandi", "Indonesian", pw,
			"Kata sandinya %s ya, jangan disebar.",
			"pw server: %s",
			"Ini password baru: %s, tolong dicatat di tempat aman",
			"sandi wifi kantor sekarang %s gan"),
		b3lang("turkish-sifre", "Turkish", pw,
			"Yeni şifre %s, lütfen kimseyle paylaşma.",
			"parolam: %s",
			"Sunucu şifresi değişti, artık %s kullanıyoruz",
			"wifi şifresi ne? — %s"),
		b3lang("polish-haslo", "Polish", pw,
			"Hasło do panelu to %s, zmień je po zalogowaniu.",
			"nowe haslo: %s",
			"Login: admin, hasło: %s",
			"hasełko do wifi: %s"),
		b3lang("czech-heslo", "Czech", pw,
			"Heslo k serveru je %s, nikomu ho neposílej.",
			"nové heslo: %s",
			"Přihlašovací údaje: jnovak / %s"),
		b3lang("hungarian-jelszo", "Hungarian", pw,
			"A jelszó: %s, kérlek változtasd meg holnapig.",
			"Az új jelszavam %s",
			"felhasználó: kovacs.p, jelszó %s"),
		b3lang("romanian-parola", "Romanian", pw,
			"Parola nouă este %s, te rog nu o da mai departe.",
			"parola de la wifi: %s",
			"Am schimbat parola contului în %s"),
		b3lang("swahili-nenosiri", "Swahili", pw,
			"Nenosiri jipya ni %s, usimwambie mtu yeyote.",
			"nywila ya wifi: %s",
			"Tumia nenosiri hili kuingia: %s"),
		b3lang("tagalog-password-pre", "Tagalog", pw,
			"Ang password ng wifi ay %s, huwag mong ipagsabi.",
			"pre eto yung pass: %s",
			"Bagong password ko: %s, paki-save"),
		b3lang("hebrew-sisma", "Hebrew", pw,
			"הסיסמה החדשה היא %s, אל תשתף אותה.",
			"סיסמה לשרת: %s",
			"שם משתמש admin וסיסמה %s"),
		b3lang("arabic-kalimat-sirr", "Arabic", pw,
			"كلمة المرور الجديدة هي %s، لا تشاركها مع أحد.",
			"كلمة السر للواي فاي: %s",
			"اسم المستخدم admin وكلمة المرور %s"),
		b3lang("persian-ramz", "Persian", pw,
			"رمز عبور جدید %s است، به کسی نده.",
			"رمز وای‌فای: %s",
			"پسورد سرور رو عوض کردم به %s"),
		b3lang("urdu-password", "Urdu", pw,
			"نیا پاس ورڈ %s ہے، کسی کو مت بتانا۔",
			"وائی فائی کا پاس ورڈ: %s",
			"صارف نام admin اور خفیہ لفظ %s"),
		b3lang("tamil-kadavuchol", "Tamil", pw,
			"புதிய கடவுச்சொல் %s, யாரிடமும் சொல்ல வேண்டாம்.",
			"வைஃபை கடவுச்சொல்: %s",
			"பயனர்பெயர் admin, கடவுச்சொல் %s"),
		b3lang("telugu-password", "Telugu", pw,
			"కొత్త పాస్‌వర్డ్ %s, ఎవరికీ చెప్పకండి.",
			"వైఫై పాస్‌వర్డ్: %s",
			"సర్వర్ సంకేతపదం %s"),
		b3lang("malay-kata-laluan", "Malay", pw,
			"Kata laluan baharu ialah %s, jangan kongsi dengan sesiapa.",
			"password wifi: %s",
			"Nama pengguna: admin, kata laluan: %s"),
		b3lang("ukrainian-parol", "Ukrainian", b3pwL("Калина", "Сонях", "Вишня", "Дніпро", "Зоря"),
			"Новий пароль: %s, нікому не кажи.",
			"пароль від вайфаю %s",
			"Логін admin, пароль %s"),
		b3lang("greek-kodikos", "Greek", b3pwL("Θάλασσα", "Ελιά", "Αστέρι", "Βουνό"),
			"Ο νέος κωδικός είναι %s, μην τον δώσεις σε κανέναν.",
			"κωδικός wifi: %s",
			"Όνομα χρήστη admin, συνθηματικό %s"),
		b3lang("finnish-salasana", "Finnish", b3pwL("Kärpänen", "Järvi", "Mökki", "Sauna", "Pöllö"),
			"Uusi salasana on %s, älä kerro kenellekään.",
			"wlan-salasana: %s",
			"Tunnus: admin, salasana %s"),
		b3lang("dutch-wachtwoord-ww", "Dutch", pw,
			"Het nieuwe wachtwoord is %s, niet doorsturen aub.",
			"ww van de wifi: %s",
			"Gebruikersnaam admin, wachtwoord %s"),
		b3lang("swedish-losen", "Swedish", b3pwL("Älgen", "Sjö", "Kräfta", "Björk"),
			"Det nya lösenordet är %s, dela det inte.",
			"lösen till wifi: %s",
			"Användarnamn admin, lösenord %s"),
		b3lang("danish-adgangskode", "Danish", b3pwL("Rødgrød", "Æble", "Søen", "Hygge"),
			"Den nye adgangskode er %s, del den ikke.",
			"kodeord til wifi: %s",
			"Brugernavn admin, adgangskode %s"),
		b3lang("norwegian-passord", "Norwegian", pw,
			"Det nye passordet er %s, ikke del det med noen.",
			"passord til wifi: %s",
			"Brukernavn admin, passord %s"),
		b3lang("icelandic-lykilord", "Icelandic", b3pwL("Þoka", "Eldfjall", "Lundi", "Jökull"),
			"Nýja lykilorðið er %s, ekki deila því.",
			"lykilorð á wifi: %s",
			"Notandanafn admin, lykilorð %s"),
		b3lang("catalan-contrasenya", "Catalan", pw,
			"La contrasenya nova és %s, no la comparteixis.",
			"contrasenya del wifi: %s",
			"Usuari admin, contrasenya %s"),
		b3lang("basque-pasahitza", "Basque", pw,
			"Pasahitz berria %s da, ez partekatu inorekin.",
			"wifiaren pasahitza: %s",
			"Erabiltzailea admin, pasahitza %s"),
		b3lang("georgian-paroli", "Georgian", pw,
			"ახალი პაროლია %s, არავის უთხრა.",
			"wifi-ს პაროლი: %s",
			"მომხმარებელი admin, პაროლი %s"),
		b3lang("amharic-yilef-qal", "Amharic", pw,
			"አዲሱ የይለፍ ቃል %s ነው፣ ለማንም አትንገር።",
			"የዋይፋይ የይለፍ ቃል: %s",
			"የተጠቃሚ ስም admin፣ የይለፍ ቃል %s"),
		b3lang("burmese-sakawhat", "Burmese", pw,
			"စကားဝှက်အသစ်က %s ပါ၊ ဘယ်သူ့ကိုမှ မပြောပါနဲ့။",
			"wifi စကားဝှက်: %s",
			"အသုံးပြုသူ admin၊ စကားဝှက် %s"),
		b3lang("khmer-peak-samngat", "Khmer", pw,
			"ពាក្យសម្ងាត់ថ្មីគឺ %s កុំប្រាប់អ្នកណា។",
			"ពាក្យសម្ងាត់ wifi៖ %s",
			"ឈ្មោះអ្នកប្រើ admin ពាក្យសម្ងាត់ %s"),
		b3lang("mongolian-nuuts-ug", "Mongolian", b3pwL("Тал", "Морь", "Уул", "Нар"),
			"Шинэ нууц үг %s, хэнд ч битгий хэлээрэй.",
			"wifi-н нууц үг: %s",
			"Хэрэглэгчийн нэр admin, нууц үг %s"),
		b3lang("kazakh-kupiya-soz", "Kazakh", pw,
			"Жаңа құпия сөз %s, ешкімге айтпа.",
			"wifi құпиясөзі: %s",
			"Логин admin, құпия сөз %s"),
		b3lang("uzbek-parol-latin-cyrillic", "Uzbek", pw,
			"Yangi parol %s, hech kimga aytma.",
			"wifi paroli: %s",
			"Янги парол: %s, эсда тут"),
		b3lang("hindi-devanagari-kutshabd", "Hindi", pw,
			"नया पासवर्ड %s है, किसी को मत बताना।",
			"वाईफाई का पासवर्ड: %s",
			"यूज़रनेम admin और कूटशब्द %s"),
		b3lang("bengali-password", "Bengali", pw,
			"নতুন পাসওয়ার্ড %s, কাউকে বলবেন না।",
			"ওয়াইফাই পাসওয়ার্ড: %s",
			"ইউজারনেম admin, পাসওয়ার্ড %s"),
		b3lang("albanian-fjalekalimi", "Albanian", pw,
			"Fjalëkalimi i ri është %s, mos ia jep askujt.",
			"fjalekalimi i wifi: %s",
			"Përdoruesi admin, fjalëkalimi %s"),
		b3lang("serbian-cyrillic-lozinka", "Serbian", b3pwL("Јелен", "Шљива", "Ђурђевак", "Река"),
			"Нова лозинка је %s, немој никоме да кажеш.",
			"lozinka za wifi: %s",
			"Корисник admin, шифра %s"),
		b3lang("slovak-heslo-ucet", "Slovak", pw,
			"Nové heslo k účtu je %s, nikomu ho nedávaj.",
			"heslo na wifi: %s",
			"Meno admin, heslo %s"),
		b3lang("lithuanian-slaptazodis", "Lithuanian", pw,
			"Naujas slaptažodis yra %s, niekam nesakyk.",
			"wifi slaptažodis: %s",
			"Vartotojas admin, slaptažodis %s"),
		b3lang("latvian-parole", "Latvian", pw,
			"Jaunā parole ir %s, nevienam nesaki.",
			"wifi parole: %s",
			"Lietotājs admin, parole %s"),
		b3lang("estonian-salasona", "Estonian", b3pwL("Põder", "Jõgi", "Öökull", "Rägastik"),
			"Uus salasõna on %s, ära kellelegi ütle.",
			"wifi parool: %s",
			"Kasutaja admin, parool %s"),
		b3lang("azerbaijani-sifre", "Azerbaijani", pw,
			"Yeni şifrə %s, heç kimə demə.",
			"wifi şifrəsi: %s",
			"İstifadəçi admin, parol %s"),
		b3lang("punjabi-gurmukhi", "Punjabi", pw,
			"ਨਵਾਂ ਪਾਸਵਰਡ %s ਹੈ, ਕਿਸੇ ਨੂੰ ਨਾ ਦੱਸਣਾ।",
			"ਵਾਈਫਾਈ ਪਾਸਵਰਡ: %s",
			"ਯੂਜ਼ਰ admin, ਪਾਸਵਰਡ %s"),
		b3lang("malayalam-password", "Malayalam", pw,
			"പുതിയ പാസ്‌വേഡ് %s ആണ്, ആരോടും പറയരുത്.",
			"വൈഫൈ പാസ്‌വേഡ്: %s",
			"യൂസർ admin, രഹസ്യവാക്ക് %s"),
		b3lang("kannada-guptapada", "Kannada", pw,
			"ಹೊಸ ಪಾಸ್‌ವರ್ಡ್ %s, ಯಾರಿಗೂ ಹೇಳಬೇಡಿ.",
			"ವೈಫೈ ಪಾಸ್‌ವರ್ಡ್: %s",
			"ಬಳಕೆದಾರ admin, ಗುಪ್ತಪದ %s"),
		b3lang("welsh-cyfrinair", "Welsh", pw,
			"Y cyfrinair newydd yw %s, paid â'i rannu.",
			"cyfrinair y wifi: %s",
			"Enw defnyddiwr admin, cyfrinair %s"),
		b3lang("afrikaans-wagwoord", "Afrikaans", pw,
			"Die nuwe wagwoord is %s, moet dit met niemand deel nie.",
			"wifi wagwoord: %s",
			"Gebruiker admin, wagwoord %s"),
		b3lang("yoruba-oro-igbaniwole", "Yoruba", pw,
			"Ọ̀rọ̀ aṣínà tuntun ni %s, má ṣe sọ fún ẹnikẹ́ni.",
			"password wifi: %s",
			"Orúkọ olùlò admin, ọ̀rọ̀ aṣínà %s"),
		b3lang("hausa-kalmar-sirri", "Hausa", pw,
			"Sabuwar kalmar sirri ita ce %s, kada ka gaya wa kowa.",
			"kalmar sirri ta wifi: %s",
			"Sunan mai amfani admin, kalmar sirri %s"),
	}
	ks = append(ks,
		b3t("sentence", "typo-pasword-variants", "passwords under misspelt keywords (texts written here)", pw,
			"pasword: %s",
			"the passwrd for the vpn is %s",
			"pssword = %s",
			"paswd %s (dont share)",
			"pwsd for jenkins -> %s"),
		b3t("sentence", "leet-keyword-p4ss", "passwords under leet-spelt keywords (texts written here)", pw,
			"p4ssw0rd: %s",
			"passw0rd = %s",
			"the p@ss is %s",
			"pazzword %s lol"),
		b3t("sentence", "no-keyword-handover", "a password handed over with no keyword (texts written here)", pw,
			"here u go %s",
			"use this: %s",
			"the new one is %s",
			"ok try %s now",
			"same as before but now it's %s"),
		b3t("sentence", "next-line-only", "a password alone on the line after a question (texts written here)", pw,
			"what's the db pw?\n%s\nthx",
			"> can you resend it\n%s",
			"Q: root?\nA: %s",
			"sending in a sec...\n\n%s\n\ndelete after reading"),
		b3f("sentence", "split-two-sentences", "a password split over two sentences; the second half is labelled (texts written here)", 4,
			func(g *gen, i int) (string, string) {
				a, b := g.s(alnum+"!#%", 9), g.s(alnum+"!#%", 10)
				t := []string{
					"The password starts with %a. It ends with %b, no spaces between.",
					"first half: %a\nsecond half: %b\njoin them",
					"I'll split it for safety. Part one %a. Part two %b.",
					"pw = the office code %a followed by %b",
				}[i]
				return strings.NewReplacer("%a", a, "%b", b).Replace(t), b
			}),
		b3t("sentence", "pin-eight-digits", "PINs and door codes of 8 digits or more (texts written here)", b3pre("", b3Dig, 8),
			"my bank PIN is %s, please don't tell anyone",
			"door code: %s then #",
			"SIM PUK %s",
			"the safe opens with %s"),
		b3t("sentence", "spaced-words-passphrase", "passphrases of words and spaces (texts written here)",
			func(g *gen) string {
				return g.pick(b3Words...) + " " + g.pick(b3Words...) + " " + g.pick(b3Words...) + " " + g.s(b3Dig, 3)
			},
			"passphrase for the backup disk: %s",
			"Unlock phrase is \"%s\" with the spaces",
			"the wifi is literally '%s'",
			"keepass master = %s"),
		b3t("sentence", "shouted-caps", "a password in a shouted all-caps message (texts written here)", pw,
			"PASSWORD IS %s !!!",
			"NEW PASS: %s — CHANGE IT TODAY",
			"URGENT the root pw is now %s"),
		b3t("sentence", "markdown-bold-codespan", "a password in Markdown emphasis or a code span (texts written here)", pw,
			"**pw:** `%s`",
			"| staging | admin | `%s` |",
			"- password: *%s*",
			"> creds: __%s__"),
		b3t("sentence", "emoji-key-prefix", "a password after an emoji (texts written here)", pw,
			"🔑 %s",
			"🔐 wifi → %s",
			"pw 👉 %s 👈",
			"🤫 %s"),
		b3t("sentence", "api-key-in-prose", "an API key with no prefix said in prose (texts written here)", b3pre("", alnum, 32),
			"the api key they gave us is %s, it's for the sandbox",
			"sure, my key: %s",
			"can you put %s in the integration settings? that's the key",
			"they emailed the key (%s) this morning"),
		b3t("sentence", "singlish-lah", "a password in Singlish chat (texts written here)", pw,
			"the pw is %s lah",
			"wah u forgot again ah, %s",
			"password %s can already"),
		b3t("sentence", "spanglish-franglais", "a password in mixed-language chat (texts written here)", pw,
			"el password es %s, ok?",
			"le mdp c'est %s, tkt",
			"a senha é %s mano",
			"pw ist %s, vergiss es nicht"),
		b3t("sentence", "russian-translit-parol", "a password in Russian transliterated chat (texts written here)", pw,
			"parol' %s",
			"vot novyi parol: %s",
			"login admin parol %s"),
		b3t("sentence", "homoglyph-password-said", "a password holding Cyrillic look-alike letters (texts written here)",
			func(g *gen) string { return b3homoglyph(b3pwHG(g)) },
			"password: %s",
			"the new one is %s",
			"пароль %s"),
		b3t("sentence", "after-username-in-parens", "a password in parentheses after a user name (texts written here)", pw,
			"log in as ops (%s)",
			"account deploy-bot [%s]",
			"user mlopez, pass in brackets: {%s}"),
		b3t("sentence", "helpdesk-temporary", "a temporary password from a helpdesk ticket (texts written here)", pw,
			"Hi, your account was reset. Temporary credential: %s. You'll be asked to change it.",
			"Ticket #48213 resolved — temp pw %s (expires in 24h)",
			"As requested, the one-time password for the kiosk is %s"),
	)
	return ks
}

// b3prov is a provider's key in five contexts: an env file, the provider's SDK or config, a chat
// line next to the provider's name, and two of curl, docker run -e, a Kubernetes Secret and a
// GitHub Actions workflow (which two depends on the kind's name).
func b3prov(name, prov, source, env, call, curl string, body func(*gen) string) b3Kind {
	lower := strings.ToLower(strings.ReplaceAll(env, "_", "-"))
	extra := []string{
		curl,
		"docker run -d -e " + env + "=%s -p 8080:8080 shop/api:latest",
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + lower + "\ntype: Opaque\nstringData:\n  " + lower + ": \"%s\"",
		"jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      " + env + ": %s\n    steps:\n      - run: ./deploy.sh",
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	o := int(h.Sum32() % 4)
	texts := []string{
		env + "=%s",
		call,
		"our " + prov + " key is %s, don't rotate it before Friday",
		extra[o],
		extra[(o+2)%4],
	}
	return b3t("provider", name, source, body, texts...)
}

func b3Providers() []b3Kind {
	gl := func(rule string) string { return "shape after gitleaks config/gitleaks.toml rule " + rule }
	return []b3Kind{
		b3prov("omise-skey", "Omise", "skey_ + 19 lowercase alphanumerics, docs.omise.co/api-authentication",
			"OMISE_SECRET_KEY", "Omise.configure(public_key: ENV['OMISE_PKEY'], secret_key: '%s')",
			"curl https://api.omise.co/charges -u %s: -d amount=100000 -d currency=thb",
			func(g *gen) string { return "skey_" + g.pick("test_", "") + g.s(b3Lo+b3Dig, 19) }),
		b3prov("mercadopago-app-usr-token", "Mercado Pago", "APP_USR-<16 digits>-<6 digits>-<32 hex>-<9 digits>, Mercado Pago developers' credentials pages",
			"MP_ACCESS_TOKEN", "const client = new MercadoPagoConfig({ accessToken: '%s' });",
			"curl -H 'Authorization: Bearer %s' https://api.mercadopago.com/v1/payments/search",
			func(g *gen) string {
				return "APP_USR-" + g.s(b3Dig, 16) + "-" + g.s(b3Dig, 6) + "-" + g.s(hexlc, 32) + "-" + g.s(b3Dig, 9)
			}),
		b3prov("xendit-xnd-key", "Xendit", "xnd_development_ / xnd_production_ + 60-70 alphanumerics, docs.xendit.co API keys and the xendit-node README",
			"XENDIT_SECRET_KEY", "const x = new Xendit({ secretKey: \"%s\" });",
			"curl https://api.xendit.co/v2/invoices -u %s:",
			func(g *gen) string { return "xnd_" + g.pick("development_", "production_") + g.s(alnum, 64) }),
		b3prov("midtrans-server-key", "Midtrans", "Mid-server- / SB-Mid-server- + 24 characters, docs.midtrans.com access keys",
			"MIDTRANS_SERVER_KEY", "\\Midtrans\\Config::$serverKey = '%s';",
			"curl -u '%s:' https://api.sandbox.midtrans.com/v2/charge",
			func(g *gen) string { return g.pick("SB-", "") + "Mid-server-" + g.s(alnum+"_-", 24) }),
		b3prov("asaas-aact-key", "Asaas", "$aact_ + a long base64 body, docs.asaas.com autenticação",
			"ASAAS_API_KEY", "asaas = Asaas(access_token=\"%s\", production=True)",
			"curl -H 'access_token: %s' https://api.asaas.com/v3/customers",
			func(g *gen) string { return "$aact_" + g.pick("prod_", "hmlg_") + g.s(alnum, 100) }),
		b3prov("woocommerce-cs-secret", "WooCommerce", "cs_ + 40 hex (consumer secret), WooCommerce REST API docs",
			"WC_CONSUMER_SECRET", "api = API(url=\"https://shop.example\", consumer_key=\"ck_from_vault\", consumer_secret=\"%s\")",
			"curl https://shop.example/wp-json/wc/v3/orders -u ck_live:%s",
			func(g *gen) string { return "cs_" + g.s(hexlc, 40) }),
		b3prov("wordpress-application-password", "WordPress", "24 alphanumerics in six groups of four, make.wordpress.org application passwords",
			"WP_APP_PASSWORD", "wp = Client('https://blog.example/xmlrpc.php', 'editor', '%s')",
			"curl --user \"editor:%s\" https://blog.example/wp-json/wp/v2/posts",
			func(g *gen) string {
				p := make([]string, 6)
				for i := range p {
					p[i] = g.s(alnum, 4)
				}
				return strings.Join(p, " ")
			}),
		b3prov("ghost-admin-key", "Ghost", "<24 hex id>:<64 hex secret>, ghost.org/docs/admin-api",
			"GHOST_ADMIN_API_KEY", "const api = new GhostAdminAPI({url: 'https://blog.example', key: '%s', version: 'v5.0'});",
			"ghost-cli --admin-key %s publish post.md",
			func(g *gen) string { return g.s(hexlc, 24) + ":" + g.s(hexlc, 64) }),
		b3prov("africastalking-atsk", "Africa's Talking", "atsk_ + 64 hex (older keys: 64 hex alone), Africa's Talking developer docs",
			"AT_API_KEY", "africastalking.initialize(username='sandbox', api_key='%s')",
			"curl -H 'apiKey: %s' -d username=sandbox https://api.sandbox.africastalking.com/version1/messaging",
			func(g *gen) string { return g.pick("atsk_", "") + g.s(hexlc, 64) }),
		b3prov("vnpay-hash-secret", "VNPay", "vnp_HashSecret: 32 uppercase alphanumerics, VNPay sandbox integration docs",
			"VNP_HASH_SECRET", "vnp_HashSecret = \"%s\"  # cấu hình VNPay",
			"curl -d vnp_TmnCode=DEMO01 -d secret=%s https://sandbox.vnpayment.vn/merchant_webapi/api/transaction",
			b3pre("", b3Up+b3Dig, 32)),
		b3prov("cashfree-cfsk", "Cashfree", "cfsk_ma_prod_ / cfsk_ma_test_ + 32 hex + _ + 8 hex, Cashfree payments docs",
			"CASHFREE_SECRET_KEY", "Cashfree.XClientSecret = \"%s\";",
			"curl -H 'x-client-secret: %s' -H 'x-api-version: 2023-08-01' https://api.cashfree.com/pg/orders",
			func(g *gen) string {
				return "cfsk_ma_" + g.pick("prod_", "test_") + g.s(hexlc, 32) + "_" + g.s(hexlc, 8)
			}),
		b3prov("toss-payments-sk", "Toss Payments", "live_sk_ / test_sk_ + 20 alphanumerics, docs.tosspayments.com API keys",
			"TOSS_SECRET_KEY", "const toss = new TossPayments({ secretKey: '%s' });",
			"curl -u '%s:' https://api.tosspayments.com/v1/payments/confirm",
			func(g *gen) string { return g.pick("live_sk_", "test_sk_") + g.s(alnum, 20) }),
		b3prov("iyzico-sandbox-secret", "iyzico", "sandbox- + 32 alphanumerics (secret key), iyzico developer docs",
			"IYZICO_SECRET_KEY", "options.setSecretKey(\"%s\");",
			"iyzipay --api-key sandbox-pub --secret-key %s payment create",
			func(g *gen) string { return g.pick("sandbox-", "") + g.s(alnum, 32) }),
		b3prov("paymongo-sk-live", "PayMongo", "sk_live_ / sk_test_ + 24 alphanumerics, developers.paymongo.com authentication",
			"PAYMONGO_SECRET_KEY", "paymongo = Paymongo('%s')",
			"curl -u %s: https://api.paymongo.com/v1/payment_intents",
			func(g *gen) string { return g.pick("sk_live_", "sk_test_") + g.s(alnum, 24) }),
		b3prov("yookassa-live-secret", "YooKassa", "live_ / test_ + 43 base64url, yookassa.ru developers (secret key)",
			"YOOKASSA_SECRET_KEY", "Configuration.configure('381764', '%s')",
			"curl https://api.yookassa.ru/v3/payments -u 381764:%s",
			func(g *gen) string { return g.pick("live_", "test_") + g.s(b64url, 43) }),
		b3prov("clerk-secret-key", "Clerk", "sk_live_ / sk_test_ + 48 alphanumerics, clerk.com docs (API keys)",
			"CLERK_SECRET_KEY", "const clerk = createClerkClient({ secretKey: '%s' })",
			"curl -H 'Authorization: Bearer %s' https://api.clerk.com/v1/users",
			func(g *gen) string { return g.pick("sk_live_", "sk_test_") + g.s(alnum, 48) }),
		b3prov("inngest-signing-key", "Inngest", "signkey-prod- / signkey-test- + 64 hex, inngest.com docs (signing keys)",
			"INNGEST_SIGNING_KEY", "new Inngest({ id: 'shop', signingKey: '%s' })",
			"curl -H 'Authorization: Bearer %s' https://api.inngest.com/v1/events",
			func(g *gen) string { return "signkey-" + g.pick("prod-", "test-") + g.s(hexlc, 64) }),
		b3prov("trigger-dev-secret", "Trigger.dev", "tr_dev_ / tr_prod_ + 20 alphanumerics, trigger.dev docs (API keys)",
			"TRIGGER_SECRET_KEY", "configure({ secretKey: \"%s\" });",
			"curl -H 'Authorization: Bearer %s' https://api.trigger.dev/api/v1/runs",
			func(g *gen) string { return g.pick("tr_dev_", "tr_prod_") + g.s(alnum, 20) }),
		b3prov("upstash-redis-rest-token", "Upstash", "REST token: A + base64 body (about 60 characters), upstash.com docs (REST API)",
			"UPSTASH_REDIS_REST_TOKEN", "const redis = new Redis({ url: 'https://eu1-keen-hog-31337.upstash.io', token: '%s' })",
			"curl https://eu1-keen-hog-31337.upstash.io/get/foo -H \"Authorization: Bearer %s\"",
			func(g *gen) string { return "A" + g.pick("X", "Y", "Z") + g.s(alnum, 4) + "ASQg" + g.s(alnum, 52) }),
		b3prov("xata-xau-key", "Xata", "xau_ + 32 alphanumerics, xata.io docs (API keys)",
			"XATA_API_KEY", "const xata = new XataClient({ apiKey: '%s', branch: 'main' })",
			"curl -H 'Authorization: Bearer %s' https://api.xata.io/workspaces",
			b3pre("xau_", alnum, 32)),
		b3prov("convex-deploy-key", "Convex", "prod:<deployment>|<base64 body>, docs.convex.dev (deploy keys)",
			"CONVEX_DEPLOY_KEY", "npx convex deploy --cmd 'npm run build' # key: %s",
			"curl -H 'Authorization: Convex %s' https://happy-otter-123.convex.cloud/api/query",
			func(g *gen) string {
				return g.pick("prod:", "preview:") + g.pick("happy-otter-123", "brave-lynx-807", "quiet-emu-42") + "|" + g.s(b64url, 80)
			}),
		b3prov("tavily-tvly-key", "Tavily", "tvly- + 32 alphanumerics, docs.tavily.com",
			"TAVILY_API_KEY", "client = TavilyClient(api_key=\"%s\")",
			"curl -H 'Authorization: Bearer %s' -d '{\"query\":\"x\"}' https://api.tavily.com/search",
			func(g *gen) string { return "tvly-" + g.pick("dev-", "") + g.s(alnum, 32) }),
		b3prov("firecrawl-fc-key", "Firecrawl", "fc- + 32 hex, docs.firecrawl.dev",
			"FIRECRAWL_API_KEY", "app = FirecrawlApp(api_key=\"%s\")",
			"curl -H 'Authorization: Bearer %s' https://api.firecrawl.dev/v1/scrape",
			b3pre("fc-", hexlc, 32)),
		b3prov("llamacloud-llx-key", "LlamaCloud", "llx- + 48 alphanumerics, docs.cloud.llamaindex.ai",
			"LLAMA_CLOUD_API_KEY", "parser = LlamaParse(api_key=\"%s\", result_type=\"markdown\")",
			"curl -H 'Authorization: Bearer %s' https://api.cloud.llamaindex.ai/api/v1/parsing/upload",
			b3pre("llx-", alnum, 48)),
		b3prov("cerebras-csk-key", "Cerebras", "csk- + 48 lowercase alphanumerics, inference-docs.cerebras.ai",
			"CEREBRAS_API_KEY", "client = Cerebras(api_key=\"%s\")",
			"curl -H 'Authorization: Bearer %s' https://api.cerebras.ai/v1/models",
			b3pre("csk-", b3Lo+b3Dig, 48)),
		b3prov("voyage-pa-key", "Voyage AI", "pa- + 43 base64url, docs.voyageai.com",
			"VOYAGE_API_KEY", "vo = voyageai.Client(api_key=\"%s\")",
			"curl -H 'Authorization: Bearer %s' https://api.voyageai.com/v1/embeddings",
			b3pre("pa-", b64url, 43)),
		b3prov("exoscale-api-secret", "Exoscale", "key EXO + 24 hex, secret 43 base64url, community.exoscale.com (IAM API keys)",
			"EXOSCALE_API_SECRET", "exo config add --key EXO"+"1f3a5c7e9b0d2f4a6c8e0b1d --secret %s",
			"exo --use-account prod compute instance list # secret=%s",
			b3pre("", b64url, 43)),
		b3prov("ovh-application-secret", "OVH", "application secret: 32 alphanumerics, next to the application key and consumer key, OVHcloud API docs",
			"OVH_APPLICATION_SECRET", "client = ovh.Client(endpoint='ovh-eu', application_key='7kbG7Bk7S9Nt7ZSV', application_secret='%s', consumer_key=ck)",
			"curl -H 'X-Ovh-Application: 7kbG7Bk7S9Nt7ZSV' -H 'X-Ovh-Signature: $1$%s' https://eu.api.ovh.com/1.0/me",
			b3pre("", alnum, 32)),
		b3prov("plex-token", "Plex", "X-Plex-Token: 20 characters, support.plex.tv (finding an authentication token)",
			"PLEX_TOKEN", "plex = PlexServer('http://192.168.1.20:32400', '%s')",
			"curl 'http://192.168.1.20:32400/library/sections?X-Plex-Token=%s'",
			b3pre("", alnum+"_-", 20)),
		b3prov("azure-apim-subscription-key", "Azure API Management", "Ocp-Apim-Subscription-Key: 32 hex, learn.microsoft.com (API Management subscriptions)",
			"APIM_SUBSCRIPTION_KEY", "client.DefaultRequestHeaders.Add(\"Ocp-Apim-Subscription-Key\", \"%s\");",
			"curl -H 'Ocp-Apim-Subscription-Key: %s' https://contoso.azure-api.net/orders/v1",
			b3pre("", hexlc, 32)),
		b3prov("gitea-token-hex", "Gitea", "access token: 40 hex, docs.gitea.com (API usage)",
			"GITEA_TOKEN", "tea login add --name home --url https://git.home.lan --token %s",
			"curl -H 'Authorization: token %s' https://git.home.lan/api/v1/user/repos",
			b3pre("", hexlc, 40)),
		b3prov("harbor-robot-secret", "Harbor", "robot account secret: 32 alphanumerics next to robot$<name>, goharbor.io docs (robot accounts)",
			"HARBOR_ROBOT_SECRET", "docker login harbor.corp.lan -u 'robot$ci+push' -p %s",
			"curl -u 'robot$ci+push:%s' https://harbor.corp.lan/api/v2.0/projects",
			b3pre("", alnum, 32)),
		b3prov("clojars-deploy-token", "Clojars", gl("clojars-api-token")+": CLOJARS_ + 60 lowercase alphanumerics",
			"CLOJARS_PASSWORD", ":deploy-repositories [[\"clojars\" {:url \"https://repo.clojars.org\" :username \"ana\" :password \"%s\"}]]",
			"curl -u ana:%s https://repo.clojars.org/ana/lib/maven-metadata.xml",
			b3pre("CLOJARS_", b3Lo+b3Dig, 60)),
		b3prov("scalingo-tk-us", "Scalingo", gl("scalingo-api-token")+": tk-us- + 48 word characters",
			"SCALINGO_API_TOKEN", "scalingo login --api-token %s",
			"curl -u :%s https://auth.scalingo.com/v1/tokens/exchange",
			b3pre("tk-us-", alnum+"_-", 48)),
		b3prov("settlemint-pat", "SettleMint", gl("settlemint-personal-access-token")+": sm_pat_ + 16 alphanumerics",
			"SETTLEMINT_ACCESS_TOKEN", "settlemint login --access-token %s",
			"curl -H 'x-auth-token: %s' https://console.settlemint.com/api/graphql",
			b3pre("sm_pat_", alnum, 16)),
		b3prov("intra42-client-secret", "42 intra", gl("intra42-client-secret")+": s-s4t2ud- / s-s4t2af- + 64 hex",
			"FT_CLIENT_SECRET", "oauth = OAuth2Session(client_id=uid, client_secret=\"%s\")",
			"curl -F grant_type=client_credentials -F client_id=u-s4t2ud-7f -F client_secret=%s https://api.intra.42.fr/oauth/token",
			func(g *gen) string { return "s-s4t2" + g.pick("ud", "af") + "-" + g.s(hexlc, 64) }),
		b3prov("frameio-fio-u", "Frame.io", gl("frameio-api-token")+": fio-u- + 64 characters",
			"FRAMEIO_TOKEN", "client = FrameioClient(\"%s\")",
			"curl -H 'Authorization: Bearer %s' https://api.frame.io/v2/me",
			b3pre("fio-u-", alnum+"_-", 64)),
		b3prov("infracost-ico", "Infracost", gl("infracost-api-token")+": ico- + 32 alphanumerics",
			"INFRACOST_API_KEY", "infracost configure set api_key %s",
			"curl -H 'X-Api-Key: %s' https://pricing.api.infracost.io/graphql",
			b3pre("ico-", alnum, 32)),
		b3prov("openshift-sha256-token", "OpenShift", gl("openshift-user-token")+": sha256~ + 43 base64url",
			"OC_TOKEN", "oc login --token=%s --server=https://api.ocp.corp.lan:6443",
			"curl -k -H 'Authorization: Bearer %s' https://api.ocp.corp.lan:6443/apis/user.openshift.io/v1/users/~",
			b3pre("sha256~", b64url, 43)),
		b3prov("sidekiq-contribsys-creds", "Sidekiq Enterprise", gl("sidekiq-secret")+": <8 hex>:<8 hex> for gems.contribsys.com",
			"BUNDLE_ENTERPRISE__CONTRIBSYS__COM", "bundle config --local enterprise.contribsys.com %s",
			"curl -u %s https://enterprise.contribsys.com/",
			func(g *gen) string { return g.s(hexlc, 8) + ":" + g.s(hexlc, 8) }),
		b3prov("yandex-cloud-aqvn", "Yandex Cloud", gl("yandex-api-key")+": AQVN + 35-38 characters",
			"YC_API_KEY", "sdk = yandexcloud.SDK(api_key=\"%s\")",
			"curl -H 'Authorization: Api-Key %s' https://llm.api.cloud.yandex.net/foundationModels/v1/completion",
			b3pre("AQVN", alnum+"_-", 36)),
		b3prov("mailgun-webhook-signing-key", "Mailgun", gl("mailgun-signing-key")+": <32 hex>-<8 hex>-<8 hex>",
			"MAILGUN_WEBHOOK_SIGNING_KEY", "hmac.new(b\"%s\", msg, hashlib.sha256)",
			"mg-verify --signing-key %s --payload body.json",
			func(g *gen) string { return g.s(hexlc, 32) + "-" + g.s(hexlc, 8) + "-" + g.s(hexlc, 8) }),
		b3prov("newrelic-nrii-insert-key", "New Relic", gl("new-relic-insert-key")+": NRII- + 32 characters",
			"NEW_RELIC_INSERT_KEY", "newrelic_telemetry_sdk.EventClient(\"%s\")",
			"curl -H 'X-Insert-Key: %s' https://insights-collector.newrelic.com/v1/accounts/31337/events",
			b3pre("NRII-", alnum+"-_", 32)),
		b3prov("sentry-sntryu-user-token", "Sentry", gl("sentry-user-token")+": sntryu_ + 64 hex",
			"SENTRY_AUTH_TOKEN", "sentry-cli --auth-token %s releases new 1.4.2",
			"curl -H 'Authorization: Bearer %s' https://sentry.io/api/0/projects/",
			b3pre("sntryu_", hexlc, 64)),
		b3prov("alpaca-secret-key", "Alpaca", "key id PK + 18 uppercase alphanumerics, secret 40 alphanumerics, docs.alpaca.markets (authentication)",
			"APCA_API_SECRET_KEY", "api = tradeapi.REST('PK"+"7Q2M4X9ZB1C3D5E6F8', '%s', base_url='https://paper-api.alpaca.markets')",
			"curl -H 'APCA-API-KEY-ID: PK7Q2M4X9ZB1C3D5E6F8' -H 'APCA-API-SECRET-KEY: %s' https://paper-api.alpaca.markets/v2/account",
			b3pre("", alnum, 40)),
		b3prov("modal-token-secret", "Modal", "token id ak- and token secret as- + 22 alphanumerics, modal.com docs (tokens)",
			"MODAL_TOKEN_SECRET", "modal token set --token-id ak-8Xy2LmQp0Zr5Tv7Wn1Bc3D --token-secret %s",
			"curl -H 'Authorization: Bearer ak-8Xy2LmQp0Zr5Tv7Wn1Bc3D:%s' https://api.modal.com/v1/apps",
			b3pre("as-", alnum, 22)),
		b3prov("appwrite-standard-key", "Appwrite", "standard_ + 256 hex, appwrite.io docs (API keys)",
			"APPWRITE_API_KEY", "client.setEndpoint('https://cloud.appwrite.io/v1').setProject('shop').setKey('%s');",
			"curl -H 'X-Appwrite-Project: shop' -H 'X-Appwrite-Key: %s' https://cloud.appwrite.io/v1/users",
			b3pre("standard_", hexlc, 256)),
		b3prov("browserbase-bb-live", "Browserbase", "bb_live_ + 27 base64url, docs.browserbase.com",
			"BROWSERBASE_API_KEY", "bb = Browserbase(api_key=\"%s\")",
			"curl -H 'X-BB-API-Key: %s' https://api.browserbase.com/v1/sessions",
			b3pre("bb_live_", b64url, 27)),
		// without their prefix, next to the provider's name
		b3t("provider", "omise-key-without-prefix", "the body of an Omise skey_ key, prefix left off (docs.omise.co)", b3pre("", b3Lo+b3Dig, 19),
			"Omise secret (after the skey_ part): %s",
			"omise live secret key = %s",
			"for Omise use %s as the key, I removed the prefix"),
		b3t("provider", "xendit-key-without-prefix", "the body of a Xendit key, prefix left off (docs.xendit.co)", b3pre("", alnum, 64),
			"xendit prod secret: %s (prepend xnd_production_)",
			"Xendit -> %s",
			"kunci rahasia Xendit: %s"),
		b3t("provider", "toss-key-without-prefix", "the body of a Toss Payments key, prefix left off (docs.tosspayments.com)", b3pre("", alnum, 20),
			"토스페이먼츠 시크릿 키: %s (live_sk_ 붙여서 사용)",
			"toss secret body %s",
			"토스 키는 %s 입니다"),
		b3t("provider", "wordpress-app-password-unspaced", "a WordPress application password with its spaces taken out", b3pre("", alnum, 24),
			"WP application password for the editor user: %s",
			"wp_app_pw=%s",
			"the wordpress app pass (no spaces) is %s"),
	}
}

// b3words is a phrase of n words drawn from words, joined by sep.
func b3words(g *gen, words []string, n int, sep string) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.pick(words...)
	}
	return strings.Join(w, sep)
}

var (
	b3EsWords    = strings.Fields("ábaco abdomen abeja abierto abogado abono aborto abrazo abrir abuelo acción aceite acelga acento aceptar ácido aclarar acné acoger acoso activo acto actriz actuar acudir acuerdo acusar adicto admitir adoptar adorno aduana adulto aéreo afectar afición afinar afirmar ágil agitar agonía agosto agotar agregar agrio agua agudo águila aguja ahogo ahorro")
	b3FrWords    = strings.Fields("abaisser abandon abdiquer abeille abolir aborder aboutir aboyer abrasif abreuver abriter abroger abrupt absence absolu absurde abusif abyssal académie acajou acarien accabler accepter acclamer accolade accroche accuser acerbe achat acheter aciduler acier acompte acquérir acronyme acteur actif actuel adepte adéquat adhésif adjectif adjuger admettre admirer adopter")
	b3JaWords    = strings.Fields("あいこくしん あいさつ あいだ あおぞら あかちゃん あきる あけがた あける あこがれる あさい あさひ あしあと あじわう あずかる あずき あそぶ あたえる あたためる あたりまえ あたる あつい あつかう あっしゅく あつまり あつめる あてな あてはまる あひる あぶら あぶる あふれる あまい あまど あまやかす あまり あみもの あめりか あやまる あゆむ あらいぐま あらし")
	b3ZhWords    = strings.Fields("的 一 是 在 不 了 有 和 人 这 中 大 为 上 个 国 我 以 要 他 时 来 用 们 生 到 作 地 于 出 就 分 对 成 会 可 主 发 年 动 同 工 也 能 下 过 子 说 产 种 面")
	b3KoWords    = strings.Fields("가격 가끔 가난 가능 가득 가르침 가뭄 가방 가상 가슴 가운데 가을 가이드 가입 가장 가정 가족 가죽 각오 각자 간격 간부 간섭 간장 간접 간판 갈등 갈비 갈색 갈증 감각 감기 감소 감수성 감자 감정 갑자기 강남 강당 강도 강력히 강변 강북 강사 강수량 강아지 강원도 강의 강제 강조")
	b3PaperWords = strings.Fields("abandon gravel sober lemon tiger ribbon cactus hollow mirror fossil velvet orbit canyon shrimp parade noble frost almond tunnel copper whisper badge dragon harvest lobster magnet pistol")
)

func b3KeyMaterial() []b3Kind {
	bech := func(n int) func(*gen) string {
		return func(g *gen) string { return strings.ToUpper(g.s(bech32, n)) }
	}
	b64of := func(n int) func(*gen) string { return func(g *gen) string { return g.b64(n) } }
	rawurl := func(n int) func(*gen) string { return func(g *gen) string { return g.b64url(n) } }
	torHeader := []byte("== ed25519v1-secret: type0 ==\x00\x00\x00")
	ks := []b3Kind{
		b3t("keymaterial", "age-plugin-yubikey-identity", "AGE-PLUGIN-YUBIKEY-1 + bech32, as age-plugin-yubikey's README shows identities",
			func(g *gen) string { return "AGE-PLUGIN-YUBIKEY-1" + strings.ToUpper(g.s(bech32, 52)) },
			"#       Serial: 18273645, Slot: 1\n#    PIN policy: Once\n#      Recipient: age1yubikey1q"+"w3e4r5t6y7u8i9o0p\n%s",
			"export SOPS_AGE_KEY=%s",
			"can you add my yubikey identity to the sops config? %s"),
		b3t("keymaterial", "age-key-envrc-and-ci", "AGE-SECRET-KEY-1 + 58 bech32, age's format (github.com/FiloSottile/age)",
			func(g *gen) string { return "AGE-SECRET-KEY-1" + bech(58)(g) },
			"# .envrc\nexport SOPS_AGE_KEY='%s'\nuse flake",
			"- name: decrypt\n  env:\n    SOPS_AGE_KEY: %s\n  run: sops -d secrets.enc.yaml > secrets.yaml",
			"docker run --rm -e SOPS_AGE_KEY=%s -v $PWD:/w mozilla/sops -d /w/prod.yaml",
			"echo '%s' > ~/.config/sops/age/keys.txt"),
		b3t("keymaterial", "wireguard-key-nix-networkd-routeros", "a WireGuard private key (base64 of 32 bytes) in NixOS, systemd-networkd, RouterOS and wg set",
			b64of(32),
			"networking.wireguard.interfaces.wg0 = {\n  ips = [ \"10.100.0.2/24\" ];\n  privateKey = \"%s\";\n};",
			"[NetDev]\nName=wg0\nKind=wireguard\n\n[WireGuard]\nPrivateKey=%s\nListenPort=51820",
			"/interface wireguard add listen-port=13231 name=wg1 private-key=\"%s\"",
			"wg set wg0 private-key <(echo %s) peer 8fKz...= allowed-ips 10.0.0.0/24"),
		b3f("keymaterial", "tor-hs-secret-key-base64-dump", "a Tor v3 hidden service's hs_ed25519_secret_key (its 32-byte header and 64-byte key) as base64", 4,
			func(g *gen, i int) (string, string) {
				s := base64.StdEncoding.EncodeToString(append(append([]byte{}, torHeader...), g.bytes(64)...))
				t := []string{
					"$ base64 -w0 /var/lib/tor/hidden_service/hs_ed25519_secret_key\n%s",
					"onion_secret_key_b64: \"%s\"  # restore to keep the same .onion",
					"apiVersion: v1\nkind: Secret\nmetadata:\n  name: onion-keys\ndata:\n  hs_ed25519_secret_key: %s",
					"here's the key of the shop onion so you can migrate it: %s",
				}[i]
				return strings.Replace(t, "%s", s, 1), s
			}),
		b3f("keymaterial", "putty-ppk-private-lines", "the Private-Lines of a PuTTY .ppk file (format of PuTTY's documentation, appendix C)", 3,
			func(g *gen, i int) (string, string) {
				pub := base64.StdEncoding.EncodeToString(append([]byte("\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"), g.bytes(32)...))
				priv := base64.StdEncoding.EncodeToString(append([]byte("\x00\x00\x00\x20"), g.bytes(32)...))
				mac := g.s(hexlc, 64)
				var t string
				switch i {
				case 0:
					t = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@build\nPublic-Lines: 2\n" + wrap(pub, 64) + "\nPrivate-Lines: 1\n" + priv + "\nPrivate-MAC: " + mac
				case 1:
					t = "PuTTY-User-Key-File-2: ssh-ed25519\nEncryption: none\nComment: imported-openssh-key\nPublic-Lines: 2\n" + wrap(pub, 64) + "\nPrivate-Lines: 1\n" + priv + "\nPrivate-MAC: " + mac[:40]
				default:
					t = "the ppk got mangled, only the private part survived: " + priv
				}
				return t, priv
			}),
		b3t("keymaterial", "jwks-okp-x25519-d", "the d member of an X25519 OKP JWK (RFC 8037) inside a key set", rawurl(32),
			"{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"X25519\",\"use\":\"enc\",\"kid\":\"2024-05\",\"x\":\"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo\",\"d\":\"%s\"}]}",
			"JWKS_PRIVATE='{\"kty\":\"OKP\",\"crv\":\"X25519\",\"d\":\"%s\",\"x\":\"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo\"}'",
			"key = {\"kty\": \"OKP\", \"crv\": \"X25519\", \"d\": \"%s\", \"x\": x_pub}"),
		b3t("keymaterial", "jwk-ec-p521-d", "the d member of a P-521 EC JWK (66 bytes, RFC 7518)", rawurl(66),
			"{\"kty\":\"EC\",\"crv\":\"P-521\",\"x\":\"AekpBQ8ST8a8VcfVOTNl353vSrDCLLJXmPk06wTjxrrjcBpXp5EOnYG_NjFZ6OvLFV1jSfS9tsz4qUxcWceqwQGk\",\"y\":\"ADSmRA43Z1DSNx_RvcLI87cdL07l6jQyyBXMoxVg_l2Th-x3S1WDhjDly79ajL4Kkd0AZMaZmh9ubmf63e3kyMj2\",\"d\":\"%s\"}",
			"variable \"signing_jwk_d\" {\n  default = \"%s\"\n}",
			"jwk.Set(\"d\", \"%s\") // P-521 signing key"),
		b3t("keymaterial", "pfx-base64-appsettings", "a PKCS#12 file as base64 (it starts MII) in .NET settings and az commands",
			func(g *gen) string { return "MIIK" + g.pick("YQIBAzCCCi", "fAIBAzCCCj", "mQIBAzCCCl") + g.b64(600) },
			"{\n  \"Kestrel\": {\n    \"Certificates\": {\n      \"Default\": { \"CertificateBase64\": \"%s\", \"Password\": \"\" }\n    }\n  }\n}",
			"az keyvault certificate import --vault-name kv-prod -n api-tls --file <(echo %s | base64 -d)",
			"SIGNING_CERT_P12=%s"),
		b3t("keymaterial", "signal-backup-passphrase", "a Signal backup passphrase: 30 digits in six groups of five (Signal support pages)",
			func(g *gen) string {
				p := make([]string, 6)
				for i := range p {
					p[i] = g.s(b3Dig, 5)
				}
				return strings.Join(p, " ")
			},
			"Signal backup code: %s",
			"the passphrase for signal-2024-03-11-09-12-44.backup is %s",
			"mật mã sao lưu Signal: %s"),
		b3t("keymaterial", "keybase-paper-key", "a Keybase paper key: 13 words (keybase.io docs)",
			func(g *gen) string { return b3words(g, b3PaperWords, 13, " ") },
			"keybase paper key (keep offline): %s",
			"$ keybase login --paperkey\nEnter paper key: %s",
			"backup phrase for keybase: \"%s\""),
		b3t("keymaterial", "bitwarden-cipherstring", "a Bitwarden CipherString (type 2: iv|ciphertext|mac as base64) from an encrypted export",
			func(g *gen) string { return "2." + g.b64(16) + "|" + g.b64(48) + "|" + g.b64(32) },
			"{\"encrypted\": true, \"passwordProtected\": false, \"encKeyValidation_DO_NOT_EDIT\": \"%s\"}",
			"\"login\": {\"username\": \"2.AAAAAAAAAAAAAAAAAAAAAA==|AAAA|AAAA\", \"password\": \"%s\"}",
			"my bw export has this for the db item: %s"),
		b3f("keymaterial", "lastpass-csv-export-row", "a row of a LastPass CSV export (url,username,password,totp,extra,name,grouping,fav)", 3,
			func(g *gen, i int) (string, string) {
				pw := b3pw(g)
				t := []string{
					"url,username,password,totp,extra,name,grouping,fav\nhttps://mail.corp.lan,jdoe," + pw + ",,,Corp mail,Work,0",
					"http://sn,,,,\"NoteType:Server\nHostname:10.0.4.2\nUsername:root\nPassword:" + pw + "\",db01,Servers,1",
					"https://bank.example,ana.r," + pw + ",JBSWY3DPEHPK3PXP,,Bank,Finance,1",
				}[i]
				return t, pw
			}),
		b3f("keymaterial", "keepass-xml-export-value", "a protected value of a KeePass 2 XML export", 3,
			func(g *gen, i int) (string, string) {
				pw := b3pw(g)
				t := []string{
					"<String><Key>Password</Key><Value ProtectInMemory=\"True\">" + pw + "</Value></String>",
					"<Entry><String><Key>Title</Key><Value>NAS</Value></String><String><Key>UserName</Key><Value>admin</Value></String><String><Key>Password</Key><Value ProtectInMemory=\"True\">" + pw + "</Value></String></Entry>",
					"kdbx xml dump: Key=Password Value=" + pw,
				}[i]
				return t, pw
			}),
		b3t("keymaterial", "wif-compressed-import", "a compressed WIF private key (K or L + 51 base58), bitcoin wiki",
			func(g *gen) string { return g.pick("K", "L") + g.s(b3B58, 51) },
			"bitcoin-cli importprivkey %s \"cold\" false",
			"electrum restore %s --offline",
			"wif: %s (the paper wallet from 2017)"),
		b3t("keymaterial", "xprv-in-output-descriptor", "an xprv (111 base58 characters) in a wallet output descriptor",
			func(g *gen) string { return "xprv9s21ZrQH143K" + g.s(b3B58, 95) },
			"bitcoin-cli importdescriptors '[{\"desc\":\"wpkh(%s/84h/0h/0h/0/*)#f4k3ch3k\",\"timestamp\":\"now\"}]'",
			"descriptor = \"tr(%s/86h/0h/0h/1/*)\"",
			"sparrow export master key: %s"),
		b3t("keymaterial", "bip39-spanish-mnemonic", "a 12-word recovery phrase of Spanish words (BIP-39 has a Spanish list)",
			func(g *gen) string { return b3words(g, b3EsWords, 12, " ") },
			"Frase de recuperación de la billetera: %s",
			"semilla: %s — guárdala en papel",
			"mnemonic (es): %s"),
		b3t("keymaterial", "bip39-french-mnemonic", "a 12-word recovery phrase of French words (BIP-39 has a French list)",
			func(g *gen) string { return b3words(g, b3FrWords, 12, " ") },
			"Phrase de récupération du portefeuille : %s",
			"les 12 mots : %s",
			"seed fr = \"%s\""),
		b3t("keymaterial", "bip39-japanese-mnemonic", "a 12-word recovery phrase of Japanese kana words joined by ideographic spaces (BIP-39's Japanese list)",
			func(g *gen) string { return b3words(g, b3JaWords, 12, "\u3000") },
			"復元フレーズ：%s",
			"ウォレットのシード %s を紙に書いておいて",
			"mnemonic_ja: %s"),
		b3t("keymaterial", "bip39-chinese-mnemonic", "a 12-character recovery phrase of Chinese characters (BIP-39's Chinese lists)",
			func(g *gen) string { return b3words(g, b3ZhWords, 12, " ") },
			"助记词：%s",
			"钱包恢复短语是 %s，别发给别人",
			"seed(zh): %s"),
		b3t("keymaterial", "bip39-korean-mnemonic", "a 12-word recovery phrase of Korean words (BIP-39's Korean list)",
			func(g *gen) string { return b3words(g, b3KoWords, 12, " ") },
			"복구 구문: %s",
			"지갑 시드 %s 종이에 적어둬",
			"mnemonic_ko = \"%s\""),
		b3t("keymaterial", "tezos-edsk-secret", "a Tezos unencrypted secret key (edsk + 50 base58), octez client docs",
			func(g *gen) string { return "edsk" + g.s(b3B58, 50) },
			"octez-client import secret key baker unencrypted:%s",
			"TEZOS_SECRET_KEY=%s",
			"the taquito signer needs InMemorySigner.fromSecretKey('%s')"),
		b3t("keymaterial", "cardano-ed25519e-sk", "a Cardano extended signing key in bech32 (ed25519e_sk1...), cardano-addresses docs",
			func(g *gen) string { return "ed25519e_sk1" + g.s(bech32, 150) },
			"{\"type\": \"PaymentExtendedSigningKeyShelley_ed25519_bip32\", \"description\": \"\", \"bech32\": \"%s\"}",
			"cardano-address key inspect <<< %s",
			"payment.xsk: %s"),
		b3f("keymaterial", "tendermint-armored-key", "a Cosmos SDK keyring export (TENDERMINT PRIVATE KEY armor with kdf and salt headers)", 3,
			func(g *gen, i int) (string, string) {
				body := g.b64(96)
				armor := "-----BEGIN TENDERMINT PRIVATE KEY-----\nkdf: bcrypt\nsalt: " + g.s(b3HexUp, 32) + "\ntype: secp256k1\n\n" + wrap(body, 64) + "\n=" + g.s(alnum, 4) + "\n-----END TENDERMINT PRIVATE KEY-----"
				secret := wrap(body, 64)
				t := []string{
					"$ gaiad keys export validator\n" + armor,
					"VALIDATOR_KEY_ARMOR: |\n  " + strings.ReplaceAll(armor, "\n", "\n  "),
					"exported it, here:\n" + armor + "\npassphrase is in 1password",
				}[i]
				if i == 1 {
					secret = strings.ReplaceAll(secret, "\n", "\n  ")
				}
				return t, secret
			}),
		b3f("keymaterial", "cloudflare-tunnel-token", "a cloudflared tunnel token: base64 of {\"a\":account,\"t\":tunnel,\"s\":secret}, Cloudflare Zero Trust docs", 4,
			func(g *gen, i int) (string, string) {
				tokJSON := `{"a":"` + g.s(hexlc, 32) + `","t":"` + b3uuid(g) + `","s":"` + g.b64(32) + `"}`
				s := base64.StdEncoding.EncodeToString([]byte(tokJSON))
				t := []string{
					"sudo cloudflared service install %s",
					"docker run -d cloudflare/cloudflared:latest tunnel --no-autoupdate run --token %s",
					"services:\n  tunnel:\n    image: cloudflare/cloudflared\n    command: tunnel run\n    environment:\n      - TUNNEL_TOKEN=%s",
					"TUNNEL_TOKEN=%s",
				}[i]
				return strings.Replace(t, "%s", s, 1), s
			}),
		b3t("keymaterial", "gpg-secret-export-base64-ci", "an exported OpenPGP secret key as base64 (it starts lQ for a 0x95 packet) in CI",
			func(g *gen) string { return "lQ" + g.pick("dGBG", "VYBG", "OYBG") + g.b64(420) },
			"- name: import gpg key\n  run: echo \"%s\" | base64 -d | gpg --batch --import",
			"GPG_SIGNING_KEY=%s",
			"signing:\n  key: %s\n  keyId: 5A1C3E7F"),
	}
	return ks
}

// b3enc is a kind whose secret is enc of a fresh password (or of a line holding one), written in
// the texts given.
func b3enc(name, source string, plain func(g *gen) string, enc func(string) string, texts ...string) b3Kind {
	return b3t("encoded", name, source, func(g *gen) string { return enc(plain(g)) }, texts...)
}

func b3Encoded() []b3Kind {
	pw := b3pw
	line := func(label string) func(g *gen) string {
		return func(g *gen) string { return label + b3pw(g) }
	}
	sep := func(s, by string) string {
		r := []rune(s)
		out := make([]string, len(r))
		for i, c := range r {
			out[i] = string(c)
		}
		return strings.Join(out, by)
	}
	return []b3Kind{
		b3enc("rot13-password-said", "a password under rot13", pw, b3rot13,
			"rot13'd so the bot won't eat it: %s",
			"pw (rot13): %s",
			"echo '%s' | tr 'A-Za-z' 'N-ZA-Mn-za-m'"),
		b3enc("reversed-password-said", "a password written backwards", pw, b3reverse,
			"read it backwards: %s",
			"reversed pw -> %s",
			"password = '%s'[::-1]"),
		b3enc("ascii85-credential-line", "Ascii85 of a credential line", line("db_password="),
			func(s string) string { return b3a85([]byte(s)) },
			"<~%s~>",
			"python3 -c 'import base64;print(base64.a85decode(r\"%s\"))'",
			"a85 of the prod creds: %s"),
		b3t("encoded", "zmq-curve-secret-z85", "a ZeroMQ CURVE secret key: Z85 of 32 bytes (40 characters), ZeroMQ RFC 32",
			func(g *gen) string { return b3z85(g.bytes(32)) },
			"curve_secretkey = \"%s\"",
			"ZMQ_CURVE_SECRETKEY=%s",
			"socket.curve_secretkey = b\"%s\"",
			"# zmq server.key_secret\nsecret-key = \"%s\""),
		b3enc("z85-of-password", "Z85 of a password", line("pass:"),
			func(s string) string { return b3z85([]byte(s)) },
			"z85: %s",
			"zmq.utils.z85.decode(b'%s')",
			"the token is z85-encoded: %s"),
		b3enc("base45-credential", "base45 (RFC 9285) of a credential line", line("admin:"),
			func(s string) string { return b3b45([]byte(s)) },
			"base45: %s",
			"QR payload (base45) %s",
			"python -m base45 --decode '%s'"),
		b3enc("base58-of-password", "base58 of a password", pw,
			func(s string) string { return b3b58([]byte(s)) },
			"b58: %s",
			"base58 decode %s and you have the root pw",
			"secret_b58 = \"%s\""),
		b3enc("base32-of-user-pass", "base32 of user:password", line("svc_backup:"),
			func(s string) string { return base32.StdEncoding.EncodeToString([]byte(s)) },
			"creds (base32): %s",
			"echo %s | base32 -d",
			"AUTH_B32=%s"),
		b3enc("hex-of-credential-text", "hex of a credential line", line("password="),
			func(s string) string { return hex.EncodeToString([]byte(s)) },
			"0x%s",
			"xxd -r -p <<< %s",
			"payload hex: %s"),
		b3enc("hex-spaced-bytes-of-password", "hex bytes of a password separated by spaces", pw,
			func(s string) string { return b3codes(s, " ", "%02x") },
			"hexdump of the pw: %s",
			"printf '%s' | xxd -r -p",
			"bytes: %s"),
		b3enc("url-encoded-twice-password", "a password URL-encoded twice in a redirect", line("p@ss/"),
			func(s string) string { return url.QueryEscape(url.QueryEscape(s)) },
			"https://sso.corp.lan/login?next=%2Fcallback%3Fpw%3D%s",
			"GET /redirect?to=https%253A%252F%252Fapp%252F%253Fpassword%253D%s HTTP/1.1",
			"password (double-escaped in the log): %s"),
		b3enc("html-decimal-entities-password", "a password as HTML decimal entities", pw,
			func(s string) string { return b3codes(s, "", "&#%d;") },
			"<p>Your temporary password: <b>%s</b></p>",
			"<input type=\"hidden\" name=\"pw\" value=\"%s\">",
			"pw in the email source: %s"),
		b3enc("unicode-escaped-every-char", "a password with every character as a \\u escape", pw,
			func(s string) string { return b3codes(s, "", "\\u%04x") },
			"{\"password\": \"%s\"}",
			"db.password=%s",
			"String pw = \"%s\";"),
		b3enc("octal-escaped-password", "a password as octal escapes", pw,
			func(s string) string { return b3codes(s, "", "\\%03o") },
			"printf '%s' | sudo -S true",
			"char pw[] = \"%s\";",
			"PASS=$'%s'"),
		b3enc("js-fromcharcode-password", "a password as String.fromCharCode codes", pw,
			func(s string) string { return b3codes(s, ",", "%d") },
			"const pw = String.fromCharCode(%s);",
			"eval(String.fromCharCode(%s))",
			"login(user, String.fromCharCode(%s))"),
		b3enc("python-bytes-list-password", "a password as a Python bytes([...]) list", pw,
			func(s string) string { return b3codes(s, ", ", "%d") },
			"PASSWORD = bytes([%s]).decode()",
			"conn = connect(user='etl', password=bytes([%s]).decode('ascii'))",
			"pw = ''.join(map(chr, [%s]))"),
		b3enc("sql-char-function-password", "a password as SQL CHAR() codes", pw,
			func(s string) string { return "CHAR(" + b3codes(s, ",", "%d") + ")" },
			"UPDATE users SET password = %s WHERE id = 1;",
			"SELECT %s AS pw;",
			"ALTER LOGIN app WITH PASSWORD = %s"),
		b3enc("java-char-array-password", "a password as a Java char array", pw,
			func(s string) string { return b3codes(s, ",", "'%c'") },
			"char[] pw = new char[]{%s};",
			"ks.load(in, new char[]{%s});",
			"final char[] KEYSTORE_PASS = {%s};"),
		b3enc("powershell-encodedcommand-creds", "a PowerShell -EncodedCommand (base64 of UTF-16LE) holding a password",
			func(g *gen) string {
				return "$p = ConvertTo-SecureString '" + b3pw(g) + "' -AsPlainText -Force; New-PSDrive -Name X -PSProvider FileSystem -Root \\\\fs01\\share -Credential (New-Object PSCredential('CORP\\svc', $p))"
			}, b3utf16b64,
			"powershell.exe -NoProfile -EncodedCommand %s",
			"pwsh -enc %s",
			"schtasks /create /tn map /tr \"powershell -e %s\" /sc onlogon"),
		b3enc("gzip-base64-env-file", "gzip then base64 of an env file", func(g *gen) string {
			return "DB_HOST=db.internal\nDB_PASSWORD=" + b3pw(g) + "\n"
		}, b3gzb64,
			"ENV_GZ=%s",
			"echo %s | base64 -d | gunzip > .env",
			"config_blob: \"%s\""),
		b3f("encoded", "quoted-printable-mail-password", "a password with '=' and accents in a quoted-printable mail body", 3,
			func(g *gen, i int) (string, string) {
				p := g.pick("Mañana", "Société", "Übergröße", "Ørkenløve") + "=" + g.s(b3Dig, 4) + g.pick("ç", "é", "ü") + g.s(alnum, 3)
				q := b3qp(p)
				t := []string{
					"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nYour new password is " + q + "\nPlease change it.",
					"raw mail: Contrase=C3=B1a: " + q,
					"QP body says: pw " + q,
				}[i]
				return t, q
			}),
		b3f("encoded", "uuencoded-credentials-file", "uuencode of a credentials file", 3,
			func(g *gen, i int) (string, string) {
				l := b3uu([]byte("user=root\npass=" + b3pw(g) + "\n"))
				t := []string{
					"begin 644 creds.txt\n" + l + "\n`\nend",
					"uudecode this:\nbegin 600 .my.cnf\n" + l + "\n`\nend",
					"the attachment was uuencoded: " + l,
				}[i]
				return t, l
			}),
		b3enc("zero-width-inside-password", "a password with zero-width spaces between its characters", pw,
			func(s string) string { return sep(s, "\u200b") },
			"password: %s",
			"the new one is %s",
			"wifi → %s"),
		b3enc("spaced-out-password", "a password with a space between every character", pw,
			func(s string) string { return sep(s, " ") },
			"password is %s (without the spaces)",
			"p w :  %s",
			"spelled out: %s"),
		b3f("encoded", "concatenated-literals-across-lines", "a key split into string literals over several lines; the middle piece is labelled", 4,
			func(g *gen, i int) (string, string) {
				a, b, c := g.s(alnum, 12), g.s(alnum, 12), g.s(alnum, 12)
				t := []string{
					"const apiKey = \"" + a + "\" +\n  \"" + b + "\" +\n  \"" + c + "\";",
					"API_KEY = (\n    \"" + a + "\"\n    \"" + b + "\"\n    \"" + c + "\"\n)",
					"key := \"" + a + "\" +\n\t\"" + b + "\" +\n\t\"" + c + "\"",
					"sb.append(\"" + a + "\");\nsb.append(\"" + b + "\");\nsb.append(\"" + c + "\"); // db password",
				}[i]
				return t, b
			}),
		b3enc("base64-reversed-password", "base64 of a password, then reversed", line("pw:"),
			func(s string) string { return b3reverse(base64.StdEncoding.EncodeToString([]byte(s))) },
			"decode = atob(s.split('').reverse().join('')) // s = '%s'",
			"rev | base64 -d <<< %s",
			"obf: %s"),
		b3enc("base64url-json-credentials", "unpadded base64url of a JSON object holding a password", func(g *gen) string {
			return `{"u":"ops","p":"` + b3pw(g) + `"}`
		}, func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) },
			"https://app.example/sso?state=%s",
			"Set-Cookie: remember=%s; Path=/",
			"creds blob %s"),
		b3enc("binary-bits-password", "a password as 8-bit binary groups", pw,
			func(s string) string { return b3codes(s, " ", "%08b") },
			"binary: %s",
			"decode this for the pw %s",
			"bits=%s"),
		b3enc("csharp-frombase64-literal", "a password in Convert.FromBase64String in C#", pw,
			func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
			"var pw = Encoding.UTF8.GetString(Convert.FromBase64String(\"%s\"));",
			"new NetworkCredential(\"svc\", Encoding.ASCII.GetString(Convert.FromBase64String(\"%s\")))",
			"[System.Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('%s'))"),
		b3enc("homoglyph-password-in-config", "a config password with Cyrillic look-alike letters", func(g *gen) string { return b3pwHG(g) }, b3homoglyph,
			"DB_PASSWORD=%s",
			"password: \"%s\"",
			"<add key=\"SmtpPassword\" value=\"%s\" />"),
	}
}

func b3Configs() []b3Kind {
	pw := b3pw
	c := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b3t("config", name, source, body, texts...)
	}
	b64pair := func(user string) func(*gen) string {
		return func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(user + ":" + b3pw(g))) }
	}
	return []b3Kind{
		c("netrc-machine-lines", "~/.netrc (ftp(1), curl --netrc)", pw,
			"machine ftp.corp.lan login backup password %s",
			"machine api.heroku.com\n  login ops@corp.lan\n  password %s",
			"default login anonymous password %s",
			"# ~/.netrc\nmachine git.home.lan login ci password %s\nmachine nexus.home.lan login ci password hunter-two"),
		c("pgpass-colon-line", "~/.pgpass (host:port:database:user:password), PostgreSQL docs", pw,
			"db01.corp.lan:5432:billing:app:%s",
			"*:*:*:replicator:%s",
			"echo 'localhost:6432:*:pgbouncer:%s' >> ~/.pgpass && chmod 600 ~/.pgpass"),
		c("mysql-option-file-client", "~/.my.cnf and mysql --defaults-extra-file sections", pw,
			"[client]\nuser=root\npassword=%s\nhost=127.0.0.1",
			"[mysqldump]\nuser=backup\npassword=\"%s\"",
			"[mariadb-client]\npassword = %s\nsocket = /run/mysqld/mysqld.sock"),
		c("pip-conf-index-credentials", "pip.conf / PIP_INDEX_URL with credentials in the URL", pw,
			"[global]\nindex-url = https://deploy:%s@pypi.corp.lan/simple/",
			"PIP_EXTRA_INDEX_URL=https://__token__:%s@gitlab.corp.lan/api/v4/projects/42/packages/pypi/simple",
			"pip install --index-url https://ci:%s@nexus.corp.lan/repository/pypi/simple internal-lib"),
		c("npmrc-password-base64", ".npmrc _password (base64) and _auth, npm docs (npmrc)", func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(b3pw(g))) },
			"//nexus.corp.lan/repository/npm/:username=ci\n//nexus.corp.lan/repository/npm/:_password=%s",
			"_auth=%s\nalways-auth=true",
			"//registry.corp.lan/:_password=\"%s\"\n//registry.corp.lan/:email=ci@corp.lan"),
		c("pypirc-repository-password", "~/.pypirc sections, packaging.python.org", pw,
			"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.corp.lan/\nusername = uploader\npassword = %s",
			"[testpypi]\nusername = ana\npassword = %s",
			"twine upload -r internal -u uploader -p %s dist/*"),
		c("maven-settings-server-password", "Maven settings.xml <server> credentials, maven.apache.org", pw,
			"<servers>\n  <server>\n    <id>corp-releases</id>\n    <username>deployer</username>\n    <password>%s</password>\n  </server>\n</servers>",
			"<server><id>docker-hub</id><username>corp</username><password>%s</password></server>",
			"mvn deploy -Drepo.password=%s -Drepo.user=deployer"),
		c("docker-config-auth-b64", "~/.docker/config.json auths.<host>.auth = base64(user:password)", b64pair("ci-bot"),
			"{\n  \"auths\": {\n    \"registry.corp.lan\": {\n      \"auth\": \"%s\"\n    }\n  }\n}",
			"DOCKER_AUTH_CONFIG={\"auths\":{\"ghcr.io\":{\"auth\":\"%s\"}}}",
			"kubectl create secret generic regcred --from-literal=.dockerconfigjson='{\"auths\":{\"quay.io\":{\"auth\":\"%s\"}}}'"),
		c("kubeconfig-user-token", "kubeconfig users[].user.token (a service account JWT)", func(g *gen) string {
			return "eyJhbGciOiJSUzI1NiIsImtpZCI6I" + g.s(b64url, 40) + "." + g.s(b64url, 220) + "." + g.s(b64url, 342)
		},
			"users:\n- name: ci\n  user:\n    token: %s",
			"kubectl config set-credentials ci --token=%s",
			"KUBE_TOKEN=%s kubectl --server=https://10.0.0.1:6443 get pods"),
		c("ansible-vault-password-and-become", "an Ansible vault password file, ansible_become_pass and --vault-password-file", pw,
			"$ cat ~/.vault_pass.txt\n%s",
			"[webservers:vars]\nansible_become_pass=%s",
			"echo '%s' > /tmp/vp && ansible-playbook site.yml --vault-password-file /tmp/vp"),
		c("rclone-conf-secrets", "rclone.conf remote sections (secret_access_key, pass, token)", func(g *gen) string { return g.s(alnum+"/+", 40) },
			"[wasabi]\ntype = s3\nprovider = Wasabi\naccess_key_id = WK3J7Q2M4X9ZB1C3D5E6\nsecret_access_key = %s\nendpoint = s3.eu-central-1.wasabisys.com",
			"[b2]\ntype = b2\naccount = 0012ab34cd56\nkey = %s",
			"RCLONE_CONFIG_MINIO_SECRET_ACCESS_KEY=%s rclone ls minio:backups"),
		c("s3cmd-s3cfg", "s3cmd ~/.s3cfg [default] keys", func(g *gen) string { return g.s(alnum+"/+", 40) },
			"[default]\naccess_key = AKIA4Q2M4X9ZB1C3D5E6\nsecret_key = %s\nhost_base = s3.amazonaws.com",
			"s3cmd --access_key=AKIA4Q2M4X9ZB1C3D5E6 --secret_key=%s ls s3://logs",
			"# .s3cfg for ceph\nsecret_key = %s\nhost_base = rgw.corp.lan"),
		c("wpa-supplicant-psk", "wpa_supplicant.conf network blocks (psk as passphrase or 64 hex)", pw,
			"network={\n    ssid=\"Office-5G\"\n    psk=\"%s\"\n    key_mgmt=WPA-PSK\n}",
			"wpa_passphrase Office-5G '%s' >> /etc/wpa_supplicant/wpa_supplicant.conf",
			"network={\n  ssid=\"corp\"\n  key_mgmt=WPA-EAP\n  eap=PEAP\n  identity=\"jdoe\"\n  password=\"%s\"\n}"),
		c("networkmanager-keyfile-psk", "NetworkManager keyfile [wifi-security] psk= and nmcli", pw,
			"[wifi-security]\nkey-mgmt=wpa-psk\npsk=%s",
			"nmcli dev wifi connect Office-5G password '%s'",
			"[802-1x]\neap=peap;\nidentity=jdoe\npassword=%s\nphase2-auth=mschapv2"),
		c("openvpn-auth-user-pass", "an OpenVPN auth-user-pass file (user on line 1, password on line 2) and <auth-user-pass> inline", pw,
			"$ cat /etc/openvpn/client/auth.txt\nvpnuser\n%s",
			"<auth-user-pass>\njdoe\n%s\n</auth-user-pass>",
			"printf 'jdoe\\n%s\\n' > creds && openvpn --config corp.ovpn --auth-user-pass creds"),
		c("gradle-properties-signing", "gradle.properties keystore and signing passwords", pw,
			"RELEASE_STORE_FILE=release.jks\nRELEASE_STORE_PASSWORD=%s\nRELEASE_KEY_ALIAS=upload",
			"signing.keyId=5A1C3E7F\nsigning.password=%s\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
			"./gradlew assembleRelease -Pandroid.injected.signing.store.password=%s"),
		c("dotenv-export-lines", ".env files with export and quotes", pw,
			"export DATABASE_PASSWORD=\"%s\"",
			"export SMTP_PASS='%s' # prod",
			"set -a; SECRET_PASSPHRASE=%s; set +a"),
		c("systemd-environment-line", "systemd unit Environment= and EnvironmentFile lines", pw,
			"[Service]\nEnvironment=\"DB_PASS=%s\"\nExecStart=/usr/local/bin/api",
			"Environment=PGPASSWORD=%s",
			"systemctl set-environment REDIS_PASSWORD=%s"),
		c("crontab-inline-password", "crontab lines that carry a password on the command line", pw,
			"0 3 * * * mysqldump -u backup -p'%s' --all-databases | gzip > /backup/all.sql.gz",
			"*/15 * * * * curl -s -u monitor:%s https://status.corp.lan/ping",
			"@daily PGPASSWORD=%s pg_dump -h db01 billing > /srv/dump.sql"),
		c("jdbc-odbc-connection-strings", "JDBC URLs and ODBC connection strings with passwords", pw,
			"jdbc:sqlserver://db01.corp.lan:1433;databaseName=erp;user=erp_app;password=%s;encrypt=true",
			"Driver={ODBC Driver 18 for SQL Server};Server=tcp:db01,1433;Uid=report;Pwd=%s;",
			"jdbc:oracle:thin:scott/%s@//ora01.corp.lan:1521/ORCLPDB1",
			"DSN=warehouse;UID=etl;PWD={%s}"),
		c("ldap-bind-credentials", "LDAP bind passwords in ldapsearch, sssd.conf and nslcd.conf", pw,
			"ldapsearch -x -H ldaps://dc01.corp.lan -D 'cn=svc-ldap,ou=svc,dc=corp,dc=lan' -w '%s' '(uid=jdoe)'",
			"[domain/corp.lan]\nldap_default_bind_dn = cn=svc-ldap,ou=svc,dc=corp,dc=lan\nldap_default_authtok = %s",
			"binddn cn=nslcd,dc=corp,dc=lan\nbindpw %s"),
		c("snmp-community-and-v3", "SNMP community strings and SNMPv3 auth passphrases", pw,
			"rocommunity %s 10.0.0.0/8",
			"snmpwalk -v2c -c %s 10.0.4.1 ifDescr",
			"createUser monitor SHA \"%s\" AES \"priv-from-vault\"",
			"snmp-server community %s RO 10"),
		c("ipmitool-password", "IPMI passwords on ipmitool command lines and BMC configs", pw,
			"ipmitool -I lanplus -H 10.0.9.21 -U ADMIN -P '%s' chassis power status",
			"IPMI_PASSWORD=%s ipmitool -E -H bmc01 sdr list",
			"ipmitool user set password 2 %s"),
		c("radius-shared-secret", "RADIUS client shared secrets (FreeRADIUS clients.conf, switch configs)", pw,
			"client office-ap {\n    ipaddr = 10.0.20.0/24\n    secret = %s\n}",
			"radius-server host 10.0.0.5 auth-port 1812 key %s",
			"radius server corp\n address ipv4 10.0.0.5 auth-port 1812 acct-port 1813\n key %s"),
		c("cisco-type7-and-secrets", "Cisco IOS type 7 passwords and tacacs keys (type 7 is reversible)", func(g *gen) string {
			return g.pick("02", "05", "08", "11", "14") + g.s(b3HexUp, 22)
		},
			"username netadmin privilege 15 password 7 %s",
			"enable password 7 %s",
			"tacacs-server host 10.0.0.7 key 7 %s"),
		c("cisco-enable-secret-cleartext", "Cisco and Juniper configs with cleartext secrets", pw,
			"enable secret 0 %s",
			"username backup privilege 15 secret 0 %s",
			"set system root-authentication plain-text-password-value \"%s\""),
		c("terraform-tfvars-password", "terraform.tfvars and -var flags", pw,
			"db_admin_password = \"%s\"\nregion = \"eu-west-1\"",
			"terraform apply -var 'rds_master_password=%s'",
			"TF_VAR_vsphere_password=%s terraform plan"),
		c("helm-values-credentials", "Helm values.yaml and --set flags", pw,
			"postgresql:\n  auth:\n    postgresPassword: %s\n    database: app",
			"helm upgrade --install redis bitnami/redis --set auth.password=%s",
			"grafana:\n  adminUser: admin\n  adminPassword: \"%s\""),
		c("vault-token-hvs-and-legacy", "HashiCorp Vault tokens (hvs. + 90 characters; legacy s. + 24), developer.hashicorp.com", func(g *gen) string {
			return g.pick("hvs.CAES", "hvb.AAAA") + g.s(b64url, 88)
		},
			"export VAULT_TOKEN=%s",
			"vault login %s",
			"curl -H \"X-Vault-Token: %s\" https://vault.corp.lan:8200/v1/secret/data/app"),
		c("consul-acl-token", "Consul ACL tokens (UUIDs) in config, env and headers", b3uuid,
			"acl {\n  enabled = true\n  tokens {\n    agent = \"%s\"\n  }\n}",
			"CONSUL_HTTP_TOKEN=%s consul members",
			"curl -H 'X-Consul-Token: %s' http://127.0.0.1:8500/v1/kv/app/config"),
		c("samba-cifs-credentials-file", "a cifs credentials file and mount -o password=", pw,
			"$ cat /root/.smbcred\nusername=svc_scan\npassword=%s\ndomain=CORP",
			"mount -t cifs //fs01/scans /mnt/scans -o username=svc_scan,password=%s,vers=3.0",
			"//fs01/share /mnt/share cifs user=jdoe,pass=%s,uid=1000 0 0"),
		c("postfix-sasl-map-and-msmtprc", "Postfix sasl_passwd maps and msmtprc", pw,
			"[smtp.relay.example]:587 relay@corp.lan:%s",
			"account default\nhost smtp.relay.example\nuser relay@corp.lan\npassword %s",
			"set smtp_pass = \"%s\"\nset imap_pass = \"$smtp_pass\""),
		c("git-credential-store-line", "~/.git-credentials lines (https://user:password@host)", pw,
			"https://jdoe:%s@git.corp.lan",
			"$ cat ~/.git-credentials\nhttps://oauth2:%s@gitlab.corp.lan",
			"git clone https://deploy:%s@bitbucket.corp.lan/scm/app/api.git"),
		c("filezilla-sitemanager-base64", "FileZilla sitemanager.xml <Pass encoding=\"base64\">", func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(b3pw(g))) },
			"<Server><Host>ftp.corp.lan</Host><Port>21</Port><User>upload</User><Pass encoding=\"base64\">%s</Pass></Server>",
			"<Pass encoding=\"base64\">%s</Pass>",
			"exported from filezilla: Pass=%s (base64)"),
		c("windows-unattend-admin-password", "Windows unattend.xml passwords (PlainText true)", pw,
			"<AdministratorPassword>\n  <Value>%s</Value>\n  <PlainText>true</PlainText>\n</AdministratorPassword>",
			"<AutoLogon><Password><Value>%s</Value><PlainText>true</PlainText></Password><Username>kiosk</Username></AutoLogon>",
			"<LocalAccount><Password><Value>%s</Value><PlainText>true</PlainText></Password><Name>support</Name></LocalAccount>"),
		c("wp-config-define-db-password", "wp-config.php define() of DB_PASSWORD and salts", pw,
			"define( 'DB_PASSWORD', '%s' );",
			"define('DB_USER', 'wp');\ndefine('DB_PASSWORD', \"%s\");",
			"$table_prefix = 'wp_'; define( 'DB_PASSWORD', '%s' ); // staging"),
		c("restic-borg-passphrases", "backup repository passphrases (RESTIC_PASSWORD, BORG_PASSPHRASE, duplicity PASSPHRASE)", pw,
			"RESTIC_PASSWORD=%s restic -r s3:s3.amazonaws.com/backups snapshots",
			"export BORG_PASSPHRASE='%s'\nborg create ::'{hostname}-{now}' /etc /home",
			"PASSPHRASE=%s duplicity /srv sftp://backup@nas//backups"),
		c("grafana-ini-admin-password", "grafana.ini [security] admin_password and GF_ env", pw,
			"[security]\nadmin_user = admin\nadmin_password = %s",
			"GF_SECURITY_ADMIN_PASSWORD=%s",
			"docker run -e GF_SECURITY_ADMIN_PASSWORD=%s grafana/grafana"),
		c("kafka-ssl-store-passwords", "Kafka client properties store passwords", pw,
			"ssl.truststore.password=%s\nssl.keystore.location=/etc/kafka/client.jks",
			"ssl.key.password=%s",
			"KAFKA_SSL_KEYSTORE_PASSWORD=%s"),
	}
}

func b3Fields() []b3Kind {
	pw := b3pw
	f := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b3t("fields", name, source, body, texts...)
	}
	return []b3Kind{
		f("http-basic-in-dumps", "Authorization: Basic in HTTP dumps of several tools", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(g.pick("admin", "svc-sync", "jenkins") + ":" + b3pw(g)))
		},
			"> GET /api/v1/status HTTP/1.1\n> Host: nas.home.lan\n> Authorization: Basic %s\n> User-Agent: curl/8.5.0",
			"[mitmproxy] GET https://router.lan/cgi-bin/luci\n    Authorization: Basic %s",
			"2024-05-11T08:02:11Z DEBUG http.request headers={'Authorization': 'Basic %s', 'Accept': '*/*'}"),
		f("ntlm-type3-authorization", "Authorization: NTLM with a type 3 message (base64 starting TlRMTVNTUAADAAAA)", func(g *gen) string {
			return "TlRMTVNTUAADAAAAGAAYAEgAAAAYABgAYAAAA" + g.b64(180)
		},
			"Authorization: NTLM %s",
			"Proxy-Authorization: NTLM %s",
			"WWW-Authenticate round 2 -> client sent NTLM %s"),
		f("negotiate-kerberos-authorization", "Authorization: Negotiate with a SPNEGO token (base64 starting YII)", func(g *gen) string {
			return "YIIH" + g.s(alnum, 2) + "YGKwYBBQUCoIIH" + g.b64(300)
		},
			"Authorization: Negotiate %s",
			"curl --negotiate -v ... > Authorization: Negotiate %s",
			"[iis] cs(Authorization)=Negotiate+%s"),
		f("hawk-authorization-mac", "Authorization: Hawk id, ts, nonce and mac (the mac as labelled)", func(g *gen) string { return g.b64(32) },
			"Authorization: Hawk id=\"dh37fgj492je\", ts=\"1353832234\", nonce=\"j4h3g2\", mac=\"%s\"",
			"hawk header: mac=\"%s\" ext=\"some-app-ext-data\"",
			"Server-Authorization: Hawk mac=\"%s\""),
		f("aws-sigv4-signature", "an AWS Signature Version 4 (Authorization header and X-Amz-Signature), AWS docs", func(g *gen) string { return g.s(hexlc, 64) },
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIAQ2M4X9ZB1C3D5E6F/20240511/eu-west-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=%s",
			"https://bucket.s3.eu-west-1.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAQ2M4X9ZB1C3D5E6F%2F20240511%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240511T080000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=%s",
			"DEBUG botocore.auth: Signature:\n%s"),
		f("digest-authorization-response", "Authorization: Digest (the response hash and its nonce come with the user name)", func(g *gen) string { return g.s(hexlc, 32) },
			"Authorization: Digest username=\"admin\", realm=\"camera\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", uri=\"/ISAPI/System/deviceInfo\", qop=auth, nc=00000001, cnonce=\"0a4f113b\", response=\"%s\"",
			"digest auth ok: response=%s user=admin",
			"Proxy-Authorization: Digest username=\"jdoe\", response=\"%s\", algorithm=MD5"),
		f("custom-x-key-headers", "custom API key headers of many services in request dumps", func(g *gen) string { return g.s(alnum, 36) },
			"X-Api-Key: %s",
			"X-Redmine-API-Key: %s",
			"X-Emby-Token: %s",
			"apikey: %s\nHost: gateway.corp.lan",
			"X-TrackerToken: %s"),
		f("private-token-gitlab-header", "PRIVATE-TOKEN and Job-Token headers with bodies without their prefix", func(g *gen) string { return g.s(alnum+"_-", 20) },
			"curl --header \"PRIVATE-TOKEN: %s\" https://gitlab.corp.lan/api/v4/projects",
			"PRIVATE-TOKEN: %s",
			"requests.get(url, headers={\"PRIVATE-TOKEN\": \"%s\"})"),
		f("framework-session-cookies", "session cookies of web frameworks in Cookie and Set-Cookie headers", func(g *gen) string {
			return g.s(b64url, 40) + "." + g.s(b64url, 27)
		},
			"Cookie: connect.sid=s%3A%s",
			"Set-Cookie: _gitlab_session=%s; path=/; secure; HttpOnly",
			"Cookie: remember_user_token=%s; locale=en",
			"Set-Cookie: .AspNetCore.Identity.Application=%s; path=/; samesite=lax"),
		f("wordpress-logged-in-cookie", "the wordpress_logged_in_<hash> cookie (user|expiry|token|hmac)", func(g *gen) string {
			return "editor%7C1716000000%7C" + g.s(alnum, 43) + "%7C" + g.s(hexlc, 64)
		},
			"Cookie: wordpress_logged_in_5c016e8f0f95f039102cbe8366c5c7f3=%s",
			"Set-Cookie: wordpress_logged_in_a1b2c3=%s; path=/; HttpOnly",
			"document.cookie -> \"wordpress_logged_in_0f=%s\""),
		f("query-string-secrets-access-log", "secrets in query strings of access logs", func(g *gen) string { return g.s(alnum, 32) },
			"10.0.0.7 - - [11/May/2024:08:02:11 +0000] \"GET /api/export?api_key=%s&format=csv HTTP/1.1\" 200 5123",
			"10.0.0.9 - - [11/May/2024:08:03:40 +0000] \"GET /login?user=jdoe&password=%s HTTP/1.1\" 302 0",
			"{\"msg\":\"request\",\"url\":\"/v1/hook?token=%s\",\"status\":204}",
			"GET /rss?feed=all&key=%s HTTP/2"),
		f("oauth-token-responses-zoho-keycloak", "JSON token responses (Zoho 1000.x.y refresh tokens, Keycloak and Cognito shapes)", func(g *gen) string {
			return "1000." + g.s(hexlc, 32) + "." + g.s(hexlc, 32)
		},
			"{\"access_token\":\"1000.9f0e.8d7c\",\"refresh_token\":\"%s\",\"api_domain\":\"https://www.zohoapis.eu\",\"token_type\":\"Bearer\",\"expires_in\":3600}",
			"ZOHO_REFRESH_TOKEN=%s",
			"< HTTP/1.1 200 OK\n< content-type: application/json\n{\"refresh_token\": \"%s\"}"),
		f("client-secret-in-json-responses", "client_secret values in JSON of several providers' app registrations", func(g *gen) string { return g.s(alnum+"-_~.", 40) },
			"{\"client_id\":\"7f0c2b1e-app\",\"client_secret\":\"%s\",\"redirect_uris\":[\"https://app.example/cb\"]}",
			"{\"clientId\":\"ops-portal\",\"secret\":\"%s\",\"publicClient\":false}",
			"{\"web\":{\"client_id\":\"1234.apps.example\",\"client_secret\":\"%s\"}}",
			"kcadm.sh get clients/3c1f/client-secret\n{\"type\":\"secret\",\"value\":\"%s\"}"),
		f("har-header-and-postdata", "secrets in a browser HAR file (headers, cookies, postData)", func(g *gen) string { return g.s(b64url, 48) },
			"{\"name\": \"authorization\", \"value\": \"Bearer %s\"}",
			"\"cookies\": [{\"name\": \"sid\", \"value\": \"%s\", \"httpOnly\": true}]",
			"\"postData\": {\"mimeType\": \"application/x-www-form-urlencoded\", \"text\": \"username=jdoe&password=%s\"}",
			"\"headers\": [{\"name\": \"x-csrf\", \"value\": \"a1\"}, {\"name\": \"x-session-token\", \"value\": \"%s\"}]"),
		f("traceback-with-locals-shown", "a password in a traceback with local variables shown", pw,
			"Traceback (most recent call last):\n  File \"/app/sync.py\", line 41, in connect\n    conn = psycopg2.connect(host=host, password=password)\n    host = 'db01'\n    password = '%s'\npsycopg2.OperationalError: connection refused",
			"sentry local vars: {'user': 'etl', 'pwd': '%s', 'retries': 3}",
			"  File \"ldap_sync.py\", line 88, in bind\n    l.simple_bind_s(dn, '%s')\nldap.INVALID_CREDENTIALS"),
		f("go-panic-struct-dump", "a password in a Go struct printed with %+v in a panic or log", pw,
			"panic: dial tcp 10.0.0.5:5432: connect: connection refused\n\ncfg: {Host:10.0.0.5 Port:5432 User:app Password:%s SSLMode:disable}",
			"2024/05/11 08:02:11 config loaded: &{Addr::6379 Password:%s DB:0}",
			"level=error msg=\"smtp failed\" cfg=\"{Server:smtp.corp.lan User:relay Pass:%s}\""),
		f("rails-params-unfiltered", "a password in unfiltered Rails request parameters", pw,
			"Parameters: {\"authenticity_token\"=>\"[FILTERED]\", \"user\"=>{\"email\"=>\"a@b.c\", \"passwd\"=>\"%s\"}}",
			"Started POST \"/session\" for 10.0.0.7\nParameters: {\"login\"=>\"jdoe\", \"pass\"=>\"%s\"}",
			"Processing by Api::TokensController#create as JSON\n  Parameters: {\"secret_answer\"=>\"%s\"}"),
		f("docker-inspect-env-array", "env arrays of docker inspect and kubectl describe output", pw,
			"\"Env\": [\n    \"PATH=/usr/local/sbin:/usr/local/bin\",\n    \"MYSQL_ROOT_PASSWORD=%s\",\n    \"MYSQL_DATABASE=shop\"\n]",
			"    Environment:\n      POSTGRES_PASSWORD:  %s\n      POSTGRES_DB:        app",
			"\"Config\": {\"Env\": [\"RABBITMQ_DEFAULT_PASS=%s\", \"RABBITMQ_DEFAULT_USER=admin\"]}"),
		f("ps-output-command-lines", "passwords on process command lines in ps and top output", pw,
			"root      4112  0.3  1.2 python3 sync.py --db-password %s --verbose",
			"  PID TTY      TIME CMD\n 9811 ?    00:00:03 sshpass -p %s ssh backup@nas",
			"mysql    2231 /usr/bin/mysql -uroot -p%s -e SHOW PROCESSLIST"),
		f("tcpdump-ascii-auth", "cleartext auth in tcpdump -A and strace output", pw,
			"08:02:11.402 IP 10.0.0.7.51234 > 10.0.0.2.21: Flags [P.]\nE..5..@.@...\nPASS %s",
			"write(3, \"AUTH %s\\r\\n\", 26) = 26",
			"a001 LOGIN jdoe \"%s\""),
		f("smtp-auth-plain-base64", "SMTP AUTH PLAIN and LOGIN exchanges (base64 of \\0user\\0password)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte("\x00relay@corp.lan\x00" + b3pw(g)))
		},
			"C: AUTH PLAIN %s\nS: 235 2.7.0 Authentication successful",
			"<<< AUTH PLAIN %s",
			"swaks --auth PLAIN ... -> AUTH PLAIN %s"),
		f("postgres-log-alter-role", "passwords in database statement logs", pw,
			"2024-05-11 08:02:11 UTC [4112] LOG:  statement: ALTER ROLE app WITH PASSWORD '%s';",
			"1715414531.2 [0 10.0.0.7:51234] \"CONFIG\" \"SET\" \"requirepass\" \"%s\"",
			"2024-05-11T08:02:11.1Z 12 Query\tSET PASSWORD FOR 'app'@'%' = '%s'"),
		f("sql-dump-insert-credentials", "plaintext credentials in SQL dump INSERT rows", pw,
			"INSERT INTO `smtp_settings` VALUES (1,'smtp.relay.example',587,'relay@corp.lan','%s',1);",
			"COPY public.integrations (id, name, api_secret) FROM stdin;\n1\tsendy\t%s\n\\.",
			"INSERT INTO users (id, login, plain_pw) VALUES (42, 'kiosk', '%s');"),
		f("json-api-response-credentials", "credentials returned in JSON API responses", pw,
			"{\"id\": 17, \"host\": \"ftp.partner.example\", \"username\": \"upload\", \"password\": \"%s\"}",
			"{\"data\":{\"database\":{\"user\":\"app\",\"pass\":\"%s\"}}}",
			"< 200 OK {\"wifi\": {\"ssid\": \"Guest\", \"key\": \"%s\"}}"),
		f("laravel-debug-env-dump", "secrets in framework debug pages that dump the environment", pw,
			"APP_DEBUG true\nDB_PASSWORD \"%s\"\nMAIL_PASSWORD null",
			"Environment Variables\nDB_USERNAME  forge\nDB_PASSWORD  %s",
			"string(14) \"%s\" <- var_dump($config['db']['password'])"),
	}
}

// blind3Negatives are ordinary lines that look risky and hold no secret: prose about passwords
// with no value in many languages, code that handles secrets by reference, placeholders, log
// lines with ids, hashes and versions labelled as such, commit messages, CSS, and base64 of
// harmless things named as such. Some are drawn from a fixed random source (ids and digests).
func blind3Negatives() []string {
	out := []string{
		"Reset your password at the login page if you forgot it.",
		"Passwords must be at least 12 characters long and include a number.",
		"Never share your password with anyone, including IT staff.",
		"Your password was changed successfully. If this wasn't you, contact support.",
		"The API key is stored in the vault; ask the on-call engineer for access.",
		"Rotate the database credentials every 90 days.",
		"Enter the PIN shown on your TV to pair the remote.",
		"Nếu quên mật khẩu, hãy bấm vào \"Quên mật khẩu\" ở trang đăng nhập.",
		"Lupa kata sandi? Klik tautan di bawah untuk mengaturnya ulang.",
		"Şifrenizi kimseyle paylaşmayın; destek ekibi asla şifre istemez.",
		"Jeśli nie pamiętasz hasła, użyj opcji „Nie pamiętam hasła”.",
		"Heslo musí mít alespoň dvanáct znaků.",
		"A jelszavát soha ne adja meg telefonon.",
		"Parola trebuie schimbată la fiecare trei luni.",
		"Usishiriki nenosiri lako na mtu yeyote.",
		"Huwag ibigay ang iyong password kahit kanino.",
		"לעולם אל תמסור את הסיסמה שלך לאף אחד.",
		"لا تشارك كلمة المرور الخاصة بك مع أي شخص.",
		"رمز عبور خود را با هیچ‌کس به اشتراک نگذارید.",
		"اپنا پاس ورڈ کسی کے ساتھ شیئر نہ کریں۔",
		"உங்கள் கடவுச்சொல்லை யாரிடமும் பகிர வேண்டாம்.",
		"మీ పాస్‌వర్డ్‌ను ఎవరితోనూ పంచుకోవద్దు.",
		"Jangan kongsi kata laluan anda dengan sesiapa.",
		"Ніколи не повідомляйте свій пароль стороннім особам.",
		"Μην μοιράζεστε τον κωδικό σας με κανέναν.",
		"Älä koskaan kerro salasanaasi kenellekään.",
		"Deel je wachtwoord nooit met anderen.",
		"Dela aldrig ditt lösenord med någon.",
		"Del aldrig din adgangskode med andre.",
		"Ikke del passordet ditt med noen.",
		"Aldrei deila lykilorðinu þínu með öðrum.",
		"No comparteixis mai la teva contrasenya.",
		"Ez partekatu zure pasahitza inorekin.",
		"არასოდეს გაუზიაროთ პაროლი სხვას.",
		"የይለፍ ቃልዎን ለማንም አያጋሩ።",
		"သင့်စကားဝှက်ကို ဘယ်သူ့ကိုမှ မမျှဝေပါနှင့်။",
		"កុំចែករំលែកពាក្យសម្ងាត់របស់អ្នកជាមួយនរណាម្នាក់។",
		"Нууц үгээ хэнтэй ч бүү хуваалц.",
		"Құпия сөзіңізді ешкімге айтпаңыз.",
		"Parolingizni hech kimga bermang.",
		"अपना पासवर्ड किसी के साथ साझा न करें।",
		"Mos e ndani fjalëkalimin me askënd.",
		"Никада не делите своју лозинку.",
		"Niekam nesakykite savo slaptažodžio.",
		"Ära jaga oma parooli kellegagi.",
		"Peidiwch â rhannu eich cyfrinair.",
		"the password field is required",
		"error: password authentication failed for user \"app\"",
		"ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
		"WARN auth: invalid API key supplied (key redacted)",
		"401 Unauthorized: missing Authorization header",
		"password = os.environ[\"DB_PASSWORD\"]",
		"const apiKey = process.env.STRIPE_SECRET_KEY;",
		"secret := os.Getenv(\"WEBHOOK_SECRET\")",
		"DB_PASSWORD=${DB_PASSWORD:?must be set}",
		"password: \"{{ vault_db_password }}\"",
		"api_key: ${{ secrets.API_KEY }}",
		"token: !vault |",
		"POSTGRES_PASSWORD_FILE=/run/secrets/postgres_password",
		"export AWS_SECRET_ACCESS_KEY=\"$(pass show aws/secret)\"",
		"password = getpass.getpass(\"Password: \")",
		"if err := bcrypt.CompareHashAndPassword(hash, []byte(pw)); err != nil {",
		"func (c *Client) SetPassword(p string) { c.password = p }",
		"SELECT id, email FROM users WHERE password_reset_token IS NOT NULL;",
		"ALTER TABLE users ADD COLUMN password_changed_at timestamptz;",
		"<input type=\"password\" name=\"password\" autocomplete=\"current-password\">",
		"<label for=\"api-key\">API key</label>",
		"password: <your-password-here>",
		"API_KEY=changeme",
		"SECRET_KEY=replace-me-in-production",
		"token = \"xxxxxxxxxxxxxxxxxxxx\"",
		"password: ********",
		"Authorization: Bearer <token>",
		"curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/me",
		"mysql -u root -p",
		"psql \"host=db01 user=app dbname=billing\"",
		"ssh -i ~/.ssh/id_ed25519 deploy@build01",
		"kubectl create secret generic db --from-file=password=./password.txt",
		"vault kv get -field=password secret/app/db",
		"gh secret set NPM_TOKEN < token.txt",
		"fix: don't log the password when the login fails",
		"feat(auth): add password strength meter",
		"chore: rotate keys (values live in 1Password, not here)",
		"docs: explain how to reset the admin password",
		"Merge branch 'feature/api-key-rotation' into main",
		"Revert \"store session tokens in redis\"",
		"color: #1e90ff;",
		"background: linear-gradient(90deg, #ff6b6b 0%, #feca57 100%);",
		"--brand-primary: #0f172a; --brand-accent: #38bdf8;",
		"box-shadow: 0 1px 2px rgba(0, 0, 0, 0.05);",
		"font-family: \"Inter\", system-ui, sans-serif;",
		"go: downloading golang.org/x/crypto v0.23.0",
		"npm WARN deprecated request@2.88.2: request has been deprecated",
		"Successfully installed cryptography-42.0.5 cffi-1.16.0",
		"Step 4/12 : RUN apt-get update && apt-get install -y ca-certificates",
		"Pulling fs layer",
		"INFO  [main] Tomcat started on port(s): 8080 (http)",
		"2024-05-11T08:02:11Z INFO server listening on :8443",
		"WARN  [pool-1] HikariPool-1 - Connection is not available, request timed out after 30000ms.",
		"Node.js v20.12.2",
		"Python 3.12.3 (main, Apr 10 2024, 05:33:47) [GCC 13.2.0] on linux",
		"Linux build01 6.8.0-31-generic #31-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux",
		"The logo is embedded as data:image/png;base64 in the email template.",
		"<img alt=\"spacer\" src=\"data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7\">",
		"base64 of the text \"hello world\" is aGVsbG8gd29ybGQ=",
		"The regex for a UUID is [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}.",
		"Use a password manager such as KeePassXC or Bitwarden.",
		"Two-factor authentication adds a second step after your password.",
		"The Wi-Fi password is printed on the sticker under the router.",
		"Ask Maria for the guest Wi-Fi password at the front desk.",
		"I forgot my password again, can you reset it?",
		"the password policy changed last week",
		"we should stop putting passwords in tickets",
		"did you get the new API key from the vendor? I haven't yet",
		"the token expired, I'll request a new one",
		"PIN reset requests go through the service desk.",
		"Keys are rotated automatically by the secrets operator.",
		"The private key never leaves the HSM.",
		"The recovery phrase is written on paper in the safe, not here.",
		"-----BEGIN PUBLIC KEY----- blocks are safe to share.",
		"ssh-ed25519 public keys go in authorized_keys.",
		"See RFC 7519 for the JWT format.",
		"The JWT header is usually {\"alg\":\"HS256\",\"typ\":\"JWT\"}.",
		"Order #48213 shipped via DHL, tracking in your account.",
		"Invoice INV-2024-00317 is due on 31 May.",
		"Room 4.12 is booked from 10:00 to 11:30.",
		"The meeting ID is on the calendar invite.",
		"ISBN 978-3-16-148410-0",
		"IBAN format: two letters, two check digits, then up to 30 characters.",
		"Version 2.14.0 adds support for ARM64.",
		"Build 20240511.3 passed all checks.",
		"Coverage: 83.4% of statements",
		"Benchmark: 1843 ns/op 512 B/op 7 allocs/op",
		"TODO: move the password hashing to argon2id",
		"// the secret is read from the environment, never hard-coded",
		"# password authentication is disabled; use keys",
		"PasswordAuthentication no",
		"PermitRootLogin prohibit-password",
		"auth required pam_unix.so",
		"security.protocol=SASL_SSL",
		"sasl.mechanism=SCRAM-SHA-512",
		"ssl.endpoint.identification.algorithm=https",
		"spring.datasource.password=${DB_PASSWORD}",
		"password_hash = argon2.hash(password)",
		"hashlib.sha256(data).hexdigest()",
		"The file's MD5 is listed on the download page.",
		"Set the environment variable OPENAI_API_KEY before running the script.",
		"Tokens are prefixed so scanners can find them.",
		"Your one-time code will arrive by SMS.",
		"Enter the six-digit code from your authenticator app.",
		"The safe's combination is known only to the manager.",
		"Passphrases are easier to remember than random passwords.",
		"Password123 is a terrible password, please don't use it as an example",
		"passwd: all authentication tokens updated successfully.",
		"Changing password for user deploy.",
		"sudo: 3 incorrect password attempts",
		"Permission denied (publickey,password).",
		"Authentication failed: bad username or password",
		"The key fingerprint is SHA256 followed by base64 of the hash.",
		"Press any key to continue",
		"The primary key of the table is (tenant_id, id).",
		"Use the arrow keys to move and the space key to jump.",
		"The keynote starts at 9:00 in hall B.",
		"Token bucket rate limiting allows short bursts.",
		"Lexer produced 412 tokens in 3 ms.",
		"The secret ingredient is cardamom.",
		"Victoria's Secret opened a new store downtown.",
	}
	g := &gen{rand.New(rand.NewPCG(0x6e656733, blind3Seed))}
	for range 25 {
		out = append(out, "commit "+g.s(hexlc, 40)+" (HEAD -> main, origin/main)")
	}
	for range 20 {
		out = append(out, "request_id="+b3uuid(g)+" method=GET path=/healthz status=200 duration_ms="+g.s(b3Dig, 2))
	}
	for range 20 {
		out = append(out, "sha256:"+g.s(hexlc, 64)+"  "+g.pick("app-linux-amd64.tar.gz", "cairn_2.3.1_darwin_arm64.zip", "ubuntu-24.04-live-server-amd64.iso", "setup.exe"))
	}
	for range 15 {
		out = append(out, "Digest: sha256:"+g.s(hexlc, 64))
	}
	for range 15 {
		out = append(out, "trace_id="+g.s(hexlc, 32)+" span_id="+g.s(hexlc, 16)+" service=checkout")
	}
	for range 10 {
		out = append(out, "etag: W/\""+g.s(hexlc, 8)+"-"+g.s(hexlc, 27)+"\"")
	}
	for range 10 {
		out = append(out, "v"+g.s("123", 1)+"."+g.s(b3Dig, 2)+"."+g.s(b3Dig, 1)+"-rc."+g.s(b3Dig, 1)+"+build."+g.s(hexlc, 7))
	}
	for range 10 {
		out = append(out, "Merge pull request #"+g.s(b3Dig, 4)+" from corp/"+g.pick("fix", "feat", "chore")+"/"+g.pick(b3Words...)+" ("+g.s(hexlc, 7)+")")
	}
	for range 10 {
		out = append(out, "."+g.pick(b3Words...)+" { color: #"+g.s(hexlc, 6)+"; border-color: #"+g.s(hexlc, 6)+"; }")
	}
	return out
}
