// Package mcp is the Model Context Protocol face of cairn (`cairn mcp`): every agent tool of the
// registry served on standard input and output.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workers"
)

// NewServer serves every tool of r over MCP; a tool's failure is an MCP tool error (isError with
// the error body as text), never a protocol error, so the model sees it and the server lives on.
func NewServer(r *tools.Registry, version string, c tools.Context) *sdk.Server {
	return newServer(r, version, c, nil, nil, nil)
}

// newServer is NewServer; with bodies set, a tool's answer is left out of the result the go-sdk
// encodes (placeholders stand in its place) and the stdio transport sharing bodies writes it.
// With p set, a tool call runs on every core p allows, the rest of the server on one thread; with
// w set, on one of w's workers (workers.Pool: a kept goroutine, its stack grown already).
func newServer(r *tools.Registry, version string, c tools.Context, b *bodies, p *procs, w *workers.Pool) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "cairn", Version: version}, nil)
	fallback := geminiSession(c)
	for _, t := range r.List() {
		ro := t.ReadOnly
		s.AddTool(&sdk.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.Schema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro, IdempotentHint: ro, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var res *sdk.CallToolResult
			w.Do(func() { res = call(ctx, t, c, fallback, req, b, p) })
			return res, nil // a tool's failure is in res, as an MCP tool error
		})
	}
	return s
}

// call runs one call of t and returns its result: the answer, or the tool's error as an MCP tool
// error.
func call(ctx context.Context, t *tools.Tool, c tools.Context, fallback func() string, req *sdk.CallToolRequest, b *bodies, p *procs) *sdk.CallToolResult {
	var args json.RawMessage
	var meta map[string]any
	if req.Params != nil {
		args, meta = req.Params.Arguments, req.Params.GetMeta()
	}
	body, isError := run(ctx, t, c, fallback, req.Params != nil, args, meta, p)
	if isError {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}
	}
	if b != nil {
		text, structured := b.put(body)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: structured}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}, StructuredContent: json.RawMessage(body)}
}

// run runs one call of t with the arguments and _meta a tools/call gave (hasParams: it gave
// params at all) and returns the answer's JSON, or with isError the body of the tool's error: the
// work of a call, whichever way it came (the go-sdk's handler, or the gate's direct path).
func run(ctx context.Context, t *tools.Tool, c tools.Context, fallback func() string, hasParams bool, args json.RawMessage, meta map[string]any, p *procs) (body []byte, isError bool) {
	cc := c
	if hasParams {
		if id := callerSession(meta, fallback); id != "" && c.Session == "" {
			cc.ClaudeSession = id // the session the call names wins over the one the server was started in
		}
		tagged, id, err := sessionTag(args)
		if err != nil {
			return errorBody(err), true
		}
		if args = tagged; id != "" && c.Session == "" {
			cc.ClaudeSession = id // OpenCode's session, named by cairn's plugin
		}
	}
	done := func() {}
	if t.Parallel {
		done = p.call()
	}
	out, err := t.Call(ctx, cc, args)
	done()
	if err != nil {
		return errorBody(err), true
	}
	body, err = answerJSON(out)
	if err != nil {
		return errorBody(err), true
	}
	return body, false
}

// answerJSON is the answer's JSON: made already for an answer the cache keeps (tools.Encoded).
func answerJSON(out any) ([]byte, error) {
	if e, ok := out.(tools.Encoded); ok {
		return e.JSON, nil
	}
	return marshal(out)
}

// marshal is json.Marshal without HTML escaping: <, > and & are written as they are, not as
// \u003c (six bytes, seven once the text block quotes it again); the JSON value is the same.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// errorBody is the body of the MCP tool error err becomes.
func errorBody(err error) []byte {
	body, _ := marshal(tools.ErrorOf(err))
	return body
}

