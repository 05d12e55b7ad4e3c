package spaces

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

// Readers keeps one store open across searches and answers as SearchWorkspaceTasks does, seeing
// a comment added through another connection and a spaces.db replaced by another file.
func TestReadersStayOpenAndFresh(t *testing.T) {
	ws := fixtureWorkspace(t)
	var r Readers
	defer r.Close()
	queries := []SearchInput{{Query: "design.md"}, {Query: "認証"}, {Query: "rate limit", Kind: "result"}, {Query: "差し替えのみ"}}
	for _, in := range queries {
		got, err := r.SearchWorkspaceTasks(context.Background(), ws, bob, in)
		if err != nil {
			t.Fatal(err)
		}
		if want := search(t, ws, bob, in); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: cached reader answered %v, a fresh one %v", in, refs(got), refs(want))
		}
	}
	first := r.cur
	if first == nil {
		t.Fatal("no store kept open")
	}
	if _, err := r.SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: "design.md"}); err != nil || r.cur != first {
		t.Fatalf("store opened again (%v) though spaces.db did not change", err)
	}

	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	added, err := st.AddComment(context.Background(), Comment{Task: "13", Kind: "result", Author: "agent", CreatedAt: "2026-07-03T00:00:00Z", Body: "the zebrafinch plan"})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: "zebrafinch"})
	if err != nil || !reflect.DeepEqual(refs(got), []string{added.Ref}) {
		t.Fatalf("comment written through another connection: %v %v", refs(got), err)
	}

	// Replace spaces.db with a fresh import that lacks the comment.
	data, err := os.ReadFile(fixturePath(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"", "-wal", "-shm"} {
		os.Remove(Path(ws) + f)
	}
	importText(t, ws, string(data))
	got, err = r.SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: "zebrafinch"})
	if err != nil || len(refs(got)) != 0 {
		t.Fatalf("answered from the removed spaces.db: %v %v", refs(got), err)
	}
	if r.cur == first {
		t.Error("the store of the removed file is still kept")
	}
	for _, f := range []string{"", "-wal", "-shm"} {
		os.Remove(Path(ws) + f)
	}
	if _, err := r.SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: "zebrafinch"}); err == nil {
		t.Error("no error once spaces.db is gone")
	}
}

// Readers checks the workspace's paths when it opens spaces.db, not on every search: a
// spaces.db replaced by a link to a file outside the workspace is another file, opened anew,
// and refused as every store refuses one.
func TestReadersRefuseReplacedLink(t *testing.T) {
	ws := fixtureWorkspace(t)
	var r Readers
	defer r.Close()
	in := SearchInput{Query: "design.md"}
	if _, err := r.SearchWorkspaceTasks(context.Background(), ws, bob, in); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "spaces.db")
	data, err := os.ReadFile(Path(ws))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(Path(ws)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, Path(ws)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SearchWorkspaceTasks(context.Background(), ws, bob, in); errs.CodeOf(err) != errs.Invalid {
		t.Fatalf("spaces.db replaced by a link outside the workspace: %v, want INVALID_INPUT", err)
	}
}
