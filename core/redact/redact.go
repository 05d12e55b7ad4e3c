// Package redact replaces secrets in text with a placeholder, so search indexes and excerpts never
// carry credentials that a body happened to contain.
//
// Text finds every secret of every rule in one pass per rule over the text, then replaces the
// union of what they found: time grows linearly with the text, however many secrets it holds.
package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// Placeholder is what every secret becomes; it is stable so re-redacting a text changes nothing.
const Placeholder = "[REDACTED]"

// FirstGroup as a Rule's Group replaces the first submatch that took part in a match, for a
// pattern whose alternatives each capture their secret.
const FirstGroup = -1

// Rule is one kind of secret: a pattern and, when only part of a match is the secret (the value of
// password=..., the password in a URL), the capture group to replace; or a scanner that finds
// secrets a regular expression cannot describe alone.
type Rule struct {
	// Name identifies the rule in tests and diagnostics.
	Name string
	// Pattern finds candidate secrets; every pattern is case-insensitive.
	Pattern *regexp.Regexp
	// Group is the submatch replaced by Placeholder; 0 replaces the whole match and FirstGroup
	// the first submatch that took part in the match (one per alternative of the pattern).
	Group int
	// Hints are lower-case literals of which every match contains at least one in the folded text;
	// a text without any is skipped without running the rule, which keeps bulk imports fast. A
	// rule without hints runs on every text.
	Hints []string
	// scan, when set, replaces Pattern: it calls add for every secret's byte range in s and
	// returns how many bytes it examined.
	scan func(s string, add func(start, end int)) int
	// needs is what a text must hold for the rule to find anything in it, beyond its hints.
	needs trigger
}

// trigger is a set of things a text must hold for a rule to match in it; screen checks them in
// the same pass that looks for hints.
type trigger uint16

const (
	// needsOperator: an =, a : or a > (every assignment has one; > ends an XML element's tag).
	needsOperator trigger = 1 << iota
	// needsBase64Run: a run of at least minBase64Run base64 characters.
	needsBase64Run
	// needsWordRun: minSeedWords words of 3 to 8 letters in a row, between blanks (structure.go).
	needsWordRun
	// needsTokenRun: a run of at least minTokenRun characters a random token is made of
	// (letters, digits and - _ . ~ + / =): the shortest token the shape layer judges.
	needsTokenRun
	// needsPasswordRun: a run of at least pwMinLen characters a password piece is made of, with
	// a symbol after its first, or of pwMinShortRandom with both cases and a digit (password.go).
	needsPasswordRun
	// needsInnerDashes: a dash between letters or digits (password.go's codes).
	needsInnerDashes
	// needsGroupRun: four groups of four letters or digits in a row, between single blanks.
	needsGroupRun
	// needsByteRun: six groups in a row of 2, 5, 6 or 8 letters or digits (or 3 digits) between blanks or
	// dashes: bytes written as hex pairs or bits, recovery keys of digits (decoders.go).
	needsByteRun
	// needsSplitRun: two runs of six token characters or more of two classes (letters and
	// digits, or both cases), one blank between them: a token broken by a line break (shape.go).
	needsSplitRun
	// needsHanRun: twelve Han characters in a row, each standing alone between blanks: a
	// recovery phrase of the Chinese word list (decoders_more.go).
	needsHanRun
	// triggerCount is the number of triggers above.
	triggerCount = iota
)

// minBase64Run is the shortest run of base64 characters scanBase64Credentials can report: it
// wants 12 characters with at most 2 of padding.
const minBase64Run = 10

// minTokenRun is the shortest run of token characters scanShape can hide.
const minTokenRun = 20

// Redactor applies a rule table; it holds no mutable state and is safe for concurrent use.
type Redactor struct {
	rules []Rule
	hints hintIndex
	// needRules[k] are the rules that need trigger 1<<k (an operator, a base64 run, …): a text
	// the screen finds without it skips them.
	needRules [triggerCount]ruleSet
}

// Stats counts the work of one Text call: rule applications and bytes handed to patterns and
// scanners. Tests use it to check that the work grows linearly with the text.
type Stats struct {
	Passes       int // passes over the whole text (a second one only when the first changed it)
	Applications int // rules run
	Bytes        int // bytes given to a pattern or scanned by a scanner, folding included
}

// provider is a token with a recognisable shape: hints are the literals every match contains.
type provider struct {
	name    string
	pattern string
	hints   []string
}

