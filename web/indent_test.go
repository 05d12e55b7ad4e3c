package web

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/scripts/gen-board/boardgen"
)

// encoderIndented is the encoding the answers must keep: json.Encoder, indented, HTML not escaped.
func encoderIndented(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The answers are written byte for byte as json.Encoder indents them: search results of a
// generated board (CJK, empty lists, nulls, nested hits) and values with every kind of string
// (quotes, backslashes, brackets and colons inside strings, control characters, U+2028, invalid
// UTF-8, HTML characters).
func TestEncodeIndentedSameAsEncoder(t *testing.T) {
	dir := t.TempDir()
	if _, err := workspace.Init(dir); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := boardgen.Write(&doc, 1, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := board.Import(context.Background(), ws, &doc); err != nil {
		t.Fatal(err)
	}
	ix, err := board.Load(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	values := []any{
		map[string]any{}, []any{}, nil, 0, "x", []any{[]any{}, map[string]any{}, []any{1, []any{}}},
		map[string]any{"a\"{[,:]}\\": []string{"\\", "\"", "{}", "[]", ",", ":", "\\\"", "a\\\\"}},
		[]string{"<&>", "\u2028\u2029", "\x00\x01\x1f\b\f\n\r\t", "\xff\xfe", "迁移 ログイン", ""},
		map[string]any{"nested": map[string]any{"empty": map[string]any{}, "list": []any{nil, true, 1.5e300, math.Copysign(0, -1)}}},
	}
	// Hand-made results: every string field with the hard characters, nil and empty slices,
	// omitempty fields empty and set, a workspace id and none.
	hard := []string{"", "plain", "<&>\"\\/", "\u2028\u2029", "\x00\x01\x1f\x7f\b\f\n\r\t", "\xff\xfe ok \xe8\xbf", "迁移 ログイン 😀", "{[,:]}"}
	for i, h := range hard {
		ws := h
		wsp := &ws
		if i%2 == 1 {
			wsp = nil
		}
		hit := board.Hit{Source: board.Source(h), RefID: h, Field: h, Snippet: h, Ranges: []board.Range{{0, i}, {i, i + 1}}, At: h, Status: h}
		values = append(values,
			&board.Result{
				Cards: []board.CardResult{
					{TaskID: h, ProjectID: h, ProjectTitle: h, WorkspaceID: wsp, Title: h, Status: h, Type: h, Archived: i%3 == 0, UpdatedAt: h, Hits: []board.Hit{hit, {Ranges: []board.Range{}}}},
					{Hits: []board.Hit{}},
					{},
				},
				Memory:    []board.MemoryResult{{ID: h, ProjectID: h, Kind: h, Title: h, Snippet: h, Ranges: nil}, {Ranges: []board.Range{{1, 2}}}},
				Truncated: i%2 == 0,
				Partial:   []string{h, "memory"},
			},
			&board.Result{},
			&board.Result{Cards: []board.CardResult{}, Memory: []board.MemoryResult{}, Partial: []string{}},
		)
	}
	limit := board.MaxCardLimit
	for _, q := range []string{"迁移", "sqlite timeout", "a", "kumquat-not-there", "#perf", `"card search"`, "ログイン", "TL-4"} {
		res, err := ix.Search(context.Background(), ws.Config.Board, board.SearchInput{Query: q, Limit: &limit})
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, res)
	}
	cards := 0
	for _, v := range values {
		var got bytes.Buffer
		if err := encodeIndented(&got, v); err != nil {
			t.Fatal(err)
		}
		if want := encoderIndented(t, v); got.String() != want {
			t.Fatalf("encodeIndented differs from json.Encoder:\n got %q\nwant %q", got.String(), want)
		}
		if r, ok := v.(*board.Result); ok {
			cards += len(r.Cards)
		}
	}
	if cards < 50 || !strings.Contains(encoderIndented(t, values), "迁移") {
		t.Errorf("the searches found %d cards: the comparison says little", cards)
	}
}
