package memory

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// MaxFileSize is the largest entry read, write and edit handle; bigger content is INVALID_INPUT.
const MaxFileSize = 8 << 20

// MaxSearchFileSize is the largest file search reads; bigger ones are reported in `skipped`.
const MaxSearchFileSize = MaxFileSize

// SearchInput is the input of MemorySearch (its tags give the tool's input schema). Limit and
// Context override the manifest's search_hit_limit and search_excerpt_lines for one call when set.
type SearchInput struct {
	Query   string `json:"query" jsonschema:"one literal string matched case-insensitively (full-width equals half-width) against every line, frontmatter included; not split into words"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"most hits to return ({range}); default search_hit_limit of cairn.toml"`
	Context *int   `json:"context,omitempty" jsonschema:"lines of excerpt before and after a match ({range}); default search_excerpt_lines of cairn.toml"`
	// AgentMemory searches the agent runtimes' own memory files (agent.go) instead of cairn's.
	AgentMemory bool   `json:"agent_memory,omitempty" jsonschema:"search the agent runtimes' own memory files instead, read-only: Claude Code's ~/.claude/projects/<project>/memory/ and Codex's ~/.codex/memories/; each hit names its runtime and project"`
	Scope       string `json:"scope,omitempty" jsonschema:"with agent_memory: project (this project's memory files, the default) or all (every project's)"`
	// Kind keeps files whose frontmatter kind equals it exactly: KnowledgeSearch only.
	Kind string `json:"-"`
}

// KnowledgeSearchInput is the input of KnowledgeSearch (its tags give the tool's input schema):
// SearchInput's fields with Kind.
type KnowledgeSearchInput struct {
	Query   string `json:"query" jsonschema:"one literal string matched case-insensitively against every line, frontmatter included"`
	Kind    string `json:"kind,omitempty" jsonschema:"keep only files whose frontmatter kind equals this exactly"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"most hits to return ({range})"`
	Context *int   `json:"context,omitempty" jsonschema:"lines of excerpt before and after a match ({range})"`
}

// MemoryHit is one MemorySearch hit.
type MemoryHit struct {
	Slug          string `json:"slug"`
	Kind          Kind   `json:"kind"`
	Path          string `json:"path"`
	Line          int    `json:"line"`
	InFrontmatter bool   `json:"in_frontmatter"`
	Excerpt       string `json:"excerpt"`
	Lines         Lines  `json:"-"`
}

// KnowledgeHit is one KnowledgeSearch hit; Kind, Description and ModelInvokation come from the
// frontmatter as written and are null when it is missing or broken.
type KnowledgeHit struct {
	Slug            string `json:"slug"`
	Kind            any    `json:"kind"`
	Description     any    `json:"description"`
	ModelInvokation any    `json:"model_invokation"`
	Path            string `json:"path"`
	Line            int    `json:"line"`
	InFrontmatter   bool   `json:"in_frontmatter"`
	Excerpt         string `json:"excerpt"`
	Lines           Lines  `json:"-"`
}

// Lines locates a hit's excerpt for renderers that number and highlight lines: the excerpt's
// first line number and the matching lines in it. It is not part of the JSON shape.
type Lines struct {
	From    int
	Matches []int
}

// MemorySearchResult is the output of MemorySearch.
type MemorySearchResult struct {
	Hits []MemoryHit `json:"hits"`
	// AgentHits are the hits in the agent runtimes' memory files, with agent_memory only.
	AgentHits *[]AgentMemoryHit `json:"agent_hits,omitempty"`
	Truncated bool              `json:"truncated"`
	Skipped   []string          `json:"skipped"`
	// SkippedWhy says why each path of Skipped was skipped, for the notes a person reads.
	SkippedWhy map[string]string `json:"-"`
}

// KnowledgeSearchResult is the output of KnowledgeSearch.
type KnowledgeSearchResult struct {
	Hits      []KnowledgeHit `json:"hits"`
	Truncated bool           `json:"truncated"`
	Skipped   []string       `json:"skipped"`
	// SkippedWhy says why each path of Skipped was skipped, for the notes a person reads.
	SkippedWhy map[string]string `json:"-"`
}

