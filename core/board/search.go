package board

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Limits of seed 004 §3.4 and §6.
const (
	DefaultCardLimit  = 30
	MaxCardLimit      = 50
	MaxMemoryResults  = 10
	DefaultAgentLimit = 10
	MaxAgentLimit     = 20
	MaxHitsPerCard    = 3
	MaxAgentSummary   = 400
)

// SearchInput is the search.query input of seed 004 §4; the JSON names are the RPC's, so the
// daemon can decode a request straight into it.
type SearchInput struct {
	Query string `json:"query"`
	// ProjectID limits the search to one project; nil searches every project that is not archived.
	ProjectID *string  `json:"projectId"`
	Sources   []Source `json:"sources,omitempty"`
	// Limit is the most cards returned, 1..50; nil means 30.
	Limit *int `json:"limit,omitempty"`
}

// Result is the search.query output of seed 004 §4.
type Result struct {
	Cards     []CardResult   `json:"cards"`
	Memory    []MemoryResult `json:"memory"`
	Truncated bool           `json:"truncated"`
	// Total is how many cards match; cards holds the first limit of them (truncated: fewer).
	Total int `json:"total"`
	// Partial names the JSON files ("summaries", "memory") that could not be read this time, so
	// their documents are missing from the result.
	Partial []string `json:"partial"`
}

// CardResult is one matching card with its best hits.
type CardResult struct {
	TaskID       string  `json:"taskId"`
	ProjectID    string  `json:"projectId"`
	ProjectTitle string  `json:"projectTitle"`
	WorkspaceID  *string `json:"workspaceId"`
	Title        string  `json:"title"`
	Status       string  `json:"status"`
	Type         string  `json:"type,omitempty"`
	Archived     bool    `json:"archived"`
	UpdatedAt    string  `json:"updatedAt"`
	Hits         []Hit   `json:"hits"`
}

// Hit is one matching field: where it is and a snippet with the matched terms' UTF-16 ranges.
type Hit struct {
	Source  Source  `json:"source"`
	RefID   string  `json:"refId,omitempty"`
	Field   string  `json:"field"`
	Snippet string  `json:"snippet"`
	Ranges  []Range `json:"ranges"`
	At      string  `json:"at,omitempty"`
	// Status is an idea's status (open, accepted, dismissed); empty for other sources.
	Status string `json:"status,omitempty"`
}

// MemoryResult is one matching active project memory entry.
type MemoryResult struct {
	ID        string  `json:"id"`
	ProjectID string  `json:"projectId"`
	Kind      string  `json:"kind"`
	Title     string  `json:"title"`
	Snippet   string  `json:"snippet"`
	Ranges    []Range `json:"ranges"`
}

// AgentInput is the flowly_search input of seed 004 §6; Card is the caller's own card (--card).
type AgentInput struct {
	Card    string   `json:"-"`
	Query   string   `json:"query" jsonschema:"1-200 characters: words (all must match), \"quoted phrases\", #tag filters"`
	Sources []Source `json:"sources,omitempty" jsonschema:"limit to these sources: card, summary, note, workpad, idea, artifact"`
	Limit   *int     `json:"limit,omitempty" jsonschema:"most cards ({range}, default {default})"`
}

// AgentResult is the flowly_search output: cards of the caller's project with tags and summary.
type AgentResult struct {
	Cards     []AgentCard `json:"cards"`
	Truncated bool        `json:"truncated"`
}

// AgentCard is a card as an agent sees it: enough to decide whether to look further.
type AgentCard struct {
	TaskID    string     `json:"taskId"`
	Title     string     `json:"title"`
	Status    string     `json:"status"`
	Type      string     `json:"type,omitempty"`
	Tags      []string   `json:"tags"`
	Archived  bool       `json:"archived"`
	UpdatedAt string     `json:"updatedAt"`
	Summary   string     `json:"summary,omitempty"`
	Hits      []AgentHit `json:"hits"`
}

// AgentHit is a hit without ranges: agents read the snippet, they do not highlight it.
type AgentHit struct {
	Source  Source `json:"source"`
	Snippet string `json:"snippet"`
}

// sourceMask is a set of sources as bits of sourceIndex.
type sourceMask uint8

func (m sourceMask) has(s Source) bool { return m&(1<<sourceIndex(s)) != 0 }

func (m sourceMask) hasBit(i uint8) bool { return m&(1<<i) != 0 }