// providers are tokens of the common services, after the public rule sets of secret scanners
// (gitleaks' config/gitleaks.toml, trufflehog's detectors): a fixed prefix and a body.
var providers = []provider{
	{"aws_access_key", `\b(?:akia|asia|abia|acca|a3t[a-z0-9]|agpa|aida|aroa|aipa|anpa|anva|apka)[0-9a-z]{16}\b`, []string{"akia", "asia", "abia", "acca", "a3t", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"}},
	{"github_token", `\b(?:ghp|gho|ghu|ghs|ghr)_[a-z0-9]{36,}\b`, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
	{"github_pat", `\bgithub_pat_[a-z0-9_]{22,}\b`, []string{"github_pat_"}},
	{"gitlab_token", `\bgl(?:pat|oas|dt|rt|ptt|soat|cbt|ft|imt|agent|ffct)-[0-9a-z_-]{20,}`, []string{"glpat-", "gloas-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glft-", "glimt-", "glagent-", "glffct-"}},
	{"npm_token", `\bnpm_[0-9a-z]{36}\b`, []string{"npm_"}},
	{"digitalocean_token", `\bdo[opr]_v1_[0-9a-f]{64}\b`, []string{"_v1_"}},
	{"sendgrid_key", `\bsg\.[0-9a-z_-]{22}\.[0-9a-z_-]{43}`, []string{"sg."}},
	{"huggingface_token", `\b(?:hf_[0-9a-z]{34,}|api_org_[0-9a-z]{34,})\b`, []string{"hf_", "api_org_"}},
	{"pypi_token", `\bpypi-(?:ageichlwas5vcmc|agendgvzdc5wexbplm9yzw)[0-9a-z_-]{50,}`, []string{"pypi-ag"}},
	{"twilio_key", `\bsk[0-9a-f]{32}\b`, []string{"sk0", "sk1", "sk2", "sk3", "sk4", "sk5", "sk6", "sk7", "sk8", "sk9", "ska", "skb", "skc", "skd", "ske", "skf"}},
	{"mailgun_key", `\b(?:pub)?key-[0-9a-z]{32}\b`, []string{"key-"}},
	{"shopify_token", `\bshp(?:at|ss|ca|pa)_[0-9a-f]{32}\b`, []string{"shpat_", "shpss_", "shpca_", "shppa_"}},
	{"atlassian_token", `\batatt3[0-9a-z_=-]{180,}`, []string{"atatt3"}},
	{"databricks_token", `\bdapi[0-9a-f]{32}(?:-[0-9])?\b`, []string{"dapi"}},
	{"slack_token", `\b(?:xox[abposre]|xapp)-[a-z0-9-]{10,}`, []string{"xox", "xapp-"}},
	{"anthropic_key", `\bsk-ant-[a-z0-9_-]{20,}`, []string{"sk-ant-"}},
	// Django's generated SECRET_KEY: the prefix, then fifty characters of letters, digits and
	// !@#$%^&*(-_=+)
	{"django_secret_key", `\bdjango-insecure-[a-z0-9!@#$%^&*(\-_=+)]{20,}`, []string{"django-insecure-"}},
	// OpenAI: project, service-account and admin keys carry a label; older keys are one run of
	// letters and digits, so "sk-learn-classifier-model" is no key. OpenRouter (sk-or-v1-) and
	// Langfuse (sk-lf-) keys have the same shape.
	{"openai_key", `\bsk-(?:(?:proj|svcacct|admin|none|or-v1|lf)-[a-z0-9_-]{20,}|[a-z0-9]{32,}\b)`, []string{"sk-"}},
	{"google_api_key", `\baiza[0-9a-z_-]{35}`, []string{"aiza"}},
	// wallets' private keys: BIP32 extended private keys (xprv, yprv, zprv, tprv, …), Cardano's
	// bech32 signing keys
	{"wallet_private_key", `\b[xyztuv]prv[1-9a-z]{100,112}\b|\b(?:ed25519e?_sk|xprv)1[02-9ac-hj-np-z]{50,}`, []string{"prv", "_sk1"}},
	// a Salesforce access token: the org id, !, then the session's secret part
	{"salesforce_token", `\b00d[0-9a-z]{12,15}![0-9a-z._]{20,}`, []string{"00d"}},
	{"stripe_key", `\b(?:sk|rk)_(?:live|test)_[0-9a-z]{16,}\b|\bwhsec_[0-9a-z]{24,}\b`, []string{"_live_", "_test_", "whsec_"}},
	{"age_secret_key", `\bage-secret-key-1[0-9a-z]{58}`, []string{"age-secret-key-"}},
	{"alibaba_key", `\bltai[0-9a-z]{20}\b`, []string{"ltai"}},
	{"clojars_token", `\bclojars_[0-9a-z]{60}\b`, []string{"clojars_"}},
	{"contentful_token", `\bcfpat-[0-9a-z_-]{43}`, []string{"cfpat-"}},
	{"doppler_token", `\bdp\.(?:pt|st|sa|ct|scim|audit)\.[0-9a-z]{40,44}`, []string{"dp."}},
	{"dropbox_token", `\bsl\.[0-9a-z_=-]{130,152}`, []string{"sl."}},
	{"duffel_token", `\bduffel_(?:test|live)_[0-9a-z_=-]{43}`, []string{"duffel_"}},
	{"dynatrace_token", `\bdt0c01\.[0-9a-z]{24}\.[0-9a-z]{64}`, []string{"dt0c01."}},
	{"easypost_key", `\bez[at]k[0-9a-z]{54}`, []string{"ezak", "eztk"}},
	{"facebook_token", `\beaa[mc][0-9a-z]{20,}`, []string{"eaam", "eaac"}},
	{"flutterwave_key", `\bflw(?:pubk|seck)(?:_test)?-[0-9a-h]{32}-x`, []string{"flwpubk", "flwseck"}},
	{"frameio_token", `\bfio-u-[0-9a-z_=-]{64}`, []string{"fio-u-"}},
	{"grafana_token", `\bglc_[0-9a-z+/]{32,400}={0,2}|\bglsa_[0-9a-z]{32}_[0-9a-f]{8}`, []string{"glc_", "glsa_"}},
	{"terraform_token", `\b[0-9a-z]{14}\.atlasv1\.[0-9a-z_=-]{60,70}`, []string{"atlasv1"}},
	{"vault_token", `\bhv[sb]\.[0-9a-z_-]{24,}`, []string{"hvs.", "hvb."}},
	{"infracost_key", `\bico-[0-9a-z]{32}\b`, []string{"ico-"}},
	{"jfrog_key", `\bakcp[0-9a-z]{60,}`, []string{"akcp"}},
	{"linear_key", `\blin_api_[0-9a-z]{40}`, []string{"lin_api_"}},
	{"mailchimp_key", `\b[0-9a-f]{32}-us[0-9]{1,2}\b`, []string{"-us"}},
	{"mapbox_token", `\b[ps]k\.eyj[0-9a-z_-]{20,}\.[0-9a-z_-]{16,}`, []string{"k.eyj"}},
	{"newrelic_key", `\bnr(?:ak|js|ii)-[0-9a-z]{19,32}|\b[0-9a-f]{36}nral\b`, []string{"nrak-", "nrjs-", "nrii-", "nral"}},
	{"onepassword_token", `\bops_eyj[0-9a-z+/=_-]{100,}`, []string{"ops_eyj"}},
	{"onepassword_secret_key", `\ba3-[0-9a-z]{6}-(?:[0-9a-z]{11}|[0-9a-z]{6}-[0-9a-z]{5})-[0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5}\b`, []string{"a3-"}},
	{"planetscale_token", `\bpscale_(?:tkn|pw|oauth)_[0-9a-z=._-]{32,64}`, []string{"pscale_"}},
	{"postman_key", `\bpmak-[0-9a-f]{24}-[0-9a-f]{34}`, []string{"pmak-"}},
	{"prefect_key", `\bpnu_[0-9a-z]{36}`, []string{"pnu_"}},
	{"pulumi_token", `\bpul-[0-9a-f]{40}`, []string{"pul-"}},
	{"readme_key", `\brdme_[0-9a-z]{70}`, []string{"rdme_"}},
	{"rubygems_key", `\brubygems_[0-9a-f]{48}`, []string{"rubygems_"}},
	{"scalingo_token", `\btk-us-[0-9a-z_-]{48}`, []string{"tk-us-"}},
	{"sendinblue_key", `\bxkeysib-[0-9a-f]{64}-[0-9a-z]{16}`, []string{"xkeysib-"}},
	{"sentry_token", `\bsntry[su]_[0-9a-z+/=_-]{40,}`, []string{"sntrys_", "sntryu_"}},
	{"shippo_token", `\bshippo_(?:live|test)_[0-9a-f]{40}`, []string{"shippo_"}},
	{"square_token", `\b(?:sq0atp|sq0csp|eaaa)[0-9a-z_-]{22,60}`, []string{"sq0atp", "sq0csp", "eaaa"}},
	{"telegram_bot_token", `\b[0-9]{5,16}:aa[0-9a-z_-]{33}`, []string{":aa"}},
	{"typeform_token", `\btfp_[0-9a-z_=.-]{59}`, []string{"tfp_"}},
	{"azure_ad_client_secret", `[0-9a-z_~.-]{3}[0-9]q~[0-9a-z_~.-]{31,34}`, []string{"q~"}},
	{"discord_webhook", `\bdiscord(?:app)?\.com/api/webhooks/[0-9]+/[0-9a-z_-]{60,}`, []string{"/api/webhooks/"}},
	{"teams_webhook", `\b[0-9a-z-]+\.webhook\.office\.com/webhookb2/[0-9a-z@/-]{40,}(?:/incomingwebhook/[0-9a-z/-]+)?`, []string{"webhook.office.com"}},
	{"heroku_key", `\bhrku-[0-9a-z_-]{40,}`, []string{"hrku-"}},
	{"cloudflare_origin_ca_key", `\bv1\.0-[0-9a-f]{24}-[0-9a-f]{146}`, []string{"v1.0-"}},
	{"octopus_key", `\bapi-[0-9a-z]{26}\b`, []string{"api-"}},
	{"harness_token", `\bpat\.[0-9a-z_-]{22}\.[0-9a-z]{24}\.[0-9a-z]{20}`, []string{"pat."}},
	{"flyio_token", `\bflyv1 fm[12]_[0-9a-z+/=_-]{100,}|\bfo1_[0-9a-z_-]{43}`, []string{"flyv1", "fo1_"}},
	{"sourcegraph_token", `\bsgp_(?:[0-9a-f]{16}|local)_[0-9a-f]{40}`, []string{"sgp_"}},
	{"twitter_bearer", `\ba{20,}[b-z0-9%][0-9a-z%]{29,}`, []string{"aaaaaaaaaaaaaaaaaaaa"}},
	{"artifactory_token", `\bcmvmdgtu[0-9a-z]{56}`, []string{"cmvmdgtu"}},
	{"circleci_token", `\bccipat_[0-9a-z]{22}_[0-9a-f]{40}`, []string{"ccipat_"}},
	{"yandex_key", `\baqvn[0-9a-z_-]{35,38}`, []string{"aqvn"}},
	{"nuget_key", `\boy2[0-9a-z]{43}\b`, []string{"oy2"}},
	{"buildkite_token", `\bbkua_[0-9a-f]{40}`, []string{"bkua_"}},
	{"supabase_token", `\bsbp_[0-9a-f]{40}|\bsb_secret_[0-9a-z_-]{20,}`, []string{"sbp_", "sb_secret_"}},
	{"render_key", `\brnd_[0-9a-z]{32}\b`, []string{"rnd_"}},
	{"groq_key", `\bgsk_[0-9a-z]{52}\b`, []string{"gsk_"}},
	{"xai_key", `\bxai-[0-9a-z]{80}\b`, []string{"xai-"}},
	{"replicate_token", `\br8_[0-9a-z]{37}\b`, []string{"r8_"}},
	{"perplexity_key", `\bpplx-[0-9a-z]{48}\b`, []string{"pplx-"}},
	{"langsmith_key", `\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}`, []string{"lsv2_"}},
	{"tailscale_key", `\btskey-[0-9a-z]+-[0-9a-z]{8,}-[0-9a-z]{16,}`, []string{"tskey-"}},
	{"netlify_token", `\bnfp_[0-9a-z]{36}\b`, []string{"nfp_"}},
	{"figma_token", `\bfigd_[0-9a-z_-]{40}`, []string{"figd_"}},
	{"notion_token", `\bntn_[0-9a-z]{46}\b|\bsecret_[0-9a-z]{43}\b`, []string{"ntn_", "secret_"}},
	{"airtable_token", `\bpat[0-9a-z]{14}\.[0-9a-f]{64}\b`, []string{"pat"}},
	{"adobe_client_secret", `\bp8e-[0-9a-z]{32}\b`, []string{"p8e-"}},
	{"clickhouse_key", `\b4b1d[0-9a-z]{38}\b`, []string{"4b1d"}},
	{"authress_key", `\b(?:sc|ext|scauth|authress)_[0-9a-z]{5,30}\.[0-9a-z]{4,6}\.acc[_-][0-9a-z-]{10,32}\.[0-9a-z+/_=-]{30,120}`, []string{".acc_", ".acc-"}},
	{"plaid_token", `\b(?:access|public|link)-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`, []string{"-sandbox-", "-development-", "-production-"}},
	{"defined_networking_key", `\bdnkey-[0-9a-z=_-]{26}-[0-9a-z=_-]{52}`, []string{"dnkey-"}},
	{"packagist_token", `\bpackagist_[a-z]{3}_[0-9a-f]{68}\b`, []string{"packagist_"}},
	{"intra42_secret", `\bs-s4t2(?:ud|af)-[0-9a-f]{64}\b`, []string{"s-s4t2"}},
	{"settlemint_token", `\bsm_(?:pat|aat|sat)_[0-9a-z]{16}\b`, []string{"sm_pat_", "sm_aat_", "sm_sat_"}},
	{"dockerhub_token", `\bdckr_(?:pat|oat)_[0-9a-z_-]{27,}`, []string{"dckr_"}},
	{"bitbucket_token", `\b(?:atbb|atctt3)[0-9a-z_=-]{28,}`, []string{"atbb", "atctt3"}},
	{"grafana_api_key", `\beyjrijoi[0-9a-z+/]{60,400}={0,3}`, []string{"eyjrijoi"}},
	{"sonarqube_token", `\bsq[upa]_[0-9a-f]{40}\b`, []string{"squ_", "sqp_", "sqa_"}},
	{"google_oauth_token", `\bya29\.[0-9a-z_-]{20,}|\b1//0[0-9a-z_-]{40,}`, []string{"ya29.", "1//0"}},
	{"firebase_fcm_key", `\baaaa[0-9a-z_-]{7}:apa91b[0-9a-z_-]{100,}`, []string{":apa91b"}},
	{"tencent_key", `\bakid[0-9a-z]{32}\b`, []string{"akid"}},
	{"aws_bedrock_key", `\babskqmvkcm9ja0fqsutles[0-9a-z+/]{20,}={0,2}|\bbedrock-api-key-[0-9a-z+/]{20,}={0,2}`, []string{"absk", "bedrock-api-key-"}},
	{"resend_key", `\bre_[0-9a-z]{8}_[0-9a-z]{24}\b`, []string{"re_"}},
	{"pinecone_key", `\bpcsk_[0-9a-z]{5}_[0-9a-z]{50,}`, []string{"pcsk_"}},
	{"neon_key", `\bnapi_[0-9a-z]{64}\b`, []string{"napi_"}},
	{"adafruit_key", `\baio_[0-9a-z]{28}\b`, []string{"aio_"}},
	{"gocardless_token", `\b(?:live|sandbox)_[0-9a-z_=-]{40}`, []string{"live_", "sandbox_"}},
	{"openshift_token", `\bsha256~[0-9a-z_-]{43}`, []string{"sha256~"}},
	{"braintree_token", `\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}`, []string{"access_token$"}},
	{"elevenlabs_key", `\bsk_[0-9a-f]{48}\b`, []string{"sk_"}},
	{"checkout_key", `\bsk_sbox_[0-9a-z]{26}\b`, []string{"sk_sbox_"}},
	{"nvidia_key", `\bnvapi-[0-9a-z_-]{64}`, []string{"nvapi-"}},
	{"tavily_key", `\btvly-(?:dev-|prod-)?[0-9a-z]{32}\b`, []string{"tvly-"}},
	{"firecrawl_key", `\bfc-[0-9a-f]{32}\b`, []string{"fc-"}},
	{"e2b_key", `\be2b_[0-9a-f]{40}\b`, []string{"e2b_"}},
	{"cerebras_key", `\bcsk-[0-9a-z]{48}\b`, []string{"csk-"}},
	{"jina_key", `\bjina_[0-9a-z]{60}\b`, []string{"jina_"}},
	{"hubspot_token", `\bpat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`, []string{"pat-"}},
	{"clickup_token", `\bpk_[0-9]{6,10}_[0-9a-z]{32}\b`, []string{"pk_"}},
	{"trello_token", `\batta[0-9a-f]{72}\b`, []string{"atta"}},
	{"asana_token", `\b[12]/[0-9]{16}(?:/[0-9]{16})?:[0-9a-f]{32}\b`, []string{"1/", "2/"}},
	{"honeycomb_key", `\bhc[ax]i[kc]_[0-9a-z]{20,}`, []string{"hcaik_", "hcxik_", "hcaic_", "hcxic_"}},
	{"posthog_key", `\bphx_[0-9a-z]{43}\b`, []string{"phx_"}},
	{"mailersend_token", `\bmlsn\.[0-9a-f]{64}\b`, []string{"mlsn."}},
	// an ngrok authtoken has no fixed prefix: it is looked for where an authtoken is named
	// (ngrok config add-authtoken, NGROK_AUTHTOKEN)
	{"ngrok_token", `\b[0-9][0-9a-z]{26}_[0-9][0-9a-z]{20}\b`, []string{"authtoken"}},
	{"launchdarkly_key", `\b(?:api|sdk)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`, []string{"api-", "sdk-"}},
	{"apify_token", `\bapify_api_[0-9a-z]{36}\b`, []string{"apify_api_"}},
	{"deno_token", `\bdd[pw]_[0-9a-z]{36}\b`, []string{"ddp_", "ddw_"}},
	{"zapier_webhook", `\bhooks\.zapier\.com/hooks/(?:catch|standard)/[0-9]+/[0-9a-z]+`, []string{"hooks.zapier.com"}},
	{"mollie_key", `\blive_[0-9a-z]{30}\b`, []string{"live_"}},
	{"scaleway_key", `\bscw[0-9a-z]{17}\b`, []string{"scw"}},
	{"backblaze_key", `\bk00[0-9][0-9a-z+/]{27}(?:[^0-9a-z+/]|$)`, []string{"k00"}},
	{"bitwarden_token", `\b0\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[0-9a-z]{30}:[0-9a-z+/]{22}={0,2}`, []string{"0."}},
	{"stytch_secret", `\bsecret-(?:live|test)-[0-9a-z_=-]{36}`, []string{"secret-"}},
	// crypt(3) and htpasswd password hashes: bcrypt, apr1, MD5, SHA-256/512 crypt, yescrypt,
	// argon2 and {SHA}
	{"password_hash", `\$(?:2[abxy]?\$[0-9]{2}\$[./0-9a-z]{53}|(?:apr1|1)\$[./0-9a-z]{1,8}\$[./0-9a-z]{22}|[56]\$(?:rounds=[0-9]+\$)?[./0-9a-z]{1,16}\$[./0-9a-z]{43,86}|y\$[./0-9a-z]+\$[./0-9a-z]+\$[./0-9a-z]{43}|argon2(?:id|i|d)\$v=[0-9]+\$m=[0-9]+,t=[0-9]+,p=[0-9]+\$[0-9a-z+/]+\$[0-9a-z+/]{16,})|\{s?sha(?:256|512)?\}[0-9a-z+/]{20,}={0,2}`,
		[]string{"$2", "$apr1$", "$1$", "$5$", "$6$", "$y$", "$argon2", "{sha", "{ssha"}},
	// a private key file or a docker config in base64, as a Kubernetes Secret's data holds them:
	// the base64 of "-----BEGIN <kind> PRIVATE KEY" or of {"auths":
	{"base64_secret_file", `\bls0tls1crudjti(?:bsu0egufjjvkfu|bquklwqvrfietf|bfqybquklwqvrf|bpuevou1niifbs|beu0egufjjvkfu|bftknswvburuqg|bqr1agufjjvkfu)[0-9a-z+/]*={0,2}|\beyjhdxrocyi6[0-9a-z+/]{20,}={0,2}`,
		[]string{"ls0tls1crudjti", "eyjhdxrocyi6"}},
	{"jwt", `\beyj[a-z0-9_-]{8,}\.eyj[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}`, []string{"eyj"}},
}

// New builds the default rule table. Every rule runs on the whole text once and the union of their
// matches is replaced, so the order of the table does not matter for what is hidden.
func New() *Redactor {
	rx := func(name, pattern string, group int, hints ...string) Rule {
		return Rule{Name: name, Pattern: regexp.MustCompile(`(?i)` + pattern), Group: group, Hints: hints}
	}
	rules := []Rule{
		// a private key block, to its end marker or, without one, to the end of the text
		rx("pem_private_key", `(?s)-----begin[a-z0-9 ]*private key(?: block)?-----.*?(?:-----end[a-z0-9 ]*private key(?: block)?-----|\z)`, 0, "private key"),
		rx("putty_private_key", `(?s)private-lines:\s*[0-9]+\s.*?(?:private-mac:\s*[0-9a-f]+|\z)`, 0, "private-lines"),
		rx("aws_secret_key", `aws_?secret(?:_?access)?_?key["']?\s*[:=]\s*["']?([a-z0-9/+=]{40})\b`, 1, "secret"),
		// a Slack webhook's path: incoming webhooks, workflow and trigger URLs
		rx("slack_webhook", `\bhttps?://hooks\.slack\.com/(?:services|workflows|triggers)/(t[0-9a-z]+/[ab][0-9a-z]+/[0-9a-z]+(?:/[0-9a-z]+)?)`, 1, "hooks.slack.com"),
		rx("bearer_token", `\bbearer\s+([a-z0-9._~+/-]{16,}=*)`, 1, "bearer"),
		// an Authorization header's credentials, after a scheme of any name (Basic, Bearer, SSWS,
		// Splunk, DeepL-Auth-Key)
		// a header's value is on its line: a name ending one line never takes the next line's
		// first word (another header's name) for its credential
		rx("authorization", `\b(?:proxy-)?authorization["']?(?:[ \t]*[:=][ \t]*["']?|[ \t]+["'])(?:[a-z][a-z0-9_-]{1,30}[ \t]+)?([a-z0-9._~+/=:%!@#$^&*-]{8,})`, 1, "authorization"),
		// a URL's password: the user may be empty (redis://:pw@host) and the password may hold a
		// raw @, so it runs to the last @ before the path; or a key of 32 hex digits as the user
		// (a Sentry DSN)
		rx("url_credentials", `[a-z][a-z0-9+.-]*://(?:[^\s/?#:]*:([^\s/?#]*)|([0-9a-f]{32}))@`, FirstGroup, "://"),
		rx("openvpn_static_key", `(?s)-----begin openvpn static key v1-----.*?(?:-----end openvpn static key v1-----|\z)`, 0, "openvpn static key"),
		// base64 key material in a kubeconfig (client-key-data:) and the like
		rx("key_data", `\bkey-data["']?\s*:\s*["']?([a-z0-9+/]{20,}={0,2})`, 1, "key-data"),
		// kaggle.json: {"username": "...", "key": "<32 hex>"}
		rx("kaggle_key", `"username"\s*:\s*"[^"]*"\s*,\s*"key"\s*:\s*"([0-9a-f]{32})"`, 1, `"key"`),
		// Sidekiq Enterprise's bundler credentials
		rx("sidekiq_credentials", `\b(?:bundle_(?:enterprise|gems)__contribsys__com|bundle-(?:enterprise|gems)--contribsys--com|(?:enterprise|gems)\.contribsys\.com)["']?\s*[:=]?\s*["']?([0-9a-f]{8}:[0-9a-f]{8})\b`, 1, "contribsys"),
		// Mailgun's webhook signing key: 32, 8 and 8 hex digits joined by dashes
		{Name: "mailgun_signing_key", Pattern: regexp.MustCompile(`(?i)\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b`), needs: needsInnerDashes | needsTokenRun},
		// a proxy's credentials without a scheme (bob:PW@proxy:3128), and a URL's password in JSON
		// that escapes its slashes (mysql:\/\/root:PW@db); Sidekiq's gem server key as the URL's user
		rx("escaped_url_credentials", `[a-z][a-z0-9+.-]*:\\/\\/[^\s/?#:\\]*:([^\s/#\\@]+)@`, 1, `:\/\/`),
		rx("contribsys_credentials", `://([0-9a-f]{8}:[0-9a-f]{8})@(?:gems|enterprise)\.contribsys\.com`, 1, "contribsys"),
		// a function key or an authorization code in a URL's query
		rx("url_code", `[?&]code=([0-9a-z_-]{40,}={0,2})`, 1, "code="),
		// .netrc: machine HOST login USER password SECRET
		rx("netrc_password", `\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(\S+)`, 1, "machine"),
		// passwords and tokens given on a command line: --password X, --token X, mysql -pX,
		// sshpass -p X, curl -u user:X
		{Name: "command_line", Hints: commandLineHints, scan: scanCommandLine},
		{Name: "assignment", Hints: assignmentHints, scan: scanAssignments, needs: needsOperator},
		// a daemon's directive: shared_key X, auth_token X, with blanks and no operator
		{Name: "spaced_directive", Hints: directiveHints, scan: scanSpacedConfig},
		// an FTP session's PASS after its prompt or USER, an IMAP LOGIN user X, a redis AUTH
		// [user] X after its prompt: protocol words in capitals, looked for case-sensitively
		// before the pattern runs, so "pass the login page" costs nothing
		{Name: "protocol_password", Hints: []string{"ftp>", "pass ", "login ", "auth ", "gfzc3dvcmq6"}, scan: scanProtocolPassword},
		// a Stellar secret seed (S and 55 base32 capitals); a Solana keypair file's 64 bytes as
		// a JSON list
		{Name: "stellar_seed", scan: scanStellarSeeds, needs: needsTokenRun},
		{Name: "byte_array_key", Hints: []string{"[0", "[1", "[2", "[3", "[4", "[5", "[6", "[7", "[8", "[9", "[ ", "[\n"}, scan: scanByteArrayKeys},
		// user:PW@host:port without a scheme (a proxy setting)
		{Name: "hostport_credentials", scan: scanHostPortCredentials, needs: needsOperator},
		// a secret-bearing word in any language, a separator, then the value (context.go)
		{Name: "context", Hints: contextHints(), scan: scanContext},
		{Name: "base64_credentials", scan: scanBase64Credentials, needs: needsBase64Run},
		// a Discord bot token: the bot's id in base64, a time stamp and a signature, dotted
		{Name: "discord_bot_token", scan: scanDiscordBotTokens, needs: needsBase64Run},
		// a .pgpass line: host:port:database:user:password
		{Name: "pgpass_password", scan: scanPgpass, needs: needsOperator},
		// PHP: define('AUTH_KEY', 'X'), define('DB_PASSWORD', "X"): WordPress salts hold every
		// character but the quote, so the value is taken whole, as quoted
		{Name: "php_define_secret", Hints: []string{"define("}, scan: scanQuotedGroups(regexp.MustCompile(`(?i)\bdefine\([ \t]*['"][a-z0-9_]*(?:key|salt|pass|password|passwd|secret|token|nonce)[a-z0-9_]*['"][ \t]*,[ \t]*(?:'([^'\n]{8,})'|"([^"\n]{8,})")`))},
		// a secret-named key whose value is string literals joined ("ab" "cd", "ab" + "cd"), or
		// one quoted value holding escaped quotes ("pass": "ab\"cd"): the whole value, as written
		{Name: "joined_literal_secret", Hints: secretKeyWords, needs: needsOperator, scan: joinedLiterals(regexp.MustCompile(`(?i)(?:key|token|secret|password|passwd|pwd|pass)[a-z0-9_]*["']?[ \t]*(?::=|=|:)[ \t]*\(?[ \t]*("[^"\n]{4,}"(?:[ \t]*\+?[ \t]*\n?[ \t]*"[^"\n]{4,}")+|"(?:[^"\\\n]|\\.)*\\"(?:[^"\\\n]|\\.)*")`))},
		// a list of recovery codes (GitHub's 5aceb-36be4, A5YY-Q45J-YW22): three or more of one
		// shape in a row
		{Name: "code_list", scan: scanCodeLists, needs: needsInnerDashes},
		// ab -A user:X, httpie -a user:X (at a line's start or after a prompt, so each line is
		// looked along once), haproxy's stats auth user:X, mount_smbfs //user:X@host/
		{Name: "user_colon_password", Hints: []string{" -a ", "\t-a ", "--auth", "stats auth", "//"}, scan: gated(scanArguments(regexp.MustCompile(`(?i)(?m)(?:^|[$>] )[ \t]*ab[ \t][^\n]*?[ \t]-A[ \t]+["']?[^\s:"']+:([^\s"']+)|(?i)(?m)(?:^|[$>] )[ \t]*https?[ \t][^\n]*?[ \t](?:-a|--auth)[ \t=]+["']?[^\s:"']+:([^\s"']+)|(?i)\bstats[ \t]+auth[ \t]+[^\s:]+:(\S+)|(?:^|[\s'"(])//[^\s/:@]+:([^\s/@]+)@[a-z0-9.-]+/`)), func(s string) bool {
			return strings.Contains(s, ":") && (strings.Contains(s, "@") || strings.Contains(s, "stats") || strings.Contains(s, "-a") || strings.Contains(s, "-A"))
		})},
		// INSERT INTO users (email, password) VALUES ('a@b.c', 'X'): the value of a column that
		// names a secret
		{Name: "signin_code", Hints: signInHints, scan: scanSignInCodes},
		{Name: "slashed_credentials", Hints: []string{"cred", "login", "log in", "log-in", "logon", "sign in", "sign-in", "signin", "log on"}, scan: scanSlashedCredentials},
		{Name: "subcommand_password", Hints: []string{":password ", "_password ", "-password ", ":passwd ", "_passwd ", "-passwd "}, scan: scanSubcommandPasswords},
		{Name: "sql_column_secret", Hints: []string{"insert into"}, scan: scanInsertedSecrets},
		// user:X@host without a scheme (impacket's domain/user:X@host)
		{Name: "user_password_at_host", needs: needsOperator, scan: gated(scanArguments(regexp.MustCompile(`(?i)(?:^|[\s'"/])[a-z0-9_.-]+:([^\s/@:'"]{6,})@[a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+`)), func(s string) bool {
			return strings.IndexByte(s, '@') >= 0
		})},
		// keys shown in groups of four (a TOTP setup key, an app password, backup codes)
		{Name: "grouped_secret", scan: scanGroupedSecrets, needs: needsGroupRun},
		{Name: "digit_groups", scan: scanDigitGroups, needs: needsByteRun},
		// a token that looks random, whatever its kind (shape.go)
		{Name: "shape", scan: scanShape, needs: needsTokenRun},
		// a random token broken in two by a line break (shape.go)
		{Name: "split_token", scan: scanSplitTokens, needs: needsSplitRun},
		// twelve Han characters or more, each alone between blanks: a Chinese recovery phrase
		// (decoders_more.go)
		{Name: "han_seed_phrase", scan: scanHanPhrases, needs: needsHanRun},
		// a made-up password, whatever names it (password.go)
		{Name: "password_shape", scan: scanPasswords, needs: needsPasswordRun},
	}
	// decoded text, key bodies, multi-part tokens, seed phrases (structure.go)
	rules = append(rules, structureRules(0)...)
	for _, a := range argumentRules {
		rules = append(rules, Rule{Name: a.name, Hints: a.hints, scan: scanArguments(regexp.MustCompile(`(?i)` + a.pattern))})
	}
	for _, p := range providers {
		rules = append(rules, rx(p.name, p.pattern, 0, p.hints...))
	}
	return newRedactor(rules)
}

// newRedactor indexes the hints of rules once, so Text finds the rules to run in one pass.
func newRedactor(rules []Rule) *Redactor {
	r := &Redactor{rules: rules, hints: newHintIndex(rules)}
	for i, rule := range rules {
		for k := range r.needRules {
			if rule.needs&(1<<k) != 0 {
				r.needRules[k].set(i)
			}
		}
	}
	return r
}

// Rules returns a copy of the rule table, for tests and documentation.
func (r *Redactor) Rules() []Rule {
	return append([]Rule(nil), r.rules...)
}

// Text returns s with every secret replaced by Placeholder. Applying it twice gives the same text.
// Rules run on s as it is, so the original case and width survive around the placeholders, and,
// when s is not plain ASCII, on its folded form too (full-width letters, ß, ſ), mapped back to s:
// nothing that folding would turn into a secret stays.
func (r *Redactor) Text(s string) string {
	out, _ := r.TextStats(s)
	return out
}

// TextStats is Text that also reports its work.
func (r *Redactor) TextStats(s string) (string, Stats) {
	return r.textStats(s, true)
}

// textStats is TextStats; without screen every pass folds its text and looks for hints in the
// fold, which tests compare with the screened passes.
func (r *Redactor) textStats(s string, screen bool) (string, Stats) {
	var st Stats
	// A text changed by a pass is passed again, in case a replacement made a new match; the passes
	// are bounded, each linear.
	for range 4 {
		out := r.pass(s, &st, screen)
		if out == s {
			break
		}
		s = out
	}
	return s, st
}

// span is a byte range [start, end) to replace.
type span struct{ start, end int }

// pass runs every hinted rule once over s (and its folded form) and replaces the union of matches.
// With screen, a text that screen finds nothing to look for in (most texts) is returned as it
// is, after one pass over it and without allocating.
func (r *Redactor) pass(s string, st *Stats, screen bool) string {
	st.Passes++
	spans := r.findSpans(s, st, screen)
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		if tail := joinedTail(s, end); tail > end {
			end = tail // the rest of a secret joined from literals ('Raven$81' || 's3eT')
		}
		if head := joinedHead(s, start); head < start && head >= last {
			start = head // and its beginning ("sk_live_4rmni" + "Y1vN…")
		}
		start, end = widenToToken(s, max(start, last), end)
		for ; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		if start < last {
			start = last
		}
		b.WriteString(s[last:start])
		b.WriteString(Placeholder)
		last = end
	}
	b.WriteString(s[last:])
	out := b.String()
	if out == s {
		return s
	}
	return out
}

// find runs the hinted rules over s, each once, and reports their secrets to add.
func (r *Redactor) find(s string, hinted ruleSet, add func(start, end int), st *Stats) {
	for i, rule := range r.rules {
		if !hinted.has(i) {
			continue
		}
		st.Applications++
		if rule.scan != nil {
			st.Bytes += rule.scan(s, add)
			continue
		}
		st.Bytes += len(s)
		for _, loc := range rule.Pattern.FindAllStringSubmatchIndex(s, -1) {
			g := rule.Group
			if g == FirstGroup {
				for g = 1; 2*g < len(loc) && loc[2*g] < 0; g++ {
				}
				if 2*g >= len(loc) {
					continue
				}
			}
			start, end := loc[2*g], loc[2*g+1]
			if start < 0 || strings.EqualFold(s[start:end], Placeholder) || knownPlaceholder(s[start:end]) {
				continue
			}
			add(start, end)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// An assignment key (DB_PASSWORD=, "SessionToken": , _authToken=, x-api-key:, AccountKey=) is an
// identifier that ends in a long key word (POSTGRES_PASSWORD, clientSecret, HEROKU_API_KEY),
// or is a short one or ends in one after a separator (pass, DB_PASS, _auth, db-pwd, ..._PAT), so
// compass= and author: are no keys; sig (a SAS signature) counts only alone. A _base or _value
// may follow (SECRET_KEY_BASE), and an _id after a private key (a service account's
// private_key_id). The operator is =, :, := or =>, with an optional quote and blanks before it.
var (
	longKeyWords  = []string{"password", "passwd", "passwort", "passphrase", "secret", "token", "credential", "credentials", "seed"}
	keyQualifiers = []string{"api", "access", "private", "secret", "account", "signing", "encryption", "master", "client", "app", "auth", "session", "service", "license", "sharedaccess", "shared_access", "webhook", "deploy", "storage", "consumer", "admin", "root", "preshared"}
	shortKeyWords = []string{"pass", "pwd", "pw", "auth", "pat"}
	// sepQualifiers qualify a key only after a separator (Ocp-Apim-Subscription-Key), not in a
	// name in code (subscriptionKey).
	sepQualifiers = []string{"subscription", "application"}
	// cookieKeys are the names of session cookies and of request signatures: keys only when a
	// value follows the = at once, as in a cookie or a query string (Cookie: session=...,
	// ?X-Amz-Signature=...), not in code (s.SessionID = id) or JSON ("sessionId": ...,
	// "signature": ...), where they name identifiers.
	cookieKeys = []string{"session", "sessionid", "session_id", "sessid", "jsessionid", "phpsessid", "sid", "aspsessionid", "signature"}
)

// assignmentHints: every key contains one of them.
var assignmentHints = []string{"pass", "pwd", "pw", "secret", "token", "credential", "key", "auth", "sig", "pat", "sess", "cookie", "seed"}

// maxKeyTail is how much of an identifier's end is read to recognise it: more than the longest
// key word with its qualifier and suffix.
const maxKeyTail = 48

func isKeyByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '-'
}

func isSep(c byte) bool { return c == '_' || c == '.' || c == '-' }

// secretKey reports whether the identifier tail k (lower case) names a secret; whole says k is
// the whole identifier.
func secretKey(k string, whole bool) bool {
	cands := []string{k}
	// a name that says how the value was disguised (password_encoded, PASS_ENC,
	// secret_obfuscated) still names the secret: the disguise is undone by the decoders
	for _, suf := range []string{"base", "value", "id", "enc", "encoded", "obfuscated"} {
		if r, ok := strings.CutSuffix(k, suf); ok && r != "" {
			if isSep(r[len(r)-1]) {
				r = r[:len(r)-1]
			}
			if suf == "id" && !strings.HasSuffix(r, "private_key") && !strings.HasSuffix(r, "privatekey") {
				continue // a key's id names it (api_key_id); a service account's private_key_id counts
			}
			cands = append(cands, r)
		}
	}
	for _, c := range cands {
		for _, w := range longKeyWords {
			if strings.HasSuffix(c, w) {
				return true
			}
		}
		if r, ok := strings.CutSuffix(c, "key"); ok {
			sep := r != "" && isSep(r[len(r)-1])
			if sep {
				r = r[:len(r)-1]
			}
			for _, q := range keyQualifiers {
				if strings.HasSuffix(r, q) {
					return true
				}
			}
			for _, q := range sepQualifiers {
				if b, ok := strings.CutSuffix(r, q); ok && sep && (b == "" || isSep(b[len(b)-1])) {
					return true
				}
			}
		}
		for _, w := range shortKeyWords {
			if r, ok := strings.CutSuffix(c, w); ok && (r == "" && (whole || len(c) < len(k)) || r != "" && isSep(r[len(r)-1])) {
				return true
			}
		}
	}
	return whole && k == "sig"
}

// assignment is a key found before an operator: where the key starts, where its value starts,
// the operator and the key in lower case.
type assignment struct {
	keyStart, valueStart int
	op, key              string
}

// findAssignments calls found for each key of s, in order, in one pass: each operator is looked
// at once, and the identifier before it is read back to the previous non-identifier byte, so no
// byte is read twice as part of a key. It returns the bytes read.
//
// Beside key=value and key: value it finds an XML element named like a secret
// (<password>value</password>, whose operator is the >), and a value named by the pair before it:
// name: DB_PASSWORD then value: ... (a Kubernetes env entry), key="ApiSecret" value="..." (.NET
// appSettings), whose key is the name.
func findAssignments(s string, found func(assignment)) (work int) {
	named, namedEnd := "", -1 // the last secret name given by a name or key pair, and where it ended
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '>' {
			j := i
			for j > 0 && i-j <= maxKeyTail && isKeyByte(s[j-1]) {
				j--
			}
			work += i - j
			if j < i && j > 1 && s[j-1] == ':' {
				// a namespaced element (<wsse:Password>): its prefix is no part of its name
				p := j - 1
				for p > 0 && j-p <= maxKeyTail && (isLetter(s[p-1]) || '0' <= s[p-1] && s[p-1] <= '9') {
					p--
				}
				work += j - p
				if p < j-1 && p > 0 && s[p-1] == '<' {
					if key := strings.ToLower(s[j:i]); secretKey(key, true) {
						found(assignment{keyStart: j, valueStart: i + 1, op: ">", key: key})
					}
					continue
				}
			}
			if j < i && j > 0 && s[j-1] == '<' {
				if key := strings.ToLower(s[j:i]); secretKey(key, true) {
					found(assignment{keyStart: j, valueStart: i + 1, op: ">", key: key})
				}
			}
			continue
		}
		if c != '=' && c != ':' {
			continue
		}
		op, next := s[i:i+1], i+1
		if next < len(s) {
			switch {
			case c == '=' && s[next] == '>', c == ':' && s[next] == '=':
				op, next = s[i:i+2], i+2
			case c == '=' && s[next] == '=':
				i++ // a comparison
				continue
			}
		}
		if c == '=' && i > 0 && strings.IndexByte("!<>=", s[i-1]) >= 0 {
			continue
		}
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
			j--
		}
		end := j
		for j > 0 && isKeyByte(s[j-1]) {
			j--
		}
		work += i - j
		if j == end {
			continue
		}
		key := strings.ToLower(s[max(j, end-maxKeyTail):end])
		for next < len(s) && (s[next] == ' ' || s[next] == '\t') {
			next++
		}
		switch {
		case secretKey(key, end-j <= maxKeyTail):
		case op == "=" && isKeyByte(s[i-1]) && next == i+1 && cookieKey(key):
		case (key == "name" || key == "key" || key == "type" || key == "parameterkey" || key == "parametername") && end-j == len(key):
			// the field that names what the next value is: a Kubernetes env entry's name, a
			// credential's type (Keycloak's "type": "password"), CloudFormation's ParameterKey
			named, namedEnd = "", -1
			if n, e := nameAt(s, next); secretKey(n, true) {
				named, namedEnd = n, e
			}
			work += min(len(s)-next, maxKeyTail+2)
			continue
		case key == "noecho" && end-j == len(key) && hasLowerPrefix(s[next:], "true"):
			// a CloudFormation parameter that must not be echoed is a secret: its Default is one
			named, namedEnd = "password", next+4
			continue
		case (key == "value" || key == "parametervalue" || key == "default") && end-j == len(key) && named != "" && j-namedEnd <= maxNamedGap:
			key = named
			named = ""
		default:
			continue
		}
		found(assignment{keyStart: j, valueStart: next, op: op, key: key})
		i = next - 1
	}
	return work
}

// cookieKey reports whether k (lower case) is one of cookieKeys, alone or after a separator
// (_myapp_session, connect.sid, X-Amz-Signature).
func cookieKey(k string) bool {
	for _, w := range cookieKeys {
		if r, ok := strings.CutSuffix(k, w); ok && (r == "" || isSep(r[len(r)-1])) {
			return true
		}
	}
	return false
}

// maxNamedGap is how far a value may follow the name that names it (name: X, then value:).
const maxNamedGap = 64

// nameAt reads the name given at p, quoted or not, in lower case, and where it ends; a name
// longer than maxKeyTail is none.
func nameAt(s string, p int) (string, int) {
	if p < len(s) && (s[p] == '"' || s[p] == '\'') {
		p++
	}
	e := p
	for e < len(s) && e-p <= maxKeyTail && isKeyByte(s[e]) {
		e++
	}
	if e == p || e-p > maxKeyTail {
		return "", e
	}
	return strings.ToLower(s[p:e]), e
}

// scanAssignments finds the values of key=value, key: value, "key": "value" and key := "value"
// assignments. A value is the text between quotes, or runs to white space or , ; & or a quote.
// It is linear: keys are found in one pass, a quoted value ends at the next quote of its kind
// (no other quoted value can start before it), and an unquoted value that starts inside the
// previous one ends where that one ends, so no byte is scanned twice.
func scanAssignments(s string, add func(start, end int)) int {
	work := len(s)
	uqStart, uqEnd := -1, -1 // the last unquoted value scanned
	value := func(k assignment) {
		p := k.valueStart
		if p >= len(s) {
			return
		}
		var start, end int
		if k.op == ">" {
			// an XML element's text runs to the next tag or the end of the line
			start, end = p, p
			for end < len(s) && s[end] != '<' && s[end] != '\n' {
				end++
			}
			work += end - start
			if end+1 >= len(s) || s[end] != '<' || s[end+1] != '/' {
				return // no closing tag: a word in angle brackets in prose
			}
			for end > start && isSpace(s[end-1]) {
				end--
			}
		} else if c := s[p]; c == '"' || c == '\'' {
			q := strings.IndexByte(s[p+1:], c)
			if c == '"' {
				q = closingQuote(s, p+1, q)
			}
			if q >= 0 {
				work += q
				start, end = p+1, p+1+q
			} else {
				work += len(s) - p - 1
				start = p + 1
				end = unquotedEnd(s, start, &uqStart, &uqEnd, &work)
			}
		} else {
			start = p
			end = unquotedEnd(s, start, &uqStart, &uqEnd, &work)
			if k.op == ":=" && !bareLiteral(s[start:end]) {
				return // code assigning an expression (token := r.Header.Get(...)), not a literal
			}
		}
		if end > start && secretValue(k.key, s[start:end]) {
			add(start, end)
		}
	}
	var pending assignment
	have := false
	work += findAssignments(s, func(k assignment) {
		// "token: token: abc": the value of the first key is the second assignment
		if have && k.keyStart != pending.valueStart {
			value(pending)
		}
		pending, have = k, true
	})
	if have {
		value(pending)
	}
	return work
}

// unquotedEnd is where an unquoted value starting at start ends; a value starting inside the last
// scanned one ends where it ended.
func unquotedEnd(s string, start int, uqStart, uqEnd *int, work *int) int {
	if start >= *uqStart && start < *uqEnd {
		return *uqEnd
	}
	end := start
	for end < len(s) && !valueStop(s[end]) && !escapedBreak(s, end) {
		end++
	}
	*work += end - start
	*uqStart, *uqEnd = start, end
	return end
}

// escapedBreak reports whether an escaped line break or tab (\n, \r, \t, as JSON text writes
// one) starts at i: an unquoted value in escaped text ends there, as it ends at the break itself.
func escapedBreak(s string, i int) bool {
	return s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't')
}

func valueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', ',', ';', '&', '"', '\'', '`':
		return true
	}
	return false
}

