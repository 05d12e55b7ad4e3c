package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/jsonscan"
	"github.com/cairn-dev/cairn/core/tools"
)

// drainIdle bounds the wait at the end of input: when requests are still unanswered and the
// server has written nothing for this long, the input ends anyway.
const drainIdle = 30 * time.Second

// JSON-RPC 2.0 error codes the transport answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// NewStdioTransport is the MCP transport of `cairn mcp`: newline-delimited JSON-RPC on r and w.
// It stands between the client and the go-sdk, which ends the whole session (dropping every
// answer still due) on a message it cannot decode
// (https://github.com/modelcontextprotocol/go-sdk/issues/1209), drops the answers to requests
// already read when its input ends (https://github.com/modelcontextprotocol/go-sdk/issues/1061),
// and answers some bad requests with code 0 and Go type names:
//   - Every message is checked first: a line that is not JSON gets -32700, a message that is not
//     JSON-RPC 2.0 (no "jsonrpc":"2.0", an id that is not a string or number, no method) gets
//     -32600, and a request whose params do not fit its method gets -32602 naming the field.
//     None of these reach the server, and the session goes on.
//   - A batch (an array, as protocol versions before 2025-06-18 allow) is passed on message by
//     message.
//   - Each request gets a fresh integer id on its way in, and its answer gets back the id exactly
//     as the client wrote it: the go-sdk reads every number as int64, so 1.5 would be answered as 1.
//   - The go-sdk's code-0 errors become JSON-RPC codes: a call before initialize (other than
//     ping) and a second initialize are -32600 Invalid Request.
//   - The end of r waits until every request read from it has been answered. The go-sdk cancels
//     the requests in flight as soon as its input ends, so a client that writes its requests and
//     closes its side at once (a shell pipe, a one-shot script) would otherwise get no answer.
//     The wait ends early when ctx is done, or when the server has been silent for drainIdle.
//
// It is the go-sdk's connection itself, not a stream under the go-sdk's own stdio connection:
// a message reaches the server decoded once, by the gate, on the goroutine that handles it.
func NewStdioTransport(ctx context.Context, r io.Reader, w io.Writer) sdk.Transport {
	return newStdioTransport(ctx, r, w, nil, false)
}

// newStdioTransport is NewStdioTransport; with bodies set, it writes the tool answers the server
// sharing bodies left out in place of their placeholders. With owned set, r is the
// transport's own and waits on the runtime's poller (pollable): it is read on the server's
// reading goroutine itself, and a read deadline ends the wait when the connection closes.
func newStdioTransport(ctx context.Context, r io.Reader, w io.Writer, b *bodies, owned bool) sdk.Transport {
	g := &gate{ctx: ctx, lastWrite: time.Now(), out: w, bodies: b}
	g.cond = sync.NewCond(&g.mu)
	c := &stdioConn{g: g, in: bufio.NewReaderSize(r, 64<<10), closed: make(chan struct{}), maxLine: sdk.DefaultMaxLineLength}
	c.stop = context.AfterFunc(ctx, g.wake)
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); owned && ok && d.SetReadDeadline(time.Time{}) == nil {
		c.deadline = d
	} else {
		c.lines = make(chan lineOrErr)
		go c.readLines()
	}
	return stdioTransport{c}
}

// stdioTransport hands the go-sdk its one connection.
type stdioTransport struct{ c *stdioConn }

func (t stdioTransport) Connect(context.Context) (sdk.Connection, error) { return t.c, nil }

// inflight is a request passed to the server and not yet answered.
type inflight struct {
	raw       json.RawMessage // the id as the client wrote it
	method    string
	cancelled bool // the client cancelled it: no answer is due (MCP), but one may still come
	// meta is the _meta of a tools/call of protocol 2026-07-28 passed to the go-sdk: accepted
	// (gate.accept) when it answers with a result
	meta json.RawMessage
	stop context.CancelFunc // a call on the direct path: ends its context
}

// gate holds the requests in flight by the id the server knows them by.
type gate struct {
	ctx       context.Context
	mu        sync.Mutex
	cond      *sync.Cond
	next      int64
	pending   map[int64]*inflight
	byRaw     map[string]int64 // the client's id → the newest request sent with it
	lastWrite time.Time
	closed    bool    // the connection is closed: nothing waits for answers any more
	bodies    *bodies // nil: the server writes its answers whole
	calls     *caller // the direct path; nil: every message goes to the go-sdk
	metas     []json.RawMessage

	wmu sync.Mutex // one line at a time on out
	out io.Writer
}

