package spaces

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestQueryPlan(t *testing.T) {
	sc := scope{space: "s", task: "1"}
	scopeWhere := []string{`c.space = ?1`, `t.space = ?1`, `c.task <> ?2`, `c.itext IS NOT NULL`}
	for _, tc := range []struct {
		name        string
		in          SearchInput
		allLike     bool
		long, short []string
		where       []string
		args        []any
		limit       string
	}{
		{
			name:  "long and short terms, folded and without duplicates",
			in:    SearchInput{Query: "Migration ab MIGRATION", Limit: 10},
			long:  []string{"migration"},
			short: []string{"ab"},
			where: []string{`instr(c.itext, ?3) > 0`, `instr(c.itext, ?4) > 0`},
			args:  []any{"s", "1", "migration", "ab"},
			limit: "11",
		},
		{
			name:    "the all-LIKE reference walks for every term, wildcards as text",
			in:      SearchInput{Query: "50%_off x", Limit: 3},
			allLike: true,
			short:   []string{"50%_off", "x"},
			where:   []string{`instr(c.itext, ?3) > 0`, `instr(c.itext, ?4) > 0`},
			args:    []any{"s", "1", "50%_off", "x"},
			limit:   "4",
		},
		{
			name:  "filters follow the terms",
			in:    SearchInput{Query: "認証", Limit: 30, Kind: "result", Author: "bob", TaskID: "task:16"},
			short: []string{"認証"},
			where: []string{`instr(c.itext, ?3) > 0`, `c.kind = ?4`, `c.author = ?5`, `c.task = ?6`},
			args:  []any{"s", "1", "認証", "result", "bob", "16"},
			limit: "31",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQueryPlan(sc, tc.in, tc.allLike)
			if !reflect.DeepEqual(p.long, tc.long) || !reflect.DeepEqual(p.short, tc.short) {
				t.Errorf("long %q short %q, want %q %q", p.long, p.short, tc.long, tc.short)
			}
			if want := append(append([]string(nil), scopeWhere...), tc.where...); !reflect.DeepEqual(p.where, want) {
				t.Errorf("where\n got %q\nwant %q", p.where, want)
			}
			if !reflect.DeepEqual(p.args, tc.args) {
				t.Errorf("args %#v, want %#v", p.args, tc.args)
			}
			if p.limit != tc.limit {
				t.Errorf("limit %s, want %s", p.limit, tc.limit)
			}
		})
	}
}

func TestQueryPlanFromAndWindow(t *testing.T) {
	p := newQueryPlan(scope{space: "s", task: "1"}, SearchInput{Query: "migration", Limit: 10}, false)
	from := p.drivenFrom("[3,17,40]")
	if !strings.Contains(from.from, "FROM json_each(?4)") || !strings.Contains(from.from, "c.rid = o.r") || p.args[3] != "[3,17,40]" {
		t.Errorf("driven from %q with args %v", from.from, p.args)
	}
	if q := p.sql(from); !strings.HasSuffix(q, "ORDER BY o.a DESC, o.k DESC LIMIT 11") {
		t.Errorf("a driven statement is not ordered by its sorted positions:\n%s", q)
	}
	w := p.windowFilter(42, "n7")
	if w != `(c.at_ns, c.idkey) >= (42, ?5)` || p.args[4] != "n7" {
		t.Errorf("window %q with args %v", w, p.args)
	}
	if nf := p.newestFilter(100); !strings.Contains(nf, "space = ?1") || !strings.Contains(nf, "OFFSET 99") || len(p.args) != 5 {
		t.Errorf("newest filter %q added arguments %v", nf, p.args)
	}
	q := p.sql(walkFrom, w)
	for _, want := range []string{"FROM " + walkFrom.from, "instr(c.itext, ?3) > 0 AND " + w, "ORDER BY c.at_ns DESC, c.idkey DESC LIMIT 11"} {
		if !strings.Contains(q, want) {
			t.Errorf("sql lacks %q:\n%s", want, q)
		}
	}
	if strings.Contains(p.sql(walkFrom), w) {
		t.Errorf("a window filter stayed in the plan after the statement that used it")
	}
}

