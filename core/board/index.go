package board

import (
	"math"
	"sort"
	"strings"
	"sync"
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
	// narrow, once EnableNarrowing built it, lets each term look only at the fields that can
	// hold it (narrow.go).
	narrow narrowPtr
	// scratch holds *matchScratch for searches to reuse.
	scratch sync.Pool
	// updated and ceilings are per-card tables made once by cardTables.
	updated    []int64
	ceilings   []ceiling
	tablesOnce sync.Once
}

// ceiling is the most a card's fields can raise its rank: the highest weight and the newest
// time of any of its fields, and where its fields end; with the card's status class, so ranking
// reads only this table.
type ceiling struct {
	at      int64
	fieldHi int32
	weight  uint8
	class   uint8
}

// cardTables returns each card's update time and ceiling, in card order, so a search reads
// these compact tables instead of every card and field.
func (ix *Index) cardTables() ([]int64, []ceiling) {
	ix.tablesOnce.Do(func() {
		ix.updated = make([]int64, len(ix.cards))
		ix.ceilings = make([]ceiling, len(ix.cards))
		for i := range ix.cards {
			c := &ix.cards[i]
			ix.updated[i] = c.updated
			cl := ceiling{at: noTime, fieldHi: c.fieldHi, class: c.class}
			for fi := c.fieldLo; fi < c.fieldHi; fi++ {
				cl.weight = max(cl.weight, ix.fields[fi].weight)
				cl.at = max(cl.at, ix.fields[fi].at)
			}
			ix.ceilings[i] = cl
		}
	})
	return ix.updated, ix.ceilings
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
	specs             *fieldTable
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
	b := &builder{ix: ix, specs: newFieldTable()}
	b.addProjects(l.projects)
	b.addCards(b.liveCards(l.cards), groupChildren(l))
	b.addMemory(b.activeMemory(l.memory))
	b.finish()
	return ix
}

// addProjects records the projects in id order; it sorts projects in place.
func (b *builder) addProjects(projects []Project) {
	ix := b.ix
	sort.Slice(projects, func(i, j int) bool { return projects[i].ID < projects[j].ID })
	ix.projByID = make(map[string]int32, len(projects))
	for i, p := range projects {
		ix.projects = append(ix.projects, project{id: p.ID, title: p.Title, archived: p.Archived, memory: p.Memory})
		ix.projByID[p.ID] = int32(i)
	}
}

// children are the searched child records of the cards, grouped by card id, each group in file
// order: notes (searched events with a note), workpad items, ideas, artifacts, summary versions.
type children struct {
	events    map[string][]Event
	workpads  map[string][]Workpad
	ideas     map[string][]Idea
	artifacts map[string][]Artifact
	summaries map[string][]Summary
}

func groupChildren(l *loaded) *children {
	return &children{
		events: groupByCard(l.events, func(e *Event) string { return e.Card }, func(e *Event) bool {
			return searchedEvent(e.Type) && strings.TrimSpace(e.Note) != ""
		}),
		workpads:  groupByCard(l.workpads, func(w *Workpad) string { return w.Card }, nil),
		ideas:     groupByCard(l.ideas, func(d *Idea) string { return d.Card }, nil),
		artifacts: groupByCard(l.artifacts, func(a *Artifact) string { return a.Card }, nil),
		summaries: l.summaries,
	}
}

// groupByCard groups the records that keep accepts (all when keep is nil) by their card.
func groupByCard[T any](recs []T, cardOf func(*T) string, keep func(*T) bool) map[string][]T {
	out := map[string][]T{}
	for i := range recs {
		if r := &recs[i]; keep == nil || keep(r) {
			k := cardOf(r)
			out[k] = append(out[k], *r)
		}
	}
	return out
}

// sortByID orders one card's child records by id, stably, in place.
func sortByID[T any](recs []T, id func(*T) string) []T {
	sort.SliceStable(recs, func(i, j int) bool { return id(&recs[i]) < id(&recs[j]) })
	return recs
}

// liveCards are the cards of projects that exist and are not archived, by project then id.
func (b *builder) liveCards(all []Card) []Card {
	return inLiveProjects(b, all, func(c *Card) (string, string, bool) { return c.Project, c.ID, true })
}

