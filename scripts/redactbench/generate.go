package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
)

// The generated part of the corpus: secrets of the shapes providers document (a prefix, a length,
// an alphabet) with random bodies, and the shapes a careful attacker would try, each kind written
// in several texts. Nothing here is a real secret: every body comes from the random source below.

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lower  = "abcdefghijklmnopqrstuvwxyz0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexlc  = "0123456789abcdef"
	b64std = alnum + "+/"
	b64url = alnum + "-_"
	b32    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	bech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	symb   = alnum + "!#$%&*+-.=?@^_~"
)

type gen struct{ rng *rand.Rand }

func (g *gen) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *gen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.IntN(256))
	}
	return b
}

func (g *gen) b64(n int) string    { return base64.StdEncoding.EncodeToString(g.bytes(n)) }
func (g *gen) b64url(n int) string { return base64.RawURLEncoding.EncodeToString(g.bytes(n)) }

// password is what a person picks: a random string with symbols, a passphrase of words and
// digits, or a word with a year and a symbol, always 10 characters or more.
func (g *gen) password() string {
	switch g.rng.IntN(4) {
	case 0:
		return g.s(symb, 12+g.rng.IntN(6))
	case 1:
		w := []string{"Lantern", "Orbit", "Pepper", "Harbor", "Quartz", "Maple", "Falcon", "Copper", "Velvet", "Nimbus"}
		return w[g.rng.IntN(len(w))] + "-" + w[g.rng.IntN(len(w))] + "-" + g.s("0123456789", 4) + g.s("abcdefgh", 2)
	case 2:
		return g.pick("Sommer", "Invierno", "Printemps", "Tokyo", "Beijing", "Seoul", "Moskva", "Lisboa") + g.s("0123456789", 4) + g.pick("!", "#", "$", "?") + g.s(alnum, 4)
	default:
		return g.s(alnum, 10) + g.s("!@#%^&*", 1) + g.s(alnum, 5)
	}
}

// kindGen is one kind: its group, its name and a function that writes one sample of it.
type kindGen struct {
	group, name, format string
	make                func(g *gen) (text, secret string)
}

// tmpl writes one of several texts around a secret (%s marks it).
func tmpl(g *gen, secret string, texts ...string) (string, string) {
	return strings.Replace(texts[g.rng.IntN(len(texts))], "%s", secret, 1), secret
}

// token is a provider's token: a body made by body, and texts a person would write around it.
func tok(group, name string, body func(g *gen) string, texts ...string) kindGen {
	if len(texts) == 0 {
		texts = []string{
			"here is the key: %s",
			"export API_KEY=%s",
			"I pasted %s into the settings page and it worked",
			`{"credentials": {"value": "%s"}}`,
			"the CI variable is set to %s now",
			"use %s for the staging account",
		}
	}
	return kindGen{group, name, "prefix and length as the provider documents them", func(g *gen) (string, string) {
		return tmpl(g, body(g), texts...)
	}}
}

func pre(prefix, alphabet string, n int) func(g *gen) string {
	return func(g *gen) string { return prefix + g.s(alphabet, n) }
}

var bip39 = strings.Fields(`abandon ability able about above absent absorb abstract absurd abuse access accident account accuse
achieve acid acoustic acquire across act action actor actress actual adapt add addict address adjust admit adult advance
advice aerobic affair afford afraid again age agent agree ahead aim air airport aisle alarm album alcohol alert alien all
alley allow almost alone alpha already also alter always amateur amazing among amount amused analyst anchor ancient anger
angle angry animal ankle announce annual another answer antenna antique anxiety any apart apology appear apple approve
april arch arctic area arena argue arm armed armor army around arrange arrest arrive arrow art artefact artist artwork ask
aspect assault asset assist assume asthma athlete atom attack attend attitude attract auction audit august aunt author
auto autumn average avocado avoid awake aware away awesome awful awkward axis baby bachelor bacon badge bag balance
balcony ball bamboo banana banner bar barely bargain barrel base basic basket battle beach bean beauty because become beef
before begin behave behind believe below belt bench benefit best betray better between beyond bicycle bid bike bind
biology bird birth bitter black blade blame blanket blast bleak bless blind blood blossom blouse blue blur blush board
boat body boil bomb bone bonus book boost border boring borrow boss bottom bounce box boy bracket brain brand brass brave
bread breeze brick bridge brief bright bring brisk broccoli broken bronze broom brother brown brush bubble buddy budget
buffalo build bulb bulk bullet bundle bunker burden burger burst bus business busy butter buyer buzz cabbage cabin cable`)

func (g *gen) seed(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = bip39[g.rng.IntN(len(bip39))]
	}
	return strings.Join(w, " ")
}

// wrap breaks s into lines of n characters.
func wrap(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s[i:min(i+n, len(s))])
	}
	return b.String()
}