// parseSources validates a source list against the allowed ones; empty means all allowed.
func parseSources(list []Source, allowed []Source) (sourceMask, error) {
	var all sourceMask
	names := make([]string, len(allowed))
	for i, s := range allowed {
		all |= 1 << sourceIndex(s)
		names[i] = string(s)
	}
	if len(list) == 0 {
		return all, nil
	}
	var m sourceMask
	for _, s := range list {
		i := sourceIndex(s)
		if i < 0 || all&(1<<i) == 0 {
			return 0, errs.Invalidf("unknown source %q (valid: %s)", s, strings.Join(names, ", "))
		}
		m |= 1 << i
	}
	return m, nil
}

// applySwitches removes the sources the [board] settings turn off.
func applySwitches(m sourceMask, cfg workspace.BoardConfig) sourceMask {
	if !cfg.Ideas {
		m &^= 1 << sourceIndex(SourceIdea)
	}
	if !cfg.Artifacts {
		m &^= 1 << sourceIndex(SourceArtifact)
	}
	if !cfg.Memory {
		m &^= 1 << sourceIndex(SourceMemory)
	}
	return m
}

func checkLimit(limit *int, def, maxLimit int) (int, error) {
	if limit == nil {
		return def, nil
	}
	if *limit < 1 || *limit > maxLimit {
		return 0, errs.Invalidf("limit %d is out of range 1..%d", *limit, maxLimit)
	}
	return *limit, nil
}

// Search answers search.query (seed 004 §3–§4) with the [board] switches of cfg. ctx ending
// stops it between terms (CANCELLED), so a cancelled request gives its core back.
func (ix *Index) Search(ctx context.Context, cfg workspace.BoardConfig, in SearchInput) (*Result, error) {
	return guarded(ix, func() (*Result, error) { return ix.runSearch(ctx, cfg, in) })
}

func (ix *Index) runSearch(ctx context.Context, cfg workspace.BoardConfig, in SearchInput) (*Result, error) {
	q, err := ParseQuery(in.Query)
	if err != nil {
		return nil, err
	}
	limit, err := checkLimit(in.Limit, DefaultCardLimit, MaxCardLimit)
	if err != nil {
		return nil, err
	}
	mask, err := parseSources(in.Sources, AllSources())
	if err != nil {
		return nil, err
	}
	mask = applySwitches(mask, cfg)
	var scope []int32
	if in.ProjectID != nil {
		p, ok := ix.projByID[*in.ProjectID]
		if !ok || ix.projects[p].archived {
			return nil, ix.projectNotFound(*in.ProjectID, ok)
		}
		scope = []int32{p}
	} else {
		for i, p := range ix.projects {
			if !p.archived {
				scope = append(scope, int32(i))
			}
		}
	}
	res := &Result{Cards: []CardResult{}, Memory: []MemoryResult{}, Partial: []string{}}
	if ix.partial.summaries && mask.has(SourceSummary) {
		res.Partial = append(res.Partial, "summaries")
	}
	if ix.partial.memory && mask.has(SourceMemory) {
		res.Partial = append(res.Partial, "memory")
	}
	if q.Empty() {
		return res, nil
	}
	matches, total := ix.matchCards(ctx, q, scope, mask, -1, limit)
	if err := errs.Stopped(ctx, "board search"); err != nil {
		return nil, err
	}
	res.Truncated, res.Total = total > len(matches), total
	terms := highlightTerms(q)
	for _, m := range matches {
		c := &ix.cards[m.card]
		p := &ix.projects[c.proj]
		// Strings are copied: the index may alias a mapped snapshot that outlives no result.
		cr := CardResult{
			TaskID: strings.Clone(c.id), ProjectID: strings.Clone(p.id), ProjectTitle: strings.Clone(p.title),
			Title: strings.Clone(c.title), Status: strings.Clone(c.status), Type: strings.Clone(c.typ),
			Archived: c.archived, UpdatedAt: strings.Clone(c.updatedAt), Hits: []Hit{},
		}
		if c.workspaceID != "" {
			ws := strings.Clone(c.workspaceID)
			cr.WorkspaceID = &ws
		}
		for _, fi := range ix.topHits(m.hits) {
			f := &ix.fields[fi]
			snip, ranges := makeSnippet(ix.original(f), occurrences(ix.folded(f), terms))
			cr.Hits = append(cr.Hits, Hit{
				Source: sourceAt(f.source), RefID: strings.Clone(ix.refID(f)), Field: fieldName(f.name), Snippet: snip, Ranges: ranges,
				At: formatTime(f.at), Status: ideaStatus(f.status),
			})
		}
		res.Cards = append(res.Cards, cr)
	}
	if mask.has(SourceMemory) {
		res.Memory = ix.matchMemory(q, scope)
	}
	runtime.KeepAlive(ix)
	return res, nil
}