func (g *gate) wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cond.Broadcast()
}

// due counts the requests still waiting for an answer. A subscriptions/listen request is not
// one: it stays open as long as the client wants its notifications.
func (g *gate) due() int {
	n := 0
	for _, c := range g.pending {
		if !c.cancelled && c.method != "subscriptions/listen" {
			n++
		}
	}
	return n
}

// wait blocks until nothing is due, ctx is done, or the server has been silent too long.
func (g *gate) wait() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				g.wake()
			}
		}
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.due() > 0 && !g.closed && g.ctx.Err() == nil && time.Since(g.lastWrite) < drainIdle {
		g.cond.Wait()
	}
}

// register gives a request its server-side id.
func (g *gate) register(raw json.RawMessage, method string) int64 {
	return g.registerWith(&inflight{raw: raw, method: method})
}

// registerCall registers a tools/call: meta to accept once the go-sdk answers it, or stop for
// one the gate runs itself.
func (g *gate) registerCall(raw, meta json.RawMessage, stop context.CancelFunc) int64 {
	return g.registerWith(&inflight{raw: raw, method: "tools/call", meta: meta, stop: stop})
}

func (g *gate) registerWith(c *inflight) int64 {
	raw := c.raw
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pending == nil {
		g.pending, g.byRaw = map[int64]*inflight{}, map[string]int64{}
	}
	g.next++
	g.pending[g.next] = c
	g.byRaw[string(raw)] = g.next
	g.cond.Broadcast()
	return g.next
}

// cancel marks the newest request sent with the client's id raw as cancelled and returns its
// server-side id, and for a call on the direct path what ends its context.
func (g *gate) cancel(raw json.RawMessage) (int64, context.CancelFunc, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, ok := g.byRaw[string(raw)]
	if c := g.pending[id]; ok && c != nil {
		c.cancelled = true
		g.cond.Broadcast()
		return id, c.stop, true
	}
	return 0, nil, false
}

// answered forgets the request the server answered under id.
func (g *gate) answered(id int64) (*inflight, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.pending[id]
	if ok {
		delete(g.pending, id)
		if g.byRaw[string(c.raw)] == id {
			delete(g.byRaw, string(c.raw))
		}
	}
	g.lastWrite = time.Now()
	g.cond.Broadcast()
	return c, ok
}

// wire is one JSON-RPC message, its fields in the usual order.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

var null = json.RawMessage("null")

func encode(m wire) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err) // a wire holds only raw JSON already checked and strings
	}
	return buf.Bytes() // ends with '\n'
}

// writeLine writes one whole line to the client.
func (g *gate) writeLine(line []byte) error {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	_, err := g.out.Write(line)
	return err
}

// reject answers a message the server never sees; id is null when none could be read.
func (g *gate) reject(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = null
	}
	g.writeLine(encode(wire{JSONRPC: "2.0", ID: id, Error: &wireError{Code: code, Message: message}}))
}

// inbound checks one line from the client and returns the messages to pass to the server.
func (g *gate) inbound(line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		g.reject(nil, codeParseError, "Parse error: the line is not JSON")
		return nil
	case line[0] == '[':
		var items []json.RawMessage
		json.Unmarshal(line, &items)
		if len(items) == 0 {
			g.reject(nil, codeInvalidRequest, "Invalid Request: an empty batch")
			return nil
		}
		var out []jsonrpc.Message
		for _, item := range items {
			if m := g.one(item); m != nil {
				out = append(out, m)
			}
		}
		return out
	}
	if m := g.one(line); m != nil {
		return []jsonrpc.Message{m}
	}
	return nil
}

