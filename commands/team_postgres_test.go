package commands_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgTeamURL creates a database of its own on the CAIRN_TEST_POSTGRES server (scripts/pg-test.sh
// starts one) and gives its postgres:// URL, as `cairn serve --store` takes it; it drops the
// database when the test ends and skips the test without a server (fails on CI).
func pgTeamURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("CAIRN_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CAIRN_TEST_POSTGRES is not set; CI runs the PostgreSQL tests (scripts/pg-test.sh)")
		}
		t.Skip("no PostgreSQL (CAIRN_TEST_POSTGRES; scripts/pg-test.sh starts a server)")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to CAIRN_TEST_POSTGRES: %v", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("cairn_cmd_test_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	})
	cfg, err := pgconn.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	u := url.URL{Scheme: "postgres", Path: "/" + name}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	} else {
		u.User = url.User(cfg.User)
	}
	q := url.Values{}
	if strings.HasPrefix(cfg.Host, "/") {
		q.Set("host", cfg.Host) // a unix socket's folder
	} else {
		u.Host = cfg.Host
	}
	q.Set("port", strconv.Itoa(int(cfg.Port)))
	if cfg.TLSConfig == nil {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// cairnRun runs cairn with a token and gives its combined output and error.
func cairnRun(bin, token string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CAIRN_TOKEN="+token)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Done when: `cairn serve --store postgres://...` is a team server on PostgreSQL: two members
// push their spaces and find each other's words (CJK of one character too, and around_ref); a
// member of another space finds nothing; the records are in PostgreSQL and not in the server's
// workspace; a removed member's token is refused at once; a second push sends nothing.
func TestTeamServePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	store := pgTeamURL(t)
	bin := buildCairn(t)
	srv := newWorkspace(t, bin)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	member := func(user, space string) string {
		t.Helper()
		out, err := cairnRun(bin, "", "-C", srv, "serve", "member", "add", user, "--space", space, "--store", store)
		if err != nil {
			t.Fatalf("member add %s: %v %s", user, err, out)
		}
		i := strings.Index(out, "cairn_")
		if i < 0 || len(out) < i+6+16+1+64 {
			t.Fatalf("no token in %s", out)
		}
		return out[i : i+6+16+1+64]
	}
	alice, bob, eve := member("alice", "team1"), member("bob", "team1"), member("eve", "elsewhere")
	if out, err := cairnRun(bin, "", "-C", srv, "serve", "member", "list", "--store", store); err != nil ||
		!strings.Contains(out, "alice") || !strings.Contains(out, "bob") || strings.Contains(out, "cairn_") {
		t.Fatalf("member list: %v %s", err, out)
	}
	if out, err := cairnRun(bin, "", "-C", srv, "serve", "member", "add", "alice", "--space", "team1", "--store", store); err == nil || !strings.Contains(out, "already a member") {
		t.Fatalf("alice twice: %v %s", err, out)
	}

	cmd := exec.Command(bin, "-C", srv, "serve", "--addr", addr, "--store", store)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cairn serve --store postgres did not listen: %s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// each member's machine: a space of its own, pushed to team1 on the server
	client := func(name, words string) string {
		t.Helper()
		dir := newWorkspace(t, bin)
		cfg := fmt.Sprintf("[space]\nserver = \"http://%s\"\nteam = \"team1\"\n", addr)
		if err := os.WriteFile(filepath.Join(dir, "cairn.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"space","id":"local-%s","name":"%s","owner":"%s"}`+"\n", name, name, name)
		fmt.Fprintf(&b, `{"type":"task","id":"%s-t1","space":"local-%s","title":"%s's task","status":"completed"}`+"\n", name, name, name)
		for j, w := range strings.Fields(words) {
			fmt.Fprintf(&b, `{"type":"comment","id":"%s-c%d","task":"%s-t1","kind":"request","author":"user","created_at":"2026-06-20T10:00:%02dZ","body":"%s note %d token=s3cr3tValue%dXYZ"}`+"\n",
				name, j, name, j, w, j, j)
		}
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := cairnRun(bin, "", "-C", dir, "space", "import", in); err != nil {
			t.Fatalf("import: %v %s", err, out)
		}
		return dir
	}
	aliceDir := client("alice", "flamingo 認証フロー rollout")
	bobDir := client("bob", "pelican 数据迁移 migration")
	eveDir := newWorkspace(t, bin)
	if err := os.WriteFile(filepath.Join(eveDir, "cairn.toml"), []byte(fmt.Sprintf("[space]\nserver = \"http://%s\"\nteam = \"elsewhere\"\n", addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, token string }{{aliceDir, alice}, {bobDir, bob}} {
		out, err := cairnRun(bin, c.token, "-C", c.dir, "space", "push")
		if err != nil || !strings.Contains(out, "sent 1 tasks and 3 comments to space team1") {
			t.Fatalf("push: %v %s\nserver: %s", err, out, stderr)
		}
		out, err = cairnRun(bin, c.token, "-C", c.dir, "space", "push")
		if err != nil || !strings.Contains(out, "sent 0 tasks and 0 comments") {
			t.Fatalf("second push: %v %s", err, out)
		}
	}

	search := func(dir, token string, args ...string) string {
		t.Helper()
		out, err := cairnRun(bin, token, append([]string{"-C", dir, "space", "search"}, args...)...)
		if err != nil {
			t.Fatalf("search %v: %v %s\nserver: %s", args, err, out, stderr)
		}
		return out
	}
	for _, c := range []struct {
		dir, token, query, want string
	}{
		{aliceDir, alice, "pelican", "1 hit"},
		{aliceDir, alice, "迁", "1 hit"},    // one CJK character
		{aliceDir, alice, "数据", "1 hit"},   // two
		{bobDir, bob, "flamingo", "1 hit"}, // the other way
		{bobDir, bob, "認証", "1 hit"},
		{bobDir, bob, "note", "6 hit"}, // both members' comments
		{eveDir, eve, "pelican", "0 hit"},
	} {
		out := search(c.dir, c.token, c.query)
		if !strings.Contains(out, c.want) {
			t.Errorf("%s searching %q: want %q in\n%s", c.token[:22], c.query, c.want, out)
		}
		if strings.Contains(out, "s3cr3t") {
			t.Errorf("a secret in an answer: %s", out)
		}
	}
	out := search(aliceDir, alice, "--around", "comment:bob-c1", "--context", "1")
	if !strings.Contains(out, "数据迁移") || !strings.Contains(out, "pelican") {
		t.Errorf("around_ref: %s", out)
	}
	if out, err := cairnRun(bin, eve, "-C", eveDir, "space", "search", "--around", "comment:bob-c1"); err == nil {
		t.Errorf("eve reached team1's comment: %s", out)
	}

	// the records are in PostgreSQL, redacted, and not in the server's workspace
	ctx := context.Background()
	db, err := pgx.Connect(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	var n, secrets int
	if err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE position('s3cr3t' in convert_from(body, 'UTF8')) > 0) FROM comments WHERE space = 'team1'`).Scan(&n, &secrets); err != nil {
		t.Fatal(err)
	}
	if n != 6 || secrets != 0 {
		t.Errorf("PostgreSQL holds %d comments of team1 (want 6), %d with a secret", n, secrets)
	}
	if _, err := os.Stat(filepath.Join(srv, "team.db")); err == nil {
		t.Errorf("the postgres server made team.db in its workspace")
	}

	// a removed member is refused at once, by the running server
	if out, err := cairnRun(bin, "", "-C", srv, "serve", "member", "remove", "bob", "--store", store); err != nil {
		t.Fatalf("member remove: %v %s", err, out)
	}
	if out, err := cairnRun(bin, bob, "-C", bobDir, "space", "search", "flamingo"); err == nil || !strings.Contains(out, "token was refused") {
		t.Errorf("a removed member searched: %v %s", err, out)
	}
}
