// Command gen-longspace writes a synthetic space of another shape than gen-space's, as `cairn
// space import` lines, for the query-distribution benchmark (scripts/bench.d/search-dist.sh):
//
//	go run ./scripts/gen-longspace -comments 200000 -out FILE
//
// Long comments (20 to 400 words, about 1 KB on average) of mixed English, Japanese and Chinese
// sentences, Japanese and Chinese written without spaces as they are; words drawn from large
// vocabularies with Zipf's law, so every frequency band has terms, down to substrings held by one
// comment; topic words that occur only in a window of time (the oldest tenth, the newest tenth,
// or a random stretch), so the matches of many terms are clustered in old or in new comments; and
// 2% of the comments dated days before their neighbours (imported late), so rowid order is not
// quite date order. Spaces and tasks as gen-space's: sp1 (90% of the comments, member "bench"),
// sp2, tasks of 100 comments, and task 0, the caller's, with none.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"
)

const (
	syllables = "ka ki ku ke ko sa shi su se so ta te to na ni nu ne no ha hi fu he ho ma mi mu me mo ra ri ru re ro ya yu yo wa an en in on un ex al or er ing tion pro con dat ser cli"
	// kanji and hanzi common in technical writing, and katakana for loan words
	han  = "認証画面変更移行設計確認修正数据脚本校验接口性能日志部署服务器缓存索引查询构建发布配置错误重试队列工作者令牌桶速率限制延迟审核模式迁移测试环境生产开发用户权限会话请求响应超时连接池线程进程内存磁盘网络协议版本依赖更新回滚监控告警指标仪表板文档说明问题解决方案讨论决定计划任务进度完成失败成功启动停止重启备份恢复同步异步事件消息通知订阅发布搜索结果排序过滤分页导出导入格式编码解码加密签名验证"
	kata = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワンガギグゲゴザジズゼゾダデドバビブベボパピプペポャュョッー"
	kana = "のはがをにでとへもやからまでよりです。ます、"
)

type vocab struct {
	words []string
	zipf  *rand.Zipf
}

func (v *vocab) pick() string { return v.words[v.zipf.Uint64()] }

