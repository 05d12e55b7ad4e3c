package memory

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The agent runtimes' own memory files, searched read-only by `memory search --agent-memory`:
//
//   - Claude Code's auto memory: <config>/projects/<project>/memory/ (MEMORY.md, the index it
//     loads into every session, and one topic file per memory), where <config> is
//     $CLAUDE_CONFIG_DIR or ~/.claude and <project> is the project's directory, the canonical
//     git root when there is one (every worktree of a repository shares it), with every character
//     but an ASCII letter or digit written '-' (per UTF-16 unit, as its JavaScript does), and a
//     hash appended after 200 characters.
//   - Codex's memories: $CODEX_HOME/memories/ or ~/.codex/memories/ (codex-rs/core/src/memories):
//     memory_summary.md (the account's profile and index, loaded into every session), MEMORY.md
//     (handbook blocks, each opened by a header whose rollout_summary_files annotations name the
//     cwd=<path> of the sessions it came from) and rollout_summaries/*.md (one recap a session,
//     its cwd: in its metadata). A block or recap belongs to the projects its cwd names; the
//     summary to every project.

// Agent memory scopes: this project's files (the default) or every project's.
const (
	ScopeProject = "project"
	ScopeAll     = "all"
)

// AgentScopes are the values of SearchInput.Scope.
var AgentScopes = []string{ScopeProject, ScopeAll}

// Runtimes whose memory files are searched.
const (
	RuntimeClaudeCode = "claude-code"
	RuntimeCodex      = "codex"
)

// maxAgentFiles bounds the files one agent memory search reads.
const maxAgentFiles = 20000

// AgentMemoryHit is one hit in an agent runtime's memory file.
type AgentMemoryHit struct {
	Runtime string `json:"runtime"` // claude-code or codex
	// Project is the directory of the project the hit belongs to; "" for a file of the whole
	// account (Codex's memory_summary.md), which every project reads.
	Project string `json:"project"`
	Path    string `json:"path"` // absolute
	Line    int    `json:"line"`
	Excerpt string `json:"excerpt"` // secrets redacted
	Lines   Lines  `json:"-"`
}

// agentFile is one memory file in scope, with the project it belongs to (claude-code), or the
// rule that tells the project of each of its lines (codex).
type agentFile struct {
	runtime, path, project string
	blocks                 bool // Codex's MEMORY.md: each block's header names its projects
	account                bool // Codex's memory_summary.md: every project's
	recap                  bool // a Codex rollout summary: its cwd: line names its project
}

