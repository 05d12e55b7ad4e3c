package spaces

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// genSpace is a space import document of n comments of words comments each: a member "bench" of
// sp1, tasks in sp1 and sp2, a rare term in 1 comment of 200, comments written before their task,
// a task that moves to sp2 at the end, and every 97th comment repeating an earlier id with a new
// body (an upsert within the import).
func genSpace(n, words int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 7))
	vocab := []string{"cache", "release", "worker", "config", "latency", "review", "deploy", "migration", "API",
		"ログイン", "認証", "画面", "部署", "数据", "迁移", "テスト", "ka", "a", "Kafka", "ＡＢＣ", "ß", "İstanbul"}
	var b strings.Builder
	b.WriteString(`{"type":"space","id":"sp1","name":"Bench","owner":"owner"}` + "\n")
	b.WriteString(`{"type":"member","space":"sp1","user":"bench"}` + "\n")
	b.WriteString(`{"type":"space","id":"sp2","name":"Other","owner":"other"}` + "\n")
	for t := 0; t < 20; t++ {
		if t == 7 {
			continue // its comments come first, the task at the end
		}
		sp := "sp1"
		if t%5 == 4 {
			sp = "sp2"
		}
		fmt.Fprintf(&b, `{"type":"task","id":%d,"space":"%s","title":"task %d","status":"running","created_at":"2026-01-01T00:00:00Z"}`+"\n", t, sp, t)
	}
	for i := 1; i <= n; i++ {
		id := i
		if i%97 == 0 {
			id = i / 2
		}
		var body strings.Builder
		for w := 0; w < words; w++ {
			if w > 0 {
				body.WriteByte(' ')
			}
			body.WriteString(vocab[r.IntN(len(vocab))])
		}
		if i%200 == 0 {
			body.WriteString(" kumquat 稀有")
		}
		kind, extra := "result", ""
		switch i % 11 {
		case 3:
			kind, extra = "progress", `,"progress_type":"tool","tool_name":"Bash"`
		case 5:
			kind = "comment" // not indexed
		}
		fmt.Fprintf(&b, `{"type":"comment","id":%d,"task":%d,"kind":"%s"%s,"author":"agent","created_at":"2026-01-01T%02d:%02d:%02dZ","body":%q}`+"\n",
			id, i%20, kind, extra, i/3600%24, i/60%60, i%60, body.String())
	}
	b.WriteString(`{"type":"task","id":7,"space":"sp1","title":"late task","status":"running","created_at":"2026-01-01T00:00:00Z"}` + "\n")
	b.WriteString(`{"type":"task","id":3,"space":"sp2","title":"moved","status":"done","created_at":"2026-01-01T00:00:00Z"}` + "\n")
	return b.String()
}

// spaceQueries are common, rare, short (one and two characters, CJK) and multi-term queries.
var spaceQueries = []string{"cache", "ログイン", "kumquat", "稀有", "稀", "ka", "a", "ß", "ss", "abc", "画", "認証 deploy", "istanbul", "tool: bash", "zq"}

// answers renders the answer to every query of spaceQueries for bench in sp1 and owner in sp2.
func answers(t *testing.T, ws *workspace.Workspace) string {
	t.Helper()
	var b strings.Builder
	for _, c := range []Caller{{User: "bench", Task: "0"}, {User: "other", Task: "4"}} {
		for _, q := range spaceQueries {
			a, err := SearchWorkspaceTasks(context.Background(), ws, c, SearchInput{Query: q, Limit: 30, Context: 1})
			if err != nil { // an empty store has no task to search from
				fmt.Fprintf(&b, "%s %q: error %v\n", c.User, q, err)
				continue
			}
			doc, err := json.Marshal(a.Value())
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %q: %s\n", c.User, q, doc)
		}
	}
	return b.String()
}

// importSteps counts the bulk import's steps while a test runs.
func importSteps(t *testing.T) map[string]int {
	seen := map[string]int{}
	old := importStep
	importStep = func(name string) { seen[name]++ }
	t.Cleanup(func() { importStep = old })
	return seen
}

