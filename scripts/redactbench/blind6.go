package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The sixth blind corpus (core/redact/testdata/public/blind6.jsonl): a ninth held-out corpus, of
// 400 kinds that are in none of the earlier corpus files nor their generators, written blind: by a
// helper session that had not read core/redact (not its code, tests or testdata) nor
// docs/redaction.md nor the redaction figures of docs/benchmarks.md, that read of this program
// only how a corpus is wired and the earlier generators' kind names and bodies (to keep clear of
// them), and that never ran the detector on it. Its goal is the issue's: a secret of a kind nobody
// listed, said in a chat comment or an agent transcript, is still hidden. Its groups are:
//
//   - keymat: key material without its usual frame or in a container no earlier corpus used —
//     XML RSAKeyValue, JWKs in ConfigMaps and escaped env JSON, PFX in PowerShell, JCEKS through
//     base64 -d, Tor ADD_ONION, keys quoted with '> ', line-numbered, CRLF, spaced by four, with
//     mangled or missing armor lines, in .properties continuations, HCL heredocs, fastlane JSON,
//     EncryptionConfiguration, openssl -text colon hex, dm-crypt tables, NT hashes, kirbi
//     tickets, wallets of chains no earlier corpus named;
//   - encoded: secrets under an encoding a careful reader could undo — yEnc, xxencode, base32hex,
//     Crockford base32, UTF-7, UTF-16LE (base64 and REG_BINARY hex), %uXXXX, base64 wrapped at 64
//     or grouped by four, hex of base64, byte literals of Kotlin, C#, Elixir, Lua, Ruby and Perl,
//     SQL hex literals, CSS and \u{..} escapes, markdown escapes, Morse, Atbash, JSON three deep;
//   - wrapped: secrets inside the containers people paste — HAR cookies, API-client exports,
//     notebook magics, workflow and CI files, compose healthchecks, tool configs and CLI token
//     files, build files, query output tables, review suggestions, audit and CEF logs, errors
//     that print their request config, chat exports;
//   - agent: what a coding agent's transcript shows — file reads, shell and tool results, tool
//     call arguments (JSON in JSON), edits, searches, plans, reasoning, todo lists, memory files,
//     MCP configs, session records, summaries that repeat a key;
//   - chat: messages in some thirty languages and scripts in situations the earlier corpora did
//     not write (family accounts, government and school portals, voice-note transcripts,
//     corrections, edited, forwarded and quoted replies, code-switching);
//   - nokeyword: passwords and tokens said with no key word at all;
//   - provider: tokens of services no earlier corpus named, by a shape written here after the
//     service's documented one, in chat comments, transcripts, configs, logs and code;
//   - cli: credentials as command-line arguments of tools no earlier corpus covered.
//
// Every body is random from a fixed source; no text is third-party. Each sample's secret is the
// exact string in its text (for encoded kinds, the encoded form). blind6-negatives.txt, written by
// the same run and checked to share no line with the earlier negatives files, holds ordinary lines
// that look risky and hold no secret.

// blind6Seed is the second word of every blind6 kind's random source (the first is the FNV-1a
// 64-bit hash of the kind's name), other than those of the other generators.
const blind6Seed = 6022140

// b6t is a kind whose sample i is texts[i] with a fresh body where {S} is.
func b6t(group, name, source string, body func(*gen) string, texts ...string) b3Kind {
	return templateKind("blind6", group, name, source, body, texts...)
}

// b6e is a kind whose secret is enc of a fresh plain body: the text holds the encoded form only,
// and that is what must be hidden.
func b6e(group, name, source string, plain func(*gen) string, enc func(*gen, string) string, texts ...string) b3Kind {
	return b6t(group, name, source, func(g *gen) string { return enc(g, plain(g)) }, texts...)
}

// b6f is a kind written by a function of the sample's index.
func b6f(group, name, source string, n int, f func(g *gen, i int) (string, string)) b3Kind {
	return b3Kind{group, name, source, n, f}
}

// generateBlind6 writes every blind6 kind's samples with its fixed random source; it panics if a
// secret is not in its text, is shorter than 8 characters, or if two kinds share a name.
func generateBlind6() []Sample { return generateB3Kinds("blind6", blind6Kinds(), blind6Seed) }

func blind6Kinds() []b3Kind {
	var ks []b3Kind
	ks = append(ks, b6KeyMat()...)
	ks = append(ks, b6Encoded()...)
	ks = append(ks, b6Wrapped()...)
	ks = append(ks, b6Agent()...)
	ks = append(ks, b6Chat()...)
	ks = append(ks, b6NoKeyword()...)
	ks = append(ks, b6Providers()...)
	ks = append(ks, b6CLI()...)
	return ks
}

// b6Summary prints the kinds and samples of each group.
func b6Summary(samples []Sample) {
	kinds := map[string]map[string]bool{}
	n := map[string]int{}
	var groups []string
	for _, s := range samples {
		if kinds[s.Group] == nil {
			kinds[s.Group] = map[string]bool{}
			groups = append(groups, s.Group)
		}
		kinds[s.Group][s.Kind] = true
		n[s.Group]++
	}
	sort.Strings(groups)
	for _, gr := range groups {
		fmt.Printf("  %-10s %4d kinds %5d samples\n", gr, len(kinds[gr]), n[gr])
	}
}

// b6CheckNegatives fails when a line of the new negatives is already a line of an earlier
// corpus's negatives file (they must be new), or holds a line break.
func b6CheckNegatives(dir string, negatives []string) error {
	old := map[string]string{}
	for _, name := range []string{"blind-negatives.txt", "blind3-negatives.txt", "blind4-negatives.txt", "blind5-negatives.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(data), "\n") {
			old[strings.TrimSpace(l)] = name
		}
	}
	seen := map[string]bool{}
	var clash []string
	for _, l := range negatives {
		if strings.ContainsAny(l, "\n\r") {
			return fmt.Errorf("blind6 negative %q holds a line break", l)
		}
		if f, ok := old[strings.TrimSpace(l)]; ok {
			clash = append(clash, fmt.Sprintf("%q (in %s)", l, f))
		}
		if seen[l] {
			clash = append(clash, fmt.Sprintf("%q (twice)", l))
		}
		seen[l] = true
	}
	if len(clash) > 0 {
		return fmt.Errorf("blind6 negatives not new: %s", strings.Join(clash, "; "))
	}
	return nil
}

// --- bodies ---

const (
	b6Dig  = "0123456789"
	b6Lo   = "abcdefghijklmnopqrstuvwxyz"
	b6Up   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b6UpD  = b6Up + b6Dig
	b6LoD  = b6Lo + b6Dig
	b6HexU = "0123456789ABCDEF"
	// b6Safe are the symbols a password here may hold: none that a shell, JSON or a URL would
	// rewrite in the texts they are put in
	b6Safe = "!#%+-.=@^_~:,"
	b6B58  = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
)

var b6Words = []string{"alder", "bramble", "cobalt", "dunlin", "eider", "fennel", "gannet", "hazel", "ibex",
	"jackdaw", "kestrel", "lichen", "mullein", "nutmeg", "osprey", "plover", "quartz", "rowan", "saffron",
	"thistle", "urchin", "vetch", "wren", "yarrow"}

func b6cap(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// b6pw is a password a person picks, 10 characters or more, of symbols no text here rewrites.
func b6pw(g *gen) string {
	switch g.rng.IntN(6) {
	case 0:
		return g.s(alnum+b6Safe, 12+g.rng.IntN(6))
	case 1:
		return b6cap(g.pick(b6Words...)) + g.s(b6Dig, 3) + g.s("!#%@", 1) + b6cap(g.pick(b6Words...))
	case 2:
		return g.pick(b6Words...) + "-" + g.pick(b6Words...) + "-" + g.pick(b6Words...) + "-" + g.s(b6Dig, 2)
	case 3:
		return g.s(b6Up, 2) + g.s(b6Lo, 5) + g.s(b6Dig, 4) + g.s("!@#", 1) + g.s(b6Lo, 2)
	case 4:
		return g.s(alnum, 16)
	default:
		return b6cap(g.pick(b6Words...)) + "_" + g.s(b6Dig, 4) + "_" + g.s(alnum, 5)
	}
}

// b6strong is a random password as a manager makes it, every class present.
func b6strong(g *gen) string {
	n := 14 + g.rng.IntN(5)
	b := []byte(g.s(alnum, n))
	b[g.rng.IntN(n)] = g.s(b6Up, 1)[0]
	b[g.rng.IntN(n)] = g.s(b6Lo, 1)[0]
	b[g.rng.IntN(n)] = g.s(b6Dig, 1)[0]
	b[1+g.rng.IntN(n-2)] = g.s("!#%@^+=~", 1)[0]
	return string(b)
}

// b6native is a password of native words and digits, or a picked one.
func b6native(words ...string) func(*gen) string {
	return func(g *gen) string {
		switch g.rng.IntN(3) {
		case 0:
			return g.pick(words...) + g.s(b6Dig, 4) + g.s("!#@%", 1)
		case 1:
			return g.pick(words...) + g.s("-_.", 1) + g.pick(words...) + g.s(b6Dig, 3)
		default:
			return b6pw(g)
		}
	}
}

// b6token is an unprefixed API token of one of the common alphabets.
func b6token(g *gen) string {
	switch g.rng.IntN(5) {
	case 0:
		return g.s(hexlc, 40)
	case 1:
		return g.s(alnum, 32)
	case 2:
		return g.b64url(30)
	case 3:
		return g.s(b6LoD, 6) + "_" + g.s(alnum, 26)
	default:
		return g.s(b6UpD, 24)
	}
}

func b6cat(fs ...func(*gen) string) func(*gen) string {
	return func(g *gen) string {
		var b strings.Builder
		for _, f := range fs {
			b.WriteString(f(g))
		}
		return b.String()
	}
}

func b6lit(s string) func(*gen) string { return func(*gen) string { return s } }
func b6s(alphabet string, n int) func(*gen) string {
	return func(g *gen) string { return g.s(alphabet, n) }
}
func b6pre(prefix, alphabet string, n int) func(*gen) string {
	return func(g *gen) string { return prefix + g.s(alphabet, n) }
}
func b6uuid(g *gen) string { return b3uuid(g) }
func b6b64n(n int) func(*gen) string {
	return func(g *gen) string { return base64.StdEncoding.EncodeToString(g.bytes(n)) }
}

// b6jwt is a JWT with a real header and claims and a random signature.
func b6jwt(alg string, claims func(*gen) string) func(*gen) string {
	return func(g *gen) string {
		e := base64.RawURLEncoding.EncodeToString
		return e([]byte(`{"alg":"`+alg+`","typ":"JWT"}`)) + "." + e([]byte(claims(g))) + "." + g.b64url(32+g.rng.IntN(2)*32)
	}
}

// b6jsonEsc escapes s as the inside of a JSON string.
func b6jsonEsc(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}

// b6hashPick is a stable index in [0, n) from a kind's name.
func b6hashPick(name string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(n))
}

// --- provider: tokens of services no earlier corpus named ---

// b6prov is a service's token: its name for the kind, the service's display name, the variable
// people keep it in, its API host and the shape of its body (written here after the service's
// documented or commonly seen shape), and texts of its own.
type b6prov struct {
	name, svc, env, host string
	body                 func(*gen) string
	extra                []string
}

// b6provTexts are the chat comments, transcripts and files a provider token is pasted in; each
// kind takes three of them and its own texts, or four.
var b6provTexts = []string{
	"@here rotating the {SVC} creds tonight, new value is {S} — the old one stops working at 22:00 UTC",
	"● Bash(export {ENV}={S} && npm run smoke)\n  ⎿  smoke: 14 passed, 0 failed",
	"I added the key to your shell profile:\n```sh\nexport {ENV}='{S}'\n```\nOpen a new terminal so it is picked up.",
	"{\"type\":\"tool_result\",\"content\":\"{ENV}={S}\\nHOME=/home/dev\\nSHELL=/bin/zsh\",\"is_error\":false}",
	"# settings/local.py\n{ENV} = \"{S}\"  # TODO: move to the vault before merging",
	"resource \"{LC}_integration\" \"main\" {\n  name      = \"acme-prod\"\n  api_token = \"{S}\"\n}",
	"time=2026-11-28T09:14:03Z level=debug msg=\"{SVC} client configured\" token={S} region=eu-west-1",
	"| Service | Env | Key |\n|---|---|---|\n| {SVC} | prod | `{S}` |",
	"{\"ts\":1764321843,\"svc\":\"{LC}\",\"req\":{\"url\":\"https://{HOST}/v2/ping\",\"headers\":{\"authorization\":\"Bearer {S}\"}},\"status\":401}",
	"> **{SVC}** — {S}\n> (copied from the team vault, please don't paste it anywhere else)",
	"jobs:\n  sync:\n    runs-on: ubuntu-latest\n    env:\n      {ENV}: {S}\n      LOG_LEVEL: debug",
	"resp = httpx.get(\"https://{HOST}/api/v1/account\", headers={\"X-Api-Key\": \"{S}\"})",
	"User: my {SVC} key {S} stopped working after the migration, can you see why?",
	"{LC}.api.key={S}\n{LC}.api.timeout=30s",
	"        - name: {ENV}\n          value: \"{S}\"\n        - name: PORT\n          value: \"8080\"",
	"Thanks! For the record, the {SVC} token I used is {S} and it has read-only scope.",
}

func b6provKind(p b6prov) b3Kind {
	start := b6hashPick(p.name, len(b6provTexts))
	lc := strings.ToLower(strings.NewReplacer(" ", "_", ".", "_", "-", "_").Replace(p.svc))
	// three settings and the kind's own texts, or four settings for a kind with none of its own
	var texts []string
	for i := range 4 - min(len(p.extra), 1) {
		texts = append(texts, b6provTexts[(start+5*i)%len(b6provTexts)])
	}
	texts = append(texts, p.extra...)
	r := strings.NewReplacer("{ENV}", p.env, "{SVC}", p.svc, "{HOST}", p.host, "{LC}", lc)
	for i := range texts {
		texts[i] = r.Replace(texts[i])
	}
	return b6t("provider", p.name, p.svc+" token in a chat comment, agent transcript, config, log or code (shape written here after the service's)", p.body, texts...)
}

