package memory

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Frontmatter is what search reports from a file's YAML header. A field is nil when the file has
// no frontmatter, the YAML does not parse, or the key is absent.
type Frontmatter struct {
	Kind            any
	Description     any
	ModelInvokation any
	// EndLine is the 1-based line of the closing "---"; 0 when the file has no frontmatter block.
	EndLine int
}

// frontmatterBlock finds the YAML between a first line "---" and the next "---" line, returning
// it and the line number of the closing delimiter (0 when there is no block). A UTF-8 byte order
// mark and a trailing "\r" or spaces on the delimiter lines are tolerated.
func frontmatterBlock(content []byte) ([]byte, int) {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	first, rest, ok := bytes.Cut(content, []byte{'\n'})
	if !ok || !isDelimiter(first) {
		return nil, 0
	}
	line, start := 2, 0
	for pos := 0; pos <= len(rest); line++ {
		end := bytes.IndexByte(rest[pos:], '\n')
		var l []byte
		next := len(rest) + 1
		if end < 0 {
			l = rest[pos:]
		} else {
			l = rest[pos : pos+end]
			next = pos + end + 1
		}
		if isDelimiter(l) {
			return rest[start:pos], line
		}
		if end < 0 {
			break
		}
		pos = next
	}
	return nil, 0
}

func isDelimiter(l []byte) bool {
	return string(bytes.TrimRight(l, " \t\r")) == "---"
}

// ParseFrontmatter reads kind, description and model_invokation from a file's frontmatter, as
// written (string, boolean, number, list, map). Broken YAML is not an error: the fields are nil.
func ParseFrontmatter(content []byte) Frontmatter {
	block, end := frontmatterBlock(content)
	fm := Frontmatter{EndLine: end}
	if end == 0 {
		return fm
	}
	fields, ok := decodeFields(block)
	if !ok {
		return fm
	}
	fm.Kind = fields["kind"]
	fm.Description = fields["description"]
	fm.ModelInvokation = fields["model_invokation"]
	return fm
}

// decodeFields parses block as a YAML mapping and returns the three fields search reports,
// converted to values encoding/json can always print. It never panics on hostile input.
func decodeFields(block []byte) (out map[string]any, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		return nil, false
	}
	if doc.Kind == 0 { // empty frontmatter: parses, holds nothing
		return map[string]any{}, true
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := doc.Content[0]
	out = map[string]any{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "kind", "description", "model_invokation":
		default:
			continue
		}
		if _, seen := out[k.Value]; seen {
			continue // the first occurrence of a duplicated key wins
		}
		var x any
		if err := v.Decode(&x); err != nil {
			return nil, false
		}
		out[k.Value] = jsonSafe(x, 0)
	}
	return out, true
}

// jsonSafe converts a decoded YAML value to one json.Marshal accepts: string map keys, no
// infinities or NaN, times as text. Nesting deeper than 64 levels is cut to nil.
func jsonSafe(x any, depth int) any {
	if depth > 64 {
		return nil
	}
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = jsonSafe(e, depth+1)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = jsonSafe(e, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonSafe(e, depth+1)
		}
		return out
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return v
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case []byte:
		return string(v)
	}
	return x
}
