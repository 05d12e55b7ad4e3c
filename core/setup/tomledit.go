package setup

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// A config.toml is edited as text, so every comment, blank line and key the user wrote stays
// byte for byte: BurntSushi/toml only validates the file and says what it holds. The text is
// cut into items (a table header, a key = value statement with its value's lines, or a blank or
// comment line); setup rewrites the command and args statements of [mcp_servers.cairn], or
// appends that table, and then parses the result again to check that nothing else changed.

// tomlItem is one piece of a TOML document's text.
type tomlItem struct {
	kind     byte     // 'h' a table header, 'k' a key/value statement, 'o' a blank or comment line
	array    bool     // [[...]]
	path     []string // the header's table, or the statement's key (relative to its table)
	start    int      // where the item's line begins
	keyStart int      // 'k': where the key begins
	valEnd   int      // 'k': where the value ends (before spaces and a comment)
	end      int      // after the item's last newline (or the end of the text)
	line     int      // 1-based line of start
}

type tomlScanner struct {
	src  []byte
	i    int
	line int
}

var errTOMLLayout = errors.New("cairn cannot follow the layout of this TOML")

// scanTOML cuts a document that has already parsed into items.
func scanTOML(src []byte) ([]tomlItem, error) {
	s := &tomlScanner{src: src, line: 1}
	var items []tomlItem
	for s.i < len(src) {
		it := tomlItem{start: s.i, line: s.line}
		s.skipSpace()
		switch c := s.peek(); {
		case c == 0 || c == '\n' || c == '\r' || c == '#':
			it.kind = 'o'
		case c == '[':
			it.kind = 'h'
			s.i++
			if s.peek() == '[' {
				it.array = true
				s.i++
			}
			p, err := s.keyPath()
			if err != nil {
				return nil, err
			}
			it.path = p
			s.skipSpace()
			if !s.eat(']') || (it.array && !s.eat(']')) {
				return nil, s.fail()
			}
		default:
			it.kind = 'k'
			it.keyStart = s.i
			p, err := s.keyPath()
			if err != nil {
				return nil, err
			}
			it.path = p
			s.skipSpace()
			if !s.eat('=') {
				return nil, s.fail()
			}
			s.skipSpace()
			if err := s.value(); err != nil {
				return nil, err
			}
			it.valEnd = s.i
		}
		if err := s.restOfLine(); err != nil {
			return nil, err
		}
		it.end = s.i
		items = append(items, it)
	}
	return items, nil
}

func (s *tomlScanner) peek() byte {
	if s.i < len(s.src) {
		return s.src[s.i]
	}
	return 0
}

func (s *tomlScanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *tomlScanner) fail() error {
	return fmt.Errorf("%w (line %d)", errTOMLLayout, s.line)
}

func (s *tomlScanner) skipSpace() {
	for s.peek() == ' ' || s.peek() == '\t' {
		s.i++
	}
}

// restOfLine skips spaces and a comment up to and past the newline.
func (s *tomlScanner) restOfLine() error {
	s.skipSpace()
	if s.peek() == '#' {
		for s.i < len(s.src) && s.src[s.i] != '\n' {
			s.i++
		}
	}
	if s.peek() == '\r' {
		s.i++
	}
	switch {
	case s.i >= len(s.src):
		return nil
	case s.src[s.i] == '\n':
		s.i++
		s.line++
		return nil
	}
	return s.fail()
}

// keyPath reads a dotted key of bare, "basic" and 'literal' parts.
func (s *tomlScanner) keyPath() ([]string, error) {
	var path []string
	for {
		s.skipSpace()
		var part string
		switch c := s.peek(); {
		case c == '"':
			start := s.i
			if err := s.basicString(); err != nil {
				return nil, err
			}
			raw := string(s.src[start:s.i])
			u, err := strconv.Unquote(raw)
			if err != nil {
				u = raw[1 : len(raw)-1]
			}
			part = u
		case c == '\'':
			start := s.i
			if err := s.literalString(); err != nil {
				return nil, err
			}
			part = string(s.src[start+1 : s.i-1])
		default:
			start := s.i
			for s.i < len(s.src) && isBareKeyByte(s.src[s.i]) {
				s.i++
			}
			if s.i == start {
				return nil, s.fail()
			}
			part = string(s.src[start:s.i])
		}
		path = append(path, part)
		s.skipSpace()
		if !s.eat('.') {
			return path, nil
		}
	}
}

func isBareKeyByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (s *tomlScanner) basicString() error {
	if bytes.HasPrefix(s.src[s.i:], []byte(`"""`)) {
		return s.multiline('"', true)
	}
	s.i++
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			return nil
		case '\n':
			return s.fail()
		}
		s.i++
	}
	return s.fail()
}