func b6Providers() []b3Kind {
	s, lit, cat, pre := b6s, b6lit, b6cat, b6pre
	atl := func(lead string) func(*gen) string {
		return cat(lit(lead), s(b64url, 170), lit("="), s(b6HexU, 8))
	}
	slackNum := func(g *gen) string { return g.s("123456789", 1) + g.s(b6Dig, 11) }
	ps := []b6prov{
		{"anthropic-admin-api-key", "Anthropic", "ANTHROPIC_ADMIN_KEY", "api.anthropic.com", cat(lit("sk-ant-admin01-"), s(b64url, 93), lit("AA")),
			[]string{"curl https://api.anthropic.com/v1/organizations/users -H \"x-api-key: {S}\" -H \"anthropic-version: 2023-06-01\""}},
		{"openai-service-account-key", "OpenAI", "OPENAI_API_KEY", "api.openai.com", cat(lit("sk-svcacct-"), s(b64url, 74), lit("T3BlbkFJ"), s(b64url, 74)), nil},
		{"huggingface-org-api-token", "Hugging Face", "HF_ORG_TOKEN", "huggingface.co", pre("api_org_", b6Lo+b6Up, 34),
			[]string{"huggingface-cli upload acme/model ./out --token {S}"}},
		{"zuplo-api-key", "Zuplo", "ZUPLO_API_KEY", "acme-main-1a2b3c.zuplo.app", cat(lit("zpka_"), s(hexlc, 32), lit("_"), s(hexlc, 8)),
			[]string{"curl https://acme-main-1a2b3c.zuplo.app/v1/todos -H \"Authorization: Bearer {S}\""}},
		{"github-oauth-gho-token", "GitHub", "GH_OAUTH_TOKEN", "api.github.com", pre("gho_", alnum, 36),
			[]string{"https://oauth:{S}@github.com/acme/infra.git"}},
		{"github-refresh-ghr-token", "GitHub", "GITHUB_REFRESH_TOKEN", "github.com", pre("ghr_", alnum, 76),
			[]string{"{\"access_token\":\"ghu_redacted\",\"expires_in\":28800,\"refresh_token\":\"{S}\",\"refresh_token_expires_in\":15811200}"}},
		{"gitlab-feed-token-glft", "GitLab", "GITLAB_FEED_TOKEN", "gitlab.acme.test", pre("glft-", b64url, 20),
			[]string{"https://gitlab.acme.test/dashboard/issues.atom?feed_token={S}&state=opened"}},
		{"gitlab-deploy-token-gldt", "GitLab", "CI_DEPLOY_PASSWORD", "gitlab.acme.test", pre("gldt-", b64url, 20),
			[]string{"docker login registry.gitlab.acme.test -u gitlab+deploy-token-12 -p {S}"}},
		{"gitlab-incoming-mail-glimt", "GitLab", "GITLAB_INCOMING_EMAIL_TOKEN", "gitlab.acme.test", pre("glimt-", b6LoD, 25),
			[]string{"reply to incoming+acme-infra-42-{S}-issue@gitlab.acme.test to comment"}},
		{"gitlab-oauth-app-secret-gloas", "GitLab", "GITLAB_APP_SECRET", "gitlab.acme.test", pre("gloas-", hexlc, 64), nil},
		{"gitlab-job-token-glcbt", "GitLab", "CI_JOB_TOKEN", "gitlab.acme.test", cat(lit("glcbt-"), s(hexlc, 2), lit("_"), s(b64url, 20)),
			[]string{"curl --header \"JOB-TOKEN: {S}\" https://gitlab.acme.test/api/v4/projects/42/packages/generic/app/1.0/app.tgz"}},
		{"gitlab-trigger-token-glptt", "GitLab", "GITLAB_TRIGGER_TOKEN", "gitlab.acme.test", pre("glptt-", hexlc, 40),
			[]string{"curl -X POST -F token={S} -F ref=main https://gitlab.acme.test/api/v4/projects/42/trigger/pipeline"}},
		{"gitlab-agent-token-glagent", "GitLab", "GITLAB_AGENT_TOKEN", "kas.gitlab.acme.test", pre("glagent-", b64url, 50),
			[]string{"helm upgrade --install prod-agent gitlab/gitlab-agent --set config.token={S} --set config.kasAddress=wss://kas.gitlab.acme.test"}},
		{"slack-user-token-xoxp", "Slack", "SLACK_USER_TOKEN", "slack.com", func(g *gen) string {
			return "xoxp-" + slackNum(g) + "-" + slackNum(g) + "-" + slackNum(g) + "-" + g.s(hexlc, 32)
		}, nil},
		{"slack-config-refresh-xoxe", "Slack", "SLACK_CONFIG_REFRESH_TOKEN", "slack.com", pre("xoxe-1-", b6UpD+b6Lo, 140), nil},
		{"slack-config-access-xoxe-xoxp", "Slack", "SLACK_CONFIG_TOKEN", "slack.com", pre("xoxe.xoxp-1-", b6UpD+b6Lo, 150), nil},
		{"atlassian-atctt-access-token", "Bitbucket", "BITBUCKET_ACCESS_TOKEN", "api.bitbucket.org", atl("ATCTT3xFfGN0"),
			[]string{"git clone https://x-token-auth:{S}@bitbucket.org/acme/payments.git"}},
		{"doppler-cli-token-dpct", "Doppler", "DOPPLER_TOKEN", "api.doppler.com", pre("dp.ct.", alnum, 43), nil},
		{"doppler-scim-token", "Doppler", "DOPPLER_SCIM_TOKEN", "api.doppler.com", pre("dp.scim.", alnum, 43), nil},
		{"doppler-audit-token", "Doppler", "DOPPLER_AUDIT_TOKEN", "api.doppler.com", pre("dp.audit.", alnum, 43), nil},
		{"vault-batch-token-hvb", "Vault", "VAULT_TOKEN", "vault.acme.test:8200", pre("hvb.AAAAAQ", b64url, 130),
			[]string{"Key                  Value\n---                  -----\ntoken                {S}\ntoken_accessor       n/a\ntoken_duration       20m\ntoken_renewable      false"}},
		{"newrelic-browser-key-nrjs", "New Relic", "NEW_RELIC_BROWSER_KEY", "js-agent.newrelic.com", pre("NRJS-", hexlc, 19), nil},
		{"newrelic-admin-key-nraa", "New Relic", "NEW_RELIC_ADMIN_KEY", "api.newrelic.com", pre("NRAA-", hexlc, 27), nil},
		{"digitalocean-refresh-dor", "DigitalOcean", "DO_REFRESH_TOKEN", "cloud.digitalocean.com", pre("dor_v1_", hexlc, 64), nil},
		{"digitalocean-oauth-doo", "DigitalOcean", "DIGITALOCEAN_ACCESS_TOKEN", "api.digitalocean.com", pre("doo_v1_", hexlc, 64), nil},
		{"adobe-io-client-secret-p8e", "Adobe", "ADOBE_CLIENT_SECRET", "ims-na1.adobelogin.com", pre("p8e-", alnum, 32),
			[]string{"curl -X POST https://ims-na1.adobelogin.com/ims/token/v3 -d client_id=8a1f3c0e9b7d4e21a6c5f0b2d3e4f5a6 -d client_secret={S} -d grant_type=client_credentials"}},
		{"pinterest-pina-token", "Pinterest", "PINTEREST_ACCESS_TOKEN", "api.pinterest.com", pre("pina_", b6UpD, 100), nil},
		{"rancher-api-key-pair", "Rancher", "CATTLE_TOKEN", "rancher.acme.test", func(g *gen) string {
			return "token-" + g.s(b6LoD, 5) + ":" + g.s(b6LoD, 54)
		}, []string{"rancher login https://rancher.acme.test/v3 --token {S}"}},
		{"jenkins-user-api-token", "Jenkins", "JENKINS_API_TOKEN", "ci.acme.test", pre("11", hexlc, 32),
			[]string{"curl -X POST -u deploy:{S} https://ci.acme.test/job/release/buildWithParameters?TAG=v2.4.1"}},
		{"veracode-api-key-secret", "Veracode", "VERACODE_API_KEY_SECRET", "api.veracode.com", s(hexlc, 128),
			[]string{"[default]\nveracode_api_key_id = 3b9e0c4f2a7d4c1e8f6a5b0d9c8e7f61\nveracode_api_key_secret = {S}"}},
		{"okx-api-secret-key", "OKX", "OKX_SECRET_KEY", "www.okx.com", s(b6HexU, 32),
			[]string{"okx = ccxt.okx({'apiKey': '6f2c1a9e-3b4d-4e5f-8a7b-0c1d2e3f4a5b', 'secret': '{S}', 'password': 'Trading2026'})"}},
		{"kucoin-api-secret", "KuCoin", "KUCOIN_API_SECRET", "api.kucoin.com", b6uuid,
			[]string{"KC-API-KEY: 65a1f0c2e4b7d9000186a3f2\nKC-API-SECRET: {S}\nKC-API-PASSPHRASE: (see vault)"}},
		{"gemini-exchange-api-secret", "Gemini", "GEMINI_API_SECRET", "api.gemini.com", s(b6B58, 28),
			[]string{"GEMINI_API_KEY=account-Xq4r7TnB2wLm9KcZ8pVd\nGEMINI_API_SECRET={S}"}},
		{"brevo-smtp-key-xsmtpsib", "Brevo SMTP", "SMTP_PASSWORD", "smtp-relay.brevo.com", func(g *gen) string {
			return "xsmtpsib-" + g.s(hexlc, 64) + "-" + g.s(alnum, 16)
		}, []string{"spring.mail.host=smtp-relay.brevo.com\nspring.mail.port=587\nspring.mail.password={S}"}},
		{"smtp2go-api-key", "SMTP2GO", "SMTP2GO_API_KEY", "api.smtp2go.com", pre("api-", b6HexU, 32), nil},
		{"klarna-live-api-key", "Klarna", "KLARNA_API_KEY", "api.klarna.com", pre("klarna_live_api_", b64url, 48), nil},
		{"wompi-private-key", "Wompi", "WOMPI_PRIVATE_KEY", "production.wompi.co", pre("prv_prod_", alnum, 32), nil},
		{"sumup-secret-key", "SumUp", "SUMUP_API_KEY", "api.sumup.com", pre("sup_sk_", alnum, 32), nil},
		{"cloudflare-global-api-key", "Cloudflare", "CLOUDFLARE_API_KEY", "api.cloudflare.com", s(hexlc, 37),
			[]string{"curl https://api.cloudflare.com/client/v4/zones -H \"X-Auth-Email: ops@acme.test\" -H \"X-Auth-Key: {S}\""}},
		{"azure-functions-host-key", "Azure Functions", "FUNCTION_KEY", "acme-fn.azurewebsites.net", cat(s(b64url, 42), lit("AzFu"), s(b64url, 6), lit("==")),
			[]string{"POST https://acme-fn.azurewebsites.net/api/ingest?code={S}"}},
		{"azure-servicebus-shared-access-key", "Azure Service Bus", "SERVICEBUS_CONNECTION", "acme-bus.servicebus.windows.net", cat(s(b64std, 39), lit("+ASb"), lit("=")),
			[]string{"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={S}"}},
		{"azure-eventhubs-sas-key", "Azure Event Hubs", "EVENTHUB_KEY", "acme-ehns.servicebus.windows.net", cat(s(b64std, 39), lit("+AEh"), lit("=")),
			[]string{"Endpoint=sb://acme-ehns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={S};EntityPath=telemetry"}},
		{"azure-iothub-owner-key", "Azure IoT Hub", "IOTHUB_CONNECTION_STRING", "acme-hub.azure-devices.net", cat(s(b64std, 39), lit("AIoT"), lit("=")),
			[]string{"HostName=acme-hub.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={S}"}},
		{"azure-signalr-access-key", "Azure SignalR", "Azure__SignalR__ConnectionString", "acme.service.signalr.net", b6b64n(32),
			[]string{"Endpoint=https://acme.service.signalr.net;AccessKey={S};Version=1.0;"}},
		{"azure-communication-access-key", "Azure Communication Services", "ACS_CONNECTION_STRING", "acme.communication.azure.com", b6b64n(64),
			[]string{"endpoint=https://acme.communication.azure.com/;accesskey={S}"}},
		{"azure-ai-search-admin-key", "Azure AI Search", "AZURE_SEARCH_ADMIN_KEY", "acme.search.windows.net", cat(s(alnum, 42), lit("AzSe"), s(alnum, 6)),
			[]string{"curl -X POST \"https://acme.search.windows.net/indexes/docs/docs/search?api-version=2024-07-01\" -H \"api-key: {S}\" -d '{\"search\":\"*\"}'"}},
		{"azure-ai-services-84-key", "Azure AI Services", "AZURE_AI_KEY", "westeurope.api.cognitive.microsoft.com", cat(s(alnum, 52), lit("JQQJ99"), s(alnum, 5), lit("ACYeBjFXJ3w3AAAAACOG"), s(alnum, 1)),
			[]string{"curl -X POST \"https://westeurope.api.cognitive.microsoft.com/translator/text/v3.0/translate?to=de\" -H \"Ocp-Apim-Subscription-Key: {S}\""}},
		{"azure-redis-access-key", "Azure Cache for Redis", "REDIS_KEY", "acme.redis.cache.windows.net", cat(s(alnum, 32), lit("AzCa"), s(alnum, 7), lit("=")),
			[]string{"acme.redis.cache.windows.net:6380,password={S},ssl=True,abortConnect=False"}},
		{"azure-batch-account-key", "Azure Batch", "AZURE_BATCH_ACCOUNT_KEY", "acme.westeurope.batch.azure.com", b6b64n(64), nil},
		{"aws-appsync-api-key", "AWS AppSync", "APPSYNC_API_KEY", "abcdefghij.appsync-api.eu-west-1.amazonaws.com", pre("da2-", b6LoD, 26),
			[]string{"curl -XPOST https://abcdefghij.appsync-api.eu-west-1.amazonaws.com/graphql -H \"x-api-key: {S}\" -d '{\"query\":\"{ listTodos { items { id } } }\"}'"}},
		{"aws-cognito-app-client-secret", "Cognito", "COGNITO_CLIENT_SECRET", "cognito-idp.eu-west-1.amazonaws.com", s(b6LoD, 52), nil},
		{"aws-ses-smtp-password", "Amazon SES", "SES_SMTP_PASSWORD", "email-smtp.eu-west-1.amazonaws.com", cat(lit("B"), s(b64std, 43)),
			[]string{"[email-smtp.eu-west-1.amazonaws.com]:587 AKIAZ3MSJV4WB6XKQ2PL:{S}"}},
		{"aws-mws-auth-token", "Amazon MWS", "MWS_AUTH_TOKEN", "mws.amazonservices.com", cat(lit("amzn.mws."), b6uuid), nil},
		{"gcs-hmac-secret", "Cloud Storage HMAC", "GCS_HMAC_SECRET", "storage.googleapis.com", s(b64std, 40),
			[]string{"[Credentials]\ngs_access_key_id = GOOG1EJQ7X4M2VZK9P3LWTRB5N6C8YHD0AFESUG1QOI7JKLMNPX2RV34T5\ngs_secret_access_key = {S}"}},
		{"huawei-cloud-secret-key", "Huawei Cloud", "HUAWEICLOUD_SDK_SK", "obs.cn-north-4.myhuaweicloud.com", s(alnum, 40),
			[]string{"HUAWEICLOUD_SDK_AK=QTWAOYTTINDUT2QVKYUC\nHUAWEICLOUD_SDK_SK={S}"}},
		{"viber-bot-auth-token", "Viber", "VIBER_AUTH_TOKEN", "chatapi.viber.com", func(g *gen) string {
			return g.s(hexlc, 16) + "-" + g.s(hexlc, 16) + "-" + g.s(hexlc, 16)
		}, []string{"curl -X POST https://chatapi.viber.com/pa/set_webhook -H \"X-Viber-Auth-Token: {S}\" -d '{\"url\":\"https://bot.acme.test/viber\"}'"}},
		{"nomad-acl-secret-id", "Nomad", "NOMAD_TOKEN", "nomad.acme.test:4646", b6uuid,
			[]string{"Accessor ID  = 1f0e2d3c-4b5a-4697-8877-665544332211\nSecret ID    = {S}\nName         = Bootstrap Token\nType         = management"}},
		{"teleport-node-join-token", "Teleport", "TELEPORT_JOIN_TOKEN", "teleport.acme.test:443", s(hexlc, 32),
			[]string{"sudo teleport start --roles=node --token={S} --auth-server=teleport.acme.test:443"}},
		{"tailscale-api-access-token", "Tailscale", "TAILSCALE_API_KEY", "api.tailscale.com", func(g *gen) string {
			return "tskey-api-" + g.s(alnum, 12) + "CNTRL-" + g.s(alnum, 32)
		}, nil},
		{"tailscale-oauth-client-secret", "Tailscale", "TS_OAUTH_SECRET", "api.tailscale.com", func(g *gen) string {
			return "tskey-client-" + g.s(alnum, 12) + "CNTRL-" + g.s(alnum, 32)
		}, nil},
		{"cloudinary-api-secret-bare", "Cloudinary", "CLOUDINARY_API_SECRET", "api.cloudinary.com", s(b64url, 27), nil},
		{"shopify-partner-api-token", "Shopify Partners", "SHOPIFY_PARTNER_TOKEN", "partners.shopify.com", pre("prtapi_", hexlc, 32), nil},
		{"shopify-custom-app-shpca", "Shopify", "SHOPIFY_CUSTOM_APP_TOKEN", "acme.myshopify.com", pre("shpca_", hexlc, 32),
			[]string{"curl -H \"X-Shopify-Access-Token: {S}\" https://acme.myshopify.com/admin/api/2024-10/orders.json"}},
		{"discord-oauth-client-secret", "Discord", "DISCORD_CLIENT_SECRET", "discord.com", s(b64url, 32), nil},
		{"dropbox-app-secret", "Dropbox", "DROPBOX_APP_SECRET", "api.dropboxapi.com", s(b6LoD, 15), nil},
		{"contentful-cda-token", "Contentful", "CONTENTFUL_DELIVERY_TOKEN", "cdn.contentful.com", s(b64url, 43),
			[]string{"https://cdn.contentful.com/spaces/q9z0wr8bk3x1/environments/master/entries?access_token={S}"}},
		{"supabase-sb-secret-key", "Supabase", "SUPABASE_SECRET_KEY", "acme.supabase.co", cat(lit("sb_secret_"), s(b64url, 22), lit("_"), s(b64url, 8)), nil},
		{"planetscale-password-pscale-pw", "PlanetScale", "DATABASE_PASSWORD", "aws.connect.psdb.cloud", pre("pscale_pw_", b64url, 43),
			[]string{"mysql://h3k9x2m1p0q7:{S}@aws.connect.psdb.cloud/acme?sslaccept=strict"}},
		{"mongodb-atlas-sa-secret", "MongoDB Atlas", "MONGODB_ATLAS_CLIENT_SECRET", "cloud.mongodb.com", pre("mdb_sa_sk_", alnum, 40), nil},
		{"clickhouse-cloud-key-secret", "ClickHouse Cloud", "CLICKHOUSE_KEY_SECRET", "api.clickhouse.cloud", pre("4b1d", alnum, 38), nil},
		{"tinybird-token", "Tinybird", "TB_TOKEN", "api.tinybird.co", cat(lit("p."), b6jwt("HS256", func(g *gen) string {
			return fmt.Sprintf(`{"u":"%s","id":"%s","host":"gcp-europe-west3"}`, b6uuid(g), b6uuid(g))
		})), nil},
		{"calendly-personal-access-token", "Calendly", "CALENDLY_TOKEN", "api.calendly.com", b6jwt("HS256", func(g *gen) string {
			return fmt.Sprintf(`{"iss":"https://auth.calendly.com","iat":%d,"jti":"%s","user_uuid":"%s"}`, 1730000000+g.rng.IntN(9e6), b6uuid(g), b6uuid(g))
		}), nil},
		{"godaddy-api-secret", "GoDaddy", "GODADDY_API_SECRET", "api.godaddy.com", s(alnum, 22),
			[]string{"curl https://api.godaddy.com/v1/domains -H \"Authorization: sso-key dLP4wKz9bQ2_RkT8mN3vXc7YhJ5sDf1GqWe:{S}\""}},
		{"namecheap-api-key", "Namecheap", "NAMECHEAP_API_KEY", "api.namecheap.com", s(hexlc, 32),
			[]string{"https://api.namecheap.com/xml.response?ApiUser=acme&ApiKey={S}&UserName=acme&Command=namecheap.domains.getList&ClientIp=203.0.113.7"}},
		{"porkbun-secret-api-key", "Porkbun", "PORKBUN_SECRET_API_KEY", "api.porkbun.com", pre("sk1_", hexlc, 64),
			[]string{"{\"apikey\": \"pk1_\" , \"secretapikey\": \"{S}\"}"}},
		{"duckdns-update-token", "DuckDNS", "DUCKDNS_TOKEN", "www.duckdns.org", b6uuid,
			[]string{"*/5 * * * * curl -s \"https://www.duckdns.org/update?domains=acmehome&token={S}&ip=\" >/dev/null"}},
		{"bamboohr-api-key", "BambooHR", "BAMBOOHR_API_KEY", "api.bamboohr.com", s(hexlc, 40),
			[]string{"curl -u \"{S}:x\" https://api.bamboohr.com/api/gateway.php/acme/v1/employees/directory"}},
		{"dub-co-api-key", "Dub", "DUB_API_KEY", "api.dub.co", pre("dub_", alnum, 24), nil},
		{"hygraph-permanent-token", "Hygraph", "HYGRAPH_TOKEN", "api-eu-central-1.hygraph.com", b6jwt("RS256", func(g *gen) string {
			return fmt.Sprintf(`{"version":3,"iat":%d,"aud":["https://api-eu-central-1.hygraph.com/v2/%s/master"],"iss":"https://management.hygraph.com/","sub":"%s","jti":"%s"}`, 1720000000+g.rng.IntN(9e6), g.s(b6LoD, 25), b6uuid(g), g.s(b6LoD, 25))
		}), nil},
	}
	var out []b3Kind
	for _, p := range ps {
		out = append(out, b6provKind(p))
	}
	return out
}

// --- cli: credentials as arguments of tools no earlier corpus covered ---

// b6cliTexts are where a command line is seen; {CMD} is the command, {JCMD} the command escaped
// for a JSON string.
var b6cliTexts = []string{
	"$ {CMD}",
	"● Bash({CMD})\n  ⎿  done",
	"+ {CMD}",
	"  1187  {CMD}",
	"run this once and you're set: `{CMD}`",
	"```console\nops@bastion:~$ {CMD}\n```",
	"{\"name\":\"shell\",\"arguments\":{\"command\":\"{JCMD}\",\"timeout\":120}}",
	"#!/bin/sh\nset -eu\n{CMD}\necho ok",
	"[2026-11-29 03:10:44] cron[2211]: (backup) CMD ({CMD})",
	"Step 4/9 : RUN {CMD}",
}

// b6cli is a kind whose command, with {S} for the credential, is shown in three of b6cliTexts.
func b6cli(name, tool string, body func(*gen) string, cmds ...string) b3Kind {
	start := b6hashPick(name, len(b6cliTexts))
	var texts []string
	for i := range 3 {
		c := cmds[i%len(cmds)]
		t := b6cliTexts[(start+3*i)%len(b6cliTexts)]
		texts = append(texts, strings.NewReplacer("{CMD}", c, "{JCMD}", b6jsonEsc(c)).Replace(t))
	}
	return b6t("cli", name, tool+" with the credential on its command line, in a terminal, transcript, log or script (text written here)", body, texts...)
}

func b6CLI() []b3Kind {
	pw, tok := b6pw, b6token
	wgKey := b6b64n(32)
	return []b3Kind{
		b6cli("mysqlsh-uri-password", "MySQL Shell", pw, "mysqlsh --uri root:{S}@db-primary:3306 --sql -e 'SHOW DATABASES'", "mysqlsh --js --uri admin:{S}@10.1.4.7:33060"),
		b6cli("usql-dsn-password", "usql", pw, "usql postgres://report:{S}@pg.acme.test/analytics -c 'select 1'", "usql sqlserver://sa:{S}@mssql01/master"),
		b6cli("pgcli-uri-password", "pgcli", pw, "pgcli postgresql://app_rw:{S}@10.0.3.21:5432/orders"),
		b6cli("duckdb-create-secret-s3", "DuckDB", b6s(b64std, 40), "duckdb -c \"CREATE SECRET (TYPE s3, KEY_ID 'AKIAQ4W2ZP7LMXK3RT5B', SECRET '{S}', REGION 'eu-west-1')\""),
		b6cli("beeline-p-password", "Hive beeline", pw, "beeline -u jdbc:hive2://hive.acme.test:10000/default -n etl -p {S} -e 'show tables'"),
		b6cli("arangosh-server-password", "arangosh", pw, "arangosh --server.endpoint tcp://127.0.0.1:8529 --server.username root --server.password {S}"),
		b6cli("surreal-sql-pass", "SurrealDB CLI", pw, "surreal sql --endpoint http://localhost:8000 --user root --pass {S} --ns acme --db app"),
		b6cli("nats-cli-user-password", "NATS CLI", pw, "nats --server nats://nats.acme.test:4222 --user orders --password {S} pub orders.created '{}'"),
		b6cli("rabbitmqadmin-p", "rabbitmqadmin", pw, "rabbitmqadmin -H mq.acme.test -u admin -p {S} list queues name messages"),
		b6cli("kcat-sasl-password", "kcat", pw, "kcat -b pkc-41wq6.eu-west-1.aws.confluent.cloud:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=QXZ7M4KPL2RT9BWE -X sasl.password={S} -t orders -C -c 5"),
		b6cli("nomad-job-token-flag", "Nomad", b6uuid, "nomad job run -token={S} -address=https://nomad.acme.test:4646 api.nomad.hcl"),
		b6cli("argocd-login-password", "Argo CD CLI", pw, "argocd login argocd.acme.test --username admin --password {S} --grpc-web"),
		b6cli("flux-create-secret-git-password", "Flux CLI", tok, "flux create secret git infra-auth --url=https://git.acme.test/ops/infra --username=flux --password={S}"),
		b6cli("skopeo-dest-creds", "skopeo", pw, "skopeo copy docker://docker.io/library/nginx:1.27 docker://registry.acme.test/mirror/nginx:1.27 --dest-creds mirror:{S}"),
		b6cli("buildah-push-creds", "Buildah", pw, "buildah push --creds ci-bot:{S} localhost/app:latest docker://registry.acme.test/app:2.1.0"),
		b6cli("oras-login-password", "ORAS", tok, "oras login acmecr.azurecr.io --username 00000000-0000-0000-0000-000000000000 --password {S}"),
		b6cli("az-keyvault-secret-set-value", "Azure CLI", b6strong, "az keyvault secret set --vault-name acme-kv --name sql-admin --value {S}"),
		b6cli("gcloud-secrets-echo-pipe", "gcloud", b6strong, "echo -n {S} | gcloud secrets create stripe-key --data-file=-", "printf {S} | gcloud secrets versions add db-password --data-file=-"),
		b6cli("aws-secretsmanager-secret-string", "AWS CLI", b6strong, "aws secretsmanager create-secret --name prod/api/db --secret-string {S}"),
		b6cli("aws-ssm-put-parameter-value", "AWS CLI", b6strong, "aws ssm put-parameter --name /acme/prod/smtp_pass --type SecureString --value {S} --overwrite"),
		b6cli("ibmcloud-login-apikey", "IBM Cloud CLI", b6s(b64url, 44), "ibmcloud login --apikey {S} -r eu-de -g default"),
		b6cli("wg-set-private-key-echo", "WireGuard", wgKey, "wg set wg0 private-key <(echo {S}) listen-port 51820"),
		b6cli("openvpn-auth-printf", "OpenVPN", pw, "openvpn --config office.ovpn --auth-user-pass <(printf 'jsmith\\n{S}\\n')"),
		b6cli("nmcli-vpn-secrets-password", "nmcli", pw, "nmcli connection modify office-vpn vpn.secrets password={S}"),
		b6cli("openfortivpn-p", "openfortivpn", pw, "sudo openfortivpn vpn.acme.test:10443 -u j.smith -p {S} --trusted-cert 3a1f09c2e7"),
		b6cli("swaks-auth-password", "swaks", pw, "swaks --to qa@acme.test --server smtp.acme.test:587 --tls --auth LOGIN --auth-user noreply@acme.test --auth-password {S}"),
		b6cli("mutt-e-imap-pass", "mutt", pw, "mutt -e 'set imap_user=me@acme.test' -e 'set imap_pass={S}' -f imaps://imap.acme.test/INBOX"),
		b6cli("imapsync-password1", "imapsync", pw, "imapsync --host1 mail.old.test --user1 anna --password1 {S} --host2 imap.acme.test --user2 anna@acme.test --passfile2 /root/p2"),
		b6cli("sendemail-xp", "sendEmail", pw, "sendEmail -f alerts@acme.test -t oncall@acme.test -u 'disk full' -m 'see grafana' -s smtp.acme.test:587 -xu alerts@acme.test -xp {S} -o tls=yes"),
		b6cli("winscp-open-url", "WinSCP", pw, "winscp.com /command \"open sftp://deploy:{S}@files.acme.test/ -hostkey=*\" \"put site.zip /var/www/\" \"exit\""),
		b6cli("curlftpfs-mount", "curlftpfs", pw, "curlftpfs ftpuser:{S}@ftp.acme.test /mnt/ftp -o allow_other"),
		b6cli("sshfs-password-stdin-echo", "sshfs", pw, "echo {S} | sshfs media@nas.local:/volume1/video /mnt/video -o password_stdin"),
		b6cli("kopia-repository-password", "Kopia", pw, "kopia repository connect s3 --bucket=acme-kopia --access-key=AKIAX3T7Q2WPL9ZKM4RB --secret-access-key=(env) --password={S}"),
		b6cli("certutil-importpfx-p", "certutil", pw, "certutil -f -p {S} -importpfx C:\\certs\\wildcard.pfx"),
		b6cli("dsmod-user-pwd", "dsmod", pw, "dsmod user \"CN=svc-sql,OU=Service,DC=acme,DC=test\" -pwd {S} -mustchpwd no"),
		b6cli("mongoexport-password", "mongoexport", pw, "mongoexport --host rs0/mongo1:27017 --username reporter --password {S} --authenticationDatabase admin --db shop --collection orders --out orders.json"),
		b6cli("wp-cli-user-pass", "WP-CLI", pw, "wp user update 1 --user_pass={S} --skip-email --path=/var/www/html"),
		b6cli("drush-user-password", "Drush", pw, "drush user:password admin {S}"),
		b6cli("rails-runner-password", "Rails", pw, "bin/rails runner \"User.find_by(email: 'admin@acme.test').update!(password: '{S}')\""),
		b6cli("django-shell-set-password", "Django", pw, "python manage.py shell -c \"from django.contrib.auth.models import User; u=User.objects.get(username='admin'); u.set_password('{S}'); u.save()\""),
		b6cli("mc-admin-user-add", "MinIO client", b6s(alnum, 24), "mc admin user add local etl-writer {S}"),
		b6cli("gitlab-rails-runner-password", "GitLab Rails", pw, "sudo gitlab-rails runner \"u = User.find_by_username('root'); u.password = u.password_confirmation = '{S}'; u.save!\""),
		b6cli("grafana-cli-reset-admin-password", "grafana-cli", pw, "grafana-cli admin reset-admin-password {S}"),
		b6cli("glab-variable-set", "glab", tok, "glab variable set DEPLOY_TOKEN {S} --masked --scope production"),
		b6cli("circleci-context-store-secret", "CircleCI CLI", tok, "echo {S} | circleci context store-secret github acme prod-deploy NPM_TOKEN"),
		b6cli("vercel-env-add-printf", "Vercel CLI", tok, "printf {S} | vercel env add STRIPE_SECRET_KEY production"),
		b6cli("netlify-env-set", "Netlify CLI", tok, "netlify env:set MAILER_API_KEY {S} --context production"),
		b6cli("railway-variables-set", "Railway CLI", b6strong, "railway variables --set DATABASE_PASSWORD={S} --service api"),
		b6cli("wrangler-secret-put-echo", "Wrangler", tok, "echo {S} | npx wrangler secret put UPSTREAM_TOKEN --env production"),
		b6cli("supabase-secrets-set", "Supabase CLI", tok, "supabase secrets set RESEND_KEY={S} --project-ref abcdefghijklmnopqrst"),
		b6cli("oc-login-p", "OpenShift CLI", pw, "oc login https://api.ocp.acme.test:6443 -u kubeadmin -p {S} --insecure-skip-tls-verify"),
		b6cli("pdftk-user-pw", "pdftk", pw, "pdftk payslips.pdf output payslips-locked.pdf user_pw {S}"),
		b6cli("qpdf-encrypt-user", "qpdf", pw, "qpdf --encrypt {S} owner-pass-not-shared 256 -- contract.pdf contract-enc.pdf"),
		b6cli("aescrypt-p", "AES Crypt", pw, "aescrypt -e -p {S} customers.csv"),
		b6cli("racadm-remote-p", "racadm", pw, "racadm -r 10.0.10.21 -u root -p {S} serveraction powercycle"),
		b6cli("ilorest-login-p", "iLOrest", pw, "ilorest login 10.0.10.31 -u Administrator -p {S}"),
		b6cli("govc-password-env", "govc", pw, "GOVC_URL=vcenter.acme.test GOVC_USERNAME=administrator@vsphere.local GOVC_PASSWORD={S} govc ls /dc1/vm"),
		b6cli("connect-viserver-password", "PowerCLI", pw, "Connect-VIServer -Server vcenter.acme.test -User administrator@vsphere.local -Password {S}"),
		b6cli("ncat-proxy-auth", "ncat", pw, "ncat --proxy proxy.acme.test:3128 --proxy-type http --proxy-auth jdoe:{S} internal.acme.test 22"),
		b6cli("twine-upload-p", "twine", b6cat(b6lit("pypi-AgEIcHlwaS5vcmc"), b6s(b64url, 60)), "twine upload -u __token__ -p {S} dist/*"),
		b6cli("poetry-config-http-basic", "Poetry", pw, "poetry config http-basic.acme-nexus ci-reader {S}"),
		b6cli("cargo-login-token", "Cargo", b6pre("cio", alnum, 32), "cargo login {S}", "cargo login --registry acme {S}"),
		b6cli("dotnet-nuget-add-source-password", ".NET CLI", tok, "dotnet nuget add source https://nuget.pkg.github.com/acme/index.json -n github -u ci -p {S} --store-password-in-clear-text"),
		b6cli("gradle-p-signing-password", "Gradle", pw, "./gradlew publish -Psigning.password={S} -Psigning.keyId=24875D73"),
		b6cli("uv-publish-password", "uv", pw, "uv publish --index acme --username ci --password {S}"),
		b6cli("pg-basebackup-conninfo", "pg_basebackup", pw, "pg_basebackup -d \"host=10.0.3.21 user=replicator password={S}\" -D /var/lib/postgresql/16/main -R -P"),
		b6cli("memtier-authenticate", "memtier_benchmark", pw, "memtier_benchmark -s redis.acme.test -p 6379 --authenticate={S} --test-time=60"),
		b6cli("cockroach-sql-url", "CockroachDB", pw, "cockroach sql --url 'postgresql://root:{S}@crdb.acme.test:26257/defaultdb?sslmode=verify-full'"),
		b6cli("rman-target-slash", "Oracle RMAN", pw, "rman target sys/{S}@ORCLPDB1 cmdfile=backup.rman"),
		b6cli("oracle-expdp-userid", "Oracle Data Pump", pw, "expdp system/{S}@XEPDB1 schemas=HR directory=DATA_PUMP_DIR dumpfile=hr.dmp"),
		b6cli("db2-connect-using", "Db2 CLP", pw, "db2 connect to SAMPLE user db2inst1 using {S}"),
		b6cli("firebird-isql-password", "Firebird isql", pw, "isql-fb -user SYSDBA -password {S} /var/lib/firebird/data/acme.fdb"),
		b6cli("hana-hdbsql-p", "SAP HANA hdbsql", pw, "hdbsql -n hana01:30015 -u SYSTEM -p {S} \"SELECT * FROM M_DATABASES\""),
		b6cli("nmap-script-args-password", "nmap", pw, "nmap -p 3306 --script mysql-databases --script-args mysqluser=root,mysqlpass={S} 10.0.5.12"),
		b6cli("msf-set-password", "Metasploit", pw, "msfconsole -q -x \"use auxiliary/scanner/smb/smb_login; set RHOSTS 10.0.0.0/24; set SMBUser svc-backup; set SMBPass {S}; run\""),
		b6cli("bloodhound-python-p", "bloodhound-python", pw, "bloodhound-python -d acme.test -u j.doe -p {S} -ns 10.0.0.10 -c All"),
		b6cli("certipy-find-p", "Certipy", pw, "certipy find -u j.doe@acme.test -p {S} -dc-ip 10.0.0.10 -vulnerable"),
		b6cli("screen-stuff-password", "screen", pw, "screen -S db -X stuff '{S}\\n'"),
		b6cli("ykman-piv-change-pin", "ykman", b6s(b6Dig, 8), "ykman piv access change-pin --pin 123456 --new-pin {S}"),
		b6cli("security-add-generic-password", "macOS security", pw, "security add-generic-password -a ci -s acme-signing -w {S} -U"),
		b6cli("secret-tool-store-echo", "secret-tool", pw, "echo -n {S} | secret-tool store --label='acme vpn' service acme-vpn user jdoe"),
	}
}

