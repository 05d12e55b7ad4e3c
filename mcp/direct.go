package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workers"
)

// The _meta keys of protocol 2026-07-28 the direct path reads, and that version.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	sessionlessVersion  = "2026-07-28"
)

// caller is the gate's direct path: a plain tools/call of a registered tool, in a session the
// go-sdk has initialized, is run by the gate itself on the worker pool and answered with the line
// the go-sdk would have written, byte for byte (TestDirectPathAnswersAsTheSDK). Through the
// go-sdk a warm call paid for decoding the params again (twice: the params, then their _meta),
// two goroutine hand-offs, encoding the result and the message around it, and the gate's own
// pass over the line: about 0.2 ms of CPU, more than a rare term's search. Everything else
// (initialize, tools/list, notifications, ping, unknown tools, odd params) still goes to the
// go-sdk.
type caller struct {
	tools    map[string]*tools.Tool
	c        tools.Context
	fallback func() string
	b        *bodies
	p        *procs
	w        *workers.Pool
	server   *sdk.Server
	// info is `"_meta":{"io.modelcontextprotocol/serverInfo":IMPL},`, how the go-sdk begins a
	// result under protocol 2026-07-28
	info    []byte
	version atomic.Pointer[string] // the protocol version the go-sdk's session holds, once it has one
	// run is the call itself (run in server.go), another one in tests
	run   func(ctx context.Context, t *tools.Tool, args json.RawMessage, meta map[string]any) (body []byte, isError bool)
	calls sync.WaitGroup // the calls running: Serve returns after them
}

// newCaller is the direct path for server s, serving the tools of r as newServer does.
func newCaller(s *sdk.Server, r *tools.Registry, version string, c tools.Context, b *bodies, p *procs, w *workers.Pool) *caller {
	k := &caller{tools: map[string]*tools.Tool{}, c: c, fallback: geminiSession(c), b: b, p: p, w: w, server: s}
	for _, t := range r.List() {
		k.tools[t.Name] = t
	}
	impl, _ := json.Marshal(&sdk.Implementation{Name: "cairn", Version: version}) // as the result's _meta is marshaled: HTML escaped
	k.run = func(ctx context.Context, t *tools.Tool, args json.RawMessage, meta map[string]any) ([]byte, bool) {
		return run(ctx, t, k.c, k.fallback, true, args, meta, k.p)
	}
	k.info = append(append([]byte(`"_meta":{"`+metaServerInfo+`":`), impl...), "},"...)
	return k
}

// sessionVersion is the protocol version of the go-sdk's session (its InitializeParams), set by
// initialize or by the first request of protocol 2026-07-28; ok is false before. Once set the
// go-sdk never changes it.
func (k *caller) sessionVersion() (string, bool) {
	if v := k.version.Load(); v != nil {
		return *v, true
	}
	for ss := range k.server.Sessions() {
		if p := ss.InitializeParams(); p != nil {
			v := p.ProtocolVersion
			k.version.Store(&v)
			return v, true
		}
	}
	return "", false
}

// line is the answer to a call, as the go-sdk writes it (after the gate gave it the client's id
// raw and wrote in the bodies): newProto is a call of protocol 2026-07-28 (the go-sdk names
// itself in the result's _meta), complete that the result says "resultType":"complete".
func (k *caller) line(raw json.RawMessage, body []byte, isError, newProto, complete bool) []byte {
	var text []byte
	if isError {
		text, _ = json.Marshal(string(body)) // the go-sdk's TextContent is marshaled with HTML escaping
	} else {
		text = k.b.text(body)
	}
	out := make([]byte, 0, len(resultPrefix)+len(raw)+len(k.info)+len(text)+len(body)+96)
	out = append(append(append(out, resultPrefix...), raw...), `,"result":{`...)
	if newProto {
		out = append(out, k.info...)
	}
	out = append(append(out, `"content":[{"type":"text","text":`...), text...)
	if isError {
		out = append(out, `}],"isError":true`...)
	} else {
		out = append(append(out, `}],"structuredContent":`...), body...)
	}
	if complete {
		out = append(out, `,"resultType":"complete"`...)
	}
	return append(out, "}}\n"...)
}

// direct starts a tools/call (its params' parts: name, arguments and _meta, from callParts) on the
// direct path when it can take it and reports whether it did. When it did not, pending is the
// call's _meta if it names protocol 2026-07-28 but was never accepted yet: once the go-sdk answers
// the call with a result, that _meta is accepted (gate.accept) and the next calls with it take
// the direct path.
func (g *gate) direct(rawID, nameRaw, args, meta json.RawMessage) (started bool, pending json.RawMessage) {
	k := g.calls
	name, ok := plainString(nameRaw)
	if !ok {
		return false, nil
	}
	t := k.tools[name]
	if t == nil || len(args) > 0 && args[0] != '{' {
		return false, nil // an unknown tool, or arguments the go-sdk may read otherwise: its say
	}
	newProto := false
	var metaMap map[string]any
	if meta != nil {
		m, ok := members(meta)
		if !ok {
			return false, nil
		}
		if pv, has := m[metaProtocolVersion]; has {
			var v string
			if json.Unmarshal(pv, &v) == nil && v >= sessionlessVersion {
				// the go-sdk checks the rest of the _meta of such a call (a version it
				// serves, the client's capabilities and info): only a _meta it accepted
				// before is sure to pass
				if !g.accepted(meta) {
					return false, meta
				}
				newProto = true
			}
		}
		// callerSession reads these keys of a call's _meta and no other: decoding the whole
		// _meta (a client's capabilities and info, with every call of protocol 2026-07-28)
		// was a tenth of the gate's work on a call
		for _, key := range [...]string{"sessionId", "x-codex-turn-metadata"} {
			if raw, ok := m[key]; ok {
				var v any
				if json.Unmarshal(raw, &v) != nil {
					return false, nil
				}
				if metaMap == nil {
					metaMap = map[string]any{}
				}
				metaMap[key] = v
			}
		}
	}
	version, ok := k.sessionVersion()
	if !ok {
		return false, nil // the go-sdk answers a call before initialize
	}
	complete := newProto || version >= sessionlessVersion
	ctx, stop := context.WithCancel(g.ctx)
	id := g.registerCall(rawID, nil, stop)
	k.calls.Add(1)
	k.w.Go(func() {
		defer k.calls.Done()
		body, isError := k.run(ctx, t, args, metaMap)
		g.finish(id, k.line(rawID, body, isError, newProto, complete))
	})
	return true, nil
}

// finish writes the answer line of the direct call id, unless the client cancelled it or the
// connection closed, and forgets the call; the line is written before the call stops being
// due, so the end of the input never comes between the two.
func (g *gate) finish(id int64, line []byte) {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.mu.Lock()
	c := g.pending[id]
	send := c != nil && !c.cancelled && !g.closed
	g.mu.Unlock()
	if send {
		g.out.Write(line)
	}
	if c, ok := g.answered(id); ok && c.stop != nil {
		c.stop()
	}
}

// accepted reports whether the go-sdk answered a call with this _meta (its bytes) with a result.
func (g *gate) accepted(meta json.RawMessage) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.metas {
		if string(m) == string(meta) {
			return true
		}
	}
	return false
}

// keptMetas is how many accepted _meta values the gate remembers: a client sends the same one
// with every call.
const keptMetas = 8

// accept remembers a _meta the go-sdk accepted.
func (g *gate) accept(meta json.RawMessage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.metas {
		if string(m) == string(meta) {
			return
		}
	}
	if len(g.metas) == keptMetas {
		g.metas = g.metas[1:]
	}
	g.metas = append(g.metas, meta)
}
