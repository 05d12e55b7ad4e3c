package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// AppendString writes every string byte for byte as encoding/json does with HTML escaping off.
func TestAppendString(t *testing.T) {
	for _, s := range []string{
		"", `plain`, `{"subject":"a \"quoted\" word","path":"C:\\dir"}`, "line\nbreak\r\ttab\b\f",
		"\x00\x01\x1f\x7f", "<b>&amp;</b>", "迁移 ß 🚀", "\u2028\u2029", `\u00e9`, "bad \xff\xfe utf-8 \xe8\xbf",
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("AppendString(%q) = %s, encoding/json writes %s", s, got[1:], want.Bytes())
		}
	}
}