// --- keymat: key material without its frame, or in containers no earlier corpus used ---

// b6b64body is a base64 body that starts with lead (the encoding of a real structure's first
// bytes) and has n characters in all, padded as the length needs.
func b6b64body(g *gen, lead string, n int) string {
	body := lead + g.s(b64std, n-len(lead))
	if g.rng.IntN(2) == 0 {
		body = body[:len(body)-1] + "="
	}
	return body
}

// b6lines cuts s into lines of w characters.
func b6lines(s string, w int) []string {
	var out []string
	for len(s) > w {
		out = append(out, s[:w])
		s = s[w:]
	}
	return append(out, s)
}

const (
	b6LeadRSA1  = "MIIEowIBAAKCAQEA"
	b6LeadRSA8  = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
	b6LeadEC    = "MHcCAQEEI"
	b6LeadP8EC  = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg"
	b6LeadP8Ed  = "MC4CAQAwBQYDK2VwBCIEI"
	b6LeadSSHEd = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA"
	b6LeadPGP   = "lFgEZ"
)

// b6hexColons is n random bytes as lower hex joined by colons, 15 bytes to a line indented by
// four spaces, as openssl's -text output prints a big number.
func b6hexColons(g *gen, n int) string {
	var parts []string
	for range n {
		parts = append(parts, g.s(hexlc, 2))
	}
	var lines []string
	for i := 0; i < len(parts); i += 15 {
		lines = append(lines, strings.Join(parts[i:min(i+15, len(parts))], ":"))
	}
	return strings.Join(lines, ":\n    ")
}

func b6KeyMat() []b3Kind {
	k := func(name, source string, n int, f func(g *gen, i int) (string, string)) b3Kind {
		return b6f("keymat", name, source, n, f)
	}
	rsaD := func(g *gen) string { return base64.StdEncoding.EncodeToString(g.bytes(256)) }
	return []b3Kind{
		k("xmldsig-rsakeyvalue-private-d", ".NET RSA.ToXmlString(true) output: an RSAKeyValue with its private D (text written here)", 3, func(g *gen, i int) (string, string) {
			d := rsaD(g)
			b := func(n int) string { return base64.StdEncoding.EncodeToString(g.bytes(n)) }
			x := "<RSAKeyValue><Modulus>" + b(256) + "</Modulus><Exponent>AQAB</Exponent><P>" + b(128) + "</P><Q>" + b(128) + "</Q><DP>" + b(128) + "</DP><DQ>" + b(128) + "</DQ><InverseQ>" + b(128) + "</InverseQ><D>" + d + "</D></RSAKeyValue>"
			return []string{
				"signing.xml:\n" + x,
				"<appSettings>\n  <add key=\"LicenseSigningKey\" value=\"" + strings.ReplaceAll(x, "<", "&lt;") + "\" />\n</appSettings>",
				"var rsa = RSA.Create();\nrsa.FromXmlString(@\"" + x + "\");",
			}[i], d
		}),
		k("jwk-in-oidc-configmap-yaml-d", "a JWK private key kept in a Kubernetes ConfigMap for an OIDC provider (text written here)", 3, func(g *gen, i int) (string, string) {
			d := g.b64url(32)
			x, y := g.b64url(32), g.b64url(32)
			return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dex-signing\ndata:\n  jwks.json: |\n    {\"keys\": [{\"kty\": \"EC\", \"crv\": \"P-256\", \"kid\": \"sig-%d\", \"use\": \"sig\",\n      \"x\": \"%s\", \"y\": \"%s\",\n      \"d\": \"%s\"}]}", 2024+i, x, y, d), d
		}),
		k("jwk-escaped-in-env-json-d", "an Ed25519 JWK with its d, as an escaped JSON string in an env file or a compose file (text written here)", 3, func(g *gen, i int) (string, string) {
			d, x := g.b64url(32), g.b64url(32)
			j := `{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"d\":\"` + d + `\",\"x\":\"` + x + `\",\"kid\":\"k1\"}`
			return []string{
				"AUTH_PRIVATE_JWK=\"" + j + "\"",
				"services:\n  auth:\n    environment:\n      JWT_SIGNING_JWK: \"" + j + "\"",
				"{\"name\":\"AUTH_JWK\",\"value\":\"" + j + "\",\"type\":\"encrypted\"}",
			}[i], d
		}),
		k("pfx-frombase64string-powershell", "a PFX in a PowerShell [Convert]::FromBase64String literal (text written here)", 3, func(g *gen, i int) (string, string) {
			p := b6b64body(g, "MIIKSQIBAzCCCg8GCSqGSIb3DQEHAaCCCgAEggn8MIIJ+DCCBK8GCSqGSIb3DQEHBqCCBKAwggScAgEAMIIElQYJKoZIhvcNAQcBMBwGCiqGSIb3DQEMAQYwDgQI", 900)
			return []string{
				"$bytes = [Convert]::FromBase64String('" + p + "')\n$cert = [System.Security.Cryptography.X509Certificates.X509Certificate2]::new($bytes, 'export', 'Exportable')",
				"PS> [IO.File]::WriteAllBytes('C:\\certs\\api.pfx', [Convert]::FromBase64String(\"" + p + "\"))",
				"# install-cert.ps1\n$pfxB64 = @'\n" + p + "\n'@",
			}[i], p
		}),
		k("jceks-echo-base64-decode", "a JCEKS keystore (magic zs7Ozg) echoed through base64 -d in a CI step (text written here)", 3, func(g *gen, i int) (string, string) {
			p := b6b64body(g, "zs7OzgAAAAIAAAABAAAAAwAHc2lnbmluZwAAAY", 700)
			return []string{
				"- name: Decode keystore\n  run: echo '" + p + "' | base64 -d > app/signing.jceks",
				"+ echo " + p + "\n+ base64 --decode\n+ ls -la signing.jceks",
				"printf '%s' '" + p + "' | base64 -D -o upload-keystore.jceks",
			}[i], p
		}),
		k("wireguard-k8s-secret-wg0-conf", "a WireGuard private key in a Kubernetes Secret's stringData wg0.conf (text written here)", 3, func(g *gen, i int) (string, string) {
			key := base64.StdEncoding.EncodeToString(g.bytes(32))
			return fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: wg-gw-%d\ntype: Opaque\nstringData:\n  wg0.conf: |\n    [Interface]\n    Address = 10.13.%d.1/24\n    ListenPort = 51820\n    PrivateKey = %s\n    [Peer]\n    PublicKey = %s\n    AllowedIPs = 10.13.%d.2/32", i, i, key, base64.StdEncoding.EncodeToString(g.bytes(32)), i), key
		}),
		k("age-secret-key-lowercased", "an age identity written in lower case (bech32 is case-blind) in a note, a script or a chat (text written here)", 3, func(g *gen, i int) (string, string) {
			key := "age-secret-key-1" + g.s(bech32, 58)
			return []string{
				"# created: 2026-11-02T10:11:12Z\n# public key: age1" + g.s(bech32, 58) + "\n" + key,
				"export SOPS_AGE_KEY=" + key,
				"fyi the age key for the backups repo is " + key + " (lowercase is fine, age accepts it)",
			}[i], key
		}),
		k("tor-add-onion-control-command", "an onion service's ED25519-V3 key in a Tor control-port ADD_ONION command (text written here)", 3, func(g *gen, i int) (string, string) {
			key := base64.StdEncoding.EncodeToString(g.bytes(64))
			return []string{
				"$ printf 'AUTHENTICATE \"\"\\r\\nADD_ONION ED25519-V3:" + key + " Port=80,127.0.0.1:8080\\r\\n' | nc 127.0.0.1 9051",
				"controller.create_ephemeral_hidden_service({80: 5000}, key_type='ED25519-V3', key_content='" + key + "', await_publication=True)",
				"250-ServiceID=" + g.s("abcdefghijklmnopqrstuvwxyz234567", 56) + "\n250-PrivateKey=ED25519-V3:" + key + "\n250 OK",
			}[i], key
		}),
		k("openssh-body-quoted-gt", "an OpenSSH private key quoted in a mail or markdown reply, each line after '> ' (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadSSHEd, 396), 70), "\n> ")
			return []string{
				"On Tue, Nov 24, 2026 at 9:02 AM Dana wrote:\n> here's the deploy key\n> -----BEGIN OPENSSH PRIVATE KEY-----\n> " + body + "\n> -----END OPENSSH PRIVATE KEY-----\nthanks, installed it",
				"> -----BEGIN OPENSSH PRIVATE KEY-----\n> " + body + "\n> -----END OPENSSH PRIVATE KEY-----\n\nis this the right format for the CI variable?",
				">> " + strings.ReplaceAll(body, "\n> ", "\n>> ") + "\n> did you mean this one?\nyes",
			}[i], map[bool]string{true: strings.ReplaceAll(body, "\n> ", "\n>> "), false: body}[i == 2]
		}),
		k("pkcs8-body-line-numbered", "a PKCS#8 key body shown with line numbers, as an editor or a file viewer prints it (text written here)", 3, func(g *gen, i int) (string, string) {
			lines := b6lines(b6b64body(g, b6LeadRSA8, 640), 64)
			for j := range lines {
				lines[j] = fmt.Sprintf("%d: %s", j+2, lines[j])
			}
			label := strings.TrimPrefix(strings.Join(lines, "\n"), "2: ")
			return []string{
				"1: -----BEGIN PRIVATE KEY-----\n2: " + label + fmt.Sprintf("\n%d: -----END PRIVATE KEY-----", len(lines)+2),
				"certs/server.key\n1: -----BEGIN PRIVATE KEY-----\n2: " + label,
				"see lines 2-" + fmt.Sprintf("%d", len(lines)+1) + " below\n1: -----BEGIN PRIVATE KEY-----\n2: " + label + fmt.Sprintf("\n%d: -----END PRIVATE KEY-----", len(lines)+2),
			}[i], label
		}),
		k("rsa-body-crlf-lines", "an RSA PKCS#1 key whose lines end in CRLF, pasted from a Windows file (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadRSA1, 900), 64), "\r\n")
			return []string{
				"-----BEGIN RSA PRIVATE KEY-----\r\n" + body + "\r\n-----END RSA PRIVATE KEY-----\r\n",
				"type C:\\keys\\id_rsa\r\n-----BEGIN RSA PRIVATE KEY-----\r\n" + body + "\r\n-----END RSA PRIVATE KEY-----",
				"key.pem (CRLF, git says it changed):\r\n" + body,
			}[i], body
		}),
		k("ec-key-spaced-every-4", "an EC private key body written in groups of four characters, as a key printed for typing (text written here)", 3, func(g *gen, i int) (string, string) {
			raw := b6b64body(g, b6LeadEC, 164)
			var groups []string
			for j := 0; j < len(raw); j += 4 {
				groups = append(groups, raw[j:min(j+4, len(raw))])
			}
			var lines []string
			for j := 0; j < len(groups); j += 12 {
				lines = append(lines, strings.Join(groups[j:min(j+12, len(groups))], " "))
			}
			label := strings.Join(lines, "\n")
			return []string{
				"-----BEGIN EC PRIVATE KEY-----\n" + label + "\n-----END EC PRIVATE KEY-----\n(remove the spaces)",
				"paper backup of the signing key, type it back without spaces:\n" + label,
				"key:\n" + label + "\nchecksum: ok",
			}[i], label
		}),
		k("gpg-armor-header-lowercased", "a PGP private key block whose armor lines were lower-cased or re-cased by a tool (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadPGP, 520), 64), "\n")
			head := []string{"-----begin pgp private key block-----", "-----Begin Pgp Private Key Block-----", "----- BEGIN PGP PRIVATE KEY BLOCK -----"}[i]
			tail := []string{"-----end pgp private key block-----", "-----End Pgp Private Key Block-----", "----- END PGP PRIVATE KEY BLOCK -----"}[i]
			return head + "\n\n" + body + "\n=" + g.s(b64std, 4) + "\n" + tail, body
		}),
		k("pem-header-two-dashes", "a private key whose BEGIN and END lines a chat app cut to two dashes (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadP8Ed, 64), 64), "\n")
			if i == 1 {
				body = strings.Join(b6lines(b6b64body(g, b6LeadRSA1, 640), 64), "\n")
			}
			kind := []string{"PRIVATE KEY", "RSA PRIVATE KEY", "PRIVATE KEY"}[i]
			return []string{
				"--BEGIN " + kind + "--\n" + body + "\n--END " + kind + "--",
				"---BEGIN " + kind + "---\n" + body + "\n---END " + kind + "---",
				"-- BEGIN " + kind + " --\n" + body + "\n-- END " + kind + " --",
			}[i], body
		}),
		k("pem-truncated-no-end", "a private key pasted cut off before its END line (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadRSA8, 384), 64), "\n")
			return []string{
				"-----BEGIN PRIVATE KEY-----\n" + body + "\n… (message too long, rest in the next one)",
				"can't paste the whole thing, slack cuts it:\n-----BEGIN PRIVATE KEY-----\n" + body,
				"-----BEGIN PRIVATE KEY-----\n" + body + "\n[truncated 1220 bytes]",
			}[i], body
		}),
		k("java-properties-continued-pem", "a PEM body in a Java .properties value continued with backslashes (text written here)", 3, func(g *gen, i int) (string, string) {
			lines := b6lines(b6b64body(g, b6LeadP8EC, 184), 64)
			label := strings.Join(lines, "\\\n    ")
			return []string{
				"jwt.signing.key=-----BEGIN PRIVATE KEY-----\\\n    " + label + "\\\n    -----END PRIVATE KEY-----",
				"# application.properties\nsaml.sp.private-key=" + label,
				"apns.auth.key = " + label + "\napns.key.id = 8ZX4QK2M3P",
			}[i], label
		}),
		k("gcp-sa-json-in-hcl-heredoc", "a service account JSON in a Terraform heredoc, its private_key escaped (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadRSA8, 640), 64), `\n`)
			return fmt.Sprintf("provider \"google\" {\n  project     = \"acme-prod-%d\"\n  credentials = <<EOF\n{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-prod-%d\",\n  \"private_key_id\": \"%s\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n%s\\n-----END PRIVATE KEY-----\\n\",\n  \"client_email\": \"tf@acme-prod-%d.iam.gserviceaccount.com\"\n}\nEOF\n}", i, i, g.s(hexlc, 40), body, i), body
		}),
		k("apple-asc-p8-in-fastlane-json", "an App Store Connect API key (.p8) in fastlane's api_key JSON (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadP8EC, 184), 64), `\n`)
			kid := g.s(b6UpD, 10)
			return []string{
				"{\n  \"key_id\": \"" + kid + "\",\n  \"issuer_id\": \"" + b6uuid(g) + "\",\n  \"key\": \"-----BEGIN PRIVATE KEY-----\\n" + body + "\\n-----END PRIVATE KEY-----\",\n  \"in_house\": false\n}",
				"app_store_connect_api_key(key_id: \"" + kid + "\", issuer_id: \"" + b6uuid(g) + "\", key_content: \"-----BEGIN PRIVATE KEY-----\\n" + body + "\\n-----END PRIVATE KEY-----\")",
				"APP_STORE_CONNECT_API_KEY_KEY=\"-----BEGIN PRIVATE KEY-----\\n" + body + "\\n-----END PRIVATE KEY-----\"",
			}[i], body
		}),
		k("k8s-encryption-config-aescbc-secret", "a Kubernetes EncryptionConfiguration's aescbc or secretbox key (text written here)", 3, func(g *gen, i int) (string, string) {
			key := base64.StdEncoding.EncodeToString(g.bytes(32))
			prov := []string{"aescbc", "secretbox", "aesgcm"}[i]
			return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources:\n      - secrets\n    providers:\n      - " + prov + ":\n          keys:\n            - name: key" + fmt.Sprint(i+1) + "\n              secret: " + key + "\n      - identity: {}", key
		}),
		k("phoenix-secret-key-base-runtime-exs", "an Elixir Phoenix endpoint's secret_key_base or signing salt written in config (text written here)", 3, func(g *gen, i int) (string, string) {
			key := g.s(alnum+"+/", 64)
			return []string{
				"config :acme, AcmeWeb.Endpoint,\n  url: [host: \"acme.test\"],\n  secret_key_base: \"" + key + "\"",
				"# config/runtime.exs\nsecret_key_base =\n  System.get_env(\"SECRET_KEY_BASE\") ||\n    \"" + key + "\"",
				"$ mix phx.gen.secret\n" + key,
			}[i], key
		}),
		k("keycloak-realm-component-privatekey", "an RSA key in a Keycloak realm export's rsa-generated component (text written here)", 3, func(g *gen, i int) (string, string) {
			body := b6b64body(g, b6LeadRSA1, 1588)
			return fmt.Sprintf("\"components\": {\n  \"org.keycloak.keys.KeyProvider\": [{\n    \"name\": \"rsa-generated\",\n    \"providerId\": \"rsa-generated\",\n    \"config\": {\n      \"privateKey\": [\"%s\"],\n      \"certificate\": [\"MIICrzCCAZcCBgGM%s\"],\n      \"priority\": [\"%d\"]\n    }\n  }]\n}", body, g.s(b64std, 60), 100+i), body
		}),
		k("notary-dct-root-key", "a Docker Content Trust (notary) encrypted root key file with its role header (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, "MIHuMEkGCSqGSIb3DQEFDTA8MBsGCSqGSIb3DQEFDDAOBAg", 320), 64), "\n")
			role := []string{"root", "targets", "root"}[i]
			return "-----BEGIN ENCRYPTED PRIVATE KEY-----\nrole: " + role + "\n\n" + body + "\n-----END ENCRYPTED PRIVATE KEY-----", body
		}),
		k("kubeadm-certificate-key-hex", "kubeadm's --certificate-key (the key of the uploaded control-plane certs) (text written here)", 3, func(g *gen, i int) (string, string) {
			key := g.s(hexlc, 64)
			return []string{
				"[upload-certs] Using certificate key:\n" + key,
				"kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:" + g.s(hexlc, 64) + " --control-plane --certificate-key " + key,
				"controlPlane:\n  certificateKey: \"" + key + "\"",
			}[i], key
		}),
		k("foundry-private-key-flag", "an Ethereum key on a Foundry or Hardhat command line or config (text written here)", 3, func(g *gen, i int) (string, string) {
			key := "0x" + g.s(hexlc, 64)
			return []string{
				"forge script script/Deploy.s.sol --rpc-url $SEPOLIA_RPC --private-key " + key + " --broadcast",
				"cast send 0x5FbDB2315678afecb367f032d93F642f64180aa3 \"mint(uint256)\" 1 --private-key " + key,
				"networks: { sepolia: { url: process.env.RPC, accounts: [\"" + key + "\"] } }",
			}[i], key
		}),
		k("sui-bech32-privkey", "a Sui wallet's suiprivkey1 secret in a keystore, a CLI output or a chat (text written here)", 3, func(g *gen, i int) (string, string) {
			key := "suiprivkey1q" + g.s(bech32, 58)
			return []string{
				"╭────────────────┬──────────────────────────╮\n│ exportedPrivateKey │ " + key + " │\n╰────────────────┴──────────────────────────╯",
				"[\n  \"" + key + "\"\n]",
				"import it with sui keytool import " + key + " ed25519",
			}[i], key
		}),
		k("aptos-config-yaml-private-key", "an Aptos CLI profile's private_key in .aptos/config.yaml (text written here)", 3, func(g *gen, i int) (string, string) {
			key := []string{"0x", "ed25519-priv-0x", "0x"}[i] + g.s(hexlc, 64)
			return fmt.Sprintf("---\nprofiles:\n  default:\n    network: Testnet\n    private_key: \"%s\"\n    public_key: \"0x%s\"\n    account: %s", key, g.s(hexlc, 64), g.s(hexlc, 64)), key
		}),
		k("near-credentials-json-ed25519", "a NEAR account's ed25519:<base58> private key in ~/.near-credentials JSON (text written here)", 3, func(g *gen, i int) (string, string) {
			key := "ed25519:" + g.s(b6B58, 88)
			return fmt.Sprintf("{\"account_id\":\"acme-%d.testnet\",\"public_key\":\"ed25519:%s\",\"private_key\":\"%s\"}", i, g.s(b6B58, 44), key), key
		}),
		k("hedera-der-hex-privkey", "a Hedera account's DER-encoded Ed25519 private key in hex (302e0201…) (text written here)", 3, func(g *gen, i int) (string, string) {
			key := "302e020100300506032b657004220420" + g.s(hexlc, 64)
			return []string{
				"OPERATOR_ID=0.0.4" + g.s(b6Dig, 5) + "\nOPERATOR_KEY=" + key,
				"client.setOperator(AccountId.fromString(\"0.0.4821\"), PrivateKey.fromStringDer(\"" + key + "\"));",
				"DER Encoded Private Key: " + key,
			}[i], key
		}),
		k("lotus-wallet-export-hex", "a Filecoin lotus wallet export: hex of a JSON key info (text written here)", 3, func(g *gen, i int) (string, string) {
			ki := `{"Type":"secp256k1","PrivateKey":"` + base64.StdEncoding.EncodeToString(g.bytes(32)) + `"}`
			key := hex.EncodeToString([]byte(ki))
			return []string{
				"$ lotus wallet export f1" + g.s(b6LoD, 39) + "\n" + key,
				"lotus wallet import <<< " + key,
				"exported wallet (keep safe): " + key,
			}[i], key
		}),
		k("ton-wallet-24-words", "a TON wallet's 24-word mnemonic, numbered, in a note (text written here)", 3, func(g *gen, i int) (string, string) {
			ws := []string{"abandon", "ability", "absorb", "access", "across", "actor", "adapt", "advice", "afford", "agent", "album", "alley", "amount", "anchor", "ankle", "apology", "arena", "armor", "arrow", "asset", "audit", "avocado", "badge", "balcony", "bamboo", "barrel", "basket", "beacon", "bicycle", "blanket", "bottom", "bracket"}
			var p []string
			for range 24 {
				p = append(p, g.pick(ws...))
			}
			var numbered []string
			for j, w := range p {
				numbered = append(numbered, fmt.Sprintf("%d. %s", j+1, w))
			}
			label := strings.Join(p, " ")
			return []string{
				"Tonkeeper recovery phrase: " + label,
				"TON_MNEMONIC=\"" + label + "\"",
				"{\"wallet\":\"v4R2\",\"mnemonic\":\"" + label + "\"}\n" + strings.Join(numbered[:3], " "),
			}[i], label
		}),
		k("cloud-init-ssh-keys-ed25519-private", "a host key in cloud-init's ssh_keys: ed25519_private block (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadSSHEd, 396), 70), "\n    ")
			return "#cloud-config\nssh_keys:\n  ed25519_private: |\n    -----BEGIN OPENSSH PRIVATE KEY-----\n    " + body + "\n    -----END OPENSSH PRIVATE KEY-----\n  ed25519_public: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g.s(b64std, 43) + " root@node" + fmt.Sprint(i), body
		}),
		k("dmsetup-table-crypt-key", "a dm-crypt master key printed by dmsetup table --showkeys or in a crypt target line (text written here)", 3, func(g *gen, i int) (string, string) {
			key := g.s(hexlc, []int{64, 128, 128}[i])
			return []string{
				"# dmsetup table --showkeys cryptdata\n0 976773120 crypt aes-xts-plain64 " + key + " 0 8:17 4096",
				"echo \"0 $(blockdev --getsz /dev/sdb) crypt aes-xts-plain64 " + key + " 0 /dev/sdb 0\" | dmsetup create vault",
				"luks2 dump:\n\tMK dump:\t" + key,
			}[i], key
		}),
		k("secretsdump-ntlm-hash", "an NT hash (pass-the-hash credential) in secretsdump-like output or a command (text written here)", 3, func(g *gen, i int) (string, string) {
			nt := g.s(hexlc, 32)
			return []string{
				"[*] Dumping local SAM hashes (uid:rid:lmhash:nthash)\nAdministrator:500:aad3b435b51404eeaad3b435b51404ee:" + nt + ":::\nGuest:501:aad3b435b51404eeaad3b435b51404ee:31d6cfe0d16ae931b73c59d7e0c089c0:::",
				"evil-winrm -i 10.0.0.20 -u Administrator -H " + nt,
				"svc_sql NTLM: " + nt,
			}[i], nt
		}),
		k("rubeus-kirbi-base64", "a Kerberos ticket (kirbi, base64 doIF…) printed by a tool (text written here)", 3, func(g *gen, i int) (string, string) {
			t := b6b64body(g, "doIF", 1200)
			return []string{
				"[*] base64(ticket.kirbi):\n\n      " + t + "\n",
				"Rubeus.exe ptt /ticket:" + t,
				"TGT for svc_web@ACME.TEST:\n" + t,
			}[i], t
		}),
		k("openvpn-tls-crypt-v2-client-key", "an OpenVPN tls-crypt-v2 client key block inline in a profile (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, "", 512), 64), "\n")
			return "client\nremote vpn.acme.test 1194 udp\n<tls-crypt-v2>\n-----BEGIN OpenVPN tls-crypt-v2 client key-----\n" + body + "\n-----END OpenVPN tls-crypt-v2 client key-----\n</tls-crypt-v2>", body
		}),
		k("headscale-noise-private-key", "a Headscale or Tailscale-style privkey:<hex> key file or config value (text written here)", 3, func(g *gen, i int) (string, string) {
			key := "privkey:" + g.s(hexlc, 64)
			return []string{
				"$ cat /var/lib/headscale/noise_private.key\n" + key,
				"noise:\n  private_key_path: /var/lib/headscale/noise_private.key\n# contents: " + key,
				"derp:\n  server:\n    private_key: " + key,
			}[i], key
		}),
		k("openssl-rsa-text-private-exponent", "the privateExponent of openssl rsa -text output, colon hex (text written here)", 3, func(g *gen, i int) (string, string) {
			d := b6hexColons(g, 256)
			return "Private-Key: (2048 bit, 2 primes)\nmodulus:\n    00:" + g.s(hexlc, 2) + ":" + g.s(hexlc, 2) + ":...\npublicExponent: 65537 (0x10001)\nprivateExponent:\n    " + d + "\nprime1:\n    00:e1:...", d
		}),
		k("openssl-ec-text-priv", "the priv: field of openssl ec or pkey -text output, colon hex (text written here)", 3, func(g *gen, i int) (string, string) {
			d := b6hexColons(g, 32)
			curve := []string{"prime256v1", "secp384r1", "ED25519"}[i]
			return "Private-Key: (256 bit)\npriv:\n    " + d + "\npub:\n    04:" + g.s(hexlc, 2) + ":" + g.s(hexlc, 2) + ":...\nASN1 OID: " + curve, d
		}),
		k("ssh-key-markdown-indented-block", "an OpenSSH key body in a four-space-indented markdown block (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadSSHEd, 396), 70), "\n    ")
			return []string{
				"Steps:\n\n1. save this as `~/.ssh/ci`:\n\n    -----BEGIN OPENSSH PRIVATE KEY-----\n    " + body + "\n    -----END OPENSSH PRIVATE KEY-----\n\n2. chmod 600 it",
				"README.md (old revision):\n\n    " + body,
				"Deploy key\n----------\n\n    " + body + "\n\nDon't commit this file.",
			}[i], body
		}),
		k("pgp-key-in-html-pre", "a PGP private key body in an HTML <pre> with <br> line breaks (text written here)", 3, func(g *gen, i int) (string, string) {
			body := strings.Join(b6lines(b6b64body(g, b6LeadPGP, 448), 64), "<br>")
			return "<pre>-----BEGIN PGP PRIVATE KEY BLOCK-----<br><br>" + body + "<br>=" + g.s(b64std, 4) + "<br>-----END PGP PRIVATE KEY BLOCK-----</pre>", body
		}),
		k("ed25519-seed-in-nix-string", "an Ed25519 seed as base64 in a Nix attribute or a JSON secret for a signing service (text written here)", 3, func(g *gen, i int) (string, string) {
			seed := base64.StdEncoding.EncodeToString(g.bytes(32))
			return []string{
				"services.nix-serve.secretKeyFile = pkgs.writeText \"cache-key\" \"cache.acme.test-1:" + seed + "\";",
				"{\"signing\": {\"alg\": \"Ed25519\", \"seed\": \"" + seed + "\"}}",
				"[signer]\nalgorithm = \"ed25519\"\nseed = \"" + seed + "\"",
			}[i], seed
		}),
	}
}

