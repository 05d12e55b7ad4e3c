package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"net/url"
	"sort"
	"strings"
)

// The fresh corpus (core/redact/testdata/public/fresh.jsonl): kinds that are in neither tune.jsonl
// nor heldout.jsonl, written without reading the detector, so that a figure on them says how it
// does on formats, files, commands and languages nobody had in mind while tuning. Every body is
// random; the formats are the ones providers and tools document (a prefix, a length, an alphabet,
// a file layout, a flag). Like the held-out split, the bench prints figures of it only.

// freshSeed is the second word of every fresh kind's random source (the first is a hash of the
// kind's name), other than the tune/heldout generator's, so no body repeats one of theirs.
const freshSeed = 7331

const (
	b58     = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	b58xrp  = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"
	upHex   = "0123456789ABCDEF"
	letters = "abcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
)

// pw is a password a person picks, in the shapes people use: words with digits and a symbol, a
// name and a year, a word with letters swapped for digits, words joined by dots, a random string.
// It starts with a letter and holds no quote, backslash, bar, space or '%', so it can stand
// unquoted or quoted in any of the texts below.
func (g *gen) pw() string {
	words := []string{"Giraffe", "Tundra", "Saffron", "Basalt", "Meadow", "Cobalt", "Juniper", "Walrus", "Ember", "Thistle",
		"Pelican", "Monsoon", "Garnet", "Hazel", "Tornado", "Biscuit", "Orchid", "Glacier", "Raven", "Mango"}
	w := func() string { return words[g.rng.IntN(len(words))] }
	sym := func() string { return g.pick("!", "#", "$", "&", "*", "?", "@", "+", "=", "_", "-", ".") }
	switch g.rng.IntN(6) {
	case 0:
		return w() + w() + g.s(digits, 2+g.rng.IntN(3)) + sym()
	case 1:
		return w() + sym() + g.s(digits, 4) + sym() + g.s(alnum, 3)
	case 2:
		l := strings.NewReplacer("a", "@", "o", "0", "e", "3", "i", "1", "s", "$").Replace(strings.ToLower(w() + w()))
		return strings.ToUpper(l[:1]) + l[1:] + g.s(digits, 3)
	case 3:
		return strings.ToLower(w()) + "." + strings.ToLower(w()) + "." + g.s(digits, 4) + sym()
	case 4:
		return g.s(letters, 1) + g.s(alnum+"!#$&*+-.=?@^_~", 13+g.rng.IntN(6))
	default:
		return g.s("ABCDEFGHJKLMNPQRSTUVWXYZ", 1) + g.s(alnum, 9) + sym() + g.s(alnum, 4)
	}
}

// urlpw is a password that can stand in a URL's userinfo as it is.
func (g *gen) urlpw() string {
	return g.s(letters, 1) + g.s(alnum, 11+g.rng.IntN(6)) + g.pick("", "-", "_", ".", "~") + g.s(alnum, 3)
}

