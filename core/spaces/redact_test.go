package spaces

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/textmatch"
)

func TestTextsKeepCaseAndRedact(t *testing.T) {
	r := redact.New()
	cases := []struct {
		body          string
		att           []string
		display, want string
	}{
		{"  Hello\n\tＷＯＲＬＤ  ", []string{"a.png", "B.PDF"}, "Hello ＷＯＲＬＤ a.png B.PDF", "hello world a.png b.pdf"},
		{"認証まわりは touch せず、UI だけ差し替えました", nil, "認証まわりは touch せず、UI だけ差し替えました", "認証まわりは touch せず、ui だけ差し替えました"},
		{"# DB_PASSWORD=hunter2xyz\nKeep UI", nil, "# DB_PASSWORD=[REDACTED] Keep UI", "# db_password=[redacted] keep ui"},
		{"ＤＢ＿ＰＡＳＳＷＯＲＤ＝ｈｕｎｔｅｒ２ｘｙｚ", nil, "ＤＢ＿ＰＡＳＳＷＯＲＤ＝[REDACTED]", "db_password=[redacted]"},
	}
	for _, c := range cases {
		d, i, ok := Texts(r, "result", "", "", c.body, c.att)
		if !ok || d != c.display || i != c.want {
			t.Errorf("Texts(%q) = %q, %q, want %q, %q", c.body, d, i, c.display, c.want)
		}
	}
	// the placeholder folds to a text that no rule takes for a secret, and a search for it shows
	// it as it was written
	d, i, _ := Texts(r, "result", "", "", "token: abcdef123456 and password=\"x y z\"", nil)
	if r.Text(i) != i || !strings.Contains(i, textmatch.Fold(redact.Placeholder)) {
		t.Errorf("index text %q: the folded placeholder is redacted again or missing", i)
	}
	if got := Excerpt(d, SplitQuery("[REDACTED]")); got != "token: [REDACTED] and password=\"[REDACTED]\"" {
		t.Errorf("excerpt %q", got)
	}
}