// placeholderValue matches values that name a secret rather than hold one: ${VAR}, $VAR, $(cmd),
// <your-token>, {{ .Token }}, %s, ****, and a call or comparison in code ([]byte(opts.Token)).
var placeholderValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\(.*|<.*|\{\{.*|%[-+# 0-9.]*[a-zA-Z]|\*+|x{3,}|X{3,}|=.*|[A-Za-z_\[\]*&][A-Za-z0-9_.\[\]*&]*\(.*|\[REDACTED\]|\[redacted\])$`)
})

// passwordWords mark a key whose value is a secret even when it is all digits (a PIN).
var passwordWords = []string{"password", "passwd", "passwort", "passphrase", "pwd"}

// secretValue reports whether v, the value of key, may be a secret: not a word like true or
// none, not a placeholder, not a count (tests pass: 42, max_token: 4096) unless the key is a
// password's, and, for a key other than a password's, not a short plain word (token: send).
func secretValue(key, v string) bool {
	// a value that closes a map or a list it did not open ("token": token}) ends before it
	for len(v) > 1 && (v[len(v)-1] == '}' && !strings.Contains(v, "{") || v[len(v)-1] == ']' && !strings.Contains(v, "[")) {
		v = v[:len(v)-1]
	}
	if notAValue(v) {
		return false
	}
	switch strings.ToLower(strings.TrimRight(v, ")")) {
	case "true", "false", "null", "nil", "none", "undefined", "yes", "no", "on", "off", "required", "optional", "empty":
		return false
	}
	if placeholderValue().MatchString(v) {
		return false
	}
	if w := strings.TrimRight(v, ",;)}]"); typeWords[strings.ToLower(w)] || identifierLike(w) || w == "None" || w == "nil" || w == "null" {
		return false // a type in a schema (password: string) or a field in code (c.ClientSecret)
	}
	if cookieKey(key) && len(v) >= 36 && isUUID(v[:36]) && (len(v) == 36 || !isWordByte(v[36])) {
		return false // a runtime's session id (CODEX_SESSION_ID=...), not a session cookie's random value
	}
	// a number closing a JSON object or list ("progressToken":4}) is a count
	num := strings.TrimRight(v, "}])")
	if num == "" {
		num = v
	}
	digits, letters, alnum := true, true, false
	for i := 0; i < len(num); i++ {
		digits = digits && '0' <= num[i] && num[i] <= '9'
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		isDigit := '0' <= c && c <= '9'
		isLetter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		letters = letters && isLetter
		alnum = alnum || isDigit || isLetter || c >= utf8.RuneSelf
	}
	if !alnum {
		return false
	}
	password := false
	for _, w := range passwordWords {
		password = password || strings.Contains(key, w)
	}
	switch {
	case digits:
		return password || len(num) >= 20 // no count has 20 digits: a numeric secret (a client secret)
	case letters && len(v) < 4 && !password:
		return false // a word after a short key in prose (one pass: a ..., pass: the ...)
	case letters && len(v) <= 8:
		return password || strings.Contains(key, "pass") || strings.HasSuffix(key, "pw")
	}
	return true
}

// typeWords are the type names a schema or a signature gives a secret's field
// (password: string, token: str, secret: []byte), never the secret itself.
var typeWords = map[string]bool{"string": true, "str": true, "text": true, "int": true, "bool": true, "boolean": true,
	"number": true, "bytes": true, "[]byte": true, "byte[]": true, "char[]": true, "varchar": true, "secretstr": true,
	"securestring": true, "object": true, "any": true, "string?": true, "option<string>": true, "string[]": true}

// isUUID reports whether v is a UUID in its usual 8-4-4-4-12 hexadecimal form.
func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// commandLineHints: every password or token given on a command line holds one of them.
var commandLineHints = []string{"--pass", "--token", "--secret", "--api", "--auth", "--access-token", "--client-secret", "--http-", "--ftp-", "--proxy-", "mysql", "sshpass", "vault", "-u ", "--user"}

// argument is a command's argument or a config file's value: an optional quote, then no quote,
// blank or list separator, and no leading dash (the next flag).
const argument = `["']?([^\s"'-][^\s"',;&` + "`" + `]*)`

// commandLine finds a secret given as a command's argument; the first group that matched is the
// secret: --password X, --token X (and the other flags, --http-password X too), mysql -pX,
// sshpass -p X, curl -u user:X, and a legacy Vault token (s. and 24 characters) after vault login.
var commandLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)--(?:(?:http|ftp|proxy)-)?(?:password|passwd|pass|token|secret|api-key|apikey|api-token|auth-token|authkey|access-token|client-secret)(?:=|[ \t]+)` + argument +
		`|\bmysql(?:dump|admin|sh)?[ \t][^\n]*?[ \t]-p` + argument +
		`|\bsshpass[ \t]+-p[ \t]*["']?([^\s"',;&` + "`" + `]+)` +
		`|\bvault[ \t]+login[ \t]+(?:-[^\s]+[ \t]+)*(s\.[0-9a-z]{24})\b` +
		`|(?:^|[ \t])(?:-u|--user)[ \t]+["']?[^\s:"']+:([^\s"'@,;&` + "`" + `]+)`)
})

