package spaces

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
)

// streamSpace imports n comments over several blocks of rowids into two spaces, their dates
// mostly rising with the rowid (as comments arrive) but with a share out of order, from a
// small vocabulary so terms range from common to rare.
func streamSpace(t *testing.T, rng *rand.Rand, n int, vocab []string) string {
	t.Helper()
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"space","id":"x","owner":"o"}`,
		`{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`, `{"type":"task","id":3,"space":"x","title":"elsewhere"}`}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{"request", "result", "ask"}
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i) * time.Minute)
		switch rng.Intn(20) {
		case 0:
			at = base.Add(time.Duration(rng.Intn(n)) * time.Minute) // any time at all
		case 1:
			at = base.Add(time.Duration(i-rng.Intn(3000)) * time.Minute) // late arrival
		case 2:
			at = base.Add(time.Duration(i-i%7) * time.Minute) // the same minute as its neighbours
		}
		task := []int{2, 2, 2, 1, 3}[rng.Intn(5)]
		words := make([]string, 1+rng.Intn(4))
		for j := range words {
			// a skewed pick: the first words are common, the last rare
			words[j] = vocab[min(len(vocab)-1, int(rng.ExpFloat64()*3))]
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":%d,"kind":%q,"author":"a%d","created_at":%q,"body":%q}`,
			i, task, kinds[rng.Intn(len(kinds))], rng.Intn(2), at.Format(time.RFC3339), strings.Join(words, " ")))
	}
	return strings.Join(lines, "\n")
}

// openChecked opens ws's spaces.db for searching, closed when the test ends, after checking that
// its search indexes and comment_blocks agree with its comments.
func openChecked(t *testing.T, ws *workspace.Workspace) *Store {
	t.Helper()
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.IntegrityCheck(); err != nil {
		t.Fatal(err)
	}
	return st
}

// searchBoth answers in with st's plans and with the LIKE walk the tests compare them with, as
// the search of task 1 by user o.
func searchBoth(t *testing.T, st *Store, in SearchInput) (got, want Answer) {
	t.Helper()
	var err error
	if want, err = st.search(context.Background(), asker{user: "o", task: "1"}, in, true); err != nil {
		t.Fatalf("%+v (LIKE): %v", in, err)
	}
	if got, err = st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil {
		t.Fatalf("%+v: %v", in, err)
	}
	return got, want
}

// Reading the index's matches newest rowid first and stopping at comment_blocks' bound gives
// what the LIKE walk gives, over several blocks of rowids whose dates are partly out of order,
// after a first (bulk) import, then after comments were added and moved in time by later
// writes; and on comments in time order it reads about as many matches as it answers.
func TestStreamEqualsLike(t *testing.T) {
	ws := newWorkspace(t)
	rng := rand.New(rand.NewSource(11))
	vocab := []string{"deploy", "cache", "ログイン", "認証", "kumquat", "ab", "x", "migrate", "稀有", "zebra", "quince"}
	n := 4000 // about 60 blocks of rowids
	importText(t, ws, streamSpace(t, rng, n, vocab))
	check := func(stage string) {
		t.Helper()
		st, err := OpenRead(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.IntegrityCheck(); err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		for i := 0; i < 120; i++ {
			q := vocab[rng.Intn(len(vocab))]
			if rng.Intn(3) == 0 {
				q += " " + vocab[rng.Intn(len(vocab))]
			}
			in := SearchInput{Query: q, Limit: 1 + rng.Intn(MaxLimit)}
			switch rng.Intn(4) {
			case 0:
				in.Kind = "ask"
			case 1:
				in.Author = "a1"
			}
			if err := in.validate(); err != nil {
				t.Fatal(err)
			}
			st.streamMax = []int{defaultStreamMax, 1 << 20, 1 + rng.Intn(50)}[rng.Intn(3)]
			st.firstStreamMax = []int{defaultFirstStreamMax, 1 << 20, 1 + rng.Intn(50)}[rng.Intn(3)]
			st.probeWindow = []int{defaultProbeWindow, 0}[rng.Intn(2)]
			if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %+v (stream of %d, first %d): %v, LIKE %v", stage, in, st.streamMax, st.firstStreamMax, refs(got), refs(want))
			}
		}
		if st.streamed.Load() == 0 {
			t.Fatalf("%s: no search was answered by reading matches newest first", stage)
		}
	}
	check("first import")

	// later writes: new comments at any time, and stored comments moved older and newer
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		id := ID(fmt.Sprint(n + i))
		if i%3 == 0 {
			id = ID(fmt.Sprint(rng.Intn(n))) // an existing comment, rewritten with another time
		}
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Intn(2*n)) * time.Minute)
		c := Comment{ID: id, Task: ID(fmt.Sprint([]int{1, 2, 3}[rng.Intn(3)])), Kind: "ask", Author: "a1",
			CreatedAt: at.Format(time.RFC3339), Body: vocab[rng.Intn(len(vocab))] + " " + vocab[rng.Intn(len(vocab))]}
		if _, err := st.AddComment(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	check("after add-comment")

	// a re-import (upserts through the one-row writer) of the same ids with other times
	importText(t, ws, streamSpace(t, rand.New(rand.NewSource(12)), n, vocab))
	check("after re-import")
}

