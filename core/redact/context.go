package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The context layer: a secret-bearing word in any of the languages people write in here, then a
// separator, hides the value that follows, whatever the value looks like. It is what catches a
// password in a sentence ("the staging DB password is wR4K…", "本番DBのパスワードは X です",
// "数据库密码：X", "비밀번호: X", "mot de passe : X"), which no shape gives away.
//
// Key words, lower case as the folded text has them. Each language's own words for password,
// passphrase, secret, token, API key, credential and PIN; ASCII words that are also code
// identifiers (token, secret) count only with a separator that prose uses (is, :, =, は, 是 …)
// and a value that looks like a secret (contextValue).
var contextWords = []string{
	// English
	"password", "passwd", "passphrase", "pass phrase", "passcode", "secret key", "client secret",
	"api key", "api-key", "apikey", "access key", "access token", "auth token", "bearer token",
	"pin code", "key", "secret", "pw", "pwd", "creds", "credentials", "pin", "secret seed", "secret id", "secretid", "psk",
	"door code", "gate code", "keypad code", "keypad", "alarm code", "disarm code", "safe code", "safe combination",
	"combination", "locker code", "security question answer", "security answer", "memorable word", "code", "mm", "contra",
	// codes in other languages (door, safe, locker codes)
	"kood", "kodas", "kodi", "codi", "código", "codigo", "codice", "kód", "kod", "kodu", "კოდი", "कोड", "குறியீடு", "কোড", "کد",
	"parol", "parool", "pasahitza", "pasfhocal", "գաղտնաբառ", "құпия сөз", "құпиясөз", "ពាក្យសម្ងាត់", "ລະຫັດຜ່ານ", "စကားဝှက်", "ਪਾਸਵਰਡ", "கடவுச்சொல்", "የይለፍ ቃል",
	// Japanese
	"パスワード", "パスフレーズ", "暗証番号", "秘密鍵", "シークレット", "トークン", "アクセスキー",
	"apiキー", "認証情報", "合言葉",
	// Chinese (simplified and traditional)
	"密码", "密碼", "口令", "密钥", "密鑰", "秘钥", "私钥", "私鑰", "金鑰", "令牌", "权杖", "權杖",
	"凭据", "凭证", "憑證", "api密钥", "api 密钥", "口令是", "登录密码", "登入密碼",
	// Korean
	"비밀번호", "비번", "암호", "패스워드", "비밀 키", "비밀키", "토큰", "api 키", "api키", "액세스 키", "인증 정보",
	// Spanish
	"contraseña", "contrasena", "clave secreta", "clave de api", "clave", "credenciales",
	// French
	"mot de passe", "mdp", "clé secrète", "clé d'api", "clé api", "jeton",
	// German
	"passwort", "kennwort", "geheimer schlüssel", "zugangsdaten", "zugangsschlüssel",
	// Portuguese
	"senha", "palavra-passe", "chave secreta", "chave de api", "chave api",
	// Russian
	"пароль", "секретный ключ", "ключ api", "api ключ", "токен", "секрет",
	// Italian
	"parola d'ordine", "chiave segreta", "credenziali",
	// Dutch
	"wachtwoord", "geheime sleutel", "toegangscode",
	// Polish
	"hasło", "hasla", "hasła", "tajny klucz", "klucz api",
	// Turkish
	"şifre", "şifresi", "sifre", "parola", "gizli anahtar", "api anahtarı", "parolası", "parolasi", "parolanız",
	"şifreniz", "şifren", "parolan",
	// Vietnamese
	"mật khẩu", "mat khau", "mã bí mật", "khóa api",
	// Indonesian and Malay
	"kata sandi", "kata sandinya", "kata laluan", "kunci rahasia", "kunci api",
	// Arabic
	"كلمة المرور", "كلمة السر", "الرقم السري", "مفتاح api",
	// Hindi
	"पासवर्ड", "कूटशब्द",
	// Ukrainian
	"секретний ключ", "ключ api",
	// Greek, Hebrew, Persian, Thai, Czech and Slovak, Nordic, Finnish, Hungarian, Romanian,
	// Bulgarian, Serbian and Croatian, Swahili, Bengali, Tamil, Urdu
	"κωδικός", "κωδικός πρόσβασης", "κωδικό", "κωδικού", "συνθηματικό", "סיסמה", "סיסמא", "رمز عبور", "รหัสผ่าน", "heslo", "hesla", "lösenord", "passord", "haslo", "wachtwoord", "ww", "recovery phrase", "master password", "ọ̀rọ̀ aṣínà", "oro asina", "ọrọ aṣina", "wagwoord", "parole", "രഹസ്യവാക്ക്", "הסיסמה", "וסיסמה", "וכלמת המרור", "وكلمة المرور", "وكلمة السر", "كلمة السر",
	"adgangskode", "salasana", "jelszó", "jelszo", "parolă", "parola", "парола", "лозинка", "lozinka", "nenosiri",
	"পাসওয়ার্ড", "கடவுச்சொல்", "پاس ورڈ",
	// codes people share that work as passwords
	"提取码", "提取碼", "访问码", "訪問碼", "認証キー", "アクセストークン", "apiトークン", "인증키", "암호키",
	// recovery and backup codes
	"recovery code", "recovery codes", "backup code", "backup codes", "2fa backup", "código de recuperación",
	"code de récupération", "wiederherstellungscode", "код восстановления", "код відновлення", "リカバリーコード",
	"リカバリコード", "恢复码", "复原码", "備援碼", "救援碼", "복구 코드", "복구코드", "रिकवरी कोड", "রিকভারি কোড",
	"รหัสกู้คืน", "obnovovací kód", "kod odzyskiwania", "kurtarma kodu", "mã khôi phục", "kode pemulihan",
	"herstelcode", "codice di recupero", "código de recuperação", "palautuskoodi", "gendannelseskode",
	"gjenopprettingskode", "återställningskod", "cod de recuperare", "κωδικός ανάκτησης", "رمز الاسترداد",
	"کد بازیابی", "קוד שחזור", "helyreállítási kód", "kód pro obnovení",
	// "password" in more languages: Estonian, Azerbaijani, Galician, Catalan, Basque, Irish,
	// Welsh, Icelandic, Lithuanian, Latvian, Slovenian, Serbian and Croatian, Zulu, Hausa, Amharic,
	// Telugu, Kannada, Malayalam, Punjabi, Urdu, Khmer, Lao, Burmese, Mongolian, Sinhala, Kazakh,
	// Uzbek, Georgian, Armenian
	"parool", "salasõna", "şifrə", "şifrəsi", "contrasinal", "contrasenya", "pasahitza", "pasfhocal",
	"cyfrinair", "lykilorð", "slaptažodis", "geslo", "šifra", "šifru", "iphasiwedi", "kalmar sirri",
	"kalmar sirrin", "የይለፍ ቃል", "የይለፍ ቃሉ", "የይለፍ ቃሉን", "የይለፍ ቃሌ", "የይለፍ ቃልህ", "የይለፍ ቃልሽ", "పాస్‌వర్డ్", "పాస్వర్డ్", "ಪಾಸ್‌ವರ್ಡ್", "ಪಾಸ್ವರ್ಡ್", "പാസ്‌വേഡ്",
	"ਪਾਸਵਰਡ", "پاسورڈ", "ពាក្យសម្ងាត់", "ລະຫັດຜ່ານ", "စကားဝှက်", "нууц үг", "මුරපදය", "құпия сөз",
	"პაროლი", "գաղտնաբառ", "գաղտնաբառն",
	// codes that open something: Wi-Fi keys, door, gate, safe and alarm codes, combinations
	"wifi", "wi-fi", "wlan", "door code", "gate code", "safe code", "alarm code", "keypad", "combo",
	"combination", "locker code",
	// more forms: a PUK, a licence key, Hebrew's construct state, Hungarian's accusative, Persian
	"puk", "puk code", "license key", "licensekey", "licence key", "unlock phrase", "סיסמת", "jelszót",
	"jelszavam", "jelszava", "رمز", "گذرواژه",
	// "key" in more languages, named like a secret only before a value mixed like one
	// (contextWordsOfCode): a key opens a door as often as a service
	"ключ", "schlüssel", "chiave", "chave", "clé", "llave", "klucz", "klíč", "sleutel", "nyckel", "nøgle", "nøkkel",
	"avain", "kulcs", "cheie", "κλειδί", "מפתח", "مفتاح", "کلید", "anahtar", "anahtarı", "kunci", "khóa", "कुंजी",
	"ufunguo", "makullin", "makulli",
	// chat shorthand (not パス alone: it is also "path")
	"ぱすわーど", "비번은", "密码发你",
}

