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
// not grow with the log.
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
		var carry []byte
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			if need := len(carry) + chunkSize; cap(buf) < need {
				buf = make([]byte, need)
			}
			buf = buf[:len(carry)+chunkSize]
			copy(buf, carry)
			n, err := io.ReadFull(r, buf[len(carry):])
			data := buf[:len(carry)+n]
			eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
			if err != nil && !eof {
				readErr = err
				return
			}
			c := &chunk{buf: buf, done: make(chan struct{}), final: eof}
			if eof {
				c.data, carry = data, nil
			} else {
				cut := bytes.LastIndexByte(data, '\n')
				if cut < 0 {
					carry = append([]byte(nil), data...) // a line longer than a chunk: read on
					free <- buf
					continue
				}
				c.data, carry = data[:cut+1], append([]byte(nil), data[cut+1:]...)
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
			if eof {
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
		free <- c.buf[:0]
	}
	return readErr
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