// --- encoded: secrets under an encoding a careful reader could undo ---

func b6utf16le(s string) []byte {
	var b []byte
	for _, r := range s {
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
	}
	return b
}

func b6bytesJoin(s, format, sep string) string {
	var parts []string
	for _, c := range []byte(s) {
		parts = append(parts, fmt.Sprintf(format, c))
	}
	return strings.Join(parts, sep)
}

// b6crockford is Crockford's base32 of s, grouped by dashes of five.
func b6crockford(s string) string {
	const a = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var out []byte
	var acc, bits uint
	for _, c := range []byte(s) {
		acc = acc<<8 | uint(c)
		bits += 8
		for bits >= 5 {
			out = append(out, a[(acc>>(bits-5))&31])
			bits -= 5
		}
	}
	if bits > 0 {
		out = append(out, a[(acc<<(5-bits))&31])
	}
	var groups []string
	for i := 0; i < len(out); i += 5 {
		groups = append(groups, string(out[i:min(i+5, len(out))]))
	}
	return strings.Join(groups, "-")
}

var b6morseTab = map[rune]string{'a': ".-", 'b': "-...", 'c': "-.-.", 'd': "-..", 'e': ".", 'f': "..-.", 'g': "--.", 'h': "....",
	'i': "..", 'j': ".---", 'k': "-.-", 'l': ".-..", 'm': "--", 'n': "-.", 'o': "---", 'p': ".--.", 'q': "--.-", 'r': ".-.",
	's': "...", 't': "-", 'u': "..-", 'v': "...-", 'w': ".--", 'x': "-..-", 'y': "-.--", 'z': "--..", '0': "-----",
	'1': ".----", '2': "..---", '3': "...--", '4': "....-", '5': ".....", '6': "-....", '7': "--...", '8': "---..", '9': "----."}

func b6morse(s string) string {
	var parts []string
	for _, r := range strings.ToLower(s) {
		parts = append(parts, b6morseTab[r])
	}
	return strings.Join(parts, " ")
}

// b6utf7 is s in UTF-7 with every character in one base64 run, as a mail or IMAP folder name
// would hold it.
func b6utf7(s string) string {
	e := base64.RawStdEncoding.EncodeToString(utf16be(s))
	return "+" + e + "-"
}

func utf16be(s string) []byte {
	var b []byte
	for _, r := range s {
		b = binary.BigEndian.AppendUint16(b, uint16(r))
	}
	return b
}

// b6yencLatin1 is yEnc of s (each byte plus 42, critical bytes escaped with = and plus 64), shown
// as a Latin-1 viewer shows the bytes.
func b6yencLatin1(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		o := c + 42
		if o == 0 || o == '\n' || o == '\r' || o == '=' {
			b.WriteRune('=')
			o += 64
		}
		b.WriteRune(rune(o))
	}
	return b.String()
}

func b6Encoded() []b3Kind {
	e := func(name, source string, plain func(*gen) string, enc func(*gen, string) string, texts ...string) b3Kind {
		return b6e("encoded", name, source, plain, enc, texts...)
	}
	pw := b6pw
	alnumPw := func(g *gen) string { return g.s(alnum, 14+g.rng.IntN(4)) }
	b64 := func(_ *gen, s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	env := func(g *gen) string {
		return "DB_HOST=db.internal\nDB_USER=app\nDB_PASSWORD=" + b6pw(g) + "\nSTRIPE_KEY=sk_live_" + g.s(alnum, 24) + "\n"
	}
	return []b3Kind{
		e("yenc-latin1-view", "a yEnc-encoded credential line seen in a Latin-1 view (text written here)", func(g *gen) string { return "admin:" + alnumPw(g) }, func(_ *gen, s string) string { return b6yencLatin1(s) },
			"=ybegin line=128 size=22 name=creds.txt\n{S}\n=yend size=22",
			"yenc part from the newsgroup dump:\n=ybegin line=128 size=24 name=login.txt\n{S}\n=yend",
			"{S}  <- that's the yEnc'd login, decode with yydecode"),
		e("reg-binary-utf16le-hex", "a password stored as REG_BINARY hex of UTF-16LE in a reg query output or a .reg file (text written here)", pw, func(_ *gen, s string) string { return hex.EncodeToString(b6utf16le(s)) },
			"HKEY_LOCAL_MACHINE\\SOFTWARE\\Acme\\Agent\n    ProxyPassword    REG_BINARY    {S}",
			"reg query HKLM\\SOFTWARE\\Acme\\Sync /v Secret\n    Secret    REG_BINARY    {S}",
			"\"ServicePassword\"=hex-utf16:{S}"),
		e("base64-utf16le-config-value", "a password as base64 of its UTF-16LE bytes in a .NET config or a script (text written here)", pw, func(_ *gen, s string) string { return base64.StdEncoding.EncodeToString(b6utf16le(s)) },
			"\"Smtp\": { \"User\": \"mailer\", \"PasswordUtf16B64\": \"{S}\" }",
			"$pw = [Text.Encoding]::Unicode.GetString([Convert]::FromBase64String('{S}'))",
			"<add key=\"SqlPwdEncoded\" value=\"{S}\" /> <!-- Encoding.Unicode -->"),
		e("iis-percent-u-encoding", "a password in %u00XX encoding (IIS, JavaScript escape() style) in a request (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "%%u%04X", "") },
			"GET /legacy/login.asp?user=jdoe&pass={S} HTTP/1.1",
			"POST /api/auth body: u=svc&p={S}",
			"unescape('{S}')"),
		e("kotlin-bytearrayof-hex", "a password as Kotlin byteArrayOf(0x..) (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "0x%02X", ", ") },
			"private val storePass = String(byteArrayOf({S}))",
			"val pw = byteArrayOf({S}).decodeToString()",
			"object Keys { val SIGNING = byteArrayOf({S}) }"),
		e("csharp-new-byte-array-hex", "a secret as a C# new byte[] { 0x.. } (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "0x%02X", ", ") },
			"private static readonly byte[] Secret = new byte[] { {S} };",
			"var pw = Encoding.ASCII.GetString(new byte[] { {S} });",
			"byte[] k = { {S} };"),
		e("elixir-binary-decimal", "a password as an Elixir or Erlang binary of decimal bytes (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "%d", ", ") },
			"@db_password <<{S}>>",
			"password: <<{S}>>,",
			"iex> <<{S}>>"),
		e("lua-string-char-codes", "a password built with Lua string.char(...) (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "%d", ",") },
			"local pass = string.char({S})",
			"redis.call('AUTH', string.char({S}))",
			"cfg.password = string.char({S}) -- obfuscated"),
		e("perl-pack-hstar", "a password as the hex argument of Perl pack(\"H*\", ...) (text written here)", pw, func(_ *gen, s string) string { return hex.EncodeToString([]byte(s)) },
			"my $pw = pack(\"H*\", \"{S}\");",
			"$dbh = DBI->connect($dsn, 'app', pack('H*', '{S}'));",
			"perl -e 'print pack(\"H*\",\"{S}\")' | passwd --stdin deploy"),
		e("ruby-pack-c-star", "a password as a Ruby [..].pack('C*') of decimal bytes (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "%d", ", ") },
			"PASSWORD = [{S}].pack('C*')",
			"config.password = [{S}].pack(\"c*\")",
			"irb> [{S}].pack('U*')"),
		e("tsql-varbinary-literal", "a password as a T-SQL 0x varbinary cast to varchar (text written here)", pw, func(_ *gen, s string) string { return "0x" + strings.ToUpper(hex.EncodeToString([]byte(s))) },
			"ALTER LOGIN app WITH PASSWORD = CONVERT(varchar(64), {S});",
			"SELECT CAST({S} AS varchar(64)) AS pwd;",
			"EXEC sp_addlinkedsrvlogin 'ERP', 'false', NULL, 'erp_ro', {S};"),
		e("postgres-decode-hex", "a password as PostgreSQL decode('..', 'hex') or a bytea '\\x..' literal (text written here)", pw, func(_ *gen, s string) string { return hex.EncodeToString([]byte(s)) },
			"ALTER ROLE report PASSWORD convert_from(decode('{S}', 'hex'), 'UTF8');",
			"INSERT INTO secrets(name, value) VALUES ('smtp', '\\x{S}'::bytea);",
			"select convert_from('\\x{S}'::bytea, 'utf8');"),
		e("mysql-unhex-literal", "a password as MySQL UNHEX('..') (text written here)", pw, func(_ *gen, s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
			"CREATE USER 'etl'@'%' IDENTIFIED BY UNHEX('{S}');",
			"UPDATE integrations SET api_secret = UNHEX('{S}') WHERE id = 7;",
			"mysql> SELECT CAST(UNHEX('{S}') AS CHAR);"),
		e("oracle-hextoraw-cast", "a password as Oracle UTL_RAW.CAST_TO_VARCHAR2(HEXTORAW('..')) (text written here)", pw, func(_ *gen, s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
			"v_pwd := UTL_RAW.CAST_TO_VARCHAR2(HEXTORAW('{S}'));",
			"SELECT UTL_RAW.CAST_TO_VARCHAR2(HEXTORAW('{S}')) FROM dual;",
			"-- wallet pwd: HEXTORAW('{S}')"),
		e("percent-encoded-utf8-password", "a non-ASCII password percent-encoded as UTF-8 in a URL (text written here)", b6native("Grüße", "Pâtisserie", "Ñandú", "Čokoláda", "Łódź", "Şehir"), func(_ *gen, s string) string {
			var b strings.Builder
			for _, c := range []byte(s) {
				if c >= 0x80 || strings.IndexByte("!#%+=@:,^~", c) >= 0 {
					fmt.Fprintf(&b, "%%%02X", c)
				} else {
					b.WriteByte(c)
				}
			}
			return b.String()
		},
			"postgres://app:{S}@db.acme.test:5432/shop",
			"amqps://worker:{S}@mq.acme.test/vhost",
			"https://webdav:{S}@files.acme.test/remote.php/dav/"),
		e("markdown-escaped-password", "a password whose markdown characters were backslash-escaped by an editor (text written here)", func(g *gen) string {
			return g.s(b6Lo, 3) + "_" + g.s(alnum, 4) + "*" + g.s(alnum, 4) + "_" + g.s(b6Dig, 3)
		}, func(_ *gen, s string) string { return strings.NewReplacer("_", "\\_", "*", "\\*").Replace(s) },
			"**Password:** {S}",
			"| admin | {S} |",
			"new password for the shared mailbox is {S} (ignore the backslashes, Notion adds them)"),
		e("css-escape-sequences", "a token written as CSS hex escapes in a stylesheet content property (text written here)", alnumPw, func(_ *gen, s string) string { return b6bytesJoin(s, "\\%x ", "") },
			".debug::after { content: \"{S}\"; }",
			"/* api key */ --k: \"{S}\";",
			"<style>#k:before{content:\"{S}\"}</style>"),
		e("js-unicode-brace-escapes", "a secret written as ES2015 \\u{..} escapes (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "\\u{%x}", "") },
			"const token = \"{S}\";",
			"headers: { 'X-Key': `{S}` }",
			"let pw = \"{S}\"; // rust: same literal works"),
		e("triple-escaped-json-credentials", "a password holding quotes and backslashes, JSON-escaped three times (JSON in JSON in a log) (text written here)", func(g *gen) string {
			return g.s(alnum, 5) + "\"" + g.s(alnum, 4) + "\\" + g.s(alnum, 5)
		}, func(_ *gen, s string) string { return b6jsonEsc(b6jsonEsc(b6jsonEsc(s))) },
			"{\"log\":\"{\\\"msg\\\":\\\"{\\\\\\\"password\\\\\\\":\\\\\\\"{S}\\\\\\\"}\\\"}\"}",
			"event=\"{\\\"body\\\":\\\"{\\\\\\\"secret\\\\\\\":\\\\\\\"{S}\\\\\\\"}\\\"}\"",
			"payload: {S}"),
		e("base32hex-encoded-password", "a password in RFC 4648 base32hex (0-9A-V) (text written here)", pw, func(_ *gen, s string) string { return b6base32hex(s) },
			"PASS_B32HEX={S}",
			"decode with base32 --base32hex: {S}",
			"\"password\": { \"enc\": \"base32hex\", \"v\": \"{S}\" }"),
		e("crockford-base32-token", "a token shown in Crockford base32 groups, as a licence or recovery key (text written here)", alnumPw, func(_ *gen, s string) string { return b6crockford(s) },
			"Your activation key: {S}",
			"license_key = \"{S}\"",
			"recovery code (Crockford): {S}"),
		e("morse-code-spelled-password", "a lower-case password spelled in Morse code as a joke in chat (text written here)", func(g *gen) string { return g.s(b6LoD, 10) }, func(_ *gen, s string) string { return b6morse(s) },
			"not typing it in clear lol: {S}",
			"pw in morse so the bot doesn't catch it → {S}",
			"{S} (morse, you know what it is)"),
		e("hexdump-canonical-secret-line", "the hex column of a hexdump -C line holding a password (text written here)", func(g *gen) string { return g.s(alnum, 16) }, func(_ *gen, s string) string {
			h := b6bytesJoin(s, "%02x", " ")
			return h[:23] + "  " + h[24:]
		},
			"$ hexdump -C .env | head -3\n00000000  53 4d 54 50 5f 50 41 53  53 57 4f 52 44 20 3d 20  |SMTP_PASSWORD = |\n00000010  {S}  |................|",
			"00000000  72 6f 6f 74 5f 70 61 73  73 77 6f 72 64 3a 20 20  |root_password:  |\n00000010  {S}  |................|\n00000020  0a                                                |.|",
			"hexdump of the token file:\n00000000  {S}  |................|"),
		e("excel-char-concat-formula", "a password hidden in a spreadsheet formula of CHAR() codes (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "CHAR(%d)", "&") },
			"=CONCATENATE(\"\",{S})",
			"B7: ={S}",
			"the cell with the vpn pw is just ={S}"),
		e("vbscript-chr-concat", "a password built with VBScript Chr() & concatenation (text written here)", pw, func(_ *gen, s string) string { return b6bytesJoin(s, "Chr(%d)", " & ") },
			"strPass = {S}",
			"objConn.Open \"Provider=SQLOLEDB;Data Source=SQL01;User ID=sa;Password=\" & {S}",
			"WshShell.SendKeys {S}"),
		e("powershell-char-array-join", "a password as PowerShell -join [char[]](..) (text written here)", pw, func(_ *gen, s string) string { return "-join [char[]](" + b6bytesJoin(s, "%d", ",") + ")" },
			"$p = {S}",
			"$cred = New-Object PSCredential('svc', (ConvertTo-SecureString ({S}) -AsPlainText -Force))",
			"Invoke-Sqlcmd -ServerInstance SQL02 -Username etl -Password ({S})"),
		e("utf7-encoded-password", "a password in UTF-7 (+...-) as a mail header or an IMAP tool shows it (text written here)", pw, func(_ *gen, s string) string { return b6utf7(s) },
			"Subject: new login =?UTF-7?Q?{S}?=",
			"password (utf-7 from the old exchange export): {S}",
			"X-Acme-Temp-Pass: {S}"),
		e("interleaved-dots-password", "a password with a dot between every character, so a bot would not match it (text written here)", func(g *gen) string { return g.s(alnum, 12) }, func(_ *gen, s string) string { return strings.Join(strings.Split(s, ""), ".") },
			"pw (remove the dots): {S}",
			"{S} ← without the dots",
			"the code is {S} minus the periods"),
		e("base64-wrapped-64-env-file", "a .env file in base64 wrapped at 64 characters, as base64 -w 64 writes it (text written here)", env, func(_ *gen, s string) string {
			return strings.Join(b6lines(base64.StdEncoding.EncodeToString([]byte(s)), 64), "\n")
		},
			"ENV_FILE_B64: |\n{S}",
			"$ base64 -w 64 .env.production\n{S}",
			"cat <<'EOF' | base64 -d > .env\n{S}\nEOF"),
		e("xxencoded-credentials", "a credential line in xxencode (uuencode with the +-0-9A-Za-z alphabet) (text written here)", func(g *gen) string { return "svc_backup:" + b6pw(g) }, func(_ *gen, s string) string { return b6xxencode(s) },
			"begin 644 creds.txt\n{S}\n+\nend",
			"xxencoded (old mailer):\nbegin 600 login\n{S}\n+\nend",
			"{S}  <- xxdecode this"),
		e("xml-base64-attr-password", "a password base64-encoded in an XML element marked encoding=\"base64\" (text written here)", pw, b64,
			"<datasource name=\"erp\"><user>erp_ro</user><password encoding=\"base64\">{S}</password></datasource>",
			"<credential type=\"basic\" user=\"svc\" encoded=\"b64\">{S}</credential>",
			"<Setting Name=\"ProxyPass\" Encoding=\"Base64\" Value=\"{S}\"/>"),
		e("hex-of-base64-password", "a password base64-encoded, then written as hex (text written here)", pw, func(_ *gen, s string) string {
			return hex.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(s))))
		},
			"DB_PASS_ENC={S}  # hex(base64(pw))",
			"echo {S} | xxd -r -p | base64 -d",
			"\"secret\": \"{S}\", \"encoding\": \"hex+b64\""),
		e("atbash-password", "a password under the Atbash substitution (a↔z, A↔Z) as a joke cipher (text written here)", func(g *gen) string { return g.s(b6Lo+b6Up, 8) + g.s(b6Dig, 4) }, func(_ *gen, s string) string {
			b := []byte(s)
			for i, c := range b {
				switch {
				case c >= 'a' && c <= 'z':
					b[i] = 'z' - (c - 'a')
				case c >= 'A' && c <= 'Z':
					b[i] = 'Z' - (c - 'A')
				}
			}
			return string(b)
		},
			"atbash'd so the scanner skips it: {S}",
			"pw (atbash): {S}",
			"{S} — you know the trick, reverse the alphabet"),
		e("base64-grouped-by-4", "a base64 token written in groups of four for reading aloud (text written here)", func(g *gen) string { return g.s(alnum, 18) }, func(_ *gen, s string) string {
			b := base64.StdEncoding.EncodeToString([]byte(s))
			var gs []string
			for i := 0; i < len(b); i += 4 {
				gs = append(gs, b[i:min(i+4, len(b))])
			}
			return strings.Join(gs, " ")
		},
			"read it back to me: {S}",
			"key (base64, spaces added for reading): {S}",
			"{S} — join the groups and decode"),
	}
}