// argumentRules find passwords given to one command or in one kind of config line, each with its
// own hints so a text runs only the patterns of the commands it names; the first group that
// matched is the password.
var argumentRules = []struct {
	name, pattern string
	hints         []string
}{
	// docker login -p X, and the other registry and cloud logins
	{"login_password", `\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry|az|oc|cf)[ \t]+login\b[^\n]*?[ \t]-p[ \t]+` + argument, []string{" -p", "\t-p"}},
	// skopeo --dest-creds user:X, --src-creds, --creds, --registry-credentials: a flag naming
	// credentials given as user:password
	{"creds_flag_password", `--(?:[a-z0-9]+-)*(?:creds|credentials)(?:=|[ \t]+)["']?[^\s:"'=-][^\s:"']*:([^\s"']+)`, []string{"creds", "credentials"}},
	// redis-cli -a X; requirepass X and masterauth X in redis.conf
	{"redis_password", `\bredis-cli\b[^\n]*?[ \t]-a[ \t]+` + argument + `|\b(?:requirepass|masterauth)[ \t]+` + argument, []string{"redis-cli", "requirepass", "masterauth"}},
	// sqlcmd -P X; sqlplus user/X; jdbc:oracle:thin:user/X@host
	{"sql_password", `\b(?:sqlcmd|bcp|osql|isql)\b[^\n]*?[ \t]-p[ \t]*` + argument + `|\bsqlplus[ \t]+(?:-[a-z]+[ \t]+)*["']?[^\s/@"']+/([^\s/@"']+)|\bjdbc:oracle:[a-z]+:[^\s/@:]+/([^\s@]+)@`,
		[]string{" -p", "\t-p", "sqlplus", "jdbc:oracle"}},
	// ldapsearch -w X (and the other OpenLDAP tools)
	{"ldap_password", `\bldap[a-z]*\b[^\n]*?[ \t]-w[ \t]+` + argument, []string{"-w"}},
	// keytool -storepass X, -keypass X, -srcstorepass X
	{"keystore_password", `[ \t]-(?:src|dest)?(?:store|key)pass[ \t]+` + argument, []string{"-store", "-key", "-srcstore", "-srckey", "-deststore", "-destkey"}},
	// a Postfix sasl_passwd line: [smtp.example.com]:587 user:X
	{"sasl_password", `\[[0-9a-z.-]+\]:[0-9]+[ \t]+[^\s:]+:(\S+)`, []string{"]:"}},
	// smbclient -U user%X
	{"smb_password", `\bsmbclient\b[^\n]*?[ \t]-u[ \t]*["']?[^\s%"']+%([^\s"']+)`, []string{"smbclient"}},
	// htpasswd -b file user X
	{"htpasswd_password", `\bhtpasswd[ \t]+-[a-z]*b[a-z]*[ \t]+(?:-[a-z]+[ \t]+)*[^\s-]\S*[ \t]+\S+[ \t]+` + argument, []string{"passwd"}},
	// PowerShell: ConvertTo-SecureString [-String] "X" -AsPlainText
	{"powershell_secure_string", `\bconvertto-securestring\b[ \t]+(?:-string[ \t]+)?(?:"([^"\n]+)"|'([^'\n]+)')`, []string{"convertto-securestring"}},
	// lftp -u user,X; ssh-keygen -N X / -P X (a key's new and old passphrase); xfreerdp /p:X;
	// net use [Z:] \\server\share X /user:NAME
	{"tool_password", `\blftp\b[^\n]*?[ \t]-u[ \t]+["']?[^\s,"']+,([^\s"']+)` +
		`|(?:\bssh-keygen\b[^\n]*?)?[ \t]-(?-i:[NP])[ \t]+(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'-]\S*))` +
		`|\b[xw]freerdp\b[^\n]*?[ \t]/p(?:assword)?:(?:"([^"\n]+)"|(\S+))` +
		`|\bnet[ \t]+use\b(?:[ \t]+[a-z]:)?[ \t]+\S+[ \t]+([^\s/]\S*)[ \t]+/user:`, []string{"lftp", "ssh-keygen", "freerdp", "net use"}},
	// SQL: CREATE USER … IDENTIFIED BY 'X', ALTER ROLE … WITH [ENCRYPTED] PASSWORD 'X', SET
	// PASSWORD = 'X'; mysqladmin … password X
	{"sql_statement_password", `\bidentified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:password[ \t]+)?'([^'\n]+)'` +
		`|\bwith[ \t]+(?:encrypted[ \t]+|unencrypted[ \t]+)?password[ \t]+'([^'\n]+)'|\bset[ \t]+password[ \t]*(?:for[ \t]+\S+[ \t]*)?=[ \t]*'([^'\n]+)'` +
		`|\bmysqladmin\b[^\n]*?[ \t]password[ \t]+` + argument, []string{"identified", "password '", "password='", "password = '", "mysqladmin"}},
	// a secret piped into a command that reads it (echo X | docker login --password-stdin,
	// echo user:X | chpasswd, echo X | sudo -S)
	{"piped_password", `\b(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?["']?([^\s"'|]+)["']?[ \t]*\|[ \t]*(?:sudo[ \t]+(?:-s\b)?)?(?:-s\b|chpasswd|passwd\b|[a-z0-9_.-]+[ \t]+login\b[^\n]*--password-stdin|cryptsetup\b|kinit\b|openconnect\b|docker[ \t]+secret[ \t]+create\b|vncpasswd\b|smbpasswd\b|x11vnc\b|ssh-add\b|gpg\b[^\n]*--passphrase-fd|openssl\b[^\n]*-pass(?:in|out)?[ \t]+stdin|[a-z0-9_.-]+[ \t][^\n]*--pass(?:word|wd)?-(?:stdin|on-stdin))`, []string{"--password-stdin", "chpasswd", "passwd", "sudo -s", "cryptsetup", "kinit", "openconnect", "secret create", "vncpasswd", "x11vnc", "ssh-add", "--passphrase-fd", "stdin"}},
	// the secret path of a webhook, a password reset or an invitation link: what follows the word
	// a CI logging command that sets a variable named for a secret, its value after the command
	// (##vso[task.setvariable variable=DB_PASS]X, ::set-output name=token::X)
	{"ci_set_variable", `(?:##vso\[task\.setvariable\b[^\]\n]*\bvariable=[^\];\n]*(?:pass|pwd|secret|token|key|credential)[^\];\n]*(?:;[^\]\n]*)?\]([^\s#]{4,200}))` +
		`|(?:::(?:set-output|set-env)\b[^:\n]*\bname=[^:,\n]*(?:pass|pwd|secret|token|key|credential)[^:,\n]*::([^\s]{4,200}))`, []string{"##vso[", "::set-output", "::set-env"}},
	{"url_path_secret", `/(?:hooks?|webhooks?|webhookb2|bot/v2/hook|reset-password|password-reset|reset|invite|invitation|magic-link|unsubscribe|confirm|verify)/(?:[a-z0-9_-]{1,12}/)?([a-z0-9_@-]{16,}(?:/[a-z0-9_@-]{16,})*)`, []string{"/hook", "/webhook", "/bot/", "/reset", "/password-reset", "/invit", "/magic", "/unsubscribe", "/confirm", "/verify"}},
	// curl -u KEY: (an API key as the user, no password)
	{"curl_key_user", `\bcurl\b[^\n]*?[ \t](?:-u|--user)[ \t]+["']?([^\s:"']{16,}):(?:[\s"']|$)`, []string{"curl"}},
	// XML: a property or setting whose name names a secret, its value the element's text
	// (<property name="hibernate.connection.password">X</property>); a Password element holding a
	// Value (Windows unattend.xml)
	{"xml_named_secret", `<(?:property|entry|add|setting|param|parameter|item|var|env)\b[^>\n]*\b(?:name|key)=["'][^"'\n]*(?:password|passwd|pwd|secret|token|apikey|api_key|api-key|credential)[^"'\n]*["'][^>\n]*>([^<\n]{4,200})<` +
		`|<[a-z]*password[a-z]*>[ \t\n]*<value>([^<\n]{4,200})</value>` +
		// the same values in a CDATA section (<value><![CDATA[X]]></value>), which no markup ends
		`|<(?:property|entry|add|setting|param|parameter|item|var|env)\b[^>\n]*\b(?:name|key)=["'][^"'\n]*(?:password|passwd|pwd|secret|token|apikey|api_key|api-key|credential)[^"'\n]*["'][^>\n]*>[ \t]*(?:<value>[ \t]*)?<!\[CDATA\[([^\n]{4,200}?)\]\]>` +
		`|<[a-z:]*(?:password|passwd|secret|token|apikey)[a-z]*>[ \t]*<!\[CDATA\[([^\n]{4,200}?)\]\]>`, []string{"name=", "key=", "<value>", "cdata"}},
	// a TOTP seed (base32 capitals) near a word for one-time passwords; an Anaconda token in a
	// channel URL
	{"otp_seed", `\b(?:totp|otp|oathtool|2fa|mfa|authenticator)\b[^\n]{0,80}?\b([a-z2-7]{16,64})\b`, []string{"totp", "otp ", "otp:", "otp(", "oathtool", "2fa", "mfa", "authenticator"}},
	{"anaconda_token", `\banaconda\.(?:org|cloud)/t/([0-9a-z-]{12,})`, []string{"anaconda"}},
	// ab -A user:X, httpie -a user:X, haproxy's stats auth user:X, mount_smbfs //user:X@host
	// ldappasswd -s X (the new password), ncftp -p X, rdesktop -p X, rclone obscure X, htpasswd
	// -nb user X (no file), .NET's NetworkCredential("user", "X")
	{"tool_secret_args", `\bldappasswd\b[^\n]*?[ \t]-s[ \t]+` + argument +
		`|\bncftp[a-z]*\b[^\n]*?[ \t]-p[ \t]+` + argument +
		`|\brdesktop\b[^\n]*?[ \t]-p[ \t]+` + argument +
		`|\brclone[ \t]+obscure[ \t]+` + argument +
		`|\bhtpasswd[ \t]+(?:-[a-z]*n[a-z]*b[a-z]*|-[a-z]*b[a-z]*n[a-z]*)[ \t]+(?:-[a-z]+[ \t]+)*[^\s-]\S*[ \t]+` + argument +
		`|networkcredential\([ \t]*['"][^'"\n]*['"][ \t]*,[ \t]*['"]([^'"\n]+)['"]`, []string{"ldappasswd", "ncftp", "rdesktop", "rclone", "htpasswd", "networkcredential"}},
	// passwords given to archivers, PuTTY, openssl and gpg: zip -P X, 7z -pX, unzip -P X,
	// plink/pscp -pw X, openssl … -passin pass:X, gpg --passphrase X
	{"tool_password_flags", `\b(?:zip|unzip|7z|7za|rar|unrar)\b[^\n]*?[ \t]-(?-i:P)[ \t]*` + argument +
		`|\b(?:7z|7za|rar|unrar)\b[^\n]*?[ \t]-(?-i:p)` + argument +
		`|\b(?:plink|pscp|psftp|putty)\b[^\n]*?[ \t]-pw[ \t]+` + argument +
		`|[ \t]-pass(?:in|out)?[ \t]+pass:([^\s"']+)` +
		`|--passphrase(?:=|[ \t]+)` + argument, []string{" -p", "\t-p", "pass:", "--passphrase"}},
	// a mongo, psexec or rabbitmq style user and password: -u USER -p X; rabbitmqctl add_user /
	// change_password USER X; net user NAME X /add
	{"user_password_args", `\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|psexec|psexec64|rabbitmqadmin|influx|clickhouse-client|cqlsh|cypher-shell|etcdctl|mysqlsh|vsql|evil-winrm|hydra|medusa|ncrack|crackmapexec|netexec|nxc|smbmap)\b[^\n]*?[ \t]-p[ \t]+` + argument +
		`|\brabbitmqctl\b[^\n]*?\b(?:add_user|change_password)[ \t]+\S+[ \t]+` + argument +
		`|\bnet[ \t]+user[ \t]+\S+[ \t]+([^\s/*]\S*)` +
		// any tool's -u USER -p X (twine, docker, mysql's kin); a marketplace token (vsce, ovsx)
		`|[ \t]-u[ \t]+[^\s-]\S*[ \t]+-p[ \t]+["']?([^\s"'-][^\s"',;&` + "`" + `]{5,})` +
		`|\b(?:vsce|ovsx)\b[^\n]*?[ \t](?:-p|--pat)[ \t]+` + argument, []string{" -u ", "vsce", "ovsx", "mongo", "psexec", "rabbitmq", "influx", "clickhouse", "net user", "cqlsh", "cypher-shell", "etcdctl", "mysqlsh", "vsql", "evil-winrm", "hydra", "medusa", "ncrack", "crackmapexec", "netexec", "nxc", "smbmap"}},
	// a key given to an API client as it is made (new FooClient("KEY"), railway.NewClient("KEY"));
	// Bitwarden's bw unlock X
	{"client_key_arg", `\b(?:new[ \t]+[\\a-z0-9_.]*client|[a-z0-9_]*\.?newclient|client)[ \t]*\([ \t]*["']([a-z0-9][a-z0-9._+-]{15,})["']` +
		`|\bbw[ \t]+(?:unlock|login[ \t]+\S+)[ \t]+` + argument, []string{"client", "bw unlock", "bw login"}},
	// snmp tools' community (-c X) and v3 passphrases (-A X, -X X); smbclient //share X;
	// wpa_passphrase SSID X; MongoDB's changeUserPassword("user", "X")
	{"positional_password", `\bsnmp[a-z]*\b[^\n]*?[ \t]-(?-i:[cAX])[ \t]+` + argument +
		`|\bsmbclient[ \t]+['"]?//[^\s'"]+['"]?[ \t]+` + argument +
		`|\bwpa_passphrase[ \t]+\S+[ \t]+` + argument +
		`|\bchangeuserpassword\([ \t]*["'][^"'\n]*["'][ \t]*,[ \t]*["']([^"'\n]+)["']`, []string{"snmp", "smbclient", "wpa_passphrase", "changeuserpassword"}},
	// a CLI's "set KEY VALUE" where KEY names a secret (aws configure set aws_secret_access_key X,
	// npm config set _authToken X, wp config set DB_PASSWORD X)
	{"config_set_secret", `\b(?:configure|config)[ \t]+set[ \t]+(?:--[a-z-]+[ \t]+)*[a-z0-9_.:/-]*(?:password|passwd|secret|token|key|auth)[a-z0-9_.:/-]*[ \t]+` + argument, []string{"configure set", "config set"}},
	// a value given beside the name of a secret in code: define('DB_PASSWORD', 'X'),
	// os.getenv("API_KEY", "X"), config["password"] = "X"
	{"named_value", `\([ \t]?['"][a-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|pwd|credential|salt)[a-z0-9_.-]*['"]\s*,\s*['"]([^'"\s]{4,})['"]` +
		`|\[['"][a-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|pwd)[a-z0-9_.-]*['"]\]\s*(?:\|\|)?=\s*['"]([^'"\s]{4,})['"]`, []string{`("`, `('`, `( "`, `( '`, `["`, `['`}},
	// Apache's SetEnv (and PassEnv-style) KEY VALUE of a secret, without =
	{"setenv_secret", `\bsetenv(?:if)?[ \t]+[a-z0-9_]*(?:pass|pwd|secret|token|key)[a-z0-9_]*[ \t]+` + argument, []string{"setenv"}},
	// a YAML block scalar under a secret's key (password: |, then the value on the next line);
	// a Terraform variable named for a secret and its default; an XML setting's value beside a
	// key named for one (<add key="ClearTextPassword" value="X" />)
	{"config_block_password", `(?m)^[ \t]*[a-z0-9_.-]*(?:password|passwd|secret|token|key|pwd|credentials?)["']?[ \t]*:[ \t]*[|>][-+0-9]*[ \t]*\n[ \t]+(\S[^\n]*)` +
		// the same folded onto one line, as a collapsed comment has it (password: >- X)
		`|\b[a-z0-9_.-]*(?:password|passwd|secret|token|pwd)["']?[ \t]*:[ \t]*[|>][-+0-9]*[ \t]+([^\s|>]\S*)` +
		// a directive and its quoted value, as network and daemon configs write them
		// (plain-text-password-value "X"; secret "X";)
		`|\b[a-z0-9_-]*(?:password|passwd|secret)[a-z0-9_-]*[ \t]+"([^"\s]{6,})"` +
		`|\bvariable[ \t]+"[^"\n]*(?:password|secret|token|key|pwd)[^"\n]*"[ \t]*\{[^}]{0,400}?\bdefault[ \t]*=[ \t]*"([^"\n]+)"` +
		`|\bkey="[^"\n]*(?:password|secret|token|apikey|api_key|pwd)[^"\n]*"[ \t]+value="([^"\n]+)"`, []string{": |", ": >", `variable "`, `value="`, `password`, `secret`}},
	// Windows and other tools' own password flags: net use … /user:NAME X, cmdkey /pass:X,
	// schtasks /rp X, gh secret set NAME --body X, mosquitto_pub -P X, a single-dash -password X,
	// openssl enc -k X
	{"windows_tool_password", `\bnet[ \t]+use\b[^\n]*?/user:\S+[ \t]+([^\s/]\S*)|\bcmdkey\b[^\n]*?/pass:([^\s/]\S*)|\bschtasks\b[^\n]*?/rp[ \t]+` + argument +
		`|\bgh[ \t]+secret[ \t]+set\b[^\n]*?(?:--body|-b)[ \t]+` + argument + `|\bmosquitto_(?:pub|sub|rr)\b[^\n]*?[ \t]-(?-i:P)[ \t]+` + argument +
		`|[ \t]-password[ \t]+` + argument + `|\bopenssl[ \t]+enc\b[^\n]*?[ \t]-k[ \t]+` + argument, []string{"net use", "cmdkey", "schtasks", "gh secret", "mosquitto", "-password ", "openssl enc"}},
	// a Dockerfile's ENV or ARG of a secret without = (ENV DB_PASSWORD X); a Redis ACL user's
	// >password; a plist's <key>APIKey</key><string>X</string>; an expect script's send after
	// a password prompt
	{"file_format_password", `(?:^|[\s;])(?:env|arg)[ \t]+[a-z0-9_]*(?:password|secret|token|key|pass|pwd)[a-z0-9_]*[ \t]+([^\s=]\S*)` +
		`|\buser[ \t]+\S+[ \t]+(?:on|off|reset)\b[^\n]*?[ \t]>([^\s]+)` +
		`|<key>[^<\n]*(?:password|secret|token|apikey|api_key|key)[^<\n]*</key>\s*<string>([^<\n]+)</string>` +
		`|\bexpect[ \t]+[^\n]*(?:password|passphrase)[^\n]*\n\s*send[ \t]+"([^"\\\n]+)`, []string{"env ", "arg ", "user ", "<key>", "expect "}},
	// a token fed on a here-string to a login (gh auth login --with-token <<< X), HTTPie's -a
	// user:X and --auth user:X
	{"login_input", `\b(?:login|auth|token)\b[^\n]*?<<<[ \t]*` + argument + `|\bhttps?\b[^\n]*?[ \t](?:-a|--auth)[ \t=]+[^\s:"']+:` + argument +
		`|[ \t]--auth[ \t=]+["']?[^\s:"']+:` + argument, []string{"<<<", " -a", "--auth"}},
	// any flag named for a secret: --db-password X, --admin-pass=X, --vault-token X, -Password X
	// (PowerShell), -AccessKey X, /password:X, --client-secret X
	{"flag_secret", `(?:^|[\s"'(])(?:--?|/)(?:[a-z0-9]+[-_])*(?:password|passwd|passphrase|pass|pwd|secret|secretkey|token|apikey|api[-_]key|accesskey|access[-_]key|credentials?|authkey|auth[-_]key|private[-_]?key|mnemonic|seed)(?:=|:|[ \t]+)` + argument,
		[]string{"-pass", "_pass", "/pass", "-pwd", "_pwd", "-secret", "_secret", "/secret", "-token", "_token", "-apikey", "-api", "_api", "-accesskey", "-access", "_access", "-key", "_key", "-credential", "-authkey", "-auth", "-private", "-mnemonic", "-seed"}},
	// Gradle's signingConfigs: storePassword 'X', keyPassword "X" (no = in the Groovy DSL); a YAML
	// value behind an anchor (pw: &p X), or behind an anchor named for a secret (&dbpass X)
	{"config_password", `\b(?:store|key)password[ \t]+(?:'([^'\n]+)'|"([^"\n]+)")` +
		`|\b(?:password|passwd|pass|pwd|pw|secret)["']?[ \t]*:[ \t]*&[a-z0-9_-]+[ \t]+([^\s"']\S*)` +
		`|&[a-z0-9_-]*(?:pass|pwd|secret)[a-z0-9_-]*[ \t]+([^\s"'&*]\S*)`, []string{"storepassword", "keypassword", ": &"}},
}