// AgentSearch answers flowly_search (seed 004 §6): the caller's project only, its own card
// excluded, no memory, each card with its tags and latest summary. ctx ending stops it between
// terms (CANCELLED).
func (ix *Index) AgentSearch(ctx context.Context, cfg workspace.BoardConfig, in AgentInput) (*AgentResult, error) {
	return guarded(ix, func() (*AgentResult, error) { return ix.runAgentSearch(ctx, cfg, in) })
}

func (ix *Index) runAgentSearch(ctx context.Context, cfg workspace.BoardConfig, in AgentInput) (*AgentResult, error) {
	// Seed 004 §6: query is 1..200 characters with the syntax of §3.1, where white space alone
	// is an empty result, not an error (§9).
	if in.Query == "" {
		return nil, errs.Invalidf("query must not be empty (1..%d characters)", MaxQueryChars)
	}
	q, err := ParseQuery(in.Query)
	if err != nil {
		return nil, err
	}
	limit, err := checkLimit(in.Limit, DefaultAgentLimit, MaxAgentLimit)
	if err != nil {
		return nil, err
	}
	allowed := AllSources()
	allowed = allowed[:len(allowed)-1] // every source but memory
	mask, err := parseSources(in.Sources, allowed)
	if err != nil {
		return nil, err
	}
	mask = applySwitches(mask, cfg)
	own, ok := ix.cardByID[in.Card]
	if !ok {
		return nil, errs.NotFoundf("Card %q not found (it is not on the board, or its project is archived).", in.Card)
	}
	res := &AgentResult{Cards: []AgentCard{}}
	if q.Empty() {
		return res, nil
	}
	matches, total := ix.matchCards(ctx, q, []int32{ix.cards[own].proj}, mask, own, limit)
	if err := errs.Stopped(ctx, "board search"); err != nil {
		return nil, err
	}
	res.Truncated = total > len(matches)
	terms := highlightTerms(q)
	for _, m := range matches {
		c := &ix.cards[m.card]
		ac := AgentCard{
			TaskID: strings.Clone(c.id), Title: strings.Clone(c.title), Status: strings.Clone(c.status),
			Type: strings.Clone(c.typ), Tags: []string{}, Archived: c.archived,
			UpdatedAt: strings.Clone(c.updatedAt), Summary: strings.Clone(agentSummary(c)), Hits: []AgentHit{},
		}
		for _, t := range c.tags {
			ac.Tags = append(ac.Tags, strings.Clone(t))
		}
		for _, fi := range ix.topHits(m.hits) {
			f := &ix.fields[fi]
			snip, _ := makeSnippet(ix.original(f), occurrences(ix.folded(f), terms))
			ac.Hits = append(ac.Hits, AgentHit{Source: sourceAt(f.source), Snippet: snip})
		}
		res.Cards = append(res.Cards, ac)
	}
	runtime.KeepAlive(ix)
	return res, nil
}

// agentSummary is the latest summary's state and recap, one per line, cut to 400 characters.
func agentSummary(c *card) string {
	if !c.hasSummary {
		return ""
	}
	var parts []string
	for _, s := range []string{c.summaryState, c.summaryRecap} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	s := strings.Join(parts, "\n")
	if utf8.RuneCountInString(s) <= MaxAgentSummary {
		return s
	}
	r := []rune(s)
	return string(r[:MaxAgentSummary-1]) + string(ellipsis)
}

// highlightTerms are what snippets mark: the terms, or the tags when the query has only tags.
func highlightTerms(q Query) []string {
	if len(q.Terms) > 0 {
		return q.Terms
	}
	return q.Tags
}

// cardMatch is a card that matched, with what ranks it and, for the cards returned, its hits.
type cardMatch struct {
	latest int64
	card   int32
	best   uint8
	class  uint8
	hits   []int32
}

// before is the ranking of seed 004 §3.3: best hit weight, then open / finished / archived, then
// latest activity, then card order for a total order.
func (a *cardMatch) before(b *cardMatch) bool {
	switch {
	case a.best != b.best:
		return a.best > b.best
	case a.class != b.class:
		return a.class < b.class
	case a.latest != b.latest:
		return a.latest > b.latest
	}
	return a.card < b.card
}

// statusClass orders open cards before finished (Done, Cancelled) before archived ones.
func statusClass(archived bool, lane string) uint8 {
	switch {
	case archived:
		return 2
	case strings.EqualFold(lane, "Done"), strings.EqualFold(lane, "Cancelled"), strings.EqualFold(lane, "Canceled"):
		return 1
	}
	return 0
}

// fieldRange is the fields of cards[lo:hi] (contiguous because fields follow card order).
func (ix *Index) fieldRange(lo, hi int32) (int32, int32) {
	if lo >= hi {
		return 0, 0
	}
	return ix.cards[lo].fieldLo, ix.cards[hi-1].fieldHi
}