func newVocab(rng *rand.Rand, n int, make func() string) *vocab {
	seen := map[string]bool{}
	v := &vocab{}
	for len(v.words) < n {
		w := make()
		if !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	v.zipf = rand.NewZipf(rng, 1.07, 2, uint64(n-1))
	return v
}

func main() {
	n := flag.Int("comments", 200000, "number of comments")
	out := flag.String("out", "", "output file (default: standard output)")
	seed := flag.Int64("seed", 7, "random seed")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		w = bufio.NewWriterSize(f, 1<<20)
	}
	defer w.Flush()
	rng := rand.New(rand.NewSource(*seed))
	syl := strings.Fields(syllables)
	hanR, kataR, kanaR := []rune(han), []rune(kata), []rune(kana)
	en := newVocab(rng, 20000, func() string {
		var b strings.Builder
		for k := 1 + rng.Intn(3); k > 0; k-- {
			b.WriteString(syl[rng.Intn(len(syl))])
		}
		return b.String()
	})
	zh := newVocab(rng, 20000, func() string {
		var b strings.Builder
		for k := 1 + rng.Intn(3); k > 0; k-- {
			b.WriteRune(hanR[rng.Intn(len(hanR))])
		}
		return b.String()
	})
	ja := newVocab(rng, 8000, func() string {
		var b strings.Builder
		for k := 2 + rng.Intn(4); k > 0; k-- {
			b.WriteRune(kataR[rng.Intn(len(kataR))])
		}
		return b.String()
	})
	// topic words: each lives in one window of the comments, said in a tenth of them there
	type topic struct {
		word     string
		from, to int
	}
	var topics []topic
	for i := 0; i < 300; i++ {
		var word string
		switch i % 3 {
		case 0:
			word = "topic" + syl[rng.Intn(len(syl))] + syl[rng.Intn(len(syl))] + fmt.Sprint(i)
		case 1:
			word = string([]rune{hanR[rng.Intn(len(hanR))], hanR[rng.Intn(len(hanR))], hanR[rng.Intn(len(hanR))], hanR[rng.Intn(len(hanR))]})
		default:
			word = string([]rune{kataR[rng.Intn(len(kataR))], kataR[rng.Intn(len(kataR))], kataR[rng.Intn(len(kataR))], 'ー', kataR[rng.Intn(len(kataR))]})
		}
		span := 1 + rng.Intn(*n/20+1)
		var from int
		switch i % 5 {
		case 0, 1: // the oldest tenth
			from = rng.Intn(*n/10 + 1)
		case 2, 3: // the newest tenth
			from = *n - *n/10 + rng.Intn(*n/10+1) - span
		default:
			from = rng.Intn(*n)
		}
		from = max(0, from)
		topics = append(topics, topic{word, from, min(*n, from+span)})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	emit := func(v any) {
		if err := enc.Encode(v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	emit(map[string]any{"type": "space", "id": "sp1", "name": "Long", "owner": "owner"})
	emit(map[string]any{"type": "member", "space": "sp1", "user": "bench"})
	emit(map[string]any{"type": "space", "id": "sp2", "name": "Other", "owner": "other"})
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	emit(map[string]any{"type": "task", "id": 0, "space": "sp1", "title": "current", "status": "running", "created_at": start.Format(time.RFC3339)})
	kinds := []string{"request", "comment", "result", "ask", "progress", "progress", "progress", "handoff"}
	var b strings.Builder
	sentence := func(i int) {
		lang := rng.Intn(3)
		words := 4 + rng.Intn(14)
		for j := 0; j < words; j++ {
			var word string
			if t := topics[rng.Intn(len(topics))]; i >= t.from && i < t.to && rng.Intn(4) == 0 {
				word = t.word
			} else {
				switch lang {
				case 0:
					word = en.pick()
				case 1:
					word = ja.pick()
					if rng.Intn(3) == 0 {
						word = zh.pick()
					}
				default:
					word = zh.pick()
				}
			}
			switch {
			case lang == 0 && j > 0:
				b.WriteByte(' ')
			case lang == 1 && j > 0:
				b.WriteRune(kanaR[rng.Intn(len(kanaR))])
			}
			b.WriteString(word)
		}
		switch lang {
		case 0:
			b.WriteString(". ")
		default:
			b.WriteString("。")
		}
	}
	for i := 0; i < *n; i++ {
		task := i/100 + 1
		if i%100 == 0 {
			space := "sp1"
			if task%10 == 0 {
				space = "sp2"
			}
			emit(map[string]any{"type": "task", "id": task, "space": space, "title": fmt.Sprintf("task %d: %s %s", task, en.pick(), zh.pick()),
				"status": []string{"running", "completed", "interrupted"}[rng.Intn(3)], "created_at": start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)})
		}
		b.Reset()
		// 20 to 400 words: mostly short paragraphs, a long tail of long ones
		sentences := 2 + int(rng.ExpFloat64()*8)
		sentences = min(sentences, 40)
		for s := 0; s < sentences; s++ {
			sentence(i)
			if rng.Intn(5) == 0 {
				b.WriteByte('\n')
			}
		}
		at := start.Add(time.Duration(i)*time.Minute + time.Duration(rng.Intn(50))*time.Second)
		if rng.Intn(50) == 0 {
			at = at.Add(-time.Duration(1+rng.Intn(30)) * 24 * time.Hour) // imported late
		}
		c := map[string]any{"type": "comment", "id": i + 1, "task": task, "kind": kinds[rng.Intn(len(kinds))], "author": []string{"user", "agent"}[rng.Intn(2)],
			"created_at": at.Format(time.RFC3339), "body": strings.TrimSpace(b.String())}
		if c["kind"] == "progress" {
			c["progress_type"] = []string{"thinking", "summary"}[rng.Intn(2)]
		}
		emit(c)
	}
}