// validID reports whether raw is a JSON-RPC id: a string or a number.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// one checks one JSON-RPC message and returns it as the server should get it, or nil: made here
// from the parts checked, so the go-sdk decodes no message again.
func (g *gate) one(msg json.RawMessage) jsonrpc.Message {
	m, ok := members(msg)
	if !ok {
		m = nil
		if json.Unmarshal(msg, &m) != nil {
			g.reject(nil, codeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object")
			return nil
		}
	}
	rawID, hasID := m["id"]
	var replyID json.RawMessage
	if hasID && validID(rawID) {
		var buf bytes.Buffer
		json.Compact(&buf, rawID)
		rawID, replyID = buf.Bytes(), buf.Bytes()
	}
	var version string
	if raw := m["jsonrpc"]; bytes.Equal(raw, []byte(`"2.0"`)) {
		version = "2.0"
	} else if json.Unmarshal(raw, &version) != nil || version != "2.0" {
		g.reject(replyID, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
		return nil
	}
	if hasID && replyID == nil {
		g.reject(nil, codeInvalidRequest, "Invalid Request: id must be a string or a number")
		return nil
	}
	rawMethod, hasMethod := m["method"]
	if !hasMethod {
		// The client's answer to a request of the server's own.
		_, hasResult := m["result"]
		rawErr, hasErr := m["error"]
		if !hasID || hasResult == hasErr {
			g.reject(replyID, codeInvalidRequest, `Invalid Request: "method" is missing`)
			return nil
		}
		out := &jsonrpc.Response{ID: clientID(rawID), Result: m["result"]}
		if hasErr {
			var e wireError
			if json.Unmarshal(rawErr, &e) != nil {
				g.reject(replyID, codeInvalidRequest, `Invalid Request: "error" must be an object with a code and a message`)
				return nil
			}
			out.Error = &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
		}
		return out
	}
	method, ok := plainString(rawMethod)
	if !ok && json.Unmarshal(rawMethod, &method) != nil || method == "" {
		g.reject(replyID, codeInvalidRequest, `Invalid Request: "method" must be a non-empty string`)
		return nil
	}
	params := m["params"]
	if p := bytes.TrimSpace(params); len(p) > 0 && p[0] != '{' && !bytes.Equal(p, null) {
		if hasID {
			g.reject(replyID, codeInvalidParams, fmt.Sprintf("Invalid params: params of %s must be an object, not %s", method, tools.JSONKind(p)))
		}
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(params), null) {
		params = nil
	}
	if !hasID {
		if method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(params, &p) != nil || !validID(p.RequestID) {
				return nil
			}
			var buf bytes.Buffer
			json.Compact(&buf, p.RequestID)
			id, stop, ok := g.cancel(buf.Bytes())
			if !ok {
				return nil // nothing of that id is in flight
			}
			if stop != nil {
				stop() // a call the gate runs itself: the go-sdk never saw it
				return nil
			}
			var rest map[string]json.RawMessage
			json.Unmarshal(params, &rest)
			rest["requestId"] = json.RawMessage(strconv.FormatInt(id, 10))
			params, _ = json.Marshal(rest)
		}
		return &jsonrpc.Request{Method: method, Params: params}
	}
	if method == "tools/call" && g.calls != nil {
		if name, args, meta, ok := callParts(params); ok {
			started, pending := g.direct(rawID, name, args, meta)
			if started {
				return nil
			}
			id := g.registerCall(rawID, pending, nil)
			return &jsonrpc.Request{ID: serverID(id), Method: method, Params: params}
		}
	}
	if problem := checkParams(method, params); problem != "" {
		g.reject(replyID, codeInvalidParams, "Invalid params: "+problem)
		return nil
	}
	id := g.register(rawID, method)
	return &jsonrpc.Request{ID: serverID(id), Method: method, Params: params}
}

// serverID is the id the gate gave a request, as the go-sdk holds it.
func serverID(id int64) jsonrpc.ID {
	v, _ := jsonrpc.MakeID(float64(id)) // never fails: a float64 is a number id
	return v
}

// clientID is an id the client wrote (a string or a number, checked), as the go-sdk reads it:
// a number becomes an integer.
func clientID(raw json.RawMessage) jsonrpc.ID {
	var v any
	json.Unmarshal(raw, &v)
	id, _ := jsonrpc.MakeID(v) // a string or a float64: never fails
	return id
}

// paramsOf maps the methods cairn serves to the go-sdk's type for their params.
var paramsOf = map[string]func() any{
	"initialize": func() any { return new(sdk.InitializeParams) },
	"ping":       func() any { return new(sdk.PingParams) },
	"tools/list": func() any { return new(sdk.ListToolsParams) },
	"tools/call": func() any { return new(sdk.CallToolParamsRaw) },
	//lint:ignore SA1019 clients of protocol versions before 2026-07-28 still send it
	"logging/setLevel": func() any { return new(sdk.SetLoggingLevelParams) },
}

// paramsNeeded names what the methods that cannot go without params need in them.
var paramsNeeded = map[string]string{
	"initialize": "an object with protocolVersion, capabilities and clientInfo",
	"tools/call": "an object with the tool's name and its arguments",
}

// checkParams says what is wrong with params for method, naming the field, the JSON given and
// the JSON needed; "" when they fit (or the server has its own say on the method).
func checkParams(method string, params json.RawMessage) string {
	mk, ok := paramsOf[method]
	if !ok {
		return ""
	}
	if len(params) == 0 {
		if need := paramsNeeded[method]; need != "" {
			return fmt.Sprintf("%s needs params: %s", method, need)
		}
		return ""
	}
	if method == "tools/call" && plainCall(params) {
		return ""
	}
	if err := json.Unmarshal(params, mk()); err != nil {
		return tools.DecodeProblem(err)
	}
	return ""
}

// members is what json.Unmarshal into a map[string]json.RawMessage makes of msg (valid JSON), for
// the usual message, in one scan and without the decoder's reflection: an object whose keys are
// plain (ASCII without escapes, so the raw key is the key) and each given once. ok is false for any other
// message; then json.Unmarshal says what it is.
func members(msg json.RawMessage) (m map[string]json.RawMessage, ok bool) {
	if len(msg) == 0 || msg[0] != '{' {
		return nil, false
	}
	m = make(map[string]json.RawMessage, 4)
	n := jsonscan.Object(msg, func(key, rest []byte) int {
		for _, c := range key {
			if c == '\\' || c >= 0x80 {
				return -1
			}
		}
		if _, dup := m[string(key)]; dup {
			return -1
		}
		end := jsonscan.ValueEnd(rest, 0)
		if end > 0 {
			m[string(key)] = json.RawMessage(rest[:end])
		}
		return end
	})
	return m, n == len(msg)
}

// plainString is the string the JSON string raw holds when it needs no decoding: no escapes and
// only ASCII (so json.Unmarshal would give the same bytes); ok is false otherwise.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
			return "", false
		}
	}
	return string(raw[1 : len(raw)-1]), true
}

