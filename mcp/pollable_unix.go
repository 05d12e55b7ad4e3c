//go:build unix

package mcp

import (
	"io"
	"os"
	"syscall"
)

// pollable returns in as a reader of its own (owned) the Go runtime's network poller waits on, when in is a pipe
// or a socket (what a client spawning `cairn mcp` gives it), and what releases it. A blocking
// read parks a whole thread in the kernel between calls; the runtime then takes its processor
// back and keeps its monitor polling every 20 µs, and each answer's arrival needs a thread
// woken and a processor found again: about a tenth of a warm call's CPU. Anything else (a
// file, a terminal) is read as it is.
func pollable(in io.Reader) (r io.Reader, owned bool, release func()) {
	f, ok := in.(*os.File)
	if !ok {
		return in, false, func() {}
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in, false, func() {}
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return in, false, func() {}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return in, false, func() {}
	}
	p := os.NewFile(uintptr(fd), f.Name())
	return p, true, func() {
		// the flag belongs to the pipe, which the client and f share: put it back
		syscall.SetNonblock(fd, false)
		p.Close()
	}
}
