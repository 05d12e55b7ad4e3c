// Package jsonscan walks JSON text by its structure without decoding it: strings are jumped with
// bytes.IndexByte and nested values skipped by their depth, so a transcript line whose bulk is a
// long tool output costs a few passes of memchr, not a full decode. It checks the structure
// (strings, nesting, separators), not every literal; callers decode for real what they keep.
// AppendString is the one hand-written JSON string writer, for faces that write answers directly.
package jsonscan

import "bytes"

// SkipWS returns the index of the first byte at or after i that is not JSON white space.
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index just past the string that opens at b[i] (a quote), or -1.
func StringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // backslashes right before the quote: an odd count escapes it
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// ValueEnd returns the index just past the value that starts at b[i], or -1. A literal (number,
// true, false, null) runs to the next separator, white space or the end of b.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := StringEnd(b, j)
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
	case ',', '}', ']', ':':
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// Object walks the object at the start of b: fn gets each key (raw, without its quotes) and the
// bytes from its value on, and returns the value's length, or -1 when it is malformed. Object
// returns the object's length, or -1.
func Object(b []byte, fn func(key, rest []byte) int) int {
	return members(b, '{', '}', func(i int) int {
		if b[i] != '"' {
			return -1
		}
		end := StringEnd(b, i)
		if end < 0 {
			return -1
		}
		key := b[i+1 : end-1]
		j := SkipWS(b, end)
		if j >= len(b) || b[j] != ':' {
			return -1
		}
		j = SkipWS(b, j+1)
		if n := fn(key, b[j:]); n > 0 {
			return j + n - i
		}
		return -1
	})
}

// Array walks the array at the start of b: fn gets the bytes from each element on and returns
// the element's length, or -1 when it is malformed. Array returns the array's length, or -1.
func Array(b []byte, fn func(rest []byte) int) int {
	return members(b, '[', ']', func(i int) int { return fn(b[i:]) })
}

// members walks the comma-separated members between open at b[0] and its close: member reads
// the one at b[i] and returns its length, or -1 when it is malformed. members returns the
// length of the whole, or -1.
func members(b []byte, open, close byte, member func(i int) int) int {
	if len(b) == 0 || b[0] != open {
		return -1
	}
	i := SkipWS(b, 1)
	if i < len(b) && b[i] == close {
		return i + 1
	}
	for i < len(b) {
		n := member(i)
		if n <= 0 {
			return -1
		}
		if i = SkipWS(b, i+n); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case close:
			return i + 1
		default:
			return -1
		}
	}
	return -1
}

// Value is the callback for Object and Array that skips the value at the start of rest.
func Value(rest []byte) int { return ValueEnd(rest, 0) }
