package workspace

import (
	"context"
	"io"
)

// ContextReader reads r until ctx ends, then fails with ctx's error, so reading a big document
// or log in chunks stops within one chunk of a cancel.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