// plainCall reports whether the params of a tools/call (valid JSON) are sure to decode into the
// go-sdk's CallToolParamsRaw, found in one scan: an object of name (a string), arguments (any
// value: it is kept raw) and _meta (an object), each at most once and spelled exactly, with no
// number in _meta that a float64 cannot hold (decoding it into an any would fail). Anything else
// is left to json.Unmarshal, which says what does not fit.
func plainCall(params json.RawMessage) bool {
	_, _, _, ok := callParts(params)
	return ok
}

// callParts is plainCall, with the raw values of the params' name, arguments and _meta (nil
// when not given) when ok.
func callParts(params json.RawMessage) (name, args, meta json.RawMessage, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return nil, nil, nil, false
	}
	var seen [3]bool
	var parts [3]json.RawMessage
	n := jsonscan.Object(params, func(key, rest []byte) int {
		end := jsonscan.ValueEnd(rest, 0)
		if end <= 0 {
			return -1
		}
		k := -1
		switch string(key) {
		case "name":
			if k = 0; rest[0] != '"' {
				return -1
			}
		case "arguments":
			k = 1
		case "_meta":
			if k = 2; rest[0] != '{' || !smallNumbers(rest[:end]) {
				return -1
			}
		}
		if k < 0 || seen[k] {
			return -1
		}
		seen[k] = true
		parts[k] = json.RawMessage(rest[:end])
		return end
	})
	if n != len(params) {
		return nil, nil, nil, false
	}
	return parts[0], parts[1], parts[2], true
}

// smallNumbers reports whether every number in the JSON value v (valid JSON) is written without
// an exponent in at most 300 digits, which a float64 always holds.
func smallNumbers(v []byte) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			i = jsonscan.StringEnd(v, i) - 1
			if i < 0 {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			end := jsonscan.ValueEnd(v, i)
			if end < 0 || end-i > 300 || bytes.IndexAny(v[i:end], "eE") >= 0 {
				return false
			}
			i = end - 1
		}
	}
	return true
}

