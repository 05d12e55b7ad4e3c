package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// The words of the corpus: CJK words and the characters and pairs inside them, English, FTS5's
// operators and quoting, LIKE's wildcards and escape, width and case folding (full-width
// letters, ß folding to ss), and a secret the redactor hides.
var corpusWords = []string{
	"認証", "フロー", "画面", "変更", "ログイン", "数据", "迁移", "校验", "稀有", "認", "証", "画", "の", "は",
	"the", "rate", "limiter", "deploy", "token", "bucket", "schema", "migration", "review", "latency", "API", "Kumquat",
	"AND", "OR", "NOT", "NEAR", "NEAR(a", "b)", `"quoted"`, `say"hi"`, "prefix*", "col:on", "-minus", "^caret", "(paren)",
	"50%", "a_b", `back\slash`, "%_%", "ＡＢＣ", "Straße", "STRASSE", "ab", "a", "x", "zz", "é", "e\u0301",
	"password=hunter2hunter2", "ghp_0123456789abcdefABCDEF0123456789abcd",
}

// corpusQueries are the terms the queries combine: most occur, some never do.
var corpusQueries = []string{
	"認証", "認", "証", "画", "画面", "フロー", "ログイン", "数", "数据", "迁", "稀有", "の", "は", "認証フロー",
	"the", "rate", "RATE", "limiter", "kumquat", "Kumquat", "a", "ab", "x", "zz", "b", "e", "é",
	"AND", "OR", "NOT", "NEAR", "NEAR(a", `"`, `"quoted"`, `"hi"`, "*", "prefix*", "col:on", "-minus", "^", "(", ")",
	"%", "_", "50%", "a_b", `\`, `back\slash`, "abc", "ＡＢＣ", "strasse", "straße", "ss",
	"hunter2hunter2", "ghp_0123456789abcdef", "missing", "不在", "ナ",
}

// genCorpus writes a space import of three spaces, tasks (one a subtask, one moved to another
// space by a later line, one whose comments come before it), comments of every kind over a year
// with shared timestamps, integer and string ids, attachments, NUL characters, duplicate
// records and a few bad lines.
func genCorpus(seed int64, comments int) (string, []string, []string) {
	rng := rand.New(rand.NewSource(seed))
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	emit := func(v map[string]any) { enc.Encode(v) }
	emit(map[string]any{"type": "space", "id": "sp1", "name": "Tinylink", "owner": "alice"})
	emit(map[string]any{"type": "space", "id": "sp2", "name": "Other", "owner": "dave"})
	emit(map[string]any{"type": "space", "id": 3, "name": "Third", "owner": "alice"})
	emit(map[string]any{"type": "member", "space": "sp1", "user": "bob"})
	emit(map[string]any{"type": "member", "space": "sp1", "user": "bob"})
	emit(map[string]any{"type": "member", "space": "sp2", "user": "erin"})
	var taskIDs []string
	spacesOf := []string{"sp1", "sp1", "sp1", "sp2", "3"}
	for i := 0; i < 40; i++ {
		id := any(100 + i)
		if i%7 == 3 {
			id = fmt.Sprintf("t-%d", i)
		}
		taskIDs = append(taskIDs, fmt.Sprint(id))
		if i == 5 {
			continue // its task line comes last: its comments are orphans until then
		}
		rec := map[string]any{"type": "task", "id": id, "space": spacesOf[i%len(spacesOf)], "title": fmt.Sprintf("%s %s task %d", corpusWords[rng.Intn(len(corpusWords))], corpusWords[rng.Intn(len(corpusWords))], i), "status": "completed", "created_at": "2026-01-01T00:00:00Z"}
		if i == 9 {
			rec["parent"] = 100
		}
		emit(rec)
	}
	kinds := []struct{ kind, pt string }{{"request", ""}, {"comment", ""}, {"interjection", ""}, {"interjection_ack", ""}, {"result", ""},
		{"ask", ""}, {"handoff", ""}, {"progress", "thinking"}, {"progress", "summary"}, {"progress", "tool"}, {"progress", "debug"}}
	authors := []string{"user", "agent", "Alice", "bob"}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var commentIDs []string
	for i := 0; i < comments; i++ {
		k := kinds[rng.Intn(len(kinds))]
		n := 1 + rng.Intn(30)
		if rng.Intn(20) == 0 {
			n = 80 + rng.Intn(120) // long enough for excerpts cut on both sides
		}
		words := make([]string, n)
		for j := range words {
			words[j] = corpusWords[rng.Intn(len(corpusWords))]
		}
		sep := " "
		if rng.Intn(4) == 0 {
			sep = "" // CJK-style running text
		}
		body := strings.Join(words, sep)
		if rng.Intn(50) == 0 {
			body += "\x00nul\x00" + words[0]
		}
		if rng.Intn(30) == 0 {
			body = "  Line one\n\n\tline TWO  " + body
		}
		// times over a year (many buckets of the short-term index), some shared
		at := start.Add(time.Duration(rng.Int63n(int64(365 * 24 * time.Hour)))).Truncate(time.Second)
		if i > 0 && rng.Intn(10) == 0 {
			at = start.Add(time.Duration(i%17) * time.Hour)
		}
		id := any(1000 + i)
		if i%11 == 4 {
			id = fmt.Sprintf("c-%d", i)
		}
		commentIDs = append(commentIDs, fmt.Sprint(id))
		rec := map[string]any{"type": "comment", "id": id, "task": taskIDs[rng.Intn(len(taskIDs))], "kind": k.kind, "author": authors[rng.Intn(len(authors))],
			"created_at": at.Format(time.RFC3339), "body": body}
		if k.pt != "" {
			rec["progress_type"] = k.pt
		}
		if k.pt == "tool" {
			rec["tool_name"] = []string{"Bash", "Read", "Grep"}[rng.Intn(3)]
		}
		if rng.Intn(25) == 0 {
			rec["attachments"] = []string{"mock.png", "認証.txt"}
		}
		emit(rec)
		if rng.Intn(40) == 0 { // the same comment again, changed: the last one wins
			rec["body"] = body + " revised 稀有"
			emit(rec)
		}
	}
	b.WriteString("{\"type\": \"comment\", \"id\": \"bad\"}\nnot json\n")
	emit(map[string]any{"type": "task", "id": 105, "space": "sp1", "title": "late task", "created_at": "2026-01-02T00:00:00Z"})
	emit(map[string]any{"type": "task", "id": 103, "space": "sp2", "title": "moved task", "created_at": "2026-01-02T00:00:00Z"})
	return b.String(), taskIDs, commentIDs
}

// equivQueries are at least n searches over the corpus: one to three terms, with and without
// filters, limits and context, by owner, member and outsider, and around_ref.
func equivQueries(rng *rand.Rand, n int, taskIDs, commentIDs []string) []equivCase {
	callers := []spaces.Caller{
		{User: "alice", Task: "task:100"}, {User: "bob", Task: "101"}, {User: "alice", Task: "task:t-3"},
		{User: "dave", Task: "103"}, {User: "alice", Task: "task:102"},
	}
	var out []equivCase
	for _, q := range corpusQueries { // every term alone, by the owner
		out = append(out, equivCase{callers[0], spaces.SearchInput{Query: q}})
	}
	for len(out) < n {
		c := callers[rng.Intn(len(callers))]
		var in spaces.SearchInput
		if rng.Intn(8) == 0 {
			in.Around = "comment:" + commentIDs[rng.Intn(len(commentIDs))]
			in.Context = rng.Intn(3)
		} else {
			terms := make([]string, 1+rng.Intn(3))
			for i := range terms {
				terms[i] = corpusQueries[rng.Intn(len(corpusQueries))]
			}
			in.Query = strings.Join(terms, []string{" ", "　", "  "}[rng.Intn(3)])
			if rng.Intn(3) == 0 {
				in.Limit = 1 + rng.Intn(30)
			}
			if rng.Intn(5) == 0 {
				in.Kind = spaces.FilterKinds[rng.Intn(len(spaces.FilterKinds))]
			}
			if rng.Intn(6) == 0 {
				in.Author = []string{"user", "agent", "Alice", "nobody"}[rng.Intn(4)]
			}
			if rng.Intn(6) == 0 {
				in.TaskID = taskIDs[rng.Intn(len(taskIDs))]
			}
			if rng.Intn(6) == 0 {
				in.Context = 1 + rng.Intn(2)
			}
		}
		out = append(out, equivCase{c, in})
	}
	// queries of a long term and a short one, the shapes the sample chooses between (sampleTerms):
	// a common long term with a common short one ("9 searc"), a long term whose pairs are
	// common but which seldom or never meets the short term ("rea 脚"), a rare long term
	for _, q := range []string{"rate 認", "the 画", "limiter a", "ate 証", "imi の", "era zz", "quat ab", "kumquat x", "ter 画面 e",
		"at 認証フロー", "ion は", "ken 数", "ema ab 認"} {
		out = append(out, equivCase{callers[0], spaces.SearchInput{Query: q}}, equivCase{callers[1], spaces.SearchInput{Query: q, Limit: 3}})
	}
	// the callers' rules: an outsider, a subtask, an unknown task, no task
	out = append(out,
		equivCase{spaces.Caller{User: "mallory", Task: "task:100"}, spaces.SearchInput{Query: "認証"}},
		equivCase{spaces.Caller{User: "alice", Task: "task:109"}, spaces.SearchInput{Query: "認証"}},
		equivCase{spaces.Caller{User: "alice", Task: "task:999"}, spaces.SearchInput{Query: "認証"}},
		equivCase{spaces.Caller{User: "alice", Task: "task:100", Subtask: true}, spaces.SearchInput{Query: "認証"}},
		equivCase{spaces.Caller{User: "alice", Task: "task:100"}, spaces.SearchInput{Around: "comment:nope"}},
	)
	return out
}

type equivCase struct {
	caller spaces.Caller
	in     spaces.SearchInput
}

// TestEquivalence imports one corpus into spaces.db and into PostgreSQL and asks both the same
// searches: every answer (hits, their order, excerpts, titles, authors, truncated, context,
// around_ref's comments) and every error's code must be the same.
func TestEquivalence(t *testing.T) {
	st, _ := openTest(t)
	st.plans = map[string]int{}
	ctx := context.Background()
	corpus, taskIDs, commentIDs := genCorpus(1, 3000)

	ws := workspacetest.New(t)
	lite, err := spaces.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	liteRep, err := lite.Import(ctx, strings.NewReader(corpus), int64(len(corpus)), nil)
	lite.Close()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	pgRep, err := st.Import(ctx, strings.NewReader(corpus), int64(len(corpus)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(liteRep, pgRep) {
		t.Fatalf("import reports differ:\nsqlite %+v\npg     %+v", liteRep, pgRep)
	}
	t.Logf("PostgreSQL import: %s", time.Since(t0))
	// the short-term index's tokens, computed by the writer, are cairn_grams' (the SQL reference)
	var rows, differ int
	if err := st.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE grams IS DISTINCT FROM cairn_grams(itext, at_ns)) FROM comments`).Scan(&rows, &differ); err != nil || differ != 0 || rows < 3000 {
		t.Fatalf("grams: %d of %d comments differ from cairn_grams (%v)", differ, rows, err)
	}
	// importing again changes nothing, in either store
	if _, err := st.Import(ctx, strings.NewReader(corpus), int64(len(corpus)), nil); err != nil {
		t.Fatal(err)
	}

	cases := equivQueries(rand.New(rand.NewSource(2)), 400, taskIDs, commentIDs)
	hits, truncated := 0, 0
	var liteTime, pgTime time.Duration
	wants := make([]spaces.Answer, len(cases))
	werrs := make([]error, len(cases))
	compare := func(i int, c equivCase, got spaces.Answer, gerr error) bool {
		want, werr := wants[i], werrs[i]
		if errs.CodeOf(werr) != errs.CodeOf(gerr) || (werr == nil) != (gerr == nil) {
			t.Errorf("case %d %+v %+v: sqlite error %v, pg error %v", i, c.caller, c.in, werr, gerr)
			return false
		}
		if !reflect.DeepEqual(want, got) {
			wj, _ := json.MarshalIndent(want.Value(), "", " ")
			gj, _ := json.MarshalIndent(got.Value(), "", " ")
			t.Errorf("case %d %+v %+v differ:\nsqlite %s\npg     %s", i, c.caller, c.in, wj, gj)
			return false
		}
		return true
	}
	for i, c := range cases {
		t0 := time.Now()
		wants[i], werrs[i] = spaces.SearchWorkspaceTasks(ctx, ws, c.caller, c.in)
		t1 := time.Now()
		got, gerr := st.Search(ctx, c.caller, c.in)
		liteTime, pgTime = liteTime+t1.Sub(t0), pgTime+time.Since(t1)
		if !compare(i, c, got, gerr) {
			continue
		}
		if want := wants[i]; want.Search != nil {
			hits += len(want.Search.Hits)
			if want.Search.Truncated {
				truncated++
			}
		}
	}
	// again with the plans a small corpus seldom takes: a query of long terms read from a
	// window of the newest comments, or walked (more matches than fewMax), or neither answered
	// from the newest comments
	defaultPlans := st.plans
	// a query of long and short terms read from its long terms' comments (pg_trgm), or walked
	// through the short-term index with every term's keys
	// (without the sample, or with it: its choices between the long terms' comments and the walk,
	// from a sample of the whole space or of its newest 50 comments, scaled)
	// (the walk weighed a million times a candidate: every long term found in the sample read
	// from pg_trgm's index, its every comment tested)
	for _, v := range []struct {
		probe, window, few, fewLong, sample int
		weight                              float64
		want                                string
	}{{20, 300, 2, defaultFewLong, 0, 1, "window"}, {0, 0, 2, defaultFewLong, 0, 1, "walk"}, {0, 0, 2, 0, 0, 1, "mixed-walk"}, {0, 0, 2, 3000, 0, 1, "mixed-trgm"},
		{0, 0, 2, defaultFewLong, 5000, 1, "sample-walk"}, {0, 0, 2, 0, 50, 1, "sample-walk"}, {0, 0, 2, defaultFewLong, 1, 1, "sample-few"},
		{0, 0, 2, 0, 5000, 1e6, "sample-and"}, {0, 0, 2, 0, 50, 1e6, "sample-and"}} {
		st.plans, st.probeWindow, st.windowMax, st.fewMax, st.fewLong, st.sampleWindow, st.walkWeight = map[string]int{}, v.probe, v.window, v.few, v.fewLong, v.sample, v.weight
		for i, c := range cases {
			got, gerr := st.Search(ctx, c.caller, c.in)
			compare(i, c, got, gerr)
		}
		if st.plans[v.want] < 30 {
			t.Errorf("probe %d, window %d, few %d, few long %d, sample %d, walk weight %g: the %s plan was taken %d times: %v", v.probe, v.window, v.few, v.fewLong, v.sample, v.weight, v.want, st.plans[v.want], st.plans)
		}
		t.Logf("probe %d, window %d, few %d, few long %d, sample %d, walk weight %g: PostgreSQL plans %v", v.probe, v.window, v.few, v.fewLong, v.sample, v.weight, st.plans)
	}
	st.plans, st.probeWindow, st.windowMax, st.fewMax, st.fewLong, st.sampleWindow, st.walkWeight = defaultPlans, defaultProbeWindow, defaultWindowMax, defaultFewMax, defaultFewLong, defaultSampleWindow, 1
	t.Logf("%d searches, %d hits, %d truncated, identical; PostgreSQL plans %v; search time sqlite %s, pg %s", len(cases), hits, truncated, st.plans, liteTime, pgTime)
	if len(cases) < 200 || hits < 500 || truncated < 20 {
		t.Errorf("the corpus tests too little: %d searches, %d hits, %d truncated", len(cases), hits, truncated)
	}
}
