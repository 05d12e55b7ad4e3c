package claudecode

import "unicode/utf8"

// The quick scan: housekeeping records (attachment, api-request, cost-state, ...) and user lines
// that only carry tool results fill most of a transcript's bytes and yield no comment. They are
// recognised by one pass that skips over values instead of decoding them. Every function here
// answers ok=false for anything unusual (escaped keys, a key given twice, a broken structure);
// the caller then decodes the line in full. The scan checks the structure (strings, nesting,
// commas), not every literal.

// field is the raw value of the top-level key of the JSON object b.
func field(b []byte, key string) (val []byte, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, false
	}
	found := false
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, plain := skipString(b, i)
		if end < 0 || !plain {
			return nil, false
		}
		k := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipWS(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return nil, false
		}
		if string(k) == key {
			if found {
				return nil, false
			}
			val, found = b[i:vend], true
		}
		i = skipWS(b, vend)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipWS(b, i+1)
		case i < len(b) && b[i] == '}' && skipWS(b, i+1) == len(b):
			return val, found
		default:
			return nil, false
		}
	}
}

// topType is the top-level "type" of the JSON object b when it is a plain string.
func topType(b []byte) (string, bool) {
	v, ok := field(b, "type")
	if !ok || len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if end, plain := skipString(v, 0); end != len(v) || !plain || !utf8.Valid(v) {
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
	if !ok || len(content) == 0 || content[0] != '[' {
		return false
	}
	n := 0
	i := skipWS(content, 1)
	for i < len(content) && content[i] != ']' {
		end := skipValue(content, i)
		if end < 0 {
			return false
		}
		if t, ok := topType(content[i:end]); !ok || t != "tool_result" {
			return false
		}
		n++
		i = skipWS(content, end)
		if i < len(content) && content[i] == ',' {
			i = skipWS(content, i+1)
		}
	}
	return n > 0
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"' (-1 if unterminated) and
// whether it holds no escapes.
func skipString(b []byte, i int) (int, bool) {
	plain := true
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			plain = false
			j++
		case '"':
			return j + 1, plain
		}
	}
	return -1, false
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := skipString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		return j
	}
}
