package team

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func TestTokens(t *testing.T) {
	tok, id, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := TokenID(tok); !ok || got != id {
		t.Fatalf("TokenID(%s) = %s, %v", tok, got, ok)
	}
	for _, bad := range []string{"", "cairn_", tok + "0", tok[:len(tok)-1], strings.ToUpper(tok), "x" + tok[1:]} {
		if _, ok := TokenID(bad); ok {
			t.Errorf("TokenID(%q) ok", bad)
		}
	}
	if string(TokenMAC([]byte("k1"), tok)) == string(TokenMAC([]byte("k2"), tok)) {
		t.Error("the MAC ignores its key")
	}
}

func TestServerMembers(t *testing.T) {
	ctx := context.Background()
	ws := workspacetest.New(t)
	st, err := OpenSQLite(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewServer(st)
	tok, m, err := s.AddMember(ctx, "alice", []string{"b", "a", "a"})
	if err != nil || strings.Join(m.Spaces, ",") != "a,b" {
		t.Fatalf("AddMember: %v %v", m, err)
	}
	if _, _, err := s.AddMember(ctx, "alice", nil); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("twice: %v", err)
	}
	if _, _, err := s.AddMember(ctx, "bad user", nil); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("bad name: %v", err)
	}
	got, err := s.Authenticate(ctx, tok)
	if err != nil || got.User != "alice" {
		t.Fatalf("Authenticate: %v %v", got, err)
	}
	// the store keeps neither the token nor its secret part
	ms, _ := st.Members(ctx)
	if len(ms) != 1 || ms[0].User != "alice" {
		t.Fatalf("Members: %v", ms)
	}
	if _, err := got.space(""); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("two spaces, none named: %v", err)
	}
	if _, err := got.space("c"); errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("another space: %v", err)
	}
	if _, err := s.Search(ctx, got, SearchRequest{Space: "a", Input: spaces.SearchInput{Query: "x"}}); err != nil {
		t.Errorf("search of an empty store: %v", err)
	}
	if ok, err := st.RemoveMember(ctx, "alice"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := s.Authenticate(ctx, tok); err != ErrUnauthorized {
		t.Errorf("revoked: %v", err)
	}
}

func TestOpenStore(t *testing.T) {
	ws := workspacetest.New(t)
	_, err := OpenStore(context.Background(), ws, "postgres://u:secretpw@db/cairn")
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not built in this build") || strings.Contains(err.Error(), "secretpw") {
		t.Errorf("postgres: %v", err)
	}
	if _, err := OpenStore(context.Background(), ws, "mysql://x"); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("mysql: %v", err)
	}
}
