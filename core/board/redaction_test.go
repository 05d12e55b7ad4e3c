package board

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// planter makes fake secrets of two kinds, a GitHub token ("ghp_" and 36 random letters and
// digits) and a password after "password=", and remembers them to look for afterwards.
type planter struct {
	rng     *rand.Rand
	secrets []string
}

func newPlanter(seed uint64) *planter { return &planter{rng: rand.New(rand.NewPCG(seed, 7))} }

func (p *planter) alnum(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[p.rng.IntN(len(chars))]
	}
	// a letter of each case and a digit, as a real one has
	b[0], b[1], b[2] = 'Q', 'z', '7'
	return string(b)
}

func (p *planter) token() string {
	t := "ghp_" + p.alnum(36)
	p.secrets = append(p.secrets, t)
	return t
}

func (p *planter) password() string {
	v := p.alnum(16)
	p.secrets = append(p.secrets, v)
	return v
}

// text is ordinary words around both kinds of secret; want is the same text redacted.
func (p *planter) text(label string) string {
	return fmt.Sprintf("%s: the token %s, and password=%s for staging", label, p.token(), p.password())
}

func wantText(label string) string {
	return fmt.Sprintf("%s: the token [REDACTED], and password=[REDACTED] for staging", label)
}

// plantedBoard is a board with a secret in every text field that is searched or shown (card c1,
// its project p1, memory m1), and card c2 of ordinary text only.
func plantedBoard(p *planter) *ProjectBoard {
	at := "2026-10-20T08:00:00Z"
	return &ProjectBoard{
		Project: Project{ID: "p1", Title: p.text("project title"), Memory: true},
		Cards: []Card{
			{ID: "c1", Project: "p1", Title: p.text("card title"), Description: p.text("card description"),
				Type: p.text("card type"), Tags: []string{p.token(), "password=" + p.password(), "ordinary"},
				Status: "In Progress", UpdatedAt: at, WorkspaceID: "w1"},
			{ID: "c2", Project: "p1", Title: "Storage migration", Description: "Move the links to SQLite <safely> & quickly",
				Type: "task", Tags: []string{"storage", "迁移"}, Status: "Todo", UpdatedAt: at},
		},
		Events: []Event{
			{ID: "e1", Card: "c1", Type: "status_changed", Note: p.text("status note"), Actor: p.text("actor"), At: at},
			{ID: "e2", Card: "c1", Type: "progress_reported", Note: p.text("progress note"), Actor: "alice", At: at},
			{ID: "e3", Card: "c1", Type: "commented", Note: p.text("comment"), Actor: "bob", At: at},
		},
		Workpads: []Workpad{
			{ID: "w1", Card: "c1", Kind: "acceptance", Description: p.text("acceptance"), At: at},
			{ID: "w2", Card: "c1", Kind: "check", Description: p.text("check"), Command: p.text("command"), Evidence: p.text("evidence"), At: at},
			{ID: "w3", Card: "c1", Kind: "question", Description: p.text("question"), At: at},
		},
		Ideas: []Idea{
			{ID: "d1", Card: "c1", Title: p.text("idea title"), Detail: p.text("idea detail"), Rationale: p.text("rationale"),
				Context: p.text("context"), Status: "open", At: at},
		},
		Artifacts: []Artifact{
			{ID: "a1", Card: "c1", Title: p.text("artifact title"), Note: p.text("artifact note"),
				Target: "https://deploy:" + p.password() + "@git.example.com/tinylink.git", ExternalKey: p.text("key"), At: at},
		},
		Summaries: map[string][]Summary{
			"c1": {
				{State: p.text("old state"), Target: p.text("old target"), Recap: p.text("old recap"), Next: p.text("old next"), At: "2026-10-19T08:00:00Z"},
				{State: p.text("state"), Target: p.text("target"), Recap: p.text("recap"), Next: p.text("next"), At: at},
			},
		},
		Memory: []MemoryEntry{
			{ID: "m1", Project: "p1", Kind: p.text("kind"), Title: p.text("memory title"), Body: p.text("memory body"),
				Keywords: []string{p.token(), "password=" + p.password()}, Tags: []string{p.token()}, Status: "active"},
		},
	}
}

