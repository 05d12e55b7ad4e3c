package claudecode

import (
	"bytes"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/jsonscan"
)

// The quick scan: housekeeping records (attachment, api-request, cost-state, ...) and user lines
// that only carry tool results fill most of a transcript's bytes and yield no comment. They are
// recognised by one pass that skips over values instead of decoding them. Every function here
// answers ok=false for anything unusual (escaped keys, a key given twice, a broken structure);
// the caller then decodes the line in full. The scan checks the structure (strings, nesting,
// commas), not every literal.

// field is the raw value of the top-level key of the JSON object b.
func field(b []byte, key string) (val []byte, ok bool) {
	i := jsonscan.SkipWS(b, 0)
	found := false
	n := jsonscan.Object(b[i:], func(k, rest []byte) int {
		if bytes.IndexByte(k, '\\') >= 0 {
			return -1 // an escaped key may spell any key: decode the line instead
		}
		end := jsonscan.ValueEnd(rest, 0)
		if end > 0 && string(k) == key {
			if found {
				return -1 // a key given twice: encoding/json keeps the last, say nothing
			}
			val, found = rest[:end], true
		}
		return end
	})
	if n < 0 || !found || jsonscan.SkipWS(b, i+n) != len(b) {
		return nil, false
	}
	return val, true
}

// topType is the top-level "type" of the JSON object b when it is a plain string.
func topType(b []byte) (string, bool) {
	v, ok := field(b, "type")
	if !ok || len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if jsonscan.StringEnd(v, 0) != len(v) || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// onlyToolResults reports whether the user line b carries message.content as a non-empty array of
// tool_result blocks and nothing else.
func onlyToolResults(b []byte) bool {
	msg, ok := field(b, "message")
	if !ok {
		return false
	}
	content, ok := field(msg, "content")
	if !ok {
		return false
	}
	blocks := 0
	n := jsonscan.Array(content, func(elem []byte) int {
		end := jsonscan.ValueEnd(elem, 0)
		if end < 0 {
			return -1
		}
		if t, ok := topType(elem[:end]); !ok || t != "tool_result" {
			return -1
		}
		blocks++
		return end
	})
	return n == len(content) && blocks > 0
}