func jsonB64(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }

func kinds() []kindGen {
	ks := []kindGen{
		// providers, by their documented prefixes and lengths
		tok("provider", "google-oauth-client-secret", pre("GOCSPX-", b64url, 28)),
		tok("provider", "google-api-key", pre("AIza", b64url, 35)),
		tok("provider", "google-oauth-access-token", pre("ya29.a0", b64url, 120)),
		tok("provider", "google-oauth-refresh-token", func(g *gen) string { return "1//0" + g.s(b64url, 99) }),
		tok("provider", "vercel-token", func(g *gen) string { return g.pick("vcp_", "vci_", "vca_", "vcr_") + g.s(alnum, 56) }),
		tok("provider", "gitlab-runner-registration-token", pre("GR1348941", b64url, 20)),
		tok("provider", "gitlab-pat", pre("glpat-", b64url, 20)),
		tok("provider", "gitlab-runner-auth-token", pre("glrt-", b64url, 20)),
		tok("provider", "dropbox-short-lived-token", func(g *gen) string { return "sl.u." + g.s(b64url, 150) }),
		tok("provider", "salesforce-access-token", func(g *gen) string {
			return "00D" + g.s(alnum, 12) + "!AQ" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._", 94)
		}),
		tok("provider", "nostr-nsec", pre("nsec1", bech32, 58)),
		tok("provider", "ethereum-private-key", func(g *gen) string { return g.pick("0x", "") + g.s(hexlc, 64) },
			"wallet private key: %s", "PRIVATE_KEY=%s", "import the account with the private key %s into MetaMask",
			`const signer = new ethers.Wallet("%s", provider);`, "deployer key %s (hardhat network)"),
		{"provider", "bip39-seed-phrase", "12 or 24 words of the BIP39 English list", func(g *gen) (string, string) {
			return tmpl(g, g.seed(12+12*g.rng.IntN(2)), "my recovery phrase is %s", "seed: %s", "MNEMONIC=\"%s\"",
				"write these words down: %s", "助记词：%s")
		}},
		tok("provider", "slack-bot-token", func(g *gen) string {
			return "xoxb-" + g.s("0123456789", 12) + "-" + g.s("0123456789", 13) + "-" + g.s(alnum, 24)
		}),
		tok("provider", "slack-app-token", func(g *gen) string {
			return "xapp-1-A" + g.s(upper, 10) + "-" + g.s("0123456789", 13) + "-" + g.s(hexlc, 64)
		}),
		tok("provider", "stripe-restricted-key", pre("rk_live_", alnum, 99)),
		tok("provider", "stripe-webhook-secret", pre("whsec_", alnum, 32)),
		tok("provider", "openai-project-key", func(g *gen) string { return "sk-proj-" + g.s(b64url, 74) + "T3BlbkFJ" + g.s(b64url, 74) }),
		tok("provider", "anthropic-key", func(g *gen) string { return "sk-ant-api03-" + g.s(b64url, 93) + "AA" }),
		tok("provider", "github-fine-grained-pat", func(g *gen) string { return "github_pat_11" + g.s(upper, 20) + "_" + g.s(alnum, 59) }),
		tok("provider", "github-app-token", func(g *gen) string { return g.pick("ghs_", "ghu_", "ghr_") + g.s(alnum, 36) }),
		tok("provider", "npm-token", pre("npm_", alnum, 36)),
		tok("provider", "pypi-token", func(g *gen) string { return "pypi-AgEIcHlwaS5vcmc" + g.s(b64url, 120) }),
		tok("provider", "huggingface-token", pre("hf_", alnum, 34)),
		tok("provider", "twilio-api-key", pre("SK", hexlc, 32)),
		tok("provider", "sendgrid-key", func(g *gen) string { return "SG." + g.s(b64url, 22) + "." + g.s(b64url, 43) }),
		tok("provider", "mailgun-key", pre("key-", hexlc, 32)),
		tok("provider", "shopify-token", func(g *gen) string { return g.pick("shpat_", "shpss_", "shpca_") + g.s(hexlc, 32) }),
		tok("provider", "digitalocean-token", func(g *gen) string { return g.pick("dop_v1_", "doo_v1_", "dor_v1_") + g.s(hexlc, 64) }),
		tok("provider", "doppler-token", func(g *gen) string { return g.pick("dp.pt.", "dp.st.", "dp.sa.") + g.s(alnum, 43) }),
		tok("provider", "linear-key", pre("lin_api_", alnum, 40)),
		tok("provider", "notion-token", func(g *gen) string {
			return g.pick("secret_"+g.s(alnum, 43), "ntn_"+g.s("0123456789", 11)+g.s(alnum, 35))
		}),
		tok("provider", "figma-token", func(g *gen) string { return "figd_" + g.s(b64url, 40) }),
		tok("provider", "atlassian-api-token", func(g *gen) string { return "ATATT3xFfGF0" + g.s(b64url, 170) + "=" + g.s(upper, 8) }),
		tok("provider", "databricks-token", func(g *gen) string { return "dapi" + g.s(hexlc, 32) + g.pick("", "-2", "-3") }),
		tok("provider", "grafana-service-account-token", func(g *gen) string { return "glsa_" + g.s(alnum, 32) + "_" + g.s(hexlc, 8) }),
		tok("provider", "grafana-cloud-token", func(g *gen) string { return "glc_eyJvIjoi" + g.s(b64std, 100) + "==" }),
		tok("provider", "newrelic-user-key", pre("NRAK-", upper, 27)),
		tok("provider", "sentry-org-token", func(g *gen) string { return "sntrys_eyJpYXQiOj" + g.s(b64std, 120) + "_" + g.s(b64std, 43) }),
		tok("provider", "pulumi-token", pre("pul-", hexlc, 40)),
		tok("provider", "postman-key", func(g *gen) string { return "PMAK-" + g.s(hexlc, 24) + "-" + g.s(hexlc, 34) }),
		tok("provider", "telegram-bot-token", func(g *gen) string { return g.s("0123456789", 10) + ":AA" + g.s(b64url, 33) }),
		tok("provider", "azure-ad-client-secret", func(g *gen) string { return g.s(alnum, 3) + "8Q~" + g.s(b64url+".~", 34) }),
		tok("provider", "age-secret-key", pre("AGE-SECRET-KEY-1", strings.ToUpper(bech32), 58)),
		tok("provider", "heroku-api-key", func(g *gen) string { return "HRKU-AA" + g.s(b64url, 58) }),
		tok("provider", "square-token", func(g *gen) string { return g.pick("EAAA"+g.s(b64url, 60), "sq0csp-"+g.s(b64url, 43)) }),
		tok("provider", "planetscale-token", func(g *gen) string { return g.pick("pscale_tkn_", "pscale_pw_") + g.s(b64url, 43) }),
		tok("provider", "supabase-token", pre("sbp_", hexlc, 40)),
		tok("provider", "mapbox-secret-token", func(g *gen) string { return "sk.eyJ1Ijoi" + g.s(b64url, 50) + "." + g.s(b64url, 22) }),
		tok("provider", "onepassword-service-account", func(g *gen) string { return "ops_eyJzaWduSW5BZGRyZXNzIjoi" + g.s(b64std, 600) }),
		tok("provider", "vault-token", func(g *gen) string { return g.pick("hvs.", "hvb.") + g.s(b64url, 90) }),
		tok("provider", "terraform-cloud-token", func(g *gen) string { return g.s(alnum, 14) + ".atlasv1." + g.s(b64url, 67) }),
		tok("provider", "dockerhub-pat", pre("dckr_pat_", b64url, 27)),
		tok("provider", "buildkite-token", pre("bkua_", hexlc, 40)),
		tok("provider", "alibaba-access-key", func(g *gen) string { return "LTAI" + g.s(alnum, 20) }),
		tok("provider", "tencent-secret-id", func(g *gen) string { return "AKID" + g.s(alnum, 32) }),
		tok("provider", "yandex-iam-token", func(g *gen) string { return "t1.9euelZ" + g.s(b64url, 140) }),
		tok("provider", "groq-key", pre("gsk_", alnum, 52)),
		tok("provider", "replicate-token", pre("r8_", alnum, 37)),
		tok("provider", "perplexity-key", pre("pplx-", alnum, 48)),
		tok("provider", "xai-key", pre("xai-", alnum, 80)),
		tok("provider", "fcm-server-key", func(g *gen) string { return "AAAA" + g.s(b64url, 7) + ":APA91b" + g.s(b64url, 134) }),
		tok("provider", "razorpay-key-secret", pre("", alnum, 24), "RAZORPAY_KEY_ID=rzp_live_ABCDEfghij1234\nRAZORPAY_KEY_SECRET=%s", "razorpay secret %s"),
		tok("provider", "contentful-token", pre("CFPAT-", b64url, 43)),
		tok("provider", "sonarqube-token", func(g *gen) string { return g.pick("squ_", "sqp_", "sqa_") + g.s(hexlc, 40) }),
		tok("provider", "twitch-client-secret", pre("", lower, 30), "TWITCH_CLIENT_SECRET=%s", "twitch client secret: %s"),
		tok("provider", "circleci-pat", func(g *gen) string { return "CCIPAT_" + g.s(alnum, 22) + "_" + g.s(hexlc, 40) }),
		tok("provider", "flyio-token", func(g *gen) string { return "FlyV1 fm2_lJPECAAAAAAAA" + g.s(b64std, 200) }),
		tok("provider", "confluent-api-secret", pre("", b64std, 64), "confluent api-key create gave secret %s", "sasl.jaas.config=... password='%s';"),
		tok("provider", "deepseek-key", pre("sk-", hexlc, 32)),
		tok("provider", "mistral-key", pre("", alnum, 32), "MISTRAL_API_KEY=%s", "mistral key %s"),
		tok("provider", "lark-app-secret", pre("", alnum, 32), "飞书 app_secret: %s", "lark app secret is %s"),
		tok("provider", "wechat-appsecret", pre("", hexlc, 32), "微信公众号 AppSecret：%s", "appsecret=%s"),
		tok("provider", "line-channel-access-token", func(g *gen) string { return g.s(b64std, 150) + "=" }, "LINE チャネルアクセストークン: %s", "LINE_CHANNEL_ACCESS_TOKEN=%s"),
		tok("provider", "kakao-rest-api-key", pre("", hexlc, 32), "카카오 REST API 키: %s", "KAKAO_REST_API_KEY=%s"),
		tok("provider", "naver-client-secret", pre("", alnum, 10), "네이버 Client Secret: %s", "X-Naver-Client-Secret: %s"),
	}
	ks = append(ks, sentences()...)
	ks = append(ks, keyMaterial()...)
	ks = append(ks, structured()...)
	ks = append(ks, configs()...)
	ks = append(ks, commands()...)
	sort.Slice(ks, func(i, j int) bool { return ks[i].group+"/"+ks[i].name < ks[j].group+"/"+ks[j].name })
	return ks
}

