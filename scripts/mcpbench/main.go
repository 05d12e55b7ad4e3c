// Command mcpbench measures the per-call latency of one tool of `cairn mcp` the way an agent
// runtime sees it: it spawns `cairn [ARGS...] mcp` as a command transport of the go-sdk client,
// calls the tool -warmup times, then -n times one after the other, and prints p50, p99 and max.
//
//	go run ./scripts/mcpbench -cairn .bench/cairn -label "space search, rare term" \
//	  -tool SearchWorkspaceTasks -input '{"query":"kumquat"}' -- -C ws --user bench --task 0
//
// A call that answers with a tool error stops the run: a fast error is no measurement.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("cairn", "cairn", "the cairn binary")
	tool := flag.String("tool", "", "the tool to call")
	input := flag.String("input", "{}", "the tool's input as JSON")
	label := flag.String("label", "", "what the row is called (default: the tool)")
	n := flag.Int("n", 1000, "calls measured")
	warmup := flag.Int("warmup", 20, "calls made before measuring")
	flag.Parse()
	if *tool == "" {
		fail("-tool is needed")
	}
	if *label == "" {
		*label = *tool
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(*input), &args); err != nil {
		fail("-input: %v", err)
	}
	ctx := context.Background()
	cmd := exec.Command(*bin, append(flag.Args(), "mcp")...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fail("connect: %v", err)
	}
	defer cs.Close()
	call := func() time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: args})
		d := time.Since(start)
		if err != nil {
			fail("%s: %v", *tool, err)
		}
		if res.IsError {
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			fail("%s answered an error: %s", *tool, text)
		}
		return d
	}
	for range *warmup {
		call()
	}
	times := make([]time.Duration, *n)
	for i := range times {
		times[i] = call()
	}
	slices.Sort(times)
	fmt.Printf("  %-44s p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%d calls)\n", *label,
		ms(pct(times, 50)), ms(pct(times, 99)), ms(times[len(times)-1]), *n)
}

// pct is the p-th percentile of sorted times (nearest rank).
func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "mcpbench: "+format+"\n", a...)
	os.Exit(1)
}