// leakedSecrets are the secrets a space search used to find by a fragment and show in excerpts
// and titles, each in the text that carried it.
var leakedSecrets = []struct{ text, secret string }{
	{"# DB_PASSWORD=%s", "hunter2xyzQ"},
	{"POSTGRES_PASSWORD=%s docker compose up", "Pg7Secret99x"},
	{"API_TOKEN=%s", "a1b2c3d4e5f60718293a"},
	{"export AWS_SESSION_TOKEN=%s", "FwoGZXIvYXdzEJr8EXAMPLEtoken0123"},
	{"AZURE_CLIENT_SECRET=%s", "abc8Q~Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE"},
	{"SECRET_KEY=%s", "django-insecure-q8w7e6r5t4y3"},
	{"JWT_SECRET=%s", "jwtSigningSecret2026"},
	{"HEROKU_API_KEY=%s", "01234567-89ab-4cde-af01-23456789abcd"},
	{"cache at redis://:%s@cache.internal:6379", "RedisPw0rd77"},
	{"db at postgres://app:%s@db.internal/app", "p@ssw0rd@2026x"},
	{"-----BEGIN PGP PRIVATE KEY BLOCK-----\n%s\n-----END PGP PRIVATE KEY BLOCK-----", "lQVYBGXpgpKeyMaterial0123456789"},
	{"socket mode %s", "xapp-1-A0123456789-1234567890123-deadbeefcafe0123456789"},
	{"DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=%s;EndpointSuffix=core.windows.net", "c3RvcmFnZUFjY291bnRLZXkwMTIzNDU2Nzg5=="},
	{`{"SecretAccessKey": "%s"}`, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{`{"SessionToken": "%s"}`, "IQoJb3JpZ2luX2VjEXAMPLESESSION"},
	{`{"auths": {"ghcr.io": {"auth": "%s"}}}`, "ZGVwbG95LWJvdDpnaHBfc2VjcmV0MTIzNDU2"},
	{"//registry.npmjs.org/:_authToken=%s", "9f8e7d6c-5b4a-4321-8fed-cba987654321"},
	{"Authorization: Basic %s", "YWxpY2U6d29uZGVybGFuZDIwMjY="},
	{"the service login is %s (base64)", "c3ZjLmRlcGxveTpUb3BTZWNyZXQ5OQ=="},
}

// TestSecretsNeverInResults imports comments and task titles carrying secrets: no fragment of a
// secret finds anything, and the hits found by the words around them show excerpts and titles in
// their original case with the secrets redacted.
func TestSecretsNeverInResults(t *testing.T) {
	ws := newWorkspace(t)
	var b strings.Builder
	b.WriteString(`{"type": "space", "id": "s", "owner": "o"}` + "\n")
	b.WriteString(`{"type": "task", "id": "cur", "space": "s", "title": "current"}` + "\n")
	for i, c := range leakedSecrets {
		text := strings.Replace(c.text, "%s", c.secret, 1)
		fmt.Fprintf(&b, `{"type": "task", "id": "t%d", "space": "s", "title": %q}`+"\n", i, fmt.Sprintf("Case%d title ", i)+text)
		fmt.Fprintf(&b, `{"type": "comment", "id": "c%d", "task": "t%d", "kind": "result", "author": "a", "created_at": "2026-01-01T00:00:%02dZ", "body": %q}`+"\n",
			i, i, i, fmt.Sprintf("Marker%02dX UI ", i)+text)
	}
	importText(t, ws, b.String())
	caller := Caller{User: "o", Task: "cur"}
	for i, c := range leakedSecrets {
		var frags []string
		for _, w := range strings.Fields(c.secret) {
			for j := 0; j+8 <= len(w); j++ {
				frags = append(frags, w[j:j+8])
			}
		}
		for _, frag := range frags {
			if got := refs(search(t, ws, caller, SearchInput{Query: frag})); len(got) > 0 {
				t.Errorf("%q: fragment %q finds %v", c.secret, frag, got)
				break
			}
		}
		a := search(t, ws, caller, SearchInput{Query: fmt.Sprintf("marker%02dx", i)})
		if len(a.Search.Hits) != 1 {
			t.Fatalf("marker%d: %v", i, refs(a))
		}
		h := a.Search.Hits[0]
		if !strings.Contains(h.Excerpt, fmt.Sprintf("Marker%02dX UI", i)) || !strings.Contains(h.Excerpt, redact.Placeholder) {
			t.Errorf("excerpt %q: want the original case and %s", h.Excerpt, redact.Placeholder)
		}
		if !strings.HasPrefix(h.TaskTitle, fmt.Sprintf("Case%d title", i)) || !strings.Contains(h.TaskTitle, redact.Placeholder) {
			t.Errorf("title %q: want the original case and %s", h.TaskTitle, redact.Placeholder)
		}
		ar := search(t, ws, caller, SearchInput{Around: h.Ref})
		for _, frag := range frags {
			for _, shown := range []string{h.Excerpt, h.TaskTitle, ar.Around.TaskTitle} {
				if strings.Contains(textmatch.Fold(shown), textmatch.Fold(frag)) {
					t.Errorf("%q: fragment %q shown in %q", c.secret, frag, shown)
				}
			}
		}
	}
}

// TestExcerptOriginalCase: an excerpt keeps the original case ("UI" stays "UI").
func TestExcerptOriginalCase(t *testing.T) {
	ws := fixtureWorkspace(t)
	a := search(t, ws, bob, SearchInput{Query: "ui だけ"})
	if len(a.Search.Hits) != 1 || !strings.Contains(a.Search.Hits[0].Excerpt, "認証まわりは touch せず、UI だけ差し替えました") {
		t.Errorf("hits %+v", a.Search.Hits)
	}
}

// TestMigrationFillsDisplayText: a file of schema version 2 has no display text and an index
// text redacted by older rules; opening it fills the display texts and titles and redacts the
// index again.
func TestMigrationFillsDisplayText(t *testing.T) {
	ws := newWorkspace(t)
	writeAtVersion(t, ws, 2, `INSERT INTO spaces VALUES ('s', '', 'o');
		INSERT INTO tasks(id, space, title) VALUES ('1', 's', 'cur'), ('2', 's', 'Deploy with JWT_SECRET=jwtSigningSecret2026');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext) VALUES
			('7', 'n7', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, 'Keep the UI; DB_PASSWORD=hunter2xyzQ', 'keep the ui; db_password=hunter2xyzq');
		INSERT INTO comments_fts(rowid, itext) SELECT rid, itext FROM comments;`)
	caller := Caller{User: "o", Task: "1"}
	if got := refs(search(t, ws, caller, SearchInput{Query: "hunter2"})); len(got) != 0 {
		t.Errorf("old index text still findable after migration: %v", got)
	}
	a := search(t, ws, caller, SearchInput{Query: "keep"})
	if len(a.Search.Hits) != 1 {
		t.Fatalf("hits %v", refs(a))
	}
	if h := a.Search.Hits[0]; h.Excerpt != "Keep the UI; DB_PASSWORD=[REDACTED]" || h.TaskTitle != "Deploy with JWT_SECRET=[REDACTED]" {
		t.Errorf("hit %+v", h)
	}
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(); err != nil {
		t.Error(err)
	}
}

// An author is shown in every hit and neighbour: a secret written there is hidden as in a body.
func TestAuthorIsRedacted(t *testing.T) {
	ws := newWorkspace(t)
	secret := "ghp_" + strings.Repeat("aB3dE5", 6)
	importText(t, ws, `{"type": "space", "id": "s", "owner": "o"}
{"type": "task", "id": "cur", "space": "s", "title": "current"}
{"type": "task", "id": "t1", "space": "s", "title": "other"}
{"type": "comment", "id": "c1", "task": "t1", "kind": "result", "author": "bot `+secret+`", "created_at": "2026-01-01T00:00:00Z", "body": "MarkerAuthor done"}
`)
	a := search(t, ws, Caller{User: "o", Task: "cur"}, SearchInput{Query: "markerauthor"})
	if len(a.Search.Hits) != 1 {
		t.Fatalf("hits: %v", refs(a))
	}
	if h := a.Search.Hits[0]; strings.Contains(h.Author, secret[4:12]) || h.Author != "bot "+redact.Placeholder {
		t.Errorf("author shown as %q", h.Author)
	}
	ar := search(t, ws, Caller{User: "o", Task: "cur"}, SearchInput{Around: "comment:c1"})
	for _, e := range ar.Around.Comments {
		if strings.Contains(e.Author, secret[4:12]) {
			t.Errorf("around shows the author %q", e.Author)
		}
	}
}
