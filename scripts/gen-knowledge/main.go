// Command gen-knowledge writes a synthetic knowledge base for benchmarking memory/knowledge
// search: N Markdown files with YAML frontmatter, mixing English, Japanese and Chinese prose,
// code and tables, about 8 KB each. Output is deterministic for a given seed.
//
// With -vocab N (the query-distribution benchmark, scripts/bench.d/memory-dist.sh) four lines in
// ten are notes of words drawn with Zipf's law from vocabularies of N words each (ASCII words of
// syllables; Chinese words of hanzi and Japanese ones of katakana, written without spaces), so
// every frequency band has terms, down to substrings held by one line. -vocab 0 (the default)
// writes the same files as before the flag existed.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := flag.String("dir", "knowledge", "directory to write the files into (created)")
	n := flag.Int("n", 10000, "number of files")
	size := flag.Int("size", 8000, "approximate size of each file in bytes")
	seed := flag.Uint64("seed", 1, "random seed")
	vocab := flag.Int("vocab", 0, "words per Zipf vocabulary of the notes lines (0: no notes lines)")
	flag.Parse()
	if err := run(*dir, *n, *size, *seed, *vocab); err != nil {
		fmt.Fprintln(os.Stderr, "gen-knowledge:", err)
		os.Exit(1)
	}
}

var (
	kinds    = []string{"howto", "reference", "runbook", "tips", "design", "faq"}
	subjects = []string{"deploy", "auth", "cache", "search", "billing", "export", "sync", "backup", "login", "queue", "index", "metrics"}
	english  = []string{
		"Restart the worker after changing the queue configuration so the new limits take effect.",
		"The cache is keyed by tenant and path; invalidate both when a document is renamed.",
		"Run the migration in a transaction and keep the old table until the next release.",
		"Tokens expire after one hour; the client refreshes them five minutes before expiry.",
		"Search results are ordered by path and then by line so the output is reproducible.",
		"If the health check fails three times in a row the load balancer drains the node.",
		"Backups run nightly at 02:00 UTC and are kept for thirty days in cold storage.",
		"Use structured logging with the request id so a trace can be followed across services.",
		"The export job writes CSV in batches of ten thousand rows to keep memory flat.",
		"Rate limits are per API key: 600 requests per minute, bursts up to 100.",
		"When the index is rebuilt, readers keep using the previous snapshot until the swap.",
		"Feature flags are evaluated once per request and cached in the request context.",
	}
	japanese = []string{
		"設定を変更したらワーカーを再起動してください。新しい上限はその後に反映されます。",
		"キャッシュはテナントとパスをキーにしているので、名前を変えたら両方を無効化する。",
		"移行はトランザクションの中で実行し、古いテーブルは次のリリースまで残しておく。",
		"トークンの有効期限は一時間で、期限の五分前にクライアントが自動で更新する。",
		"ヘルスチェックが三回続けて失敗すると、ロードバランサーはそのノードを切り離す。",
		"バックアップは毎晩二時に取得し、三十日間コールドストレージに保管する。",
		"ログにはリクエストIDを必ず含めること。サービスをまたいで追跡できるようにする。",
		"ＡＰＩキーごとにレート制限があり、毎分六百リクエストまで受け付ける。",
	}
	chinese = []string{
		"修改队列配置后需要重启工作进程，新的限制才会生效。",
		"缓存按租户和路径建立索引，文档重命名时两者都要失效。",
		"迁移要在事务中执行，旧表保留到下一个版本再删除。",
		"令牌一小时后过期，客户端会在过期前五分钟自动刷新。",
		"备份每天凌晨两点执行，在冷存储中保留三十天。",
		"每个 API 密钥都有速率限制：每分钟六百个请求。",
	}
	code = []string{
		"```sh\ncairn knowledge search 'rate limit' --kind runbook\n```",
		"```go\nif err := queue.Drain(ctx); err != nil {\n\treturn fmt.Errorf(\"drain: %w\", err)\n}\n```",
		"```yaml\nretries: 3\nbackoff: 2s\ntimeout: 30s\n```",
		"| setting | default | range |\n|---|---|---|\n| workers | 4 | 1..64 |\n| batch | 10000 | 100..100000 |",
	}
)