// sentences are passwords and keys said in plain sentences, in nine languages.
func sentences() []kindGen {
	langs := []struct {
		lang string
		pw   []string
		key  []string
	}{
		{"ja", []string{"本番DBのパスワードは %s です", "パスワード：%s", "管理者パスワードを %s に変更しました", "VPNのパスワードは「%s」です"},
			[]string{"APIキーは %s です", "アクセストークン：%s を使ってください", "シークレットキーは %s"}},
		{"zh", []string{"数据库密码：%s", "生产环境的密码是 %s", "管理员密码改成了%s ，别外传", "root 密码 %s"},
			[]string{"API密钥：%s", "访问令牌是 %s", "密钥: %s"}},
		{"ko", []string{"비밀번호: %s", "운영 DB 비밀번호는 %s 입니다", "관리자 암호를 %s 로 바꿨어요"},
			[]string{"API 키: %s", "액세스 토큰은 %s 입니다"}},
		{"es", []string{"contraseña: %s", "la contraseña de la base de datos es %s", "la clave del wifi es %s"},
			[]string{"la clave de la API es %s", "token de acceso: %s"}},
		{"fr", []string{"mot de passe : %s", "le mot de passe de prod est %s", "le nouveau mdp est %s"},
			[]string{"la clé d'API est %s", "jeton d'accès : %s"}},
		{"de", []string{"Kennwort: %s", "das Passwort für den Server lautet %s", "Passwort ist %s, bitte nicht weitergeben"},
			[]string{"der API-Schlüssel lautet %s", "Zugangstoken: %s"}},
		{"pt", []string{"senha=%s", "a senha do banco é %s", "senha do admin: %s"},
			[]string{"a chave da API é %s", "token de acesso: %s"}},
		{"ru", []string{"пароль: %s", "пароль от базы %s", "новый пароль администратора — %s"},
			[]string{"ключ API: %s", "токен доступа %s"}},
		{"en", []string{"the staging DB password is %s", "pw is %s btw", "login with admin / %s", "I reset it, the new one is %s — don't share"},
			[]string{"the API key is %s", "here's my token %s", "use this key: %s"}},
	}
	var out []kindGen
	for _, l := range langs {
		pw, key := l.pw, l.key
		out = append(out,
			kindGen{"sentence", l.lang + "-password", "a password said in a sentence", func(g *gen) (string, string) { return tmpl(g, g.password(), pw...) }},
			kindGen{"sentence", l.lang + "-key", "an opaque key said in a sentence", func(g *gen) (string, string) {
				return tmpl(g, g.s(alnum, 24+g.rng.IntN(16)), key...)
			}})
	}
	return out
}

