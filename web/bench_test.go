package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/web"
)

// BenchmarkDaemonSearch is a warm POST /api search (the daemon's usual request) on the demo
// board, in process: the stale check, the search and the answer's encoding; the same with
// flowly_search for the agent's search of the kept board.
func BenchmarkDaemonSearch(b *testing.B) {
	root := b.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "fixtures", "demo"))); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Open(root, root)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "board.json"))
	if err != nil {
		b.Fatal(err)
	}
	_, err = board.Import(context.Background(), ws, f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	ix, err := board.Load(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	_ = ix.EnableNarrowing()
	h, err := web.New(web.Options{Workspace: ws, Index: ix, Token: testToken, Tools: tools.Context{Caller: workspace.Caller{Card: "tl-18"}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, body string }{
		{"search", `{"action":"search","input":{"query":"migration"}}`},
		{"flowly_search", `{"action":"flowly_search","input":{"query":"migration"}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			call := func() {
				req := httptest.NewRequest(http.MethodPost, "/api", strings.NewReader(bc.body))
				req.Header.Set("Authorization", "Bearer "+testToken)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			call()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				call()
			}
		})
	}
}
