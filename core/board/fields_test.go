package board

import (
	"testing"
)

// TestFieldTable builds a card with every searchable child, each text naming its own source and
// field, and checks that every field reads the right text and ranks with its documented weight.
func TestFieldTable(t *testing.T) {
	at := "2026-03-01T00:00:00Z"
	l := &loaded{
		projects: []Project{{ID: "p", Memory: true}},
		cards: []Card{{ID: "c", Project: "p", Title: "card title", Tags: []string{"card", "tags"},
			Description: "card description", Type: "card type", Status: "Todo", UpdatedAt: at}},
		summaries: map[string][]Summary{"c": {{State: "summary state", Target: "summary target",
			Recap: "summary recap", Next: "summary next", At: at}}},
		events: []Event{{ID: "e", Card: "c", Type: "status_changed", Note: "note note", At: at}},
		workpads: []Workpad{
			{ID: "w1", Card: "c", Kind: "check", Description: "workpad description", Command: "workpad command", Evidence: "workpad evidence", At: at},
			{ID: "w2", Card: "c", Kind: "acceptance", Description: "workpad description", Command: "not searched", Evidence: "not searched", At: at},
		},
		ideas: []Idea{{ID: "i", Card: "c", Title: "idea title", Detail: "idea detail", Rationale: "idea rationale",
			Context: "idea context", Status: "open", At: at}},
		artifacts: []Artifact{{ID: "a", Card: "c", Title: "artifact title", Note: "artifact note",
			Target: "artifact target", ExternalKey: "artifact externalKey", At: at}},
		memory: []MemoryEntry{{ID: "m", Project: "p", Kind: "fact", Title: "memory title", Body: "memory body",
			Keywords: []string{"memory", "keywords"}, Tags: []string{"memory", "tags"}, Status: "active", ConfirmedAt: at}},
	}
	weights := map[string]uint8{
		"card title": 6, "card tags": 5, "card description": 3, "card type": 1,
		"summary state": 4, "summary target": 4, "summary recap": 4, "summary next": 4,
		"note note":           2,
		"workpad description": 2, "workpad command": 2, "workpad evidence": 2,
		"idea title": 4, "idea detail": 2, "idea rationale": 2, "idea context": 2,
		"artifact title": 3, "artifact note": 3, "artifact target": 3, "artifact externalKey": 3,
		"memory title": 4, "memory body": 4, "memory keywords": 4, "memory tags": 4,
	}
	ix := build(l, Stamp{})
	wantCount := len(weights) + 1 // the second workpad item has its description only
	if len(ix.fields) != wantCount {
		t.Errorf("%d fields, want %d", len(ix.fields), wantCount)
	}
	for i := range ix.fields {
		f := &ix.fields[i]
		key := string(sourceAt(f.source)) + " " + fieldName(f.name)
		if got := ix.original(f); got != key {
			t.Errorf("field %s holds %q", key, got)
		}
		if w, ok := weights[key]; !ok || f.weight != w {
			t.Errorf("field %s has weight %d, want %d", key, f.weight, w)
		}
		if wantStatus := map[bool]string{true: "open", false: ""}[f.source == uint8(sourceIndex(SourceIdea))]; ideaStatus(f.status) != wantStatus {
			t.Errorf("field %s has status %q, want %q", key, ideaStatus(f.status), wantStatus)
		}
	}
	if ix.cards[0].fieldLo != 0 || ix.cards[0].fieldHi != int32(wantCount-4) || ix.memory[0].fieldHi != int32(wantCount) {
		t.Errorf("card fields %d..%d, memory fields ..%d", ix.cards[0].fieldLo, ix.cards[0].fieldHi, ix.memory[0].fieldHi)
	}
}
