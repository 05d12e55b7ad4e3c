package mcp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace"
)

// BenchmarkServeCall measures one warm tools/call through Serve over a pipe, the go-sdk client at
// the other end, as `cairn mcp` runs it: profile it (-cpuprofile) to see what a call costs
// besides the tool itself.
func BenchmarkServeCall(b *testing.B) {
	root := b.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "fixtures", "demo"))); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Open(root, root)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		// the server's goroutines carry the label: -tagfocus side=server shows its share alone
		pprof.Do(ctx, pprof.Labels("side", "server"), func(ctx context.Context) {
			done <- Serve(ctx, tools.New(), "bench", tools.Context{Workspace: ws, Cache: tools.NewCache()}, inR, outW)
		})
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	params := &sdk.CallToolParams{Name: "MemorySearch", Arguments: map[string]any{"query": "session"}}
	call := func() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("MemorySearch: %v %+v", err, res)
		}
	}
	for range 20 {
		call()
	}
	b.ResetTimer()
	for range b.N {
		call()
	}
	b.StopTimer()
	cs.Close()
	inW.Close()
	<-done
}