// notes draws the words of the -vocab lines: three vocabularies, each Zipf-distributed.
type notes struct {
	r          *rand.Rand
	en, zh, ja []string
	zen, zzh   *rand.Zipf
	zja        *rand.Zipf
}

func newNotes(seed uint64, n int) *notes {
	r := rand.New(rand.NewPCG(seed^0x5bd1e995, seed))
	syl := strings.Fields("ka ki ku ke ko sa shi su se so ta te to na ni nu ne no ha hi fu he ho ma mi mu me mo ra ri ru re ro ya yu yo wa an en in on un ex al or er ing tion pro con dat ser cli")
	han := []rune("認証画面変更移行設計確認修正数据脚本校验接口性能日志部署服务器缓存索引查询构建发布配置错误重试队列工作者令牌桶速率限制延迟审核模式迁移测试环境生产开发用户权限会话请求响应超时连接池线程进程内存磁盘网络协议版本依赖更新回滚监控告警指标仪表板文档说明问题解决方案讨论决定计划任务进度完成失败成功启动停止重启备份恢复同步异步事件消息通知订阅发布搜索结果排序过滤分页导出导入格式编码解码加密签名验证")
	kata := []rune("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワンガギグゲゴザジズゼゾダデドバビブベボパピプペポャュョッー")
	words := func(make func() string) []string {
		seen := map[string]bool{}
		var out []string
		for len(out) < n {
			if w := make(); !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
		return out
	}
	nt := &notes{r: r}
	nt.en = words(func() string {
		var b strings.Builder
		for k := 1 + r.IntN(3); k > 0; k-- {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		return b.String()
	})
	nt.zh = words(func() string {
		var b strings.Builder
		for k := 1 + r.IntN(3); k > 0; k-- {
			b.WriteRune(han[r.IntN(len(han))])
		}
		return b.String()
	})
	nt.ja = words(func() string {
		var b strings.Builder
		for k := 2 + r.IntN(4); k > 0; k-- {
			b.WriteRune(kata[r.IntN(len(kata))])
		}
		return b.String()
	})
	nt.zen = rand.NewZipf(r, 1.07, 2, uint64(n-1))
	nt.zzh = rand.NewZipf(r, 1.07, 2, uint64(n-1))
	nt.zja = rand.NewZipf(r, 1.07, 2, uint64(n-1))
	return nt
}

// line is one note: English words with spaces, or Chinese or Japanese words run together with
// an English word now and then.
func (nt *notes) line() string {
	var b strings.Builder
	lang := nt.r.IntN(3)
	for k := 4 + nt.r.IntN(12); k > 0; k-- {
		switch {
		case lang == 0 || nt.r.IntN(6) == 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(nt.en[nt.zen.Uint64()])
			if lang != 0 {
				b.WriteByte(' ')
			}
		case lang == 1:
			b.WriteString(nt.zh[nt.zzh.Uint64()])
		default:
			b.WriteString(nt.ja[nt.zja.Uint64()])
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if lang == 0 {
		return out + "."
	}
	return out + "。"
}

func run(dir string, n, size int, seed uint64, vocab int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var nt *notes
	if vocab > 0 {
		nt = newNotes(seed, vocab)
	}
	for i := range n {
		subj := pick(subjects)
		var b strings.Builder
		fmt.Fprintf(&b, "---\nkind: %s\ndescription: %s notes %d for the %s service\nmodel_invokation: %t\n---\n", pick(kinds), subj, i, pick(subjects), r.IntN(2) == 0)
		fmt.Fprintf(&b, "# %s %d\n\n", strings.ToUpper(subj[:1])+subj[1:], i)
		for b.Len() < size {
			if nt != nil && nt.r.IntN(10) < 4 {
				b.WriteString(nt.line() + "\n")
				continue
			}
			switch r.IntN(10) {
			case 0:
				fmt.Fprintf(&b, "## %s\n\n", pick(subjects))
			case 1:
				b.WriteString(pick(code) + "\n\n")
			case 2, 3:
				b.WriteString(pick(japanese) + "\n")
			case 4:
				b.WriteString(pick(chinese) + "\n")
			default:
				b.WriteString(pick(english) + "\n")
			}
		}
		name := filepath.Join(dir, fmt.Sprintf("%s-%05d.md", subj, i))
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
