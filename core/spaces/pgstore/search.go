package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
)

// searchBudget bounds the queries of one search, as spaces.db's search budget does: when it runs
// out the search fails with STORAGE_BUSY. A variable so tests can lower it.
var searchBudget = 2 * time.Second

// defaultProbeWindow is how many of a space's newest comments a query tests first: a term in
// more than about one comment in 9 of them is answered from them alone (limit 10).
const defaultProbeWindow = 100

// defaultWindowMax is how many of a space's newest comments a query of long terms tests when
// the probe found some of its hits but not enough (longTerms).
const defaultWindowMax = 2000

// defaultFewMax is the most matches for which a query of long terms reads every match from
// pg_trgm's index and sorts them (as spaces.db sorts up to 2,000 matches of its index); with
// more, it walks the space newest first, finding its hits within a few thousand comments.
const defaultFewMax = 2000

// defaultFewLong is the most comments of a query's long terms alone for which a query of long
// and short terms tests every one of them (shortTerms): each costs a LIKE on its index text,
// where the short-term index's walk tests only the comments holding every key.
const defaultFewLong = 100

// defaultSampleWindow is how many of a space's newest comments a query of long and short terms
// counts its terms in before it chooses between its long terms' comments and the walk
// (sampleTerms): about a millisecond (110 buffers at 2,000,000 comments; 2,000 comments cost 4
// ms, 440 buffers, a query of a rare long term 1.3 -> 5.5 ms), where the wrong choice costs tens
// to thousands; a term in 0.2 % of the comments is seen in it, and one in 1 % five times.
const defaultSampleWindow = 500

// maxBucketsPerStatement bounds the buckets one short-term lookup asks for: GIN merges a
// condition's tokens (one a bucket) item by item, so the cost of an item grows with the
// buckets of the statement (the 108 buckets of "tool 日志" at 2,000,000 comments: 836 ms in one
// statement, 150 ms in 14 of 8, 99 ms in 108 of one), and with more statements their own cost
// grows. 8, measured: the walks of 371 sampled queries took 4.3 s of PostgreSQL CPU with up to
// 8 buckets a statement, 5.5 s with up to 1024, 4.1 to 5.4 s with 4, 4.5 to 4.9 s with 16.
const maxBucketsPerStatement = 8

// Search answers SearchWorkspaceTasks as spaces.SearchWorkspaceTasks does for a caller with a
// user: the input checked alike (spaces.SearchInput.Validate), a subtask answered "not
// available", the current task's space the only one searched (FORBIDDEN unless the user owns it
// or is a member), its other tasks' comments newest first with the same excerpts, limit,
// truncated, context and around_ref. A team store has no local account: a caller without a user
// is answered "not available". ctx ending is CANCELLED; a database that cannot be reached within
// the store's wait, or a search past its time budget, is STORAGE_BUSY.
func (s *Store) Search(ctx context.Context, caller spaces.Caller, in spaces.SearchInput) (a spaces.Answer, err error) {
	if err := in.Validate(); err != nil {
		return spaces.Answer{}, err
	}
	defer func() {
		if err = errs.IfStopped(ctx, err, "space search"); err != nil {
			a = spaces.Answer{}
		}
	}()
	if caller.Subtask || caller.User == "" {
		return spaces.Answer{Unavailable: &spaces.Unavailable{Message: spaces.UnavailableMessage}}, nil
	}
	if strings.TrimSpace(caller.Task) == "" {
		return spaces.Answer{}, errs.Invalidf("SearchWorkspaceTasks needs the current task%s", errs.Field("task", errs.Give))
	}
	task, err := spaces.ParseRef("task", caller.Task)
	if err != nil {
		return spaces.Answer{}, err
	}
	err = s.retry(ctx, func() (err error) {
		a, err = s.inBudget(ctx, func(ctx context.Context, tx pgx.Tx) (spaces.Answer, error) {
			return s.searchTx(ctx, tx, noNUL(caller.User), task, in)
		})
		return err
	})
	return a, err
}