// outbound turns one line from the server (without its newline) into the line the client gets: an answer goes back
// under the id the client wrote, and the go-sdk's code-0 errors get their JSON-RPC codes. The
// answer to a request the client cancelled is nil: none is due (MCP), and a client may take one
// for an id it has forgotten as a broken connection (Claude Code 2.1 drops the server).
func (g *gate) outbound(line []byte) []byte {
	if out, ok := g.resultLine(line); ok {
		return out
	}
	var m wire
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		g.mu.Lock()
		g.lastWrite = time.Now()
		g.mu.Unlock()
		if m.Method != "" {
			if params, ok := g.subscription(m.Params, nil); ok {
				m.Params = params
				return bytes.TrimRight(encode(m), "\n")
			}
		}
		return line
	}
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return line
	}
	c, ok := g.answered(id)
	if !ok {
		return line
	}
	if c.meta != nil && m.Error == nil {
		g.accept(c.meta)
	}
	if c.cancelled {
		return nil
	}
	if result, ok := g.subscription(m.Result, c); ok {
		m.Result = result
	}
	m.ID = c.raw
	if e := m.Error; e != nil && e.Code == 0 {
		switch {
		case strings.Contains(e.Message, "invalid during session initialization"):
			e.Code, e.Message = codeInvalidRequest, fmt.Sprintf("Invalid Request: %s before initialize; send initialize first (only ping may come before it)", c.method)
		case strings.Contains(e.Message, `duplicate "initialize"`):
			e.Code, e.Message = codeInvalidRequest, "Invalid Request: the session is already initialized"
		default:
			e.Code = codeInternalError
		}
	}
	return bytes.TrimRight(encode(m), "\n")
}

// subscriptionKey names, in a message's _meta, the subscriptions/listen request it belongs to
// by that request's id (protocol 2026-07-28).
const subscriptionKey = "io.modelcontextprotocol/subscriptionId"

// subscription gives back obj (a notification's params or an answer's result) with the
// subscription id in its _meta turned from the id the gate gave the listen request into the id
// the client wrote: the request answered (answer), else one still in flight. ok is false when
// there is nothing to change.
func (g *gate) subscription(obj json.RawMessage, answer *inflight) (json.RawMessage, bool) {
	if !bytes.Contains(obj, []byte(subscriptionKey)) {
		return nil, false
	}
	var o map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if json.Unmarshal(obj, &o) != nil || json.Unmarshal(o["_meta"], &meta) != nil {
		return nil, false
	}
	id, err := strconv.ParseInt(string(meta[subscriptionKey]), 10, 64)
	if err != nil {
		return nil, false
	}
	var raw json.RawMessage
	if answer != nil {
		raw = answer.raw
	} else {
		g.mu.Lock()
		if c := g.pending[id]; c != nil {
			raw = c.raw
		}
		g.mu.Unlock()
	}
	if raw == nil {
		return nil, false
	}
	meta[subscriptionKey] = raw
	o["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(o)
	return out, err == nil
}

// resultPrefix is how the go-sdk begins the line of a successful answer, before its id.
var resultPrefix = []byte(`{"jsonrpc":"2.0","id":`)

// resultLine is outbound for the usual line, a successful answer under an id the gate gave,
// {"jsonrpc":"2.0","id":N,"result":VALUE} and nothing else: only the id is replaced, without
// decoding and encoding the line again (which would give the same message); out is nil for
// the answer to a cancelled request. ok is false for any other line.
func (g *gate) resultLine(line []byte) (out []byte, ok bool) {
	if !bytes.HasPrefix(line, resultPrefix) || !bytes.HasSuffix(line, []byte("}")) {
		return nil, false
	}
	rest := line[len(resultPrefix):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || (n > 1 && rest[0] == '0') || !bytes.HasPrefix(rest[n:], []byte(`,"result":`)) {
		return nil, false
	}
	value := bytes.TrimSpace(rest[n+len(`,"result":`) : len(rest)-1])
	if bytes.Equal(value, null) || !json.Valid(value) || bytes.Contains(value, []byte(subscriptionKey)) {
		return nil, false
	}
	id, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	if err != nil {
		return nil, false
	}
	c, ok := g.answered(id)
	if !ok {
		return line, true
	}
	if c.meta != nil {
		g.accept(c.meta)
	}
	if c.cancelled {
		return nil, true
	}
	out = make([]byte, 0, len(line)-n+len(c.raw))
	out = append(append(append(out, resultPrefix...), c.raw...), rest[n:]...)
	return out, true
}

// send passes one line from the server (without its newline) on to the client, through
// outbound, with the answers the server left out written in.
func (g *gate) send(line []byte) error {
	out := g.outbound(line)
	if out == nil {
		g.bodies.splice(line) // a cancelled call's answer: its bodies go too
		return nil
	}
	return g.writeLine(g.bodies.splice(out))
}

// lineOrErr is one line of the client's input, or why there is none. A line over the limit is
// dropped: its first bytes (head) and its length are all that was kept.
type lineOrErr struct {
	line    []byte
	dropped int64
	err     error
}

// headBytes of an oversized line are kept, to find the id to answer it with.
const headBytes = 4 << 10

// readLine reads one line of at most max bytes (its newline counted). A longer line is read
// through to its newline without being held: the first headBytes are kept, the rest counted
// and discarded chunk by chunk, so memory stays at the reader's buffer however long the line
// (a 300 MB line, or /dev/zero, which never ends one).
func readLine(r *bufio.Reader, max int) lineOrErr {
	var buf, head []byte
	var dropped int64
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case dropped > 0:
			dropped += int64(len(chunk))
		case len(buf)+len(chunk) <= max:
			buf = append(buf, chunk...)
		default:
			all := append(buf, chunk...)
			head = append([]byte(nil), all[:min(len(all), headBytes)]...)
			dropped, buf = int64(len(all)), nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if dropped > 0 {
			return lineOrErr{line: head, dropped: dropped, err: err}
		}
		return lineOrErr{line: buf, err: err}
	}
}

// headID is the id of a request whose line was too long to read, found among the top-level keys
// of its first bytes; nil when they do not show it (then the answer's id is null).
func headID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := k.(string)
		if !ok {
			return nil
		}
		if key == "id" {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil || !validID(raw) {
				return nil
			}
			var buf bytes.Buffer
			if json.Compact(&buf, raw) != nil {
				return nil
			}
			return buf.Bytes()
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil // the value runs past the head
		}
	}
}

