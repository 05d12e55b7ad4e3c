package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/cairn-dev/cairn/core/jsonscan"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
)

// A placeholder is replaced once by what it stands for; anything that only looks like one (of
// another session, with a number never handed out, or already replaced) is left alone.
func TestSplice(t *testing.T) {
	b := newBodies()
	text, structured := b.put([]byte(`{"n":1,"s":"a\"b"}`))
	if len(text) > 64 || len(structured) > 64 {
		t.Fatalf("placeholders %q and %s are not short", text, structured)
	}
	stranger := newBodies()
	otherText, _ := stranger.put([]byte(`{}`))
	never := strings.TrimPrefix(b.prefix, `"`) + "999"
	line, _ := json.Marshal(map[string]any{"a": text, "b": structured, "c": otherText, "d": never})
	got := b.splice(line)
	want := `{"a":"{\"n\":1,\"s\":\"a\\\"b\"}","b":{"n":1,"s":"a\"b"},"c":"` + otherText + `","d":"` + never + `"}` + "\n"
	if string(got) != want {
		t.Fatalf("spliced\n%s\nwant\n%s", got, want)
	}
	if again := b.splice(line); !bytes.Equal(again, append(line, '\n')) {
		t.Errorf("a placeholder was replaced twice: %s", again)
	}
	if len(b.m) != 0 {
		t.Errorf("%d entries left after their line went out", len(b.m))
	}
	// The same bytes put again (an answer the cache keeps) are not quoted again.
	kept := []byte(`{"tasks":["a \"b\""]}`)
	first, _ := b.put(kept)
	second, _ := b.put(kept)
	if t1, t2 := b.m[`"`+first+`"`], b.m[`"`+second+`"`]; &t1[0] != &t2[0] || string(t1) != string(jsonscan.AppendString(nil, string(kept))) {
		t.Errorf("texts of the same bytes: %s and %s", t1, t2)
	}
	other, _ := b.put([]byte(`{"tasks":[]}`))
	if got := string(b.m[`"`+other+`"`]); got != `"{\"tasks\":[]}"` {
		t.Errorf("text of other bytes: %s", got)
	}
	var nilBodies *bodies
	if got := nilBodies.splice([]byte(`{"x":1}`)); string(got) != "{\"x\":1}\n" {
		t.Errorf("no bodies: %q", got)
	}
}

// Through `cairn mcp`'s own server and transport, a tool's answer reaches the client whole: the
// text block is the answer serialized and the structured content the answer itself, as
// NewServer alone (the go-sdk encoding the answer) sends it; the go-sdk only ever sees the
// placeholders.
func TestServeSendsAnswersPastTheSDK(t *testing.T) {
	c := newContext(t)
	kept := tools.Keep(c.Workspace, tools.KeepOptions{}) // as `cairn mcp` runs: the task list comes encoded (tools.Encoded)
	c.Stores = kept
	defer kept.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, tools.New(), "test", c, sr, sw) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	subjects := []string{`a "quoted" word`, `C:\dir`, "two\nlines", "<b>&</b>", "迁移 🚀", "\u2028", "\x01"}
	for _, s := range subjects {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "task", "description": s}}); err != nil || res.IsError {
			t.Fatalf("TaskCreate %q: %v %+v", s, err, res)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("TaskList: %v %+v", err, res)
	}
	tool, _ := tools.New().Get("TaskList")
	fresh := c
	fresh.Stores = nil // the answer replayed and encoded anew
	out, err := tool.Call(ctx, fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(out)
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks", len(res.Content))
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != string(want) {
		t.Errorf("text block\n%s\nwant\n%s", text, want)
	}
	var wantValue any
	json.Unmarshal(want, &wantValue)
	if !reflect.DeepEqual(res.StructuredContent, wantValue) {
		t.Errorf("structured content\n%v\nwant\n%v", res.StructuredContent, wantValue)
	}
	for _, s := range subjects { // descriptions are in the answer
		if !strings.Contains(res.Content[0].(*sdk.TextContent).Text, string(must(json.Marshal(s)))) {
			t.Errorf("description %q missing from the answer", s)
		}
	}
	cs.Close()
	cw.Close()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// With bodies, the result the go-sdk encodes holds two short placeholders, not the answer.
func TestServerLeavesAnswersOut(t *testing.T) {
	ctx := context.Background()
	b := newBodies()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := newServer(tools.New(), "test", newContext(t), b, nil, nil).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "long", "description": strings.Repeat("long ", 1000)}})
	if err != nil || res.IsError {
		t.Fatalf("TaskCreate: %v %+v", err, res)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	structured, _ := res.StructuredContent.(string)
	for _, p := range []string{text, structured} {
		if !strings.HasPrefix(`"`+p, b.prefix) || len(p) > 64 {
			t.Errorf("the go-sdk was given %.80q, not a placeholder", p)
		}
	}
	if len(b.m) != 2 {
		t.Errorf("%d answers kept, want the text and the structured content", len(b.m))
	}
}