// inBudget runs a search in one read transaction, within the search budget: ctx ending is
// CANCELLED, the budget running out STORAGE_BUSY.
func (s *Store) inBudget(ctx context.Context, search func(ctx context.Context, tx pgx.Tx) (spaces.Answer, error)) (spaces.Answer, error) {
	tx, err := s.begin(ctx, false, "begin search")
	if err != nil {
		return spaces.Answer{}, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	bctx, cancel := context.WithTimeout(ctx, searchBudget)
	defer cancel()
	a, err := search(bctx, tx)
	if err != nil {
		if stopped := errs.Stopped(ctx, "space search"); stopped != nil {
			return spaces.Answer{}, stopped
		}
		if bctx.Err() != nil {
			return spaces.Answer{}, errs.New(errs.Busy, "space search stopped after its time budget of %s (its terms occur very often in long comments); use fewer or shorter terms, or narrow it with %s", searchBudget, errs.Fields(errs.Alternatives, "task_id", "kind", "author"))
		}
	}
	return a, err
}

// scope is the current task and its space.
type scope struct {
	space, task spaces.ID
}

// searchTx resolves the caller and reads, all in tx's one snapshot.
func (s *Store) searchTx(ctx context.Context, tx pgx.Tx, user string, task spaces.ID, in spaces.SearchInput) (spaces.Answer, error) {
	sc, unavailable, err := s.resolveTask(ctx, tx, user, task)
	if err != nil {
		return spaces.Answer{}, err
	}
	if unavailable != nil {
		return spaces.Answer{Unavailable: unavailable}, nil
	}
	return s.read(ctx, tx, sc, in)
}

// read answers in within one scope: the comments around around_ref, or the query's hits.
func (s *Store) read(ctx context.Context, tx pgx.Tx, sc scope, in spaces.SearchInput) (spaces.Answer, error) {
	if strings.TrimSpace(in.Around) != "" {
		res, err := s.around(ctx, tx, sc, in)
		if err != nil {
			return spaces.Answer{}, err
		}
		return spaces.Answer{Around: res}, nil
	}
	res, err := s.query(ctx, tx, sc, in)
	if err != nil {
		return spaces.Answer{}, err
	}
	return spaces.Answer{Search: res}, nil
}

// resolveTask finds the current task's space and checks the caller may search it.
func (s *Store) resolveTask(ctx context.Context, tx pgx.Tx, user string, task spaces.ID) (scope, *spaces.Unavailable, error) {
	var space string
	var parent *string
	var ok int
	err := tx.QueryRow(ctx, `SELECT t.space, t.parent,
		(SELECT count(*) FROM spaces WHERE id = t.space AND owner = $2) + (SELECT count(*) FROM members WHERE space = t.space AND "user" = $2)
		FROM tasks t WHERE t.id = $1`, string(task), user).Scan(&space, &parent, &ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return scope{}, nil, errs.NotFoundf("task:%s (the current task%s) not found in the space store", task, errs.Field("task", errs.Source))
	}
	if err != nil {
		return scope{}, nil, s.dbErr(ctx, err, "look up the current task")
	}
	if parent != nil {
		return scope{}, &spaces.Unavailable{Message: spaces.UnavailableMessage}, nil
	}
	if ok == 0 {
		return scope{}, nil, errs.New(errs.Forbidden, "user %q is neither the owner nor a member of the space of task:%s", user, task)
	}
	return scope{space: spaces.ID(space), task: task}, nil, nil
}

// plan is a query turned into SQL: $1 is the space, $2 the current task (no hit comes from it),
// then every term's LIKE pattern and the filters' values.
type plan struct {
	terms []string
	where []string
	args  []any
	limit string
}

// byteaColumns are the columns of comments that hold bytes, compared with a bytea parameter.
var byteaColumns = map[string]bool{"author": true}

// likePattern is %t% with LIKE's wildcards and its escape character (\) escaped.
func likePattern(t string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(t) + "%"
}

func (p *plan) arg(v any) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(len(p.args))
}

// newPlan plans a validated query of terms in its scope. Every term is a LIKE on the index
// text: it finds exactly what spaces.db's instr and LIKE find (the index text and the terms are
// folded, so LIKE's case rules never come into it), and pg_trgm's index serves it for a term
// of three or more characters.
func newPlan(sc scope, in spaces.SearchInput, terms []string) *plan {
	p := &plan{terms: terms, args: []any{string(sc.space), string(sc.task)}}
	p.where = []string{`c.space = $1`, `t.space = $1`, `c.task <> $2`, `c.itext IS NOT NULL`}
	for _, t := range terms {
		p.where = append(p.where, `c.itext LIKE `+p.arg(likePattern(t)))
	}
	p.where = append(p.where, in.Filters(func(column string, v any) string {
		if s, ok := v.(string); ok && byteaColumns[column] {
			return p.arg([]byte(s))
		}
		return p.arg(v)
	})...)
	p.limit = strconv.Itoa(in.Limit + 1)
	return p
}