// On comments in time order, a term common enough to fill the limit many times over is
// answered from the newest few of its matches: the stream never reads more than it may.
func TestStreamStopsEarly(t *testing.T) {
	ws := newWorkspace(t)
	var lines []string
	lines = append(lines, `{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 3000
	for i := 0; i < n; i++ {
		body := "plain words"
		if i%10 == 0 {
			body = "a kumquat here"
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":%q,"body":%q}`,
			i, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), body))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st := openChecked(t, ws)
	// the limit's rows and the one past it, and the rest of the block of 16 where they end (one
	// match): the first match of the block below is where it stops, unread; the same from the
	// tokens' lists intersected directly (the runs of four of both terms) and from FTS5's AND
	st.streamMax = 11 + 1
	for _, direct := range []bool{true, false} {
		st.direct = direct
		var steps []string
		st.trace = func(s string) { steps = append(steps, s) }
		in := SearchInput{Query: "kumquat here", Limit: 10}
		in.validate()
		before := st.streamed.Load()
		a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "direct: 12 read", false: "stream comments_short: 12 read"}[direct]
		if plan := strings.Join(steps, "; "); st.streamed.Load() != before+1 || plan != want {
			t.Fatalf("streamed %d, plan %s, want %s", st.streamed.Load()-before, plan, want)
		}
		if len(refs(a)) != 10 || refs(a)[0] != fmt.Sprintf("comment:%d", n-10) || !a.Search.Truncated {
			t.Fatalf("hits %v (truncated %v)", refs(a), a.Search.Truncated)
		}
	}
}

// Comments of the same time are ordered by id: a stream that met the bound's time exactly must
// read on, since a match of an older block may have the larger id (here the file lists ids
// downward, so the lowest rowids hold the largest ids).
func TestStreamTies(t *testing.T) {
	ws := newWorkspace(t)
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	for i := 200; i > 0; i-- {
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"kumquat %d"}`, i, i))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st := openChecked(t, ws)
	st.probeWindow = 0 // every comment matches: the newest would answer
	in := SearchInput{Query: "kumquat", Limit: 3}
	in.validate()
	if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) || st.streamed.Load() != 1 {
		t.Fatalf("streamed %d: %v, LIKE %v", st.streamed.Load(), refs(got), refs(want))
	}
}

// A file of schema version 6 that cannot be written (opened as immutable, as a read-only
// workspace opens one without its -shm) is searched as it is, without comment_blocks; a file
// that can be written gains comment_blocks when first opened.
func TestSchema6ReadOnly(t *testing.T) {
	ws := newWorkspace(t)
	writeAtVersion(t, ws, 6, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space) VALUES ('1', 's'), ('2', 's');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, 'a kumquat tart', 'a kumquat tart', 'a kumquat tart'),
			('4', 'n4', '2', 's', 'request', '2025-12-31T00:00:00Z', -1, 'kumquat jam', 'kumquat jam', 'kumquat jam');
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild')`)
	os.Remove(Path(ws) + "-wal")
	os.Remove(Path(ws) + "-shm")
	// limit 1 of 2 matches: the stream answers (a source of at most limit matches is driven)
	in := SearchInput{Query: "kumquat", Limit: 1}
	in.validate()
	ro, err := openImmutable(context.Background(), Path(ws), time.Second)
	if err != nil {
		t.Fatalf("a read-only schema 6 file: %v", err)
	}
	a, err := ro.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	ro.Close()
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("read-only schema 6 search: %v %v", refs(a), err)
	}
	st := openChecked(t, ws)
	st.anchorMax = 0 // the stream, which needs comment_blocks, is what answers then
	if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) || st.streamed.Load() != 1 {
		t.Fatalf("after migration: %v %v (streamed %d)", refs(a), err, st.streamed.Load())
	}
}

