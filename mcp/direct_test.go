package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workers"
)

// step is one line a scripted client writes and how many answer lines it waits for: -1 for a
// call it cancels at once, whose answer may come (it finished first) or not.
type step struct {
	line    string
	answers int
}

// session runs steps through Serve's server and transport, the direct path on or off, and
// returns every line the client got.
func session(t *testing.T, steps []step, direct bool) []string {
	t.Helper()
	c := newContext(t)
	kept := tools.Keep(c.Workspace, tools.KeepOptions{})
	c.Stores = kept
	defer kept.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	w := workers.New()
	defer w.Close()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, tools.New(), "test", c, sr, sw, false, newBodies(), nil, w, direct) }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(cr)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	read := func(n int) {
		for range n {
			select {
			case l := <-lines:
				got = append(got, l)
			case <-ctx.Done():
				t.Fatalf("no answer after %q", got)
			}
		}
	}
	for i, s := range steps {
		if s.answers >= 0 {
			io.WriteString(cw, s.line+"\n")
			read(s.answers)
			continue
		}
		// the call and its cancellation in one write, then a ping to know both were read
		var id struct{ ID json.RawMessage }
		json.Unmarshal([]byte(s.line), &id)
		ping := `{"jsonrpc":"2.0","id":"after-cancel-` + string(rune('a'+i%26)) + `","method":"ping"}`
		io.WriteString(cw, s.line+"\n"+`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(id.ID)+`}}`+"\n"+ping+"\n")
		for {
			read(1)
			if strings.Contains(got[len(got)-1], `"after-cancel-`) {
				break
			}
			// the cancelled call's answer, when it came first: not compared
			got = got[:len(got)-1]
		}
	}
	cw.Close()
	if err := <-done; err != nil && !isClosed(err) {
		t.Fatalf("serve: %v", err)
	}
	sw.Close()
	for l := range lines {
		got = append(got, l)
	}
	return got
}

// times in answers (a task's creation) differ from one run to the next.
var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

