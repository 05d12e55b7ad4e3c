package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"github.com/cairn-dev/cairn/core/jsonscan"
	"strconv"
	"sync"
)

// bodies carries tool answers from the server's handler to the stdio transport past the go-sdk.
// The go-sdk encodes a result, then the message around it, and encoding/json scans every raw
// JSON value it embeds again each time: for the 2 MB answer of a task list of 10,000 tasks, sent
// as text and as structured content, that was about 160 ms of a call, and the transport's own
// decoding and encoding of the line 100 ms more. So the handler puts the answer's JSON here and
// returns a result holding two short placeholders; the transport writes the line the go-sdk
// made with each placeholder replaced, once, by what it stands for. The client gets the same
// message: the text block is the answer serialized, structuredContent the answer itself.
//
// A placeholder is a JSON string made of a random prefix drawn for the session and a counter, so
// no client input or answer can spell one. Each is replaced once and forgotten; the go-sdk writes
// every result a handler returns, so an entry outlives its call only when the session's output
// fails, and the session ends with it.
type bodies struct {
	prefix string // `"cairn-answer-<random hex>-`: a placeholder is prefix + n + `"`
	mu     sync.Mutex
	next   uint64
	m      map[string][]byte // placeholder, quotes included → the JSON written in its place
	// the last body put and its text: a body the cache keeps (tools.Encoded) comes again, the
	// same bytes, until its files change, and is not quoted again.
	lastBody, lastText []byte
}

// newBodies draws the session's placeholder prefix.
func newBodies() *bodies {
	var r [16]byte
	rand.Read(r[:]) // never fails (crypto/rand)
	return &bodies{prefix: `"cairn-answer-` + hex.EncodeToString(r[:]) + `-`, m: map[string][]byte{}}
}

// put keeps the JSON answer body (valid UTF-8, as encoding/json writes it) and returns what the
// result holds instead: the text of its text block, and its structured content.
func (b *bodies) put(body []byte) (text string, structured json.RawMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := func() string {
		b.next++
		return b.prefix + strconv.FormatUint(b.next, 10) + `"`
	}
	textKey, structuredKey := key(), key()
	b.m[textKey] = b.quoted(body)
	b.m[structuredKey] = body
	return textKey[1 : len(textKey)-1], json.RawMessage(structuredKey)
}

// text is the answer body quoted as the text of a text block, as put makes it: the gate's direct
// path writes it itself. A nil b quotes it anew.
func (b *bodies) text(body []byte) []byte {
	if b == nil {
		return jsonscan.AppendString(nil, string(body))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.quoted(body)
}

// quoted is body quoted, the last one kept for the next time it comes; b.mu is held.
func (b *bodies) quoted(body []byte) []byte {
	if len(body) == 0 || len(body) != len(b.lastBody) || &body[0] != &b.lastBody[0] {
		b.lastBody, b.lastText = body, jsonscan.AppendString(nil, string(body))
	}
	return b.lastText
}

// splice returns line, with a newline, each placeholder in it replaced by what it stands for. A
// nil b (a transport without a server sharing it) returns the line as it is.
func (b *bodies) splice(line []byte) []byte {
	if b == nil || !bytes.Contains(line, []byte(b.prefix)) {
		return append(bytes.Clone(line), '\n')
	}
	type span struct {
		start, end int
		with       []byte
	}
	var spans []span
	size := len(line) + 1
	b.mu.Lock()
	for at := 0; ; {
		i := bytes.Index(line[at:], []byte(b.prefix))
		if i < 0 {
			break
		}
		start := at + i
		n := len(b.prefix)
		for start+n < len(line) && line[start+n] >= '0' && line[start+n] <= '9' {
			n++
		}
		at = start + n
		if start+n >= len(line) || line[start+n] != '"' {
			continue
		}
		key := string(line[start : start+n+1])
		with, ok := b.m[key]
		if !ok {
			continue
		}
		delete(b.m, key)
		at = start + n + 1
		spans = append(spans, span{start, at, with})
		size += len(with) - (at - start)
	}
	b.mu.Unlock()
	out := make([]byte, 0, size)
	last := 0
	for _, s := range spans {
		out = append(append(out, line[last:s.start]...), s.with...)
		last = s.end
	}
	return append(append(out, line[last:]...), '\n')
}
