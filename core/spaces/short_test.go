package spaces

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestShortGrams(t *testing.T) {
	// every distinct character, pair and run of three once, none across white space, and each
	// run of four as its bucket's token (the index stores the buckets: this pins quadHash)
	got := shortGrams("abab 稀有 a 稀有ab")
	want := "a b ab aba ba _q3i1e9 bab 稀 有 稀有 稀有a 有a _q0vcf0 有ab"
	if got != want {
		t.Errorf("shortGrams = %q, want %q", got, want)
	}
	// a-z, 0-9 and characters outside ASCII as they are, any other ASCII byte as '_' and two hex
	// digits, so that the ascii tokenizer keeps each token whole and folds nothing
	for term, tok := range map[string]string{"a": "a", "ab": "ab", "稀有": "稀有", "z9": "z9", "_": "_5f", "_5": "_5f5",
		"A": "_41", `"`: "_22", "a.": "a_2e", "\x00": "_00", "\x7f": "_7f", "é": "é", "-_": "_2d_5f"} {
		if got, ok := shortToken(term); !ok || got != tok {
			t.Errorf("shortToken(%q) = %q %v, want %q", term, got, ok, tok)
		}
	}
	for _, term := range []string{"", "abc", "a b"} {
		if _, ok := shortToken(term); ok {
			t.Errorf("shortToken(%q) answered", term)
		}
	}
	// a run of three spelt as a character is, and none for another length or white space
	for term, tok := range map[string]string{"abc": "abc", "稀有a": "稀有a", "A-z": "_41_2dz"} {
		if got, ok := triToken(term); !ok || got != tok {
			t.Errorf("triToken(%q) = %q %v, want %q", term, got, ok, tok)
		}
	}
	for _, term := range []string{"", "ab", "abcd", "a b", "a\u3000b", "a\xffb"} {
		if got, ok := triToken(term); ok {
			t.Errorf("triToken(%q) = %q", term, got)
		}
	}
	// a term's runs of four, each once, none across white space; none under four characters
	for term, want := range map[string][]string{"abab": {"_q3i1e9"}, "ababab": {"_q3i1e9", "_q33cp7"}, "稀有な件": {"_q1ebh3"}} {
		if got, ok := quadTokens(term); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("quadTokens(%q) = %q %v, want %q", term, got, ok, want)
		}
	}
	for _, term := range []string{"", "abc", "稀有な", "ab c", "a\xffbc"} {
		if got, ok := quadTokens(term); ok {
			t.Errorf("quadTokens(%q) = %q", term, got)
		}
	}
}

// shortRows is the number of rows of the short-term index, and of comments with an index text.
func shortRows(t *testing.T, st *Store) (index, texts int) {
	t.Helper()
	if err := st.db.QueryRow(`SELECT count(*) FROM comments_short`).Scan(&index); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRow(`SELECT count(*) FROM comments WHERE itext IS NOT NULL`).Scan(&texts); err != nil {
		t.Fatal(err)
	}
	return index, texts
}