func b6base32hex(s string) string {
	const a = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
	var out []byte
	var acc, bits uint
	for _, c := range []byte(s) {
		acc = acc<<8 | uint(c)
		bits += 8
		for bits >= 5 {
			out = append(out, a[(acc>>(bits-5))&31])
			bits -= 5
		}
	}
	if bits > 0 {
		out = append(out, a[(acc<<(5-bits))&31])
	}
	for len(out)%8 != 0 {
		out = append(out, '=')
	}
	return string(out)
}

// --- wrapped: secrets inside the containers people paste ---

func b6Wrapped() []b3Kind {
	w := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b6t("wrapped", name, source, body, texts...)
	}
	pw, tok := b6pw, b6token
	jwt := b6jwt("RS256", func(g *gen) string {
		return fmt.Sprintf(`{"sub":"%s","iat":%d,"exp":%d,"scope":"read write"}`, b6uuid(g), 1764000000+g.rng.IntN(9e5), 1765000000+g.rng.IntN(9e5))
	})
	return []b3Kind{
		w("har-response-cookies-array", "a session cookie in a HAR entry's response cookies array (text written here)", b6s(b64url, 43),
			"\"response\": {\n  \"status\": 200,\n  \"cookies\": [\n    {\"name\": \"__Host-session\", \"value\": \"{S}\", \"path\": \"/\", \"httpOnly\": true, \"secure\": true}\n  ]\n}",
			"{\"log\":{\"entries\":[{\"request\":{\"method\":\"POST\",\"url\":\"https://app.acme.test/login\"},\"response\":{\"status\":302,\"cookies\":[{\"name\":\"sid\",\"value\":\"{S}\"}]}}]}}",
			"app.acme.test.har, entry 14, response.cookies[0].value = {S}"),
		w("thunder-client-collection-auth", "a bearer token in a VS Code Thunder Client collection export (text written here)", jwt,
			"{\n  \"clientName\": \"Thunder Client\",\n  \"collectionName\": \"billing\",\n  \"requests\": [{\"name\": \"list invoices\", \"url\": \"{{base}}/invoices\", \"auth\": {\"type\": \"bearer\", \"bearer\": \"{S}\"}}]\n}",
			"thunder-tests/thunderEnvironment.json: {\"name\":\"prod\",\"data\":[{\"name\":\"token\",\"value\":\"{S}\"}]}",
			"\"settings\": { \"auth\": { \"type\": \"bearer\", \"bearer\": \"{S}\" } }"),
		w("jupyter-percent-env-magic", "a key set with %env in a notebook cell, as source or as the saved JSON (text written here)", tok,
			"In [3]: %env OPENAI_API_KEY={S}\nenv: OPENAI_API_KEY set",
			"{\"cell_type\": \"code\", \"execution_count\": 2, \"source\": [\"%env HF_TOKEN={S}\\n\", \"from transformers import pipeline\"]}",
			"%set_env WANDB_API_KEY={S}"),
		w("rmarkdown-sys-setenv", "a key set with Sys.setenv in an R Markdown or R script chunk (text written here)", tok,
			"```{r setup}\nSys.setenv(CENSUS_API_KEY = \"{S}\")\nlibrary(tidycensus)\n```",
			"Sys.setenv(OPENAI_API_KEY=\"{S}\")",
			"# analysis.R\nSys.setenv(\"AWS_SECRET_ACCESS_KEY\" = \"{S}\")"),
		w("argo-workflow-parameter-value", "a credential passed as an Argo Workflows parameter value (text written here)", pw,
			"spec:\n  entrypoint: migrate\n  arguments:\n    parameters:\n      - name: db-password\n        value: \"{S}\"",
			"argo submit migrate.yaml -p db-password={S}",
			"Parameters:\n  db-user:      migrator\n  db-password:  {S}"),
		w("tekton-param-default-password", "a password as a Tekton Task param default (text written here)", pw,
			"params:\n  - name: registry-password\n    type: string\n    default: \"{S}\"",
			"tkn task start push -p registry-password={S} -p image=acme/api",
			"- name: sonar-token\n  default: {S}"),
		w("k8s-probe-httpheaders-authorization", "a token in a Kubernetes probe's httpHeaders (text written here)", tok,
			"livenessProbe:\n  httpGet:\n    path: /healthz\n    port: 8080\n    httpHeaders:\n      - name: Authorization\n        value: Bearer {S}",
			"readinessProbe:\n  httpGet:\n    path: /ready\n    httpHeaders:\n    - name: X-Health-Token\n      value: \"{S}\"",
			"startupProbe: {httpGet: {path: /, port: 80, httpHeaders: [{name: X-Api-Key, value: {S}}]}}"),
		w("compose-healthcheck-password", "a password in a compose healthcheck test command (text written here)", pw,
			"healthcheck:\n  test: [\"CMD\", \"mysqladmin\", \"ping\", \"-h\", \"localhost\", \"-uroot\", \"-p{S}\"]\n  interval: 10s",
			"healthcheck:\n  test: redis-cli -a {S} ping | grep PONG",
			"    healthcheck:\n      test: [\"CMD-SHELL\", \"pg_isready -d 'postgresql://app:{S}@localhost/app'\"]"),
		w("compose-command-requirepass", "a password on a service's command in a compose file (text written here)", pw,
			"  redis:\n    image: redis:7\n    command: redis-server --requirepass {S} --appendonly yes",
			"  mongo:\n    image: mongo:7\n    command: [\"--auth\"]\n    environment: [MONGO_INITDB_ROOT_PASSWORD={S}]",
			"  keydb:\n    command: keydb-server --masterauth {S}"),
		w("yarnrc-yml-npm-auth-ident", "user:password in .yarnrc.yml npmAuthIdent (text written here)", func(g *gen) string { return "ci:" + b6pw(g) },
			"npmRegistryServer: \"https://npm.acme.test\"\nnpmAuthIdent: \"{S}\"\nnpmAlwaysAuth: true",
			"npmScopes:\n  acme:\n    npmRegistryServer: https://npm.acme.test\n    npmAuthIdent: {S}",
			"yarn config set npmAuthIdent {S}"),
		w("deno-auth-tokens-env", "a token in DENO_AUTH_TOKENS (token@host) (text written here)", tok,
			"export DENO_AUTH_TOKENS={S}@raw.githubusercontent.com",
			"DENO_AUTH_TOKENS=\"a1b2c3d4e5f6@deno.land;{S}@git.acme.test\"",
			"env:\n  DENO_AUTH_TOKENS: {S}@esm.acme.test"),
		w("renviron-github-pat", "a token in an R .Renviron file (text written here)", b6pre("ghp_", alnum, 36),
			"# ~/.Renviron\nGITHUB_PAT={S}\nR_LIBS_USER=~/R/library",
			"usethis::edit_r_environ() → added GITHUB_PAT={S}",
			".Renviron:\nGITHUB_PAT=\"{S}\""),
		w("hgrc-auth-password", "a password in a Mercurial .hgrc [auth] section (text written here)", pw,
			"[auth]\nacme.prefix = https://hg.acme.test/\nacme.username = jdoe\nacme.password = {S}",
			"[paths]\ndefault = https://jdoe:{S}@hg.acme.test/repo",
			"[auth]\nbb.prefix = bitbucket.org\nbb.password = {S}"),
		w("mongoshrc-db-auth", "credentials in a ~/.mongoshrc.js or a mongo shell script (text written here)", pw,
			"// ~/.mongoshrc.js\ndb = connect('mongodb://localhost/admin');\ndb.auth('root', '{S}');",
			"use admin\ndb.auth(\"ops\", \"{S}\")",
			"db.getSiblingDB('admin').auth({ user: 'backup', pwd: '{S}' })"),
		w("ivysettings-credentials-passwd", "a password in an Ivy ivysettings.xml credentials element (text written here)", pw,
			"<ivysettings>\n  <credentials host=\"repo.acme.test\" realm=\"Artifactory Realm\" username=\"ci\" passwd=\"{S}\"/>\n</ivysettings>",
			"<credentials host=\"nexus.acme.test\" realm=\"Sonatype Nexus Repository Manager\" username=\"deploy\" passwd=\"{S}\" />",
			"ivy.credentials: repo.acme.test ci/{S}"),
		w("sbt-inline-credentials-call", "an inline Credentials(...) call in build.sbt (text written here)", pw,
			"credentials += Credentials(\"Sonatype Nexus Repository Manager\", \"nexus.acme.test\", \"deploy\", \"{S}\")",
			"ThisBuild / credentials += Credentials(\"Artifactory Realm\", \"repo.acme.test\", \"ci\", \"{S}\")",
			"lazy val publishCreds = Credentials(\"GitHub Package Registry\", \"maven.pkg.github.com\", \"acme-bot\", \"{S}\")"),
		w("terraformrc-credentials-block", "a token in a CLI config .terraformrc credentials block (text written here)", b6cat(b6s(alnum, 14), b6lit(".atlasv1."), b6s(alnum, 67)),
			"credentials \"app.terraform.io\" {\n  token = \"{S}\"\n}",
			"# ~/.terraformrc\nplugin_cache_dir = \"$HOME/.terraform.d/plugin-cache\"\ncredentials \"tfe.acme.test\" {\n  token = \"{S}\"\n}",
			"{\"credentials\":{\"app.terraform.io\":{\"token\":\"{S}\"}}}"),
		w("launchd-plist-environment", "a secret in a launchd plist's EnvironmentVariables (text written here)", tok,
			"<key>EnvironmentVariables</key>\n<dict>\n  <key>SYNC_TOKEN</key>\n  <string>{S}</string>\n</dict>",
			"~/Library/LaunchAgents/com.acme.sync.plist:\n<key>EnvironmentVariables</key><dict><key>API_KEY</key><string>{S}</string></dict>",
			"<dict><key>Label</key><string>com.acme.backup</string><key>EnvironmentVariables</key><dict><key>RESTIC_PASSWORD</key><string>{S}</string></dict></dict>"),
		w("pm2-ecosystem-env", "a secret in a pm2 ecosystem.config.js env block (text written here)", pw,
			"module.exports = {\n  apps: [{\n    name: 'api',\n    script: 'dist/server.js',\n    env_production: { DB_PASS: '{S}', NODE_ENV: 'production' }\n  }]\n}",
			"env: {\n  SESSION_SECRET: \"{S}\",\n},",
			"pm2 start ecosystem.config.js --env production  # DB_PASS={S}"),
		w("task-scheduler-xml-arguments", "a password in a Windows Task Scheduler XML Arguments element (text written here)", pw,
			"<Exec>\n  <Command>C:\\Tools\\sync.exe</Command>\n  <Arguments>--user svc_sync --password {S} --target \\\\fs01\\share</Arguments>\n</Exec>",
			"<Actions Context=\"Author\"><Exec><Command>powershell.exe</Command><Arguments>-File C:\\jobs\\backup.ps1 -Pass {S}</Arguments></Exec></Actions>",
			"Task To Run: C:\\bin\\robosync.exe /u:backup /p:{S}"),
		w("makefile-variable-assign", "a secret in a Makefile variable or target (text written here)", tok,
			"REGISTRY_TOKEN ?= {S}\n\npush:\n\tdocker login -u ci -p $(REGISTRY_TOKEN) registry.acme.test",
			"export API_KEY := {S}\n\ntest:\n\tgo test ./...",
			"deploy:\n\tcurl -fsS -H 'Authorization: Bearer {S}' https://deploy.acme.test/hooks/api"),
		w("justfile-export-assignment", "a secret assigned in a justfile (text written here)", tok,
			"set dotenv-load\nexport SENTRY_AUTH_TOKEN := \"{S}\"\n\nrelease:\n    sentry-cli releases new $VERSION",
			"token := \"{S}\"\n\nseed:\n    curl -H \"Authorization: Bearer {{token}}\" localhost:8080/seed",
			"# justfile\nexport PGPASSWORD := '{S}'"),
		w("taskfile-yml-env", "a secret in a Taskfile.yml env block (text written here)", pw,
			"version: '3'\nenv:\n  DB_PASSWORD: \"{S}\"\ntasks:\n  migrate:\n    cmds:\n      - goose up",
			"tasks:\n  deploy:\n    env:\n      NETLIFY_AUTH_TOKEN: {S}\n    cmds:\n      - netlify deploy --prod",
			"vars:\n  ADMIN_PASS: '{S}'"),
		w("azure-pipelines-variables-value", "a secret as a literal in azure-pipelines.yml variables (text written here)", pw,
			"variables:\n  - name: sqlPassword\n    value: '{S}'\n  - name: buildConfiguration\n    value: Release",
			"variables:\n  ACR_PASSWORD: {S}",
			"- script: echo \"##vso[task.setvariable variable=dbPass]{S}\""),
		w("buildkite-pipeline-env", "a secret in a Buildkite pipeline.yml env (text written here)", tok,
			"env:\n  NPM_TOKEN: \"{S}\"\nsteps:\n  - command: npm publish",
			"steps:\n  - label: \":docker: push\"\n    env:\n      DOCKER_PASSWORD: {S}",
			"buildkite-agent meta-data set deploy-token {S}"),
		w("jenkinsfile-environment-literal", "a secret as a literal in a Jenkinsfile environment block (text written here)", pw,
			"pipeline {\n  agent any\n  environment {\n    DB_PASS = '{S}'\n  }\n  stages { stage('migrate') { steps { sh './migrate.sh' } } }\n}",
			"environment {\n  SONAR_TOKEN = \"{S}\"\n}",
			"withEnv(['NEXUS_PASS={S}']) {\n  sh 'mvn deploy'\n}"),
		w("circleci-config-environment-block", "a secret in a .circleci/config.yml environment block (text written here)", tok,
			"jobs:\n  build:\n    docker:\n      - image: cimg/node:20.11\n        auth:\n          username: acmeci\n          password: {S}",
			"    environment:\n      CODECOV_TOKEN: {S}\n      NODE_ENV: test",
			"- run:\n    environment:\n      HEROKU_API_KEY: \"{S}\"\n    command: git push heroku main"),
		w("travis-env-global-literal", "a secret as a literal in .travis.yml env global (text written here)", tok,
			"env:\n  global:\n    - COVERALLS_REPO_TOKEN={S}\n    - GO111MODULE=on",
			"deploy:\n  provider: pypi\n  user: __token__\n  password: {S}",
			"env:\n  global:\n    - secure: \"dGhpcyBpcyBub3QgYSBzZWNyZXQ=\"\n    - API_TOKEN={S}"),
		w("cloudbuild-substitutions-literal", "a secret in Cloud Build substitutions (text written here)", pw,
			"substitutions:\n  _DB_PASSWORD: '{S}'\n  _REGION: europe-west1\nsteps:\n  - name: gcr.io/cloud-builders/gcloud",
			"gcloud builds submit --substitutions=_DB_PASSWORD={S},_ENV=prod",
			"options:\n  env:\n    - 'SMTP_PASS={S}'"),
		w("tsv-pasted-from-sheet", "a password in a tab-separated row pasted from a spreadsheet (text written here)", pw,
			"host\tuser\tpassword\tnotes\nnas01.local\tadmin\t{S}\tchange in Q1",
			"Printer\t10.0.8.40\tadmin\t{S}",
			"name\temail\ttemp_password\nAna Ruiz\tana@acme.test\t{S}"),
		w("psql-aligned-output-row", "a plaintext password in psql's aligned query output (text written here)", pw,
			"acme=> select id, username, password from legacy_users limit 2;\n id | username |     password\n----+----------+------------------\n  1 | admin    | {S}\n  2 | ops      | (null)\n(2 rows)",
			" key          | value\n--------------+------------------\n smtp_pass    | {S}\n smtp_host    | mail.acme.test",
			"-[ RECORD 1 ]------\nname     | erp_sync\nsecret   | {S}"),
		w("mysql-box-table-row", "a plaintext secret in a MySQL client box table (text written here)", pw,
			"mysql> SELECT user, pass FROM ftp_accounts;\n+--------+------------------+\n| user   | pass             |\n+--------+------------------+\n| upload | {S} |\n+--------+------------------+\n1 row in set (0.00 sec)",
			"+----+-----------+----------------+\n| id | name      | api_secret     |\n+----+-----------+----------------+\n|  3 | erp       | {S} |\n+----+-----------+----------------+",
			"| wp_options | smtp_password | {S} |"),
		w("sqlite-mode-line-output", "a secret in sqlite3 .mode line output (text written here)", tok,
			"sqlite> .mode line\nsqlite> select * from settings where key='api_token';\n  key = api_token\nvalue = {S}",
			"   name = stripe\n secret = {S}\ncreated = 2026-10-01",
			"sqlite3 app.db 'select token from sessions limit 1'\n{S}"),
		w("pr-suggestion-block-secret", "a secret inside a code-review suggestion block (text written here)", tok,
			"```suggestion\n  apiKey: \"{S}\",\n```\nthis one is the working key",
			"Suggested change\n-  token: process.env.TOKEN\n+  token: \"{S}\"",
			"nit: ```suggestion\nSLACK_WEBHOOK_TOKEN={S}\n```"),
		w("git-show-env-file-blob", "an old .env revision shown by git show <rev>:<path> (text written here)", pw,
			"$ git show HEAD~3:.env\nAPP_ENV=production\nDB_PASSWORD={S}\nREDIS_URL=redis://cache:6379",
			"$ git show 4f2a9c1:config/secrets.yml\nproduction:\n  smtp_password: {S}",
			"git log -p -- .env | grep PASS\n-MAIL_PASS={S}"),
		w("sql-update-set-plaintext", "a plaintext password in an SQL UPDATE (text written here)", pw,
			"UPDATE users SET password = '{S}', must_change = true WHERE email = 'ana@acme.test';",
			"update integrations set client_secret='{S}' where provider='erp';",
			"-- reset for QA\nUPDATE accounts SET pass='{S}' WHERE id IN (12, 13);"),
		w("mongo-insertone-doc", "a plaintext password in a MongoDB insertOne or updateOne (text written here)", pw,
			"db.users.insertOne({ email: 'qa@acme.test', password: '{S}', roles: ['admin'] })",
			"db.settings.updateOne({ _id: 'smtp' }, { $set: { pass: \"{S}\" } })",
			"> db.creds.find()\n{ \"_id\" : ObjectId(\"665f1c2ab3e4d5f6a7b8c9d0\"), \"svc\" : \"ftp\", \"secret\" : \"{S}\" }"),
		w("redis-hset-password", "a secret written with redis HSET or SET (text written here)", tok,
			"127.0.0.1:6379> HSET integration:erp user erp_sync secret {S}\n(integer) 2",
			"redis-cli SET config:smtp:password {S}",
			"HGETALL cfg:payments\n1) \"api_key\"\n2) \"{S}\""),
		w("cypher-create-node-password", "a plaintext password in a Cypher CREATE or SET (text written here)", pw,
			"CREATE (:User {name: 'admin', password: '{S}'})",
			"MATCH (u:User {name:'svc'}) SET u.apiKey = '{S}'",
			"neo4j$ MERGE (c:Credential {system: 'erp', secret: \"{S}\"})"),
		w("graphql-mutation-inline-args", "a password as an inline argument of a GraphQL mutation (text written here)", pw,
			"mutation {\n  login(email: \"qa@acme.test\", password: \"{S}\") {\n    token\n  }\n}",
			"{\"query\":\"mutation { createApiKey(name: \\\"ci\\\", secret: \\\"{S}\\\") { id } }\"}",
			"mutation { updateSmtp(host: \"mail.acme.test\", pass: \"{S}\") { ok } }"),
		w("cef-syslog-extension-field", "a credential in a CEF syslog line's extension fields (text written here)", pw,
			"Nov 29 10:12:44 fw01 CEF:0|Acme|Gateway|4.2|100|login|5|src=10.0.4.7 suser=jdoe cs1Label=pwd cs1={S} outcome=failure",
			"CEF:0|Acme|Proxy|2.1|auth|Basic auth seen|3|request=https://intranet.acme.test/ duser=svc cs2Label=authpass cs2={S}",
			"<134>1 2026-11-29T10:12:44Z ids01 - - - CEF:0|Acme|IDS|1.0|9001|cleartext credential|7|msg=pass={S} dst=10.0.0.5"),
		w("k8s-audit-log-secret-request", "a Secret's base64 data in a Kubernetes audit log requestObject (text written here)", b6cat(func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(b6pw(g))) }),
			"{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\",\"verb\":\"create\",\"objectRef\":{\"resource\":\"secrets\",\"namespace\":\"prod\",\"name\":\"db\"},\"requestObject\":{\"kind\":\"Secret\",\"data\":{\"password\":\"{S}\"}}}",
			"audit.log: verb=update resource=secrets name=smtp requestObject.data.pass={S}",
			"\"responseObject\": {\"kind\": \"Secret\", \"metadata\": {\"name\": \"registry\"}, \"data\": {\"token\": \"{S}\"}}"),
		w("cloudtrail-requestparameters-password", "a password in a CloudTrail-like event's requestParameters (text written here)", pw,
			"{\"eventSource\":\"rds.amazonaws.com\",\"eventName\":\"ModifyDBInstance\",\"requestParameters\":{\"dBInstanceIdentifier\":\"prod-pg\",\"masterUserPassword\":\"{S}\",\"applyImmediately\":true}}",
			"eventName=CreateUser requestParameters.password={S} userIdentity.arn=arn:aws:iam::123456789012:user/ci",
			"\"requestParameters\": {\"secretId\": \"prod/api\", \"secretString\": \"{S}\"}"),
		w("sentry-breadcrumb-http-data", "a token in a Sentry event's breadcrumb data (text written here)", tok,
			"\"breadcrumbs\": {\"values\": [{\"type\": \"http\", \"category\": \"fetch\", \"data\": {\"url\": \"https://api.acme.test/v1/sync?token={S}\", \"status_code\": 500}}]}",
			"breadcrumb [xhr] POST https://api.acme.test/login body={\"user\":\"ana\",\"password\":\"{S}\"}",
			"{\"category\":\"console\",\"message\":\"using key {S}\",\"level\":\"log\"}"),
		w("axios-error-config-headers", "a token in a Node axios error printed with its config (text written here)", jwt,
			"AxiosError: Request failed with status code 403\n    at settle (node_modules/axios/lib/core/settle.js:19:12)\n  config: {\n    url: 'https://api.acme.test/v2/orders',\n    method: 'get',\n    headers: Object [AxiosHeaders] {\n      Accept: 'application/json',\n      Authorization: 'Bearer {S}'\n    }\n  }",
			"[api] request failed { status: 401, headers: { authorization: 'Bearer {S}' } }",
			"Error: getaddrinfo ENOTFOUND api.acme.test\n  config: { auth: { username: 'ci', password: '{S}' } }"),
		w("slack-export-json-text", "a password in a Slack export JSON message (text written here)", pw,
			"[{\"type\": \"message\", \"user\": \"U04ABCD12\", \"text\": \"the jenkins admin pw is {S}\", \"ts\": \"1764321843.001200\"}]",
			"{\"user_name\":\"dana\",\"text\":\"use `{S}` for the staging db\",\"thread_ts\":\"1764321000.000100\"}",
			"general/2026-11-28.json: \"text\": \"{S} <- new vpn pass\""),
		w("curlrc-user-line", "credentials in a curl config file (-K / .curlrc) (text written here)", func(g *gen) string { return "ci:" + b6pw(g) },
			"# ~/.curlrc\nuser = \"{S}\"\nsilent",
			"$ cat ci.curlrc\nurl = https://nexus.acme.test/repository/raw/app.tgz\nuser = {S}",
			"curl -K - <<< 'user = \"{S}\"'"),
		w("wgetrc-password", "a password in a .wgetrc (text written here)", pw,
			"# ~/.wgetrc\nhttp_user = mirror\nhttp_password = {S}",
			"user = ftpmirror\npassword = {S}\npassive_ftp = on",
			"proxy_user = jdoe\nproxy_password = {S}"),
		w("aria2-rpc-secret", "aria2's rpc-secret in its config or a client call (text written here)", tok,
			"enable-rpc=true\nrpc-listen-all=true\nrpc-secret={S}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"aria2.addUri\",\"id\":\"1\",\"params\":[\"token:{S}\",[\"https://dl.acme.test/iso\"]]}",
			"aria2c --enable-rpc --rpc-secret={S}"),
		w("ytdlp-config-password", "a password in a yt-dlp config file (text written here)", pw,
			"# ~/.config/yt-dlp/config\n--username me@acme.test\n--password {S}\n-f bestvideo+bestaudio",
			"--video-password {S}",
			"--ap-mso Spectrum --ap-username jdoe --ap-password {S}"),
		w("gh-hosts-yml-oauth-token", "a token in the GitHub CLI's hosts.yml (text written here)", b6pre("gho_", alnum, 36),
			"github.com:\n    users:\n        octo-dev:\n            oauth_token: {S}\n    git_protocol: https\n    user: octo-dev",
			"$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    oauth_token: {S}\n    user: jdoe",
			"ghe.acme.test:\n    oauth_token: {S}"),
		w("glab-config-yml-token", "a token in the GitLab CLI's config.yml (text written here)", b6pre("glpat-", b64url, 20),
			"hosts:\n    gitlab.com:\n        token: {S}\n        api_host: gitlab.com\n        git_protocol: ssh",
			"~/.config/glab-cli/config.yml:\n  gitlab.acme.test:\n    token: {S}",
			"glab config set token {S} --host gitlab.acme.test"),
		w("helm-repositories-yaml-password", "a password in Helm's repositories.yaml (text written here)", pw,
			"apiVersion: \"\"\nrepositories:\n- name: acme\n  url: https://charts.acme.test\n  username: ci\n  password: {S}",
			"- caFile: \"\"\n  name: internal\n  password: {S}\n  url: https://nexus.acme.test/repository/helm/",
			"$ cat ~/.config/helm/repositories.yaml | grep -A1 username\n  username: deploy\n  password: {S}"),
		w("vercel-auth-json-token", "a token in the Vercel CLI's auth.json (text written here)", b6s(alnum, 24),
			"{\n  \"// Note\": \"This is your Vercel credentials file. DO NOT SHARE!\",\n  \"token\": \"{S}\"\n}",
			"~/Library/Application Support/com.vercel.cli/auth.json: {\"token\":\"{S}\"}",
			"cat ~/.local/share/com.vercel.cli/auth.json\n{\"token\": \"{S}\"}"),
		w("fly-config-yml-access-token", "a token in flyctl's config.yml (text written here)", b6cat(b6lit("FlyV1 fm2_"), b6s(b64url, 120)),
			"access_token: {S}\nlast_login: 2026-11-20T08:00:00Z",
			"$ cat ~/.fly/config.yml\naccess_token: {S}",
			"FLY_ACCESS_TOKEN=\"{S}\""),
		w("doctl-config-access-token", "a token in doctl's config.yaml (text written here)", b6pre("dop_v1_", hexlc, 64),
			"access-token: {S}\ncontext: default",
			"auth-contexts:\n  acme: {S}\ncontext: acme",
			"~/.config/doctl/config.yaml → access-token: {S}"),
		w("aws-sso-cache-json-accesstoken", "an access token in an AWS SSO cache JSON (text written here)", b6cat(b6lit("aoa"), b6s(b64url, 300)),
			"{\"startUrl\": \"https://acme.awsapps.com/start\", \"region\": \"eu-west-1\", \"accessToken\": \"{S}\", \"expiresAt\": \"2026-12-01T08:00:00Z\"}",
			"$ cat ~/.aws/sso/cache/5f2c.json | jq -r .accessToken\n{S}",
			"\"accessToken\":\"{S}\",\"clientId\":\"abcDEF123\""),
		w("azure-msal-cache-refresh-token", "a refresh token in an Azure CLI MSAL token cache (text written here)", b6cat(b6lit("0.AXwA"), b6s(b64url, 360)),
			"\"RefreshToken\": {\"abc.login.microsoftonline.com-refreshtoken-1f3c5e7a-9b2d-4c6e-8a0f-2b4d6f8a0c1e--\": {\"credential_type\": \"RefreshToken\", \"secret\": \"{S}\"}}",
			"msal_token_cache.json: \"secret\": \"{S}\"",
			"{\"credential_type\":\"RefreshToken\",\"secret\":\"{S}\",\"client_id\":\"1f3c5e7a-9b2d-4c6e-8a0f-2b4d6f8a0c1e\"}"),
		w("gcloud-adc-refresh-token", "a refresh token in gcloud's application_default_credentials.json (text written here)", b6cat(b6lit("1//0g"), b6s(b64url, 98)),
			"{\n  \"client_id\": \"100000000001-q0w9e8r7t6y5u4i3o2p1a0s9d8f7g6h5.apps.googleusercontent.com\",\n  \"client_secret\": \"d-Xq7Lm2Rt9Vb4Ns8Kp3Wz1Yh\",\n  \"refresh_token\": \"{S}\",\n  \"type\": \"authorized_user\"\n}",
			"$ jq -r .refresh_token ~/.config/gcloud/application_default_credentials.json\n{S}",
			"\"refresh_token\":\"{S}\",\"type\":\"authorized_user\""),
		w("bazelrc-action-env", "a token in a .bazelrc --action_env or --remote_header (text written here)", tok,
			"build --action_env=NPM_TOKEN={S}",
			"build:remote --remote_header=x-buildbuddy-api-key={S}",
			"# .bazelrc.user\ncommon --repo_env=GITHUB_TOKEN={S}"),
		w("jsonnet-local-secret", "a secret in a Jsonnet local or field (text written here)", pw,
			"local dbPassword = '{S}';\n{\n  database: { user: 'app', password: dbPassword },\n}",
			"{\n  smtp+: { pass: \"{S}\" },\n}",
			"local secrets = import 'secrets.libsonnet';  // { grafana: '{S}' }"),
		w("cue-value-password", "a password in a CUE value (text written here)", pw,
			"db: {\n\thost:     \"db.acme.test\"\n\tpassword: \"{S}\"\n}",
			"#Config: { token: string }\nconfig: #Config & { token: \"{S}\" }",
			"secrets: admin: \"{S}\""),
		w("dhall-record-password", "a password in a Dhall record (text written here)", pw,
			"{ host = \"db.acme.test\", port = 5432, user = \"app\", password = \"{S}\" }",
			"let smtp = { user = \"noreply\", pass = \"{S}\" } in smtp",
			"-- ./config.dhall\n{ apiKey = \"{S}\" }"),
		w("pkl-property-secret", "a secret in an Apple Pkl config property (text written here)", pw,
			"amends \"Config.pkl\"\ndatabase {\n  user = \"app\"\n  password = \"{S}\"\n}",
			"apiToken: String = \"{S}\"",
			"smtp { pass = \"{S}\" }"),
		w("openapi-example-apikey", "a live-looking key left as an example in an OpenAPI document (text written here)", tok,
			"components:\n  securitySchemes:\n    ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key\n      x-example: {S}",
			"parameters:\n  - name: api_key\n    in: query\n    example: {S}",
			"\"servers\": [{\"url\": \"https://api.acme.test\"}], \"x-test-token\": \"{S}\""),
		w("whatsapp-export-txt-line", "a password in a WhatsApp chat export line (text written here)", pw,
			"28/11/2026, 21:04 - Ana: la contraseña del router es {S}",
			"[28.11.26, 21:04:17] Jonas: Passwort für die Nextcloud: {S}",
			"11/28/26, 9:04 PM - Dad: netflix login is dad@acme.test and {S}"),
	}
}

