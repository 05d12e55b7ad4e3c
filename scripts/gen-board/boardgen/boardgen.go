// Package boardgen writes synthetic boards (docs/formats.md) at a chosen scale, deterministic by
// seed; the gen-board command and the board benchmark share it.
package boardgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// gen holds the random source of one run.
type gen struct {
	r    *rand.Rand
	base time.Time
	wl   wordLists
}

// Write streams a board of the given scale (1 ≈ 500 cards and 5,000 events) to w; the same seed
// and scale always give the same bytes.
func Write(w io.Writer, scale int, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), base: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), wl: newWordLists()}
	g.write(bw, scale)
	return bw.Flush()
}

// wordLists are the vocabularies sentences are drawn from.
type wordLists struct {
	zh, ja, en, lanes, types, tags, otherEv, extras []string
}

func newWordLists() wordLists {
	return wordLists{
		zh:      strings.Fields("迁移 数据库 搜索 索引 缓存 性能 登录 认证 权限 接口 测试 部署 日志 监控 配置 脚本 重构 前端 后端 页面 按钮 表单 错误 修复 优化 文档 发布 回滚 队列 同步 异步 导出 导入 备份 通知 邮件 支付 订单 用户 会话 超时 重试 限流 分页 排序 筛选 标签 看板 卡片 摘要"),
		ja:      strings.Fields("ログイン画面 改修 検索 移行 データベース 性能 テスト 設定 認証 キャッシュ 障害 対応 確認 修正 リリース 手順 画面遷移 通知 権限 ログ 監視 バッチ 同期 エラー 表示 入力 保存 削除 更新 仕様"),
		en:      strings.Fields("migrate storage SQLite search index cache latency login auth token refresh deploy rollback queue retry timeout export import backup webhook billing invoice session pagination filter tags board card summary flaky test CI pipeline docker config parser schema benchmark memory leak crash fix refactor API endpoint"),
		lanes:   []string{"Backlog", "Todo", "In Progress", "Review", "Done", "Done", "Done", "Cancelled"},
		types:   []string{"feature", "bug", "chore", "research", "docs"},
		tags:    []string{"module/storage", "module/search", "module/auth", "module/ui", "module/api", "perf", "security", "infra", "docs", "flaky", "ux/mobile", "ux/desktop"},
		otherEv: []string{"workspace_auto_archived", "receipt", "assigned", "label_added"},
		extras:  []string{"ＳＱＬｉｔｅ", "Ｖ２", "🚀", "✅", "Straße", "İstanbul", "K"},
	}
}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// sentence mixes the three languages the way real agent notes do.
func (g *gen) sentence(words int) string {
	var b strings.Builder
	lang := g.r.IntN(3)
	for i := 0; i < words; i++ {
		switch {
		case g.r.IntN(40) == 0:
			b.WriteString(g.pick(g.wl.extras))
		case lang == 0 && g.r.IntN(4) != 0:
			b.WriteString(g.pick(g.wl.zh))
		case lang == 1 && g.r.IntN(4) != 0:
			b.WriteString(g.pick(g.wl.ja))
		default:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(g.pick(g.wl.en))
			if i+1 < words {
				b.WriteByte(' ')
			}
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if lang == 2 {
		return out + "."
	}
	return out + "。"
}

func (g *gen) text(sentences, words int) string {
	parts := make([]string, sentences)
	for i := range parts {
		parts[i] = g.sentence(words/2 + g.r.IntN(words))
	}
	return strings.Join(parts, "\n")
}

func (g *gen) at(day int) string {
	return g.base.Add(time.Duration(day)*24*time.Hour + time.Duration(g.r.IntN(86400))*time.Second).Format(time.RFC3339)
}

// write streams the document so a large scale never holds it all in memory.
func (g *gen) write(w *bufio.Writer, scale int) {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	list := func(name string, n int, item func(i int) any, last bool) {
		fmt.Fprintf(w, "  %q: [", name)
		for i := 0; i < n; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString("\n    ")
			w.WriteString(enc(item(i)))
		}
		w.WriteString("\n  ]")
		if !last {
			w.WriteByte(',')
		}
		w.WriteByte('\n')
	}
	nProjects := 2 * scale
	nCards := 500 * scale
	nEvents := 5000 * scale
	w.WriteString("{\n  \"revision\": " + fmt.Sprint(1000+scale) + ",\n")
	list("projects", nProjects+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("p%d", i+1), "title": fmt.Sprintf("%s %d", g.pick(g.wl.en), i+1), "archived": i == nProjects, "memory": i%5 != 4}
	}, false)
	project := func(card int) int { return card%(nProjects+1) + 1 }
	list("cards", nCards, func(i int) any {
		tags := []string{}
		for k := g.r.IntN(4); k > 0; k-- {
			tags = append(tags, g.pick(g.wl.tags))
		}
		return map[string]any{
			"id": fmt.Sprintf("c%d", i+1), "project": fmt.Sprintf("p%d", project(i)), "title": g.sentence(4 + g.r.IntN(5)),
			"description": g.text(1+g.r.IntN(4), 12), "tags": tags, "type": g.pick(g.wl.types), "status": g.pick(g.wl.lanes),
			"archived": g.r.IntN(10) == 0, "updated_at": g.at(300 + g.r.IntN(30)), "workspace_id": fmt.Sprintf("w%d", g.r.IntN(50)+1),
		}
	}, false)
	list("events", nEvents, func(i int) any {
		card := g.r.IntN(nCards)
		typ, note := g.pick(g.wl.otherEv), ""
		if g.r.IntN(4) != 0 {
			typ = []string{"status_changed", "progress_reported"}[g.r.IntN(2)]
			note = g.sentence(6 + g.r.IntN(12))
		}
		return map[string]any{"id": fmt.Sprintf("e%d", i+1), "card": fmt.Sprintf("c%d", card+1), "type": typ, "note": note, "actor": []string{"agent", "alice", "bob"}[g.r.IntN(3)], "at": g.at(i * 300 / nEvents)}
	}, false)
	list("workpads", 4*nCards, func(i int) any {
		kind := []string{"acceptance", "check", "check", "question"}[g.r.IntN(4)]
		m := map[string]any{"id": fmt.Sprintf("wp%d", i+1), "card": fmt.Sprintf("c%d", i/4+1), "kind": kind, "description": g.sentence(5 + g.r.IntN(8)), "at": g.at(200 + g.r.IntN(100))}
		if kind == "check" {
			m["command"] = []string{"go test ./...", "npm test", "make bench", "cairn board search 迁移", "pytest -k login"}[g.r.IntN(5)]
			m["evidence"] = fmt.Sprintf("%d passed, %d failed; %s", g.r.IntN(400), g.r.IntN(3), g.sentence(4))
		}
		return m
	}, false)
	list("ideas", nCards, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("i%d", i+1), "card": fmt.Sprintf("c%d", g.r.IntN(nCards)+1), "title": g.sentence(4), "detail": g.sentence(12), "rationale": g.sentence(8), "context": g.sentence(6), "status": []string{"open", "accepted", "dismissed"}[g.r.IntN(3)], "at": g.at(g.r.IntN(330))}
	}, false)
	list("artifacts", nCards, func(i int) any {
		n := g.r.IntN(900) + 1
		return map[string]any{"id": fmt.Sprintf("a%d", i+1), "card": fmt.Sprintf("c%d", g.r.IntN(nCards)+1), "title": fmt.Sprintf("PR #%d %s", n, g.sentence(3)), "note": g.sentence(6), "target": fmt.Sprintf("https://github.com/cairn-dev/tinylink/pull/%d", n), "external_key": fmt.Sprintf("TL-%d", n), "at": g.at(g.r.IntN(330))}
	}, false)
	w.WriteString("  \"summaries\": {")
	for i := 0; i < nCards; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		versions := make([]any, 3)
		for v := range versions {
			versions[v] = map[string]any{"state": g.sentence(8), "target": g.sentence(8), "recap": g.text(2, 14), "next": g.sentence(8), "at": g.at(100*v + g.r.IntN(100))}
		}
		fmt.Fprintf(w, "\n    %q: %s", fmt.Sprintf("c%d", i+1), enc(versions))
	}
	w.WriteString("\n  },\n")
	list("memory", 30*nProjects, func(i int) any {
		tags := []string{g.pick(g.wl.tags)}
		return map[string]any{"id": fmt.Sprintf("m%d", i+1), "project": fmt.Sprintf("p%d", i%nProjects+1), "kind": []string{"decision", "convention", "fact"}[g.r.IntN(3)], "title": g.sentence(5), "body": g.text(2, 12), "keywords": []string{g.pick(g.wl.zh), g.pick(g.wl.en)}, "tags": tags, "status": []string{"active", "active", "candidate", "rejected", "archived"}[g.r.IntN(5)], "confirmed_at": g.at(g.r.IntN(330))}
	}, true)
	w.WriteString("}\n")
}