// The direct path answers every call it takes with the bytes the go-sdk would have written,
// and leaves the rest to it: the same scripted sessions (both protocols, several tools, valid
// and invalid arguments, tool errors, unknown tools, calls cancelled at once, ids of every JSON
// type) give the same lines with it on and off.
func TestDirectPathAnswersAsTheSDK(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	calls := func(m string) []step {
		if m != "" {
			m += ","
		}
		call := func(id, name, args string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + m + `"name":"` + name + `","arguments":` + args + `}}`
		}
		return []step{
			{call(`2`, "TaskCreate", `{"subject":"a <b> & \"c\"","description":"迁移 🚀\u2028"}`), 1},
			{call(`"s"`, "TaskCreate", ` { "subject" : "spaced" } `), 1},
			{call(`1.5`, "TaskList", `{}`), 1},
			{call(`-7`, "TaskGet", `{"taskid":1}`), 1},
			{call(`1e3`, "TaskGet", `{"taskid":99}`), 1},                            // NOT_FOUND: a tool error
			{call(`"a\"b\u00e9"`, "TaskUpdate", `{"taskid":1,"status":"done"}`), 1}, // invalid input
			{call(`0`, "TaskUpdate", `{"taskid":"x<y>"}`), 1},
			{call(`"unknown"`, "NoSuchTool", `{}`), 1},
			{call(`12345678901234567890`, "TaskList", `[1]`), 1}, // arguments not an object: the go-sdk's say
			{call(`"null-args"`, "TaskList", `null`), 1},
			{`{"jsonrpc":"2.0","id":"no-args","method":"tools/call","params":{` + m + `"name":"TaskList"}}`, 1},
			{`{"jsonrpc":"2.0","id":"esc","method":"tools/call","params":{` + m + `"name":"Task\u004cist","arguments":{}}}`, 1},
			{`{"jsonrpc":"2.0","id":"sess","method":"tools/call","params":{"_meta":{"sessionId":"codex-1","progressToken":3},"name":"TaskCreate","arguments":{"subject":"codex"}}}`, 1},
			{`{"jsonrpc":"2.0","id":"sess2","method":"tools/call","params":{"_meta":{"sessionId":"codex-1"},"name":"TaskList","arguments":{}}}`, 1},
			{`{"jsonrpc":"2.0","id":"oc","method":"tools/call","params":{` + m + `"name":"TaskList","arguments":{"cairn_session":"nope"}}}`, 1},
			{call(`"c1"`, "TaskList", `{}`), -1},
			{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone"}}`, 0},
			{`[` + call(`"b1"`, "TaskList", `{}`) + `,{"jsonrpc":"2.0","id":"b2","method":"ping"}]`, 2},
			{`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{` + strings.TrimSuffix(m, ",") + `}}`, 1},
			{call(`"last"`, "TaskList", `{}`), 1},
		}
	}
	init := func(version string) step {
		return step{`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, 1}
	}
	before := step{`{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{"name":"TaskList","arguments":{}}}`, 1}
	initialized := step{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0}
	for name, steps := range map[string][]step{
		"2025-06-18":             append([]step{before, init("2025-06-18"), initialized}, calls("")...),
		"2026-07-28 initialized": append([]step{init("2026-07-28"), initialized}, calls("")...),
		"2026-07-28 sessionless": append([]step{{`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{` + meta + `}}`, 1}}, calls(meta)...),
		"2026-07-28 first call":  calls(meta),
	} {
		t.Run(name, func(t *testing.T) {
			sdkLines, directLines := session(t, steps, false), session(t, steps, true)
			if len(sdkLines) != len(directLines) {
				t.Fatalf("%d lines through the go-sdk, %d direct:\n%s\n\n%s", len(sdkLines), len(directLines), strings.Join(sdkLines, "\n"), strings.Join(directLines, "\n"))
			}
			// the answers of one batch ("b1", "b2") come in the order their handlers finish
			batchOrder(sdkLines)
			batchOrder(directLines)
			for i := range sdkLines {
				a, b := timestamp.ReplaceAllString(sdkLines[i], "T"), timestamp.ReplaceAllString(directLines[i], "T")
				if a != b {
					t.Errorf("line %d through the go-sdk\n%s\ndirect\n%s", i, a, b)
				}
			}
		})
	}
}

// The direct path takes the usual call: once the session is initialized (or its protocol
// 2026-07-28 _meta was accepted), a plain call of a registered tool never reaches the go-sdk.
func TestDirectPathTaken(t *testing.T) {
	g := &gate{ctx: context.Background(), out: io.Discard}
	g.cond = sync.NewCond(&g.mu)
	s := sdk.NewServer(&sdk.Implementation{Name: "cairn", Version: "test"}, nil)
	g.calls = newCaller(s, tools.New(), "test", newContext(t), nil, nil, nil)
	v := "2025-06-18"
	g.calls.version.Store(&v)
	if m := g.inbound([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"TaskList","arguments":{}}}`)); len(m) != 0 {
		t.Fatalf("passed to the go-sdk: %v", m)
	}
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	line := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":` + meta + `,"name":"TaskList"}}`
	if m := g.inbound([]byte(line)); len(m) != 1 {
		t.Fatalf("a _meta never accepted: %d messages passed, want 1", len(m))
	}
	g.outbound([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	if m := g.inbound([]byte(line)); len(m) != 0 {
		t.Fatalf("an accepted _meta: passed to the go-sdk: %v", m)
	}
	g.calls.calls.Wait()
}

// A call on the direct path that the client cancels has its context ended and gets no answer;
// the cancellation is not passed to the go-sdk, which never saw the call, and the end of the
// input does not wait for it.
func TestDirectCallCancelled(t *testing.T) {
	var out strings.Builder
	var wmu sync.Mutex
	g := &gate{ctx: context.Background(), out: writerFunc(func(p []byte) (int, error) { wmu.Lock(); defer wmu.Unlock(); return out.Write(p) })}
	g.cond = sync.NewCond(&g.mu)
	s := sdk.NewServer(&sdk.Implementation{Name: "cairn", Version: "test"}, nil)
	g.calls = newCaller(s, tools.New(), "test", newContext(t), nil, nil, nil)
	v := "2025-06-18"
	g.calls.version.Store(&v)
	started := make(chan struct{})
	ended := make(chan error, 1)
	g.calls.run = func(ctx context.Context, _ *tools.Tool, _ json.RawMessage, _ map[string]any) ([]byte, bool) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return []byte(`{}`), false
	}
	if m := g.inbound([]byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"TaskList","arguments":{}}}`)); len(m) != 0 {
		t.Fatalf("passed to the go-sdk: %v", m)
	}
	<-started
	if g.due() != 1 {
		t.Fatalf("due %d while the call runs, want 1", g.due())
	}
	if m := g.inbound([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`)); len(m) != 0 {
		t.Fatalf("the cancellation was passed to the go-sdk: %v", m)
	}
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Fatalf("the call ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call's context was not cancelled")
	}
	g.calls.calls.Wait()
	wmu.Lock()
	defer wmu.Unlock()
	if out.Len() != 0 || g.due() != 0 || len(g.pending) != 0 {
		t.Fatalf("output %q, due %d, pending %d", out.String(), g.due(), len(g.pending))
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// batchOrder sorts, in place, each run of neighbouring lines that answer the batch's requests
// (ids "b1", "b2"), whose order a server may choose.
func batchOrder(lines []string) {
	inBatch := func(l string) bool {
		return strings.Contains(l, `"id":"b1"`) || strings.Contains(l, `"id":"b2"`)
	}
	for i := 0; i < len(lines); i++ {
		j := i
		for j < len(lines) && inBatch(lines[j]) {
			j++
		}
		if j > i {
			sort.Strings(lines[i:j])
			i = j
		}
	}
}
