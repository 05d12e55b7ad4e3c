package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewStdioTransport is the MCP transport of `cairn mcp`: newline-delimited JSON-RPC on r and w,
// where the end of r waits until every request read from it has been answered. The go-sdk
// cancels the requests in flight as soon as its input ends, so a client that writes its
// requests and closes its side at once (a shell pipe, a one-shot script) would otherwise get no
// answer at all. The wait ends early when ctx is done.
func NewStdioTransport(ctx context.Context, r io.Reader, w io.Writer) mcp.Transport {
	d := &drain{ctx: ctx}
	d.cond = sync.NewCond(&d.mu)
	stop := context.AfterFunc(ctx, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.cond.Broadcast()
	})
	return &mcp.IOTransport{
		Reader: &drainReader{d: d, in: bufio.NewReader(r), stop: stop},
		Writer: &answerWriter{d: d, out: w},
	}
}

// drain holds the ids of the requests read and not yet answered (or cancelled).
type drain struct {
	ctx     context.Context
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]bool
}

// rpcHead is what telling requests, responses and cancellations apart needs of a message.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey makes equal JSON ids (1 and 1, "a" and "a") equal map keys.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// note updates the pending set for one line read (in) or written (out): a message, or a batch of
// them as protocol versions before 2025-06-18 allow.
func (d *drain) note(line []byte, in bool) {
	line = bytes.TrimSpace(line)
	var batch []rpcHead
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &batch) != nil {
			return
		}
	} else {
		var h rpcHead
		if json.Unmarshal(line, &h) != nil {
			return
		}
		batch = []rpcHead{h}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range batch {
		d.noteOne(h, in)
	}
}

// noteOne updates the pending set for one message; d.mu is held.
func (d *drain) noteOne(h rpcHead, in bool) {
	switch id := idKey(h.ID); {
	case in && h.Method != "" && id != "":
		if d.pending == nil {
			d.pending = map[string]bool{}
		}
		d.pending[id] = true
	case in && h.Method == "notifications/cancelled":
		// A cancelled request gets no answer (MCP): stop waiting for it.
		delete(d.pending, idKey(h.Params.RequestID))
		d.cond.Broadcast()
	case !in && h.Method == "" && id != "":
		delete(d.pending, id)
		d.cond.Broadcast()
	}
}

// drainReader passes r through unchanged, counting the requests in it, and holds back its end
// until they are all answered.
type drainReader struct {
	d    *drain
	in   *bufio.Reader
	buf  []byte
	stop func() bool
}

func (r *drainReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		line, err := r.in.ReadBytes('\n')
		if len(line) > 0 {
			r.d.note(line, true)
			r.buf = line
		} else if err != nil {
			r.d.mu.Lock()
			for len(r.d.pending) > 0 && r.d.ctx.Err() == nil {
				r.d.cond.Wait()
			}
			r.d.mu.Unlock()
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

// answerWriter passes the server's output through, counting the responses in it.
type answerWriter struct {
	d       *drain
	out     io.Writer
	partial []byte
}

func (w *answerWriter) Write(p []byte) (int, error) {
	n, err := w.out.Write(p)
	w.partial = append(w.partial, p[:n]...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.d.note(w.partial[:i], false)
		w.partial = w.partial[i+1:]
	}
	return n, err
}

// Close leaves the output open: it belongs to the caller.
func (w *answerWriter) Close() error { return nil }