// TestShortIndexEqualsLike: terms of one or two characters found through the short-term index
// give exactly what the LIKE walk gives, after a first (bulk) import, a re-import that changes
// and removes index texts, add-comment and reindex; and the index drives those searches.
func TestShortIndexEqualsLike(t *testing.T) {
	ws := newWorkspace(t)
	rng := rand.New(rand.NewSource(7))
	alphabet := []string{"a", "b", "A", "Ａ", "ab", "認", "証", "認証", "ー", "%", "_", `\`, `"`, "*", "(", "OR", " ", " ", "\u3000", "ß", "ss", "é", "İ", "ı", "k", "K", "稀", "有", "\n"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	kinds := []string{"request", "result", "comment", "ask", "progress"}
	doc := func(n int) string {
		lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
		for i := 0; i < n; i++ {
			b, _ := json.Marshal(word(1 + rng.Intn(12)))
			lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":%d,"kind":%q,"author":"a","created_at":"2026-01-01T00:%02d:%02dZ","body":%s}`,
				rng.Intn(n+n/2), 2+rng.Intn(2), kinds[rng.Intn(len(kinds))], rng.Intn(60), rng.Intn(60), b))
		}
		// task 3 comes after its comments
		lines = append(lines, `{"type":"task","id":3,"space":"s","title":"late"}`)
		return strings.Join(lines, "\n")
	}
	check := func(stage string) {
		t.Helper()
		st, err := OpenRead(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if index, texts := shortRows(t, st); index != texts {
			t.Fatalf("%s: short-term index has %d rows for %d index texts", stage, index, texts)
		}
		for i := 0; i < 300; i++ {
			q := word(1 + rng.Intn(3))
			if rng.Intn(4) == 0 {
				q += " " + word(1)
			}
			if strings.TrimSpace(q) == "" {
				continue
			}
			in := SearchInput{Query: q, Limit: 1 + rng.Intn(MaxLimit)}
			if err := in.validate(); err != nil {
				t.Fatal(err)
			}
			got, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
			if err != nil {
				t.Fatalf("%s: query %q: %v", stage, q, err)
			}
			want, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, true)
			if err != nil {
				t.Fatalf("%s: query %q (LIKE): %v", stage, q, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: query %q: index %v != LIKE %v", stage, q, refs(got), refs(want))
			}
		}
		if st.shortDriven.Load() == 0 {
			t.Errorf("%s: no search was driven from the short-term index", stage)
		}
	}
	importText(t, ws, doc(400)) // into an empty store: the bulk path
	check("first import")
	importText(t, ws, doc(400)) // changes, adds and removes index texts batch by batch
	check("re-import")
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		c := Comment{ID: ID(fmt.Sprint(rng.Intn(700))), Task: "2", Kind: kinds[rng.Intn(len(kinds))], Author: "a", CreatedAt: "2026-01-02T00:00:00Z", Body: word(1 + rng.Intn(8))}
		if _, err := st.AddComment(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	check("add-comment")
	st, err = Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`INSERT INTO comments_short(comments_short) VALUES ('delete-all')`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reindex(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	check("reindex")
}

// A file of schema version 4 gains the short-term index, built from its index texts, when it
// is first opened.
func TestShortIndexMigration(t *testing.T) {
	ws := newWorkspace(t)
	// write the rows the way cairn at schema 4 did: SQL alone, the trigram index in step
	writeAtVersion(t, ws, 4, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space) VALUES ('1', 's'), ('2', 's');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, '稀有な件', '稀有な件', '稀有な件'),
			('6', 'n6', '2', 's', 'request', '2026-01-01T00:00:01Z', 1, 'other', 'other', 'other');
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild')`)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if index, texts := shortRows(t, st); index != 2 || texts != 2 {
		t.Fatalf("after migration: %d index rows for %d texts", index, texts)
	}
	for q, want := range map[string][]string{"稀有": {"comment:5"}, "有": {"comment:5"}, "th": {"comment:6"}, "zz": nil} {
		in := SearchInput{Query: q}
		in.validate()
		a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := refs(a); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q after migration: %v, want %v", q, got, want)
		}
	}
	if st.shortDriven.Load() != 4 {
		t.Errorf("%d of 4 searches driven from the short-term index", st.shortDriven.Load())
	}
}