// inLiveProjects keeps the records of projects that exist and are not archived (and that keep
// wants), ordered by their project's place then by id.
func inLiveProjects[T any](b *builder, all []T, key func(*T) (project, id string, keep bool)) []T {
	ix := b.ix
	out := make([]T, 0, len(all))
	for i := range all {
		proj, _, keep := key(&all[i])
		if p, ok := ix.projByID[proj]; ok && keep && !ix.projects[p].archived {
			out = append(out, all[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, idi, _ := key(&out[i])
		pj, idj, _ := key(&out[j])
		if a, b := ix.projByID[pi], ix.projByID[pj]; a != b {
			return a < b
		}
		return idi < idj
	})
	return out
}

// addCards adds the cards (in liveCards order) with their fields and gives each project its range
// of cards.
func (b *builder) addCards(cards []Card, kids *children) {
	ix := b.ix
	ix.cardByID = make(map[string]int32, len(cards))
	for i := range ix.projects {
		ix.projects[i].cardLo, ix.projects[i].cardHi = -1, -1
	}
	for ci := range cards {
		c := &cards[ci]
		owner := int32(ci)
		pi := ix.projByID[c.Project]
		if ix.projects[pi].cardLo < 0 {
			ix.projects[pi].cardLo = owner
		}
		ix.projects[pi].cardHi = owner + 1
		ix.cards = append(ix.cards, b.addCard(owner, pi, c, kids))
		ix.cardByID[c.ID] = owner
	}
	for i := range ix.projects {
		if ix.projects[i].cardLo < 0 {
			ix.projects[i].cardLo, ix.projects[i].cardHi = 0, 0
		}
	}
}

// addCard adds the fields of one card and its children, in the order of the field table, each
// kind of child by id, and returns the card's record.
func (b *builder) addCard(owner, pi int32, c *Card, kids *children) card {
	ix, specs := b.ix, b.specs
	updated := parseTime(c.UpdatedAt)
	cd := card{
		id: c.ID, title: c.Title, status: c.Status, typ: c.Type, workspaceID: c.WorkspaceID,
		updatedAt: formatTime(updated), proj: pi, tags: append([]string{}, c.Tags...),
		archived: c.Archived, class: statusClass(c.Archived, c.Status), updated: updated, fieldLo: int32(len(ix.fields)),
	}
	for _, t := range c.Tags {
		cd.foldedTags = append(cd.foldedTags, textmatch.Fold(strings.TrimSpace(t)))
	}
	addFields(b, owner, specs.card, c, "", "", updated)
	if versions := kids.summaries[c.ID]; len(versions) > 0 {
		s := &versions[latestVersion(versions)]
		cd.summaryState, cd.summaryRecap, cd.hasSummary = s.State, s.Recap, true
		addFields(b, owner, specs.summary, s, "", "", parseTime(s.At))
	}
	evs := sortByID(kids.events[c.ID], func(e *Event) string { return e.ID })
	for i := range evs {
		addFields(b, owner, specs.note, &evs[i], evs[i].ID, "", parseTime(evs[i].At))
	}
	wps := sortByID(kids.workpads[c.ID], func(w *Workpad) string { return w.ID })
	for i := range wps {
		addFields(b, owner, specs.workpad, &wps[i], wps[i].ID, "", parseTime(wps[i].At))
	}
	ids := sortByID(kids.ideas[c.ID], func(d *Idea) string { return d.ID })
	for i := range ids {
		addFields(b, owner, specs.idea, &ids[i], ids[i].ID, ids[i].Status, parseTime(ids[i].At))
	}
	arts := sortByID(kids.artifacts[c.ID], func(a *Artifact) string { return a.ID })
	for i := range arts {
		addFields(b, owner, specs.artifact, &arts[i], arts[i].ID, "", parseTime(arts[i].At))
	}
	cd.fieldHi = int32(len(ix.fields))
	return cd
}

// activeMemory is the active memory of live projects with memory on, by project then id.
func (b *builder) activeMemory(all []MemoryEntry) []MemoryEntry {
	ix := b.ix
	return inLiveProjects(b, all, func(m *MemoryEntry) (string, string, bool) {
		p, ok := ix.projByID[m.Project]
		return m.Project, m.ID, ok && m.Status == "active" && ix.projects[p].memory
	})
}

// addMemory adds the memory entries (in activeMemory order) with their fields and gives each
// project its range of entries.
func (b *builder) addMemory(mems []MemoryEntry) {
	ix := b.ix
	for i := range ix.projects {
		ix.projects[i].memLo, ix.projects[i].memHi = -1, -1
	}
	for mi := range mems {
		m := &mems[mi]
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
		addFields(b, owner, b.specs.memory, m, "", "", confirmed)
		me.fieldHi = int32(len(ix.fields))
		ix.memory = append(ix.memory, me)
	}
	for i := range ix.projects {
		if ix.projects[i].memLo < 0 {
			ix.projects[i].memLo, ix.projects[i].memHi = 0, 0
		}
	}
}

// finish sets the joined texts and counts the bytes of the folded text.
func (b *builder) finish() {
	ix := b.ix
	ix.blob, ix.origs, ix.refs = b.blob.String(), b.origs.String(), b.refs.String()
	for i := 0; i < len(ix.blob); i++ {
		ix.freq[ix.blob[i]]++
	}
}

// latestSummary picks the newest version by time; among equal times the later one in the file.
func latestSummary(versions []Summary) (Summary, bool) {
	i := latestVersion(versions)
	if i < 0 {
		return Summary{}, false
	}
	return versions[i], true
}

// latestVersion is the index of latestSummary's pick, or -1 when there are no versions.
func latestVersion(versions []Summary) int {
	if len(versions) == 0 {
		return -1
	}
	best, bestAt := 0, parseTime(versions[0].At)
	for i := 1; i < len(versions); i++ {
		if at := parseTime(versions[i].At); at >= bestAt {
			best, bestAt = i, at
		}
	}
	return best
}