func (g *gen) uuid() string {
	h := g.s(hexlc, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + g.pick("8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

func base58(b []byte, alphabet string) string {
	n := new(big.Int).SetBytes(b)
	var out []byte
	mod, base := new(big.Int), big.NewInt(58)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, alphabet[0])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func base58check(payload []byte, alphabet string) string {
	a := sha256.Sum256(payload)
	b := sha256.Sum256(a[:])
	return base58(append(append([]byte{}, payload...), b[:4]...), alphabet)
}

// crc16 is CRC-16/XMODEM, the checksum of Stellar's strkeys.
func crc16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c ^= uint16(x) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// ftok is a provider token of a fresh kind: its body, the environment variable people put it in,
// and texts of their own (%s the token, %v the variable).
func ftok(name string, body func(g *gen) string, env string, texts ...string) kindGen {
	texts = append(texts,
		env+"=%s",
		"can someone rotate this? it was in the CI log: "+env+"=%s",
		"export "+env+"=\"%s\"",
		"here you go: %s (it's the prod one, don't paste it elsewhere)",
	)
	return kindGen{"provider", name, "prefix, length and alphabet as the provider documents them", func(g *gen) (string, string) {
		return tmpl(g, body(g), texts...)
	}}
}

// fk is a fresh kind whose secret is made by secret and put in one of texts.
func fk(group, name, format string, secret func(g *gen) string, texts ...string) kindGen {
	return kindGen{group, name, format, func(g *gen) (string, string) { return tmpl(g, secret(g), texts...) }}
}

func freshProviders() []kindGen {
	return []kindGen{
		ftok("cloudflare-api-token", func(g *gen) string { return g.s(b64url, 40) }, "CLOUDFLARE_API_TOKEN",
			"curl -H \"Authorization: Bearer %s\" https://api.cloudflare.com/client/v4/user/tokens/verify"),
		ftok("cloudflare-origin-ca-key", func(g *gen) string { return "v1.0-" + g.s(hexlc, 24) + "-" + g.s(hexlc, 146) }, "CF_API_KEY",
			"origin CA key for the cert-manager issuer: %s"),
		kindGen{"provider", "azure-storage-connection-string", "an Azure Storage connection string's AccountKey (64 bytes, base64)", func(g *gen) (string, string) {
			k := g.b64(64)
			return tmpl(g, k, "DefaultEndpointsProtocol=https;AccountName=st"+g.s(lower, 10)+";AccountKey=%s;EndpointSuffix=core.windows.net",
				"\"AzureWebJobsStorage\": \"DefaultEndpointsProtocol=https;AccountName=funcstore;AccountKey=%s\"",
				"az storage blob upload --account-name logs --account-key %s -f out.tgz -c backups")
		}},
		kindGen{"provider", "azure-sas-signature", "the sig= of an Azure shared access signature", func(g *gen) (string, string) {
			sig := url.QueryEscape(g.b64(32))
			return tmpl(g, sig, "https://acct.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01T00:00:00Z&spr=https&sig=%s",
				"SAS token: sv=2021-08-06&st=2026-03-01&se=2026-09-01&sr=c&sp=racwdl&sig=%s")
		}},
		ftok("azure-devops-pat", func(g *gen) string { return g.s("abcdefghijklmnopqrstuvwxyz234567", 52) }, "AZURE_DEVOPS_EXT_PAT",
			"git clone https://pat:%s@dev.azure.com/contoso/web/_git/web"),
		ftok("okta-api-token", func(g *gen) string { return "00" + g.s(b64url, 40) }, "OKTA_API_TOKEN",
			"Authorization: SSWS %s"),
		ftok("auth0-client-secret", func(g *gen) string { return g.s(b64url, 64) }, "AUTH0_CLIENT_SECRET",
			"auth0 app secret (prod tenant): %s"),
		ftok("twilio-auth-token", func(g *gen) string { return g.s(hexlc, 32) }, "TWILIO_AUTH_TOKEN",
			"client = Client(\"AC"+"a1b2c3d4e5f60718293a4b5c6d7e8f90\", \"%s\")"),
		ftok("plaid-secret", func(g *gen) string { return g.s(hexlc, 30) }, "PLAID_SECRET",
			"{\"client_id\": \"65f0c0ffee0123456789abcd\", \"secret\": \"%s\", \"access_token\": \"access-sandbox-x\"}"),
		ftok("braintree-access-token", func(g *gen) string {
			return "access_token$production$" + g.s(lower, 16) + "$" + g.s(hexlc, 32)
		}, "BRAINTREE_ACCESS_TOKEN", "gateway = braintree.BraintreeGateway(access_token=\"%s\")"),
		ftok("mollie-live-key", func(g *gen) string { return "live_" + g.s(alnum, 30) }, "MOLLIE_API_KEY",
			"$mollie->setApiKey(\"%s\");"),
		ftok("paystack-secret-key", func(g *gen) string { return "sk_live_" + g.s(hexlc, 40) }, "PAYSTACK_SECRET_KEY",
			"curl https://api.paystack.co/transaction -H \"Authorization: Bearer %s\""),
		ftok("flutterwave-secret-key", func(g *gen) string { return "FLWSECK-" + g.s(hexlc, 32) + "-X" }, "FLW_SECRET_KEY"),
		ftok("discord-bot-token", func(g *gen) string {
			id := base64.RawStdEncoding.EncodeToString([]byte("1" + g.s(digits, 18)))
			return id + "." + g.s(b64url, 6) + "." + g.s(b64url, 38)
		}, "DISCORD_TOKEN", "client.run('%s')"),
		kindGen{"provider", "discord-webhook-token", "the token part of a Discord webhook URL", func(g *gen) (string, string) {
			return tmpl(g, g.s(b64url, 68), "https://discord.com/api/webhooks/1"+g.s(digits, 18)+"/%s",
				"alerts go to https://discordapp.com/api/webhooks/9"+g.s(digits, 17)+"/%s (channel #ops)")
		}},
		ftok("cohere-api-key", func(g *gen) string { return g.s(alnum, 40) }, "COHERE_API_KEY", "co = cohere.Client(\"%s\")"),
		ftok("together-api-key", func(g *gen) string { return g.s(hexlc, 64) }, "TOGETHER_API_KEY"),
		ftok("openrouter-key", func(g *gen) string { return "sk-or-v1-" + g.s(hexlc, 64) }, "OPENROUTER_API_KEY",
			"base_url=\"https://openrouter.ai/api/v1\", api_key=\"%s\""),
		ftok("elevenlabs-key", func(g *gen) string { return "sk_" + g.s(hexlc, 48) }, "ELEVENLABS_API_KEY", "xi-api-key: %s"),
		ftok("pinecone-key", func(g *gen) string { return "pcsk_" + g.s(alnum, 5) + "_" + g.s(alnum, 62) }, "PINECONE_API_KEY",
			"pc = Pinecone(api_key=\"%s\")"),
		ftok("langsmith-key", func(g *gen) string { return "lsv2_" + g.pick("pt", "sk") + "_" + g.s(hexlc, 32) + "_" + g.s(hexlc, 10) }, "LANGCHAIN_API_KEY"),
		ftok("wandb-api-key", func(g *gen) string { return g.s(hexlc, 40) }, "WANDB_API_KEY", "wandb login %s"),
		ftok("datadog-app-key", func(g *gen) string { return g.s(hexlc, 40) }, "DD_APP_KEY",
			"curl -H \"DD-API-KEY: ${DD_API_KEY}\" -H \"DD-APPLICATION-KEY: %s\" https://api.datadoghq.eu/api/v1/monitor"),
		ftok("splunk-hec-token", func(g *gen) string { return g.uuid() }, "SPLUNK_HEC_TOKEN",
			"curl -k https://splunk:8088/services/collector -H \"Authorization: Splunk %s\" -d '{\"event\":\"hi\"}'"),
		ftok("dynatrace-token", func(g *gen) string { return "dt0c01." + g.s(upper, 24) + "." + g.s(upper, 64) }, "DT_API_TOKEN",
			"Authorization: Api-Token %s"),
		ftok("elastic-api-key", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(g.s(b64url, 20) + ":" + g.s(b64url, 22)))
		}, "ELASTIC_API_KEY", "curl -H \"Authorization: ApiKey %s\" https://es.internal:9200/_cat/indices"),
		ftok("bitbucket-app-password", func(g *gen) string { return "ATBB" + g.s(alnum, 28) + g.s(upHex, 8) }, "BITBUCKET_APP_PASSWORD"),
		ftok("netlify-pat", func(g *gen) string { return "nfp_" + g.s(alnum, 36) + g.s(hexlc, 4) }, "NETLIFY_AUTH_TOKEN",
			"netlify deploy --prod --auth %s"),
		ftok("render-api-key", func(g *gen) string { return "rnd_" + g.s(alnum, 32) }, "RENDER_API_KEY"),
		ftok("neon-api-key", func(g *gen) string { return "napi_" + g.s(lower, 64) }, "NEON_API_KEY"),
		ftok("algolia-admin-key", func(g *gen) string { return g.s(hexlc, 32) }, "ALGOLIA_ADMIN_KEY",
			"const client = algoliasearch('QWERTY1234', '%s');"),
		kindGen{"provider", "cloudinary-url", "the API secret in a CLOUDINARY_URL", func(g *gen) (string, string) {
			return tmpl(g, g.s(b64url, 27), "CLOUDINARY_URL=cloudinary://"+g.s(digits, 15)+":%s@demo-shop",
				"cloudinary://"+g.s(digits, 15)+":%s@mycloud is what the dashboard shows")
		}},
		ftok("mailchimp-api-key", func(g *gen) string { return g.s(hexlc, 32) + "-us" + g.s(digits, 2) }, "MAILCHIMP_API_KEY"),
		ftok("brevo-api-key", func(g *gen) string { return "xkeysib-" + g.s(hexlc, 64) + "-" + g.s(alnum, 16) }, "BREVO_API_KEY", "api-key: %s"),
		ftok("resend-api-key", func(g *gen) string { return "re_" + g.s(alnum, 8) + "_" + g.s(alnum, 24) }, "RESEND_API_KEY"),
		ftok("jfrog-api-key", func(g *gen) string { return "AKCp" + g.s(alnum, 69) }, "ARTIFACTORY_API_KEY",
			"curl -H \"X-JFrog-Art-Api: %s\" https://acme.jfrog.io/artifactory/api/repositories"),
		ftok("octopus-api-key", func(g *gen) string { return "API-" + g.s(upper, 26) }, "OCTOPUS_API_KEY", "X-Octopus-ApiKey: %s"),
		ftok("asana-pat", func(g *gen) string { return "2/" + g.s(digits, 16) + "/" + g.s(digits, 16) + ":" + g.s(hexlc, 32) }, "ASANA_TOKEN"),
		ftok("clickup-token", func(g *gen) string { return "pk_" + g.s(digits, 8) + "_" + g.s(upper, 32) }, "CLICKUP_API_TOKEN"),
		ftok("airtable-pat", func(g *gen) string { return "pat" + g.s(alnum, 14) + "." + g.s(hexlc, 64) }, "AIRTABLE_API_KEY"),
		ftok("hubspot-private-app-token", func(g *gen) string { return "pat-" + g.pick("na1", "eu1") + "-" + g.uuid() }, "HUBSPOT_ACCESS_TOKEN"),
		ftok("easypost-key", func(g *gen) string { return "EZAK" + g.s(hexlc, 54) }, "EASYPOST_API_KEY"),
		ftok("tailscale-auth-key", func(g *gen) string { return "tskey-auth-k" + g.s(alnum, 10) + "CNTRL-" + g.s(alnum, 33) }, "TS_AUTHKEY",
			"tailscale up --authkey=%s --ssh"),
		ftok("ngrok-authtoken", func(g *gen) string { return "2" + g.s(alnum, 26) + "_" + g.s(alnum, 21) }, "NGROK_AUTHTOKEN",
			"ngrok config add-authtoken %s"),
		ftok("hetzner-cloud-token", func(g *gen) string { return g.s(alnum, 64) }, "HCLOUD_TOKEN", "hcloud context create prod (token: %s)"),
		ftok("linode-token", func(g *gen) string { return g.s(hexlc, 64) }, "LINODE_TOKEN"),
		ftok("twitter-bearer-token", func(g *gen) string {
			return "AAAAAAAAAAAAAAAAAAAAA" + g.s(alnum, 19) + "%2B" + g.s(alnum, 18) + "%3D" + g.s(alnum, 50)
		}, "TWITTER_BEARER_TOKEN", "curl \"https://api.twitter.com/2/tweets/search/recent?query=cairn\" -H \"Authorization: Bearer %s\""),
		ftok("meta-graph-token", func(g *gen) string { return "EAAG" + g.s(alnum, 180) }, "FB_ACCESS_TOKEN",
			"https://graph.facebook.com/v19.0/me?access_token=%s"),
		ftok("riot-api-key", func(g *gen) string { return "RGAPI-" + g.uuid() }, "RIOT_API_KEY", "X-Riot-Token: %s"),
		ftok("steam-web-api-key", func(g *gen) string { return g.s(upHex, 32) }, "STEAM_API_KEY",
			"https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key=%s&steamids=76561197960435530"),
		ftok("recaptcha-secret", func(g *gen) string { return "6L" + g.s(b64url, 38) }, "RECAPTCHA_SECRET_KEY"),
		ftok("ably-api-key", func(g *gen) string { return g.s(b64url, 6) + "." + g.s(b64url, 6) + ":" + g.s(b64url, 43) }, "ABLY_API_KEY",
			"new Ably.Realtime('%s')"),
		ftok("pusher-app-secret", func(g *gen) string { return g.s(hexlc, 20) }, "PUSHER_APP_SECRET"),
		ftok("telnyx-api-key", func(g *gen) string { return "KEY" + g.s(upHex, 32) + "_" + g.s(alnum, 22) }, "TELNYX_API_KEY"),
		ftok("crates-io-token", func(g *gen) string { return "cio" + g.s(alnum, 32) }, "CARGO_REGISTRY_TOKEN", "cargo login %s"),
		ftok("rubygems-api-key", func(g *gen) string { return "rubygems_" + g.s(hexlc, 48) }, "GEM_HOST_API_KEY",
			"---\n:rubygems_api_key: %s"),
		ftok("launchdarkly-sdk-key", func(g *gen) string { return "sdk-" + g.uuid() }, "LAUNCHDARKLY_SDK_KEY"),
		ftok("django-secret-key", func(g *gen) string { return "django-insecure-" + g.s(lower+"!@#$^&*(-_=+)", 50) }, "DJANGO_SECRET_KEY",
			"SECRET_KEY = '%s'"),
		ftok("laravel-app-key", func(g *gen) string { return "base64:" + g.b64(32) }, "APP_KEY"),
		ftok("gmail-app-password", func(g *gen) string {
			return g.s(letters, 4) + " " + g.s(letters, 4) + " " + g.s(letters, 4) + " " + g.s(letters, 4)
		}, "SMTP_PASSWORD", "[smtp.gmail.com]:587 alerts@example.com:%s", "gmail app password for the alert mailer: %s"),
	}
}

func freshWallets() []kindGen {
	wif := func(g *gen) string {
		p := append([]byte{0x80}, g.bytes(32)...)
		if g.rng.IntN(3) > 0 {
			p = append(p, 0x01)
		}
		return base58check(p, b58)
	}
	xprv := func(g *gen) string {
		p := make([]byte, 0, 78)
		p = binary.BigEndian.AppendUint32(p, []uint32{0x0488ADE4, 0x04B2430C, 0x04358394}[g.rng.IntN(3)])
		p = append(p, byte(g.rng.IntN(4)))
		p = append(p, g.bytes(4)...)
		p = append(p, g.bytes(4)...)
		p = append(p, g.bytes(32)...)
		p = append(p, 0)
		p = append(p, g.bytes(32)...)
		return base58check(p, b58)
	}
	stellar := func(g *gen) string {
		p := append([]byte{18 << 3}, g.bytes(32)...)
		p = binary.LittleEndian.AppendUint16(p, crc16(p))
		return strings.TrimRight(b32enc(p), "=")
	}
	return []kindGen{
		fk("wallet", "bitcoin-wif", "a Bitcoin private key in wallet import format (base58check, 0x80)", wif,
			"bitcoin-cli importprivkey %s \"cold\" false", "paper wallet private key (WIF): %s",
			"dumpprivkey gave me %s, is it safe to paste into electrum?"),
		fk("wallet", "bip32-extended-private-key", "a BIP32 extended private key (xprv, zprv, tprv)", xprv,
			"account xprv: %s", "descriptor: wpkh(%s/84h/0h/0h/0/*)", "sparrow exported the master key %s"),
		fk("wallet", "solana-keypair-base58", "a Solana keypair, 64 bytes in base58", func(g *gen) string { return base58(g.bytes(64), b58) },
			"phantom private key: %s", "SOLANA_PRIVATE_KEY=%s", "const kp = Keypair.fromSecretKey(bs58.decode(\"%s\"));"),
		fk("wallet", "solana-keypair-json", "a Solana id.json: 64 bytes as a JSON array", func(g *gen) string {
			b := g.bytes(64)
			ns := make([]string, len(b))
			for i, x := range b {
				ns[i] = fmt.Sprint(x)
			}
			return "[" + strings.Join(ns, ",") + "]"
		}, "cat ~/.config/solana/id.json\n%s", "deployer keypair: %s"),
		fk("wallet", "stellar-secret-seed", "a Stellar secret seed (strkey S…, CRC16)", stellar,
			"stellar keys add alice --secret-key %s", "STELLAR_SECRET=%s", "the issuer account's secret seed is %s"),
		fk("wallet", "xrp-family-seed", "an XRP Ledger family seed (s…, ripple base58)", func(g *gen) string {
			return base58check(append([]byte{0x21}, g.bytes(16)...), b58xrp)
		}, "wallet seed: %s", "xrpl.Wallet.fromSeed(\"%s\")", "XRPL_SEED=%s"),
		fk("wallet", "algorand-mnemonic", "an Algorand account's 25 words (BIP39 English list)", func(g *gen) string { return g.seed(25) },
			"algokey export gave: %s", "ALGOD_MNEMONIC=\"%s\"", "pera backup phrase %s"),
		fk("wallet", "substrate-secret-seed", "a Substrate secret seed as subkey prints it", func(g *gen) string { return "0x" + g.s(hexlc, 64) },
			"Secret Key URI `//ops-validator` is account:\n  Network ID:        substrate\n  Secret seed:       %s\n  Account ID:        0x5e2f0c7a91b34d68a0c1e29f7b3d4a8c6e1f0a2b3c4d5e6f708192a3b4c5d6e7",
			"polkadot validator secret seed %s"),
		fk("wallet", "cardano-signing-key", "a Cardano payment.skey (cborHex)", func(g *gen) string { return "5820" + g.s(hexlc, 64) },
			"{\n    \"type\": \"PaymentSigningKeyShelley_ed25519\",\n    \"description\": \"Payment Signing Key\",\n    \"cborHex\": \"%s\"\n}",
			"payment.skey cborHex: %s"),
		fk("wallet", "tendermint-validator-key", "a Tendermint priv_validator_key.json private key", func(g *gen) string { return g.b64(64) },
			"{\"address\":\""+"A1B2C3D4E5F60718293A4B5C6D7E8F9012345678"+"\",\"priv_key\":{\"type\":\"tendermint/PrivKeyEd25519\",\"value\":\"%s\"}}",
			"priv_validator_key.json priv_key.value = %s"),
		fk("wallet", "monero-spend-key", "a Monero private spend key", func(g *gen) string { return g.s(hexlc, 64) },
			"Secret spend key: %s", "monero-wallet-cli --generate-from-spend-key restored --spendkey %s"),
	}
}

func b32enc(b []byte) string {
	var out strings.Builder
	var buf uint64
	bits := 0
	for _, x := range b {
		buf = buf<<8 | uint64(x)
		bits += 8
		for bits >= 5 {
			out.WriteByte(b32[(buf>>(bits-5))&31])
			bits -= 5
		}
	}
	if bits > 0 {
		out.WriteByte(b32[(buf<<(5-bits))&31])
	}
	return out.String()
}

func freshKeyfiles() []kindGen {
	return []kindGen{
		{"keyfile", "putty-ppk-private-lines", "the Private-Lines of a PuTTY .ppk v3 file", func(g *gen) (string, string) {
			priv := wrap(g.b64(48), 64)
			pub := "AAAAC3NzaC1lZDI1NTE5AAAAI" + g.b64(32)[1:]
			text := "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: " + g.pick("eddsa-key-20260114", "deploy@build", "imported-openssh-key") +
				"\nPublic-Lines: 2\n" + wrap(pub, 64) + "\nPrivate-Lines: 1\n" + priv + "\nPrivate-MAC: " + g.s(hexlc, 64)
			return g.pick("here is my .ppk, can you convert it?\n", "", "mykey.ppk:\n") + text, priv
		}},
		fk("keyfile", "kubeconfig-client-key-data", "a kubeconfig's client-key-data (base64 of a PEM key)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC PRIVATE KEY-----\n" + g.pemBody("MHcCAQEEI", 90) + "\n-----END EC PRIVATE KEY-----\n"))
		}, "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTi\n    client-key-data: %s", "client-key-data: %s"),
		fk("keyfile", "kubeconfig-static-token", "a kubeconfig user's static token", func(g *gen) string { return g.s(lower, 6) + "." + g.s(lower, 16) },
			"users:\n- name: ci\n  user:\n    token: %s", "kubectl --token=%s get pods -A"),
		fk("keyfile", "docker-config-auth", "a ~/.docker/config.json auth (base64 of user:password)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(g.pick("ci", "deploy", "robot$builder") + ":" + g.pw()))
		}, "{\"auths\":{\"registry.gitlab.example.com\":{\"auth\":\"%s\"}}}", "cat ~/.docker/config.json\n{\n  \"auths\": {\n    \"ghcr.io\": {\n      \"auth\": \"%s\"\n    }\n  }\n}"),
		fk("keyfile", "aws-session-token", "an AWS STS session token", func(g *gen) string { return g.pick("IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE") + g.s(b64std, 300) },
			"[default]\naws_access_key_id = ASIA"+"QWERTYUIOPASDFGH"+"\naws_secret_access_key = redacted\naws_session_token = %s", "AWS_SESSION_TOKEN=%s"),
		fk("keyfile", "pgpass-line", "a ~/.pgpass line (host:port:db:user:password)", func(g *gen) string { return g.urlpw() },
			"db.prod.internal:5432:*:app:%s", "cat ~/.pgpass\nlocalhost:5432:orders:orders_rw:%s"),
		fk("keyfile", "git-credentials-line", "a ~/.git-credentials line", func(g *gen) string { return g.urlpw() },
			"https://jdoe:%s@git.example.org", "cat ~/.git-credentials\nhttps://builder:%s@bitbucket.org"),
		fk("keyfile", "openvpn-static-key", "an OpenVPN static key body (16 lines of hex)", func(g *gen) string { return wrap(g.s(hexlc, 512), 32) },
			"-----BEGIN OpenVPN Static key V1-----\n%s\n-----END OpenVPN Static key V1-----", "<tls-auth>\n%s\n</tls-auth>"),
		fk("keyfile", "nebula-private-key", "a Nebula host key", func(g *gen) string { return g.b64(32) },
			"-----BEGIN NEBULA X25519 PRIVATE KEY-----\n%s\n-----END NEBULA X25519 PRIVATE KEY-----"),
		fk("keyfile", "rclone-obscured-pass", "an rclone.conf obscured password", func(g *gen) string { return g.b64url(24 + g.rng.IntN(10)) },
			"[nas]\ntype = sftp\nhost = 10.0.0.7\nuser = backup\npass = %s", "rclone config show:\n[b2]\ntype = b2\naccount = 0012ab\nkey = %s"),
		fk("keyfile", "openvpn-auth-user-pass", "an OpenVPN auth-user-pass file (user, then password)", func(g *gen) string { return g.pw() },
			"cat /etc/openvpn/client/creds.txt\nj.doe\n%s", "auth.txt:\nvpnuser\n%s"),
		fk("keyfile", "git-credential-fill", "git credential approve/fill input", func(g *gen) string { return g.urlpw() },
			"printf 'protocol=https\\nhost=git.corp.example\\nusername=ci\\npassword=%s\\n' | git credential approve",
			"$ git credential fill\nprotocol=https\nhost=github.com\n\nprotocol=https\nhost=github.com\nusername=octo\npassword=%s"),
	}
}