// A file of schema version 5 (the short-term index spelt in hex digits, the trigram index with
// its size record) has both indexes rebuilt when it is first opened: short terms, including
// ones of punctuation and '_', are found through the short-term index, and long ones through
// the trigram index.
func TestShortIndexDenseMigration(t *testing.T) {
	ws := newWorkspace(t)
	old, err := openPath(context.Background(), Path(ws), time.Second, migrations[:5], true)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"5": "稀有な件 a_b", "6": "other (x)", "7": "\"quoted\" ok"}
	for _, id := range []string{"5", "6", "7"} {
		// the document schema 5 wrote: each gram as the hex digits of its bytes
		var hexGrams []string
		for _, g := range strings.Fields(shortGrams(texts[id])) {
			if strings.HasPrefix(g, "_q") {
				continue // runs of four came with schema 18
			}
			var raw []byte
			for i := 0; i < len(g); i++ {
				if g[i] == '_' {
					b, _ := strconv.ParseUint(g[i+1:i+3], 16, 8)
					raw = append(raw, byte(b))
					i += 2
				} else {
					raw = append(raw, g[i])
				}
			}
			if utf8.RuneCount(raw) == 3 {
				continue // and runs of three with 19
			}
			hexGrams = append(hexGrams, hex.EncodeToString(raw))
		}
		if _, err := old.db.Exec(`INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES (?1, 'n' || ?1, '2', 's', 'request', '2026-01-01T00:00:00Z', ?1, ?2, ?2, ?2)`, id, texts[id]); err != nil {
			t.Fatal(err)
		}
		if _, err := old.db.Exec(`INSERT INTO comments_short(rowid, grams) SELECT rid, ? FROM comments WHERE id = ?`, strings.Join(hexGrams, " "), id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.db.Exec(`INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space) VALUES ('1', 's'), ('2', 's');
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild')`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(); err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := st.db.QueryRow(`SELECT group_concat(sql, ';') FROM sqlite_master WHERE name IN ('comments_fts', 'comments_short')`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schema, "columnsize=0") || !strings.Contains(schema, "case_sensitive 1") || !strings.Contains(schema, "tokenchars _") {
		t.Errorf("indexes not rebuilt: %s", schema)
	}
	if index, texts := shortRows(t, st); index != 3 || texts != 3 {
		t.Fatalf("after migration: %d index rows for %d texts", index, texts)
	}
	short := map[string][]string{"稀有": {"comment:5"}, "_": {"comment:5"}, "a_": {"comment:5"}, "(": {"comment:6"}, `"`: {"comment:7"},
		`"q`: {"comment:7"}, "有な": {"comment:5"}, "zz": nil, "5f": nil, "e7": nil}
	for q, want := range short {
		in := SearchInput{Query: q}
		in.validate()
		a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := refs(a); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q after migration: %v, want %v", q, got, want)
		}
	}
	if int(st.shortDriven.Load()) != len(short) {
		t.Errorf("%d of %d searches driven from the short-term index", st.shortDriven.Load(), len(short))
	}
	// the trigram index folds no case: the index text and the query are folded already
	for _, q := range []string{"quoted", "QUOTED", "Ｑuoted"} {
		in := SearchInput{Query: q}
		in.validate()
		if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || !reflect.DeepEqual(refs(a), []string{"comment:7"}) {
			t.Errorf("%s after migration: %v %v", q, refs(a), err)
		}
	}
}

// A term after a NUL byte of a comment is found through the short-term index (its characters,
// pairs and runs of four) as through the trigram index: the index text reaches shortGrams whole
// (shortGramsOfText), and every term is tested with instr, which reads past a NUL where LIKE
// stopped; after a first import and a reindex alike.
func TestShortIndexAfterNUL(t *testing.T) {
	ws := newWorkspace(t)
	importText(t, ws, `{"type":"space","id":"s","owner":"o"}
{"type":"task","id":1,"space":"s","title":"cur"}
{"type":"task","id":2,"space":"s","title":"other"}
{"type":"comment","id":5,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"before\u0000qz kumquat"}`)
	check := func(stage string) {
		t.Helper()
		st := openChecked(t, ws)
		for _, q := range []string{"kumquat", "quat", "kum quat", "qz", "q", "qz kumquat"} {
			in := SearchInput{Query: q}
			in.validate()
			a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
			if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
				t.Errorf("%s: %q after a NUL: %v %v", stage, q, refs(a), err)
			}
		}
	}
	check("import")
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reindex(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	check("reindex")
}

// A three-character term is in the short-term index beside the short terms and the runs of
// four, so a query of it and a short term common apart and in no comment together is one
// source, whose AND FTS5 intersects (no candidate read), and a file of schema 18 gains the runs
// of three when it is first opened.
func TestThreeCharTermOneIndex(t *testing.T) {
	ws := newWorkspace(t)
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	for i := 0; i < 600; i++ {
		body := []string{"read it", "バックアップ re ea", "the area", "plain"}[i%4]
		if i == 7 || i == 300 {
			body = "area バックアップ"
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:%02d:%02dZ","body":%q}`, i, i/60, i%60, body))
	}
	// the file as schema 18 wrote it: a short-term index without runs of three
	old, err := openPath(context.Background(), Path(ws), time.Second, migrations[:18], true)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	if _, err := old.Import(context.Background(), strings.NewReader(text), int64(len(text)), nil); err != nil {
		t.Fatal(err)
	}
	rows, err := old.db.Query(`SELECT rid, itext FROM comments WHERE itext IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[int64]string{}
	for rows.Next() {
		var rid int64
		var itext string
		if err := rows.Scan(&rid, &itext); err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, g := range strings.Fields(shortGrams(itext)) {
			if strings.HasPrefix(g, "_q") || utf8.RuneCountInString(strings.ReplaceAll(g, "_", "")) < 3 || strings.Contains(g, "_") {
				kept = append(kept, g)
			}
		}
		docs[rid] = strings.Join(kept, " ")
	}
	rows.Close()
	for rid, doc := range docs {
		if _, err := old.db.Exec(`DELETE FROM comments_short WHERE rowid = ?`, rid); err != nil {
			t.Fatal(err)
		}
		if _, err := old.db.Exec(`INSERT INTO comments_short(rowid, grams) VALUES (?, ?)`, rid, doc); err != nil {
			t.Fatal(err)
		}
	}
	count := func(st *Store, tok string) (n int) {
		t.Helper()
		if err := st.db.QueryRow(`SELECT count(*) FROM comments_short WHERE comments_short MATCH ?`, ftsPhrase(tok)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(old, "rea"); n != 0 {
		t.Fatalf("the schema 18 file's index holds %d rows of \"rea\"", n)
	}
	old.Close()
	st := openChecked(t, ws)
	if n := count(st, "rea"); n != 301 {
		t.Fatalf("after migration: %d rows of \"rea\", want 301", n)
	}
	var steps []string
	st.trace = func(step string) { steps = append(steps, step) }
	for _, q := range []string{"rea ック", "rea", "are バックアップ", "ea"} {
		steps = steps[:0]
		in := SearchInput{Query: q, Limit: 10}
		in.validate()
		got, want := searchBoth(t, st, in)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %v, LIKE %v", q, refs(got), refs(want))
		}
		if plan := strings.Join(steps, "; "); strings.Contains(plan, "comments_fts") {
			t.Errorf("%q read the trigram index: %s", q, plan)
		}
		if q == "rea ック" && !reflect.DeepEqual(refs(got), []string{"comment:300", "comment:7"}) {
			t.Errorf("%q: %v", q, refs(got))
		}
	}
}
