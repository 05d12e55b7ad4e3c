package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// burst spawns `bin args... mcp`, completes the initialize handshake, then writes n TaskCreate
// calls in one go (a writer goroutine, so a server that answers while it reads never blocks on a
// full pipe) and reads every answer as it comes. It prints one line: time, created, errors, the
// first error, whether the ids are exactly 1..n, and the CPU time and peak memory of the server.
//
// With cli > 0, another process writes to the same log meanwhile: cli runs of `bin args... --json
// task create` one after another while the burst is served, so the ids must be exactly
// 1..n+cli across both (the lock between processes holds, and the server sees their appends).
func burst(bin string, n, cli int, args []string) {
	cmd := exec.Command(bin, append(args, "mcp")...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail("%v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail("%v", err)
	}
	if err := cmd.Start(); err != nil {
		fail("start %s: %v", bin, err)
	}
	out := bufio.NewReaderSize(stdout, 1<<20)
	write := func(b []byte) {
		if _, err := stdin.Write(b); err != nil {
			fail("write: %v", err)
		}
	}
	write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}` + "\n"))
	if _, _, err := readAnswer(out); err != nil {
		fail("initialize: %v", err)
	}
	var calls []byte
	calls = append(calls, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"...)
	for i := 1; i <= n; i++ {
		calls = fmt.Appendf(calls, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"TaskCreate","arguments":{"subject":"burst task %d"}}}`+"\n", i, i)
	}
	cpu0, client0 := processCPU(cmd.Process.Pid), selfCPU()
	start := time.Now()
	go write(calls)
	total := n + cli
	cliIDs := make(chan []int, 1)
	go func() {
		var ids []int
		for i := 1; i <= cli; i++ {
			out, err := exec.Command(bin, append(append([]string(nil), args...), "--json", "task", "create", fmt.Sprintf("cli task %d", i))...).Output()
			if err != nil {
				fail("cli create %d: %v: %s", i, err, out)
			}
			var res struct {
				Task struct {
					TaskID int `json:"taskid"`
				} `json:"task"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				fail("cli create %d: %v: %.200s", i, err, out)
			}
			ids = append(ids, res.Task.TaskID)
		}
		cliIDs <- ids
	}()
	created, failed, firstErr := 0, 0, ""
	seen := make([]int, total+1)
	outside := 0    // ids answered outside 1..total
	var bytes int64 // of the answers
	for range n {
		a, size, err := readAnswer(out)
		bytes += int64(size)
		if err != nil {
			fail("after %d answers: %v", created+failed, err)
		}
		switch {
		case a.Error != nil:
			failed++
			if firstErr == "" {
				firstErr = "protocol error: " + a.Error.Message
			}
		case a.Result.IsError:
			failed++
			if firstErr == "" {
				var content []struct {
					Text string `json:"text"`
				}
				json.Unmarshal(a.Result.Content, &content)
				if len(content) > 0 {
					firstErr = content[0].Text
				}
			}
		default:
			created++
			id := a.Result.StructuredContent.Task.TaskID
			if id >= 1 && id <= total {
				seen[id]++
			} else {
				outside++
			}
		}
	}
	elapsed := time.Since(start)
	cpu, clientCPU := processCPU(cmd.Process.Pid)-cpu0, selfCPU()-client0
	for _, id := range <-cliIDs {
		if id >= 1 && id <= total {
			seen[id]++
		} else {
			outside++
		}
	}
	peak := peakRSS(cmd.Process.Pid)
	stdin.Close()
	io.Copy(io.Discard, out)
	cmd.Wait()
	missing, twice := 0, 0
	for _, c := range seen[1:] {
		switch {
		case c == 0:
			missing++
		case c > 1:
			twice++
		}
	}
	ids := "ids 1.." + strconv.Itoa(total) + " each once"
	if missing+twice+outside > 0 {
		ids = fmt.Sprintf("ids: %d missing, %d answered twice or more, %d outside 1..%d", missing, twice, outside, total)
	}
	cpuText := "?"
	if cpu0 >= 0 && cpu >= 0 {
		cpuText = fmt.Sprintf("%.2f s", cpu.Seconds())
	}
	label := fmt.Sprintf("TaskCreate burst, %d pipelined calls", n)
	if cli > 0 {
		label += fmt.Sprintf(" + %d CLI", cli)
	}
	fmt.Printf("  %-44s %8.2f s  created %d  errors %d  %s  answers %s  cpu server %s client %.2f s  server peak %s\n",
		label, elapsed.Seconds(), created, failed, ids, size(int(bytes)), cpuText, clientCPU.Seconds(), peak)
	if firstErr != "" {
		fmt.Printf("    first error: %.300s\n", firstErr)
	}
	if created != n || missing+twice+outside > 0 {
		os.Exit(1)
	}
}

// answer is the part of a JSON-RPC response burst reads.
type answer struct {
	ID     json.RawMessage           `json:"id"`
	Error  *struct{ Message string } `json:"error"`
	Result struct {
		IsError           bool            `json:"isError"`
		Content           json.RawMessage `json:"content"` // decoded for an error only
		StructuredContent struct {
			Task struct {
				TaskID int `json:"taskid"`
			} `json:"task"`
		} `json:"structuredContent"`
	} `json:"result"`
}

// readAnswer reads lines until a response (a message with an id), decodes it and says how many
// bytes it read.
func readAnswer(r *bufio.Reader) (answer, int, error) {
	read := 0
	for {
		line, err := r.ReadBytes('\n')
		read += len(line)
		if err != nil {
			return answer{}, read, err
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			return answer{}, read, fmt.Errorf("answer is not JSON: %v: %.200s", err, line)
		}
		if len(a.ID) > 0 {
			return a, read, nil
		}
	}
}
