package web_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/web"
)

// Every request must name the address served or localhost on its port, in its Host and in its
// Origin when it has one: a page whose name was rebound to 127.0.0.1 (DNS rebinding) is refused
// with 403 before the Search page or the API sees it.
func TestHostAndOriginChecked(t *testing.T) {
	ws := newWorkspace(t)
	ix, err := board.Load(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	h, err := web.New(web.Options{Workspace: ws, Index: ix, Token: testToken, Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	for _, c := range []struct {
		path, host, origin string
		want               int
	}{
		{"/", addr, "", 200},
		{"/", "localhost:" + port, "", 200},
		{"/", "[::1]:" + port, "", 200},
		{"/", "127.0.0.1:" + port, "http://localhost:" + port, 200},
		{"/", "evil.example:" + port, "", 403},
		{"/", "evil.example", "", 403},
		{"/", "127.0.0.1:1", "", 403},
		{"/", addr, "http://evil.example:" + port, 403},
		{"/", addr, "null", 403},
		{"/api", "evil.example:" + port, "", 403},
		{"/api", addr, "http://evil.example", 403},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+c.path, nil)
		if c.path == "/api" {
			req, _ = http.NewRequest(http.MethodPost, "http://"+addr+"/api", strings.NewReader(`{"action":"board_projects"}`))
			req.Header.Set("Authorization", "Bearer "+testToken)
		}
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s Host %q Origin %q: %d, want %d: %s", c.path, c.host, c.origin, resp.StatusCode, c.want, body)
		}
	}
}