// The bulk path (a store with no comments: rows first, indexes built after) and the incremental
// path (a store with comments: indexes kept in step batch by batch) give the same store and the
// same answers.
func TestBulkImportEqualsIncremental(t *testing.T) {
	doc := genSpace(BatchSize+1500, 12, 1)
	lines := strings.SplitAfter(doc, "\n")
	steps := importSteps(t)

	bulk := newWorkspace(t)
	importText(t, bulk, doc)
	if steps["rows"] != 1 {
		t.Fatalf("the first import did not take the bulk path: steps %v", steps)
	}

	incr := newWorkspace(t)
	// one comment first (its own bulk import), then the whole document into a store with comments
	var first string
	for _, l := range lines {
		if strings.Contains(l, `"type":"comment"`) {
			first = l
			break
		}
	}
	importText(t, incr, strings.Join(lines[:3], "")+first)
	importText(t, incr, doc)
	if steps["rows"] != 2 {
		t.Fatalf("the second import did not take the incremental path: steps %v", steps)
	}

	if a, b := dump(t, bulk), dump(t, incr); a != b {
		t.Fatalf("bulk and incremental imports stored different rows")
	}
	a, b := answers(t, bulk), answers(t, incr)
	if a != b {
		t.Errorf("bulk and incremental answers differ:\n%s\n---\n%s", a, b)
	}
	for _, q := range []string{`"kumquat"`, `"稀有"`, `"ka"`, `"ss"`} {
		if !strings.Contains(a, `"ref":"comment:`) || !strings.Contains(a[strings.Index(a, q):], `"ref"`) {
			t.Errorf("no hits for %s", q)
		}
	}
	// the import left the search indexes' configuration as it found it
	st, err := Open(context.Background(), bulk)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	if err := st.db.QueryRow(`SELECT (SELECT count(*) FROM comments_fts_config WHERE k = 'hashsize') + (SELECT count(*) FROM comments_short_config WHERE k = 'hashsize')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("hashsize settings left behind: %d %v", n, err)
	}
}

// state is what a cancelled import must leave unchanged: every row, every answer, and the
// workspace's file names.
func state(t *testing.T, ws *workspace.Workspace) string {
	t.Helper()
	ents, err := os.ReadDir(ws.Root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ") + "\n" + dump(t, ws) + answers(t, ws)
}

// A cancelled import returns within 100 ms with ctx's error and leaves the space as it was: on
// the bulk path while rows are written and while the indexes are built, and on the incremental
// path mid-way.
func TestImportCancelled(t *testing.T) {
	doc := genSpace(50000, 40, 2) // an import of about a second or more
	small := genSpace(300, 12, 3)
	for _, c := range []struct {
		name  string
		first string // imported before, so the cancelled import is incremental
		at    string // cancel when this bulk step ends, else once half the bytes are written
	}{
		{name: "bulk rows"},
		{name: "bulk index", at: "rows"},
		{name: "incremental", first: small},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := newWorkspace(t)
			if c.first != "" {
				importText(t, ws, c.first)
			}
			st, err := Open(context.Background(), ws) // creates spaces.db in a fresh workspace
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			before := state(t, ws)
			// a busy machine can hold a thread off the CPU for longer than the bound: a slow answer
			// is tried again, an import that is not interrupted is slow every time
			var slow []time.Duration
			for len(slow) < 3 {
				took := cancelImport(t, ws, doc, c.at)
				if after := state(t, ws); after != before {
					t.Fatalf("a cancelled import changed the space")
				}
				if took <= 100*time.Millisecond {
					return
				}
				slow = append(slow, took)
			}
			t.Errorf("the import returned %v after it was cancelled", slow)
		})
	}
}

// cancelImport imports doc into ws and cancels it mid-way: 20 ms after bulk step at ends, or with
// at "" once half the bytes are written. It returns how long after the cancel the import returned.
func cancelImport(t *testing.T, ws *workspace.Workspace, doc, at string) time.Duration {
	t.Helper()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trigger := make(chan struct{}, 1)
	old := importStep
	importStep = func(name string) {
		if name == at {
			trigger <- struct{}{}
		}
	}
	defer func() { importStep = old }()
	progress := func(done, total int64) {
		if at == "" && done > total/2 {
			select {
			case trigger <- struct{}{}:
			default:
			}
		}
	}
	cancelledAt := make(chan time.Time, 1)
	go func() {
		<-trigger
		time.Sleep(20 * time.Millisecond) // inside a statement, not between two
		cancelledAt <- time.Now()
		cancel()
	}()
	_, err = st.Import(ctx, strings.NewReader(doc), int64(len(doc)), progress)
	ended := time.Now()
	if !errors.Is(err, context.Canceled) || errs.CodeOf(err) != errs.Cancelled {
		t.Fatalf("import ended with %v, not cancelled (the import was too quick?)", err)
	}
	return ended.Sub(<-cancelledAt)
}

// shortGramsMap is shortGrams as first written, with one map for every gram (one for the runs
// of three, and one for the buckets of runs of four, spelt with strconv): the bitmaps and tables
// of gramSet must give the same document.
func shortGramsMap(itext string) string {
	seen := map[[2]rune]bool{}
	tris := map[[3]rune]bool{}
	quads := map[uint32]bool{}
	var out []string
	prev := rune(-1)
	var run []rune
	for _, r := range itext {
		if unicode.IsSpace(r) {
			prev, run = -1, nil
			continue
		}
		if run = append(run, r); len(run) >= 4 {
			w := run[len(run)-4:]
			if h := quadHash(w[0], w[1], w[2], w[3]); !quads[h] {
				quads[h] = true
				d := strconv.FormatUint(uint64(h), 32)
				out = append(out, "_q"+strings.Repeat("0", 5-len(d))+d)
			}
		}
		if len(run) >= 3 {
			w := [3]rune(run[len(run)-3:])
			if !tris[w] {
				tris[w] = true
				out = append(out, gramTokenBytes(string(w[:])))
			}
		}
		if k := [2]rune{r, -1}; !seen[k] {
			seen[k] = true
			out = append(out, gramTokenBytes(string(r)))
		}
		if k := [2]rune{prev, r}; prev >= 0 && !seen[k] {
			seen[k] = true
			out = append(out, gramTokenBytes(string(prev)+string(r)))
		}
		prev = r
	}
	return strings.Join(out, " ")
}

// gramTokenBytes is the index token of a gram written out byte by byte, as appendToken's rule
// says: a-z, 0-9 and bytes of characters outside ASCII kept, any other byte as '_' and hex.
func gramTokenBytes(gram string) string {
	var out strings.Builder
	for _, c := range []byte(gram) {
		if c >= 0x80 || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			out.WriteByte(c)
		} else {
			out.WriteString("_" + hex.EncodeToString([]byte{c}))
		}
	}
	return out.String()
}

func TestShortGramsBitmaps(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	alphabet := []rune("ab z\t0~\x00\x7f\u0080éß稀有ログ\U0001F600")
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := r.IntN(40); n > 0; n-- {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := shortGrams(s), shortGramsMap(s); got != want {
			t.Fatalf("shortGrams(%q) = %q, want %q", s, got, want)
		}
	}
	// long texts of many distinct characters outside ASCII grow the table of other grams, and
	// short texts after them find it holding nothing of theirs
	for i := 0; i < 40; i++ {
		var b strings.Builder
		for n := r.IntN(3000); n > 0; n-- {
			if r.IntN(8) == 0 {
				b.WriteRune(alphabet[r.IntN(len(alphabet))])
			} else {
				b.WriteRune(0x4e00 + rune(r.IntN(300)))
			}
		}
		for _, s := range []string{b.String(), "稀有", "a稀"} {
			if got, want := shortGrams(s), shortGramsMap(s); got != want {
				t.Fatalf("shortGrams of a text of %d bytes differs", len(s))
			}
		}
	}
}

// parseLine's structural scan for the type gives what decoding the type gives, for good lines and
// bad, odd spellings included.
func TestParseLineShortcut(t *testing.T) {
	lines := []string{
		`{"type":"comment","id":1,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x"}`,
		`{"TYPE":"comment","id":1,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x"}`,
		`{"type":"task","id":1,"type":"comment","task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x"}`,
		`{"type":"comment","id":1,"type":"task","space":"s"}`,
		`{"typ\u0065":"space","id":"s","owner":"o"}`,
		`{"type":"sp\u0061ce","id":"s","owner":"o"}`,
		`{"type":"space","id":"s","owner":"o","type":null}`,
		`{"type":7,"id":"s","owner":"o"}`,
		`{"type":"space","id":"s","owner":"o"} x`,
		`{"type":"space","id":"s","owner":"o",}`,
		`{"type":"space","id":"s","owner":tru}`,
		`{"type":"space\x01","id":"s","owner":"o"}`,
		"{\"type\":\"space\xff\",\"id\":\"s\",\"owner\":\"o\"}",
		`{"type":"task","id":1,"space":"s","task_title":"t"}`,
		`{"type":"member","space":"s","user":""}`,
		`{"type":"comment","id":{"x":1},"task":2}`,
		`{"id":"s"}`,
		`[]`,
		`{"type":"space","id":"s","owner":"o","extra":[1,{"type":"task"}]}`,
	}
	for _, l := range lines {
		got, gerr := parseLine([]byte(l))
		want, werr := parseLineDecoded([]byte(l))
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", l, got, gerr, want, werr)
		}
	}
}

