package redact

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// Alphabets of fake secrets.
const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lalnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	ualnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexlc  = "0123456789abcdef"
	b64    = alnum + "+/"
	urlb64 = alnum + "-_"
)

// faker makes reproducible random strings of the shapes secret scanners look for.
type faker struct{ rng *rand.Rand }

func newFaker(seed uint64) *faker { return &faker{rand.New(rand.NewPCG(seed, 7))} }

func (f *faker) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[f.rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (f *faker) uuid() string {
	h := f.s(hexlc, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

func (f *faker) b64cred(user string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + f.s(alnum, 14)))
}

// secretCase is one kind of secret: the rule expected to catch it, the text around it (%s marks
// the secret) and the secret itself. Only the secret must disappear; the text may keep its key.
type secretCase struct {
	kind, rule, text, secret string
}

// secretCorpus builds realistic FAKE secrets of more than 80 kinds, after the rules of gitleaks
// (config/gitleaks.toml) and trufflehog's detectors, each in the kind of text a comment carries.
func secretCorpus(seed uint64) []secretCase {
	f := newFaker(seed)
	pem := func(label string) string {
		return "-----BEGIN " + label + "-----\n" + f.s(b64, 64) + "\n" + f.s(b64, 64) + "\n" + f.s(b64, 20) + "==\n-----END " + label + "-----"
	}
	jwt := func() string {
		return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + f.s(urlb64, 40) + "." + f.s(urlb64, 43)
	}
	c := []secretCase{
		{"aws access key id", "aws_access_key", "aws_access_key_id = %s", "AKIA" + f.s(ualnum, 16)},
		{"aws temporary key id", "aws_access_key", `{"AccessKeyId": "%s"}`, "ASIA" + f.s(ualnum, 16)},
		{"aws secret key (credentials file)", "aws_secret_key", "aws_secret_access_key = %s", f.s(b64, 40)},
		{"aws SecretAccessKey (sts json)", "assignment", `{"Credentials": {"SecretAccessKey": "%s", "Expiration": "2026-01-01"}}`, f.s(b64, 40)},
		{"aws SessionToken (sts json)", "assignment", `{"SessionToken": "%s"}`, "IQoJb3JpZ2luX2VjE" + f.s(b64, 180)},
		{"AWS_SESSION_TOKEN env", "assignment", "export AWS_SESSION_TOKEN=%s", "FwoGZXIvYXdzE" + f.s(b64, 150)},
		{"github classic pat", "github_token", "git push https://github.com/o/r with %s", "ghp_" + f.s(alnum, 36)},
		{"github oauth token", "github_token", "token %s", "gho_" + f.s(alnum, 36)},
		{"github fine-grained pat", "github_pat", "GH_TOKEN is %s now", "github_pat_11" + f.s(ualnum, 20) + "_" + f.s(alnum, 59)},
		{"gitlab pat", "gitlab_token", "CI pushes with %s", "glpat-" + f.s(urlb64, 20)},
		{"gitlab runner token", "gitlab_token", "registered with %s", "glrt-" + f.s(urlb64, 20)},
		{"npm automation token", "npm_token", "publish with %s", "npm_" + f.s(alnum, 36)},
		{"npmrc _authToken uuid", "assignment", "//registry.npmjs.org/:_authToken=%s", f.uuid()},
		{"npmrc _auth base64", "assignment", "_auth=%s", f.b64cred("ci-bot")},
		{"digitalocean pat", "digitalocean_token", "doctl auth init -t %s", "dop_v1_" + f.s(hexlc, 64)},
		{"sendgrid key", "sendgrid_key", "SENDGRID %s", "SG." + f.s(urlb64, 22) + "." + f.s(urlb64, 43)},
		{"huggingface token", "huggingface_token", "login %s", "hf_" + f.s(alnum, 34)},
		{"pypi token", "pypi_token", "twine upload -p %s", "pypi-AgEIcHlwaS5vcmc" + f.s(urlb64, 70)},
		{"slack webhook", "slack_webhook", "alerts https://hooks.slack.com/services/%s", "T" + f.s(ualnum, 8) + "/B" + f.s(ualnum, 8) + "/" + f.s(alnum, 24)},
		{"slack bot token", "slack_token", "SLACK %s", "xoxb-" + f.s("0123456789", 12) + "-" + f.s("0123456789", 13) + "-" + f.s(alnum, 24)},
		{"slack user token", "slack_token", "user token %s", "xoxp-" + f.s("0123456789", 12) + "-" + f.s("0123456789", 12) + "-" + f.s(hexlc, 32)},
		{"slack app token", "slack_token", "socket mode %s", "xapp-1-A" + f.s(ualnum, 10) + "-" + f.s("0123456789", 13) + "-" + f.s(hexlc, 64)},
		{"twilio api key", "twilio_key", "twilio %s", "SK" + f.s(hexlc, 32)},
		{"twilio auth token env", "assignment", "TWILIO_AUTH_TOKEN=%s", f.s(hexlc, 32)},
		{"mailgun key", "mailgun_key", "mailgun %s", "key-" + f.s(lalnum, 32)},
		{"shopify token", "shopify_token", "admin %s", "shpat_" + f.s(hexlc, 32)},
		{"atlassian token", "atlassian_token", "jira %s", "ATATT3" + f.s(urlb64, 186)},
		{"databricks token", "databricks_token", "host %s", "dapi" + f.s(hexlc, 32)},
		{"anthropic key", "anthropic_key", "ANTHROPIC_API_KEY %s", "sk-ant-api03-" + f.s(urlb64, 95)},
		{"openai project key", "openai_key", "key %s", "sk-proj-" + f.s(urlb64, 156)},
		{"openai legacy key", "openai_key", "openai %s", "sk-" + f.s(alnum, 20) + "T3BlbkFJ" + f.s(alnum, 20)},
		{"google api key", "google_api_key", "maps %s", "AIza" + f.s(urlb64, 35)},
		{"stripe secret key", "stripe_key", "stripe %s", "sk_live_" + f.s(alnum, 24)},
		{"stripe restricted key", "stripe_key", "stripe %s", "rk_test_" + f.s(alnum, 24)},
		{"stripe webhook secret", "stripe_key", "webhook %s", "whsec_" + f.s(alnum, 32)},
		{"jwt", "jwt", "session cookie %s", jwt()},
		{"bearer token", "bearer_token", "curl -H 'Authorization: Bearer %s' https://api", f.s(alnum, 40)},
		{"basic authorization header", "authorization", "Authorization: Basic %s", f.b64cred("alice")},
		{"url password", "url_credentials", "postgres://app:%s@db.internal:5432/app", f.s(alnum, 16)},
		{"url password with empty user", "url_credentials", "redis://:%s@cache.internal:6379/0", f.s(alnum, 16)},
		{"url password with a raw @", "url_credentials", "mysql://root:%s@db.internal/shop", f.s(alnum, 6) + "@" + f.s(alnum, 9)},
		{"mongodb srv url", "url_credentials", "mongodb+srv://svc:%s@cluster0.ab1cd.mongodb.net/db", f.s(alnum, 20)},
		{"rsa private key", "pem_private_key", "key:\n%s\nend", pem("RSA PRIVATE KEY")},
		{"pkcs8 private key", "pem_private_key", "%s", pem("PRIVATE KEY")},
		{"encrypted private key", "pem_private_key", "%s", pem("ENCRYPTED PRIVATE KEY")},
		{"ec private key", "pem_private_key", "%s", pem("EC PRIVATE KEY")},
		{"openssh private key", "pem_private_key", "id_ed25519:\n%s", pem("OPENSSH PRIVATE KEY")},
		{"pgp private key block", "pem_private_key", "%s", pem("PGP PRIVATE KEY BLOCK")},
		{"private key in service account json", "pem_private_key", `{"type": "service_account", "private_key": "%s"}`,
			"-----BEGIN PRIVATE KEY-----\\n" + f.s(b64, 64) + "\\n" + f.s(b64, 40) + "\\n-----END PRIVATE KEY-----\\n"},
		{"putty private key", "putty_private_key", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n%s",
			"Private-Lines: 2\n" + f.s(b64, 64) + "\n" + f.s(b64, 40) + "\nPrivate-MAC: " + f.s(hexlc, 40)},
		{"DB_PASSWORD env", "assignment", "# DB_PASSWORD=%s", f.s(lalnum, 12)},
		{"POSTGRES_PASSWORD env", "assignment", "POSTGRES_PASSWORD=%s docker compose up", f.s(alnum, 18)},
		{"API_TOKEN env", "assignment", "API_TOKEN=%s", f.s(hexlc, 40)},
		{"AZURE_CLIENT_SECRET env", "assignment", "AZURE_CLIENT_SECRET=%s", f.s(alnum, 3) + "8Q~" + f.s(urlb64, 34)},
		{"azure ad client secret bare", "azure_ad_client_secret", "the secret value is %s", f.s(alnum, 3) + "7Q~" + f.s(alnum, 34)},
		{"django SECRET_KEY", "assignment", "SECRET_KEY = '%s'", "django-insecure-" + f.s(lalnum, 40)},
		{"JWT_SECRET env", "assignment", "JWT_SECRET=%s", f.s(alnum, 32)},
		{"HEROKU_API_KEY env", "assignment", "HEROKU_API_KEY=%s", f.uuid()},
		{"azure storage AccountKey", "assignment", "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=%s;EndpointSuffix=core.windows.net", f.s(b64, 86) + "=="},
		{"azure SAS signature", "assignment", "https://st1.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=%s&se=2026", f.s(alnum, 40) + "%3D"},
		{"docker config auth", "assignment", `{"auths": {"ghcr.io": {"auth": "%s"}}}`, f.b64cred("deploy-bot")},
		{"base64 credential blob", "base64_credentials", "the service login is %s (base64)", f.b64cred("svc.deploy")},
		{"age secret key", "age_secret_key", "age key %s", "AGE-SECRET-KEY-1" + f.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)},
		{"alibaba access key", "alibaba_key", "aliyun %s", "LTAI" + f.s(alnum, 20)},
		{"clojars token", "clojars_token", "deploy %s", "CLOJARS_" + f.s(lalnum, 60)},
		{"contentful token", "contentful_token", "cma %s", "CFPAT-" + f.s(urlb64, 43)},
		{"doppler token", "doppler_token", "doppler %s", "dp.pt." + f.s(alnum, 43)},
		{"dropbox token", "dropbox_token", "dropbox %s", "sl." + f.s(urlb64, 135)},
		{"duffel token", "duffel_token", "duffel %s", "duffel_test_" + f.s(urlb64, 43)},
		{"dynatrace token", "dynatrace_token", "dt %s", "dt0c01." + f.s(ualnum, 24) + "." + f.s(ualnum, 64)},
		{"easypost key", "easypost_key", "easypost %s", "EZAK" + f.s(alnum, 54)},
		{"facebook token", "facebook_token", "graph %s", "EAAC" + f.s(alnum, 100)},
		{"flutterwave key", "flutterwave_key", "flw %s", "FLWSECK_TEST-" + f.s("0123456789abcdefgh", 32) + "-X"},
		{"frame.io token", "frameio_token", "frame %s", "fio-u-" + f.s(urlb64, 64)},
		{"grafana cloud token", "grafana_token", "grafana %s", "glc_" + f.s(alnum, 80)},
		{"grafana service account token", "grafana_token", "grafana %s", "glsa_" + f.s(alnum, 32) + "_" + f.s(hexlc, 8)},
		{"terraform cloud token", "terraform_token", "tfc %s", f.s(lalnum, 14) + ".atlasv1." + f.s(urlb64, 67)},
		{"vault token", "vault_token", "VAULT %s", "hvs." + f.s(urlb64, 90)},
		{"infracost key", "infracost_key", "infracost %s", "ico-" + f.s(alnum, 32)},
		{"jfrog api key", "jfrog_key", "jfrog %s", "AKCp8" + f.s(alnum, 68)},
		{"linear key", "linear_key", "linear %s", "lin_api_" + f.s(alnum, 40)},
		{"mailchimp key", "mailchimp_key", "mailchimp %s", f.s(hexlc, 32) + "-us21"},
		{"mapbox secret token", "mapbox_token", "mapbox %s", "sk.eyJ1Ijoi" + f.s(urlb64, 40) + "." + f.s(urlb64, 22)},
		{"new relic key", "newrelic_key", "newrelic %s", "NRAK-" + f.s(ualnum, 27)},
		{"1password service token", "onepassword_token", "op %s", "ops_eyJ" + f.s(b64, 250)},
		{"1password secret key", "onepassword_secret_key", "emergency kit %s", "A3-" + f.s(ualnum, 6) + "-" + f.s(ualnum, 6) + "-" + f.s(ualnum, 5) + "-" + f.s(ualnum, 5) + "-" + f.s(ualnum, 5) + "-" + f.s(ualnum, 5)},
		{"planetscale password", "planetscale_token", "pscale %s", "pscale_pw_" + f.s(urlb64, 43)},
		{"postman key", "postman_key", "postman %s", "PMAK-" + f.s(hexlc, 24) + "-" + f.s(hexlc, 34)},
		{"prefect key", "prefect_key", "prefect %s", "pnu_" + f.s(alnum, 36)},
		{"pulumi token", "pulumi_token", "pulumi %s", "pul-" + f.s(hexlc, 40)},
		{"readme key", "readme_key", "readme %s", "rdme_" + f.s(lalnum, 70)},
		{"rubygems key", "rubygems_key", "gem %s", "rubygems_" + f.s(hexlc, 48)},
		{"scalingo token", "scalingo_token", "scalingo %s", "tk-us-" + f.s(urlb64, 48)},
		{"sendinblue key", "sendinblue_key", "brevo %s", "xkeysib-" + f.s(hexlc, 64) + "-" + f.s(alnum, 16)},
		{"sentry user token", "sentry_token", "sentry %s", "sntryu_" + f.s(hexlc, 64)},
		{"shippo token", "shippo_token", "shippo %s", "shippo_live_" + f.s(hexlc, 40)},
		{"square token", "square_token", "square %s", "sq0atp-" + f.s(urlb64, 22)},
		{"discord bot token", "discord_bot_token", "DISCORD_BOT=%s in the bot's env", base64.RawStdEncoding.EncodeToString([]byte("1"+f.s("0123456789", 17))) + "." + f.s(urlb64, 6) + "." + f.s(urlb64, 27)},
		{"discord bot token, new signature", "discord_bot_token", "token: %s", base64.RawStdEncoding.EncodeToString([]byte("9"+f.s("0123456789", 18))) + "." + f.s(urlb64, 6) + "." + f.s(urlb64, 38)},
		{"discord bot token, random id", "discord_bot_token", "bot.run('%s')", "N" + f.s(alnum, 25) + "." + f.s(urlb64, 6) + "." + f.s(urlb64, 38)},
		{"pgpass line", "pgpass_password", "~/.pgpass holds\ndb.internal.example.com:5432:orders:app:%s\n", f.s(alnum, 16)},
		{"pgpass line, any port", "pgpass_password", "echo 'localhost:*:*:postgres:%s' > ~/.pgpass", f.s(alnum, 12)},
		{"telegram bot token", "telegram_bot_token", "bot %s", f.s("0123456789", 10) + ":AA" + f.s(urlb64, 33)},
		{"typeform token", "typeform_token", "typeform %s", "tfp_" + f.s(alnum, 59)},
		{"discord webhook", "discord_webhook", "post to https://%s", "discord.com/api/webhooks/" + f.s("0123456789", 18) + "/" + f.s(urlb64, 68)},
		{"teams webhook", "teams_webhook", "post to https://%s", "contoso.webhook.office.com/webhookb2/" + f.uuid() + "@" + f.uuid() + "/IncomingWebhook/" + f.s(hexlc, 32) + "/" + f.uuid()},
		{"heroku new token", "heroku_key", "heroku %s", "HRKU-AA" + f.s(urlb64, 58)},
		{"cloudflare origin ca key", "cloudflare_origin_ca_key", "cf %s", "v1.0-" + f.s(hexlc, 24) + "-" + f.s(hexlc, 146)},
		{"octopus deploy key", "octopus_key", "octopus %s", "API-" + f.s(ualnum, 26)},
		{"harness pat", "harness_token", "harness %s", "pat." + f.s(urlb64, 22) + "." + f.s(alnum, 24) + "." + f.s(alnum, 20)},
		{"fly.io token", "flyio_token", "fly %s", "FlyV1 fm2_" + f.s(b64, 120)},
		{"sourcegraph token", "sourcegraph_token", "src %s", "sgp_" + f.s(hexlc, 16) + "_" + f.s(hexlc, 40)},
		{"twitter bearer token", "twitter_bearer", "twitter %s", "AAAAAAAAAAAAAAAAAAAAA" + "A" + f.s(alnum, 80)},
		{"artifactory reference token", "artifactory_token", "jf %s", "cmVmdGtu" + f.s(alnum, 56)},
		{"circleci token", "circleci_token", "circle %s", "CCIPAT_" + f.s(alnum, 22) + "_" + f.s(hexlc, 40)},
		{"yandex api key", "yandex_key", "yc %s", "AQVN" + f.s(urlb64, 36)},
		{"nuget key", "nuget_key", "nuget %s", "oy2" + f.s(lalnum, 43)},
		{"buildkite token", "buildkite_token", "bk %s", "bkua_" + f.s(hexlc, 40)},
		{"supabase token", "supabase_token", "supabase %s", "sbp_" + f.s(hexlc, 40)},
		{"render key", "render_key", "render %s", "rnd_" + f.s(alnum, 32)},
		{"groq key", "groq_key", "groq %s", "gsk_" + f.s(alnum, 52)},
		{"xai key", "xai_key", "grok %s", "xai-" + f.s(alnum, 80)},
		{"replicate token", "replicate_token", "replicate %s", "r8_" + f.s(alnum, 37)},
		{"perplexity key", "perplexity_key", "pplx %s", "pplx-" + f.s(alnum, 48)},
		{"langsmith key", "langsmith_key", "langsmith %s", "lsv2_pt_" + f.s(hexlc, 32) + "_" + f.s(hexlc, 10)},
		{"tailscale key", "tailscale_key", "tailscale up --authkey %s", "tskey-auth-k" + f.s(alnum, 10) + "CNTRL-" + f.s(alnum, 33)},
		{"netlify token", "netlify_token", "netlify %s", "nfp_" + f.s(alnum, 36)},
		{"figma token", "figma_token", "figma %s", "figd_" + f.s(urlb64, 40)},
		{"notion token", "notion_token", "notion %s", "ntn_" + f.s("0123456789", 11) + f.s(alnum, 35)},
		{"airtable token", "airtable_token", "airtable %s", "pat" + f.s(alnum, 14) + "." + f.s(hexlc, 64)},
		{"datadog api key env", "assignment", "DD_API_KEY=%s", f.s(hexlc, 32)},
		{"okta token env", "assignment", "OKTA_API_TOKEN=%s", "00" + f.s(urlb64, 40)},
		{"kubernetes secret yaml", "assignment", "stringData:\n  password: %s\n", f.s(alnum, 20)},
		{"numeric password", "assignment", "wifi password: %s", f.s("0123456789", 10)},
		{"go literal", "assignment", `password := "%s"`, f.s(alnum, 16)},
		{"client_secret json", "assignment", `{"client_id": "web", "client_secret": "%s"}`, "GOCSPX-" + f.s(urlb64, 28)},
		{"x-api-key header", "assignment", "curl -H 'x-api-key: %s' https://api", f.s(alnum, 32)},
		{"passphrase", "assignment", "gpg passphrase=%s", f.s(alnum, 20)},
		{"quoted password with blanks", "assignment", `secret="%s"`, "correct horse " + f.s(lalnum, 12)},
		{"upper-case password", "assignment", "PASSWORD=%s", f.s(ualnum, 16)},
		{"full-width password", "assignment", "ＤＢ＿ＰＡＳＳＷＯＲＤ＝%s", "ｈｕｎｔｅｒ２ｘｙｚ９９"},
		{"adobe client secret", "adobe_client_secret", "adobe client secret %s", "p8e-" + f.s(alnum, 32)},
		{"clickhouse cloud key", "clickhouse_key", "clickhouse key %s", "4b1d" + f.s(alnum, 38)},
		{"anthropic admin key", "anthropic_key", "admin key %s", "sk-ant-admin01-" + f.s(urlb64, 93) + "AA"},
		{"authress access key", "authress_key", "authress %s", "sc_" + f.s(lalnum, 12) + "." + f.s(lalnum, 5) + ".acc_" + f.s(lalnum, 20) + "." + f.s(urlb64, 60)},
		{"openshift user token", "openshift_token", "token %s from the console", "sha256~" + f.s(urlb64, 43)},
		{"plaid access token", "plaid_token", "plaid item %s linked", "access-production-" + f.uuid()},
		{"defined networking key", "defined_networking_key", "dnclient %s", "dnkey-" + f.s(ualnum, 26) + "-" + f.s(ualnum, 52)},
		{"private packagist token", "packagist_token", "composer config packagist %s", "packagist_uat_" + f.s(hexlc, 68)},
		{"intra42 secret", "intra42_secret", "42 api %s", "s-s4t2ud-" + f.s(hexlc, 64)},
		{"settlemint pat", "settlemint_token", "settlemint %s", "sm_pat_" + f.s(lalnum, 16)},
		{"docker hub pat", "dockerhub_token", "docker login -u ci --password-stdin <<< %s", "dckr_pat_" + f.s(urlb64, 27)},
		{"bitbucket app password", "bitbucket_token", "bitbucket app password %s", "ATBB" + f.s(alnum, 32)},
		{"grafana legacy api key", "grafana_api_key", "grafana %s", "eyJrIjoi" + f.s(alnum, 72)},
		{"sonarqube token", "sonarqube_token", "sonar-scanner -Dsonar.login %s", "squ_" + f.s(hexlc, 40)},
		{"google oauth access token", "google_oauth_token", "gcloud gave %s", "ya29." + f.s(urlb64, 120)},
		{"google oauth refresh token", "google_oauth_token", "refresh with %s", "1//0" + f.s(urlb64, 80)},
		{"firebase fcm server key", "firebase_fcm_key", "fcm server %s", "AAAA" + f.s(urlb64, 7) + ":APA91b" + f.s(urlb64, 134)},
		{"tencent secret id", "tencent_key", "tencentcloud %s", "AKID" + f.s(alnum, 32)},
		{"aws bedrock api key", "aws_bedrock_key", "bedrock %s", "ABSKQmVkcm9ja0FQSUtleS" + f.s(b64, 110)},
		{"resend key", "resend_key", "resend %s", "re_" + f.s(alnum, 8) + "_" + f.s(alnum, 24)},
		{"pinecone key", "pinecone_key", "pinecone %s", "pcsk_" + f.s(alnum, 5) + "_" + f.s(alnum, 64)},
		{"neon api key", "neon_key", "neon %s", "napi_" + f.s(lalnum, 64)},
		{"adafruit io key", "adafruit_key", "adafruit %s", "aio_" + f.s(alnum, 28)},
		{"gocardless live token", "gocardless_token", "gocardless %s", "live_" + f.s(urlb64, 40)},
		{"braintree access token", "braintree_token", "braintree %s", "access_token$production$" + f.s(lalnum, 16) + "$" + f.s(hexlc, 32)},
		{"openvpn static key", "openvpn_static_key", "ta.key:\n%s", "-----BEGIN OpenVPN Static key V1-----\n" + f.s(hexlc, 64) + "\n" + f.s(hexlc, 64) + "\n-----END OpenVPN Static key V1-----"},
		{"kubeconfig client-key-data", "key_data", "users:\n- name: admin\n  user:\n    client-key-data: %s", base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + f.s(b64, 64) + "\n-----END RSA PRIVATE KEY-----"))},
		{"kaggle.json", "kaggle_key", `{"username":"ana","key":"%s"}`, f.s(hexlc, 32)},
		{"sidekiq enterprise credentials", "sidekiq_credentials", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM=%s", f.s(hexlc, 8) + ":" + f.s(hexlc, 8)},
		{"azure function key", "url_code", "https://fn1.azurewebsites.net/api/hook?code=%s", f.s(urlb64, 54) + "=="},
		{"netrc line", "netrc_password", "machine api.example.com login ci@example.com password %s", f.s(alnum, 20)},
		{"azure devops pat", "command_line", "az devops login --token %s", f.s("abcdefghijklmnopqrstuvwxyz234567", 52)},
		{"kubeadm bootstrap token", "command_line", "kubeadm join 10.0.0.1:6443 --token %s", f.s(lalnum, 6) + "." + f.s(lalnum, 16)},
		{"mysql -p password", "command_line", "mysql -u root -p%s shop", f.s(alnum, 14)},
		{"curl -u password", "command_line", "curl -u admin:%s https://api.example.com", f.s(alnum, 16)},
		{"sshpass password", "command_line", "sshpass -p '%s' ssh deploy@web1", f.s(alnum, 14)},
		{"vault legacy token", "command_line", "vault login %s", "s." + f.s(alnum, 24)},
		{"docker login --password", "command_line", "docker login --password %s registry.example.com", f.s(alnum, 18)},
		{"AZURE_DEVOPS_EXT_PAT env", "assignment", "AZURE_DEVOPS_EXT_PAT=%s", f.s("abcdefghijklmnopqrstuvwxyz234567", 52)},
		{"long s in a key", "assignment", "paſſword=%s", f.s(alnum, 16)},
	}
	return append(c, moreSecrets(f)...)
}