// gated runs scan only over a text ok accepts: a cheap look for what every match needs.
func gated(scan func(s string, add func(start, end int)) int, ok func(string) bool) func(s string, add func(start, end int)) int {
	return func(s string, add func(start, end int)) int {
		if !ok(s) {
			return len(s)
		}
		return scan(s, add)
	}
}

// joinedLiterals runs pattern (scanQuotedGroups) only over a text with a literal joined to
// another ("a" "b", "a" + "b") or an escaped quote: the pattern costs a backtracking pass.
func joinedLiterals(pattern *regexp.Regexp) func(s string, add func(start, end int)) int {
	return gated(scanQuotedGroups(pattern), func(s string) bool {
		return strings.Contains(s, `\"`) || strings.Contains(s, `" "`) || strings.Contains(s, `"+`) || strings.Contains(s, `" +`) || strings.Contains(s, "\"\n")
	})
}

// secretKeyWords are the hints of rules keyed by a secret-named identifier.
var secretKeyWords = []string{"key", "token", "secret", "password", "passwd", "pwd", "pass"}

// scanQuotedGroups reports the first group of each match of pattern that is set and not a
// placeholder: a value the pattern has already found quoted after a key that names a secret.
func scanQuotedGroups(pattern *regexp.Regexp) func(s string, add func(start, end int)) int {
	return func(s string, add func(start, end int)) int {
		for _, loc := range pattern.FindAllStringSubmatchIndex(s, -1) {
			for g := 1; 2*g < len(loc); g++ {
				if start, end := loc[2*g], loc[2*g+1]; start >= 0 {
					if v := strings.Trim(s[start:end], `"'`); !placeholderValue().MatchString(s[start:end]) && !placeholderValue().MatchString(v) && !strings.Contains(s[start:end], Placeholder) {
						add(start, end)
					}
					break
				}
			}
		}
		return len(s)
	}
}

