package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// External samples are read at run time from public repositories fetched onto this machine (bare
// git directories, read with git show): gitleaks (MIT) and Yelp's detect-secrets (Apache-2.0).
// Nothing of them is copied into this repository; the bench reads them where they are, as it reads
// the module cache for false positives.

func gitShow(gitDir, rev, path string) (string, error) {
	out, err := exec.Command("git", "--git-dir", gitDir, "show", rev+":"+path).Output()
	return string(out), err
}

func gitFiles(gitDir, under string) ([]string, error) {
	out, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "--name-only", "HEAD", under).Output()
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

func gitHead(gitDir string) string {
	out, _ := exec.Command("git", "--git-dir", gitDir, "rev-parse", "--short=12", "HEAD").Output()
	return strings.TrimSpace(string(out))
}

// findGitDir is the git directory of a fetched owner+name under root, or "".
func findGitDir(root, ownerName string) string {
	for _, p := range []string{filepath.Join(root, ownerName, "repo"), filepath.Join(root, ownerName)} {
		if st, err := os.Stat(filepath.Join(p, "HEAD")); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// external reads every source it finds under root; what is missing is reported and skipped.
func external(root string, note func(string)) []Sample {
	var out []Sample
	if d := findGitDir(root, "gitleaks+gitleaks"); d != "" {
		s, err := gitleaksSamples(d)
		if err != nil {
			note("gitleaks: " + err.Error())
		}
		out = append(out, s...)
	} else {
		note("gitleaks not fetched under " + root + ": its samples are left out")
	}
	if d := findGitDir(root, "Yelp+detect-secrets"); d != "" {
		s, err := detectSecretsSamples(d)
		if err != nil {
			note("detect-secrets: " + err.Error())
		}
		out = append(out, s...)
	} else {
		note("detect-secrets not fetched under " + root + ": its samples are left out")
	}
	return out
}

// --- gitleaks: each rule's true positives in cmd/generate/config/rules/*.go ---

// glRule is what this reader understands of one gitleaks rule function.
type glRule struct {
	id          string
	re          *regexp.Regexp // the rule's pattern, when it could be rebuilt
	secretGroup int
	literals    []string // true positives written out as text
	secrets     []string // secrets the rule's tests generate and wrap in sample texts
}

// shapes are the texts this bench wraps a generated gitleaks secret in (gitleaks' own wrappers
// are its code; these are written here): an assignment, a YAML key, a header and a sentence.
var shapes = []string{
	"%[1]s_TOKEN=%[2]s",
	"%[1]s_api_key: \"%[2]s\"",
	"the %[1]s key is %[2]s",
	`{"%[1]s_secret": "%[2]s"}`,
}

func gitleaksSamples(gitDir string) ([]Sample, error) {
	files, err := gitFiles(gitDir, "cmd/generate/config/rules/")
	if err != nil {
		return nil, err
	}
	head := gitHead(gitDir)
	var out []Sample
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := gitShow(gitDir, "HEAD", f)
		if err != nil {
			return out, err
		}
		rules, err := parseGitleaksRules(src)
		if err != nil {
			continue
		}
		for _, r := range rules {
			kind := "gitleaks/" + r.id
			source := "github.com/gitleaks/gitleaks@" + head + ":" + f
			for _, lit := range r.literals {
				if secret := credentialOf(r.secretIn(lit)); len(secret) >= 8 {
					out = append(out, Sample{Kind: kind, Group: "gitleaks", Text: lit, Secret: secret, Source: source, Licence: "MIT"})
				}
			}
			for i, secret := range r.secrets {
				if len(secret) < 8 {
					continue
				}
				ident := strings.ReplaceAll(strings.SplitN(r.id, "-", 2)[0], "-", "_")
				text := fmt.Sprintf(shapes[i%len(shapes)], ident, secret)
				out = append(out, Sample{Kind: kind, Group: "gitleaks", Text: text, Secret: secret, Source: source + " (secret format; text written here)", Licence: "MIT"})
			}
		}
	}
	return out, nil
}

// secretIn is the secret a rule finds in a true positive: its secret group, else the first group
// that took part, else the whole match.
func (r glRule) secretIn(text string) string {
	if r.re == nil {
		return ""
	}
	m := r.re.FindStringSubmatchIndex(text)
	if m == nil {
		return ""
	}
	if g := r.secretGroup; g > 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
		return text[m[2*g]:m[2*g+1]]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return text[m[2*g]:m[2*g+1]]
		}
	}
	return text[m[0]:m[1]]
}