// Serve runs the tools of r over MCP on in and out until the client's input ends or ctx is done;
// the end of the input is the normal end of a session, not an error.
func Serve(ctx context.Context, r *tools.Registry, version string, c tools.Context, in io.Reader, out io.Writer) error {
	defer raiseGC()()
	p := oneProc()
	defer p.restore()
	in, owned, release := pollable(in)
	defer release()
	b := newBodies()
	w := workers.New()
	defer w.Close()
	err := serve(ctx, r, version, c, in, out, owned, b, p, w, true)
	if err != nil && ctx.Err() == nil && !isClosed(err) {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

// serve runs the server of Serve on its transport; direct sets the gate's direct path for plain
// tool calls (caller), which returns after the calls it started.
func serve(ctx context.Context, r *tools.Registry, version string, c tools.Context, in io.Reader, out io.Writer, owned bool, b *bodies, p *procs, w *workers.Pool, direct bool) error {
	s := newServer(r, version, c, b, p, w)
	t := newStdioTransport(ctx, in, out, b, owned).(stdioTransport)
	if direct {
		k := newCaller(s, r, version, c, b, p, w)
		t.c.g.calls = k
		defer k.calls.Wait()
	}
	return s.Run(ctx, t)
}

// isClosed recognises the end of the client's input, the normal way an stdio session ends.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, sdk.ErrConnectionClosed)
}

// servingGC is the garbage collector's target while Serve runs (GOGC=200): each message costs
// the go-sdk about 160 kB of short-lived buffers (32 kB per JSON decoding), on a small live
// heap, so at the default target a warm call spent about a third of the server's CPU (0.44 ms
// of a memory search's; 0.30 at 200, 0.28 at 400). 200 keeps most of that for less memory: a
// server answering a list of 10,000 tasks peaks at about 75 MiB (50 at 100, 95 at 400).
const servingGC = 200

// raiseGC raises the garbage collector's target to servingGC for a long-lived server, unless
// GOGC is set or the target is higher already, and returns what puts it back.
func raiseGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(servingGC)
	if old < 0 || old > servingGC {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// oneProc runs the server's Go code on one thread, unless GOMAXPROCS is set, and gives a tool
// that splits its work over the cores (tools.Tool.Parallel) every core while it runs (procs.call). The go-sdk hands every request from its
// reader to a new goroutine and that to another one; each hand-off with a processor idle wakes a
// thread that spins looking for work and steals it to another core, on the cores the client
// needs. On two cores that was half of a warm call's CPU (a memory search: 0.29 ms, 0.17 on one
// thread) and a quarter of its time (p50 0.33 ms, 0.24). The memory and knowledge searches split
// a scan of many files over the cores: on one thread a knowledge search over 10,000 files took
// 52 ms, 31 ms with both cores; their calls get every core back, for about 0.1 ms a call (the
// second thread spins while they run). A board search or a session log replay also splits more
// than a megabyte of text, but a warm server narrows the board search (a few cards are read)
// and replays only what the log gained: those stay on one thread.
func oneProc() *procs {
	n := runtime.GOMAXPROCS(0)
	if os.Getenv("GOMAXPROCS") != "" || n == 1 {
		return &procs{}
	}
	runtime.GOMAXPROCS(1)
	return &procs{n: n}
}

// procs is the number of threads a tool call runs on while the rest of the server runs on one.
type procs struct {
	mu     sync.Mutex
	n      int // the cores a tool call gets; 0: GOMAXPROCS is left alone
	active int // tool calls running
	calls  int // tool calls given the cores so far, for tests
}

// call gives the running tool calls every core until the last one returns (done).
func (p *procs) call() (done func()) {
	if p == nil || p.n == 0 {
		return func() {}
	}
	p.mu.Lock()
	if p.active == 0 {
		runtime.GOMAXPROCS(p.n)
	}
	p.active++
	p.calls++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.active--; p.active == 0 {
			runtime.GOMAXPROCS(1)
		}
		p.mu.Unlock()
	}
}

// restore puts the runtime's default back when the server ends.
func (p *procs) restore() {
	if p.n != 0 {
		runtime.SetDefaultGOMAXPROCS()
	}
}

func boolPtr(b bool) *bool { return &b }