// --- agent: what a coding agent's transcript shows ---

func b6Agent() []b3Kind {
	a := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b6t("agent", name, source, body, texts...)
	}
	pw, tok := b6pw, b6token
	stripe := b6pre("sk_live_", alnum, 99)
	ghp := b6pre("ghp_", alnum, 36)
	return []b3Kind{
		a("read-tool-env-file-numbered", "an agent's file-read tool result of an env file, lines numbered with arrows (text written here)", tok,
			"⏺ Read(.env.local)\n  ⎿  Read 6 lines\n     1→NODE_ENV=development\n     2→PORT=3000\n     3→MAPS_API_KEY={S}\n     4→LOG_LEVEL=debug",
			"Read file: config/.env\n   1\tAPP_NAME=acme\n   2\tSECRET_TOKEN={S}\n   3\tDEBUG=false",
			"<file path=\"backend/.env\">\n1: DATABASE_URL=postgres://localhost/dev\n2: PAYMENT_API_KEY={S}\n</file>",
			"Reading `services/billing/.env`…\n```\n1  STRIPE_WEBHOOK_SECRET=whsec_test_only\n2  BILLING_API_TOKEN={S}\n```"),
		a("bash-cat-database-yml-result", "an agent's shell tool result of a config file with a password (text written here)", pw,
			"⏺ Bash(cat config/database.yml)\n  ⎿  production:\n       adapter: postgresql\n       username: shop\n       password: {S}\n       host: db.internal",
			"$ cat appsettings.Production.json\n{\n  \"ConnectionStrings\": {\n    \"Default\": \"Server=sql01;Database=erp;User Id=erp_app;Password={S};\"\n  }\n}",
			"Output:\n[mysqld]\nuser=mysql\n[client]\nuser=root\npassword={S}",
			"⏺ Bash(sed -n '1,12p' /etc/odoo/odoo.conf)\n  ⎿  [options]\n     admin_passwd = {S}\n     db_host = db\n     db_user = odoo"),
		a("tool-result-json-escaped-content", "a secret inside a tool_result's JSON-escaped content string (text written here)", tok,
			"{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01Hx7Qb2\",\"content\":\"export API_TOKEN=\\\"{S}\\\"\\nexport REGION=eu\"}",
			"{\"role\":\"tool\",\"tool_call_id\":\"call_8fK2\",\"content\":\"{\\\"token\\\": \\\"{S}\\\", \\\"expires_in\\\": 3600}\"}",
			"{\"output\":\"HTTP/1.1 200 OK\\r\\nSet-Cookie: session={S}; HttpOnly\\r\\n\"}",
			"{\"tool\":\"read_file\",\"result\":\"[smtp]\\nhost = mail.acme.test\\npassword = {S}\\n\"}"),
		a("function-call-arguments-string", "a secret in a function call's arguments, a JSON string inside JSON (text written here)", pw,
			"{\"type\":\"function_call\",\"name\":\"run_sql\",\"arguments\":\"{\\\"dsn\\\":\\\"postgres://admin:{S}@db:5432/app\\\",\\\"query\\\":\\\"select 1\\\"}\"}",
			"\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"ssh\",\"arguments\":\"{\\\"host\\\":\\\"10.0.0.7\\\",\\\"user\\\":\\\"root\\\",\\\"password\\\":\\\"{S}\\\"}\"}}]",
			"arguments: {\"smtp_password\": \"{S}\", \"to\": \"ops@acme.test\"}",
			"<function_calls><invoke name=\"http_request\"><parameter name=\"headers\">{\"Authorization\": \"Token {S}\"}</parameter></invoke></function_calls>"),
		a("assistant-summary-mentions-key", "an assistant's summary that repeats the key it configured (text written here)", stripe,
			"Done! I've updated `.env` with `STRIPE_SECRET_KEY={S}` and restarted the dev server. Checkout now works in test mode.",
			"Summary of changes:\n- Added the Stripe key (`{S}`) to `config/payments.ts`\n- Wrote a test for the webhook handler",
			"I used the key you gave me ({S}) in the integration test; you may want to rotate it since it is now in the chat history.",
			"All set — the webhook now verifies signatures with the secret `{S}` you pasted earlier; the tests pass."),
		a("user-pastes-key-in-prompt", "a user pasting a key in a prompt to the agent (text written here)", ghp,
			"> here's my token {S} — clone the private repo and fix the failing test",
			"User: use this PAT for the release script: {S}",
			"Human: my github token is {S}, can you push the branch for me?",
			"> can you debug why `curl -H 'Authorization: token {S}' https://api.github.com/user` gives 401?"),
		a("edit-tool-diff-added-secret", "an agent's edit tool diff adding a hard-coded secret (text written here)", tok,
			"⏺ Update(src/config.ts)\n  ⎿  Updated src/config.ts with 1 addition\n       10    export const config = {\n       11 +    apiKey: '{S}',\n       12      timeout: 5000,",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: settings.py\n@@\n-API_KEY = os.environ[\"API_KEY\"]\n+API_KEY = \"{S}\"\n*** End Patch\nEOF",
			"Edit: lib/client.rb\n+  TOKEN = \"{S}\".freeze",
			"⏺ Write(docker-compose.override.yml)\n  ⎿  Wrote 6 lines to docker-compose.override.yml\n     services:\n       api:\n         environment:\n           GITHUB_TOKEN: {S}"),
		a("grep-tool-results-hardcoded", "an agent's search results showing a hard-coded credential (text written here)", pw,
			"⏺ Search(pattern: \"password\", path: \"src\")\n  ⎿  Found 3 matches\n     src/db.js:4:const password = '{S}';\n     src/db.js:9:  password,\n     README.md:12:Set the password in .env",
			"rg -n 'secret' legacy/\nlegacy/sync.py:88:    SECRET = \"{S}\"",
			"Grep results:\n- scripts/deploy.sh:14: sshpass -p '{S}' ssh root@10.0.0.9",
			"Found in 2 files:\nansible/group_vars/prod.yml:17:  db_password: {S}\nansible/roles/db/defaults/main.yml:3:db_password: \"\""),
		a("export-p-declare-x-output", "bash's export -p output (declare -x NAME=\"value\") shown in a transcript (text written here)", tok,
			"⏺ Bash(export -p | grep -i key)\n  ⎿  declare -x ALGOLIA_ADMIN_KEY=\"{S}\"\n     declare -x KEYTIMEOUT=\"1\"",
			"$ export -p\ndeclare -x HOME=\"/root\"\ndeclare -x RESEND_KEY=\"{S}\"",
			"declare -x SLACK_SIGNING_SECRET=\"{S}\"",
			"typeset -x TWILIO_AUTH_TOKEN={S}\ntypeset -x TERM=xterm-256color"),
		a("mcp-json-server-env", "a key in an MCP server config's env (.mcp.json, claude_desktop_config.json) (text written here)", tok,
			"{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@acme/mcp-github\"],\n      \"env\": { \"GITHUB_TOKEN\": \"{S}\" }\n    }\n  }\n}",
			"\"postgres\": { \"command\": \"mcp-postgres\", \"args\": [\"postgresql://app:{S}@localhost/app\"] }",
			"claude mcp add linear -e LINEAR_API_KEY={S} -- npx -y @acme/linear-mcp",
			"[mcp_servers.sentry]\ncommand = \"npx\"\nargs = [\"-y\", \"@acme/sentry-mcp\"]\nenv = { SENTRY_TOKEN = \"{S}\" }"),
		a("codex-exec-log-line", "a secret in a terminal agent's exec log line (text written here)", tok,
			"exec bash -lc 'curl -s -H \"Authorization: Bearer {S}\" https://api.acme.test/v1/me' in /workspace/app\n bash -lc ... succeeded in 412ms:\n{\"id\":42}",
			"[exec] /bin/sh -c \"export SENTRY_AUTH_TOKEN={S}; sentry-cli releases finalize 2.4.1\"",
			"running: git push https://x-access-token:{S}@github.com/acme/app.git HEAD:fix/ci",
			"› Ran curl -fsS -u admin:{S} http://localhost:15672/api/overview\n  └ {\"rabbitmq_version\":\"3.13.1\"}"),
		a("aider-chat-history-md", "a key in an aider-style .aider.chat.history.md (text written here)", tok,
			"#### use the key {S} for the weather api\n\nI'll add it to `weather.py`.",
			"> /run export OPENWEATHER_KEY={S}\n> Add the output to the chat? (Y)es/(N)o [Yes]: n",
			"#### the test needs SENDGRID_KEY={S}",
			"#### /add .env\n> Added .env to the chat\n\nThe file sets `MAILGUN_KEY={S}`; I'll read it from the environment instead."),
		a("thinking-block-restates-password", "an agent's reasoning block that restates a password it saw (text written here)", pw,
			"<thinking>The user's staging DB password is {S}; I'll put it in the connection string for the migration and remind them to rotate it.</thinking>",
			"∴ Thinking…\n  The config file shows the admin password {S}. I should not print it again, but I need it for the login step.",
			"[reasoning] Found credentials in docker-compose.yml (postgres / {S}); using them to run the seed script.",
			"(thinking) the seed script expects ADMIN_PASSWORD; the user said earlier it is {S}, so I'll pass that."),
		a("todo-list-item-with-key", "a secret in an agent's todo list (text written here)", tok,
			"⏺ Update Todos\n  ⎿  ☒ Reproduce the 401\n     ☐ Rotate leaked key {S}\n     ☐ Add secret scanning to CI",
			"- [ ] revoke {S} (found in logs)\n- [x] patch the logger",
			"TODO(agent): replace hard-coded token {S} with env lookup",
			"## Progress\n- [x] found the leaked key in build logs: {S}\n- [ ] open a ticket to revoke it"),
		a("test-failure-expected-received", "a token in a failing test's expected/received output (text written here)", jwt6(),
			"  ● auth › signs the request\n\n    expect(received).toBe(expected)\n\n    Expected: \"Bearer {S}\"\n    Received: \"Bearer undefined\"",
			"AssertionError: assert 'Bearer abc' == 'Bearer {S}'",
			"--- FAIL: TestClient (0.01s)\n    client_test.go:42: header = \"\", want \"Bearer {S}\"",
			"E       AssertionError: expected call not found.\nE       Expected: post('https://api.acme.test/token', data={'client_secret': '{S}'})\nE       Actual: not called."),
		a("webfetch-url-with-key", "an agent fetching a URL that carries a key (text written here)", tok,
			"⏺ Fetch(https://api.acme.test/v1/forecast?lat=52.5&lon=13.4&appid={S})\n  ⎿  Received 2.1KB (200 OK)",
			"web_fetch({\"url\": \"https://maps.acme.test/geocode/json?address=Berlin&key={S}\"})",
			"GET https://hooks.acme.test/trigger/{S} → 202",
			"Fetching https://api.acme.test/v1/export.csv?access_token={S} … 200 OK (48 KB)"),
		a("subagent-report-found-credential", "a sub-agent's report quoting a credential it found (text written here)", pw,
			"Task(Audit legacy scripts) ⎿ Done\n  Found a hard-coded FTP password in legacy/upload.sh line 12: {S}",
			"Agent report: the Jenkins job `nightly` passes --password {S} on the command line; recommend moving it to credentials.",
			"Findings:\n1. config/old.ini has smtp_pass = {S}",
			"## Security review (sub-agent)\n| File | Line | Finding |\n|---|---|---|\n| deploy/old.sh | 31 | plaintext password `{S}` |"),
		a("browser-tool-type-password-field", "a browser-automation tool call typing a password into a login form (text written here)", pw,
			"⏺ playwright - browser_type (MCP)(element: \"Password textbox\", ref: \"e23\", text: \"{S}\", submit: true)\n  ⎿  Typed into Password textbox",
			"{\"action\":\"type\",\"selector\":\"#password\",\"text\":\"{S}\"}",
			"page.fill('input[name=\"password\"]', '{S}')  # step 4 of the login flow",
			"computer.type(\"{S}\")  # focused: Password input on https://admin.acme.test/login"),
		a("terraform-output-raw-tool-result", "an agent reading a sensitive Terraform output raw (text written here)", pw,
			"⏺ Bash(terraform output -raw db_admin_password)\n  ⎿  {S}",
			"$ tofu output -json | jq -r .redis_auth.value\n{S}",
			"terraform output admin_password\n\"{S}\"",
			"⏺ Bash(pulumi stack output dbPassword --show-secrets)\n  ⎿  {S}"),
		a("vault-read-tool-result", "an agent reading a Vault or cloud secret, the value in the transcript (text written here)", tok,
			"⏺ Bash(vault kv get -field=api_key secret/payments)\n  ⎿  {S}",
			"$ aws secretsmanager get-secret-value --secret-id prod/api --query SecretString --output text\n{S}",
			"$ gcloud secrets versions access latest --secret=openai-key\n{S}",
			"$ az keyvault secret show --vault-name acme-kv -n sql-admin --query value -o tsv\n{S}"),
		a("screenshot-ocr-description", "an agent describing a screenshot that shows a password (text written here)", pw,
			"The screenshot shows the router admin page: user `admin`, password field filled with `{S}` (visible because 'show password' is ticked).",
			"From the image: a sticky note on the monitor reads \"VPN: {S}\".",
			"OCR of attached image:\nWi-Fi: ACME-Guest\nKey: {S}",
			"Image description: terminal window; the last command reads `mysql -u root -p{S} shop` and the prompt shows mysql>."),
		a("agents-md-memory-notes", "credentials written into an agent memory or instructions file (CLAUDE.md, AGENTS.md) (text written here)", pw,
			"## Environment\n- Staging DB: `postgres://app:{S}@staging-db.acme.test/app`\n- Run `make seed` before tests",
			"# AGENTS.md\nWhen deploying, log in with `deploy` / `{S}` (ask Dana if it fails).",
			"# Memory\n- The QA admin account is qa-admin@acme.test, password {S}",
			"<!-- .cursorrules -->\nUse the test Stripe account; its restricted key is {S}."),
		a("session-jsonl-tool-use-record", "a secret in a recorded agent session JSONL tool_use input (text written here)", tok,
			"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"Bash\",\"input\":{\"command\":\"export RENDER_API_KEY={S} && render deploys list\"}}]}}",
			"{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":\"CLOUDFLARE_API_TOKEN={S}\"}]},\"timestamp\":\"2026-11-29T10:11:12Z\"}",
			"{\"event\":\"tool_call\",\"tool\":\"shell\",\"input\":\"docker login -u ci -p {S} ghcr.io\"}",
			"{\"ts\":\"2026-11-29T10:11:14Z\",\"role\":\"tool\",\"name\":\"exec\",\"stdout\":\"token: {S}\\n\"}"),
		a("copilot-chat-export-md", "a key in an IDE chat export in markdown (text written here)", tok,
			"**User:** why does `client = Api(key=\"{S}\")` return 403?\n\n**Copilot:** The key may lack the `read` scope…",
			"## Chat\n> **you**: set AZURE_KEY to {S} in launch.json\n> **assistant**: Added to `.vscode/launch.json`.",
			"**You**: here's the curl that works: `curl -H 'X-Api-Key: {S}' https://api.acme.test/v1`",
			"### Conversation\n**user**: I set `ANTHROPIC_API_KEY={S}` but the SDK still says it's missing\n**assistant**: Check that the variable is exported…"),
		a("hook-output-json-env", "a secret echoed by an agent hook's JSON output (text written here)", tok,
			"PreToolUse hook output: {\"decision\":\"approve\",\"env\":{\"DEPLOY_TOKEN\":\"{S}\"}}",
			"[hook:session-start] loaded .env: OPENAI_API_KEY={S}",
			"hook stderr: warning: token {S} expires in 2 days",
			"{\"hookSpecificOutput\":{\"additionalContext\":\"staging creds: deploy / {S}\"}}"),
		a("notebook-tool-cell-output", "a secret in a notebook cell output an agent ran (text written here)", tok,
			"⏺ NotebookEdit(analysis.ipynb, cell 3)\n  ⎿  Out[3]: 'sk-proj-{S}'",
			"Cell 5 output:\n>>> os.environ['MAPBOX_TOKEN']\n'{S}'",
			"[cell 2] print(settings.api_key)\n{S}",
			"[execute_cell] id=7 → stdout: 'Connected with key {S}'"),
		a("gh-auth-status-show-token", "gh auth status --show-token output in a transcript (text written here)", ghp,
			"⏺ Bash(gh auth status --show-token)\n  ⎿  github.com\n       ✓ Logged in to github.com account octo-dev (keyring)\n       - Active account: true\n       - Token: {S}",
			"$ gh auth token\n{S}",
			"  ✓ Token: {S}\n  - Token scopes: 'gist', 'read:org', 'repo'",
			"$ glab auth status -t\ngitlab.com\n  ✓ Logged in to gitlab.com as jdoe\n  ✓ Token: {S}"),
		a("systemctl-show-environment", "a unit's Environment= shown by systemctl show or status to an agent (text written here)", pw,
			"⏺ Bash(systemctl show api.service -p Environment)\n  ⎿  Environment=PORT=8080 DB_PASS={S} LOG_LEVEL=info",
			"$ systemctl show-environment\nLANG=C.UTF-8\nBACKUP_PASSPHRASE={S}",
			"systemctl cat worker | grep Environment\nEnvironment=\"AMQP_PASS={S}\"",
			"$ launchctl getenv SYNC_PASSWORD\n{S}"),
		a("journalctl-config-dump-line", "a service's startup log, read with journalctl, that prints its config (text written here)", pw,
			"⏺ Bash(journalctl -u api -n 20 --no-pager)\n  ⎿  Nov 29 10:12:44 web1 api[2211]: config loaded: {redis: {host: cache, password: {S}}}",
			"Nov 29 10:12:44 web1 worker[901]: starting with smtp_user=noreply smtp_pass={S}",
			"-- Boot 3f2a --\nNov 29 03:00:01 nas backup.sh[771]: using repo password {S}",
			"kubectl logs deploy/api | head\n2026-11-29T10:12:44Z INFO settings: DATABASE_PASSWORD={S} POOL=10"),
		a("plan-mode-proposal-with-credential", "an agent's plan that spells out a credential it will use (text written here)", pw,
			"Plan:\n1. SSH to 10.0.0.9 as root (password {S})\n2. Restart nginx\n3. Verify with curl",
			"Here is what I'll do: log in to the Grafana admin with admin/{S}, add the Loki datasource, save.",
			"Proposed steps — connect to RabbitMQ at mq.acme.test with guest2 / {S} and purge the dead-letter queue.",
			"Next I'll run the migration as `migrator` with password {S}, then drop the temporary role."),
		a("agent-asks-to-confirm-password", "an agent asking the user to confirm a password back (text written here)", pw,
			"Just to confirm: the new SFTP password should be `{S}`? I'll set it on both servers.",
			"Is `{S}` the right admin password? The login returned 401.",
			"Before I continue — should I use {S} for the Redis AUTH, as in your earlier message?",
			"Quick check: your earlier message had two passwords — I'll use the second one, {S}, for the FTP upload. OK?"),
	}
}

