package board

import (
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// Overlapping occurrences of different terms are one range, in the snippet as in the original.
func TestOccurrencesMerged(t *testing.T) {
	text := "see abcd and Straße"
	got := occurrences(textmatch.FoldMap(text), []string{"abc", "bcd", "strasse"})
	want := []span{{4, 8}, {13, 20}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("occurrences = %v, want %v", got, want)
	}
	snip, ranges := makeSnippet(text, got)
	if snip != text || !reflect.DeepEqual(ranges, []Range{{4, 8}, {13, 19}}) {
		t.Errorf("snippet %q ranges %v", snip, ranges)
	}
}