// scanArguments returns a scanner reporting the first group of each match of pattern that is a
// password and not a placeholder ($PW, <token>, a letter such as X in a usage line).
func scanArguments(pattern *regexp.Regexp) func(s string, add func(start, end int)) int {
	return func(s string, add func(start, end int)) int {
		for _, loc := range pattern.FindAllStringSubmatchIndex(s, -1) {
			for g := 1; 2*g < len(loc); g++ {
				start, end := loc[2*g], loc[2*g+1]
				if start >= 0 {
					if end-start >= 4 && secretValue("password", s[start:end]) {
						add(start, end)
					}
					break
				}
			}
		}
		return len(s)
	}
}

// scanHostPortCredentials finds user:PW@host:port written without a scheme (a proxy's
// credentials: bob:PW@10.1.2.3:3128): at each @, the password back to a colon after a user name,
// and a host and a port after it. Each @ looks at most maxHostPortReach bytes either side.
func scanHostPortCredentials(s string, add func(start, end int)) int {
	work := len(s)
	for at := strings.IndexByte(s, '@'); at >= 0; {
		// forward: host, then :port and a boundary
		h := at + 1
		for h < len(s) && h-at <= maxHostPortReach && (isWordByte(s[h]) && s[h] != '_' || s[h] == '.' || s[h] == '-') {
			h++
		}
		ok := h > at+1 && h < len(s) && s[h] == ':'
		p := h + 1
		for ok && p < len(s) && p-h <= 6 && '0' <= s[p] && s[p] <= '9' {
			p++
		}
		ok = ok && p-h-1 >= 2 && p-h-1 <= 5 && (p == len(s) || !isWordByte(s[p]))
		// backward: the password to a colon, the user to a blank, =, (, a quote or the start
		pw := at
		for ok && pw > 0 && at-pw <= maxHostPortReach && !strings.ContainsRune(" \t\n\r:@/\"'", rune(s[pw-1])) {
			pw--
		}
		ok = ok && at-pw >= 4 && pw > 0 && s[pw-1] == ':'
		u := pw - 1
		for ok && u > 0 && pw-u <= maxHostPortReach && (isWordByte(s[u-1]) || s[u-1] == '.' || s[u-1] == '-') {
			u--
		}
		ok = ok && u < pw-1 && (u == 0 || strings.IndexByte(" \t\n\r=(\"'", s[u-1]) >= 0)
		if ok && secretValue("password", s[pw:at]) {
			add(pw, at)
		}
		work += 2 * maxHostPortReach
		next := strings.IndexByte(s[at+1:], '@')
		if next < 0 {
			break
		}
		at += 1 + next
	}
	return work
}

// scanStellarSeeds finds a Stellar secret seed: S and 55 more base32 capitals and digits 2-7, a
// word of its own; one pass over the bytes.
func scanStellarSeeds(s string, add func(start, end int)) int {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && ('A' <= s[i] && s[i] <= 'Z' || '2' <= s[i] && s[i] <= '7') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start == 56 && s[start] == 'S' && (start == 0 || !isWordByte(s[start-1])) && (i == len(s) || !isWordByte(s[i])) {
			add(start, i)
		}
		start = -1
	}
	return len(s)
}

// scanByteArrayKeys finds a JSON list of exactly 64 numbers of 0 to 255 (a Solana keypair file,
// an ed25519 secret key written as bytes): the list is hidden whole.
func scanByteArrayKeys(s string, add func(start, end int)) int {
	for i := strings.IndexByte(s, '['); i >= 0; {
		n, p, ok := 0, i+1, true
		for ok && n < 65 {
			for p < len(s) && (s[p] == ' ' || s[p] == '\n' || s[p] == '\t' || s[p] == '\r') {
				p++
			}
			d := p
			v := 0
			for p < len(s) && p-d < 3 && '0' <= s[p] && s[p] <= '9' {
				v = v*10 + int(s[p]-'0')
				p++
			}
			if p == d || v > 255 {
				ok = false
				break
			}
			n++
			for p < len(s) && (s[p] == ' ' || s[p] == '\n' || s[p] == '\t' || s[p] == '\r') {
				p++
			}
			if p < len(s) && s[p] == ',' {
				p++
				continue
			}
			break
		}
		if ok && n == 64 && p < len(s) && s[p] == ']' {
			add(i, p+1)
		}
		next := strings.IndexByte(s[i+1:], '[')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return len(s)
}

// maxHostPortReach bounds how far scanHostPortCredentials reads from an @.
const maxHostPortReach = 128

// protocolPassword is the pattern of protocol_password.
var protocolPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + `ftp>[ \t]*pass[ \t]+(\S+)|\b(?-i:USER)[ \t]+\S+[^\n]*?(?-i:PASS)[ \t]+(\S+)` +
		`|(?:^|[\s])(?:[a-z0-9]{1,8}|\?|\*)[ \t]+(?-i:LOGIN)[ \t]+(?:"[^"\n]*"|\S+)[ \t]+(?:"([^"\n]+)"|(\S+))` +
		`|(?:>|\bredis-cli\b[^\n]*?)[ \t]*(?-i:AUTH)[ \t]+(?:\S+[ \t]+)?(\S+)` +
		// AUTH LOGIN's prompt for the password, "Password:" in base64, then the client's answer
		`|\b334[ \t]+(?-i:[UC]GFzc3dvcmQ6)\s+(?:C:[ \t]*)?([a-z0-9+/]+={0,2})`)
})

