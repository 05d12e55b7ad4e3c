// Package memory is the project memory and knowledge store: Markdown files under
// memory/ and knowledge/, addressed by kind and slug, searched by scanning them on every call.
package memory

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sahilm/fuzzy"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Kind says which family of entry a slug names; it decides the directory the file lives in.
type Kind string

// The four kinds of memory entry.
const (
	KindSummary   Kind = "summary"
	KindDecision  Kind = "decision"
	KindRequest   Kind = "request"
	KindKnowledge Kind = "knowledge"
)

// allKinds lists every kind in the order refs are resolved and errors list them.
func allKinds() []Kind { return []Kind{KindSummary, KindDecision, KindRequest, KindKnowledge} }

const (
	summarySlug  = "summary"
	summaryPath  = "memory/summary.md"
	maxSlugBytes = 200
	validKinds   = "summary, decision, request, knowledge"
)

// dir is the workspace-relative directory holding a kind's files ("" for the summary).
func (k Kind) dir() string {
	switch k {
	case KindDecision:
		return "memory/decisions"
	case KindRequest:
		return "memory/requests"
	case KindKnowledge:
		return "knowledge"
	}
	return ""
}

// ParseKind checks a kind name given by a user or an agent.
func ParseKind(s string) (Kind, error) {
	for _, k := range allKinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", errs.Invalidf("unknown kind %q (valid: %s)", s, validKinds)
}

