package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// A client that writes its requests and closes its input at once still gets every answer.
func TestStdioAnswersBeforeTheInputEnds(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"TaskCreate","arguments":{"subject":"from a pipe"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out workspacetest.Buffer
	server := NewServer(tools.New(), "test", newContext(t))
	if err := server.Run(ctx, NewStdioTransport(ctx, strings.NewReader(in), &out)); err != nil && ctx.Err() != nil {
		t.Fatalf("run: %v", err)
	}
	got := out.String()
	for _, want := range []string{`"id":1,"result"`, `"id":"two","result"`, `from a pipe`, `"id":3,"result"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the output:\n%s", want, got)
		}
	}
}

// The wait at the end of the input counts requests (not notifications, not the client's own
// answers), forgets cancelled ones (MCP sends no answer to those), and every answer goes back
// under the id the client wrote, however the go-sdk would have read it.
func TestGatePending(t *testing.T) {
	g := &gate{ctx: context.Background(), out: io.Discard}
	g.cond = sync.NewCond(&g.mu)
	var passed []jsonrpc.Message
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"TaskList"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	} {
		passed = append(passed, g.inbound([]byte(line))...)
	}
	if g.due() != 4 || len(passed) != 7 {
		t.Fatalf("due %d, passed %d: want 4 requests of 7 messages", g.due(), len(passed))
	}
	var cancel []byte
	for _, m := range g.inbound([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"x"}}`)) {
		cancel, _ = jsonrpc.EncodeMessage(m)
	}
	if !strings.Contains(string(cancel), `"requestId":2`) || g.due() != 3 {
		t.Fatalf("cancellation passed as %s, due %d", cancel, g.due())
	}
	want := map[string]string{"1": "1", "3": "1.0", "4": "7"}
	for server, client := range want {
		out := g.outbound([]byte(`{"jsonrpc":"2.0","id":` + server + `,"result":{}}`))
		if !strings.Contains(string(out), `"id":`+client+`,`) {
			t.Errorf("answer to server id %s went out as %s, want id %s", server, out, client)
		}
	}
	if g.due() != 0 {
		t.Fatalf("due %d after the answers and a cancellation", g.due())
	}
}

// Ids the go-sdk would rewrite, a line that is not JSON and one that is not JSON-RPC: every
// request still gets its answer under its own id, the bad lines get JSON-RPC errors, and the
// server ends at end of input.
func TestStdioOddInput(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`oops`,
		`42`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e300,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"TaskList","arguments":{}}}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out workspacetest.Buffer
	server := NewServer(tools.New(), "test", newContext(t))
	start := time.Now()
	server.Run(ctx, NewStdioTransport(ctx, strings.NewReader(in), &out))
	if ctx.Err() != nil || time.Since(start) > 10*time.Second {
		t.Fatalf("the server did not end with its input (%v)", time.Since(start))
	}
	got := out.String()
	for _, want := range []string{`"code":-32700`, `"code":-32600`, `"id":"last","result"`, `"total":0`,
		`"id":1.5,"result"`, `"id":1e300,"result"`, `"id":-0,"result"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the output:\n%s", want, got)
		}
	}
}

// Params that do not fit a method are named by their path, with the JSON given and needed.
func TestCheckParams(t *testing.T) {
	for _, c := range []struct{ method, params, want string }{
		{"initialize", `{"protocolVersion":2025}`, "protocolVersion: a number given, a string is needed"},
		{"initialize", `{"protocolVersion":"2025-06-18","clientInfo":{"name":5}}`, "clientInfo.name: a number given, a string is needed"},
		{"initialize", `{"capabilities":[]}`, "capabilities: an array given, an object is needed"},
		{"tools/call", `{"name":true}`, "name: a boolean given, a string is needed"},
		{"tools/call", ``, "tools/call needs params: an object with the tool's name and its arguments"},
		{"tools/list", `{"cursor":{}}`, "cursor: an object given, a string is needed"},
		{"tools/list", ``, ""},
		{"tools/call", `{"name":"TaskList","arguments":[1]}`, ""}, // the tool itself answers that
		{"resources/list", `{"cursor":1}`, ""},                    // the go-sdk has its say
	} {
		if got := checkParams(c.method, json.RawMessage(c.params)); got != c.want {
			t.Errorf("checkParams(%s, %s) = %q, want %q", c.method, c.params, got, c.want)
		}
	}
}

// Whatever a client writes, the gate passes on only JSON-RPC 2.0 messages and answers the rest
// with JSON-RPC errors, each one a JSON line.
func FuzzGateInbound(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	f.Add(`[{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":5}},{}]`)
	f.Add(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	f.Add(`{"jsonrpc":"1.0","id":{},"method":[]}`)
	f.Fuzz(func(t *testing.T, line string) {
		var answers workspacetest.Buffer
		g := &gate{ctx: context.Background(), out: &answers}
		g.cond = sync.NewCond(&g.mu)
		for _, msg := range g.inbound([]byte(line)) {
			m, err := jsonrpc.EncodeMessage(msg)
			var w wire
			if err != nil || json.Unmarshal(m, &w) != nil || w.JSONRPC != "2.0" || (w.Method == "" && w.Result == nil && w.Error == nil) {
				t.Fatalf("passed on %q", m)
			}
		}
		for _, a := range strings.Split(strings.TrimSuffix(answers.String(), "\n"), "\n") {
			var w wire
			if a != "" && (json.Unmarshal([]byte(a), &w) != nil || w.Error == nil || w.Error.Code > -32000) {
				t.Fatalf("answered %q", a)
			}
		}
	})
}

// A successful answer has its id replaced in place, and the line is the one decoding and
// encoding it again would give; other lines take the long way.
func TestResultLineInPlace(t *testing.T) {
	for _, tc := range []struct {
		clientID string
		line     string
		fast     bool
	}{
		{`"two"`, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"a\":\"<b> & 迁移\"}"}],"structuredContent":{"a":"\u003cb\u003e"}}}`, true},
		{`1.5`, `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`7`, `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"method \"tools/call\" is invalid during session initialization"}}`, false},
		{`7`, `{"jsonrpc":"2.0","id":1,"result":{"x":1}`, false},
	} {
		mk := func() *gate {
			g := &gate{ctx: context.Background(), out: io.Discard}
			g.cond = sync.NewCond(&g.mu)
			g.register(json.RawMessage(tc.clientID), "tools/call")
			return g
		}
		_, fast := mk().resultLine([]byte(tc.line))
		if fast != tc.fast {
			t.Errorf("%s: in place %v, want %v", tc.line, fast, tc.fast)
		}
		if !fast {
			continue
		}
		got := string(mk().outbound([]byte(tc.line)))
		var m wire
		json.Unmarshal([]byte(tc.line), &m)
		m.ID = json.RawMessage(tc.clientID)
		if want := strings.TrimSuffix(string(encode(m)), "\n"); got != want {
			t.Errorf("answer line\n%s\nwant\n%s", got, want)
		}
	}
	g := &gate{ctx: context.Background(), out: io.Discard}
	g.cond = sync.NewCond(&g.mu)
	if got, _ := g.resultLine([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)); string(got) != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("an answer to no request of the client's = %s, want it as it is", got)
	}
}