func freshConfigs() []kindGen {
	c := func(name, format string, texts ...string) kindGen {
		return fk("config", name, format, func(g *gen) string { return g.pw() }, texts...)
	}
	return []kindGen{
		c("helm-values", "a password in Helm values", "auth:\n  rootPassword: \"%s\"\n  database: app", "postgresql:\n  auth:\n    postgresPassword: %s\n    username: app"),
		c("ansible-vars", "an Ansible become/ssh password", "ansible_become_password: %s", "[web]\n10.0.0.5 ansible_user=deploy ansible_ssh_pass=%s", "vault_db_password: \"%s\""),
		c("systemd-environment", "a password in a systemd unit's Environment=", "[Service]\nEnvironment=\"DB_PASSWORD=%s\"\nExecStart=/usr/bin/app", "Environment=SMTP_PASS=%s"),
		c("crontab-line", "a password in a crontab line", "0 3 * * * /usr/bin/mysqldump -u backup --password=%s shop | gzip > /backups/shop.sql.gz", "*/5 * * * * curl -fsS -u monitor:%s https://status.internal/ping"),
		c("dockerfile-arg-env", "a password in a Dockerfile ARG or ENV", "FROM postgres:16\nENV POSTGRES_PASSWORD=%s", "ARG NEXUS_PASSWORD=%s\nRUN pip install --index-url https://ci:${NEXUS_PASSWORD}@nexus/simple app"),
		c("github-actions-env", "a password in a GitHub Actions workflow's env", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      DEPLOY_PASSWORD: %s", "    env:\n      REGISTRY_PASS: '%s'"),
		fk("config", "jupyter-notebook-source", "an API key in a Jupyter notebook cell, JSON-escaped", func(g *gen) string { return g.s(alnum, 40) },
			"{\"cell_type\": \"code\", \"source\": [\"import requests\\n\", \"API_KEY = \\\"%s\\\"\\n\"]}", "\"source\": [\n    \"client = Client(api_key=\\\"%s\\\")\"\n   ]"),
		c("terraform-tfvars", "a password in terraform.tfvars", "region      = \"eu-west-1\"\ndb_password = \"%s\"", "admin_password = \"%s\""),
		fk("config", "consul-acl-token-hcl", "a Consul ACL token (a UUID) in HCL", func(g *gen) string { return g.uuid() },
			"acl {\n  enabled = true\n  tokens {\n    agent = \"%s\"\n  }\n}", "CONSUL_HTTP_TOKEN=%s", "consul acl bootstrap gave SecretID: %s"),
		c("nix-config", "a password in a Nix configuration", "users.users.alice.initialPassword = \"%s\";", "services.grafana.settings.security.admin_password = \"%s\";"),
		c("htaccess-setenv", "a password in .htaccess SetEnv", "SetEnv DB_PASS %s", "SetEnv MAIL_PASSWORD \"%s\""),
		fk("config", "htpasswd-file-hash", "an nginx auth_basic file's apr1 hash", func(g *gen) string {
			return "$apr1$" + g.s(alnum+"./", 8) + "$" + g.s(alnum+"./", 22)
		}, "cat /etc/nginx/.htpasswd\nadmin:%s", "deploy:%s"),
		c("php-ini", "a password in php.ini", "[MySQLi]\nmysqli.default_user = shop\nmysqli.default_pw = %s", "smtp_password = \"%s\""),
		c("my-cnf", "a password in my.cnf", "[client]\nuser=root\npassword=%s", "[mysqldump]\nuser = backup\npassword = \"%s\""),
		c("pgbouncer-userlist", "a pgbouncer userlist.txt entry", "\"app\" \"%s\"", "userlist.txt:\n\"pgbouncer\" \"%s\"\n\"reporting\" \"md5"+strings.Repeat("c0", 16)+"\""),
		c("redis-acl-file", "a Redis ACL file user", "user alice on >%s ~cache:* +get +set", "user default on >%s allcommands allkeys"),
		c("kafka-jaas", "a Kafka JAAS PlainLoginModule password", "KafkaClient {\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  username=\"svc-orders\"\n  password=\"%s\";\n};",
			"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"app\" password=\"%s\";"),
		c("spring-yaml", "a password in Spring's application.yml", "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    username: app\n    password: %s", "spring.rabbitmq.password=%s"),
		c("dotnet-user-secrets", "a password in .NET user-secrets secrets.json", "{\n  \"ConnectionStrings:Default\": \"Server=localhost;Database=app;User Id=sa;Password=%s;\"\n}", "dotnet user-secrets set \"Smtp:Password\" \"%s\""),
		fk("config", "android-local-properties", "a key in Android local.properties", func(g *gen) string { return g.s(alnum, 32) },
			"sdk.dir=/Users/me/Library/Android/sdk\nMAPS_SECRET=%s", "local.properties:\nsigning.keyPassword=%s"),
		fk("config", "ios-plist-secret", "a secret in an iOS Info.plist", func(g *gen) string { return g.s(alnum, 36) },
			"<key>APIClientSecret</key>\n<string>%s</string>", "<dict>\n\t<key>RevenueCatSecret</key>\n\t<string>%s</string>\n</dict>"),
		fk("config", "heroku-config-dump", "a Heroku config dump's URL password", func(g *gen) string { return g.s(hexlc, 64) },
			"=== shop-prod Config Vars\nDATABASE_URL: postgres://u"+"8f2k1"+":%s@ec2-52-1-2-3.compute-1.amazonaws.com:5432/d9k", "heroku config:get DATABASE_URL\npostgres://uab12:%s@host.compute.amazonaws.com:5432/dbx"),
		c("vercel-env-pull", "a password in a .env pulled from Vercel or Netlify", "# Created by Vercel CLI\nPOSTGRES_PASSWORD=\"%s\"\nPOSTGRES_USER=\"default\"", "netlify env:list --plain\nADMIN_PASSWORD=%s"),
		c("k8s-secret-stringdata", "a Kubernetes Secret's stringData", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: %s", "stringData:\n  DB_PASS: \"%s\""),
		c("compose-environment", "a password in a compose file's environment list", "services:\n  db:\n    image: mariadb\n    environment:\n      - MARIADB_ROOT_PASSWORD=%s", "    environment:\n      MINIO_ROOT_PASSWORD: %s"),
		fk("config", "rails-master-key", "a Rails master.key", func(g *gen) string { return g.s(hexlc, 32) },
			"config/master.key: %s", "RAILS_MASTER_KEY=%s heroku run rails c"),
		fk("config", "wp-config-salts", "a WordPress wp-config.php auth key", func(g *gen) string { return g.s(alnum+"!@#$%^&*()-_[]{}<>~+=,.;:/?|", 64) },
			"define('AUTH_KEY',         '%s');", "define( 'SECURE_AUTH_SALT', '%s' );"),
		c("wpa-supplicant", "a Wi-Fi passphrase in wpa_supplicant.conf or hostapd", "network={\n    ssid=\"Office-5G\"\n    psk=\"%s\"\n}", "wpa_passphrase=%s"),
		c("grafana-ini", "a password in grafana.ini", "[security]\nadmin_user = admin\nadmin_password = %s", "GF_SECURITY_ADMIN_PASSWORD=%s"),
		c("prometheus-basic-auth", "a basic_auth password in a Prometheus scrape config", "  - job_name: node\n    basic_auth:\n      username: prom\n      password: %s", "basic_auth:\n  password: '%s'"),
		c("msmtprc", "a password in msmtprc or fetchmailrc", "account default\nhost smtp.fastmail.com\nuser me@fastmail.com\npassword %s", "poll imap.example.com protocol IMAP user \"me\" password \"%s\""),
	}
}

func freshCommands() []kindGen {
	c := func(name, format string, texts ...string) kindGen {
		return fk("command", name, format, func(g *gen) string { return g.pw() }, texts...)
	}
	u := func(name, format string, texts ...string) kindGen {
		return fk("command", name, format, func(g *gen) string { return g.urlpw() }, texts...)
	}
	return []kindGen{
		c("sqlcmd-p", "sqlcmd -P", "sqlcmd -S tcp:sql01,1433 -U sa -P '%s' -Q \"SELECT @@VERSION\"", "sqlcmd -S localhost -U sa -P %s -d master"),
		c("psql-conninfo", "psql with a conninfo string", "psql \"host=db.internal port=5432 dbname=app user=app password=%s sslmode=require\"", "pg_dump 'dbname=orders user=backup password=%s host=10.2.0.4' > orders.sql"),
		u("mongodump-uri", "mongodump --uri", "mongodump --uri \"mongodb://admin:%s@mongo-0.mongo:27017/?authSource=admin\" --out /backup", "mongorestore --uri=mongodb+srv://restore:%s@cluster1.x1y2z.mongodb.net/ dump/"),
		c("mongosh-p", "mongosh -p", "mongosh --host rs0/mongo1:27017 -u root -p '%s' --authenticationDatabase admin", "mongo -u admin -p %s --eval 'db.stats()'"),
		c("kubectl-create-secret", "kubectl create secret --from-literal", "kubectl create secret generic db-creds --from-literal=username=app --from-literal=password='%s'", "kubectl create secret docker-registry regcred --docker-server=ghcr.io --docker-username=bot --docker-password=%s"),
		c("helm-set", "helm install --set a password", "helm install pg bitnami/postgresql --set auth.postgresPassword=%s", "helm upgrade --install redis bitnami/redis --set auth.password='%s' -n cache"),
		c("vault-write", "vault write/kv put with a password", "vault write auth/userpass/users/alice password=%s policies=dev", "vault kv put secret/app db_password='%s'"),
		c("curl-data-password", "curl --data with a password field", "curl -X POST https://auth.example.com/login --data 'username=alice&password=%s'", "curl -s -H 'Content-Type: application/json' -d '{\"user\":\"ops\",\"password\":\"%s\"}' http://10.0.0.8/api/session"),
		c("curl-user", "curl --user user:password", "curl --user admin:%s https://jenkins.internal/api/json", "curl -fsSL --user 'svc-backup:%s' -T dump.gz ftp://files/"),
		c("wget-http-password", "wget --http-password", "wget --http-user=ci --http-password=%s https://artifacts.internal/build.zip", "wget --http-password='%s' --http-user=reader https://intranet/report.pdf"),
		c("sshpass-env", "SSHPASS= with sshpass -e", "SSHPASS='%s' sshpass -e ssh -o StrictHostKeyChecking=no pi@192.168.1.40", "export SSHPASS=%s; sshpass -e rsync -a dist/ web@host:/srv"),
		c("winrs-p", "winrs -p:", "winrs -r:http://srv01:5985 -u:CORP\\admin -p:%s ipconfig", "winrs -r:db02 -u:Administrator -p:%s \"net stop mssqlserver\""),
		c("net-user-add", "net user with a password", "net user svc_sql %s /add /domain", "net user Administrator %s"),
		c("expect-send", "an expect script sending a password", "spawn ssh admin@10.0.0.1\nexpect \"password:\"\nsend \"%s\\r\"\ninteract", "expect -c 'spawn su - ; expect \"Password:\" ; send \"%s\\r\" ; interact'"),
		c("chpasswd", "chpasswd from echo", "echo 'deploy:%s' | chpasswd", "echo \"root:%s\" | sudo chpasswd"),
		c("docker-run-env", "docker run -e a password", "docker run -d -e MYSQL_ROOT_PASSWORD=%s -p 3306:3306 mysql:8", "docker run --rm -e 'ACCEPT_EULA=Y' -e 'MSSQL_SA_PASSWORD=%s' mcr.microsoft.com/mssql/server:2022-latest"),
		fk("command", "az-login-service-principal", "az login --service-principal -p", func(g *gen) string { return g.s(b64url+".~", 40) },
			"az login --service-principal -u 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b -p %s --tenant contoso.onmicrosoft.com", "az login --service-principal --username $APP_ID --password '%s' --tenant $TENANT"),
		fk("command", "gh-secret-set", "gh secret set --body", func(g *gen) string { return g.s(alnum, 40) },
			"gh secret set NPM_PUBLISH_TOKEN --body \"%s\"", "gh secret set -R acme/api SENTRY_AUTH --body %s"),
		c("mount-cifs", "mount -t cifs -o password=", "mount -t cifs //nas/share /mnt/share -o username=backup,password=%s,vers=3.0", "//fs01/public /mnt/public cifs username=svc,password=%s,uid=1000 0 0"),
		c("rsync-password-env", "RSYNC_PASSWORD=", "RSYNC_PASSWORD=%s rsync -av rsync://mirror@repo.internal/pkgs ./pkgs", "export RSYNC_PASSWORD='%s'"),
		c("redis-cli-a", "redis-cli -a", "redis-cli -h cache.internal -a '%s' INFO memory", "redis-cli -a %s --no-auth-warning KEYS 'session:*'"),
		c("ipmitool-p", "ipmitool -P", "ipmitool -I lanplus -H 10.10.0.21 -U ADMIN -P %s chassis power status", "ipmitool -H bmc03 -U root -P '%s' sol activate"),
		c("nmcli-wifi-password", "nmcli dev wifi connect password", "nmcli dev wifi connect \"Guest-WiFi\" password %s", "nmcli connection modify office wifi-sec.psk '%s'"),
		c("ansible-extra-vars", "ansible-playbook -e with a password", "ansible-playbook site.yml -e \"ansible_password=%s ansible_user=Administrator\"", "ansible all -i hosts -m ping -e ansible_become_pass=%s"),
		c("terraform-var", "terraform apply -var with a password", "terraform apply -var=\"db_password=%s\" -auto-approve", "terraform plan -var 'admin_password=%s'"),
		c("svn-password", "svn --password", "svn checkout https://svn.example.com/repos/app --username build --password %s", "svn commit -m fix --password '%s' --non-interactive"),
		c("mysql-long-password", "mysql --password=", "mysql --host=db --user=root --password=%s -e 'SHOW DATABASES'", "mysqldump --user=backup --password='%s' --all-databases > all.sql"),
		c("jenkins-cli-auth", "jenkins-cli -auth user:token", "java -jar jenkins-cli.jar -s https://ci.internal/ -auth admin:%s build deploy", "java -jar jenkins-cli.jar -auth builder:%s list-jobs"),
		c("influx-setup", "influx setup --password", "influx setup --username admin --password %s --org acme --bucket metrics --force", "influx user password -n admin -p '%s'"),
		c("kcadm-credentials", "kcadm.sh config credentials --password", "kcadm.sh config credentials --server http://localhost:8080 --realm master --user admin --password %s", "/opt/keycloak/bin/kcadm.sh config credentials --realm master --user admin --password '%s'"),
		c("docker-secret-create", "docker secret create from echo", "echo '%s' | docker secret create db_password -", "printf %s | docker secret create smtp_pass -"),
		c("openconnect-stdin", "a VPN password piped to openconnect", "echo '%s' | sudo openconnect --user=jdoe --passwd-on-stdin vpn.corp.example", "echo %s | openconnect -u alice --passwd-on-stdin gw.example.net"),
		c("snowsql-pwd", "SNOWSQL_PWD=", "SNOWSQL_PWD='%s' snowsql -a xy12345.eu-central-1 -u ETL_USER", "export SNOWSQL_PWD=%s"),
		c("x11vnc-passwd", "x11vnc -passwd / vncpasswd -f", "x11vnc -display :0 -passwd %s -forever", "echo '%s' | vncpasswd -f > ~/.vnc/passwd"),
	}
}

func freshSentences() []kindGen {
	langs := []struct {
		name  string
		texts []string
	}{
		{"it-password", []string{"la password del database è %s", "password dell'admin: %s", "ho cambiato la password in %s, non condividerla", "credenziali: utente mario, password %s"}},
		{"nl-password", []string{"het wachtwoord is %s", "wachtwoord van de testserver: %s", "nieuw wachtwoord voor de VPN is %s, niet delen aub"}},
		{"pl-password", []string{"hasło do bazy to %s", "hasło: %s", "zmieniłem hasło admina na %s"}},
		{"tr-password", []string{"veritabanı şifresi %s", "şifre: %s", "yeni parola %s, kimseyle paylaşma"}},
		{"vi-password", []string{"mật khẩu là %s", "mật khẩu database: %s", "anh đổi mật khẩu thành %s rồi nhé"}},
		{"id-password", []string{"kata sandinya %s", "password server staging: %s ya", "kata sandi admin sudah diganti jadi %s"}},
		{"ar-password", []string{"كلمة المرور: %s", "كلمة السر الجديدة هي %s", "الرقم السري لقاعدة البيانات %s"}},
		{"hi-password", []string{"पासवर्ड है %s", "सर्वर का पासवर्ड: %s", "नया पासवर्ड %s है, किसी को मत बताना"}},
		{"uk-password", []string{"пароль до бази: %s", "новий пароль адміна — %s", "ось пароль від сервера %s"}},
		{"zh-hant-password", []string{"資料庫密碼：%s", "管理員的密碼是 %s", "密碼已經改成 %s 了，請勿外流"}},
		{"sv-password", []string{"lösenordet är %s", "lösenord till servern: %s"}},
		{"cs-password", []string{"heslo k databázi je %s", "heslo: %s"}},
		{"th-password", []string{"รหัสผ่านคือ %s", "รหัสผ่าน wifi ออฟฟิศ: %s"}},
		{"he-password", []string{"הסיסמה היא %s", "סיסמה לשרת: %s"}},
		{"ja-casual", []string{"パスは %s だよ〜", "あ、パスワードこれね → %s", "ログインできない？%s で入ってみて", "pw変えといた %s"}},
		{"ko-casual", []string{"비번 %s 이거야", "비번 바꿨어 %s ㅋㅋ", "로그인 안되면 %s 로 해봐"}},
		{"zh-casual", []string{"密码发你了 %s", "账号 admin 密码 %s 哈", "用这个登 %s", "wifi 密码是%s"}},
		{"en-parentheses", []string{"logged in as admin (pw: %s) and the dashboard loads", "the staging box (password %s) is back up", "shared the vpn creds with Sam (user jdoe, %s)"}},
		{"en-after-dash", []string{"db creds - app / %s", "prod redis – %s", "new wifi password - %s"}},
		{"markdown-table-cell", []string{"| env | user | password |\n|---|---|---|\n| staging | admin | %s |", "| host | login | pass |\n| --- | --- | --- |\n| db01 | root | %s |"}},
		{"markdown-code-span", []string{"use `%s` as the admin password for now", "the password is `%s`", "creds: `deploy` / `%s`"}},
	}
	var out []kindGen
	for _, l := range langs {
		out = append(out, fk("sentence", l.name, "a password said in a sentence", func(g *gen) string { return g.pw() }, l.texts...))
	}
	keys := []struct {
		name  string
		texts []string
	}{
		{"it-key", []string{"la chiave API è %s", "token di accesso: %s"}},
		{"nl-key", []string{"de API-sleutel is %s", "toegangstoken: %s"}},
		{"pl-key", []string{"klucz API: %s", "token dostępu to %s"}},
		{"tr-key", []string{"API anahtarı: %s", "erişim tokeni %s"}},
		{"vi-key", []string{"khóa API là %s", "mã truy cập: %s"}},
		{"id-key", []string{"kunci API-nya %s", "token akses: %s"}},
		{"uk-key", []string{"ключ API: %s", "токен доступу — %s"}},
		{"zh-hant-key", []string{"API 金鑰：%s", "存取權杖是 %s"}},
	}
	for _, l := range keys {
		out = append(out, fk("sentence", l.name, "an opaque key said in a sentence", func(g *gen) string { return g.s(alnum, 24+g.rng.IntN(16)) }, l.texts...))
	}
	return out
}

func freshKinds() []kindGen {
	var ks []kindGen
	for _, part := range [][]kindGen{freshProviders(), freshWallets(), freshKeyfiles(), freshConfigs(), freshCommands(), freshSentences()} {
		ks = append(ks, part...)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].group+"/"+ks[i].name < ks[j].group+"/"+ks[j].name })
	return ks
}

// generateFresh writes n samples of every fresh kind with a fixed seed per kind.
func generateFresh(n int) []Sample {
	var out []Sample
	for _, k := range freshKinds() {
		h := fnv.New64a()
		h.Write([]byte(k.group + "/" + k.name))
		g := &gen{rand.New(rand.NewPCG(h.Sum64(), freshSeed))}
		for range n {
			text, secret := k.make(g)
			out = append(out, Sample{Kind: k.group + "/" + k.name, Group: k.group, Text: text, Secret: secret,
				Source: "generated:" + k.format, Licence: "generated here (no third-party text)"})
		}
	}
	return out
}