// Opening a file of schema version 6 redacts its texts again with this build's rules: a secret
// of a shape an earlier build did not know is no longer found by a fragment nor shown, the
// comment is still found by its other words, and the search indexes agree with the texts.
func TestMigration7RedactsAgain(t *testing.T) {
	ws := newWorkspace(t)
	secret := "dckr_pat_Zq3xVb7Kp2Lm9Nw4Rt6Ys8Ua1Cd"
	body := "docker login with " + secret + " worked"
	// the texts as a build without the Docker Hub rule wrote them: the secret in both
	writeAtVersion(t, ws, 6, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, ?1, lower(?1), ?1),
			('6', 'n6', '2', 's', 'request', '2026-01-01T00:00:01Z', 1, 'plain words', 'plain words', 'plain words');
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments`, body)
	st := openChecked(t, ws)
	for _, q := range []string{"zq3xvb7kp2", "7Kp2Lm9N", "dckr_pat_Zq"} {
		in := SearchInput{Query: q}
		in.validate()
		if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || len(refs(a)) != 0 {
			t.Errorf("%q after migration: %v %v", q, refs(a), err)
		}
	}
	in := SearchInput{Query: "docker login"}
	in.validate()
	a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("docker login after migration: %v %v", refs(a), err)
	}
	if ex := a.Search.Hits[0].Excerpt; strings.Contains(ex, "Zq3x") || !strings.Contains(ex, "[REDACTED]") {
		t.Errorf("excerpt %q", ex)
	}
}

// TestMigration9RedactsAgain: a made-up password no word names, which the detector before the
// password shape stored as it was, is neither found nor shown after migration 9.
func TestMigration9RedactsAgain(t *testing.T) {
	ws := newWorkspace(t)
	body := "use HtPUFxCvwR&pgND for the staging box"
	writeAtVersion(t, ws, 8, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, ?1, lower(?1), ?1);
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments;`+rebuildBlocks(), body)
	st := openChecked(t, ws)
	in := SearchInput{Query: "htpufxcvwr"}
	in.validate()
	if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || len(refs(a)) != 0 {
		t.Errorf("the password after migration: %v %v", refs(a), err)
	}
	in = SearchInput{Query: "staging box"}
	in.validate()
	a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("staging box after migration: %v %v", refs(a), err)
	}
	if ex := a.Search.Hits[0].Excerpt; strings.Contains(ex, "HtPUF") || !strings.Contains(ex, "[REDACTED]") {
		t.Errorf("excerpt %q", ex)
	}
}