// claudeProjectName is a directory as Claude Code names its project folder.
func claudeProjectName(dir string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(dir)) {
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// projectDirs are the directories that are this project: the workspace's root, the git
// repository it is in, and, for a worktree, the repository's main folder; symbolic links resolved.
func projectDirs(root string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if p = filepath.Clean(p); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(root)
	for d := root; ; d = filepath.Dir(d) {
		git := filepath.Join(d, ".git")
		if fi, err := os.Lstat(git); err == nil {
			add(d)
			if fi.Mode().IsRegular() {
				// a worktree: "gitdir: <main>/.git/worktrees/<name>"
				if data, err := readBounded(git, 4096); err == nil {
					g := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					if filepath.Base(filepath.Dir(g)) == "worktrees" {
						add(filepath.Dir(filepath.Dir(filepath.Dir(g))))
					}
				}
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// readBounded reads at most max bytes of a file.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// codexHome is where Codex keeps its state: $CODEX_HOME, else ~/.codex.
func codexHome() string { return workspace.RuntimeHome("CODEX_HOME", ".codex") }

// claudeFolderProject tells the directory a Claude Code project folder is for: the cwd its
// newest transcript records, else the folder's name.
func claudeFolderProject(folder string) string {
	entries, _ := os.ReadDir(folder)
	var newest string
	var at int64
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			if fi, err := e.Info(); err == nil && fi.ModTime().UnixNano() >= at {
				newest, at = e.Name(), fi.ModTime().UnixNano()
			}
		}
	}
	if newest != "" {
		if data, err := readBounded(filepath.Join(folder, newest), 64<<10); err == nil {
			if cwd := jsonField(string(data), `"cwd":"`); cwd != "" {
				return cwd
			}
		}
	}
	return filepath.Base(folder)
}

// jsonField is the string after key up to the next unescaped quote, or "".
func jsonField(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	s = s[i+len(key):]
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return strings.ReplaceAll(s[:j], `\/`, `/`)
		}
	}
	return ""
}

// agentFiles lists the memory files in scope, Claude Code's first, each runtime's by path.
func agentFiles(dirs []string, scope string) []agentFile {
	var out []agentFile
	if cfg := claudecode.ConfigDir(); cfg != "" {
		projects := filepath.Join(cfg, "projects")
		var folders []string
		var names []string // the project of each folder
		if scope == ScopeAll {
			entries, _ := os.ReadDir(projects)
			for _, e := range entries {
				if e.IsDir() {
					name := ""
					for _, d := range dirs {
						if claudeProjectName(d) == e.Name() {
							name = d // this project's folder, named as in project scope
						}
					}
					folders = append(folders, filepath.Join(projects, e.Name()))
					names = append(names, name)
				}
			}
		} else {
			entries, _ := os.ReadDir(projects)
			for _, d := range dirs {
				want := claudeProjectName(d)
				for _, e := range entries {
					n := e.Name()
					if e.IsDir() && (n == want || len(want) > 200 && strings.HasPrefix(n, want[:200]+"-")) {
						folders = append(folders, filepath.Join(projects, n))
						names = append(names, d)
					}
				}
			}
		}
		seen := map[string]bool{}
		for i, f := range folders {
			if seen[f] {
				continue
			}
			seen[f] = true
			mem := filepath.Join(f, "memory")
			entries, err := os.ReadDir(mem)
			if err != nil {
				continue
			}
			project := names[i]
			for _, e := range entries {
				if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") {
					if project == "" {
						project = claudeFolderProject(f)
					}
					out = append(out, agentFile{runtime: RuntimeClaudeCode, path: filepath.Join(mem, e.Name()), project: project})
				}
			}
		}
	}
	if home := codexHome(); home != "" {
		root := filepath.Join(home, "memories")
		for _, f := range []agentFile{
			{runtime: RuntimeCodex, path: filepath.Join(root, "MEMORY.md"), blocks: true},
			{runtime: RuntimeCodex, path: filepath.Join(root, "memory_summary.md"), account: true},
		} {
			if fi, err := os.Lstat(f.path); err == nil && fi.Mode().IsRegular() && (!f.account || scope == ScopeAll) {
				out = append(out, f)
			}
		}
		entries, _ := os.ReadDir(filepath.Join(root, "rollout_summaries"))
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") {
				out = append(out, agentFile{runtime: RuntimeCodex, path: filepath.Join(root, "rollout_summaries", e.Name()), recap: true})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].runtime != out[j].runtime {
			return out[i].runtime < out[j].runtime
		}
		return out[i].path < out[j].path
	})
	if len(out) > maxAgentFiles {
		out = out[:maxAgentFiles]
	}
	return out
}

// codexBlock is one block of a Codex MEMORY.md: its lines (first, last; 1-based, its header
// included) and the projects the cwd=<path> annotations of its header name.
type codexBlock struct {
	first, last int
	projects    []string
}

// codexBlocks splits a Codex MEMORY.md into its blocks, each opened by a header between "---"
// lines; the lines before the first header are a block of no project.
func codexBlocks(content []byte) []codexBlock {
	lines := strings.Split(string(content), "\n")
	out := []codexBlock{{first: 1}}
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "---" {
			continue
		}
		j := i + 1
		var cwds []string
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "---"; j++ {
			cwds = append(cwds, cwdValues(lines[j], "cwd=")...)
		}
		out[len(out)-1].last = i
		out = append(out, codexBlock{first: i + 1, projects: dedupe(cwds)})
		i = j
	}
	out[len(out)-1].last = len(lines)
	return out
}

// cwdValues are the paths after each key in a line, up to a comma, a closing parenthesis or the
// end of the line.
func cwdValues(line, key string) []string {
	var out []string
	for {
		i := strings.Index(line, key)
		if i < 0 {
			return out
		}
		line = line[i+len(key):]
		end := strings.IndexAny(line, ",)")
		if end < 0 {
			end = len(line)
		}
		if v := strings.TrimSpace(line[:end]); v != "" {
			out = append(out, filepath.Clean(v))
		}
		line = line[end:]
	}
}