// plainCommentLines are comment lines plainComment takes and lines it must leave to
// encoding/json: other spellings, escapes, control characters, bad UTF-8, numbers that are not
// int64 integers, nulls, repeated keys, attachments, malformed objects.
var plainCommentLines = []string{
	`{"type":"comment","id":1,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x 稀有"}`,
	`{ "body" : "b" , "id" : "c-1" , "task" : -0 , "kind":"progress","progress_type":"tool","tool_name":"Bash","created_at":"t", "type":"comment" }`,
	`{"type":"comment","id":9223372036854775807,"task":-9223372036854775808}`,
	`{"type":"comment","id":9223372036854775808,"task":1}`,
	`{"type":"comment","id":01,"task":1}`,
	`{"type":"comment","id":1.0,"task":1}`,
	`{"type":"comment","id":1e3,"task":1}`,
	`{"type":"comment","id":-,"task":1}`,
	`{"type":"comment","id":1x,"task":1}`,
	`{"type":"comment","id":null,"task":1}`,
	`{"type":"comment","id":1,"body":null}`,
	`{"type":"comment","id":1,"body":7}`,
	`{"type":"comment","id":1,"body":"a\nb"}`,
	`{"type":"comment","id":1,"body":"a\u00e9"}`,
	"{\"type\":\"comment\",\"id\":1,\"body\":\"a\x01\"}",
	"{\"type\":\"comment\",\"id\":1,\"body\":\"a\xff\"}",
	`{"type":"comment","id":1,"Body":"x"}`,
	`{"type":"comment","id":1,"body":"x","body":"y"}`,
	`{"type":"comment","id":1,"attachments":["a"]}`,
	`{"type":"comment","id":1,"extra":true}`,
	`{"type":"comment","id":1,}`,
	`{"type":"comment","id":1} x`,
	`{"type":"comment","id":1`,
	`{}`,
}