// pemBody is base64 key material as a PEM body has it: lines of 64.
func (g *gen) pemBody(prefix string, n int) string {
	return wrap(prefix+g.b64(n)[len(prefix):], 64)
}

func keyMaterial() []kindGen {
	return []kindGen{
		{"keymaterial", "openssh-body-unframed", "an OpenSSH private key body without its BEGIN and END lines", func(g *gen) (string, string) {
			body := wrap("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"+g.s(b64std, 330), 70)
			return tmpl(g, body, "here's the deploy key body:\n%s", "id_ed25519 contents\n%s\n(I stripped the header lines)")
		}},
		{"keymaterial", "pkcs8-body-unframed", "a PKCS#8 RSA key body without its frame", func(g *gen) (string, string) {
			return tmpl(g, g.pemBody("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 900), "key:\n%s", "private key (base64 DER):\n%s")
		}},
		{"keymaterial", "ec-key-body-unframed", "an EC private key body without its frame", func(g *gen) (string, string) {
			return tmpl(g, g.pemBody("MHcCAQEEI", 90), "the EC key is %s", "ec.key:\n%s")
		}},
		{"keymaterial", "pgp-secret-key-packets", "an armoured PGP secret key without the armour lines", func(g *gen) (string, string) {
			return tmpl(g, "lQVYBG"+g.pemBody("lQVYBG", 1200)[6:]+"\n="+g.s(b64std, 4), "gpg --export-secret-keys output:\n%s", "signing key\n%s")
		}},
		{"keymaterial", "pem-em-dash", "a PEM private key whose dashes a word processor turned into em dashes", func(g *gen) (string, string) {
			body := g.pemBody("MIIEpAIBAAKCAQEA", 800)
			return "—–BEGIN RSA PRIVATE KEY—–\n" + body + "\n—–END RSA PRIVATE KEY—–", body
		}},
		{"keymaterial", "pem-unicode-dashes", "a PEM private key with en dashes and no END line", func(g *gen) (string, string) {
			body := g.pemBody("MIIEvgIBADANBgkqhkiG9w0BAQEFAASC", 900)
			return "–––––BEGIN PRIVATE KEY–––––\n" + body, body
		}},
		{"keymaterial", "minisign-secret-key", "a minisign secret key file", func(g *gen) (string, string) {
			sk := "RWRTY0Iy" + g.s(b64std, 204)
			return tmpl(g, sk, "untrusted comment: minisign encrypted secret key\n%s", "minisign.key:\n%s")
		}},
		{"keymaterial", "fernet-key", "a Fernet key: 32 bytes, URL-safe base64", func(g *gen) (string, string) {
			return tmpl(g, base64.URLEncoding.EncodeToString(g.bytes(32)), "FERNET_KEY=%s", "Fernet(b'%s')", "the fernet key is %s")
		}},
		{"keymaterial", "fernet-token", "a Fernet token (version 0x80, URL-safe base64)", func(g *gen) (string, string) {
			return tmpl(g, "gAAAAAB"+base64.URLEncoding.EncodeToString(g.bytes(100))[7:], "encrypted blob: %s", "token = %s")
		}},
		{"keymaterial", "macaroon-v1", "a macaroon, base64 of its packets", func(g *gen) (string, string) {
			m := fmt.Sprintf("0024location https://example.com\n0026identifier %s\n002fsignature %s\n", g.s(lower, 14), g.bytes(32))
			return tmpl(g, base64.RawURLEncoding.EncodeToString([]byte(m)), "macaroon: %s", "Authorization: Macaroon %s", "the discharge macaroon %s")
		}},
		{"keymaterial", "lnd-admin-macaroon-hex", "an LND admin macaroon as hex", func(g *gen) (string, string) {
			return tmpl(g, "0201036c6e6402f801030a10"+g.s(hexlc, 200), "lncli --macaroon hex %s", "LND_MACAROON=%s")
		}},
		{"keymaterial", "paseto", "a PASETO token", func(g *gen) (string, string) {
			return tmpl(g, g.pick("v4.local.", "v2.local.", "v4.public.", "v3.local.")+g.b64url(96), "session token %s", "Cookie: session=%s")
		}},
		{"keymaterial", "wireguard-private-key", "a WireGuard private key: 32 bytes in base64", func(g *gen) (string, string) {
			return tmpl(g, g.b64(32), "[Interface]\nPrivateKey = %s\nAddress = 10.8.0.2/24", "wg private key %s")
		}},
		{"keymaterial", "ssh-ed25519-seed-hex", "a raw ed25519 seed in hex", func(g *gen) (string, string) {
			return tmpl(g, g.s(hexlc, 64), "ed25519 seed: %s", "signing seed = %s")
		}},
		{"keymaterial", "key-wrapped-two-lines", "a provider key wrapped onto two lines", func(g *gen) (string, string) {
			k := g.pick("sk_live_"+g.s(alnum, 99), "ghp_"+g.s(alnum, 36), "xoxp-"+g.s("0123456789", 12)+"-"+g.s("0123456789", 12)+"-"+g.s(hexlc, 32))
			cut := 8 + g.rng.IntN(len(k)-16)
			return tmpl(g, k[:cut]+"\n"+k[cut:], "the key (it wrapped in my terminal):\n%s", "token:\n%s\nend")
		}},
	}
}

func structured() []kindGen {
	header := func(alg string) string { return jsonB64(`{"alg":"` + alg + `","typ":"JWT"}`) }
	claims := func(g *gen) string {
		return jsonB64(fmt.Sprintf(`{"sub":"%s","name":"%s","iat":%d}`, g.s("0123456789", 10), g.pick("Ana", "Kenji", "Olga"), 1700000000+g.rng.IntN(9999999)))
	}
	return []kindGen{
		{"structured", "jwe-compact", "a JWE in compact form: five parts", func(g *gen) (string, string) {
			jwe := jsonB64(`{"alg":"RSA-OAEP-256","enc":"A256GCM"}`) + "." + g.b64url(256) + "." + g.b64url(12) + "." + g.b64url(80) + "." + g.b64url(16)
			return tmpl(g, jwe, "id_token=%s", "the encrypted token: %s")
		}},
		{"structured", "jwt-pretty-header", "a JWT whose header was pretty-printed JSON (ewog…)", func(g *gen) (string, string) {
			jwt := jsonB64("{\n  \"alg\": \"HS256\",\n  \"typ\": \"JWT\"\n}") + "." + jsonB64(fmt.Sprintf("{\n  \"sub\": \"%s\"\n}", g.s(lower, 12))) + "." + g.b64url(32)
			return tmpl(g, jwt, "got this token back: %s", "session=%s")
		}},
		{"structured", "jwt-unsigned", "an unsigned JWT (alg none, empty signature)", func(g *gen) (string, string) {
			return tmpl(g, jsonB64(`{"alg":"none"}`)+"."+claims(g)+".", "unsigned token %s", "jwt: %s")
		}},
		{"structured", "jwt-es256", "a JWT signed with ES256", func(g *gen) (string, string) {
			return tmpl(g, header("ES256")+"."+claims(g)+"."+g.b64url(64), "access_token: %s", "try %s against /api/me")
		}},
		{"structured", "base64-service-account-json", "the base64 of a Google service-account JSON", func(g *gen) (string, string) {
			sa := fmt.Sprintf(`{"type": "service_account", "project_id": "%s", "private_key_id": "%s", "private_key": "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n"}`, g.s(lower, 10), g.s(hexlc, 40), g.b64(200))
			return tmpl(g, base64.StdEncoding.EncodeToString([]byte(sa)), "GOOGLE_CREDENTIALS_B64=%s", "the secret's data: %s")
		}},
		{"structured", "base64-aws-credentials-file", "the base64 of an AWS credentials file", func(g *gen) (string, string) {
			c := fmt.Sprintf("[default]\naws_access_key_id = AKIA%s\naws_secret_access_key = %s\n", g.s(upper, 16), g.s(b64std, 40))
			return tmpl(g, base64.StdEncoding.EncodeToString([]byte(c)), "credentials: %s", "kubectl create secret generic aws --from-literal=creds=%s")
		}},
		{"structured", "base64-token-json", "the base64 of a token JSON", func(g *gen) (string, string) {
			c := fmt.Sprintf(`{"access_token":"%s","refresh_token":"%s","token_type":"Bearer"}`, g.s(alnum, 40), g.s(alnum, 40))
			return tmpl(g, base64.StdEncoding.EncodeToString([]byte(c)), "TOKEN_B64=%s", "cached token %s")
		}},
		{"structured", "base64-netrc", "the base64 of a .netrc", func(g *gen) (string, string) {
			c := fmt.Sprintf("machine api.example.com login deploy password %s\n", g.password())
			return tmpl(g, base64.StdEncoding.EncodeToString([]byte(c)), "NETRC=%s", "echo %s | base64 -d > ~/.netrc")
		}},
		{"structured", "base64-env-file", "the base64 of a .env file", func(g *gen) (string, string) {
			c := fmt.Sprintf("DB_PASSWORD=%s\nSECRET_KEY_BASE=%s\n", g.password(), g.s(hexlc, 64))
			return tmpl(g, base64.StdEncoding.EncodeToString([]byte(c)), "ENV_FILE_B64: %s", "paste this into the secret: %s")
		}},
		{"structured", "hex-of-password", "a password hex-encoded", func(g *gen) (string, string) {
			return tmpl(g, hex.EncodeToString([]byte(g.password())), "db pass (hex) %s", "PASS_HEX=%s")
		}},
	}
}

func configs() []kindGen {
	return []kindGen{
		{"url", "url-encoded-password", "a URL whose password is percent-encoded", func(g *gen) (string, string) {
			pw := url.QueryEscape(g.s(alnum, 6) + "@" + g.s(alnum, 4) + ":" + g.s(alnum, 4) + "/" + g.s(alnum, 3))
			return tmpl(g, pw, "DATABASE_URL=postgres://app:%s@db.internal:5432/app", "mongodb+srv://admin:%s@cluster0.abcd.mongodb.net/")
		}},
		{"url", "json-escaped-url-password", "a URL in JSON with escaped slashes", func(g *gen) (string, string) {
			return tmpl(g, g.password(), `{"dsn":"mysql:\/\/root:%s@127.0.0.1:3306\/shop"}`, `"url": "redis:\/\/:%s@cache:6379\/0"`)
		}},
		{"url", "php-escaped-url-password", "a URL in a PHP string, the password's $ escaped", func(g *gen) (string, string) {
			pw := g.s(alnum, 5) + `\$` + g.s(alnum, 6) + `\$` + g.s(alnum, 3)
			return tmpl(g, pw, `$dsn = "pgsql://web:%s@localhost/site";`, `define('DB_URL', "mysql://wp:%s@db/wp");`)
		}},
		{"url", "json-db-password", "a db_password key in compact JSON", func(g *gen) (string, string) {
			return tmpl(g, g.password(), `{"db_password":"%s"}`, `{"db_host":"10.0.0.5","db_password":"%s","db_user":"app"}`)
		}},
		{"url", "schemeless-proxy-credentials", "user:password@proxy:port without a scheme", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "export https_proxy=alice:%s@proxy.corp.example:3128", "set the proxy to bob:%s@10.1.2.3:3128 in the browser", "proxy = svc-build:%s@squid:3128")
		}},
		{"config", "yaml-block-scalar", "a secret in a YAML block scalar", func(g *gen) (string, string) {
			return tmpl(g, g.s(alnum, 32), "password: |\n  %s\nuser: app", "token: >-\n  %s\n", "client_secret: |-\n    %s")
		}},
		{"config", "yaml-anchor", "a secret behind a YAML anchor", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "x-db: &dbpass %s\nservices:\n  api:\n    environment:\n      DB_PASS: *dbpass", "defaults: &creds\n  pw: &p %s\nprod:\n  password: *p")
		}},
		{"config", "gradle-store-password", "a Gradle signing config's storePassword", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "signingConfigs {\n  release {\n    storePassword '%s'\n    keyAlias 'upload'\n  }\n}", "storePassword = \"%s\"", "keyPassword \"%s\"")
		}},
		{"config", "terraform-variable-default", "a Terraform variable's default in a *_password variable", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "variable \"db_password\" {\n  type    = string\n  default = \"%s\"\n}", "variable \"admin_password\" {\n  default = \"%s\"\n  sensitive = true\n}")
		}},
		{"config", "ini-pass-key", "an INI pass= key", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "[database]\nhost = db\npass = %s", "[smtp]\nuser=mailer\npass=%s")
		}},
		{"config", "xml-password-element", "a Maven settings password element", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "<server>\n  <id>nexus</id>\n  <username>ci</username>\n  <password>%s</password>\n</server>", `<add key="ClearTextPassword" value="%s" />`)
		}},
		{"config", "java-system-property", "a JVM keystore password property", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "java -Djavax.net.ssl.keyStorePassword=%s -jar app.jar", "JAVA_OPTS=\"-Djavax.net.ssl.trustStorePassword=%s\"")
		}},
		{"config", "connection-string-pwd", "an ADO.NET connection string's Pwd", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "Server=tcp:sql.example.net;Database=app;User Id=sa;Pwd=%s;", "Data Source=db;Initial Catalog=crm;User ID=crm;PWD=%s")
		}},
		{"config", "npmrc-auth", "an .npmrc _auth or _authToken", func(g *gen) (string, string) {
			return tmpl(g, g.s(b64url, 36), "//registry.example.com/:_authToken=%s", "_auth=%s\nalways-auth=true")
		}},
		{"config", "env-named-secret", "an environment variable whose name says secret", func(g *gen) (string, string) {
			return tmpl(g, g.s(alnum, 32), "STRIPE_SECRET=%s", "export SESSION_SIGNING_KEY=%s", "APP_CLIENT_SECRET=%s")
		}},
	}
}