// noFragment fails when text holds 8 characters in a row of any secret.
func noFragment(t *testing.T, where string, text []byte, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if bytes.Contains(text, []byte(s[i:i+8])) {
				t.Errorf("%s shows %q of the secret %q", where, s[i:i+8], s)
				break
			}
		}
	}
}

func asJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkRedacted looks for the secrets in everything the board stores and every answer it gives:
// the files, the snapshot, searches for each 8-character fragment (full and agent), broad
// searches' hits and snippets, the project list, every card read and the export.
func checkRedacted(t *testing.T, ws *workspace.Workspace, secrets []string) {
	t.Helper()
	ix := load(t, ws)
	for _, rel := range []string{DBPath, SummariesPath, MemoryPath} {
		data, err := os.ReadFile(ws.Path(rel))
		if err != nil {
			t.Fatal(err)
		}
		noFragment(t, rel, data, secrets)
	}
	snap, _ := snapshotPath(ws)
	if data, err := os.ReadFile(snap); err != nil {
		t.Errorf("no snapshot: %v", err)
	} else {
		noFragment(t, "the snapshot", data, secrets)
	}
	cfg := workspace.DefaultConfig().Board
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			frag := s[i : i+8]
			if res := search(t, ix, frag); len(res.Cards)+len(res.Memory) > 0 {
				t.Errorf("search %q (of %q) finds %s", frag, s, asJSON(t, res))
			}
			res, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c2", Query: frag})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Cards) > 0 {
				t.Errorf("agent search %q (of %q) finds %s", frag, s, asJSON(t, res))
			}
		}
	}
	for _, q := range []string{"token", "password", "staging", "REDACTED", "git.example.com", "ordinary"} {
		res := search(t, ix, q)
		if len(res.Cards) == 0 {
			t.Errorf("search %q finds nothing", q)
		}
		noFragment(t, "search "+q, asJSON(t, res), secrets)
		ares, err := ix.AgentSearch(context.Background(), cfg, AgentInput{Card: "c2", Query: q})
		if err != nil {
			t.Fatal(err)
		}
		noFragment(t, "agent search "+q, asJSON(t, ares), secrets)
	}
	list, err := ListProjects(context.Background(), ws, "c1")
	if err != nil {
		t.Fatal(err)
	}
	noFragment(t, "the project list", asJSON(t, list), secrets)
	for _, id := range []string{"c1", "c2"} {
		d, err := ReadCard(context.Background(), ws, id)
		if err != nil {
			t.Fatal(err)
		}
		noFragment(t, "card "+id, asJSON(t, d), secrets)
	}
	var out bytes.Buffer
	if _, err := Export(context.Background(), ws, &out); err != nil {
		t.Fatal(err)
	}
	noFragment(t, "the export", out.Bytes(), secrets)
}

// checkTexts compares what a card read shows with the planted texts redacted, and the ordinary
// card with what was given.
func checkTexts(t *testing.T, ws *workspace.Workspace) {
	t.Helper()
	d, err := ReadCard(context.Background(), ws, "c1")
	if err != nil {
		t.Fatal(err)
	}
	c := d.Card
	for _, f := range []struct{ got, want string }{
		{c.ProjectTitle, wantText("project title")}, {c.Title, wantText("card title")},
		{c.Description, wantText("card description")}, {c.Type, wantText("card type")},
		{strings.Join(c.Tags, " "), "[REDACTED] password=[REDACTED] ordinary"},
		{d.Notes[0].Note + "|" + d.Notes[1].Note, wantText("progress note") + "|" + wantText("status note")},
		{d.Workpads[1].Command, wantText("command")}, {d.Workpads[1].Evidence, wantText("evidence")},
		{d.Ideas[0].Context, wantText("context")},
		{d.Artifacts[0].Target, "https://deploy:[REDACTED]@git.example.com/tinylink.git"},
		{d.Artifacts[0].ExternalKey, wantText("key")},
		{d.Summary.Next, wantText("next")}, {c.Status, "In Progress"}, {c.WorkspaceID, "w1"},
	} {
		if f.got != f.want {
			t.Errorf("card c1 shows %q, want %q", f.got, f.want)
		}
	}
	d, err = ReadCard(context.Background(), ws, "c2")
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Card; c.Title != "Storage migration" || c.Description != "Move the links to SQLite <safely> & quickly" ||
		c.Type != "task" || strings.Join(c.Tags, ",") != "storage,迁移" {
		t.Errorf("ordinary card changed: %+v", c)
	}
	res := search(t, load(t, ws), "迁移", inProject("p1"))
	if ids := cardIDs(res); len(ids) != 1 || ids[0] != "c2" {
		t.Errorf("search 迁移 = %v, want c2", ids)
	}
	res = search(t, load(t, ws), "password=[REDACTED]", sources(SourceMemory))
	if len(res.Memory) != 1 || res.Memory[0].Kind != wantText("kind") {
		t.Errorf("memory: %s", asJSON(t, res.Memory))
	}
}