// contextSeparators are what people write between the word and its value, after optional
// blanks: punctuation of every width (folding has made ：＝ into : =), and the copulas of each
// language ("is", "は", "是", "est", "ist", "es", "é", "это", "는"). Longest first.
var contextSeparators = []string{
	"は、", "は:", "は", "が", "を", "：", ":", "፦", "፡", "=>", "=", "->", "→", "—", "–",
	"改成了", "改成", "改为", "改為", "设为", "設為", "设置为", "設置為", "换成了", "换成", "変更後は",
	"是", "为", "為", "은", "는", "이", "가",
	"is now", "is", "was", "are", "est", "ist jetzt", "ist", "lautet", "c'est", "es ahora", "es", "é agora", "é", "è", "era", "это", "такой",
	"це", "là", "adalah", "هي", "คือ", "เป็น", "হলো", "হল", "है", "ہے", "係", "ແມ່ນ", "է՝", "է", "आहे", "ਹੈ",
	"היא", "הוא", "είναι", "ειναι", "ay", "ir", "yra", "on", "je", "jest", "är", "er", "ni", "ni:", "ndi", "dir", "dır", "shi", "iko",
}

// contextIndex finds the key words without a regular expression: by the first byte of each
// word (ASCII letters in both cases), the words that start with it, longest first, compared in
// place with ASCII letters lowered. A (?i) alternation of a hundred words in five scripts cost
// RE2 about a millisecond a comment; this is one pass over the bytes.
type contextIndex struct {
	byFirst [256][]string
}

