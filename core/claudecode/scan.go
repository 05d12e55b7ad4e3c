package claudecode

import "unicode/utf8"

// topType finds the top-level "type" of a JSON object line without decoding it, so the
// housekeeping records that fill much of a transcript (attachment, api-request, cost-state, ...)
// are passed over in one cheap scan. ok is false when the line is not an object with exactly one
// top-level "type", a plain string, and keys without escapes: the caller then decodes it in full.
// The scan checks the structure (strings, nesting, commas), not every literal.
func topType(b []byte) (typ string, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i++
	found := false
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		start := i + 1
		end, plain := skipString(b, i)
		if end < 0 {
			return "", false
		}
		key := b[start : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return "", false
		}
		i = skipWS(b, i+1)
		if !plain {
			return "", false
		}
		if string(key) == "type" {
			vend, vplain := skipString(b, i)
			if found || i >= len(b) || b[i] != '"' || vend < 0 || !vplain || !utf8.Valid(b[i:vend]) {
				return "", false // a second "type", or one that is not a plain string
			}
			typ, found, i = string(b[i+1:vend-1]), true, vend
		} else if i = skipValue(b, i); i < 0 {
			return "", false
		}
		i = skipWS(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i++
		case i < len(b) && b[i] == '}' && skipWS(b, i+1) == len(b):
			return typ, found
		default:
			return "", false
		}
	}
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
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}