// TestRedactedAtImport: a board imported whole has every secret redacted in what it stores and
// every answer, and ordinary text as given.
func TestRedactedAtImport(t *testing.T) {
	p := newPlanter(1)
	doc, err := plantedBoard(p).Document()
	if err != nil {
		t.Fatal(err)
	}
	ws := newBoard(t, doc)
	checkRedacted(t, ws, p.secrets)
	checkTexts(t, ws)
	// The export imports again as the same board, no secret to find.
	var out bytes.Buffer
	if _, err := Export(context.Background(), ws, &out); err != nil {
		t.Fatal(err)
	}
	again := newBoard(t, out.Bytes())
	checkRedacted(t, again, p.secrets)
	checkTexts(t, again)
}

// TestRedactedAtProjectImport: the same for one project imported beside another (the path of
// `cairn board import --from`), and the other project is kept as it was.
func TestRedactedAtProjectImport(t *testing.T) {
	ws := newBoard(t, nil) // the fixture's p1 is replaced, p2..p4 kept
	before, err := ReadCard(context.Background(), ws, "c20")
	if err != nil {
		t.Fatal(err)
	}
	p := newPlanter(2)
	if _, err := ImportProject(context.Background(), ws, plantedBoard(p)); err != nil {
		t.Fatal(err)
	}
	checkRedacted(t, ws, p.secrets)
	checkTexts(t, ws)
	after, err := ReadCard(context.Background(), ws, "c20")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(asJSON(t, before), asJSON(t, after)) {
		t.Errorf("another project's card changed:\n%s\n%s", asJSON(t, before), asJSON(t, after))
	}
}