// plainComment gives exactly the comment encoding/json gives, for every line it takes.
func checkPlainComment(t *testing.T, line string) bool {
	t.Helper()
	got, ok := plainComment([]byte(line))
	if !ok {
		return false
	}
	var want Comment
	if err := json.Unmarshal([]byte(line), &want); err != nil {
		t.Fatalf("plainComment took %q, which encoding/json refuses: %v", line, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plainComment(%q) = %+v, encoding/json gives %+v", line, got, want)
	}
	return true
}

func TestPlainComment(t *testing.T) {
	taken := 0
	for _, l := range plainCommentLines {
		if checkPlainComment(t, l) {
			taken++
		}
	}
	if taken != 4 { // the first three and {}
		t.Errorf("plainComment took %d of the lines, want the 4 plain ones", taken)
	}
	// the lines of a generated import are plain
	for _, l := range strings.Split(genSpace(200, 12, 9), "\n") {
		if strings.Contains(l, `"type":"comment"`) && !checkPlainComment(t, l) {
			t.Errorf("plainComment did not take %s", l)
		}
	}
}

func FuzzPlainComment(f *testing.F) {
	for _, l := range plainCommentLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) { checkPlainComment(t, line) })
}

// Lines parsed on several goroutines are written and reported in input order: the last of a
// repeated id wins, rows are numbered in order of first appearance, and bad lines are listed
// by number in order, across many chunks.
func TestImportKeepsInputOrder(t *testing.T) {
	const n, ids = 5 * chunkLines * parseWorkers, 500
	var b strings.Builder
	b.WriteString(`{"type":"space","id":"s","owner":"o"}` + "\n" + `{"type":"task","id":1,"space":"s","title":"t"}` + "\n")
	line := 2
	var wantBad []int
	var order []string          // ids in order of first appearance
	last := map[string]string{} // id → body of its last line
	for i := 0; i < n; i++ {
		line++
		if i%37 == 5 {
			b.WriteString("{oops\n")
			wantBad = append(wantBad, line)
			continue
		}
		id := fmt.Sprint(i % ids)
		if _, ok := last[id]; !ok {
			order = append(order, id)
		}
		last[id] = fmt.Sprintf("v%d", i)
		fmt.Fprintf(&b, `{"type":"comment","id":%d,"task":1,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"v%d"}`+"\n", i%ids, i)
	}
	for _, empty := range []bool{true, false} {
		ws := newWorkspace(t)
		if !empty {
			importText(t, ws, `{"type":"space","id":"s","owner":"o"}`+"\n"+`{"type":"task","id":1,"space":"s","title":"t"}`+"\n"+
				`{"type":"comment","id":"first","task":1,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x"}`)
		}
		rep := importText(t, ws, b.String())
		var gotBad []int
		for _, bl := range rep.BadLines {
			gotBad = append(gotBad, bl.Line)
		}
		if !reflect.DeepEqual(gotBad, wantBad) {
			t.Fatalf("bad lines %v, want %v", gotBad, wantBad)
		}
		st, err := Open(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := st.db.Query(`SELECT id, body FROM comments WHERE id <> 'first' ORDER BY rid`)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id, body string
			if err := rows.Scan(&id, &body); err != nil {
				t.Fatal(err)
			}
			if body != last[id] {
				t.Fatalf("comment %s: body %s, want %s", id, body, last[id])
			}
			got = append(got, id)
		}
		rows.Close()
		st.Close()
		if !reflect.DeepEqual(got, order) {
			t.Fatalf("rows in order %v, want %v", got, order)
		}
	}
}