// credentialOf is the secret part of a match that is a whole URL (a webhook, a URL with a
// password): its user information, else its path; the scheme and host are not secret.
func credentialOf(secret string) string {
	rest := secret
	if _, r, ok := strings.Cut(secret, "://"); ok {
		rest = r
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			return rest[:at]
		}
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok || !strings.Contains(host, ".") {
		return secret
	}
	// the path's leading words (services/, api/v1/) are not secret either
	for {
		seg, more, ok := strings.Cut(path, "/")
		if !ok || strings.Trim(seg, "abcdefghijklmnopqrstuvwxyz") != "" && len(seg) > 3 {
			return path
		}
		path = more
	}
}

// parseGitleaksRules evaluates the little of Go that the rule files use to state their patterns
// and true positives: string literals, +, fmt-free helpers of gitleaks' utils (character classes of
// a size) and secrets.NewSecret(pattern), which here draws a random string of the pattern.
func parseGitleaksRules(src string) ([]glRule, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "rules.go", src, 0)
	if err != nil {
		return nil, err
	}
	pkgEnv := map[string]ast.Expr{}
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, spec := range g.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							pkgEnv[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	var rules []glRule
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(fn.Name.Name))
		ev := &evaluator{env: map[string]ast.Expr{}, pkg: pkgEnv, rng: rand.New(rand.NewPCG(h.Sum64(), 1))}
		var r glRule
		var tpExprs []ast.Expr
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					id, ok := lhs.(*ast.Ident)
					if !ok || i >= len(n.Rhs) {
						continue
					}
					if id.Name == "tps" {
						tpExprs = append(tpExprs, n.Rhs[i])
					} else if n.Tok == token.DEFINE || n.Tok == token.ASSIGN {
						ev.env[id.Name] = n.Rhs[i]
					}
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Rule" {
					for _, el := range n.Elts {
						kv, ok := el.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						switch key := kv.Key.(*ast.Ident); {
						case key == nil:
						case key.Name == "RuleID":
							r.id, _ = ev.str(kv.Value)
						case key.Name == "Regex":
							r.re = ev.regex(kv.Value)
						case key.Name == "SecretGroup":
							if lit, ok := kv.Value.(*ast.BasicLit); ok {
								r.secretGroup, _ = strconv.Atoi(lit.Value)
							}
						}
					}
				}
			}
			return true
		})
		if r.id == "" {
			continue
		}
		for _, e := range tpExprs {
			ev.truePositives(e, &r)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

type evaluator struct {
	env, pkg map[string]ast.Expr
	rng      *rand.Rand
	depth    int
}

func (ev *evaluator) lookup(name string) ast.Expr {
	if e, ok := ev.env[name]; ok {
		return e
	}
	return ev.pkg[name]
}

func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
	case *ast.Ident:
		return f.Name
	}
	return ""
}

