package redact

import (
	"strings"
	"testing"
	"unicode"
)

// screenTexts are texts of every secret kind, the rule cases and the hostile shapes, as they are
// and in upper case, alone and among kana and ideographs (which screen reads as they are).
func screenTexts() []string {
	var base []string
	for _, c := range secretCorpus(1) {
		base = append(base, strings.Replace(c.text, "%s", c.secret, 1))
	}
	for _, c := range ruleCases {
		base = append(base, c.positive)
	}
	for _, h := range hostile {
		base = append(base, repeatTo(h.unit, 200))
	}
	base = append(base, benchComments...)
	base = append(base, "", "a", "=", ":", "QWxhZGRpbjpvcGVuIHNlc2FtZQ", "QWxhZGRpbjpvcGVu", "token 認証 フロー",
		"DB_PASSWORD=「hunter2hunter」", "認証:ghp_abcdefghijklmnopqrstuvwxyz0123456789", "\u3000password=hunter2x")
	var out []string
	for _, s := range base {
		up := strings.Map(func(r rune) rune {
			if r < unicode.MaxASCII {
				return unicode.ToUpper(r)
			}
			return r
		}, s)
		out = append(out, s, up, "認証 "+s+" データ", "フロー"+up+"脚本")
	}
	return out
}

// TestScreenMatchesFullPass: screening a text first gives what folding it and running every
// hinted rule gives.
func TestScreenMatchesFullPass(t *testing.T) {
	r := New()
	for _, s := range screenTexts() {
		got, _ := r.textStats(s, true)
		want, _ := r.textStats(s, false)
		if got != want {
			t.Errorf("screened %q\n gives %q\n want  %q", s, got, want)
		}
	}
}

// FuzzScreen: for any text, the screened passes give what the unscreened ones give.
func FuzzScreen(f *testing.F) {
	for _, s := range screenTexts() {
		f.Add(s)
	}
	r := New()
	f.Fuzz(func(t *testing.T, s string) {
		got, _ := r.textStats(s, true)
		if want, _ := r.textStats(s, false); got != want {
			t.Fatalf("screened %q gives %q, want %q", s, got, want)
		}
	})
}

// TestNoTriggerNoWork: a text with no hint, operator or base64 run, in ASCII of either case and
// kana and ideographs, is given back as it is, after one pass, without allocating.
func TestNoTriggerNoWork(t *testing.T) {
	r := New()
	texts := []string{
		"Deploy the token bucket cache; retry the migration, then review latency",
		"認証 フロー token Bucket レビュー 迁移 数据 API 稀有 kumquat 脚本 config rate",
		"",
	}
	for _, s := range texts {
		got, st := r.TextStats(s)
		if got != s {
			t.Fatalf("%q changed to %q", s, got)
		}
		if st.Applications != 0 || st.Bytes != len(s) || st.Passes != 1 {
			t.Errorf("%q: %+v, want one pass over it and no rule run", s, st)
		}
		if allocs := testing.AllocsPerRun(100, func() { got = r.Text(s) }); allocs != 0 {
			t.Errorf("%q: %.0f allocations, want none", s, allocs)
		}
		if got != s {
			t.Fatalf("%q changed to %q", s, got)
		}
	}
}

// TestScreenNeedsEachTrigger: an operator brings the assignment scanner back, a base64 run the
// credentials scanner, a hint its rule, and a rune that folding changes the unscreened pass.
func TestScreenNeedsEachTrigger(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, rule string }{
		{"token=abc123def456", "assignment"},
		{"Token: abc123def456", "assignment"},
		{"see QWxhZGRpbjpvcGVu here", "base64_credentials"},
		{"ghp_ and more", "github_token"},
		{"GHP_ and more", "github_token"},
	} {
		set, ok := r.screen(c.text)
		if !ok {
			t.Fatalf("%q not screened", c.text)
		}
		found := false
		for i, rule := range r.rules {
			found = found || rule.Name == c.rule && set.has(i)
		}
		if !found {
			t.Errorf("%q: rule %s not run", c.text, c.rule)
		}
	}
	for _, s := range []string{"ｐａｓｓｗｏｒｄ＝x", "token\u3000x", "straße", "\xff"} {
		if _, ok := r.screen(s); ok {
			t.Errorf("%q screened, but folding changes more than its ASCII case", s)
		}
	}
}