func TestShortMatch(t *testing.T) {
	for _, tc := range []struct {
		short []string
		match string
		ok    bool
	}{
		{nil, "", false},
		{[]string{"a"}, `"a"`, true},
		{[]string{"ab", "認"}, `"ab" AND "認"`, true},
		{[]string{`"`, "A"}, `"_22" AND "_41"`, true},
		{[]string{"ab", "abc"}, "", false}, // a term of three characters has no short token
	} {
		match, ok := shortMatch(tc.short)
		if match != tc.match || ok != tc.ok {
			t.Errorf("shortMatch(%q) = %q, %v; want %q, %v", tc.short, match, ok, tc.match, tc.ok)
		}
	}
}

// The statement a rare term's search runs sorts its matches by position once, in the subquery
// that reads positions only, and reads whole rows in that order: SQLite must not sort the joined
// rows again (that would read, test and copy every match to keep the newest few).
func TestDrivenStatementSortsOnce(t *testing.T) {
	ws := fixtureWorkspace(t)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := newQueryPlan(scope{space: "s", task: "1"}, SearchInput{Query: "migration ab", Kind: "result", Limit: 10}, false)
	q := p.sql(p.drivenFrom("[1,2,3]"))
	rows, err := st.db.Query("EXPLAIN QUERY PLAN "+q, p.args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sorts, sortedBeforeRows := 0, false
	for i, d := range plan {
		if strings.Contains(d, "TEMP B-TREE") {
			sorts++
			sortedBeforeRows = slices.ContainsFunc(plan[i+1:], func(d string) bool { return strings.HasPrefix(d, "SEARCH c ") })
		}
	}
	if sorts != 1 || !sortedBeforeRows {
		t.Errorf("the driven statement sorts %d times, want once, in the positions subquery before whole rows are read:\n%s", sorts, strings.Join(plan, "\n"))
	}
}

// A long term is tested with instr, which is case-sensitive, where the all-LIKE reference
// ignores ASCII case: they agree only while folding leaves no ASCII upper-case letter, in the
// index text and in the terms alike. Every character, alone and after others, is checked.
func TestFoldedHasNoASCIIUpper(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		all.WriteRune(r)
		if f := Normalize(string(r)); strings.ContainsFunc(f, isASCIIUpper) {
			t.Errorf("Normalize(%q) = %q holds an ASCII upper-case letter", r, f)
		}
	}
	if f := Normalize(all.String()); strings.ContainsFunc(f, isASCIIUpper) {
		t.Errorf("Normalize of every character in a row holds an ASCII upper-case letter")
	}
	for _, q := range []string{"KUMQUAT Straße", "KK İI", "ＡＢＣ abc"} {
		for _, term := range SplitQuery(q) {
			if strings.ContainsFunc(term, isASCIIUpper) {
				t.Errorf("SplitQuery(%q) gave the term %q", q, term)
			}
		}
	}
}

func isASCIIUpper(r rune) bool { return r >= 'A' && r <= 'Z' }

// The driven plan puts every candidate in order by position and stops at the limit among those
// that pass every filter: candidates that fail a filter read after the sort (a kind, an author,
// a term the trigrams only suggested) must not take a place, and equal times are ordered by id.
// Its answers equal the all-LIKE reference's for every small limit.
func TestDrivenPlanStopsAtTheLimit(t *testing.T) {
	ws := newWorkspace(t)
	rng := rand.New(rand.NewSource(7))
	bodies := []string{"kumquat pie", "kum quat", "umqua kumq", "KUMQUAT tart", "plain text", "kumquatkumquat"}
	kinds := []string{"request", "result", "ask"}
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	for i := 0; i < 300; i++ {
		task := 2
		if rng.Intn(10) == 0 {
			task = 1 // the current task: never a hit
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":%d,"kind":%q,"author":"a%d","created_at":"2026-01-01T00:%02d:00Z","body":%q}`,
			i, task, kinds[rng.Intn(len(kinds))], rng.Intn(3), rng.Intn(20), bodies[rng.Intn(len(bodies))]))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.probeWindow = 0 // no probe: every query is driven from the index
	truncated := 0
	for _, q := range []string{"kumquat", "kumq", "quat", "kumquat pie", "tart kumquat"} {
		for limit := 1; limit <= 4; limit++ {
			for _, in := range []SearchInput{{Query: q, Limit: limit}, {Query: q, Limit: limit, Kind: "ask"}, {Query: q, Limit: limit, Author: "a1"}} {
				got, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
				if err != nil {
					t.Fatal(err)
				}
				want, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, true)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%+v: driven %v (truncated %v), LIKE %v (truncated %v)", in, refs(got), got.Search.Truncated, refs(want), want.Search.Truncated)
				}
				if got.Search.Truncated {
					truncated++
				}
			}
		}
	}
	if truncated == 0 {
		t.Fatal("no query had more hits than its limit: the space does not exercise the limit")
	}
}