// scanProtocolPassword runs protocolPassword on a text holding a protocol word in capitals or an
// FTP prompt.
func scanProtocolPassword(s string, add func(start, end int)) int {
	if !strings.Contains(s, "PASS ") && !strings.Contains(s, "LOGIN ") && !strings.Contains(s, "AUTH ") && !strings.Contains(s, "GFzc3dvcmQ6") && !strings.Contains(strings.ToLower(s), "ftp>") {
		return len(s)
	}
	return len(s) + scanArguments(protocolPassword())(s, add)
}

// scanCommandLine reports the secrets commandLine finds, leaving out placeholders.
func scanCommandLine(s string, add func(start, end int)) int {
	return scanArguments(commandLine())(s, add)
}

// scanBase64Credentials finds base64 runs of 12 or more characters that decode to user:password
// (HTTP basic credentials, docker config "auth" values): printable, no blanks, a colon inside.
// Ordinary words and hashes do not decode to such text.
func scanBase64Credentials(s string, add func(start, end int)) int {
	for i := 0; i < len(s); {
		if !isB64(s[i]) || (i > 0 && isWordByte(s[i-1])) {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64(s[j]) {
			j++
		}
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		if end-i >= 12 && (end == len(s) || !isWordByte(s[end])) && credentialBlob(s[i:j]) {
			add(i, end)
		}
		i = max(j, i+1)
	}
	return len(s)
}

// scanDiscordBotTokens finds Discord bot tokens: a run of base64 that decodes to the bot's
// numeric id (so it starts with M, N or O), a dot, 6 characters of time stamp, a dot and a
// signature of 25 to 40 characters. No fixed prefix screens for them, so the scan looks at each
// dot. The id must decode to digits, or the id and the signature must both mix cases with a
// digit somewhere, as random characters do: a dotted name in ordinary text (a class, a method
// and another class) has no digit.
func scanDiscordBotTokens(s string, add func(start, end int)) int {
	for off := 0; ; {
		d := strings.IndexByte(s[off:], '.')
		if d < 0 {
			return len(s)
		}
		dot := off + d
		off = dot + 1
		start := dot
		for start > 0 && dot-start < 29 && isB64URL(s[start-1]) {
			start--
		}
		if dot-start < 23 || dot-start > 28 || (start > 0 && isWordByte(s[start-1])) {
			continue
		}
		if dot+8 > len(s) || s[dot+7] != '.' || !allB64URL(s[dot+1:dot+7]) {
			continue
		}
		end := dot + 8
		for end < len(s) && isB64URL(s[end]) {
			end++
		}
		id, sig := s[start:dot], s[dot+8:end]
		if len(sig) < 25 || len(sig) > 40 || strings.IndexByte("MNOmno", id[0]) < 0 ||
			!(decodesToDigits(id) || bothCases(id) && bothCases(sig) && hasDigit(s[start:end])) {
			continue
		}
		add(start, end)
		off = end
	}
}

// bothCases reports whether s holds an upper-case and a lower-case letter.
func bothCases(s string) bool {
	var up, low bool
	for i := 0; i < len(s); i++ {
		up = up || 'A' <= s[i] && s[i] <= 'Z'
		low = low || 'a' <= s[i] && s[i] <= 'z'
	}
	return up && low
}

// hasDigit reports whether s holds a digit.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func isB64URL(c byte) bool { return isWordByte(c) || c == '-' }

func allB64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isB64URL(s[i]) {
			return false
		}
	}
	return true
}

// decodesToDigits reports whether b64 (base64, padding left off) decodes to 15 or more decimal
// digits: a Discord id.
func decodesToDigits(b64 string) bool {
	dec, err := base64.RawStdEncoding.DecodeString(b64)
	if err != nil || len(dec) < 15 {
		return false
	}
	for _, c := range dec {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// scanPgpass finds the password of a .pgpass line, host:port:database:user:password, in any
// word of the text that has that shape: a host with a letter (or *), a port of digits (or *),
// then a database and a user, and a password of 4 characters or more. Clock times and other
// colon runs have no host name before a port.
func scanPgpass(s string, add func(start, end int)) int {
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		// the word without the quotes or brackets around it
		a, b := i, j
		for a < b && strings.IndexByte(pgpassQuotes, s[a]) >= 0 {
			a++
		}
		for b > a && strings.IndexByte(pgpassQuotes, s[b-1]) >= 0 {
			b--
		}
		if w := s[a:b]; strings.Count(w, ":") >= 4 {
			if p := pgpassPassword(w); p >= 0 {
				add(a+p, b)
			}
		}
		i = j
	}
	return len(s)
}

// pgpassQuotes are the characters that may enclose a .pgpass line in a text.
const pgpassQuotes = "'\"`()[]<>,;"

// pgpassPassword is where the password starts in word w, a .pgpass line, or -1.
func pgpassPassword(w string) int {
	f := strings.SplitN(w, ":", 5)
	host, port := f[0], f[1]
	letter := host == "*"
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !isWordByte(c) && c != '.' && c != '-' && c != '*' {
			return -1
		}
		letter = letter || 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	if !letter {
		return -1
	}
	if port != "*" && (len(port) == 0 || len(port) > 5 || strings.Trim(port, "0123456789") != "") {
		return -1
	}
	if f[2] == "" || f[3] == "" || len(f[4]) < 4 || hasLowerPrefix(f[4], "[redacted") {
		return -1 // no password, or one hidden already (its closing bracket may be trimmed off)
	}
	return len(w) - len(f[4])
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isB64(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// credentialBlob reports whether b64 (without padding) decodes to user:password.
func credentialBlob(b64 string) bool {
	if len(b64) > 4096 {
		return false
	}
	dec, err := base64.RawStdEncoding.DecodeString(b64)
	if err != nil {
		return false
	}
	colon := -1
	for i, c := range dec {
		if c <= ' ' || c > '~' {
			return false
		}
		if colon < 0 {
			switch {
			case c == ':':
				colon = i
			case !isWordByte(c) && c != '.' && c != '-' && c != '@' && c != '+':
				return false // a user name holds no quotes or braces (a JWT header does)
			}
		}
	}
	return colon > 0 && colon < len(dec)-3
}

// screen finds, in one pass over s, the rules that can match in s or in its folded form, when
// folding s only lowers its ASCII letters: s holds nothing but ASCII and runes that fold to
// themselves (textmatch.FoldsToItself). Then the folded text is s in lower case, byte for byte,
// so the hints are looked for in s with its letters lowered as they are read, and so are the
// operators and base64 runs the scanners need (case changes neither). ok is false for any other
// text: its rules are the hinted ones of its folded form.
func (r *Redactor) screen(s string) (rules ruleSet, ok bool) {
	x := &r.hints
	set := x.always
	full := set.equal(x.all) // every rule hinted already: no hint is looked for any more
	operator, base64Run, tokenRun, passwordRun := false, false, false, false
	run, trun, prun := 0, 0, 0
	psym := false      // a symbol after the first character of the current password run
	pclass := uint8(0) // the classes (pwClass) of the current password run
	dashes := 0        // dashes between letters or digits
	// the letters and digits of the current group, and groups of four in a row between blanks
	glen, groups, groupRun := 0, 0, false
	byteGroups, byteRun := 0, false // bytes as hex pairs, bits or decimal numbers between blanks
	gdigits := false                // the current group is of digits alone
	// words of 3 to 8 letters in a row between blanks, and the letters of the current one (-1:
	// not a word)
	words, wordLen, wordRun := 0, 0, false
	// the current run of a split token's characters and its classes, whether the run before it
	// qualified and ended at one blank, and whether two such runs were seen
	srun, sclass, sprev, splitRun := 0, uint8(0), false, false
	splitEnd := func(c byte) {
		q := srun >= 6 && sclass != 1 && sclass != 2 && sclass != 4 && sclass != 0
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r') && q {
			splitRun = splitRun || sprev
			sprev = true
		} else {
			sprev = false
		}
		srun, sclass = 0, 0
	}
	endWord := func() {
		switch {
		case wordLen == 0:
		case wordLen >= 3 && wordLen <= 8:
			words++
			wordRun = wordRun || words >= minSeedWords
		default:
			words = 0
		}
		wordLen = 0
	}
	han, hanRun := 0, false // Han characters standing alone between blanks, in a row
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			// decoded only after a blank: most non-ASCII text has none before each character
			if c == 0xE3 && strings.HasPrefix(s[i:], "\u3000") {
			} else if han == 0 && i > 0 && s[i-1] != ' ' && s[i-1] != 0x80 || !blankBefore(s, i) {
				han = 0
			} else if n := runeLenAt(c); !blankAfter(s, min(len(s), i+n)) {
				han = 0 // a word of several characters
			} else if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.Is(unicode.Han, r) {
				han++
				hanRun = hanRun || han >= minSeedWords
			} else {
				han = 0
			}
			size := textmatch.SelfFoldingLen(s[i:])
			if size == 0 {
				return ruleSet{}, false
			}
			endWord() // a word ends at another script, which breaks a run of words; the next may
			words = 0 // start right after it (助记词：adapt)
			if glen == 4 && groups >= 3 {
				groupRun = true
			}
			if (glen == 2 || glen == 5 || glen == 6 || glen == 8 || glen == 3 && gdigits) && byteGroups >= minSpaced-1 {
				byteRun = true
			}
			run, trun, prun, psym, pclass, glen, groups, byteGroups = 0, 0, 0, false, 0, 0, 0, 0
			splitEnd(c)
			if x.first[c] && i+1 < len(s) && !full {
				// a hint written in another script (パスワード, 비밀번호), byte for byte
				if g := x.pair[uint16(c)<<8|uint16(s[i+1])]; g != 0 {
					for _, h := range x.groups[g-1] {
						if h.rules.andNot(set) && strings.HasPrefix(s[i:], h.hint) {
							set = set.or(h.rules)
							full = set.equal(x.all)
						}
					}
				}
			}
			i += size - 1
			continue
		}
		k := screenClass[c]
		if c != ' ' {
			han = 0
		}
		if k&scAlnum != 0 {
			if glen == 0 {
				gdigits = true
			}
			gdigits = gdigits && '0' <= c && c <= '9'
			glen++
		} else {
			if glen == 4 {
				groups++
				groupRun = groupRun || groups >= 4
			} else if glen != 0 {
				groups = 0
			}
			if glen == 2 || glen == 5 || glen == 6 || glen == 8 || glen == 3 && gdigits {
				byteGroups++
				byteRun = byteRun || byteGroups >= minSpaced
				if c != ' ' && c != '-' && c != ':' {
					byteGroups = 0
				}
			} else if glen != 0 || c != ' ' {
				byteGroups = 0
			}
			if c != ' ' {
				groups = 0
				if c == '-' && i > 0 && i+1 < len(s) && isWordByte(s[i-1]) && isWordByte(s[i+1]) {
					dashes++
				}
			}
			glen = 0
		}
		if k&scPassword != 0 {
			if prun > 0 && !psym {
				psym = k&scSymbol != 0 || (c == '-' || c == '_') && '0' <= s[i-1] && s[i-1] <= '9' ||
					prun >= 8 && dicewareDigit(s, i-prun, i)
			}
			pclass |= uint8(k & scClasses)
			prun++
			passwordRun = passwordRun || prun >= pwMinLen && (psym || pclass == 7 && prun >= pwMinShortRandom || (pclass == 5 || pclass == 6) && prun >= pwMinRandom) // 6: folded, capitals are small letters
		} else {
			prun, psym, pclass = 0, false, 0
		}
		if k&scSplit != 0 {
			srun++
			sclass |= uint8(k & scClasses)
		} else if srun > 0 || sprev {
			splitEnd(c)
		}
		if k&scToken != 0 {
			trun++
			tokenRun = tokenRun || trun >= minTokenRun
		} else {
			trun = 0
		}
		switch {
		case k&scBase64 != 0:
			run++
			base64Run = base64Run || run >= minBase64Run
			if wordLen >= 0 && isLetter(c) {
				wordLen++
			} else {
				wordLen = -1
			}
		case c == '=' || c == ':' || c == '>':
			operator = true
			run, wordLen = 0, -1
		case k&scSpace != 0:
			run = 0
			endWord()
		default:
			run, wordLen = 0, -1
		}
		if i+1 == len(s) || !x.first[c] || full {
			continue
		}
		g := x.pair[uint16(lowerASCII(c))<<8|uint16(lowerASCII(s[i+1]))]
		if g == 0 {
			continue
		}
		for _, h := range x.groups[g-1] {
			if h.rules.andNot(set) && hasLowerPrefix(s[i:], h.hint) {
				set = set.or(h.rules)
				full = set.equal(x.all)
			}
		}
	}
	if (glen == 2 || glen == 5 || glen == 6 || glen == 8 || glen == 3 && gdigits) && byteGroups >= minSpaced-1 {
		byteRun = true
	}
	if glen == 4 && groups >= 3 {
		groupRun = true
	}
	endWord()
	splitEnd(' ')
	var have trigger
	for _, t := range [...]struct {
		ok   bool
		need trigger
	}{{operator, needsOperator}, {base64Run, needsBase64Run}, {tokenRun, needsTokenRun}, {passwordRun, needsPasswordRun},
		{dashes > 0, needsInnerDashes}, {groupRun, needsGroupRun}, {wordRun, needsWordRun}, {byteRun, needsByteRun}, {splitRun, needsSplitRun}, {hanRun, needsHanRun}} {
		if t.ok {
			have |= t.need
		}
	}
	for k := range r.needRules {
		if have&(1<<k) == 0 {
			set = set.minus(r.needRules[k])
		}
	}
	return set, true
}