// MemorySearch finds a literal query in memory/summary.md, memory/decisions/*.md and
// memory/requests/*.md, scanning the files on every call; ctx ending stops the scan (CANCELLED).
func MemorySearch(ctx context.Context, ws *workspace.Workspace, in SearchInput) (*MemorySearchResult, error) {
	if in.Kind != "" {
		return nil, errs.Invalidf("kind filters knowledge search only; memory search takes none")
	}
	if in.Scope != "" && !slices.Contains(AgentScopes, in.Scope) {
		return nil, errs.InvalidField("scope", "scope %q is not one of %s", in.Scope, strings.Join(AgentScopes, ", "))
	}
	if in.Scope != "" && !in.AgentMemory {
		return nil, errs.Invalidf("%s chooses whose agent memory is searched; give it with %s", errs.Field("scope", errs.Name), errs.Field("agent_memory", errs.Name))
	}
	if in.AgentMemory {
		return agentMemorySearch(ctx, ws, in)
	}
	hits, res, err := search(ctx, ws, in, []Kind{KindSummary, KindDecision, KindRequest})
	if err != nil {
		return nil, err
	}
	out := &MemorySearchResult{Hits: []MemoryHit{}, Truncated: res.truncated, Skipped: res.skipped, SkippedWhy: res.why}
	for _, h := range hits {
		out.Hits = append(out.Hits, MemoryHit{Slug: h.file.slug(), Kind: h.file.kind, Path: h.file.rel(), Line: h.line,
			InFrontmatter: h.inFM, Excerpt: h.excerpt, Lines: h.lines})
	}
	return out, nil
}

// KnowledgeSearch finds a literal query in knowledge/*.md, optionally only in files whose
// frontmatter kind equals in.Kind; ctx ending stops the scan (CANCELLED).
func KnowledgeSearch(ctx context.Context, ws *workspace.Workspace, in KnowledgeSearchInput) (*KnowledgeSearchResult, error) {
	hits, res, err := search(ctx, ws, SearchInput{Query: in.Query, Limit: in.Limit, Context: in.Context, Kind: in.Kind}, []Kind{KindKnowledge})
	if err != nil {
		return nil, err
	}
	out := &KnowledgeSearchResult{Hits: []KnowledgeHit{}, Truncated: res.truncated, Skipped: res.skipped, SkippedWhy: res.why}
	for _, h := range hits {
		fm := h.fm
		out.Hits = append(out.Hits, KnowledgeHit{Slug: h.file.slug(), Kind: fm.Kind, Description: fm.Description,
			ModelInvokation: fm.ModelInvokation, Path: h.file.rel(), Line: h.line, InFrontmatter: h.inFM,
			Excerpt: h.excerpt, Lines: h.lines})
	}
	return out, nil
}

// candidate is one file in a search's scope: a file name in its kind's directory. Paths and
// slugs are derived on demand, so listing ten thousand files allocates nothing per file.
type candidate struct {
	kind    Kind
	name    string
	regular bool // the listing gave it as a regular file
}

// dirName is a name in a directory listing and whether the listing gave it as a regular file
// (false when it did not say).
type dirName struct {
	name    string
	regular bool
}

// rel is the candidate's path relative to the workspace.
func (c *candidate) rel() string {
	if c.kind == KindSummary {
		return summaryPath
	}
	return c.kind.dir() + "/" + c.name
}

// slug is the candidate's slug ("summary" for the summary).
func (c *candidate) slug() string {
	if c.kind == KindSummary {
		return summarySlug
	}
	return strings.TrimSuffix(c.name, ".md")
}

// hit is a kind-independent search hit.
type hit struct {
	file    *candidate
	line    int
	inFM    bool
	excerpt string
	lines   Lines
	fm      *Frontmatter
}

// fileResult is what scanning one file produced: at most limit+1 hits, or that it was skipped.
type fileResult struct {
	hits    []hit
	skipped string // why the file was skipped; "" when it was not
}

// outcome is the part of a search result that does not depend on the kind of hit.
type outcome struct {
	truncated bool
	skipped   []string
	why       map[string]string // the reason for each skipped path
}

// params are the validated knobs of one search.
type params struct {
	needle    textmatch.Needle
	limit     int
	context   int
	kind      string
	knowledge bool
}

// searchParams validates the input and merges it with the manifest's limits.
func searchParams(ws *workspace.Workspace, in SearchInput) (params, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return params{}, errs.Invalidf("query is empty; give the text to search for")
	}
	if strings.ContainsAny(q, "\r\n") {
		return params{}, errs.Invalidf("query spans several lines; search matches within one line")
	}
	p := params{needle: textmatch.NewNeedle(q), limit: ws.Config.Memory.SearchHitLimit,
		context: ws.Config.Memory.SearchExcerptLines, kind: in.Kind}
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > workspace.MaxSearchHits {
			return params{}, errs.InvalidField("limit", "limit %d is out of range 1..%d", *in.Limit, workspace.MaxSearchHits)
		}
		p.limit = *in.Limit
	}
	if in.Context != nil {
		if *in.Context < 0 || *in.Context > workspace.MaxExcerptLines {
			return params{}, errs.InvalidField("context", "context %d is out of range 0..%d", *in.Context, workspace.MaxExcerptLines)
		}
		p.context = *in.Context
	}
	return p, nil
}

