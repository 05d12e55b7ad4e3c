// Command mcpbench measures the per-call latency of one tool of `cairn mcp` the way an agent
// runtime sees it: it spawns `cairn [ARGS...] mcp` as a command transport of the go-sdk client,
// calls the tool -warmup times, then -n times one after the other, and prints p50, p99 and max,
// the size of the answer's text block, and the CPU time per call of the server and of this
// client (on Linux), and the server's peak resident memory: on a busy machine the CPU figures
// vary much less than the wall times, and the client's share is a floor no server change can
// lower.
//
//	go run ./scripts/mcpbench -cairn .bench/cairn -label "space search, rare term" \
//	  -tool SearchWorkspaceTasks -input '{"query":"kumquat"}' -- -C ws --user bench --task 0
//
// A call that answers with a tool error stops the run: a fast error is no measurement.
//
// The peer: -save FILE keeps the text of the last answer; -peer FILE then measures, instead of
// cairn, the plainest go-sdk server that answers -tool with those bytes (as text and as structured
// content, as cairn does) and does nothing else: what any go-sdk server pays to send that answer
// and this client to read it, the floor for an answer of that size.
//
// The burst: -burst N writes N pipelined TaskCreate calls to one `cairn [ARGS...] mcp` at once
// (raw JSON-RPC lines on its stdin, after the initialize handshake), reads the answers as they
// come, and prints the time from the first call written to the last answer read, how many calls
// created a task and how many failed (with the first error), and whether the ids answered are
// exactly 1..N (the log must start empty). It exits 1 unless all N were created with ids 1..N.
// -burst-cli K also runs `cairn [ARGS...] task create` K times, one after another, on the same
// log while the burst is served: then the ids of both must be exactly 1..N+K.
//
//	go run ./scripts/mcpbench -cairn .bench/cairn -burst 3000 -- -C ws --session ws/burst.jsonl
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
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
	save := flag.String("save", "", "write the text of the last answer to this file")
	peer := flag.String("peer", "", "measure the peer server answering this file's JSON instead of cairn")
	serve := flag.String("serve", "", "be the peer server over stdio, answering -tool with this file's JSON")
	burstN := flag.Int("burst", 0, "write this many pipelined TaskCreate calls at once instead (see the package comment)")
	burstCLI := flag.Int("burst-cli", 0, "with -burst: this many `task create` runs of the CLI on the same log meanwhile")
	flag.Parse()
	if *burstN > 0 {
		burst(*bin, *burstN, *burstCLI, flag.Args())
		return
	}
	if *tool == "" {
		fail("-tool is needed")
	}
	if *serve != "" {
		servePeer(*tool, *serve)
		return
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
	if *peer != "" {
		self, err := os.Executable()
		if err != nil {
			fail("%v", err)
		}
		cmd = exec.Command(self, "-serve", *peer, "-tool", *tool)
	}
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fail("connect: %v", err)
	}
	defer cs.Close()
	answer, last := 0, ""
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
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				answer, last = len(tc.Text), tc.Text
			}
		}
		return d
	}
	for range *warmup {
		call()
	}
	times := make([]time.Duration, *n)
	server0, client0 := processCPU(cmd.Process.Pid), selfCPU()
	for i := range times {
		times[i] = call()
	}
	serverCPU, clientCPU := processCPU(cmd.Process.Pid)-server0, selfCPU()-client0
	if server0 < 0 || serverCPU < 0 {
		serverCPU = -1
	}
	if client0 < 0 || clientCPU < 0 {
		clientCPU = -1
	}
	if *save != "" {
		if err := os.WriteFile(*save, []byte(last), 0o644); err != nil {
			fail("%v", err)
		}
	}
	slices.Sort(times)
	fmt.Printf("  %-44s p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%d calls)  answer %s  cpu/call server %s client %s  server peak %s\n", *label,
		ms(pct(times, 50)), ms(pct(times, 99)), ms(times[len(times)-1]), *n, size(answer), perCall(serverCPU, *n), perCall(clientCPU, *n), peakRSS(cmd.Process.Pid))
}

// servePeer answers tool with the JSON in file, as its text and its structured content, over
// stdio until the client leaves.
func servePeer(tool, file string) {
	body, err := os.ReadFile(file)
	if err != nil {
		fail("%v", err)
	}
	if !json.Valid(body) {
		fail("%s: not JSON", file)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "peer", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: tool, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: json.RawMessage(body)}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fail("peer: %v", err)
	}
}

// processCPU is the user and system CPU time pid has used so far, from /proc (-1 elsewhere).
func processCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// the fields after the command name, which is in parentheses and may hold spaces
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ is 100 on Linux
}

// peakRSS is the largest resident set pid has had so far, from /proc ("?" elsewhere).
func peakRSS(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
		}
	}
	return "?"
}

// selfCPU is the user and system CPU time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perCall is a CPU time spread over n calls, or "?" when it could not be read.
func perCall(d time.Duration, n int) string {
	if d < 0 {
		return "?"
	}
	return fmt.Sprintf("%.3f ms", ms(d)/float64(n))
}

// size is a byte count in kB or MB.
func size(n int) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1e3)
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