// recapProject is the cwd a Codex rollout summary's metadata names (a "cwd:" or "cwd=" line in
// its first lines), or "".
func recapProject(content []byte) string {
	for i, l := range strings.SplitN(string(content), "\n", 40) {
		if i >= 39 {
			break
		}
		l = strings.TrimSpace(strings.TrimLeft(l, "-* "))
		for _, key := range []string{"cwd:", "cwd="} {
			if strings.HasPrefix(l, key) {
				if v := strings.TrimSpace(strings.Trim(strings.TrimSpace(l[len(key):]), "`")); v != "" {
					return filepath.Clean(v)
				}
			}
		}
	}
	return ""
}

// inProject reports whether a project directory is one of dirs or inside one.
func inProject(project string, dirs []string) bool {
	for _, d := range dirs {
		if project == d || strings.HasPrefix(project, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// agentMemorySearch searches the agent runtimes' memory files in scope, never writing them.
func agentMemorySearch(ctx context.Context, ws *workspace.Workspace, in SearchInput) (*MemorySearchResult, error) {
	p, err := searchParams(ws, in)
	if err != nil {
		return nil, err
	}
	scope := in.Scope
	if scope == "" {
		scope = ScopeProject
	}
	dirs := projectDirs(ws.Root)
	agentHits := []AgentMemoryHit{}
	out := &MemorySearchResult{Hits: []MemoryHit{}, AgentHits: &agentHits, Skipped: []string{}, SkippedWhy: map[string]string{}}
	r := redact.New()
	folder := &textmatch.Folder{}
	var matches []int
	for _, f := range agentFiles(dirs, scope) {
		if err := errs.Stopped(ctx, "memory search"); err != nil {
			return nil, err
		}
		fi, err := os.Stat(f.path)
		if err != nil {
			continue
		}
		if fi.Size() > MaxSearchFileSize {
			out.Skipped = append(out.Skipped, f.path)
			out.SkippedWhy[f.path] = "over 8 MiB"
			continue
		}
		content, err := readBounded(f.path, MaxSearchFileSize+1)
		if err != nil {
			out.Skipped = append(out.Skipped, f.path)
			out.SkippedWhy[f.path] = "unreadable"
			continue
		}
		matches = p.needle.MatchingLines(folder, content, matches[:0])
		if len(matches) == 0 {
			continue
		}
		project := f.project
		if f.recap {
			project = recapProject(content)
		}
		if scope == ScopeProject && !f.blocks && !f.account && !inProject(project, dirs) {
			continue
		}
		// the matches of each block apart (a whole file is one block but in Codex's MEMORY.md),
		// so an excerpt never runs into a block of another project
		blocks := []codexBlock{{first: 1, last: textmatch.CountLines(content), projects: []string{project}}}
		if f.blocks {
			blocks = codexBlocks(content)
		}
		for _, b := range blocks {
			var mine []int
			for _, m := range matches {
				if m >= b.first && m <= b.last {
					mine = append(mine, m)
				}
			}
			if len(mine) == 0 {
				continue
			}
			hp := project
			if f.blocks {
				var ps []string
				for _, c := range b.projects {
					if scope == ScopeAll || inProject(c, dirs) {
						ps = append(ps, c)
					}
				}
				if len(ps) == 0 && scope == ScopeProject {
					continue
				}
				hp = strings.Join(ps, ", ")
			}
			for _, g := range textmatch.GroupLines(mine, p.context, b.last) {
				if len(agentHits) == p.limit {
					out.Truncated = true
					break
				}
				from := max(g.From, b.first)
				lines := textmatch.Lines(content, from, g.To)
				for i, l := range lines {
					lines[i] = r.Text(l)
				}
				agentHits = append(agentHits, AgentMemoryHit{Runtime: f.runtime, Project: hp, Path: f.path, Line: g.Matches[0],
					Excerpt: strings.Join(lines, "\n"), Lines: Lines{From: from, Matches: g.Matches}})
			}
			if out.Truncated {
				break
			}
		}
		if out.Truncated {
			break
		}
	}
	sort.Strings(out.Skipped)
	return out, nil
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