// Whatever the server writes, an answer given its id back in place is the line the long way
// (decoding and encoding it again) would give, but for the long way's compaction: the go-sdk
// writes compact JSON.
func FuzzResultLine(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"a":"<b> & \u2028"} }`)
	f.Add(`{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":1,"message":"x"}}`)
	f.Add(`{"jsonrpc":"2.0","id":01,"result":1}`)
	f.Fuzz(func(t *testing.T, line string) {
		mk := func() *gate {
			g := &gate{ctx: context.Background(), out: io.Discard}
			g.cond = sync.NewCond(&g.mu)
			g.register(json.RawMessage(`"c"`), "tools/call")
			return g
		}
		fast, ok := mk().resultLine([]byte(line))
		if !ok {
			return
		}
		g := mk()
		var m wire
		if json.Unmarshal([]byte(line), &m) != nil || m.Method != "" || len(m.ID) == 0 {
			t.Fatalf("%q answered in place, but the long way passes it on as it is", line)
		}
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		c, found := g.answered(id)
		if err != nil || !found {
			if string(fast) != line {
				t.Fatalf("%q, an answer to no request, became %q", line, fast)
			}
			return
		}
		m.ID = c.raw
		var compact bytes.Buffer
		json.Compact(&compact, fast)
		if want := strings.TrimSuffix(string(encode(m)), "\n"); compact.String() != want {
			t.Fatalf("%q in place is\n%s\nthe long way\n%s", line, fast, want)
		}
	})
}

// A request the client cancelled gets no answer, even when the server still sends one: MCP says
// none is due, and Claude Code 2.1 takes an answer to an id it no longer knows for a broken
// connection and drops the server (it cancels its subscriptions/listen right after sending it).
func TestCancelledRequestGetsNoAnswer(t *testing.T) {
	var out bytes.Buffer
	g := &gate{ctx: context.Background(), out: &out}
	g.cond = sync.NewCond(&g.mu)
	w := lineWriter{g}
	g.inbound([]byte(`{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{}}`))
	g.inbound([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{}}`))
	g.inbound([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen:0"}}`))
	w.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` + "\n"))
	want := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}` + "\n"
	if out.String() != want {
		t.Fatalf("the client got\n%s\nwant\n%s", out.String(), want)
	}
	if g.due() != 0 {
		t.Fatalf("due %d", g.due())
	}
}