var contextWordIndex = sync.OnceValue(func() *contextIndex {
	x := &contextIndex{}
	for _, w := range contextHints() {
		c := w[0]
		x.byFirst[c] = append(x.byFirst[c], w)
		if 'a' <= c && c <= 'z' {
			x.byFirst[c-'a'+'A'] = append(x.byFirst[c-'a'+'A'], w)
		}
	}
	for i := range x.byFirst {
		words := x.byFirst[i]
		sort.Slice(words, func(a, b int) bool { return len(words[a]) > len(words[b]) })
	}
	return x
})

// find calls fn with the range of each key word in s, leftmost first, longest at a position, the
// next search starting after the word fn takes; a word fn refuses (the start of a longer word:
// "access key" in "access keypad") leaves the shorter words at its position and the next
// positions to be tried.
func (x *contextIndex) find(s string, fn func(start, end int) bool) {
	for i := 0; i < len(s); i++ {
		words := x.byFirst[s[i]]
		for _, w := range words {
			if hasLowerPrefix(s[i:], w) && fn(i, i+len(w)) {
				i += len(w) - 1
				break
			}
		}
	}
}

// contextHints are the literals the rule's hint index looks for before the scanner runs: the key
// words, and those that start with a non-ASCII capital as a sentence may write them (Пароль).
func contextHints() []string {
	var hints []string
	for _, w := range contextWords {
		hints = append(hints, w)
		if r, size := utf8.DecodeRuneInString(w); r >= utf8.RuneSelf && unicode.IsLower(r) {
			hints = append(hints, string(unicode.ToUpper(r))+w[size:])
		}
	}
	return hints
}

// isCJK reports whether r is a letter of a script written without spaces between words (Han,
// kana, Hangul): a value that is ASCII ends at the first of them.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// wordLetter reports whether r can continue a word, so a key word inside a longer word
// ("compassword", "pinned", "tokenizer") is no key word.
func wordLetter(r rune) bool {
	return r == '_' || unicode.IsLetter(r) && !unspaced(r) || unicode.IsDigit(r)
}

