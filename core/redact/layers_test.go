package redact

import "testing"

func TestSpansNameTheirLayer(t *testing.T) {
	r := New()
	for text, want := range map[string]string{
		"本番DBのパスワードは wR4Kqw9#3NeZGg0 です":                      LayerContext,
		"the deploy uses 9fQ2xLr7Vb3Nc8Kd1Pw6Zt4Hs0Jm5Gy":     LayerShape,
		"token ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A": LayerProvider,
	} {
		spans := r.Spans(text)
		found := false
		for _, sp := range spans {
			found = found || sp.Layer == want
			if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End || sp.Layer != LayerOf(sp.Rule) {
				t.Errorf("%q: bad span %+v", text, sp)
			}
		}
		if !found {
			t.Errorf("%q: no %s span in %+v", text, want, spans)
		}
	}
	if spans := r.Spans("nothing secret in this line"); len(spans) != 0 {
		t.Errorf("ordinary text: %+v", spans)
	}
}
