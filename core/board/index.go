package board

import (
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// noTime marks a document without a time; it sorts before every real time.
const noTime = math.MinInt64

// Index is a loaded board ready to search: every searchable field folded once, joined into one
// text so a term is found with one strings.Index pass, with the metadata results need. It is
// immutable after loading, so a daemon can share one Index between concurrent searches and swap
// in a new one when Stale says the files changed.
type Index struct {
	stamp    Stamp
	projects []project // by id
	cards    []card    // grouped by project (in project order), then by id
	memory   []memEntry
	fields   []field // card fields in card order, then memory fields in memory order
	// blob holds the folded text of every field, each followed by a NUL; fields[i] is
	// blob[fields[i].start:fields[i].end]. Terms never contain NUL, so no match spans two fields.
	blob string
	// origs holds the original texts that differ from their folded form; refs the ref ids.
	origs, refs string
	// shifts lists, for fields whose folding changed lengths (ß → ss, full-width → ASCII), each
	// resized character as (offset in the original, folded length): all expandOffsets needs to
	// rebuild FoldMap's byte map for a field that is shown, without folding it again.
	shifts []shift
	// freq counts each byte value in blob, so a search looks for a term's rarest byte.
	freq     [256]uint32
	partial  partialSet
	projByID map[string]int32
	cardByID map[string]int32
	// snap is the range of snapshot bytes the index aliases (zero when built from the files);
	// faulted is set when a search found them cut under it (see fault.go).
	snap    mapRange
	faulted atomic.Bool
	// narrow, once EnableNarrowing built it, narrows the first term's scan (narrow.go).
	narrow narrowPtr
}

// partialSet records which JSON files could not be read when the index was built.
type partialSet struct{ summaries, memory bool }

type project struct {
	id, title      string
	archived       bool
	memory         bool
	cardLo, cardHi int32 // cards of this project: cards[cardLo:cardHi]
	memLo, memHi   int32 // active memory of this project: memory[memLo:memHi]
}

type card struct {
	id, title, status, typ, workspaceID string
	updatedAt                           string
	proj                                int32
	tags                                []string
	foldedTags                          []string
	archived                            bool
	class                               uint8 // statusClass, for ranking
	updated                             int64
	fieldLo, fieldHi                    int32
	// summary is the latest summary's state and recap, for the agent view; hasSummary says one exists.
	summaryState, summaryRecap string
	hasSummary                 bool
}

type memEntry struct {
	id, kind, title  string
	proj             int32
	foldedTags       []string
	confirmed        int64
	fieldLo, fieldHi int32
}

// field is one searchable text. It holds no pointers, so a board of 150,000 fields costs the
// garbage collector nothing and the snapshot can store the table as fixed-width records.
type field struct {
	at           int64 // Unix nanoseconds, noTime when unknown
	start, end   int32 // folded text: Index.blob[start:end]
	ostart, oend int32 // original text in Index.origs; ostart < 0: identical to the folded text
	shift        int32 // first of this field's resized characters in Index.shifts; -1: none
	nshift       int32 // how many resized characters
	owner        int32 // index into cards, or into memory for memory fields
	refStart     int32 // ref id: Index.refs[refStart:refEnd]
	refEnd       int32
	source       uint8 // bit index of the Source, see sourceAt
	name         uint8 // see fieldName
	weight       uint8
	status       uint8 // idea status, see ideaStatus
}

// fieldRecordBytes is the size of one field in the snapshot.
const fieldRecordBytes = 8 + 9*4 + 4

// Field names as the output's "field" shows them.
const (
	nameTitle uint8 = iota
	nameTags
	nameDescription
	nameType
	nameState
	nameTarget
	nameRecap
	nameNext
	nameNote
	nameCommand
	nameEvidence
	nameDetail
	nameRationale
	nameContext
	nameExternalKey
	nameBody
	nameKeywords
	numNames
)

func fieldName(n uint8) string {
	names := [...]string{"title", "tags", "description", "type", "state", "target", "recap", "next", "note",
		"command", "evidence", "detail", "rationale", "context", "externalKey", "body", "keywords"}
	if int(n) < len(names) {
		return names[n]
	}
	return ""
}

// ideaStatus names an idea status code; 0 is "no status" (not an idea).
func ideaStatus(n uint8) string {
	names := [...]string{"", "open", "accepted", "dismissed"}
	if int(n) < len(names) {
		return names[n]
	}
	return ""
}

func ideaStatusCode(s string) uint8 {
	for i := uint8(1); i < 4; i++ {
		if ideaStatus(i) == s {
			return i
		}
	}
	return 0
}

// sourceAt is the Source of a bit index.
func sourceAt(i uint8) Source {
	all := [...]Source{SourceCard, SourceSummary, SourceNote, SourceWorkpad, SourceIdea, SourceArtifact, SourceMemory}
	if int(i) < len(all) {
		return all[i]
	}
	return ""
}

// text returns a field's folded text.
func (ix *Index) text(f *field) string { return ix.blob[f.start:f.end] }

// original returns a field's original text.
func (ix *Index) original(f *field) string {
	if f.ostart < 0 {
		return ix.blob[f.start:f.end]
	}
	return ix.origs[f.ostart:f.oend]
}

// refID returns the id of the event, workpad item, idea or artifact a field belongs to.
func (ix *Index) refID(f *field) string { return ix.refs[f.refStart:f.refEnd] }

// shift is one character whose folded form has another length than the original.
type shift struct {
	orig   int32 // byte offset of the character in the original text
	folded int32 // byte length of its folded form
}

// folded returns the field's folded text with its map back to the original.
func (ix *Index) folded(f *field) textmatch.Folded {
	if f.shift < 0 {
		return textmatch.FromParts(ix.text(f), ix.original(f), nil)
	}
	orig := ix.original(f)
	omap := expandOffsets(orig, int(f.end-f.start), ix.shifts[f.shift:f.shift+f.nshift])
	return textmatch.FromParts(ix.text(f), orig, omap)
}

// compressOffsets turns FoldMap's byte map (folded byte → start of its original character) into
// the list of resized characters; characters are decoded as FoldMap does (invalid bytes one by one).
func compressOffsets(orig string, omap []int32) []shift {
	var out []shift
	fo := 0
	for oo := 0; oo < len(orig); {
		_, size := utf8.DecodeRuneInString(orig[oo:])
		n := 0
		for fo+n < len(omap)-1 && int(omap[fo+n]) == oo {
			n++
		}
		if n != size {
			out = append(out, shift{orig: int32(oo), folded: int32(n)})
		}
		fo += n
		oo += size
	}
	return out
}

// expandOffsets rebuilds the byte map compressOffsets compressed, for a folded text of foldedLen bytes.
func expandOffsets(orig string, foldedLen int, shifts []shift) []int32 {
	omap := make([]int32, 0, foldedLen+1)
	for oo := 0; oo < len(orig) && len(omap) < foldedLen; {
		_, size := utf8.DecodeRuneInString(orig[oo:])
		n := size
		if len(shifts) > 0 && int(shifts[0].orig) == oo {
			n = int(shifts[0].folded)
			shifts = shifts[1:]
		}
		for k := 0; k < n && len(omap) < foldedLen; k++ {
			omap = append(omap, int32(oo))
		}
		oo += size
	}
	for len(omap) < foldedLen {
		omap = append(omap, int32(len(orig)))
	}
	return append(omap, int32(len(orig)))
}

// Revision is the board revision the index was built from.
func (ix *Index) Revision() int64 { return ix.stamp.Revision }

// Stats counts what the index holds, for the benchmark and diagnostics.
type Stats struct {
	Projects, Cards, Memory, Fields int
	TextBytes                       int
}

// Stats reports the index's size. Every count is of what a search can reach, so they agree with
// each other: Projects and Cards leave out archived projects and their cards (archived cards of
// live projects count), Memory counts active entries of live projects with memory on.
func (ix *Index) Stats() Stats {
	live := 0
	for i := range ix.projects {
		if !ix.projects[i].archived {
			live++
		}
	}
	return Stats{Projects: live, Cards: len(ix.cards), Memory: len(ix.memory), Fields: len(ix.fields), TextBytes: len(ix.blob)}
}

// parseTime reads an RFC 3339 time as Unix nanoseconds; empty or invalid is noTime.
func parseTime(s string) int64 {
	if s == "" {
		return noTime
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 1700 || t.Year() > 2200 {
		return noTime
	}
	return t.UnixNano()
}

// formatTime renders Unix nanoseconds as RFC 3339 in UTC; noTime is "".
func formatTime(ns int64) string {
	if ns == noTime {
		return ""
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// builder assembles an Index from loaded records in a deterministic order.
type builder struct {
	ix                *Index
	blob, origs, refs strings.Builder
}

// addField folds text once and appends it as a field of owner; empty text is skipped.
func (b *builder) addField(owner int32, src Source, name uint8, weight uint8, text, refID, status string, at int64) {
	if strings.TrimSpace(text) == "" {
		return
	}
	text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", " ")
	folded, omap := textmatch.FoldMap(text).Parts()
	f := field{
		at: at, owner: owner, source: uint8(sourceIndex(src)), name: name, weight: weight,
		status: ideaStatusCode(status), ostart: -1, oend: -1, shift: -1,
	}
	f.start = int32(b.blob.Len())
	b.blob.WriteString(folded)
	f.end = int32(b.blob.Len())
	b.blob.WriteByte(0)
	if folded != text {
		f.ostart = int32(b.origs.Len())
		b.origs.WriteString(text)
		f.oend = int32(b.origs.Len())
	}
	if omap != nil {
		sh := compressOffsets(text, omap)
		f.shift, f.nshift = int32(len(b.ix.shifts)), int32(len(sh))
		b.ix.shifts = append(b.ix.shifts, sh...)
	}
	f.refStart = int32(b.refs.Len())
	b.refs.WriteString(refID)
	f.refEnd = int32(b.refs.Len())
	b.ix.fields = append(b.ix.fields, f)
}

// loaded is everything read from the files, before the index is built.
type loaded struct {
	projects  []Project
	cards     []Card
	events    []Event
	workpads  []Workpad
	ideas     []Idea
	artifacts []Artifact
	summaries map[string][]Summary
	memory    []MemoryEntry
	partial   partialSet
}

// build turns loaded records into an Index: archived projects keep only their record, non-active
// memory and memory of projects with memory off are dropped, every other document becomes fields.
func build(l *loaded, stamp Stamp) *Index {
	ix := &Index{stamp: stamp, partial: l.partial}
	b := &builder{ix: ix}
	sort.Slice(l.projects, func(i, j int) bool { return l.projects[i].ID < l.projects[j].ID })
	ix.projByID = make(map[string]int32, len(l.projects))
	for i, p := range l.projects {
		ix.projects = append(ix.projects, project{id: p.ID, title: p.Title, archived: p.Archived, memory: p.Memory})
		ix.projByID[p.ID] = int32(i)
	}
	// Group child records by card, each group in a fixed order.
	events := map[string][]Event{}
	for _, e := range l.events {
		if searchedEvent(e.Type) && strings.TrimSpace(e.Note) != "" {
			events[e.Card] = append(events[e.Card], e)
		}
	}
	workpads := map[string][]Workpad{}
	for _, w := range l.workpads {
		workpads[w.Card] = append(workpads[w.Card], w)
	}
	ideas := map[string][]Idea{}
	for _, d := range l.ideas {
		ideas[d.Card] = append(ideas[d.Card], d)
	}
	artifacts := map[string][]Artifact{}
	for _, a := range l.artifacts {
		artifacts[a.Card] = append(artifacts[a.Card], a)
	}
	cards := make([]Card, 0, len(l.cards))
	for _, c := range l.cards {
		if p, ok := ix.projByID[c.Project]; ok && !ix.projects[p].archived {
			cards = append(cards, c)
		}
	}
	sort.Slice(cards, func(i, j int) bool {
		pi, pj := ix.projByID[cards[i].Project], ix.projByID[cards[j].Project]
		if pi != pj {
			return pi < pj
		}
		return cards[i].ID < cards[j].ID
	})
	ix.cardByID = make(map[string]int32, len(cards))
	for i := range ix.projects {
		ix.projects[i].cardLo, ix.projects[i].cardHi = -1, -1
	}
	for ci, c := range cards {
		owner := int32(ci)
		pi := ix.projByID[c.Project]
		if ix.projects[pi].cardLo < 0 {
			ix.projects[pi].cardLo = owner
		}
		ix.projects[pi].cardHi = owner + 1
		updated := parseTime(c.UpdatedAt)
		cd := card{
			id: c.ID, title: c.Title, status: c.Status, typ: c.Type, workspaceID: c.WorkspaceID,
			updatedAt: formatTime(updated), proj: pi, tags: append([]string{}, c.Tags...),
			archived: c.Archived, class: statusClass(c.Archived, c.Status), updated: updated, fieldLo: int32(len(ix.fields)),
		}
		for _, t := range c.Tags {
			cd.foldedTags = append(cd.foldedTags, textmatch.Fold(strings.TrimSpace(t)))
		}
		b.addField(owner, SourceCard, nameTitle, 6, c.Title, "", "", updated)
		b.addField(owner, SourceCard, nameTags, 5, strings.Join(c.Tags, " "), "", "", updated)
		b.addField(owner, SourceCard, nameDescription, 3, c.Description, "", "", updated)
		b.addField(owner, SourceCard, nameType, 1, c.Type, "", "", updated)
		if s, ok := latestSummary(l.summaries[c.ID]); ok {
			at := parseTime(s.At)
			cd.summaryState, cd.summaryRecap, cd.hasSummary = s.State, s.Recap, true
			b.addField(owner, SourceSummary, nameState, 4, s.State, "", "", at)
			b.addField(owner, SourceSummary, nameTarget, 4, s.Target, "", "", at)
			b.addField(owner, SourceSummary, nameRecap, 4, s.Recap, "", "", at)
			b.addField(owner, SourceSummary, nameNext, 4, s.Next, "", "", at)
		}
		evs := events[c.ID]
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].ID < evs[j].ID })
		for _, e := range evs {
			b.addField(owner, SourceNote, nameNote, 2, e.Note, e.ID, "", parseTime(e.At))
		}
		wps := workpads[c.ID]
		sort.SliceStable(wps, func(i, j int) bool { return wps[i].ID < wps[j].ID })
		for _, w := range wps {
			at := parseTime(w.At)
			b.addField(owner, SourceWorkpad, nameDescription, 2, w.Description, w.ID, "", at)
			if w.Kind == "check" {
				b.addField(owner, SourceWorkpad, nameCommand, 2, w.Command, w.ID, "", at)
				b.addField(owner, SourceWorkpad, nameEvidence, 2, w.Evidence, w.ID, "", at)
			}
		}
		ids := ideas[c.ID]
		sort.SliceStable(ids, func(i, j int) bool { return ids[i].ID < ids[j].ID })
		for _, d := range ids {
			at := parseTime(d.At)
			b.addField(owner, SourceIdea, nameTitle, 4, d.Title, d.ID, d.Status, at)
			b.addField(owner, SourceIdea, nameDetail, 2, d.Detail, d.ID, d.Status, at)
			b.addField(owner, SourceIdea, nameRationale, 2, d.Rationale, d.ID, d.Status, at)
			b.addField(owner, SourceIdea, nameContext, 2, d.Context, d.ID, d.Status, at)
		}
		arts := artifacts[c.ID]
		sort.SliceStable(arts, func(i, j int) bool { return arts[i].ID < arts[j].ID })
		for _, a := range arts {
			at := parseTime(a.At)
			b.addField(owner, SourceArtifact, nameTitle, 3, a.Title, a.ID, "", at)
			b.addField(owner, SourceArtifact, nameNote, 3, a.Note, a.ID, "", at)
			b.addField(owner, SourceArtifact, nameTarget, 3, a.Target, a.ID, "", at)
			b.addField(owner, SourceArtifact, nameExternalKey, 3, a.ExternalKey, a.ID, "", at)
		}
		cd.fieldHi = int32(len(ix.fields))
		ix.cards = append(ix.cards, cd)
		ix.cardByID[c.ID] = owner
	}
	for i := range ix.projects {
		if ix.projects[i].cardLo < 0 {
			ix.projects[i].cardLo, ix.projects[i].cardHi = 0, 0
		}
		ix.projects[i].memLo, ix.projects[i].memHi = -1, -1
	}
	mems := make([]MemoryEntry, 0, len(l.memory))
	for _, m := range l.memory {
		p, ok := ix.projByID[m.Project]
		if ok && m.Status == "active" && !ix.projects[p].archived && ix.projects[p].memory {
			mems = append(mems, m)
		}
	}
	sort.SliceStable(mems, func(i, j int) bool {
		pi, pj := ix.projByID[mems[i].Project], ix.projByID[mems[j].Project]
		if pi != pj {
			return pi < pj
		}
		return mems[i].ID < mems[j].ID
	})
	for mi, m := range mems {
		owner := int32(mi)
		pi := ix.projByID[m.Project]
		if ix.projects[pi].memLo < 0 {
			ix.projects[pi].memLo = owner
		}
		ix.projects[pi].memHi = owner + 1
		confirmed := parseTime(m.ConfirmedAt)
		me := memEntry{id: m.ID, kind: m.Kind, title: m.Title, proj: pi, confirmed: confirmed, fieldLo: int32(len(ix.fields))}
		for _, t := range m.Tags {
			me.foldedTags = append(me.foldedTags, textmatch.Fold(strings.TrimSpace(t)))
		}
		b.addField(owner, SourceMemory, nameTitle, 4, m.Title, "", "", confirmed)
		b.addField(owner, SourceMemory, nameBody, 4, m.Body, "", "", confirmed)
		b.addField(owner, SourceMemory, nameKeywords, 4, strings.Join(m.Keywords, " "), "", "", confirmed)
		b.addField(owner, SourceMemory, nameTags, 4, strings.Join(m.Tags, " "), "", "", confirmed)
		me.fieldHi = int32(len(ix.fields))
		ix.memory = append(ix.memory, me)
	}
	for i := range ix.projects {
		if ix.projects[i].memLo < 0 {
			ix.projects[i].memLo, ix.projects[i].memHi = 0, 0
		}
	}
	ix.blob, ix.origs, ix.refs = b.blob.String(), b.origs.String(), b.refs.String()
	for i := 0; i < len(ix.blob); i++ {
		ix.freq[ix.blob[i]]++
	}
	return ix
}

// latestSummary picks the newest version by time; among equal times the later one in the file.
func latestSummary(versions []Summary) (Summary, bool) {
	if len(versions) == 0 {
		return Summary{}, false
	}
	best, bestAt := 0, parseTime(versions[0].At)
	for i := 1; i < len(versions); i++ {
		if at := parseTime(versions[i].At); at >= bestAt {
			best, bestAt = i, at
		}
	}
	return versions[best], true
}