// unspaced reports whether r is of a script written without blanks between words (CJK, Thai,
// Lao, Khmer, Myanmar), where a key word runs on into the next word.
func unspaced(r rune) bool {
	return isCJK(r) || r >= 0x0E00 && unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// scanContext finds a value after a key word and a separator: the word, optional qualifiers
// ("the password for the staging DB is X": up to 4 words before a copula), blanks, a separator,
// blanks, an optional quote, then the value, which runs to a blank, a quote, CJK text or CJK
// punctuation. It examines each byte a bounded number of times.
func scanContext(s string, add func(start, end int)) int {
	work := len(s)
	contextWordIndex().find(s, func(start, end int) bool {
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && wordLetter(r) && (s[start] < utf8.RuneSelf || r >= utf8.RuneSelf) {
			return false // inside a word; a word of another script may follow ASCII letters (WiFi密码)
		}
		if start > 0 && (s[start-1] == '-' || s[start-1] == '_') && contextWordsOfCode[strings.ToLower(s[start:end])] {
			return true // part of a name (SCENARIO-SECRET, my_key): the assignment rule's business
		}
		word := s[start:end]
		last, _ := utf8.DecodeLastRuneInString(word)
		if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && wordLetter(r) && !isCJK(last) {
			return false // a longer word: passwords, tokenizer, pinned
		}
		v0, v1, n := contextValueAt(s, end, !contextWordsOfCode[strings.ToLower(word)])
		work += n
		if v0 >= 0 && contextValue(strings.ToLower(word), s[v0:v1]) {
			add(v0, v1)
		}
		if v0 >= 0 && phraseWords[strings.ToLower(word)] {
			if e, words := phraseEnd(s, v1); words >= 4 {
				add(v0, e) // passphrase: harbor quartz velvet tiger 39
			}
		}
		if v0 >= 0 && pairWords[strings.ToLower(word)] {
			if p0, p1 := pairedPassword(s, v1); p0 >= 0 {
				add(p0, p1) // creds: deploy / X
			}
		}
		if codeWords[strings.ToLower(word)] {
			return true // a code is named before its number, never after it (Code Page 860)
		}
		if b0, b1, n := valueBefore(s, start); b0 >= 0 && !knownPlaceholder(s[b0:b1]) {
			work += n
			add(b0, b1)
		}
		return true
	})
	return work
}

// copulasBefore stand between a value and the key word after it ("X is the password", "use X as
// my password", "Xがパスワードです", "X是密码", "X가 비밀번호"), longest first.
var copulasBefore = []string{"is the new", "is the", "is my", "is our", "as the", "as my", "as our", "is", "as", "was",
	"が", "は", "是", "为", "為", "가", "이", "는", "은", "è la", "è", "est le", "est", "ist das", "ist", "es la", "es", "é a", "é"}

// valueBefore finds a value written before its key word: a strong value (strongValue), a copula,
// at most two short words (db, wifi, new), then the key word at kw. Backwards is riskier than
// forwards, so only a value that looks chosen as a password counts.
func valueBefore(s string, kw int) (start, end, work int) {
	p := kw
	// up to two short qualifier words between the copula and the key word ("is the wifi password")
	for range 3 {
		q := p
		for q > 0 && (s[q-1] == ' ' || s[q-1] == '\t') {
			q--
		}
		for _, c := range copulasBefore {
			if q >= len(c) && strings.EqualFold(s[q-len(c):q], c) {
				b := q - len(c)
				first, _ := utf8.DecodeRuneInString(c)
				if r, _ := utf8.DecodeLastRuneInString(s[:b]); b > 0 && !isCJK(first) && wordLetter(r) {
					continue // "this" is not "is"
				}
				e := b
				for e > 0 && (s[e-1] == ' ' || s[e-1] == '\t') {
					e--
				}
				v := e
				for v > 0 && e-v < 128 && s[v-1] < utf8.RuneSelf && s[v-1] != ' ' && s[v-1] != '\t' && s[v-1] != '\n' && s[v-1] != '"' && s[v-1] != '\'' {
					v--
				}
				if e-v >= 8 && strongValue(s[v:e]) {
					return v, e, kw - v
				}
				return -1, -1, kw - v
			}
		}
		// a short word of letters before the key word: skip it and look again
		w := q
		for w > 0 && q-w <= 8 && (s[w-1] >= 'a' && s[w-1] <= 'z' || s[w-1] >= 'A' && s[w-1] <= 'Z') {
			w--
		}
		if w == q || q-w > 8 || w == 0 || s[w-1] != ' ' {
			return -1, -1, kw - w
		}
		p = w
	}
	return -1, -1, kw - p
}

// notSecretQualifiers, between a key word and its copula, say the value is something about the
// secret and not the secret: "key fingerprint is SHA256:…", "secret name is db-creds".
var notSecretQualifiers = map[string]bool{"fingerprint": true, "id": true, "name": true, "file": true, "path": true, "type": true,
	"length": true, "size": true, "format": true, "algorithm": true, "hash": true, "policy": true, "location": true}

// maxQualifierWords bounds the words a phrase may put between its key word and the copula
// ("password for the prod DB is X").
const maxQualifierWords = 6

// contextValueAt reads, from p (just after a key word), the separator and the value after it; it
// returns the value's range (-1 when there is none) and how many bytes it examined. A comma
// separates only when comma is set (a word for a password, not key or token: "key, value").
func contextValueAt(s string, p int, comma bool) (start, end, work int) {
	q := skipBlanks(s, p)
	if after := parentheticalAt(s, q); after > q {
		q = after // "password (base32): X", "パスワード（本番）：X": the value is after the note
	}
	sepEnd := separatorAt(s, q)
	if sepEnd < 0 {
		sepEnd = separatorIn(s, q, directSeparators)
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:p]); sepEnd < 0 && q == p && p < len(s) && isCJK(r) && isWordByte(s[p]) {
		sepEnd = p // CJK writes no blank between words: パスワード0313775868078だよ
	}
	if r, _ := utf8.DecodeRuneInString(s[p:]); sepEnd < 0 && q == p && p < len(s) && unspaced(r) {
		sepEnd = unspacedCopula(s, p) // รหัสผ่านเซิร์ฟเวอร์ทดสอบคือ X: qualifiers and a copula, unspaced
	}
	if sepEnd < 0 && comma && q < len(s) && s[q] == ',' {
		// "pinalitan ko na ang password, X na": after a comma only a value strong on its own
		w := skipBlanks(s, q+1)
		if v, e := bareValue(s, w); v >= 0 && !identifierLike(s[v:e]) {
			return v, e, e - p
		}
		e := w
		for e < len(s) && e-w < 64 && tokenByte[s[e]] {
			e++
		}
		if e-w >= 12 && randomLetters(s[w:e]) {
			return w, e, e - p // a random run of letters of both cases
		}
		return -1, -1, e - p
	}
	if sepEnd < 0 {
		// qualifiers: a few plain words (for the prod DB, от сервера) before a copula or a
		// separator; a word with other punctuation (code, markup, JSON) ends the phrase
		w := q
		if q == p {
			return -1, -1, 0 // the key word runs on into punctuation: not a phrase
		}
		for range maxQualifierWords {
			if v, e := bareValue(s, w); v >= 0 {
				if placeAfterIn(s, w, v, e) {
					return -1, -1, e - p // "the password in 1Password": where it is kept
				}
				return v, e, e - p // "пароль от базы X": the value after the qualifiers, unseparated
			}
			e := w
			plain := true
			for e < len(s) && e-q < 80 {
				r, size := utf8.DecodeRuneInString(s[e:])
				if unicode.IsSpace(r) || r == ':' || r == '=' || r == '：' {
					break // a separator may close the last qualifier word ("от сервера: X")
				}
				if !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) && r != '-' && r != '\'' {
					plain = false // a vowel sign (Devanagari, Thai) is part of its word
					break
				}
				e += size
			}
			if e == w || !plain {
				break
			}
			if notSecretQualifiers[strings.ToLower(s[w:e])] {
				return -1, -1, e - p // the key's fingerprint, id, name or file is no secret
			}
			if sepEnd = separatorAt(s, e); sepEnd >= 0 && e < len(s) && (s[e] == ':' || s[e] == '=' || strings.HasPrefix(s[e:], "：")) {
				break
			}
			w = skipBlanks(s, e)
			if sepEnd = separatorAt(s, w); sepEnd >= 0 {
				break
			}
		}
		if sepEnd < 0 {
			// no separator: a phrase written without one ("root 密码 X", "пароль от базы X")
			// still names its value when the word after the key word, or after its last
			// qualifier, is a strong one (strongValue)
			if v, e := bareValue(s, w); v >= 0 {
				return v, e, e - p
			}
			return -1, -1, w - p
		}
	}
	v := skipBlanks(s, sepEnd)
	for k := 0; k < 3 && v < len(s) && (s[v] == '*' || s[v] == '_'); k++ {
		v = skipBlanks(s, v+1) // Markdown emphasis around the key word: **pw:** `X`
	}
	quote := byte(0)
	if v < len(s) && (s[v] == '"' || s[v] == '\'' || s[v] == '`') {
		quote = s[v]
		v++
		// a quoted value closes on its line and holds no blank at its start: `password=` in
		// Markdown is a word in code, not a value opening
		if v >= len(s) || s[v] == ' ' || s[v] == quote {
			return -1, -1, v - p
		}
		if c := strings.IndexByte(s[v:], quote); c < 0 || strings.IndexByte(s[v:v+c], '\n') >= 0 {
			return -1, -1, v - p
		}
	} else if hasAnyPrefix(s[v:], openingQuotes) {
		_, size := utf8.DecodeRuneInString(s[v:])
		v += size
	}
	e := v
	for e < len(s) && e-v < 512 {
		r, size := utf8.DecodeRuneInString(s[e:])
		if quote != 0 && s[e] == quote || quote == 0 && (unicode.IsSpace(r) || r == '"' || r == '\'' || r == '`' || escapedBreak(s, e)) ||
			isCJK(r) || strings.ContainsRune("。、，！？；：（）「」『』【】“”‘’〔〕《》«»„‹›", r) || r == 0xA0 || r == 0x200B ||
			r >= utf8.RuneSelf && unicode.IsLetter(r) && !pwLetter(r) && asciiSoFar(s[v:e]) && e > v {
			break // an ASCII value ends where a word of another script begins (Thai, Hindi, …)
		}
		e += size
	}
	if hasFoldPrefix(s[v:], Placeholder) {
		return -1, -1, e - p // hidden already
	}
	// trailing punctuation of the sentence is not part of the value
	for e > v && strings.IndexByte(".,;:!?)]}>", s[e-1]) >= 0 && quote == 0 {
		e--
	}
	if e <= v {
		return -1, -1, e - p
	}
	return v, e, e - p
}