// TestMigration10RedactsAgain: a password spelt out in the NATO alphabet, which the detector
// before session 9's decoders stored as it was, is neither found nor shown after migration 10.
func TestMigration10RedactsAgain(t *testing.T) {
	ws := newWorkspace(t)
	body := "Caller: victor delta nine nine lima november bravo five november whiskey delta, thanks"
	writeAtVersion(t, ws, 9, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, ?1, lower(?1), ?1);
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments;`+rebuildBlocks(), body)
	st := openChecked(t, ws)
	in := SearchInput{Query: "lima november bravo"}
	in.validate()
	if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || len(refs(a)) != 0 {
		t.Errorf("the spelt password after migration: %v %v", refs(a), err)
	}
	in = SearchInput{Query: "caller"}
	in.validate()
	a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("caller after migration: %v %v", refs(a), err)
	}
	if ex := a.Search.Hits[0].Excerpt; strings.Contains(ex, "november bravo") || !strings.Contains(ex, "[REDACTED]") {
		t.Errorf("excerpt %q", ex)
	}
}

// TestMigration11RedactsAgain: a generated password said alone in a chat line and a token split
// by a line break, which the detector before issue 22's rules stored as they were, are neither
// found nor shown after migration 11.
func TestMigration11RedactsAgain(t *testing.T) {
	ws := newWorkspace(t)
	body := "here you go: K9qKs5jsW5g and the key kX9mQ2vL7pa0Q3 Zt8Rw1Yb4Nc6 for the staging box"
	writeAtVersion(t, ws, 10, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, ?1, lower(?1), ?1);
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments;`+rebuildBlocks(), body)
	st := openChecked(t, ws)
	for _, q := range []string{"k9qks5jsw5g", "kx9mq2vl7pa0q3", "zt8rw1yb4nc6"} {
		in := SearchInput{Query: q}
		in.validate()
		if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || len(refs(a)) != 0 {
			t.Errorf("%s after migration: %v %v", q, refs(a), err)
		}
	}
	in := SearchInput{Query: "staging box"}
	in.validate()
	a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("staging box after migration: %v %v", refs(a), err)
	}
	if ex := a.Search.Hits[0].Excerpt; strings.Contains(ex, "K9qKs") || strings.Contains(ex, "Zt8Rw") || !strings.Contains(ex, "[REDACTED]") {
		t.Errorf("excerpt %q", ex)
	}
}

// TestMigration13RedactsAgain: a generated app password in letter groups and an account number
// in groups of four, which the detector before the fifth blind corpus's rules stored as they
// were, are neither found nor shown after migration 13.
func TestMigration13RedactsAgain(t *testing.T) {
	ws := newWorkspace(t)
	body := "the mail key is qbzt-wkvh-xdjr-pmgf and VPN_ACCOUNT=5812 0937 4416 2208 for the staging box"
	writeAtVersion(t, ws, 12, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, ?1, lower(?1), ?1);
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments;`+rebuildBlocks(), body)
	st := openChecked(t, ws)
	for _, q := range []string{"qbzt-wkvh-xdjr-pmgf", "xdjr", "0937 4416"} {
		in := SearchInput{Query: q}
		in.validate()
		if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || len(refs(a)) != 0 {
			t.Errorf("%s after migration: %v %v", q, refs(a), err)
		}
	}
	in := SearchInput{Query: "staging box"}
	in.validate()
	a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("staging box after migration: %v %v", refs(a), err)
	}
	if ex := a.Search.Hits[0].Excerpt; strings.Contains(ex, "qbzt") || strings.Contains(ex, "0937") || !strings.Contains(ex, "[REDACTED]") {
		t.Errorf("excerpt %q", ex)
	}
}

// A term whose tokens are all common (here each of "eyami"'s trigrams and runs of four is in
// every comment, the term itself in one in 40) has many candidates for few hits: once the
// stream has read streamMax of them and the index has counted them, the stream reads on from
// where it stopped, each candidate's row once, and stops where the hits it kept are the newest,
// where the sorted plan read the position of every candidate first.
func TestStreamResumesAfterCount(t *testing.T) {
	ws := newWorkspace(t)
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 2000
	for i := 0; i < n; i++ {
		body := "eyam yami"
		if i%40 == 0 {
			body = "an eyami here"
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":%q,"body":%q}`,
			i, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), body))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st := openChecked(t, ws)
	var steps []string
	st.trace = func(step string) { steps = append(steps, step) }
	in := SearchInput{Query: "eyami", Limit: 10}
	in.validate()
	got, want := searchBoth(t, st, in)
	if !reflect.DeepEqual(got, want) || len(refs(got)) != 10 {
		t.Fatalf("%v, LIKE %v", refs(got), refs(want))
	}
	trace := strings.Join(steps, "; ")
	// the 11 newest hits lie among the newest 401 comments; the stream stops in the block below
	if !strings.Contains(trace, "resumed comments_short: 2000 candidates") || strings.Contains(trace, "driven") {
		t.Fatalf("plan %s", trace)
	}
	read := 0
	fmt.Sscanf(trace[strings.LastIndex(trace, "stream comments_short: ")+len("stream comments_short: "):], "%d read", &read)
	if read < 401 || read > 401+64 {
		t.Fatalf("stream read %d candidates; want those of the 11 newest hits and at most a block more (%s)", read, trace)
	}
}

