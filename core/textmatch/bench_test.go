package textmatch

import (
	"strconv"
	"strings"
	"testing"
)

// benchText is about 4 MB of Markdown-like lines in English, Japanese and full-width forms, the
// mix the memory search reads.
func benchText() []byte {
	lines := []string{
		"## Notes on the deploy pipeline",
		"The rate limit of the gateway is 40 requests per second; retries back off exponentially.",
		"認証フローの変更はステージングで確認した。トークンの有効期限は一時間。",
		"- [ ] migrate the session store to the new schema (see ＰＲ ＃４１７)",
		"Straße names and ÀÉÎÕÜ accents appear in the address fixtures.",
		"func handle(w http.ResponseWriter, r *http.Request) { log.Printf(\"%v\", r.URL) }",
		"",
	}
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		b.WriteString(lines[i%len(lines)])
		if i%97 == 0 {
			b.WriteString(" item " + strconv.Itoa(i))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// BenchmarkMatchingLines measures the memory search's line matcher over one large text, for
// queries with no hits (every byte is scanned) and with hits on many lines.
func BenchmarkMatchingLines(b *testing.B) {
	text := benchText()
	for _, q := range []string{"zzqqxx", "tenant onboarding", "認証フロー設計", "rate limit", "ＰＲ ＃４１７", "straße"} {
		n := NewNeedle(q)
		b.Run(q, func(b *testing.B) {
			var f Folder
			var dst []int
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				dst = n.MatchingLines(&f, text, dst[:0])
			}
		})
	}
}