// search scans the files of the given kinds in path order, in parallel, and keeps the first
// limit hits; results are the same whatever the scheduling. Workers look at ctx before each
// file, and the merge before each chunk.
func search(ctx context.Context, ws *workspace.Workspace, in SearchInput, ks []Kind) ([]hit, outcome, error) {
	p, err := searchParams(ws, in)
	if err != nil {
		return nil, outcome{}, err
	}
	p.knowledge = len(ks) == 1 && ks[0] == KindKnowledge
	root, err := OpenRoot(ws)
	if err != nil {
		return nil, outcome{}, err
	}
	defer root.Close()
	files, why, err := listCandidates(root, ks)
	if err != nil {
		return nil, outcome{}, err
	}
	dirs := map[string]int{} // descriptors of the kind directories, opened through root, for readAt
	for _, k := range ks {
		if k.dir() == "" {
			continue
		}
		if d, err := root.Open(k.dir()); err == nil {
			dirs[k.dir()] = int(d.Fd()) // once, before the workers start: Fd is not free
			defer d.Close()
		}
	}

	// Workers take chunks of files in path order; the merge below waits for chunks in order, so
	// the result does not depend on scheduling, and stops every worker once the limit is passed.
	n := len(files)
	const chunk = 32
	nchunks := (n + chunk - 1) / chunk
	results := make([]fileResult, n)
	done := make([]chan struct{}, nchunks)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), nchunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := scanner{root: root, wsRoot: ws.Root, dirs: dirs, p: p, folder: &textmatch.Folder{}}
			for {
				ci := int(next.Add(1) - 1)
				if ci >= nchunks {
					return
				}
				for i := ci * chunk; i < min(n, (ci+1)*chunk); i++ {
					if stop.Load() || ctx.Err() != nil {
						return // a chunk left open: the merge has stopped, or stops on ctx
					}
					results[i] = s.scan(&files[i])
				}
				close(done[ci])
			}
		}()
	}
	defer wg.Wait()

	var hits []hit
	out := outcome{}
	for i := range files {
		if i%chunk == 0 {
			if err := errs.Stopped(ctx, "memory search"); err != nil {
				stop.Store(true)
				return nil, outcome{}, err
			}
			select {
			case <-done[i/chunk]:
			case <-ctx.Done():
				stop.Store(true)
				return nil, outcome{}, errs.Stopped(ctx, "memory search")
			}
		}
		r := results[i]
		if r.skipped != "" {
			why[files[i].rel()] = r.skipped
		}
		for _, h := range r.hits {
			if len(hits) == p.limit {
				out.truncated = true
				break
			}
			hits = append(hits, h)
		}
		if out.truncated {
			stop.Store(true)
			// Files after the cut are neither searched nor reported in skipped.
			break
		}
	}
	out.skipped = make([]string, 0, len(why))
	for p := range why {
		out.skipped = append(out.skipped, p)
	}
	sort.Strings(out.skipped)
	out.why = why
	return hits, out, nil
}

// listCandidates lists the entry files of the kinds, sorted by path. Names that are not valid
// slugs and unreadable directories are returned in skipped instead, each with its reason.
func listCandidates(root *os.Root, ks []Kind) ([]candidate, map[string]string, error) {
	type group struct {
		prefix string // every path of the group starts with it, and prefixes differ early
		files  []candidate
	}
	var groups []group
	skipped := map[string]string{}
	for _, k := range ks {
		if k == KindSummary {
			if _, err := root.Lstat(summaryPath); err == nil {
				groups = append(groups, group{summaryPath, []candidate{{kind: k, name: "summary.md"}}})
			}
			continue
		}
		dir := k.dir()
		d, err := root.Open(dir)
		if err != nil {
			if isNotExist(err) {
				continue
			}
			skipped[dir+"/"] = "the folder cannot be read"
			continue
		}
		// Names, and where the system gives them, which are regular files (listDir); other types
		// are learnt when each file is opened (see scanner.read).
		names, err := listDir(d)
		d.Close()
		if err != nil {
			if st, serr := root.Stat(dir); serr == nil && !st.IsDir() {
				continue // a file where the directory should be: nothing to search
			}
			return nil, nil, fmt.Errorf("list %s: %w", dir, err)
		}
		slices.SortFunc(names, func(a, b dirName) int { return strings.Compare(a.name, b.name) })
		g := group{prefix: dir + "/", files: make([]candidate, 0, len(names))}
		for _, dn := range names {
			name := dn.name
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
				continue
			}
			if err := ValidateSlug(strings.TrimSuffix(name, ".md")); err != nil {
				skipped[dir+"/"+name] = "not an entry name: " + err.Error()
				continue
			}
			g.files = append(g.files, candidate{kind: k, name: name, regular: dn.regular})
		}
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b group) int { return strings.Compare(a.prefix, b.prefix) })
	var files []candidate
	for _, g := range groups {
		files = append(files, g.files...)
	}
	return files, skipped, nil
}

