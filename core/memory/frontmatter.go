package memory

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Frontmatter is what search reports from a file's YAML header. A field is nil when the file has
// no frontmatter, the YAML does not parse, or the key is absent.
type Frontmatter struct {
	Kind            any
	Description     any
	ModelInvokation any
	// KindText is kind's scalar text as written, what --kind matches; KindIsText is false when
	// kind is missing, null, a list or a map.
	KindText   string
	KindIsText bool
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

// ParseFrontmatter reads kind, description and model_invokation (or model_invocation) from a file's frontmatter, as
// written: a scalar keeps its text (2026-01-01 stays "2026-01-01", 1.0 stays 1.0), booleans and
// null keep their type, and lists and maps hold their scalars the same way. Broken YAML is not an
// error: the fields are nil.
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
	n := fields["kind"]
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		fm.KindText, fm.KindIsText = n.Value, true
	}
	if fields["model_invokation"] == nil {
		fields["model_invokation"] = fields[modelInvocation] // the spelling a reader expects, accepted too
	}
	budget := maxNodes
	for name, dst := range map[string]*any{"kind": &fm.Kind, "description": &fm.Description, "model_invokation": &fm.ModelInvokation} {
		if n := fields[name]; n != nil {
			*dst = asWritten(n, 0, &budget)
		}
	}
	if budget < 0 { // an alias bomb: treat like YAML that does not parse
		return Frontmatter{EndLine: end}
	}
	return fm
}

// modelInvocation is model_invokation as English spells it: a file may use either key (the
// documented one wins when both are there), and a hit always reports it as model_invokation,
// the field SPEC §4.2 names.
const modelInvocation = "model_invocation"

// maxNodes bounds the nodes one frontmatter may expand to through aliases.
const maxNodes = 10000

// decodeFields parses block as a YAML mapping and returns the nodes of the three fields search
// reports. It never panics on hostile input.
func decodeFields(block []byte) (out map[string]*yaml.Node, ok bool) {
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
		return map[string]*yaml.Node{}, true
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := doc.Content[0]
	out = map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "kind", "description", "model_invokation", modelInvocation:
		default:
			continue
		}
		if _, seen := out[k.Value]; seen {
			continue // the first occurrence of a duplicated key wins
		}
		out[k.Value] = v
	}
	return out, true
}

// asWritten converts a YAML node to a value encoding/json prints as the file wrote it: a number
// whose text is a JSON number as that text, true/false and null as themselves, any other scalar
// (dates, .inf, 0x1F, quoted text) as its text; lists and maps by their elements. Aliases are
// followed within budget nodes; nesting deeper than 64 levels is cut to nil.
func asWritten(n *yaml.Node, depth int, budget *int) any {
	*budget--
	if n == nil || depth > 64 || *budget < 0 {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		return asWritten(n.Alias, depth+1, budget)
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return asWritten(n.Content[0], depth+1, budget)
		}
		return nil
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, e := range n.Content {
			out[i] = asWritten(e, depth+1, budget)
		}
		return out
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				merges = append(merges, v) // the map's own keys win: merged last
				continue
			}
			key := k.Value
			if k.Kind != yaml.ScalarNode {
				key = fmt.Sprint(asWritten(k, depth+1, budget))
			}
			if _, seen := out[key]; !seen {
				out[key] = asWritten(v, depth+1, budget)
			}
		}
		for _, v := range merges {
			mergeInto(out, v, depth+1, budget)
		}
		return out
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int", "!!float":
		if json.Valid([]byte(n.Value)) && n.Value != "" && (n.Value[0] == '-' || n.Value[0] >= '0' && n.Value[0] <= '9') {
			return json.Number(n.Value)
		}
	}
	return n.Value
}

// mergeInto applies a YAML merge key (<<: *base, or a list of them): keys already set win.
func mergeInto(out map[string]any, v *yaml.Node, depth int, budget *int) {
	for v != nil && v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	var sources []*yaml.Node
	switch {
	case v == nil:
	case v.Kind == yaml.SequenceNode:
		sources = v.Content
	default:
		sources = []*yaml.Node{v}
	}
	for _, src := range sources {
		if m, ok := asWritten(src, depth, budget).(map[string]any); ok {
			for k, e := range m {
				if _, seen := out[k]; !seen {
					out[k] = e
				}
			}
		}
	}
}