func jwt6() func(*gen) string {
	return b6jwt("HS256", func(g *gen) string {
		return fmt.Sprintf(`{"sub":"%d","role":"service","iat":%d}`, 1000+g.rng.IntN(9000), 1764000000+g.rng.IntN(9e5))
	})
}

// --- chat: messages in many languages, in situations the earlier corpora did not write ---

func b6Chat() []b3Kind {
	c := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b6t("chat", name, source, body, texts...)
	}
	pw, tok := b6pw, b6token
	return []b3Kind{
		// Spanish
		c("es-cuenta-familiar-streaming", "Spanish family chat sharing a streaming account (text written here)", b6native("Paella", "Girasol", "Churro", "Flamenco", "Tortuga"),
			"Mamá, la cuenta de la tele es casa@familia.test y la contra es {S} 📺",
			"[Grupo Familia] Pablo: ya cambié la clave de Netflix, ahora es {S}, no la compartáis",
			"¿cuál era la clave de Disney? — {S} (con mayúscula)"),
		c("es-audio-transcrito-clave", "a Spanish voice-note transcript giving a key (text written here)", tok,
			"🎤 Nota de voz (0:21), transcripción: «oye, el token del servidor es {S}, apúntalo»",
			"Transcripción automática: ...y la clave de la API es {S}, te lo mando también por correo...",
			"(audio) «te dicto la contraseña: {S}»"),
		// Portuguese (Brazil)
		c("pt-br-conta-gov-sus", "Brazilian Portuguese messages about a government or health portal login (text written here)", pw,
			"Pai, pra entrar no gov.br usa teu CPF e a senha {S}, eu troquei ontem",
			"A senha do app do SUS ficou {S}, anota aí 🙏",
			"oi tia! senha do portal da escola: {S} (o login é o RA do Joãozinho)"),
		c("pt-br-correcao-digitei-errado", "a Brazilian Portuguese correction after a mistyped password (text written here)", pw,
			"opa, digitei errado antes — a senha certa é {S}",
			"*correção: {S} (esqueci o último caractere)",
			"[editada] senha do servidor: {S}"),
		// French
		c("fr-compte-impots-gouv", "French messages about a tax or benefits portal login (text written here)", pw,
			"Maman, pour impots.gouv c'est ton numéro fiscal et le mot de passe {S}",
			"Le mdp de la CAF c'est {S}, je l'ai noté dans le carnet aussi",
			"code d'accès Ameli : {S} (ne le donne à personne hein)"),
		c("fr-vocal-transcrit-jeton", "a French voice-message transcript with a token (text written here)", tok,
			"🎙️ Message vocal (0:18) — « bon le jeton pour l'API c'est {S}, tu le mets dans le .env »",
			"Transcription : … et la clé c'est {S}, voilà, bisous",
			"(vocal) « je te dicte le token : {S} »"),
		// German
		c("de-elster-zertifikat-pin", "German messages about an ELSTER or banking login (text written here)", pw,
			"Papa, das Passwort für die ELSTER-Zertifikatsdatei ist {S}",
			"Onlinebanking: Anmeldename steht auf der Karte, PIN ist jetzt {S} (hab's geändert)",
			"Kennwort fürs Schulportal: {S} – bitte nicht an die Kinder weitergeben 😅"),
		c("de-teams-nachtrag-zugang", "a German Teams follow-up giving server access (text written here)", pw,
			"Nachtrag zum Call: Zugang zum Jumphost ist ops / {S}",
			"kurz zur Info, das Kennwort vom Testsystem lautet jetzt {S}",
			"@Jan das Root-PW für den neuen Proxmox: {S}"),
		// Russian
		c("ru-gosuslugi-parol-rodstvennik", "Russian messages helping a relative with a state-services login (text written here)", pw,
			"Мам, на Госуслуги заходи по номеру телефона, пароль {S}",
			"пароль от личного кабинета налоговой: {S}",
			"Бабушка, пароль от Сбера я поменял на {S}, запиши в блокнот"),
		c("ru-golosovoe-token-servera", "a Russian voice-message transcript with a server token (text written here)", tok,
			"🎤 Голосовое (0:24): «короче токен для деплоя {S}, закинь в секреты»",
			"Расшифровка: ...ключ от API — {S}, старый я отозвал",
			"(голосовое) «диктую: {S}»"),
		// Romanian
		c("ro-cont-familie-abonament", "Romanian family chat sharing a subscription account (text written here)", b6native("Carpati", "Dunare", "Sarmale", "Mititei", "Brasov"),
			"Mami, parola de la HBO e {S}, contul e pe emailul tău",
			"am schimbat parola la Spotify familie: {S}",
			"parola de la laptopul bunicului: {S} 🙂"),
		c("ro-server-parola-noua", "Romanian team chat giving a new server password (text written here)", pw,
			"Salut, parola nouă pentru serverul de test este {S}",
			"am resetat contul de admin, parola e {S}, schimb-o după login",
			"@Andrei cheia de acces la bucket: {S}"),
		// Hungarian
		c("hu-ugyfelkapu-jelszo", "Hungarian messages about a government portal login (text written here)", pw,
			"Anya, az Ügyfélkapu jelszavad most {S}",
			"a KRÉTA jelszó: {S} (a gyerek azonosítójával lépj be)",
			"netbank belépés: felhasználó a kártyán, jelszó {S}"),
		c("hu-teszt-szerver-kulcs", "Hungarian team chat with a server key (text written here)", tok,
			"itt a tesztszerver API-kulcsa: {S} — ne tedd be a repóba",
			"új token: {S}, a régit letiltottam",
			"a jelszó a stagingen: {S}"),
		// Greek
		c("el-taxisnet-kodikos", "Greek messages about a Taxisnet or bank login (text written here)", pw,
			"Μαμά, ο κωδικός για το Taxisnet είναι {S}",
			"άλλαξα τον κωδικό του e-banking σε {S}",
			"ο κωδικός πρόσβασης για το σχολικό: {S}"),
		c("el-kleidi-api-omada", "Greek team chat sharing an API key (text written here)", tok,
			"το κλειδί API για το staging: {S} μην το ανεβάσεις στο git",
			"νέο token: {S}",
			"βάλε αυτό στα secrets του CI: {S}"),
		// Finnish
		c("fi-perheen-tili-salasana", "Finnish family chat sharing an account password (text written here)", b6native("Sauna", "Mokki", "Kuusi", "Pulla", "Revontuli"),
			"Äiti, Viaplayn salasana on {S}",
			"vaihdoin kotikoneen salasanan: {S}",
			"Wilman salasana on nyt {S}, älä kerro lapsille"),
		c("fi-palvelin-tunnus", "Finnish team chat giving server credentials (text written here)", pw,
			"testipalvelimen tunnukset: deploy / {S}",
			"uusi salasana tietokantaan: {S}",
			"API-avain: {S} (vanha on poistettu)"),
		// Danish / Norwegian
		c("da-eboks-aula-familie-kode", "Danish family messages about a login (text written here)", pw,
			"Mor, koden til e-Boks er {S}",
			"adgangskoden til Aula er {S}",
			"jeg har skiftet koden på den fælles computer til {S}"),
		c("no-jobb-tilgang-passord", "Norwegian team chat giving access (text written here)", pw,
			"passordet til testserveren er {S}",
			"nytt passord på admin-kontoen: {S}",
			"API-nøkkelen til staging: {S}"),
		// Bulgarian / Serbian / Croatian
		c("bg-parola-obshta-smetka", "Bulgarian messages sharing a password (text written here)", pw,
			"паролата за общия акаунт е {S}",
			"смених паролата на рутера: {S}",
			"ключът за API-то: {S}"),
		c("sr-lozinka-za-server", "Serbian (Latin and Cyrillic) messages giving a server password (text written here)", pw,
			"lozinka za test server je {S}",
			"нова лозинка за админ налог: {S}",
			"šifra za VPN: {S}"),
		c("hr-zaporka-obitelj", "Croatian family messages sharing a password (text written here)", b6native("Jadran", "Plitvice", "Burek", "Istra", "Dubrovnik"),
			"mama, zaporka za e-Građane je {S}",
			"lozinka za Netflix: {S}",
			"promijenio sam šifru na laptopu u {S}"),
		// Slovak / Lithuanian
		c("sk-heslo-slovensko-sk", "Slovak messages about a portal password (text written here)", pw,
			"heslo k slovensko.sk je {S}",
			"nové heslo na server: {S}",
			"prístup do internetbankingu: {S}"),
		c("lt-slaptazodis-seima", "Lithuanian family messages sharing a password (text written here)", pw,
			"mama, slaptažodis nuo Elektroninio dienyno: {S}",
			"pakeičiau Wi-Fi slaptažodį į {S}",
			"slaptažodis serveriui: {S}"),
		// Persian
		c("fa-ramz-bank-khanevade", "Persian family messages about a bank app password (text written here)", pw,
			"مامان رمز اینترنت بانک رو عوض کردم، رمز جدید: {S}",
			"رمز عبور سامانه آموزش: {S}",
			"رمز لپ‌تاپ بابا {S} هست"),
		c("fa-kelid-api-tim", "Persian team chat sharing an API key (text written here)", tok,
			"کلید API سرور تست: {S} لطفا توی گیت نذارید",
			"توکن جدید ساختم: {S}",
			"این رو بذار توی secrets: {S}"),
		// Bengali
		c("bn-laptop-server-password-mixed", "Bengali messages about an app password, in Bengali script and Banglish (text written here)", pw,
			"আম্মু, অফিসের ল্যাপটপের পাসওয়ার্ড {S}",
			"server er password change korsi, notun ta {S}",
			"পোর্টালের পাসওয়ার্ড: {S}"),
		c("bn-api-chabi-team", "Bengali team chat sharing an API key (text written here)", tok,
			"staging এর API key: {S}",
			"নতুন টোকেন: {S}, পুরানোটা বাতিল",
			"ei key ta CI te boshao: {S}"),
		// Tamil
		c("ta-kadavuchol-kudumbam", "Tamil messages sharing a password, in Tamil script and Tanglish (text written here)", pw,
			"அம்மா, நெட்ஃபிளிக்ஸ் கடவுச்சொல் {S}",
			"server password maathiten, pudhu password {S}",
			"கடவுச்சொல்: {S}"),
		// Swahili
		c("sw-nenosiri-benki-familia", "Swahili messages sharing a password (text written here)", pw,
			"Mama, nenosiri la akaunti ya benki ni {S}",
			"nimebadilisha nenosiri la kompyuta: {S}",
			"nenosiri la seva ya majaribio: {S}"),
		c("sw-ufunguo-api-timu", "Swahili team chat sharing an API key (text written here)", tok,
			"ufunguo wa API wa staging: {S}",
			"tokeni mpya: {S}",
			"weka hii kwenye secrets za CI: {S}"),
		// Tagalog
		c("tl-password-netflix-pamilya", "Taglish family messages sharing a password (text written here)", pw,
			"Ma, yung password sa Netflix ay {S}",
			"pinalitan ko yung password ng laptop, {S} na ngayon",
			"ito yung password ng portal ni bunso: {S}"),
		c("tl-susi-api-trabaho", "Taglish team chat sharing an API key (text written here)", tok,
			"eto yung API key sa staging: {S}, wag i-commit ha",
			"bagong token: {S}",
			"pakilagay sa CI secrets: {S}"),
		// Malay
		c("ms-kata-laluan-portal", "Malay messages about a portal password (text written here)", pw,
			"kata laluan MyTax: {S}",
			"mak, kata laluan akaun bank dah tukar jadi {S}",
			"kata laluan server ujian: {S}"),
		// Catalan
		c("ca-contrasenya-compartida", "Catalan messages sharing a password (text written here)", pw,
			"la contrasenya del compte compartit és {S}",
			"he canviat la clau del servidor: {S}",
			"contrasenya nova: {S} (no la passis)"),
		// Urdu
		c("ur-password-roman-and-script", "Urdu messages sharing a password, in Urdu script and Roman Urdu (text written here)", pw,
			"امی، بینک ایپ کا پاس ورڈ {S} ہے",
			"server ka password badal diya, naya {S} hai",
			"پورٹل کا پاس ورڈ: {S}"),
		// Korean / Japanese / Chinese (new situations)
		c("ko-gajok-ott-bimilbeonho", "Korean family chat sharing a streaming password (text written here)", b6native("Kimchi", "Hangang", "Bibimbap", "Jeju", "Hanok"),
			"엄마 넷플릭스 비번 {S} 이에요",
			"티빙 비밀번호 바꿨어 → {S}",
			"아빠 노트북 비번: {S}"),
		c("ja-kazoku-line-pasuwado", "Japanese family LINE messages sharing a password (text written here)", b6native("Sakura", "Fuji", "Onigiri", "Tanuki", "Momiji"),
			"お母さん、アマプラのパスワードは {S} だよ",
			"家のパソコンのパスワード変えたよ→{S}",
			"マイナポータルのパスワード：{S}（メモしておいてね）"),
		c("zh-jiating-qun-mima", "Chinese family group messages sharing a password (text written here)", b6native("Panda", "Changcheng", "Jiaozi", "Xihu", "Mooncake"),
			"妈，爱奇艺会员的密码是{S}",
			"家里电脑密码改成 {S} 了",
			"【家庭群】爸：社保网站的密码 {S}，别弄丢了"),
		// mixed
		c("code-switch-en-es-spanglish-token", "Spanglish and Hinglish messages with a token (text written here)", tok,
			"bro el token del staging es {S}, lo pegas en el .env y ya",
			"yaar ye wala token use karo: {S}, purana expire ho gaya",
			"oye el API key nuevo → {S} (the old one got revoked lol)"),
		c("edited-message-marker-password", "a password in a chat message marked as edited (text written here)", pw,
			"the db password is {S} (edited)",
			"contraseña: {S} · editado",
			"pw: {S}  ✏️ bearbeitet"),
		c("reply-thread-quoted-question", "a password answered in a chat reply quoting the question in another language (text written here)", pw,
			"↪ Replying to Kenji: 「パスワード何？」\n{S}",
			"↩︎ En réponse à Léa : « c'est quoi le mdp ? »\n{S}",
			"Antwort auf Jonas: „wie war das Passwort nochmal?“\n{S}"),
		c("voice-to-text-with-fillers", "an English voice-to-text transcript giving a password with fillers (text written here)", pw,
			"[Voice message transcript] uh so the password for the shared drive is {S} um yeah call me if it doesn't work",
			"Transcribed: okay the login for the camera app is admin and then {S} got it",
			"🎤 0:12 \"hey so the new code is {S} bye\""),
		c("forwarded-message-header", "a password in a forwarded chat message (text written here)", pw,
			"Forwarded from IT Support:\nYour temporary password is {S}. Change it after first login.",
			"⤷ Переслано от Админ: пароль {S}",
			"↪ Weitergeleitet: Zugang zum Kundenportal, Passwort {S}"),
	}
}

// --- nokeyword: passwords and tokens said with no key word at all ---