// gramKeys are the short-term index's keys (without their bucket) that a query of at least
// one short term (one or two characters, no space) drives its walk with: every short term
// itself, and every pair of neighbouring characters of its longer terms (a comment holding a
// term holds each of its pairs, in the comment's own bucket), each at most once. Every key must
// be in a comment's tokens of one bucket, so the index intersects them: a query of a common
// short term and a rare one, or of a short term and a long term, reads the few comments holding
// all of them, never the common term's every comment (two short terms "ew 67" at 200,000
// comments: 50,300 comments rechecked for 39 hits before, as many as hold both pairs' tokens
// now). false when no term is short (pg_trgm serves the query) or none can drive.
func (p *plan) gramKeys() ([]string, bool) {
	var keys []string
	short := false
	for _, t := range p.terms {
		if n := utf8.RuneCountInString(t); n <= 2 && !strings.ContainsRune(t, ' ') {
			short = true
			if n == 1 {
				keys = append(keys, t)
				continue
			}
		}
		keys = append(keys, termPairs(t)...)
	}
	if !short || len(keys) == 0 {
		return nil, false
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

// termPairs are the pairs of neighbouring characters of a term, those holding a space left out,
// as gramBuffer.tokens takes them from the index text.
func termPairs(t string) []string {
	var out []string
	for i, c := range t {
		n := i + utf8.RuneLen(c)
		if c == utf8.RuneError {
			_, w := utf8.DecodeRuneInString(t[i:])
			n = i + w
		}
		if c == ' ' || n >= len(t) {
			continue
		}
		if next, w := utf8.DecodeRuneInString(t[n:]); next != ' ' {
			out = append(out, t[i:n+w])
		}
	}
	return out
}

// hitColumns are what a hit is made of, from c, a comment, and t, its task.
const hitColumns = `c.id, c.task, COALESCE(t.dtitle, ''::bytea), c.author, c.kind, c.created_at, c.at_ns, c.idkey, COALESCE(c.dtext, ''::bytea)`

// hitRow is a hit as read, with its position and display text.
type hitRow struct {
	hit   spaces.Hit
	task  string
	atNS  int64
	idkey string
	dtext []byte
}

// sql is the statement reading the plan's rows from the FROM clause from (with its WITH
// clause), newest first.
func (p *plan) sql(with, from string, extra ...string) string {
	return with + `SELECT ` + hitColumns + ` FROM ` + from + ` JOIN tasks t ON t.id = c.task
		WHERE ` + strings.Join(append(append([]string(nil), p.where...), extra...), " AND ") + `
		ORDER BY c.at_ns DESC, c.idkey DESC LIMIT ` + p.limit
}

// run reads a statement's hits.
func (s *Store) run(ctx context.Context, tx pgx.Tx, p *plan, q string, args []any) ([]hitRow, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, s.dbErr(ctx, err, "search")
	}
	out, err := scanHits(rows, p)
	return out, s.dbErr(ctx, err, "search")
}

// scanHits reads rows of hitColumns, each after the columns of lead (scanned into it), and
// closes rows.
func scanHits(rows pgx.Rows, p *plan, lead ...any) ([]hitRow, error) {
	defer rows.Close()
	var out []hitRow
	for rows.Next() {
		var r hitRow
		var id string
		var title, author []byte
		h := &r.hit
		if err := rows.Scan(append(lead, &id, &r.task, &title, &author, &h.Kind, &h.CreatedAt, &r.atNS, &r.idkey, &r.dtext)...); err != nil {
			return nil, err
		}
		h.Ref, h.Task, h.TaskTitle, h.Author, h.Terms = "comment:"+id, "task:"+r.task, string(title), string(author), p.terms
		out = append(out, r)
	}
	return out, rows.Err()
}

// runPlanned is run with the planner's methods off turned off for this one statement (SET
// LOCAL before it, on again after it, in one round trip), lead as scanHits has it. An entry of
// off holding "=" is a setting and its value instead ("work_mem=32MB"), set back to its default
// after the statement.
func (s *Store) runPlanned(ctx context.Context, tx pgx.Tx, p *plan, off []string, q string, args []any, lead ...any) ([]hitRow, error) {
	var b pgx.Batch
	for _, m := range off {
		if name, v, ok := strings.Cut(m, "="); ok {
			b.Queue(`SET LOCAL ` + name + ` = '` + v + `'`)
			continue
		}
		b.Queue(`SET LOCAL ` + m + ` = off`)
	}
	b.Queue(q, args...)
	for _, m := range off {
		if name, _, ok := strings.Cut(m, "="); ok {
			b.Queue(`SET LOCAL ` + name + ` TO DEFAULT`)
			continue
		}
		b.Queue(`SET LOCAL ` + m + ` = on`)
	}
	br := tx.SendBatch(ctx, &b)
	defer br.Close()
	for range off {
		if _, err := br.Exec(); err != nil {
			return nil, s.dbErr(ctx, err, "search")
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, s.dbErr(ctx, err, "search")
	}
	out, err := scanHits(rows, p, lead...)
	if err != nil {
		return nil, s.dbErr(ctx, err, "search")
	}
	for range off {
		if _, err := br.Exec(); err != nil {
			return nil, s.dbErr(ctx, err, "search")
		}
	}
	return out, s.dbErr(ctx, br.Close(), "search")
}

// newest reads the hits among the space's newest window comments: the newest of all when
// there are more than the limit. It stops at the limit, so a term common there costs a few rows.
func (s *Store) newest(ctx context.Context, tx pgx.Tx, p *plan, window int) ([]hitRow, error) {
	return s.run(ctx, tx, p, p.sql("", `(SELECT * FROM comments WHERE space = $1 ORDER BY at_ns DESC, idkey DESC LIMIT `+strconv.Itoa(window)+`) c`), p.args)
}

// longTerms answers a query with a term of three or more characters (pg_trgm's index serves it)
// that the probe did not: probed is how many hits the probe's newest comments held. A query
// found there at all is likely common enough to have its hits among the newest windowMax
// comments (they cost a few hundred rows when it is; windowMax when not); otherwise, or when
// they hold too few, its matches are read from the index and sorted when they are at most
// fewMax (fewMatches), and the space walked newest first when there are more (walkNewest).
func (s *Store) longTerms(ctx context.Context, tx pgx.Tx, p *plan, probed, limit int) ([]hitRow, error) {
	if probed > 0 && s.windowMax > s.probeWindow {
		found, err := s.newest(ctx, tx, p, s.windowMax)
		if err != nil || len(found) > limit {
			s.count("window")
			return found, err
		}
	}
	found, complete, err := s.fewMatches(ctx, tx, p)
	if err != nil || complete {
		s.count("few")
		return found, err
	}
	s.count("walk")
	return s.walkNewest(ctx, tx, p)
}

// fewMatches reads a query of long terms (pg_trgm's index serves each) from its matches: every
// comment of the space the index finds, tested and kept up to fewMax+1 of them, then sorted
// newest first. complete is false when there were more than fewMax: the hits are then nil and a
// walk finds them (walkNewest). The planner, left to itself, estimates a query's matches by
// multiplying its terms' frequencies, and for a query it expects hundreds of matches of walks
// the space newest first, stopping at the limit: terms that seldom occur together (in no
// comment, or a few) then make it test every comment of the space (at 200,000 comments, 0.9 s
// where the index gives the answer in 7 ms). So the statement turns the sequential and plain
// index scans off: the only way left to read comments is a bitmap of the index.
func (s *Store) fewMatches(ctx context.Context, tx pgx.Tx, p *plan) (hits []hitRow, complete bool, err error) {
	q := `WITH g AS MATERIALIZED (SELECT c.rid, c.at_ns, c.idkey FROM comments c JOIN tasks t ON t.id = c.task
			WHERE ` + strings.Join(p.where, " AND ") + ` LIMIT ` + strconv.Itoa(s.fewMax+1) + `)
		SELECT (SELECT count(*) FROM g), ` + hitColumns + `
		FROM (SELECT rid FROM g ORDER BY at_ns DESC, idkey DESC LIMIT ` + p.limit + `) h
		JOIN comments c ON c.rid = h.rid JOIN tasks t ON t.id = c.task
		ORDER BY c.at_ns DESC, c.idkey DESC`
	var n int64
	found, err := s.runPlanned(ctx, tx, p, []string{"enable_seqscan", "enable_indexscan"}, q, p.args, &n)
	if err != nil {
		return nil, false, err
	}
	// no row: no match at all; otherwise every row has the count
	if n > int64(s.fewMax) {
		return nil, false, nil
	}
	return found, true, nil
}

// walkNewest reads a query with many matches (more than fewMax) by walking the space's comments
// newest first, stopping at the limit: a statement with the bitmap and sequential scans off, so
// the planner, whose estimate of the matches may be far too low (terms that occur together
// more often than their frequencies say), cannot choose to read and sort every match. Nor in
// parallel: starting the workers took 40 ms of the 56 ms of "too png" (7,841 matches at
// 2,000,000 comments), where one process reads its few thousand rows in 20.
func (s *Store) walkNewest(ctx context.Context, tx pgx.Tx, p *plan) ([]hitRow, error) {
	return s.runPlanned(ctx, tx, p, []string{"enable_seqscan", "enable_bitmapscan", "max_parallel_workers_per_gather=0"}, p.sql("", `comments c`), p.args)
}

// count adds a plan's name to the store's counts, for tests.
func (s *Store) count(name string) {
	if s.plans != nil {
		s.plans[name]++
	}
}

// query is the query mode: every term in the index text; newest first.
func (s *Store) query(ctx context.Context, tx pgx.Tx, sc scope, in spaces.SearchInput) (*spaces.SearchResult, error) {
	res := &spaces.SearchResult{Query: in.Query, Hits: []spaces.Hit{}}
	terms := spaces.SplitQuery(in.Query)
	if len(terms) == 0 {
		return res, nil
	}
	p := newPlan(sc, in, terms)
	var found []hitRow
	answered := false
	var err error
	// The newest comments of the space first: a common term is answered from them alone.
	probed := 0
	if in.TaskID == "" && s.probeWindow > 0 {
		found, err = s.newest(ctx, tx, p, s.probeWindow)
		if err != nil {
			return nil, err
		}
		probed = len(found)
		answered = len(found) > in.Limit
		if answered {
			s.count("probe")
		}
	}
	if !answered {
		if keys, ok := p.gramKeys(); ok {
			found, err = s.shortTerms(ctx, tx, p, sc, keys, probed, in.Limit+1)
		} else if in.TaskID != "" {
			// a task's comments: its index
			found, err = s.run(ctx, tx, p, p.sql("", `comments c`), p.args)
			s.count("index")
		} else {
			found, err = s.longTerms(ctx, tx, p, probed, in.Limit)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(found) > in.Limit {
		found, res.Truncated = found[:in.Limit], true
	}
	source := ""
	if len(found) > 0 {
		if source, err = s.spaceSource(ctx, tx, sc.space); err != nil {
			return nil, err
		}
	}
	for _, r := range found {
		r.hit.Excerpt = spaces.Excerpt(string(r.dtext), p.terms)
		r.hit.Session = spaces.SessionOf(source, r.task)
		res.Hits = append(res.Hits, r.hit)
	}
	if in.Context > 0 {
		for i, r := range found {
			if err := errs.Stopped(ctx, "space search"); err != nil {
				return nil, err
			}
			before, after, err := s.neighbours(ctx, tx, r.task, r.atNS, r.idkey, in.Context)
			if err != nil {
				return nil, err
			}
			res.Hits[i].Before, res.Hits[i].After = &before, &after
		}
	}
	return res, nil
}

// shortTerms answers a query with a short term (gramKeys) that the probe did not, by walking
// the short-term index newest bucket first with every term's keys (bucketWalk). A query with a
// term of three or more characters first takes the plans of long terms that fit it: found among
// the probe's comments at all, the newest windowMax comments; then, by what a sample of the
// space's newest comments says each costs (sampleTerms, termSample.choice): its long terms'
// comments read from pg_trgm's index, each tested ("148715 ン" tests its few comments, never the
// walk's every comment holding ン, 14, 48... in a bucket); only those of them holding the short
// terms' tokens too, both indexes' bitmaps ANDed ("rea 脚": none of the 80,000 comments holding
// rea is read, where the walk would read the 300,000 holding re, ea and 脚 for no hit); or the
// walk ("9 searc": pg_trgm's bitmap of searc alone is 500,000 comments, 80 ms before a row is
// read, where the walk finds 11 hits in its newest bucket). Never the trigram index for the
// short terms: they have no trigram, so the index would test every comment of the long terms.
func (s *Store) shortTerms(ctx context.Context, tx pgx.Tx, p *plan, sc scope, keys []string, probed, want int) ([]hitRow, error) {
	first, last, ok, err := s.spaceTimes(ctx, tx, sc)
	if err != nil || !ok {
		return nil, err
	}
	lo, hi := first>>gramBucketShift, last>>gramBucketShift
	// the long terms' LIKEs as the plan has them ($3 is its first term's)
	var long []string
	for i, t := range p.terms {
		if utf8.RuneCountInString(t) > 2 {
			long = append(long, `c.itext LIKE $`+strconv.Itoa(3+i))
		}
	}
	if len(long) > 0 {
		if probed > 0 && s.windowMax > s.probeWindow {
			// found among the newest comments at all: likely common enough for a window
			found, err := s.newest(ctx, tx, p, s.windowMax)
			if err != nil || len(found) >= want {
				s.count("window")
				return found, err
			}
		}
		// a few candidates (fewLong) are always worth reading; more only when the sample says
		// they cost less than the walk, and never more than the walk would read
		few, cand, args := s.fewLong, `c.space = $1 AND `+strings.Join(long, " AND "), p.args
		if s.sampleWindow > 0 {
			est, err := s.sampleTerms(ctx, tx, p, sc, keys, first, last)
			if err != nil {
				return nil, err
			}
			walk := est.walkRows(want) * s.walkWeight
			choice := est.choice(walk)
			s.count(choice)
			switch {
			case est.long == 0:
			case choice == "sample-walk":
				few = 0
			default:
				few = int(min(max(walk, float64(s.fewLong)), maxCandidates))
				if choice == "sample-and" {
					// only the comments of the long terms that also hold every short term's
					// token in their bucket: the two indexes' bitmaps ANDed, no other row read
					args, cand = p.shortConds(cand, lo, hi)
				}
			}
		}
		if few > 0 {
			found, complete, err := s.fewCandidates(ctx, tx, p, []string{"enable_seqscan", "enable_indexscan", "work_mem=" + candidateWorkMem}, cand, args, few)
			if err != nil || complete {
				s.count("mixed-trgm")
				return found, err
			}
		}
	}
	if len(long) > 0 {
		s.count("mixed-walk")
	} else {
		s.count("short")
	}
	return s.bucketWalk(ctx, tx, p, keys, lo, hi, want)
}

// maxCandidates bounds the long terms' comments a query of long and short terms reads from
// pg_trgm's index (shortTerms), whatever the sample said.
const maxCandidates = 1_000_000

// candidateWorkMem is the memory the bitmap of a query's candidates may take (a setting of its
// statement alone): at PostgreSQL's default of 4 MB a bitmap of 80,000 comments turns lossy and
// its recheck tests 325,000 rows instead of 80,000 (540 ms against 310 ms at 2,000,000 comments).
const candidateWorkMem = "32MB"

// termSample is what the newest comments of a space say of a query of long and short terms,
// scaled to the whole space by time (the sample spans a part of the space's time; comments are
// assumed as frequent over the rest): how many comments hold its long terms (each a trigram
// candidate: its cost if read from pg_trgm's index), its short terms (their tokens' bitmap),
// every key of the walk (what the walk reads when it finds nothing), and every term (its hits).
type termSample struct {
	long, short, keys, hits float64
}

// entryCost is what an entry of an index's bitmap costs against a comment read and tested:
// pg_trgm's bitmap of 503,168 comments took 77 ms, reading and testing 79,629 comments 310 ms.
const entryCost = 1.0 / 25

// andRows is what the intersection of the long terms' candidates and the short terms' tokens
// (sample-and) costs, in comments read: both bitmaps' entries, and the comments in both, about
// its hits.
func (e termSample) andRows() float64 {
	return (e.long+e.short)*entryCost + e.hits
}

// walkRows is how many comments the walk reads for want hits: as many as hold every key for
// each hit when the sample found hits, every comment holding the keys when it found none.
func (e termSample) walkRows(want int) float64 {
	if e.hits > 0 {
		return min(e.keys, float64(want)*e.keys/e.hits)
	}
	return e.keys
}

// choice names the plan the sample chose: "sample-few" when the sample found no comment of the
// long terms (the few read from pg_trgm's index); else the cheapest of "sample-trgm" (every
// comment of the long terms read and tested), "sample-and" (only those holding the short
// terms' tokens too, andRows) and "sample-walk" (walk: its cost, in comments read).
func (e termSample) choice(walk float64) string {
	trgm, and := e.long*(1+entryCost), e.andRows()
	switch {
	case e.long == 0:
		return "sample-few"
	case and <= trgm && and < walk:
		return "sample-and"
	case trgm < walk:
		return "sample-trgm"
	}
	return "sample-walk"
}

// shortConds are cand and the plan's parameters with, for every short term, the condition that
// a comment holds its token in its bucket, lo to hi, as one condition on the short-term index
// for each maxBucketsPerStatement buckets, ORed (GIN's cost of an item grows with the tokens of
// a condition): a bitmap the planner ANDs with cand's from pg_trgm's index.
func (p *plan) shortConds(cand string, lo, hi int64) ([]any, string) {
	args := append([]any(nil), p.args...)
	conds := []string{cand}
	for _, t := range p.terms {
		if n := utf8.RuneCountInString(t); n > 2 || strings.ContainsRune(t, ' ') {
			continue
		}
		var or []string
		for b := hi; b >= lo; b -= maxBucketsPerStatement {
			args = append(args, bucketTokens(t, max(lo, b-maxBucketsPerStatement+1), b))
			or = append(or, `c.grams && $`+strconv.Itoa(len(args))+`::text[]`)
		}
		conds = append(conds, `(`+strings.Join(or, " OR ")+`)`)
	}
	return args, strings.Join(conds, " AND ")
}

// sampleTerms counts, among the space's newest sampleWindow comments, those holding the
// query's long terms, its keys (gramKeys: each a substring, as the walk's tokens are) and every
// term, and scales the counts to the space: the sample spans [its oldest, its newest] of
// [first, last], the space's times. A space of at most sampleWindow comments is counted whole.
// A count of 0 stays 0: the term is rare, or missing, in the newest comments.
func (s *Store) sampleTerms(ctx context.Context, tx pgx.Tx, p *plan, sc scope, keys []string, first, last int64) (termSample, error) {
	args := []any{string(sc.space)}
	like := func(t string) string {
		args = append(args, likePattern(t))
		return `itext LIKE $` + strconv.Itoa(len(args))
	}
	var long, short, all, ks []string
	for _, t := range p.terms {
		c := like(t)
		all = append(all, c)
		if utf8.RuneCountInString(t) > 2 || strings.ContainsRune(t, ' ') {
			long = append(long, c)
		} else {
			short = append(short, c)
		}
	}
	for _, k := range keys {
		ks = append(ks, like(k))
	}
	and := func(conds []string) string {
		if len(conds) == 0 {
			return "true"
		}
		return strings.Join(conds, " AND ")
	}
	q := `SELECT count(*), count(*) FILTER (WHERE ` + and(long) + `), count(*) FILTER (WHERE ` + and(short) + `),
		count(*) FILTER (WHERE ` + and(ks) + `), count(*) FILTER (WHERE ` + and(all) + `), min(at_ns), max(at_ns)
		FROM (SELECT itext, at_ns FROM comments WHERE space = $1 ORDER BY at_ns DESC, idkey DESC LIMIT ` + strconv.Itoa(s.sampleWindow) + `) c`
	var n, nLong, nShort, nKeys, nHits int64
	var oldest, newest *int64
	if err := tx.QueryRow(ctx, q, args...).Scan(&n, &nLong, &nShort, &nKeys, &nHits, &oldest, &newest); err != nil {
		return termSample{}, s.dbErr(ctx, err, "sample the search's terms")
	}
	scale := 1.0
	if n >= int64(s.sampleWindow) && oldest != nil && newest != nil {
		// the sample's time span, at least a nanosecond, against the space's
		scale = max(1, float64(last-first)/float64(max(1, *newest-*oldest)))
	}
	return termSample{long: float64(nLong) * scale, short: float64(nShort) * scale, keys: float64(nKeys) * scale, hits: float64(nHits) * scale}, nil
}

// spaceTimes are the times of the space's oldest and newest comments; ok is false when it has none.
func (s *Store) spaceTimes(ctx context.Context, tx pgx.Tx, sc scope) (first, last int64, ok bool, err error) {
	var lo, hi *int64
	if err := tx.QueryRow(ctx, `SELECT min(at_ns), max(at_ns) FROM comments WHERE space = $1`, string(sc.space)).Scan(&lo, &hi); err != nil {
		return 0, 0, false, s.dbErr(ctx, err, "search")
	}
	if lo == nil || hi == nil {
		return 0, 0, false, nil
	}
	return *lo, *hi, true, nil
}

// fewCandidates reads the hits among the comments cand (a condition on comments c, in args: the
// plan's parameters and maybe more) selects, when it selects at most few of them, in one statement: up to
// few+1 of them taken from cand's index, each tested for every term in the scan that reads it
// (on an expression of itext, which no index serves), and counted; then, when they are at most
// few, the hits among them read again and sorted newest first; a last row (s = 1) always
// carries the count. complete is false (and the hits nil) when cand selects more. The planner's
// methods off are turned off for the statement (runPlanned), so cand is read from its index.
func (s *Store) fewCandidates(ctx context.Context, tx pgx.Tx, p *plan, off []string, cand string, args []any, few int) (hits []hitRow, complete bool, err error) {
	lim := strconv.Itoa(few)
	var test []string
	for i := range p.terms {
		test = append(test, `(c.itext || '') LIKE $`+strconv.Itoa(3+i))
	}
	q := `WITH g AS MATERIALIZED (SELECT c.rid, ` + strings.Join(test, " AND ") + ` AS hit FROM comments c WHERE ` + cand + ` LIMIT ` + lim + `+1),
		k AS (SELECT count(*) AS n FROM g)
		SELECT * FROM (SELECT 0 AS s, k.n, h.* FROM k, LATERAL (` + p.sql("", `g JOIN comments c ON c.rid = g.rid`, "g.hit") + `) h WHERE k.n <= ` + lim + `
			UNION ALL SELECT 1, k.n, '', '', ''::bytea, ''::bytea, '', '', 0, '', ''::bytea FROM k) u
		ORDER BY s, at_ns DESC, idkey DESC`
	var last, n int64
	found, err := s.runPlanned(ctx, tx, p, off, q, args, &last, &n)
	if err != nil {
		return nil, false, err
	}
	if len(found) == 0 || n > int64(few) {
		return nil, false, nil
	}
	return found[:len(found)-1], true, nil
}

// gramConds are the plan's parameters with one more for each key (its tokens, set by the
// caller) and the condition on grams each is: every key in a comment's tokens.
func (p *plan) gramConds(keys []string) ([]any, string) {
	args := append([]any(nil), p.args...)
	conds := make([]string, len(keys))
	for i := range keys {
		args = append(args, nil)
		conds[i] = `c.grams && $` + strconv.Itoa(len(args)) + `::text[]`
	}
	return args, strings.Join(conds, " AND ")
}

// bucketTokens are a key's tokens in the buckets from to to.
func bucketTokens(key string, from, to int64) []string {
	toks := make([]string, 0, to-from+1)
	for x := from; x <= to; x++ {
		toks = append(toks, fmt.Sprintf("%x:%s", uint64(x), key))
	}
	return toks
}

// bucketWalk finds a query of short terms through the short-term index: the comments holding
// every key (gramKeys) in their bucket's tokens, bucket by bucket of their time, newest bucket
// first (one bucket, then two, four, up to maxBucketsPerStatement), each lookup's rows tested
// and ordered, until want hits are found or the space's oldest bucket was read. Every hit of a
// bucket is newer than every comment of an older one, so the hits are the newest of all. The
// keys are one condition each on the one index, so its scan intersects their posting lists
// (skipping through a common key's by the rarer ones') before a row is read.
func (s *Store) bucketWalk(ctx context.Context, tx pgx.Tx, p *plan, keys []string, lo, hi int64, want int) ([]hitRow, error) {
	args, conds := p.gramConds(keys)
	first := len(p.args)
	// the terms are tested in the scan of the short-term index that finds the comments, on
	// (itext || ''), which pg_trgm's index cannot serve: the comments of a common long term
	// are never read whole for a bucket's few; only the hits are read again, joined
	var like []string
	for i := range p.terms {
		like = append(like, `(c.itext || '') LIKE $`+strconv.Itoa(3+i))
	}
	q := p.sql(`WITH g AS MATERIALIZED (SELECT c.rid FROM comments c WHERE `+conds+` AND c.space = $1 AND `+strings.Join(like, " AND ")+`) `,
		`g JOIN comments c ON c.rid = g.rid`)
	var found []hitRow
	span := int64(1)
	for b := hi; b >= lo && len(found) < want; {
		if err := errs.Stopped(ctx, "space search"); err != nil {
			return nil, err
		}
		from := b - span + 1
		if from < lo || from > b {
			from = lo
		}
		for i, k := range keys {
			args[first+i] = bucketTokens(k, from, b)
		}
		// never a sequential scan: testing grams && on every row detoasts every comment's
		// tokens (4 s at 200,000 comments, where the index takes milliseconds)
		rows, err := s.runPlanned(ctx, tx, p, []string{"enable_seqscan"}, q, args)
		if err != nil {
			return nil, err
		}
		found = append(found, rows...)
		if from == lo {
			break
		}
		b = from - 1
		if span < maxBucketsPerStatement {
			span *= 2
		}
	}
	if len(found) > want {
		found = found[:want]
	}
	return found, nil
}

// neighbours are up to n comments of the task just before and just after a position, oldest first.
func (s *Store) neighbours(ctx context.Context, tx pgx.Tx, task string, atNS int64, idkey string, n int) (before, after []spaces.Entry, err error) {
	before, err = s.entries(ctx, tx, `SELECT id, author, kind, created_at, body FROM comments
		WHERE task = $1 AND (at_ns, idkey) < ($2, $3) ORDER BY at_ns DESC, idkey DESC LIMIT `+strconv.Itoa(n), task, atNS, idkey)
	if err != nil {
		return nil, nil, err
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	after, err = s.entries(ctx, tx, `SELECT id, author, kind, created_at, body FROM comments
		WHERE task = $1 AND (at_ns, idkey) > ($2, $3) ORDER BY at_ns, idkey LIMIT `+strconv.Itoa(n), task, atNS, idkey)
	if err != nil {
		return nil, nil, err
	}
	return before, after, nil
}

// entries reads raw comments.
func (s *Store) entries(ctx context.Context, tx pgx.Tx, q string, args ...any) ([]spaces.Entry, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, s.dbErr(ctx, err, "read neighbours")
	}
	defer rows.Close()
	out := []spaces.Entry{}
	for rows.Next() {
		var e spaces.Entry
		var id string
		var author, body []byte
		if err := rows.Scan(&id, &author, &e.Kind, &e.CreatedAt, &body); err != nil {
			return nil, s.dbErr(ctx, err, "read neighbours")
		}
		e.Ref, e.Author, e.Body = "comment:"+id, string(author), string(body)
		out = append(out, e)
	}
	return out, s.dbErr(ctx, rows.Err(), "read neighbours")
}

// around reads a comment of another task of the space and its neighbours each side, raw.
func (s *Store) around(ctx context.Context, tx pgx.Tx, sc scope, in spaces.SearchInput) (*spaces.AroundResult, error) {
	id, err := spaces.ParseRef("comment", in.Around)
	if err != nil {
		return nil, err
	}
	var target spaces.Entry
	var taskID, idkey string
	var title, author, body []byte
	var atNS int64
	err = tx.QueryRow(ctx, `SELECT c.task, COALESCE(t.dtitle, ''::bytea), c.author, c.kind, c.created_at, c.body, c.at_ns, c.idkey
		FROM comments c JOIN tasks t ON t.id = c.task
		WHERE c.id = $1 AND c.space = $2 AND t.space = $2 AND c.task <> $3`,
		string(id), string(sc.space), string(sc.task)).Scan(&taskID, &title, &author, &target.Kind, &target.CreatedAt, &body, &atNS, &idkey)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errs.NotFoundf("comment:%s not found in the other tasks of this space", id)
	}
	if err != nil {
		return nil, s.dbErr(ctx, err, "read comment")
	}
	target.Author, target.Body = string(author), string(body)
	target.Ref, target.Target = "comment:"+string(id), true
	before, after, err := s.neighbours(ctx, tx, taskID, atNS, idkey, in.Context)
	if err != nil {
		return nil, err
	}
	comments := append(append(before, target), after...)
	source, err := s.spaceSource(ctx, tx, sc.space)
	if err != nil {
		return nil, err
	}
	return &spaces.AroundResult{Target: target.Ref, Task: "task:" + taskID, TaskTitle: string(title), Session: spaces.SessionOf(source, taskID),
		Comments: comments, Context: in.Context}, nil
}

// spaceSource is where a space came from (claude-code, codex, ...), or "".
func (s *Store) spaceSource(ctx context.Context, tx pgx.Tx, space spaces.ID) (string, error) {
	var src string
	err := tx.QueryRow(ctx, `SELECT source FROM spaces WHERE id = $1`, string(space)).Scan(&src)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return src, s.dbErr(ctx, err, "read the space's source")
}