// A query of long and short terms reads its candidates from the index with fewer matches (the
// trigram index, or the short-term index holding the short terms, the long terms' runs of four
// and the three-character terms' pairs), from both (INTERSECT) when both match many, or walks; whichever plan answers, on any setting
// of the plans' bounds, its hits are the all-LIKE reference's, and each plan is taken.
func TestMixedPlansEqualLike(t *testing.T) {
	ws := newWorkspace(t)
	rng := rand.New(rand.NewSource(27))
	vocab := []string{"deploy", "webfetch", "ログイン", "認証", "kumquat", "eb", "lo", "x", "稀有", "read", "ック", "バックアップ", "92", "16738", "oke", "token"}
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	kinds := []string{"request", "result", "ask"}
	for i := 0; i < 1500; i++ {
		var b strings.Builder
		// two kinds of comment that share few words, so a pair of common terms can hold nothing
		half := vocab[:8]
		if i%3 == 0 {
			half = vocab[8:]
		}
		for k := 1 + rng.Intn(6); k > 0; k-- {
			b.WriteString(half[rng.Intn(len(half))])
			if rng.Intn(3) > 0 {
				b.WriteByte(' ')
			}
		}
		if rng.Intn(200) == 0 {
			b.WriteString(" 92 deploy")
		}
		task := 2
		if rng.Intn(20) == 0 {
			task = 1
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":%d,"kind":%q,"author":"a","created_at":"2026-01-%02dT%02d:%02d:00Z","body":%q}`,
			i, task, kinds[rng.Intn(len(kinds))], 1+i/100, rng.Intn(24), rng.Intn(60), b.String()))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	queries := []string{"eb loy", "92 deploy", "92 oke", "rea ック", "x kumquat", "lo ログイン", "eb webfetch", "認証 eb", "x 稀有 read", "ック eb", "en 16738", "ad token x", "deploy ック", "webfetch 92", "kumquat lo", "token eb", "ログイン 稀"}
	for i := 0; i < 40; i++ {
		q := vocab[rng.Intn(len(vocab))]
		r := []rune(vocab[rng.Intn(len(vocab))])
		lo := rng.Intn(len(r))
		queries = append(queries, q+" "+string(r[lo:lo+1+rng.Intn(len(r)-lo)]))
	}
	for _, q := range queries {
		for round := 0; round < 6; round++ {
			st.ftsDriveMax = []int{defaultFTSDriveMax, 0, 1 + rng.Intn(60)}[rng.Intn(3)]
			st.walkWindow = []int{defaultWalkWindow, 1 + rng.Intn(50)}[rng.Intn(2)]
			st.probeWindow = []int{defaultProbeWindow, 0, 1 + rng.Intn(40)}[rng.Intn(3)]
			st.streamMax = []int{defaultStreamMax, 0, 1 + rng.Intn(30)}[rng.Intn(3)]
			st.firstStreamMax = []int{defaultFirstStreamMax, 0, 1 + rng.Intn(30)}[rng.Intn(3)]
			// and as a file before schema 19 is searched, where the trigram index narrows a
			// three-character term: the plans of two sources
			st.noTris = round%2 == 1
			st.direct = rng.Intn(3) > 0 // the tokens' lists intersected here, or FTS5's AND
			for _, in := range []SearchInput{{Query: q, Limit: 1 + rng.Intn(12)}, {Query: q, Limit: MaxLimit, Kind: "ask"}} {
				if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) {
					t.Fatalf("%+v (drive max %d, walk window %d, probe %d, stream %d, first %d): %v, LIKE %v", in, st.ftsDriveMax, st.walkWindow, st.probeWindow, st.streamMax, st.firstStreamMax, refs(got), refs(want))
				}
			}
		}
	}
	if st.shortDriven.Load() == 0 || st.intersected.Load() == 0 || st.streamed.Load() == 0 {
		t.Errorf("plans taken: short-term index %d, both indexes %d, stream %d; want each", st.shortDriven.Load(), st.intersected.Load(), st.streamed.Load())
	}
}

