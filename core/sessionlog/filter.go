package sessionlog

import (
	"bytes"
	"errors"
	"io"
	"runtime"
)

// chunkSize is how much of the log one worker filters at a time; a few chunks in flight bound
// the memory of a replay whatever the size of the log.
const chunkSize = 1 << 20

// MaxLineBytes is the longest line Filter and Scanner hand over whole. A task call, a compact
// snapshot or a Claude Code transcript line fits with room to spare (a transcript line carrying a
// few full-size images is a few MB; a task description is at most 64 KiB); a longer line is read
// through in chunks and never held, so a log with a gigabyte line replays in the memory of the cap.
const MaxLineBytes = 32 << 20

// maxLine is MaxLineBytes, lowered by tests.
var maxLine = MaxLineBytes

// headBytes is how much of an over-long line is kept: enough for keep to see what kind of
// entry it starts, and for a reader to be told which line it was.
const headBytes = 64 << 10

type chunk struct {
	buf   []byte // the whole buffer, returned to the pool when the chunk is consumed
	data  []byte
	final bool
	lines []Line
	count int
	done  chan struct{}
}

// Filter streams r and calls fn, in log order, for every line keep accepts and for a torn final
// line; fn returning false stops the scan. Lines are cut and filtered on every core, because the
// pre-filter (not the decoding of the few lines that matter) is what a replay spends its time on.
// A line's Data is valid only during fn. At most workers+2 chunk buffers exist, so memory does
// not grow with the log. A line longer than MaxLineBytes is read through without being held:
// fn gets it with TooLong set, Size its length and Data its first 64 KiB when keep accepts those
// bytes (a torn one always), so a replay can report it as skipped.
func Filter(r io.Reader, keep func([]byte) bool, fn func(Line) bool) error {
	workers := runtime.GOMAXPROCS(0)
	inFlight := workers + 2
	jobs := make(chan *chunk, workers)
	order := make(chan *chunk, inFlight)
	free := make(chan []byte, inFlight)
	for i := 0; i < inFlight; i++ {
		free <- nil // a token; the buffer is allocated on first use
	}
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		var carry []byte // what followed the last cut: the start of the next line (or lines)
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			c, err := nextChunk(r, buf, &carry, keep)
			if err != nil {
				readErr = err
				return
			}
			select {
			case order <- c:
			case <-stop:
				return
			}
			select {
			case jobs <- c:
			case <-stop:
				return
			}
			if c.final {
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for c := range jobs {
				c.split(keep)
				close(c.done)
			}
		}()
	}
	base := 0
	for c := range order {
		<-c.done
		for _, l := range c.lines {
			l.No += base
			if !fn(l) {
				close(stop)
				for range order { // let the reader finish; workers end when jobs closes
				}
				return nil
			}
		}
		base += c.count
		if cap(c.buf) > 4*chunkSize {
			free <- nil // a buffer grown for a long line is not kept
		} else {
			free <- c.buf[:0]
		}
	}
	return readErr
}

// nextChunk fills buf with carry and then chunks of r until it holds at least one whole line (or
// the end of r), and returns those whole lines as a chunk, leaving what follows in carry. A line
// that grows past maxLine is read through to its end without being kept (skipLong).
func nextChunk(r io.Reader, buf []byte, carry *[]byte, keep func([]byte) bool) (*chunk, error) {
	if cap(buf) < len(*carry)+chunkSize {
		buf = make([]byte, 0, len(*carry)+chunkSize)
	}
	buf = append(buf[:0], *carry...)
	*carry = (*carry)[:0]
	scanned := 0 // no newline in buf[:scanned] after the last one found
	for {
		if cut := bytes.LastIndexByte(buf[scanned:], '\n'); cut >= 0 && scanned < len(buf) {
			cut += scanned
			*carry = append(*carry, buf[cut+1:]...)
			return &chunk{buf: buf, data: buf[:cut+1], done: make(chan struct{})}, nil
		}
		scanned = len(buf)
		if len(buf) > maxLine {
			return skipLong(r, buf, carry, keep)
		}
		if cap(buf)-len(buf) < chunkSize {
			// Doubling (linear time for a long line), up to what the longest line handed over needs.
			grown := make([]byte, len(buf), max(min(2*cap(buf)+chunkSize, maxLine+2*chunkSize), len(buf)+chunkSize))
			copy(grown, buf)
			buf = grown
		}
		n, err := io.ReadFull(r, buf[len(buf):len(buf)+chunkSize])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &chunk{buf: buf, data: buf, final: true, done: make(chan struct{})}, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// skipLong reads the rest of an over-long line (buf holds its start, with no newline) into buf
// chunk by chunk, keeping only its head, and returns a chunk of that one line: reported as
// TooLong when keep accepts its head or when it is torn, counted either way.
func skipLong(r io.Reader, buf []byte, carry *[]byte, keep func([]byte) bool) (*chunk, error) {
	head := append([]byte(nil), buf[:min(len(buf), headBytes)]...)
	size := int64(len(buf))
	c := &chunk{buf: buf, count: 1, done: make(chan struct{})}
	for {
		n, err := io.ReadFull(r, buf[:chunkSize])
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			size += int64(i)
			*carry = append(*carry, buf[i+1:n]...)
			if keep(head) {
				c.lines = []Line{{No: 1, Data: head, TooLong: true, Size: size}}
			}
			return c, nil
		}
		size += int64(n)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			c.final = true
			c.lines = []Line{{No: 1, Data: head, Torn: true, TooLong: true, Size: size}}
			return c, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// split cuts a chunk into lines, numbering them from 1, and keeps those that pass.
func (c *chunk) split(keep func([]byte) bool) {
	data := c.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			c.count++
			c.lines = append(c.lines, Line{No: c.count, Data: data, Torn: true})
			return
		}
		line := data[:i]
		data = data[i+1:]
		c.count++
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if keep(line) {
			c.lines = append(c.lines, Line{No: c.count, Data: line})
		}
	}
}