// ValidateSlug keeps a slug to one path segment (no /, no leading dot), so it can only ever
// name one file in its kind's directory.
func ValidateSlug(slug string) error {
	switch {
	case slug == "":
		return errs.Invalidf("slug is empty; a slug is a file name without .md")
	case !utf8.ValidString(slug):
		return errs.Invalidf("slug %q is not valid UTF-8", slug)
	case len(slug) > maxSlugBytes:
		return errs.Invalidf("slug is %d bytes long; at most %d are allowed", len(slug), maxSlugBytes)
	case slug == "." || slug == "..":
		return errs.Invalidf("slug %q is not a file name", slug)
	case strings.ContainsAny(slug, `/\`):
		return errs.Invalidf("slug %q contains a path separator; a slug is one file name without .md", slug)
	case strings.HasPrefix(slug, "."):
		return errs.Invalidf("slug %q starts with '.'; hidden files are not entries", slug)
	}
	for _, r := range slug {
		if unicode.IsControl(r) {
			return errs.Invalidf("slug %q contains the control character %U", slug, r)
		}
	}
	return nil
}

// Address resolves kind and slug to the workspace-relative path of the entry, validating both.
// The summary takes no slug, or the slug "summary".
func Address(kind, slug string) (Kind, string, string, error) {
	k, err := ParseKind(kind)
	if err != nil {
		return "", "", "", err
	}
	if k == KindSummary {
		if slug != "" && slug != summarySlug {
			return "", "", "", errs.Invalidf("kind summary has no slug (got %q; omit it or use \"summary\")", slug)
		}
		return k, summarySlug, summaryPath, nil
	}
	if slug == "" {
		return "", "", "", errs.Invalidf("kind %s needs a slug (the file name without .md)", k)
	}
	if err := ValidateSlug(slug); err != nil {
		return "", "", "", err
	}
	return k, slug, k.dir() + "/" + slug + ".md", nil
}

// Ref is a kind and slug as printed by search (`decision:auth-flow`) or written by a person (`#auth-flow`).
type Ref struct {
	Kind Kind
	Slug string
}

// String prints the ref in the `kind:slug` form that ParseRef and ResolveRef accept.
func (r Ref) String() string {
	if r.Kind == KindSummary {
		return summarySlug
	}
	return string(r.Kind) + ":" + r.Slug
}

// ParseRef splits `kind:slug` (or `summary`); ok is false when s is not in that form. It does not
// handle `#slug`, which needs the workspace: see ResolveRef.
func ParseRef(s string) (Ref, bool) {
	if s == summarySlug {
		return Ref{KindSummary, summarySlug}, true
	}
	k, slug, found := strings.Cut(s, ":")
	if !found {
		return Ref{}, false
	}
	kind, err := ParseKind(k)
	if err != nil {
		return Ref{}, false
	}
	if kind == KindSummary && slug == "" {
		slug = summarySlug
	}
	return Ref{kind, slug}, true
}

// ResolveRef turns `kind:slug` or `#slug` into a kind and slug; `#slug` is looked up in every kind
// and must name exactly one existing entry.
func ResolveRef(root *os.Root, ref string) (Ref, error) {
	if r, ok := ParseRef(ref); ok {
		if _, _, _, err := Address(string(r.Kind), r.Slug); err != nil {
			return Ref{}, err
		}
		return r, nil
	}
	slug, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return Ref{}, errs.Invalidf("%q is neither a kind (%s) nor a ref (decision:SLUG or #SLUG)", ref, validKinds)
	}
	if err := ValidateSlug(slug); err != nil {
		return Ref{}, err
	}
	var found []Ref
	for _, k := range allKinds() {
		if k == KindSummary && slug != summarySlug {
			continue
		}
		_, s, rel, err := Address(string(k), slug)
		if err != nil {
			return Ref{}, err
		}
		if _, err := root.Lstat(rel); err == nil {
			found = append(found, Ref{k, s})
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var all []string
		for _, k := range allKinds() {
			for _, s := range listSlugs(root, k) {
				all = append(all, Ref{k, s}.String())
			}
		}
		return Ref{}, errs.NotFoundf("no entry #%s in any kind%s", slug, didYouMean(slug, all, true))
	}
	names := make([]string, len(found))
	for i, r := range found {
		names[i] = r.String()
	}
	return Ref{}, errs.Invalidf("#%s is ambiguous: %s; name the kind", slug, strings.Join(names, ", "))
}

// Slugs lists the entries of a kind, sorted, for shell completion and suggestions.
func Slugs(ws *workspace.Workspace, k Kind) []string {
	root, err := OpenRoot(ws)
	if err != nil {
		return nil
	}
	defer root.Close()
	return listSlugs(root, k)
}

// listSlugs is every entry of a kind that a slug can address, sorted.
func listSlugs(root *os.Root, k Kind) []string {
	if k == KindSummary {
		if _, err := root.Lstat(summaryPath); err == nil {
			return []string{summarySlug}
		}
		return nil
	}
	d, err := root.Open(k.dir())
	if err != nil {
		return nil
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil && len(ents) == 0 {
		return nil
	}
	var out []string
	for _, e := range ents {
		if slug, ok := entrySlug(e); ok {
			out = append(out, slug)
		}
	}
	sort.Strings(out)
	return out
}

// entrySlug is the slug of a directory entry that is an entry file (name.md, regular or symlink,
// not hidden); ok is false otherwise. Names that are not valid slugs are reported by search.
func entrySlug(e fs.DirEntry) (string, bool) {
	name := e.Name()
	if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
		return "", false
	}
	if t := e.Type(); t != 0 && t&fs.ModeSymlink == 0 {
		return "", false
	}
	slug := strings.TrimSuffix(name, ".md")
	if ValidateSlug(slug) != nil {
		return "", false
	}
	return slug, true
}

// didYouMean ranks candidates by fuzzy match against slug and phrases up to three of them; with
// refs the candidates are `kind:slug` and are matched on their slug part.
func didYouMean(slug string, candidates []string, refs bool) string {
	if len(candidates) == 0 {
		return ""
	}
	keys := candidates
	if refs {
		keys = make([]string, len(candidates))
		for i, c := range candidates {
			_, keys[i], _ = strings.Cut(c, ":")
		}
	}
	matches := fuzzy.Find(slug, keys)
	sort.SliceStable(matches, func(i, j int) bool {
		if matches[i].Score != matches[j].Score {
			return matches[i].Score > matches[j].Score
		}
		return matches[i].Index < matches[j].Index
	})
	var out []string
	seen := map[int]bool{}
	for _, m := range matches {
		if len(out) == 3 {
			break
		}
		out = append(out, candidates[m.Index])
		seen[m.Index] = true
	}
	// fuzzy matches the typed letters in order, so a typo ("link-expire" for "link-expiry")
	// finds nothing; close names by edit distance fill the remaining places.
	type near struct{ i, d int }
	var nears []near
	limit := max(2, utf8.RuneCountInString(slug)/3)
	for i, k := range keys {
		if d := editDistance(slug, k); !seen[i] && d <= limit {
			nears = append(nears, near{i, d})
		}
	}
	sort.SliceStable(nears, func(a, b int) bool { return nears[a].d < nears[b].d })
	for _, n := range nears {
		if len(out) == 3 {
			break
		}
		out = append(out, candidates[n.i])
	}
	if len(out) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(out, ", ") + "?"
}

// editDistance is the Levenshtein distance between a and b in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// notFound is the NOT_FOUND error for an entry, with fuzzy suggestions from the same kind.
func notFound(root *os.Root, k Kind, slug, rel string) error {
	if k == KindSummary {
		return errs.NotFoundf("no summary yet (%s does not exist); create it with 'cairn memory write summary'", rel)
	}
	return errs.NotFoundf("no %s %q (%s does not exist)%s", k, slug, rel, didYouMean(slug, listSlugs(root, k), false))
}

// isNotExist reports a missing file, including a dangling symlink.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// escapes reports whether a workspace-relative symlink target leaves the workspace or points into
// a directory no tool reads; it is a lexical check made before os.Root enforces containment.
func escapes(rel, target, wsRoot string) bool {
	if path.IsAbs(target) {
		r := strings.TrimSuffix(wsRoot, "/") + "/"
		if !strings.HasPrefix(target, r) {
			return true
		}
		target = strings.TrimPrefix(target, r)
	} else {
		target = path.Join(path.Dir(rel), target)
	}
	target = path.Clean(target)
	if target == ".." || strings.HasPrefix(target, "../") {
		return true
	}
	return excluded(target)
}

// excluded reports a path inside memory/workflow/ or memory/_staging/, which no tool opens.
func excluded(rel string) bool {
	for _, ex := range [...]string{"memory/workflow", "memory/_staging"} {
		if rel == ex || strings.HasPrefix(rel, ex+"/") {
			return true
		}
	}
	return false
}