// str evaluates a string expression.
func (ev *evaluator) str(e ast.Expr) (string, bool) {
	ev.depth++
	defer func() { ev.depth-- }()
	if ev.depth > 20 {
		return "", false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.ParenExpr:
		return ev.str(e.X)
	case *ast.Ident:
		if x := ev.lookup(e.Name); x != nil {
			return ev.str(x)
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			a, ok1 := ev.str(e.X)
			b, ok2 := ev.str(e.Y)
			return a + b, ok1 && ok2
		}
	case *ast.CallExpr:
		arg := func(i int) (string, bool) {
			if i >= len(e.Args) {
				return "", false
			}
			return ev.str(e.Args[i])
		}
		class := map[string]string{"utils.Numeric": "[0-9]", "utils.Hex": "[a-f0-9]", "utils.AlphaNumeric": "[a-z0-9]",
			"utils.AlphaNumericExtendedShort": "[a-z0-9_-]", "utils.AlphaNumericExtended": `[a-z0-9=_\-]`, "utils.AlphaNumericExtendedLong": `[a-z0-9\/=_\+\-]`}
		name := callName(e)
		if c, ok := class[name]; ok {
			n, ok := arg(0)
			return c + "{" + n + "}", ok
		}
		switch name {
		case "utils.Hex8_4_4_4_12":
			return `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, true
		case "secrets.NewSecret":
			p, ok := arg(0)
			if !ok {
				return "", false
			}
			return randomOf(p, ev.rng)
		case "strings.Repeat":
			s, ok1 := arg(0)
			if len(e.Args) > 1 {
				if lit, ok := e.Args[1].(*ast.BasicLit); ok {
					n, _ := strconv.Atoi(lit.Value)
					return strings.Repeat(s, n), ok1
				}
			}
		}
	}
	return "", false
}

// regex rebuilds a rule's pattern: a literal, or gitleaks' two generators, whose shape (an
// identifier, an operator, the secret in group 1) is approximated here.
func (ev *evaluator) regex(e ast.Expr) *regexp.Regexp {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		if id, ok := e.(*ast.Ident); ok {
			if x := ev.lookup(id.Name); x != nil {
				return ev.regex(x)
			}
		}
		return nil
	}
	var p string
	switch callName(c) {
	case "regexp.MustCompile":
		if len(c.Args) == 1 {
			p, ok = ev.str(c.Args[0])
		}
	case "utils.GenerateSemiGenericRegex":
		if len(c.Args) == 3 {
			ids := ev.strs(c.Args[0])
			var sec string
			sec, ok = ev.str(c.Args[1])
			p = `(?i)(?:` + strings.Join(ids, "|") + `)(?:[0-9a-z_.\t -]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}(` + sec + `)(?:[\x60'"\s;]|\\[nr]|$)`
			ok = ok && len(ids) > 0
		}
	case "utils.GenerateUniqueTokenRegex":
		if len(c.Args) == 2 {
			var sec string
			sec, ok = ev.str(c.Args[0])
			p = `(?i)\b(` + sec + `)(?:[\x60'"\s;]|\\[nr]|$)`
		}
	}
	if !ok || p == "" {
		return nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	return re
}

func (ev *evaluator) strs(e ast.Expr) []string {
	if id, ok := e.(*ast.Ident); ok {
		if x := ev.lookup(id.Name); x != nil {
			return ev.strs(x)
		}
	}
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, el := range cl.Elts {
		if s, ok := ev.str(el); ok {
			out = append(out, s)
		}
	}
	return out
}

// truePositives adds what a tps expression holds: texts written out, and the secrets of
// utils.GenerateSampleSecret(s) calls.
func (ev *evaluator) truePositives(e ast.Expr, r *glRule) {
	switch e := e.(type) {
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			ev.truePositives(el, r)
		}
	case *ast.CallExpr:
		switch callName(e) {
		case "append":
			for _, a := range e.Args[1:] {
				ev.truePositives(a, r)
			}
		case "utils.GenerateSampleSecrets", "utils.GenerateSampleSecret":
			if len(e.Args) == 2 {
				// a fresh secret per shape
				for range len(shapes) {
					if s, ok := ev.str(e.Args[1]); ok {
						r.secrets = append(r.secrets, s)
					}
				}
			}
		default:
			if s, ok := ev.str(e); ok {
				r.literals = append(r.literals, s)
			}
		}
	case *ast.Ident:
		if x := ev.lookup(e.Name); x != nil && x != ast.Expr(e) {
			ev.truePositives(x, r)
		}
	default:
		if s, ok := ev.str(e); ok {
			r.literals = append(r.literals, s)
		}
	}
}

// randomOf draws a string that pattern matches: each class picks a random member (printable
// ASCII), each repetition a random count, with unbounded ones kept short.
func randomOf(pattern string, rng *rand.Rand) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		fold := re.Flags&syntax.FoldCase != 0
		switch re.Op {
		case syntax.OpLiteral:
			for _, c := range re.Rune {
				b.WriteRune(c)
			}
		case syntax.OpCharClass:
			var members []rune
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for c := max(re.Rune[i], 33); c <= min(re.Rune[i+1], 126); c++ {
					members = append(members, c)
				}
			}
			if len(members) == 0 && len(re.Rune) > 0 {
				members = []rune{re.Rune[0]}
			}
			if len(members) > 0 {
				c := members[rng.IntN(len(members))]
				if fold && c >= 'a' && c <= 'z' && rng.IntN(2) == 0 {
					c -= 'a' - 'A'
				}
				b.WriteRune(c)
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte(alnum[rng.IntN(len(alnum))])
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				walk(s)
			}
		case syntax.OpAlternate:
			walk(re.Sub[rng.IntN(len(re.Sub))])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, 1
			switch re.Op {
			case syntax.OpStar:
				hi = 3
			case syntax.OpPlus:
				lo, hi = 1, 4
			case syntax.OpRepeat:
				lo, hi = re.Min, re.Max
				if hi < 0 {
					hi = lo + 3
				}
			}
			n := lo + rng.IntN(hi-lo+1)
			for range n {
				walk(re.Sub[0])
			}
		}
	}
	walk(re)
	return b.String(), true
}

