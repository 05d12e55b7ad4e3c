package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainIdle bounds the wait at the end of input: when requests are still unanswered and the
// server has written nothing for this long, the input ends anyway.
const drainIdle = 30 * time.Second

// NewStdioTransport is the MCP transport of `cairn mcp`: newline-delimited JSON-RPC on r and w.
//   - The end of r waits until every request read from it has been answered. The go-sdk cancels
//     the requests in flight as soon as its input ends, so a client that writes its requests and
//     closes its side at once (a shell pipe, a one-shot script) would otherwise get no answer.
//     The wait ends early when ctx is done, or when the server has been silent for drainIdle.
//   - A line that is not JSON, or not a JSON-RPC object or batch, gets the JSON-RPC error
//     answer (-32700 parse error, -32600 invalid request) and is not passed on: the go-sdk
//     would end the whole session on it, dropping every answer still due.
func NewStdioTransport(ctx context.Context, r io.Reader, w io.Writer) mcp.Transport {
	d := &drain{ctx: ctx, lastWrite: time.Now()}
	d.cond = sync.NewCond(&d.mu)
	stop := context.AfterFunc(ctx, d.wake)
	out := &answerWriter{d: d, out: w}
	return &mcp.IOTransport{
		Reader: &drainReader{d: d, in: bufio.NewReader(r), out: out, stop: stop},
		Writer: out,
	}
}

// drain holds the ids of the requests read and not yet answered (or cancelled).
type drain struct {
	ctx       context.Context
	mu        sync.Mutex
	cond      *sync.Cond
	pending   map[string]bool
	lastWrite time.Time
}

func (d *drain) wake() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cond.Broadcast()
}

// wait blocks until nothing is pending, ctx is done, or the server has been silent too long.
func (d *drain) wait() {
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
				d.wake()
			}
		}
	}()
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.pending) > 0 && d.ctx.Err() == nil && time.Since(d.lastWrite) < drainIdle {
		d.cond.Wait()
	}
}

// rpcHead is what telling requests, responses and cancellations apart needs of a message.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey maps a JSON id to the id the go-sdk answers with: a number becomes int64(n), as its
// jsonrpc2.MakeID does (so 1.5 is answered as 1), a string stays itself. "" means no id.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch v := v.(type) {
	case float64:
		return strconv.FormatInt(int64(v), 10)
	case string:
		return strconv.Quote(v)
	}
	return ""
}

// messages splits one line into the JSON-RPC messages it holds: one object, or a batch (an
// array) as protocol versions before 2025-06-18 allow. ok is false for anything else.
func messages(line []byte) (heads []rpcHead, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		return heads, json.Unmarshal(line, &heads) == nil
	}
	var h rpcHead
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &h) != nil {
		return nil, false
	}
	return []rpcHead{h}, true
}

// note updates the pending set for the messages of one line read (in) or written (out).
func (d *drain) note(heads []rpcHead, in bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !in {
		d.lastWrite = time.Now()
	}
	for _, h := range heads {
		switch id := idKey(h.ID); {
		case in && h.Method != "" && id != "":
			if d.pending == nil {
				d.pending = map[string]bool{}
			}
			d.pending[id] = true
		case in && h.Method == "notifications/cancelled":
			// A cancelled request gets no answer (MCP): stop waiting for it.
			delete(d.pending, idKey(h.Params.RequestID))
		case !in && h.Method == "" && id != "":
			delete(d.pending, id)
		}
	}
	d.cond.Broadcast()
}

// drainReader passes r through, counting the requests in it and answering lines that are not
// JSON-RPC itself, and holds back its end until the requests are all answered.
type drainReader struct {
	d    *drain
	in   *bufio.Reader
	out  *answerWriter
	buf  []byte
	stop func() bool
}

func (r *drainReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		line, err := r.in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if heads, ok := messages(line); ok {
				r.d.note(heads, true)
				r.buf = line
			} else if json.Valid(line) {
				r.out.reject(-32600, "Invalid Request: not a JSON-RPC object or batch")
			} else {
				r.out.reject(-32700, "Parse error: the line is not JSON")
			}
		}
		if len(r.buf) == 0 && err != nil {
			r.d.wait()
			return 0, err
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// Close releases the context watch; the input itself belongs to the caller.
func (r *drainReader) Close() error {
	r.stop()
	return nil
}

// answerWriter passes the server's output through, counting the responses in it. Its own
// mutex keeps the reader's error answers from interleaving with the server's messages.
type answerWriter struct {
	d       *drain
	mu      sync.Mutex
	out     io.Writer
	partial []byte
}

func (w *answerWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.out.Write(p)
	w.partial = append(w.partial, p[:n]...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		if heads, ok := messages(w.partial[:i]); ok {
			w.d.note(heads, false)
		}
		w.partial = w.partial[i+1:]
	}
	return n, err
}

// reject writes a JSON-RPC error answer with a null id, for a line the server never sees.
func (w *answerWriter) reject(code int, message string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	w.Write(append(body, '\n'))
}

// Close leaves the output open: it belongs to the caller.
func (w *answerWriter) Close() error { return nil }