// runeLenAt is the length of the UTF-8 sequence that lead byte c starts.
func runeLenAt(c byte) int {
	switch {
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasLowerPrefix reports whether s with its ASCII letters lowered starts with lower.
func hasLowerPrefix(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lowerASCII(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// ruleSet is a set of rule indexes, one bit per rule.
type ruleSet [ruleWords]uint64

// ruleWords is the number of 64-bit words of a ruleSet: the rule table holds at most 64×ruleWords
// rules.
const ruleWords = 4

func (s ruleSet) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }
func (s *ruleSet) set(i int)     { s[i>>6] |= 1 << (i & 63) }
func (s ruleSet) or(t ruleSet) ruleSet {
	return ruleSet{s[0] | t[0], s[1] | t[1], s[2] | t[2], s[3] | t[3]}
}
func (s ruleSet) andNot(t ruleSet) bool {
	return s[0]&^t[0] != 0 || s[1]&^t[1] != 0 || s[2]&^t[2] != 0 || s[3]&^t[3] != 0
}
func (s ruleSet) minus(t ruleSet) ruleSet {
	return ruleSet{s[0] &^ t[0], s[1] &^ t[1], s[2] &^ t[2], s[3] &^ t[3]}
}
func (s ruleSet) equal(t ruleSet) bool { return s == t }
func bit(i int) (s ruleSet)            { s.set(i); return s }

// hintIndex finds in one pass over a folded text the rules whose hints it holds, which is what
// checking every hint of every rule with strings.Contains would give, without a pass per hint.
// Folding maps every character that (?i) treats as a letter's case variant (ſ, K) to that letter,
// like the patterns, so the hints see what the patterns see.
type hintIndex struct {
	always ruleSet      // rules without hints: run on every text
	all    ruleSet      // every rule
	first  [256]bool    // the first bytes of hints, in either case
	pair   []uint16     // by the first two bytes of a hint: 1 + its index in groups, or 0
	groups [][]hintRule // hints sharing their first two bytes
}

type hintRule struct {
	hint  string
	rules ruleSet
}

func newHintIndex(rules []Rule) hintIndex {
	if len(rules) > 64*ruleWords {
		panic("redact: more than " + strconv.Itoa(64*ruleWords) + " rules; widen ruleSet")
	}
	x := hintIndex{pair: make([]uint16, 1<<16)}
	for i, rule := range rules {
		b := bit(i)
		x.all = x.all.or(b)
		if len(rule.Hints) == 0 {
			x.always = x.always.or(b)
		}
		for _, h := range rule.Hints {
			// a hint is matched byte for byte with ASCII letters lowered: ASCII hints are given in
			// lower case; others (パスワード, пароль) as the text writes them
			if len(h) < 2 || isASCII(h[:1]) && h != strings.ToLower(h) {
				panic("redact: hint " + strconv.Quote(h) + " of " + rule.Name + " is not lower-case of at least 2 bytes")
			}
			x.first[h[0]] = true
			if h[0] < utf8.RuneSelf {
				x.first[strings.ToUpper(h[:1])[0]] = true
			}
			k := uint16(h[0])<<8 | uint16(h[1])
			if x.pair[k] == 0 {
				x.groups = append(x.groups, nil)
				x.pair[k] = uint16(len(x.groups))
			}
			g := &x.groups[x.pair[k]-1]
			found := false
			for j := range *g {
				if (*g)[j].hint == h {
					(*g)[j].rules = (*g)[j].rules.or(b)
					found = true
				}
			}
			if !found {
				*g = append(*g, hintRule{hint: h, rules: b})
			}
		}
	}
	return x
}

// rules returns the rules to run on a text whose folded form is lower: those without hints and
// those with a hint that lower contains.
func (x *hintIndex) rules(lower string) ruleSet {
	set := x.always
	for i := 0; i+1 < len(lower) && !set.equal(x.all); i++ {
		g := x.pair[uint16(lower[i])<<8|uint16(lower[i+1])]
		if g == 0 {
			continue
		}
		for _, h := range x.groups[g-1] {
			if h.rules.andNot(set) && strings.HasPrefix(lower[i:], h.hint) {
				set = set.or(h.rules)
			}
		}
	}
	return set
}

// notAValue reports the values a secret-named key is given in code, config and docs that are no
// secret: a shell expansion (${PW:?unset}), a lookup in code (os.environ[, process.env.X!), a YAML
// tag (!vault), a mask (••••••••), a flag (--oneline) and a path to a key file.
func notAValue(v string) bool {
	switch {
	case v == "":
		return false
	case strings.HasPrefix(v, "${"):
		return true
	case len(v) > 2 && v[0] == '%' && v[len(v)-1] == '%' && isIdent(v[1:len(v)-1]):
		return true // %PGPASSWORD%: cmd.exe's reference to a variable, not its value
	case knownPlaceholder(v):
		return true // changeme, foobared, guest: the examples every manual shows
	case v[0] == '@' && len(v) > 1 && strings.ContainsAny(v[1:], "./"):
		return true // password=@password.txt: the file the value is read from
	case v[0] == '?' && allLetters(v[1:]):
		return true // ${DB_PASSWORD:?must be set}: the shell's message, not a value
	case secretName(v):
		return true // --secret=db-password: the name of a secret, not its value
	case utf8.RuneCountInString(v) < 3:
		return true // c.password = p
	case formatPiece(v):
		return true // log.Printf("loaded key (len=%d)"): a format, not a value
	case strings.Contains(v, "=./") || strings.Contains(v, "=~/") || strings.Contains(v, "=/"):
		eq := strings.IndexByte(v, '=')
		return isIdent(v[:eq]) && (notAValue(v[eq+1:]) || fileKey(v[:eq])) // --from-file=password=./password.txt, file=/etc/restic/password
	case proseWords[strings.ToLower(v)] || strings.EqualFold(v, "all"):
		return true // passwd: all authentication tokens updated
	case strings.HasPrefix(v, "-"):
		f := strings.TrimLeft(v, "-")
		return f != "" && strings.Trim(f, "abcdefghijklmnopqrstuvwxyz-") == "" // --oneline, -query
	case strings.HasPrefix(v, "!") && len(v) > 1 && allLetters(strings.ReplaceAll(v[1:], "-", "")):
		return true // !vault-encrypted, !secret: a YAML tag, not a value
	case pathValue(v):
		return true // uploads/2026/11/<uuid>.jpg: a file's path
	case strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../"):
		return strings.IndexByte(v[strings.LastIndexByte(v, '/'):], '.') > 0 // ./password.txt
	case strings.HasPrefix(v, "/"):
		return strings.Count(v, "/") >= 2 && strings.IndexByte(v[strings.LastIndexByte(v, '/'):], '.') > 0
	}
	if w := strings.TrimRight(v, "[(!"); w != v && identifierLike(w) {
		return true // os.environ[, getenv(, process.env.KEY!
	}
	r, size := utf8.DecodeRuneInString(v)
	if r >= utf8.RuneSelf && strings.Count(v, string(r))*size == len(v) {
		return true // ••••••••
	}
	return false
}

// formatPiece reports whether v is a printf format's piece: a verb (%s, %-8d, %q) alone or after
// a name and = or : (len=%d, id: %s).
func formatPiece(v string) bool {
	i := strings.LastIndexByte(v, '%')
	if i < 0 || i == len(v)-1 || strings.IndexByte(formatVerbs, v[len(v)-1]) < 0 ||
		strings.Trim(v[i+1:len(v)-1], "#-+ 0123456789.") != "" || len(v)-i > 6 {
		return false
	}
	name := strings.TrimRight(v[:i], " ")
	if name == "" {
		return true
	}
	if c := name[len(name)-1]; c != '=' && c != ':' {
		return false
	}
	return isIdent(name[:len(name)-1])
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}

// insertPattern finds an INSERT's column list and its first row of values.
var insertPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\binsert[ \t]+into[ \t]+[^\s(]+[ \t]*\(([^)\n]{1,400})\)[ \t]*values[ \t]*\(([^)\n]{1,1000})\)`)
})

// scanInsertedSecrets reports the values an INSERT gives to columns whose names name a secret
// (password, passwd, pwd, secret, token, api_key, …), quoted or not.
func scanInsertedSecrets(s string, add func(start, end int)) int {
	for _, m := range insertPattern().FindAllStringSubmatchIndex(s, -1) {
		cols := strings.Split(s[m[2]:m[3]], ",")
		secret := map[int]bool{}
		for k, c := range cols {
			c = strings.ToLower(strings.Trim(strings.TrimSpace(c), "`\"[]"))
			for _, w := range []string{"password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "passphrase"} {
				if strings.Contains(c, w) && !strings.Contains(c, "hash") && !strings.Contains(c, "digest") {
					secret[k] = true
				}
			}
		}
		if len(secret) == 0 {
			continue
		}
		// the values, split at commas outside quotes
		k, start, quote := 0, m[4], byte(0)
		for p := m[4]; p <= m[5]; p++ {
			if p < m[5] && quote != 0 {
				if s[p] == quote {
					quote = 0
				}
				continue
			}
			if p < m[5] && (s[p] == '\'' || s[p] == '"') {
				quote = s[p]
				continue
			}
			if p == m[5] || s[p] == ',' {
				if secret[k] {
					a, b := start, p
					for a < b && (s[a] == ' ' || s[a] == '\'' || s[a] == '"') {
						a++
					}
					for b > a && (s[b-1] == ' ' || s[b-1] == '\'' || s[b-1] == '"') {
						b--
					}
					if b-a >= 4 && !placeholderValue().MatchString(s[a:b]) && !strings.EqualFold(s[a:b], "null") {
						add(a, b)
					}
				}
				k, start = k+1, p+1
			}
		}
	}
	return len(s)
}

// The bits of screenClass: what the screen needs to know of a byte, looked up once.
const (
	scClasses  = 7 // pwClass: lower, upper, digit
	scAlnum    = 1 << 3
	scPassword = 1 << 4 // pwByte
	scSymbol   = 1 << 5 // pwSymbol
	scToken    = 1 << 6 // a character a random token is made of (shape.go's runs)
	scBase64   = 1 << 7
	scSpace    = 1 << 8
	scSplit    = 1 << 9 // a character of a split token's half (shape.go: splitByte)
)

// screenClass classifies each byte for the screen in one lookup.
var screenClass = func() (t [256]uint16) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		v := uint16(pwClass(b))
		if v != 0 {
			v |= scAlnum
		}
		if pwByte[b] {
			v |= scPassword
		}
		if pwSymbol[b] {
			v |= scSymbol
		}
		if isB64(b) || b == '-' || b == '_' || b == '.' || b == '~' || b == '=' {
			v |= scToken
		}
		if isB64(b) {
			v |= scBase64
		}
		if isB64(b) || b == '-' || b == '_' || b == '=' {
			v |= scSplit
		}
		if isSpace(b) {
			v |= scSpace
		}
		t[c] = v
	}
	return t
}()

// knownPlaceholder reports the values manuals and templates put where a secret goes, which
// hide nothing: changeme, replace-me-in-production, your-password-here, foobared (Redis's
// example), guest (RabbitMQ's default), the key words themselves.
func knownPlaceholder(v string) bool {
	l := strings.ToLower(strings.Trim(v, "'\"`"))
	if len(l) > 2 && (l[0] == '<' && l[len(l)-1] == '>' || l[0] == '[' && l[len(l)-1] == ']' && allLetters(l[1:len(l)-1])) {
		return true // <password>, [FILTERED]: the mark of a value, not one
	}
	if strings.HasSuffix(l, "...") || strings.HasSuffix(l, "…") {
		return true // sk_test_...: a value cut off to show its shape
	}
	if distinct := distinctBytes(l); len(l) >= 8 && distinct <= 2 {
		return true // 0000000000, xxxxxxxx
	}
	if n := len(l); n >= 16 && strings.IndexByte("x*.#", l[n-1]) >= 0 && strings.Count(l[n-12:], l[n-1:]) == 12 && len(strings.TrimRight(l, l[n-1:])) <= 6 {
		return true // AKIAXXXXXXXXXXXXXXXX: a provider's prefix and filler
	}
	if k := strings.LastIndexAny(l, "-_"); k > 0 && k <= 12 && len(l)-k-1 >= 8 && distinctBytes(l[k+1:]) == 1 && strings.IndexByte("x*0.#", l[k+1]) >= 0 {
		return true // sk-xxxxxxxxxxxx, ghp_************: a prefix and filler, the shape of a key shown
	}
	for _, w := range []string{"password", "passwd", "secret", "token", "changeme", "admin", "letmein"} {
		if rest := strings.TrimPrefix(l, w); rest != l && len(rest) <= 4 && allDigits(rest) {
			return true // password123: the example every tutorial uses
		}
	}
	switch l {
	case "password", "passwd", "pass", "secret", "token", "guest", "foobared", "example", "changeme", "changeit", "placeholder", "dummy", "redacted":
		return true
	}
	for _, p := range []string{"changeme", "change-me", "change_me", "replace-me", "replace_me", "replaceme", "your-", "your_", "yourpassword", "yoursecret", "yourtoken"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// secretName reports whether v is the name of a secret: lower-case words joined by dashes or
// underscores, one of them a key word (db-password, api_token_name).
func secretName(v string) bool {
	if !strings.ContainsAny(v, "-_") {
		return false
	}
	key := false
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' }) {
		if !allLetters(w) || strings.ToLower(w) != w {
			return false
		}
		switch w {
		case "password", "passwd", "secret", "token", "key", "pass", "pwd", "credentials", "apikey", "creds", "credential":
			key = true
		}
	}
	return key
}

// distinctBytes is how many different bytes s holds, counted up to three.
func distinctBytes(s string) int {
	var seen []byte
	for i := 0; i < len(s) && len(seen) < 3; i++ {
		if bytes.IndexByte(seen, s[i]) < 0 {
			seen = append(seen, s[i])
		}
	}
	return len(seen)
}
