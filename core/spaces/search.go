package spaces

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// UnavailableMessage is the answer in a no-auth or subtask context (SPEC §5.3); it is not an error.
const UnavailableMessage = "SearchWorkspaceTasks is not available in this context."

// NoFTS5Message is the answer when the SQLite build cannot search.
const NoFTS5Message = "SearchWorkspaceTasks is unavailable: this SQLite build has no FTS5 full-text search."

// Limits of SPEC §5.3.
const (
	DefaultLimit = 10
	MaxLimit     = 30
	MaxContext   = 5
	// minMatchRunes is the shortest term the trigram index can match; shorter ones are found
	// through the short-term index (short.go).
	minMatchRunes = 3
	// excerptBefore and excerptAfter bound an excerpt, in characters around the first matched term.
	excerptBefore = 40
	excerptAfter  = 80
	excerptSlack  = 12
	// MaxQueryChars is the longest query accepted, in characters after trimming, as the board's.
	MaxQueryChars = 200
)

// searchBudget bounds the work of one search, whatever its caller does (a CLI process, an HTTP
// request whose client left, an MCP call): when it runs out SQLite is interrupted and the search
// fails with STORAGE_BUSY. SQLite notices an interrupt between steps of its program, so a single
// step (one instr on one long comment) still finishes first; query keeps those steps linear in
// the comment's length. A variable so tests can lower it.
var searchBudget = 2 * time.Second

// Caller is who asks and from where: the signed-in user, the current task, a subtask, and the
// Claude Code session the caller runs in (with no user and no task, the local account searches
// its Claude Code spaces without that session). It is the one caller type of every face.
type Caller = workspace.Caller

// SearchInput is SearchWorkspaceTasks' input. Exactly one of Query and Around is set; Limit 0 means
// the default; the fields after Context (Limit, the filters) apply to a query only. A new filter
// is a field here, its check in validate when it needs one, and its condition in Filters (or in
// the caller's scopes, as Runtime).
type SearchInput struct {
	Query   string `json:"query,omitempty" jsonschema:"words to find (all of them, in any order); exclusive with around_ref"`
	Around  string `json:"around_ref,omitempty" jsonschema:"comment:<id> from a hit: read that comment and its neighbours in full; exclusive with query"`
	Context int    `json:"context,omitempty" jsonschema:"neighbouring comments to attach to each hit, or to show each side of around_ref ({range}, default 0)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most hits ({range}, default {default}; query mode only)"`
	Kind    string `json:"kind,omitempty" jsonschema:"only comments of this kind"`
	Author  string `json:"author,omitempty" jsonschema:"only comments by this author"`
	TaskID  string `json:"task_id,omitempty" jsonschema:"only comments of this task of the space"`
	Runtime string `json:"runtime,omitempty" jsonschema:"only past sessions of this agent runtime"`
}

// Unavailable is the "not available in this context" answer.
type Unavailable struct {
	Available bool   `json:"available"`
	Message   string `json:"message"`
}

// Entry is a raw neighbouring comment (context or around); Target marks the around target.
type Entry struct {
	Ref       string `json:"ref"`
	Author    string `json:"author"`
	Kind      string `json:"kind"`
	CreatedAt string `json:"created_at"`
	Body      string `json:"body"`
	Target    bool   `json:"target,omitempty"`
}

// Hit is one matching comment; Before and After are set only with a context above 0.
type Hit struct {
	Ref       string `json:"ref"`
	Task      string `json:"task"`
	TaskTitle string `json:"task_title"`
	Session
	Author    string   `json:"author"`
	Kind      string   `json:"kind"`
	CreatedAt string   `json:"created_at"`
	Excerpt   string   `json:"excerpt"`
	Before    *[]Entry `json:"before,omitempty"`
	After     *[]Entry `json:"after,omitempty"`
	// Terms are the normalised query terms, for highlighting; not part of the JSON.
	Terms []string `json:"-"`
}

// SearchResult is the query-mode answer.
type SearchResult struct {
	Query     string `json:"query"`
	Hits      []Hit  `json:"hits"`
	Truncated bool   `json:"truncated"`
}

// AroundResult is the --around answer: the target and its neighbours, oldest first.
type AroundResult struct {
	Target    string `json:"target"`
	Task      string `json:"task"`
	TaskTitle string `json:"task_title"`
	Session
	Comments []Entry `json:"comments"`
	// Context is how many neighbours each side were asked for; not part of the JSON.
	Context int `json:"-"`
}

// Answer is exactly one of the three shapes SearchWorkspaceTasks can return.
type Answer struct {
	Unavailable *Unavailable
	Search      *SearchResult
	Around      *AroundResult
}

// Value is the answer's JSON document.
func (a Answer) Value() any {
	switch {
	case a.Unavailable != nil:
		return a.Unavailable
	case a.Around != nil:
		return a.Around
	default:
		return a.Search
	}
}

// SplitQuery splits a query on white space (ASCII and U+3000) and normalises each term as the
// index text is normalised. Duplicates are dropped; order is kept.
func SplitQuery(q string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(q, unicode.IsSpace) {
		t := Normalize(f)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		terms = append(terms, t)
	}
	return terms
}