// Migration 14 rebuilds comment_blocks of an existing file in blocks of 16 rowids, where
// versions 7 to 13 wrote blocks of 64; the searches give the same answers.
func TestMigration14SmallerBlocks(t *testing.T) {
	ws := newWorkspace(t)
	var rows []string
	for i := 0; i < 300; i++ {
		body := "plain words"
		if i%7 == 0 {
			body = "a kumquat here"
		}
		rows = append(rows, fmt.Sprintf(`('%d', 'n%d', '2', 's', 'result', '2026-01-01T00:00:00Z', %d, '%s', '%s', '%s')`, i, i, i*1000, body, body, body))
	}
	writeAtVersion(t, ws, 13, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES `+strings.Join(rows, ", ")+`;
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments;
		INSERT INTO comment_blocks(block, max_at, upto)
			SELECT b, m, max(m) OVER (ORDER BY b) FROM (SELECT rid >> 6 AS b, max(at_ns) AS m FROM comments GROUP BY 1);`)
	queries := []string{"kumquat", "plain", "ku", "kumquat here"}
	// a file that cannot be migrated is searched with its blocks of 64, each of which bounds the
	// blocks of 16 it holds: the same answers, as the all-LIKE reference's
	os.Remove(Path(ws) + "-wal")
	os.Remove(Path(ws) + "-shm")
	ro, err := openImmutable(context.Background(), Path(ws), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		in := SearchInput{Query: q, Limit: 5}
		in.validate()
		if got, want := searchBoth(t, ro, in); !reflect.DeepEqual(got, want) || len(refs(got)) != 5 {
			t.Errorf("read-only at version 13, %q: %v, LIKE %v", q, refs(got), refs(want))
		}
	}
	ro.Close()
	st := openChecked(t, ws)
	var blocks, want int
	if err := st.db.QueryRow(`SELECT (SELECT count(*) FROM comment_blocks), (SELECT count(DISTINCT rid >> 4) FROM comments)`).Scan(&blocks, &want); err != nil || blocks != want || want != 19 {
		t.Fatalf("%d blocks after migration, want %d (of 16 rowids): %v", blocks, want, err)
	}
	for _, q := range queries {
		in := SearchInput{Query: q, Limit: 5}
		in.validate()
		if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) || len(refs(got)) != 5 {
			t.Errorf("%q: %v, LIKE %v", q, refs(got), refs(want))
		}
	}
}

// In a file before schema 19 (the trigram index narrows a three-character term), a long term
// (of three characters) and a short one common apart
// and rare together: when neither index's first candidates promise the answer, the source
// estimated to have fewer candidates (here the trigram index's, 200 of them, where the
// short-term index has 1,500) is counted in the index and read on to its end, each of its rows
// once; the short-term index's are not streamed.
func TestStreamSparserSource(t *testing.T) {
	ws := newWorkspace(t)
	lines := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3000; i++ {
		body := "gt fu ur" // the short term and the pairs of the long one
		switch {
		case i == 30 || i == 600 || i == 1200:
			body = "gt fur"
		case i%15 == 0:
			body = "a fur"
		case i%2 == 1:
			body = "plain words"
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":%q,"body":%q}`,
			i, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), body))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st := openChecked(t, ws)
	st.noTris = true // two indexes, as a file before schema 19 is searched
	var steps []string
	st.trace = func(step string) { steps = append(steps, step) }
	in := SearchInput{Query: "gt fur", Limit: 10}
	in.validate()
	got, want := searchBoth(t, st, in)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(refs(got), []string{"comment:1200", "comment:600", "comment:30"}) {
		t.Fatalf("%v, LIKE %v", refs(got), refs(want))
	}
	want0 := "stream comments_fts: stopped after 24; stream comments_short: stopped after 24; count comments_fts: 200; stream comments_fts: 200 read"
	// (the steps of the all-LIKE reference come first)
	if plan := strings.Join(steps, "; "); !strings.HasSuffix(plan, "; "+want0) {
		t.Fatalf("plan %s\nwant %s", plan, want0)
	}
}

