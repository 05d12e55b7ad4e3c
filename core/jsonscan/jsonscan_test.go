package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// On valid JSON the scan agrees with encoding/json: an object is walked to its end, with every
// member's key and exactly the bytes of its value.
func FuzzObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"a":"x\"}","b":[1,{"c":"]"}],"d":null}`, `{"k" : { "n" : [ ] } , "t":true}`,
		`{"e":"\\\\"}`, `[1,2]`, `"s"`, `{"a":1,}`, `{"a"::1}`, `{"a":"unterminated}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var members map[string]json.RawMessage
		valid := json.Valid(b) && json.Unmarshal(b, &members) == nil && members != nil
		i := SkipWS(b, 0)
		count := map[string]int{} // encoding/json keeps the last of a repeated key: compare the others
		Object(b[i:], func(k, rest []byte) int { count[string(k)]++; return ValueEnd(rest, 0) })
		seen := 0
		n := Object(b[i:], func(k, rest []byte) int {
			end := ValueEnd(rest, 0)
			// encoding/json unescapes keys and turns invalid UTF-8 into U+FFFD: compare plain keys
			if valid && end > 0 && bytes.IndexByte(k, '\\') < 0 && utf8.Valid(k) && count[string(k)] == 1 {
				if want, ok := members[string(k)]; !ok || !bytes.Equal(rest[:end], want) {
					t.Fatalf("key %q: scanned %q, encoding/json has %q", k, rest[:end], want)
				}
			}
			seen++
			return end
		})
		if valid && (n < 0 || SkipWS(b, i+n) != len(b)) {
			t.Fatalf("valid object %q: Object = %d", b, n)
		}
		if valid && seen < len(members) {
			t.Fatalf("valid object %q: %d members walked, encoding/json has %d", b, seen, len(members))
		}
	})
}

func TestArray(t *testing.T) {
	for in, want := range map[string]int{`[]`: 2, `[ 1 , "a]" , {"b":[2]} ]`: 24, `[1,]`: -1, `[1 2]`: -1, `{}`: -1, `[`: -1} {
		if got := Array([]byte(in), Value); got != want {
			t.Errorf("Array(%q) = %d, want %d", in, got, want)
		}
	}
}
