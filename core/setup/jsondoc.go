package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// node is a JSON value that keeps the order of object keys, so a settings file is written back
// with the user's keys where they were.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' scalar
	keys  []string
	vals  []*node
	items []*node
	raw   []byte // a scalar's JSON text
}

func newObject() *node { return &node{kind: 'o'} }

func scalar(v any) *node {
	return &node{kind: 's', raw: encodeScalar(v)}
}

func stringArray(ss []string) *node {
	n := &node{kind: 'a'}
	for _, s := range ss {
		n.items = append(n.items, scalar(s))
	}
	return n
}

func encodeScalar(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, numbers, bools and nil cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// get returns the value of key (the last one when a key is repeated, as JSON.parse does).
func (n *node) get(key string) *node {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

// set replaces key's value in place, or appends the key.
func (n *node) set(key string, v *node) {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

// str is a string scalar's value, or "" with false.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != 's' || len(n.raw) == 0 || n.raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(n.raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (n *node) kindName() string {
	switch n.kind {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	}
	switch {
	case bytes.Equal(n.raw, []byte("null")):
		return "null"
	case n.raw[0] == '"':
		return "a string"
	case n.raw[0] == 't' || n.raw[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// equal compares two values; object key order matters, so equal means "would be written the same".
func (n *node) equal(m *node) bool {
	if n.kind != m.kind {
		return false
	}
	switch n.kind {
	case 'o':
		if len(n.keys) != len(m.keys) {
			return false
		}
		for i := range n.keys {
			if n.keys[i] != m.keys[i] || !n.vals[i].equal(m.vals[i]) {
				return false
			}
		}
		return true
	case 'a':
		if len(n.items) != len(m.items) {
			return false
		}
		for i := range n.items {
			if !n.items[i].equal(m.items[i]) {
				return false
			}
		}
		return true
	}
	return bytes.Equal(n.raw, m.raw)
}

// parseDoc reads a whole JSON document of app's (Claude Code, Codex). Only whitespace counts as
// an empty object, the way an editor or `touch` leaves a settings file.
func parseDoc(data []byte, app string) (*node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	if !json.Valid(data) {
		var se *json.SyntaxError
		err := json.Unmarshal(data, new(any))
		if hasComment(data) {
			return nil, fmt.Errorf("it has comments (// or /* */), which %s's JSON settings files do not allow", app)
		}
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("it is not valid JSON (line %d, column %d: %s)", line, col, se.Error())
		}
		return nil, fmt.Errorf("it is not valid JSON (%v)", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, fmt.Errorf("it is not valid JSON (%v)", err)
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // }
			return n, err
		case '[':
			n := &node{kind: 'a'}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token() // ]
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		return &node{kind: 's', raw: []byte(t.String())}, nil
	case string, bool, nil:
		return scalar(t), nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// encode writes the document as JSON.stringify(v, null, 2) does, which is how Claude Code writes
// its own files.
func (n *node) encode(w io.Writer, indent string) {
	switch n.kind {
	case 's':
		w.Write(n.raw)
	case 'o':
		if len(n.keys) == 0 {
			io.WriteString(w, "{}")
			return
		}
		io.WriteString(w, "{\n")
		for i, k := range n.keys {
			io.WriteString(w, indent+"  ")
			w.Write(encodeScalar(k))
			io.WriteString(w, ": ")
			n.vals[i].encode(w, indent+"  ")
			if i < len(n.keys)-1 {
				io.WriteString(w, ",")
			}
			io.WriteString(w, "\n")
		}
		io.WriteString(w, indent+"}")
	case 'a':
		if len(n.items) == 0 {
			io.WriteString(w, "[]")
			return
		}
		io.WriteString(w, "[\n")
		for i, v := range n.items {
			io.WriteString(w, indent+"  ")
			v.encode(w, indent+"  ")
			if i < len(n.items)-1 {
				io.WriteString(w, ",")
			}
			io.WriteString(w, "\n")
		}
		io.WriteString(w, indent+"]")
	}
}

func (n *node) bytes() []byte {
	var buf bytes.Buffer
	n.encode(&buf, "")
	buf.WriteByte('\n')
	return buf.Bytes()
}

// hasComment says whether // or /* appears outside a string.
func hasComment(data []byte) bool {
	in, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && c == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*'):
			return true
		}
	}
	return false
}

func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := string(data[:off])
	line = strings.Count(before, "\n") + 1
	col = len(before) - strings.LastIndex(before, "\n")
	return line, col
}
