package tasks

import (
	"bytes"

	"github.com/cairn-dev/cairn/core/jsonscan"
)

// scanTop walks the top-level members of a JSON object line and calls fn with each key (raw,
// without quotes) and the raw bytes of its value; fn returning false stops the walk. It reports
// false when the line is not a JSON object as far as the structural scan can tell; values it
// hands out are not validated (the few lines replay uses are decoded for real afterwards).
func scanTop(data []byte, fn func(key, val []byte) bool) bool {
	i := jsonscan.SkipWS(data, 0)
	stopped := false
	n := jsonscan.Object(data[i:], func(k, rest []byte) int {
		end := jsonscan.ValueEnd(rest, 0)
		if end > 0 && !fn(k, rest[:end]) {
			stopped = true
			return -1
		}
		return end
	})
	return stopped || n > 0 && len(bytes.TrimSpace(data[i+n:])) == 0
}

// rawString returns the content of a JSON string value without unescaping (ids and types never
// hold escapes), or "" for anything else (null included).
func rawString(val []byte) string {
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' && bytes.IndexByte(val, '\\') < 0 {
		return string(val[1 : len(val)-1])
	}
	return ""
}