// --- detect-secrets: the payloads its plugin tests expect to be flagged ---

var (
	dsCase = regexp.MustCompile(`\(\s*(?:[rfb]?'((?:[^'\\]|\\.)*)'|[rfb]?"((?:[^"\\]|\\.)*)")\s*,\s*True\s*,?\s*\)`)
	// the secret of a payload: its longest run of token characters
	dsToken = regexp.MustCompile(`[A-Za-z0-9+/=_.~!@#$%^&*-]{8,}`)
)

func detectSecretsSamples(gitDir string) ([]Sample, error) {
	files, err := gitFiles(gitDir, "tests/plugins/")
	if err != nil {
		return nil, err
	}
	head := gitHead(gitDir)
	var out []Sample
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.py") {
			continue
		}
		src, err := gitShow(gitDir, "HEAD", f)
		if err != nil {
			return out, err
		}
		plugin := strings.TrimSuffix(filepath.Base(f), "_test.py")
		// the plugins that find words, IPs and entropy are not about kinds of secret
		if plugin == "base" || plugin == "ip_public" || plugin == "high_entropy_strings" {
			continue
		}
		for _, m := range dsCase.FindAllStringSubmatch(src, -1) {
			payload := m[1] + m[2]
			if strings.ContainsAny(payload, "{}") { // a format template, not a text
				continue
			}
			payload = pyUnescape(payload)
			var secret string
			for _, t := range dsToken.FindAllString(payload, -1) {
				t = strings.TrimRight(t, ".")
				if len(t) > len(secret) {
					secret = t
				}
			}
			if len(secret) < 8 || !strings.Contains(payload, secret) {
				continue
			}
			out = append(out, Sample{Kind: "detect-secrets/" + plugin, Group: "detect-secrets", Text: payload, Secret: secret,
				Source: "github.com/Yelp/detect-secrets@" + head + ":" + f, Licence: "Apache-2.0"})
		}
	}
	return out, nil
}

func pyUnescape(s string) string {
	r := strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`, `\n`, "\n", `\t`, "\t")
	return r.Replace(s)
}
