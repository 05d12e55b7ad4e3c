package pgstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/spaces"
)

// TestRedactAgainOnOpen: a store whose texts an earlier build redacted with older rules (here:
// written raw, and its redaction version set back to 0) is redacted again when this build opens
// it: the secret is neither found nor shown, in comments, authors, attachment names and task
// titles; the rest of the text is still found; the version is recorded, so the next open does
// nothing.
func TestRedactAgainOnOpen(t *testing.T) {
	st, dsn := openTest(t)
	ctx := context.Background()
	corpus := `{"type":"space","id":"s","name":"S","owner":"alice"}
{"type":"task","id":"1","space":"s","title":"mine","status":"open","created_at":"2026-01-01T00:00:00Z"}
{"type":"task","id":"2","space":"s","title":"the amharic box","status":"open","created_at":"2026-01-01T00:00:00Z"}
{"type":"comment","id":"5","task":"2","kind":"request","author":"bob","created_at":"2026-01-02T00:00:00Z","body":"for the amharic box","attachments":["notes.txt"]}
{"type":"comment","id":"6","task":"2","kind":"progress","progress_type":"debug","author":"bob","created_at":"2026-01-02T00:00:00Z","body":"not indexed"}
`
	if _, err := st.Import(ctx, strings.NewReader(corpus), 0, nil); err != nil {
		t.Fatal(err)
	}
	secret := "CJ7nrdlaVCJN~o"
	raw := "የሰርቨሩ የይለፍ ቃል፦ " + secret + " for the amharic box"
	// what a build without today's rules would have stored
	for _, q := range []string{`UPDATE comments SET body = convert_to($1, 'UTF8'), itext = lower($1), dtext = convert_to($1, 'UTF8'),
		grams = NULL, author = convert_to('pinalitan ko na ang password, AayPSC1kia1~FrymIc na', 'UTF8'),
		attachments = '["ang password ay Kx8mQ2vL9pRz7"]' WHERE id = '5'`,
		`UPDATE tasks SET title = $1, dtitle = convert_to($1, 'UTF8') WHERE id = '2'`,
		`UPDATE redaction SET version = 0 WHERE $1 <> ''`} {
		if _, err := st.pool.Exec(ctx, q, raw); err != nil {
			t.Fatal(err)
		}
	}
	st2, err := Open(ctx, dsn, Options{Wait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	caller := spaces.Caller{User: "alice", Task: "1"}
	for _, q := range []string{"cj7nrdlavcjn", "aaypsc1kia1", "kx8mq2vl9prz7"} {
		a, err := st2.Search(ctx, caller, spaces.SearchInput{Query: q})
		if err != nil || len(a.Search.Hits) != 0 {
			t.Errorf("%s after redacting again: %+v %v", q, a.Search.Hits, err)
		}
	}
	a, err := st2.Search(ctx, caller, spaces.SearchInput{Query: "amharic box"})
	if err != nil || len(a.Search.Hits) != 1 {
		t.Fatalf("amharic box: %+v %v", a.Search.Hits, err)
	}
	h := a.Search.Hits[0]
	var att, title string
	if err := st2.pool.QueryRow(ctx, `SELECT attachments, title FROM comments c JOIN tasks t ON t.id = c.task WHERE c.id = '5'`).Scan(&att, &title); err != nil {
		t.Fatal(err)
	}
	for _, shown := range []string{h.Excerpt, h.Author, h.TaskTitle, att, title} {
		for _, frag := range []string{"CJ7nrdla", "AayPSC1k", "Kx8mQ2vL"} {
			if strings.Contains(shown, frag) {
				t.Errorf("%q shows %s", shown, frag)
			}
		}
	}
	if !strings.Contains(h.Excerpt, "[REDACTED]") {
		t.Errorf("excerpt %q", h.Excerpt)
	}
	var v, grams, nulls int
	if err := st2.pool.QueryRow(ctx, `SELECT (SELECT version FROM redaction), (SELECT count(*) FROM comments WHERE grams IS NOT NULL),
		(SELECT count(*) FROM comments WHERE id = '6' AND itext IS NULL AND dtext IS NULL AND grams IS NULL)`).Scan(&v, &grams, &nulls); err != nil {
		t.Fatal(err)
	}
	if v != redactionVersion || grams != 1 || nulls != 1 {
		t.Errorf("version %d, comments with tokens %d, unindexed left unindexed %d", v, grams, nulls)
	}
}
