package workspace

import (
	"context"
	"strings"
	"testing"
)

// ContextReader fails the first read after the cancel: a cancelled replay or import stops within
// one chunk of its input.
func TestContextReaderStopsAtCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := ContextReader(ctx, strings.NewReader(strings.Repeat("x", 100)))
	buf := make([]byte, 10)
	if n, err := r.Read(buf); n != 10 || err != nil {
		t.Fatalf("read before the cancel: %d, %v", n, err)
	}
	cancel()
	if n, err := r.Read(buf); n != 0 || err != context.Canceled {
		t.Fatalf("read after the cancel: %d, %v; want 0, context.Canceled", n, err)
	}
}
