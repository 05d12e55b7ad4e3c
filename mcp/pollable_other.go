//go:build !unix

package mcp

import "io"

// pollable returns in as it is: only unix pipes are waited on through the runtime's poller.
func pollable(in io.Reader) (io.Reader, bool, func()) { return in, false, func() {} }
