package spaces

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDenseIntersectEqualsLike: two terms (one in each index) each in half the space and together in two comments
// are answered from the bitmaps of their tokens (denseIntersect) with what the LIKE walk gives;
// the next search reads no index list again; a comment added, or one changed in place, by
// another connection is seen at once (the bitmaps are of the snapshot they were read in); a
// store kept for one search keeps none.
func TestDenseIntersectEqualsLike(t *testing.T) {
	ws := newWorkspace(t)
	head := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`,
		`{"type":"task","id":2,"space":"s","title":"other"}`}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	comment := func(id int, body string) string {
		at := base.Add(time.Duration(id) * time.Second)
		if id >= 1000 {
			at = base.Add(-time.Hour) // the oldest: found late by a stream newest first
		}
		return fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":%q,"body":%q}`,
			id, at.Format(time.RFC3339), body)
	}
	lines := append([]string(nil), head...)
	for i := 0; i < 400; i++ {
		body := "alpha notes"
		switch {
		case i == 5 || i == 7:
			body = "alpha gamma"
		case i%2 == 1:
			body = "gamma notes"
		}
		lines = append(lines, comment(i, body))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.keepDense = true
	st.anchorWide = 0 // (each token is in at most 2,000 comments: the wide anchor would answer)
	var steps []string
	st.trace = func(step string) { steps = append(steps, step) }
	check := func(stage string, want []string, plan func([]string) bool) {
		t.Helper()
		steps = steps[:0]
		in := SearchInput{Query: "alp gamma", Limit: 10} // (a term of three characters: both indexes)
		in.validate()
		got, like := searchBoth(t, st, in)
		if !reflect.DeepEqual(got, like) || !reflect.DeepEqual(refs(got), want) {
			t.Fatalf("%s: %v, LIKE %v, want %v", stage, refs(got), refs(like), want)
		}
		if !plan(steps) {
			t.Errorf("%s: plan %v", stage, steps)
		}
	}
	streamed := func(steps []string) bool {
		return slices.ContainsFunc(steps, func(s string) bool { return strings.HasPrefix(s, "stream ") })
	}
	check("first", []string{"comment:7", "comment:5"}, func(s []string) bool { return slices.Contains(s, "dense: 2") && streamed(s) })
	check("cached", []string{"comment:7", "comment:5"}, func(s []string) bool { return slices.Contains(s, "dense: 2") && !streamed(s) })
	// after another connection's writes, the bitmaps of the snapshot before are not used: the
	// answers are the new ones, and the intersection read again holds the new comments
	intersect := func(stage string, want int) {
		t.Helper()
		p := newQueryPlan(scope{space: "s", task: "1"}, SearchInput{Query: "alp gamma", Limit: 10}, false)
		if _, n, ok, err := st.denseIntersect(context.Background(), st.db, p, false); err != nil || ok {
			t.Errorf("%s: the cache alone answered (%d) after a write: %v", stage, n, err)
		}
		if _, n, ok, err := st.denseIntersect(context.Background(), st.db, p, true); err != nil || !ok || n != want {
			t.Errorf("%s: intersection of %d (%v, %v), want %d", stage, n, ok, err, want)
		}
	}
	stale := func(s []string) bool { return !slices.Contains(s, "dense: 2") }
	importText(t, ws, strings.Join(append(append([]string(nil), head...), comment(1000, "gamma and alpha")), "\n"))
	check("a comment added", []string{"comment:7", "comment:5", "comment:1000"}, stale)
	importText(t, ws, strings.Join(append(append([]string(nil), head...), comment(1001, "alpha gamma")), "\n"))
	intersect("another added", 4)
	importText(t, ws, strings.Join(append(append([]string(nil), head...), comment(7, "alpha alone"), comment(9, "gamma, alpha")), "\n"))
	intersect("comments changed", 4)
	check("comments changed", []string{"comment:9", "comment:5", "comment:1001", "comment:1000"}, func([]string) bool { return true })
	st.keepDense = false
	check("not kept", []string{"comment:9", "comment:5", "comment:1001", "comment:1000"}, func(s []string) bool {
		return !slices.ContainsFunc(s, func(s string) bool { return strings.HasPrefix(s, "dense") })
	})
}

// readBits refuses a list that is not of rowids up to the snapshot's largest.
func TestReadBitsRefusesBadList(t *testing.T) {
	ws := newWorkspace(t)
	importText(t, ws, `{"type":"space","id":"s","owner":"o"}
{"type":"task","id":2,"space":"s","title":"other"}
{"type":"comment","id":1,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"kumquat"}`)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := st.readBits(context.Background(), st.db, anchorToken{"comments_short", ftsPhrase("k")}, 1)
	if err != nil || len(m) != 1 || m[0] != 2 {
		t.Fatalf("bits %v, %v", m, err)
	}
	if _, err := st.readBits(context.Background(), st.db, anchorToken{"comments_short", ftsPhrase("k")}, 0); err == nil {
		t.Error("a rowid past the largest was taken")
	}
}