func commands() []kindGen {
	return []kindGen{
		{"command", "aws-configure-set", "aws configure set aws_secret_access_key", func(g *gen) (string, string) {
			return tmpl(g, g.s(b64std, 40), "aws configure set aws_secret_access_key %s", "aws configure set aws_secret_access_key %s --profile prod")
		}},
		{"command", "sql-identified-by", "SQL IDENTIFIED BY", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "CREATE USER 'app'@'%' IDENTIFIED BY '%s';", "ALTER USER reporter IDENTIFIED WITH mysql_native_password BY '%s';", "CREATE USER scott IDENTIFIED BY \"%s\";")
		}},
		{"command", "sql-password-clause", "Postgres CREATE ROLE ... PASSWORD", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "CREATE ROLE app LOGIN PASSWORD '%s';", "ALTER USER postgres WITH PASSWORD '%s';")
		}},
		{"command", "lftp-u", "lftp -u user,password", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "lftp -u deploy,%s sftp://files.example.com", "lftp -u ftpuser,%s -e 'mirror -R dist /www; quit' ftp.example.org")
		}},
		{"command", "xfreerdp-p", "xfreerdp /p:", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "xfreerdp /u:Administrator /p:%s /v:10.0.0.12", "xfreerdp /v:rdp.corp /u:ops /p:%s /cert:ignore")
		}},
		{"command", "net-use", "net use with a password", func(g *gen) (string, string) {
			return tmpl(g, g.password(), `net use Z: \\fileserver\share %s /user:CORP\svc_backup`, `net use \\10.0.0.4\c$ %s /user:administrator`)
		}},
		{"command", "redis-auth", "redis AUTH", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "127.0.0.1:6379> AUTH %s\nOK", "redis-cli then AUTH default %s", "requirepass %s")
		}},
		{"command", "imap-login", "IMAP LOGIN", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "a001 LOGIN alice@example.com %s\na001 OK LOGIN completed", "? LOGIN bob %s")
		}},
		{"command", "ftp-pass", "FTP USER/PASS", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "USER anonymous\n331 Please specify the password.\nPASS %s\n230 Login successful.", "ftp> PASS %s")
		}},
		{"command", "convertto-securestring", "PowerShell ConvertTo-SecureString", func(g *gen) (string, string) {
			return tmpl(g, g.password(), `$pw = ConvertTo-SecureString "%s" -AsPlainText -Force`, `ConvertTo-SecureString -String '%s' -AsPlainText -Force | Set-Secret db`)
		}},
		{"command", "smbclient-percent", "smbclient -U user%password", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "smbclient //nas/backup -U admin%%s", "smbclient -L //10.0.0.9 -U 'svc%%s'")
		}},
		{"command", "ldapsearch-w", "ldapsearch -w", func(g *gen) (string, string) {
			return tmpl(g, g.password(), `ldapsearch -x -D "cn=admin,dc=example,dc=org" -w %s -b dc=example,dc=org`, "ldapmodify -D cn=root -w '%s' -f add.ldif")
		}},
		{"command", "openssl-pass", "openssl -passin pass:", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "openssl pkcs12 -in cert.p12 -passin pass:%s -nodes", "openssl rsa -in key.pem -passout pass:%s -aes256")
		}},
		{"command", "htpasswd-b", "htpasswd -b", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "htpasswd -bc /etc/nginx/.htpasswd admin %s", "htpasswd -b .htpasswd deploy %s")
		}},
		{"command", "docker-login-p", "docker login -p", func(g *gen) (string, string) {
			return tmpl(g, g.s(b64url, 36), "docker login -u ci -p %s registry.example.com", "podman login quay.io -u robot -p %s")
		}},
		{"command", "keytool-storepass", "keytool -storepass", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "keytool -genkey -alias app -keystore app.jks -storepass %s -keypass changeit", "keytool -list -keystore ca.jks -storepass %s")
		}},
		{"command", "psql-pgpassword", "PGPASSWORD= before psql", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "PGPASSWORD=%s psql -h db -U app app", "MYSQL_PWD=%s mysqldump shop > shop.sql")
		}},
		{"command", "sshpass-p", "sshpass -p", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "sshpass -p '%s' ssh root@10.0.0.3", "sshpass -p%s scp build.tgz deploy@web:")
		}},
		{"command", "git-clone-token", "a token as the user of a git URL", func(g *gen) (string, string) {
			return tmpl(g, g.s(alnum, 40), "git clone https://oauth2:%s@gitlab.example.com/team/app.git", "git remote set-url origin https://%s@github.com/org/repo.git")
		}},
		{"command", "mysql-p-attached", "mysql -pPASSWORD", func(g *gen) (string, string) {
			return tmpl(g, g.s(alnum, 14), "mysql -uroot -p%s -h 127.0.0.1", "mysqladmin -u root -p%s status")
		}},
		{"command", "ssh-keygen-n", "ssh-keygen -N passphrase", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "ssh-keygen -t ed25519 -N '%s' -f ~/.ssh/deploy", "ssh-keygen -p -P old -N %s -f id_rsa")
		}},
		{"command", "wget-password", "wget --password", func(g *gen) (string, string) {
			return tmpl(g, g.password(), "wget --user=ci --password=%s https://repo.example.com/a.tgz", "wget --ftp-password='%s' ftp://mirror/x")
		}},
	}
}

// generate writes n samples of every kind with a fixed seed, so the files are the same on every run.
func generate(n int) []Sample {
	var out []Sample
	for _, k := range kinds() {
		h := fnv.New64a()
		h.Write([]byte(k.group + "/" + k.name))
		g := &gen{rand.New(rand.NewPCG(h.Sum64(), 2026))}
		for range n {
			text, secret := k.make(g)
			out = append(out, Sample{Kind: k.group + "/" + k.name, Group: k.group, Text: text, Secret: secret,
				Source: "generated:" + k.format, Licence: "generated here (no third-party text)"})
		}
	}
	return out
}
