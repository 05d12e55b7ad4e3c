package spaces

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// defaultAnchorMax is the most candidates one token of a query may have for the search to read
// them all (rareAnchor): every match holds every token, so a rare token's few comments hold all
// of them, and reading those rows costs less than FTS5's AND of the rare token with common
// ones, which decodes the common tokens' doclists (gen-space's "613 migra": 19 comments hold
// "613", 50,056 "mig", "igr" and "gra"; the AND read 124 pages for 5 matches).
const defaultAnchorMax = 64

// anchorTokens is the most tokens a query's probe asks the indexes about.
const anchorTokens = 12

// commonMax bounds the tokens a store remembers as common; past it the set starts again.
const commonMax = 1 << 14

// anchorToken is one token of a query as an index holds it: a trigram of a three-character term
// in the trigram index, or a short term's token or a longer term's run of four in the
// short-term index.
type anchorToken struct {
	table, match string
}

// tokenSet is a set of tokens safe for the searches of one store at once.
type tokenSet struct {
	mu  sync.Mutex
	set map[anchorToken]bool
}

func (t *tokenSet) has(k anchorToken) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.set[k]
}

func (t *tokenSet) add(k anchorToken) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.set == nil || len(t.set) >= commonMax {
		t.set = map[anchorToken]bool{}
	}
	t.set[k] = true
}

// anchorTokensOf are the query's distinct tokens, three-character terms' trigrams first; none
// when the query has one token only (its own index stream is already the cheapest plan), more
// than anchorTokens, or a short term without a token.
func anchorTokensOf(p *queryPlan) []anchorToken {
	var toks []anchorToken
	tri, quads := p.splitLong()
	for _, g := range trigramsOf(tri) {
		toks = append(toks, anchorToken{"comments_fts", ftsPhrase(g)})
	}
	for _, q := range quads {
		toks = append(toks, anchorToken{"comments_short", q})
	}
	seen := map[string]bool{}
	for _, t := range p.short {
		tok, ok := shortToken(t)
		if !ok {
			return nil
		}
		if !seen[tok] {
			seen[tok] = true
			toks = append(toks, anchorToken{"comments_short", ftsPhrase(tok)})
		}
	}
	if len(toks) < 2 || len(toks) > anchorTokens {
		return nil
	}
	return toks
}

// rareAnchor reads, in one statement and with no row read, the first anchorMax+1 candidates of
// each of the query's tokens not known to be common, and gives the candidates that every rare
// token (at most anchorMax) has: every match is among them, and the plan's filters test every
// term on each. ok is false when every token is common (they are remembered as such) or the
// query has one token.
func (s *Store) rareAnchor(ctx context.Context, tx querier, p *queryPlan) (rids string, n int, ok bool, err error) {
	var ask []anchorToken
	for _, k := range anchorTokensOf(p) {
		if !s.common.has(k) {
			ask = append(ask, k)
		}
	}
	if len(ask) == 0 {
		return "", 0, false, nil
	}
	limit := sqlLimit(s.anchorMax + 1)
	parts := make([]string, len(ask))
	args := make([]any, len(ask))
	for i, k := range ask {
		parts[i] = `(SELECT json_group_array(r) FROM (SELECT rowid AS r FROM ` + k.table + ` WHERE ` + k.table + ` MATCH ? LIMIT ` + limit + `))`
		args[i] = k.match
	}
	lists := make([]string, len(ask))
	dest := make([]any, len(ask))
	for i := range lists {
		dest[i] = &lists[i]
	}
	if err := tx.QueryRowContext(ctx, `SELECT `+strings.Join(parts, ", "), args...).Scan(dest...); err != nil {
		return "", 0, false, s.dbErr(err, "search")
	}
	var both []int64 // the rowids every rare token has so far, ascending
	rare := false
	for i, l := range lists {
		var ids []int64
		if err := json.Unmarshal([]byte(l), &ids); err != nil {
			return "", 0, false, fmt.Errorf("read candidates: %w", err)
		}
		slices.Sort(ids) // (FTS5 gives them ascending; the intersection must not rely on it)
		if len(ids) > s.anchorMax {
			s.common.add(ask[i])
			continue
		}
		if !rare {
			both, rare = ids, true
			continue
		}
		both = intersectSorted(both, ids)
	}
	if !rare {
		return "", 0, false, nil
	}
	out, err := json.Marshal(both)
	if err != nil {
		return "", 0, false, fmt.Errorf("write candidates: %w", err)
	}
	return string(out), len(both), true, nil
}

// intersectSorted is the rowids both ascending lists hold, ascending.
func intersectSorted(a, b []int64) []int64 {
	out := a[:0:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