// symlinkEscapes reads the link at rel and reports whether its target lies outside the workspace
// or in an excluded directory; os.Root still guards the open that follows.
func symlinkEscapes(root *os.Root, rel, wsRoot string) bool {
	target, err := root.Readlink(rel)
	if err != nil {
		return true
	}
	return escapes(rel, target, wsRoot)
}

// scanner searches one file at a time, reusing its buffers; one per goroutine.
type scanner struct {
	root    *os.Root
	wsRoot  string
	dirs    map[string]int // descriptors of the kind directories, opened through root, for readAt
	p       params
	folder  *textmatch.Folder
	buf     []byte
	path    []byte // readAt's buffer for the name
	matches []int
}

// scan reads and searches one file. Missing files (deleted since the listing, dangling links)
// and directories are silently out of scope; unreadable, oversized or special files (FIFOs,
// devices, sockets) are skipped.
func (s *scanner) scan(c *candidate) fileResult {
	content, st := s.read(c)
	if st != readOK {
		return fileResult{skipped: st.skipReason()}
	}
	s.matches = s.p.needle.MatchingLines(s.folder, content, s.matches[:0])
	if len(s.matches) == 0 {
		return fileResult{}
	}
	var fm Frontmatter
	if s.p.knowledge {
		fm = ParseFrontmatter(content) // only files with a hit pay for YAML
	} else {
		_, fm.EndLine = frontmatterBlock(content)
	}
	if s.p.kind != "" && !(fm.KindIsText && fm.KindText == s.p.kind) {
		return fileResult{}
	}
	total := textmatch.CountLines(content)
	var r fileResult
	for _, g := range textmatch.GroupLines(s.matches, s.p.context, total) {
		if len(r.hits) > s.p.limit {
			break
		}
		lines := textmatch.Lines(content, g.From, g.To)
		r.hits = append(r.hits, hit{
			file:    c,
			line:    g.Matches[0],
			inFM:    g.Matches[0] <= fm.EndLine,
			excerpt: strings.Join(lines, "\n"),
			lines:   Lines{From: g.From, Matches: g.Matches},
			fm:      &fm,
		})
	}
	return r
}

// readStatus says what became of reading one candidate.
type readStatus int

const (
	readOK         readStatus = iota
	readMissing               // gone since the listing, a dangling link, a directory: out of scope
	readFallback              // not handled by the fast path; read through os.Root
	readUnreadable            // reported in skipped, as are the statuses below
	readTooBig
	readSpecial
	readEscapes
)

// skipReason is why a file with status st is reported in skipped, or "" when it is not.
func (st readStatus) skipReason() string {
	switch st {
	case readUnreadable:
		return "unreadable"
	case readTooBig:
		return "over 8 MiB"
	case readSpecial:
		return "not a regular file"
	case readEscapes:
		return "a symlink leading out of the workspace or into an excluded folder"
	}
	return ""
}

// read returns the content of c, or why there is none.
func (s *scanner) read(c *candidate) ([]byte, readStatus) {
	if fd, ok := s.dirs[c.kind.dir()]; ok && c.kind != KindSummary {
		buf, st := readAt(fd, c.name, s.buf, &s.path, c.regular)
		s.buf = buf[:0]
		if st != readFallback {
			return buf, st
		}
	}
	rel := c.rel()
	lst, err := s.root.Lstat(rel)
	if err != nil {
		if isNotExist(err) {
			return nil, readMissing
		}
		return nil, readUnreadable
	}
	if lst.Mode()&fs.ModeSymlink != 0 && symlinkEscapes(s.root, rel, s.wsRoot) {
		return nil, readEscapes
	}
	// O_NONBLOCK: a FIFO (or a symlink to one) must not block the search; fstat then skips it.
	f, err := s.root.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		if isNotExist(err) {
			return nil, readMissing
		}
		return nil, readUnreadable
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, readUnreadable
	}
	if st.IsDir() {
		return nil, readMissing
	}
	if !st.Mode().IsRegular() {
		return nil, readSpecial
	}
	if st.Size() > MaxSearchFileSize {
		return nil, readTooBig
	}
	buf := s.buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > MaxSearchFileSize {
				return nil, readTooBig // grew past the limit while we read it
			}
			buf = append(buf, make([]byte, max(int(st.Size())+1-len(buf), 4096))...)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readUnreadable
		}
	}
	s.buf = buf[:0]
	if len(buf) > MaxSearchFileSize {
		return nil, readTooBig
	}
	return buf, readOK
}
