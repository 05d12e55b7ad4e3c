// Package mcp is the Model Context Protocol face of cairn (`cairn mcp`): every agent tool of the
// registry served on standard input and output.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
)

// NewServer serves every tool of r over MCP; a tool's failure is an MCP tool error (isError with
// the error body as text), never a protocol error, so the model sees it and the server lives on.
func NewServer(r *tools.Registry, version string, c tools.Context) *sdk.Server {
	return newServer(r, version, c, nil)
}

// newServer is NewServer; with bodies set, a tool's answer is left out of the result the go-sdk
// encodes (placeholders stand in its place) and the stdio transport sharing bodies writes it.
func newServer(r *tools.Registry, version string, c tools.Context, b *bodies) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "cairn", Version: version}, nil)
	for _, t := range r.List() {
		ro := t.ReadOnly
		s.AddTool(&sdk.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.Schema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro, IdempotentHint: ro, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args json.RawMessage
			if req.Params != nil {
				args = req.Params.Arguments
			}
			out, err := t.Call(ctx, c, args)
			if err != nil {
				return errorResult(err), nil
			}
			body, err := answerJSON(out)
			if err != nil {
				return errorResult(err), nil
			}
			if b != nil {
				text, structured := b.put(body)
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: structured}, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}, StructuredContent: json.RawMessage(body)}, nil
		})
	}
	return s
}

// answerJSON is the answer's JSON: made already for an answer the cache keeps (tools.Encoded).
func answerJSON(out any) ([]byte, error) {
	if e, ok := out.(tools.Encoded); ok {
		return e.JSON, nil
	}
	return marshal(out)
}

// marshal is json.Marshal without HTML escaping: <, > and & are written as they are, not as
// \u003c (six bytes, seven once the text block quotes it again); the JSON value is the same.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func errorResult(err error) *sdk.CallToolResult {
	body, _ := marshal(tools.ErrorOf(err))
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}
}

// Serve runs the tools of r over MCP on in and out until the client's input ends or ctx is done;
// the end of the input is the normal end of a session, not an error.
func Serve(ctx context.Context, r *tools.Registry, version string, c tools.Context, in io.Reader, out io.Writer) error {
	defer raiseGC()()
	defer oneProc()()
	in, owned, release := pollable(in)
	defer release()
	b := newBodies()
	err := newServer(r, version, c, b).Run(ctx, newStdioTransport(ctx, in, out, b, owned))
	if err != nil && ctx.Err() == nil && !isClosed(err) {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

// isClosed recognises the end of the client's input, the normal way an stdio session ends.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, sdk.ErrConnectionClosed)
}

// servingGC is the garbage collector's target while Serve runs (GOGC=200): each message costs
// the go-sdk about 160 kB of short-lived buffers (32 kB per JSON decoding), on a small live
// heap, so at the default target a warm call spent about a third of the server's CPU (0.44 ms
// of a memory search's; 0.30 at 200, 0.28 at 400). 200 keeps most of that for less memory: a
// server answering a list of 10,000 tasks peaks at about 75 MiB (50 at 100, 95 at 400).
const servingGC = 200

// raiseGC raises the garbage collector's target to servingGC for a long-lived server, unless
// GOGC is set or the target is higher already, and returns what puts it back.
func raiseGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(servingGC)
	if old < 0 || old > servingGC {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// oneProc runs Go code on one thread at a time while Serve runs, unless GOMAXPROCS is set, and
// returns what puts the default back. The go-sdk hands every request from its reader to a new
// goroutine and that to another one; each hand-off with a processor idle wakes a thread that
// spins looking for work and steals it to another core, on the cores the client needs. On two
// cores that was half of a warm call's CPU (a memory search: 0.29 ms, 0.17 on one thread) and a
// quarter of its time (p50 0.33 ms, 0.24). The go-sdk runs one handler at a time anyway; what
// one thread gives up is a scan split across the cores, which the board and memory searches and
// the session log replay make of more than a megabyte of text.
func oneProc() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) == 1 {
		return func() {}
	}
	runtime.GOMAXPROCS(1)
	return func() { runtime.SetDefaultGOMAXPROCS() }
}

func boolPtr(b bool) *bool { return &b }