func b6NoKeyword() []b3Kind {
	n := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b6t("nokeyword", name, source, body, texts...)
	}
	// half the bodies are what a manager makes, half what a person picks
	st := func(g *gen) string {
		if g.rng.IntN(2) == 0 {
			return b6strong(g)
		}
		return b6pw(g)
	}
	tok := b6token
	return []b3Kind{
		n("typed-into-wrong-window", "a password typed into a chat by mistake, then disowned (text written here)", st,
			"{S}\nignore that, wrong window 🤦",
			"[10:02] dana: {S}\n[10:02] dana: sorry, that was meant for the sudo prompt",
			"{S}\noops. changing it now"),
		n("second-message-only", "a secret sent alone in the message after 'sending it now' (text written here)", st,
			"[09:14] mo: ok sending it in a sec\n[09:14] mo: {S}",
			"Ana: one moment\nAna: {S}\nAna: got it?",
			"> sending separately\n{S}"),
		n("code-block-alone", "a secret alone in a code block (text written here)", st,
			"```\n{S}\n```",
			"here:\n```text\n{S}\n```",
			"`{S}`"),
		n("copied-from-manager", "a secret pasted from a password manager with its clipboard note (text written here)", st,
			"{S}\nCopied to clipboard. Clears in 30 seconds.",
			"{S}  (from bitwarden, the acme-prod entry)",
			"1Password → {S}"),
		n("i-think-its-or-maybe", "a half-remembered password with no keyword (text written here)", st,
			"I think it's {S}, or maybe with a 2 at the end",
			"pretty sure {S} but not 100%",
			"last time it was {S}, try that first"),
		n("did-you-mean", "a password offered back as a question (text written here)", st,
			"did you mean {S}?",
			"wait, {S} or the old one?",
			"{S}? that's what I have in my notes"),
		n("ordered-candidates", "a list of password candidates to try (text written here)", st,
			"try these in order:\n1. {S}\n2. the one from last year\n3. ask Priya",
			"- {S}\n- same with ! at the end",
			"a) {S}\nb) default"),
		n("positional-script-argument", "a secret as a bare positional argument of a script, no flag name (text written here)", tok,
			"./deploy.sh prod {S}",
			"python sync.py eu-west-1 {S} --dry-run",
			"node scripts/seed.js {S}"),
		n("share-link-path-token", "a share link whose path is the secret (text written here)", b6s(alnum, 22),
			"https://files.acme.test/s/{S}",
			"download the dump here: https://drop.acme.test/d/{S} (expires friday)",
			"https://meet.acme.test/j/{S}"),
		n("bare-token-after-endpoint", "a token on the line after an endpoint, no keyword (text written here)", tok,
			"https://api.acme.test/v2\n{S}",
			"endpoint: https://ingest.acme.test\n{S}",
			"hook.acme.test/in\n{S}\n(post json)"),
		n("table-ip-user-secret", "a host, user and secret in a bare table row (text written here)", st,
			"10.0.0.5   root   {S}",
			"nas01 | admin | {S}",
			"printer-3f  admin  {S}  (factory reset did not change it)"),
		n("for-the-record", "a password given 'for the record' or 'fyi' (text written here)", st,
			"for the record: {S}",
			"fyi {S}",
			"just so it's written down somewhere: {S}"),
		n("json-value-short-key", "a secret as a JSON value under a meaningless key (text written here)", tok,
			"{\"v\": \"{S}\", \"n\": 3}",
			"{\"a\":\"prod\",\"b\":\"{S}\"}",
			"[\"eu-west-1\", \"{S}\", true]"),
		n("handoff-words-many-languages", "a secret handed over with 'here you are' in many languages (text written here)", st,
			"toma: {S}",
			"держи: {S}",
			"tafadhali: {S}"),
		n("handoff-words-asian-languages", "a secret handed over with 'here' in Asian languages (text written here)", st,
			"どうぞ→{S}",
			"给你：{S}",
			"ini dia: {S}"),
		n("unlock-the-thing", "a secret given as what opens a thing (text written here)", st,
			"the zip opens with {S}",
			"{S} unlocks the laptop in the meeting room",
			"the pdf needs {S}"),
		n("sms-style-login-info", "an SMS-style message with a code and no keyword (text written here)", b6s(b6UpD, 10),
			"Acme: use {S} to sign in. Don't share it.",
			"{S} is your Acme sign-in code.",
			"Your Acme login: {S} (valid 10 min)"),
		n("in-parentheses-after-name", "a secret in parentheses after a system name (text written here)", st,
			"Grafana ({S})",
			"the old wiki [{S}]",
			"staging box — {S}"),
		n("quoted-in-sentence", "a secret in quotes in an ordinary sentence (text written here)", st,
			"I typed \"{S}\" and it still says invalid",
			"it accepted '{S}' the second time",
			"enter «{S}» on the first screen"),
		n("email-body-only-secret", "a mail whose body is only the secret between greeting and sign-off (text written here)", st,
			"Hi Sam,\n\n{S}\n\nCheers,\nDana",
			"Hallo Jonas,\n\n{S}\n\nGruß\nEva",
			"Subject: as discussed\n\n{S}\n\n-- \nsent from my phone"),
		n("pastebin-bare-block", "a secret alone in a paste between paste markers (text written here)", st,
			"--- paste 4f2a (expires in 1h) ---\n{S}\n--- end ---",
			"-----8<-----\n{S}\n-----8<-----",
			"[paste]\n{S}\n[/paste]"),
		b6f("nokeyword", "typed-twice-to-confirm", "a secret typed twice, as into a confirm field, in a chat (text written here)", 3, func(g *gen, i int) (string, string) {
			s := st(g)
			return []string{s + "\n" + s, s + " / " + s + " (typed twice to be sure)", "new: " + s + "\nconfirm: " + s}[i], s
		}),
		b6f("nokeyword", "typed-at-shell-prompt", "a secret typed at a shell prompt by mistake, echoed back by the shell's error (text written here)", 3, func(g *gen, i int) (string, string) {
			s := st(g)
			return []string{
				"dev@laptop:~$ " + s + "\nzsh: command not found: " + s,
				"PS C:\\Users\\dev> " + s + "\n" + s + " : The term '" + s + "' is not recognized as the name of a cmdlet",
				"$ " + s + "\nbash: " + s + ": command not found",
			}[i], s
		}),
	}
}

// --- negatives: ordinary lines that look risky and hold no secret ---

func blind6Negatives() []string {
	out := []string{
		// identifiers, lookups and references
		"ClientSecret: oauthCfg.ClientSecret, // from the secret store",
		"opts.Password = cfg.Database.Password",
		"token = os.environ[\"GITLAB_TOKEN\"]",
		"api_key = settings.PAYMENTS_API_KEY",
		"password: ${POSTGRES_PASSWORD:?must be set}",
		"secret_key_base: <%= ENV.fetch(\"SECRET_KEY_BASE\") %>",
		"DB_PASS=$(vault kv get -field=pass secret/app/db)",
		"export NPM_TOKEN=\"$(op read op://ci/npm/token)\"",
		"\"apiKey\": \"{{ env \\\"MAPS_KEY\\\" }}\"",
		"token: !Ref GitHubTokenParameter",
		"password: !Sub '{{resolve:secretsmanager:${DbSecret}:SecretString:password}}'",
		"client_secret = var.oauth_client_secret",
		"value: \"#{OctopusDeployPassword}\"",
		"Authorization: Bearer ${ACCESS_TOKEN}",
		"curl -H \"X-Api-Key: $API_KEY\" https://api.example.com/v1/ping",
		"kubectl create secret generic db --from-literal=password=\"$DB_PASSWORD\"",
		"docker login -u \"$REGISTRY_USER\" --password-stdin <<< \"$REGISTRY_PASS\"",
		"mysql -u root -p\"$MYSQL_ROOT_PASSWORD\" -e 'select 1'",
		"const secret = process.env.WEBHOOK_SECRET ?? throwMissing('WEBHOOK_SECRET');",
		"let token = std::env::var(\"DISCORD_TOKEN\").expect(\"DISCORD_TOKEN not set\");",
		"String pass = System.getenv(\"SMTP_PASSWORD\");",
		"$password = getenv('APP_DB_PASSWORD');",
		"password := os.Getenv(\"REDIS_PASSWORD\")",
		"self.api_token = api_token or os.getenv(\"ACME_TOKEN\")",
		"if not password: raise ValueError(\"password is required\")",
		"func (s *Session) WithToken(tok string) *Session { s.tok = tok; return s }",
		"type Credentials struct { User, Password string }",
		"passwordHash := bcrypt.GenerateFromPassword([]byte(password), 12)",
		"var passwordField = document.getElementById('password');",
		"<input type=\"password\" id=\"pw\" autocomplete=\"new-password\" minlength=\"12\">",
		"<label for=\"token-input\">Personal access token</label>",
		"@Value(\"${jwt.secret}\") private String jwtSecret;",
		"secretRef:\n  name: db-credentials",
		"valueFrom: { secretKeyRef: { name: smtp, key: password } }",
		"envFrom:\n  - secretRef: { name: app-secrets }",
		"password_command = \"pass show mail/work\"",
		"PassCmd \"security find-internet-password -s imap.example.com -w\"",
		"auth_token_file = /run/secrets/auth_token",
		"--password-file=/etc/restic/password",
		"SOPS_AGE_KEY_FILE=~/.config/sops/age/keys.txt",
		"IdentityFile ~/.ssh/work_ed25519\nIdentitiesOnly yes",
		"ssl_certificate_key /etc/ssl/private/example.key;",
		"private_key_path = \"secrets/signing.pem\"",
		"GOOGLE_APPLICATION_CREDENTIALS=/var/run/gcp/sa.json",
		// placeholders in docs context
		"Replace <your-api-key> with the key from the dashboard.",
		"export OPENWEATHER_KEY=<paste-your-key-here>",
		"api_key: \"xxxxxxxxxxxxxxxxxxxx\"",
		"password = \"changeme\"  # docs example, the installer asks for a real one",
		"token: \"<TOKEN>\"",
		"DATABASE_URL=postgresql://USER:PASS@HOST:5432/DB  # template",
		"mongodb+srv://<username>:<password>@cluster0.example.net/",
		"https://USERNAME:PASSWORD@git.example.com/org/repo.git",
		"Authorization: Basic <base64(user:pass)>",
		"SECRET_KEY=your-secret-key-here",
		"STRIPE_KEY=sk_test_...",
		"ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
		"AKIAXXXXXXXXXXXXXXXX",
		"password: \"********\"  # masked by the CI",
		"token=*** (masked)",
		"client_secret: \"[hidden]\"",
		"\"password\": null,",
		"smtp_password: \"\"  # empty disables auth",
		"PASSWORD=",
		"api_key = None  # set at runtime",
		"default password is documented in the vendor manual, section 4.2",
		"Use a strong password of at least 12 characters.",
		"The token must start with `xoxb-` for bot tokens.",
		"Keys look like `sk-...`; never commit them.",
		"Set `API_TOKEN` in the repository secrets, not in the workflow file.",
		// hashes, ids and digests named as such
		"commit 5c8e1a7f3b2d9e0c4a6f8b1d3e5a7c9f0b2d4e6a",
		"Merge: 3a1f9c2 e7b04d1",
		"Reviewed-on: https://review.example.org/c/project/+/48213",
		"Change-Id: I8e5c2d6f0b1a4c7e9d3f2a1b0c9d8e7f6a5b4c3d",
		"request_id=2f9c0e7a-4b1d-4e3a-9c8f-7a6b5c4d3e2f",
		"x-amzn-trace-id: Root=1-67a1b2c3-1a2b3c4d5e6f7a8b9c0d1e2f",
		"traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"\"integrity\": \"sha512-9Qk7c0bT2xqvJ3yYq8pQ0j5uH0c8B2g7Zs1r4o5m6n7k8l9j0i1h2g3f4e5d6c7b8a9Z0Y1X2W3V4U5T6S7R8Q==\"",
		"go.sum: golang.org/x/text v0.14.0 h1:Vb3Kq9Lm2Xr7Tn5Wj8Hs1Pd4Fc6Gz0Ya2Ue9Oi3Nk7=",
		"FROM python:3.12-slim@sha256:0f4ab6c2b0de7a2f9b3c1d4e5f60718293a4b5c6d7e8f90112233445566778899",
		"blob sha1 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
		"md5sum: d41d8cd98f00b204e9800998ecf8427e  empty.txt",
		"ETag: W/\"5e-1f2a3b4c\"",
		"Content-MD5: Q2hlY2sgSW50ZWdyaXR5IQ==",
		"fingerprint SHA256:q4Lm0Xv8Rk2Tj7Wn3Ys5Bd9Hc1Fg6Pz0Ae4Ku8Ns2Vx (ED25519)",
		"pubkey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK3vQm8Zr1Tx5Wn7Ls2Hd9Fj4Bc6Pg0Ye3Ku8Ma1Nq5R dev@laptop",
		"-----BEGIN PUBLIC KEY----- (the public half is fine to share)",
		"-----BEGIN CERTIFICATE REQUEST-----",
		"ssh-keygen -t ed25519 -C \"dev@example.com\" -f ~/.ssh/id_ed25519",
		"openssl genpkey -algorithm ed25519 -out key.pem",
		"age-keygen -o ~/.config/sops/age/keys.txt",
		"umask 077; wg genkey > /etc/wireguard/wg1.key",
		"uuid: 4f0c2a9e-8b1d-4c3e-9a7f-1e2d3c4b5a60",
		"orderId=ORD-2026-11-000184",
		"Tracking number: 1Z4A7E0X0360012345",
		"IBAN: DE00 0000 0000 0000 0000 00 (example)",
		"ISBN 978-0-00-000000-2 (placeholder)",
		"build 20261129.4 (a1b2c3d)",
		"release v2.14.0-rc.3+build.5521",
		"image: ghcr.io/example/api:2.14.0",
		"node_modules/.pnpm/@babel+core@7.24.0/node_modules/@babel/core",
		"font-src data: 'self'; img-src 'self' data:",
		"src: url(data:font/woff2;base64,d09GMgABAAAAAAQ4AAsAAAAACQAAAAPpAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAABmAAgkIKhGSDfQE2AiQDEAsKAAQgBYQSBzUbmgcRFaSrkX1xYGz3HE=) format(\"woff2\");",
		"background-image: url(\"data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PC9zdmc+\");",
		"<img alt=\"logo\" src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
		"color: rgb(34, 197, 94);",
		"--brand-primary: #7c3aed;",
		"fill=\"#0F172A\"",
		"hsl(220deg 14% 96%)",
		"timestamp=2026-11-29T10:12:44.512Z",
		"Date: Sat, 29 Nov 2026 10:12:44 GMT",
		"expires_at: 1764410400",
		"Last-Modified: Fri, 28 Nov 2026 17:03:12 GMT",
		"cron: \"0 3 * * 1-5\"",
		"path: /var/lib/postgresql/16/main/pg_wal/000000010000000A000000FE",
		"C:\\ProgramData\\Acme\\Agent\\logs\\agent-20261129.log",
		"/home/runner/work/_temp/9d2b9c1e-7f4a-4a5e-b1c3-8e2f6d0a1b4c.sh",
		"s3://example-logs/AWSLogs/123456789012/CloudTrail/eu-west-1/2026/11/29/",
		"https://docs.example.com/guides/authentication#creating-an-api-key",
		"https://github.com/example/project/blob/main/docs/SECURITY.md",
		"https://accounts.example.com/reset?step=email",
		"wss://realtime.example.com/socket/websocket?vsn=2.0.0",
		"Supercalifragilisticexpialidocious",
		"Donaudampfschifffahrtsgesellschaftskapitän",
		"internationalisation-and-localisation",
		"電子メールアドレス確認手続き完了のお知らせ",
		"中华人民共和国国家标准化管理委员会",
		"대한민국정부전자문서유통지원센터",
		// agent and CI lines that mention secrets without holding one
		"⏺ Bash(grep -rn \"password\" src/ | wc -l)\n  ⎿  7",
		"I won't print the contents of .env; it contains credentials. I checked that DATABASE_URL is set.",
		"The API key is read from the environment variable OPENAI_API_KEY; I didn't hard-code it.",
		"Warning: the token in your message looks like a real credential — please rotate it.",
		"Masked 3 secrets in the log output.",
		"⎿  Error: Missing required environment variable STRIPE_SECRET_KEY",
		"Secret scanning found 0 new alerts.",
		"gitleaks: no leaks found (scanned 1,204 commits)",
		"trufflehog: 0 verified secrets, 2 unverified (test fixtures)",
		"Run `gh auth login` and pick HTTPS; the CLI stores the token in the keyring.",
		"vault login -method=oidc role=dev",
		"aws sso login --profile prod",
		"az login --use-device-code",
		"gcloud auth application-default login",
		"npm login --auth-type=web",
		"The key rotation job ran at 03:00; all tokens older than 90 days were revoked.",
		"401 Unauthorized: token expired",
		"403 Forbidden: API key does not have the `write` scope",
		"Error: password authentication failed for user \"app\"",
		"FATAL: no pg_hba.conf entry for host \"10.0.0.7\", user \"replicator\"",
		"ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey]",
		"git@github.com: Permission denied (publickey).",
		"Login failed for user 'sa'. Reason: Password did not match that for the login provided.",
		"WARN  [auth] invalid signature on JWT (kid=2024-07)",
		"level=warn msg=\"webhook signature mismatch\" provider=github",
		"The passphrase you entered is incorrect. 2 attempts left.",
		// chat in many languages about passwords, without one
		"Restablece tu contraseña desde el enlace que te llegó al correo.",
		"o token expirou, gera outro no painel",
		"Votre mot de passe doit comporter 12 caractères dont un chiffre.",
		"Bitte das Passwort nicht per Mail schicken, nimm den Passwortmanager.",
		"Пароль не подходит, попробуй сбросить через почту.",
		"Parola a expirat, resetează-o din portal.",
		"A jelszavadat a beállításokban tudod módosítani.",
		"Ο κωδικός έληξε, κάνε επαναφορά από το email.",
		"Salasana vanheni, vaihda se portaalissa.",
		"Adgangskoden er udløbet – nulstil den via linket.",
		"Passordet må være minst tolv tegn.",
		"Паролата трябва да съдържа поне една цифра.",
		"Lozinka je istekla, resetuj je preko portala.",
		"Zaporku nikad ne šaljite porukom.",
		"Heslo si zmeňte po prvom prihlásení.",
		"Slaptažodį pasikeiskite nustatymuose.",
		"رمز عبور منقضی شده، از لینک ایمیل دوباره بسازید.",
		"পাসওয়ার্ড ভুলে গেলে 'Forgot password' এ ক্লিক করো।",
		"கடவுச்சொல்லை யாருடனும் பகிர வேண்டாம்.",
		"Nenosiri lako limeisha muda, libadilishe kwenye tovuti.",
		"Nag-expire na yung password mo, i-reset mo sa link.",
		"Kata laluan anda telah tamat tempoh.",
		"La contrasenya ha caducat, canvia-la des del portal.",
		"پاس ورڈ کسی کے ساتھ شیئر نہ کریں۔",
		"비밀번호는 절대 채팅으로 보내지 마세요.",
		"パスワードはチャットに書かないでください。",
		"密码已过期，请通过邮件里的链接重置。",
		"Токен протух, перевыпусти в настройках.",
		"the wifi password is on the fridge, I'm not typing it here",
		"I'll DM you the password in 1Password, not here",
		"new token is in the vault under ci/npm",
		"use the same password as last time (you know the one)",
		"password reset link sent — check your spam folder",
		"the key is in the usual place 🔑",
		"🔒 secrets moved to Doppler, see #infra",
		"Two-factor code sent to your phone ending in 42.",
		"Your verification code expires in 10 minutes.",
		// code and config that only look risky
		"if token == \"\" { return errMissingToken }",
		"assert response.json()[\"token_type\"] == \"Bearer\"",
		"expect(headers.authorization).toMatch(/^Bearer /)",
		"PASSWORD_MIN_LENGTH = 12",
		"MAX_TOKEN_AGE = timedelta(hours=1)",
		"secret_rotation_days: 30",
		"token_url = \"https://login.example.org/oauth2/v2.0/token\"",
		"grant_type=client_credentials&scope=read",
		"response_type=code&client_id=web-app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb",
		"Set-Cookie: theme=dark; Path=/; SameSite=Lax",
		"Cookie: consent=1; lang=en",
		"X-Request-ID: 7d1f3a90",
		"Accept-Encoding: gzip, deflate, br",
		"key_type = \"ed25519\"",
		"keySize: 2048",
		"cipher: aes-256-gcm",
		"kdf: argon2id, m=65536, t=3, p=4",
		"jwt:\n  algorithm: RS256\n  issuer: https://auth.example.com",
		"openssl rand -base64 32  # generate your own, don't reuse the docs value",
		"python3 -c 'import secrets; print(secrets.token_hex(32))'  # make your own",
		"openssl rand -hex 32 > .jwt_secret  # never commit this file",
		"Argon2 hash prefix: $argon2id$v=19$m=65536,t=3,p=4$",
		"bcrypt cost factor is 12 ($2b$12$ prefix)",
		"encrypted_value: ENC[AES256_GCM,data:...,type:str]",
		"password: !vault-encrypted (see group_vars/vault.yml)",
		"sealedsecret: AgB... (encrypted for the cluster key, safe to commit)",
	}
	g := &gen{rand.New(rand.NewPCG(0xb16d6, blind6Seed))}
	for range 10 {
		out = append(out, fmt.Sprintf("commit %s (HEAD -> main, origin/main)", g.s(hexlc, 40)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("Cherry-picked from %s", g.s(hexlc, 40)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("resolved \"https://registry.example.org/pkg/-/pkg-%d.%d.%d.tgz#%s\"", g.rng.IntN(9), g.rng.IntN(20), g.rng.IntN(20), g.s(hexlc, 40)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("sha256sum: %s  dist/app-linux-amd64.tar.gz", g.s(hexlc, 64)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("pod/api-%s-%s   1/1   Running   0   3d", g.s(b6LoD, 10), g.s(b6LoD, 5)))
	}
	for range 8 {
		out = append(out, fmt.Sprintf("correlation_id=%s span_id=%s", b6uuid(g), g.s(hexlc, 16)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("Object key: uploads/2026/11/%s.jpg", b6uuid(g)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("thumbnail (image/webp, base64): UklGR%s", g.s(b64std, 40)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("\"checksum\": \"sha1:%s\"", g.s(hexlc, 40)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("Message-ID: <%s.%d@mail.example.com>", g.s(hexlc, 16), g.rng.IntN(1e6)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("color: #%s; border-color: #%s;", g.s(hexlc, 6), g.s(hexlc, 6)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("v%d.%d.%d (%s) built %d-11-%02d", 1+g.rng.IntN(4), g.rng.IntN(30), g.rng.IntN(30), g.s(hexlc, 7), 2026, 1+g.rng.IntN(28)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("Fixes #%d, see also %s", 100+g.rng.IntN(9000), g.s(hexlc, 12)))
	}
	for range 6 {
		out = append(out, fmt.Sprintf("ULID %s", g.s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)))
	}
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], "\n", " ")
	}
	return out
}

// b6xxencode is xxencode of s: lines of up to 45 bytes, each led by its length, in the
// +-0-9A-Za-z alphabet.
func b6xxencode(s string) string {
	const a = "+-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var lines []string
	b := []byte(s)
	for len(b) > 0 {
		n := min(45, len(b))
		chunk := append([]byte(nil), b[:n]...)
		b = b[n:]
		var l strings.Builder
		l.WriteByte(a[n])
		for len(chunk)%3 != 0 {
			chunk = append(chunk, 0)
		}
		for i := 0; i < len(chunk); i += 3 {
			v := uint(chunk[i])<<16 | uint(chunk[i+1])<<8 | uint(chunk[i+2])
			l.WriteByte(a[v>>18&63])
			l.WriteByte(a[v>>12&63])
			l.WriteByte(a[v>>6&63])
			l.WriteByte(a[v&63])
		}
		lines = append(lines, l.String())
	}
	return strings.Join(lines, "\n")
}