// parentheticalAt is where a short note in brackets that starts at p ends, blanks after it
// skipped, when a separator follows it; p otherwise.
func parentheticalAt(s string, p int) int {
	var closer string
	switch {
	case strings.HasPrefix(s[p:], "("):
		closer = ")"
	case strings.HasPrefix(s[p:], "（"):
		closer = "）"
	case strings.HasPrefix(s[p:], "["):
		closer = "]"
	default:
		return p
	}
	c := strings.Index(s[p:], closer)
	if c < 2 || c > 40 || strings.ContainsAny(s[p:p+c], "\n\"'`") {
		return p
	}
	q := skipBlanks(s, p+c+len(closer))
	if q < len(s) && (s[q] == ':' || s[q] == '=' || strings.HasPrefix(s[q:], "：") || strings.HasPrefix(s[q:], "＝")) {
		return q
	}
	return p
}

func skipBlanks(s string, p int) int {
	for p < len(s) {
		r, size := utf8.DecodeRuneInString(s[p:])
		if !unicode.IsSpace(r) || r == '\n' {
			break
		}
		p += size
	}
	return p
}

// separatorAt returns where a separator that starts at p ends, or -1. A copula written in
// letters must stand alone ("is", not "island").
func separatorAt(s string, p int) int {
	return separatorIn(s, p, contextSeparators)
}

// maxUnspacedQualifier bounds the bytes of unspaced words read between a key word and its copula.
const maxUnspacedQualifier = 120

// unspacedCopula reads the words of an unspaced script that follow a key word at p, up to a
// blank or other script, and returns where the value may start when they end with a copula
// ("คือ", "は"), or -1.
func unspacedCopula(s string, p int) int {
	e := p
	for e < len(s) && e-p < maxUnspacedQualifier {
		r, size := utf8.DecodeRuneInString(s[e:])
		if !unspaced(r) && !unicode.Is(unicode.Mn, r) {
			break
		}
		e += size
	}
	if e > p && e < len(s) && (s[e] == ':' || strings.HasPrefix(s[e:], "：")) {
		return separatorAt(s, e) // รหัสผ่านเซิร์ฟเวอร์: X: an unspaced qualifier, then a colon
	}
	for _, sep := range contextSeparators {
		if last, _ := utf8.DecodeLastRuneInString(sep); unspaced(last) && e-p > len(sep) && strings.HasSuffix(s[p:e], sep) {
			if e < len(s) && s[e] == ':' {
				e++
			}
			return e
		}
	}
	return -1
}

