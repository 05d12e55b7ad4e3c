package tasks

import "bytes"

// scanTop walks the top-level members of a JSON object line and calls fn with each key (raw,
// without quotes) and the raw bytes of its value; fn returning false stops the walk. Nested
// values are skipped by a structural scan (strings jumped with IndexByte), so a transcript line
// whose bulk is a long tool output costs a few passes of memchr, not a full decode. It reports
// false when the line is not a JSON object as far as this scan can tell; values it hands out
// are not validated (the few lines replay uses are decoded for real afterwards).
func scanTop(data []byte, fn func(key, val []byte) bool) bool {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return len(bytes.TrimSpace(data[i+1:])) == 0
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end := stringEnd(data, i)
		if end < 0 {
			return false
		}
		key := data[i+1 : end-1]
		i = skipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipWS(data, i+1)
		vend := valueEnd(data, i)
		if vend < 0 {
			return false
		}
		if !fn(key, data[i:vend]) {
			return true
		}
		i = skipWS(data, vend)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return len(bytes.TrimSpace(data[i+1:])) == 0
		default:
			return false
		}
	}
	return false
}

func skipWS(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that opens at data[i] (a quote), or -1.
func stringEnd(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index just past the value that starts at data[i], or -1.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				e := stringEnd(data, j)
				if e < 0 {
					return -1
				}
				j = e - 1
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
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	return -1
}

// rawString returns the content of a JSON string value without unescaping (ids and types never
// hold escapes), or "" for anything else (null included).
func rawString(val []byte) string {
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' && bytes.IndexByte(val, '\\') < 0 {
		return string(val[1 : len(val)-1])
	}
	return ""
}

// scanObj walks the object that starts data; fn gets each key and the bytes from its value on,
// and returns the value's length (-1: malformed). scanObj returns the object's length, or -1.
func scanObj(data []byte, fn func(key, rest []byte) int) int {
	if len(data) == 0 || data[0] != '{' {
		return -1
	}
	i := skipWS(data, 1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for i < len(data) {
		if data[i] != '"' {
			return -1
		}
		end := stringEnd(data, i)
		if end < 0 {
			return -1
		}
		key := data[i+1 : end-1]
		i = skipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return -1
		}
		i = skipWS(data, i+1)
		n := fn(key, data[i:])
		if n <= 0 {
			return -1
		}
		i = skipWS(data, i+n)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
	return -1
}