// A rare term's search asks the index whether its matches are dense among the newest comments
// before it probes them: a term with fewer matches than the limit, or old ones, is not probed.
func TestProbeOnlyDense(t *testing.T) {
	ws := newWorkspace(t)
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	for i := 0; i < 600; i++ {
		body := "common words"
		if i < 20 {
			body += " oldterm"
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T%02d:%02d:00Z","body":%q}`, i, i/60, i%60, body))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		q     string
		dense bool
	}{{"common", true}, {"oldterm", false}, {"nowhere", false}, {"co", true}} {
		p := newQueryPlan(scope{space: "s", task: "1"}, SearchInput{Query: tc.q, Limit: 10}, false)
		nc, err := st.newestCandidates(ctx, st.db, p.sources()[0], 10)
		if dense := nc.gap < int64(2*st.probeWindow); err != nil || dense != tc.dense {
			t.Errorf("newestCandidates(%q) = %+v, %v; want dense %v", tc.q, nc, err, tc.dense)
		}
		if got, want := searchBoth(t, st, SearchInput{Query: tc.q, Limit: 10}); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, LIKE %v", tc.q, refs(got), refs(want))
		}
	}
}

// Terms common apart and rare together (a long term and a short one whose first candidates in
// both indexes hold no match) are answered from the intersection of both indexes (intersectFew):
// its rows are the all-LIKE reference's, newest first with ties on the date broken alike, with
// matches only among the newest rows or only among the oldest, and none from the current task,
// another space, a private region, a kind never indexed or a comment's text before it changed.
func TestIntersectFewEqualsLike(t *testing.T) {
	for _, layout := range []string{"newest", "oldest", "spread"} {
		t.Run(layout, func(t *testing.T) {
			ws := newWorkspace(t)
			rng := rand.New(rand.NewSource(int64(len(layout))))
			lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`,
				`{"type":"task","id":2,"space":"s","title":"other"}`, `{"type":"task","id":3,"space":"s","title":"third"}`,
				`{"type":"space","id":"z","owner":"o"}`, `{"type":"task","id":9,"space":"z","title":"elsewhere"}`}
			const n = 1500
			id := 0
			add := func(task int, kind, at, body string) {
				id++
				lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":%d,"kind":%q,"author":"a","created_at":%q,"body":%q}`, id, task, kind, at, body))
			}
			var changed []int
			for i := 0; i < n; i++ {
				at := fmt.Sprintf("2026-01-%02dT%02d:%02d:00Z", 1+i/90, (i/3)%24, i%60)
				match := false
				switch layout {
				case "newest":
					match = i >= n-90 && i < n-64 && i%4 == 1
				case "oldest":
					match = i < 30 && i%3 == 0
				default:
					match = i%97 == 5
				}
				switch {
				case match:
					// a few share one date: the tie is broken by the comment's key
					if i%2 == 1 {
						at = fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+i/90)
					}
					add(2+rng.Intn(2), "result", at, "the reader saw バックアップ done")
				case i >= n-64 && i%8 == 0, i < n-64 && i%10 == 0:
					add(2, "result", at, "reader only "+strconv.Itoa(i))
				case i >= n-64 && i%8 == 4, i < n-64 && i%10 == 1:
					// the short-term index's candidate (ック, re, ea) that is no match
					add(3, "request", at, "ック re ea")
				case i < n-64 && i%10 == 2:
					add(2, "result", at, "reader <private>バックアップ</private>")
				case i%150 == 3:
					add(1, "result", at, "reader バックアップ in the current task")
				case i%150 == 4:
					add(9, "result", at, "reader バックアップ in another space")
					add(2, "comment", at, "reader バックアップ never indexed")
					add(3, "result", at, "reader バックアップ before it changed")
					changed = append(changed, id)
				default:
					add(2, "result", at, "filler "+strconv.Itoa(i))
				}
			}
			importText(t, ws, strings.Join(lines, "\n"))
			var edits []string
			for _, c := range changed {
				edits = append(edits, fmt.Sprintf(`{"type":"comment","id":%d,"task":3,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"reader alone now"}`, c))
			}
			importText(t, ws, strings.Join(append(lines[:6:6], edits...), "\n"))
			st, err := OpenRead(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			st.noTris = true // two indexes, as a file before schema 19 is searched
			took := 0
			st.trace = func(step string) {
				if strings.HasPrefix(step, "both: ") {
					took++
				}
			}
			for round := 0; round < 40; round++ {
				st.ftsDriveMax = []int{defaultFTSDriveMax, 40, 40 + rng.Intn(60)}[rng.Intn(3)]
				st.firstStreamMax = 1 + rng.Intn(8)
				st.streamMax = st.firstStreamMax + 1 + rng.Intn(40)
				st.probeWindow = []int{defaultProbeWindow, 0}[rng.Intn(2)]
				st.anchorMax = []int{0, 0, defaultAnchorMax, 1 + rng.Intn(8)}[rng.Intn(4)]
				for _, in := range []SearchInput{{Query: "rea ック", Limit: 1 + rng.Intn(12)}, {Query: "ック reader", Limit: MaxLimit}, {Query: "rea ック", Limit: 3, Author: "a"}} {
					if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) {
						t.Fatalf("%+v (drive max %d, stream %d, first %d): %v, LIKE %v", in, st.ftsDriveMax, st.streamMax, st.firstStreamMax, refs(got), refs(want))
					} else if len(refs(want)) == 0 {
						t.Fatalf("%+v: no hit; the space does not exercise the plan", in)
					}
				}
			}
			if took == 0 {
				t.Error("no search read the intersection of both indexes")
			}
		})
	}
}