// redactsAgainOnOpen writes body as a comment into a space file of schema version from (as that
// build stored it: unredacted by today's rules), opens it, and checks that no query of gone
// finds it, that the query kept still does, and that its excerpt holds want and none of shown.
func redactsAgainOnOpen(t *testing.T, from int, body string, gone []string, kept, want string, shown ...string) {
	t.Helper()
	ws := newWorkspace(t)
	writeAtVersion(t, ws, from, `INSERT INTO spaces(id, owner) VALUES ('s', 'o'); INSERT INTO tasks(id, space, dtitle) VALUES ('1', 's', ''), ('2', 's', '');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext, dtext) VALUES
			('5', 'n5', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, ?1, lower(?1), ?1);
		INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
		INSERT INTO comments_short(rowid, grams) SELECT rid, `+shortGramsFunc+`(itext) FROM comments;`+rebuildBlocks(), body)
	st := openChecked(t, ws)
	for _, q := range gone {
		in := SearchInput{Query: q}
		in.validate()
		if a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false); err != nil || len(refs(a)) != 0 {
			t.Errorf("%s after migration: %v %v", q, refs(a), err)
		}
	}
	in := SearchInput{Query: kept}
	in.validate()
	a, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
	if err != nil || !reflect.DeepEqual(refs(a), []string{"comment:5"}) {
		t.Fatalf("%s after migration: %v %v", kept, refs(a), err)
	}
	ex := a.Search.Hits[0].Excerpt
	if !strings.Contains(ex, want) {
		t.Errorf("excerpt %q lacks %q", ex, want)
	}
	for _, f := range shown {
		if strings.Contains(ex, f) {
			t.Errorf("excerpt %q shows %q", ex, f)
		}
	}
}

// TestMigration15RedactsAgain: a file of schema 13 holding a password after Markdown emphasis
// and one spelt in [char] calls is redacted again on opening.
func TestMigration15RedactsAgain(t *testing.T) {
	redactsAgainOnOpen(t, 13, "**password**: jxyxXRhtorVwpI and $p = [char]68+[char]78+[char]120+[char]114+[char]105+[char]108+[char]51+[char]82+[char]97+[char]118+[char]71+[char]68 for the staging box",
		[]string{"jxyxxrhtorvwpi", "[char]120"}, "staging box", "[REDACTED]", "jxyxX", "[char]120")
}

// TestMigration16RedactsAgain: a space file of schema 15 holding a key with its file's label
// glued to it (which session 11's rules left as "privkey:[REDACTED]") is redacted again on
// opening: neither the label's fragment nor the key is found or shown.
func TestMigration16RedactsAgain(t *testing.T) {
	redactsAgainOnOpen(t, 15, "NOISE=privkey:84c54c6298cbd2438a65e81452a2ba25f56b51df176e9018fe3dc09705c873fd for the headscale box",
		[]string{"privkey:", "84c54c6298"}, "headscale box", "NOISE=[REDACTED]", "privkey", "84c54c62")
}

// TestMigration17RedactsAgain: a space file of schema 16 holding passwords in the sentences of
// session 13's rules (an Ethiopic colon, a comma before a strong value) is redacted again on
// opening.
func TestMigration17RedactsAgain(t *testing.T) {
	redactsAgainOnOpen(t, 16, "የሰርቨሩ የይለፍ ቃል፦ CJ7nrdlaVCJN~o and pinalitan ko na ang password, AayPSC1kia1~FrymIc na, for the amharic box",
		[]string{"cj7nrdlavcjn", "aaypsc1kia1"}, "amharic box", "[REDACTED]", "CJ7nrdla", "AayPSC1k")
}
