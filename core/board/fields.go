package board

import "strings"

// fieldSpec is one searchable field of a record of type T: the source and field name a hit shows,
// the weight it ranks with, and how to read its text. when, if set, says whether the record has
// the field at all.
type fieldSpec[T any] struct {
	src    Source
	name   uint8
	weight uint8
	text   func(*T) string
	when   func(*T) bool
}

// fieldTable lists every searchable field of every kind of record, in the order a card's fields
// are added (which is the order of its hits on equal weight and time). All hit weights are here:
// a card's own title 6, tags 5, description 3, type 1; the latest summary's fields 4; notes and
// workpad items 2; an idea's title 4 and its other fields 2; artifacts 3; memory 4.
type fieldTable struct {
	card     []fieldSpec[Card]
	summary  []fieldSpec[Summary]
	note     []fieldSpec[Event]
	workpad  []fieldSpec[Workpad]
	idea     []fieldSpec[Idea]
	artifact []fieldSpec[Artifact]
	memory   []fieldSpec[MemoryEntry]
}

func newFieldTable() *fieldTable {
	isCheck := func(w *Workpad) bool { return w.Kind == "check" }
	return &fieldTable{
		card: []fieldSpec[Card]{
			{src: SourceCard, name: nameTitle, weight: 6, text: func(c *Card) string { return c.Title }},
			{src: SourceCard, name: nameTags, weight: 5, text: func(c *Card) string { return strings.Join(c.Tags, " ") }},
			{src: SourceCard, name: nameDescription, weight: 3, text: func(c *Card) string { return c.Description }},
			{src: SourceCard, name: nameType, weight: 1, text: func(c *Card) string { return c.Type }},
		},
		summary: []fieldSpec[Summary]{
			{src: SourceSummary, name: nameState, weight: 4, text: func(s *Summary) string { return s.State }},
			{src: SourceSummary, name: nameTarget, weight: 4, text: func(s *Summary) string { return s.Target }},
			{src: SourceSummary, name: nameRecap, weight: 4, text: func(s *Summary) string { return s.Recap }},
			{src: SourceSummary, name: nameNext, weight: 4, text: func(s *Summary) string { return s.Next }},
		},
		note: []fieldSpec[Event]{
			{src: SourceNote, name: nameNote, weight: 2, text: func(e *Event) string { return e.Note }},
		},
		workpad: []fieldSpec[Workpad]{
			{src: SourceWorkpad, name: nameDescription, weight: 2, text: func(w *Workpad) string { return w.Description }},
			{src: SourceWorkpad, name: nameCommand, weight: 2, text: func(w *Workpad) string { return w.Command }, when: isCheck},
			{src: SourceWorkpad, name: nameEvidence, weight: 2, text: func(w *Workpad) string { return w.Evidence }, when: isCheck},
		},
		idea: []fieldSpec[Idea]{
			{src: SourceIdea, name: nameTitle, weight: 4, text: func(d *Idea) string { return d.Title }},
			{src: SourceIdea, name: nameDetail, weight: 2, text: func(d *Idea) string { return d.Detail }},
			{src: SourceIdea, name: nameRationale, weight: 2, text: func(d *Idea) string { return d.Rationale }},
			{src: SourceIdea, name: nameContext, weight: 2, text: func(d *Idea) string { return d.Context }},
		},
		artifact: []fieldSpec[Artifact]{
			{src: SourceArtifact, name: nameTitle, weight: 3, text: func(a *Artifact) string { return a.Title }},
			{src: SourceArtifact, name: nameNote, weight: 3, text: func(a *Artifact) string { return a.Note }},
			{src: SourceArtifact, name: nameTarget, weight: 3, text: func(a *Artifact) string { return a.Target }},
			{src: SourceArtifact, name: nameExternalKey, weight: 3, text: func(a *Artifact) string { return a.ExternalKey }},
		},
		memory: []fieldSpec[MemoryEntry]{
			{src: SourceMemory, name: nameTitle, weight: 4, text: func(m *MemoryEntry) string { return m.Title }},
			{src: SourceMemory, name: nameBody, weight: 4, text: func(m *MemoryEntry) string { return m.Body }},
			{src: SourceMemory, name: nameKeywords, weight: 4, text: func(m *MemoryEntry) string { return strings.Join(m.Keywords, " ") }},
			{src: SourceMemory, name: nameTags, weight: 4, text: func(m *MemoryEntry) string { return strings.Join(m.Tags, " ") }},
		},
	}
}

// addFields adds the fields of one record, as specs list them, to owner; refID, status and at are
// the record's and shared by its fields.
func addFields[T any](b *builder, owner int32, specs []fieldSpec[T], rec *T, refID, status string, at int64) {
	for i := range specs {
		s := &specs[i]
		if s.when != nil && !s.when(rec) {
			continue
		}
		b.addField(owner, s.src, s.name, s.weight, s.text(rec), refID, status, at)
	}
}