// TestRareAnchorEqualsLike: a query of a rare token and common ones is answered from the rare
// token's few comments (rareAnchor) with what the LIKE walk gives — two rare tokens whose
// comments differ answer nothing, a rare short term anchors a common long one, filters still
// apply — and the common tokens it met are remembered, so the next query does not ask for them.
func TestRareAnchorEqualsLike(t *testing.T) {
	ws := newWorkspace(t)
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`,
		`{"type":"task","id":2,"space":"s","title":"other"}`, `{"type":"space","id":"z","owner":"o"}`,
		`{"type":"task","id":9,"space":"z","title":"elsewhere"}`}
	for i := 1; i <= 900; i++ {
		body := fmt.Sprintf("migrate the schema step %d", i%50)
		switch {
		case i%97 == 3:
			body += " 613 tag"
		case i%89 == 4:
			body += " 832 other 稀"
		}
		task := 2
		if i%10 == 0 {
			task = 1 // the caller's own: never a hit
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":%d,"kind":"result","author":"a%d","created_at":"2026-01-%02dT%02d:%02d:00Z","body":%q}`,
			i, task, i%2, 1+i/60, (i/3)%24, i%60, body))
	}
	lines = append(lines, `{"type":"comment","id":5000,"task":9,"kind":"result","author":"a","created_at":"2026-03-01T00:00:00Z","body":"613 migrate elsewhere"}`)
	importText(t, ws, strings.Join(lines, "\n"))
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// the anchor answers before the tokens' lists are intersected directly (directStream),
	// which answers the same below
	st.direct = false
	var steps []string
	st.trace = func(step string) { steps = append(steps, step) }
	cases := []struct {
		in     SearchInput
		anchor string // the plan's anchor step
		hits   int
	}{
		{SearchInput{Query: "613 migrate", Limit: 3}, "anchor: 11", 3},
		{SearchInput{Query: "613 migra", Limit: MaxLimit}, "anchor: 11", 9},
		{SearchInput{Query: "613 832"}, "anchor: 0", 0},
		{SearchInput{Query: "稀 schema", Limit: MaxLimit}, "anchor: 11", 10},
		{SearchInput{Query: "613 migrate", Limit: MaxLimit, Author: "a1"}, "anchor: 11", 5},
	}
	for _, c := range cases {
		st.direct = true
		if got, want := searchBoth(t, st, c.in); !reflect.DeepEqual(got, want) || len(refs(got)) != c.hits {
			t.Errorf("%+v, read directly: %v, LIKE %v, want %d hits", c.in, refs(got), refs(want), c.hits)
		}
		st.direct = false
	}
	for _, c := range cases {
		steps = steps[:0]
		got, want := searchBoth(t, st, c.in)
		if !reflect.DeepEqual(got, want) || len(refs(got)) != c.hits {
			t.Errorf("%+v: %v, LIKE %v, want %d hits", c.in, refs(got), refs(want), c.hits)
		}
		if !slices.Contains(steps, c.anchor) {
			t.Errorf("%+v: plan %v, want %s", c.in, steps, c.anchor)
		}
	}
	// every token of "migrate schema" (its seven runs of four) is common: remembered, and not
	// asked again
	steps = steps[:0]
	searchBoth(t, st, SearchInput{Query: "migrate schema"})
	remembered := len(st.common.set)
	if remembered < 7 {
		t.Fatalf("%d common tokens remembered", remembered)
	}
	searchBoth(t, st, SearchInput{Query: "schema migrate"})
	if len(st.common.set) != remembered {
		t.Errorf("common tokens asked again: %d, then %d", remembered, len(st.common.set))
	}
}