// needle is a term prepared for scanning: it looks for the term's rarest byte (by the board's
// byte counts) with IndexByte, which skips at memchr speed, and compares the term around each
// candidate. When even the rarest byte is common it falls back to strings.Index.
type needle struct {
	t     string
	off   int
	c     byte
	plain bool
}

func (ix *Index) newNeedle(t string) needle {
	best := 0
	for k := 1; k < len(t); k++ {
		if ix.freq[t[k]] < ix.freq[t[best]] {
			best = k
		}
	}
	n := needle{t: t, off: best, c: t[best]}
	n.plain = len(t) > 1 && uint64(ix.freq[n.c])*32 > uint64(len(ix.blob))
	return n
}

// find returns the first occurrence of the term in s[pos:end] as an offset into s, or -1.
func (n *needle) find(s string, pos, end int) int {
	if n.plain {
		if i := strings.Index(s[pos:end], n.t); i >= 0 {
			return pos + i
		}
		return -1
	}
	for p := pos + n.off; p < end; {
		i := strings.IndexByte(s[p:end], n.c)
		if i < 0 {
			return -1
		}
		at := p + i - n.off
		if at+len(n.t) <= end && s[at:at+len(n.t)] == n.t {
			return at
		}
		p += i + 1
	}
	return -1
}

// scan appends to out every field of fields[flo:fhi] whose folded text contains the term, in
// field order, with one pass over the joined text that jumps to the next field after a match.
func (ix *Index) scan(n *needle, flo, fhi int32, out []int32) []int32 {
	if flo >= fhi {
		return out
	}
	end := int(ix.fields[fhi-1].end)
	pos := int(ix.fields[flo].start)
	k := flo
	for pos < end {
		at := n.find(ix.blob, pos, end)
		if at < 0 {
			break
		}
		for k+1 < fhi && int(ix.fields[k+1].start) <= at {
			k++
		}
		out = append(out, k)
		pos = int(ix.fields[k].end) + 1
	}
	return out
}

// parallelScanBytes is the text size above which one scan is split across the CPUs.
const parallelScanBytes = 1 << 20