// directSeparators open a value only right after the key word ("password (X)", "| password | X
// |", "password - X", "set the password to X"), never after qualifier words, where they are
// prose ("a key word (`tests pass: 42`)").
var directSeparators = []string{"(", "|", "-", "to", "【", "「", "『"}

func separatorIn(s string, p int, seps []string) int {
	for _, sep := range seps {
		if !hasFoldPrefix(s[p:], sep) {
			continue
		}
		end := p + len(sep)
		last, _ := utf8.DecodeLastRuneInString(sep)
		if unicode.IsLetter(last) && !isCJK(last) {
			if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && wordLetter(r) {
				continue
			}
			// a copula takes a blank before the value ("is X"), or a colon ("is: X")
			if end < len(s) && s[end] == ':' {
				end++
			}
		}
		return end
	}
	return -1
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// codeWords name a code of digits (a door's, a safe's, a locker's) in several languages.
var codeWords = map[string]bool{"code": true, "kood": true, "kodas": true, "kodi": true, "codi": true, "código": true, "codigo": true,
	"codice": true, "kód": true, "kod": true, "kodu": true, "keypad": true, "combination": true, "კოდი": true, "कोड": true,
	"குறியீடு": true, "কোড": true, "کد": true, "door code": true, "gate code": true, "keypad code": true, "alarm code": true,
	"disarm code": true, "safe code": true, "locker code": true, "safe combination": true}

// contextWordsOfCode are the key words that are everyday identifiers in code and prose
// (token, secret, pin, clave, credential): their values must look like secrets outright.
var contextWordsOfCode = map[string]bool{"key": true, "secret": true, "pw": true, "pwd": true, "creds": true, "credentials": true, "clave": true, "credenciales": true, "токен": true, "секрет": true,
	"code": true, "kood": true, "kodas": true, "kodi": true, "codi": true, "código": true, "codigo": true, "codice": true, "kód": true, "kod": true, "kodu": true,
	"mm": true, "contra": true, "keypad": true, "combination": true, "კოდი": true, "कोड": true, "குறியீடு": true, "কোড": true, "کد": true,
	"jeton": true, "토큰": true, "トークン": true, "令牌": true, "access token": true, "auth token": true, "bearer token": true,
	"ключ": true, "schlüssel": true, "chiave": true, "chave": true, "clé": true, "llave": true, "klucz": true, "klíč": true,
	"sleutel": true, "nyckel": true, "nøgle": true, "nøkkel": true, "avain": true, "kulcs": true, "cheie": true, "κλειδί": true,
	"מפתח": true, "مفتاح": true, "کلید": true, "anahtar": true, "anahtarı": true, "kunci": true, "khóa": true, "कुंजी": true,
	"ufunguo": true, "makullin": true, "makulli": true}

// proseWords are values that say something about a secret rather than being one.
var proseWords = map[string]bool{
	"the": true, "a": true, "an": true, "not": true, "set": true, "unset": true, "required": true, "optional": true,
	"incorrect": true, "wrong": true, "invalid": true, "valid": true, "expired": true, "missing": true, "empty": true,
	"hidden": true, "stored": true, "changed": true, "reset": true, "correct": true, "ok": true, "fine": true, "same": true,
	"different": true, "too": true, "very": true, "still": true, "now": true, "also": true, "only": true, "in": true,
	"on": true, "at": true, "from": true, "for": true, "to": true, "of": true, "and": true, "or": true, "this": true,
	"that": true, "it": true, "used": true, "needed": true, "true": true, "false": true, "null": true, "nil": true,
	"none": true, "redacted": true, "secret": true, "password": true, "token": true, "here": true, "there": true,
	"sent": true, "given": true, "shown": true, "printed": true, "logged": true, "rotated": true, "revoked": true,
	"generated": true, "encrypted": true, "hashed": true, "saved": true, "kept": true, "known": true, "unknown": true,
	"weak": true, "strong": true, "long": true, "short": true, "new": true, "old": true, "blank": true, "defined": true,
	"undefined": true, "configured": true, "available": true, "enabled": true, "disabled": true, "accepted": true,
	"rejected": true, "what": true, "which": true, "your": true, "my": true, "our": true, "their": true,
	"see": true, "siehe": true, "voir": true, "vedi": true, "zie": true, "ver": true, "fingerprint": true,
	"raise": true, "return": true, "throw": true,
}

// contextValue reports whether v, after key word w, is worth hiding: not a placeholder or a word
// about the secret, and — for the key words that are also identifiers — mixed like a secret.
func contextValue(w, v string) bool {
	if strings.Contains(strings.ToUpper(v), Placeholder) || placeholderValue().MatchString(v) || notAValue(v) {
		return false
	}
	if proseWords[strings.ToLower(v)] {
		return false
	}
	var lower, upper, digit, other int
	for _, r := range v {
		switch {
		case unicode.IsLower(r):
			lower++
		case unicode.IsUpper(r):
			upper++
		case unicode.IsDigit(r):
			digit++
		default:
			other++
		}
	}
	n := lower + upper + digit + other
	if n < 4 {
		return false
	}
	if !contextWordsOfCode[w] && wordsPassphrase(v) {
		return true // walrus.cobalt.juniper.pixel after a word for password, in any language
	}
	// a code identifier (c.ClientSecret, os.Getenv, cfg.Token, getToken()) is no secret
	if identifierLike(v) {
		return false
	}
	classes := 0
	for _, c := range []int{lower, upper, digit, other} {
		if c > 0 {
			classes++
		}
	}
	if w == "pin" {
		return digit == n && n >= 4 && n <= 8 // a PIN: 4 to 8 digits, nothing else
	}
	if codeWords[w] {
		// a word for a code (door, safe, locker) names a number only: Claude Code, source code
		// and error codes name no secret (36369683*, 446969943#)
		return digit >= 6 && (digit >= n-1 || digitGroups(v))
	}
	if contextWordsOfCode[w] {
		// a long number after pw or key is one (5255658556661)
		return classes >= 3 || classes >= 2 && digit > 0 && n >= 8 || n >= 20 && classes >= 2 || digit >= 7 && digit >= n-1
	}
	// a password word: a digit, a symbol or a capital inside, or a long run of letters
	return digit > 0 || other > 0 || upper > 0 && lower > 0 || n >= 16
}

// digitGroups reports whether v is groups of two to four digits joined by dashes, as a safe's
// combination or an alarm code is written (84-49-06-06), and not a date (2026-05-06).
func digitGroups(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	for _, p := range parts {
		if len(p) < 2 || len(p) > 4 || !allDigits(p) {
			return false
		}
	}
	return !(len(parts) == 3 && len(parts[0]) == 4 && len(parts[1]) == 2 && len(parts[2]) == 2)
}

// wordsPassphrase reports whether v is four or more words of three letters or more, joined by
// one separator (a dot, a dash or an underscore): a passphrase as generators make them.
func wordsPassphrase(v string) bool {
	var sep rune
	words, letters := 0, 0
	for _, r := range v {
		switch {
		case unicode.IsLetter(r):
			letters++
			continue
		case r != '.' && r != '-' && r != '_' || sep != 0 && r != sep || letters < 3:
			return false
		}
		sep = r
		words++
		letters = 0
	}
	return letters >= 3 && words+1 >= 4
}

// identifierLike reports whether v reads as code: a dotted or called identifier (cfg.Token,
// os.Getenv("X"), c.ClientSecret), or words joined by capitals or underscores made only of
// letters (ClientSecret, access_token).
func identifierLike(v string) bool {
	if k := strings.IndexByte(v, '('); k >= 0 && (strings.IndexByte(v[k:], ')') >= 0 || callee(v[:k])) {
		return true
	}
	// snake_case or camelCase words (api_key, clientSecret, API_KEY): a name, not a value; a
	// random run of letters has capitals that start no word of two or more small letters
	if len(v) <= 48 && namePattern().MatchString(v) {
		return true
	}
	parts := strings.Split(v, ".")
	if len(parts) >= 2 {
		all := true
		for k, p := range parts {
			if p == "" || !isIdent(p) && (k == len(parts)-1 || !goIdent(p)) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// callee reports whether f, what comes before an unclosed parenthesis in a value, can be what
// code calls or converts with (os.Getenv, []byte, t.Key().Kind): a password's symbols before it
// (+43?4F?e(}…), with no bracket closed, call nothing.
func callee(f string) bool {
	return !strings.ContainsAny(f, "?+|#%^~@") || strings.ContainsAny(f, ")]")
}

// namePattern matches the names code gives variables: words of small letters joined by _ or
// started by one capital (clientSecret, ClientSecret, api_key), or capitals joined by _ (API_KEY).
var namePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+|[a-z]*(?:[A-Z][a-z]{2,})+|[a-z]+(?:[A-Z][a-z]{2,})+)$`)
})

// goIdent reports whether p is a name as code writes a variable or a package (b7cfg, s3conf): a
// letter, then letters, digits and underscores; the part before a field's name may hold digits.
func goIdent(p string) bool {
	for i, r := range p {
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return len(p) <= 16
}

// isIdent reports whether p is an identifier of letters (and underscores) only: the names in
// code (c.ClientSecret, cfg.Password), which hold no digit a secret would.
func isIdent(p string) bool {
	for _, r := range p {
		if !(unicode.IsLetter(r) || r == '_') {
			return false
		}
	}
	return true
}

// bareValue is the value at p written without a separator: an ASCII run that strongValue calls
// a secret ("", -1 otherwise).
func bareValue(s string, p int) (start, end int) {
	e := p
	for e < len(s) && e-p < 128 && s[e] < utf8.RuneSelf && !unicode.IsSpace(rune(s[e])) && s[e] != '"' && s[e] != '\'' {
		e++
	}
	for e > p && strings.IndexByte(".,;:!?)]}>", s[e-1]) >= 0 {
		e--
	}
	if _, code := codeShape(s[p:e]); code {
		return p, e // a recovery code: 0717-8507-2748, A5YY-Q45J-YW22
	}
	if e-p >= 8 && allDigits(s[p:e]) {
		return p, e // a long PIN or code of digits
	}
	if e-p >= 7 && allDigits(strings.TrimRight(s[p:e], "#*")) && strings.ContainsAny(s[p:e][e-p-1:], "#*") {
		return p, e // a keypad code and its key: 36369683*, 446969943#
	}
	if wordsPassphrase(s[p:e]) {
		return p, e // walrus-zinnia-mango-fjord (contextValue keeps it for words of passwords only)
	}
	if e-p < 8 || !strongValue(s[p:e]) || strings.ContainsAny(s[p:e], "=:") {
		return -1, -1 // KEY=VALUE and user:pw are the assignment and URL rules' business
	}
	return p, e
}

// strongValue reports whether v looks like a password people choose when told to: 8 or more
// characters with letters, a digit, and a symbol or both cases. Words of prose have no digit;
// versions and dates no symbol and one case.
func strongValue(v string) bool {
	var lower, upper, digit, other bool
	symbols := 0
	for _, r := range v {
		switch {
		case 'a' <= r && r <= 'z':
			lower = true
		case 'A' <= r && r <= 'Z':
			upper = true
		case '0' <= r && r <= '9':
			digit = true
		default:
			other = true
			if r < utf8.RuneSelf && pwSymbol[r] {
				symbols++
			}
		}
	}
	// letters of both cases and two symbols (pocfAUPisPR*~) are as strong as a digit
	chosen := digit && (lower || upper) && (other || lower && upper) || lower && upper && symbols >= 2 && len(v) >= 10
	return chosen && !identifierLike(v) && !strings.Contains(strings.ToUpper(v), Placeholder)
}

// openingQuotes open a value as a quote does ("「X」", "«X»", "„X“").
var openingQuotes = []string{"「", "『", "“", "«", "„", "‹", "‘", "【"}

// asciiSoFar reports whether the value read so far is ASCII.
func asciiSoFar(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// pairWords name a user and a password given together (creds: deploy / X).
var pairWords = map[string]bool{"creds": true, "credentials": true, "認証情報": true, "凭据": true, "凭证": true, "憑證": true, "인증 정보": true, "zugangsdaten": true, "credenciales": true, "credenziali": true}

// pairedPassword finds the password after a user name that ends at p: a slash, then the value,
// each perhaps quoted or in backticks (deploy / `X`, oracle/X).
func pairedPassword(s string, p int) (start, end int) {
	q := p
	for q < len(s) && q-p < 4 && strings.IndexByte("`'\" ", s[q]) >= 0 {
		q++
	}
	if q >= len(s) || s[q] != '/' {
		return -1, -1
	}
	q++
	for q < len(s) && q-p < 10 && strings.IndexByte("`'\" ", s[q]) >= 0 {
		q++
	}
	e := q
	for e < len(s) && e-q < 128 && s[e] < utf8.RuneSelf && !unicode.IsSpace(rune(s[e])) && strings.IndexByte("`'\"", s[e]) < 0 {
		e++
	}
	for e > q && strings.IndexByte(".,;)", s[e-1]) >= 0 {
		e--
	}
	if e-q < 6 || !strongValue(s[q:e]) && !passwordPiece(s[q:e], true) {
		return -1, -1
	}
	return q, e
}

// phraseWords name a value that may be several words written with blanks.
var phraseWords = map[string]bool{"passphrase": true, "pass phrase": true, "unlock phrase": true, "recovery phrase": true, "master password": true}

// phraseEnd reads the lower-case words that follow a value ending at e on its line, as a
// passphrase of words is written (up to eight in all, a number last), and returns where they
// end and how many words the value then has.
func phraseEnd(s string, e int) (end, words int) {
	words = 1
	for words < 8 {
		p := e
		if p >= len(s) || s[p] != ' ' {
			break
		}
		p++
		q := p
		for q < len(s) && (isLower(s[q]) || '0' <= s[q] && s[q] <= '9') {
			q++
		}
		w := s[p:q]
		if w == "" || q < len(s) && !(s[q] == ' ' || strings.IndexByte(".,;)'\"\n", s[q]) >= 0) {
			break
		}
		if allDigits(w) {
			e, words = q, words+1 // a number, last or among the words (verbena anvil 97 inkwell)
			continue
		}
		if len(w) < 3 || len(w) > 10 || !allLetters(w) {
			break
		}
		e, words = q, words+1
	}
	return e, words
}

// placeAfterIn reports whether the bare value s[v:e], read at w, follows the word in, into or
// inside and holds letters and digits only: the name of where a secret is kept (a password
// manager, a vault), not the secret.
func placeAfterIn(s string, w, v, e int) bool {
	b := w
	for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t') {
		b--
	}
	a := b
	for a > 0 && isLetter(s[a-1]) {
		a--
	}
	switch strings.ToLower(s[a:b]) {
	case "in", "into", "inside":
	default:
		return false
	}
	for i := v; i < e; i++ {
		if !isWordByte(s[i]) || s[i] == '_' {
			return false
		}
	}
	return true
}