// hugeLine is a reader of one comment line of n bytes, made as it is read.
type hugeLine struct {
	head, tail []byte
	n, off     int
}

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.off >= h.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && h.off < h.n {
		switch {
		case h.off < len(h.head):
			p[k] = h.head[h.off]
		case h.off >= h.n-len(h.tail):
			p[k] = h.tail[h.off-(h.n-len(h.tail))]
		default:
			p[k] = 'a'
		}
		k++
		h.off++
	}
	return k, nil
}

// A line longer than the store's maxLine is a bad line, named by its number and read through
// without being held: the lines around it load, and memory does not grow with the line.
func TestImportLongLineBounded(t *testing.T) {
	ws := newWorkspace(t)
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.maxLine = 1 << 20
	before := `{"type":"space","id":"s","owner":"o"}` + "\n" + `{"type":"task","id":2,"space":"s","title":"t"}` + "\n"
	after := `{"type":"comment","id":9,"task":2,"kind":"request","author":"a","created_at":"2026-01-01T00:00:00Z","body":"after the long line"}` + "\n"
	long := &hugeLine{head: []byte(`{"type":"comment","id":8,"task":2,"kind":"request","author":"a","created_at":"2026-01-01T00:00:00Z","body":"`), tail: []byte("\"}\n"), n: 64 << 20}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	rep, err := st.Import(context.Background(), io.MultiReader(strings.NewReader(before), long, strings.NewReader(after)), -1, nil)
	runtime.ReadMemStats(&m1)
	if err != nil || rep.Comments != 1 || len(rep.BadLines) != 1 || rep.BadLines[0].Line != 3 || !strings.Contains(rep.BadLines[0].Message, "longer than 1 MiB") {
		t.Fatalf("report %+v, error %v", rep, err)
	}
	if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 24<<20 {
		t.Errorf("a 64 MiB line cost %d MiB of allocations (over 24 MiB with a 1 MiB line cap)", grew>>20)
	}
}