// oldBoard writes a board as a build before redaction did: texts as given, no meta 'redaction',
// and a snapshot of the format before (version 2) built from those texts.
func oldBoard(t *testing.T, pb *ProjectBoard) *workspace.Workspace {
	t.Helper()
	ctx := context.Background()
	ws := workspacetest.New(t)
	doc, err := pb.Document()
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseDocument(ctx, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replaceBoard(ctx, ws, b, 3); err != nil {
		t.Fatal(err)
	}
	db, err := openDB(ws.Path(DBPath), ws.Wait, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM meta WHERE key = 'redaction'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	stamp, err := currentStamp(ws)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := loadFresh(ctx, ws, stamp, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := encodeSnapshot(ix)
	binary.LittleEndian.PutUint32(snap[len(snapshotMagic):], 2)
	path, _ := snapshotPath(ws)
	if err := os.WriteFile(path, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func redactionMark(t *testing.T, ws *workspace.Workspace) (int64, bool) {
	t.Helper()
	s, redacted, err := stampAndRedaction(ws)
	if err != nil {
		t.Fatal(err)
	}
	return s.Revision, redacted
}

// TestOldBoardUpgraded: a board an earlier build wrote is redacted and published again as the
// next revision by whichever reader comes first (a search's load, a card read, an export, a
// project list, a project import), and shows no secret after.
func TestOldBoardUpgraded(t *testing.T) {
	for _, first := range []string{"load", "card", "export", "projects", "project import"} {
		t.Run(first, func(t *testing.T) {
			p := newPlanter(3)
			ws := oldBoard(t, plantedBoard(p))
			data, _ := os.ReadFile(ws.Path(DBPath))
			if !bytes.Contains(data, []byte(p.secrets[0])) {
				t.Fatal("the old board does not hold the secret as given")
			}
			if rev, redacted := redactionMark(t, ws); rev != 3 || redacted {
				t.Fatalf("old board: revision %d, redacted %v", rev, redacted)
			}
			var err error
			switch first {
			case "load":
				_, err = Load(context.Background(), ws)
			case "card":
				var d *CardDetail
				d, err = ReadCard(context.Background(), ws, "c1")
				if err == nil {
					noFragment(t, "the first card read", asJSON(t, d), p.secrets)
				}
			case "export":
				var out bytes.Buffer
				_, err = Export(context.Background(), ws, &out)
				noFragment(t, "the first export", out.Bytes(), p.secrets)
			case "projects":
				_, err = ListProjects(context.Background(), ws, "")
			case "project import":
				_, err = ImportProject(context.Background(), ws, &ProjectBoard{
					Project: Project{ID: "p2", Title: "Other", Memory: true},
					Cards:   []Card{{ID: "c9", Project: "p2", Title: "Other card", Status: "Todo", UpdatedAt: "2026-10-20T08:00:00Z"}},
				})
			}
			if err != nil {
				t.Fatal(err)
			}
			if rev, redacted := redactionMark(t, ws); rev != 4 || !redacted {
				t.Errorf("after the upgrade: revision %d, redacted %v; want 4, true", rev, redacted)
			}
			checkRedacted(t, ws, p.secrets)
			checkTexts(t, ws)
			if rev, _ := redactionMark(t, ws); rev != 4 {
				t.Errorf("the upgrade ran again: revision %d", rev)
			}
		})
	}
}

// TestOldBoardRedactedWhenNotUpgraded: an earlier build's board that cannot be upgraded (here its
// summaries file is damaged, so it cannot be written again whole) is redacted as it is read.
func TestOldBoardRedactedWhenNotUpgraded(t *testing.T) {
	p := newPlanter(4)
	ws := oldBoard(t, plantedBoard(p))
	if err := os.WriteFile(ws.Path(SummariesPath), []byte("{damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := load(t, ws)
	if !ix.partial.summaries {
		t.Error("damaged summaries are not reported")
	}
	for _, s := range p.secrets {
		if res := search(t, ix, s[4:12]); len(res.Cards)+len(res.Memory) > 0 {
			t.Errorf("search %q finds %s", s[4:12], asJSON(t, res))
		}
	}
	noFragment(t, "search", asJSON(t, search(t, ix, "staging")), p.secrets)
	snap, _ := snapshotPath(ws)
	data, _ := os.ReadFile(snap)
	noFragment(t, "the snapshot", data, p.secrets)
	// the snapshot written from the redacted load is what the next search reads
	if ix := load(t, ws); ix.snap == (mapRange{}) && len(data) > 0 {
		t.Log("the second load did not map the snapshot")
	}
	d, err := ReadCard(context.Background(), ws, "c1")
	if err != nil {
		t.Fatal(err)
	}
	noFragment(t, "card c1", asJSON(t, d), p.secrets)
	if d.Card.Title != wantText("card title") {
		t.Errorf("card title %q", d.Card.Title)
	}
	list, err := ListProjects(context.Background(), ws, "")
	if err != nil {
		t.Fatal(err)
	}
	noFragment(t, "the project list", asJSON(t, list), p.secrets)
	if _, redacted := redactionMark(t, ws); redacted {
		t.Error("a board that could not be written again is marked redacted")
	}
	// Once the file is readable the next reader upgrades the board.
	os.Remove(ws.Path(SummariesPath))
	load(t, ws)
	if _, redacted := redactionMark(t, ws); !redacted {
		t.Error("not upgraded once it could be")
	}
	for _, rel := range []string{DBPath, MemoryPath} {
		data, _ := os.ReadFile(filepath.Join(ws.Root, rel))
		noFragment(t, rel, data, p.secrets)
	}
}

// TestBoardOfEarlierRedactionUpgraded: a board redacted by an earlier build's rules (meta
// 'redaction' below redactionVersion) is redacted again, as a board without the mark is.
func TestBoardOfEarlierRedactionUpgraded(t *testing.T) {
	p := newPlanter(3)
	ws := oldBoard(t, plantedBoard(p))
	db, err := openDB(ws.Path(DBPath), ws.Wait, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO meta(key, value) VALUES ('redaction', ?)`, fmt.Sprint(redactionVersion-1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, redacted := redactionMark(t, ws); redacted {
		t.Fatal("a board of the earlier redaction counts as redacted by this build")
	}
	if _, err := Load(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if _, redacted := redactionMark(t, ws); !redacted {
		t.Error("after a load: not marked redacted by this build")
	}
	checkRedacted(t, ws, p.secrets)
}
