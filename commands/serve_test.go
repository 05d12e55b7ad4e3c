package commands_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestServe runs the real binary: it loads the board, writes the token with mode 0600, prints
// the URL with the token, answers /api with the token only, logs no query text, and on SIGTERM
// stops cleanly (exit 0) and removes its token file.
func TestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon")
	}
	t.Parallel()
	bin, ws := boardWorkspace(t)

	d := startServe(t, bin, ws)
	url := d.url
	base, token, _ := strings.Cut(url, "/?token=")

	tokenPath := filepath.Join(ws, ".cairn", "serve.token")
	fi, err := os.Stat(tokenPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(tokenPath); strings.TrimSpace(string(data)) != token {
		t.Errorf("token file %q does not hold the printed token", data)
	}

	call := func(auth, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/api", strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	const search = `{"action":"search","input":{"query":"secretquerytext 迁移","projectId":null}}`
	if status, _ := call("", search); status != http.StatusUnauthorized {
		t.Errorf("no token: %d", status)
	}
	status, body := call("Bearer "+token, search)
	if status != http.StatusOK || !strings.Contains(body, `"cards"`) {
		t.Errorf("search: %d %s", status, body)
	}
	cli, err := exec.Command(bin, "-C", ws, "--json", "board", "search", "secretquerytext 迁移").Output()
	if err != nil {
		t.Fatal(err)
	}
	if body != string(cli) {
		t.Errorf("HTTP and CLI answers differ:\n%s\n%s", body, cli)
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(page, []byte("/static/app.js")) {
		t.Errorf("GET /: %d", resp.StatusCode)
	}

	d.stop(t)
	log := d.logText()
	if _, err := os.Stat(tokenPath); !os.IsNotExist(err) {
		t.Errorf("token file left after shutdown: %v", err)
	}
	if strings.Contains(log, "secretquerytext") {
		t.Errorf("query text in the daemon's log:\n%s", log)
	}
	// The fixture has 4 projects and 13 cards; the archived project p3 and its one card are not
	// searched, so both counts leave them out.
	if !strings.Contains(log, "board revision 7: 3 projects, 12 cards, 2 memory entries to search, loaded in ") {
		t.Errorf("start-up line does not count what is searched:\n%s", log)
	}
	if !strings.Contains(log, "search 200") || !strings.Contains(log, "stopped") {
		t.Errorf("log lacks the request line or the stop:\n%s", log)
	}
}

// boardWorkspace builds cairn and makes a workspace with fixtures/board/board.json imported.
func boardWorkspace(t *testing.T) (bin, ws string) {
	t.Helper()
	bin = buildCairn(t)
	ws = newWorkspace(t, bin)
	_, file, _, _ := runtime.Caller(0)
	fixture := filepath.Join(filepath.Dir(file), "..", "fixtures", "board", "board.json")
	if out, err := exec.Command(bin, "-C", ws, "board", "import", fixture).CombinedOutput(); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	return bin, ws
}

// A port another process holds is STORAGE_BUSY (4), said before the board is loaded, and no
// token file is left behind.
func TestServeBusyPort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon")
	}
	t.Parallel()
	bin, ws := boardWorkspace(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-C", ws, "serve", "--addr", ln.Addr().String())
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 4 {
		t.Fatalf("serve on a busy port: %v, want exit 4; stderr: %s", err, stderr.String())
	}
	want := "cairn: " + ln.Addr().String() + " is in use by another process"
	if !strings.HasPrefix(stderr.String(), want) || strings.Contains(stderr.String(), "loaded") {
		t.Fatalf("stderr = %q, want it to start with %q and say nothing of loading", stderr.String(), want)
	}
	if _, err := os.Stat(filepath.Join(ws, ".cairn", "serve.token")); !os.IsNotExist(err) {
		t.Fatalf("token file left behind: %v", err)
	}
}

// A workspace without a board still gets a daemon: tools answer at once, a board search says
// there is no board (404), and once a board is imported the next search answers from it.
func TestServeWithoutBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	d := startServe(t, bin, ws)
	defer d.stop(t)
	url := d.url
	base, token, _ := strings.Cut(url, "/?token=")
	call := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/api", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	if status, body := call(`{"action":"TaskList","input":{}}`); status != http.StatusOK || !strings.Contains(body, `"tasks"`) {
		t.Fatalf("TaskList without a board: %d %s", status, body)
	}
	const search = `{"action":"search","input":{"query":"迁移","projectId":null}}`
	if status, body := call(search); status != http.StatusNotFound || !strings.Contains(body, "cairn board import") {
		t.Fatalf("search without a board: %d %s", status, body)
	}
	_, file, _, _ := runtime.Caller(0)
	fixture := filepath.Join(filepath.Dir(file), "..", "fixtures", "board", "board.json")
	if out, err := exec.Command(bin, "-C", ws, "board", "import", fixture).CombinedOutput(); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	if status, body := call(search); status != http.StatusOK || !strings.Contains(body, "迁移") {
		t.Fatalf("search after the import: %d %s", status, body)
	}
}