// stdioConn is the server's connection: it passes the client's messages on, checked and
// renumbered, holds back the end of its input until the requests are all answered, and passes
// the server's messages back through the gate.
type stdioConn struct {
	g  *gate
	in *bufio.Reader
	// deadline is the input when it is read on the caller's goroutine (a read deadline ends a
	// wait on it); otherwise lines come from readLines.
	deadline  interface{ SetReadDeadline(time.Time) error }
	lines     chan lineOrErr
	queue     []jsonrpc.Message // read, not yet passed on (the rest of a batch)
	stop      func() bool
	closeOnce sync.Once
	closed    chan struct{}
	wmu       sync.Mutex // one message at a time through outbound
	maxLine   int        // a longer line is skipped unread and answered with an error
}

// readLines reads the input on its own goroutine, for an input no deadline can interrupt.
func (c *stdioConn) readLines() {
	for {
		l := readLine(c.in, c.maxLine)
		select {
		case c.lines <- l:
		case <-c.closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// next is the next line of the input.
func (c *stdioConn) next(ctx context.Context) lineOrErr {
	if c.deadline != nil {
		l := readLine(c.in, c.maxLine)
		select {
		case <-c.closed:
			return lineOrErr{err: io.EOF}
		default:
		}
		return l
	}
	select {
	case <-ctx.Done():
		return lineOrErr{err: ctx.Err()}
	case <-c.closed:
		return lineOrErr{err: io.EOF}
	case l := <-c.lines:
		return l
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for len(c.queue) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l := c.next(ctx)
		err := l.err
		if l.dropped > 0 {
			// bad messages never end the session: the line was skipped unread, and a request
			// whose id shows in its first bytes is answered
			c.g.reject(headID(l.line), codeInvalidRequest, fmt.Sprintf("Invalid Request: a message of %d bytes, over the %d bytes a line may hold; it was skipped unread", l.dropped, c.maxLine))
		} else {
			c.queue = c.g.inbound(l.line)
		}
		if len(c.queue) == 0 && err != nil {
			c.g.wait() // at once when ctx is done or the connection closed
			return nil, err
		}
	}
	m := c.queue[0]
	c.queue = c.queue[1:]
	return m, nil
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message to the client: %w", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.g.send(line)
}

// Close ends a read waiting for input and the wait for answers; the input and output themselves
// belong to the caller.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.stop()
		close(c.closed)
		c.g.mu.Lock()
		c.g.closed = true
		for _, p := range c.g.pending {
			if p.stop != nil {
				p.stop() // the go-sdk ends its own calls when the connection closes
			}
		}
		c.g.cond.Broadcast()
		c.g.mu.Unlock()
		if c.deadline != nil {
			c.deadline.SetReadDeadline(time.Now())
		}
	})
	return nil
}

func (c *stdioConn) SessionID() string { return "" }