// scanParallel is scan over a large range, split at field boundaries into one part per CPU.
func (ix *Index) scanParallel(n *needle, flo, fhi int32, out []int32) []int32 {
	if flo >= fhi {
		return out
	}
	size := int(ix.fields[fhi-1].end - ix.fields[flo].start)
	parts := min(runtime.GOMAXPROCS(0), 8)
	if parts < 2 || size < parallelScanBytes {
		return ix.scan(n, flo, fhi, out)
	}
	bounds := []int32{flo}
	for p := 1; p < parts; p++ {
		target := ix.fields[flo].start + int32(size*p/parts)
		k := flo + int32(sort.Search(int(fhi-flo), func(j int) bool { return ix.fields[flo+int32(j)].start >= target }))
		if k > bounds[len(bounds)-1] && k < fhi {
			bounds = append(bounds, k)
		}
	}
	bounds = append(bounds, fhi)
	results := make([][]int32, len(bounds)-1)
	ix.parallel(len(results), func(p int) { results[p] = ix.scan(n, bounds[p], bounds[p+1], nil) })
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// matchCards finds the cards of the scope projects where every term occurs in some allowed
// field and every tag filter matches, ranked, each with at most three hits. It returns the best
// limit cards and how many matched in all. The steps: candidates (the cards a search may
// return), narrow (each term in turn keeps the cards that hold it), rank, and hits. ctx ending
// stops narrow before its next term, and what is returned then is to be thrown away.
func (ix *Index) matchCards(ctx context.Context, q Query, scope []int32, mask sourceMask, exclude int32, limit int) ([]cardMatch, int) {
	m := ix.newMatcher(q, mask, exclude)
	m.ctx = ctx
	defer ix.scratch.Put(m.matchScratch)
	var cands []int32
	if len(q.Terms) == 0 {
		// Tags only: every allowed card matches; its tags field is the hit.
		cands = m.candidates(scope)
		m.markTags(cands)
	} else {
		cands = m.narrow(scope)
	}
	top := m.rank(cands, limit)
	m.attachHits(top)
	return top, len(cands)
}

// matcher is the state of one matchCards: which fields hold a term, and per card what ranks it.
type matcher struct {
	ctx     context.Context // nil: never stopped
	ix      *Index
	q       Query
	mask    sourceMask
	exclude int32
	*matchScratch
}

// matchScratch is the per-search memory of a matcher, as large as the board; searches reuse it
// (Index.scratch) so a busy daemon does not allocate and collect it for every search.
type matchScratch struct {
	hit    []uint64 // bit per field: it holds a term
	best   []uint8  // per card: best hit weight so far
	latest []int64  // per card: newest hit time so far
	seen   []int32  // per card: the last term number it matched (narrow)
	found  []int32  // the fields a term was found in (narrow)
	// unmarked is set when a listed term skipped fields that could not change their card's rank
	// (see keepListed), so hit lists come from the text instead of the hit bits.
	unmarked bool
}

func (ix *Index) newMatcher(q Query, mask sourceMask, exclude int32) *matcher {
	s, _ := ix.scratch.Get().(*matchScratch)
	if s == nil {
		s = &matchScratch{
			hit:    make([]uint64, (len(ix.fields)+63)/64),
			best:   make([]uint8, len(ix.cards)),
			latest: make([]int64, len(ix.cards)),
			seen:   make([]int32, len(ix.cards)),
		}
	} else {
		clear(s.hit)
		clear(s.best)
		clear(s.seen)
		s.found = s.found[:0]
		s.unmarked = false
	}
	// A card ranks by its newest activity: its own update time or a newer hit.
	updated, _ := ix.cardTables()
	copy(s.latest, updated)
	return &matcher{ix: ix, q: q, mask: mask, exclude: exclude, matchScratch: s}
}

// allowed says whether a card may be returned: not the excluded one, and every tag filter matches.
func (m *matcher) allowed(ci int32) bool {
	return ci != m.exclude && (len(m.q.Tags) == 0 || allTags(m.q.Tags, m.ix.cards[ci].foldedTags))
}

// mark records field fi as a hit: its bit, and its weight and time for its card's rank.
func (m *matcher) mark(fi int32) {
	f := &m.ix.fields[fi]
	m.hit[fi>>6] |= 1 << (fi & 63)
	m.best[f.owner] = max(m.best[f.owner], f.weight)
	m.latest[f.owner] = max(m.latest[f.owner], f.at)
}

// candidates lists the allowed cards of the scope projects, ascending.
func (m *matcher) candidates(scope []int32) []int32 {
	var out []int32
	for _, p := range scope {
		for ci := m.ix.projects[p].cardLo; ci < m.ix.projects[p].cardHi; ci++ {
			if m.allowed(ci) {
				out = append(out, ci)
			}
		}
	}
	return out
}

// markTags marks the tags field of each card as its hit, when card fields are searched.
func (m *matcher) markTags(cards []int32) {
	if !m.mask.has(SourceCard) {
		return
	}
	for _, ci := range cards {
		c := &m.ix.cards[ci]
		for fi := c.fieldLo; fi < c.fieldHi; fi++ {
			if f := &m.ix.fields[fi]; f.source == 0 && f.name == nameTags {
				m.mark(fi)
			}
		}
	}
}

// narrow scans for each term in turn, rarest first, and keeps the cards that hold it in an
// allowed field; it returns the cards that hold every term, ascending, or nil. The first term
// scans every card of the scope unless tag filters already cut the candidates; later terms scan
// only the cards left. With a narrowing index, a term whose list of fields is cheaper than the
// text to scan looks only at the fields of that list.
func (m *matcher) narrow(scope []int32) []int32 {
	seen := m.seen
	var cands []int32
	if len(m.q.Tags) > 0 {
		cands = m.candidates(scope)
		for _, ci := range cands {
			seen[ci] = -1 // a candidate before any term
		}
	}
	nx := m.ix.narrow.Load()
	found := m.found[:0]
	defer func() { m.found = found[:0] }()
	for ti, term := range m.ix.termOrder(m.q.Terms, nx) {
		if m.ctx != nil && m.ctx.Err() != nil {
			return nil // stopped: the caller answers CANCELLED
		}
		n := m.ix.newNeedle(term)
		num := int32(ti + 1)
		switch {
		case ti == 0 && len(m.q.Tags) == 0:
			if in := m.listScope(nx, &n, scope); in != nil {
				cands = m.keepListed(nx, &n, in, 0, num, m.ix.scopeSpans(scope))
			} else {
				found = m.scanScope(&n, scope, found[:0])
				cands = m.keep(found, num, seen)
			}
		case m.listCandidates(nx, &n, cands):
			prev := int32(ti)
			if ti == 0 {
				prev = -1
			}
			cands = m.keepListed(nx, &n, nil, prev, num, m.ix.cardSpans(cands))
		default:
			found = m.ix.scanCards(&n, cands, found[:0])
			cands = m.keep(found, num, seen)
		}
		if len(cands) == 0 {
			return nil
		}
	}
	return cands
}

// scanScope appends every field of the scope projects' cards that holds the term, in field order.
func (m *matcher) scanScope(n *needle, scope []int32, out []int32) []int32 {
	for _, p := range scope {
		flo, fhi := m.ix.fieldRange(m.ix.projects[p].cardLo, m.ix.projects[p].cardHi)
		out = m.ix.scanParallel(n, flo, fhi, out)
	}
	return out
}

// listScope says whether the term's list is cheaper than scanning the scope, and if so returns
// which cards are in the scope; nil means scan.
func (m *matcher) listScope(nx *narrowIndex, n *needle, scope []int32) []bool {
	if nx == nil {
		return nil
	}
	size := 0
	for _, p := range scope {
		size += m.ix.textBytes(m.ix.projects[p].cardLo, m.ix.projects[p].cardHi)
	}
	if !nx.worthListing(n.t, size) {
		return nil
	}
	in := make([]bool, len(m.ix.cards))
	for _, p := range scope {
		for ci := m.ix.projects[p].cardLo; ci < m.ix.projects[p].cardHi; ci++ {
			in[ci] = true
		}
	}
	return in
}

// listCandidates says whether the term's list is cheaper than scanning the cards cands.
func (m *matcher) listCandidates(nx *narrowIndex, n *needle, cands []int32) bool {
	if nx == nil {
		return false
	}
	size := 0
	for _, ci := range cands {
		size += m.ix.textBytes(ci, ci+1)
	}
	return nx.worthListing(n.t, size)
}

// fieldSpan is a range of fields, [lo, hi).
type fieldSpan struct{ lo, hi int32 }

// scopeSpans are the field ranges of the scope projects' cards, ascending.
func (ix *Index) scopeSpans(scope []int32) []fieldSpan {
	var out []fieldSpan
	for _, p := range scope {
		if lo, hi := ix.fieldRange(ix.projects[p].cardLo, ix.projects[p].cardHi); lo < hi {
			out = append(out, fieldSpan{lo, hi})
		}
	}
	slices.SortFunc(out, func(a, b fieldSpan) int { return cmp.Compare(a.lo, b.lo) })
	return out
}

// cardSpans are the field ranges of the cards (ascending), consecutive cards joined.
func (ix *Index) cardSpans(cards []int32) []fieldSpan {
	var out []fieldSpan
	for i := 0; i < len(cards); {
		j := i + 1
		for j < len(cards) && cards[j] == cards[j-1]+1 {
			j++
		}
		if lo, hi := ix.cards[cards[i]].fieldLo, ix.cards[cards[j-1]].fieldHi; lo < hi {
			out = append(out, fieldSpan{lo, hi})
		}
		i = j
	}
	return out
}

// keepListed is keep over the fields of the term's list that hold it: the fields of the cards in
// scope when in is not nil (the first term), otherwise of the cards left by the previous term
// (seen is prev, or already term for a card this term found before). spans are the field
// ranges of those cards, ascending: a listed field outside them is passed without reading its
// record, and the walk stops past the last one (a list runs over the whole board, a search of
// one project or of a few cards needs a stretch of it). It checks a field's source and card
// before looking at its text, and reads each field once.
func (m *matcher) keepListed(nx *narrowIndex, n *needle, in []bool, prev, term int32, spans []fieldSpan) []int32 {
	ix := m.ix
	t := n.t
	k, at := nx.rarest(t)
	list := nx.data[nx.off[k]:nx.off[k+1]]
	_, ceilings := ix.cardTables()
	var next []int32
	fi := int32(-1)
	// Fields before skipTo belong to a card that holds the term and that none of its fields
	// can rank higher: they are passed without being read.
	skipTo := int32(0)
	for i := 0; i < len(list); {
		var gap, first uint64
		gap, i = uvarint(list, i)
		if len(t) > 1 {
			first, i = uvarint(list, i)
		}
		fi += int32(gap)
		if fi < skipTo {
			m.unmarked = true
			continue
		}
		for len(spans) > 0 && fi >= spans[0].hi {
			spans = spans[1:]
		}
		if len(spans) == 0 {
			break // no field of the cards searched is left in the list
		}
		if fi < spans[0].lo {
			continue // not a field of the cards searched
		}
		f := &ix.fields[fi]
		if !m.mask.hasBit(f.source) {
			continue
		}
		o := f.owner
		if in != nil {
			if !in[o] {
				continue
			}
		} else if s := m.seen[o]; s != prev && s != term {
			continue
		}
		if term == 1 && !m.allowed(o) {
			continue
		}
		if m.seen[o] == term && f.weight <= m.best[o] && f.at <= m.latest[o] {
			// The card already holds the term, and this field cannot raise its rank: whether it
			// holds the term only matters if the card is shown, and attachHits finds that out.
			m.unmarked = true
			if cl := &ceilings[o]; m.best[o] >= cl.weight && m.latest[o] >= cl.at {
				skipTo = cl.fieldHi
			}
			continue
		}
		if !ix.holds(n, f, int(first), at) {
			continue
		}
		m.mark(fi)
		if m.seen[o] != term {
			m.seen[o] = term
			next = append(next, o)
		}
	}
	return next
}

// textBytes is the size of the folded text of cards[lo:hi].
func (ix *Index) textBytes(lo, hi int32) int {
	flo, fhi := ix.fieldRange(lo, hi)
	if flo >= fhi {
		return 0
	}
	return int(ix.fields[fhi-1].end - ix.fields[flo].start)
}

// keep marks the found fields of the allowed sources and returns their cards, each once, in field
// order. term is the term's number from 1; the first term's fields may belong to cards that are
// not allowed, and those are dropped (later terms only scan allowed cards).
func (m *matcher) keep(found []int32, term int32, seen []int32) []int32 {
	var next []int32
	for _, fi := range found {
		f := &m.ix.fields[fi]
		if !m.mask.hasBit(f.source) || term == 1 && !m.allowed(f.owner) {
			continue
		}
		m.mark(fi)
		if seen[f.owner] != term {
			seen[f.owner] = term
			next = append(next, f.owner)
		}
	}
	return next
}

// rank keeps the best limit cards of cands in order; the rest only count.
func (m *matcher) rank(cands []int32, limit int) []cardMatch {
	_, ceilings := m.ix.cardTables()
	top := make([]cardMatch, 0, limit+1)
	for _, ci := range cands {
		cm := cardMatch{card: ci, class: ceilings[ci].class, best: m.best[ci], latest: m.latest[ci]} // latest starts at c.updated
		if len(top) == limit && !cm.before(&top[limit-1]) {
			continue
		}
		i := sort.Search(len(top), func(k int) bool { return cm.before(&top[k]) })
		top = slices.Insert(top, i, cm)
		if len(top) > limit {
			top = top[:limit]
		}
	}
	return top
}

// attachHits gives each ranked card its marked fields, in field order.
// When fields were left unmarked (matchScratch.unmarked), a ranked card's hits are found again:
// its fields of an allowed source that hold a term, the fields marking would have set.
func (m *matcher) attachHits(top []cardMatch) {
	for k := range top {
		c := &m.ix.cards[top[k].card]
		for fi := c.fieldLo; fi < c.fieldHi; fi++ {
			if m.unmarked {
				if f := &m.ix.fields[fi]; m.mask.hasBit(f.source) && holdsAny(m.ix.text(f), m.q.Terms) {
					top[k].hits = append(top[k].hits, fi)
				}
			} else if m.hit[fi>>6]&(1<<(fi&63)) != 0 {
				top[k].hits = append(top[k].hits, fi)
			}
		}
	}
}

func holdsAny(text string, terms []string) bool {
	for _, t := range terms {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// scanCards is scan over the given cards (ascending): cards with consecutive indices have
// adjacent text, so each run is one range, and large sets of runs are split across the CPUs.
func (ix *Index) scanCards(n *needle, cards []int32, out []int32) []int32 {
	type run struct{ lo, hi int32 }
	var runs []run
	size := 0
	for i := 0; i < len(cards); {
		j := i + 1
		for j < len(cards) && cards[j] == cards[j-1]+1 {
			j++
		}
		r := run{ix.cards[cards[i]].fieldLo, ix.cards[cards[j-1]].fieldHi}
		if r.lo < r.hi {
			runs = append(runs, r)
			size += int(ix.fields[r.hi-1].end - ix.fields[r.lo].start)
		}
		i = j
	}
	parts := min(runtime.GOMAXPROCS(0), 8)
	if parts < 2 || size < parallelScanBytes {
		for _, r := range runs {
			out = ix.scan(n, r.lo, r.hi, out)
		}
		return out
	}
	// Cut the runs into parts of about equal text, keeping their order.
	var groups [][]run
	cur, curSize := []run(nil), 0
	for _, r := range runs {
		cur = append(cur, r)
		curSize += int(ix.fields[r.hi-1].end - ix.fields[r.lo].start)
		if curSize*parts >= size && len(groups) < parts-1 {
			groups, cur, curSize = append(groups, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	results := make([][]int32, len(groups))
	ix.parallel(len(groups), func(g int) {
		for _, r := range groups[g] {
			results[g] = ix.scan(n, r.lo, r.hi, results[g])
		}
	})
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// termOrder scans the term that is likely rarest first (the one whose rarest byte is rarest in
// the board, longer first on ties), so later terms only look inside the cards that are left.
// With a narrowing index, the rarest term is the one with the shortest list: fewer fields to
// check, and the later terms' lists are checked only for the cards left.
func (ix *Index) termOrder(terms []string, nx *narrowIndex) []string {
	rarity := func(t string) uint32 {
		if nx != nil {
			k, _ := nx.rarest(t)
			return uint32(nx.count[k])
		}
		r := ix.freq[t[0]]
		for k := 1; k < len(t); k++ {
			r = min(r, ix.freq[t[k]])
		}
		return r
	}
	out := slices.Clone(terms)
	slices.SortStableFunc(out, func(a, b string) int {
		if c := cmp.Compare(rarity(a), rarity(b)); c != 0 {
			return c
		}
		return cmp.Compare(len(b), len(a))
	})
	return out
}

// topHits orders a card's hit fields by weight, then newest, then field order, and keeps three.
func (ix *Index) topHits(hits []int32) []int32 {
	out := slices.Clone(hits)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &ix.fields[out[i]], &ix.fields[out[j]]
		if a.weight != b.weight {
			return a.weight > b.weight
		}
		if a.at != b.at {
			return a.at > b.at
		}
		return out[i] < out[j]
	})
	if len(out) > MaxHitsPerCard {
		out = out[:MaxHitsPerCard]
	}
	return out
}

func allTags(filters, folded []string) bool {
	for _, f := range filters {
		if !tagMatches(f, folded) {
			return false
		}
	}
	return true
}

// matchMemory finds active memory entries of the scope projects that hold every term in one
// entry and match every tag filter by their own tags; newest confirmed first, at most ten.
func (ix *Index) matchMemory(q Query, scope []int32) []MemoryResult {
	type memMatch struct {
		entry int32
		field int32
	}
	var found []memMatch
	terms := highlightTerms(q)
	for _, p := range scope {
		if !ix.projects[p].memory {
			continue
		}
		for mi := ix.projects[p].memLo; mi < ix.projects[p].memHi; mi++ {
			m := &ix.memory[mi]
			if len(q.Tags) > 0 && !allTags(q.Tags, m.foldedTags) {
				continue
			}
			best, bestCount := int32(-1), 0
			ok := true
			for _, t := range q.Terms {
				in := false
				for fi := m.fieldLo; fi < m.fieldHi; fi++ {
					if strings.Contains(ix.text(&ix.fields[fi]), t) {
						in = true
						break
					}
				}
				if !in {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			// The snippet comes from the field holding the most distinct terms (first on ties).
			for fi := m.fieldLo; fi < m.fieldHi; fi++ {
				n := 0
				for _, t := range terms {
					if strings.Contains(ix.text(&ix.fields[fi]), t) {
						n++
					}
				}
				if n > bestCount {
					best, bestCount = fi, n
				}
			}
			if best < 0 && m.fieldLo < m.fieldHi {
				best = m.fieldLo
			}
			if best >= 0 {
				found = append(found, memMatch{mi, best})
			}
		}
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := &ix.memory[found[i].entry], &ix.memory[found[j].entry]
		if a.confirmed != b.confirmed {
			return a.confirmed > b.confirmed
		}
		return found[i].entry < found[j].entry
	})
	if len(found) > MaxMemoryResults {
		found = found[:MaxMemoryResults]
	}
	out := []MemoryResult{}
	for _, fm := range found {
		m := &ix.memory[fm.entry]
		f := &ix.fields[fm.field]
		snip, ranges := makeSnippet(ix.original(f), occurrences(ix.folded(f), terms))
		out = append(out, MemoryResult{
			ID: strings.Clone(m.id), ProjectID: strings.Clone(ix.projects[m.proj].id), Kind: strings.Clone(m.kind), Title: strings.Clone(m.title),
			Snippet: snip, Ranges: ranges,
		})
	}
	return out
}

// projectNotFound is the seed's "Project not found." followed by which project and the ones
// that are searched, at most five named.
func (ix *Index) projectNotFound(id string, archived bool) error {
	var open []string
	for _, p := range ix.projects {
		if !p.archived {
			open = append(open, p.id)
		}
	}
	why := fmt.Sprintf("No project %q is on the board", id)
	if archived {
		why = fmt.Sprintf("Project %q is archived, and archived projects are not searched", id)
	}
	switch {
	case len(open) == 0:
		return errs.NotFoundf("Project not found. %s; no project is searched.", why)
	case len(open) > 5:
		return errs.NotFoundf("Project not found. %s; the projects searched: %s and %d more.", why, strings.Join(open[:5], ", "), len(open)-5)
	}
	return errs.NotFoundf("Project not found. %s; the projects searched: %s.", why, strings.Join(open, ", "))
}
