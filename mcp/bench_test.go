package mcp

import (
	"context"
	"encoding/json"
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
// besides the tool itself. By default it searches the demo workspace's memory; CAIRN_BENCH_WS (a
// workspace), CAIRN_BENCH_TOOL, CAIRN_BENCH_INPUT, CAIRN_BENCH_TASK and CAIRN_BENCH_CARD call another tool, as
// scripts/bench.d/mcp.sh does through the binary.
func BenchmarkServeCall(b *testing.B) {
	root := os.Getenv("CAIRN_BENCH_WS")
	if root == "" {
		root = b.TempDir()
		if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "fixtures", "demo"))); err != nil {
			b.Fatal(err)
		}
	}
	name, args := "MemorySearch", map[string]any{"query": "session"}
	if t := os.Getenv("CAIRN_BENCH_TOOL"); t != "" {
		name, args = t, map[string]any{}
		if err := json.Unmarshal([]byte(os.Getenv("CAIRN_BENCH_INPUT")), &args); err != nil {
			b.Fatalf("CAIRN_BENCH_INPUT: %v", err)
		}
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
			kept := tools.Keep(ws, tools.KeepOptions{})
			defer kept.Close()
			done <- Serve(ctx, tools.New(), "bench", tools.Context{Workspace: ws, Caller: workspace.Caller{User: "bench", Task: os.Getenv("CAIRN_BENCH_TASK"), Card: os.Getenv("CAIRN_BENCH_CARD")}, Stores: kept}, inR, outW)
		})
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	call := func() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
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
