// Package formats holds what describes the two import formats that ship with cairn: the JSON
// Schemas of the space JSON Lines and the board document (docs/formats.md documents both), the
// output spellings accepted as aliases of input fields, and the messages that turn a decoding
// error into one a user can act on. It depends on the standard library only.
package formats

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// Doc is the document, in the repository and in every release, that describes both formats.
const Doc = "docs/formats.md"

// SpaceSchema is the JSON Schema of one line of `cairn space import` (and `cairn space export`).
//
//go:embed space-import.schema.json
var SpaceSchema []byte

// BoardSchema is the JSON Schema of the document of `cairn board import` (and `cairn board export`).
//
//go:embed board-import.schema.json
var BoardSchema []byte

// Alias is another spelling of an input field: the one a search answer prints.
type Alias struct {
	Field, Alias string
}

// Rename rewrites the aliases of one JSON object to their field names. An object that does not
// mention an alias is returned as it is, so the common case costs one scan. Giving a field and
// its alias both is an error naming both.
func Rename(raw []byte, aliases []Alias) ([]byte, error) {
	hit := false
	for _, a := range aliases {
		if bytes.Contains(raw, []byte(`"`+a.Alias+`"`)) {
			hit = true
			break
		}
	}
	if !hit {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return raw, nil // not an object: the decoder says what is wrong
	}
	changed := false
	for _, a := range aliases {
		v, ok := m[a.Alias]
		if !ok {
			continue
		}
		if _, both := m[a.Field]; both {
			return nil, fmt.Errorf("both %q and %q are given: they are one field (%q is the spelling search answers print), give one", a.Field, a.Alias, a.Alias)
		}
		delete(m, a.Alias)
		m[a.Field] = v
		changed = true
	}
	if !changed {
		return raw, nil
	}
	return json.Marshal(m)
}

// Fields lists the JSON names of a struct's fields and their aliases, for "valid fields" messages.
func Fields(v any, aliases []Alias) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, name)
		for _, a := range aliases {
			if a.Field == name {
				out = append(out, a.Alias)
			}
		}
	}
	return out
}

// MessageIn is Message for an error decoding data: JSON that does not parse is placed by line and
// column (and byte) in data, as an editor shows it.
func MessageIn(err error, fields []string, data []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := Position(data, se.Offset-1) // Offset counts the byte at fault
		return fmt.Sprintf("not valid JSON at line %d, column %d (byte %d): %s", line, col, se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return Message(err, fields)
}

// Position is the line and column (both from 1; the column in characters) of byte offset in
// data; an offset past the end is the end.
func Position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	head := data[:offset]
	line = bytes.Count(head, []byte("\n")) + 1
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[i+1:]
	}
	return line, utf8.RuneCount(head) + 1
}

// Message turns an error of encoding/json into one that names the field, what was given and what
// is valid; fields are the valid field names (see Fields) for an unknown field.
func Message(err error, fields []string) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Sprintf("got %s, want %s", article(te.Value), TypeName(te.Type))
		}
		return fmt.Sprintf("%s: got %s, want %s", field, article(te.Value), TypeName(te.Type))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		valid := slices.Clone(fields)
		return fmt.Sprintf("unknown field %s (valid fields: %s)", name, strings.Join(valid, ", "))
	}
	if msg == "EOF" || msg == "unexpected EOF" {
		return "the JSON ends too early"
	}
	return msg
}

func article(v string) string {
	switch v {
	case "":
		return "a value of another type"
	}
	if strings.HasPrefix(v, "a") || strings.HasPrefix(v, "o") {
		return "an " + v
	}
	return "a " + v
}

// GivenKind names encoding/json's description of a value it could not store (the Value of a
// json.UnmarshalTypeError: "string", "number 1.5"), so messages speak of JSON, not Go.
func GivenKind(v string) string {
	switch {
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "bool":
		return "a boolean"
	case v == "string":
		return "a string"
	case v == "object":
		return "an object"
	case v == "array":
		return "an array"
	}
	return "a value of the wrong type"
}

// TypeName names the JSON a Go type is decoded from ("a string", "true or false", "a list of
// strings", "an object"), so that every decoding message speaks of JSON and never of Go types.
func TypeName(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem() == reflect.TypeFor[json.RawMessage]() {
			return "a list of objects"
		}
		return listOf(TypeName(t.Elem()))
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// listOf names a list whose items are of the named JSON type.
func listOf(item string) string {
	switch {
	case item == "true or false":
		return "a list of true or false values"
	case strings.HasPrefix(item, "a list"):
		return "a list of lists"
	case item == "another type":
		return "a list"
	}
	return "a list of " + strings.TrimPrefix(strings.TrimPrefix(item, "an "), "a ") + "s"
}
