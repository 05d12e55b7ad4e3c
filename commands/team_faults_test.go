package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The PostgreSQL team server under faults (docs/team.md, Reliability): eight clients push at once
// to one `cairn serve --store postgres://...`, each a space of several thousand comments in many
// batches. Trial (a) SIGKILLs the server mid-push and starts it again; (b) restarts PostgreSQL
// mid-push; (c) stops PostgreSQL: a search answers STORAGE_BUSY (exit 4) within --wait, and a push
// started then completes once it is back. After each trial, when the clients have retried (within
// the push, and by running it again), PostgreSQL holds every comment exactly once, counted there,
// and a further push sends nothing. scripts/team-trials.sh runs it N times and sums the figures.
const (
	faultClients = 8
	faultTasks   = 5
	faultPerTask = 500 // 2,500 comments a client: 6 batches of 500 records
)

// faultRig is the eight client workspaces, their spaces imported once for every trial.
type faultRig struct {
	t    *testing.T
	bin  string
	ctl  string
	dirs []string
}

func newFaultRig(t *testing.T, bin, ctl string) *faultRig {
	t.Helper()
	r := &faultRig{t: t, bin: bin, ctl: ctl, dirs: make([]string, faultClients)}
	for i := range faultClients {
		r.dirs[i] = newWorkspace(t, bin)
	}
	var wg sync.WaitGroup
	errc := make(chan error, faultClients)
	sem := make(chan struct{}, 2)
	for i, dir := range r.dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var b strings.Builder
			fmt.Fprintf(&b, `{"type":"space","id":"local%d","name":"c%d","owner":"u%d"}`+"\n", i, i, i)
			for k := range faultTasks {
				fmt.Fprintf(&b, `{"type":"task","id":"c%d-t%d","space":"local%d","title":"task %d of client %d","status":"completed"}`+"\n", i, k, i, k, i)
				for j := range faultPerTask {
					fmt.Fprintf(&b, `{"type":"comment","id":"c%d-t%d-%d","task":"c%d-t%d","kind":"request","author":"user","created_at":"2026-06-%02dT%02d:%02d:%02dZ","body":"c%d t%d n%d ledger replay token=s3cr3tValue%dXYZ"}`+"\n",
						i, k, j, i, k, 10+k, j/3600, j/60%60, j%60, i, k, j, j)
				}
			}
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
				errc <- err
				return
			}
			if out, err := exec.Command(r.bin, "-C", dir, "space", "import", in).CombinedOutput(); err != nil {
				errc <- fmt.Errorf("import client %d: %v %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	return r
}

// faultTrial is one trial: a fresh database, a server on it, and the clients' tokens for it.
type faultTrial struct {
	r       *faultRig
	name    string
	store   string
	srv     string
	addr    string
	flags   []string
	server  *exec.Cmd
	logs    []*lockedBuffer // every server process's stderr, in order
	tokens  []string
	outs    []string
	errs    []error
	took    []time.Duration
	running sync.WaitGroup
}

var tokenPattern = regexp.MustCompile(`cairn_[0-9a-f]{16}_[0-9a-f]{64}`)

// trial makes a database and a server workspace, adds the eight members, points every client at
// the new server (forgetting what it pushed before) and starts the server with --wait wait.
func (r *faultRig) trial(name, wait string) *faultTrial {
	t := r.t
	t.Helper()
	tr := &faultTrial{r: r, name: name, store: pgTeamURL(t), srv: newWorkspace(t, r.bin), addr: freeAddr(t)}
	tr.flags = []string{"--store", tr.store, "--wait", wait}
	tr.tokens = make([]string, faultClients)
	problems := make([]string, faultClients)
	var wg sync.WaitGroup
	for i, dir := range r.dirs {
		cfg := fmt.Sprintf("[space]\nserver = \"http://%s\"\nteam = \"team1\"\n", tr.addr)
		if err := os.WriteFile(filepath.Join(dir, "cairn.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(dir, ".cairn", "push")); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { // at once: the first migrates the database, the others wait for it
			defer wg.Done()
			out, err := cairnRun(r.bin, "", "-C", tr.srv, "serve", "member", "add", fmt.Sprintf("u%d", i), "--space", "team1", "--store", tr.store)
			if tr.tokens[i] = tokenPattern.FindString(out); err != nil || tr.tokens[i] == "" {
				problems[i] = fmt.Sprintf("member add u%d: %v %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	if p := strings.Join(problems, ""); p != "" {
		t.Fatal(p)
	}
	tr.start()
	t.Cleanup(tr.stop)
	return tr
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (tr *faultTrial) start() {
	tr.server = startTeamServer(tr.r.t, tr.r.bin, tr.srv, tr.addr, tr.flags...)
	tr.logs = append(tr.logs, tr.server.Stderr.(*lockedBuffer))
}

func (tr *faultTrial) stop() {
	if tr.server != nil {
		tr.server.Process.Signal(syscall.SIGTERM)
		tr.server.Wait()
		tr.server = nil
	}
}

// kill SIGKILLs the server.
func (tr *faultTrial) kill() {
	if err := tr.server.Process.Signal(syscall.SIGKILL); err != nil {
		tr.r.t.Fatal(err)
	}
	tr.server.Wait()
	tr.server = nil
}

// logCount counts a string in every server log of the trial.
func (tr *faultTrial) logCount(s string) int {
	n := 0
	for _, l := range tr.logs {
		n += strings.Count(l.String(), s)
	}
	return n
}

// imports is how many batches the servers took.
func (tr *faultTrial) imports() int { return tr.logCount("team import 200") }

func (tr *faultTrial) push(i int) (string, error) {
	return cairnRun(tr.r.bin, tr.tokens[i], "-C", tr.r.dirs[i], "space", "push")
}

// pushAll starts every client's push at once; wait ends them.
func (tr *faultTrial) pushAll() {
	tr.outs, tr.errs, tr.took = make([]string, faultClients), make([]error, faultClients), make([]time.Duration, faultClients)
	for i := range faultClients {
		tr.running.Add(1)
		go func() {
			defer tr.running.Done()
			t0 := time.Now()
			tr.outs[i], tr.errs[i] = tr.push(i)
			tr.took[i] = time.Since(t0)
		}()
	}
}

// waitImports waits until the servers took n batches: the fault comes mid-push.
func (tr *faultTrial) waitImports(n int) {
	tr.r.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); tr.imports() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			tr.r.t.Fatalf("%s: %d batches arrived in 60 s, waiting for %d: %s", tr.name, tr.imports(), n, tr.logs[len(tr.logs)-1])
		}
	}
}

// ctl runs pg_ctl on the test server (scripts/pg-test.sh's CAIRN_TEST_POSTGRES_CTL).
func (tr *faultTrial) ctl(args ...string) time.Duration {
	tr.r.t.Helper()
	t0 := time.Now()
	if out, err := exec.Command(tr.r.ctl, args...).CombinedOutput(); err != nil {
		tr.r.t.Fatalf("pg_ctl %v: %v %s", args, err, out)
	}
	return time.Since(t0)
}

// finish waits for the pushes, runs again those that gave up (until they succeed, three times at
// most), then checks that a further push of every client sends nothing; it reports how many
// pushes retried a batch within the push and how many gave up.
func (tr *faultTrial) finish() (retried, gaveUp int) {
	t := tr.r.t
	t.Helper()
	tr.running.Wait()
	for i := range faultClients {
		if strings.Contains(tr.outs[i], "sent again") {
			retried++
		}
		if tr.errs[i] == nil {
			continue
		}
		gaveUp++
		t.Logf("%s: client %d gave up (%v): %s", tr.name, i, tr.errs[i], strings.TrimSpace(tr.outs[i]))
		var err error
		var out string
		for range 3 {
			if out, err = tr.push(i); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("%s: client %d push again: %v %s\nserver: %s", tr.name, i, err, out, tr.logs[len(tr.logs)-1])
		}
	}
	problems := make([]string, faultClients)
	var wg sync.WaitGroup
	for i := range faultClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := tr.push(i); err != nil || !strings.Contains(out, "sent 0 tasks and 0 comments") {
				problems[i] = fmt.Sprintf("%s: client %d's further push: %v %s\n", tr.name, i, err, out)
			}
		}()
	}
	wg.Wait()
	if p := strings.Join(problems, ""); p != "" {
		t.Fatal(p)
	}
	return retried, gaveUp
}

// count reads PostgreSQL itself: how many of the clients' comments are missing (lost) and how
// many rows are more than one per comment (duplicated); anything else in the space, any secret
// or a task missing fails the test.
func (tr *faultTrial) count() (lost, dup int) {
	t := tr.r.t
	t.Helper()
	ctx := context.Background()
	db, err := pgx.Connect(ctx, tr.store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	rows, err := db.Query(ctx, `SELECT id, count(*) FROM comments WHERE space = 'team1' GROUP BY id`)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		seen[id] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := range faultClients {
		for k := range faultTasks {
			for j := range faultPerTask {
				want++
				id := fmt.Sprintf("c%d-t%d-%d", i, k, j)
				switch n := seen[id]; {
				case n == 0:
					lost++
				case n > 1:
					dup += n - 1
				}
				delete(seen, id)
			}
		}
	}
	if len(seen) > 0 {
		t.Errorf("%s: %d comments on the server that no client has", tr.name, len(seen))
	}
	var all, secrets, tasks int
	if err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE position('s3cr3t' in convert_from(body, 'UTF8')) > 0),
		(SELECT count(*) FROM tasks WHERE space = 'team1') FROM comments`).Scan(&all, &secrets, &tasks); err != nil {
		t.Fatal(err)
	}
	if all != want-lost+dup || secrets != 0 || tasks != faultClients*faultTasks {
		t.Errorf("%s: PostgreSQL holds %d comments (want %d), %d with a secret, %d tasks (want %d)", tr.name, all, want, secrets, tasks, faultClients*faultTasks)
	}
	return lost, dup
}

// busyWithin runs a cairn command that must fail with STORAGE_BUSY (exit 4, --json error code)
// within wait plus slack, and gives how long it took.
func busyWithin(t *testing.T, what string, wait time.Duration, bin, token string, args ...string) time.Duration {
	t.Helper()
	t0 := time.Now()
	out, err := cairnRun(bin, token, args...)
	d := time.Since(t0)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Errorf("%s with PostgreSQL stopped: %v, want exit 4: %s", what, err, out)
		return d
	}
	var doc struct {
		Error struct{ Code, Message string }
	}
	if i := strings.IndexByte(out, '{'); i < 0 || json.Unmarshal([]byte(out[i:]), &doc) != nil || doc.Error.Code != "STORAGE_BUSY" {
		t.Errorf("%s with PostgreSQL stopped: not a STORAGE_BUSY error: %s", what, out)
	}
	// the process starts, the server waits --wait for the database, then answers
	if slack := 1500 * time.Millisecond; d > wait+slack {
		t.Errorf("%s answered STORAGE_BUSY after %s: more than --wait %s + %s", what, d.Round(time.Millisecond), wait, slack)
	}
	t.Logf("%s with PostgreSQL stopped: exit 4 STORAGE_BUSY after %s (--wait %s): %s", what, d.Round(time.Millisecond), wait, doc.Error.Message)
	return d
}

func TestTeamPushPostgresFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	pgTeamURL(t) // skips without CAIRN_TEST_POSTGRES
	ctl := os.Getenv("CAIRN_TEST_POSTGRES_CTL")
	if ctl == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CAIRN_TEST_POSTGRES_CTL is not set; CI runs the fault trials (scripts/pg-test.sh sets it)")
		}
		t.Skip("no CAIRN_TEST_POSTGRES_CTL to restart PostgreSQL with (scripts/pg-test.sh sets it)")
	}
	start := time.Now()
	bin := buildCairn(t)
	r := newFaultRig(t, bin, ctl)
	t.Logf("%d clients × %d comments imported in %s", faultClients, faultTasks*faultPerTask, time.Since(start).Round(time.Millisecond))
	const perClient = faultTasks*faultPerTask + faultTasks
	batches := faultClients * ((perClient + 499) / 500)
	trials, lost, dup := 0, 0, 0
	report := func(tr *faultTrial, fault string, t0 time.Time) {
		retried, gaveUp := tr.finish()
		l, d := tr.count()
		trials++
		lost += l
		dup += d
		fastest := slices.Min(tr.took)
		t.Logf("%s: %s; %d batches taken, %d answered 503, %d pushes retried a batch, %d gave up and ran again; lost %d, duplicated %d (pushes took %s..%s; trial %s)",
			tr.name, fault, tr.imports(), tr.logCount(" 503 "), retried, gaveUp, l, d,
			fastest.Round(time.Millisecond), slices.Max(tr.took).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
		if fastest < time.Second {
			t.Errorf("%s: a push took %s: the fault may have come after it", tr.name, fastest)
		}
	}

	// (a) the server SIGKILLed mid-push, then started again on the same database
	t0 := time.Now()
	tr := r.trial("server killed", "5s")
	tr.pushAll()
	tr.waitImports(batches / 4)
	at := tr.imports()
	tr.kill()
	time.Sleep(200 * time.Millisecond)
	tr.start()
	tr.running.Wait()
	if tr.imports() == at {
		t.Errorf("%s: no batch arrived after the kill: it came after the pushes", tr.name)
	}
	report(tr, fmt.Sprintf("killed after %d of %d batches", at, batches), t0)
	tr.stop()

	// (b) PostgreSQL restarted (pg_ctl restart -m fast: every connection cut) mid-push
	t0 = time.Now()
	tr = r.trial("database restarted", "5s")
	tr.pushAll()
	tr.waitImports(batches / 4)
	at = tr.imports()
	took := tr.ctl("restart", "-m", "fast")
	after := tr.imports()
	tr.running.Wait()
	if tr.imports() == after {
		t.Errorf("%s: no batch arrived after the restart: it came after the pushes", tr.name)
	}
	report(tr, fmt.Sprintf("restarted after %d of %d batches, down for %s", at, batches, took.Round(time.Millisecond)), t0)
	tr.stop()

	// (c) PostgreSQL stopped: searches and the server's own commands answer STORAGE_BUSY within
	// --wait; pushes started meanwhile complete once it is back
	t0 = time.Now()
	const wait = time.Second
	tr = r.trial("database down", wait.String())
	tr.ctl("stop", "-m", "fast")
	stopped := true
	defer func() {
		if stopped {
			exec.Command(ctl, "start").Run() // the next test needs it
		}
	}()
	busyWithin(t, "space search", wait, bin, tr.tokens[0], "-C", r.dirs[0], "--json", "--wait", wait.String(), "space", "search", "ledger")
	busyWithin(t, "serve member list", wait, bin, "", "-C", tr.srv, "--json", "--wait", wait.String(), "serve", "member", "list", "--store", tr.store)
	busyWithin(t, "serve (start)", wait, bin, "", "-C", newWorkspace(t, bin), "--json", "--wait", wait.String(), "serve", "--addr", freeAddr(t), "--store", tr.store)
	tr.pushAll()
	// every push reaches the stopped database at least once (on average) before it comes back
	for deadline := time.Now().Add(10 * time.Second); tr.logCount(" 503 ") < faultClients && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	down := tr.logCount(" 503 ")
	tr.ctl("start")
	stopped = false
	tr.running.Wait()
	if down == 0 {
		t.Errorf("%s: no push reached the server while PostgreSQL was stopped", tr.name)
	}
	report(tr, fmt.Sprintf("stopped under 8 pushes until %d answers were 503", down), t0)
	if out, err := cairnRun(bin, tr.tokens[0], "-C", r.dirs[0], "space", "search", "ledger"); err != nil || !strings.Contains(out, "hit") {
		t.Errorf("search once PostgreSQL is back: %v %s", err, out)
	}
	tr.stop()

	t.Logf("trials=%d lost=%d duplicated=%d (PostgreSQL store, %s)", trials, lost, dup, time.Since(start).Round(time.Millisecond)) // scripts/team-trials.sh sums these
	if lost != 0 || dup != 0 {
		t.Fatalf("lost %d, duplicated %d comments over %d trials", lost, dup, trials)
	}
}