func (s *tomlScanner) literalString() error {
	if bytes.HasPrefix(s.src[s.i:], []byte(`'''`)) {
		return s.multiline('\'', false)
	}
	s.i++
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case '\'':
			s.i++
			return nil
		case '\n':
			return s.fail()
		}
		s.i++
	}
	return s.fail()
}

// multiline reads a """ or ”' string; up to two quotes may end its content before the closing three.
func (s *tomlScanner) multiline(q byte, escapes bool) error {
	s.i += 3
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case escapes && c == '\\':
			if s.i+1 < len(s.src) && s.src[s.i+1] == '\n' {
				s.line++
			}
			s.i += 2
			continue
		case c == '\n':
			s.line++
		case c == q && s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q:
			s.i += 3
			for n := 0; n < 2 && s.peek() == q; n++ {
				s.i++
			}
			return nil
		}
		s.i++
	}
	return s.fail()
}

// value reads one value: a string, an array or inline table (which may span lines), or a
// scalar (a number, boolean or date-time, which may hold spaces) up to a comment or newline.
func (s *tomlScanner) value() error {
	switch s.peek() {
	case '"':
		return s.basicString()
	case '\'':
		return s.literalString()
	case '[', '{':
		depth := 0
		for s.i < len(s.src) {
			switch c := s.src[s.i]; c {
			case '"':
				if err := s.basicString(); err != nil {
					return err
				}
				continue
			case '\'':
				if err := s.literalString(); err != nil {
					return err
				}
				continue
			case '#':
				for s.i < len(s.src) && s.src[s.i] != '\n' {
					s.i++
				}
				continue
			case '\n':
				s.line++
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					s.i++
					return nil
				}
			}
			s.i++
		}
		return s.fail()
	}
	start := s.i
	for s.i < len(s.src) && s.src[s.i] != '#' && s.src[s.i] != '\n' {
		s.i++
	}
	for s.i > start && (s.src[s.i-1] == ' ' || s.src[s.i-1] == '\t' || s.src[s.i-1] == '\r') {
		s.i--
	}
	if s.i == start {
		return s.fail()
	}
	return nil
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\u%04X`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func tomlStringArray(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// parseTOML decodes a whole document, with the line of a syntax error in the message.
func parseTOML(src []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.Decode(string(src), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("it is not valid TOML (line %d: %s)", pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("it is not valid TOML (%v)", err)
	}
	return m, nil
}

func samePath(a []string, b ...string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hasPrefixPath(a []string, b ...string) bool {
	return len(a) >= len(b) && samePath(a[:len(b)], b...)
}

// setTOMLServer makes [mcp_servers.<name>] run command with args in the config.toml text src:
// the command and args statements of an existing table are rewritten in place (every other key
// of it stays), or the table is appended. It refuses, changing nothing, a file it cannot edit
// safely: the server written as an inline table or with dotted keys, mcp_servers itself an
// inline table, or a result in which any other key would differ.
func setTOMLServer(src []byte, name, command string, args []string) ([]byte, bool, error) {
	before, err := parseTOML(src)
	if err != nil {
		return nil, false, err
	}
	where := "mcp_servers." + name
	switch servers := before["mcp_servers"].(type) {
	case nil:
	case map[string]any:
		switch entry := servers[name].(type) {
		case nil:
		case map[string]any:
			if cmd, _ := entry["command"].(string); cmd == command && reflect.DeepEqual(entry["args"], anySlice(args)) {
				return src, false, nil
			}
		default:
			return nil, false, fmt.Errorf("%s is %s, not a table", where, tomlKind(entry))
		}
	default:
		return nil, false, fmt.Errorf("mcp_servers is %s, not a table", tomlKind(servers))
	}

	items, err := scanTOML(src)
	if err != nil {
		return nil, false, err
	}
	nl := "\n"
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		nl = "\r\n"
	}
	header := -1
	var table []string
	for i, it := range items {
		switch it.kind {
		case 'h':
			table = it.path
			if samePath(it.path, "mcp_servers", name) {
				if it.array {
					return nil, false, fmt.Errorf("line %d makes %s an array of tables ([[%s]]); Codex needs one table", it.line, where, where)
				}
				header = i
			}
		case 'k':
			full := append(append([]string(nil), table...), it.path...)
			switch {
			case samePath(full, "mcp_servers"):
				return nil, false, fmt.Errorf("line %d writes mcp_servers as an inline table, which cannot take another server; write each server as a [mcp_servers.NAME] table and run setup again", it.line)
			case hasPrefixPath(full, "mcp_servers", name) && len(table) < 2:
				return nil, false, fmt.Errorf("line %d defines %s with dotted keys or an inline table; cairn setup edits only a [%s] table: rewrite it as one (or remove it) and run setup again", it.line, where, where)
			}
		}
	}

	var out []byte
	if header < 0 {
		out = append(out, src...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, nl...)
		}
		out = append(out, "[mcp_servers."+tomlKey(name)+"]"+nl+"command = "+tomlString(command)+nl+"args = "+tomlStringArray(args)+nl...)
	} else {
		out = editTable(src, items, header, command, args, nl)
	}

	after, err := parseTOML(out)
	if err != nil {
		return nil, false, fmt.Errorf("adding [%s] would make the file invalid (%v)", where, err)
	}
	if entry, _ := dig2(after, "mcp_servers", name); entry == nil || entry["command"] != command || !reflect.DeepEqual(entry["args"], anySlice(args)) {
		return nil, false, fmt.Errorf("adding [%s] did not give it the command and args cairn needs", where)
	}
	if !equalTOML(withoutServer(before, name), withoutServer(after, name)) {
		return nil, false, fmt.Errorf("editing [%s] would change other keys", where)
	}
	return out, true, nil
}

// editTable rewrites (or inserts) the command and args statements of the table whose header is items[header].
func editTable(src []byte, items []tomlItem, header int, command string, args []string, nl string) []byte {
	type edit struct {
		at, end int
		text    string
	}
	var cmdItem, argsItem *tomlItem
	for i := header + 1; i < len(items) && items[i].kind != 'h'; i++ {
		it := &items[i]
		if it.kind != 'k' {
			continue
		}
		switch {
		case samePath(it.path, "command"):
			cmdItem = it
		case samePath(it.path, "args"):
			argsItem = it
		}
	}
	cmdText, argsText := "command = "+tomlString(command), "args = "+tomlStringArray(args)
	var edits []edit
	// a line inserted after item it (which may end the file without a newline)
	after := func(it *tomlItem, text string) edit {
		if it.end == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			return edit{it.end, it.end, nl + text}
		}
		return edit{it.end, it.end, text + nl}
	}
	switch {
	case cmdItem != nil && argsItem != nil:
		edits = append(edits, edit{cmdItem.keyStart, cmdItem.valEnd, cmdText}, edit{argsItem.keyStart, argsItem.valEnd, argsText})
	case cmdItem != nil:
		edits = append(edits, edit{cmdItem.keyStart, cmdItem.valEnd, cmdText}, after(cmdItem, argsText))
	case argsItem != nil:
		edits = append(edits, after(&items[header], cmdText), edit{argsItem.keyStart, argsItem.valEnd, argsText})
	default:
		edits = append(edits, after(&items[header], cmdText+nl+argsText))
	}
	if edits[0].at > edits[len(edits)-1].at {
		edits[0], edits[1] = edits[1], edits[0]
	}
	var out []byte
	pos := 0
	for _, e := range edits {
		out = append(out, src[pos:e.at]...)
		out = append(out, e.text...)
		pos = e.end
	}
	return append(out, src[pos:]...)
}

// tomlKey writes a key part bare when it can be, else quoted.
func tomlKey(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool { return r > 0x7f || !isBareKeyByte(byte(r)) }) < 0 {
		return k
	}
	return tomlString(k)
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func dig2(m map[string]any, a, b string) (map[string]any, bool) {
	outer, ok := m[a].(map[string]any)
	if !ok {
		return nil, false
	}
	inner, ok := outer[b].(map[string]any)
	return inner, ok
}

// withoutServer is a shallow copy of the document without the command and args of
// mcp_servers.<name> (and without that table or mcp_servers when nothing else is left in them).
func withoutServer(doc map[string]any, name string) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		out[k] = v
	}
	servers, ok := doc["mcp_servers"].(map[string]any)
	if !ok {
		return out
	}
	ns := make(map[string]any, len(servers))
	for k, v := range servers {
		ns[k] = v
	}
	if entry, ok := servers[name].(map[string]any); ok {
		ne := make(map[string]any, len(entry))
		for k, v := range entry {
			if k != "command" && k != "args" {
				ne[k] = v
			}
		}
		if len(ne) == 0 {
			delete(ns, name)
		} else {
			ns[name] = ne
		}
	}
	if len(ns) == 0 {
		delete(out, "mcp_servers")
	} else {
		out["mcp_servers"] = ns
	}
	return out
}

// equalTOML compares decoded values as reflect.DeepEqual does, except that NaN equals NaN
// (`x = nan` is a value like any other, kept as it was).
func equalTOML(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !equalTOML(v, w) {
				return false
			}
		}
		return true
	case []map[string]any:
		b, ok := b.([]map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalTOML(a[i], b[i]) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalTOML(a[i], b[i]) {
				return false
			}
		}
		return true
	case float64:
		b, ok := b.(float64)
		return ok && (a == b || a != a && b != b)
	}
	return reflect.DeepEqual(a, b)
}

func tomlKind(v any) string {
	switch v.(type) {
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	}
	return "a date-time"
}