// A subscriptions/listen request (protocol 2026-07-28) is named in the notifications that belong
// to it by its id, in _meta "io.modelcontextprotocol/subscriptionId": the client must get its own
// id there, not the one the gate gave the request. Claude Code 2.1 otherwise never sees its
// subscription acknowledged and waits 27 s before it lists the tools.
func TestSubscriptionIDGoesBackAsTheClientWroteIt(t *testing.T) {
	var out bytes.Buffer
	g := &gate{ctx: context.Background(), out: &out}
	g.cond = sync.NewCond(&g.mu)
	w := lineWriter{g}
	g.inbound([]byte(`{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`))
	g.inbound([]byte(`{"jsonrpc":"2.0","id":"listen:1","method":"subscriptions/listen","params":{}}`))
	w.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"data":"x"}}` + "\n"))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{`"io.modelcontextprotocol/subscriptionId":"listen:0"`, `"io.modelcontextprotocol/subscriptionId":"listen:1"`,
		`"io.modelcontextprotocol/subscriptionId":"listen:1"`, `"io.modelcontextprotocol/subscriptionId":7`}
	if len(lines) != len(want) {
		t.Fatalf("the client got %q", lines)
	}
	for i, l := range lines {
		if !strings.Contains(l, want[i]) || !json.Valid([]byte(l)) {
			t.Errorf("line %d: %s, want %s in it", i, l, want[i])
		}
	}
	if !strings.Contains(lines[2], `"id":"listen:1"`) || !strings.Contains(lines[0], `"toolsListChanged":true`) {
		t.Errorf("lines %q", lines)
	}
	// a subscription open until the client leaves is no answer the end of the input waits for
	if g.due() != 0 {
		t.Errorf("due %d with only listen:0 open", g.due())
	}
}

// Claude Code 2.1.332's opening, as it sent it to cairn mcp (protocol 2026-07-28): discover,
// subscriptions/listen, and, once acknowledged, tools/list. The acknowledgement names the
// subscription by the client's own id, so the client goes on at once; the listen request it
// cancels later gets no answer.
func TestClaudeCodeOpening(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.332"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}`
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	var out workspacetest.Buffer
	server := NewServer(tools.New(), "test", newContext(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.Run(ctx, NewStdioTransport(ctx, pr, &out))
	}()
	waitFor := func(s string) {
		t.Helper()
		for !strings.Contains(out.String(), s) {
			if ctx.Err() != nil {
				t.Fatalf("no %s in the output:\n%s", s, out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	io.WriteString(pw, `{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{`+meta+`}}`+"\n")
	waitFor(`"id":"server-discover-probe-1","result"`)
	io.WriteString(pw, `{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{`+meta+`,"notifications":{"toolsListChanged":true}}}`+"\n")
	waitFor(`"io.modelcontextprotocol/subscriptionId":"listen:0"`)
	io.WriteString(pw, `{"method":"tools/list","jsonrpc":"2.0","id":0,"params":{`+meta+`}}`+"\n")
	waitFor(`"id":0,"result"`)
	io.WriteString(pw, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen:0",`+meta+`}}`+"\n")
	pw.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the server did not end with its input")
	}
	got := out.String()
	if strings.Contains(got, `"id":"listen:0"`) || !strings.Contains(got, `"name":"TaskCreate"`) {
		t.Fatalf("output:\n%s", got)
	}
}

// lineWriter passes each line written to it to g as the server's output.
type lineWriter struct{ g *gate }

func (w lineWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
		if err := w.g.send(line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// A line longer than the limit is skipped unread and answered with -32600 (with its id when its
// first bytes show it, null otherwise); the session goes on and the next request is answered.
func TestStdioLineTooLong(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 200) + `"}}}` + "\n" +
		`{"pad":"` + strings.Repeat("y", 5000) + `","jsonrpc":"2.0","id":"late","method":"ping"}` + "\n" +
		strings.Repeat("z", 1000) + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	var out workspacetest.Buffer
	tr := NewStdioTransport(ctx, strings.NewReader(in), &out).(stdioTransport)
	tr.c.maxLine = 100
	if err := NewServer(tools.New(), "test", newContext(t)).Run(ctx, tr); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("run: %v", err)
	}
	got := out.String()
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: a message of 271 bytes, over the 100 bytes a line may hold; it was skipped unread"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message of 1001 bytes`,
		`"id":3,"result":{}`,
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("no %s in output:\n%s", want, got)
		}
	}
	if n := strings.Count(got, `"id":null`); n != 2 {
		t.Fatalf("%d null ids, want 2 (the id after a long value is not read):\n%s", n, got)
	}
}

// A line of hundreds of MiB is read through in the reader's buffer, not held: memory stays
// bounded and the request after it is answered.
func TestStdioHugeLineBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 300 MB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const size = 300 << 20
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"pad":"`))
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i < size>>20; i++ {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Write([]byte(`"}}}` + "\n" + `{"jsonrpc":"2.0","id":8,"method":"ping"}` + "\n"))
		pw.Close()
	}()
	var out workspacetest.Buffer
	tr := NewStdioTransport(ctx, pr, &out).(stdioTransport)
	var peak uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak {
				peak = ms.HeapInuse
			}
		}
	}()
	err := NewServer(tools.New(), "test", newContext(t)).Run(ctx, tr)
	close(done)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("run: %v", err)
	}
	got := out.String()
	if !strings.Contains(got, `"id":7,"error":{"code":-32600`) || !strings.Contains(got, `"id":8,"result":{}`) {
		t.Fatalf("output:\n%s", got)
	}
	if peak > 64<<20 {
		t.Fatalf("heap in use peaked at %d MiB reading a 300 MiB line", peak>>20)
	}
	t.Logf("heap in use peaked at %.1f MiB", float64(peak)/(1<<20))
}