// fragments are the 8-character pieces of a secret's words that a search could look for.
func fragments(secret string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(secret, unicode.IsSpace) {
		w = strings.ReplaceAll(w, `\n`, " ")
		for _, w := range strings.Fields(w) {
			rs := []rune(w)
			for i := 0; i+8 <= len(rs); i++ {
				out = append(out, string(rs[i:i+8]))
			}
		}
	}
	return out
}

// collapse is how the space store turns a body into display text: white space runs become one space.
func collapse(s string) string { return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ") }

// leaks lists the fragments of secret that can still be found in the folded index text or read
// in the display text, leaving out those the text around the secret holds anyway.
func leaks(r *Redactor, text, secret string) []string {
	display := r.Text(collapse(strings.Replace(text, "%s", secret, 1)))
	index := textmatch.Fold(display)
	around := textmatch.Fold(strings.Replace(text, "%s", "", 1))
	var out []string
	for _, frag := range fragments(secret) {
		ff := textmatch.Fold(frag)
		if strings.Contains(around, ff) {
			continue
		}
		if strings.Contains(index, ff) || strings.Contains(display, frag) {
			out = append(out, frag)
		}
	}
	return out
}

func TestSecretCorpus(t *testing.T) {
	r := New()
	byName := map[string]Rule{}
	for _, rule := range r.Rules() {
		byName[rule.Name] = rule
	}
	kinds := map[string]bool{}
	for seed := range uint64(3) {
		for _, c := range secretCorpus(seed) {
			kinds[c.kind] = true
			if l := leaks(r, c.text, c.secret); len(l) > 0 {
				t.Errorf("%s: fragments %q of %q survive in %q", c.kind, l, c.secret, r.Text(collapse(fmt.Sprintf(c.text, c.secret))))
			}
			rule, ok := byName[c.rule]
			if !ok {
				t.Fatalf("%s: unknown rule %q", c.kind, c.rule)
			}
			if one := newRedactor([]Rule{rule}); len(leaks(one, c.text, c.secret)) > 0 {
				t.Errorf("%s: rule %s alone does not hide it", c.kind, c.rule)
			}
		}
	}
	if len(kinds) < 80 {
		t.Errorf("the corpus has %d kinds of secret, want at least 80", len(kinds))
	}
	t.Logf("%d kinds of secret, no 8-character fragment findable or shown", len(kinds))
}

// TestCorpusCoversEveryRule: no rule goes untested.
func TestCorpusCoversEveryRule(t *testing.T) {
	used := map[string]bool{}
	for _, c := range secretCorpus(0) {
		used[c.rule] = true
	}
	for _, c := range ruleCases {
		used[c.rule] = true
	}
	for _, rule := range New().Rules() {
		if !used[rule.Name] {
			t.Errorf("rule %s has no case in the corpus or ruleCases", rule.Name)
		}
	}
}

var _ = utf8.RuneLen