// ftsPhrase quotes a term for FTS5 so operators and punctuation are literal text.
func ftsPhrase(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// trigramMatch is an FTS5 query for rows holding every distinct three-character piece of terms
// (each of at least three characters), each quoted as a phrase of one trigram.
func trigramMatch(terms []string) string {
	parts := trigramsOf(terms)
	for i, g := range parts {
		parts[i] = ftsPhrase(g)
	}
	return strings.Join(parts, " AND ")
}

// trigramsOf are the distinct three-character pieces of terms, in the order they first occur.
func trigramsOf(terms []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range terms {
		r := []rune(t)
		for i := 0; i+3 <= len(r); i++ {
			if g := string(r[i : i+3]); !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// aroundRef names around_ref with the form of its value, as the messages that ask for it do.
var aroundRef = errs.Field("around_ref", errs.Example)

// validate checks the input alone, before any context or storage is looked at.
func (in *SearchInput) validate() error {
	hasQuery := strings.TrimSpace(in.Query) != ""
	hasAround := strings.TrimSpace(in.Around) != ""
	switch {
	case hasQuery && hasAround:
		return errs.Invalidf("give a query or %s, not both", aroundRef)
	case !hasQuery && !hasAround:
		if in.Query != "" {
			return errs.Invalidf("the query is empty after trimming; give a query or %s", aroundRef)
		}
		return errs.Invalidf("give a query or %s", aroundRef)
	}
	if !utf8.ValidString(in.Query) {
		return errs.Invalidf("the query is not valid UTF-8")
	}
	if strings.ContainsRune(in.Query, 0) {
		return errs.Invalidf("the query contains a NUL character")
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(in.Query)); n > MaxQueryChars {
		return errs.Invalidf("query is %d characters; at most %d are allowed", n, MaxQueryChars)
	}
	if in.Context < 0 || in.Context > MaxContext {
		return errs.Invalidf("context %d is out of range 0..%d", in.Context, MaxContext)
	}
	if hasAround {
		extra := in.narrowing()
		if len(extra) > 0 {
			verb := "narrows"
			if len(extra) > 1 {
				verb = "narrow"
			}
			return errs.Invalidf("%s only %s a query; %s reads one comment and its neighbours", strings.Join(extra, ", "), verb, errs.Field("around_ref", errs.Also))
		}
		if _, err := parseRef("comment", in.Around); err != nil {
			return err
		}
		return nil
	}
	if in.Limit == 0 {
		in.Limit = DefaultLimit
	}
	if in.Limit < 1 || in.Limit > MaxLimit {
		return errs.Invalidf("limit %d is out of range 1..%d", in.Limit, MaxLimit)
	}
	if in.Kind != "" && !slices.Contains(FilterKinds, in.Kind) {
		return errs.Invalidf("kind %q is not one of %s", in.Kind, strings.Join(FilterKinds, ", "))
	}
	if in.TaskID != "" {
		if _, err := parseRef("task", in.TaskID); err != nil {
			return err
		}
	}
	if in.Runtime != "" && !slices.Contains(RuntimeSources, in.Runtime) {
		return errs.InvalidField("runtime", "runtime %q is not one of %s", in.Runtime, strings.Join(RuntimeSources, ", "))
	}
	return nil
}

// SearchWorkspaceTasks searches the other tasks of the caller's space (SPEC §5.3); ctx ending
// interrupts it (CANCELLED).
func SearchWorkspaceTasks(ctx context.Context, ws *workspace.Workspace, caller Caller, in SearchInput) (Answer, error) {
	return SearchThrough(ctx, ws, caller, in, func(ctx context.Context) (*Store, func(), error) { return OpenOnce(ctx, ws) })
}

// OpenOnce opens spaces.db for one read, with a small page cache (oneSearchCache); release
// closes it again. It is how a face that opens its stores on each call reads a space.
func OpenOnce(ctx context.Context, ws *workspace.Workspace) (st *Store, release func(), err error) {
	if st, err = openRead(ctx, ws, oneSearchCache); err != nil {
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

// SearchThrough is SearchWorkspaceTasks reading through open (a store opened for this search,
// or one a Readers cache keeps open): the face's stores choose, the search is the same. It checks
// what needs no store, opens it, and hands the caller to Store.search, the one place a search
// reads.
func SearchThrough(ctx context.Context, ws *workspace.Workspace, caller Caller, in SearchInput, open Opener) (a Answer, err error) {
	if err := in.validate(); err != nil {
		return Answer{}, err
	}
	defer func() {
		if err = errs.IfStopped(ctx, err, "space search"); err != nil {
			a = Answer{}
		}
	}()
	if caller.Subtask {
		return Answer{Unavailable: &Unavailable{Message: UnavailableMessage}}, nil
	}
	var who asker
	if caller.User != "" {
		if strings.TrimSpace(caller.Task) == "" {
			return Answer{}, errs.Invalidf("SearchWorkspaceTasks needs the current task%s", errs.Field("task", errs.Give))
		}
		if who.task, err = parseRef("task", caller.Task); err != nil {
			return Answer{}, err
		}
		who.user = caller.User
	}
	st, release, err := open(ctx)
	if errors.Is(err, os.ErrNotExist) {
		if who.user == "" {
			return Answer{Unavailable: &Unavailable{Message: UnavailableMessage}}, nil
		}
		return Answer{}, errs.NotFoundf("task:%s not found: %s does not exist yet (load conversations with 'cairn space import')", who.task, FileName)
	}
	if errors.Is(err, ErrNoFTS5) {
		return Answer{Unavailable: &Unavailable{Message: NoFTS5Message}}, nil
	}
	if err != nil {
		return Answer{}, err
	}
	defer release()
	if ok, err := st.hasFTS5(ctx); err != nil {
		return Answer{}, err
	} else if !ok {
		return Answer{Unavailable: &Unavailable{Message: NoFTS5Message}}, nil
	}
	if who.user == "" {
		if who, err = localAsker(caller); err != nil {
			return Answer{}, err
		}
	}
	return st.search(ctx, who, in, false)
}

// Opener opens spaces.db for one read and returns what ends it: afresh (OpenOnce) or from a
// Readers cache (Readers.Open), so one search serves a face that opens its stores on each call
// and one that keeps them.
type Opener func(context.Context) (st *Store, release func(), err error)

// scope is the resolved context: the current task and its space, and the space's source and
// name when the statement that resolved it read them too (known).
type scope struct {
	space        ID
	task         ID
	known        bool
	source, name string
}

// scopeSource is the scope's spaces.source and name, read with the scope when it was resolved
// (resolveTask), otherwise now.
func (s *Store) scopeSource(ctx context.Context, q querier, sc scope) (source, name string, err error) {
	if sc.known {
		return sc.source, sc.name, nil
	}
	return s.spaceSource(ctx, q, sc.space)
}

// asker is a caller as a search sees it: a user and the current task, or, with no user, the
// local account (localAsker) with the task to leave out of its Claude Code and Codex spaces.
type asker struct {
	user string
	task ID
	// explicit is set when a local caller's task was given (--task), not its runtime's session.
	explicit bool
	// fixed is the one scope of a caller a team server has resolved itself (SearchSpace).
	fixed *scope
}

// resolve turns the caller into the scopes it searches, inside the search's transaction: one
// space for a user's task, one or several of the local account's spaces (resolveLocal).
func (s *Store) resolve(ctx context.Context, q querier, who asker, in SearchInput) ([]scope, *Unavailable, error) {
	if who.fixed != nil {
		return []scope{*who.fixed}, nil, nil
	}
	if who.user == "" {
		return s.resolveLocal(ctx, q, who, in)
	}
	sc, unavailable, err := s.resolveTask(ctx, q, who.user, who.task)
	return []scope{sc}, unavailable, err
}

// resolveTask finds the current task's space and checks the caller may search it.
func (s *Store) resolveTask(ctx context.Context, q querier, user string, task ID) (scope, *Unavailable, error) {
	// the task, whether user owns or belongs to its space, and the space's source and name (what
	// a hit's session is made of: spaceSource), in one statement
	var space, source, name string
	var parent sql.NullString
	var ok int
	err := q.QueryRowContext(ctx, `SELECT t.space, t.parent,
		(SELECT count(*) FROM spaces WHERE id = t.space AND owner = ?2) + (SELECT count(*) FROM members WHERE space = t.space AND user = ?2),
		COALESCE(s.source, ''), COALESCE(s.name, '')
		FROM tasks t LEFT JOIN spaces s ON s.id = t.space WHERE t.id = ?1`, string(task), user).Scan(&space, &parent, &ok, &source, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return scope{}, nil, errs.NotFoundf("task:%s (the current task%s) not found in %s", task, errs.Field("task", errs.Source), FileName)
	}
	if err != nil {
		return scope{}, nil, s.dbErr(err, "look up the current task")
	}
	if parent.Valid {
		return scope{}, &Unavailable{Message: UnavailableMessage}, nil
	}
	if ok == 0 {
		return scope{}, nil, errs.New(errs.Forbidden, "user %q is neither the owner nor a member of the space of task:%s", user, task)
	}
	return scope{space: ID(space), task: task, known: true, source: source, name: name}, nil, nil
}

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// search runs a validated input inside one read transaction, so every part of the answer comes
// from the same snapshot: it resolves the caller to its scopes, reads around a comment or queries
// each scope, and merges the hits of several newest first. allLike walks for every term, no
// index asked (the reference the tests compare with). The time budget runs inside ctx: ctx
// ending first is CANCELLED, the budget ending STORAGE_BUSY.
func (s *Store) search(ctx context.Context, who asker, in SearchInput, allLike bool) (Answer, error) {
	bctx, cancel := context.WithTimeout(ctx, searchBudget)
	defer cancel()
	a, err := s.searchTx(bctx, who, in, allLike)
	if err != nil {
		if stopped := errs.Stopped(ctx, "space search"); stopped != nil {
			return Answer{}, stopped
		}
	}
	if err != nil && bctx.Err() != nil {
		return Answer{}, errs.New(errs.Busy, "space search stopped after its time budget of %s (its terms occur very often in long comments); use fewer or shorter terms, or narrow it with %s", searchBudget, errs.Fields(errs.Alternatives, "task_id", "kind", "author"))
	}
	return a, err
}

// searchTx is search under ctx, whose deadline interrupts SQLite.
func (s *Store) searchTx(ctx context.Context, who asker, in SearchInput, allLike bool) (Answer, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Answer{}, s.dbErr(err, "begin search")
	}
	defer tx.Rollback()
	scopes, unavailable, err := s.resolve(ctx, tx, who, in)
	if err != nil {
		return Answer{}, err
	}
	if unavailable != nil {
		return Answer{Unavailable: unavailable}, nil
	}
	if strings.TrimSpace(in.Around) != "" {
		res, err := s.around(ctx, tx, scopes[0], in) // resolve gives around the comment's one scope
		if err != nil {
			return Answer{}, err
		}
		return Answer{Around: res}, nil
	}
	if len(scopes) == 1 {
		res, err := s.query(ctx, tx, scopes[0], in, allLike)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Search: res}, nil
	}
	merged := &SearchResult{Query: in.Query, Hits: []Hit{}}
	for _, sc := range scopes {
		if err := errs.Stopped(ctx, "space search"); err != nil {
			return Answer{}, err
		}
		res, err := s.query(ctx, tx, sc, in, allLike)
		if err != nil {
			return Answer{}, err
		}
		merged.Hits = append(merged.Hits, res.Hits...)
		merged.Truncated = merged.Truncated || res.Truncated
	}
	sortHits(merged.Hits)
	if len(merged.Hits) > in.Limit {
		merged.Hits, merged.Truncated = merged.Hits[:in.Limit], true
	}
	return Answer{Search: merged}, nil
}

// source is where a query's rows come from (a FROM clause) and the ORDER BY that puts them
// newest first, which names that clause's own columns when it has them in order already.
type source struct {
	from, order string
}

// newestFirst orders a source's rows by the comments' own position.
const newestFirst = `c.at_ns DESC, c.idkey DESC`

// walkFrom is the query plan that walks the space newest first, testing each comment.
var walkFrom = source{from: `comments c JOIN tasks t ON t.id = c.task`, order: newestFirst}

// scanFrom reads the whole comments table in storage order; its few hits are sorted.
var scanFrom = source{from: `comments c NOT INDEXED JOIN tasks t ON t.id = c.task`, order: newestFirst}

// defaultWalkWindow is how many of a space's newest comments a walk tests before it reads them
// all (Store.walkWindow; tests make it small).
const defaultWalkWindow = 1000

// defaultProbeWindow is how many of a space's newest comments a query tests before it asks an
// index how common its terms are (Store.probeWindow; tests change it): a term in more than about
// one comment in 9 is answered from them (limit 10), and a rare one pays about 100 row tests.
const defaultProbeWindow = 100

// queryPlan is a query turned into SQL: its terms sorted by how they are found (the trigram
// index for long terms, LIKE for short ones), the filters every row must pass, and the row
// limit. Every parameter is numbered (?N), so the same arguments serve every FROM clause the
// query may run with: the space walk, or a full-text match that drives it.
type queryPlan struct {
	terms []string // every normalised term, for excerpts and highlighting
	long  []string // terms of at least minMatchRunes characters: trigram index, then instr
	short []string // shorter terms (every term, for the all-LIKE reference): short-term index, instr
	where []string
	args  []any
	limit string // the row limit, one past the hits asked for, as a literal (see sqlLimit)
	// noQuads: the short-term index holds no runs of four (Store.noQuads), so every long term
	// is narrowed by its trigrams
	noQuads bool
	// noTris: the short-term index holds no runs of three (Store.noTris), so a term of three
	// characters is narrowed by the trigram index
	noTris bool
}

// newQueryPlan plans a validated query in its scope: ?1 is the space and ?2 the current task,
// which no hit may come from.
func newQueryPlan(sc scope, in SearchInput, allLike bool) *queryPlan {
	p := &queryPlan{terms: SplitQuery(in.Query), args: []any{string(sc.space), string(sc.task)}}
	p.long, p.short = classifyTerms(p.terms, allLike)
	p.termFilters()
	p.fieldFilters(in)
	p.limit = sqlLimit(in.Limit + 1)
	p.where = append([]string{`c.space = ?1`, `t.space = ?1`, `c.task <> ?2`, `c.itext IS NOT NULL`}, p.where...)
	return p
}

// classifyTerms splits terms into those the trigram index can find (at least minMatchRunes
// characters) and the short ones; allLike makes every term short.
func classifyTerms(terms []string, allLike bool) (long, short []string) {
	for _, t := range terms {
		if !allLike && utf8.RuneCountInString(t) >= minMatchRunes {
			long = append(long, t)
		} else {
			short = append(short, t)
		}
	}
	return long, short
}

// sqlLimit writes a LIMIT or OFFSET count into the SQL text instead of binding it. SQLite plans a
// statement whose LIMIT is a bound parameter (or whose LIKE pattern is one) for the value bound:
// binding it marks the statement expired, and its first step prepares it a second time. A
// search's counts are integers of its own (never text from the caller), so the literal is safe,
// and each statement is prepared once: about a tenth of a fresh rare-term search was spent
// preparing statements again.
func sqlLimit(n int) string { return strconv.Itoa(n) }

// arg adds a parameter and returns its placeholder.
func (p *queryPlan) arg(v any) string {
	p.args = append(p.args, v)
	return fmt.Sprintf("?%d", len(p.args))
}

// termFilters requires every term of the row, each tested with instr on the index text: in
// linear time, where LIKE '%t%' can take seconds on a long comment, and on the whole text, where
// LIKE stops at a NUL byte (a term after one is in both indexes). instr finds what LIKE would
// although LIKE ignores ASCII case: the index text and the terms are folded (Normalize), which
// leaves no ASCII upper-case letter in either (TestFoldedHasNoASCIIUpper), so the index text is
// not lowered again for every row tested.
func (p *queryPlan) termFilters() {
	for _, t := range slices.Concat(p.long, p.short) {
		p.where = append(p.where, `instr(c.itext, `+p.arg(t)+`) > 0`)
	}
}

// fieldFilters narrows the rows by the input's filters.
func (p *queryPlan) fieldFilters(in SearchInput) {
	p.where = append(p.where, in.Filters(func(_ string, v any) string { return p.arg(v) })...)
}

// Filters are the conditions a validated query's filters put on its rows (comments c): kind,
// author and task, each value written by arg with the column it is compared with (a store's
// parameter; pgstore plans from them too).
func (in *SearchInput) Filters(arg func(column string, v any) string) []string {
	var where []string
	if in.Kind != "" {
		where = append(where, `c.kind = `+arg("kind", in.Kind))
	}
	if in.Author != "" {
		where = append(where, `c.author = `+arg("author", in.Author))
	}
	if in.TaskID != "" {
		id, _ := parseRef("task", in.TaskID)
		where = append(where, `c.task = `+arg("task", string(id)))
	}
	return where
}

// narrowing are the JSON names of the fields after context that the input gives, in its order:
// the limit and filters that narrow a query only.
func (in *SearchInput) narrowing() []string {
	var names []string
	v := reflect.ValueOf(in).Elem()
	after := false
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if after && !v.Field(i).IsZero() {
			names = append(names, name)
		}
		after = after || name == "context"
	}
	return names
}

// shortMatch is the short-term index query for short terms alone (each term's character or pair
// as one token, all required), and false when a term has no token: then only the walk can answer.
func shortMatch(short []string) (string, bool) {
	if len(short) == 0 {
		return "", false
	}
	toks := make([]string, 0, len(short))
	for _, t := range short {
		tok, ok := shortToken(t)
		if !ok {
			return "", false
		}
		toks = append(toks, ftsPhrase(tok))
	}
	return strings.Join(toks, " AND "), true
}

// drivenFrom reads only the comments whose rowids a full-text table (comments_fts or
// comments_short) matched, given as a JSON array (matchUpTo): the index is asked once, not again
// by the statement that reads the rows. The matched comments are first put newest first by
// their position alone (o), and only then read whole and tested, in that order, until the
// limit: a rare term's 200 matches cost 200 position reads and about limit full rows tested,
// their task titles and display texts read, instead of 200 of each sorted for the 10 newest.
// The outer ORDER BY names o's columns, so SQLite takes o's order instead of sorting again;
// LIMIT -1 (no limit) keeps SQLite from flattening o into the outer query, which would sort
// the joined rows instead.
func (p *queryPlan) drivenFrom(rids string) source {
	return source{
		from: `(SELECT m.rid AS r, m.at_ns AS a, m.idkey AS k FROM json_each(` + p.arg(rids) + `) f
				CROSS JOIN comments m ON m.rid = f.value WHERE m.space = ?1 AND m.task <> ?2
				ORDER BY m.at_ns DESC, m.idkey DESC LIMIT -1) o
				CROSS JOIN comments c ON c.rid = o.r JOIN tasks t ON t.id = c.task`,
		order: `o.a DESC, o.k DESC`,
	}
}

// windowFilter keeps the rows at or after a position of the newest-first order.
func (p *queryPlan) windowFilter(atNS int64, idkey string) string {
	return fmt.Sprintf(`(c.at_ns, c.idkey) >= (%d, %s)`, atNS, p.arg(idkey))
}

// newestFilter keeps the rows among the space's (?1) n newest comments, and none when it has
// fewer; the edge is a subquery, so the probe is one statement.
func (p *queryPlan) newestFilter(n int) string {
	return fmt.Sprintf(`(c.at_ns, c.idkey) >= (SELECT at_ns, idkey FROM comments WHERE space = ?1
		ORDER BY at_ns DESC, idkey DESC LIMIT 1 OFFSET %d)`, n-1)
}

// hitColumns are the columns of a comment a hit is made of (scanHit reads them), from c, a
// comment, and t, its task.
const hitColumns = hitKeyColumns + `, COALESCE(c.dtext, '')`

// hitKeyColumns are hitColumns but the display text, the one long column, which a statement
// that reads rows failing its tests reads only for those that pass (newestMatches).
const hitKeyColumns = `c.id, c.task, COALESCE(t.dtitle, ''), c.author, c.kind, c.created_at, c.at_ns, c.idkey`

// hitRow is a hit as it is read, and where it stands in the answers' order: its excerpt is cut
// once the hits are final, from the display text.
type hitRow struct {
	hit   Hit
	task  string
	atNS  int64
	idkey string
	dtext string
}

// newer orders rows as the answers are ordered: newest position first, then larger idkey.
func (r *hitRow) newer(o *hitRow) bool {
	return r.atNS > o.atNS || (r.atNS == o.atNS && r.idkey > o.idkey)
}

// scanHit reads hitColumns, after any columns of its own (dest), into a hit of the plan's terms.
func (p *queryPlan) scanHit(rows interface{ Scan(...any) error }, dest ...any) (hitRow, error) {
	var r hitRow
	var id string
	h := &r.hit
	err := rows.Scan(append(dest, &id, &r.task, &h.TaskTitle, &h.Author, &h.Kind, &h.CreatedAt, &r.atNS, &r.idkey, &r.dtext)...)
	h.Ref, h.Task, h.Terms = "comment:"+id, "task:"+r.task, p.terms
	return r, err
}

// sql is the statement reading the plan's rows from src, newest first, with extra filters.
func (p *queryPlan) sql(src source, extra ...string) string {
	where := append(append([]string(nil), p.where...), extra...)
	return `SELECT ` + hitColumns + `
			FROM ` + src.from + `
			WHERE ` + strings.Join(where, " AND ") + `
			ORDER BY ` + src.order + ` LIMIT ` + p.limit
}

// matchUpTo counts the rows of a full-text table matching match, stopping past max, and gives
// their rowids as a JSON array, built inside SQLite so they are not read one by one. With no
// table, match is a statement giving the rowids (indexSource.intersect).
func (s *Store) matchUpTo(ctx context.Context, tx querier, table, match string, max int) (n int, rids string, err error) {
	if table == "" {
		err = tx.QueryRowContext(ctx, `SELECT count(*), json_group_array(r) FROM (SELECT r FROM (`+match+`) LIMIT `+sqlLimit(max+1)+`)`).Scan(&n, &rids)
		return n, rids, s.dbErr(err, "search")
	}
	err = tx.QueryRowContext(ctx, `SELECT count(*), json_group_array(r) FROM (SELECT rowid AS r FROM `+table+` WHERE `+table+` MATCH ? LIMIT `+sqlLimit(max+1)+`)`, match).Scan(&n, &rids)
	return n, rids, s.dbErr(err, "search")
}

// query is the query mode: every term must occur in the index text; newest first.
func (s *Store) query(ctx context.Context, tx querier, sc scope, in SearchInput, allLike bool) (*SearchResult, error) {
	p := newQueryPlan(sc, in, allLike)
	p.noQuads, p.noTris = s.noQuads, s.noTris
	res := &SearchResult{Query: in.Query, Hits: []Hit{}}
	if len(p.terms) == 0 {
		return res, nil
	}
	if in.Runtime != "" {
		// a space of another runtime (or a shared space) holds no session of this one
		source, _, err := s.scopeSource(ctx, tx, sc)
		if err != nil {
			return nil, err
		}
		if source != in.Runtime {
			return res, nil
		}
	}
	var found []hitRow
	run := func(from source, extra ...string) error {
		found = found[:0]
		rows, err := tx.QueryContext(ctx, p.sql(from, extra...), p.args...)
		if err != nil {
			return s.dbErr(err, "search")
		}
		defer rows.Close()
		for rows.Next() {
			r, err := p.scanHit(rows)
			if err != nil {
				return s.dbErr(err, "search")
			}
			found = append(found, r)
		}
		return s.dbErr(rows.Err(), "search")
	}
	// First the index's matches, newest rowid first, each row read and tested, until no match
	// left can be newer than the limit's worth found (newestMatches): comments arrive in about
	// time order, so a rare term reads about as many matches as it answers, and a common one
	// about the limit's worth and the rest of the block where they end, in one statement.
	answered := false
	fast := !allLike && in.TaskID == ""
	var srcs []indexSource
	var streams [2]stream
	if fast {
		srcs = p.sources()
	}
	streamOn := func(i, max int) error {
		kept, ok, err := s.newestMatches(ctx, tx, p, in.Limit+1, srcs[i], &streams[i], max)
		if ok {
			found, answered = kept, true
		}
		return err
	}
	// the tokens of two terms or more read directly (directStream): one term's runs come
	// together, and FTS5's AND finds its newest comments at once, where the direct read costs
	// about 0.2 ms more (gen-longspace's single terms: p50 430 → 683 µs)
	toks, _ := p.indexTokens()
	direct := fast && s.direct && len(srcs) == 1 && len(p.terms) > 1 && len(toks) > 1 && s.streamMax > 0
	if fast && len(srcs) > 0 && s.streamMax > 0 && s.anchorMax > 0 {
		// a rare token's candidates hold every match (rareAnchor); not where the streams are
		// off (streamMax 0), which tests do to exercise the plans below
		rids, n, ok, err := s.rareAnchor(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		if ok {
			s.note("anchor: %d", n)
			if err := run(p.drivenFrom(rids)); err != nil {
				return nil, err
			}
			answered = true
		}
	}
	switch {
	case !fast || len(srcs) == 0 || answered:
	case len(srcs) == 1:
		if direct {
			kept, ok, err := s.directStream(ctx, tx, p, toks, in.Limit+1, &streams[0], s.streamMax)
			if err != nil {
				return nil, err
			}
			if ok {
				found, answered = kept, true
				break
			}
		}
		if err := streamOn(0, s.streamMax); err != nil {
			return nil, err
		}
	default:
		// Long and short terms: the trigram index's candidates are read first, which are the
		// closest to the matches unless a short term is rarer than the long ones; a short
		// term's grams (one character, a pair) are often in most of the space, which the
		// short-term index's AND reads through to intersect. After firstStreamMax candidates
		// the matches found among them say how many more the trigram index needs: past
		// streamMax, the short-term index's candidates are read instead.
		// The short-term index's first candidates are weighed the same way; when neither
		// source's first candidates promise the answer, the one estimated to have fewer
		// candidates (sparser) is counted in the index (no row read) and, with up to
		// ftsDriveMax, read on to its end: a long term
		// and a short one common apart and rare together (gen-longspace's "gt furuse": 199
		// trigram candidates, 1,870 of the short-term index) read the smaller source's rows
		// once, where the short-term stream read streamMax rows and the trigram one all its own.
		for i := range srcs {
			if answered {
				break
			}
			if err := streamOn(i, min(s.streamMax, s.firstStreamMax)); err != nil {
				return nil, err
			}
			if t := &streams[i]; !answered && promising(t, in.Limit+1, s.streamMax) {
				if err := streamOn(i, s.streamMax); err != nil {
					return nil, err
				}
			}
		}
		if !answered && s.firstStreamMax < s.streamMax {
			// (a short-term source estimated within streamMax is read on below, uncounted)
			i, est := sparser(streams[:], s.ftsDriveMax)
			if i < 0 && len(streams[0].kept) == 0 && len(streams[1].kept) == 0 {
				// Neither source's first candidates held a match and both are estimated to have
				// many: the terms are common apart and rare together. Reading on either
				// stream tests hundreds of rows to find few matches or none; the index's own
				// intersection of both sources reads no row (gen-space's "rea ック": 648 rows
				// read for no match, where the intersection is empty), and its candidates, when
				// few, are read sorted.
				done, err := s.intersectFew(ctx, tx, p, srcs, streams[:], run)
				if err != nil {
					return nil, err
				}
				answered = done
			} else if i == 0 || i == 1 && est > float64(s.streamMax) {
				n, _, err := s.matchUpTo(ctx, tx, srcs[i].table, srcs[i].match, s.ftsDriveMax)
				if err != nil {
					return nil, err
				}
				s.note("count %s: %d", srcs[i].table, n)
				if n <= s.ftsDriveMax {
					if err := streamOn(i, math.MaxInt); err != nil {
						return nil, err
					}
				}
			}
		}
		if !answered {
			if err := streamOn(1, s.streamMax); err != nil {
				return nil, err
			}
		}
	}
	// A term common among the newest comments needs no index: the newest probeWindow comments
	// of the space are walked, and with more hits there than the limit, those are the newest
	// hits of all (the same reasoning as the walk's window below). Whether the term is common
	// there is asked of the index first (newestCandidates): for a rare term the probe's row
	// tests would be most of the answer's cost, where the index's newest matches are read
	// without a row.
	var newest []newestCands
	probed := false
	if fast && !answered {
		for _, src := range srcs {
			nc, err := s.newestCandidates(ctx, tx, src, in.Limit)
			if err != nil {
				return nil, err
			}
			newest = append(newest, nc)
			s.note("newest %s: %d, gap %d", src.table, nc.n, nc.gap)
		}
		gaps := make([]int64, len(newest))
		for i, nc := range newest {
			gaps[i] = nc.gap
		}
		if s.probeWindow > 0 && slices.Max(append([]int64{0}, gaps...)) < int64(2*s.probeWindow) {
			probed = true
			if err := run(walkFrom, p.newestFilter(s.probeWindow)); err != nil {
				return nil, err
			}
			answered = len(found) > in.Limit
			s.note("probe: %d", len(found))
		}
	}
	// Then the matches of the source whose candidates are sparser among the newest (the larger
	// gap), read on where the first read stopped when it is the same source, up to streamMax.
	var cands *candidates
	if !answered && fast {
		if cands = chooseSource(srcs, newest); cands != nil && !cands.counted {
			st := &streams[0]
			if cands.src != srcs[0] {
				st = &streams[1]
			}
			newest, ok, err := s.newestMatches(ctx, tx, p, in.Limit+1, cands.src, st, s.streamMax)
			if err != nil {
				return nil, err
			}
			if ok {
				found, answered = newest, true
			}
		}
	}
	// resume reads on the stream of an index source to its end, once the index has counted its
	// candidates (planAndRun): nil where no stream runs (a filter by task, the all-LIKE reference)
	var resume func(indexSource) (bool, error)
	if fast && s.streamMax > 0 {
		resume = func(src indexSource) (bool, error) {
			i := slices.Index(srcs, src)
			if i < 0 {
				return false, nil
			}
			kept, ok, err := s.newestMatches(ctx, tx, p, in.Limit+1, src, &streams[i], math.MaxInt)
			if ok {
				found = kept
			}
			return ok, err
		}
	}
	if !answered {
		if err := s.planAndRun(ctx, tx, p, sc, in, allLike, cands, probed, run, resume, func() int { return len(found) }); err != nil {
			return nil, err
		}
	}
	if len(found) > in.Limit {
		found, res.Truncated = found[:in.Limit], true
	}
	// excerpts only for the hits returned: the row past the limit, and the rows of a probe
	// that could not answer, are never shown
	source, name := "", ""
	if len(found) > 0 {
		var err error
		if source, name, err = s.scopeSource(ctx, tx, sc); err != nil {
			return nil, err
		}
	}
	for _, r := range found {
		r.hit.Excerpt = Excerpt(r.dtext, p.terms)
		r.hit.Session = sessionIn(source, name, r.task)
		res.Hits = append(res.Hits, r.hit)
	}
	if in.Context > 0 {
		for i, r := range found {
			if err := errs.Stopped(ctx, "space search"); err != nil {
				return nil, err
			}
			before, after, err := s.neighbours(ctx, tx, ID(r.task), r.atNS, r.idkey, in.Context)
			if err != nil {
				return nil, err
			}
			res.Hits[i].Before, res.Hits[i].After = &before, &after
		}
	}
	return res, nil
}

// indexSource is a full-text query whose matches hold every comment a plan can find: the
// trigram index for the long terms, or the short-term index for the short terms' grams and the
// pairs of the long terms'.
type indexSource struct {
	table, match string
}

// candidates is the index source a plan reads, and its matches when they were counted: n up to
// the cap counted to (more when n is past it), and their rowids as a JSON array. other is the
// plan's second source: a plan that reads every candidate of many reads those of both
// (INTERSECT).
type candidates struct {
	src     indexSource
	other   *indexSource
	counted bool
	n       int
	rids    string
}

// intersect is a statement of the rowids both sources match, as column r, newest first. The
// full-text queries are written into it as SQL strings (quotes doubled): they are made of the
// query's terms, each already quoted as an FTS5 phrase, and a bound parameter would make SQLite
// prepare it again for every value (sqlLimit).
func (src indexSource) intersect(o indexSource) string {
	lit := func(m string) string { return "'" + strings.ReplaceAll(m, "'", "''") + "'" }
	return `SELECT rowid AS r FROM ` + src.table + ` WHERE ` + src.table + ` MATCH ` + lit(src.match) + `
		INTERSECT SELECT rowid FROM ` + o.table + ` WHERE ` + o.table + ` MATCH ` + lit(o.match) + ` ORDER BY 1 DESC`
}

// sources are the plan's index sources: the trigram index's for the long terms of three
// characters, then the short-term index's for the short terms, the runs of four (quadTokens) of
// the longer terms, and, with a short term, the pairs of the three-character ones; with a short
// term that has no token (white space in it), the trigram index's for every long term alone, and
// none when there is no long term either.
func (p *queryPlan) sources() []indexSource {
	short, ok := shortMatch(p.short)
	if len(p.short) > 0 && !ok {
		if len(p.long) > 0 {
			return []indexSource{{"comments_fts", trigramMatch(p.long)}}
		}
		return nil
	}
	tri, quads := p.splitLong()
	var out []indexSource
	if len(tri) > 0 {
		// every long term's trigrams: one index's AND narrows both kinds of long term (gen-space's
		// "web file", 11 rows read, where "web" alone and "file"'s runs of four are each common)
		out = append(out, indexSource{"comments_fts", trigramMatch(p.long)})
	}
	parts := quads
	if short != "" {
		parts = append([]string{short}, quads...)
		// a three-character term's comments hold each of its pairs of characters: with a short
		// term, both kinds of term narrow the same index's matches, which FTS5 intersects
		seen := map[string]bool{}
		for _, t := range tri {
			r := []rune(t)
			for i := 0; i+2 <= len(r); i++ {
				if tok, ok := shortToken(string(r[i : i+2])); ok && !seen[tok] {
					seen[tok] = true
					parts = append(parts, ftsPhrase(tok))
				}
			}
		}
	}
	if len(parts) > 0 {
		out = append(out, indexSource{"comments_short", strings.Join(parts, " AND ")})
	}
	return out
}

// splitLong sorts the long terms into those only the trigram index narrows (three characters,
// in a file whose short-term index has no runs of three) and the distinct tokens, quoted, the
// short-term index has of the others: a three-character term's own, a longer one's runs of four.
func (p *queryPlan) splitLong() (tri, quads []string) {
	seen := map[string]bool{}
	for _, t := range p.long {
		toks, ok := quadTokens(t)
		if tok, three := triToken(t); three && !p.noTris {
			toks, ok = []string{tok}, true
		}
		if !ok || p.noQuads {
			tri = append(tri, t)
			continue
		}
		for _, q := range toks {
			if !seen[q] {
				seen[q] = true
				quads = append(quads, ftsPhrase(q))
			}
		}
	}
	return tri, quads
}

// shortAlone is src as the intersection with the trigram index reads it: the short-term
// index's tokens of the short terms and runs of four alone, without the three-character terms'
// pairs, which every comment holding their trigrams holds (the same text, white space left out
// of both), and which only lengthen its AND: gen-space's "rea ック" read the matches of "re"
// and "ea", in 111,675 and 86,850 comments, to intersect 7,928 with those of "ック".
func (p *queryPlan) shortAlone(src indexSource) indexSource {
	if src.table != "comments_short" || len(p.long) == 0 {
		return src
	}
	_, parts := p.splitLong()
	if m, ok := shortMatch(p.short); ok {
		parts = append([]string{m}, parts...)
	}
	if len(parts) == 0 {
		return src
	}
	return indexSource{src.table, strings.Join(parts, " AND ")}
}

// chooseSource is the index source a query reads its candidates from, nil when it has none:
// of two, the one whose candidates are sparser among the newest comments (the larger gap, the
// trigram index on a tie: its candidates are closer to the matches), the other kept for a plan
// that reads every candidate.
func chooseSource(srcs []indexSource, newest []newestCands) *candidates {
	if len(srcs) == 0 {
		return nil
	}
	i := 0
	if len(srcs) > 1 && newest[1].gap > newest[0].gap {
		i = 1
	}
	c := &candidates{src: srcs[i]}
	if len(srcs) > 1 {
		c.other = &srcs[1-i]
	}
	if nc := newest[i]; nc.all {
		// every candidate is known: the sorted plan reads them, no stream
		c.counted, c.n, c.rids = true, nc.n, nc.rids
	}
	return c
}

// newestCands is what the index alone says of a source's newest candidates (newestCandidates).
type newestCands struct {
	// gap is how far below the newest rowid the limit+1-th newest candidate lies: under
	// 2×probeWindow, they are dense enough among the newest comments that the probe is likely
	// to answer. A source with fewer candidates has the largest gap there is.
	gap int64
	// all is set when the source has at most limit candidates: then n and rids are all of them.
	all  bool
	n    int
	rids string
}

// newestCandidates reads the limit+1 newest candidates of an index source, with no row read.
func (s *Store) newestCandidates(ctx context.Context, tx querier, src indexSource, limit int) (newestCands, error) {
	var nc newestCands
	var low, top sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT count(*), json_group_array(r), min(r), (SELECT max(rid) FROM comments)
		FROM (SELECT rowid AS r FROM `+src.table+` WHERE `+src.table+` MATCH ? ORDER BY rowid DESC LIMIT `+sqlLimit(limit+1)+`)`, src.match).Scan(&nc.n, &nc.rids, &low, &top)
	if err != nil {
		return nc, s.dbErr(err, "search")
	}
	if nc.n <= limit {
		nc.all, nc.gap = true, math.MaxInt64
		return nc, nil
	}
	nc.gap = top.Int64 - low.Int64
	return nc, nil
}

// planAndRun chooses how a query's rows are found (the index matches, sorted, or the walk
// newest first) and reads them with run; hits is how many run kept. cands is the index source
// chosen (nil: none, or a task filter, whose walk has its own index); probed is set when the
// newest comments were probed (the source's candidates are dense there).
func (s *Store) planAndRun(ctx context.Context, tx querier, p *queryPlan, sc scope, in SearchInput, allLike bool, cands *candidates, probed bool, run func(from source, extra ...string) error, resume func(indexSource) (bool, error), hits func() int) error {
	// Two plans give the same rows. When the index source matches few comments, the search is
	// driven from its matches, then sorted. When it matches many, it walks the space newest first
	// through the (space, created_at) index and stops at the limit, testing each comment, which
	// finds exactly what MATCH finds (TestMatchEqualsLike); collecting every match of a common
	// term first would cost more than the walk. Never bm25 over every match.
	// The index is asked for each long term's distinct trigrams, not the term as a phrase: FTS5
	// checks a phrase's positions inside one call SQLite cannot interrupt, term length times the
	// occurrences of its trigrams, seconds for one comment of 1 MB of "AAAA" (base64 of zeros).
	if cands == nil && !allLike {
		// a task filter: an index still drives a long term's rare matches
		if srcs := p.sources(); len(srcs) > 0 && len(p.long) > 0 {
			cands = &candidates{src: srcs[0]}
		}
	}
	from := walkFrom
	if cands != nil {
		if !cands.counted {
			n, rids, err := s.matchUpTo(ctx, tx, cands.src.table, cands.src.match, s.ftsDriveMax)
			if err != nil {
				return err
			}
			cands.counted, cands.n, cands.rids = true, n, rids
			s.note("count %s: %d", cands.src.table, n)
		}
		if cands.n <= s.ftsDriveMax {
			if ok, err := s.resumeStream(resume, cands.src, cands.n); ok || err != nil {
				return err
			}
			from = p.drivenFrom(cands.rids)
			if cands.src.table == "comments_short" {
				s.shortDriven.Add(1)
			}
		}
	}
	if from != walkFrom || in.TaskID != "" {
		s.note("run: driven %v", from != walkFrom)
		return run(from)
	}
	// The walk tests every comment through the (space, created_at) index, one row lookup each:
	// quick when hits are common (it stops at the limit), slow when they are rare. So it first
	// walks only the newest walkWindow comments; with more hits there than the limit, those are
	// the newest hits of all. Otherwise every candidate of the index source is read, sorted by
	// position (their position reads cost less than reading and testing every comment), or,
	// with no source or one matching most comments, the table is read in storage order and the
	// few hits sorted: 1.6 times faster than walking it all.
	edgeNS, edgeKey, ok, err := s.windowEdge(ctx, tx, sc.space, s.walkWindow)
	switch {
	case err != nil:
		return err
	case !ok: // a small space: the walk is the whole answer
		return run(from)
	}
	// A source whose candidates are sparse among the newest comments (no probe) had its newest
	// candidates read by the stream already: the window would test a thousand comments, long
	// ones whole, to find what those could not.
	if cands == nil || probed || s.streamMax <= 0 {
		if err := run(from, p.windowFilter(edgeNS, edgeKey)); err != nil {
			return err
		}
		s.note("window: %d", hits())
		if hits() > in.Limit {
			return nil
		}
	}
	if cands != nil {
		// the largest rowid bounds the comments in O(1), where counting the space's reads them all
		var rows int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(rid), 0) FROM comments`).Scan(&rows); err != nil {
			return s.dbErr(err, "search")
		}
		table, match := cands.src.table, cands.src.match
		if o := cands.other; o != nil {
			// both indexes match many comments: the candidates are those of both
			table, match = "", p.shortAlone(cands.src).intersect(p.shortAlone(*o))
			s.intersected.Add(1)
		}
		n, rids, err := s.matchUpTo(ctx, tx, table, match, rows/2)
		if err != nil {
			return err
		}
		s.note("all %s: %d", table, n)
		if n <= rows/2 && cands.other == nil {
			if ok, err := s.resumeStream(resume, cands.src, n); ok || err != nil {
				return err
			}
		}
		if n <= rows/2 {
			if cands.src.table == "comments_short" {
				s.shortDriven.Add(1)
			}
			return run(p.drivenFrom(rids))
		}
	}
	s.note("scan")
	return run(scanFrom)
}

// promising reports whether a stream that read some candidates and kept some hits is likely to
// find want hits within max candidates, at the rate of its hits so far.
func promising(st *stream, want, max int) bool {
	n := len(st.kept)
	return st.read > 0 && n > 0 && (want-n)*st.read/n <= max-st.read
}

// sparser is which of two streams' sources is estimated to have the fewer candidates, and how
// many, from how far below the first candidate each stream's reads reached (a source's
// candidates are about as dense below as among those read), and -1 when neither is estimated to
// have at most max, or a stream has read none or reached the end of its source.
func sparser(streams []stream, max int) (int, float64) {
	best, fewest := -1, float64(max)
	for i := range streams {
		st := &streams[i]
		if st.read == 0 || st.below <= 0 || st.top < st.below {
			return -1, 0
		}
		if est := float64(st.read) * float64(st.top) / float64(st.top-st.below+1); est <= fewest {
			best, fewest = i, est
		}
	}
	return best, fewest
}

// resumeStream reads the stream of src (newestMatches) on to its end, once the index has
// counted its n candidates, and false when there is no stream to read (resume nil). The sorted
// plan it replaces reads the position of every candidate, which is a read of the candidate's
// row, before it reads the newest rows whole; the stream reads each candidate's row once, newest
// rowid first, and stops when no candidate left can be newer than the hits it kept, so it reads
// at most as many rows, and about limit/matches of the candidates when the matches are spread
// through them (gen-longspace's "eyami": 2,552 candidates, 27 matches).
func (s *Store) resumeStream(resume func(indexSource) (bool, error), src indexSource, n int) (bool, error) {
	if resume == nil {
		return false, nil
	}
	ok, err := resume(src)
	if ok {
		s.note("resumed %s: %d candidates", src.table, n)
	}
	return ok, err
}

// windowEdge is the position (at_ns, idkey) of the w-th newest comment of a space, and false when
// the space has fewer comments.
func (s *Store) windowEdge(ctx context.Context, tx querier, space ID, w int) (atNS int64, idkey string, ok bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT at_ns, idkey FROM comments WHERE space = ?1
		ORDER BY at_ns DESC, idkey DESC LIMIT 1 OFFSET `+sqlLimit(w-1), string(space)).Scan(&atNS, &idkey)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, s.dbErr(err, "search")
	}
	return atNS, idkey, true, nil
}

// neighbours are up to n comments of the task just before and just after a position, oldest first.
func (s *Store) neighbours(ctx context.Context, tx querier, task ID, atNS int64, idkey string, n int) (before, after []Entry, err error) {
	before, err = s.entries(ctx, tx, `SELECT id, author, kind, created_at, body FROM comments
		WHERE task = ? AND (at_ns, idkey) < (?, ?) ORDER BY at_ns DESC, idkey DESC LIMIT `+sqlLimit(n), string(task), atNS, idkey)
	if err != nil {
		return nil, nil, err
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	after, err = s.entries(ctx, tx, `SELECT id, author, kind, created_at, body FROM comments
		WHERE task = ? AND (at_ns, idkey) > (?, ?) ORDER BY at_ns, idkey LIMIT `+sqlLimit(n), string(task), atNS, idkey)
	if err != nil {
		return nil, nil, err
	}
	return before, after, nil
}

// entries reads raw comments.
func (s *Store) entries(ctx context.Context, tx querier, q string, args ...any) ([]Entry, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.dbErr(err, "read neighbours")
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		var e Entry
		var id string
		if err := rows.Scan(&id, &e.Author, &e.Kind, &e.CreatedAt, &e.Body); err != nil {
			return nil, s.dbErr(err, "read neighbours")
		}
		e.Ref = "comment:" + id
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr(err, "read neighbours")
	}
	return out, nil
}

// around reads a comment of another task of the space and n neighbours each side, raw.
func (s *Store) around(ctx context.Context, tx querier, sc scope, in SearchInput) (*AroundResult, error) {
	id, err := parseRef("comment", in.Around)
	if err != nil {
		return nil, err
	}
	var target Entry
	var taskID, title, idkey string
	var atNS int64
	err = tx.QueryRowContext(ctx, `SELECT c.task, COALESCE(t.dtitle, ''), c.author, c.kind, c.created_at, c.body, c.at_ns, c.idkey
		FROM comments c JOIN tasks t ON t.id = c.task
		WHERE c.id = ?1 AND c.space = ?2 AND t.space = ?2 AND c.task <> ?3`,
		string(id), string(sc.space), string(sc.task)).Scan(&taskID, &title, &target.Author, &target.Kind, &target.CreatedAt, &target.Body, &atNS, &idkey)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("comment:%s not found in the other tasks of this space", id)
	}
	if err != nil {
		return nil, s.dbErr(err, "read comment")
	}
	target.Ref, target.Target = "comment:"+string(id), true
	before, after, err := s.neighbours(ctx, tx, ID(taskID), atNS, idkey, in.Context)
	if err != nil {
		return nil, err
	}
	comments := append(append(before, target), after...)
	source, name, err := s.scopeSource(ctx, tx, sc)
	if err != nil {
		return nil, err
	}
	return &AroundResult{Target: target.Ref, Task: "task:" + taskID, TaskTitle: title, Session: sessionIn(source, name, taskID),
		Comments: comments, Context: in.Context}, nil
}

// Excerpt cuts a comment's display text (redacted, in its original case and width) around the
// earliest occurrence of any term, with "…" at cut ends. Terms are normalised: they are matched
// in the folded display text and the match is mapped back to the display text (FoldMap/Span).
func Excerpt(itext string, terms []string) string {
	f := textmatch.FoldMap(itext)
	best, bestEnd := -1, -1
	for _, t := range terms {
		if i := strings.Index(f.Text, t); i >= 0 && (best < 0 || i < best) {
			best, bestEnd = i, i+len(t)
		}
	}
	start, end := 0, 0
	if best >= 0 {
		start, end = f.Span(best, bestEnd)
	}
	from := start
	for n := 0; n < excerptBefore && from > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(itext[:from])
		from -= size
	}
	to := end
	for n := 0; n < excerptAfter && to < len(itext); n++ {
		_, size := utf8.DecodeRuneInString(itext[to:])
		to += size
	}
	// a cut that would leave only a few characters out leaves none out
	if utf8.RuneCountInString(itext[:from]) <= excerptSlack {
		from = 0
	}
	if utf8.RuneCountInString(itext[to:]) <= excerptSlack {
		to = len(itext)
	}
	out := strings.TrimSpace(itext[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(itext) {
		out += "…"
	}
	return out
}

// String is a short description of an input, for logs and messages.
func (in SearchInput) String() string {
	if in.Around != "" {
		return fmt.Sprintf("around %s", in.Around)
	}
	return fmt.Sprintf("query %q", in.Query)
}

// intersectFew reads the rowids both index sources match (the short-term one for the short terms
// alone: shortAlone), in the index, and, when there are at most ftsDriveMax, the plan's rows
// from them, sorted (run, drivenFrom); false when there are more, or when the intersection is
// estimated to hold more (nothing read then but the short terms' newest candidates). The
// estimate is the trigram index's candidates (sparser's, from its first stream) times the
// short terms' density among the newest comments, as if they were independent: a common
// single character ("e norsh", "t nfi": over half of the newest comments) makes it large, where
// the intersection would read a doclist of most of the space to count past ftsDriveMax
// (about 1 ms more in each of 20 terms of gen-space's and gen-longspace's term files, when
// the intersection was read whenever it could answer).
func (s *Store) intersectFew(ctx context.Context, tx querier, p *queryPlan, srcs []indexSource, streams []stream, run func(from source, extra ...string) error) (bool, error) {
	alone := p.shortAlone(srcs[1])
	nc, err := s.newestCandidates(ctx, tx, alone, 10)
	if err != nil {
		return false, err
	}
	st := &streams[0]
	est := float64(st.read) * float64(st.top) / float64(st.top-st.below+1)
	if nc.all {
		est = min(est, float64(nc.n))
	} else {
		est *= float64(nc.n) / float64(nc.gap+1)
	}
	s.note("both estimated: %.0f", est)
	// and the short terms alone in at most half of the newest comments: the intersection reads
	// their doclist whole ("k aenro": 61%, 10 ms more to count past ftsDriveMax)
	if est > float64(s.ftsDriveMax) || !nc.all && 2*nc.n > int(nc.gap+1) {
		return false, nil
	}
	n, rids, err := s.matchUpTo(ctx, tx, "", p.shortAlone(srcs[0]).intersect(alone), s.ftsDriveMax)
	if err != nil {
		return false, err
	}
	s.note("both: %d", n)
	if n > s.ftsDriveMax {
		return false, nil
	}
	s.intersected.Add(1)
	return true, run(p.drivenFrom(rids))
}

// indexTokens are the short-term index's tokens of every term, unquoted, and false when a term
// is narrowed by the trigram index or has no token (the plan then has two sources, or none).
func (p *queryPlan) indexTokens() ([]string, bool) {
	var toks []string
	for _, t := range p.short {
		tok, ok := shortToken(t)
		if !ok {
			return nil, false
		}
		toks = append(toks, tok)
	}
	for _, t := range p.long {
		if tok, ok := triToken(t); ok && !p.noTris {
			toks = append(toks, tok)
			continue
		}
		q, ok := quadTokens(t)
		if !ok || p.noQuads {
			return nil, false
		}
		toks = append(toks, q...)
	}
	slices.Sort(toks)
	return slices.Compact(toks), true
}

// directStream is newestMatches reading the candidates of the plan's one source, a query of
// several tokens of the short-term index (toks), from the tokens' lists of rowids intersected
// here (doclist.go) instead of from FTS5's AND: newest first, a few at a time, each lot tested
// in one statement, until comment_blocks shows no candidate left can be newer than the want
// newest kept. FTS5's AND of tokens common apart and rare together decodes every list in
// SQLite's virtual machine before its first row (gen-space's "oo chema": 100 pages, 5 ms). It
// reads st as newestMatches does, so the plans after it resume below the last candidate it
// read; ok false when the index holds a record this reader does not follow (nothing read) or
// when more than max candidates were read.
func (s *Store) directStream(ctx context.Context, tx querier, p *queryPlan, toks []string, want int, st *stream, max int) (kept []hitRow, ok bool, err error) {
	d, err := openDoclists(ctx, tx, s.structure.Load())
	if errors.Is(err, errDoclistShape) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.dbErr(err, "search")
	}
	its, err := d.tokens(toks)
	if errors.Is(err, errDoclistShape) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.dbErr(err, "search")
	}
	defer closeIters(its)
	s.structure.Store(d.known)
	// the sparsest list first: its rowids are where the others are sought
	slices.SortStableFunc(its, func(a, b *descIter) int { return cmp.Compare(a.pageCount(), b.pageCount()) })
	x := newIntersection(its)
	var cands []int64
	more, lot := true, 4*want // the limit, the rest of its block, and some failing the tests
	for more {
		cands, more = x.next(min(lot, max+1-st.read), cands[:0])
		if errors.Is(x.err, errDoclistShape) && st.read == 0 {
			s.note("direct: not read")
			return nil, false, nil
		}
		if x.err != nil {
			return nil, false, s.dbErr(x.err, "search")
		}
		if len(cands) == 0 {
			break
		}
		js, err := json.Marshal(cands)
		if err != nil {
			return nil, false, fmt.Errorf("write candidates: %w", err)
		}
		// no ORDER BY: the candidates are read in the array's order (json_each drives the join),
		// and stepped only as far as keepNewest needs; a sort would read and test every one
		// first (keepNewest checks the order)
		rows, err := tx.QueryContext(ctx, `SELECT `+p.streamColumns("f.value")+`
			FROM json_each(?`+strconv.Itoa(len(p.args)+1)+`) f CROSS JOIN comments c ON c.rid = f.value LEFT JOIN tasks t ON t.id = c.task`,
			append(slices.Clone(p.args), string(js))...)
		if err != nil {
			return nil, false, s.dbErr(err, "search")
		}
		done, over, err := s.keepNewest(rows, p, want, st, max)
		rows.Close()
		if err != nil {
			return nil, false, err
		}
		if over {
			s.note("direct: stopped after %d", st.read)
			return nil, false, nil
		}
		if done {
			break
		}
		lot *= 4
	}
	s.streamed.Add(1)
	s.directed.Add(1)
	s.note("direct: %d read", st.read)
	return st.kept, true, nil
}
